// Retainers: the roots that keep objects alive, and what only each keeps alive.
#include "analysis/retainers.h"

#include <gtest/gtest.h>

#include "report/output.h"
#include "test_util.h"

namespace vkleak {
namespace {

using analysis::FindingKind;
using analysis::RetainerRoot;
using test::EdgeSpec;
using test::ObjectSpec;
using test::SnapshotBuilder;

constexpr uint64_t kPid = 500;
constexpr uint64_t kMiB = 1024 * 1024;

// The retainers of the objects with these ids in one snapshot.
struct Graph {
  explicit Graph(const SnapshotBuilder& b)
      : snapshot(b.read()), index(snapshot, &callsites, &groups), retainers(index) {}
  std::vector<RetainerRoot> of(const std::vector<uint64_t>& ids, uint64_t* omitted = nullptr,
                               size_t max_roots = 5) {
    std::vector<size_t> objects;
    for (uint64_t id : ids) objects.push_back(index.find(static_cast<int64_t>(id)));
    uint64_t ignored = 0;
    return retainers.of(objects, max_roots, omitted ? omitted : &ignored);
  }
  Snapshot snapshot;
  analysis::CallsiteTable callsites{false};
  analysis::GroupTable groups;
  analysis::SnapshotIndex index;
  analysis::Retainers retainers;
};

uint64_t count_of(const RetainerRoot& r, const std::string& type) {
  for (const analysis::TypeTally& t : r.counts) {
    if (t.type == type) return t.count;
  }
  return 0;
}

// A descriptor pool (10) with 4 sets (11-14); sets 11 and 12 reference views 20 and 21 of
// images 30 and 31, each bound to its own 2 MiB of memory (40, 41). A device (2) scopes all.
SnapshotBuilder pool_with_sets_and_views(format::Reason reason = format::Reason::kFrame) {
  SnapshotBuilder s(kPid, 1, reason, 100);
  s.object({test::kDeviceId, "VkDevice", "device", 0, 0});
  s.object({10, "VkDescriptorPool", "bindgroup.pool", 1, 0});
  for (uint64_t i = 0; i < 4; ++i) {
    ObjectSpec set{11 + i, "VkDescriptorSet",         "bindgroup." + std::to_string(i), 2, 0,
                   -1,     format::Origin::kAllocated};
    set.parent = 10;
    s.object(set);
  }
  for (uint64_t k = 0; k < 2; ++k) {
    s.object({30 + k, "VkImage", "tex." + std::to_string(k), 3, 2 * kMiB});
    s.object({40 + k, "VkDeviceMemory", "tex.memory", 3, 2 * kMiB, -1, format::Origin::kAllocated});
    s.bind(30 + k, 40 + k, 2 * kMiB);
    s.object({20 + k, "VkImageView", "tex.view", 4, 0});
    s.edge({20 + k, "image", 30 + k, "VkImage"});
    s.edge({11 + k, "descriptor", 20 + k, "VkImageView"});
  }
  return s;
}

TEST(RetainersTest, APoolExplainsItsSetsViewsAndTheirMemory) {
  Graph g(pool_with_sets_and_views());
  const std::vector<RetainerRoot> roots = g.of({20, 21});
  ASSERT_EQ(roots.size(), 1u);
  const RetainerRoot& pool = roots[0];
  EXPECT_FALSE(pool.shared);
  EXPECT_EQ(pool.id, 10u);
  EXPECT_EQ(pool.type, "VkDescriptorPool");
  EXPECT_EQ(*pool.name, "bindgroup.pool");
  EXPECT_EQ(pool.objects, 2u);
  EXPECT_EQ(count_of(pool, "VkDescriptorSet"), 4u);
  EXPECT_EQ(count_of(pool, "VkImageView"), 2u);
  EXPECT_EQ(count_of(pool, "VkImage"), 2u);
  EXPECT_EQ(count_of(pool, "VkDeviceMemory"), 2u);
  EXPECT_EQ(count_of(pool, "VkDescriptorPool"), 0u);       // not itself
  EXPECT_EQ(count_of(pool, "VkDevice"), 0u);               // the device scopes, it does not retain
  EXPECT_EQ(pool.counts.front().type, "VkDescriptorSet");  // most first
  // The memory once: the images are bound, their bytes are the memory's.
  EXPECT_EQ(pool.bytes, 4 * kMiB);
  // The way from the root down to the first view.
  ASSERT_EQ(pool.path.size(), 3u);
  EXPECT_EQ(pool.path[0].id, 10u);
  EXPECT_EQ(pool.path[1].id, 11u);
  EXPECT_EQ(pool.path[2].id, 20u);
}

TEST(RetainersTest, ObjectsNothingReferencesHaveNoRetainer) {
  Graph g(pool_with_sets_and_views());
  // The pool is a root, and nothing but the device refers to it.
  EXPECT_TRUE(g.of({10}).empty());
  EXPECT_EQ(g.retainers.root(g.index.find(10)), g.index.find(10));
  // A lone buffer with its memory: its memory is retained by it, the buffer by nothing.
  SnapshotBuilder s(kPid, 1, format::Reason::kFrame, 100);
  s.object({5, "VkBuffer", "lone", 0, kMiB});
  s.object({6, "VkDeviceMemory", "lone.memory", 0, kMiB, -1, format::Origin::kAllocated});
  s.bind(5, 6, kMiB);
  Graph lone(s);
  EXPECT_TRUE(lone.of({5}).empty());
  const std::vector<RetainerRoot> memory = lone.of({6});
  ASSERT_EQ(memory.size(), 1u);
  EXPECT_EQ(memory[0].id, 5u);
  EXPECT_EQ(memory[0].bytes, kMiB);
}

TEST(RetainersTest, AnObjectOfTwoRootsIsSharedAndCountedOnce) {
  // Two pools, each with a set; both sets reference view 20 of image 30 (3 MiB of memory 40).
  SnapshotBuilder s(kPid, 1, format::Reason::kFrame, 100);
  for (uint64_t p = 0; p < 2; ++p) {
    s.object({10 + p, "VkDescriptorPool", "pool." + std::to_string(p), 0, 0});
    ObjectSpec set{12 + p, "VkDescriptorSet", "set", 0, 0, -1, format::Origin::kAllocated};
    set.parent = 10 + p;
    s.object(set);
    s.edge({12 + p, "descriptor", 20, "VkImageView"});
  }
  s.object({20, "VkImageView", "view", 0, 0});
  s.object({30, "VkImage", "image", 0, 3 * kMiB});
  s.object({40, "VkDeviceMemory", "memory", 0, 3 * kMiB, -1, format::Origin::kAllocated});
  s.edge({20, "image", 30, "VkImage"});
  s.bind(30, 40, 3 * kMiB);
  Graph g(s);
  const std::vector<RetainerRoot> roots = g.of({20});
  ASSERT_EQ(roots.size(), 1u);
  EXPECT_TRUE(roots[0].shared);
  EXPECT_EQ(roots[0].objects, 1u);
  EXPECT_EQ(roots[0].bytes, 3 * kMiB);  // once, not once per pool
  EXPECT_EQ(count_of(roots[0], "VkImageView"), 1u);
  EXPECT_EQ(count_of(roots[0], "VkDeviceMemory"), 1u);
  // Each pool alone keeps only its set alive.
  const std::vector<RetainerRoot> set = g.of({12});
  ASSERT_EQ(set.size(), 1u);
  EXPECT_EQ(set[0].id, 10u);
  EXPECT_EQ(set[0].bytes, 0u);
  EXPECT_EQ(count_of(set[0], "VkDescriptorSet"), 1u);
  EXPECT_EQ(count_of(set[0], "VkImageView"), 0u);
}

TEST(RetainersTest, CyclesEndAndOneNoRootReachesGetsARoot) {
  // Pool 10 -> set 11 -> view 20 -> set 11 (a cycle below a root), and 50 <-> 51 on their own.
  SnapshotBuilder s(kPid, 1, format::Reason::kFrame, 100);
  s.object({10, "VkDescriptorPool", "pool", 0, 0});
  ObjectSpec set{11, "VkDescriptorSet", "set", 0, 0, -1, format::Origin::kAllocated};
  set.parent = 10;
  s.object(set);
  s.object({20, "VkImageView", "view", 0, 7});
  s.edge({11, "descriptor", 20, "VkImageView"});
  s.edge({20, "image", 11, "VkDescriptorSet"});
  s.object({50, "VkFramebuffer", "a", 0, 5});
  s.object({51, "VkRenderPass", "b", 0, 6});
  s.edge({50, "render_pass", 51, "VkRenderPass"});
  s.edge({51, "attachment", 50, "VkFramebuffer"});
  Graph g(s);
  const std::vector<RetainerRoot> below = g.of({20});
  ASSERT_EQ(below.size(), 1u);
  EXPECT_EQ(below[0].id, 10u);
  EXPECT_EQ(below[0].bytes, 7u);
  EXPECT_EQ(count_of(below[0], "VkDescriptorSet"), 1u);
  // The cycle alone: its first object stands for its root, the other is kept by it.
  EXPECT_TRUE(g.of({50}).empty());
  const std::vector<RetainerRoot> alone = g.of({51});
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_EQ(alone[0].id, 50u);
  EXPECT_EQ(alone[0].bytes, 11u);
}

TEST(RetainersTest, RootsAreCappedLargestFirst) {
  // Three pools, each with a set referencing its own buffer of 1, 2 and 3 MiB.
  SnapshotBuilder s(kPid, 1, format::Reason::kFrame, 100);
  for (uint64_t p = 0; p < 3; ++p) {
    s.object({10 + p, "VkDescriptorPool", "pool", 0, 0});
    ObjectSpec set{20 + p, "VkDescriptorSet", "set", 0, 0, -1, format::Origin::kAllocated};
    set.parent = 10 + p;
    s.object(set);
    s.object({30 + p, "VkBuffer", "buffer", 0, (p + 1) * kMiB});
    s.edge({20 + p, "descriptor", 30 + p, "VkBuffer"});
  }
  Graph g(s);
  uint64_t omitted = 0;
  const std::vector<RetainerRoot> roots = g.of({30, 31, 32}, &omitted, 2);
  ASSERT_EQ(roots.size(), 2u);
  EXPECT_EQ(omitted, 1u);
  EXPECT_EQ(roots[0].id, 12u);
  EXPECT_EQ(roots[0].bytes, 3 * kMiB);
  EXPECT_EQ(roots[1].id, 11u);
}

TEST(RetainersTest, FindingsCarryTheirRetainers) {
  // At vkDestroyDevice: the images leaked (their views with them, issue 36), kept by the pool's
  // sets. (Before issue 36: an exit snapshot, the views a finding of their own; at exit the
  // device never destroyed is now one finding holding them all.)
  const analysis::RunReport r =
      test::analyse({pool_with_sets_and_views(format::Reason::kDeviceDestroy)});
  const analysis::Finding* views = test::only(r, FindingKind::kLeakAtExit, "VkImage");
  ASSERT_NE(views, nullptr);
  ASSERT_EQ(views->retainers.size(), 1u);
  EXPECT_EQ(views->retainers[0].type, "VkDescriptorPool");
  EXPECT_EQ(views->retainers[0].objects, 2u);
  EXPECT_EQ(views->retainers[0].bytes, 4 * kMiB);
  analysis::ReportDocument doc;
  doc.runs.push_back(r);
  const std::string text = report::render_text(doc, Style(false));
  EXPECT_NE(text.find("retained by: VkDescriptorPool \"bindgroup.pool\" #10 -> 4 "
                      "VkDescriptorSet, 2 VkDeviceMemory, 2 VkImage, 2 VkImageView; 4.0 MiB"),
            std::string::npos)
      << text;
  const nlohmann::json j = report::findings_json(doc);
  bool found = false;
  for (const nlohmann::json& f : j["findings"]) {
    if (f["object_type"] != "VkImage") continue;
    found = true;
    ASSERT_EQ(f["retainers"].size(), 1u);
    EXPECT_EQ(f["retainers"][0]["root"]["name"], "bindgroup.pool");
    EXPECT_EQ(f["retainers"][0]["bytes"], 4 * kMiB);
    EXPECT_EQ(f["retainers"][0]["path"].size(), 4u);
  }
  EXPECT_TRUE(found);
}

// Issue 27, point 4: a leak is held by what its own snapshot's live edges say. During the run
// the pool's set referenced a buffer bound to one "tensor.memory"; at vkDestroyDevice the buffer
// is gone, so nothing live holds the leaked memory, though the set's edge to it remains (its
// target destroyed).
TEST(RetainersTest, ALeakIsHeldOnlyThroughItsOwnSnapshotsLiveEdges) {
  const auto common = [](SnapshotBuilder& s) {
    s.object({test::kDeviceId, "VkDevice", "device", 0, 0});
    s.object({10, "VkDescriptorPool", "frame.pool", 1, 0});
    ObjectSpec set{11, "VkDescriptorSet", "frame.set", 1, 0, -1, format::Origin::kAllocated};
    set.parent = 10;
    s.object(set);
    for (uint64_t k = 0; k < 4; ++k)
      s.object(
          {60 + k, "VkDeviceMemory", "tensor.memory", 2 + k, 1024, -1, format::Origin::kAllocated});
    s.edge({11, "descriptor", 50, "VkBuffer"});
  };
  SnapshotBuilder during(kPid, 0, format::Reason::kFrame, 10);
  common(during);
  during.object({50, "VkBuffer", "tensor.buffer", 5, 1024});
  during.bind(50, 63, 1024);
  SnapshotBuilder end(kPid, 1, format::Reason::kDeviceDestroy, 20);
  common(end);  // the buffer destroyed: the set's edge points at nothing live
  const analysis::RunReport r = test::analyse({during, end});
  const analysis::Finding* memory = test::only(r, FindingKind::kLeakAtExit, "VkDeviceMemory");
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ(memory->count, 4u);
  EXPECT_TRUE(memory->retainers.empty()) << memory->retainers[0].type;
  analysis::ReportDocument doc;
  doc.runs.push_back(r);
  const std::string text = report::render_text(doc, Style(false));
  EXPECT_EQ(text.find("retained by: VkDescriptorPool \"frame.pool\" #10 -> 1 VkDescriptorSet, "
                      "1 VkDeviceMemory"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace vkleak
