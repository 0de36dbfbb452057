// Record + submit + fence wait of one command buffer with `draws` draws, each binding its own
// descriptor set and vertex buffer: the per-frame path of a real renderer (a graphics pipeline,
// a render pass and framebuffer on a small image), with `live` other live objects (filler
// buffers): a layer's cost per submit must not grow with the number of objects it tracks.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "bench_context.h"
#include "bench_frag.h"
#include "bench_options.h"
#include "bench_vert.h"

namespace bench {
namespace {

// Distinct sets and vertex buffers bound round-robin, so every bind really changes state.
constexpr uint32_t kBindings = 16;
constexpr uint32_t kExtent = 64;

struct HostBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
};

HostBuffer make_host_buffer(const Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                            const void* data) {
  HostBuffer hb;
  hb.buffer = harness::create_buffer_object(ctx, size, usage, "");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(ctx.device, hb.buffer, &req);
  hb.memory = harness::allocate_memory_of_type(
      ctx, req.size,
      ctx.find_memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT),
      "");
  VK_CHECK(vkBindBufferMemory(ctx.device, hb.buffer, hb.memory, 0));
  harness::upload(ctx, hb.memory, 0, data, static_cast<size_t>(size));
  return hb;
}

// Everything the draw loop uses; created once per process, destroyed with it.
class DrawScene {
 public:
  explicit DrawScene(const Context& ctx) : ctx_(ctx) {
    create_target();
    create_pipeline();
    create_bindings();
    command_pool_ = harness::create_command_pool(ctx, VK_COMMAND_POOL_CREATE_TRANSIENT_BIT, "");
    cmd_ = harness::allocate_command_buffer(ctx, command_pool_, "");
    fence_ = harness::create_fence(ctx, "");
  }

  ~DrawScene() {
    const VkDevice d = ctx_.device;
    vkDeviceWaitIdle(d);
    vkDestroyFence(d, fence_, nullptr);
    vkDestroyCommandPool(d, command_pool_, nullptr);
    vkDestroyDescriptorPool(d, descriptor_pool_, nullptr);
    for (HostBuffer& b : vertex_buffers_) destroy(b);
    for (HostBuffer& b : uniform_buffers_) destroy(b);
    vkDestroyPipeline(d, pipeline_, nullptr);
    vkDestroyPipelineLayout(d, pipeline_layout_, nullptr);
    vkDestroyDescriptorSetLayout(d, set_layout_, nullptr);
    vkDestroyFramebuffer(d, framebuffer_, nullptr);
    vkDestroyRenderPass(d, render_pass_, nullptr);
    vkDestroyImageView(d, view_, nullptr);
    vkDestroyImage(d, image_, nullptr);
    vkFreeMemory(d, image_memory_, nullptr);
  }

