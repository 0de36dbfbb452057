// Incident 5: the bind-group cache nobody emptied.
//
// A GUI backend draws 4 textures (VkImage 64x64 "texture.image.<i>", its memory
// "texture.memory.<i>", VkImageView "texture.view.<i>", <i> a running texture id) with one sampler
// "texture.sampler". Its BindGroupCache maps each texture view to a combined-image-sampler
// descriptor set "bindgroup.<i>" from the pool "bindgroup.pool"; each frame binds each texture's
// set and dispatches a compute shader that samples it. Every 10 frames the user releases one
// texture: its view and image are destroyed (after the GPU is done with them) and a new texture is
// created, but the cache keeps the old set, which now references a destroyed view (stale). At exit
// the cache is never released: the pool and all its sets are still alive at vkDestroyDevice.
// --free-in-flight: in frame 15 one cached set is freed right after vkQueueSubmit, before any wait.
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

#include "sample_comp.h"
#include "scenario_common.h"

using scenario::Context;

constexpr uint32_t kTextures = 4;
constexpr uint32_t kSize = 64;
constexpr uint32_t kReleaseEvery = 10;
constexpr uint32_t kFreeInFlightFrame = 15;

struct Texture {
  uint32_t id = 0;
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
};

// Creates a texture and records its upload (a clear) and layout transitions into `cmd`.
Texture create_texture(const Context& ctx, VkCommandBuffer cmd, uint32_t id) {
  Texture t;
  t.id = id;
  const std::string suffix = "." + std::to_string(id);
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = VK_FORMAT_R8G8B8A8_UNORM;
  info.extent = {kSize, kSize, 1};
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  VK_CHECK(vkCreateImage(ctx.device, &info, nullptr, &t.image));
  ctx.name(VK_OBJECT_TYPE_IMAGE, t.image, "texture.image" + suffix);
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(ctx.device, t.image, &req);
  t.memory =
      scenario::allocate_memory(ctx, req.size, req.memoryTypeBits, "texture.memory" + suffix);
  VK_CHECK(vkBindImageMemory(ctx.device, t.image, t.memory, 0));

  VkImageViewCreateInfo view_info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  view_info.image = t.image;
  view_info.viewType = VK_IMAGE_VIEW_TYPE_2D;
  view_info.format = info.format;
  view_info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  VK_CHECK(vkCreateImageView(ctx.device, &view_info, nullptr, &t.view));
  ctx.name(VK_OBJECT_TYPE_IMAGE_VIEW, t.view, "texture.view" + suffix);

  VkImageMemoryBarrier barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  barrier.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  barrier.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.image = t.image;
  barrier.subresourceRange = view_info.subresourceRange;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
                       nullptr, 0, nullptr, 1, &barrier);
  float shade = static_cast<float>(id % 8) / 7.0f;
  VkClearColorValue color{{shade, 1.0f - shade, 0.5f, 1.0f}};
  vkCmdClearColorImage(cmd, t.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &color, 1,
                       &barrier.subresourceRange);
  barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
  barrier.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  barrier.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
                       0, nullptr, 0, nullptr, 1, &barrier);
  return t;
}

void destroy_texture(const Context& ctx, Texture& t) {
  vkDestroyImageView(ctx.device, t.view, nullptr);
  vkDestroyImage(ctx.device, t.image, nullptr);
  vkFreeMemory(ctx.device, t.memory, nullptr);
  t = Texture{};
}

// Texture view -> bind group. Keyed by the view's identity (the texture id: handle values are
// reused by the driver). Entries are never removed when a view is released, and the cache is
// never released at shutdown (the bugs).
class BindGroupCache {
 public:
  BindGroupCache(const Context& ctx, VkDescriptorPool pool, VkDescriptorSetLayout layout,
                 VkSampler sampler)
      : ctx_(ctx), pool_(pool), layout_(layout), sampler_(sampler) {}

