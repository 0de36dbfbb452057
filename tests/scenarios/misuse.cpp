// Misuse the layer must report with stacks (issue 16), built with -O2 -g like callsite_inlined:
// the creating helpers are inlined into their callers, one destroy goes through a lambda and one
// creation through a function template. Every call is passed down as the program makes it; on
// lavapipe none of them crashes (see each mode). Exit code 0.
//   double-destroy  VkSampler "sampler.linear" destroyed in release_materials(), then again in
//                   shutdown_renderer(), on a second device whose allocator keeps freed memory
//                   until exit (lavapipe frees the sampler twice)
//   wrong-device    VkBuffer "buffer.on_a" made on device A, destroyed with device B
//   in-flight       VkBuffer "staging.fill" destroyed in drop_staging() while a fill of it is
//                   pending (after a 50 ms sleep: lavapipe has finished it)
//   reused-double-destroy  VkSampler "loader.A" made and destroyed on a loader thread (which
//                   stays alive); its handle reused by "frame.B" on the main thread, destroyed
//                   there in retire_frame(), then 64 other samplers destroyed (with
//                   VKLEAK_GRAVEYARD_SIZE=16 the layer forgets B), then B destroyed again in
//                   teardown_frame(). On a device whose allocator recycles freed blocks (so the
//                   handle is reused) and ignores a second free. Prints "handle reused: yes|no"
//   reuse           10,000 samplers created and destroyed (the driver reuses handle values),
//                   then "sampler.last" destroyed once: all valid, nothing to report; prints
//                   how many distinct handle values the loop saw
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "scenario_common.h"

using scenario::Context;

