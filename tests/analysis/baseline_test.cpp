// The gate's identity of a problem and the baseline file (issue 36): the whole symbolized path,
// stripped programs across rebuilds, baselines of other programs, frameless entries, the file's
// form (small, sorted, stable) and its update, and the known problems that no longer occur.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/baseline.h"
#include "analysis/gate.h"
#include "analysis/problems.h"
#include "analysis/suppressions.h"
#include "report/output.h"
#include "test_util.h"

namespace vkleak {
namespace {

using analysis::Baseline;
using analysis::Finding;
using analysis::FindingKind;
using analysis::Frame;
using analysis::GateStatus;
using nlohmann::json;

// A symbolized frame: function, file and line, in the program's module.
Frame fn(const std::string& function, int line = 10, bool inlined = false) {
  Frame f;
  f.function = function;
  f.file = "/home/dev/src/engine/render.cpp";
  f.line = line;
  f.module = "game";
  f.inlined = inlined;
  f.text = function + " (/home/dev/src/engine/render.cpp:" + std::to_string(line) + ")" +
           (inlined ? " (inlined)" : "");
  return f;
}

// A frame no symbol names: module+offset.
Frame raw(const std::string& module, uint64_t offset) {
  Frame f;
  f.module = module;
  char hex[32];
  std::snprintf(hex, sizeof hex, "+0x%llx", static_cast<unsigned long long>(offset));
  f.text = module + hex;
  return f;
}

Finding leak(const std::string& type, const std::string& name, std::vector<Frame> callsite,
             FindingKind kind = FindingKind::kLeakAtExit) {
  Finding f;
  f.kind = kind;
  f.object_type = type;
  f.names = {name};
  f.name_pattern = analysis::name_pattern(name);
  f.count = 4;
  f.bytes = 4096;
  f.callsite = std::move(callsite);
  f.pid = 4242;
  f.snapshot = "/tmp/run/vkleak-4242-0001-exit.json";
  return f;
}

analysis::ReportDocument document(std::vector<Finding> findings,
                                  const std::string& executable = "/opt/game/bin/game") {
  analysis::ReportDocument doc;
  analysis::RunReport run;
  run.pid = 4242;
  run.executable = executable;
  run.findings = std::move(findings);
  doc.runs.push_back(std::move(run));
  return doc;
}

Baseline baseline_of(std::vector<Finding> findings) {
  return Baseline::parse(Baseline::of(document(std::move(findings))).serialize(), "base.json");
}

// The statuses the gate gives each problem's first finding, by name pattern.
std::map<std::string, GateStatus> gate(const Baseline& baseline, std::vector<Finding> findings,
                                       analysis::GateSummary* summary = nullptr) {
  analysis::ReportDocument doc = document(std::move(findings));
  const analysis::GateSummary s =
      analysis::apply_gate(&doc, nullptr, &baseline, analysis::GatePolicy{});
  if (summary != nullptr) *summary = s;
  std::map<std::string, GateStatus> out;
  for (const Finding& f : doc.runs[0].findings) out[f.name_pattern] = f.status;
  return out;
}

// A new leak whose innermost three calls are a known leak's is new: the identity is the whole
// path out to main, never a suffix.
TEST(BaselineIdentityTest, TheWholePathNotItsInnermostCalls) {
  const std::vector<Frame> known = {fn("make_buffer(int)"), fn("upload()"), fn("Mesh::load()"),
                                    fn("Level::load()"), fn("main")};
  std::vector<Frame> other = known;
  other[3] = fn("Editor::preview()");
  const Finding a = leak("VkBuffer", "mesh.1", known);
  const Finding b = leak("VkBuffer", "mesh.1", other);
  EXPECT_EQ(a.identity(),
            "VkBuffer|main > Level::load() > Mesh::load() > upload() > make_buffer(int)|mesh.*");
  const Baseline baseline = baseline_of({a});
  EXPECT_TRUE(baseline.contains(a));
  EXPECT_FALSE(baseline.contains(b)) << "the innermost three calls match, the path does not";
  EXPECT_EQ(gate(baseline, {b})["mesh.*"], GateStatus::kNew);
  // Above main: the C runtime's, whatever --startup-frames shows.
  std::vector<Frame> with_startup = known;
  with_startup.push_back(fn("__libc_start_call_main"));
  with_startup.push_back(fn("_start"));
  EXPECT_TRUE(baseline.contains(leak("VkBuffer", "mesh.7", with_startup)));
}

// A library's problem joins unrelated call sites inside it into one block: it stays known only
// while each of them is, so that a new leak inside the library fails the gate.
TEST(BaselineIdentityTest, ANewLeakInsideALibrarysProblemIsNew) {
  const auto in_lib = [](const std::string& function) {
    Frame f = fn(function);
    f.module = "libtoolkit.so.6";
    return f;
  };
  const Finding a =
      leak("VkBuffer", "ui.vertices", {in_lib("Ui::vertices()"), in_lib("Ui::run()")});
  const Finding b = leak("VkImage", "ui.atlas", {in_lib("Ui::atlas()"), in_lib("Ui::run()")});
  const Finding c = leak("VkSampler", "ui.sampler", {in_lib("Ui::sampler()"), in_lib("Ui::run()")});
  const auto problems_of = [](std::vector<Finding> findings) {
    analysis::ReportDocument doc = document(std::move(findings));
    analysis::assign_problems(&doc.runs[0]);
    return doc;
  };
  analysis::ReportDocument known_doc = problems_of({a, b});
  ASSERT_EQ(known_doc.runs[0].problems.size(), 1u);
  ASSERT_EQ(known_doc.runs[0].problems[0].library, "libtoolkit.so.6");
  const Baseline baseline = Baseline::parse(Baseline::of(known_doc).serialize(), "base.json");
  EXPECT_EQ(baseline.size(), 1u) << "one entry for the library's problem";

  analysis::ReportDocument same = problems_of({a, b});
  EXPECT_EQ(baseline.match_run(same.runs[0], nullptr), std::vector<bool>{true});
  analysis::ReportDocument grown = problems_of({a, b, c});
  ASSERT_EQ(grown.runs[0].problems.size(), 1u);
  EXPECT_EQ(baseline.match_run(grown.runs[0], nullptr), std::vector<bool>{false})
      << "a third call site inside the library is a new leak";
  analysis::ReportDocument fewer = problems_of({a});
  EXPECT_EQ(baseline.match_run(fewer.runs[0], nullptr), std::vector<bool>{true});
}

// Lines, inlining decisions and the offset inside a function may change with an edit elsewhere;
// functions may not.
TEST(BaselineIdentityTest, LinesAndInliningMayChangeFunctionsMayNot) {
  const Finding known =
      leak("VkImage", "tex", {fn("create(int)", 10, true), fn("Cache::get()", 20), fn("main", 30)});
  const Baseline baseline = baseline_of({known});
  EXPECT_TRUE(baseline.contains(leak(
      "VkImage", "tex", {fn("create(int)", 14, false), fn("Cache::get()", 27), fn("main", 31)})))
      << "lines moved, the helper no longer inlined";
  EXPECT_FALSE(baseline.contains(leak("VkImage", "tex", {fn("Cache::get()", 20), fn("main", 30)})))
      << "the helper is part of the path: inline chains count";
  EXPECT_FALSE(baseline.contains(leak(
      "VkImage", "tex", {fn("create(int)", 10, true), fn("Cache::put()", 20), fn("main", 30)})));
  // A symbol table without debug info: "function (module+0xoffset)"; a rebuild moves the offset.
  auto symtab = [](const std::string& function, uint64_t offset) {
    Frame f = raw("game", offset);
    f.text = function + " (" + f.text + ")";
    f.function = function;
    return f;
  };
  const Finding stripped_debug =
      leak("VkImage", "tex", {symtab("Cache::get()", 0x1200), symtab("main", 0x4000)});
  const Baseline by_symbols = baseline_of({stripped_debug});
  EXPECT_TRUE(by_symbols.contains(
      leak("VkImage", "tex", {symtab("Cache::get()", 0x1260), symtab("main", 0x4100)})));
  EXPECT_EQ(stripped_debug.key().shape_identity(), "") << "named frames need no weaker key";
}

// A stripped program: frames are module+offset. An unrelated rebuild moves every offset: the
// known leak stays known by the shape of its stack, while a second leak of that shape is new and
// a leak of another shape is new.
TEST(BaselineIdentityTest, AStrippedProgramRebuiltKeepsItsKnownLeaks) {
  auto stack = [](uint64_t shift, uint64_t site) {
    return std::vector<Frame>{raw("game", 0x1000 + site + shift), raw("game", 0x2000 + shift),
                              raw("libc.so.6", 0x271ca), fn("main")};
  };
  const Finding known = leak("VkBuffer", "vb", stack(0, 0));
  EXPECT_EQ(known.identity(), "VkBuffer|main > libc.so.6+0x271ca > game+0x2000 > game+0x1000|vb");
  EXPECT_EQ(known.key().shape_identity(), "VkBuffer|main > libc.so.6+? > game+? > game+?|vb");
  const Baseline baseline = baseline_of({known});

  // Rebuilt with a line added before it: every offset of game moved.
  analysis::GateSummary summary;
  EXPECT_EQ(gate(baseline, {leak("VkBuffer", "vb", stack(0x40, 0))})["vb"], GateStatus::kBaseline);
  EXPECT_EQ(gate(baseline, {leak("VkBuffer", "vb", stack(0x40, 0))}, &summary).size(), 1u);
  EXPECT_TRUE(summary.fixed.empty()) << "the known leak still occurs";
  EXPECT_FALSE(baseline.contains(leak("VkBuffer", "vb", stack(0x40, 0))))
      << "contains() is the exact identity; the shape is the gate's fallback";

  // The known leak and a second one of the same shape: one entry, one known problem.
  std::map<std::string, GateStatus> both =
      gate(baseline, {leak("VkBuffer", "vb", stack(0, 0)), leak("VkBuffer", "vb2", stack(0, 8))});
  EXPECT_EQ(both["vb"], GateStatus::kBaseline);
  // (vb2's name pattern differs: another identity whatever the shape.)
  EXPECT_EQ(both["vb*"], GateStatus::kNew);
  // Both rebuilt (the entry's stack is nowhere): still one of them known, the other new.
  Finding twin = leak("VkBuffer", "vb", stack(0x40, 8));
  twin.objects = {{99, 1}};
  Finding same = leak("VkBuffer", "vb", stack(0x40, 0));
  same.objects = {{1, 1}};
  analysis::ReportDocument doc = document({same, twin});
  const analysis::GateSummary s =
      analysis::apply_gate(&doc, nullptr, &baseline, analysis::GatePolicy{});
  EXPECT_EQ(s.baseline, 1u);
  EXPECT_EQ(s.new_findings, 1u) << "a second leak of a known shape is new";

  // The entry's own stack is still in the run (under another name): offsets did not move, and a
  // leak of the same shape elsewhere is another call site.
  const Baseline renamed = baseline_of({leak("VkBuffer", "ib", stack(0, 0))});
  std::map<std::string, GateStatus> moved =
      gate(renamed, {leak("VkBuffer", "vb", stack(0, 0)), leak("VkBuffer", "ib", stack(0, 8))});
  EXPECT_EQ(moved["ib"], GateStatus::kNew);

  // Another shape (a frame more) or another module: new.
  std::vector<Frame> deeper = stack(0x40, 0);
  deeper.insert(deeper.begin(), raw("game", 0x900));
  EXPECT_EQ(gate(baseline, {leak("VkBuffer", "vb", deeper)})["vb"], GateStatus::kNew);
  std::vector<Frame> other_module = stack(0x40, 0);
  other_module[0] = raw("libengine.so", 0x1000);
  EXPECT_EQ(gate(baseline, {leak("VkBuffer", "vb", other_module)})["vb"], GateStatus::kNew);
}

TEST(BaselineIdentityTest, UnnamedFramesAreToldFromFunctions) {
  EXPECT_TRUE(analysis::is_unnamed_frame("game+0x1a2b"));
  EXPECT_TRUE(analysis::is_unnamed_frame("lib foo.so+0x1"));
  EXPECT_TRUE(analysis::is_unnamed_frame("?"));
  EXPECT_FALSE(analysis::is_unnamed_frame("operator+(int)"));
  EXPECT_FALSE(analysis::is_unnamed_frame("main"));
  EXPECT_FALSE(analysis::is_unnamed_frame("f(int+0x1)"));
  EXPECT_FALSE(analysis::is_unnamed_frame("game+0x"));
  // The text's notes are not part of a frame; a frame outside any module is "?" (its address
  // moves with every run).
  Frame noted = raw("game", 0x10);
  noted.text += " (build-id mismatch) [Vulkan stack]";
  Frame nowhere;
  nowhere.text = "0x7f001234";
  EXPECT_EQ(analysis::callsite_path({noted, nowhere}),
            (std::vector<std::string>{"game+0x10", "?"}));
}

// A baseline of another program hides this program's leaks (or finds none of them known): the
// gate refuses it unless asked.
TEST(BaselineProgramTest, ABaselineOfAnotherProgramIsRefused) {
  const Finding f = leak("VkBuffer", "vb", {fn("main")});
  const Baseline of_game = baseline_of({f});
  EXPECT_EQ(of_game.programs(), std::vector<std::string>{"game"}) << "the file name, no path";
  EXPECT_EQ(analysis::program_mismatch(of_game, document({f}, "/usr/local/bin/game")), "");
  EXPECT_EQ(analysis::program_mismatch(of_game, document({f}, "/opt/editor/editor")),
            "the baseline is of \"game\", the snapshots are of \"editor\"");
  // Unknown on either side (a layer that could not read the executable): nothing to check.
  EXPECT_EQ(analysis::program_mismatch(of_game, document({f}, "")), "");
  const Baseline unknown = Baseline::parse(
      R"({"format": "vkleak-baseline", "version": 1, "programs": [], "entries": []})", "b");
  EXPECT_EQ(analysis::program_mismatch(unknown, document({f}, "/opt/editor/editor")), "");
  // A findings document: its runs' executables.
  const Baseline old = Baseline::parse(report::findings_json(document({f})).dump(), "old.json");
  EXPECT_FALSE(old.is_baseline_file());
  EXPECT_EQ(old.programs(), std::vector<std::string>{"game"});
  EXPECT_NE(analysis::program_mismatch(old, document({f}, "editor")), "");
}

// A finding of a findings document without callsite_frames: its fingerprint carries the path.
TEST(BaselineFileTest, AnEntryWithoutFramesUsesItsFingerprint) {
  const Finding deep = leak("VkBuffer", "mesh.1",
                            {fn("make_buffer(int)"), fn("upload()"), fn("Mesh::load()"),
                             fn("Level::load()"), fn("main")});
  json doc = report::findings_json(document({deep}));
  doc["findings"][0].erase("callsite_frames");
  doc["findings"][0].erase("callsite");
  doc["findings"][0]["function"] = "make_buffer(int)";
  const Baseline from_fingerprint = Baseline::parse(doc.dump(), "old.json");
  EXPECT_TRUE(from_fingerprint.contains(deep));
  std::vector<Frame> other = deep.callsite;
  other[3] = fn("Editor::preview()");
  EXPECT_FALSE(from_fingerprint.contains(leak("VkBuffer", "mesh.1", other)));

  // Builds before whole paths spelled a stripped stack innermost first with ';'.
  const std::string old = R"({"format": "vkleak-findings", "version": 1, "findings": [
    {"kind": "stale_view", "object_type": "VkImageView", "name_pattern": "",
     "fingerprint": "stale_view|VkImageView|libxul.so+0x1a2b;libxul.so+0x3c4d;firefox+0x77|"}]})";
  const Finding view = leak(
      "VkImageView", "", {raw("libxul.so", 0x1a2b), raw("libxul.so", 0x3c4d), raw("firefox", 0x77)},
      FindingKind::kStaleView);
  EXPECT_TRUE(Baseline::parse(old, "old.json").contains(view));
}

