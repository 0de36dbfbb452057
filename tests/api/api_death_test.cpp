// A GoogleTest suite with a death test in the "threadsafe" style (issue 37): its child re-runs
// this binary, makes a device, leaks a buffer and aborts on purpose. Under `vkleak run` that
// child is not the run: the suite passes and so must the gate (test_death_tests.py).
#include <gtest/gtest.h>
#include <vkleak/vkleak_gtest.h>

#include <cstdlib>

#include "vk_harness.h"

namespace {

void make_a_device_leak_and_abort() {
  harness::Context ctx({"vkleak_api_death_test.child"});
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = 4096;
  info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  VkBuffer buffer = VK_NULL_HANDLE;
  if (vkCreateBuffer(ctx.device, &info, nullptr, &buffer) == VK_SUCCESS)
    ctx.name(VK_OBJECT_TYPE_BUFFER, buffer, "death.child.buffer");
  std::abort();
}

TEST(DeathTest, AChildThatAbortsOnPurpose) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(make_a_device_leak_and_abort(), "");
}

TEST(DeathTest, TheParentsOwnScopeIsClean) {
  harness::Context ctx({"vkleak_api_death_test"});
  {
    vkleak::LeakGuard guard(ctx.device);
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = 4096;
    info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkBuffer buffer = VK_NULL_HANDLE;
    ASSERT_EQ(vkCreateBuffer(ctx.device, &info, nullptr, &buffer), VK_SUCCESS);
    vkDestroyBuffer(ctx.device, buffer, nullptr);
  }
  ctx.destroy();
}

}  // namespace
