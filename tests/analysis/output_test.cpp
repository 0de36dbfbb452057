// The output formats: JSON document, SARIF 2.1.0, JUnit, Markdown, text. (The JSON Schema itself
// is checked by validate_outputs.py and the integration tests.)
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <regex>

#include "report/output.h"
#include "shared/escape.h"
#include "test_util.h"

namespace vkleak {
namespace {

using analysis::Finding;
using analysis::FindingKind;
using analysis::GateStatus;
using nlohmann::json;

analysis::ReportDocument sample() {
  Finding located;
  located.kind = FindingKind::kRetained;
  located.object_type = "VkBuffer";
  located.count = 285;
  located.bytes = 285 * 65536;
  located.names = {"wrapper.vertices", "a|b<c>&\"d\""};
  located.name_pattern = "wrapper.vertices";
  located.message = "285 VkBuffer retained";
  analysis::Frame frame;
  frame.function = "GpuBuffer::GpuBuffer(int)";
  frame.file = "/work/src/gpu buffer.cpp";
  frame.line = 41;
  frame.module = "app";
  frame.text = "GpuBuffer::GpuBuffer(int) (/work/src/gpu buffer.cpp:41)";
  analysis::Frame caller = frame;
  caller.function = "main";
  caller.line = 99;
  caller.text = "main (/work/src/gpu buffer.cpp:99)";
  located.callsite = {frame, caller};
  located.pid = 42;
  located.snapshot = "run/vkleak-42-0003-frame.json";

  Finding unlocated;
  unlocated.kind = FindingKind::kDestroyedInFlight;
  unlocated.object_type = "VkDescriptorSet";
  unlocated.count = 1;
  unlocated.message = "freed while in flight";
  unlocated.pid = 42;

  analysis::ReportDocument doc;
  analysis::RunReport run;
  run.pid = 42;
  run.findings = {located, unlocated};
  run.series.frames = {25, 50};
  run.series.types.push_back({"VkBuffer", {1, 2}, {10, 20}});
  doc.runs.push_back(run);
  return doc;
}

// An inlined helper's frame: the identity and the summary must name its caller too, or every
// caller of the helper would share one fingerprint.
TEST(OutputTest, InlinedFramesKeyTheFindingByTheirCaller) {
  analysis::ReportDocument doc = sample();
  Finding& f = doc.runs[0].findings[0];
  analysis::Frame helper = f.callsite[0];
  helper.function = "create_buffer";
  helper.line = 12;
  helper.inlined = true;
  helper.text = "create_buffer (/work/src/gpu buffer.cpp:12) (inlined)";
  f.callsite.insert(f.callsite.begin(), helper);
  EXPECT_EQ(f.function(), "GpuBuffer::GpuBuffer(int) > create_buffer");
  EXPECT_EQ(report::callsite_path(f), "main > GpuBuffer::GpuBuffer(int) > create_buffer");
  EXPECT_EQ(report::callsite_path(f, 2), "GpuBuffer::GpuBuffer(int) > create_buffer");
  EXPECT_EQ(report::callsite_summary(f),
            "main > GpuBuffer::GpuBuffer(int) > create_buffer (gpu buffer.cpp:12)");
  const json j = report::findings_json(doc)["findings"][0];
  EXPECT_EQ(j["callsite_frames"][0]["inlined"], true);
  EXPECT_EQ(j["callsite_frames"][1]["inlined"], false);
  EXPECT_EQ(j["function"], "GpuBuffer::GpuBuffer(int) > create_buffer");
  // The identity: the innermost calls with what was inlined into them (up to main).
  EXPECT_EQ(j["fingerprint"],
            "retained|VkBuffer|main > GpuBuffer::GpuBuffer(int) > create_buffer|wrapper.vertices");
  f.callsite.erase(f.callsite.begin());
  EXPECT_EQ(f.function(), "GpuBuffer::GpuBuffer(int)");
  // Without symbols the summary is the frame itself.
  analysis::Frame bare;
  bare.text = "app+0x1f";
  bare.module = "app";
  f.callsite = {bare};
  EXPECT_EQ(report::callsite_summary(f), "app+0x1f");
  EXPECT_EQ(f.function(), "");
}

// Issue 37: a leak made in a GoogleTest test. The summary names the test's own functions, not
// GoogleTest's or the standard library's, and a long one loses its outer functions, never the
// innermost; a full stack folds runs of such frames into one line.
TEST(OutputTest, SummariesShowTheProgramsOwnFrames) {
  const auto frame = [](const std::string& function, const std::string& file, int line) {
    analysis::Frame f;
    f.function = function;
    f.file = file;
    f.line = line;
    f.module = "renderer_tests";
    f.text = function + " (" + file + ":" + std::to_string(line) + ")";
    return f;
  };
  Finding f;
  f.kind = analysis::FindingKind::kLeakAtExit;
  f.object_type = "VkBuffer";
  f.callsite = {
      frame("DescriptorAllocator::allocate(VkDescriptorSetLayout_T*)", "/src/alloc.cpp", 40),
      frame("Material::bind()", "/src/material.cpp", 77),
      frame("std::_Function_handler<void (), Material_Binds_Test::TestBody()::{lambda()#1}>::"
            "_M_invoke(std::_Any_data const&)",
            "/usr/include/c++/12/bits/std_function.h", 290),
      frame("Material_Binds_Test::TestBody()", "/src/material_test.cpp", 12),
      frame("void testing::internal::HandleSehExceptionsInMethodIfSupported<testing::Test, void>("
            "testing::Test*, void (testing::Test::*)(), char const*)",
            "gtest.cc", 2599),
      frame("void testing::internal::HandleExceptionsInMethodIfSupported<testing::Test, void>("
            "testing::Test*, void (testing::Test::*)(), char const*)",
            "gtest.cc", 2635),
      frame("testing::Test::Run()", "gtest.cc", 2674),
      frame("main", "gtest_main.cc", 51)};
  EXPECT_TRUE(analysis::is_support_frame(f.callsite[2]));
  EXPECT_TRUE(analysis::is_support_frame(f.callsite[4]));
  EXPECT_FALSE(analysis::is_support_frame(f.callsite[3]));
  EXPECT_EQ(report::callsite_path(f),
            "Material_Binds_Test::TestBody() > Material::bind() > "
            "DescriptorAllocator::allocate(VkDescriptorSetLayout_T*)");
  EXPECT_EQ(report::callsite_summary(f, 60),
            "... > DescriptorAllocator::allocate(VkDescriptorSetLayout_T*) (alloc.cpp:40)");
  f.stacks.push_back({"created here", f.callsite, {}, ""});
  const std::vector<std::string> lines = report::stack_lines(f);
  ASSERT_EQ(lines.size(), 7u);  // the label and 6 lines: the run of 3 GoogleTest frames is one
  EXPECT_EQ(lines[3], "    #2 " + f.callsite[2].text) << "a run of one stays as it is";
  EXPECT_EQ(lines[5], "    #4-#6 (3 frames of the standard library or a test framework)");
  EXPECT_EQ(lines[6], "    #7 main (gtest_main.cc:51)");
}

TEST(OutputTest, FindingsJson) {
  const json j = report::findings_json(sample());
  EXPECT_EQ(j["format"], "vkleak-findings");
  EXPECT_EQ(j["version"], 1);
  ASSERT_EQ(j["findings"].size(), 2u);
  const json& f = j["findings"][0];
  EXPECT_EQ(f["kind"], "retained");
  EXPECT_EQ(f["object_type"], "VkBuffer");
  EXPECT_EQ(f["count"], 285);
  EXPECT_EQ(f["names"][0], "wrapper.vertices");
  EXPECT_EQ(f["callsite"][0], "GpuBuffer::GpuBuffer(int) (/work/src/gpu buffer.cpp:41)");
  EXPECT_EQ(f["function"], "GpuBuffer::GpuBuffer(int)");
  EXPECT_EQ(f["location"]["line"], 41);
  EXPECT_EQ(f["fingerprint"],
            "retained|VkBuffer|main > GpuBuffer::GpuBuffer(int)|wrapper.vertices");
  EXPECT_FALSE(f.contains("status")) << "only the gate sets a status";
  EXPECT_TRUE(j["findings"][1]["location"].is_null());
  EXPECT_EQ(j["summary"]["by_kind"]["retained"], 1);
  EXPECT_EQ(j["series"]["frames"], json({25, 50}));
  EXPECT_EQ(j["runs"][0]["series"]["types"][0]["live"], json({1, 2}));
  EXPECT_FALSE(j.contains("gate"));
}

TEST(OutputTest, SarifLocatesFindingsOnTheirSourceLine) {
  const json s = report::render_sarif(sample(), "/work");
  EXPECT_EQ(s["version"], "2.1.0");
  EXPECT_NE(s["$schema"].get<std::string>().find("sarif-2.1.0"), std::string::npos);
  ASSERT_EQ(s["runs"].size(), 1u);
  const json& run = s["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "vkleak");
  EXPECT_EQ(run["tool"]["driver"]["rules"].size(), std::size(analysis::kAllKinds));
  ASSERT_EQ(run["results"].size(), 2u);
  const json& r = run["results"][0];
  EXPECT_EQ(r["ruleId"], "retained");
  EXPECT_EQ(run["tool"]["driver"]["rules"][r["ruleIndex"].get<int>()]["id"], "retained");
  EXPECT_EQ(r["level"], "warning");
  const json& loc = r["locations"][0]["physicalLocation"];
  EXPECT_EQ(loc["artifactLocation"]["uri"], "src/gpu%20buffer.cpp");
  EXPECT_EQ(loc["artifactLocation"]["uriBaseId"], "SRCROOT");
  EXPECT_EQ(loc["region"]["startLine"], 41);
  EXPECT_EQ(run["originalUriBaseIds"]["SRCROOT"]["uri"], "file:///work/");
  EXPECT_EQ(r["stacks"][0]["frames"].size(), 2u);
  EXPECT_FALSE(r["partialFingerprints"]["vkleakProblem/v2"].get<std::string>().empty());
  EXPECT_EQ(r["properties"]["kinds"], json::array({"retained"}));
  EXPECT_FALSE(run["results"][1].contains("locations"));
  EXPECT_EQ(run["results"][1]["level"], "error");
  // Outside the source root: an absolute file URI.
  const json outside = report::render_sarif(sample(), "/elsewhere");
  EXPECT_EQ(outside["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
                   ["uri"],
            "file:///work/src/gpu%20buffer.cpp");
}

TEST(OutputTest, SarifCarriesGateStates) {
  analysis::ReportDocument doc = sample();
  doc.runs[0].findings[0].status = GateStatus::kSuppressed;
  doc.runs[0].findings[0].suppressed_by = "kind=retained";
  doc.runs[0].findings[1].status = GateStatus::kNew;
  const json s = report::render_sarif(doc, "");
  const json& results = s["runs"][0]["results"];
  // New problems first.
  EXPECT_EQ(results[0]["baselineState"], "new");
  EXPECT_EQ(results[0]["ruleId"], "destroyed_in_flight");
  EXPECT_EQ(results[1]["suppressions"][0]["kind"], "external");
  EXPECT_EQ(results[1]["suppressions"][0]["justification"], "kind=retained");
  EXPECT_EQ(results[1]["baselineState"], "unchanged");
}

TEST(OutputTest, JUnitOneTestCasePerProblemAndOneForTheRunBeingWhole) {
  const std::string xml = report::render_junit(sample());
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", 0), 0u);
  const std::regex testcase("<testcase ");
  EXPECT_EQ(
      std::distance(std::sregex_iterator(xml.begin(), xml.end(), testcase), std::sregex_iterator()),
      3);
  EXPECT_NE(xml.find("<testcase classname=\"vkleak\" name=\"complete_run\">\n    </testcase>"),
            std::string::npos);
  // Named by what and where, without counts or lines: CI history follows it from run to run.
  EXPECT_NE(xml.find("<testcase classname=\"vkleak\" name=\"VkBuffer &quot;wrapper.vertices&quot; "
                     "at main &gt; GpuBuffer::GpuBuffer(int)\">"),
            std::string::npos)
      << xml;
  analysis::ReportDocument cut = sample();
  cut.runs[0].incomplete = {"the run crashed (SIGSEGV) at frame 3"};
  const std::string cut_xml = report::render_junit(cut);
  EXPECT_NE(cut_xml.find("failures=\"3\""), std::string::npos);
  EXPECT_NE(cut_xml.find("<failure type=\"incomplete_run\""), std::string::npos);
  EXPECT_NE(cut_xml.find("the run crashed (SIGSEGV) at frame 3"), std::string::npos);
  EXPECT_NE(xml.find("failures=\"2\""), std::string::npos);
  EXPECT_NE(xml.find("<failure type=\"retained\""), std::string::npos);
  EXPECT_NE(xml.find("<failure type=\"destroyed_in_flight\""), std::string::npos);
  EXPECT_EQ(xml.find("<failure type=\"growth\""), std::string::npos);
  // Names are data: escaped.
  EXPECT_EQ(xml.find("a|b<c>"), std::string::npos);
}

TEST(OutputTest, JUnitFailsOnlyNewProblemsOfAGateAndSkipsTheOthers) {
  analysis::ReportDocument doc = sample();
  doc.runs[0].findings[0].status = GateStatus::kBaseline;
  doc.runs[0].findings[1].status = GateStatus::kNew;
  doc.gate = analysis::GateSummary{};
  const std::string xml = report::render_junit(doc);
  EXPECT_NE(xml.find("failures=\"1\""), std::string::npos);
  EXPECT_NE(xml.find("skipped=\"1\""), std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"#2 retained: in the baseline\"/>"), std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<system-out>[baseline]"), std::string::npos);
  // The new problem comes first.
  EXPECT_LT(xml.find("<failure type=\"destroyed_in_flight\""), xml.find("<skipped"));
}

TEST(OutputTest, MarkdownTable) {
  const std::string md = report::render_markdown(sample());
  EXPECT_NE(md.find("### vkleak: 2 problems in 1 run"), std::string::npos) << md;
  EXPECT_NE(md.find("| # | Kind | Type | Count | Bytes | Names | Created at |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("|--:|---|---|--:|--:|---|---|"), std::string::npos);
  EXPECT_NE(md.find("| 1 | `retained` | VkBuffer | 285 | 17.8 MiB |"), std::string::npos) << md;
  EXPECT_NE(md.find("gpu buffer.cpp:41"), std::string::npos);
  // A pipe in a name must not split the cell.
  EXPECT_NE(md.find("a\\|b"), std::string::npos) << md;
  EXPECT_EQ(report::render_markdown(analysis::ReportDocument{}).find("|"), std::string::npos);
}

TEST(OutputTest, TextColoursOnlyWhenAsked) {
  const std::string plain = report::render_text(sample(), Style(false));
  EXPECT_NE(plain.find("vkleak: 2 problems, 286 objects, 17.8 MiB in 1 run (2 findings: 1 "
                       "destroyed_in_flight, 1 retained)"),
            std::string::npos)
      << plain;
  EXPECT_NE(plain.find("created at: GpuBuffer::GpuBuffer(int)"), std::string::npos);
  EXPECT_EQ(plain.find("\x1b["), std::string::npos);
  EXPECT_NE(report::render_text(sample(), Style(true)).find("\x1b["), std::string::npos);
  EXPECT_NE(report::render_text(analysis::ReportDocument{}, Style(false)).find("no findings"),
            std::string::npos);
}

// Names as an app might set them to disguise a report.
const std::string kLink = "[click](https://evil.example/p)";
const std::string kImage = "![i](x.png)";
const std::string kTicks = "a`b``c";
const std::string kHtml = "<img src=x onerror=alert(1)>";
const std::string kBidi = "ok\u202e\u2066gnp.exe\u2069\u2028";
const std::string kEsc = "red\x1b[31m\xc2\x9b";
const std::string kHuge(1'000'000, 'n');

analysis::ReportDocument hostile() {
  analysis::ReportDocument doc = sample();
  Finding& f = doc.runs[0].findings[0];
  f.names = {kLink, kImage, kTicks, kHtml, kBidi, kEsc, "x|y", kHuge};
  f.display_name = kBidi;
  f.callsite[0].text = "fn\u202e (/src/[x](javascript:alert(1)).cpp:41)";
  f.callsite[0].function = kTicks;
  f.callsite[0].file = "/src/[x](javascript:alert(1)).cpp";
  analysis::ExampleObject e;
  e.id = 7;
  e.type = "VkBuffer";
  e.name = kHuge;
  f.examples = {e, e};
  doc.runs[0].notes = {"note about " + kLink};
  return doc;
}

// Runs cmark-gfm, GitHub's renderer, when it is installed (tools/deps.sh test installs it).
std::optional<std::string> github_html(const std::string& md) {
  char path[] = "/tmp/vkleak-md-XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) return std::nullopt;
  FILE* f = ::fdopen(fd, "w");
  std::fwrite(md.data(), 1, md.size(), f);
  std::fclose(f);
  const std::string cmd =
      std::string("cmark-gfm -e table -e autolink -e strikethrough -e tagfilter ") + path +
      " 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  if (p != nullptr) {
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  }
  const int rc = p != nullptr ? ::pclose(p) : -1;
  ::unlink(path);
  if (rc != 0 || out.empty()) return std::nullopt;
  return out;
}

TEST(OutputEscapingTest, MarkdownPutsNamesInCodeSpansTheyCannotLeave) {
  const std::string md = report::render_markdown(hostile());
  EXPECT_NE(md.find("`[click](https://evil.example/p)`"), std::string::npos) << md;
  EXPECT_NE(md.find("`![i](x.png)`"), std::string::npos) << md;
  // The names column shows three names, then a count.
  EXPECT_NE(md.find("| `[click](https://evil.example/p)`, `![i](x.png)`, ```a`b``c``` +5 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("`VkBuffer \"ok<U+202E><U+2066>gnp.exe<U+2069><U+2028>\"`"), std::string::npos)
      << md;
  EXPECT_NE(md.find("> **Note** (pid 42): `note about [click](https://evil.example/p)`"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("\u202e"), std::string::npos);
  EXPECT_EQ(md.find("\u2028"), std::string::npos);
  EXPECT_EQ(md.find("&lt;"), std::string::npos) << "no entities inside code spans";
  // The call site: the program's path (caller > innermost) and file in code spans of their own.
  EXPECT_NE(md.find("| ```main > a`b``c``` `[x](javascript:alert(1)).cpp`:41 |"), std::string::npos)
      << md;

  const std::optional<std::string> html = github_html(md);
  if (!html) GTEST_SKIP() << "cmark-gfm is not installed";
  EXPECT_EQ(html->find("<a "), std::string::npos) << *html;
  EXPECT_EQ(html->find("<img"), std::string::npos) << *html;
  EXPECT_NE(html->find("<code>[click](https://evil.example/p)</code>"), std::string::npos) << *html;
  EXPECT_NE(html->find("<code>a`b``c</code>"), std::string::npos) << *html;
  // One table, every row with all its cells.
  const std::regex row("<tr>");
  EXPECT_EQ(
      std::distance(std::sregex_iterator(html->begin(), html->end(), row), std::sregex_iterator()),
      3);
}

TEST(OutputEscapingTest, MarkdownTableCellsHoldPipesAndBackslashes) {
  analysis::ReportDocument doc = sample();
  doc.runs[0].findings[0].names = {"a|b", "c\\|d", "`|`"};
  const std::string md = report::render_markdown(doc);
  EXPECT_NE(md.find("| `a\\|b`, `c\\\\\\|d`, `` `\\|` `` |"), std::string::npos) << md;
  const std::optional<std::string> html = github_html(md);
  if (!html) GTEST_SKIP() << "cmark-gfm is not installed";
  EXPECT_NE(html->find("<td><code>a|b</code>, <code>c\\\\|d</code>, <code>`|`</code></td>"),
            std::string::npos)
      << *html;
}

TEST(OutputEscapingTest, MarkdownStaysUnderGitHubsStepSummaryLimit) {
  analysis::ReportDocument doc = sample();
  Finding big = doc.runs[0].findings[0];
  big.names = {std::string(5000, 'x'), std::string(5000, 'y'), std::string(5000, 'z')};
  doc.runs[0].findings.assign(2000, big);
  const std::string md = report::render_markdown(doc);
  EXPECT_LE(md.size(), 1'000'000u);
  EXPECT_GT(md.size(), 900'000u) << "fills what it can";
  const std::regex more(
      "\\*\\*([0-9,]+) more problems in the JSON\\*\\* \\(`vkleak report --format "
      "json`\\)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(md, m, more)) << md.substr(md.size() - 2000);
  const std::regex row("\n\\| [0-9]+ \\| `retained`");
  const auto shown = static_cast<size_t>(
      std::distance(std::sregex_iterator(md.begin(), md.end(), row), std::sregex_iterator()));
  std::string more_count = m[1];
  more_count.erase(std::remove(more_count.begin(), more_count.end(), ','), more_count.end());
  EXPECT_EQ(shown + std::stoul(more_count), 2000u);
  EXPECT_NE(md.find("</details>"), std::string::npos);
  // Under the limit: no such line.
  EXPECT_EQ(report::render_markdown(sample()).find("more problems in the JSON"), std::string::npos);
}

TEST(OutputEscapingTest, TextShowsBidiAndControlsAndCutsLongNames) {
  const std::string text = report::render_text(hostile(), Style(false));
  EXPECT_NE(text.find("\"ok<U+202E><U+2066>gnp.exe<U+2069><U+2028>\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"red\\x1b[31m\\xc2\\x9b\""), std::string::npos) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(text.find("\u202e"), std::string::npos);
  EXPECT_EQ(text.find("\u2028"), std::string::npos);
  EXPECT_NE(text.find("created at: fn<U+202E> (/src/"), std::string::npos) << text;
  EXPECT_LT(text.size(), 10'000u) << "a 1 MB name is cut";
  EXPECT_NE(text.find(std::string(60, 'n') + "\xe2\x80\xa6 (1,000,000 bytes)\""),
            std::string::npos);
}

TEST(OutputEscapingTest, JUnitAndSarifShowBidiAndCutLongNames) {
  const analysis::ReportDocument doc = hostile();
  const std::string xml = report::render_junit(doc);
  EXPECT_EQ(xml.find("\u202e"), std::string::npos);
  EXPECT_EQ(xml.find('\x1b'), std::string::npos);
  EXPECT_NE(xml.find("&quot;ok&lt;U+202E&gt;&lt;U+2066&gt;gnp.exe"), std::string::npos) << xml;
  EXPECT_NE(xml.find("created at fn&lt;U+202E&gt; (/src/[x]"), std::string::npos) << xml;
  EXPECT_NE(xml.find("\n    created at"), std::string::npos) << "real line breaks between fields";
  EXPECT_LT(xml.size(), 20'000u);

  const json sarif = report::render_sarif(doc, "");
  const json& r = sarif["runs"][0]["results"][0];
  const std::string message = r["message"]["text"];
  EXPECT_NE(message.find("VkBuffer \"ok<U+202E><U+2066>gnp.exe<U+2069><U+2028>\""),
            std::string::npos)
      << message;
  EXPECT_EQ(r["properties"]["names"][4], "ok<U+202E><U+2066>gnp.exe<U+2069><U+2028>");
  EXPECT_EQ(r["properties"]["names"][7], std::string(200, 'n') + "\xe2\x80\xa6 (1,000,000 bytes)");
  EXPECT_EQ(r["stacks"][0]["frames"][0]["location"]["message"]["text"],
            "fn<U+202E> (/src/[x](javascript:alert(1)).cpp:41)");
  EXPECT_LT(sarif.dump().size(), 50'000u);
}

TEST(OutputEscapingTest, JsonKeepsTheFullName) {
  const json j = report::findings_json(hostile());
  const json& f = j["findings"][0];
  EXPECT_EQ(f["names"][7], kHuge);
  EXPECT_EQ(f["display_name"], kBidi) << "JSON carries the exact bytes";
  // Whole once: the examples of the same name show it cut.
  const std::string cut = std::string(200, 'n') + "\xe2\x80\xa6 (1,000,000 bytes)";
  EXPECT_EQ(f["examples"][0]["name"], cut);
  EXPECT_EQ(f["examples"][1]["name"], cut);
  const std::string dumped = j.dump();
  size_t copies = 0;
  for (size_t at = dumped.find(kHuge); at != std::string::npos; at = dumped.find(kHuge, at + 1))
    ++copies;
  EXPECT_EQ(copies, 1u);

  // Not among the names (omitted there): the first example keeps it whole.
  analysis::ReportDocument doc = hostile();
  doc.runs[0].findings[0].names.pop_back();
  const json k = report::findings_json(doc);
  EXPECT_EQ(k["findings"][0]["examples"][0]["name"], kHuge);
  EXPECT_EQ(k["findings"][0]["examples"][1]["name"], cut);
}

TEST(OutputEscapingTest, ByteTotalsSaturateInsteadOfWrapping) {
  test::SnapshotBuilder during(42, 1, format::Reason::kFrame, 5);
  test::SnapshotBuilder s(42, 3, format::Reason::kDeviceDestroy, 10);
  for (test::SnapshotBuilder* b : {&during, &s}) {
    const int site = b->callsite(0x1000);
    b->object({10, "VkBuffer", "huge.0", 1, UINT64_MAX, site});
    b->object({11, "VkBuffer", "huge.1", 1, 4096, site});
    b->object({12, "VkBuffer", "huge.2", 1, 4096, site});
  }
  analysis::ReportDocument doc;
  doc.runs.push_back(test::analyse({during, s}));
  const Finding* f = test::only(doc.runs[0], FindingKind::kLeakAtExit, "VkBuffer");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->bytes, UINT64_MAX) << "3 objects must not total 8.0 KiB";
  const std::string text = report::render_text(doc, Style(false));
  EXPECT_NE(text.find("3 objects, >= 16.0 EiB"), std::string::npos) << text;
  EXPECT_EQ(text.find("8.0 KiB"), std::string::npos) << text;
  ASSERT_FALSE(doc.runs[0].series.types.empty());
  EXPECT_EQ(doc.runs[0].series.types[0].bytes.back(), UINT64_MAX);
}

// Issue 27, point 9: two problems made through one helper; the new one's SARIF location is its
// caller's line, the frame that tells it apart, not the helper's line both share.
TEST(OutputTest, SarifLocatesAProblemAtTheFrameThatTellsItApart) {
  auto frame = [](const std::string& function, int line) {
    analysis::Frame f;
    f.function = function;
    f.file = "/work/src/stats.cpp";
    f.line = line;
    f.module = "app";
    f.text = function + " (/work/src/stats.cpp:" + std::to_string(line) + ")";
    return f;
  };
  auto through_helper = [&](const std::string& caller, int line, const std::string& name) {
    Finding f;
    f.kind = FindingKind::kLeakAtExit;
    f.object_type = "VkBuffer";
    f.count = 1;
    f.bytes = 64;
    f.name_pattern = name;
    f.names = {name};
    f.message = "leaked";
    f.callsite = {frame("make_buffer", 12), frame(caller, line), frame("main", 90)};
    return f;
  };
  analysis::ReportDocument doc;
  doc.runs.emplace_back();
  doc.runs[0].findings = {through_helper("upload_mesh", 40, "mesh"),
                          through_helper("capture_stats", 71, "stats")};
  doc.runs[0].findings[0].status = GateStatus::kBaseline;
  doc.runs[0].findings[1].status = GateStatus::kNew;
  doc.gate = analysis::GateSummary{};
  const json s = report::render_sarif(doc, "/work");
  const json& results = s["runs"][0]["results"];
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0]["baselineState"], "new");  // new first
  EXPECT_EQ(results[0]["locations"][0]["physicalLocation"]["region"]["startLine"], 71);
  EXPECT_EQ(results[0]["locations"][0]["logicalLocations"][0]["fullyQualifiedName"],
            "capture_stats");
  EXPECT_EQ(results[1]["locations"][0]["physicalLocation"]["region"]["startLine"], 40);
  // Alone, a problem is located at its innermost line.
  doc.runs[0].findings.erase(doc.runs[0].findings.begin());
  EXPECT_EQ(report::render_sarif(doc, "/work")["runs"][0]["results"][0]["locations"][0]
                                              ["physicalLocation"]["region"]["startLine"],
            12);
  // Markdown's "created at" cell names the same line; the new row comes first.
  doc.runs[0].findings.insert(doc.runs[0].findings.begin(),
                              through_helper("upload_mesh", 40, "mesh"));
  doc.runs[0].findings[0].status = GateStatus::kBaseline;
  const std::string md = report::render_markdown(doc);
  EXPECT_NE(md.find("| 1 | **new** | `leak_at_exit` | VkBuffer | 1 | 64 B | `stats` | `main > "
                    "capture_stats > make_buffer` `stats.cpp`:71 |"),
            std::string::npos)
      << md;
}

// Issue 27, point 9: a passing gate is short: known problems a line each, at most ten, and no
// evidence; text says which problems fail first.
TEST(OutputTest, APassingGateIsShort) {
  analysis::ReportDocument doc;
  doc.runs.emplace_back();
  for (int i = 0; i < 30; ++i) {
    Finding f = sample().runs[0].findings[0];
    f.name_pattern = "known." + std::to_string(i);
    f.status = GateStatus::kBaseline;
    doc.runs[0].findings.push_back(f);
  }
  doc.gate = analysis::GateSummary{};
  doc.gate->baseline = 30;
  const std::string text = report::render_text(doc, Style(false));
  const auto lines = std::count(text.begin(), text.end(), '\n');
  EXPECT_LE(lines, 18) << text;
  EXPECT_EQ(text.find("created at:"), std::string::npos) << text;
  EXPECT_NE(text.find("(20 more problems not failing the gate"), std::string::npos) << text;
  EXPECT_NE(text.find("Gate: pass: 0 new problems (0 allowed), 30 in the baseline"),
            std::string::npos)
      << text;
  // A new one among them comes first, whole.
  doc.runs[0].findings[17].status = GateStatus::kNew;
  const std::string failing = report::render_text(doc, Style(false));
  EXPECT_NE(failing.find("  #1  retained  VkBuffer"), std::string::npos) << failing;
  EXPECT_LT(failing.find("[new]"), failing.find("[baseline]"));
  EXPECT_NE(failing.find("created at:"), std::string::npos);
}

}  // namespace
}  // namespace vkleak
