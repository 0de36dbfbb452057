// leak_at_exit: what teardown (or exit) snapshots still hold, and what is never a leak.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>

#include "analysis/gate.h"
#include "report/output.h"
#include "test_util.h"

namespace vkleak {
namespace {

using analysis::FindingKind;
using test::ObjectSpec;
using test::SnapshotBuilder;

constexpr uint64_t kPid = 100;

TEST(LeakAtExitTest, ReportsWhatTheDeviceStillOwnsWithTheMemoryOnlyItHolds) {
  SnapshotBuilder s(kPid, 3, format::Reason::kDeviceDestroy, 300);
  const int buffers = s.callsite(0x1000);
  const int samplers = s.callsite(0x2000);
  const int memories = s.callsite(0x3000);
  for (uint64_t i = 0; i < 3; ++i) {
    const uint64_t id = 10 + 2 * i;
    s.object({id, "VkBuffer", "leak." + std::to_string(i), i, 4096, buffers});
    s.object({id + 1, "VkDeviceMemory", "leak." + std::to_string(i) + ".memory", i, 8192, memories,
              format::Origin::kAllocated});
    s.bind(id, id + 1, 4096);
  }
  s.object({40, "VkSampler", "lonely.sampler", 7, 0, samplers});
  const analysis::RunReport r = test::analyse({s});

  ASSERT_EQ(test::of_kind(r, FindingKind::kLeakAtExit).size(), 2u);
  const analysis::Finding* b = test::only(r, FindingKind::kLeakAtExit, "VkBuffer");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->count, 3u);
  EXPECT_EQ(b->bytes, 3u * 8192) << "the memory only they are bound to";
  ASSERT_EQ(b->related.size(), 1u);
  EXPECT_EQ(b->related[0].relation, "memory");
  EXPECT_EQ(b->related[0].count, 3u);
  EXPECT_TRUE(test::has_name(*b, "leak.2"));
  EXPECT_TRUE(test::has_name(*b, "leak.0.memory"));
  EXPECT_EQ(b->name_pattern, "leak.*");
  EXPECT_EQ(b->frames.first, 0u);
  EXPECT_EQ(b->frames.last, 2u);
  ASSERT_FALSE(b->callsite.empty());
  EXPECT_EQ(b->callsite.front().text, "app+0x1000");
  EXPECT_EQ(b->callsite_source, "object");
  EXPECT_NE(b->message.find("vkDestroyDevice"), std::string::npos) << b->message;
  // Ranked by bytes: the buffers before the sampler.
  EXPECT_EQ(r.findings.front().object_type, "VkBuffer");
  EXPECT_EQ(test::of_kind(r, FindingKind::kLeakAtExit).back()->object_type, "VkSampler");
}

TEST(LeakAtExitTest, PoolChildrenAreCountedWithTheirPool) {
  SnapshotBuilder s(kPid, 3, format::Reason::kDeviceDestroy, 50);
  const int pools = s.callsite(0x1000);
  const int sets = s.callsite(0x2000);
  s.object({10, "VkDescriptorPool", "bindgroup.pool", 0, 0, pools});
  for (uint64_t i = 0; i < 5; ++i) {
    ObjectSpec set{20 + i, "VkDescriptorSet",         "bindgroup." + std::to_string(i), i, 0,
                   sets,   format::Origin::kAllocated};
    set.parent = 10;
    s.object(set);
  }
  s.object({30, "VkCommandPool", "upload.pool", 0, 0, pools + 0});
  for (uint64_t i = 0; i < 2; ++i) {
    ObjectSpec cmd{31 + i, "VkCommandBuffer", "upload.cmd", 1, 0, sets, format::Origin::kAllocated};
    cmd.parent = 30;
    s.object(cmd);
  }
  const analysis::RunReport r = test::analyse({s});
  EXPECT_EQ(test::of_kind(r, FindingKind::kLeakAtExit).size(), 2u);
  const analysis::Finding* pool = test::only(r, FindingKind::kLeakAtExit, "VkDescriptorPool");
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->count, 1u);
  ASSERT_EQ(pool->related.size(), 1u);
  EXPECT_EQ(pool->related[0].relation, "pool children");
  EXPECT_EQ(pool->related[0].count, 5u);
  EXPECT_TRUE(test::has_name(*pool, "bindgroup.4"));
  EXPECT_NE(pool->message.find("holding 5 VkDescriptorSet"), std::string::npos) << pool->message;
  // Where the sets were allocated (the cache that fills the pool), not only how many.
  ASSERT_FALSE(pool->related[0].callsite.empty());
  ASSERT_FALSE(pool->callsite.empty());
  EXPECT_EQ(pool->related[0].callsite_count, 5u);
  EXPECT_NE(pool->related[0].callsite.front().text, pool->callsite.front().text);
  EXPECT_NE(pool->message.find("allocated in " + pool->related[0].callsite.front().text),
            std::string::npos)
      << pool->message;
  EXPECT_NE(test::only(r, FindingKind::kLeakAtExit, "VkCommandPool"), nullptr);
}

