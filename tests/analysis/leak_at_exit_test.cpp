// leak_at_exit: what teardown (or exit) snapshots still hold, and what is never a leak.
#include <gtest/gtest.h>

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

TEST(LeakAtExitTest, ExitSnapshotOfAnAppThatNeverToreDown) {
  SnapshotBuilder s(kPid, 1, format::Reason::kExit, 1);
  s.object({test::kInstanceId, "VkInstance", std::nullopt, 0, 0, -1});
  ObjectSpec device{test::kDeviceId, "VkDevice", "scenario.device", 0, 0, -1};
  device.owner = test::kInstanceId;
  s.object(device);
  s.object({10, "VkBuffer", "kept.0", 0, 256, s.callsite(0x1000)});
  const analysis::RunReport r = test::analyse({s});
  EXPECT_EQ(test::of_kind(r, FindingKind::kLeakAtExit).size(), 3u);
  const analysis::Finding* b = test::only(r, FindingKind::kLeakAtExit, "VkBuffer");
  ASSERT_NE(b, nullptr);
  EXPECT_NE(b->message.find("never destroyed its instance"), std::string::npos) << b->message;
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
