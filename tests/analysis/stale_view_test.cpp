// stale_view: views, sets and framebuffers that reference destroyed objects or pin retained ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "test_util.h"

namespace vkleak {
namespace {

using analysis::FindingKind;
using test::DestroyedSpec;
using test::EdgeSpec;
using test::ObjectSpec;
using test::SnapshotBuilder;

constexpr uint64_t kPid = 300;

// Incident 2: a buffer recreated larger every 20 frames; the old view stays in a cache and keeps
// the old buffer and its memory alive. Generation k: buffer 100+3k, memory 101+3k, view 102+3k.
SnapshotBuilder resized_attachment(uint64_t now, bool named_views = true) {
  SnapshotBuilder s(kPid, now, format::Reason::kFrame, now);
  const int buffers = s.callsite(0x1000);
  const int memories = s.callsite(0x2000);
  const int views = s.callsite(0x3000);
  const uint64_t generations = now / 20;
  for (uint64_t k = 0; k < generations; ++k) {
    const uint64_t id = 100 + 3 * k;
    const uint64_t used = k + 1 == generations ? now - 1 : 20 * k + 19;
    const uint64_t bytes = 65536 * (k + 1);
    s.object({id, "VkBuffer", "pass.attachment", 20 * k, bytes, buffers, format::Origin::kCreated,
              used});
    s.object({id + 1, "VkDeviceMemory", "pass.attachment.memory", 20 * k, bytes, memories,
              format::Origin::kAllocated, used});
    s.bind(id, id + 1, bytes);
    s.object({id + 2, "VkBufferView",
              named_views ? std::optional<std::string>("pass.attachment.view") : std::nullopt,
              20 * k, 0, views, format::Origin::kCreated, used});
    s.edge({id + 2, "buffer", id, "VkBuffer"});
  }
  return s;
}

TEST(StaleViewTest, CachedViewsPinRetainedBuffersAndTheirMemory) {
  // Seen every 20 frames: one attachment more each time.
  const analysis::RunReport r = test::analyse({resized_attachment(20), resized_attachment(40),
                                               resized_attachment(60), resized_attachment(80)});
  const analysis::Finding* v = test::only(r, FindingKind::kStaleView, "VkBufferView");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->count, 3u);  // generations 0, 1, 2 of 4
  EXPECT_EQ(v->bytes, 65536u * (1 + 2 + 3));
  ASSERT_FALSE(v->chains.empty());
  const analysis::Chain& chain = v->chains.front();
  ASSERT_EQ(chain.links.size(), 3u);
  EXPECT_EQ(chain.links[0].type, "VkBufferView");
  EXPECT_EQ(chain.links[1].type, "VkBuffer");
  EXPECT_EQ(chain.links[1].state, analysis::ChainState::kRetained);
  EXPECT_EQ(chain.links[2].type, "VkDeviceMemory");
  EXPECT_EQ(*chain.links[2].name, "pass.attachment.memory");
  EXPECT_GT(chain.bytes, 0u);
  EXPECT_TRUE(test::has_name(*v, "pass.attachment"));
  EXPECT_NE(v->message.find("pin retained"), std::string::npos) << v->message;
  // The buffers are retained; the views are reported once, as stale views, not as retained.
  const analysis::Finding* b = test::only(r, FindingKind::kRetained, "VkBuffer");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->count, 3u);
  for (const analysis::Finding* f : test::of_kind(r, FindingKind::kRetained)) {
    EXPECT_NE(f->object_type, "VkBufferView");
  }
}

// Unnamed views read "3 VkBufferView pin", not "3 VkBufferView  pin" (issue 27, point 13).
TEST(StaleViewTest, UnnamedViewsHaveNoDoubleSpace) {
  const analysis::RunReport r =
      test::analyse({resized_attachment(20, false), resized_attachment(40, false),
                     resized_attachment(60, false), resized_attachment(80, false)});
  const analysis::Finding* v = test::only(r, FindingKind::kStaleView, "VkBufferView");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->message.rfind("3 VkBufferView pin retained objects", 0), 0u) << v->message;
  EXPECT_EQ(v->message.find("  "), std::string::npos) << v->message;
}

