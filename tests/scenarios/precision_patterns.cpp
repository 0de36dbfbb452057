// Precision patterns (issue 25, "every finding true"): correct programs whose resource lifetimes
// look like leaks to a naive analysis. vkleak must report nothing on any of them. With
// --plant-leak each hides exactly one real leak among its correct objects, which vkleak must find
// (and rank first). --pattern picks the program:
//
//  resize_targets  colour, depth and post-processing render targets (the post target with a mip
//                  chain and a view per mip) re-created larger every --resize-every frames and
//                  retired through a deferred deletion queue; first made at start-up by another
//                  call site. Planted: the retired depth view is never destroyed (its image is).
//  emitters        particle emitters (a buffer each) spawned every 17 frames, living 40-90 frames.
//                  Planted: every 3rd emitter is dropped without being destroyed.
//  texture_cache   an LRU texture cache with a byte budget, filled by a loading screen; textures
//                  idle out of view and come back; evicted descriptor sets wait on a free list,
//                  still pointing at their destroyed views, until reused and rewritten. Planted:
//                  eviction destroys the view but never the image.
//  deletion_queue  per-frame transient buffers and descriptor sets destroyed 3 frames later,
//                  per-frame descriptor pools reset every frame. Planted: every 7th frame one
//                  transient is never queued for deletion.
//  buffer_factory  one make_buffer() makes every buffer: placeholders used rarely or never,
//                  long-lived scene buffers, per-frame transients. Planted: every 13th frame's
//                  draw buffer is never destroyed.
//  job_plateau     a compute job system (no presents) whose pool of job buffers grows by 8 on
//                  demand at frames ~30, 60, 90, then is reused round-robin. Planted: every 23rd
//                  job leaks its staging buffer.
//
// Descriptor-set patterns (issue 36: sets in pools that live until exit; each program destroys its
// pools at exit, so a set leak shows only during the run). Planted: one line changed.
//  rare_path_sets  per-frame sets and, on paused frames (1 in 4), an overlay's set, from a
//                  FREE_DESCRIPTOR_SET_BIT pool, freed with their buffers once the frame completed.
//                  Planted: the overlay's set is never freed (its buffer is destroyed).
//  webgpu_bindgroups  a WebGPU-style allocator that allocates every set of a pool up front, hands
//                  them out from its own free list and grows by pools, under a bind-group cache
//                  keyed by texture view; a texture is replaced every 8 frames (--replace-every),
//                  8 sets a pool (--sets-per-pool). Planted: the cache never evicts (pools 1 -> 2
//                  -> ..., sets pointing at destroyed views).
//  gallery         a bind group per image view in one long-lived pool; the gallery scrolls every 6
//                  frames. Planted: a scrolled-out image's set is never freed.
//  job_batches     a batch of 3 jobs every 5 frames, their sets from a second pool (pools 1 -> 2).
//                  Planted: each batch's reduce set is never freed.
//  scene_cache     a scene every 32 frames, its set in a scene cache. Planted: entries never
//  erased.
//
// Three frames in flight everywhere; objects a frame used are destroyed once that frame's fence was
// waited (the deferred deletion queue). Every object leaked by --plant-leak is announced on stderr
// as `plant-leak: <VkType> <debug name>` (the tests read these lines).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "fill_comp.h"
#include "sample_comp.h"
#include "scenario_common.h"

using scenario::Context;
using scenario::FrameLoop;

constexpr uint32_t kFramesInFlight = 3;

// ---------------------------------------------------------------------------------------------
// Shared by the patterns

// Deterministic pseudo-random numbers (xorshift32): the runs are the same every time.
struct Rng {
  uint32_t state;
  uint32_t next() {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  }
  uint32_t range(uint32_t lo, uint32_t hi) { return lo + next() % (hi - lo + 1); }  // inclusive
};

// Deferred deletion: an entry runs once the frame that last used its objects has completed. At
// the start of frame F (after FrameLoop waited the slot's fence, that of frame F - 3) every frame
// up to F - kFramesInFlight has completed.
class DeletionQueue {
 public:
  void push(uint64_t last_use_frame, std::function<void()> destroy) {
    entries_.push_back({last_use_frame, std::move(destroy)});
  }
  void flush(const FrameLoop& loop) {
    const uint64_t now = loop.frame();
    while (!entries_.empty() && entries_.front().last_use + kFramesInFlight <= now) {
      entries_.front().destroy();
      entries_.pop_front();
    }
  }
  // After a wait for idle.
  void flush_all() {
    for (Entry& e : entries_) e.destroy();
    entries_.clear();
  }

 private:
  struct Entry {
    uint64_t last_use;
    std::function<void()> destroy;
  };
  // Mostly in order of last_use; an entry behind a later one waits for it (later, never early).
  std::deque<Entry> entries_;
};

void planted(const char* type, const std::string& name) {
  std::fprintf(stderr, "plant-leak: %s %s\n", type, name.c_str());
}

std::string numbered(const std::string& prefix, uint64_t n, const std::string& suffix = "") {
  return prefix + std::to_string(n) + suffix;
}

// The fill.comp pipeline (set 0: one storage buffer; push constant: the value written).
struct FillPipeline {
  VkShaderModule shader = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
};

FillPipeline create_fill_pipeline(const Context& ctx, const std::string& prefix) {
  FillPipeline p;
  p.shader = scenario::create_shader_module(ctx, fill_comp, prefix + ".shader");
  p.set_layout = scenario::create_set_layout(ctx, {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER},
                                             VK_SHADER_STAGE_COMPUTE_BIT, prefix + ".set_layout");
  p.layout = scenario::create_pipeline_layout(ctx, {p.set_layout}, prefix + ".pipeline_layout",
                                              sizeof(uint32_t));
  p.pipeline = scenario::create_compute_pipeline(ctx, p.layout, p.shader, prefix + ".pipeline");
  return p;
}

void destroy_fill_pipeline(const Context& ctx, FillPipeline& p) {
  vkDestroyPipeline(ctx.device, p.pipeline, nullptr);
  vkDestroyPipelineLayout(ctx.device, p.layout, nullptr);
  vkDestroyDescriptorSetLayout(ctx.device, p.set_layout, nullptr);
  vkDestroyShaderModule(ctx.device, p.shader, nullptr);
  p = FillPipeline{};
}

// Writes `value` over a storage buffer of `bytes` bytes through `set` (bound to it).
void record_fill(VkCommandBuffer cmd, const FillPipeline& p, VkDescriptorSet set,
                 VkDeviceSize bytes, uint32_t value) {
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &set, 0, nullptr);
  vkCmdPushConstants(cmd, p.layout, VK_SHADER_STAGE_ALL, 0, sizeof(value), &value);
  vkCmdDispatch(cmd, static_cast<uint32_t>(std::max<VkDeviceSize>(bytes / 4 / 64, 1)), 1, 1);
}

// The sample.comp pipeline (set 0: a combined image sampler; set 1: the output storage buffer).
struct SamplePipeline {
  VkShaderModule shader = VK_NULL_HANDLE;
  VkDescriptorSetLayout texture_layout = VK_NULL_HANDLE;
  VkDescriptorSetLayout output_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
};

SamplePipeline create_sample_pipeline(const Context& ctx, const std::string& prefix) {
  SamplePipeline p;
  p.shader = scenario::create_shader_module(ctx, sample_comp, prefix + ".shader");
  p.texture_layout =
      scenario::create_set_layout(ctx, {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER},
                                  VK_SHADER_STAGE_COMPUTE_BIT, prefix + ".texture_layout");
  p.output_layout =
      scenario::create_set_layout(ctx, {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER},
                                  VK_SHADER_STAGE_COMPUTE_BIT, prefix + ".output_layout");
  p.layout = scenario::create_pipeline_layout(ctx, {p.texture_layout, p.output_layout},
                                              prefix + ".pipeline_layout", sizeof(uint32_t));
  p.pipeline = scenario::create_compute_pipeline(ctx, p.layout, p.shader, prefix + ".pipeline");
  return p;
}

void destroy_sample_pipeline(const Context& ctx, SamplePipeline& p) {
  vkDestroyPipeline(ctx.device, p.pipeline, nullptr);
  vkDestroyPipelineLayout(ctx.device, p.layout, nullptr);
  vkDestroyDescriptorSetLayout(ctx.device, p.output_layout, nullptr);
  vkDestroyDescriptorSetLayout(ctx.device, p.texture_layout, nullptr);
  vkDestroyShaderModule(ctx.device, p.shader, nullptr);
  p = SamplePipeline{};
}

// Samples the texture of `texture_set` into element `index` of the buffer of `output_set`.
void record_sample(VkCommandBuffer cmd, const SamplePipeline& p, VkDescriptorSet texture_set,
                   VkDescriptorSet output_set, uint32_t index) {
  VkDescriptorSet sets[] = {texture_set, output_set};
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 2, sets, 0, nullptr);
  vkCmdPushConstants(cmd, p.layout, VK_SHADER_STAGE_ALL, 0, sizeof(index), &index);
  vkCmdDispatch(cmd, 1, 1, 1);
}

void write_image_descriptor(const Context& ctx, VkDescriptorSet set, VkImageView view,
                            VkSampler sampler) {
  VkDescriptorImageInfo image{sampler, view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  write.dstSet = set;
  write.dstBinding = 0;
  write.descriptorCount = 1;
  write.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  write.pImageInfo = &image;
  vkUpdateDescriptorSets(ctx.device, 1, &write, 0, nullptr);
}

VkSampler create_linear_sampler(const Context& ctx, const std::string& name) {
  VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  info.magFilter = VK_FILTER_LINEAR;
  info.minFilter = VK_FILTER_LINEAR;
  info.mipmapMode = VK_SAMPLER_MIPMAP_MODE_LINEAR;
  info.addressModeU = info.addressModeV = info.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  info.maxLod = VK_LOD_CLAMP_NONE;
  VkSampler sampler = VK_NULL_HANDLE;
  VK_CHECK(vkCreateSampler(ctx.device, &info, nullptr, &sampler));
  ctx.name(VK_OBJECT_TYPE_SAMPLER, sampler, name);
  return sampler;
}

void compute_to_compute_barrier(VkCommandBuffer cmd, VkAccessFlags src,
                                VkPipelineStageFlags src_stage) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = src;
  barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  vkCmdPipelineBarrier(cmd, src_stage, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0,
                       nullptr, 0, nullptr);
}

// ---------------------------------------------------------------------------------------------
// resize_targets

struct Target {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;  // all mip levels
};

struct RenderTargets {
  uint32_t generation = 0;
  VkExtent2D extent{};
  Target color, depth, post;
  uint32_t post_mips = 0;
  std::vector<VkImageView> post_mip_views;  // one per mip level of post
  VkFramebuffer scene_fb = VK_NULL_HANDLE;  // color + depth
  std::vector<VkFramebuffer> post_fbs;      // one per mip level of post
};

struct TargetPasses {
  VkRenderPass scene = VK_NULL_HANDLE;  // color + depth, cleared
  VkRenderPass post = VK_NULL_HANDLE;   // one color attachment, left SHADER_READ_ONLY_OPTIMAL
  VkFormat depth_format = VK_FORMAT_UNDEFINED;
};