// One cause, one block: a view of a leaked image goes with the image (destroying the image is the
// fix); a view of an image that was destroyed in time is a leak of its own.
TEST(LeakAtExitTest, ViewsOfALeakedImageFoldIntoIt) {
  SnapshotBuilder s(kPid, 3, format::Reason::kDeviceDestroy, 50);
  const int images = s.callsite(0x1000);
  const int views = s.callsite(0x2000);
  for (uint64_t i = 0; i < 3; ++i) {
    s.object({10 + i, "VkImage", "thumb." + std::to_string(i), 1, 4096, images});
    s.object({20 + i, "VkImageView", "thumb.view." + std::to_string(i), 1, 0, views});
    s.edge({20 + i, "image", 10 + i, "VkImage"});
  }
  s.object({30, "VkImageView", "orphan.view", 1, 0, views});
  s.edge({30, "image", 99, "VkImage"});  // destroyed before the device
  const analysis::RunReport r = test::analyse({s});
  const analysis::Finding* image = test::only(r, FindingKind::kLeakAtExit, "VkImage");
  ASSERT_NE(image, nullptr);
  EXPECT_EQ(image->count, 3u);
  ASSERT_EQ(image->related.size(), 1u);
  EXPECT_EQ(image->related[0].relation, "views");
  EXPECT_EQ(image->related[0].count, 3u);
  EXPECT_NE(image->message.find("with 3 VkImageView of them"), std::string::npos) << image->message;
  const analysis::Finding* view = test::only(r, FindingKind::kLeakAtExit, "VkImageView");
  ASSERT_NE(view, nullptr);
  EXPECT_EQ(view->count, 1u) << "only the view whose image is gone";
  EXPECT_EQ(r.problems.size(), 2u);
}

TEST(LeakAtExitTest, RetrievedHandlesSwapchainImagesAndTheScopeAreNotLeaks) {
  SnapshotBuilder s(kPid, 3, format::Reason::kDeviceDestroy, 50);
  s.object({test::kDeviceId, "VkDevice", "scenario.device", 0, 0, -1});  // being destroyed
  s.object({4, "VkQueue", "queue", 0, 0, -1, format::Origin::kRetrieved});
  ObjectSpec image{5, "VkImage", "frame.swapchain.image.0",      0,
                   0, -1,        format::Origin::kSwapchainImage};
  image.parent = 99;
  s.object(image);
  const analysis::RunReport r = test::analyse({s});
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
}