TEST(StaleViewTest, ViewsOfACachesIdleTexturesDoNotPinThem) {
  // A texture cache's residents, idle while out of view, with their views and material sets;
  // superseded at some snapshots by a newer texture, but not piling up: the retained verdict
  // stale_view builds on is the whole run's, and it says no.
  std::vector<SnapshotBuilder> run;
  for (uint64_t now = 50; now <= 300; now += 50) {
    SnapshotBuilder s(kPid, now, format::Reason::kFrame, now);
    const int images = s.callsite(0x1000);
    const int views = s.callsite(0x2000);
    for (uint64_t t = 0; t < 8; ++t) {
      const uint64_t used = (now / 50 + t) % 4 == 0 ? now - 1 : now - 30 - t;
      const uint64_t made = t < 7 ? t : 120;
      if (made > now) continue;
      s.object({100 + 2 * t, "VkImage", "tex." + std::to_string(t), made, 1 << 16, images,
                format::Origin::kCreated, used});
      s.object({101 + 2 * t, "VkImageView", "tex." + std::to_string(t) + ".view", made, 0, views,
                format::Origin::kCreated, used});
      s.edge({101 + 2 * t, "image", 100 + 2 * t, "VkImage"});
    }
    run.push_back(std::move(s));
  }
  const analysis::RunReport r = test::analyse(run);
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
}

TEST(StaleViewTest, TeardownSnapshotsAreNotJudged) {
  SnapshotBuilder s(kPid, 2, format::Reason::kDeviceDestroy, 100);
  const int sets = s.callsite(0x1000);
  s.object({10, "VkDescriptorSet", "bindgroup.0", 0, 0, sets, format::Origin::kAllocated, 9});
  s.edge({10, "descriptor", 5, "VkImageView"});
  s.destroyed({5, "VkImageView", "texture.view.0", 0, 10});
  const analysis::RunReport r = test::analyse({s});
  EXPECT_TRUE(test::of_kind(r, FindingKind::kStaleView).empty());
}

// Incident 5: sets cached per texture view; views released, sets kept.
SnapshotBuilder bindgroups(uint64_t now, uint64_t destroyed_frame) {
  SnapshotBuilder s(kPid, 1, format::Reason::kFrame, now);
  const int sets = s.callsite(0x1000);
  s.object({10, "VkDescriptorSet", "bindgroup.0", 0, 0, sets, format::Origin::kAllocated,
            destroyed_frame - 1});
  s.edge({10, "descriptor", 5, "VkImageView"});
  s.edge({10, "descriptor.sampler", 6, "VkSampler"});
  s.edge({10, "pSetLayouts", 7, "VkDescriptorSetLayout"});
  s.destroyed({5, "VkImageView", "texture.view.0", 0, destroyed_frame});
  s.object({6, "VkSampler", "texture.sampler", 0, 0, s.callsite(0x2000), format::Origin::kCreated,
            now - 1});
  s.destroyed({7, "VkDescriptorSetLayout", "layout", 0, 1});
  return s;
}

TEST(StaleViewTest, DescriptorSetsReferencingDestroyedViews) {
  const analysis::RunReport r = test::analyse({bindgroups(100, 50)});
  const analysis::Finding* f = test::only(r, FindingKind::kStaleView, "VkDescriptorSet");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 1u);
  EXPECT_EQ(f->bytes, 0u);
  ASSERT_EQ(f->chains.size(), 1u);
  ASSERT_EQ(f->chains[0].links.size(), 2u);
  EXPECT_EQ(f->chains[0].links[1].type, "VkImageView");
  EXPECT_EQ(f->chains[0].links[1].state, analysis::ChainState::kDestroyed);
  EXPECT_EQ(f->chains[0].links[1].destroyed_frame, 50u);
  EXPECT_TRUE(test::has_name(*f, "texture.view.0"));
  EXPECT_NE(f->message.find("destroyed in frame 50"), std::string::npos) << f->message;
}