constexpr VkFormat kColorFormat = VK_FORMAT_R8G8B8A8_UNORM;
constexpr uint32_t kMaxPostMips = 6;  // a bloom chain

VkRenderPass create_target_pass(const Context& ctx, bool with_depth, VkFormat depth_format,
                                const std::string& name) {
  VkAttachmentDescription attachments[2]{};
  attachments[0].format = kColorFormat;
  attachments[0].samples = VK_SAMPLE_COUNT_1_BIT;
  attachments[0].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  attachments[0].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  attachments[0].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  attachments[0].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  attachments[0].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  attachments[0].finalLayout = with_depth ? VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL
                                          : VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
  attachments[1] = attachments[0];
  attachments[1].format = depth_format;
  attachments[1].storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  attachments[1].finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
  VkAttachmentReference color_ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkAttachmentReference depth_ref{1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  VkSubpassDescription subpass{};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpass.colorAttachmentCount = 1;
  subpass.pColorAttachments = &color_ref;
  subpass.pDepthStencilAttachment = with_depth ? &depth_ref : nullptr;
  // The post chain is sampled by the exposure probe (compute) after the pass.
  VkSubpassDependency dependency{};
  dependency.srcSubpass = 0;
  dependency.dstSubpass = VK_SUBPASS_EXTERNAL;
  dependency.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  dependency.dstStageMask = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  dependency.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  dependency.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
  VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  info.attachmentCount = with_depth ? 2 : 1;
  info.pAttachments = attachments;
  info.subpassCount = 1;
  info.pSubpasses = &subpass;
  info.dependencyCount = with_depth ? 0 : 1;
  info.pDependencies = &dependency;
  VkRenderPass pass = VK_NULL_HANDLE;
  VK_CHECK(vkCreateRenderPass(ctx.device, &info, nullptr, &pass));
  ctx.name(VK_OBJECT_TYPE_RENDER_PASS, pass, name);
  return pass;
}

VkFormat pick_depth_format(const Context& ctx) {
  for (VkFormat format : {VK_FORMAT_D32_SFLOAT, VK_FORMAT_D16_UNORM}) {
    VkFormatProperties props;
    vkGetPhysicalDeviceFormatProperties(ctx.physical_device, format, &props);
    if (props.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT) return format;
  }
  scenario::fail("no depth attachment format");
}

// Every render target of one size. The Vulkan calls are made right here so that the call site of
// each image, memory, view and framebuffer is this function (called from init_renderer at
// start-up and from resize_render_targets on each resize).
__attribute__((noinline)) RenderTargets create_render_targets(const Context& ctx,
                                                              const TargetPasses& passes,
                                                              VkExtent2D extent,
                                                              uint32_t generation) {
  RenderTargets rt;
  rt.generation = generation;
  rt.extent = extent;
  uint32_t mips = 1;
  while (mips < kMaxPostMips && (std::max(extent.width, extent.height) >> mips) >= 8) ++mips;
  rt.post_mips = mips;
  const std::string g = std::to_string(generation);
  struct Desc {
    Target* target;
    std::string name;
    VkFormat format;
    VkImageUsageFlags usage;
    VkImageAspectFlags aspect;
    uint32_t mips;
  };
  const Desc descs[] = {
      {&rt.color, "rt.color." + g, kColorFormat,
       VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
       VK_IMAGE_ASPECT_COLOR_BIT, 1},
      {&rt.depth, "rt.depth." + g, passes.depth_format, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
       VK_IMAGE_ASPECT_DEPTH_BIT, 1},
      {&rt.post, "rt.post." + g, kColorFormat,
       VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT, VK_IMAGE_ASPECT_COLOR_BIT,
       mips},
  };
  for (const Desc& d : descs) {
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = d.format;
    info.extent = {extent.width, extent.height, 1};
    info.mipLevels = d.mips;
    info.arrayLayers = 1;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = d.usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VK_CHECK(vkCreateImage(ctx.device, &info, nullptr, &d.target->image));
    ctx.name(VK_OBJECT_TYPE_IMAGE, d.target->image, d.name);
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(ctx.device, d.target->image, &req);
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex =
        ctx.find_memory_type(req.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    VK_CHECK(vkAllocateMemory(ctx.device, &alloc, nullptr, &d.target->memory));
    ctx.name(VK_OBJECT_TYPE_DEVICE_MEMORY, d.target->memory, d.name + ".memory");
    VK_CHECK(vkBindImageMemory(ctx.device, d.target->image, d.target->memory, 0));
    VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    view.image = d.target->image;
    view.viewType = VK_IMAGE_VIEW_TYPE_2D;
    view.format = d.format;
    view.subresourceRange = {d.aspect, 0, d.mips, 0, 1};
    VK_CHECK(vkCreateImageView(ctx.device, &view, nullptr, &d.target->view));
    ctx.name(VK_OBJECT_TYPE_IMAGE_VIEW, d.target->view, d.name + ".view");
  }
  for (uint32_t m = 0; m < mips; ++m) {
    VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    view.image = rt.post.image;
    view.viewType = VK_IMAGE_VIEW_TYPE_2D;
    view.format = kColorFormat;
    view.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, m, 1, 0, 1};
    VkImageView mip_view = VK_NULL_HANDLE;
    VK_CHECK(vkCreateImageView(ctx.device, &view, nullptr, &mip_view));
    ctx.name(VK_OBJECT_TYPE_IMAGE_VIEW, mip_view, "rt.post." + g + ".mip." + std::to_string(m));
    rt.post_mip_views.push_back(mip_view);
  }
  VkImageView scene_views[] = {rt.color.view, rt.depth.view};
  VkFramebufferCreateInfo fb{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  fb.renderPass = passes.scene;
  fb.attachmentCount = 2;
  fb.pAttachments = scene_views;
  fb.width = extent.width;
  fb.height = extent.height;
  fb.layers = 1;
  VK_CHECK(vkCreateFramebuffer(ctx.device, &fb, nullptr, &rt.scene_fb));
  ctx.name(VK_OBJECT_TYPE_FRAMEBUFFER, rt.scene_fb, "rt.scene_fb." + g);
  for (uint32_t m = 0; m < mips; ++m) {
    fb.renderPass = passes.post;
    fb.attachmentCount = 1;
    fb.pAttachments = &rt.post_mip_views[m];
    fb.width = std::max(extent.width >> m, 1u);
    fb.height = std::max(extent.height >> m, 1u);
    VkFramebuffer post_fb = VK_NULL_HANDLE;
    VK_CHECK(vkCreateFramebuffer(ctx.device, &fb, nullptr, &post_fb));
    ctx.name(VK_OBJECT_TYPE_FRAMEBUFFER, post_fb, "rt.post_fb." + g + ".mip." + std::to_string(m));
    rt.post_fbs.push_back(post_fb);
  }
  return rt;
}

// Teardown (and the model of a correct retirement): everything of `rt`.
void destroy_render_targets(const Context& ctx, RenderTargets& rt) {
  for (VkFramebuffer fb : rt.post_fbs) vkDestroyFramebuffer(ctx.device, fb, nullptr);
  vkDestroyFramebuffer(ctx.device, rt.scene_fb, nullptr);
  for (VkImageView v : rt.post_mip_views) vkDestroyImageView(ctx.device, v, nullptr);
  for (Target* t : {&rt.color, &rt.depth, &rt.post}) {
    vkDestroyImageView(ctx.device, t->view, nullptr);
    vkDestroyImage(ctx.device, t->image, nullptr);
    vkFreeMemory(ctx.device, t->memory, nullptr);
  }
  rt = RenderTargets{};
}

// The resize path's deferred deletion of the old targets, once their last frame completed. With
// --plant-leak it forgets the depth view (its image and memory go): a view of a destroyed image,
// alive until exit.
void retire_render_targets(const Context& ctx, RenderTargets old, bool plant_leak) {
  for (VkFramebuffer fb : old.post_fbs) vkDestroyFramebuffer(ctx.device, fb, nullptr);
  vkDestroyFramebuffer(ctx.device, old.scene_fb, nullptr);
  for (VkImageView v : old.post_mip_views) vkDestroyImageView(ctx.device, v, nullptr);
  vkDestroyImageView(ctx.device, old.color.view, nullptr);
  if (plant_leak) {
    planted("VkImageView", "rt.depth." + std::to_string(old.generation) + ".view");
  } else {
    vkDestroyImageView(ctx.device, old.depth.view, nullptr);
  }
  vkDestroyImageView(ctx.device, old.post.view, nullptr);
  for (Target* t : {&old.color, &old.depth, &old.post}) {
    vkDestroyImage(ctx.device, t->image, nullptr);
    vkFreeMemory(ctx.device, t->memory, nullptr);
  }
}

__attribute__((noinline)) RenderTargets init_renderer(const Context& ctx,
                                                      const TargetPasses& passes,
                                                      VkExtent2D extent) {
  return create_render_targets(ctx, passes, extent, 0);
}

// Makes the targets for `extent` and queues the old ones for deletion after `last_use_frame`.
__attribute__((noinline)) void resize_render_targets(const Context& ctx, const TargetPasses& passes,
                                                     VkExtent2D extent, RenderTargets& targets,
                                                     DeletionQueue& deletions,
                                                     uint64_t last_use_frame, bool plant_leak) {
  RenderTargets old = targets;
  targets = create_render_targets(ctx, passes, extent, old.generation + 1);
  deletions.push(last_use_frame,
                 [&ctx, old, plant_leak]() { retire_render_targets(ctx, old, plant_leak); });
}

int run_resize_targets(Context& ctx, FrameLoop& loop, uint32_t frames, uint32_t resize_every,
                       bool plant_leak) {
  TargetPasses passes;
  passes.depth_format = pick_depth_format(ctx);
  passes.scene = create_target_pass(ctx, true, passes.depth_format, "rt.scene_pass");
  passes.post = create_target_pass(ctx, false, passes.depth_format, "rt.post_pass");
  SamplePipeline probe = create_sample_pipeline(ctx, "rt.exposure");
  VkSampler sampler = create_linear_sampler(ctx, "rt.sampler");
  scenario::Buffer exposure = scenario::create_buffer(
      ctx, 16 * kFramesInFlight * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, "rt.exposure");
  VkDescriptorPool pool = scenario::create_descriptor_pool(
      ctx, kFramesInFlight + 1,
      {{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, kFramesInFlight},
       {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1}},
      0, "rt.descriptor_pool");
  VkDescriptorSet output_set =
      scenario::allocate_set(ctx, pool, probe.output_layout, "rt.exposure.set");
  scenario::write_buffer_descriptor(ctx, output_set, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                    exposure.buffer);
  // One sampling set per frame slot, rewritten (after the slot's fence wait) when the targets
  // changed since its last frame.
  std::vector<VkDescriptorSet> post_sets;
  std::vector<uint32_t> post_set_generation(kFramesInFlight, UINT32_MAX);
  for (uint32_t i = 0; i < kFramesInFlight; ++i) {
    post_sets.push_back(
        scenario::allocate_set(ctx, pool, probe.texture_layout, numbered("rt.post_set.", i)));
  }

  VkExtent2D extent{128, 96};
  RenderTargets targets = init_renderer(ctx, passes, extent);
  DeletionQueue deletions;
  uint32_t resizes = 0;
  for (uint32_t i = 0; i < frames; ++i) {
    VkCommandBuffer cmd = loop.begin_frame();
    const uint32_t slot = loop.slot();
    if (i > 0 && i % resize_every == 0) {  // the window (or the render scale) grew
      extent = {extent.width + 16, extent.height + 12};
      resize_render_targets(ctx, passes, extent, targets, deletions, loop.frame() - 1, plant_leak);
      ++resizes;
    }
    if (post_set_generation[slot] != targets.generation) {
      write_image_descriptor(ctx, post_sets[slot], targets.post.view, sampler);
      post_set_generation[slot] = targets.generation;
    }
    deletions.flush(loop);

    VkClearValue clears[2];
    clears[0].color = {{0.1f, 0.2f, 0.3f, 1.0f}};
    clears[1].depthStencil = {1.0f, 0};
    VkRenderPassBeginInfo begin{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    begin.renderPass = passes.scene;
    begin.framebuffer = targets.scene_fb;
    begin.renderArea = {{0, 0}, targets.extent};
    begin.clearValueCount = 2;
    begin.pClearValues = clears;
    vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
    vkCmdEndRenderPass(cmd);
    for (uint32_t m = 0; m < targets.post_mips; ++m) {  // bloom down-sample chain
      clears[0].color = {{0.5f / static_cast<float>(m + 1), 0.0f, 0.0f, 1.0f}};
      begin.renderPass = passes.post;
      begin.framebuffer = targets.post_fbs[m];
      begin.renderArea = {
          {0, 0},
          {std::max(targets.extent.width >> m, 1u), std::max(targets.extent.height >> m, 1u)}};
      begin.clearValueCount = 1;
      vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
      vkCmdEndRenderPass(cmd);
    }
    record_sample(cmd, probe, post_sets[slot], output_set, slot);
    loop.end_frame();
  }

  loop.destroy();
  deletions.flush_all();
  destroy_render_targets(ctx, targets);
  vkDestroyDescriptorPool(ctx.device, pool, nullptr);
  scenario::destroy_buffer(ctx, exposure);
  vkDestroySampler(ctx.device, sampler, nullptr);
  destroy_sample_pipeline(ctx, probe);
  vkDestroyRenderPass(ctx.device, passes.post, nullptr);
  vkDestroyRenderPass(ctx.device, passes.scene, nullptr);
  std::fprintf(stderr, "resize_targets: %u resizes, final %ux%u\n", resizes, extent.width,
               extent.height);
  return static_cast<int>(resizes);
}

// ---------------------------------------------------------------------------------------------
// emitters

constexpr uint32_t kSpawnEvery = 17;
constexpr uint32_t kEmitterLeakEvery = 3;
constexpr VkDeviceSize kParticleBytes = 32;

struct Emitter {
  uint32_t id = 0;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize bytes = 0;
  uint64_t dies = 0;  // first frame it is no longer simulated
};

__attribute__((noinline)) Emitter spawn_emitter(const Context& ctx, uint32_t id, uint32_t particles,
                                                uint64_t dies) {
  Emitter e;
  e.id = id;
  e.bytes = particles * kParticleBytes;
  e.dies = dies;
  const std::string name = numbered("emitter.", id);
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = e.bytes;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
               VK_BUFFER_USAGE_VERTEX_BUFFER_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VK_CHECK(vkCreateBuffer(ctx.device, &info, nullptr, &e.buffer));
  ctx.name(VK_OBJECT_TYPE_BUFFER, e.buffer, name);
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(ctx.device, e.buffer, &req);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex =
      ctx.find_memory_type(req.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  VK_CHECK(vkAllocateMemory(ctx.device, &alloc, nullptr, &e.memory));
  ctx.name(VK_OBJECT_TYPE_DEVICE_MEMORY, e.memory, name + ".memory");
  VK_CHECK(vkBindBufferMemory(ctx.device, e.buffer, e.memory, 0));
  return e;
}

void destroy_emitter(const Context& ctx, const Emitter& e) {
  vkDestroyBuffer(ctx.device, e.buffer, nullptr);
  vkFreeMemory(ctx.device, e.memory, nullptr);
}

int run_emitters(Context& ctx, FrameLoop& loop, uint32_t frames, bool plant_leak) {
  Rng rng{0x9e3779b9u};
  std::vector<Emitter> alive;
  DeletionQueue deletions;
  uint32_t spawned = 0, peak = 0, leaked = 0;
  for (uint32_t i = 0; i < frames; ++i) {
    VkCommandBuffer cmd = loop.begin_frame();
    const uint64_t frame = loop.frame();
    // Expired emitters were last simulated in the previous frame.
    for (auto it = alive.begin(); it != alive.end();) {
      if (it->dies > frame) {
        ++it;
        continue;
      }
      if (plant_leak && it->id % kEmitterLeakEvery == kEmitterLeakEvery - 1) {
        // The bug: an emitter whose owner entity died first is detached, and the detached list is
        // dropped without destroying its emitters.
        planted("VkBuffer", numbered("emitter.", it->id));
        planted("VkDeviceMemory", numbered("emitter.", it->id, ".memory"));
        ++leaked;
      } else {
        Emitter e = *it;
        deletions.push(frame - 1, [&ctx, e]() { destroy_emitter(ctx, e); });
      }
      it = alive.erase(it);
    }
    deletions.flush(loop);
    if (i % kSpawnEvery == 0) {
      const uint32_t lifetime = rng.range(40, 90);
      alive.push_back(spawn_emitter(ctx, spawned++, rng.range(512, 2048), frame + lifetime));
    }
    peak = std::max(peak, static_cast<uint32_t>(alive.size()));
    for (const Emitter& e : alive) {  // simulate
      vkCmdFillBuffer(cmd, e.buffer, 0, VK_WHOLE_SIZE, i * 2654435761u + e.id);
    }
    loop.end_frame();
  }
  loop.destroy();
  for (const Emitter& e : alive) destroy_emitter(ctx, e);
  deletions.flush_all();
  std::fprintf(stderr, "emitters: %u spawned, at most %u alive, %u leaked\n", spawned, peak,
               leaked);
  return static_cast<int>(spawned);
}

// ---------------------------------------------------------------------------------------------
// texture_cache

constexpr uint32_t kAssets = 32;  // 0, 1: always visible; zone z: 2 + 3z .. 4 + 3z
constexpr uint32_t kZones = 10;
constexpr VkDeviceSize kTextureBudget = 320 * 1024;
constexpr uint32_t kMaterialSets = 32;
static_assert(4 + 3 * (kZones - 1) < kAssets, "zone assets");

struct Texture {
  uint32_t asset = 0;
  uint32_t serial = 0;  // the load's number: names are tex.<serial>
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
  VkDescriptorSet set = VK_NULL_HANDLE;
  VkDeviceSize bytes = 0;
  uint64_t last_used = 0;
};

uint32_t texture_size(uint32_t asset) {
  return asset % 3 == 0 ? 128 : 64;
}

void image_barrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to,
                   VkAccessFlags src_access, VkAccessFlags dst_access, VkPipelineStageFlags src,
                   VkPipelineStageFlags dst) {
  VkImageMemoryBarrier barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  barrier.srcAccessMask = src_access;
  barrier.dstAccessMask = dst_access;
  barrier.oldLayout = from;
  barrier.newLayout = to;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.image = image;
  barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdPipelineBarrier(cmd, src, dst, 0, 0, nullptr, 0, nullptr, 1, &barrier);
}

// Creates the texture of `asset` (image, memory, view) and records its upload from a staging
// buffer into `cmd`; the staging buffer is destroyed once `frame` completed. Vulkan is called right
// here: the call site of every texture is this function (from the loading screen's
// TextureCache::preload, or from TextureCache::get while streaming).
__attribute__((noinline)) Texture load_texture(const Context& ctx, uint32_t asset, uint32_t serial,
                                               VkCommandBuffer cmd, DeletionQueue& deletions,
                                               uint64_t frame, const std::string& prefix = "tex.") {
  Texture t;
  t.asset = asset;
  t.serial = serial;
  const std::string name = numbered(prefix, serial);
  const uint32_t size = texture_size(asset);
  t.bytes = VkDeviceSize{size} * size * 4;

  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = VK_FORMAT_R8G8B8A8_UNORM;
  info.extent = {size, size, 1};
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  VK_CHECK(vkCreateImage(ctx.device, &info, nullptr, &t.image));
  ctx.name(VK_OBJECT_TYPE_IMAGE, t.image, name);
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(ctx.device, t.image, &req);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex =
      ctx.find_memory_type(req.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  VK_CHECK(vkAllocateMemory(ctx.device, &alloc, nullptr, &t.memory));
  ctx.name(VK_OBJECT_TYPE_DEVICE_MEMORY, t.memory, name + ".memory");
  VK_CHECK(vkBindImageMemory(ctx.device, t.image, t.memory, 0));
  VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  view.image = t.image;
  view.viewType = VK_IMAGE_VIEW_TYPE_2D;
  view.format = VK_FORMAT_R8G8B8A8_UNORM;
  view.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  VK_CHECK(vkCreateImageView(ctx.device, &view, nullptr, &t.view));
  ctx.name(VK_OBJECT_TYPE_IMAGE_VIEW, t.view, name + ".view");

  VkBufferCreateInfo staging_info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  staging_info.size = t.bytes;
  staging_info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  staging_info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer staging = VK_NULL_HANDLE;
  VK_CHECK(vkCreateBuffer(ctx.device, &staging_info, nullptr, &staging));
  ctx.name(VK_OBJECT_TYPE_BUFFER, staging, name + ".staging");
  vkGetBufferMemoryRequirements(ctx.device, staging, &req);
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex =
      ctx.find_memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  VkDeviceMemory staging_memory = VK_NULL_HANDLE;
  VK_CHECK(vkAllocateMemory(ctx.device, &alloc, nullptr, &staging_memory));
  ctx.name(VK_OBJECT_TYPE_DEVICE_MEMORY, staging_memory, name + ".staging.memory");
  VK_CHECK(vkBindBufferMemory(ctx.device, staging, staging_memory, 0));
  void* mapped = nullptr;
  VK_CHECK(vkMapMemory(ctx.device, staging_memory, 0, t.bytes, 0, &mapped));
  std::memset(mapped, static_cast<int>(asset * 7 + 1), static_cast<size_t>(t.bytes));
  vkUnmapMemory(ctx.device, staging_memory);

  image_barrier(cmd, t.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
                VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                VK_PIPELINE_STAGE_TRANSFER_BIT);
  VkBufferImageCopy region{};
  region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  region.imageExtent = {size, size, 1};
  vkCmdCopyBufferToImage(cmd, staging, t.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
  image_barrier(cmd, t.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT,
                VK_ACCESS_SHADER_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
  const VkDevice device = ctx.device;
  deletions.push(frame, [device, staging, staging_memory]() {
    vkDestroyBuffer(device, staging, nullptr);
    vkFreeMemory(device, staging_memory, nullptr);
  });
  return t;
}

// Resident textures by asset, least recently used evicted first when a load would pass the byte
// budget. Each texture has a descriptor set; an evicted texture's set goes to a free list (still
// pointing at the destroyed view) and is rewritten when a later load takes it.
class TextureCache {
 public:
  TextureCache(const Context& ctx, DeletionQueue& deletions, VkDescriptorSetLayout layout,
               VkSampler sampler, bool plant_leak)
      : ctx_(ctx),
        deletions_(deletions),
        layout_(layout),
        sampler_(sampler),
        plant_leak_(plant_leak) {
    pool_ = scenario::create_descriptor_pool(
        ctx, kMaterialSets, {{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, kMaterialSets}},
        VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT, "material.pool");
  }

  // The loading screen: the upload is recorded into `cmd`, submitted and waited by the caller.
  __attribute__((noinline)) void preload(uint32_t asset, VkCommandBuffer cmd) {
    Texture t = load_texture(ctx_, asset, serial_++, cmd, deletions_, 0);
    insert(t, 0);
  }

  // Marks the resident ones of `assets` used in `frame` (before loading the others, so that a
  // load never evicts a texture visible in the same frame).
  void touch(const std::vector<uint32_t>& assets, uint64_t frame) {
    for (uint32_t a : assets) {
      auto it = entries_.find(a);
      if (it != entries_.end()) it->second.last_used = frame;
    }
  }

  // The texture of `asset` for frame `frame`, streamed in (upload recorded into `cmd`) on a miss.
  __attribute__((noinline)) const Texture& get(uint32_t asset, VkCommandBuffer cmd,
                                               uint64_t frame) {
    auto it = entries_.find(asset);
    if (it != entries_.end()) {
      it->second.last_used = frame;
      ++hits_;
      return it->second;
    }
    evict_for(texture_size(asset) * texture_size(asset) * 4, frame);
    Texture t = load_texture(ctx_, asset, serial_++, cmd, deletions_, frame);
    return insert(t, frame);
  }

  // At exit, after the device is idle.
  void clear() {
    std::vector<VkDescriptorSet> sets;
    for (auto& [asset, t] : entries_) {
      sets.push_back(t.set);
      vkDestroyImageView(ctx_.device, t.view, nullptr);
      vkDestroyImage(ctx_.device, t.image, nullptr);
      vkFreeMemory(ctx_.device, t.memory, nullptr);
    }
    for (const FreeSet& f : free_sets_) sets.push_back(f.set);
    if (!sets.empty()) {
      VK_CHECK(vkFreeDescriptorSets(ctx_.device, pool_, static_cast<uint32_t>(sets.size()),
                                    sets.data()));
    }
    entries_.clear();
    free_sets_.clear();
    vkDestroyDescriptorPool(ctx_.device, pool_, nullptr);
  }

  uint32_t loads() const { return serial_; }
  uint32_t evictions() const { return evictions_; }
  uint32_t hits() const { return hits_; }
  uint32_t sets_allocated() const { return sets_allocated_; }

 private:
  struct FreeSet {
    VkDescriptorSet set;
    uint64_t reusable_at;  // the frame from which its last use has completed
  };

  Texture& insert(Texture t, uint64_t frame) {
    t.last_used = frame;
    t.set = take_set(frame);
    write_image_descriptor(ctx_, t.set, t.view, sampler_);
    resident_bytes_ += t.bytes;
    return entries_[t.asset] = t;
  }

  VkDescriptorSet take_set(uint64_t frame) {
    for (auto it = free_sets_.begin(); it != free_sets_.end(); ++it) {
      if (it->reusable_at <= frame) {
        VkDescriptorSet set = it->set;
        free_sets_.erase(it);
        return set;
      }
    }
    return scenario::allocate_set(ctx_, pool_, layout_,
                                  numbered("material.set.", sets_allocated_++));
  }

  void evict_for(VkDeviceSize incoming, uint64_t frame) {
    while (resident_bytes_ + incoming > kTextureBudget) {
      auto lru = entries_.end();
      for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (it->second.last_used < frame &&
            (lru == entries_.end() || it->second.last_used < lru->second.last_used)) {
          lru = it;
        }
      }
      if (lru == entries_.end()) return;  // everything resident is visible: go over budget
      evict(lru->second);
      entries_.erase(lru);
    }
  }

  void evict(const Texture& t) {
    ++evictions_;
    resident_bytes_ -= t.bytes;
    free_sets_.push_back({t.set, t.last_used + kFramesInFlight});
    const VkDevice device = ctx_.device;
    if (plant_leak_) {
      // The bug: the eviction releases the view, and the image (with its memory) is forgotten.
      planted("VkImage", numbered("tex.", t.serial));
      planted("VkDeviceMemory", numbered("tex.", t.serial, ".memory"));
      deletions_.push(t.last_used,
                      [device, view = t.view]() { vkDestroyImageView(device, view, nullptr); });
      return;
    }
    deletions_.push(t.last_used, [device, view = t.view, image = t.image, memory = t.memory]() {
      vkDestroyImageView(device, view, nullptr);
      vkDestroyImage(device, image, nullptr);
      vkFreeMemory(device, memory, nullptr);
    });
  }

  const Context& ctx_;
  DeletionQueue& deletions_;
  VkDescriptorSetLayout layout_;
  VkSampler sampler_;
  bool plant_leak_;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  std::map<uint32_t, Texture> entries_;
  std::deque<FreeSet> free_sets_;
  VkDeviceSize resident_bytes_ = 0;
  uint32_t serial_ = 0;
  uint32_t evictions_ = 0;
  uint32_t hits_ = 0;
  uint32_t sets_allocated_ = 0;
};

std::vector<uint32_t> zone_assets(uint32_t zone) {
  return {0, 1, 2 + 3 * zone, 3 + 3 * zone, 4 + 3 * zone};
}

// The loading screen: the start zone, its neighbours and the common textures, uploaded with one
// submission and a fence wait before the first frame.
__attribute__((noinline)) void loading_screen(const Context& ctx, TextureCache& cache,
                                              DeletionQueue& deletions, uint32_t zone) {
  VkCommandPool pool =
      scenario::create_command_pool(ctx, VK_COMMAND_POOL_CREATE_TRANSIENT_BIT, "loading.pool");
  VkCommandBuffer cmd = scenario::allocate_command_buffer(ctx, pool, "loading.cmd");
  VkFence fence = scenario::create_fence(ctx, "loading.fence");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
  std::vector<uint32_t> assets;
  for (uint32_t z : {zone, (zone + 1) % kZones, (zone + kZones - 1) % kZones}) {
    for (uint32_t a : zone_assets(z)) {
      if (std::find(assets.begin(), assets.end(), a) == assets.end()) assets.push_back(a);
    }
  }
  for (uint32_t a : assets) cache.preload(a, cmd);
  VK_CHECK(vkEndCommandBuffer(cmd));
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  VK_CHECK(vkQueueSubmit(ctx.queue, 1, &submit, fence));
  VK_CHECK(vkWaitForFences(ctx.device, 1, &fence, VK_TRUE, UINT64_MAX));
  deletions.flush_all();  // the staging buffers
  vkDestroyFence(ctx.device, fence, nullptr);
  vkDestroyCommandPool(ctx.device, pool, nullptr);
}

int run_texture_cache(Context& ctx, FrameLoop& loop, uint32_t frames, bool plant_leak) {
  SamplePipeline pipeline = create_sample_pipeline(ctx, "tex");
  VkSampler sampler = create_linear_sampler(ctx, "tex.sampler");
  constexpr uint32_t kOutputs = 8 * kFramesInFlight;
  scenario::Buffer output =
      scenario::create_buffer(ctx, 16 * kOutputs, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, "tex.output");
  VkDescriptorPool output_pool = scenario::create_descriptor_pool(
      ctx, 1, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1}}, 0, "tex.output_pool");
  VkDescriptorSet output_set =
      scenario::allocate_set(ctx, output_pool, pipeline.output_layout, "tex.output_set");
  scenario::write_buffer_descriptor(ctx, output_set, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                    output.buffer);

  DeletionQueue deletions;
  TextureCache cache(ctx, deletions, pipeline.texture_layout, sampler, plant_leak);
  Rng rng{0x2545f491u};
  uint32_t zone = 0;
  loading_screen(ctx, cache, deletions, zone);

  uint64_t next_move = rng.range(20, 60);
  uint32_t moves = 0;
  for (uint32_t i = 0; i < frames; ++i) {
    VkCommandBuffer cmd = loop.begin_frame();
    const uint64_t frame = loop.frame();
    deletions.flush(loop);
    if (i == next_move) {  // the camera walks to a neighbouring zone
      zone = (zone + (rng.next() % 2 == 0 ? 1 : kZones - 1)) % kZones;
      next_move = i + rng.range(20, 60);
      ++moves;
    }
    const std::vector<uint32_t> visible = zone_assets(zone);
    cache.touch(visible, frame);
    std::vector<VkDescriptorSet> sets;
    for (uint32_t a : visible) sets.push_back(cache.get(a, cmd, frame).set);
    for (uint32_t k = 0; k < sets.size(); ++k) {
      record_sample(cmd, pipeline, sets[k], output_set, loop.slot() * 8 + k);
    }
    loop.end_frame();
  }
  loop.destroy();
  deletions.flush_all();
  std::fprintf(stderr, "texture_cache: %u zone moves, %u loads, %u evictions, %u hits, %u sets\n",
               moves, cache.loads(), cache.evictions(), cache.hits(), cache.sets_allocated());
  cache.clear();
  vkDestroyDescriptorPool(ctx.device, output_pool, nullptr);
  scenario::destroy_buffer(ctx, output);
  vkDestroySampler(ctx.device, sampler, nullptr);
  destroy_sample_pipeline(ctx, pipeline);
  return static_cast<int>(cache.loads());
}

// ---------------------------------------------------------------------------------------------
// deletion_queue

constexpr uint32_t kTransientLeakEvery = 7;

struct Transient {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
};

__attribute__((noinline)) Transient create_transient(const Context& ctx, VkDeviceSize size,
                                                     const std::string& name) {
  Transient t;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VK_CHECK(vkCreateBuffer(ctx.device, &info, nullptr, &t.buffer));
  ctx.name(VK_OBJECT_TYPE_BUFFER, t.buffer, name);
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(ctx.device, t.buffer, &req);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = ctx.find_memory_type(
      req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  VK_CHECK(vkAllocateMemory(ctx.device, &alloc, nullptr, &t.memory));
  ctx.name(VK_OBJECT_TYPE_DEVICE_MEMORY, t.memory, name + ".memory");
  VK_CHECK(vkBindBufferMemory(ctx.device, t.buffer, t.memory, 0));
  return t;
}

int run_deletion_queue(Context& ctx, FrameLoop& loop, uint32_t frames, bool plant_leak) {
  FillPipeline fill = create_fill_pipeline(ctx, "dq");
  // Sets that live as long as their transients: freed individually by the deletion queue.
  VkDescriptorPool set_pool = scenario::create_descriptor_pool(
      ctx, 4 * kFramesInFlight, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4 * kFramesInFlight}},
      VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT, "dq.set_pool");
  // Per-frame pools, reset when their slot starts a frame.
  std::vector<VkDescriptorPool> frame_pools;
  for (uint32_t s = 0; s < kFramesInFlight; ++s) {
    frame_pools.push_back(scenario::create_descriptor_pool(
        ctx, 2, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2}}, 0, numbered("dq.frame_pool.", s)));
  }
  Rng rng{0x1234567u};
  DeletionQueue deletions;
  uint32_t leaked = 0;
  const VkDevice device = ctx.device;
  for (uint32_t i = 0; i < frames; ++i) {
    VkCommandBuffer cmd = loop.begin_frame();
    const uint64_t frame = loop.frame();
    deletions.flush(loop);
    VK_CHECK(vkResetDescriptorPool(ctx.device, frame_pools[loop.slot()], 0));

    const VkDeviceSize instance_bytes = 1024 * rng.range(1, 8);
    Transient uniforms = create_transient(ctx, 256, numbered("transient.uniforms.", frame));
    Transient instances =
        create_transient(ctx, instance_bytes, numbered("transient.instances.", frame));
    VkDescriptorSet instance_set =
        scenario::allocate_set(ctx, set_pool, fill.set_layout, numbered("transient.set.", frame));
    scenario::write_buffer_descriptor(ctx, instance_set, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                      instances.buffer);
    VkDescriptorSet frame_set = scenario::allocate_set(
        ctx, frame_pools[loop.slot()], fill.set_layout, numbered("frame.set.", frame));
    scenario::write_buffer_descriptor(ctx, frame_set, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                      uniforms.buffer);
    record_fill(cmd, fill, frame_set, 256, i);
    record_fill(cmd, fill, instance_set, instance_bytes, i + 1);
    loop.end_frame();

    // The bug: on some frames the instance buffer is not handed to the deletion queue.
    const bool forget_instances = plant_leak && i % kTransientLeakEvery == kTransientLeakEvery - 1;
    if (forget_instances) {
      planted("VkBuffer", numbered("transient.instances.", frame));
      planted("VkDeviceMemory", numbered("transient.instances.", frame, ".memory"));
      ++leaked;
    }
    deletions.push(frame,
                   [device, set_pool, uniforms, instances, instance_set, forget_instances]() {
                     VK_CHECK(vkFreeDescriptorSets(device, set_pool, 1, &instance_set));
                     vkDestroyBuffer(device, uniforms.buffer, nullptr);
                     vkFreeMemory(device, uniforms.memory, nullptr);
                     if (!forget_instances) {
                       vkDestroyBuffer(device, instances.buffer, nullptr);
                       vkFreeMemory(device, instances.memory, nullptr);
                     }
                   });
  }
  loop.destroy();
  deletions.flush_all();
  for (VkDescriptorPool p : frame_pools) vkDestroyDescriptorPool(ctx.device, p, nullptr);
  vkDestroyDescriptorPool(ctx.device, set_pool, nullptr);
  destroy_fill_pipeline(ctx, fill);
  std::fprintf(stderr, "deletion_queue: %u frames, %u transients leaked\n", frames, leaked);
  return static_cast<int>(leaked);
}

