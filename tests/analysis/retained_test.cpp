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
  SnapshotBuilder s(kPid, now, format::Reason::kFrame, now);
  const int buffers = s.callsite(0x1000);
  const int memories = s.callsite(0x2000);
  for (uint64_t f = 0; f < now; ++f) {
    const uint64_t id = 100 + 2 * f;
    s.object({id, "VkBuffer", "wrapper.vertices", f, 65536, buffers, format::Origin::kCreated, f});
    s.object({id + 1, "VkDeviceMemory", "wrapper.vertices.memory", f, 65536, memories,
              format::Origin::kAllocated, f});
    s.bind(id, id + 1, 65536);
  }
  return s;
}

// The leak seen every 25 frames up to frame `last`: the evidence that the buffers pile up.
std::vector<SnapshotBuilder> leak_run(uint64_t last) {
  std::vector<SnapshotBuilder> run;
  for (uint64_t now = 25; now <= last; now += 25) run.push_back(per_frame_leak(now));
  return run;
}

TEST(RetainedTest, SupersededPerFrameBuffersWithTheirMemory) {
  const analysis::RunReport r = test::analyse(leak_run(100));
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
  const analysis::RunReport r = test::analyse(leak_run(100), options);
  const analysis::Finding* f = test::only(r, FindingKind::kRetained, "VkBuffer");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 51u);
}

TEST(RetainedTest, IdleThenFreedLaterIsNotRetained) {
  // Frames 25-100 show up to 85 idle buffers; at frame 120 the application freed all but the
  // newest ten: they were waiting to be freed (a deferred deletion), not kept.
  SnapshotBuilder later(kPid, 120, format::Reason::kFrame, 120);
  const int buffers = later.callsite(0x1000);
  for (uint64_t f = 110; f < 120; ++f) {
    later.object({100 + 2 * f, "VkBuffer", "wrapper.vertices", f, 65536, buffers,
                  format::Origin::kCreated, f});
  }
  std::vector<SnapshotBuilder> run = leak_run(100);
  EXPECT_NE(test::only(test::analyse(run), FindingKind::kRetained, "VkBuffer"), nullptr);
  run.push_back(later);
  const analysis::RunReport r = test::analyse(run);
  EXPECT_TRUE(test::of_kind(r, FindingKind::kRetained).empty()) << r.findings.front().message;
}

TEST(RetainedTest, APlaceholderMadeOnceByTheFactoryOfEveryBufferIsNotRetained) {
  // WebGPU implementations: one function makes every buffer. A 16 B placeholder made at start-up
  // and never used again, long-lived buffers in use, and per-frame transients freed after their
  // frame: the placeholder is idle and superseded, but nothing piles up.
  std::vector<SnapshotBuilder> run;
  for (uint64_t now = 50; now <= 300; now += 50) {
    SnapshotBuilder s(kPid, now, format::Reason::kFrame, now);
    const int factory = s.callsite(0x1000);
    s.object({10, "VkBuffer", "placeholder", 0, 16, factory, format::Origin::kCreated, 0});
    s.object({11, "VkBuffer", "uniforms", 1, 4096, factory, format::Origin::kCreated, now - 1});
    for (uint64_t f = now - 3; f < now; ++f) {
      s.object({1000 + f, "VkBuffer", "transient", f, 256, factory, format::Origin::kCreated, f});
    }
    run.push_back(std::move(s));
  }
  run.push_back(SnapshotBuilder(kPid, 400, format::Reason::kDeviceDestroy, 310));
  const analysis::RunReport r = test::analyse(run);
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
}

TEST(RetainedTest, ACachesIdleResidentsAreNotRetained) {
  // A game's texture cache: textures loaded on the loading screen (frames 0-9), idle while out
  // of view (some for 60 frames, then used again), one streamed in later and in use; all freed
  // at teardown.
  std::vector<SnapshotBuilder> run;
  for (uint64_t now = 50; now <= 300; now += 50) {
    SnapshotBuilder s(kPid, now, format::Reason::kFrame, now);
    const int textures = s.callsite(0x1000);
    for (uint64_t t = 0; t < 10; ++t) {
      const uint64_t in_view = (now / 50 + t) % 3 == 0 ? now - 1 : now - 40 - t;
      s.object({100 + t, "VkImage", "texture." + std::to_string(t), t, 1 << 16, textures,
                format::Origin::kCreated, in_view});
    }
    s.object({200, "VkImage", "texture.streamed", 30, 1 << 16, textures, format::Origin::kCreated,
              now - 1});
    run.push_back(std::move(s));
  }
  run.push_back(SnapshotBuilder(kPid, 400, format::Reason::kDeviceDestroy, 310));
  const analysis::RunReport r = test::analyse(run);
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
}