TEST(StaleViewTest, ARecentlyDestroyedTargetIsChurnNotStale) {
  // Destroyed 3 frames ago: the set is about to be freed or rewritten.
  const analysis::RunReport r = test::analyse({bindgroups(100, 97)});
  EXPECT_TRUE(test::of_kind(r, FindingKind::kStaleView).empty());
}

TEST(StaleViewTest, LayoutsMayBeDestroyedBeforeTheirSets) {
  SnapshotBuilder s(kPid, 1, format::Reason::kFrame, 100);
  const int sets = s.callsite(0x1000);
  s.object({10, "VkDescriptorSet", "frame.sets", 99, 0, sets, format::Origin::kAllocated, 99});
  s.edge({10, "pSetLayouts", 7, "VkDescriptorSetLayout"});
  s.destroyed({7, "VkDescriptorSetLayout", "layout", 0, 1});
  ObjectSpec fb{11, "VkFramebuffer", "fb", 0, 0, s.callsite(0x2000), format::Origin::kCreated, 99};
  s.object(fb);
  s.edge({11, "renderPass", 8, "VkRenderPass"});
  s.destroyed({8, "VkRenderPass", "pass", 0, 1});
  const analysis::RunReport r = test::analyse({s});
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
}

TEST(StaleViewTest, FramebuffersOfDestroyedAttachmentsAndInFlightSets) {
  SnapshotBuilder s(kPid, 1, format::Reason::kFrame, 100);
  s.object({11, "VkFramebuffer", "fb", 0, 0, s.callsite(0x2000), format::Origin::kCreated, 10});
  s.edge({11, "pAttachments", 8, "VkImageView"});
  s.destroyed({8, "VkImageView", "color.view", 0, 20});
  ObjectSpec busy{
      12, "VkDescriptorSet", "busy", 0, 0, s.callsite(0x3000), format::Origin::kAllocated, 99};
  busy.in_flight = true;  // still in use by the GPU: not judged
  s.object(busy);
  s.edge({12, "descriptor", 9, "VkImageView"});
  s.destroyed({9, "VkImageView", "gone", 0, 20});
  const analysis::RunReport r = test::analyse({s});
  EXPECT_EQ(test::of_kind(r, FindingKind::kStaleView).size(), 1u);
  EXPECT_NE(test::only(r, FindingKind::kStaleView, "VkFramebuffer"), nullptr);
}

// An engine's descriptor sets (pool 9, sets 10..) over snapshots every 100 frames. targets[k][j]:
// the view set j points at in snapshot k; negative: a view destroyed 50 frames before.
// reason: a device_destroy snapshot shows the pool and its sets outliving their device.
SnapshotBuilder engine_sets(uint64_t k, const std::vector<int64_t>& targets,
                            format::Reason reason = format::Reason::kFrame) {
  const uint64_t now = 100 * (k + 1);
  SnapshotBuilder s(kPid, k, reason, now);
  const int sets = s.callsite(0x1000);
  const int views = s.callsite(0x2000);
  s.object({9, "VkDescriptorPool", "engine.pool", 0, 0, s.callsite(0x3000)});
  for (size_t j = 0; j < targets.size(); ++j) {
    const bool gone = targets[j] < 0;
    const auto view = static_cast<uint64_t>(gone ? -targets[j] : targets[j]);
    ObjectSpec set{10 + j, "VkDescriptorSet", "engine.set", 0, 0, sets, format::Origin::kAllocated,
                   0};
    // Sets on the engine's free list are idle; the others are bound every frame.
    set.last_use = gone ? now - 60 : now - 1;
    set.parent = 9;
    s.object(set);
    s.edge({10 + j, "descriptor", view, "VkImageView"});
    if (gone) {
      s.destroyed({view, "VkImageView", "texture.view", 0, now - 50});
    } else {
      s.object({view, "VkImageView", "texture.view", now - 90, 0, views, format::Origin::kCreated,
                now - 1});
    }
  }
  return s;
}