// ---------------------------------------------------------------------------------------------
// buffer_factory

constexpr uint32_t kDrawsLeakEvery = 13;
constexpr uint32_t kPlaceholderUseEvery = 150;

// The program's one buffer factory: every buffer (and its memory) is made here.
__attribute__((noinline)) scenario::Buffer make_buffer(const Context& ctx, VkDeviceSize size,
                                                       const std::string& name) {
  scenario::Buffer b;
  b.size = size;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size;
  info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
               VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
               VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VK_CHECK(vkCreateBuffer(ctx.device, &info, nullptr, &b.buffer));
  ctx.name(VK_OBJECT_TYPE_BUFFER, b.buffer, name);
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(ctx.device, b.buffer, &req);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = ctx.find_memory_type(
      req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  VK_CHECK(vkAllocateMemory(ctx.device, &alloc, nullptr, &b.memory));
  ctx.name(VK_OBJECT_TYPE_DEVICE_MEMORY, b.memory, name + ".memory");
  VK_CHECK(vkBindBufferMemory(ctx.device, b.buffer, b.memory, 0));
  return b;
}

struct Placeholders {
  scenario::Buffer zero16, white, normal;
};

// Fallbacks bound where a material lacks data: made once, used rarely (white) or never.
__attribute__((noinline)) Placeholders create_placeholders(const Context& ctx) {
  Placeholders p;
  p.zero16 = make_buffer(ctx, 16, "placeholder.zero16");
  p.white = make_buffer(ctx, 64, "placeholder.white");
  p.normal = make_buffer(ctx, 64, "placeholder.normal");
  std::vector<uint8_t> white(64, 0xff);
  scenario::upload(ctx, p.white.memory, 0, white.data(), white.size());
  return p;
}

struct Scene {
  scenario::Buffer vertices, indices, materials, lights;
};

__attribute__((noinline)) Scene load_scene(const Context& ctx) {
  Scene s;
  s.vertices = make_buffer(ctx, 128 * 1024, "scene.vertices");
  s.indices = make_buffer(ctx, 32 * 1024, "scene.indices");
  s.materials = make_buffer(ctx, 4 * 1024, "scene.materials");
  s.lights = make_buffer(ctx, 2 * 1024, "scene.lights");
  std::vector<uint8_t> data(128 * 1024, 0x3c);
  scenario::upload(ctx, s.vertices.memory, 0, data.data(), s.vertices.size);
  scenario::upload(ctx, s.indices.memory, 0, data.data(), s.indices.size);
  scenario::upload(ctx, s.materials.memory, 0, data.data(), s.materials.size);
  return s;
}

// A frame's transient buffers, destroyed by the deletion queue once the frame completed.
class FrameBuffers {
 public:
  explicit FrameBuffers(const Context& ctx) : ctx_(ctx) {}
  __attribute__((noinline)) VkBuffer transient(VkDeviceSize size, const std::string& name) {
    buffers_.push_back(make_buffer(ctx_, size, name));
    return buffers_.back().buffer;
  }
  std::vector<scenario::Buffer> take() { return std::move(buffers_); }

 private:
  const Context& ctx_;
  std::vector<scenario::Buffer> buffers_;
};

int run_buffer_factory(Context& ctx, FrameLoop& loop, uint32_t frames, bool plant_leak) {
  Placeholders placeholders = create_placeholders(ctx);
  Scene scene = load_scene(ctx);
  DeletionQueue deletions;
  FrameBuffers frame_buffers(ctx);
  uint32_t leaked = 0;
  for (uint32_t i = 0; i < frames; ++i) {
    VkCommandBuffer cmd = loop.begin_frame();
    const uint64_t frame = loop.frame();
    deletions.flush(loop);
    VkBuffer uniforms = frame_buffers.transient(256, numbered("frame.uniforms.", frame));
    VkBuffer draws = frame_buffers.transient(4096, numbered("frame.draws.", frame));
    vkCmdFillBuffer(cmd, scene.lights.buffer, 0, VK_WHOLE_SIZE, i);  // animated lights
    VkBufferCopy material{0, 0, 128};
    vkCmdCopyBuffer(cmd, scene.materials.buffer, uniforms, 1, &material);
    if (i % kPlaceholderUseEvery == 0) {  // a material without its texture data shows up
      VkBufferCopy fallback{0, 128, 64};
      vkCmdCopyBuffer(cmd, placeholders.white.buffer, uniforms, 1, &fallback);
    }
    VkBufferCopy culled[] = {{(i * 256) % (64 * 1024), 0, 2048},
                             {(i * 64) % (16 * 1024), 2048, 2048}};
    vkCmdCopyBuffer(cmd, scene.vertices.buffer, draws, 1, &culled[0]);
    vkCmdCopyBuffer(cmd, scene.indices.buffer, draws, 1, &culled[1]);
    loop.end_frame();

    std::vector<scenario::Buffer> used = frame_buffers.take();
    if (plant_leak && i % kDrawsLeakEvery == kDrawsLeakEvery - 1) {
      // The bug: a frame that re-recorded its draws (a shader hot-reload) loses the buffer.
      planted("VkBuffer", numbered("frame.draws.", frame));
      planted("VkDeviceMemory", numbered("frame.draws.", frame, ".memory"));
      used.pop_back();
      ++leaked;
    }
    deletions.push(frame, [&ctx, used]() mutable {
      for (scenario::Buffer& b : used) scenario::destroy_buffer(ctx, b);
    });
  }
  loop.destroy();
  deletions.flush_all();
  for (scenario::Buffer* b : {&scene.vertices, &scene.indices, &scene.materials, &scene.lights,
                              &placeholders.zero16, &placeholders.white, &placeholders.normal}) {
    scenario::destroy_buffer(ctx, *b);
  }
  std::fprintf(stderr, "buffer_factory: %u frames, %u draw buffers leaked\n", frames, leaked);
  return static_cast<int>(leaked);
}

// ---------------------------------------------------------------------------------------------
// job_plateau

constexpr uint32_t kJobBlock = 8;
constexpr VkDeviceSize kJobBytes = 4096;
constexpr VkDeviceSize kStagingBytes = 256;
constexpr uint32_t kStagingLeakEvery = 23;

uint32_t jobs_in_frame(uint32_t i) {
  return i < 30 ? 2 : i < 60 ? 4 : i < 90 ? 7 : 10;
}

// Job buffers handed out round-robin: a FIFO of free buffers, each returned with the frame that
// used it. When the oldest is still in flight, a block of 8 more is added (with a descriptor pool
// for their sets).
class JobPool {
 public:
  JobPool(const Context& ctx, VkDescriptorSetLayout layout) : ctx_(ctx), layout_(layout) { grow(); }

  struct Job {
    VkBuffer buffer;
    VkDescriptorSet set;
  };

  __attribute__((noinline)) Job acquire(uint64_t frame) {
    if (free_.front().last_use != kNever && free_.front().last_use + kFramesInFlight > frame) {
      grow();  // the new block goes first in the queue
    }
    const size_t index = free_.front().index;
    free_.pop_front();
    free_.push_back({index, frame});  // back in the queue, behind every other buffer
    return {buffers_[index].buffer, sets_[index]};
  }

  size_t size() const { return buffers_.size(); }

  void destroy() {
    for (scenario::Buffer& b : buffers_) scenario::destroy_buffer(ctx_, b);
    for (VkDescriptorPool p : pools_) vkDestroyDescriptorPool(ctx_.device, p, nullptr);
    buffers_.clear();
    pools_.clear();
  }

 private:
  static constexpr uint64_t kNever = UINT64_MAX;

  // Vulkan is called right here: every job buffer, memory, pool and set comes from this function.
  __attribute__((noinline)) void grow() {
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kJobBlock};
    VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pool_info.maxSets = kJobBlock;
    pool_info.poolSizeCount = 1;
    pool_info.pPoolSizes = &size;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VK_CHECK(vkCreateDescriptorPool(ctx_.device, &pool_info, nullptr, &pool));
    ctx_.name(VK_OBJECT_TYPE_DESCRIPTOR_POOL, pool, numbered("job.pool.", pools_.size()));
    pools_.push_back(pool);
    for (uint32_t k = 0; k < kJobBlock; ++k) {
      const std::string name = numbered("job.buffer.", buffers_.size());
      scenario::Buffer b;
      b.size = kJobBytes;
      VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
      info.size = kJobBytes;
      info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
      info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
      VK_CHECK(vkCreateBuffer(ctx_.device, &info, nullptr, &b.buffer));
      ctx_.name(VK_OBJECT_TYPE_BUFFER, b.buffer, name);
      VkMemoryRequirements req;
      vkGetBufferMemoryRequirements(ctx_.device, b.buffer, &req);
      VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
      alloc.allocationSize = req.size;
      alloc.memoryTypeIndex =
          ctx_.find_memory_type(req.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
      VK_CHECK(vkAllocateMemory(ctx_.device, &alloc, nullptr, &b.memory));
      ctx_.name(VK_OBJECT_TYPE_DEVICE_MEMORY, b.memory, name + ".memory");
      VK_CHECK(vkBindBufferMemory(ctx_.device, b.buffer, b.memory, 0));
      VkDescriptorSetAllocateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
      set_info.descriptorPool = pool;
      set_info.descriptorSetCount = 1;
      set_info.pSetLayouts = &layout_;
      VkDescriptorSet set = VK_NULL_HANDLE;
      VK_CHECK(vkAllocateDescriptorSets(ctx_.device, &set_info, &set));
      ctx_.name(VK_OBJECT_TYPE_DESCRIPTOR_SET, set, numbered("job.set.", buffers_.size()));
      scenario::write_buffer_descriptor(ctx_, set, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, b.buffer);
      buffers_.push_back(b);
      sets_.push_back(set);
    }
    for (uint32_t k = 0; k < kJobBlock; ++k) {
      free_.push_front({buffers_.size() - 1 - k, kNever});
    }
  }

  const Context& ctx_;
  VkDescriptorSetLayout layout_;
  std::vector<scenario::Buffer> buffers_;
  std::vector<VkDescriptorSet> sets_;
  std::vector<VkDescriptorPool> pools_;
  struct Free {
    size_t index;
    uint64_t last_use;
  };
  std::deque<Free> free_;
};

// A job's input, written by the host and copied into the job buffer by the GPU.
__attribute__((noinline)) scenario::Buffer stage_job_input(const Context& ctx, uint32_t job) {
  const std::string name = numbered("job.staging.", job);
  scenario::Buffer b;
  b.size = kStagingBytes;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = kStagingBytes;
  info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VK_CHECK(vkCreateBuffer(ctx.device, &info, nullptr, &b.buffer));
  ctx.name(VK_OBJECT_TYPE_BUFFER, b.buffer, name);
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(ctx.device, b.buffer, &req);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex =
      ctx.find_memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  VK_CHECK(vkAllocateMemory(ctx.device, &alloc, nullptr, &b.memory));
  ctx.name(VK_OBJECT_TYPE_DEVICE_MEMORY, b.memory, name + ".memory");
  VK_CHECK(vkBindBufferMemory(ctx.device, b.buffer, b.memory, 0));
  std::vector<uint32_t> input(kStagingBytes / 4, job);
  scenario::upload(ctx, b.memory, 0, input.data(), kStagingBytes);
  return b;
}

int run_job_plateau(Context& ctx, FrameLoop& loop, uint32_t frames, bool plant_leak) {
  FillPipeline fill = create_fill_pipeline(ctx, "job");
  JobPool pool(ctx, fill.set_layout);
  DeletionQueue deletions;
  uint32_t jobs = 0, leaked = 0;
  std::vector<std::pair<size_t, uint32_t>> sizes;  // pool size, from frame
  for (uint32_t i = 0; i < frames; ++i) {
    VkCommandBuffer cmd = loop.begin_frame();
    const uint64_t frame = loop.frame();
    deletions.flush(loop);
    std::vector<scenario::Buffer> staging;
    for (uint32_t j = 0; j < jobs_in_frame(i); ++j) {
      const uint32_t id = jobs++;
      JobPool::Job job = pool.acquire(frame);
      scenario::Buffer input = stage_job_input(ctx, id);
      VkBufferCopy region{0, 0, kStagingBytes};
      vkCmdCopyBuffer(cmd, input.buffer, job.buffer, 1, &region);
      compute_to_compute_barrier(cmd, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
      record_fill(cmd, fill, job.set, kJobBytes, id);
      if (plant_leak && id % kStagingLeakEvery == kStagingLeakEvery - 1) {
        // The bug: a job that finishes early returns before handing its staging buffer back.
        planted("VkBuffer", numbered("job.staging.", id));
        planted("VkDeviceMemory", numbered("job.staging.", id, ".memory"));
        ++leaked;
      } else {
        staging.push_back(input);
      }
    }
    if (sizes.empty() || sizes.back().first != pool.size()) sizes.push_back({pool.size(), i});
    loop.end_frame();
    deletions.push(frame, [&ctx, staging]() mutable {
      for (scenario::Buffer& b : staging) scenario::destroy_buffer(ctx, b);
    });
  }
  loop.destroy();
  deletions.flush_all();
  std::string steps;
  for (const auto& [size, from] : sizes) {
    steps += (steps.empty() ? "" : " -> ") + std::to_string(size) + " (frame " +
             std::to_string(from) + ")";
  }
  pool.destroy();
  destroy_fill_pipeline(ctx, fill);
  std::fprintf(stderr, "job_plateau: %u jobs, pool %s, %u staging buffers leaked\n", jobs,
               steps.c_str(), leaked);
  return static_cast<int>(jobs);
}

// ---------------------------------------------------------------------------------------------
// Descriptor-set patterns (issue 36): sets in pools that live until exit. Each program destroys
// its pools at exit, so a set leak is seen only during the run; with --plant-leak one line
// changes (a set not freed, a cache entry not evicted).

// Frees `set` of `pool` (a FREE_DESCRIPTOR_SET_BIT pool).
void free_set(const Context& ctx, VkDescriptorPool pool, VkDescriptorSet set) {
  VK_CHECK(vkFreeDescriptorSets(ctx.device, pool, 1, &set));
}

void destroy_texture(VkDevice device, const Texture& t) {
  vkDestroyImageView(device, t.view, nullptr);
  vkDestroyImage(device, t.image, nullptr);
  vkFreeMemory(device, t.memory, nullptr);
}

// A storage buffer and the set of `layout` that binds it, allocated right here from `pool`.
struct BoundBuffer {
  scenario::Buffer buffer;
  VkDescriptorSet set = VK_NULL_HANDLE;
};

__attribute__((noinline)) BoundBuffer bind_new_buffer(const Context& ctx, VkDescriptorPool pool,
                                                      VkDescriptorSetLayout layout,
                                                      const std::string& name) {
  BoundBuffer b;
  b.buffer = scenario::create_buffer(ctx, 256, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, name);
  b.set = scenario::allocate_set(ctx, pool, layout, name + ".set");
  scenario::write_buffer_descriptor(ctx, b.set, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                    b.buffer.buffer);
  return b;
}

// rare_path_sets: every frame fills a per-frame buffer through a per-frame set; on paused frames
// (1 in 4) the overlay path does the same with its own buffer and set. Both are released once the
// frame completed. Planted: the overlay path frees its buffer but not its set.
constexpr uint32_t kPausedEvery = 4;

__attribute__((noinline)) BoundBuffer draw_paused_overlay(const Context& ctx, VkDescriptorPool pool,
                                                          const FillPipeline& fill,
                                                          VkCommandBuffer cmd, uint32_t i) {
  BoundBuffer b = bind_new_buffer(ctx, pool, fill.set_layout, numbered("rare.paused.", i));
  record_fill(cmd, fill, b.set, 256, i);
  return b;
}

int run_rare_path_sets(Context& ctx, FrameLoop& loop, uint32_t frames, bool plant_leak) {
  FillPipeline fill = create_fill_pipeline(ctx, "rare");
  const uint32_t max_sets = frames / kPausedEvery + 4 * kFramesInFlight;
  VkDescriptorPool pool = scenario::create_descriptor_pool(
      ctx, max_sets, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, max_sets}},
      VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT, "rare.pool");
  DeletionQueue deletions;
  for (uint32_t i = 0; i < frames; ++i) {
    VkCommandBuffer cmd = loop.begin_frame();
    const uint64_t frame = loop.frame();
    deletions.flush(loop);
    BoundBuffer b = bind_new_buffer(ctx, pool, fill.set_layout, numbered("rare.frame.", i));
    record_fill(cmd, fill, b.set, 256, i);
    deletions.push(frame, [&ctx, pool, b]() mutable {
      free_set(ctx, pool, b.set);
      scenario::destroy_buffer(ctx, b.buffer);
    });
    if (i % kPausedEvery == kPausedEvery - 1) {
      BoundBuffer o = draw_paused_overlay(ctx, pool, fill, cmd, i);
      if (plant_leak) planted("VkDescriptorSet", numbered("rare.paused.", i, ".set"));
      deletions.push(frame, [&ctx, pool, o, plant_leak]() mutable {
        if (!plant_leak) free_set(ctx, pool, o.set);  // the bug: this line forgotten
        scenario::destroy_buffer(ctx, o.buffer);
      });
    }
    loop.end_frame();
  }
  loop.destroy();
  deletions.flush_all();
  vkDestroyDescriptorPool(ctx.device, pool, nullptr);
  destroy_fill_pipeline(ctx, fill);
  return 0;
}

