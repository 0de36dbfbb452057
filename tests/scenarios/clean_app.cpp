// The false-positive traps: a correct program that vkleak must not report anything for.
//
//  - a ring of 3 buffers "ring.0".."ring.2" reused round-robin every frame;
//  - a per-frame transient buffer "frame.transient" (+ ".memory") written by a compute dispatch and
//    destroyed once its frame's fence (or timeline value) was waited, 2 or 3 frames in flight;
//  - a descriptor pool per frame slot "frame.descriptor_pool.<slot>", reset every frame, its set
//    "frame.sets" reallocated; a command pool per frame slot (FrameLoop), reset every frame;
//  - every 50 frames a transient command pool "upload.pool" is destroyed with its two command
//    buffers "upload.cmd" still allocated;
//  - 16 buffers "suballoc.0".."suballoc.15" sub-allocated from one VkDeviceMemory "suballoc.block";
//  - a long-lived buffer "rare.lut" used only every 100 frames;
//  - 4 samplers "churn.sampler" created and destroyed every frame (handle values reused);
//  - swapchain images in --swapchain mode; --timeline synchronizes with a timeline semaphore;
//    --queue-wait-idle waits with vkQueueWaitIdle after each frame and destroys that frame's
//    transient buffer right then, before any fence or semaphore wait could prove it complete.
// Everything is destroyed at exit.
#include <cstdio>
#include <string>
#include <vector>

#include "fill_comp.h"
#include "scenario_common.h"

using scenario::Context;

constexpr VkDeviceSize kSmallBytes = 4096;
constexpr VkDeviceSize kTransientBytes = 1024;
constexpr uint32_t kRingSize = 3;
constexpr uint32_t kSubBuffers = 16;
constexpr uint32_t kUploadEvery = 50;
constexpr uint32_t kRareEvery = 100;
constexpr uint32_t kChurnSamplers = 4;

constexpr VkBufferUsageFlags kFillUsage =
    VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;

// 16 buffers bound at offsets of one allocation.
struct SubAllocation {
  VkDeviceMemory block = VK_NULL_HANDLE;
  std::vector<VkBuffer> buffers;
};

SubAllocation create_suballocation(const Context& ctx) {
  SubAllocation s;
  for (uint32_t i = 0; i < kSubBuffers; ++i) {
    s.buffers.push_back(scenario::create_buffer_object(ctx, kSmallBytes, kFillUsage,
                                                       "suballoc." + std::to_string(i)));
  }
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(ctx.device, s.buffers[0], &req);
  VkDeviceSize stride = (req.size + req.alignment - 1) / req.alignment * req.alignment;
  s.block =
      scenario::allocate_memory(ctx, stride * kSubBuffers, req.memoryTypeBits, "suballoc.block");
  for (uint32_t i = 0; i < kSubBuffers; ++i) {
    VK_CHECK(vkBindBufferMemory(ctx.device, s.buffers[i], s.block, stride * i));
  }
  return s;
}

void destroy_suballocation(const Context& ctx, SubAllocation& s) {
  for (VkBuffer buffer : s.buffers) vkDestroyBuffer(ctx.device, buffer, nullptr);
  vkFreeMemory(ctx.device, s.block, nullptr);
  s = SubAllocation{};
}