TEST(StaleViewTest, SetsRecycledOnTheEnginesOwnFreeListAreNotStale) {
  // Two sets at a time wait on the free list pointing at destroyed views; each is rewritten
  // (pointed at a new view) later: the stale count stays at 2.
  const std::vector<std::vector<int64_t>> targets{
      {-100, -101, 102, 103, 104, 105},
      {200, -101, -102, 103, 104, 105},
      {200, 301, -102, -103, 104, 105},
      {200, 301, 402, -103, -104, 105},
  };
  std::vector<SnapshotBuilder> run;
  for (size_t k = 0; k < targets.size(); ++k) run.push_back(engine_sets(k, targets[k]));
  const analysis::RunReport r = test::analyse(run);
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
}

TEST(StaleViewTest, StaleSetsNeverRewrittenOrPilingUpAreStillStale) {
  // Never rewritten (a cache that never empties), bounded, leaked with their pool (incident 5).
  std::vector<SnapshotBuilder> kept;
  for (uint64_t k = 0; k < 4; ++k) kept.push_back(engine_sets(k, {-100, -101, 102, 103}));
  kept.push_back(engine_sets(4, {-100, -101, 102, 103}, format::Reason::kDeviceDestroy));
  const analysis::Finding* f =
      test::only(test::analyse(kept), FindingKind::kStaleView, "VkDescriptorSet");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 2u);
  // One rewritten, but the stale count keeps rising: 1, 2, 3, 4, 5.
  const std::vector<std::vector<int64_t>> rising{
      {-100, 101, 102, 103, 104, 105},     {200, -101, -102, 103, 104, 105},
      {200, -101, -102, -103, 104, 105},   {-200, -101, -102, -103, 104, 105},
      {-200, -101, -102, -103, -104, 105},
  };
  std::vector<SnapshotBuilder> piling;
  for (size_t k = 0; k < rising.size(); ++k) piling.push_back(engine_sets(k, rising[k]));
  piling.push_back(engine_sets(5, rising.back(), format::Reason::kDeviceDestroy));
  const analysis::RunReport r = test::analyse(piling);
  f = test::only(r, FindingKind::kStaleView, "VkDescriptorSet");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 5u);
}

TEST(StaleViewTest, SetsWaitingForTheirPoolsResetAreNotStale) {
  // Qt frees descriptor sets a pool at a time: released sets stay in their pool, pointing at
  // destroyed buffers, until the pool empties and is reset, or is destroyed before its device.
  const std::vector<std::vector<int64_t>> rising{
      {-100, 101, 102, 103, 104, 105},     {-100, -101, 102, 103, 104, 105},
      {-100, -101, -102, 103, 104, 105},   {-100, -101, -102, -103, 104, 105},
      {-100, -101, -102, -103, -104, 105},
  };
  std::vector<SnapshotBuilder> run;
  for (size_t k = 0; k < rising.size(); ++k) run.push_back(engine_sets(k, rising[k]));
  run.push_back(SnapshotBuilder(kPid, rising.size(), format::Reason::kDeviceDestroy, 600));
  const analysis::RunReport r = test::analyse(run);
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
}

