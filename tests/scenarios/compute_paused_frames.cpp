// Issue 36: the compute program whose verdict depended on the order of objects in a snapshot.
//
// A compute-only program (frames end at submits) that runs c = a + b every frame with one
// descriptor set per frame slot. Three bugs, all deterministic:
//   1. Paused frames (1 in --pause-every, default 4) upload their input through a staging buffer
//      "paused.staging" with its own memory "paused.staging.memory"; after the frame completes the
//      buffer is destroyed but its memory is never freed.
//   2. A paused frame binds a set "paused.set" allocated from a FREE_DESCRIPTOR_SET_BIT pool; it is
//      never freed, and the staging buffer it points at is destroyed (the set dangles).
//   3. A view cache keyed by (image, generation) keeps a view "target.view" of the target image
//      "target"; every --resize-every frames (default 30) the image is re-created and the old one
//      destroyed, but its view stays in the cache until exit.
// At exit the cache is cleared and everything else the program made is destroyed; the staging
// memory is alive at vkDestroyDevice.
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "add_comp.h"
#include "scenario_common.h"

using scenario::Context;

constexpr uint32_t kElements = 256;
constexpr VkDeviceSize kBytes = kElements * sizeof(float);

// The image a resize re-creates, with its memory.
struct Target {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint32_t generation = 0;
};

__attribute__((noinline)) Target create_target(const Context& ctx, uint32_t size,
                                               uint32_t generation) {
  Target t;
  t.generation = generation;
  t.image = scenario::create_image(
      ctx, {size, size}, VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT, "target");
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(ctx.device, t.image, &req);
  t.memory = scenario::allocate_memory(ctx, req.size, req.memoryTypeBits, "target.memory");
  VK_CHECK(vkBindImageMemory(ctx.device, t.image, t.memory, 0));
  return t;
}

void destroy_target(const Context& ctx, Target& t) {
  vkDestroyImage(ctx.device, t.image, nullptr);
  vkFreeMemory(ctx.device, t.memory, nullptr);
  t = Target{};
}

// Views by (image generation): the bug is that a resize never evicts the old generation's view.
class ViewCache {
 public:
  explicit ViewCache(const Context& ctx) : ctx_(ctx) {}

  __attribute__((noinline)) VkImageView get(const Target& t) {
    auto it = views_.find(t.generation);
    if (it != views_.end()) return it->second;
    VkImageView view = scenario::create_image_view(ctx_, t.image, "target.view");
    views_.emplace(t.generation, view);
    return view;
  }

  size_t size() const { return views_.size(); }

  void clear() {
    for (const auto& [generation, view] : views_) vkDestroyImageView(ctx_.device, view, nullptr);
    views_.clear();
  }

 private:
  const Context& ctx_;
  std::map<uint32_t, VkImageView> views_;
};

// The staging upload of a paused frame: the call site of the leaked memory.
__attribute__((noinline)) scenario::Buffer create_staging(const Context& ctx,
                                                          const std::vector<float>& data) {
  scenario::Buffer staging =
      scenario::create_buffer(ctx, kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, "paused.staging");
  scenario::upload(ctx, staging.memory, 0, data.data(), kBytes);
  return staging;
}

__attribute__((noinline)) VkDescriptorSet allocate_paused_set(const Context& ctx,
                                                              VkDescriptorPool pool,
                                                              VkDescriptorSetLayout layout) {
  return scenario::allocate_set(ctx, pool, layout, "paused.set");
}