TEST(RetainedTest, OneSnapshotIsTooLittleOfTheRunToJudge) {
  // The same 85 idle buffers, seen once: nothing shows that they pile up. The report says why.
  const analysis::RunReport r = test::analyse({per_frame_leak(100)});
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
  bool noted = false;
  for (const std::string& note : r.notes) {
    noted |= note.find("not enough of the run seen") != std::string::npos;
  }
  EXPECT_TRUE(noted);
}

TEST(RetainedTest, RingBuffersCreatedTogetherAreNotSuperseded) {
  SnapshotBuilder s(kPid, 1, format::Reason::kFrame, 300);
  const int ring = s.callsite(0x1000);
  // Used round-robin, and one slot not for a long while: all were made at start-up.
  s.object({10, "VkBuffer", "ring.0", 0, 4096, ring, format::Origin::kCreated, 299});
  s.object({11, "VkBuffer", "ring.1", 0, 4096, ring, format::Origin::kCreated, 298});
  s.object({12, "VkBuffer", "ring.2", 0, 4096, ring, format::Origin::kCreated, 200});
  const analysis::RunReport r = test::analyse({s});
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
}

TEST(RetainedTest, LongLivedRarelyUsedResources) {
  SnapshotBuilder s(kPid, 1, format::Reason::kFrame, 300);
  const int textures = s.callsite(0x1000);
  s.object(
      {10, "VkImage", "rare.lut", 0, 1 << 20, s.callsite(0x2000), format::Origin::kCreated, 204});
  // The same loader made both at start-up; one is used every frame, the other rarely.
  s.object({11, "VkImage", "texture.rare", 0, 4096, textures, format::Origin::kCreated, 120});
  s.object({12, "VkImage", "texture.hot", 0, 4096, textures, format::Origin::kCreated, 299});
  // Never used at all, made at start-up with a hot one.
  s.object({13, "VkImage", "texture.spare", 0, 4096, textures});
  const analysis::RunReport r = test::analyse({s});
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
}

TEST(RetainedTest, PerFrameObjectsDestroyedAfterTheirFenceAndRecentOnes) {
  SnapshotBuilder s(kPid, 1, format::Reason::kFrame, 300);
  const int transient = s.callsite(0x1000);
  // Only the frames in flight are alive; one superseded 10 frames ago is below the threshold.
  s.object(
      {500, "VkBuffer", "frame.transient", 299, 1024, transient, format::Origin::kCreated, 299});
  s.object(
      {498, "VkBuffer", "frame.transient", 298, 1024, transient, format::Origin::kCreated, 298});
  s.object(
      {480, "VkBuffer", "frame.transient", 290, 1024, transient, format::Origin::kCreated, 290});
  const analysis::RunReport r = test::analyse({s});
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
}

TEST(RetainedTest, InFlightObjectsAreInUse) {
  SnapshotBuilder s(kPid, 1, format::Reason::kFrame, 300);
  const int site = s.callsite(0x1000);
  ObjectSpec old{10, "VkBuffer", "b", 10, 1024, site, format::Origin::kCreated, 10};
  old.in_flight = true;  // its last submission is not proven complete
  s.object(old);
  s.object({20, "VkBuffer", "b", 200, 1024, site, format::Origin::kCreated, 299});
  const analysis::RunReport r = test::analyse({s});
  EXPECT_TRUE(test::of_kind(r, FindingKind::kRetained).empty());
}

TEST(RetainedTest, AGroupNoLongerInUseIsNotSuperseded) {
  // A finished level's resources: all idle, nothing newer of theirs in use.
  SnapshotBuilder s(kPid, 1, format::Reason::kFrame, 300);
  const int site = s.callsite(0x1000);
  for (uint64_t i = 0; i < 5; ++i) {
    s.object(
        {10 + i, "VkBuffer", "level1", 10 * i, 1024, site, format::Origin::kCreated, 10 * i + 5});
  }
  const analysis::RunReport r = test::analyse({s});
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
}