// webgpu_bindgroups: a WebGPU implementation's descriptor allocator allocates every set of a pool
// up front (pools without FREE_DESCRIPTOR_SET_BIT), hands them out from its own free list (a set
// given back is reusable once the frames that used it completed; newest first) and adds a pool
// when the list runs dry (8 sets a pool, --sets-per-pool). The app's bind-group cache is keyed by
// texture view; one of its 4 textures is replaced every 8 frames (--replace-every). Planted: the
// cache never evicts a released texture's bind group, so the allocator grows by a pool each time
// the kept sets fill one (every 64 frames by default; with the 170 sets a pool and a
// texture every 10 frames, pools 1 -> 2 -> 3 over 4000 frames), and the cached sets point at
// destroyed views.
constexpr uint32_t kWgpuTextures = 4;

class PreallocatedSets {
 public:
  PreallocatedSets(const Context& ctx, VkDescriptorSetLayout layout, uint32_t sets_per_pool)
      : ctx_(ctx), layout_(layout), sets_per_pool_(sets_per_pool) {}

  VkDescriptorSet take(uint64_t frame) {
    for (size_t k = free_.size(); k-- > 0;) {
      if (free_[k].reusable_at <= frame) {
        VkDescriptorSet set = free_[k].set;
        free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(k));
        return set;
      }
    }
    grow();
    VkDescriptorSet set = free_.back().set;
    free_.pop_back();
    return set;
  }
  void give_back(VkDescriptorSet set, uint64_t last_use) {
    free_.push_back({set, last_use + kFramesInFlight});
  }
  // After a wait for idle: the pools and every set in them.
  void destroy() {
    for (VkDescriptorPool p : pools_) vkDestroyDescriptorPool(ctx_.device, p, nullptr);
    pools_.clear();
    free_.clear();
  }
  size_t pools() const { return pools_.size(); }
  const std::string& name(VkDescriptorSet set) { return names_[set]; }

 private:
  struct FreeSet {
    VkDescriptorSet set;
    uint64_t reusable_at;
  };

  __attribute__((noinline)) void grow() {
    VkDescriptorPool pool = scenario::create_descriptor_pool(
        ctx_, sets_per_pool_, {{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, sets_per_pool_}}, 0,
        numbered("wgpu.pool.", pools_.size()));
    std::vector<VkDescriptorSetLayout> layouts(sets_per_pool_, layout_);
    VkDescriptorSetAllocateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    info.descriptorPool = pool;
    info.descriptorSetCount = sets_per_pool_;
    info.pSetLayouts = layouts.data();
    std::vector<VkDescriptorSet> sets(sets_per_pool_);
    VK_CHECK(vkAllocateDescriptorSets(ctx_.device, &info, sets.data()));
    for (VkDescriptorSet s : sets) {
      names_[s] = numbered("wgpu.set.", sets_made_++);
      ctx_.name(VK_OBJECT_TYPE_DESCRIPTOR_SET, s, names_[s]);
      free_.push_back({s, 0});
    }
    pools_.push_back(pool);
  }

  const Context& ctx_;
  VkDescriptorSetLayout layout_;
  uint32_t sets_per_pool_;
  std::vector<VkDescriptorPool> pools_;
  std::vector<FreeSet> free_;
  std::map<VkDescriptorSet, std::string> names_;
  uint32_t sets_made_ = 0;
};

