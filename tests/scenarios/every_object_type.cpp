// Creates and destroys, one type at a time, every object type the device supports. After each
// step it inserts the queue label "vkleak.snapshot:<step>" (vkQueueInsertDebugUtilsLabelEXT), on
// which vkleak takes a snapshot. Steps are "create:<Type>" / "destroy:<Type>", "setup:<Type>" /
// "teardown:<Type>" for the objects a type needs (its image, its render pass, ...), plus the
// implicit frees ("reset:VkDescriptorPool", "destroy:VkDescriptorPool(with-sets)", ...).
// Unsupported types are skipped and listed on stderr. At the end stdout gets one JSON line:
//   {"steps":[{"step":"create:VkBuffer","deltas":{"VkBuffer":1}}, ...],
//    "skipped":[{"type":"VkSamplerYcbcrConversion","reason":"..."}, ...]}
// where deltas are the expected changes of the live counts per type at that step's snapshot.
// --swapchain adds the surface and swapchain steps (swapchain images count as VkImage).
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "fill_comp.h"
#include "scenario_common.h"
#include "triangle_frag.h"
#include "triangle_vert.h"

using scenario::Context;

using Deltas = std::vector<std::pair<std::string, int>>;

class Steps {
 public:
  explicit Steps(const Context& ctx) : ctx_(ctx) {}

  void step(const std::string& name, Deltas deltas) {
    ctx_.insert_label("vkleak.snapshot:" + name);
    steps_.emplace_back(name, std::move(deltas));
  }
  void skip(const std::string& type, const std::string& reason) {
    skipped_.emplace_back(type, reason);
  }

  void print_skipped() const {
    std::string list;
    for (const auto& [type, reason] : skipped_) {
      list += (list.empty() ? "" : ", ") + type + " (" + reason + ")";
    }
    std::fprintf(stderr, "every_object_type: skipped: %s\n", list.empty() ? "none" : list.c_str());
  }

  void print_json() const {
    std::string out = "{\"steps\":[";
    for (size_t i = 0; i < steps_.size(); ++i) {
      out += (i ? "," : "") + std::string("{\"step\":\"") + steps_[i].first + "\",\"deltas\":{";
      const Deltas& deltas = steps_[i].second;
      for (size_t j = 0; j < deltas.size(); ++j) {
        out += (j ? "," : "") + std::string("\"") + deltas[j].first +
               "\":" + std::to_string(deltas[j].second);
      }
      out += "}}";
    }
    out += "],\"skipped\":[";
    for (size_t i = 0; i < skipped_.size(); ++i) {
      out += (i ? "," : "") + std::string("{\"type\":\"") + skipped_[i].first + "\",\"reason\":\"" +
             skipped_[i].second + "\"}";
    }
    out += "]}";
    std::printf("%s\n", out.c_str());
  }

 private:
  const Context& ctx_;
  std::vector<std::pair<std::string, Deltas>> steps_;
  std::vector<std::pair<std::string, std::string>> skipped_;
};

// Small helpers for the objects several steps need.

VkImage create_image(const Context& ctx, VkImageUsageFlags usage, const std::string& name) {
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = VK_FORMAT_R8G8B8A8_UNORM;
  info.extent = {16, 16, 1};
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = usage;
  VkImage image = VK_NULL_HANDLE;
  VK_CHECK(vkCreateImage(ctx.device, &info, nullptr, &image));
  ctx.name(VK_OBJECT_TYPE_IMAGE, image, name);
  return image;
}

VkDeviceMemory bind_image_memory(const Context& ctx, VkImage image, const std::string& name) {
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(ctx.device, image, &req);
  VkDeviceMemory memory = scenario::allocate_memory(ctx, req.size, req.memoryTypeBits, name);
  VK_CHECK(vkBindImageMemory(ctx.device, image, memory, 0));
  return memory;
}

VkImageView create_image_view(const Context& ctx, VkImage image, const std::string& name) {
  VkImageViewCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  info.image = image;
  info.viewType = VK_IMAGE_VIEW_TYPE_2D;
  info.format = VK_FORMAT_R8G8B8A8_UNORM;
  info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  VkImageView view = VK_NULL_HANDLE;
  VK_CHECK(vkCreateImageView(ctx.device, &info, nullptr, &view));
  ctx.name(VK_OBJECT_TYPE_IMAGE_VIEW, view, name);
  return view;
}

VkRenderPass create_render_pass(const Context& ctx, const std::string& name) {
  VkAttachmentDescription color{};
  color.format = VK_FORMAT_R8G8B8A8_UNORM;
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
  VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  info.attachmentCount = 1;
  info.pAttachments = &color;
  info.subpassCount = 1;
  info.pSubpasses = &subpass;
  VkRenderPass render_pass = VK_NULL_HANDLE;
  VK_CHECK(vkCreateRenderPass(ctx.device, &info, nullptr, &render_pass));
  ctx.name(VK_OBJECT_TYPE_RENDER_PASS, render_pass, name);
  return render_pass;
}

