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
  VkBufferCreateInfo bi = buffer_info(size);
  bi.usage = usage;
  BENCH_VK_CHECK(vkCreateBuffer(ctx.device, &bi, nullptr, &hb.buffer));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(ctx.device, hb.buffer, &req);
  VkMemoryAllocateInfo ai{};
  ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  ai.allocationSize = req.size;
  ai.memoryTypeIndex =
      ctx.find_memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  BENCH_VK_CHECK(vkAllocateMemory(ctx.device, &ai, nullptr, &hb.memory));
  BENCH_VK_CHECK(vkBindBufferMemory(ctx.device, hb.buffer, hb.memory, 0));
  void* mapped = nullptr;
  BENCH_VK_CHECK(vkMapMemory(ctx.device, hb.memory, 0, VK_WHOLE_SIZE, 0, &mapped));
  std::memcpy(mapped, data, static_cast<size_t>(size));
  vkUnmapMemory(ctx.device, hb.memory);
  return hb;
}

VkShaderModule make_module(const Context& ctx, const uint32_t* code, size_t bytes) {
  VkShaderModuleCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  info.codeSize = bytes;
  info.pCode = code;
  VkShaderModule m;
  BENCH_VK_CHECK(vkCreateShaderModule(ctx.device, &info, nullptr, &m));
  return m;
}

// Everything the draw loop uses; created once per process, destroyed with it.
class DrawScene {
 public:
  explicit DrawScene(const Context& ctx) : ctx_(ctx) {
    create_target();
    create_pipeline();
    create_bindings();
    VkCommandPoolCreateInfo pi{};
    pi.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pi.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    pi.queueFamilyIndex = ctx.queue_family;
    BENCH_VK_CHECK(vkCreateCommandPool(ctx.device, &pi, nullptr, &command_pool_));
    VkCommandBufferAllocateInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    ai.commandPool = command_pool_;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    BENCH_VK_CHECK(vkAllocateCommandBuffers(ctx.device, &ai, &cmd_));
    VkFenceCreateInfo fi{};
    fi.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    BENCH_VK_CHECK(vkCreateFence(ctx.device, &fi, nullptr, &fence_));
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
    BENCH_VK_CHECK(vkResetCommandPool(d, command_pool_, 0));
    VkCommandBufferBeginInfo bi{};
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    BENCH_VK_CHECK(vkBeginCommandBuffer(cmd_, &bi));
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
    BENCH_VK_CHECK(vkEndCommandBuffer(cmd_));
    VkSubmitInfo si{};
    si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd_;
    BENCH_VK_CHECK(vkQueueSubmit(ctx_.queue, 1, &si, fence_));
    BENCH_VK_CHECK(vkWaitForFences(d, 1, &fence_, VK_TRUE, UINT64_MAX));
    BENCH_VK_CHECK(vkResetFences(d, 1, &fence_));
  }

 private:
  void destroy(HostBuffer& b) {
    vkDestroyBuffer(ctx_.device, b.buffer, nullptr);
    vkFreeMemory(ctx_.device, b.memory, nullptr);
  }

  void create_target() {
    const VkDevice d = ctx_.device;
    VkImageCreateInfo ii{};
    ii.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
    ii.imageType = VK_IMAGE_TYPE_2D;
    ii.format = VK_FORMAT_R8G8B8A8_UNORM;
    ii.extent = {kExtent, kExtent, 1};
    ii.mipLevels = 1;
    ii.arrayLayers = 1;
    ii.samples = VK_SAMPLE_COUNT_1_BIT;
    ii.tiling = VK_IMAGE_TILING_OPTIMAL;
    ii.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
    ii.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    BENCH_VK_CHECK(vkCreateImage(d, &ii, nullptr, &image_));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(d, image_, &req);
    VkMemoryAllocateInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = ctx_.find_memory_type(req.memoryTypeBits, 0);
    BENCH_VK_CHECK(vkAllocateMemory(d, &ai, nullptr, &image_memory_));
    BENCH_VK_CHECK(vkBindImageMemory(d, image_, image_memory_, 0));
    VkImageViewCreateInfo vi{};
    vi.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO;
    vi.image = image_;
    vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
    vi.format = ii.format;
    vi.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    BENCH_VK_CHECK(vkCreateImageView(d, &vi, nullptr, &view_));

    VkAttachmentDescription color{};
    color.format = ii.format;
    color.samples = VK_SAMPLE_COUNT_1_BIT;
    color.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    color.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    color.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    color.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    color.finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription subpass{};
    subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    subpass.colorAttachmentCount = 1;
    subpass.pColorAttachments = &ref;
    VkRenderPassCreateInfo rpi{};
    rpi.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO;
    rpi.attachmentCount = 1;
    rpi.pAttachments = &color;
    rpi.subpassCount = 1;
    rpi.pSubpasses = &subpass;
    BENCH_VK_CHECK(vkCreateRenderPass(d, &rpi, nullptr, &render_pass_));
    VkFramebufferCreateInfo fi{};
    fi.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO;
    fi.renderPass = render_pass_;
    fi.attachmentCount = 1;
    fi.pAttachments = &view_;
    fi.width = kExtent;
    fi.height = kExtent;
    fi.layers = 1;
    BENCH_VK_CHECK(vkCreateFramebuffer(d, &fi, nullptr, &framebuffer_));
  }