TEST(RetainedTest, SubAllocatedBuffersShareTheirMemory) {
  SnapshotBuilder s(kPid, 1, format::Reason::kFrame, 300);
  const int site = s.callsite(0x1000);
  s.object({10, "VkDeviceMemory", "suballoc.block", 0, 65536, s.callsite(0x2000),
            format::Origin::kAllocated, 299});
  for (uint64_t i = 0; i < 16; ++i) {
    s.object({20 + i, "VkBuffer", "suballoc." + std::to_string(i), 0, 4096, site,
              format::Origin::kCreated, 280 + i});
    s.bind(20 + i, 10, 4096);
  }
  const analysis::RunReport r = test::analyse({s});
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
}

TEST(RetainedTest, ReusedHandleValuesAreDifferentObjects) {
  // The driver hands the old buffer's handle value to its replacement: ids tell them apart.
  SnapshotBuilder a(kPid, 1, format::Reason::kFrame, 100);
  const int site = a.callsite(0x1000);
  ObjectSpec old{10, "VkBuffer", "reused", 0, 1024, site, format::Origin::kCreated, 99};
  old.handle = 0xabc000;
  a.object(old);
  SnapshotBuilder b(kPid, 2, format::Reason::kFrame, 200);
  b.callsite(0x1000);
  ObjectSpec replacement{50, "VkBuffer", "reused", 150, 1024, site, format::Origin::kCreated, 199};
  replacement.handle = 0xabc000;
  b.object(replacement);
  SnapshotBuilder end(kPid, 3, format::Reason::kDeviceDestroy, 200);
  const analysis::RunReport r = test::analyse({a, b, end});
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
}

// zink's batch states: a ring of command buffers (one per pool) handed out round-robin, larger
// than --min-frames-unused, grown by one member at frame `now - 10` (it supersedes the idle
// ones). With `barrier`, each pool also holds a rarely used second command buffer (another call
// site): only the newest one is used. Members are used round-robin: member k last at
// now - 1 - 2k.
SnapshotBuilder ring_of_pools(uint64_t sequence, uint64_t now, bool barrier) {
  SnapshotBuilder s(kPid, sequence, format::Reason::kFrame, now);
  const int pools = s.callsite(0x1000);
  const int main_cmd = s.callsite(0x2000);
  const int barrier_cmd = s.callsite(0x3000);
  const uint64_t members = 21;
  for (uint64_t k = 0; k < members; ++k) {
    const uint64_t made = k + 1 == members ? 90 : k;  // the newest was added later
    const uint64_t pool = 1000 + 10 * k;
    s.object({pool, "VkCommandPool", std::nullopt, made, 0, pools});
    ObjectSpec cmd{pool + 1,
                   "VkCommandBuffer",
                   std::nullopt,
                   made,
                   0,
                   main_cmd,
                   format::Origin::kAllocated,
                   now - 1 - 2 * (members - 1 - k)};
    cmd.parent = pool;
    s.object(cmd);
    if (barrier) {
      ObjectSpec b{pool + 2,    "VkCommandBuffer",         std::nullopt, made, 0,
                   barrier_cmd, format::Origin::kAllocated};
      if (k + 1 == members) b.last_use = now - 2;
      b.parent = pool;
      s.object(b);
    }
  }
  return s;
}

TEST(RetainedTest, ARingReusedAcrossSnapshotsIsNotRetained) {
  // The ring's idle members are used again at the next snapshot: they were waiting their turn.
  std::vector<SnapshotBuilder> run;
  for (uint64_t k = 1; k <= 5; ++k) run.push_back(ring_of_pools(k, 100 * k, false));
  const analysis::RunReport r = test::analyse(run);
  EXPECT_TRUE(test::of_kind(r, FindingKind::kRetained).empty()) << r.findings.front().message;
}

TEST(RetainedTest, RarelyUsedSiblingsInPoolsOfARingAreNotRetained) {
  std::vector<SnapshotBuilder> run;
  for (uint64_t k = 1; k <= 5; ++k) run.push_back(ring_of_pools(k, 100 * k, true));
  const analysis::RunReport r = test::analyse(run);
  EXPECT_TRUE(test::of_kind(r, FindingKind::kRetained).empty()) << r.findings.front().message;
}

