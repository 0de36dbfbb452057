// retained: superseded and unused, never freed; and everything that only looks like it.
#include <gtest/gtest.h>

#include "test_util.h"

namespace vkleak {
namespace {

using analysis::FindingKind;
using test::ObjectSpec;
using test::SnapshotBuilder;

constexpr uint64_t kPid = 200;

// Incident 1: one buffer (with its own memory) made per frame, used in that frame only, never
// destroyed. At frame `now`, frames 0..now-1 have made one each.
SnapshotBuilder per_frame_leak(uint64_t now) {
  SnapshotBuilder s(kPid, 1, "frame", now);
  const int buffers = s.callsite(0x1000);
  const int memories = s.callsite(0x2000);
  for (uint64_t f = 0; f < now; ++f) {
    const uint64_t id = 100 + 2 * f;
    s.object({id, "VkBuffer", "wrapper.vertices", f, 65536, buffers, "created", f});
    s.object(
        {id + 1, "VkDeviceMemory", "wrapper.vertices.memory", f, 65536, memories, "allocated", f});
    s.bind(id, id + 1, 65536);
  }
  return s;
}

TEST(RetainedTest, SupersededPerFrameBuffersWithTheirMemory) {
  const analysis::RunReport r = test::analyse({per_frame_leak(100)});
  const analysis::Finding* f = test::only(r, FindingKind::kRetained, "VkBuffer");
  ASSERT_NE(f, nullptr);
  // Idle for 16+ frames at frame 100: made in frames 0..84.
  EXPECT_EQ(f->count, 85u);
  EXPECT_EQ(f->bytes, 85u * 65536);
  EXPECT_EQ(f->frames.first, 0u);
  EXPECT_EQ(f->frames.last, 84u);
  EXPECT_EQ(f->frames.last_used, 84u);
  EXPECT_EQ(f->frames.group_last_used, 99u);
  EXPECT_TRUE(test::has_name(*f, "wrapper.vertices.memory"));
  EXPECT_EQ(f->name_pattern, "wrapper.vertices");
  ASSERT_EQ(f->examples.size(), 5u);
  EXPECT_EQ(f->examples.front().id, 100u) << "oldest first";
  EXPECT_EQ(f->examples_omitted, 80u);
  // The memory goes with its buffer: no finding of its own.
  EXPECT_TRUE(test::of_kind(r, FindingKind::kOrphanedMemory).empty());
  EXPECT_EQ(test::of_kind(r, FindingKind::kRetained).size(), 1u);
}

TEST(RetainedTest, TheThresholdIsAFlag) {
  analysis::AnalysisOptions options = test::test_options();
  options.thresholds.min_frames_unused = 50;
  const analysis::RunReport r = test::analyse({per_frame_leak(100)}, options);
  const analysis::Finding* f = test::only(r, FindingKind::kRetained, "VkBuffer");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 51u);
}

TEST(RetainedTest, TheWorstSnapshotSpeaksForTheGroup) {
  // Frame 100 shows 85 retained; at frame 120 the application freed all but the newest ten.
  SnapshotBuilder later(kPid, 2, "frame", 120);
  const int buffers = later.callsite(0x1000);
  for (uint64_t f = 110; f < 120; ++f) {
    later.object({100 + 2 * f, "VkBuffer", "wrapper.vertices", f, 65536, buffers, "created", f});
  }
  SnapshotBuilder early = per_frame_leak(100);
  const analysis::RunReport r = test::analyse({early, later});
  const analysis::Finding* f = test::only(r, FindingKind::kRetained, "VkBuffer");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 85u);
  EXPECT_EQ(f->frames.snapshot, 100u);
}

TEST(RetainedTest, RingBuffersCreatedTogetherAreNotSuperseded) {
  SnapshotBuilder s(kPid, 1, "frame", 300);
  const int ring = s.callsite(0x1000);
  // Used round-robin, and one slot not for a long while: all were made at start-up.
  s.object({10, "VkBuffer", "ring.0", 0, 4096, ring, "created", 299});
  s.object({11, "VkBuffer", "ring.1", 0, 4096, ring, "created", 298});
  s.object({12, "VkBuffer", "ring.2", 0, 4096, ring, "created", 200});
  const analysis::RunReport r = test::analyse({s});
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
}