// The file: small and reviewable, one entry per problem, no pids, handles or absolute paths,
// sorted, the same bytes for the same problems whatever their order.
TEST(BaselineFileTest, SmallSortedStableAndWithoutRunDetails) {
  Finding growth = leak("VkBuffer", "stats.3", {fn("make_buffer(int)", 42), fn("main", 80)},
                        FindingKind::kGrowth);
  growth.objects = {{5, 100}, {6, 100}};
  Finding at_exit = growth;
  at_exit.kind = FindingKind::kLeakAtExit;
  Finding view = leak("VkImageView", "ui.view", {raw("game", 0x1a2b), fn("main", 90)},
                      FindingKind::kStaleView);
  view.objects = {{9, 0}};
  analysis::ReportDocument doc = document({growth, at_exit, view});
  analysis::assign_problems(&doc.runs[0]);
  const std::string text = Baseline::of(doc).serialize();
  const json j = json::parse(text);
  EXPECT_EQ(j["format"], "vkleak-baseline");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["programs"], json::array({"game"}));
  ASSERT_EQ(j["entries"].size(), 2u) << "one entry per problem: " << text;
  const json& buffers = j["entries"][0];
  EXPECT_EQ(buffers["type"], "VkBuffer");
  EXPECT_EQ(buffers["kinds"], json::array({"growth", "leak_at_exit"}));
  EXPECT_EQ(buffers["callsite"], json::array({"make_buffer(int)", "main"}));
  EXPECT_EQ(buffers["name_pattern"], "stats.*");
  EXPECT_EQ(buffers["description"],
            "leak_at_exit + growth: 2 VkBuffer \"stats.*\", 200 B, made at make_buffer(int) "
            "(render.cpp:42)");
  EXPECT_EQ(j["entries"][1]["callsite"], json::array({"game+0x1a2b", "main"}));
  EXPECT_EQ(text.find("4242"), std::string::npos) << "no pid";
  EXPECT_EQ(text.find("/home/dev"), std::string::npos) << "no absolute source path";
  EXPECT_EQ(text.find("/opt/game"), std::string::npos) << "no executable path";
  EXPECT_EQ(text.find("/tmp/run"), std::string::npos) << "no snapshot path";
  EXPECT_EQ(text.back(), '\n');

  // Another order of the same problems, other pids and handles: the same bytes; read back and
  // written again: the same bytes.
  analysis::ReportDocument again = document({view, at_exit, growth});
  again.runs[0].pid = 99;
  for (Finding& f : again.runs[0].findings) f.pid = 99;
  analysis::assign_problems(&again.runs[0]);
  EXPECT_EQ(Baseline::of(again).serialize(), text);
  EXPECT_EQ(Baseline::parse(text, "b.json").serialize(), text);
}