  // One frame: record `draws` draws, submit, wait.
  void frame(int64_t draws) {
    const VkDevice d = ctx_.device;
    VK_CHECK(vkResetCommandPool(d, command_pool_, 0));
    VkCommandBufferBeginInfo bi{};
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(vkBeginCommandBuffer(cmd_, &bi));
    VkClearValue clear{};
    VkRenderPassBeginInfo rp{};
    rp.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO;
    rp.renderPass = render_pass_;
    rp.framebuffer = framebuffer_;
    rp.renderArea = {{0, 0}, {kExtent, kExtent}};
    rp.clearValueCount = 1;
    rp.pClearValues = &clear;
    vkCmdBeginRenderPass(cmd_, &rp, VK_SUBPASS_CONTENTS_INLINE);
    vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_);
    const VkDeviceSize offset = 0;
    for (int64_t i = 0; i < draws; ++i) {
      const uint32_t k = static_cast<uint32_t>(i % kBindings);
      vkCmdBindDescriptorSets(cmd_, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_layout_, 0, 1,
                              &sets_[k], 0, nullptr);
      vkCmdBindVertexBuffers(cmd_, 0, 1, &vertex_buffers_[k].buffer, &offset);
      vkCmdDraw(cmd_, 3, 1, 0, 0);
    }
    vkCmdEndRenderPass(cmd_);
    VK_CHECK(vkEndCommandBuffer(cmd_));
    VkSubmitInfo si{};
    si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd_;
    VK_CHECK(vkQueueSubmit(ctx_.queue, 1, &si, fence_));
    VK_CHECK(vkWaitForFences(d, 1, &fence_, VK_TRUE, UINT64_MAX));
    VK_CHECK(vkResetFences(d, 1, &fence_));
  }

 private:
  void destroy(HostBuffer& b) {
    vkDestroyBuffer(ctx_.device, b.buffer, nullptr);
    vkFreeMemory(ctx_.device, b.memory, nullptr);
  }

  void create_target() {
    const VkDevice d = ctx_.device;
    image_ =
        harness::create_image(ctx_, {kExtent, kExtent}, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, "");
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(d, image_, &req);
    image_memory_ = harness::allocate_memory_of_type(
        ctx_, req.size, ctx_.find_memory_type(req.memoryTypeBits, 0), "");
    VK_CHECK(vkBindImageMemory(d, image_, image_memory_, 0));
    view_ = harness::create_image_view(ctx_, image_, "");
    render_pass_ = harness::create_render_pass(ctx_, "");
    framebuffer_ = harness::create_framebuffer(ctx_, render_pass_, view_, {kExtent, kExtent}, "");
  }

  void create_pipeline() {
    const VkDevice d = ctx_.device;
    set_layout_ = harness::create_set_layout(ctx_, {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER},
                                             VK_SHADER_STAGE_VERTEX_BIT, "");
    pipeline_layout_ = harness::create_pipeline_layout(ctx_, {set_layout_}, "");

    VkShaderModule vert = harness::create_shader_module(ctx_, bench_vert, "");
    VkShaderModule frag = harness::create_shader_module(ctx_, bench_frag, "");
    pipeline_ = harness::create_graphics_pipeline(ctx_, pipeline_layout_, render_pass_, vert, frag,
                                                  {kExtent, kExtent}, "");
    vkDestroyShaderModule(d, vert, nullptr);
    vkDestroyShaderModule(d, frag, nullptr);
  }

  void create_bindings() {
    const VkDevice d = ctx_.device;
    descriptor_pool_ = harness::create_descriptor_pool(
        ctx_, kBindings, {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, kBindings}}, 0, "");
    std::vector<VkDescriptorSetLayout> layouts(kBindings, set_layout_);
    VkDescriptorSetAllocateInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    ai.descriptorPool = descriptor_pool_;
    ai.descriptorSetCount = kBindings;
    ai.pSetLayouts = layouts.data();
    sets_.resize(kBindings);
    VK_CHECK(vkAllocateDescriptorSets(d, &ai, sets_.data()));
    for (uint32_t k = 0; k < kBindings; ++k) {
      // A tiny triangle in one cell of a 4x4 grid: cheap to rasterize, the API path dominates.
      const float triangle[6] = {0.0f, 0.0f, 0.1f, 0.0f, 0.0f, 0.1f};
      vertex_buffers_.push_back(
          make_host_buffer(ctx_, sizeof(triangle), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, triangle));
      const float params[8] = {-0.9f + 0.45f * static_cast<float>(k % 4),
                               -0.9f + 0.45f * static_cast<float>(k / 4),
                               0.0f,
                               0.0f,
                               static_cast<float>(k) / kBindings,
                               0.5f,
                               1.0f,
                               1.0f};
      uniform_buffers_.push_back(
          make_host_buffer(ctx_, sizeof(params), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, params));
      harness::write_buffer_descriptor(ctx_, sets_[k], 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
                                       uniform_buffers_.back().buffer);
    }
  }

  const Context& ctx_;
  VkImage image_ = VK_NULL_HANDLE;
  VkDeviceMemory image_memory_ = VK_NULL_HANDLE;
  VkImageView view_ = VK_NULL_HANDLE;
  VkRenderPass render_pass_ = VK_NULL_HANDLE;
  VkFramebuffer framebuffer_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  std::vector<VkDescriptorSet> sets_;
  std::vector<HostBuffer> vertex_buffers_;
  std::vector<HostBuffer> uniform_buffers_;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
};

// Created once per process (pipeline compilation is slow on a CPU driver), not per run of the
// benchmark function.
DrawScene& scene() {
  static DrawScene* s = [] {
    auto* scene = new DrawScene(context());
    at_teardown([scene] { delete scene; });
    // One frame first, untimed: lavapipe compiles the pipeline's shaders at the first draw (tens
    // of ms), which would otherwise land in the first benchmark's timing when it has no warm-up
    // (--warmup=0, the quick mode) and skew the live-count comparison.
    scene->frame(kBindings);
    return scene;
  }();
  return *s;
}

// Brings the filler count to its `live` argument first (not timed), like the pair benchmarks.
void BM_RecordSubmit(benchmark::State& state) {
  set_live_fillers(static_cast<size_t>(state.range(0)));
  const int64_t draws = state.range(1);
  DrawScene& s = scene();
  for (auto _ : state) s.frame(draws);
  state.counters["draws_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * draws), benchmark::Counter::kIsRate);
  state.counters["live_objects"] = static_cast<double>(live_fillers());
}

}  // namespace

void register_submit_benchmarks(const Options& o) {
  // Ascending live counts: fillers grow through a run instead of being rebuilt.
  std::vector<int64_t> lives = o.submit_live_counts;
  std::sort(lives.begin(), lives.end());
  lives.erase(std::unique(lives.begin(), lives.end()), lives.end());
  auto* b = benchmark::RegisterBenchmark("BM_RecordSubmit", BM_RecordSubmit)
                ->ArgNames({"live", "draws"})
                ->UseRealTime()  // the fence wait is part of the frame
                ->MinWarmUpTime(o.warmup_s)
                ->Unit(benchmark::kMicrosecond);
  for (int64_t live : lives) b->Args({live, o.draws});
}

}  // namespace bench
