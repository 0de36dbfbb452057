// The gate's policy: suppression files, baselines, statuses, pass and fail.
#include <gtest/gtest.h>

#include <initializer_list>
#include <stdexcept>

#include "analysis/gate.h"
#include "report/output.h"
#include "test_util.h"

namespace vkleak {
namespace {

using analysis::Finding;
using analysis::FindingKind;
using analysis::GateStatus;
using analysis::Suppressions;

Finding finding(FindingKind kind, const std::string& type, const std::string& name,
                const std::string& function) {
  Finding f;
  f.kind = kind;
  f.object_type = type;
  f.names = {name};
  f.name_pattern = analysis::name_pattern(name);
  f.count = 3;
  f.bytes = 300;
  if (!function.empty()) {
    analysis::Frame frame;
    frame.function = function;
    frame.file = "/src/engine/textures.cpp";
    frame.line = 42;
    frame.module = "libengine.so";
    frame.text = function + " (/src/engine/textures.cpp:42)";
    f.callsite.push_back(frame);
  }
  return f;
}

TEST(SuppressionsTest, KeyGlobRules) {
  const Suppressions s = Suppressions::parse(
      "# streaming keeps old textures on purpose\n"
      "\n"
      "kind=retained type=VkImage name=stream.* frame=TextureCache::*   # trailing comment\n"
      "type=VkSampler\n",
      "supp.txt");
  ASSERT_EQ(s.rules().size(), 2u);
  EXPECT_EQ(s.rules()[0].line, 3);
  const Finding hit =
      finding(FindingKind::kRetained, "VkImage", "stream.7", "TextureCache::load(int)");
  ASSERT_NE(s.match(hit), nullptr);
  EXPECT_EQ(s.match(hit)->line, 3);
  EXPECT_EQ(
      s.match(finding(FindingKind::kGrowth, "VkImage", "stream.7", "TextureCache::load(int)")),
      nullptr)
      << "kind differs";
  EXPECT_EQ(s.match(finding(FindingKind::kRetained, "VkImage", "ui.7", "TextureCache::load(int)")),
            nullptr)
      << "name differs";
  EXPECT_EQ(s.match(finding(FindingKind::kRetained, "VkImage", "stream.7", "Other::load()")),
            nullptr)
      << "frame differs";
  EXPECT_NE(s.match(finding(FindingKind::kLeakAtExit, "VkSampler", "x", "")), nullptr);
}

TEST(SuppressionsTest, FrameGlobsSeeFileAndModuleToo) {
  const Suppressions by_file = Suppressions::parse("frame=*/engine/*\n", "s");
  EXPECT_NE(by_file.match(finding(FindingKind::kGrowth, "VkBuffer", "b", "f()")), nullptr);
  const Suppressions by_module = Suppressions::parse("frame=libengine.so\n", "s");
  EXPECT_NE(by_module.match(finding(FindingKind::kGrowth, "VkBuffer", "b", "f()")), nullptr);
  // No call site: a frame rule cannot match.
  EXPECT_EQ(by_module.match(finding(FindingKind::kGrowth, "VkBuffer", "b", "")), nullptr);
}

TEST(SuppressionsTest, LeakSanitizerForm) {
  const Suppressions s = Suppressions::parse("retained:TextureCache\n*:textures.cpp\n", "s");
  ASSERT_EQ(s.rules().size(), 2u);
  EXPECT_EQ(
      s.match(finding(FindingKind::kRetained, "VkImage", "a", "TextureCache::load(int)"))->line, 1);
  EXPECT_EQ(s.match(finding(FindingKind::kGrowth, "VkImage", "a", "TextureCache::load(int)"))->line,
            2);
}

TEST(SuppressionsTest, MalformedRulesNameTheLine) {
  auto error = [](const std::string& text) {
    try {
      Suppressions::parse(text, "supp.txt");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("kind=growth\ncolour=red\n"),
            "supp.txt:2: unknown key 'colour' (use kind=, type=, name= or frame=)");
  EXPECT_NE(error("kind=leaks\n").find("supp.txt:1: 'leaks' matches no finding kind"),
            std::string::npos);
  EXPECT_NE(error("just words\n").find("supp.txt:1: expected KIND:PATTERN"), std::string::npos);
  EXPECT_NE(error("kind=\n").find("expected key=glob"), std::string::npos);
  EXPECT_THROW(Suppressions::load("/nonexistent/supp.txt"), std::runtime_error);
}

// LeakSanitizer's habit, leak:, is refused with every valid kind listed (issue 27, point 11).
TEST(SuppressionsTest, AnUnknownKindListsTheKinds) {
  try {
    Suppressions::parse("# ported from lsan.supp\nleak:ImGui_ImplVulkan_CreateFontsTexture\n",
                        "vkleak.supp");
    FAIL() << "leak: was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "vkleak.supp:2: 'leak' matches no finding kind; the kinds are leak_at_exit, growth, "
              "retained, stale_view, orphaned_memory, destroyed_in_flight, invalid_destroy, and * "
              "matches any (LeakSanitizer's leak: is leak_at_exit: here)");
  }
}

analysis::ReportDocument document(std::vector<Finding> findings) {
  analysis::ReportDocument doc;
  analysis::RunReport run;
  run.pid = 1;
  run.findings = std::move(findings);
  doc.runs.push_back(std::move(run));
  return doc;
}

TEST(BaselineTest, MatchesTypeFunctionAndNamePatternWhateverTheKind) {
  const analysis::ReportDocument old_doc =
      document({finding(FindingKind::kRetained, "VkImage", "stream.1", "TextureCache::load(int)")});
  const analysis::Baseline baseline =
      analysis::Baseline::parse(report::findings_json(old_doc).dump(), "base.json");
  EXPECT_EQ(baseline.size(), 1u);
  // Other counts, bytes, names with other numbers, another line: still the same finding.
  Finding same = finding(FindingKind::kRetained, "VkImage", "stream.99", "TextureCache::load(int)");
  same.count = 1000;
  same.bytes = 1;
  same.callsite.front().line = 7;
  EXPECT_TRUE(baseline.contains(same));
  // The same objects judged as another kind (a finer snapshot cadence sees them grow): the
  // same problem, known.
  EXPECT_TRUE(baseline.contains(
      finding(FindingKind::kGrowth, "VkImage", "stream.1", "TextureCache::load(int)")));
  // Misuse is an event, never a facet of a leak.
  EXPECT_FALSE(baseline.contains(
      finding(FindingKind::kInvalidDestroy, "VkImage", "stream.1", "TextureCache::load(int)")));
  EXPECT_FALSE(baseline.contains(
      finding(FindingKind::kRetained, "VkBuffer", "stream.1", "TextureCache::load(int)")));
  EXPECT_FALSE(baseline.contains(
      finding(FindingKind::kRetained, "VkImage", "stream.1", "TextureCache::reload(int)")));
  EXPECT_FALSE(baseline.contains(
      finding(FindingKind::kRetained, "VkImage", "ui.1", "TextureCache::load(int)")));
}

TEST(BaselineTest, RefusesWhatIsNotAFindingsDocument) {
  auto error = [](const std::string& text) {
    try {
      analysis::Baseline::parse(text, "b.json");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("{"), "b.json: not valid JSON");
  EXPECT_NE(error("{\"format\": \"vkleak-snapshot\"}").find("not a vkleak findings document"),
            std::string::npos);
  EXPECT_NE(error("{\"format\": \"vkleak-findings\", \"version\": 9, \"findings\": []}")
                .find("newer than this vkleak supports"),
            std::string::npos);
  EXPECT_NE(error("{\"format\": \"vkleak-findings\", \"version\": 1}").find("\"findings\""),
            std::string::npos);
  EXPECT_EQ(error("{\"format\": \"vkleak-findings\", \"version\": 1, \"findings\": []}"),
            "no error");
}

TEST(GatePolicyTest, StatusesAndVerdict) {
  analysis::ReportDocument doc =
      document({finding(FindingKind::kRetained, "VkImage", "stream.1", "TextureCache::load(int)"),
                finding(FindingKind::kLeakAtExit, "VkBuffer", "old.1", "legacy()"),
                finding(FindingKind::kGrowth, "VkSampler", "s", "samplers()")});
  const Suppressions suppressions = Suppressions::parse("kind=retained name=stream.*\n", "s");
  const analysis::Baseline baseline = analysis::Baseline::parse(
      report::findings_json(
          document({finding(FindingKind::kLeakAtExit, "VkBuffer", "old.7", "legacy()")}))
          .dump(),
      "b");
  analysis::GatePolicy policy;
  analysis::GateSummary s = analysis::apply_gate(&doc, &suppressions, &baseline, policy);
  EXPECT_EQ(doc.runs[0].findings[0].status, GateStatus::kSuppressed);
  EXPECT_EQ(doc.runs[0].findings[0].suppressed_by, "kind=retained name=stream.*");
  EXPECT_EQ(doc.runs[0].findings[1].status, GateStatus::kBaseline);
  EXPECT_EQ(doc.runs[0].findings[2].status, GateStatus::kNew);
  EXPECT_EQ(s.new_findings, 1u);
  EXPECT_FALSE(s.pass);
  policy.max_findings = 1;
  EXPECT_TRUE(analysis::apply_gate(&doc, &suppressions, &baseline, policy).pass);
  policy.max_findings = 0;
  policy.fail_on = {FindingKind::kLeakAtExit};
  s = analysis::apply_gate(&doc, nullptr, nullptr, policy);
  EXPECT_EQ(doc.runs[0].findings[2].status, GateStatus::kIgnored);
  EXPECT_EQ(s.new_findings, 1u);  // the leak, no longer in a baseline
  EXPECT_FALSE(s.pass);
  ASSERT_TRUE(doc.gate.has_value());
  EXPECT_EQ(doc.gate->fail_on, std::vector<std::string>{"leak_at_exit"});
}

// As LeakSanitizer's "Suppressions used": what each rule matched, unused rules with 0.
TEST(GatePolicyTest, SuppressionsUsedAndUnused) {
  analysis::ReportDocument doc =
      document({finding(FindingKind::kRetained, "VkImage", "stream.1", "TextureCache::load(int)"),
                finding(FindingKind::kRetained, "VkImage", "stream.2", "TextureCache::load(int)"),
                finding(FindingKind::kGrowth, "VkSampler", "s", "samplers()")});
  const Suppressions suppressions = Suppressions::parse(
      "kind=retained name=stream.*\n\n# fixed long ago\nleak_at_exit:legacy\n", "vkleak.supp");
  const analysis::GateSummary s =
      analysis::apply_gate(&doc, &suppressions, nullptr, analysis::GatePolicy{});
  ASSERT_EQ(s.suppressions.size(), 2u);
  EXPECT_EQ(s.suppressions[0].rule, "kind=retained name=stream.*");
  EXPECT_EQ(s.suppressions[0].file, "vkleak.supp");
  EXPECT_EQ(s.suppressions[0].line, 1);
  EXPECT_EQ(s.suppressions[0].findings, 2u);
  EXPECT_EQ(s.suppressions[0].objects, 6u);
  EXPECT_EQ(s.suppressions[0].bytes, 600u);
  EXPECT_EQ(s.suppressions[1].rule, "leak_at_exit:legacy");
  EXPECT_EQ(s.suppressions[1].line, 4);
  EXPECT_EQ(s.suppressions[1].findings, 0u);
  // The findings JSON carries them (every CI format reads the gate from it or from stderr).
  const nlohmann::json j = report::findings_json(doc);
  ASSERT_EQ(j["gate"]["suppressions"].size(), 2u);
  EXPECT_EQ(j["gate"]["suppressions"][1]["rule"], "leak_at_exit:legacy");
  EXPECT_EQ(j["gate"]["suppressions"][1]["findings"], 0);
  EXPECT_EQ(j["gate"]["suppressions"][0]["objects"], 6);
  // Without a suppression file, none.
  EXPECT_TRUE(
      analysis::apply_gate(&doc, nullptr, nullptr, analysis::GatePolicy{}).suppressions.empty());
}

// Issue 27, point 9: a new caller of a shared (not inlined) helper is a new problem, not the
// helper's known one: the identity holds the calls above the innermost one too.
TEST(BaselineTest, ANewCallerOfASharedHelperIsNew) {
  auto through = [](const std::string& caller) {
    Finding f = finding(FindingKind::kLeakAtExit, "VkBuffer", "", "make_buffer(int)");
    analysis::Frame call = f.callsite.front();
    call.function = caller;
    call.line = 70;
    call.text = caller + " (/src/engine/textures.cpp:70)";
    analysis::Frame top = call;
    top.function = "main";
    top.text = "main (/src/engine/textures.cpp:99)";
    f.callsite.push_back(call);
    f.callsite.push_back(top);
    return f;
  };
  const analysis::Baseline baseline = analysis::Baseline::parse(
      report::findings_json(document({through("upload_mesh()")})).dump(), "b");
  EXPECT_TRUE(baseline.contains(through("upload_mesh()")));
  EXPECT_FALSE(baseline.contains(through("capture_stats()")));
  EXPECT_EQ(through("capture_stats()").identity(),
            "VkBuffer|main > capture_stats() > make_buffer(int)|");
}

// Frames of a stripped program: module+offset only, no function.
std::vector<analysis::Frame> stripped(std::initializer_list<const char*> texts) {
  std::vector<analysis::Frame> out;
  for (const char* t : texts) {
    analysis::Frame frame;
    frame.text = t;
    frame.module = std::string(t).substr(0, std::string(t).find('+'));
    out.push_back(frame);
  }
  return out;
}

// Issue 27: a stripped browser's baseline held "stale_view|VkImageView|<module>|": every later
// leak of that module was "in the baseline". Without symbols the identity is the module+offset
// stack.
TEST(BaselineTest, AStrippedProgramIsMatchedOnItsModuleAndOffsetStack) {
  Finding known = finding(FindingKind::kStaleView, "VkImageView", "", "");
  known.callsite = stripped({"libxul.so+0x1a2b", "libxul.so+0x3c4d", "firefox+0x77"});
  Finding other = known;
  other.callsite = stripped({"libxul.so+0x9999", "libxul.so+0x3c4d", "firefox+0x77"});
  EXPECT_EQ(known.fingerprint(),
            "stale_view|VkImageView|firefox+0x77 > libxul.so+0x3c4d > libxul.so+0x1a2b|");
  EXPECT_NE(known.identity(), other.identity());
  const analysis::Baseline baseline =
      analysis::Baseline::parse(report::findings_json(document({known})).dump(), "base.json");
  EXPECT_TRUE(baseline.contains(known));
  EXPECT_FALSE(baseline.contains(other)) << "another call site of the same module is new";
  // So is it for the gate, which matches by the stack's shape only what moved (baseline_test).
  analysis::ReportDocument doc = document({known, other});
  other.objects = {{2, 0}};
  doc.runs[0].findings[0].objects = {{1, 0}};
  doc.runs[0].findings[1].objects = {{2, 0}};
  const analysis::GateSummary s =
      analysis::apply_gate(&doc, nullptr, &baseline, analysis::GatePolicy{});
  EXPECT_EQ(s.baseline, 1u);
  EXPECT_EQ(s.new_findings, 1u);
}

// Baselines written before problems (findings version 1 without "problems", "identity", and with
// module-only fingerprints) are read by the same identity, computed from their fields: their
// findings stay known and nothing else becomes known.
TEST(BaselineTest, BaselinesOfEarlierBuildsReadTheSameWay) {
  const std::string old = R"json({"format": "vkleak-findings", "version": 1, "findings": [
    {"kind": "retained", "object_type": "VkImage", "name_pattern": "stream.*",
     "function": "TextureCache::load(int)", "fingerprint": "retained|VkImage|TextureCache::load(int)|stream.*",
     "callsite_frames": [{"text": "TextureCache::load(int) (/src/t.cpp:40)", "function": "TextureCache::load(int)",
                          "file": "/src/t.cpp", "line": 40, "module": "libengine.so", "inlined": false}]},
    {"kind": "stale_view", "object_type": "VkImageView", "name_pattern": "", "function": null,
     "fingerprint": "stale_view|VkImageView|libxul.so|",
     "callsite_frames": [{"text": "libxul.so+0x1a2b", "function": null, "file": null, "line": null,
                          "module": "libxul.so", "inlined": false}]},
    {"kind": "leak_at_exit", "object_type": "VkBuffer", "name_pattern": "", "function": "legacy()"}]})json";
  const analysis::Baseline baseline = analysis::Baseline::parse(old, "old.json");
  EXPECT_TRUE(baseline.contains(
      finding(FindingKind::kRetained, "VkImage", "stream.4", "TextureCache::load(int)")));
  EXPECT_TRUE(baseline.contains(finding(FindingKind::kLeakAtExit, "VkBuffer", "", "legacy()")));
  Finding same = finding(FindingKind::kStaleView, "VkImageView", "", "");
  same.callsite = stripped({"libxul.so+0x1a2b"});
  EXPECT_TRUE(baseline.contains(same));
  Finding elsewhere = same;
  elsewhere.callsite = stripped({"libxul.so+0x5555"});
  EXPECT_FALSE(baseline.contains(elsewhere));
}

