// Aggregations: per-type totals, count cross-checks, call-site groups, runtime-frame skipping.
#include <gtest/gtest.h>

#include "core/module_map.h"
#include "core/snapshot_reader.h"
#include "core/summary.h"
#include "shared/vulkan_stack.h"
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

TEST(ModuleMapTest, SkipsVulkanStackFrames) {
  std::vector<Module> modules(3);
  modules[0] = {"/usr/lib/x86_64-linux-gnu/libVkLayer_khronos_validation.so", 0x1000, 0x1000,
                0x1000, ""};
  modules[1] = {"/usr/lib/x86_64-linux-gnu/libvulkan.so.1.3.239", 0x3000, 0x1000, 0x3000, ""};
  modules[2] = {"/opt/app/bin/app", 0x5000, 0x1000, 0x5000, ""};
  const ModuleMap map(modules);
  bool all = false;
  using Kept = std::vector<size_t>;
  // Stack frames anywhere are left out, not only the leading ones.
  EXPECT_EQ(application_frames({0x1010, 0x3010, 0x5010, 0x3020, 0x5020}, map, &all), (Kept{2, 4}));
  EXPECT_FALSE(all);
  EXPECT_EQ(application_frames({0x5010, 0x1010}, map, &all), Kept{0});
  EXPECT_EQ(application_frames({0x9999, 0x5010}, map, &all), (Kept{0, 1}));  // unknown: keep
  EXPECT_FALSE(all);
  EXPECT_EQ(application_frames({0x1010, 0x3010}, map, &all), (Kept{0, 1}));  // never nothing
  EXPECT_TRUE(all);
  EXPECT_TRUE(application_frames({}, map, &all).empty());
  EXPECT_FALSE(all);
}

TEST(ModuleMapTest, VulkanStackModules) {
  EXPECT_TRUE(is_vulkan_stack_module("libvulkan.so"));
  EXPECT_TRUE(is_vulkan_stack_module("/usr/lib/x86_64-linux-gnu/libvulkan.so.1"));
  EXPECT_FALSE(is_vulkan_stack_module("/opt/libvulkan_helpers.so"));
  // Layers, drivers, GL on zink and the GL dispatch in front of it, D3D and WebGPU on Vulkan.
  EXPECT_TRUE(is_vulkan_stack_module("/usr/lib/x86_64-linux-gnu/mangohud/libMangoHud.so"));
  EXPECT_TRUE(is_vulkan_stack_module("/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"));
  EXPECT_TRUE(is_vulkan_stack_module("/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so"));
  EXPECT_TRUE(is_vulkan_stack_module("/usr/lib/x86_64-linux-gnu/libgallium-24.2.8.so"));
  EXPECT_TRUE(is_vulkan_stack_module("/usr/lib/x86_64-linux-gnu/libGLX_mesa.so.0"));
  EXPECT_TRUE(is_vulkan_stack_module("/opt/game/libdxvk_d3d11.so"));
  EXPECT_TRUE(is_vulkan_stack_module("/opt/app/libwgpu_native.so"));
  EXPECT_FALSE(is_vulkan_stack_module("/usr/lib/x86_64-linux-gnu/libc.so.6"));
  EXPECT_FALSE(is_vulkan_stack_module("/usr/bin/glmark2"));
  EXPECT_FALSE(is_vulkan_stack_module("/opt/app/libengine.so"));
  // A user's module: by file name, or by path when the pattern has a '/'.
  set_user_stack_modules({"libengine*.so", "/opt/render/*"});
  EXPECT_TRUE(is_vulkan_stack_module("/opt/app/libengine_vk.so"));
  EXPECT_TRUE(is_vulkan_stack_module("/opt/render/librender.so.2"));
  EXPECT_FALSE(is_vulkan_stack_module("/opt/app/librender.so.2"));
  set_user_stack_modules({});
  EXPECT_FALSE(is_vulkan_stack_module("/opt/app/libengine_vk.so"));
}

TEST(ModuleMapTest, StackPatternMatching) {
  EXPECT_TRUE(stack_pattern_matches("*_dri.so", "swrast_dri.so"));
  EXPECT_FALSE(stack_pattern_matches("*_dri.so", "swrast_dri.so.1"));
  EXPECT_TRUE(stack_pattern_matches("lib?k*.so*", "libVkLayer_x.so"));
  EXPECT_TRUE(stack_pattern_matches("a*b*c", "axxbyyc"));
  EXPECT_FALSE(stack_pattern_matches("a*b*c", "axxbyy"));
  EXPECT_TRUE(stack_pattern_matches("*", ""));
  EXPECT_FALSE(stack_pattern_matches("", "x"));
  EXPECT_TRUE(is_vulkan_loader_or_layer_module("/x/libVkLayer_khronos_validation.so"));
  EXPECT_FALSE(is_vulkan_loader_or_layer_module("/x/swrast_dri.so"));
}

}  // namespace
}  // namespace vkleak
