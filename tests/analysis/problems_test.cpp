// Problems: findings about the same objects are one problem, and every total counts an object
// and its bytes once (a group that grew and leaked at exit is 300 buffers, not 600).
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/problems.h"
#include "report/html_report.h"
#include "report/output.h"
#include "shared/text.h"
#include "test_util.h"

namespace vkleak {
namespace {

using analysis::Finding;
using analysis::FindingKind;
using analysis::Problem;
using report::render_html;
using test::ObjectSpec;
using test::SnapshotBuilder;

constexpr uint64_t kPid = 700;
constexpr uint64_t kBufferBytes = 65536;  // 300 of them: 18.8 MiB

// Six snapshots during the run with 50, 100, ... of the buffers alive (ids 1000 + i), then a
// teardown snapshot with the buffers [teardown_first, teardown_end) alive.
std::vector<SnapshotBuilder> grow_then_teardown(uint64_t teardown_first, uint64_t teardown_end) {
  std::vector<SnapshotBuilder> out;
  for (size_t k = 0; k < 6; ++k) {
    const uint64_t now = 25 * (k + 1);
    SnapshotBuilder s(kPid, k, format::Reason::kFrame, now);
    const int site = s.callsite(0x1000);
    for (uint64_t i = 0; i < 50 * (k + 1); ++i) {
      s.object({1000 + i, "VkBuffer", "mesh.vertices", i / 2, kBufferBytes, site});
    }
    out.push_back(std::move(s));
  }
  SnapshotBuilder end(kPid, 6, format::Reason::kDeviceDestroy, 200);
  const int site = end.callsite(0x1000);
  for (uint64_t i = teardown_first; i < teardown_end; ++i) {
    end.object({1000 + i, "VkBuffer", "mesh.vertices", i / 2, kBufferBytes, site});
  }
  out.push_back(std::move(end));
  return out;
}

std::vector<FindingKind> kinds_of(const analysis::RunReport& r) {
  std::vector<FindingKind> out;
  for (const Finding& f : r.findings) out.push_back(f.kind);
  return out;
}

TEST(ProblemsTest, GrewAndLeakedAtExitIsOneProblemCountedOnce) {
  analysis::ReportDocument doc;
  doc.runs.push_back(test::analyse(grow_then_teardown(0, 300)));
  const analysis::RunReport& r = doc.runs.front();
  // Two findings, two verdicts, each of the same 300 buffers.
  ASSERT_EQ(r.findings.size(), 2u);
  const Finding* growth = test::only(r, FindingKind::kGrowth, "VkBuffer");
  const Finding* leak = test::only(r, FindingKind::kLeakAtExit, "VkBuffer");
  ASSERT_NE(growth, nullptr);
  ASSERT_NE(leak, nullptr);
  EXPECT_EQ(growth->count, 300u);
  EXPECT_EQ(leak->count, 300u);
  EXPECT_EQ(growth->bytes, 300 * kBufferBytes);

  ASSERT_EQ(r.problems.size(), 1u);
  const Problem& p = r.problems.front();
  EXPECT_EQ(p.count, 300u);
  EXPECT_EQ(p.bytes, 300 * kBufferBytes);
  EXPECT_EQ(p.findings, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(p.kinds, kinds_of(r));
  EXPECT_EQ(growth->problem, 0u);
  EXPECT_EQ(leak->problem, 0u);

  const analysis::ProblemTotals t = analysis::problem_totals(doc);
  EXPECT_EQ(t.problems, 1u);
  EXPECT_EQ(t.findings, 2u);
  EXPECT_EQ(t.objects, 300u);
  EXPECT_EQ(t.bytes, 300 * kBufferBytes);

  // Every output says so: 300 objects and 18.8 MiB, not 600 and 37.5 MiB.
  const nlohmann::json j = report::findings_json(doc);
  EXPECT_EQ(j["summary"]["problems"], 1);
  EXPECT_EQ(j["summary"]["objects"], 300);
  EXPECT_EQ(j["summary"]["bytes"], 300 * kBufferBytes);
  EXPECT_EQ(j["summary"]["findings"], 2) << "findings are still listed one by one";
  ASSERT_EQ(j["problems"].size(), 1u);
  EXPECT_EQ(j["problems"][0]["count"], 300);
  EXPECT_EQ(j["problems"][0]["findings"], nlohmann::json::array({0, 1}));
  EXPECT_EQ(j["problems"][0]["kinds"].size(), 2u);
  EXPECT_EQ(j["findings"][0]["problem"], 0);
  EXPECT_EQ(j["findings"][1]["problem"], 0);

  // Issue 27: one block per problem, its kinds in it, the evidence once, in every format.
  const std::string kinds = std::string(analysis::kind_name(r.findings[0].kind)) + " + " +
                            analysis::kind_name(r.findings[1].kind);
  const std::string text = report::render_text(doc, Style(false));
  EXPECT_NE(text.find("vkleak: 1 problem, 300 objects, 18.8 MiB in 1 run (2 findings: "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  #1  " + kinds + "  VkBuffer \"mesh.vertices\"  300 objects, 18.8 MiB\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("#2"), std::string::npos) << text;
  auto occurrences = [](const std::string& hay, const std::string& needle) {
    size_t n = 0;
    for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(occurrences(text, "created at:"), 1u) << text;
  EXPECT_EQ(occurrences(text, "examples:"), 1u) << text;
  EXPECT_NE(text.find("      growth: "), std::string::npos) << text;
  EXPECT_NE(text.find("      leak_at_exit: "), std::string::npos) << text;

  const std::string md = report::render_markdown(doc);
  EXPECT_NE(md.find("1 problem: 300 objects, 18.8 MiB"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1 | `" + std::string(analysis::kind_name(r.findings[0].kind)) + "` + `" +
                    analysis::kind_name(r.findings[1].kind) + "` | VkBuffer | 300 | 18.8 MiB |"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("| 2 |"), std::string::npos) << md;
  EXPECT_NE(md.find("1. **" + kinds + "**"), std::string::npos) << md;
  EXPECT_EQ(md.find("\n2. "), std::string::npos) << md;

  const std::string junit = report::render_junit(doc);
  EXPECT_EQ(occurrences(junit, "<testcase "), 2u) << junit;  // the problem and complete_run
  EXPECT_NE(junit.find("<failure type=\"" + kinds + "\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("tests=\"2\""), std::string::npos) << junit;

  const nlohmann::json sarif = report::render_sarif(doc, "");
  ASSERT_EQ(sarif["runs"][0]["results"].size(), 1u);
  EXPECT_EQ(sarif["runs"][0]["results"][0]["properties"]["kinds"].size(), 2u);
  EXPECT_EQ(sarif["runs"][0]["results"][0]["properties"]["count"], 300);

  const std::string page = render_html(doc);
  EXPECT_NE(page.find("<span class=\"vk-card-n\">18.8 MiB</span><span class=\"vk-card-label\">in "
                      "findings</span><span class=\"vk-card-sub\">300 objects, 1 problem, 2 "
                      "findings</span>"),
            std::string::npos);
  EXPECT_EQ(page.find("37.5 MiB"), std::string::npos);
  EXPECT_NE(page.find("One problem, 2 kinds:"), std::string::npos);
}

TEST(ProblemsTest, CertainProblemsRankBeforeHeuristicOnes) {
  // 18.8 MiB of buffers that grew during the run but were freed at teardown (judged: growth),
  // and one small sampler alive at vkDestroyDevice (seen: leak_at_exit).
  std::vector<SnapshotBuilder> run = grow_then_teardown(0, 0);
  run.back().object({5000, "VkSampler", "linear", 0, 0, run.back().callsite(0x2000)});
  const analysis::RunReport r = test::analyse(run);
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].kind, FindingKind::kLeakAtExit) << "a real leak never sits below a guess";
  EXPECT_FALSE(r.findings[0].heuristic);
  EXPECT_EQ(r.findings[1].kind, FindingKind::kGrowth);
  EXPECT_TRUE(r.findings[1].heuristic);
  ASSERT_EQ(r.problems.size(), 2u);
  EXPECT_EQ(r.problems[0].findings, std::vector<size_t>{0});
  EXPECT_FALSE(r.problems[0].heuristic);
  EXPECT_TRUE(r.problems[1].heuristic);
  analysis::ReportDocument doc;
  doc.runs.push_back(r);
  const nlohmann::json j = report::findings_json(doc);
  EXPECT_EQ(j["findings"][0]["evidence"], "certain");
  EXPECT_EQ(j["findings"][1]["evidence"], "heuristic");
}

// Issue 36: a semaphore leak growing by one a frame ranked below seven static 2 MiB blocks (by
// bytes). Certain first, then how fast a group accumulates, then bytes.
TEST(ProblemsTest, AnAccumulatingLeakRanksAboveStaticBlocks) {
  std::vector<SnapshotBuilder> run;
  for (size_t k = 0; k <= 6; ++k) {
    const bool teardown = k == 6;
    SnapshotBuilder s(kPid, k, teardown ? format::Reason::kDeviceDestroy : format::Reason::kFrame,
                      teardown ? 175 : 25 * (k + 1));
    const int semaphores = s.callsite(0x1000);
    for (uint64_t b = 0; b < 7; ++b) {
      s.object({100 + b, "VkDeviceMemory", "allocator.block", 0, 2u << 20,
                s.callsite(0x8000 + 0x100 * b), format::Origin::kAllocated});
    }
    for (uint64_t i = 0; i < 50 * std::min<uint64_t>(k + 1, 6); ++i) {
      s.object({1000 + i, "VkSemaphore", "frame.semaphore", i / 2, 0, semaphores});
    }
    run.push_back(std::move(s));
  }
  const analysis::RunReport r = test::analyse(run);
  ASSERT_GE(r.problems.size(), 8u);
  const Finding& top = r.findings[r.problems[0].findings.front()];
  EXPECT_EQ(top.object_type, "VkSemaphore") << top.message;
  EXPECT_GT(r.problems[0].accumulation, 0u);
  EXPECT_EQ(r.problems[1].accumulation, 0u);
  EXPECT_EQ(r.findings[r.problems[1].findings.front()].object_type, "VkDeviceMemory");
}

// A group that grew during a run ending in exit() without teardown is a cause of its own; the
// root never destroyed holds the rest, each object in one problem.
TEST(ProblemsTest, GrowthStaysItsOwnProblemBesideAForgottenTeardown) {
  std::vector<SnapshotBuilder> run = grow_then_teardown(0, 0);
  run.pop_back();
  SnapshotBuilder end(kPid, 6, format::Reason::kExit, 200);
  const int site = end.callsite(0x1000);
  ObjectSpec instance{test::kInstanceId, "VkInstance", std::nullopt, 0, 0, end.callsite(0x100)};
  instance.owner = test::kInstanceId;
  end.object(instance);
  ObjectSpec device{test::kDeviceId, "VkDevice", std::nullopt, 0, 0, end.callsite(0x200)};
  device.owner = test::kInstanceId;
  end.object(device);
  for (uint64_t i = 0; i < 350; ++i) {
    end.object({1000 + i, "VkBuffer", "mesh.vertices", i / 2, kBufferBytes, site});
  }
  end.object({5000, "VkSampler", "linear", 0, 0, end.callsite(0x2000)});
  run.push_back(std::move(end));
  const analysis::RunReport r = test::analyse(run);
  ASSERT_EQ(r.problems.size(), 2u);
  const Finding* growth = test::only(r, FindingKind::kGrowth, "VkBuffer");
  const Finding* root = test::only(r, FindingKind::kLeakAtExit, "VkInstance");
  ASSERT_NE(growth, nullptr);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(growth->count, 350u);
  EXPECT_EQ(root->count, 3u) << "the instance, the device, the sampler: " << root->message;
  EXPECT_NE(growth->problem, root->problem);
  EXPECT_EQ(r.problems[0].findings.front(), static_cast<size_t>(root - r.findings.data()))
      << "certain first";
}

// Leaks made wholly inside one library of the Vulkan stack (zink's caches, its own thread) are
// one problem for the library, its call sites listed inside; the program's own stay apart.
TEST(ProblemsTest, LeaksMadeInsideOneLibraryAreOneProblem) {
  SnapshotBuilder s(kPid, 3, format::Reason::kDeviceDestroy, 50);
  s.module_path("/usr/lib/x86_64-linux-gnu/libgallium-24.2.so");
  const int a = s.callsite(0x1000), b = s.callsite(0x2000), c = s.callsite(0x3000);
  s.object({10, "VkSemaphore", std::nullopt, 1, 0, a});
  s.object({11, "VkBuffer", std::nullopt, 1, 4096, b});
  s.object({12, "VkPipeline", std::nullopt, 1, 0, c});
  const analysis::RunReport zink = test::analyse({s});
  ASSERT_EQ(zink.findings.size(), 3u);
  ASSERT_EQ(zink.problems.size(), 1u);
  EXPECT_EQ(zink.problems[0].library, "libgallium-24.2.so");
  EXPECT_EQ(zink.problems[0].count, 3u);
  EXPECT_EQ(zink.problems[0].bytes, 4096u);
  analysis::ReportDocument doc;
  doc.runs.push_back(zink);
  EXPECT_NE(report::render_text(doc, Style(false))
                .find("not the program's own code: made inside libgallium-24.2.so"),
            std::string::npos);
  EXPECT_EQ(report::findings_json(doc)["problems"][0]["library"], "libgallium-24.2.so");

  // The same three leaks made by the program itself: three causes.
  SnapshotBuilder own(kPid, 3, format::Reason::kDeviceDestroy, 50);
  const int x = own.callsite(0x1000), y = own.callsite(0x2000), z = own.callsite(0x3000);
  own.object({10, "VkSemaphore", std::nullopt, 1, 0, x});
  own.object({11, "VkBuffer", std::nullopt, 1, 4096, y});
  own.object({12, "VkPipeline", std::nullopt, 1, 0, z});
  const analysis::RunReport app = test::analyse({own});
  EXPECT_EQ(app.problems.size(), 3u);
  EXPECT_TRUE(app.problems[0].library.empty());
}

// The same for a toolkit outside the Vulkan stack: a chain with no frame of the program's
// executable lies inside the library.
TEST(ProblemsTest, LeaksMadeInsideAToolkitAreOneProblem) {
  SnapshotBuilder s(kPid, 3, format::Reason::kDeviceDestroy, 50);
  s.module_path("/usr/lib/x86_64-linux-gnu/libQt6Gui.so.6");
  const int a = s.callsite(0x1000), b = s.callsite(0x2000);
  s.object({10, "VkDescriptorPool", std::nullopt, 1, 0, a});
  s.object({11, "VkBuffer", std::nullopt, 1, 4096, b});
  const analysis::RunReport qt = test::analyse({s});
  ASSERT_EQ(qt.findings.size(), 2u);
  ASSERT_EQ(qt.problems.size(), 1u);
  EXPECT_EQ(qt.problems[0].library, "libQt6Gui.so.6");
  // Frames of the executable make it the program's own, whatever else the chain passes.
  analysis::Finding own;
  own.kind = FindingKind::kLeakAtExit;
  analysis::Frame in_qt, in_app;
  in_qt.module = "libQt6Gui.so.6";
  in_app.module = "app";
  own.callsite = {in_qt, in_app};
  EXPECT_EQ(analysis::library_of(own, "/opt/app/bin/app"), "");
  EXPECT_EQ(analysis::library_of(own, "/opt/other/bin/other"), "libQt6Gui.so.6");
  // The executable unknown (an older layer): only the Vulkan stack is a library.
  own.callsite = {in_qt};
  EXPECT_EQ(analysis::library_of(own, ""), "");
}

TEST(ProblemsTest, PartialOverlapCountsTheUnion) {
  // 300 buffers seen growing; at teardown the first 100 are gone and 50 newer ones are there:
  // 250 leaked, 200 of them the growth's, 350 distinct buffers in all.
  analysis::ReportDocument doc;
  doc.runs.push_back(test::analyse(grow_then_teardown(100, 350)));
  const analysis::RunReport& r = doc.runs.front();
  const Finding* growth = test::only(r, FindingKind::kGrowth, "VkBuffer");
  const Finding* leak = test::only(r, FindingKind::kLeakAtExit, "VkBuffer");
  ASSERT_NE(growth, nullptr);
  ASSERT_NE(leak, nullptr);
  EXPECT_EQ(growth->count, 300u);
  EXPECT_EQ(leak->count, 250u);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].count, 350u);
  EXPECT_EQ(r.problems[0].bytes, 350 * kBufferBytes);
  const analysis::ProblemTotals t = analysis::problem_totals(doc);
  EXPECT_EQ(t.objects, 350u);
  EXPECT_EQ(t.bytes, 350 * kBufferBytes);
}

Finding with_objects(FindingKind kind, uint64_t first, uint64_t end, uint64_t bytes_each) {
  Finding f;
  f.kind = kind;
  f.object_type = "VkImage";
  for (uint64_t id = first; id < end; ++id) f.objects.emplace_back(id, bytes_each);
  f.count = end - first;
  f.bytes = f.count * bytes_each;
  return f;
}

TEST(ProblemsTest, FindingsJoinThroughSharedObjectsOnly) {
  analysis::RunReport r;
  // Ranked by bytes: 0 and 3 share ids 15..19 (3 counts them with more bytes: the most wins);
  // 1 shares nothing; 2 shares with 3; the event (4) has no objects.
  r.findings.push_back(with_objects(FindingKind::kGrowth, 0, 20, 100));           // 2000
  r.findings.push_back(with_objects(FindingKind::kRetained, 100, 115, 100));      // 1500
  r.findings.push_back(with_objects(FindingKind::kOrphanedMemory, 30, 40, 100));  // 1000
  r.findings.push_back(with_objects(FindingKind::kLeakAtExit, 15, 31, 50));       // 800
  Finding event;
  event.kind = FindingKind::kInvalidDestroy;
  event.count = 3;
  r.findings.push_back(event);
  analysis::assign_problems(&r);

  ASSERT_EQ(r.problems.size(), 3u);
  // 0..39: 0-19 at 100 (15-19 from the growth's 100, not the leak's 50), 20-29 at 50, 30-39 at
  // 100 (30 from the orphaned finding's 100).
  EXPECT_EQ(r.problems[0].findings, (std::vector<size_t>{0, 2, 3}));
  EXPECT_EQ(r.problems[0].count, 40u);
  EXPECT_EQ(r.problems[0].bytes, 20u * 100 + 10 * 50 + 10 * 100);
  EXPECT_EQ(r.problems[0].kinds,
            (std::vector<FindingKind>{FindingKind::kGrowth, FindingKind::kOrphanedMemory,
                                      FindingKind::kLeakAtExit}));
  EXPECT_EQ(r.problems[1].findings, (std::vector<size_t>{1}));
  EXPECT_EQ(r.problems[1].bytes, 1500u);
  EXPECT_EQ(r.problems[2].findings, (std::vector<size_t>{4}));
  EXPECT_EQ(r.problems[2].count, 3u);
  EXPECT_EQ(r.findings[3].problem, 0u);
  EXPECT_EQ(r.findings[1].problem, 1u);
  EXPECT_EQ(r.findings[4].problem, 2u);

  const analysis::ProblemTotals t = analysis::problem_totals(r);
  EXPECT_EQ(t.problems, 3u);
  EXPECT_EQ(t.objects, 40u + 15 + 3);
  EXPECT_EQ(t.bytes, 3500u + 1500);
}

TEST(ProblemsTest, AModelWithoutProblemsCountsEachFindingOnce) {
  analysis::RunReport r;
  r.findings.push_back(with_objects(FindingKind::kGrowth, 0, 10, 10));
  r.findings.push_back(with_objects(FindingKind::kLeakAtExit, 0, 10, 10));
  const analysis::ProblemTotals t = analysis::problem_totals(r);
  EXPECT_EQ(t.problems, 2u);
  EXPECT_EQ(t.objects, 20u);
  EXPECT_EQ(analysis::run_problems(r).size(), 2u);
  EXPECT_EQ(analysis::problem_of(r, r.findings[0]), nullptr);
}

}  // namespace
}  // namespace vkleak
