// The driver's view of memory beside the tracked bytes: points, and the note on growth that no
// tracked object explains (src/analysis/driver_memory.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "snapshot_builder.h"
#include "test_util.h"

namespace vkleak::test {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

// A device_local heap of 80 GiB whose usage is `usage`, sampled at `time_ms`.
std::string sampled(uint64_t usage, uint64_t frame, uint64_t time_ms) {
  return R"({"status":"sampled","enabled_by":"vkleak","frame":)" + std::to_string(frame) +
         R"(,"time_ms":)" + std::to_string(time_ms) +
         R"(,"heaps":[{"index":0,"size":85899345920,"device_local":true,"budget":80000000000,"usage":)" +
         std::to_string(usage) +
         R"(},{"index":1,"size":1000,"device_local":false,"budget":900,"usage":0}]})";
}

// Frames 100, 200, ... with usage(i) on the heap and `memory(i)` bytes of VkDeviceMemory.
std::vector<SnapshotBuilder> run(size_t n, uint64_t (*usage)(size_t), uint64_t (*memory)(size_t),
                                 bool repeat_sample = false, bool with_budget = true) {
  std::vector<SnapshotBuilder> out;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t frame = 100 * (i + 1);
    SnapshotBuilder b(7, i, format::Reason::kFrame, frame);
    const size_t sample = repeat_sample && i % 2 ? i - 1 : i;  // odd ones repeat the previous
    if (with_budget)
      b.memory_budget(sampled(usage(sample), 100 * (sample + 1), 1000 * (sample + 1)));
    ObjectSpec mem(1000 + i, "VkDeviceMemory");
    mem.size = memory(i);
    mem.frame = frame;
    if (mem.size) b.object(mem);
    out.push_back(std::move(b));
  }
  return out;
}

bool has_driver_note(const analysis::RunReport& r) {
  for (const std::string& n : r.notes) {
    if (n.rfind("driver memory:", 0) == 0) return true;
  }
  return false;
}

TEST(DriverMemory, UsageGrowingWhileTrackedBytesStayFlatIsANote) {
  const auto r = analyse(run(
      8, [](size_t i) { return 500 * kMiB + i * 100 * kMiB; }, [](size_t) { return 64 * kMiB; }));
  ASSERT_EQ(r.driver_memory.size(), 1u);
  const analysis::DeviceMemoryView& v = r.driver_memory[0];
  EXPECT_EQ(v.status, format::HeapBudgetStatus::kSampled);
  EXPECT_EQ(v.enabled_by, format::HeapBudgetEnabledBy::kLayer);
  ASSERT_EQ(v.frames.size(), 8u);
  EXPECT_EQ(v.frames[7], 800u);
  ASSERT_EQ(v.heaps.size(), 2u);
  EXPECT_EQ(v.heaps[0].usage[7], 1200 * kMiB);
  EXPECT_EQ(v.tracked[7], 64 * kMiB);
  ASSERT_TRUE(v.unexplained);
  EXPECT_EQ(v.unexplained->from_frame, 300u);  // the first quarter is warm-up
  EXPECT_EQ(v.unexplained->unexplained, 500 * kMiB);
  EXPECT_TRUE(has_driver_note(r));
  // A note, not a finding (nothing to fix by call site): the same findings as without budgets.
  const auto without = analyse(run(
      8, [](size_t i) { return 500 * kMiB + i * 100 * kMiB; }, [](size_t) { return 64 * kMiB; },
      false, /*with_budget=*/false));
  EXPECT_EQ(r.findings.size(), without.findings.size());
  EXPECT_FALSE(has_driver_note(without));
  EXPECT_TRUE(without.driver_memory.empty());
}

TEST(DriverMemory, GrowthTheTrackedMemoryExplainsIsNoNote) {
  const auto r = analyse(run(
      8, [](size_t i) { return 500 * kMiB + i * 100 * kMiB; },
      [](size_t i) { return i * 100 * kMiB; }));
  ASSERT_EQ(r.driver_memory.size(), 1u);
  EXPECT_FALSE(r.driver_memory[0].unexplained);
  EXPECT_FALSE(has_driver_note(r));
}

TEST(DriverMemory, WarmUpThatLevelsOffIsNoNote) {
  const auto r = analyse(run(
      8, [](size_t i) { return i < 4 ? 500 * kMiB + i * 300 * kMiB : 1400 * kMiB; },
      [](size_t) { return 0 * kMiB; }));
  EXPECT_FALSE(r.driver_memory[0].unexplained);
  EXPECT_FALSE(has_driver_note(r));
}

TEST(DriverMemory, SmallGrowthIsNoNote) {
  const auto r = analyse(run(
      8, [](size_t i) { return 500 * kMiB + i * kMiB; }, [](size_t) { return uint64_t{0}; }));
  EXPECT_FALSE(r.driver_memory[0].unexplained);
}

TEST(DriverMemory, TooFewPointsAreNotJudged) {
  const auto r = analyse(run(
      3, [](size_t i) { return 500 * kMiB + i * 1000 * kMiB; },
      [](size_t) { return uint64_t{0}; }));
  ASSERT_EQ(r.driver_memory.size(), 1u);
  EXPECT_TRUE(r.driver_memory[0].too_few_points);
  EXPECT_FALSE(r.driver_memory[0].unexplained);
}

TEST(DriverMemory, ARepeatedSampleAddsNoPoint) {
  // Every other snapshot carries the previous one's sample (taken off the app's thread).
  const auto r = analyse(run(
      8, [](size_t i) { return 500 * kMiB + i * 100 * kMiB; }, [](size_t) { return uint64_t{0}; },
      /*repeat_sample=*/true));
  ASSERT_EQ(r.driver_memory.size(), 1u);
  EXPECT_EQ(r.driver_memory[0].frames.size(), 4u);
}

TEST(DriverMemory, WithoutTheExtensionHeapsAreListedAndNothingIsJudged) {
  std::vector<SnapshotBuilder> snaps;
  for (size_t i = 0; i < 6; ++i) {
    SnapshotBuilder b(7, i, format::Reason::kFrame, 100 * (i + 1));
    b.memory_budget(
        R"({"status":"unsupported","heaps":[{"index":0,"size":2147483648,"device_local":true}]})");
    snaps.push_back(std::move(b));
  }
  const auto r = analyse(snaps);
  ASSERT_EQ(r.driver_memory.size(), 1u);
  EXPECT_EQ(r.driver_memory[0].status, format::HeapBudgetStatus::kUnsupported);
  EXPECT_TRUE(r.driver_memory[0].frames.empty());
  ASSERT_EQ(r.driver_memory[0].heaps.size(), 1u);
  EXPECT_EQ(r.driver_memory[0].heaps[0].size, uint64_t{2} << 30);
  EXPECT_FALSE(r.driver_memory[0].too_few_points);
  EXPECT_EQ(analysis::budget_unavailable_reason(r.driver_memory[0].status),
            "the driver lacks VK_EXT_memory_budget");
}

TEST(DriverMemory, FilesOfOlderLayersHaveNoView) {
  const auto r = analyse(run(0, nullptr, nullptr));
  EXPECT_TRUE(r.driver_memory.empty());
  std::vector<SnapshotBuilder> snaps;
  snaps.emplace_back(7, 0, format::Reason::kFrame, 10);
  EXPECT_TRUE(analyse(snaps).driver_memory.empty());
}

}  // namespace
}  // namespace vkleak::test
