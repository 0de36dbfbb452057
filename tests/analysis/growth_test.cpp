// growth: a group whose count or bytes keep rising; and the series that do not.
#include <gtest/gtest.h>

#include "analysis/rules/rules.h"
#include "test_util.h"

namespace vkleak {
namespace {

using analysis::FindingKind;
using analysis::judge_growth;
using test::SnapshotBuilder;

constexpr uint64_t kPid = 500;

TEST(JudgeGrowthTest, RisingSeries) {
  const analysis::Thresholds t;
  EXPECT_TRUE(judge_growth({1, 2, 3, 4}, t).growing);
  EXPECT_TRUE(judge_growth({10, 20, 30, 40, 50, 60}, t).growing);
  // A slow leak that rises every other snapshot.
  EXPECT_TRUE(judge_growth({1, 1, 2, 2, 3, 3, 4, 4}, t).growing);
  // Jitter on the way up.
  EXPECT_TRUE(judge_growth({10, 14, 13, 18, 22, 21, 26}, t).growing);
  const analysis::GrowthVerdict v = judge_growth({1, 2, 3, 4, 5}, t);
  EXPECT_EQ(v.rises, 4u);
  EXPECT_EQ(v.intervals, 4u);
}

TEST(JudgeGrowthTest, SeriesThatAreNotGrowth) {
  const analysis::Thresholds t;
  EXPECT_FALSE(judge_growth({5, 5, 5, 5, 5}, t).growing) << "a ring";
  EXPECT_FALSE(judge_growth({1, 2, 3, 4, 4, 4, 4}, t).growing) << "a cache that levels off";
  EXPECT_FALSE(judge_growth({1, 2, 3, 4, 5, 2}, t).growing) << "trimmed back";
  EXPECT_FALSE(judge_growth({3, 4, 3, 4, 3, 4, 3, 4}, t).growing) << "comes and goes";
  EXPECT_FALSE(judge_growth({1, 2, 3}, t).growing) << "too few snapshots";
  EXPECT_FALSE(judge_growth({1, 1, 1, 1, 1, 9}, t).growing) << "one jump";
}

TEST(JudgeGrowthTest, Thresholds) {
  analysis::Thresholds t;
  t.growth_min_snapshots = 6;
  EXPECT_FALSE(judge_growth({1, 2, 3, 4, 5}, t).growing);
  t.growth_min_rises = 5;
  EXPECT_TRUE(judge_growth({1, 2, 3, 4, 5, 6}, t).growing);
  t.growth_min_rises = 6;
  EXPECT_FALSE(judge_growth({1, 2, 3, 4, 5, 6}, t).growing);
}

// Snapshots every 25 frames; `leaked(k)` objects of the leaking group alive at snapshot k, and a
// steady ring of 3 buffers.
std::vector<SnapshotBuilder> run(size_t snapshots, uint64_t (*leaked)(size_t)) {
  std::vector<SnapshotBuilder> out;
  for (size_t k = 0; k < snapshots; ++k) {
    const uint64_t now = 25 * (k + 1);
    SnapshotBuilder s(kPid, k, "frame", now);
    const int site = s.callsite(0x1000);
    const int ring = s.callsite(0x2000);
    for (uint64_t i = 0; i < leaked(k); ++i) {
      s.object({1000 + i, "VkImage", "leak", 0, 4096, site, "created", now - 1});
    }
    for (uint64_t i = 0; i < 3; ++i) {
      s.object({10 + i, "VkBuffer", "ring", 0, 4096, ring, "created", now - 1 - i});
    }
    out.push_back(std::move(s));
  }
  return out;
}

TEST(GrowthTest, AGroupRisingSnapshotAfterSnapshot) {
  const analysis::RunReport r = test::analyse(run(6, [](size_t k) { return 2 * k + 1; }));
  const analysis::Finding* f = test::only(r, FindingKind::kGrowth, "VkImage");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 11u);
  EXPECT_EQ(f->bytes, 11u * 4096);
  ASSERT_TRUE(f->series.has_value());
  EXPECT_EQ(f->series->frames, (std::vector<uint64_t>{25, 50, 75, 100, 125, 150}));
  EXPECT_EQ(f->series->live, (std::vector<uint64_t>{1, 3, 5, 7, 9, 11}));
  EXPECT_EQ(f->frames.first, 25u);
  EXPECT_EQ(f->frames.last, 150u);
  EXPECT_NE(f->message.find("rose from 1 to 11"), std::string::npos) << f->message;
  EXPECT_EQ(test::of_kind(r, FindingKind::kGrowth).size(), 1u) << "not the ring";
  // The run's series, for the HTML report: per type and the growing group first.
  EXPECT_EQ(r.series.frames.size(), 6u);
  ASSERT_FALSE(r.series.groups.empty());
  EXPECT_EQ(r.series.groups.front().object_type, "VkImage");
  bool buffers = false;
  for (const analysis::TypeSeries& t : r.series.types) {
    if (t.type == "VkBuffer") buffers = t.live == std::vector<uint64_t>(6, 3);
  }
  EXPECT_TRUE(buffers);
}

TEST(GrowthTest, WarmUpSnapshotsDoNotCount) {
  // Rising only during start-up (frames 25 and 50), flat after.
  auto warm = [](size_t k) -> uint64_t { return k < 2 ? 5 * (k + 1) : 10; };
  EXPECT_TRUE(test::of_kind(test::analyse(run(6, warm)), FindingKind::kGrowth).empty());
  // Growth checked needs enough snapshots after the warm-up; the report says so otherwise.
  analysis::AnalysisOptions options = test::test_options();
  options.thresholds.warmup_frames = 120;
  const analysis::RunReport r = test::analyse(run(6, [](size_t k) { return k + 1; }), options);
  EXPECT_TRUE(test::of_kind(r, FindingKind::kGrowth).empty());
  bool noted = false;
  for (const std::string& note : r.notes) noted |= note.find("growth not checked") == 0;
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace vkleak
