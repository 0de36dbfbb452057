// Aggregations: per-type totals, count cross-checks, call-site groups, runtime-frame skipping.
#include <gtest/gtest.h>

#include "core/module_map.h"
#include "core/snapshot_reader.h"
#include "core/summary.h"
#include "test_support.h"

namespace vkleak {
namespace {

TEST(SummaryTest, TypeTotalsByBytesThenCount) {
  const Snapshot s = read_snapshot(test::data_path("small.json"));
  const std::vector<TypeTotal> totals = type_totals(s);
  ASSERT_EQ(totals.size(), 4u);
  EXPECT_EQ(totals[0].type, "VkDeviceMemory");
  EXPECT_EQ(totals[0].live, 2u);
  EXPECT_EQ(totals[0].bytes, 2097152u);
  EXPECT_EQ(totals[1].type, "VkBuffer");
  EXPECT_EQ(totals[1].live, 4u);
  // Equal bytes (0): equal counts too, so by name.
  EXPECT_EQ(totals[2].type, "VkDevice");
  EXPECT_EQ(totals[3].type, "VkImageView");
  EXPECT_TRUE(check_counts(s, totals).empty());
}

TEST(SummaryTest, CountMismatches) {
  const Snapshot s = read_snapshot(test::data_path("count_mismatch.json"));
  const std::vector<CountMismatch> m = check_counts(s, type_totals(s));
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].type, "VkBuffer");
  EXPECT_EQ(m[0].objects.live, 1u);
  EXPECT_EQ(m[0].declared.live, 5u);
  EXPECT_EQ(m[0].declared.bytes, 1280u);
  EXPECT_EQ(m[1].type, "VkFence");  // declared, but no such objects
  EXPECT_EQ(m[1].objects.live, 0u);
  EXPECT_EQ(m[1].declared.live, 1u);
}

TEST(SummaryTest, GroupsByCallsite) {
  const Snapshot s = read_snapshot(test::data_path("small.json"));
  const std::vector<CallsiteGroup> groups = group_by_callsite(s, 2);
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups[0].callsite, 0);
  EXPECT_EQ(groups[0].count, 4u);
  EXPECT_EQ(groups[0].bytes, 262144u);
  ASSERT_EQ(groups[0].types.size(), 1u);
  EXPECT_EQ(s.type_names[groups[0].types[0].first], "VkBuffer");
  ASSERT_EQ(groups[0].example_names.size(), 2u);  // capped
  EXPECT_EQ(s.names[static_cast<size_t>(groups[0].example_names[0])], "frame.buffer.10");
  EXPECT_EQ(s.names[static_cast<size_t>(groups[0].example_names[1])], "frame.buffer.12");
  EXPECT_EQ(groups[1].callsite, 1);
  EXPECT_EQ(groups[1].count, 2u);
  EXPECT_TRUE(groups[1].example_names.empty());
  // One object each, 0 bytes: the "no call site" group sorts first.
  EXPECT_EQ(groups[2].callsite, kNoCallsite);
  EXPECT_EQ(groups[3].callsite, 2);
}

TEST(ModuleMapTest, FindsModulesByRange) {
  std::vector<Module> modules(3);
  modules[0].base = 0x5000;
  modules[0].size = 0x1000;
  modules[1].base = 0x1000;
  modules[1].size = 0x100;
  modules[2].base = 0xfffffffffffff000;
  modules[2].size = 0x1000;
  const ModuleMap map(modules);
  EXPECT_EQ(map.find(0x0fff), -1);
  EXPECT_EQ(map.find(0x1000), 1);
  EXPECT_EQ(map.find(0x10ff), 1);
  EXPECT_EQ(map.find(0x1100), -1);
  EXPECT_EQ(map.find(0x5fff), 0);
  EXPECT_EQ(map.find(0x6000), -1);
  EXPECT_EQ(map.find(UINT64_MAX), 2);
}

TEST(ModuleMapTest, SkipsLeadingLoaderAndLayerFrames) {
  std::vector<Module> modules(3);
  modules[0] = {"/usr/lib/x86_64-linux-gnu/libVkLayer_khronos_validation.so", 0x1000, 0x1000,
                0x1000, ""};
  modules[1] = {"/usr/lib/x86_64-linux-gnu/libvulkan.so.1.3.239", 0x3000, 0x1000, 0x3000, ""};
  modules[2] = {"/opt/app/bin/app", 0x5000, 0x1000, 0x5000, ""};
  const ModuleMap map(modules);
  EXPECT_EQ(leading_runtime_frames({0x1010, 0x3010, 0x5010, 0x3020}, map), 2u);
  EXPECT_EQ(leading_runtime_frames({0x5010, 0x1010}, map), 0u);
  EXPECT_EQ(leading_runtime_frames({0x9999, 0x5010}, map), 0u);  // unknown module: keep
  EXPECT_EQ(leading_runtime_frames({0x1010, 0x3010}, map), 0u);  // never leave nothing
  EXPECT_TRUE(is_vulkan_runtime_module("libvulkan.so"));
  EXPECT_FALSE(is_vulkan_runtime_module("/opt/libvulkan_helpers.so"));
}

}  // namespace
}  // namespace vkleak