// A WebGPU implementation allocates every set of a pool up front and adds a pool when its free
// list runs dry; a bind-group cache that never evicts keeps sets pointing at destroyed views.
// With 8 sets a pool its pools step only twice (1 -> 2 -> 3: a working set finding its size, no
// growth), but the dangling sets pile up, never rewritten: stale (issue 36).
SnapshotBuilder two_pool_steps(uint64_t k) {
  const uint64_t now = 100 * (k + 1);
  SnapshotBuilder s(kPid, k, format::Reason::kFrame, now);
  const int pools = s.callsite(0x3000), sets = s.callsite(0x1000), views = s.callsite(0x2000);
  const uint64_t dangling = 3 * k + 1;  // 1, 4, 7, ...: the cache's kept sets
  uint64_t made = 0;
  for (uint64_t pool = 0; pool < 3; ++pool) {
    const uint64_t pool_frame = 200 * pool;  // a pool at frames 0, 200 and 400
    if (pool_frame >= now) break;
    const uint64_t pool_id = 9 + 100 * pool;
    s.object({pool_id, "VkDescriptorPool", "wgpu.pool", pool_frame, 0, pools});
    for (uint64_t j = 0; j < 8; ++j, ++made) {
      const uint64_t set_id = pool_id + 1 + j, view = 1000 + made;
      ObjectSpec set{set_id, "VkDescriptorSet",          "wgpu.set", pool_frame, 0,
                     sets,   format::Origin::kAllocated, now - 1};
      set.parent = pool_id;
      s.object(set);
      s.edge({set_id, "descriptor", view, "VkImageView"});
      if (made < dangling) {
        s.destroyed({view, "VkImageView", "texture.view", 0, 50 + 30 * made});
      } else {
        s.object({view, "VkImageView", "texture.view", now - 90, 0, views, format::Origin::kCreated,
                  now - 1});
      }
    }
  }
  return s;
}

TEST(StaleViewTest, PreallocatedSetsPilingUpInTwoPoolStepsAreStale) {
  std::vector<SnapshotBuilder> run;
  for (uint64_t k = 0; k < 6; ++k) run.push_back(two_pool_steps(k));
  const analysis::RunReport r = test::analyse(run);
  const analysis::Finding* f = test::only(r, FindingKind::kStaleView, "VkDescriptorSet");
  ASSERT_NE(f, nullptr) << (r.findings.empty() ? "no finding" : r.findings.front().message);
  EXPECT_EQ(f->count, 16u);
  EXPECT_EQ(
      std::count_if(r.findings.begin(), r.findings.end(),
                    [](const analysis::Finding& g) { return g.kind == FindingKind::kGrowth; }),
      0)
      << "two steps of pools are no growth";
  // The same sets in one pool that was never added to (Qt's sets waiting for their pool's
  // reset): no evidence (SetsWaitingForTheirPoolsResetAreNotStale).
}

TEST(StaleViewTest, SetsOnTheEnginesFreeListPinNothing) {
  // The recycling run above, plus one idle set of the same group still pointing at a retained
  // buffer (issue 36: an engine's free list reported as pinning leaked objects). A set waiting to
  // be handed out again keeps nothing alive: the leak is the buffers', reported as retained.
  const std::vector<std::vector<int64_t>> targets{
      {-100, -101, 102, 103, 104, 105},
      {200, -101, -102, 103, 104, 105},
      {200, 301, -102, -103, 104, 105},
      {200, 301, 402, -103, -104, 105},
  };
  std::vector<SnapshotBuilder> run;
  for (size_t k = 0; k < targets.size(); ++k) {
    SnapshotBuilder s = engine_sets(k, targets[k]);
    const uint64_t now = 100 * (k + 1);
    const int sets = s.callsite(0x1000);
    const int buffers = s.callsite(0x4000);
    // Buffer 700 was replaced by 701, then 702, ... (same code, the newest in use), and none
    // freed: they pile up. Set 30 still points at 700.
    for (uint64_t j = 0; j <= k + 1; ++j) {
      s.object({700 + j, "VkBuffer", "uniforms", j == 0 ? 0 : 100 * j - 50, 4096, buffers,
                format::Origin::kCreated, j == k + 1 ? now - 1 : 100 * j + 5});
    }
    ObjectSpec set{30, "VkDescriptorSet", "engine.set", 0, 0, sets, format::Origin::kAllocated, 5};
    set.parent = 9;
    s.object(set);
    s.edge({30, "descriptor", 700, "VkBuffer"});
    run.push_back(std::move(s));
  }
  const analysis::RunReport r = test::analyse(run);
  EXPECT_TRUE(test::of_kind(r, FindingKind::kStaleView).empty())
      << test::of_kind(r, FindingKind::kStaleView).front()->message;
  const analysis::Finding* b = test::only(r, FindingKind::kRetained, "VkBuffer");
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(test::has_name(*b, "uniforms"));
  bool has_700 = false;
  for (const auto& [id, bytes] : b->objects) has_700 |= id == 700;
  EXPECT_TRUE(has_700) << "the buffer the free list's set points at is the leak";
}

