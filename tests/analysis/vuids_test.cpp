// The validation layer's VUIDs per finding (issue 29): generated from validusage.json.
#include "analysis/vuids.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace vkleak {
namespace {

using analysis::FindingKind;
using analysis::vuids_for;
using V = std::vector<std::string>;

TEST(VuidsTest, LeaksAtTeardownHaveTheChildObjectsVuids) {
  EXPECT_EQ(vuids_for(FindingKind::kLeakAtExit, "VkBuffer", "device_destroy"),
            V{"VUID-vkDestroyDevice-device-00378"});
  EXPECT_EQ(vuids_for(FindingKind::kLeakAtExit, "VkDevice", "instance_destroy"),
            V{"VUID-vkDestroyInstance-instance-00629"});
  // An exit without teardown: no destroy call the validation layer could check.
  EXPECT_EQ(vuids_for(FindingKind::kLeakAtExit, "VkBuffer", "exit"), V{});
}

TEST(VuidsTest, MisusesHaveTheirCommandsVuids) {
  EXPECT_EQ(vuids_for(FindingKind::kDestroyedInFlight, "VkBuffer", ""),
            V{"VUID-vkDestroyBuffer-buffer-00922"});
  EXPECT_EQ(vuids_for(FindingKind::kDestroyedInFlight, "VkCommandBuffer", ""),
            V{"VUID-vkFreeCommandBuffers-pCommandBuffers-00047"});
  EXPECT_EQ(vuids_for(FindingKind::kDestroyedInFlight, "VkDeviceMemory", ""),
            V{"VUID-vkFreeMemory-memory-00677"});
  EXPECT_EQ(vuids_for(FindingKind::kInvalidDestroy, "VkSampler", "already_destroyed"),
            V{"VUID-vkDestroySampler-sampler-parameter"});
  EXPECT_EQ(vuids_for(FindingKind::kInvalidDestroy, "VkDescriptorSet", "unknown_handle"),
            V{"VUID-vkFreeDescriptorSets-pDescriptorSets-00310"});
  EXPECT_EQ(vuids_for(FindingKind::kInvalidDestroy, "VkBuffer", "wrong_device"),
            V{"VUID-vkDestroyBuffer-buffer-parent"});
}

TEST(VuidsTest, KindsTheValidationLayerCannotSeeHaveNone) {
  for (FindingKind kind : {FindingKind::kGrowth, FindingKind::kRetained, FindingKind::kStaleView,
                           FindingKind::kOrphanedMemory}) {
    EXPECT_EQ(vuids_for(kind, "VkBuffer", "device_destroy"), V{});
    EXPECT_NE(analysis::vuid_help(kind).find("No VUID"), std::string::npos);
  }
  EXPECT_NE(analysis::vuid_help(FindingKind::kLeakAtExit).find("VUID-vkDestroyDevice-device-00378"),
            std::string::npos);
}

// Through the analysis: a buffer alive at vkDestroyDevice carries the device's VUID; the same
// buffer in an exit snapshot (no teardown), none.
TEST(VuidsTest, FindingsCarryThem) {
  for (const auto& [reason, expected] :
       {std::pair{format::Reason::kDeviceDestroy, V{"VUID-vkDestroyDevice-device-00378"}},
        std::pair{format::Reason::kExit, V{}}}) {
    test::SnapshotBuilder s(600, 0, reason, 10);
    s.object({test::kDeviceId, "VkDevice", "device", 0, 0});
    s.object({20, "VkBuffer", "leaked", 1, 4096});
    const analysis::RunReport r = test::analyse({s});
    // At exit the device never destroyed is the finding, holding the buffer (issue 36).
    const analysis::Finding* f = test::only(
        r, FindingKind::kLeakAtExit, reason == format::Reason::kExit ? "VkDevice" : "VkBuffer");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->vuids, expected) << format::name(reason);
  }
}

}  // namespace
}  // namespace vkleak
