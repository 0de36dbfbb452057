#include "vk_harness.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace harness {

// ---------------------------------------------------------------------------------------------
// Errors

const char* result_name(VkResult result) {
  switch (result) {
#define CASE(r) \
  case r:       \
    return #r;
    CASE(VK_SUCCESS)
    CASE(VK_NOT_READY)
    CASE(VK_TIMEOUT)
    CASE(VK_EVENT_SET)
    CASE(VK_EVENT_RESET)
    CASE(VK_INCOMPLETE)
    CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    CASE(VK_ERROR_INITIALIZATION_FAILED)
    CASE(VK_ERROR_DEVICE_LOST)
    CASE(VK_ERROR_MEMORY_MAP_FAILED)
    CASE(VK_ERROR_LAYER_NOT_PRESENT)
    CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    CASE(VK_ERROR_TOO_MANY_OBJECTS)
    CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    CASE(VK_ERROR_FRAGMENTED_POOL)
    CASE(VK_ERROR_UNKNOWN)
    CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    CASE(VK_ERROR_FRAGMENTATION)
    CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    CASE(VK_PIPELINE_COMPILE_REQUIRED)
    CASE(VK_ERROR_SURFACE_LOST_KHR)
    CASE(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR)
    CASE(VK_SUBOPTIMAL_KHR)
    CASE(VK_ERROR_OUT_OF_DATE_KHR)
    CASE(VK_ERROR_INCOMPATIBLE_DISPLAY_KHR)
    CASE(VK_ERROR_VALIDATION_FAILED_EXT)
    CASE(VK_THREAD_IDLE_KHR)
    CASE(VK_THREAD_DONE_KHR)
    CASE(VK_OPERATION_DEFERRED_KHR)
    CASE(VK_OPERATION_NOT_DEFERRED_KHR)
#undef CASE
    default:
      return "VkResult(unknown)";
  }
}

void fail_vk(VkResult result, const char* what, const char* file, int line) {
  std::fprintf(stderr, "error: %s failed: %s (%d) at %s:%d\n", what, result_name(result),
               static_cast<int>(result), file, line);
  std::exit(1);
}

void fail(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  std::exit(1);
}

// ---------------------------------------------------------------------------------------------
// Context

namespace {

bool contains(const std::vector<std::string>& list, const char* name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

std::vector<std::string> available_instance_extensions() {
  uint32_t count = 0;
  VK_CHECK(vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr));
  std::vector<VkExtensionProperties> props(count);
  VK_CHECK(vkEnumerateInstanceExtensionProperties(nullptr, &count, props.data()));
  std::vector<std::string> names;
  for (const auto& p : props) names.emplace_back(p.extensionName);
  return names;
}

std::vector<std::string> available_device_extensions(VkPhysicalDevice physical_device) {
  uint32_t count = 0;
  VK_CHECK(vkEnumerateDeviceExtensionProperties(physical_device, nullptr, &count, nullptr));
  std::vector<VkExtensionProperties> props(count);
  VK_CHECK(vkEnumerateDeviceExtensionProperties(physical_device, nullptr, &count, props.data()));
  std::vector<std::string> names;
  for (const auto& p : props) names.emplace_back(p.extensionName);
  // Extensions of the active layers (VK_EXT_validation_cache of the validation layer, ...).
  uint32_t layer_count = 0;
  VK_CHECK(vkEnumerateDeviceLayerProperties(physical_device, &layer_count, nullptr));
  std::vector<VkLayerProperties> layers(layer_count);
  VK_CHECK(vkEnumerateDeviceLayerProperties(physical_device, &layer_count, layers.data()));
  for (const auto& layer : layers) {
    uint32_t n = 0;
    if (vkEnumerateDeviceExtensionProperties(physical_device, layer.layerName, &n, nullptr) !=
        VK_SUCCESS) {
      continue;
    }
    std::vector<VkExtensionProperties> layer_props(n);
    if (vkEnumerateDeviceExtensionProperties(physical_device, layer.layerName, &n,
                                             layer_props.data()) != VK_SUCCESS) {
      continue;
    }
    for (const auto& p : layer_props) names.emplace_back(p.extensionName);
  }
  return names;
}

}  // namespace