// A one-shot upload through a transient command pool that is destroyed with its command buffers
// still allocated (they are freed implicitly by the pool).
void upload_with_transient_pool(const Context& ctx, VkFence fence, VkBuffer target,
                                uint32_t value) {
  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  pool_info.queueFamilyIndex = ctx.queue_family;
  VkCommandPool pool = VK_NULL_HANDLE;
  VK_CHECK(vkCreateCommandPool(ctx.device, &pool_info, nullptr, &pool));
  ctx.name(VK_OBJECT_TYPE_COMMAND_POOL, pool, "upload.pool");
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 2;
  VkCommandBuffer cmds[2];
  VK_CHECK(vkAllocateCommandBuffers(ctx.device, &alloc, cmds));
  for (VkCommandBuffer cmd : cmds) ctx.name(VK_OBJECT_TYPE_COMMAND_BUFFER, cmd, "upload.cmd");

  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VK_CHECK(vkBeginCommandBuffer(cmds[0], &begin));
  vkCmdFillBuffer(cmds[0], target, 0, VK_WHOLE_SIZE, value);
  VK_CHECK(vkEndCommandBuffer(cmds[0]));
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmds[0];
  VK_CHECK(vkQueueSubmit(ctx.queue, 1, &submit, fence));
  VK_CHECK(vkWaitForFences(ctx.device, 1, &fence, VK_TRUE, UINT64_MAX));
  VK_CHECK(vkResetFences(ctx.device, 1, &fence));
  vkDestroyCommandPool(ctx.device, pool, nullptr);  // frees both "upload.cmd"
}

void churn_samplers(const Context& ctx) {
  VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  info.magFilter = VK_FILTER_NEAREST;
  info.minFilter = VK_FILTER_NEAREST;
  VkSampler samplers[kChurnSamplers];
  for (VkSampler& sampler : samplers) {
    VK_CHECK(vkCreateSampler(ctx.device, &info, nullptr, &sampler));
    ctx.name(VK_OBJECT_TYPE_SAMPLER, sampler, "churn.sampler");
  }
  for (VkSampler sampler : samplers) vkDestroySampler(ctx.device, sampler, nullptr);
}

