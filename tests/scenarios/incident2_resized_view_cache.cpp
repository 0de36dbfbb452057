// Incident 2: the cached view that pinned a resized buffer.
//
// A pass attachment (VkBuffer "pass.attachment", VkDeviceMemory "pass.attachment.memory", R32_UINT
// VkBufferView "pass.attachment.view") is written every frame by a compute dispatch through a
// storage texel buffer descriptor. Every --resize-every frames it is resized: a new buffer, memory
// and view are created. The old view stays in the app's 128-entry ViewCache because the cache is
// looked up with a stale key (the regression), and the cache owns the old buffer and memory: they
// are released only when their view leaves the cache, which never happens during the run. At exit
// the cache is cleared: nothing leaks at exit, but memory grew during the run.
#include <algorithm>
#include <cstdio>
#include <list>
#include <map>
#include <string>
#include <vector>

#include "attachment_write_comp.h"
#include "scenario_common.h"

using scenario::Context;

constexpr VkDeviceSize kBaseBytes = 64 * 1024;
constexpr uint32_t kMaxSizeSteps = 16;  // sizes grow 64 KiB .. 1 MiB, then stay
constexpr uint32_t kTexelsWritten = 64;

// An attachment's storage: buffer + memory + its R32_UINT view.
struct Attachment {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkBufferView view = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
};

// Vulkan calls made right here (not through helpers) so that the call site is this function.
__attribute__((noinline)) Attachment create_attachment(const Context& ctx, VkDeviceSize size) {
  Attachment a;
  a.size = size;
  VkBufferCreateInfo buffer_info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  buffer_info.size = size;
  buffer_info.usage = VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT;
  buffer_info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VK_CHECK(vkCreateBuffer(ctx.device, &buffer_info, nullptr, &a.buffer));
  ctx.name(VK_OBJECT_TYPE_BUFFER, a.buffer, "pass.attachment");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(ctx.device, a.buffer, &req);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = ctx.find_memory_type(
      req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  VK_CHECK(vkAllocateMemory(ctx.device, &alloc, nullptr, &a.memory));
  ctx.name(VK_OBJECT_TYPE_DEVICE_MEMORY, a.memory, "pass.attachment.memory");
  VK_CHECK(vkBindBufferMemory(ctx.device, a.buffer, a.memory, 0));
  VkBufferViewCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO};
  info.buffer = a.buffer;
  info.format = VK_FORMAT_R32_UINT;
  info.offset = 0;
  info.range = VK_WHOLE_SIZE;
  VK_CHECK(vkCreateBufferView(ctx.device, &info, nullptr, &a.view));
  ctx.name(VK_OBJECT_TYPE_BUFFER_VIEW, a.view, "pass.attachment.view");
  return a;
}

void destroy_attachment(const Context& ctx, Attachment& a) {
  vkDestroyBufferView(ctx.device, a.view, nullptr);
  vkDestroyBuffer(ctx.device, a.buffer, nullptr);
  vkFreeMemory(ctx.device, a.memory, nullptr);
  a = Attachment{};
}

// The frame-graph compiler's view cache: at most 128 entries, least recently used evicted. The
// cache owns its attachments: a buffer and its memory are destroyed when their view is evicted.
class ViewCache {
 public:
  static constexpr size_t kCapacity = 128;

  explicit ViewCache(const Context& ctx) : ctx_(ctx) {}

  // The view for `key`, creating a `size`-byte attachment on a miss.
  const Attachment& get(const std::string& key, VkDeviceSize size) {
    auto it = entries_.find(key);
    if (it != entries_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second.lru_position);
      return it->second.attachment;
    }
    if (entries_.size() == kCapacity) evict_oldest();
    lru_.push_front(key);
    Entry& entry = entries_[key];
    entry.attachment = create_attachment(ctx_, size);
    entry.lru_position = lru_.begin();
    return entry.attachment;
  }

  size_t size() const { return entries_.size(); }

  void clear() {
    while (!entries_.empty()) evict_oldest();
  }

 private:
  struct Entry {
    Attachment attachment;
    std::list<std::string>::iterator lru_position;
  };

  void evict_oldest() {
    auto it = entries_.find(lru_.back());
    destroy_attachment(ctx_, it->second.attachment);
    entries_.erase(it);
    lru_.pop_back();
  }

  const Context& ctx_;
  std::map<std::string, Entry> entries_;
  std::list<std::string> lru_;
};