Context::Context(const ContextConfig& config) {
  // Instance.
  uint32_t loader_version = VK_API_VERSION_1_0;
  VK_CHECK(vkEnumerateInstanceVersion(&loader_version));
  uint32_t instance_version = config.max_api_version;
  if (loader_version < VK_API_VERSION_1_3)
    instance_version = std::min(instance_version, VK_API_VERSION_1_2);
  if (loader_version < VK_API_VERSION_1_2) instance_version = VK_API_VERSION_1_1;
  if (loader_version < VK_API_VERSION_1_1) fail("the Vulkan loader does not support Vulkan 1.1");

  std::vector<std::string> available = available_instance_extensions();
  std::vector<const char*> wanted;
  if (contains(available, VK_EXT_DEBUG_UTILS_EXTENSION_NAME)) {
    wanted.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  for (const char* name : config.instance_extensions) {
    if (!contains(available, name)) fail(std::string("instance extension missing: ") + name);
    wanted.push_back(name);
  }
  for (const char* name : config.optional_instance_extensions) {
    if (contains(available, name)) wanted.push_back(name);
  }
  for (const char* name : wanted) instance_extensions_.emplace_back(name);
  debug_utils = has_instance_extension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = config.app_name.c_str();
  app.applicationVersion = config.app_version;
  app.pEngineName = config.engine_name.empty() ? nullptr : config.engine_name.c_str();
  app.apiVersion = instance_version;
  VkInstanceCreateInfo instance_info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  instance_info.pApplicationInfo = &app;
  instance_info.enabledExtensionCount = static_cast<uint32_t>(wanted.size());
  instance_info.ppEnabledExtensionNames = wanted.data();
  VK_CHECK(vkCreateInstance(&instance_info, nullptr, &instance));

  // Physical device: the first one with a graphics+compute queue family.
  uint32_t count = 0;
  VK_CHECK(vkEnumeratePhysicalDevices(instance, &count, nullptr));
  std::vector<VkPhysicalDevice> devices(count);
  VK_CHECK(vkEnumeratePhysicalDevices(instance, &count, devices.data()));
  for (VkPhysicalDevice candidate : devices) {
    uint32_t family_count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(candidate, &family_count, nullptr);
    std::vector<VkQueueFamilyProperties> families(family_count);
    vkGetPhysicalDeviceQueueFamilyProperties(candidate, &family_count, families.data());
    for (uint32_t i = 0; i < family_count; ++i) {
      VkQueueFlags needed = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
      if ((families[i].queueFlags & needed) == needed) {
        physical_device = candidate;
        queue_family = i;
        break;
      }
    }
    if (physical_device != VK_NULL_HANDLE) break;
  }
  if (physical_device == VK_NULL_HANDLE) fail("no Vulkan device with a graphics+compute queue");
  vkGetPhysicalDeviceProperties(physical_device, &properties);
  vkGetPhysicalDeviceMemoryProperties(physical_device, &memory_properties);
  api_version_ = std::min(instance_version, properties.apiVersion);
  if (api_version_ < VK_API_VERSION_1_1) fail("the Vulkan device does not support Vulkan 1.1");
  // Keep the patch level out of the comparison.
  api_version_ = VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(api_version_),
                                     VK_API_VERSION_MINOR(api_version_), 0);

  // Device extensions.
  std::vector<std::string> device_available = available_device_extensions(physical_device);
  std::vector<const char*> device_wanted;
  for (const char* name : config.device_extensions) {
    if (!contains(device_available, name)) fail(std::string("device extension missing: ") + name);
    device_wanted.push_back(name);
  }
  for (const char* name : config.optional_device_extensions) {
    if (contains(device_available, name)) device_wanted.push_back(name);
  }
  for (const char* name : device_wanted) device_extensions_.emplace_back(name);

  // Features: only the few the scenarios use, when supported and wanted.
  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceSamplerYcbcrConversionFeatures ycbcr{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SAMPLER_YCBCR_CONVERSION_FEATURES};
  if (api_version_ >= VK_API_VERSION_1_2) {
    features.pNext = &f11;
    f11.pNext = &f12;
    if (api_version_ >= VK_API_VERSION_1_3) f12.pNext = &f13;
  } else {
    features.pNext = &ycbcr;
  }
  if (config.enable_features) vkGetPhysicalDeviceFeatures2(physical_device, &features);
  VkPhysicalDeviceFeatures2 enabled{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan11Features e11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features e12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan13Features e13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceSamplerYcbcrConversionFeatures e_ycbcr{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SAMPLER_YCBCR_CONVERSION_FEATURES};
  if (api_version_ >= VK_API_VERSION_1_2) {
    enabled.pNext = &e11;
    e11.pNext = &e12;
    e11.samplerYcbcrConversion = f11.samplerYcbcrConversion;
    e12.timelineSemaphore = f12.timelineSemaphore;
    sampler_ycbcr_conversion = f11.samplerYcbcrConversion;
    timeline_semaphore = f12.timelineSemaphore;
    if (api_version_ >= VK_API_VERSION_1_3) {
      e12.pNext = &e13;
      e13.privateData = f13.privateData;
      private_data = f13.privateData;
    }
  } else {
    enabled.pNext = &e_ycbcr;
    e_ycbcr.samplerYcbcrConversion = ycbcr.samplerYcbcrConversion;
    sampler_ycbcr_conversion = ycbcr.samplerYcbcrConversion;
  }

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = queue_family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  device_info.pNext = config.enable_features ? &enabled : nullptr;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  device_info.enabledExtensionCount = static_cast<uint32_t>(device_wanted.size());
  device_info.ppEnabledExtensionNames = device_wanted.data();
  VK_CHECK(vkCreateDevice(physical_device, &device_info, nullptr, &device));
  vkGetDeviceQueue(device, queue_family, 0, &queue);

  if (debug_utils) {
    if (config.object_names) {
      set_object_name_ = reinterpret_cast<PFN_vkSetDebugUtilsObjectNameEXT>(
          device_proc("vkSetDebugUtilsObjectNameEXT"));
      if (set_object_name_ == nullptr) {
        set_object_name_ = reinterpret_cast<PFN_vkSetDebugUtilsObjectNameEXT>(
            instance_proc("vkSetDebugUtilsObjectNameEXT"));
      }
    }
    insert_label_ = reinterpret_cast<PFN_vkQueueInsertDebugUtilsLabelEXT>(
        device_proc("vkQueueInsertDebugUtilsLabelEXT"));
    if (insert_label_ == nullptr) {
      insert_label_ = reinterpret_cast<PFN_vkQueueInsertDebugUtilsLabelEXT>(
          instance_proc("vkQueueInsertDebugUtilsLabelEXT"));
    }
  }
}

void Context::destroy() {
  if (device != VK_NULL_HANDLE) {
    VK_CHECK(vkDeviceWaitIdle(device));
    vkDestroyDevice(device, nullptr);
    device = VK_NULL_HANDLE;
    queue = VK_NULL_HANDLE;
  }
  if (instance != VK_NULL_HANDLE) {
    vkDestroyInstance(instance, nullptr);
    instance = VK_NULL_HANDLE;
  }
}

bool Context::has_instance_extension(const char* name) const {
  return contains(instance_extensions_, name);
}

bool Context::has_device_extension(const char* name) const {
  return contains(device_extensions_, name);
}

void Context::name(VkObjectType type, uint64_t handle, const std::string& object_name) const {
  if (set_object_name_ == nullptr || handle == 0) return;
  switch (type) {
    // Objects that are not the driver's device objects: Mesa (lavapipe) crashes naming them.
    case VK_OBJECT_TYPE_INSTANCE:
    case VK_OBJECT_TYPE_PHYSICAL_DEVICE:
    case VK_OBJECT_TYPE_SURFACE_KHR:
    case VK_OBJECT_TYPE_DEBUG_UTILS_MESSENGER_EXT:
    case VK_OBJECT_TYPE_DEBUG_REPORT_CALLBACK_EXT:
    case VK_OBJECT_TYPE_DISPLAY_KHR:
    case VK_OBJECT_TYPE_DISPLAY_MODE_KHR:
    // Implemented by the validation layer itself, unknown to its own object tracker.
    case VK_OBJECT_TYPE_VALIDATION_CACHE_EXT:
      return;
    default:
      break;
  }
  VkDebugUtilsObjectNameInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
  info.objectType = type;
  info.objectHandle = handle;
  info.pObjectName = object_name.c_str();
  VK_CHECK(set_object_name_(device, &info));
}

void Context::insert_label(const std::string& label) const {
  if (insert_label_ == nullptr) return;
  VkDebugUtilsLabelEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
  info.pLabelName = label.c_str();
  insert_label_(queue, &info);
}

uint32_t Context::find_memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                                   VkMemoryPropertyFlags preferred) const {
  for (int pass = 0; pass < 2; ++pass) {
    VkMemoryPropertyFlags flags = pass == 0 ? (required | preferred) : required;
    for (uint32_t i = 0; i < memory_properties.memoryTypeCount; ++i) {
      if ((type_bits & (1u << i)) != 0 &&
          (memory_properties.memoryTypes[i].propertyFlags & flags) == flags) {
        return i;
      }
    }
  }
  fail("no suitable memory type");
}