int main(int argc, char** argv) {
  scenario::Options options("compute_paused_frames",
                            "A compute loop with three deterministic bugs: staging memory leaked "
                            "on paused frames, their descriptor sets never freed, and a view cache "
                            "keeping views of images destroyed on resize.");
  uint32_t pause_every = 4;
  uint32_t resize_every = 30;
  options.add_uint("--pause-every", &pause_every, "every Nth frame is paused (default 4)");
  options.add_uint("--resize-every", &resize_every,
                   "re-create the target image every N frames (default 30)");
  options.parse(argc, argv);
  if (pause_every == 0 || resize_every == 0) scenario::fail("intervals must be at least 1");

  Context ctx({"compute_paused_frames", false});
  scenario::FrameLoop loop(ctx, {false});

  VkShaderModule shader = scenario::create_shader_module(ctx, add_comp, "add.shader");
  const VkDescriptorType storage = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  VkDescriptorSetLayout set_layout = scenario::create_set_layout(
      ctx, {storage, storage, storage}, VK_SHADER_STAGE_COMPUTE_BIT, "add.set_layout");
  VkPipelineLayout pipeline_layout =
      scenario::create_pipeline_layout(ctx, {set_layout}, "add.pipeline_layout");
  VkPipeline pipeline =
      scenario::create_compute_pipeline(ctx, pipeline_layout, shader, "add.pipeline");

  std::vector<float> input(kElements);
  for (uint32_t i = 0; i < kElements; ++i) input[i] = static_cast<float>(i);
  scenario::Buffer a =
      scenario::create_buffer(ctx, kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, "a");
  scenario::Buffer b =
      scenario::create_buffer(ctx, kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, "b");
  scenario::Buffer c =
      scenario::create_buffer(ctx, kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, "c");
  scenario::upload(ctx, a.memory, 0, input.data(), kBytes);
  scenario::upload(ctx, b.memory, 0, input.data(), kBytes);

  // The slots' sets, from a pool of their own.
  const uint32_t slots = loop.frames_in_flight();
  VkDescriptorPool slot_pool =
      scenario::create_descriptor_pool(ctx, slots, {{storage, 3 * slots}}, 0, "slot.pool");
  std::vector<VkDescriptorSet> slot_sets;
  for (uint32_t s = 0; s < slots; ++s) {
    VkDescriptorSet set =
        scenario::allocate_set(ctx, slot_pool, set_layout, "slot.set." + std::to_string(s));
    scenario::write_buffer_descriptor(ctx, set, 0, storage, a.buffer);
    scenario::write_buffer_descriptor(ctx, set, 1, storage, b.buffer);
    scenario::write_buffer_descriptor(ctx, set, 2, storage, c.buffer);
    slot_sets.push_back(set);
  }
  // The paused frames' sets: one per paused frame, freeable (the bug: never freed).
  const uint32_t paused_frames = options.frames / pause_every + 1;
  VkDescriptorPool paused_pool = scenario::create_descriptor_pool(
      ctx, paused_frames, {{storage, 3 * paused_frames}},
      VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT, "paused.pool");

  ViewCache cache(ctx);
  Target target = create_target(ctx, 32, 0);
  uint32_t resizes = 0, paused = 0;
  for (uint32_t i = 0; i < options.frames; ++i) {
    if (i > 0 && i % resize_every == 0) {
      // Re-created at a new size: the old image goes, its cached view stays (the bug).
      loop.wait_last_submit();
      destroy_target(ctx, target);
      ++resizes;
      target = create_target(ctx, 32 + 4 * (resizes % 8), resizes);
    }
    cache.get(target);

    VkCommandBuffer cmd = loop.begin_frame();
    const bool pause = i % pause_every == pause_every - 1;
    VkDescriptorSet set = slot_sets[loop.slot()];
    scenario::Buffer staging;
    if (pause) {
      ++paused;
      staging = create_staging(ctx, input);
      set = allocate_paused_set(ctx, paused_pool, set_layout);
      scenario::write_buffer_descriptor(ctx, set, 0, storage, staging.buffer);
      scenario::write_buffer_descriptor(ctx, set, 1, storage, b.buffer);
      scenario::write_buffer_descriptor(ctx, set, 2, storage, c.buffer);
    }
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout, 0, 1, &set, 0,
                            nullptr);
    vkCmdDispatch(cmd, kElements / 64, 1, 1);
    loop.end_frame();
    if (pause) {
      // The upload is done once the frame is: the buffer goes, its memory and set stay (bugs).
      loop.wait_last_submit();
      vkDestroyBuffer(ctx.device, staging.buffer, nullptr);
    }
  }

  loop.destroy();
  std::fprintf(stderr, "compute_paused_frames: %u paused frames, %u resizes, %zu cached views\n",
               paused, resizes, cache.size());
  cache.clear();
  destroy_target(ctx, target);
  vkDestroyDescriptorPool(ctx.device, paused_pool, nullptr);
  vkDestroyDescriptorPool(ctx.device, slot_pool, nullptr);
  scenario::destroy_buffer(ctx, a);
  scenario::destroy_buffer(ctx, b);
  scenario::destroy_buffer(ctx, c);
  vkDestroyPipeline(ctx.device, pipeline, nullptr);
  vkDestroyPipelineLayout(ctx.device, pipeline_layout, nullptr);
  vkDestroyDescriptorSetLayout(ctx.device, set_layout, nullptr);
  vkDestroyShaderModule(ctx.device, shader, nullptr);
  ctx.destroy();
  std::printf("done: %u frames, %u paused, %u resizes\n", options.frames, paused, resizes);
  return 0;
}
