// growth: a group whose objects pile up (judge_growth, judge_accumulation); and the series
// that do not.
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

TEST(JudgeGrowthTest, GrowthInSteps) {
  const analysis::Thresholds t;
  // An allocator adding 170 sets at a time, 16 snapshots: three rises only.
  std::vector<uint64_t> steps(4, 170);
  steps.resize(8, 340);
  steps.resize(12, 510);
  steps.resize(16, 680);
  const analysis::GrowthVerdict v = judge_growth(steps, t);
  EXPECT_TRUE(v.growing);
  EXPECT_TRUE(v.stepped);
  EXPECT_EQ(v.rises, 3u);
  // Two steps are a working set finding its size (Qt's buffers, 4 -> 6 -> 8).
  std::vector<uint64_t> two(5, 170);
  two.resize(10, 340);
  two.resize(16, 510);
  EXPECT_FALSE(judge_growth(two, t).growing);
  EXPECT_FALSE(judge_growth({1, 2, 3, 4, 5}, t).stepped) << "rising often is not steps";
  // Steps that are not growth.
  EXPECT_FALSE(judge_growth({170, 170, 340, 340, 340, 340, 340, 340}, t).growing)
      << "levelled off in the first half";
  EXPECT_FALSE(judge_growth({170, 170, 340, 340, 330, 510, 510, 510}, t).growing)
      << "came back down once";
  EXPECT_FALSE(judge_growth({300, 300, 340, 340, 340, 380, 380, 380}, t).growing)
      << "not well above where it started";
  EXPECT_FALSE(judge_growth({1, 1, 1, 1, 1, 9}, t).growing) << "one step";
}

