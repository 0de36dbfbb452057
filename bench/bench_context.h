// Shared code of the vkleak benchmarks: one real Vulkan instance + device per process (through
// the real loader, on whatever driver and layers the environment selects; made by the Vulkan
// harness of tests/harness), live "filler" objects, and process measurements (RSS, which layers
// are loaded).
//
// The programs never choose layers themselves: the same binary measures every configuration,
// and bench/compare.py sets the environment.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <functional>
#include <string>

#include "vk_harness.h"

namespace bench {

using harness::fail;

// The harness's context, in the benchmarks' configuration: instance "vkleak-bench", Vulkan 1.2,
// VK_EXT_debug_utils where available, no device features, no debug names.
struct Context : harness::Context {
  Context();

  std::string device_name;
  std::string driver;  // driver name and info, when the driver reports them
  PFN_vkQueueInsertDebugUtilsLabelEXT queue_insert_label = nullptr;
  // vkSetDebugUtilsObjectNameEXT (nullptr without VK_EXT_debug_utils): for the benchmarks that
  // name their own objects, as engines do (the harness's name() is off in benchmarks).
  PFN_vkSetDebugUtilsObjectNameEXT set_object_name = nullptr;
  void name(VkObjectType type, uint64_t handle, const char* object_name) const;
};

// The process-wide context, created on first use (instance with VK_EXT_debug_utils when
// available, one device with one graphics+compute queue).
Context& context();
// Destroys the filler objects, then the device and the instance (so that the layers' destroy
// snapshots and leak checks see a clean program).
void destroy_context();

// Runs `f` in destroy_context(), before the device goes (last added, first run): benchmarks'
// long-lived objects are destroyed, so layers' leak checks at vkDestroyDevice stay quiet.
void at_teardown(std::function<void()> f);

// Keeps exactly `count` filler VkBuffers (no memory bound) alive on the device: the "other live
// objects" that tracking cost must not grow with. Grows and shrinks incrementally.
void set_live_fillers(size_t count);
size_t live_fillers();

// A VkBuffer create info shared by fillers and buffer benchmarks.
VkBufferCreateInfo buffer_info(VkDeviceSize size);

// The process's resident set (VmRSS of /proc/self/status), in bytes.
uint64_t rss_bytes();

// Whether a shared object whose path contains `name` is loaded in the process (how a benchmark
// tells which layers the loader put in, without trusting the environment).
bool module_loaded(const char* name);

}  // namespace bench