TEST(BaselineFileTest, MalformedAndNewerFilesAreRefused) {
  auto error = [](const std::string& text) {
    try {
      Baseline::parse(text, "b.json");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error(R"({"format": "other"})").find("or baseline (vkleak baseline writes one)"),
            std::string::npos);
  EXPECT_NE(error(R"({"format": "vkleak-baseline", "version": 2, "programs": [], "entries": []})")
                .find("newer than this vkleak supports"),
            std::string::npos);
  EXPECT_EQ(error(R"({"format": "vkleak-baseline", "version": 1, "programs": [],
                      "entries": [{"kinds": ["growth"], "type": "VkBuffer"}]})"),
            "b.json: entries[0].callsite is missing or not an array");
  EXPECT_EQ(error(R"({"format": "vkleak-baseline", "version": 1, "programs": [],
                      "entries": [{"kinds": [], "type": "VkBuffer", "callsite": []}]})"),
            "b.json: entries[0].kinds is empty");
  EXPECT_EQ(error(R"({"format": "vkleak-baseline", "version": 1, "programs": ["a"],
                      "entries": [{"kinds": ["growth"], "type": "VkBuffer", "callsite": ["f"],
                                   "name_pattern": "x", "also": [{"type": "VkImage",
                                   "callsite": ["g"]}]}]})"),
            "no error");
}