  void create_pipeline() {
    const VkDevice d = ctx_.device;
    VkDescriptorSetLayoutBinding binding{};
    binding.binding = 0;
    binding.descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    binding.descriptorCount = 1;
    binding.stageFlags = VK_SHADER_STAGE_VERTEX_BIT;
    VkDescriptorSetLayoutCreateInfo li{};
    li.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    li.bindingCount = 1;
    li.pBindings = &binding;
    BENCH_VK_CHECK(vkCreateDescriptorSetLayout(d, &li, nullptr, &set_layout_));
    VkPipelineLayoutCreateInfo pli{};
    pli.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    pli.setLayoutCount = 1;
    pli.pSetLayouts = &set_layout_;
    BENCH_VK_CHECK(vkCreatePipelineLayout(d, &pli, nullptr, &pipeline_layout_));

    VkShaderModule vert = make_module(ctx_, bench_vert, sizeof(bench_vert));
    VkShaderModule frag = make_module(ctx_, bench_frag, sizeof(bench_frag));
    VkPipelineShaderStageCreateInfo stages[2]{};
    stages[0].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
    stages[0].module = vert;
    stages[0].pName = "main";
    stages[1].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
    stages[1].module = frag;
    stages[1].pName = "main";
    VkVertexInputBindingDescription vb{0, 2 * sizeof(float), VK_VERTEX_INPUT_RATE_VERTEX};
    VkVertexInputAttributeDescription va{0, 0, VK_FORMAT_R32G32_SFLOAT, 0};
    VkPipelineVertexInputStateCreateInfo vis{};
    vis.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO;
    vis.vertexBindingDescriptionCount = 1;
    vis.pVertexBindingDescriptions = &vb;
    vis.vertexAttributeDescriptionCount = 1;
    vis.pVertexAttributeDescriptions = &va;
    VkPipelineInputAssemblyStateCreateInfo ias{};
    ias.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO;
    ias.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    VkViewport viewport{0, 0, static_cast<float>(kExtent), static_cast<float>(kExtent), 0, 1};
    VkRect2D scissor{{0, 0}, {kExtent, kExtent}};
    VkPipelineViewportStateCreateInfo vps{};
    vps.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO;
    vps.viewportCount = 1;
    vps.pViewports = &viewport;
    vps.scissorCount = 1;
    vps.pScissors = &scissor;
    VkPipelineRasterizationStateCreateInfo rs{};
    rs.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO;
    rs.polygonMode = VK_POLYGON_MODE_FILL;
    rs.cullMode = VK_CULL_MODE_NONE;
    rs.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
    rs.lineWidth = 1.0f;
    VkPipelineMultisampleStateCreateInfo ms{};
    ms.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO;
    ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    VkPipelineColorBlendAttachmentState blend{};
    blend.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
                           VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
    VkPipelineColorBlendStateCreateInfo cbs{};
    cbs.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO;
    cbs.attachmentCount = 1;
    cbs.pAttachments = &blend;
    VkGraphicsPipelineCreateInfo gpi{};
    gpi.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO;
    gpi.stageCount = 2;
    gpi.pStages = stages;
    gpi.pVertexInputState = &vis;
    gpi.pInputAssemblyState = &ias;
    gpi.pViewportState = &vps;
    gpi.pRasterizationState = &rs;
    gpi.pMultisampleState = &ms;
    gpi.pColorBlendState = &cbs;
    gpi.layout = pipeline_layout_;
    gpi.renderPass = render_pass_;
    BENCH_VK_CHECK(vkCreateGraphicsPipelines(d, VK_NULL_HANDLE, 1, &gpi, nullptr, &pipeline_));
    vkDestroyShaderModule(d, vert, nullptr);
    vkDestroyShaderModule(d, frag, nullptr);
  }

  void create_bindings() {
    const VkDevice d = ctx_.device;
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, kBindings};
    VkDescriptorPoolCreateInfo pi{};
    pi.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    pi.maxSets = kBindings;
    pi.poolSizeCount = 1;
    pi.pPoolSizes = &size;
    BENCH_VK_CHECK(vkCreateDescriptorPool(d, &pi, nullptr, &descriptor_pool_));
    std::vector<VkDescriptorSetLayout> layouts(kBindings, set_layout_);
    VkDescriptorSetAllocateInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    ai.descriptorPool = descriptor_pool_;
    ai.descriptorSetCount = kBindings;
    ai.pSetLayouts = layouts.data();
    sets_.resize(kBindings);
    BENCH_VK_CHECK(vkAllocateDescriptorSets(d, &ai, sets_.data()));
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
      VkDescriptorBufferInfo info{uniform_buffers_.back().buffer, 0, VK_WHOLE_SIZE};
      VkWriteDescriptorSet w{};
      w.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      w.dstSet = sets_[k];
      w.descriptorCount = 1;
      w.descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
      w.pBufferInfo = &info;
      vkUpdateDescriptorSets(d, 1, &w, 0, nullptr);
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