  // vkAllocateDescriptorSets is called right here: the call site of the leaked sets.
  __attribute__((noinline)) VkDescriptorSet get(const Texture& texture) {
    auto it = sets_.find(texture.id);
    if (it != sets_.end()) return it->second;
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = pool_;
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &layout_;
    VkDescriptorSet set = VK_NULL_HANDLE;
    VK_CHECK(vkAllocateDescriptorSets(ctx_.device, &alloc, &set));
    ctx_.name(VK_OBJECT_TYPE_DESCRIPTOR_SET, set, "bindgroup." + std::to_string(texture.id));
    VkDescriptorImageInfo image_info{sampler_, texture.view,
                                     VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = set;
    write.dstBinding = 0;
    write.descriptorCount = 1;
    write.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    write.pImageInfo = &image_info;
    vkUpdateDescriptorSets(ctx_.device, 1, &write, 0, nullptr);
    sets_.emplace(texture.id, set);
    return set;
  }

  // Frees the texture's set now (the --free-in-flight misuse).
  void free_now(const Texture& texture) {
    auto it = sets_.find(texture.id);
    if (it == sets_.end()) return;
    VK_CHECK(vkFreeDescriptorSets(ctx_.device, pool_, 1, &it->second));
    sets_.erase(it);
  }

  size_t size() const { return sets_.size(); }

 private:
  const Context& ctx_;
  VkDescriptorPool pool_;
  VkDescriptorSetLayout layout_;
  VkSampler sampler_;
  std::unordered_map<uint32_t, VkDescriptorSet> sets_;
};

int main(int argc, char** argv) {
  scenario::Options options("incident5_bindgroup_cache",
                            "A texture-view -> descriptor-set cache that keeps sets of destroyed "
                            "views and is never released at exit.");
  bool free_in_flight = false;
  options.add_flag("--free-in-flight", &free_in_flight,
                   "in frame 15, free one cached set right after vkQueueSubmit, before its fence "
                   "wait");
  options.parse(argc, argv);

  Context ctx({"incident5_bindgroup_cache", options.swapchain});
  scenario::FrameLoop loop(ctx, {options.swapchain});

  VkSamplerCreateInfo sampler_info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  sampler_info.magFilter = VK_FILTER_LINEAR;
  sampler_info.minFilter = VK_FILTER_LINEAR;
  sampler_info.addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  sampler_info.addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  sampler_info.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  VkSampler sampler = VK_NULL_HANDLE;
  VK_CHECK(vkCreateSampler(ctx.device, &sampler_info, nullptr, &sampler));
  ctx.name(VK_OBJECT_TYPE_SAMPLER, sampler, "texture.sampler");

  VkShaderModule shader = scenario::create_shader_module(ctx, sample_comp, "gui.shader");
  VkDescriptorSetLayout bindgroup_layout =
      scenario::create_set_layout(ctx, {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER},
                                  VK_SHADER_STAGE_COMPUTE_BIT, "bindgroup.layout");
  VkDescriptorSetLayout output_layout = scenario::create_set_layout(
      ctx, {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}, VK_SHADER_STAGE_COMPUTE_BIT, "output.layout");
  VkPipelineLayout pipeline_layout = scenario::create_pipeline_layout(
      ctx, {bindgroup_layout, output_layout}, "gui.pipeline_layout", sizeof(uint32_t));
  VkPipeline pipeline =
      scenario::create_compute_pipeline(ctx, pipeline_layout, shader, "gui.pipeline");

  scenario::Buffer output = scenario::create_buffer(
      ctx, kTextures * 4 * sizeof(float), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, "output.texels");
  VkDescriptorPool output_pool = scenario::create_descriptor_pool(
      ctx, 1, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1}}, 0, "output.pool");
  VkDescriptorSet output_set =
      scenario::allocate_set(ctx, output_pool, output_layout, "output.set");
  scenario::write_buffer_descriptor(ctx, output_set, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                    output.buffer);

  // Room for every set the run allocates: the live ones, the stale ones, one re-allocation.
  const uint32_t max_sets = kTextures + options.frames / kReleaseEvery + 2;
  VkDescriptorPool bindgroup_pool = scenario::create_descriptor_pool(
      ctx, max_sets, {{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, max_sets}},
      VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT, "bindgroup.pool");
  BindGroupCache cache(ctx, bindgroup_pool, bindgroup_layout, sampler);

  std::vector<Texture> textures(kTextures);
  uint32_t next_id = 0;
  uint32_t releases = 0;
  for (uint32_t i = 0; i < options.frames; ++i) {
    if (i > 0 && i % kReleaseEvery == 0) {
      // The user releases a texture; the view is destroyed once the GPU is done with it.
      loop.wait_last_submit();
      destroy_texture(ctx, textures[(i / kReleaseEvery - 1) % kTextures]);
      ++releases;
    }
    VkCommandBuffer cmd = loop.begin_frame();
    for (Texture& t : textures) {
      if (t.view == VK_NULL_HANDLE) t = create_texture(ctx, cmd, next_id++);
    }
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout, 1, 1, &output_set,
                            0, nullptr);
    for (uint32_t t = 0; t < kTextures; ++t) {
      VkDescriptorSet set = cache.get(textures[t]);
      vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout, 0, 1, &set, 0,
                              nullptr);
      vkCmdPushConstants(cmd, pipeline_layout, VK_SHADER_STAGE_ALL, 0, sizeof(t), &t);
      vkCmdDispatch(cmd, 1, 1, 1);
    }
    loop.end_frame();
    if (free_in_flight && i == kFreeInFlightFrame) {
      scenario::sleep_ms(50);  // lavapipe is done by now: the misuse must not crash the run
      cache.free_now(textures[0]);
      std::fprintf(stderr,
                   "incident5: freed VkDescriptorSet \"bindgroup.%u\" in frame %u right after "
                   "vkQueueSubmit, before its fence wait\n",
                   textures[0].id, i);
    }
  }

  loop.destroy();
  std::fprintf(stderr,
               "incident5: %u textures released, %zu bind groups cached (%u stale) left alive\n",
               releases, cache.size(), releases);
  for (Texture& t : textures) destroy_texture(ctx, t);
  vkDestroySampler(ctx.device, sampler, nullptr);
  vkDestroyPipeline(ctx.device, pipeline, nullptr);
  vkDestroyPipelineLayout(ctx.device, pipeline_layout, nullptr);
  vkDestroyDescriptorSetLayout(ctx.device, bindgroup_layout, nullptr);
  vkDestroyDescriptorSetLayout(ctx.device, output_layout, nullptr);
  vkDestroyShaderModule(ctx.device, shader, nullptr);
  vkDestroyDescriptorPool(ctx.device, output_pool, nullptr);
  scenario::destroy_buffer(ctx, output);
  // BUG (the incident): the BindGroupCache is never released; bindgroup_pool and its sets are
  // still alive at vkDestroyDevice.
  ctx.destroy();
  std::printf("done: %u frames, %u textures released, %zu bind groups leaked\n", options.frames,
              releases, cache.size());
  return 0;
}