// A misuse event is never a facet of a leak: its kind is part of its identity.
TEST(BaselineFileTest, MisuseEntriesKeepTheirKind) {
  const Finding freed = leak("VkDescriptorSet", "set", {fn("main")}, FindingKind::kInvalidDestroy);
  const Baseline baseline = baseline_of({freed});
  EXPECT_TRUE(baseline.contains(freed));
  EXPECT_FALSE(baseline.contains(leak("VkDescriptorSet", "set", {fn("main")})));
  EXPECT_FALSE(baseline.contains(
      leak("VkDescriptorSet", "set", {fn("main")}, FindingKind::kDestroyedInFlight)));
}

// The gate names the known problems that no longer occur (so that the baseline ratchets down),
// in the summary, the JSON and the text; a suppressed problem still occurs.
TEST(BaselineGateTest, KnownProblemsThatNoLongerOccurAreNamed) {
  const Finding kept = leak("VkBuffer", "kept", {fn("keep()"), fn("main")});
  const Finding fixed = leak("VkImage", "gone", {fn("lose()"), fn("main")});
  const Finding hushed = leak("VkSampler", "s", {fn("samplers()"), fn("main")});
  const Baseline baseline = baseline_of({kept, fixed, hushed});
  analysis::ReportDocument doc = document({kept, hushed});
  const analysis::Suppressions suppressions =
      analysis::Suppressions::parse("type=VkSampler\n", "s.supp");
  const analysis::GateSummary s =
      analysis::apply_gate(&doc, &suppressions, &baseline, analysis::GatePolicy{});
  EXPECT_TRUE(s.pass);
  EXPECT_EQ(s.suppressed, 1u);
  ASSERT_EQ(s.fixed.size(), 1u);
  EXPECT_EQ(s.fixed[0],
            "leak_at_exit: 4 VkImage \"gone\", 4.0 KiB, made at lose() (render.cpp:10)");
  const json j = report::findings_json(doc);
  EXPECT_EQ(j["gate"]["fixed"], json::array({s.fixed[0]}));
  const std::string text = report::render_text(doc, Style(false));
  EXPECT_NE(text.find("1 fixed"), std::string::npos) << text;
  EXPECT_NE(text.find("fixed: " + s.fixed[0] +
                      "  (remove from the baseline with `vkleak baseline --update`)"),
            std::string::npos)
      << text;
  // Nothing fixed: nothing said.
  analysis::ReportDocument all = document({kept, fixed, hushed});
  EXPECT_TRUE(analysis::apply_gate(&all, nullptr, &baseline, analysis::GatePolicy{}).fixed.empty());
  EXPECT_EQ(report::render_text(all, Style(false)).find("fixed"), std::string::npos);
}