class BindGroupCache {
 public:
  BindGroupCache(const Context& ctx, PreallocatedSets& sets, VkSampler sampler)
      : ctx_(ctx), sets_(sets), sampler_(sampler) {}

  VkDescriptorSet get(const Texture& t, uint64_t frame) {
    auto it = entries_.find(t.serial);
    if (it == entries_.end()) {
      Entry e{sets_.take(frame), frame};
      write_image_descriptor(ctx_, e.set, t.view, sampler_);
      it = entries_.emplace(t.serial, e).first;
    }
    it->second.last_use = frame;
    return it->second.set;
  }
  void evict(const Texture& t) {
    auto it = entries_.find(t.serial);
    sets_.give_back(it->second.set, it->second.last_use);
    entries_.erase(it);
  }
  size_t size() const { return entries_.size(); }
  VkDescriptorSet set_of(const Texture& t) const { return entries_.at(t.serial).set; }

 private:
  struct Entry {
    VkDescriptorSet set;
    uint64_t last_use;
  };
  const Context& ctx_;
  PreallocatedSets& sets_;
  VkSampler sampler_;
  std::map<uint32_t, Entry> entries_;  // by texture serial: the view's identity
};

// Loads texture `serial` with its upload recorded into a one-time submission, waited here.
__attribute__((noinline)) Texture load_now(const Context& ctx, uint32_t serial,
                                           DeletionQueue& deletions, const std::string& prefix) {
  VkCommandPool pool =
      scenario::create_command_pool(ctx, VK_COMMAND_POOL_CREATE_TRANSIENT_BIT, prefix + "upload");
  VkCommandBuffer cmd = scenario::allocate_command_buffer(ctx, pool, prefix + "upload.cmd");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
  Texture t = load_texture(ctx, serial, serial, cmd, deletions, 0, prefix);
  VK_CHECK(vkEndCommandBuffer(cmd));
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  VK_CHECK(vkQueueSubmit(ctx.queue, 1, &submit, VK_NULL_HANDLE));
  VK_CHECK(vkQueueWaitIdle(ctx.queue));
  vkDestroyCommandPool(ctx.device, pool, nullptr);
  return t;
}