// Textures loaded one more per snapshot (image 100+2k, its view 101+2k), the newest in use, none
// destroyed; the last snapshot is the device's destroy, with all of them alive.
std::vector<SnapshotBuilder> leaked_textures(size_t snapshots) {
  std::vector<SnapshotBuilder> run;
  for (size_t k = 0; k <= snapshots; ++k) {
    const bool teardown = k == snapshots;
    const uint64_t now = 100 * (std::min(k, snapshots - 1) + 1) + (teardown ? 1 : 0);
    SnapshotBuilder s(kPid, k, teardown ? format::Reason::kDeviceDestroy : format::Reason::kFrame,
                      now);
    const int images = s.callsite(0x1000);
    const int views = s.callsite(0x2000);
    const size_t alive = std::min(k, snapshots - 1) + 1;
    for (uint64_t j = 0; j < alive; ++j) {
      const uint64_t used = j + 1 == alive ? now - 1 : 100 * j + 5;
      s.object({100 + 2 * j, "VkImage", "texture", 100 * j, 65536, images, format::Origin::kCreated,
                used});
      s.object({101 + 2 * j, "VkImageView", "texture.view", 100 * j, 0, views,
                format::Origin::kCreated, used});
      s.edge({101 + 2 * j, "image", 100 + 2 * j, "VkImage"});
    }
    run.push_back(std::move(s));
  }
  return run;
}

TEST(StaleViewTest, ViewsOfLeakedImagesAreNotStale) {
  // Issue 36: nothing the views point at was destroyed, and a view does not keep its image alive:
  // the images leaked (alive at vkDestroyDevice), and their views are part of that leak.
  const analysis::RunReport r = test::analyse(leaked_textures(6));
  EXPECT_TRUE(test::of_kind(r, FindingKind::kStaleView).empty())
      << test::of_kind(r, FindingKind::kStaleView).front()->message;
  const analysis::Finding* leak = nullptr;
  for (const analysis::Finding* f : test::of_kind(r, FindingKind::kLeakAtExit)) {
    if (f->object_type == "VkImage") leak = f;
  }
  ASSERT_NE(leak, nullptr);
  EXPECT_EQ(leak->count, 6u);
}

// Sets allocated one by one from a pool that lives until exit (pool 9, FREE_DESCRIPTOR_SET_BIT):
// two in use, and `kept(k)` more at snapshot k, never freed, pointing at buffers destroyed 50
// frames before. The pool is destroyed before its device: nothing outlives it.
std::vector<SnapshotBuilder> sets_in_pool(size_t snapshots,
                                          const std::function<size_t(size_t)>& kept) {
  std::vector<SnapshotBuilder> run;
  for (size_t k = 0; k < snapshots; ++k) {
    const uint64_t now = 100 * (k + 1);
    SnapshotBuilder s(kPid, k, format::Reason::kFrame, now);
    const int sets = s.callsite(0x1000);
    const int buffers = s.callsite(0x2000);
    s.object({9, "VkDescriptorPool", "pool", 0, 0, s.callsite(0x3000)});
    for (uint64_t j = 0; j < 2; ++j) {  // the frame's sets, in use
      ObjectSpec set{1000 + 10 * k + j,
                     "VkDescriptorSet",
                     "frame.set",
                     now - 1,
                     0,
                     sets,
                     format::Origin::kAllocated,
                     now - 1};
      set.parent = 9;
      s.object(set);
      s.object({2000 + 10 * k + j, "VkBuffer", "frame.buffer", now - 1, 256, buffers,
                format::Origin::kCreated, now - 1});
      s.edge({1000 + 10 * k + j, "descriptor", 2000 + 10 * k + j, "VkBuffer"});
    }
    for (uint64_t j = 0; j < kept(k); ++j) {
      ObjectSpec set{10 + j, "VkDescriptorSet",          "frame.set", 20 * j + 10, 0,
                     sets,   format::Origin::kAllocated, 20 * j + 10};
      set.parent = 9;
      s.object(set);
      s.edge({10 + j, "descriptor", 500 + j, "VkBuffer"});
      s.destroyed({500 + j, "VkBuffer", "frame.buffer", 20 * j + 10, 20 * j + 13});
    }
    run.push_back(std::move(s));
  }
  run.push_back(
      SnapshotBuilder(kPid, snapshots, format::Reason::kDeviceDestroy, 100 * snapshots + 1));
  return run;
}