// The pass: its attachment description changes on resize. Keys are "pass#<generation>/<size>".
struct PassDescription {
  std::string name = "pass";
  uint32_t generation = 0;  // bumped on every resize
  VkDeviceSize size = kBaseBytes;
};

std::string cache_key(const PassDescription& desc) {
  return desc.name + "#" + std::to_string(desc.generation) + "/" + std::to_string(desc.size);
}

int main(int argc, char** argv) {
  scenario::Options options("incident2_resized_view_cache",
                            "A resized pass attachment whose old VkBufferView stays in a 128-entry "
                            "view cache, pinning the old VkBuffer + VkDeviceMemory until exit.");
  uint32_t resize_every = 20;
  options.add_uint("--resize-every", &resize_every,
                   "resize the attachment every N frames (default 20)");
  options.parse(argc, argv);
  if (resize_every == 0) scenario::fail("--resize-every must be at least 1");

  Context ctx({"incident2_resized_view_cache", options.swapchain});
  scenario::FrameLoop loop(ctx, {options.swapchain});

  VkShaderModule shader = scenario::create_shader_module(ctx, attachment_write_comp, "pass.shader");
  VkDescriptorSetLayout set_layout =
      scenario::create_set_layout(ctx, {VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER},
                                  VK_SHADER_STAGE_COMPUTE_BIT, "pass.set_layout");
  VkPipelineLayout pipeline_layout =
      scenario::create_pipeline_layout(ctx, {set_layout}, "pass.pipeline_layout", sizeof(uint32_t));
  VkPipeline pipeline =
      scenario::create_compute_pipeline(ctx, pipeline_layout, shader, "pass.pipeline");
  VkDescriptorPool pool = scenario::create_descriptor_pool(
      ctx, loop.frames_in_flight(),
      {{VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, loop.frames_in_flight()}}, 0,
      "pass.descriptor_pool");
  // One set per frame slot: a slot's set is only updated after the slot's fence was waited.
  std::vector<VkDescriptorSet> sets;
  for (uint32_t i = 0; i < loop.frames_in_flight(); ++i) {
    sets.push_back(scenario::allocate_set(ctx, pool, set_layout, "pass.set." + std::to_string(i)));
  }

  ViewCache cache(ctx);
  PassDescription desc;
  uint32_t resizes = 0;
  for (uint32_t i = 0; i < options.frames; ++i) {
    VkCommandBuffer cmd = loop.begin_frame();
    if (i > 0 && i % resize_every == 0) {
      ++resizes;
      ++desc.generation;
      desc.size = kBaseBytes * (1 + std::min(resizes, kMaxSizeSteps - 1));
    }
    // The regression: the cache is looked up with the full description first. A resized pass
    // misses and gets a new entry, while the old entry (view -> buffer -> memory) is never looked
    // up again; only LRU eviction, 128 resizes later, would release it. The fixed order looks up
    // the pass's entry by name first and drops it when the description changed.
    const Attachment& attachment = cache.get(cache_key(desc), desc.size);

    VkBufferView view = attachment.view;
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = sets[loop.slot()];
    write.dstBinding = 0;
    write.descriptorCount = 1;
    write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER;
    write.pTexelBufferView = &view;
    vkUpdateDescriptorSets(ctx.device, 1, &write, 0, nullptr);

    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout, 0, 1,
                            &sets[loop.slot()], 0, nullptr);
    uint32_t frame = i;
    vkCmdPushConstants(cmd, pipeline_layout, VK_SHADER_STAGE_ALL, 0, sizeof(frame), &frame);
    vkCmdDispatch(cmd, kTexelsWritten / 64, 1, 1);
    loop.end_frame();
  }

  loop.destroy();
  std::fprintf(stderr, "incident2: %u resizes, %zu attachments in the view cache at exit\n",
               resizes, cache.size());
  cache.clear();  // nothing leaks at exit
  vkDestroyDescriptorPool(ctx.device, pool, nullptr);
  vkDestroyPipeline(ctx.device, pipeline, nullptr);
  vkDestroyPipelineLayout(ctx.device, pipeline_layout, nullptr);
  vkDestroyDescriptorSetLayout(ctx.device, set_layout, nullptr);
  vkDestroyShaderModule(ctx.device, shader, nullptr);
  ctx.destroy();
  std::printf("done: %u frames, %u resizes\n", options.frames, resizes);
  return 0;
}