// The textures' output buffer and the sample pipeline that reads them.
struct Sampler {
  SamplePipeline pipeline;
  VkSampler sampler = VK_NULL_HANDLE;
  scenario::Buffer output;
  VkDescriptorPool output_pool = VK_NULL_HANDLE;
  VkDescriptorSet output_set = VK_NULL_HANDLE;
};

Sampler create_sampler_setup(const Context& ctx, const std::string& prefix) {
  Sampler s;
  s.pipeline = create_sample_pipeline(ctx, prefix);
  s.sampler = create_linear_sampler(ctx, prefix + ".sampler");
  s.output = scenario::create_buffer(ctx, 16 * 16 * kFramesInFlight,
                                     VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, prefix + ".output");
  s.output_pool = scenario::create_descriptor_pool(ctx, 1, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1}},
                                                   0, prefix + ".output_pool");
  s.output_set =
      scenario::allocate_set(ctx, s.output_pool, s.pipeline.output_layout, prefix + ".output_set");
  scenario::write_buffer_descriptor(ctx, s.output_set, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                    s.output.buffer);
  return s;
}

void destroy_sampler_setup(const Context& ctx, Sampler& s) {
  vkDestroyDescriptorPool(ctx.device, s.output_pool, nullptr);
  scenario::destroy_buffer(ctx, s.output);
  vkDestroySampler(ctx.device, s.sampler, nullptr);
  destroy_sample_pipeline(ctx, s.pipeline);
}