TEST(StaleViewTest, SetsPilingUpInAPoolThatLivesUntilExitAreStale) {
  // Issue 36: 5 sets more every 100 frames, never freed, their buffers destroyed; the pool is
  // destroyed at exit with them. The sets accumulate: the evidence every heuristic kind needs.
  const analysis::RunReport r = test::analyse(sets_in_pool(6, [](size_t k) { return 5 * k; }));
  const analysis::Finding* f = test::only(r, FindingKind::kStaleView, "VkDescriptorSet");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 25u);
  EXPECT_NE(test::only(r, FindingKind::kGrowth, "VkDescriptorSet"), nullptr);
  // A bounded number of such sets (released ones waiting for their pool's reset) is no evidence.
  const analysis::RunReport bounded =
      test::analyse(sets_in_pool(6, [](size_t k) { return k == 0 ? 0 : 5; }));
  EXPECT_TRUE(bounded.findings.empty()) << bounded.findings.front().message;
}

// A WebGPU-style allocator: every set of a pool allocated up front (4 a pool), a pool more every
// 100 frames, as the app's bind-group cache keeps every set, each pointing at a view destroyed
// when its texture was replaced (all but the newest 2 sets).
std::vector<SnapshotBuilder> preallocated_sets(size_t snapshots) {
  std::vector<SnapshotBuilder> run;
  for (size_t k = 0; k < snapshots; ++k) {
    const uint64_t now = 100 * (k + 1);
    SnapshotBuilder s(kPid, k, format::Reason::kFrame, now);
    const int pools = s.callsite(0x3000);
    const int sets = s.callsite(0x1000);
    const uint64_t n = 4 * (k + 1);
    for (uint64_t p = 0; p <= k; ++p) {
      s.object({9000 + p, "VkDescriptorPool", "wgpu.pool", 100 * p, 0, pools});
    }
    for (uint64_t j = 0; j < n; ++j) {
      const uint64_t made = 100 * (j / 4);
      const bool current = j + 2 >= n;
      ObjectSpec set{10 + j,
                     "VkDescriptorSet",
                     "wgpu.set",
                     made,
                     0,
                     sets,
                     format::Origin::kAllocated,
                     current ? now - 1 : made + 25};
      set.parent = 9000 + j / 4;
      s.object(set);
      s.edge({10 + j, "descriptor", 500 + j, "VkImageView"});
      if (current) {
        s.object({500 + j, "VkImageView", "texture.view", made, 0, s.callsite(0x2000),
                  format::Origin::kCreated, now - 1});
      } else {
        s.destroyed({500 + j, "VkImageView", "texture.view", made, made + 30});
      }
    }
    run.push_back(std::move(s));
  }
  run.push_back(
      SnapshotBuilder(kPid, snapshots, format::Reason::kDeviceDestroy, 100 * snapshots + 1));
  return run;
}

TEST(StaleViewTest, PreallocatedSetsOfACacheNeverEvictedAreStale) {
  const analysis::RunReport r = test::analyse(preallocated_sets(6));
  const analysis::Finding* f = test::only(r, FindingKind::kStaleView, "VkDescriptorSet");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 22u);  // 24 sets, the newest 2 in use
  EXPECT_NE(test::only(r, FindingKind::kGrowth, "VkDescriptorPool"), nullptr);
}

}  // namespace
}  // namespace vkleak