namespace {

// ctx.name() names through ctx.device; objects of the other devices are named through theirs.
void name_object(const Context& ctx, VkDevice device, VkObjectType type, VkSampler sampler,
                 const char* name) {
  if (device == ctx.device) return ctx.name(type, sampler, name);
  if (!ctx.debug_utils) return;
  auto set_name = reinterpret_cast<PFN_vkSetDebugUtilsObjectNameEXT>(
      vkGetDeviceProcAddr(device, "vkSetDebugUtilsObjectNameEXT"));
  VkDebugUtilsObjectNameInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
  info.objectType = type;
  info.objectHandle = scenario::handle_u64(sampler);
  info.pObjectName = name;
  VK_CHECK(set_name(device, &info));
}

// Helpers as users write them; -O2 inlines such helpers, these always.
inline __attribute__((always_inline)) VkSampler make_sampler(const Context& ctx, VkDevice device,
                                                             const char* name) {
  VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  info.magFilter = VK_FILTER_LINEAR;
  info.minFilter = VK_FILTER_LINEAR;
  info.addressModeU = info.addressModeV = info.addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT;
  info.maxLod = 1.0f;
  VkSampler sampler = VK_NULL_HANDLE;
  VK_CHECK(vkCreateSampler(device, &info, nullptr, &sampler));
  if (name != nullptr) name_object(ctx, device, VK_OBJECT_TYPE_SAMPLER, sampler, name);
  return sampler;
}

inline __attribute__((always_inline)) VkBuffer create_named_buffer(const Context& ctx,
                                                                   VkDeviceSize size,
                                                                   const char* name) {
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size;
  info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  VK_CHECK(vkCreateBuffer(ctx.device, &info, nullptr, &buffer));
  ctx.name(VK_OBJECT_TYPE_BUFFER, buffer, name);
  return buffer;
}

// noinline + an empty asm after the call: each function keeps a frame of its own (no tail call),
// so the stacks of the create, the first destroy and the bad call all differ.
#define KEEP_FRAME() asm volatile("" ::: "memory")

// A device whose host memory is never given back before exit: lavapipe frees a sampler (and its
// debug name) on each destroy, and a second free of the same block would abort in glibc. Kept
// blocks let the driver run the second destroy on memory that is still the program's.
struct Quarantine {
  std::vector<void*> blocks;
  std::unordered_map<void*, size_t> sizes;
};
Quarantine g_quarantine;

void* VKAPI_PTR quarantine_alloc(void* user, size_t size, size_t alignment,
                                 VkSystemAllocationScope) {
  void* p = nullptr;
  if (posix_memalign(&p, alignment < sizeof(void*) ? sizeof(void*) : alignment, size) != 0)
    return nullptr;
  static_cast<Quarantine*>(user)->sizes[p] = size;
  return p;
}

void VKAPI_PTR quarantine_free(void* user, void* p) {
  if (p != nullptr) static_cast<Quarantine*>(user)->blocks.push_back(p);
}

void* VKAPI_PTR quarantine_realloc(void* user, void* old, size_t size, size_t alignment,
                                   VkSystemAllocationScope scope) {
  void* p = quarantine_alloc(user, size, alignment, scope);
  if (p != nullptr && old != nullptr) {
    std::memcpy(p, old, std::min(size, static_cast<Quarantine*>(user)->sizes[old]));
    quarantine_free(user, old);
  }
  return p;
}

void release_quarantine() {
  std::sort(g_quarantine.blocks.begin(), g_quarantine.blocks.end());
  g_quarantine.blocks.erase(std::unique(g_quarantine.blocks.begin(), g_quarantine.blocks.end()),
                            g_quarantine.blocks.end());
  for (void* p : g_quarantine.blocks) std::free(p);
  g_quarantine = {};
}

// Another device on the same physical device and queue family.
VkDevice create_device(const Context& ctx, const VkAllocationCallbacks* allocator) {
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = ctx.queue_family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue_info;
  VkDevice device = VK_NULL_HANDLE;
  VK_CHECK(vkCreateDevice(ctx.physical_device, &info, allocator, &device));
  return device;
}

// ---- double-destroy

__attribute__((noinline)) VkSampler setup_materials(const Context& ctx, VkDevice device) {
  VkSampler sampler = make_sampler(ctx, device, "sampler.linear");
  KEEP_FRAME();
  return sampler;
}

__attribute__((noinline)) void release_materials(VkDevice device, VkSampler sampler) {
  vkDestroySampler(device, sampler, nullptr);
  KEEP_FRAME();
}

// The bug: the renderer's teardown destroys the sampler release_materials() already destroyed.
__attribute__((noinline)) void shutdown_renderer(VkDevice device, VkSampler stale) {
  auto destroy_sampler = [device](VkSampler sampler) __attribute__((noinline)) {
    vkDestroySampler(device, sampler, nullptr);
    KEEP_FRAME();
  };
  destroy_sampler(stale);
  KEEP_FRAME();
}

void double_destroy(const Context& ctx) {
  VkAllocationCallbacks allocator{};
  allocator.pUserData = &g_quarantine;
  allocator.pfnAllocation = quarantine_alloc;
  allocator.pfnReallocation = quarantine_realloc;
  allocator.pfnFree = quarantine_free;
  VkDevice device = create_device(ctx, &allocator);
  VkSampler sampler = setup_materials(ctx, device);
  release_materials(device, sampler);
  shutdown_renderer(device, sampler);
  vkDestroyDevice(device, &allocator);
  release_quarantine();
}

// ---- reused-double-destroy

// A device allocator that recycles freed blocks of the same size, last freed first (so the driver
// gives a new object the handle of the one just destroyed), and ignores a second free of a block.
struct Recycler {
  std::mutex mutex;
  std::unordered_map<size_t, std::vector<void*>> free_by_size;
  std::set<void*> free_blocks;
  std::unordered_map<void*, size_t> sizes;
};
Recycler g_recycler;

void* VKAPI_PTR recycler_alloc(void* user, size_t size, size_t alignment, VkSystemAllocationScope) {
  auto* r = static_cast<Recycler*>(user);
  std::lock_guard<std::mutex> lock(r->mutex);
  std::vector<void*>& list = r->free_by_size[size];
  for (auto it = list.rbegin(); it != list.rend(); ++it) {
    if (reinterpret_cast<uintptr_t>(*it) % alignment != 0) continue;
    void* p = *it;
    list.erase(std::next(it).base());
    r->free_blocks.erase(p);
    return p;
  }
  void* p = nullptr;
  if (posix_memalign(&p, std::max(alignment, sizeof(void*)), size) != 0) return nullptr;
  r->sizes[p] = size;
  return p;
}

void VKAPI_PTR recycler_free(void* user, void* p) {
  auto* r = static_cast<Recycler*>(user);
  std::lock_guard<std::mutex> lock(r->mutex);
  if (p == nullptr || !r->free_blocks.insert(p).second) return;  // a second free: ignored
  r->free_by_size[r->sizes[p]].push_back(p);
}

void* VKAPI_PTR recycler_realloc(void* user, void* old, size_t size, size_t alignment,
                                 VkSystemAllocationScope scope) {
  void* p = recycler_alloc(user, size, alignment, scope);
  if (p != nullptr && old != nullptr) {
    size_t old_size = 0;
    {
      auto* r = static_cast<Recycler*>(user);
      std::lock_guard<std::mutex> lock(r->mutex);
      old_size = r->sizes[old];
    }
    std::memcpy(p, old, std::min(size, old_size));
    recycler_free(user, old);
  }
  return p;
}

void release_recycler() {
  for (const auto& [p, size] : g_recycler.sizes) std::free(p);
  g_recycler.free_by_size.clear();
  g_recycler.free_blocks.clear();
  g_recycler.sizes.clear();
}

// A side effect of their own in each: -O2's identical code folding would merge them with
// release_materials() and shutdown_renderer() (one address, one name in the stacks).
volatile int g_frames_retired = 0;
volatile int g_frames_torn_down = 0;

__attribute__((noinline)) void retire_frame(VkDevice device, VkSampler sampler) {
  vkDestroySampler(device, sampler, nullptr);
  g_frames_retired = g_frames_retired + 1;
  KEEP_FRAME();
}

// The bug: the frame's teardown destroys the sampler retire_frame() already destroyed.
__attribute__((noinline)) void teardown_frame(VkDevice device, VkSampler stale) {
  vkDestroySampler(device, stale, nullptr);
  g_frames_torn_down = g_frames_torn_down + 1;
  KEEP_FRAME();
}

bool reused_double_destroy(const Context& ctx) {
  VkAllocationCallbacks allocator{};
  allocator.pUserData = &g_recycler;
  allocator.pfnAllocation = recycler_alloc;
  allocator.pfnReallocation = recycler_realloc;
  allocator.pfnFree = recycler_free;
  VkDevice device = create_device(ctx, &allocator);
  std::vector<VkSampler> others;
  for (int i = 0; i < 64; ++i) others.push_back(make_sampler(ctx, device, nullptr));
  std::atomic<bool> a_destroyed{false}, done{false};
  uint64_t a_handle = 0;
  std::thread loader([&] {
    VkSampler a = make_sampler(ctx, device, "loader.A");
    a_handle = scenario::handle_u64(a);
    vkDestroySampler(device, a, nullptr);
    a_destroyed = true;
    while (!done) std::this_thread::yield();  // its destroys stay in its own ring
  });
  while (!a_destroyed) std::this_thread::yield();
  VkSampler b = make_sampler(ctx, device, "frame.B");
  const bool reused = scenario::handle_u64(b) == a_handle;
  retire_frame(device, b);
  for (VkSampler s : others) vkDestroySampler(device, s, nullptr);
  teardown_frame(device, b);
  done = true;
  loader.join();
  vkDestroyDevice(device, &allocator);
  release_recycler();
  return reused;
}

// ---- wrong-device

__attribute__((noinline)) VkBuffer make_on_a(const Context& ctx) {
  VkBuffer buffer = create_named_buffer(ctx, 4096, "buffer.on_a");
  KEEP_FRAME();
  return buffer;
}

// The bug: device B destroys device A's buffer. Lavapipe frees it with B's allocator; both
// devices use the default one, so the memory goes back where it came from.
__attribute__((noinline)) void destroy_with_b(VkDevice device_b, VkBuffer buffer) {
  vkDestroyBuffer(device_b, buffer, nullptr);
  KEEP_FRAME();
}

void wrong_device(const Context& ctx) {
  VkDevice device_b = create_device(ctx, nullptr);
  VkBuffer buffer = make_on_a(ctx);
  destroy_with_b(device_b, buffer);
  vkDestroyDevice(device_b, nullptr);
}

// ---- in-flight

template <VkDeviceSize Size>
__attribute__((noinline)) scenario::Buffer make_staging(const Context& ctx) {
  scenario::Buffer staging;
  staging.size = Size;
  staging.buffer = create_named_buffer(ctx, Size, "staging.fill");
  KEEP_FRAME();
  VkMemoryRequirements req{};
  vkGetBufferMemoryRequirements(ctx.device, staging.buffer, &req);
  staging.memory =
      scenario::allocate_memory(ctx, req.size, req.memoryTypeBits, "staging.fill.memory");
  VK_CHECK(vkBindBufferMemory(ctx.device, staging.buffer, staging.memory, 0));
  return staging;
}

// The bug: the buffer goes right after vkQueueSubmit, before the fence wait.
__attribute__((noinline)) void drop_staging(const Context& ctx, scenario::Buffer& staging) {
  vkDestroyBuffer(ctx.device, staging.buffer, nullptr);
  staging.buffer = VK_NULL_HANDLE;
  KEEP_FRAME();
}

void in_flight(const Context& ctx) {
  scenario::Buffer staging = make_staging<4096>(ctx);
  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.queueFamilyIndex = ctx.queue_family;
  VkCommandPool pool = VK_NULL_HANDLE;
  VK_CHECK(vkCreateCommandPool(ctx.device, &pool_info, nullptr, &pool));
  ctx.name(VK_OBJECT_TYPE_COMMAND_POOL, pool, "fill.cmdpool");
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VK_CHECK(vkAllocateCommandBuffers(ctx.device, &alloc, &cmd));
  ctx.name(VK_OBJECT_TYPE_COMMAND_BUFFER, cmd, "fill.cmd");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
  vkCmdFillBuffer(cmd, staging.buffer, 0, VK_WHOLE_SIZE, 0x5eed5eedu);
  VK_CHECK(vkEndCommandBuffer(cmd));
  VkFence fence = scenario::create_fence(ctx, "fill.fence");
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  VK_CHECK(vkQueueSubmit(ctx.queue, 1, &submit, fence));
  scenario::sleep_ms(50);  // lavapipe has finished: the early destroy cannot crash it
  drop_staging(ctx, staging);
  VK_CHECK(vkWaitForFences(ctx.device, 1, &fence, VK_TRUE, UINT64_MAX));
  vkDestroyFence(ctx.device, fence, nullptr);
  vkDestroyCommandPool(ctx.device, pool, nullptr);
  vkFreeMemory(ctx.device, staging.memory, nullptr);
}

// ---- reuse

__attribute__((noinline)) void destroy_last(const Context& ctx, VkSampler sampler) {
  vkDestroySampler(ctx.device, sampler, nullptr);
  KEEP_FRAME();
}

// Returns how many distinct handle values the driver gave the loop's samplers.
size_t reuse(const Context& ctx, uint32_t count) {
  std::vector<uint64_t> handles;
  for (uint32_t i = 0; i < count; ++i) {
    VkSampler sampler = make_sampler(ctx, ctx.device, nullptr);
    handles.push_back(scenario::handle_u64(sampler));
    vkDestroySampler(ctx.device, sampler, nullptr);
  }
  destroy_last(ctx, make_sampler(ctx, ctx.device, "sampler.last"));
  std::sort(handles.begin(), handles.end());
  return static_cast<size_t>(std::unique(handles.begin(), handles.end()) - handles.begin());
}

}  // namespace