int run_webgpu_bindgroups(Context& ctx, FrameLoop& loop, uint32_t frames, uint32_t sets_per_pool,
                          uint32_t replace_every, bool plant_leak) {
  Sampler sampling = create_sampler_setup(ctx, "wgpu");
  DeletionQueue deletions;
  PreallocatedSets sets(ctx, sampling.pipeline.texture_layout, sets_per_pool);
  BindGroupCache cache(ctx, sets, sampling.sampler);
  std::vector<Texture> textures;
  uint32_t serial = 0;
  for (uint32_t k = 0; k < kWgpuTextures; ++k) {
    textures.push_back(load_now(ctx, serial++, deletions, "wgpu.tex."));
  }
  deletions.flush_all();
  uint32_t released = 0;
  for (uint32_t i = 0; i < frames; ++i) {
    VkCommandBuffer cmd = loop.begin_frame();
    const uint64_t frame = loop.frame();
    deletions.flush(loop);
    if (i > 0 && i % replace_every == 0) {  // the user replaces a texture
      Texture& old = textures[released++ % kWgpuTextures];
      if (plant_leak) {
        planted("VkDescriptorSet", sets.name(cache.set_of(old)));
      } else {
        cache.evict(old);  // the bug: this line forgotten
      }
      deletions.push(frame - 1, [device = ctx.device, old]() { destroy_texture(device, old); });
      old = load_texture(ctx, serial, serial, cmd, deletions, frame, "wgpu.tex.");
      ++serial;
    }
    for (uint32_t k = 0; k < kWgpuTextures; ++k) {
      record_sample(cmd, sampling.pipeline, cache.get(textures[k], frame), sampling.output_set,
                    loop.slot() * 16 + k);
    }
    loop.end_frame();
  }
  loop.destroy();
  deletions.flush_all();
  for (size_t k = 1; plant_leak && k < sets.pools(); ++k) {
    planted("VkDescriptorPool", numbered("wgpu.pool.", k));  // made only for the kept sets
  }
  std::fprintf(stderr, "webgpu_bindgroups: %u textures replaced, %zu bind groups, %zu pools\n",
               released, cache.size(), sets.pools());
  for (const Texture& t : textures) destroy_texture(ctx.device, t);
  sets.destroy();
  destroy_sampler_setup(ctx, sampling);
  return 0;
}

// gallery: a gallery shows 6 images, each with its bind group (a set allocated per image view from
// one long-lived FREE_DESCRIPTOR_SET_BIT pool, which also serves each frame's highlight set);
// every 6 frames it scrolls: the oldest image and its set are released once the frames that
// showed them completed, and a new image is loaded. Planted: the scroll destroys the image but
// never frees its set.
constexpr uint32_t kGalleryVisible = 6;
constexpr uint32_t kGalleryScrollEvery = 6;

struct GalleryItem {
  Texture texture;
  VkDescriptorSet set = VK_NULL_HANDLE;
};

__attribute__((noinline)) VkDescriptorSet make_gallery_bind_group(const Context& ctx,
                                                                  VkDescriptorPool pool,
                                                                  const Sampler& s,
                                                                  const Texture& t) {
  VkDescriptorSet set = scenario::allocate_set(ctx, pool, s.pipeline.texture_layout,
                                               numbered("gallery.set.", t.serial));
  write_image_descriptor(ctx, set, t.view, s.sampler);
  return set;
}

int run_gallery(Context& ctx, FrameLoop& loop, uint32_t frames, bool plant_leak) {
  Sampler sampling = create_sampler_setup(ctx, "gallery");
  const uint32_t max_sets = frames / kGalleryScrollEvery + kGalleryVisible + 4 * kFramesInFlight;
  VkDescriptorPool pool = scenario::create_descriptor_pool(
      ctx, max_sets, {{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, max_sets}},
      VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT, "gallery.pool");
  DeletionQueue deletions;
  std::deque<GalleryItem> shown;
  uint32_t serial = 0;
  for (uint32_t k = 0; k < kGalleryVisible; ++k) {
    GalleryItem item{load_now(ctx, serial++, deletions, "gallery.img."), VK_NULL_HANDLE};
    item.set = make_gallery_bind_group(ctx, pool, sampling, item.texture);
    shown.push_back(item);
  }
  deletions.flush_all();
  for (uint32_t i = 0; i < frames; ++i) {
    VkCommandBuffer cmd = loop.begin_frame();
    const uint64_t frame = loop.frame();
    deletions.flush(loop);
    if (i > 0 && i % kGalleryScrollEvery == 0) {
      const GalleryItem old = shown.front();
      shown.pop_front();
      if (plant_leak) planted("VkDescriptorSet", numbered("gallery.set.", old.texture.serial));
      deletions.push(frame - 1, [&ctx, pool, old, plant_leak]() {
        if (!plant_leak) free_set(ctx, pool, old.set);  // the bug: this line forgotten
        destroy_texture(ctx.device, old.texture);
      });
      GalleryItem item{load_texture(ctx, serial, serial, cmd, deletions, frame, "gallery.img."),
                       VK_NULL_HANDLE};
      ++serial;
      item.set = make_gallery_bind_group(ctx, pool, sampling, item.texture);
      shown.push_back(item);
    }
    for (uint32_t k = 0; k < shown.size(); ++k) {
      record_sample(cmd, sampling.pipeline, shown[k].set, sampling.output_set,
                    loop.slot() * 16 + k);
    }
    // The highlighted image, through a set of its own for this frame.
    VkDescriptorSet highlight = scenario::allocate_set(ctx, pool, sampling.pipeline.texture_layout,
                                                       numbered("gallery.highlight.", i));
    write_image_descriptor(ctx, highlight, shown.back().texture.view, sampling.sampler);
    record_sample(cmd, sampling.pipeline, highlight, sampling.output_set, loop.slot() * 16 + 15);
    deletions.push(frame, [&ctx, pool, highlight]() { free_set(ctx, pool, highlight); });
    loop.end_frame();
  }
  loop.destroy();
  deletions.flush_all();
  for (const GalleryItem& item : shown) destroy_texture(ctx.device, item.texture);
  vkDestroyDescriptorPool(ctx.device, pool, nullptr);
  destroy_sampler_setup(ctx, sampling);
  return 0;
}