int main(int argc, char** argv) {
  scenario::Options options("clean_app",
                            "A correct program full of patterns that look like leaks but are not; "
                            "vkleak must report nothing.");
  uint32_t frames_in_flight = 2;
  bool timeline = false;
  options.add_uint("--frames-in-flight", &frames_in_flight, "2 or 3 (default 2)");
  bool queue_wait_idle = false;
  options.add_flag("--timeline", &timeline,
                   "synchronize frames with a timeline semaphore (vkWaitSemaphores), not fences");
  options.add_flag("--queue-wait-idle", &queue_wait_idle,
                   "after each frame, vkQueueWaitIdle and destroy its transient buffer at once");
  uint32_t startup_submits = 0;
  options.add_uint("--startup-submits", &startup_submits,
                   "empty vkQueueSubmit calls before the first frame, like a loading screen's "
                   "uploads (default 0)");
  bool probe_instance = false;
  options.add_flag("--probe-instance", &probe_instance,
                   "first create a VkInstance and never destroy it, as mpv's device check does");
  options.parse(argc, argv);
  if (probe_instance) {
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    VkInstance probe = VK_NULL_HANDLE;
    VK_CHECK(vkCreateInstance(&info, nullptr, &probe));
  }
  if (frames_in_flight < 2 || frames_in_flight > 3) scenario::fail("--frames-in-flight: 2 or 3");

  Context ctx({"clean_app", options.swapchain});
  scenario::FrameLoopConfig loop_config;
  loop_config.swapchain = options.swapchain;
  loop_config.frames_in_flight = frames_in_flight;
  loop_config.timeline = timeline;
  scenario::FrameLoop loop(ctx, loop_config);

  VkShaderModule shader = scenario::create_shader_module(ctx, fill_comp, "clean.shader");
  VkDescriptorSetLayout set_layout = scenario::create_set_layout(
      ctx, {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}, VK_SHADER_STAGE_COMPUTE_BIT, "clean.set_layout");
  VkPipelineLayout pipeline_layout = scenario::create_pipeline_layout(
      ctx, {set_layout}, "clean.pipeline_layout", sizeof(uint32_t));
  VkPipeline pipeline =
      scenario::create_compute_pipeline(ctx, pipeline_layout, shader, "clean.pipeline");

  std::vector<scenario::Buffer> ring;
  for (uint32_t i = 0; i < kRingSize; ++i) {
    ring.push_back(
        scenario::create_buffer(ctx, kSmallBytes, kFillUsage, "ring." + std::to_string(i)));
  }
  SubAllocation suballoc = create_suballocation(ctx);
  scenario::Buffer rare = scenario::create_buffer(ctx, kSmallBytes, kFillUsage, "rare.lut");
  VkFence upload_fence = scenario::create_fence(ctx, "upload.fence");

  // Per frame slot: a descriptor pool reset every frame, and the transient buffers in flight.
  std::vector<VkDescriptorPool> set_pools;
  std::vector<std::vector<scenario::Buffer>> transients(loop.frames_in_flight());
  for (uint32_t i = 0; i < loop.frames_in_flight(); ++i) {
    set_pools.push_back(
        scenario::create_descriptor_pool(ctx, 1, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1}}, 0,
                                         "frame.descriptor_pool." + std::to_string(i)));
  }

  for (uint32_t i = 0; i < startup_submits; ++i)
    VK_CHECK(vkQueueSubmit(ctx.queue, 0, nullptr, VK_NULL_HANDLE));
  if (startup_submits > 0) VK_CHECK(vkQueueWaitIdle(ctx.queue));

  for (uint32_t i = 0; i < options.frames; ++i) {
    if (i > 0 && i % kUploadEvery == 0) {
      upload_with_transient_pool(ctx, upload_fence,
                                 suballoc.buffers[(i / kUploadEvery) % kSubBuffers], i);
    }
    VkCommandBuffer cmd = loop.begin_frame();  // the slot's previous frame has completed
    const uint32_t slot = loop.slot();
    for (scenario::Buffer& b : transients[slot]) scenario::destroy_buffer(ctx, b);
    transients[slot].clear();
    VK_CHECK(vkResetDescriptorPool(ctx.device, set_pools[slot], 0));

    scenario::Buffer transient =
        scenario::create_buffer(ctx, kTransientBytes, kFillUsage, "frame.transient");
    transients[slot].push_back(transient);
    VkDescriptorSet set = scenario::allocate_set(ctx, set_pools[slot], set_layout, "frame.sets");
    scenario::write_buffer_descriptor(ctx, set, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                      transient.buffer);

    vkCmdFillBuffer(cmd, ring[i % kRingSize].buffer, 0, VK_WHOLE_SIZE, i);
    vkCmdFillBuffer(cmd, suballoc.buffers[i % kSubBuffers], 0, VK_WHOLE_SIZE, i);
    if (i % kRareEvery == 0) vkCmdFillBuffer(cmd, rare.buffer, 0, VK_WHOLE_SIZE, i);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout, 0, 1, &set, 0,
                            nullptr);
    vkCmdPushConstants(cmd, pipeline_layout, VK_SHADER_STAGE_ALL, 0, sizeof(i), &i);
    vkCmdDispatch(cmd, 1, 1, 1);
    churn_samplers(ctx);
    loop.end_frame();
    if (queue_wait_idle) {
      // Only the idle wait proves this frame's submission complete: the slot's fence (or
      // timeline value) is waited for frames later, after the buffer is gone.
      VK_CHECK(vkQueueWaitIdle(ctx.queue));
      scenario::destroy_buffer(ctx, transients[slot].back());
      transients[slot].pop_back();
    }
  }

  loop.destroy();
  for (auto& slot_buffers : transients) {
    for (scenario::Buffer& b : slot_buffers) scenario::destroy_buffer(ctx, b);
  }
  for (VkDescriptorPool pool : set_pools) vkDestroyDescriptorPool(ctx.device, pool, nullptr);
  vkDestroyFence(ctx.device, upload_fence, nullptr);
  scenario::destroy_buffer(ctx, rare);
  destroy_suballocation(ctx, suballoc);
  for (scenario::Buffer& b : ring) scenario::destroy_buffer(ctx, b);
  vkDestroyPipeline(ctx.device, pipeline, nullptr);
  vkDestroyPipelineLayout(ctx.device, pipeline_layout, nullptr);
  vkDestroyDescriptorSetLayout(ctx.device, set_layout, nullptr);
  vkDestroyShaderModule(ctx.device, shader, nullptr);
  ctx.destroy();
  std::printf("done: %u frames\n", options.frames);
  return 0;
}