// An exit snapshot (reason exit, label: how the process ended, none for exit()) of a program
// that made an instance, a device under it, `buffers` buffers "kept.<i>" (256 bytes, each with
// its memory of 1 KiB) and a sampler, and destroyed none of them.
SnapshotBuilder never_torn_down(const std::optional<std::string>& label, uint64_t buffers) {
  SnapshotBuilder s(kPid, 0, format::Reason::kExit, 40);  // the run's only snapshot: complete
  s.top(format::top::kFinal, "true");
  if (label) s.top(format::top::kLabel, "\"" + *label + "\"");
  ObjectSpec instance{test::kInstanceId, "VkInstance", std::nullopt, 0, 0, s.callsite(0x100)};
  instance.owner = test::kInstanceId;
  s.object(instance);
  ObjectSpec device{test::kDeviceId, "VkDevice", "scenario.device", 0, 0, s.callsite(0x200)};
  device.owner = test::kInstanceId;
  s.object(device);
  const int buffer_site = s.callsite(0x1000);
  const int memory_site = s.callsite(0x2000);
  for (uint64_t i = 0; i < buffers; ++i) {
    s.object({10 + 2 * i, "VkBuffer", "kept." + std::to_string(i), 1, 256, buffer_site});
    s.object({11 + 2 * i, "VkDeviceMemory", std::nullopt, 1, 1024, memory_site,
              format::Origin::kAllocated});
    s.bind(10 + 2 * i, 11 + 2 * i, 256);
  }
  s.object({100, "VkSampler", "linear", 2, 0, s.callsite(0x3000)});
  return s;
}

// Issue 36: exit() with the instance never destroyed is one problem, the instance, holding the
// device and everything under it by type and call site; before, one finding per call site
// (buffers, sampler, device, instance: 4 problems for one missing teardown).
TEST(LeakAtExitTest, ExitWithoutTeardownIsOneProblemPerRootNeverDestroyed) {
  const analysis::RunReport r = test::analyse({never_torn_down(std::nullopt, 5)});
  ASSERT_EQ(r.findings.size(), 1u) << r.findings.back().message;
  ASSERT_EQ(r.problems.size(), 1u);
  const analysis::Finding& f = r.findings.front();
  EXPECT_EQ(f.kind, FindingKind::kLeakAtExit);
  EXPECT_EQ(f.object_type, "VkInstance");
  EXPECT_FALSE(f.heuristic);
  EXPECT_EQ(f.count, 1u + 1u + 5u + 1u) << "the instance, the device, 5 buffers, the sampler";
  EXPECT_EQ(f.bytes, 5u * 1024) << "each buffer with the memory only it is bound to";
  ASSERT_EQ(f.contents.size(), 3u);
  EXPECT_EQ(f.contents[0].type, "VkBuffer");
  EXPECT_EQ(f.contents[0].count, 5u);
  EXPECT_EQ(f.contents[0].bytes, 5u * 1024);
  EXPECT_EQ(f.contents[0].name_pattern, "kept.*");
  ASSERT_FALSE(f.contents[0].callsite.empty());
  EXPECT_EQ(f.contents[0].callsite.front().text, "app+0x1000");
  ASSERT_FALSE(f.callsite.empty());
  EXPECT_EQ(f.callsite.front().text, "app+0x100") << "where the instance was made";
  EXPECT_NE(f.message.find("VkInstance never destroyed"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("5 VkBuffer \"kept.*\" (made in app+0x1000)"), std::string::npos)
      << f.message;
  EXPECT_TRUE(f.vuids.empty()) << "no call to validate";
  EXPECT_FALSE(r.skipped_teardown);
}

// As the layer writes them: a device's record is in its own table (its owner is itself), its
// instance named in the snapshot's devices.
TEST(LeakAtExitTest, ADeviceOwnedByItselfIsUnderItsInstance) {
  SnapshotBuilder s(kPid, 1, format::Reason::kExit, 40);
  ObjectSpec instance{test::kInstanceId, "VkInstance", std::nullopt, 0, 0, s.callsite(0x100)};
  instance.owner = test::kInstanceId;
  s.object(instance);
  s.object({test::kDeviceId, "VkDevice", std::nullopt, 0, 0, s.callsite(0x200)});
  s.object({10, "VkBuffer", "kept.0", 1, 256, s.callsite(0x1000)});
  const analysis::RunReport r = test::analyse({s});
  ASSERT_EQ(r.findings.size(), 1u) << r.findings.back().message;
  EXPECT_EQ(r.findings[0].object_type, "VkInstance");
  EXPECT_EQ(r.findings[0].count, 3u);
}

TEST(LeakAtExitTest, ExitAfterDestroyingTheDeviceLeavesTheInstanceAlone) {
  SnapshotBuilder s(kPid, 2, format::Reason::kExit, 40);
  ObjectSpec instance{test::kInstanceId, "VkInstance", std::nullopt, 0, 0, s.callsite(0x100)};
  instance.owner = test::kInstanceId;
  s.object(instance);
  const analysis::RunReport r = test::analyse({s});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].object_type, "VkInstance");
  EXPECT_EQ(r.findings[0].count, 1u);
  EXPECT_TRUE(r.findings[0].contents.empty());
  EXPECT_NE(r.findings[0].message.find("without vkDestroyInstance"), std::string::npos);
}

