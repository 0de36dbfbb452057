// vkleak diff: two snapshots (born after A, alive in B) and three (born between A and B, alive
// in C), per type and per call site.
#include <gtest/gtest.h>

#include "analysis/diff.h"
#include "report/output_diff.h"
#include "test_util.h"

namespace vkleak {
namespace {

using test::SnapshotBuilder;

constexpr uint64_t kPid = 800;

// Objects ids [first, last] of one call site, 100 bytes each.
void add(SnapshotBuilder* s, int site, uint64_t first, uint64_t last, const std::string& type) {
  for (uint64_t id = first; id <= last; ++id) {
    s->object({id, type, "obj." + std::to_string(id), id, 100, site});
  }
}

TEST(DiffTest, BornAfterAStillAliveInB) {
  SnapshotBuilder a(kPid, 1, format::Reason::kFrame, 10);
  const int site = a.callsite(0x1000);
  add(&a, site, 1, 10, "VkBuffer");
  SnapshotBuilder b(kPid, 2, format::Reason::kFrame, 20);
  b.callsite(0x1000);
  add(&b, site, 1, 5, "VkBuffer");
  add(&b, site, 11, 20, "VkBuffer");
  const analysis::DiffResult d =
      analysis::diff_snapshots(a.read(), b.read(), nullptr, test::test_options());
  EXPECT_TRUE(d.same_process);
  EXPECT_EQ(d.born, 10u);
  EXPECT_EQ(d.born_bytes, 1000u);
  ASSERT_EQ(d.types.size(), 1u);
  EXPECT_EQ(d.types[0].live, (std::vector<uint64_t>{10, 15}));
  ASSERT_EQ(d.groups.size(), 1u);
  EXPECT_EQ(d.groups[0].born, 10u);
  EXPECT_EQ(d.groups[0].bytes, (std::vector<uint64_t>{1000, 1500}));
  ASSERT_FALSE(d.groups[0].examples.empty());
  EXPECT_EQ(d.groups[0].examples.front().id, 11u);
  ASSERT_FALSE(d.groups[0].callsite.empty());
  EXPECT_EQ(d.groups[0].callsite.front().text, "app+0x1000");
}

TEST(DiffTest, ThreeSnapshotTechnique) {
  SnapshotBuilder a(kPid, 1, format::Reason::kFrame, 10);
  const int site = a.callsite(0x1000);
  add(&a, site, 1, 10, "VkBuffer");
  SnapshotBuilder b(kPid, 2, format::Reason::kFrame, 20);
  b.callsite(0x1000);
  add(&b, site, 1, 20, "VkBuffer");
  SnapshotBuilder c(kPid, 3, format::Reason::kFrame, 30);
  c.callsite(0x1000);
  // 11..15 made between A and B survive; 16..20 were freed; 21..25 are new since B.
  add(&c, site, 1, 15, "VkBuffer");
  add(&c, site, 21, 25, "VkBuffer");
  const Snapshot last = c.read();
  const analysis::DiffResult d =
      analysis::diff_snapshots(a.read(), b.read(), &last, test::test_options());
  EXPECT_TRUE(d.three);
  EXPECT_EQ(d.born, 5u);
  ASSERT_EQ(d.groups.size(), 1u);
  EXPECT_EQ(d.groups[0].live, (std::vector<uint64_t>{10, 20, 20}));
  EXPECT_EQ(d.groups[0].examples.front().id, 11u);
  EXPECT_EQ(d.groups[0].examples.back().id, 15u);
}

TEST(DiffTest, DifferentProcessesCompareCountsOnly) {
  SnapshotBuilder a(kPid, 1, format::Reason::kFrame, 10);
  const int site = a.callsite(0x1000);
  add(&a, site, 1, 3, "VkImage");
  SnapshotBuilder b(kPid + 1, 1, format::Reason::kFrame, 10);
  b.callsite(0x1000);
  add(&b, site, 1, 8, "VkImage");
  const analysis::DiffResult d =
      analysis::diff_snapshots(a.read(), b.read(), nullptr, test::test_options());
  EXPECT_FALSE(d.same_process);
  EXPECT_EQ(d.born, 0u);
  ASSERT_EQ(d.notes.size(), 1u);
  // Call sites match across processes (module + offset): one group, +5.
  ASSERT_EQ(d.groups.size(), 1u);
  EXPECT_EQ(d.groups[0].live, (std::vector<uint64_t>{3, 8}));
}

TEST(DiffTest, ByteTotalsAndDeltasSaturate) {
  SnapshotBuilder a(kPid, 1, format::Reason::kFrame, 10);
  const int site = a.callsite(0x1000);
  add(&a, site, 1, 1, "VkBuffer");
  SnapshotBuilder b(kPid, 2, format::Reason::kFrame, 20);
  b.callsite(0x1000);
  add(&b, site, 1, 1, "VkBuffer");
  b.object({2, "VkBuffer", "huge.2", 2, UINT64_MAX, site});
  b.object({3, "VkBuffer", "huge.3", 3, 4096, site});
  const analysis::DiffResult d =
      analysis::diff_snapshots(a.read(), b.read(), nullptr, test::test_options());
  ASSERT_EQ(d.types.size(), 1u);
  EXPECT_EQ(d.types[0].bytes, (std::vector<uint64_t>{100, UINT64_MAX}));
  EXPECT_EQ(d.born_bytes, UINT64_MAX) << "not 4,095 bytes";
  const std::string text = report::render_diff_text(d, Style(false), 0);
  EXPECT_NE(text.find("+>= 8.0 EiB"), std::string::npos) << text;
  EXPECT_NE(text.find(">= 16.0 EiB"), std::string::npos) << text;
}

}  // namespace
}  // namespace vkleak
