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

// Objects the program retrieves are the driver's: a queue fetched inside a guard's scope is no
// leak (issue 37: it failed a correct test as "VkObjectType 4 ..., call site not recorded").
TEST(LeakGuardTest, RetrievedQueuesAreNeverLeaks) {
  vkleak::LeakGuard guard(context().device);
  VkQueue queue = VK_NULL_HANDLE;
  vkGetDeviceQueue(context().device, context().queue_family, 0, &queue);
  ASSERT_NE(queue, VK_NULL_HANDLE);
  VkBuffer made = make_buffer("made.beside.the.queue");
  EXPECT_EQ(guard.leaked().size(), expect_layer() ? 1u : 0u) << "the buffer, not the queue";
  vkDestroyBuffer(context().device, made, nullptr);
  EXPECT_TRUE(guard.leaked().empty());
}

// A guard over a device that failed to initialize: nothing to check, no crash in the loader.
TEST(LeakGuardTest, ANullDeviceIsANoOp) {
  EXPECT_EQ(vkleak_checkpoint(VK_NULL_HANDLE), 0u);
  EXPECT_EQ(vkleak_live_since(VK_NULL_HANDLE, 1, nullptr, 0), 0u);
  EXPECT_EQ(vkleak_snapshot(VK_NULL_HANDLE, "null"), 0);
  vkleak::LeakGuard guard(VK_NULL_HANDLE);
  EXPECT_FALSE(guard.active());
  EXPECT_TRUE(guard.leaked().empty());
}

// Never silently off: with VKLEAK_REQUIRE=1 a guard without the layer fails its test.
TEST(LeakGuardTest, RequiredLayerMissingFailsTheTest) {
  ASSERT_EQ(setenv("VKLEAK_REQUIRE", "1", 1), 0);
  if (expect_layer()) {
    vkleak::LeakGuard guard(context().device);  // loaded: nothing to say
    EXPECT_TRUE(guard.active());
  } else {
    EXPECT_NONFATAL_FAILURE({ vkleak::LeakGuard guard(context().device); },
                            "vkleak layer not loaded: this leak guard checks nothing");
  }
  ASSERT_EQ(unsetenv("VKLEAK_REQUIRE"), 0);
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