std::string Context::driver_info() const {
  if (api_version_ < VK_API_VERSION_1_2) return "";
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &driver;
  vkGetPhysicalDeviceProperties2(physical_device, &props);
  return std::string(driver.driverName) + " " + driver.driverInfo;
}

PFN_vkVoidFunction Context::device_proc(const char* name) const {
  return vkGetDeviceProcAddr(device, name);
}

PFN_vkVoidFunction Context::instance_proc(const char* name) const {
  return vkGetInstanceProcAddr(instance, name);
}

// ---------------------------------------------------------------------------------------------
// Resources

VkBuffer create_buffer_object(const Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                              const std::string& name, const void* p_next) {
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.pNext = p_next;
  info.size = size;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  VK_CHECK(vkCreateBuffer(ctx.device, &info, nullptr, &buffer));
  ctx.name(VK_OBJECT_TYPE_BUFFER, buffer, name);
  return buffer;
}

VkDeviceMemory allocate_memory(const Context& ctx, VkDeviceSize size, uint32_t type_bits,
                               const std::string& name, const void* p_next) {
  // Host-visible where the resource allows it (the scenarios map buffers); optimal-tiling images
  // on a discrete GPU allow only device-local types.
  VkMemoryPropertyFlags required =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  bool host_visible = false;
  for (uint32_t i = 0; i < ctx.memory_properties.memoryTypeCount; ++i) {
    host_visible |= (type_bits & (1u << i)) != 0 &&
                    (ctx.memory_properties.memoryTypes[i].propertyFlags & required) == required;
  }
  if (!host_visible) required = 0;
  VkMemoryAllocateInfo info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  info.pNext = p_next;
  info.allocationSize = size;
  info.memoryTypeIndex =
      ctx.find_memory_type(type_bits, required, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  // Not through allocate_memory_of_type: the scenarios' call sites keep their depth.
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VK_CHECK(vkAllocateMemory(ctx.device, &info, nullptr, &memory));
  ctx.name(VK_OBJECT_TYPE_DEVICE_MEMORY, memory, name);
  return memory;
}

Buffer create_buffer(const Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                     const std::string& name) {
  Buffer result;
  result.size = size;
  result.buffer = create_buffer_object(ctx, size, usage, name);
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(ctx.device, result.buffer, &req);
  result.memory = allocate_memory(ctx, req.size, req.memoryTypeBits, name + ".memory");
  VK_CHECK(vkBindBufferMemory(ctx.device, result.buffer, result.memory, 0));
  return result;
}

void destroy_buffer(const Context& ctx, Buffer& buffer) {
  vkDestroyBuffer(ctx.device, buffer.buffer, nullptr);
  vkFreeMemory(ctx.device, buffer.memory, nullptr);
  buffer = Buffer{};
}

void upload(const Context& ctx, VkDeviceMemory memory, VkDeviceSize offset, const void* data,
            size_t size) {
  void* mapped = nullptr;
  VK_CHECK(vkMapMemory(ctx.device, memory, offset, size, 0, &mapped));
  std::memcpy(mapped, data, size);
  vkUnmapMemory(ctx.device, memory);
}

void download(const Context& ctx, VkDeviceMemory memory, VkDeviceSize offset, void* data,
              size_t size) {
  void* mapped = nullptr;
  VK_CHECK(vkMapMemory(ctx.device, memory, offset, size, 0, &mapped));
  std::memcpy(data, mapped, size);
  vkUnmapMemory(ctx.device, memory);
}

VkShaderModule create_shader_module(const Context& ctx, const uint32_t* code, size_t code_bytes,
                                    const std::string& name) {
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = code_bytes;
  info.pCode = code;
  VkShaderModule module = VK_NULL_HANDLE;
  VK_CHECK(vkCreateShaderModule(ctx.device, &info, nullptr, &module));
  ctx.name(VK_OBJECT_TYPE_SHADER_MODULE, module, name);
  return module;
}

VkDescriptorSetLayout create_set_layout(const Context& ctx,
                                        const std::vector<VkDescriptorType>& bindings,
                                        VkShaderStageFlags stages, const std::string& name) {
  std::vector<VkDescriptorSetLayoutBinding> layout_bindings;
  for (uint32_t i = 0; i < bindings.size(); ++i) {
    layout_bindings.push_back({i, bindings[i], 1, stages, nullptr});
  }
  VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  info.bindingCount = static_cast<uint32_t>(layout_bindings.size());
  info.pBindings = layout_bindings.data();
  VkDescriptorSetLayout layout = VK_NULL_HANDLE;
  VK_CHECK(vkCreateDescriptorSetLayout(ctx.device, &info, nullptr, &layout));
  ctx.name(VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, layout, name);
  return layout;
}

VkPipelineLayout create_pipeline_layout(const Context& ctx,
                                        const std::vector<VkDescriptorSetLayout>& set_layouts,
                                        const std::string& name, uint32_t push_constant_bytes) {
  VkPushConstantRange range{VK_SHADER_STAGE_ALL, 0, push_constant_bytes};
  VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  info.setLayoutCount = static_cast<uint32_t>(set_layouts.size());
  info.pSetLayouts = set_layouts.data();
  info.pushConstantRangeCount = push_constant_bytes > 0 ? 1 : 0;
  info.pPushConstantRanges = &range;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VK_CHECK(vkCreatePipelineLayout(ctx.device, &info, nullptr, &layout));
  ctx.name(VK_OBJECT_TYPE_PIPELINE_LAYOUT, layout, name);
  return layout;
}

VkPipeline create_compute_pipeline(const Context& ctx, VkPipelineLayout layout,
                                   VkShaderModule module, const std::string& name) {
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = "main";
  info.layout = layout;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VK_CHECK(vkCreateComputePipelines(ctx.device, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline));
  ctx.name(VK_OBJECT_TYPE_PIPELINE, pipeline, name);
  return pipeline;
}

VkPipeline create_graphics_pipeline(const Context& ctx, VkPipelineLayout layout,
                                    VkRenderPass render_pass, VkShaderModule vert,
                                    VkShaderModule frag, VkExtent2D extent,
                                    const std::string& name) {
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
  VkViewport viewport{0, 0, static_cast<float>(extent.width), static_cast<float>(extent.height),
                      0, 1};
  VkRect2D scissor{{0, 0}, extent};
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
  gpi.layout = layout;
  gpi.renderPass = render_pass;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VK_CHECK(vkCreateGraphicsPipelines(ctx.device, VK_NULL_HANDLE, 1, &gpi, nullptr, &pipeline));
  ctx.name(VK_OBJECT_TYPE_PIPELINE, pipeline, name);
  return pipeline;
}

VkDescriptorPool create_descriptor_pool(const Context& ctx, uint32_t max_sets,
                                        const std::vector<VkDescriptorPoolSize>& sizes,
                                        VkDescriptorPoolCreateFlags flags,
                                        const std::string& name) {
  VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  info.flags = flags;
  info.maxSets = max_sets;
  info.poolSizeCount = static_cast<uint32_t>(sizes.size());
  info.pPoolSizes = sizes.data();
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VK_CHECK(vkCreateDescriptorPool(ctx.device, &info, nullptr, &pool));
  ctx.name(VK_OBJECT_TYPE_DESCRIPTOR_POOL, pool, name);
  return pool;
}

VkDescriptorSet allocate_set(const Context& ctx, VkDescriptorPool pool,
                             VkDescriptorSetLayout layout, const std::string& name) {
  VkDescriptorSetAllocateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  info.descriptorPool = pool;
  info.descriptorSetCount = 1;
  info.pSetLayouts = &layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  VK_CHECK(vkAllocateDescriptorSets(ctx.device, &info, &set));
  ctx.name(VK_OBJECT_TYPE_DESCRIPTOR_SET, set, name);
  return set;
}

void write_buffer_descriptor(const Context& ctx, VkDescriptorSet set, uint32_t binding,
                             VkDescriptorType type, VkBuffer buffer, VkDeviceSize range) {
  VkDescriptorBufferInfo buffer_info{buffer, 0, range};
  VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  write.dstSet = set;
  write.dstBinding = binding;
  write.descriptorCount = 1;
  write.descriptorType = type;
  write.pBufferInfo = &buffer_info;
  vkUpdateDescriptorSets(ctx.device, 1, &write, 0, nullptr);
}

VkFence create_fence(const Context& ctx, const std::string& name, bool signaled) {
  VkFenceCreateInfo info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  if (signaled) info.flags = VK_FENCE_CREATE_SIGNALED_BIT;
  VkFence fence = VK_NULL_HANDLE;
  VK_CHECK(vkCreateFence(ctx.device, &info, nullptr, &fence));
  ctx.name(VK_OBJECT_TYPE_FENCE, fence, name);
  return fence;
}

VkDeviceMemory allocate_memory_of_type(const Context& ctx, VkDeviceSize size, uint32_t type_index,
                                       const std::string& name, const void* p_next) {
  VkMemoryAllocateInfo info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  info.pNext = p_next;
  info.allocationSize = size;
  info.memoryTypeIndex = type_index;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VK_CHECK(vkAllocateMemory(ctx.device, &info, nullptr, &memory));
  ctx.name(VK_OBJECT_TYPE_DEVICE_MEMORY, memory, name);
  return memory;
}

VkImage create_image(const Context& ctx, VkExtent2D extent, VkImageUsageFlags usage,
                     const std::string& name) {
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = VK_FORMAT_R8G8B8A8_UNORM;
  info.extent = {extent.width, extent.height, 1};
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = usage;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  VkImage image = VK_NULL_HANDLE;
  VK_CHECK(vkCreateImage(ctx.device, &info, nullptr, &image));
  ctx.name(VK_OBJECT_TYPE_IMAGE, image, name);
  return image;
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

VkFramebuffer create_framebuffer(const Context& ctx, VkRenderPass render_pass, VkImageView view,
                                 VkExtent2D extent, const std::string& name) {
  VkFramebufferCreateInfo info{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  info.renderPass = render_pass;
  info.attachmentCount = 1;
  info.pAttachments = &view;
  info.width = extent.width;
  info.height = extent.height;
  info.layers = 1;
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  VK_CHECK(vkCreateFramebuffer(ctx.device, &info, nullptr, &framebuffer));
  ctx.name(VK_OBJECT_TYPE_FRAMEBUFFER, framebuffer, name);
  return framebuffer;
}

VkCommandPool create_command_pool(const Context& ctx, VkCommandPoolCreateFlags flags,
                                  const std::string& name) {
  VkCommandPoolCreateInfo info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  info.flags = flags;
  info.queueFamilyIndex = ctx.queue_family;
  VkCommandPool pool = VK_NULL_HANDLE;
  VK_CHECK(vkCreateCommandPool(ctx.device, &info, nullptr, &pool));
  ctx.name(VK_OBJECT_TYPE_COMMAND_POOL, pool, name);
  return pool;
}

VkCommandBuffer allocate_command_buffer(const Context& ctx, VkCommandPool pool,
                                        const std::string& name) {
  VkCommandBufferAllocateInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  info.commandPool = pool;
  info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  info.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VK_CHECK(vkAllocateCommandBuffers(ctx.device, &info, &cmd));
  ctx.name(VK_OBJECT_TYPE_COMMAND_BUFFER, cmd, name);
  return cmd;
}

}  // namespace harness