// Issue 27: one missing free judged as three kinds is one problem, and one new problem for the
// gate; a new facet of a known problem (a kind the baseline's cadence did not see) is not new.
TEST(GatePolicyTest, CountsProblemsNotFindings) {
  auto facet = [](FindingKind kind, const std::string& type, const std::string& name) {
    Finding f = finding(kind, type, name, "capture_stats()");
    f.objects = {{7, 100}, {8, 100}};
    return f;
  };
  analysis::ReportDocument doc =
      document({facet(FindingKind::kLeakAtExit, "VkBuffer", "stats"),
                facet(FindingKind::kGrowth, "VkBuffer", "stats"),
                facet(FindingKind::kRetained, "VkDescriptorSet", "frame.set")});
  analysis::GatePolicy policy;
  analysis::GateSummary s = analysis::apply_gate(&doc, nullptr, nullptr, policy);
  ASSERT_EQ(doc.runs[0].problems.size(), 1u);
  EXPECT_EQ(s.new_findings, 1u) << "one missing free is one new problem";
  EXPECT_EQ(doc.runs[0].problems[0].status, GateStatus::kNew);
  EXPECT_EQ(report::render_text(doc, Style(false)).find("#2"), std::string::npos);
  EXPECT_NE(report::render_text(doc, Style(false)).find("Gate: FAIL: 1 new problem (0 allowed)"),
            std::string::npos);

  // A baseline made at another cadence saw only the leak at exit: the problem is known, its
  // other kinds too.
  const analysis::Baseline baseline = analysis::Baseline::parse(
      report::findings_json(document({facet(FindingKind::kLeakAtExit, "VkBuffer", "stats")}))
          .dump(),
      "b");
  s = analysis::apply_gate(&doc, nullptr, &baseline, policy);
  EXPECT_TRUE(s.pass);
  EXPECT_EQ(s.new_findings, 0u);
  EXPECT_EQ(s.baseline, 1u);
  for (const Finding& f : doc.runs[0].findings)
    EXPECT_EQ(f.status, GateStatus::kBaseline) << f.object_type;

  // --fail-on counts a problem when one of its kinds is listed.
  policy.fail_on = {FindingKind::kGrowth};
  s = analysis::apply_gate(&doc, nullptr, nullptr, policy);
  EXPECT_EQ(s.new_findings, 1u);
  policy.fail_on = {FindingKind::kStaleView};
  s = analysis::apply_gate(&doc, nullptr, nullptr, policy);
  EXPECT_EQ(s.new_findings, 0u);
  EXPECT_EQ(doc.runs[0].problems[0].status, GateStatus::kIgnored);

  // A rule that matches one kind silences that kind; the problem stays new for the others.
  policy.fail_on.clear();
  const Suppressions only_growth = Suppressions::parse("kind=growth\n", "s");
  s = analysis::apply_gate(&doc, &only_growth, nullptr, policy);
  EXPECT_EQ(s.new_findings, 1u);
  EXPECT_EQ(doc.runs[0].findings[1].status, GateStatus::kSuppressed);
  const Suppressions all = Suppressions::parse("*:capture_stats\n", "s");
  s = analysis::apply_gate(&doc, &all, nullptr, policy);
  EXPECT_EQ(s.new_findings, 0u);
  EXPECT_EQ(s.suppressed, 1u);
  EXPECT_EQ(doc.runs[0].problems[0].status, GateStatus::kSuppressed);
}

}  // namespace
}  // namespace vkleak