TEST(JudgeAccumulationTest, ObjectsThatStayAndPileUp) {
  const analysis::Thresholds t;
  const std::vector<uint64_t> leak{10, 20, 30, 40, 50, 60, 70, 80};
  EXPECT_TRUE(analysis::judge_accumulation(leak, leak, t).accumulating);
  // Emitters: the count ends high, but its floor stays and the kept ones are all new.
  const std::vector<uint64_t> emitters{2, 5, 3, 6, 4, 2, 5, 6};
  EXPECT_FALSE(analysis::judge_accumulation(emitters, {0, 0, 0, 0, 0, 0, 2, 6}, t).accumulating);
  // Emitters whose floor steps up by chance near the end (issue 36, at 450 frames every 25): the
  // survivors were all made in the last 4 of 18 snapshots, not kept over the run.
  const std::vector<uint64_t> late{2, 3, 5, 4, 4, 4, 5, 4, 6, 5, 4, 3, 4, 4, 5, 4, 5, 5};
  std::vector<uint64_t> late_kept(14, 0);
  late_kept.insert(late_kept.end(), {1, 2, 2, 5});
  EXPECT_FALSE(analysis::judge_accumulation(late, late_kept, t).accumulating);
  // Resize-recreated targets: one alive at a time, made at the last resize.
  EXPECT_FALSE(
      analysis::judge_accumulation({1, 1, 1, 1, 1, 1}, {0, 0, 0, 0, 0, 1}, t).accumulating);
  // A group empty at a snapshot in the second half starts over: too little left to judge.
  const std::vector<uint64_t> restarted{20, 30, 40, 50, 60, 70, 0, 10, 20, 30, 40, 50};
  const std::vector<uint64_t> kept{0, 0, 0, 0, 0, 0, 0, 0, 10, 20, 30, 40};
  EXPECT_FALSE(analysis::judge_accumulation(restarted, kept, t).accumulating);
  // The same restart in the first half leaves enough of the run to judge.
  const std::vector<uint64_t> early{20, 0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
  const std::vector<uint64_t> early_kept{0, 0, 0, 10, 20, 30, 40, 50, 60, 70, 80, 90};
  EXPECT_TRUE(analysis::judge_accumulation(early, early_kept, t).accumulating);
  EXPECT_EQ(analysis::running_floor({3, 1, 4, 1, 5}), (std::vector<uint64_t>{1, 1, 1, 1, 5}));
  EXPECT_EQ(analysis::kept_series({10, 20, 30}, {5, 15, 15, 30}), (std::vector<uint64_t>{1, 3, 3}));
}

TEST(JudgeGrowthTest, Deceleration) {
  const std::vector<uint64_t> frames{1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000};
  // zink's batch states on lavapipe (glmark2 -b build, 30 s).
  EXPECT_TRUE(analysis::decelerating(frames, {54, 79, 99, 113, 128, 139, 149, 161}));
  EXPECT_FALSE(analysis::decelerating(frames, {10, 20, 30, 40, 50, 60, 70, 80}));
  EXPECT_FALSE(analysis::decelerating(frames, {10, 11, 12, 14, 18, 26, 42, 74}));
}

// Snapshots every 25 frames; `leaked(k)` objects of the leaking group alive at snapshot k (the
// i-th made in the frame before the first snapshot that has it), and a steady ring of 3 buffers.
std::vector<SnapshotBuilder> run(size_t snapshots, uint64_t (*leaked)(size_t)) {
  std::vector<SnapshotBuilder> out;
  std::vector<uint64_t> created;  // creation frame of leaked object i
  for (size_t k = 0; k < snapshots; ++k) {
    const uint64_t now = 25 * (k + 1);
    SnapshotBuilder s(kPid, k, format::Reason::kFrame, now);
    const int site = s.callsite(0x1000);
    const int ring = s.callsite(0x2000);
    while (created.size() < leaked(k)) created.push_back(now - 1);
    for (uint64_t i = 0; i < leaked(k); ++i) {
      s.object(
          {1000 + i, "VkImage", "leak", created[i], 4096, site, format::Origin::kCreated, now - 1});
    }
    for (uint64_t i = 0; i < 3; ++i) {
      s.object({10 + i, "VkBuffer", "ring", 0, 4096, ring, format::Origin::kCreated, now - 1 - i});
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
  for (const std::string& note : r.notes) {
    noted |= note.find("growth, retained objects") == 0 &&
             note.find("not enough of the run seen") != std::string::npos;
  }
  EXPECT_TRUE(noted);
}

TEST(GrowthTest, GrowthInStepsIsFound) {
  // 170 -> 340 -> 510 -> 680 over 16 snapshots, never coming back down.
  const analysis::RunReport r =
      test::analyse(run(16, [](size_t k) -> uint64_t { return 170 * (1 + k / 4); }));
  const analysis::Finding* f = test::only(r, FindingKind::kGrowth, "VkImage");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 680u);
  EXPECT_NE(f->message.find("in steps"), std::string::npos) << f->message;
}

// A working set that warms up: a pool per batch and a ring of command buffers (one per pool)
// used round-robin, growing ever more slowly (zink's batch states), snapshots every 1000
// frames; at teardown (when `released`) the application has freed all of it.
std::vector<SnapshotBuilder> warm_up(const std::vector<uint64_t>& counts, bool reused,
                                     bool released) {
  std::vector<SnapshotBuilder> out;
  std::vector<uint64_t> created;  // member j is made in the frame before it is first seen
  for (size_t k = 0; k < counts.size(); ++k) {
    const uint64_t now = 1000 * (k + 1);
    SnapshotBuilder s(kPid, k, format::Reason::kFrame, now);
    const int pools = s.callsite(0x1000);
    const int cmds = s.callsite(0x2000);
    while (created.size() < counts[k]) created.push_back(now - 1 - counts[k] + created.size());
    for (uint64_t j = 0; j < counts[k]; ++j) {
      const uint64_t pool = 1000 + 2 * j;
      s.object({pool, "VkCommandPool", std::nullopt, created[j], 0, pools});
      // Round-robin: member j last used j frames before now; or never again after its creation.
      test::ObjectSpec cmd{pool + 1,
                           "VkCommandBuffer",
                           std::nullopt,
                           created[j],
                           0,
                           cmds,
                           format::Origin::kAllocated,
                           reused ? now - 1 - j : created[j]};
      cmd.parent = pool;
      s.object(cmd);
    }
    out.push_back(std::move(s));
  }
  SnapshotBuilder end(kPid, counts.size(), format::Reason::kDeviceDestroy,
                      1000 * counts.size() + 10);
  if (!released) {
    const int pools = end.callsite(0x1000);
    const int cmds = end.callsite(0x2000);
    end.object({1000, "VkCommandPool", std::nullopt, 0, 0, pools});
    test::ObjectSpec cmd{1001, "VkCommandBuffer",         std::nullopt, 0, 0,
                         cmds, format::Origin::kAllocated};
    cmd.parent = 1000;
    end.object(cmd);
  }
  out.push_back(std::move(end));
  return out;
}

TEST(GrowthTest, WarmUpThatLevelsOffAndIsReleasedIsNotGrowth) {
  const std::vector<uint64_t> zink{54, 79, 99, 113, 128, 139, 149, 161};
  const analysis::RunReport r = test::analyse(warm_up(zink, true, true));
  EXPECT_TRUE(test::of_kind(r, FindingKind::kGrowth).empty()) << r.findings.front().message;
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().message;
}

TEST(GrowthTest, GrowthThatIsKeptNotReusedOrSteadyIsStillGrowth) {
  const std::vector<uint64_t> zink{54, 79, 99, 113, 128, 139, 149, 161};
  // Alive at teardown.
  EXPECT_EQ(test::of_kind(test::analyse(warm_up(zink, true, false)), FindingKind::kGrowth).size(),
            2u);
  // Never used again: not a working set.
  EXPECT_EQ(test::of_kind(test::analyse(warm_up(zink, false, true)), FindingKind::kGrowth).size(),
            2u);
  // Not slowing down.
  const std::vector<uint64_t> linear{54, 74, 94, 114, 134, 154, 174, 194};
  EXPECT_EQ(test::of_kind(test::analyse(warm_up(linear, true, true)), FindingKind::kGrowth).size(),
            2u);
}

}  // namespace
}  // namespace vkleak