// The same objects read in another order give the same finding.
TEST(LeakAtExitTest, TheRootFindingDoesNotDependOnTheOrderOfObjects) {
  SnapshotBuilder s(kPid, 1, format::Reason::kExit, 40);
  const int a = s.callsite(0x1000), b = s.callsite(0x2000);
  s.object({30, "VkSampler", std::nullopt, 1, 0, b});
  s.object({20, "VkBuffer", std::nullopt, 1, 0, a});
  ObjectSpec device{test::kDeviceId, "VkDevice", std::nullopt, 0, 0, -1};
  device.owner = test::kInstanceId;
  s.object(device);
  ObjectSpec instance{test::kInstanceId, "VkInstance", std::nullopt, 0, 0, -1};
  instance.owner = test::kInstanceId;
  s.object(instance);
  const analysis::RunReport r = test::analyse({s});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].object_type, "VkInstance");
  ASSERT_EQ(r.findings[0].contents.size(), 3u);
  EXPECT_EQ(r.findings[0].contents[0].type, "VkBuffer") << "then VkDevice, VkSampler by type";
  EXPECT_EQ(r.findings[0].contents[1].type, "VkDevice");
}

// _exit(), quick_exit() and a fatal signal skip every teardown: what is alive is listed, not
// judged (a browser's GPU process that leaks nothing got 67 findings).
TEST(LeakAtExitTest, ASkippedTeardownIsListedNotJudged) {
  for (const auto& [label, said] :
       {std::pair{"_exit", "_exit()"}, {"quick_exit", "quick_exit()"}}) {
    SCOPED_TRACE(label);
    const analysis::RunReport r = test::analyse({never_torn_down(std::string(label), 5)});
    EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
    ASSERT_TRUE(r.skipped_teardown);
    const analysis::SkippedTeardown& t = *r.skipped_teardown;
    EXPECT_EQ(t.ended_by, said);
    EXPECT_EQ(t.frame, 40u);
    EXPECT_EQ(t.objects, 8u);
    EXPECT_EQ(t.bytes, 5u * 1024);
    ASSERT_EQ(t.alive.size(), 4u);
    EXPECT_EQ(t.alive[0].type, "VkBuffer");
    EXPECT_EQ(t.alive[0].count, 5u);
    bool noted = false;
    for (const std::string& note : r.notes) noted |= note.rfind("teardown not checked", 0) == 0;
    EXPECT_TRUE(noted);
  }
}