// One pool more every 10 frames (pool k made in frame 10k), each with a barrier command buffer
// used once when made (the newest one just now). With `ring`, each pool also holds a main
// command buffer, all of them used round-robin within the last 8 frames.
SnapshotBuilder growing_pools(uint64_t now, bool ring) {
  SnapshotBuilder s(kPid, now, format::Reason::kFrame, now);
  const int pools = s.callsite(0x1000);
  const int main_cmd = s.callsite(0x2000);
  const int barrier_cmd = s.callsite(0x3000);
  const uint64_t members = now / 10;
  for (uint64_t k = 0; k < members; ++k) {
    const uint64_t made = 10 * k;
    const uint64_t pool = 1000 + 10 * k;
    s.object({pool, "VkCommandPool", std::nullopt, made, 0, pools});
    ObjectSpec b{pool + 2,    "VkCommandBuffer",         std::nullopt, made, 0,
                 barrier_cmd, format::Origin::kAllocated};
    b.last_use = k + 1 == members ? now - 2 : made;
    b.parent = pool;
    s.object(b);
    if (ring) {
      ObjectSpec cmd{pool + 1, "VkCommandBuffer",          std::nullopt,   made, 0,
                     main_cmd, format::Origin::kAllocated, now - 1 - k % 8};
      cmd.parent = pool;
      s.object(cmd);
    }
  }
  return s;
}

TEST(RetainedTest, SiblingsOfPoolsThatAreNotReusedAreStillRetained) {
  std::vector<SnapshotBuilder> siblings, alone;
  for (uint64_t now = 50; now <= 250; now += 50) {
    siblings.push_back(growing_pools(now, true));
    alone.push_back(growing_pools(now, false));
  }
  // Siblings of main command buffers used again and again: waiting in pools in steady use.
  const analysis::RunReport r = test::analyse(siblings);
  for (const analysis::Finding* f : test::of_kind(r, FindingKind::kRetained)) {
    ADD_FAILURE() << f->message;
  }
  // The same barrier command buffers with no pool in steady use: superseded, piling up.
  const analysis::RunReport frozen = test::analyse(alone);
  const analysis::Finding* f = test::only(frozen, FindingKind::kRetained, "VkCommandBuffer");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 24u);  // made in frames 0..230, idle for 16+ frames at frame 250
}

TEST(RetainedTest, SupersededObjectsAreStillRetainedOverManySnapshots) {
  // Incident 1 seen four times: no old buffer is ever used again.
  SnapshotBuilder a = per_frame_leak(100), b = per_frame_leak(150), c = per_frame_leak(200),
                  d = per_frame_leak(250);
  const analysis::RunReport r = test::analyse({a, b, c, d});
  const analysis::Finding* f = test::only(r, FindingKind::kRetained, "VkBuffer");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 235u);
}

TEST(RetainedTest, ObjectsOfADeviceInSteadyUseAreNotPoolSiblings) {
  // Every object's parent is its device; a buffer used every frame does not make the device a
  // pool whose superseded buffers would be siblings.
  std::vector<SnapshotBuilder> run;
  for (uint64_t now : {100, 150, 200, 250}) {
    SnapshotBuilder s(kPid, now, format::Reason::kFrame, now);
    const int buffers = s.callsite(0x1000);
    s.object({test::kDeviceId, "VkDevice", std::nullopt, 0, 0, s.callsite(0x3000)});
    ObjectSpec mesh{
        50,     "VkBuffer", "mesh.static", 0, 4096, s.callsite(0x2000), format::Origin::kCreated,
        now - 1};
    mesh.parent = test::kDeviceId;
    s.object(mesh);
    for (uint64_t f = 0; f < now; ++f) {
      ObjectSpec b{100 + f, "VkBuffer", "wrapper.vertices",       f,
                   65536,   buffers,    format::Origin::kCreated, f};
      b.parent = test::kDeviceId;
      s.object(b);
    }
    run.push_back(std::move(s));
  }
  const analysis::RunReport r = test::analyse(run);
  const analysis::Finding* f = test::only(r, FindingKind::kRetained, "VkBuffer");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 235u);
}

}  // namespace
}  // namespace vkleak