// job_batches: a static pool holds the set of a buffer cleared every frame; every 5 frames a batch
// of 3 compute jobs (a buffer and a set each, the last one its reduce step) runs, its sets from a
// second, FREE_DESCRIPTOR_SET_BIT pool made at the first batch (pools 1 -> 2), all released once
// the batch completed. Planted: the reduce step's set is never freed.
constexpr uint32_t kBatchEvery = 5;
constexpr uint32_t kJobsPerBatch = 3;

__attribute__((noinline)) BoundBuffer make_job(const Context& ctx, VkDescriptorPool pool,
                                               VkDescriptorSetLayout layout, uint32_t batch,
                                               uint32_t job) {
  return bind_new_buffer(ctx, pool, layout,
                         "batch." + std::to_string(batch) + ".job." + std::to_string(job));
}

int run_job_batches(Context& ctx, FrameLoop& loop, uint32_t frames, bool plant_leak) {
  FillPipeline fill = create_fill_pipeline(ctx, "batch");
  VkDescriptorPool static_pool = scenario::create_descriptor_pool(
      ctx, 1, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1}}, 0, "batch.static_pool");
  scenario::Buffer cleared =
      scenario::create_buffer(ctx, 1024, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, "batch.cleared");
  VkDescriptorSet cleared_set =
      scenario::allocate_set(ctx, static_pool, fill.set_layout, "batch.cleared.set");
  scenario::write_buffer_descriptor(ctx, cleared_set, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                    cleared.buffer);
  VkDescriptorPool batch_pool = VK_NULL_HANDLE;
  DeletionQueue deletions;
  uint32_t batches = 0;
  for (uint32_t i = 0; i < frames; ++i) {
    VkCommandBuffer cmd = loop.begin_frame();
    const uint64_t frame = loop.frame();
    deletions.flush(loop);
    record_fill(cmd, fill, cleared_set, 1024, i);
    if (i % kBatchEvery == 2) {
      if (batch_pool == VK_NULL_HANDLE) {
        const uint32_t max_sets = (frames / kBatchEvery + 2 * kFramesInFlight) * kJobsPerBatch;
        batch_pool = scenario::create_descriptor_pool(
            ctx, max_sets, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, max_sets}},
            VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT, "batch.pool");
      }
      const uint32_t b = batches++;
      std::vector<BoundBuffer> jobs;
      for (uint32_t j = 0; j < kJobsPerBatch; ++j) {
        jobs.push_back(make_job(ctx, batch_pool, fill.set_layout, b, j));
        compute_to_compute_barrier(cmd, VK_ACCESS_SHADER_WRITE_BIT,
                                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
        record_fill(cmd, fill, jobs.back().set, 256, b * kJobsPerBatch + j);
      }
      std::vector<VkDescriptorSet> sets;
      for (uint32_t j = 0; j + 1 < kJobsPerBatch; ++j) sets.push_back(jobs[j].set);
      if (!plant_leak) sets.push_back(jobs.back().set);  // the bug: this line forgotten
      if (plant_leak) {
        planted("VkDescriptorSet", "batch." + std::to_string(b) + ".job." +
                                       std::to_string(kJobsPerBatch - 1) + ".set");
      }
      deletions.push(frame, [&ctx, batch_pool, jobs, sets]() mutable {
        VK_CHECK(vkFreeDescriptorSets(ctx.device, batch_pool, static_cast<uint32_t>(sets.size()),
                                      sets.data()));
        for (BoundBuffer& job : jobs) scenario::destroy_buffer(ctx, job.buffer);
      });
    }
    loop.end_frame();
  }
  loop.destroy();
  deletions.flush_all();
  if (batch_pool != VK_NULL_HANDLE) vkDestroyDescriptorPool(ctx.device, batch_pool, nullptr);
  vkDestroyDescriptorPool(ctx.device, static_pool, nullptr);
  scenario::destroy_buffer(ctx, cleared);
  destroy_fill_pipeline(ctx, fill);
  return static_cast<int>(batches);
}

// scene_cache: a test suite renders one scene after another (32 frames each); each scene has a
// uniform buffer, bound through a set that a scene cache allocates from a FREE_DESCRIPTOR_SET_BIT
// pool and keys by scene (the pool also serves each frame's draw set). At a scene's end its
// buffer is destroyed and its cache entry erased (the set freed) once its frames completed.
// Planted: the entry is never erased.
constexpr uint32_t kSceneFrames = 32;

class SceneCache {
 public:
  SceneCache(const Context& ctx, VkDescriptorPool pool, VkDescriptorSetLayout layout)
      : ctx_(ctx), pool_(pool), layout_(layout) {}

  __attribute__((noinline)) VkDescriptorSet get(uint32_t scene, VkBuffer uniforms) {
    auto it = sets_.find(scene);
    if (it != sets_.end()) return it->second;
    VkDescriptorSet set =
        scenario::allocate_set(ctx_, pool_, layout_, numbered("scene.", scene, ".set"));
    scenario::write_buffer_descriptor(ctx_, set, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, uniforms);
    return sets_[scene] = set;
  }
  void erase(uint32_t scene) {
    free_set(ctx_, pool_, sets_.at(scene));
    sets_.erase(scene);
  }
  size_t size() const { return sets_.size(); }

 private:
  const Context& ctx_;
  VkDescriptorPool pool_;
  VkDescriptorSetLayout layout_;
  std::map<uint32_t, VkDescriptorSet> sets_;
};

int run_scene_cache(Context& ctx, FrameLoop& loop, uint32_t frames, bool plant_leak) {
  FillPipeline fill = create_fill_pipeline(ctx, "scene");
  const uint32_t max_sets = frames / kSceneFrames + 4 * kFramesInFlight;
  VkDescriptorPool pool = scenario::create_descriptor_pool(
      ctx, max_sets, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, max_sets}},
      VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT, "scene.pool");
  SceneCache cache(ctx, pool, fill.set_layout);
  DeletionQueue deletions;
  uint32_t scene = 0;
  scenario::Buffer uniforms;
  for (uint32_t i = 0; i < frames; ++i) {
    VkCommandBuffer cmd = loop.begin_frame();
    const uint64_t frame = loop.frame();
    deletions.flush(loop);
    if (i % kSceneFrames == 0) {
      if (i > 0) {  // the scene ends
        const uint32_t done = scene++;
        if (plant_leak) planted("VkDescriptorSet", numbered("scene.", done, ".set"));
        deletions.push(frame - 1, [&ctx, &cache, done, uniforms, plant_leak]() mutable {
          if (!plant_leak) cache.erase(done);  // the bug: this line forgotten
          scenario::destroy_buffer(ctx, uniforms);
        });
      }
      uniforms = scenario::create_buffer(ctx, 256, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                         numbered("scene.", scene, ".uniforms"));
    }
    record_fill(cmd, fill, cache.get(scene, uniforms.buffer), 256, i);
    BoundBuffer draw = bind_new_buffer(ctx, pool, fill.set_layout, numbered("scene.draw.", i));
    record_fill(cmd, fill, draw.set, 256, i);
    deletions.push(frame, [&ctx, pool, draw]() mutable {
      free_set(ctx, pool, draw.set);
      scenario::destroy_buffer(ctx, draw.buffer);
    });
    loop.end_frame();
  }
  loop.destroy();
  deletions.flush_all();
  scenario::destroy_buffer(ctx, uniforms);
  std::fprintf(stderr, "scene_cache: %u scenes, %zu sets cached\n", scene + 1, cache.size());
  vkDestroyDescriptorPool(ctx.device, pool, nullptr);
  destroy_fill_pipeline(ctx, fill);
  return static_cast<int>(scene);
}

// ---------------------------------------------------------------------------------------------

int main(int argc, char** argv) {
  scenario::Options options(
      "precision_patterns",
      "Correct programs that look like leaks (vkleak must report nothing); --plant-leak hides one "
      "real leak among them.");
  std::string pattern;
  options.add_string("--pattern", &pattern, "the program to run (required)",
                     {"resize_targets", "emitters", "texture_cache", "deletion_queue",
                      "buffer_factory", "job_plateau", "rare_path_sets", "webgpu_bindgroups",
                      "gallery", "job_batches", "scene_cache"});
  bool plant_leak = false;
  options.add_flag("--plant-leak", &plant_leak, "hide one real leak among the correct objects");
  uint32_t resize_every = 25;
  options.add_uint("--resize-every", &resize_every,
                   "resize_targets: resize every N frames (default 25)");
  uint32_t sets_per_pool = 8;
  options.add_uint("--sets-per-pool", &sets_per_pool,
                   "webgpu_bindgroups: sets its allocator makes a pool for (default 8)");
  uint32_t replace_every = 8;
  options.add_uint("--replace-every", &replace_every,
                   "webgpu_bindgroups: replace a texture every N frames (default 8)");
  options.parse(argc, argv);
  if (pattern.empty()) {
    std::fprintf(stderr, "precision_patterns: --pattern is required (try --help)\n");
    return 2;
  }
  if (resize_every == 0 || sets_per_pool == 0 || replace_every == 0) {
    std::fprintf(stderr,
                 "precision_patterns: --resize-every, --sets-per-pool and --replace-every must be "
                 "at least 1\n");
    return 2;
  }
  bool swapchain = options.swapchain;
  if (pattern != "resize_targets" && pattern != "emitters" && pattern != "texture_cache" &&
      pattern != "deletion_queue" && pattern != "buffer_factory" && swapchain) {
    std::fprintf(stderr, "precision_patterns: %s never presents; --swapchain ignored\n",
                 pattern.c_str());
    swapchain = false;
  }

  Context ctx({"precision_patterns." + pattern, swapchain});
  scenario::FrameLoopConfig loop_config;
  loop_config.swapchain = swapchain;
  loop_config.frames_in_flight = kFramesInFlight;
  FrameLoop loop(ctx, loop_config);
  const uint32_t frames = options.frames;
  if (pattern == "resize_targets") {
    run_resize_targets(ctx, loop, frames, resize_every, plant_leak);
  } else if (pattern == "emitters") {
    run_emitters(ctx, loop, frames, plant_leak);
  } else if (pattern == "texture_cache") {
    run_texture_cache(ctx, loop, frames, plant_leak);
  } else if (pattern == "deletion_queue") {
    run_deletion_queue(ctx, loop, frames, plant_leak);
  } else if (pattern == "buffer_factory") {
    run_buffer_factory(ctx, loop, frames, plant_leak);
  } else if (pattern == "job_plateau") {
    run_job_plateau(ctx, loop, frames, plant_leak);
  } else if (pattern == "rare_path_sets") {
    run_rare_path_sets(ctx, loop, frames, plant_leak);
  } else if (pattern == "webgpu_bindgroups") {
    run_webgpu_bindgroups(ctx, loop, frames, sets_per_pool, replace_every, plant_leak);
  } else if (pattern == "gallery") {
    run_gallery(ctx, loop, frames, plant_leak);
  } else if (pattern == "job_batches") {
    run_job_batches(ctx, loop, frames, plant_leak);
  } else {
    run_scene_cache(ctx, loop, frames, plant_leak);
  }
  ctx.destroy();
  std::printf("done: %s, %u frames%s\n", pattern.c_str(), frames,
              plant_leak ? ", leak planted" : "");
  return 0;
}