// --update keeps the entries that still occur as they are, adds the new problems and removes the
// fixed ones, saying which.
TEST(BaselineUpdateTest, KeepsAddsAndRemoves) {
  const Finding kept = leak("VkBuffer", "kept", {fn("keep()"), fn("main")});
  const Finding fixed = leak("VkImage", "gone", {fn("lose()"), fn("main")});
  const Baseline old = baseline_of({kept, fixed});
  Finding kept_now = kept;
  kept_now.count = 400;  // counts are informative: the entry stays as written
  kept_now.callsite[0].line = 99;
  const Finding added = leak("VkFence", "f", {fn("fences()"), fn("main")});
  std::vector<std::string> added_list, removed_list;
  const Baseline updated = old.updated(document({kept_now, added}), &added_list, &removed_list);
  ASSERT_EQ(updated.size(), 2u);
  EXPECT_TRUE(updated.contains(kept));
  EXPECT_TRUE(updated.contains(added));
  EXPECT_FALSE(updated.contains(fixed));
  EXPECT_EQ(added_list,
            std::vector<std::string>{
                "leak_at_exit: 4 VkFence \"f\", 4.0 KiB, made at fences() (render.cpp:10)"});
  EXPECT_EQ(removed_list,
            std::vector<std::string>{
                "leak_at_exit: 4 VkImage \"gone\", 4.0 KiB, made at lose() (render.cpp:10)"});
  const std::string text = updated.serialize();
  EXPECT_NE(text.find("\"count\": 4,"), std::string::npos) << "kept as written: " << text;
  // The same problems again: nothing changes.
  std::vector<std::string> none_added, none_removed;
  EXPECT_EQ(Baseline::parse(text, "b")
                .updated(document({kept_now, added}), &none_added, &none_removed)
                .serialize(),
            text);
  EXPECT_TRUE(none_added.empty());
  EXPECT_TRUE(none_removed.empty());
}

}  // namespace
}  // namespace vkleak