// The gate: a run that skipped its teardown is not green (teardown not checked, exit code 3)
// unless accepted; a run cut short stays incomplete, which wins.
TEST(LeakAtExitTest, TheGateSaysTeardownWasNotChecked) {
  analysis::ReportDocument doc;
  doc.runs.push_back(test::analyse({never_torn_down(std::string("_exit"), 1)}));
  analysis::GatePolicy policy;
  analysis::GateSummary s = analysis::apply_gate(&doc, nullptr, nullptr, policy);
  EXPECT_TRUE(doc.runs[0].incomplete.empty()) << doc.runs[0].incomplete.front();
  EXPECT_EQ(s.new_findings, 0u);
  EXPECT_EQ(s.skipped_teardown_runs, 1u);
  EXPECT_FALSE(s.pass);
  EXPECT_EQ(s.result(), analysis::GateResult::kTeardownNotChecked);
  EXPECT_EQ(report::findings_json(doc)["gate"]["result"], "teardown_not_checked");
  EXPECT_NE(report::render_text(doc, Style(false)).find("TEARDOWN NOT CHECKED"), std::string::npos);
  policy.accept_skipped_teardown = true;
  s = analysis::apply_gate(&doc, nullptr, nullptr, policy);
  EXPECT_TRUE(s.pass);
  EXPECT_EQ(s.result(), analysis::GateResult::kPass);
  doc.runs[0].incomplete.push_back("a snapshot is missing");
  s = analysis::apply_gate(&doc, nullptr, nullptr, policy);
  EXPECT_EQ(s.skipped_teardown_runs, 0u) << "incomplete says it";
  EXPECT_EQ(s.result(), analysis::GateResult::kIncomplete);
}

TEST(LeakAtExitTest, ACrashListsWhatWasAliveWithoutJudgingIt) {
  SnapshotBuilder crash(kPid, 1, format::Reason::kCrash, 40);
  crash.top(format::top::kLabel, "\"SIGSEGV\"");
  crash.object({10, "VkBuffer", "kept.0", 1, 256, crash.callsite(0x1000)});
  const analysis::RunReport r = test::analyse({crash});
  EXPECT_TRUE(test::of_kind(r, FindingKind::kLeakAtExit).empty());
  ASSERT_TRUE(r.skipped_teardown);
  EXPECT_EQ(r.skipped_teardown->ended_by, "SIGSEGV");
  EXPECT_EQ(r.skipped_teardown->objects, 1u);
}

TEST(LeakAtExitTest, SnapshotsDuringTheRunSayNothingAboutExit) {
  SnapshotBuilder s(kPid, 1, format::Reason::kFrame, 30);
  s.object({10, "VkBuffer", "alive", 29, 256, s.callsite(0x1000), format::Origin::kCreated, 29});
  const analysis::RunReport r = test::analyse({s});
  EXPECT_TRUE(test::of_kind(r, FindingKind::kLeakAtExit).empty());
  bool noted = false;
  for (const std::string& note : r.notes) noted |= note.find("leaks at exit not checked") == 0;
  EXPECT_TRUE(noted);
}

TEST(LeakAtExitTest, SummedOverTheTeardownSnapshotsOfARun) {
  SnapshotBuilder device(kPid, 2, format::Reason::kDeviceDestroy, 10);
  const int site = device.callsite(0x1000);
  device.object({10, "VkBuffer", "a", 1, 100, site});
  SnapshotBuilder instance(kPid, 3, format::Reason::kInstanceDestroy, 10);
  instance.callsite(0x1000);
  ObjectSpec other{20, "VkBuffer", "b", 2, 50, site};
  other.owner = 7;  // a second device the application never destroyed
  instance.object(other);
  const analysis::RunReport r = test::analyse({device, instance});
  const analysis::Finding* b = test::only(r, FindingKind::kLeakAtExit, "VkBuffer");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->count, 2u);
  EXPECT_EQ(b->bytes, 150u);
  EXPECT_NE(b->message.find("vkDestroyInstance"), std::string::npos) << "the latest speaks";
}

}  // namespace
}  // namespace vkleak