TEST(RetainedTest, LongLivedRarelyUsedResources) {
  SnapshotBuilder s(kPid, 1, "frame", 300);
  const int textures = s.callsite(0x1000);
  s.object({10, "VkImage", "rare.lut", 0, 1 << 20, s.callsite(0x2000), "created", 204});
  // The same loader made both at start-up; one is used every frame, the other rarely.
  s.object({11, "VkImage", "texture.rare", 0, 4096, textures, "created", 120});
  s.object({12, "VkImage", "texture.hot", 0, 4096, textures, "created", 299});
  // Never used at all, made at start-up with a hot one.
  s.object({13, "VkImage", "texture.spare", 0, 4096, textures});
  const analysis::RunReport r = test::analyse({s});
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
}

TEST(RetainedTest, PerFrameObjectsDestroyedAfterTheirFenceAndRecentOnes) {
  SnapshotBuilder s(kPid, 1, "frame", 300);
  const int transient = s.callsite(0x1000);
  // Only the frames in flight are alive; one superseded 10 frames ago is below the threshold.
  s.object({500, "VkBuffer", "frame.transient", 299, 1024, transient, "created", 299});
  s.object({498, "VkBuffer", "frame.transient", 298, 1024, transient, "created", 298});
  s.object({480, "VkBuffer", "frame.transient", 290, 1024, transient, "created", 290});
  const analysis::RunReport r = test::analyse({s});
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
}

TEST(RetainedTest, InFlightObjectsAreInUse) {
  SnapshotBuilder s(kPid, 1, "frame", 300);
  const int site = s.callsite(0x1000);
  ObjectSpec old{10, "VkBuffer", "b", 10, 1024, site, "created", 10};
  old.in_flight = true;  // its last submission is not proven complete
  s.object(old);
  s.object({20, "VkBuffer", "b", 200, 1024, site, "created", 299});
  const analysis::RunReport r = test::analyse({s});
  EXPECT_TRUE(test::of_kind(r, FindingKind::kRetained).empty());
}

TEST(RetainedTest, AGroupNoLongerInUseIsNotSuperseded) {
  // A finished level's resources: all idle, nothing newer of theirs in use.
  SnapshotBuilder s(kPid, 1, "frame", 300);
  const int site = s.callsite(0x1000);
  for (uint64_t i = 0; i < 5; ++i) {
    s.object({10 + i, "VkBuffer", "level1", 10 * i, 1024, site, "created", 10 * i + 5});
  }
  const analysis::RunReport r = test::analyse({s});
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
}

TEST(RetainedTest, SubAllocatedBuffersShareTheirMemory) {
  SnapshotBuilder s(kPid, 1, "frame", 300);
  const int site = s.callsite(0x1000);
  s.object(
      {10, "VkDeviceMemory", "suballoc.block", 0, 65536, s.callsite(0x2000), "allocated", 299});
  for (uint64_t i = 0; i < 16; ++i) {
    s.object(
        {20 + i, "VkBuffer", "suballoc." + std::to_string(i), 0, 4096, site, "created", 280 + i});
    s.bind(20 + i, 10, 4096);
  }
  const analysis::RunReport r = test::analyse({s});
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
}

TEST(RetainedTest, ReusedHandleValuesAreDifferentObjects) {
  // The driver hands the old buffer's handle value to its replacement: ids tell them apart.
  SnapshotBuilder a(kPid, 1, "frame", 100);
  const int site = a.callsite(0x1000);
  ObjectSpec old{10, "VkBuffer", "reused", 0, 1024, site, "created", 99};
  old.handle = 0xabc000;
  a.object(old);
  SnapshotBuilder b(kPid, 2, "frame", 200);
  b.callsite(0x1000);
  ObjectSpec replacement{50, "VkBuffer", "reused", 150, 1024, site, "created", 199};
  replacement.handle = 0xabc000;
  b.object(replacement);
  SnapshotBuilder end(kPid, 3, "device_destroy", 200);
  const analysis::RunReport r = test::analyse({a, b, end});
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
}

}  // namespace
}  // namespace vkleak