int main(int argc, char** argv) {
  scenario::Options options(
      "misuse",
      "Misuses Vulkan once, as --mode says: double-destroy (a VkSampler), wrong-device (a "
      "VkBuffer of device A destroyed with device B), in-flight (a VkBuffer destroyed while a "
      "fill of it is pending) or reuse (valid destroys of reused handle values: nothing to "
      "report). --frames and --swapchain are accepted and ignored.",
      0);
  std::string mode = "double-destroy";
  uint32_t count = 10000;
  options.add_string(
      "--mode", &mode, "the misuse (default double-destroy)",
      {"double-destroy", "wrong-device", "in-flight", "reuse", "reused-double-destroy"});
  options.add_uint("--count", &count, "reuse: samplers created and destroyed (default 10000)");
  options.parse(argc, argv);

  Context ctx({"misuse", false});
  size_t distinct = 0;
  if (mode == "double-destroy") {
    double_destroy(ctx);
  } else if (mode == "wrong-device") {
    wrong_device(ctx);
  } else if (mode == "in-flight") {
    in_flight(ctx);
  } else if (mode == "reused-double-destroy") {
    std::printf("handle reused: %s\n", reused_double_destroy(ctx) ? "yes" : "no");
  } else {
    distinct = reuse(ctx, count);
  }
  ctx.destroy();
  if (mode == "reuse") {
    std::printf("done: reuse, %u samplers, %zu distinct handles\n", count, distinct);
  } else {
    std::printf("done: %s\n", mode.c_str());
  }
  return 0;
}
