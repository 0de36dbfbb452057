// vkleak_gtest.h's LeakGuard, used as a project's tests would use it: on the real loader and
// lavapipe, with the layer (API_TEST_EXPECT_LAYER=1) and without it (=0).
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <vkleak/vkleak_gtest.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "vk_harness.h"

namespace {

bool expect_layer() {
  const char* v = std::getenv("API_TEST_EXPECT_LAYER");
  return v && std::string(v) == "1";
}

harness::Context& context() {
  static harness::Context* ctx = new harness::Context({"vkleak_api_gtest"});
  return *ctx;
}

VkBuffer make_buffer(const char* name) {
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = 4096;
  info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  VkBuffer b = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateBuffer(context().device, &info, nullptr, &b), VK_SUCCESS);
  if (name) context().name(VK_OBJECT_TYPE_BUFFER, b, name);
  return b;
}

// The code under test in these examples: an upload that forgets its staging buffer.
void upload_forgetting_staging(std::vector<VkBuffer>* keep) {
  keep->push_back(make_buffer("mesh.vertices"));
  make_buffer("upload.staging");  // the bug: never destroyed (destroyed by the test below)
}

TEST(LeakGuardTest, IsActiveExactlyWithTheLayer) {
  vkleak::LeakGuard guard(context().device);
  EXPECT_EQ(guard.active(), expect_layer());
}

TEST(LeakGuardTest, ACleanScopePasses) {
  vkleak::LeakGuard guard(context().device);
  VkBuffer a = make_buffer("clean.a");
  VkBuffer b = make_buffer(nullptr);
  vkDestroyBuffer(context().device, a, nullptr);
  vkDestroyBuffer(context().device, b, nullptr);
  EXPECT_TRUE(guard.leaked().empty());
}

TEST(LeakGuardTest, ALeakingScopeFailsTheTestAndNamesTheObjects) {
  std::vector<VkBuffer> kept;
  if (!expect_layer()) {
    {
      vkleak::LeakGuard guard(context().device);
      upload_forgetting_staging(&kept);
    }  // without the layer: checks nothing, fails nothing
  } else {
    EXPECT_NONFATAL_FAILURE(
        {
          vkleak::LeakGuard guard(context().device);
          upload_forgetting_staging(&kept);
        },
        "2 GPU object(s) created in this scope are still alive (vkleak):\n  VkBuffer 0x");
    EXPECT_NONFATAL_FAILURE(
        {
          vkleak::LeakGuard guard(context().device);
          make_buffer("upload.staging.again");
        },
        "\"upload.staging.again\", 4096 bytes, created at ");
  }
  // The test's own cleanup: every buffer made above (the guard does not destroy anything).
  vkleak::LeakGuard cleanup_check(context().device);
  for (VkBuffer b : kept) vkDestroyBuffer(context().device, b, nullptr);
  (void)cleanup_check;
}

TEST(LeakGuardTest, AllowancesForWarmUpObjects) {
  vkleak::LeakGuard guard(context().device);
  guard.allow_type(VK_OBJECT_TYPE_PIPELINE_CACHE).allow_name_prefix("cache.");
  VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  VkPipelineCache cache = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreatePipelineCache(context().device, &info, nullptr, &cache), VK_SUCCESS);
  VkBuffer cached = make_buffer("cache.font_atlas");
  VkBuffer leaked = make_buffer("not.allowed");
  const auto objects = guard.leaked();
  if (expect_layer()) {
    ASSERT_EQ(objects.size(), 1u);
    EXPECT_EQ(objects[0].name, "not.allowed");
  } else {
    EXPECT_TRUE(objects.empty());
  }
  vkDestroyBuffer(context().device, leaked, nullptr);
  EXPECT_TRUE(guard.leaked().empty());
  guard.check();
  vkDestroyBuffer(context().device, cached, nullptr);
  vkDestroyPipelineCache(context().device, cache, nullptr);
}

TEST(LeakGuardTest, OtherThreadsObjectsDoNotCount) {
  std::atomic<bool> holding{false}, looked{false};
  vkleak::LeakGuard guard(context().device);
  std::thread other([&] {
    std::vector<VkBuffer> held;
    for (int i = 0; i < 5; ++i) held.push_back(make_buffer("other.thread"));
    holding = true;
    while (!looked) std::this_thread::yield();
    for (VkBuffer b : held) vkDestroyBuffer(context().device, b, nullptr);
  });
  VkBuffer mine[3];
  for (VkBuffer& b : mine) b = make_buffer("mine");
  while (!holding) std::this_thread::yield();
  EXPECT_EQ(guard.leaked().size(), expect_layer() ? 3u : 0u);
  looked = true;
  other.join();
  for (VkBuffer b : mine) vkDestroyBuffer(context().device, b, nullptr);
}

}  // namespace