VkPipeline create_graphics_pipeline(const Context& ctx, VkPipelineLayout layout,
                                    VkRenderPass render_pass, VkShaderModule vert,
                                    VkShaderModule frag) {
  VkPipelineShaderStageCreateInfo stages[2] = {
      {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
      {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].module = vert;
  stages[0].pName = "main";
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  stages[1].module = frag;
  stages[1].pName = "main";
  VkPipelineVertexInputStateCreateInfo vertex_input{
      VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  VkPipelineInputAssemblyStateCreateInfo input_assembly{
      VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  input_assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  VkPipelineViewportStateCreateInfo viewport{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  viewport.viewportCount = 1;
  viewport.scissorCount = 1;
  VkPipelineRasterizationStateCreateInfo raster{
      VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  raster.cullMode = VK_CULL_MODE_NONE;
  raster.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
  raster.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo multisample{
      VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineColorBlendAttachmentState blend_attachment{};
  blend_attachment.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
                                    VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
  VkPipelineColorBlendStateCreateInfo blend{
      VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  blend.attachmentCount = 1;
  blend.pAttachments = &blend_attachment;
  VkDynamicState dynamic_states[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  VkPipelineDynamicStateCreateInfo dynamic{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
  dynamic.dynamicStateCount = 2;
  dynamic.pDynamicStates = dynamic_states;
  VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  info.stageCount = 2;
  info.pStages = stages;
  info.pVertexInputState = &vertex_input;
  info.pInputAssemblyState = &input_assembly;
  info.pViewportState = &viewport;
  info.pRasterizationState = &raster;
  info.pMultisampleState = &multisample;
  info.pColorBlendState = &blend;
  info.pDynamicState = &dynamic;
  info.layout = layout;
  info.renderPass = render_pass;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VK_CHECK(vkCreateGraphicsPipelines(ctx.device, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline));
  ctx.name(VK_OBJECT_TYPE_PIPELINE, pipeline, "eot.pipeline.graphics");
  return pipeline;
}

VKAPI_ATTR VkBool32 VKAPI_CALL messenger_callback(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                                  VkDebugUtilsMessageTypeFlagsEXT,
                                                  const VkDebugUtilsMessengerCallbackDataEXT*,
                                                  void*) {
  return VK_FALSE;
}

VKAPI_ATTR VkBool32 VKAPI_CALL report_callback(VkDebugReportFlagsEXT, VkDebugReportObjectTypeEXT,
                                               uint64_t, size_t, int32_t, const char*, const char*,
                                               void*) {
  return VK_FALSE;
}

// ---------------------------------------------------------------------------------------------
// The steps, grouped by what they need.

void instance_level_objects(const Context& ctx, Steps& steps) {
  if (ctx.debug_utils) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        ctx.instance_proc("vkCreateDebugUtilsMessengerEXT"));
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        ctx.instance_proc("vkDestroyDebugUtilsMessengerEXT"));
    VkDebugUtilsMessengerCreateInfoEXT info{
        VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT;
    info.pfnUserCallback = messenger_callback;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    VK_CHECK(create(ctx.instance, &info, nullptr, &messenger));
    ctx.name(VK_OBJECT_TYPE_DEBUG_UTILS_MESSENGER_EXT, messenger, "eot.messenger");
    steps.step("create:VkDebugUtilsMessengerEXT", {{"VkDebugUtilsMessengerEXT", 1}});
    destroy(ctx.instance, messenger, nullptr);
    steps.step("destroy:VkDebugUtilsMessengerEXT", {{"VkDebugUtilsMessengerEXT", -1}});
  } else {
    steps.skip("VkDebugUtilsMessengerEXT", "VK_EXT_debug_utils not supported");
  }

  if (ctx.has_instance_extension(VK_EXT_DEBUG_REPORT_EXTENSION_NAME)) {
    auto create = reinterpret_cast<PFN_vkCreateDebugReportCallbackEXT>(
        ctx.instance_proc("vkCreateDebugReportCallbackEXT"));
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugReportCallbackEXT>(
        ctx.instance_proc("vkDestroyDebugReportCallbackEXT"));
    VkDebugReportCallbackCreateInfoEXT info{
        VK_STRUCTURE_TYPE_DEBUG_REPORT_CALLBACK_CREATE_INFO_EXT};
    info.flags = VK_DEBUG_REPORT_ERROR_BIT_EXT;
    info.pfnCallback = report_callback;
    VkDebugReportCallbackEXT callback = VK_NULL_HANDLE;
    VK_CHECK(create(ctx.instance, &info, nullptr, &callback));
    ctx.name(VK_OBJECT_TYPE_DEBUG_REPORT_CALLBACK_EXT, callback, "eot.report_callback");
    steps.step("create:VkDebugReportCallbackEXT", {{"VkDebugReportCallbackEXT", 1}});
    destroy(ctx.instance, callback, nullptr);
    steps.step("destroy:VkDebugReportCallbackEXT", {{"VkDebugReportCallbackEXT", -1}});
  } else {
    steps.skip("VkDebugReportCallbackEXT", "VK_EXT_debug_report not supported");
  }
}

void memory_buffers_images(const Context& ctx, Steps& steps) {
  VkDeviceMemory memory = scenario::allocate_memory(ctx, 65536, ~0u, "eot.memory");
  steps.step("create:VkDeviceMemory", {{"VkDeviceMemory", 1}});
  vkFreeMemory(ctx.device, memory, nullptr);
  steps.step("destroy:VkDeviceMemory", {{"VkDeviceMemory", -1}});

  VkBuffer buffer =
      scenario::create_buffer_object(ctx, 4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT, "eot.buffer");
  steps.step("create:VkBuffer", {{"VkBuffer", 1}});
  vkDestroyBuffer(ctx.device, buffer, nullptr);
  steps.step("destroy:VkBuffer", {{"VkBuffer", -1}});

  scenario::Buffer texels = scenario::create_buffer(
      ctx, 4096, VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT, "eot.buffer_view.buffer");
  steps.step("setup:VkBufferView", {{"VkBuffer", 1}, {"VkDeviceMemory", 1}});
  VkBufferViewCreateInfo view_info{VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO};
  view_info.buffer = texels.buffer;
  view_info.format = VK_FORMAT_R32_UINT;
  view_info.range = VK_WHOLE_SIZE;
  VkBufferView buffer_view = VK_NULL_HANDLE;
  VK_CHECK(vkCreateBufferView(ctx.device, &view_info, nullptr, &buffer_view));
  ctx.name(VK_OBJECT_TYPE_BUFFER_VIEW, buffer_view, "eot.buffer_view");
  steps.step("create:VkBufferView", {{"VkBufferView", 1}});
  vkDestroyBufferView(ctx.device, buffer_view, nullptr);
  steps.step("destroy:VkBufferView", {{"VkBufferView", -1}});
  scenario::destroy_buffer(ctx, texels);
  steps.step("teardown:VkBufferView", {{"VkBuffer", -1}, {"VkDeviceMemory", -1}});

  VkImage image = create_image(ctx, VK_IMAGE_USAGE_SAMPLED_BIT, "eot.image");
  steps.step("create:VkImage", {{"VkImage", 1}});
  vkDestroyImage(ctx.device, image, nullptr);
  steps.step("destroy:VkImage", {{"VkImage", -1}});

  image = create_image(ctx, VK_IMAGE_USAGE_SAMPLED_BIT, "eot.image_view.image");
  memory = bind_image_memory(ctx, image, "eot.image_view.memory");
  steps.step("setup:VkImageView", {{"VkImage", 1}, {"VkDeviceMemory", 1}});
  VkImageView view = create_image_view(ctx, image, "eot.image_view");
  steps.step("create:VkImageView", {{"VkImageView", 1}});
  vkDestroyImageView(ctx.device, view, nullptr);
  steps.step("destroy:VkImageView", {{"VkImageView", -1}});
  vkDestroyImage(ctx.device, image, nullptr);
  vkFreeMemory(ctx.device, memory, nullptr);
  steps.step("teardown:VkImageView", {{"VkImage", -1}, {"VkDeviceMemory", -1}});
}

void samplers(const Context& ctx, Steps& steps) {
  VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  VkSampler sampler = VK_NULL_HANDLE;
  VK_CHECK(vkCreateSampler(ctx.device, &info, nullptr, &sampler));
  ctx.name(VK_OBJECT_TYPE_SAMPLER, sampler, "eot.sampler");
  steps.step("create:VkSampler", {{"VkSampler", 1}});
  vkDestroySampler(ctx.device, sampler, nullptr);
  steps.step("destroy:VkSampler", {{"VkSampler", -1}});

  const VkFormat ycbcr_format = VK_FORMAT_G8_B8R8_2PLANE_420_UNORM;
  VkFormatProperties format_props{};
  vkGetPhysicalDeviceFormatProperties(ctx.physical_device, ycbcr_format, &format_props);
  const VkFormatFeatureFlags chroma =
      VK_FORMAT_FEATURE_MIDPOINT_CHROMA_SAMPLES_BIT | VK_FORMAT_FEATURE_COSITED_CHROMA_SAMPLES_BIT;
  if (!ctx.sampler_ycbcr_conversion) {
    steps.skip("VkSamplerYcbcrConversion", "samplerYcbcrConversion feature not supported");
  } else if ((format_props.optimalTilingFeatures & chroma) == 0) {
    steps.skip("VkSamplerYcbcrConversion", "no YCbCr format with chroma sampling");
  } else {
    VkSamplerYcbcrConversionCreateInfo conv_info{
        VK_STRUCTURE_TYPE_SAMPLER_YCBCR_CONVERSION_CREATE_INFO};
    conv_info.format = ycbcr_format;
    conv_info.ycbcrModel = VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_709;
    conv_info.ycbcrRange = VK_SAMPLER_YCBCR_RANGE_ITU_FULL;
    conv_info.xChromaOffset =
        (format_props.optimalTilingFeatures & VK_FORMAT_FEATURE_MIDPOINT_CHROMA_SAMPLES_BIT) != 0
            ? VK_CHROMA_LOCATION_MIDPOINT
            : VK_CHROMA_LOCATION_COSITED_EVEN;
    conv_info.yChromaOffset = conv_info.xChromaOffset;
    conv_info.chromaFilter = VK_FILTER_NEAREST;
    VkSamplerYcbcrConversion conversion = VK_NULL_HANDLE;
    VK_CHECK(vkCreateSamplerYcbcrConversion(ctx.device, &conv_info, nullptr, &conversion));
    ctx.name(VK_OBJECT_TYPE_SAMPLER_YCBCR_CONVERSION, conversion, "eot.ycbcr_conversion");
    steps.step("create:VkSamplerYcbcrConversion", {{"VkSamplerYcbcrConversion", 1}});
    vkDestroySamplerYcbcrConversion(ctx.device, conversion, nullptr);
    steps.step("destroy:VkSamplerYcbcrConversion", {{"VkSamplerYcbcrConversion", -1}});
  }
}

void shaders_and_layouts(const Context& ctx, Steps& steps) {
  VkShaderModule module = scenario::create_shader_module(ctx, fill_comp, "eot.shader");
  steps.step("create:VkShaderModule", {{"VkShaderModule", 1}});
  vkDestroyShaderModule(ctx.device, module, nullptr);
  steps.step("destroy:VkShaderModule", {{"VkShaderModule", -1}});

  VkPipelineCacheCreateInfo cache_info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  VkPipelineCache cache = VK_NULL_HANDLE;
  VK_CHECK(vkCreatePipelineCache(ctx.device, &cache_info, nullptr, &cache));
  ctx.name(VK_OBJECT_TYPE_PIPELINE_CACHE, cache, "eot.pipeline_cache");
  steps.step("create:VkPipelineCache", {{"VkPipelineCache", 1}});
  vkDestroyPipelineCache(ctx.device, cache, nullptr);
  steps.step("destroy:VkPipelineCache", {{"VkPipelineCache", -1}});

  VkDescriptorSetLayout set_layout = scenario::create_set_layout(
      ctx, {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}, VK_SHADER_STAGE_COMPUTE_BIT, "eot.set_layout");
  steps.step("create:VkDescriptorSetLayout", {{"VkDescriptorSetLayout", 1}});
  vkDestroyDescriptorSetLayout(ctx.device, set_layout, nullptr);
  steps.step("destroy:VkDescriptorSetLayout", {{"VkDescriptorSetLayout", -1}});

  VkPipelineLayout pipeline_layout =
      scenario::create_pipeline_layout(ctx, {}, "eot.pipeline_layout");
  steps.step("create:VkPipelineLayout", {{"VkPipelineLayout", 1}});
  vkDestroyPipelineLayout(ctx.device, pipeline_layout, nullptr);
  steps.step("destroy:VkPipelineLayout", {{"VkPipelineLayout", -1}});
}

void descriptors(const Context& ctx, Steps& steps) {
  const std::vector<VkDescriptorPoolSize> sizes = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4}};
  VkDescriptorPool pool = scenario::create_descriptor_pool(ctx, 4, sizes, 0, "eot.descriptor_pool");
  steps.step("create:VkDescriptorPool", {{"VkDescriptorPool", 1}});
  vkDestroyDescriptorPool(ctx.device, pool, nullptr);
  steps.step("destroy:VkDescriptorPool", {{"VkDescriptorPool", -1}});

  VkDescriptorSetLayout layout = scenario::create_set_layout(
      ctx, {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}, VK_SHADER_STAGE_COMPUTE_BIT, "eot.set_layout");
  pool = scenario::create_descriptor_pool(
      ctx, 4, sizes, VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT, "eot.descriptor_pool");
  steps.step("setup:VkDescriptorSet", {{"VkDescriptorSetLayout", 1}, {"VkDescriptorPool", 1}});
  VkDescriptorSet set = scenario::allocate_set(ctx, pool, layout, "eot.set");
  steps.step("create:VkDescriptorSet", {{"VkDescriptorSet", 1}});
  VK_CHECK(vkFreeDescriptorSets(ctx.device, pool, 1, &set));
  steps.step("destroy:VkDescriptorSet", {{"VkDescriptorSet", -1}});

  // Freed implicitly: by a pool reset, then by a pool destroy.
  scenario::allocate_set(ctx, pool, layout, "eot.set");
  scenario::allocate_set(ctx, pool, layout, "eot.set");
  steps.step("create:VkDescriptorSet(x2,for-reset)", {{"VkDescriptorSet", 2}});
  VK_CHECK(vkResetDescriptorPool(ctx.device, pool, 0));
  steps.step("reset:VkDescriptorPool", {{"VkDescriptorSet", -2}});
  scenario::allocate_set(ctx, pool, layout, "eot.set");
  scenario::allocate_set(ctx, pool, layout, "eot.set");
  steps.step("create:VkDescriptorSet(x2,for-pool-destroy)", {{"VkDescriptorSet", 2}});
  vkDestroyDescriptorPool(ctx.device, pool, nullptr);
  steps.step("destroy:VkDescriptorPool(with-sets)",
             {{"VkDescriptorSet", -2}, {"VkDescriptorPool", -1}});

  VkDescriptorUpdateTemplateEntry entry{
      0, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 0, sizeof(VkDescriptorBufferInfo)};
  VkDescriptorUpdateTemplateCreateInfo template_info{
      VK_STRUCTURE_TYPE_DESCRIPTOR_UPDATE_TEMPLATE_CREATE_INFO};
  template_info.descriptorUpdateEntryCount = 1;
  template_info.pDescriptorUpdateEntries = &entry;
  template_info.templateType = VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET;
  template_info.descriptorSetLayout = layout;
  VkDescriptorUpdateTemplate update_template = VK_NULL_HANDLE;
  VK_CHECK(vkCreateDescriptorUpdateTemplate(ctx.device, &template_info, nullptr, &update_template));
  ctx.name(VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE, update_template, "eot.update_template");
  steps.step("create:VkDescriptorUpdateTemplate", {{"VkDescriptorUpdateTemplate", 1}});
  vkDestroyDescriptorUpdateTemplate(ctx.device, update_template, nullptr);
  steps.step("destroy:VkDescriptorUpdateTemplate", {{"VkDescriptorUpdateTemplate", -1}});

  vkDestroyDescriptorSetLayout(ctx.device, layout, nullptr);
  steps.step("teardown:VkDescriptorSet", {{"VkDescriptorSetLayout", -1}});
}

void render_passes_and_pipelines(const Context& ctx, Steps& steps) {
  VkRenderPass render_pass = create_render_pass(ctx, "eot.render_pass");
  steps.step("create:VkRenderPass", {{"VkRenderPass", 1}});
  vkDestroyRenderPass(ctx.device, render_pass, nullptr);
  steps.step("destroy:VkRenderPass", {{"VkRenderPass", -1}});

  VkImage image = create_image(ctx, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, "eot.framebuffer.image");
  VkDeviceMemory memory = bind_image_memory(ctx, image, "eot.framebuffer.memory");
  VkImageView view = create_image_view(ctx, image, "eot.framebuffer.view");
  render_pass = create_render_pass(ctx, "eot.render_pass");
  steps.step("setup:VkFramebuffer",
             {{"VkImage", 1}, {"VkDeviceMemory", 1}, {"VkImageView", 1}, {"VkRenderPass", 1}});
  VkFramebufferCreateInfo fb_info{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  fb_info.renderPass = render_pass;
  fb_info.attachmentCount = 1;
  fb_info.pAttachments = &view;
  fb_info.width = 16;
  fb_info.height = 16;
  fb_info.layers = 1;
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  VK_CHECK(vkCreateFramebuffer(ctx.device, &fb_info, nullptr, &framebuffer));
  ctx.name(VK_OBJECT_TYPE_FRAMEBUFFER, framebuffer, "eot.framebuffer");
  steps.step("create:VkFramebuffer", {{"VkFramebuffer", 1}});
  vkDestroyFramebuffer(ctx.device, framebuffer, nullptr);
  steps.step("destroy:VkFramebuffer", {{"VkFramebuffer", -1}});
  vkDestroyImageView(ctx.device, view, nullptr);
  vkDestroyImage(ctx.device, image, nullptr);
  vkFreeMemory(ctx.device, memory, nullptr);
  steps.step("teardown:VkFramebuffer",
             {{"VkImage", -1}, {"VkDeviceMemory", -1}, {"VkImageView", -1}});
  // The render pass stays for the graphics pipeline.

  VkShaderModule vert = scenario::create_shader_module(ctx, triangle_vert, "eot.shader.vert");
  VkShaderModule frag = scenario::create_shader_module(ctx, triangle_frag, "eot.shader.frag");
  VkPipelineLayout empty_layout = scenario::create_pipeline_layout(ctx, {}, "eot.pipeline_layout");
  steps.step("setup:VkPipeline(graphics)", {{"VkShaderModule", 2}, {"VkPipelineLayout", 1}});
  VkPipeline pipeline = create_graphics_pipeline(ctx, empty_layout, render_pass, vert, frag);
  steps.step("create:VkPipeline(graphics)", {{"VkPipeline", 1}});
  vkDestroyPipeline(ctx.device, pipeline, nullptr);
  steps.step("destroy:VkPipeline(graphics)", {{"VkPipeline", -1}});
  vkDestroyShaderModule(ctx.device, vert, nullptr);
  vkDestroyShaderModule(ctx.device, frag, nullptr);
  vkDestroyPipelineLayout(ctx.device, empty_layout, nullptr);
  vkDestroyRenderPass(ctx.device, render_pass, nullptr);
  steps.step("teardown:VkPipeline(graphics)",
             {{"VkShaderModule", -2}, {"VkPipelineLayout", -1}, {"VkRenderPass", -1}});

  VkShaderModule comp = scenario::create_shader_module(ctx, fill_comp, "eot.shader.comp");
  VkDescriptorSetLayout set_layout = scenario::create_set_layout(
      ctx, {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}, VK_SHADER_STAGE_COMPUTE_BIT, "eot.set_layout");
  VkPipelineLayout layout =
      scenario::create_pipeline_layout(ctx, {set_layout}, "eot.pipeline_layout", sizeof(uint32_t));
  steps.step("setup:VkPipeline(compute)",
             {{"VkShaderModule", 1}, {"VkDescriptorSetLayout", 1}, {"VkPipelineLayout", 1}});
  pipeline = scenario::create_compute_pipeline(ctx, layout, comp, "eot.pipeline.compute");
  steps.step("create:VkPipeline(compute)", {{"VkPipeline", 1}});
  vkDestroyPipeline(ctx.device, pipeline, nullptr);
  steps.step("destroy:VkPipeline(compute)", {{"VkPipeline", -1}});
  vkDestroyPipelineLayout(ctx.device, layout, nullptr);
  vkDestroyDescriptorSetLayout(ctx.device, set_layout, nullptr);
  vkDestroyShaderModule(ctx.device, comp, nullptr);
  steps.step("teardown:VkPipeline(compute)",
             {{"VkShaderModule", -1}, {"VkDescriptorSetLayout", -1}, {"VkPipelineLayout", -1}});
}

void commands(const Context& ctx, Steps& steps) {
  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.queueFamilyIndex = ctx.queue_family;
  VkCommandPool pool = VK_NULL_HANDLE;
  VK_CHECK(vkCreateCommandPool(ctx.device, &pool_info, nullptr, &pool));
  ctx.name(VK_OBJECT_TYPE_COMMAND_POOL, pool, "eot.command_pool");
  steps.step("create:VkCommandPool", {{"VkCommandPool", 1}});

  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  VkCommandBuffer cmds[2];
  VK_CHECK(vkAllocateCommandBuffers(ctx.device, &alloc, cmds));
  ctx.name(VK_OBJECT_TYPE_COMMAND_BUFFER, cmds[0], "eot.command_buffer");
  steps.step("create:VkCommandBuffer", {{"VkCommandBuffer", 1}});
  vkFreeCommandBuffers(ctx.device, pool, 1, cmds);
  steps.step("destroy:VkCommandBuffer", {{"VkCommandBuffer", -1}});

  alloc.commandBufferCount = 2;
  VK_CHECK(vkAllocateCommandBuffers(ctx.device, &alloc, cmds));
  for (VkCommandBuffer cmd : cmds)
    ctx.name(VK_OBJECT_TYPE_COMMAND_BUFFER, cmd, "eot.command_buffer");
  steps.step("create:VkCommandBuffer(x2,for-pool-destroy)", {{"VkCommandBuffer", 2}});
  VK_CHECK(vkResetCommandPool(ctx.device, pool, 0));
  steps.step("reset:VkCommandPool", {});  // a reset frees no command buffer
  vkDestroyCommandPool(ctx.device, pool, nullptr);
  steps.step("destroy:VkCommandPool(with-buffers)",
             {{"VkCommandBuffer", -2}, {"VkCommandPool", -1}});
}

void synchronization_and_queries(const Context& ctx, Steps& steps) {
  VkFence fence = scenario::create_fence(ctx, "eot.fence");
  steps.step("create:VkFence", {{"VkFence", 1}});
  vkDestroyFence(ctx.device, fence, nullptr);
  steps.step("destroy:VkFence", {{"VkFence", -1}});

  VkSemaphoreCreateInfo sem_info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  VkSemaphore semaphore = VK_NULL_HANDLE;
  VK_CHECK(vkCreateSemaphore(ctx.device, &sem_info, nullptr, &semaphore));
  ctx.name(VK_OBJECT_TYPE_SEMAPHORE, semaphore, "eot.semaphore");
  steps.step("create:VkSemaphore", {{"VkSemaphore", 1}});
  vkDestroySemaphore(ctx.device, semaphore, nullptr);
  steps.step("destroy:VkSemaphore", {{"VkSemaphore", -1}});

  if (ctx.timeline_semaphore) {
    VkSemaphoreTypeCreateInfo type_info{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type_info.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    sem_info.pNext = &type_info;
    VK_CHECK(vkCreateSemaphore(ctx.device, &sem_info, nullptr, &semaphore));
    ctx.name(VK_OBJECT_TYPE_SEMAPHORE, semaphore, "eot.semaphore.timeline");
    steps.step("create:VkSemaphore(timeline)", {{"VkSemaphore", 1}});
    vkDestroySemaphore(ctx.device, semaphore, nullptr);
    steps.step("destroy:VkSemaphore(timeline)", {{"VkSemaphore", -1}});
  }

  VkEventCreateInfo event_info{VK_STRUCTURE_TYPE_EVENT_CREATE_INFO};
  VkEvent event = VK_NULL_HANDLE;
  VK_CHECK(vkCreateEvent(ctx.device, &event_info, nullptr, &event));
  ctx.name(VK_OBJECT_TYPE_EVENT, event, "eot.event");
  steps.step("create:VkEvent", {{"VkEvent", 1}});
  vkDestroyEvent(ctx.device, event, nullptr);
  steps.step("destroy:VkEvent", {{"VkEvent", -1}});

  VkQueryPoolCreateInfo query_info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  query_info.queryType = VK_QUERY_TYPE_OCCLUSION;
  query_info.queryCount = 4;
  VkQueryPool query_pool = VK_NULL_HANDLE;
  VK_CHECK(vkCreateQueryPool(ctx.device, &query_info, nullptr, &query_pool));
  ctx.name(VK_OBJECT_TYPE_QUERY_POOL, query_pool, "eot.query_pool");
  steps.step("create:VkQueryPool", {{"VkQueryPool", 1}});
  vkDestroyQueryPool(ctx.device, query_pool, nullptr);
  steps.step("destroy:VkQueryPool", {{"VkQueryPool", -1}});
}

void extension_objects(const Context& ctx, Steps& steps) {
  if (ctx.private_data) {
    auto create =
        reinterpret_cast<PFN_vkCreatePrivateDataSlot>(ctx.device_proc("vkCreatePrivateDataSlot"));
    auto destroy =
        reinterpret_cast<PFN_vkDestroyPrivateDataSlot>(ctx.device_proc("vkDestroyPrivateDataSlot"));
    VkPrivateDataSlotCreateInfo info{VK_STRUCTURE_TYPE_PRIVATE_DATA_SLOT_CREATE_INFO};
    VkPrivateDataSlot slot = VK_NULL_HANDLE;
    VK_CHECK(create(ctx.device, &info, nullptr, &slot));
    ctx.name(VK_OBJECT_TYPE_PRIVATE_DATA_SLOT, slot, "eot.private_data_slot");
    steps.step("create:VkPrivateDataSlot", {{"VkPrivateDataSlot", 1}});
    destroy(ctx.device, slot, nullptr);
    steps.step("destroy:VkPrivateDataSlot", {{"VkPrivateDataSlot", -1}});
  } else {
    steps.skip("VkPrivateDataSlot", "privateData feature (Vulkan 1.3) not supported");
  }

  if (ctx.has_device_extension(VK_KHR_DEFERRED_HOST_OPERATIONS_EXTENSION_NAME)) {
    auto create = reinterpret_cast<PFN_vkCreateDeferredOperationKHR>(
        ctx.device_proc("vkCreateDeferredOperationKHR"));
    auto destroy = reinterpret_cast<PFN_vkDestroyDeferredOperationKHR>(
        ctx.device_proc("vkDestroyDeferredOperationKHR"));
    VkDeferredOperationKHR operation = VK_NULL_HANDLE;
    VK_CHECK(create(ctx.device, nullptr, &operation));
    ctx.name(VK_OBJECT_TYPE_DEFERRED_OPERATION_KHR, operation, "eot.deferred_operation");
    steps.step("create:VkDeferredOperationKHR", {{"VkDeferredOperationKHR", 1}});
    destroy(ctx.device, operation, nullptr);
    steps.step("destroy:VkDeferredOperationKHR", {{"VkDeferredOperationKHR", -1}});
  } else {
    steps.skip("VkDeferredOperationKHR", "VK_KHR_deferred_host_operations not supported");
  }

  if (ctx.has_device_extension(VK_EXT_VALIDATION_CACHE_EXTENSION_NAME)) {
    auto create = reinterpret_cast<PFN_vkCreateValidationCacheEXT>(
        ctx.device_proc("vkCreateValidationCacheEXT"));
    auto destroy = reinterpret_cast<PFN_vkDestroyValidationCacheEXT>(
        ctx.device_proc("vkDestroyValidationCacheEXT"));
    VkValidationCacheCreateInfoEXT info{VK_STRUCTURE_TYPE_VALIDATION_CACHE_CREATE_INFO_EXT};
    VkValidationCacheEXT cache = VK_NULL_HANDLE;
    VK_CHECK(create(ctx.device, &info, nullptr, &cache));
    ctx.name(VK_OBJECT_TYPE_VALIDATION_CACHE_EXT, cache, "eot.validation_cache");
    steps.step("create:VkValidationCacheEXT", {{"VkValidationCacheEXT", 1}});
    destroy(ctx.device, cache, nullptr);
    steps.step("destroy:VkValidationCacheEXT", {{"VkValidationCacheEXT", -1}});
  } else {
    steps.skip("VkValidationCacheEXT",
               "VK_EXT_validation_cache not supported (only the validation layer offers it)");
  }

  // Handle types this scenario does not create: listed so that the test sees every type.
  struct NotExercised {
    const char* type;
    const char* extension;
  };
  static const NotExercised kNotExercised[] = {
      {"VkAccelerationStructureKHR", VK_KHR_ACCELERATION_STRUCTURE_EXTENSION_NAME},
      {"VkAccelerationStructureNV", VK_NV_RAY_TRACING_EXTENSION_NAME},
      {"VkMicromapEXT", VK_EXT_OPACITY_MICROMAP_EXTENSION_NAME},
      {"VkVideoSessionKHR", VK_KHR_VIDEO_QUEUE_EXTENSION_NAME},
      {"VkVideoSessionParametersKHR", VK_KHR_VIDEO_QUEUE_EXTENSION_NAME},
      {"VkIndirectCommandsLayoutNV", VK_NV_DEVICE_GENERATED_COMMANDS_EXTENSION_NAME},
      {"VkCuModuleNVX", VK_NVX_BINARY_IMPORT_EXTENSION_NAME},
      {"VkCuFunctionNVX", VK_NVX_BINARY_IMPORT_EXTENSION_NAME},
      {"VkOpticalFlowSessionNV", VK_NV_OPTICAL_FLOW_EXTENSION_NAME},
      {"VkPerformanceConfigurationINTEL", VK_INTEL_PERFORMANCE_QUERY_EXTENSION_NAME},
  };
  for (const NotExercised& entry : kNotExercised) {
    steps.skip(entry.type, ctx.has_device_extension(entry.extension)
                               ? std::string("not exercised by this scenario")
                               : std::string(entry.extension) + " not supported");
  }
  steps.skip("VkDisplayKHR", "not exercised by this scenario (no display on this platform)");
  steps.skip("VkDisplayModeKHR", "not exercised by this scenario (no display on this platform)");
}

void surface_and_swapchain(const Context& ctx, Steps& steps, bool swapchain_mode) {
  if (!swapchain_mode) {
    steps.skip("VkSurfaceKHR", "needs --swapchain");
    steps.skip("VkSwapchainKHR", "needs --swapchain");
    return;
  }
  scenario::Window window = scenario::create_window(64, 64, "every_object_type");
  VkSurfaceKHR surface = scenario::create_surface(ctx, window, "eot.surface");
  steps.step("create:VkSurfaceKHR", {{"VkSurfaceKHR", 1}});
  VkBool32 supported = VK_FALSE;
  VK_CHECK(vkGetPhysicalDeviceSurfaceSupportKHR(ctx.physical_device, ctx.queue_family, surface,
                                                &supported));
  if (!supported) scenario::fail("the queue family cannot present to the window");
  scenario::Swapchain swapchain =
      scenario::create_swapchain(ctx, surface, {64, 64}, VK_NULL_HANDLE, "eot.swapchain");
  steps.step("create:VkSwapchainKHR", {{"VkSwapchainKHR", 1}});
  const int images =
      static_cast<int>(scenario::get_swapchain_images(ctx, swapchain.swapchain).size());
  steps.step("get:VkImage(swapchain)", {{"VkImage", images}});
  vkDestroySwapchainKHR(ctx.device, swapchain.swapchain, nullptr);
  steps.step("destroy:VkSwapchainKHR", {{"VkSwapchainKHR", -1}, {"VkImage", -images}});
  vkDestroySurfaceKHR(ctx.instance, surface, nullptr);
  steps.step("destroy:VkSurfaceKHR", {{"VkSurfaceKHR", -1}});
  scenario::destroy_window(window);
}

// A second device and a second instance, created and destroyed while the main ones live.
void devices_and_instances(const Context& ctx, Steps& steps) {
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = ctx.queue_family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  VkDevice device = VK_NULL_HANDLE;
  VK_CHECK(vkCreateDevice(ctx.physical_device, &device_info, nullptr, &device));
  steps.step("create:VkDevice", {{"VkDevice", 1}});
  VkQueue queue = VK_NULL_HANDLE;
  vkGetDeviceQueue(device, ctx.queue_family, 0, &queue);
  steps.step("get:VkQueue", {{"VkQueue", 1}});
  vkDestroyDevice(device, nullptr);
  steps.step("destroy:VkDevice", {{"VkDevice", -1}, {"VkQueue", -1}});

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "every_object_type.second_instance";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo instance_info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  instance_info.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  VK_CHECK(vkCreateInstance(&instance_info, nullptr, &instance));
  steps.step("create:VkInstance", {{"VkInstance", 1}});
  uint32_t count = 0;
  VK_CHECK(vkEnumeratePhysicalDevices(instance, &count, nullptr));
  std::vector<VkPhysicalDevice> physical_devices(count);
  VK_CHECK(vkEnumeratePhysicalDevices(instance, &count, physical_devices.data()));
  steps.step("get:VkPhysicalDevice", {{"VkPhysicalDevice", static_cast<int>(count)}});
  vkDestroyInstance(instance, nullptr);
  steps.step("destroy:VkInstance",
             {{"VkInstance", -1}, {"VkPhysicalDevice", -static_cast<int>(count)}});
}

int main(int argc, char** argv) {
  scenario::Options options("every_object_type",
                            "Creates and destroys every supported object type, one at a time, with "
                            "a vkleak.snapshot:<step> queue label after each step; prints the "
                            "expected per-step live-count deltas as JSON. --frames is ignored.",
                            0);
  options.parse(argc, argv);

  Context ctx(
      {"every_object_type",
       options.swapchain,
       {VK_EXT_DEBUG_REPORT_EXTENSION_NAME},
       {VK_KHR_DEFERRED_HOST_OPERATIONS_EXTENSION_NAME, VK_EXT_VALIDATION_CACHE_EXTENSION_NAME}});
  if (!ctx.debug_utils) {
    std::fprintf(stderr, "every_object_type: VK_EXT_debug_utils missing: no snapshot labels\n");
  }
  Steps steps(ctx);
  instance_level_objects(ctx, steps);
  memory_buffers_images(ctx, steps);
  samplers(ctx, steps);
  shaders_and_layouts(ctx, steps);
  descriptors(ctx, steps);
  render_passes_and_pipelines(ctx, steps);
  commands(ctx, steps);
  synchronization_and_queries(ctx, steps);
  extension_objects(ctx, steps);
  surface_and_swapchain(ctx, steps, options.swapchain);
  devices_and_instances(ctx, steps);
  ctx.destroy();
  steps.print_skipped();
  steps.print_json();
  return 0;
}
