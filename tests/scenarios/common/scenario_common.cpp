#include "scenario_common.h"

#include <vulkan/vulkan_xcb.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace scenario {

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
// Options

Options::Options(std::string program, std::string description, uint32_t default_frames)
    : frames(default_frames), program_(std::move(program)), description_(std::move(description)) {
  add_uint("--frames", &frames, "number of frames (default " + std::to_string(frames) + ")");
  options_.push_back({"--headless",
                      Option::Kind::kHeadless,
                      &swapchain,
                      "frames end at vkQueueSubmit (default)",
                      {}});
  add_flag("--swapchain", &swapchain,
           "open an xcb window and present every frame; frames end at vkQueuePresentKHR");
  options_.push_back({"--help", Option::Kind::kFlag, nullptr, "print this help", {}});
}

void Options::add_uint(const std::string& name, uint32_t* value, const std::string& help) {
  options_.push_back({name, Option::Kind::kUint, value, help, {}});
}

void Options::add_string(const std::string& name, std::string* value, const std::string& help,
                         std::vector<std::string> allowed) {
  options_.push_back({name, Option::Kind::kString, value, help, std::move(allowed)});
}

void Options::add_flag(const std::string& name, bool* value, const std::string& help) {
  options_.push_back({name, Option::Kind::kFlag, value, help, {}});
}

void Options::add_alias(const std::string& alias, const std::string& name) {
  aliases_.emplace_back(alias, name);
}

const Options::Option* Options::find(const std::string& name) const {
  std::string target = name;
  for (const auto& [alias, real] : aliases_) {
    if (alias == name) target = real;
  }
  for (const Option& option : options_) {
    if (option.name == target) return &option;
  }
  return nullptr;
}

void Options::print_usage() const {
  std::printf("usage: %s [options]\n%s\n\noptions:\n", program_.c_str(), description_.c_str());
  for (const Option& option : options_) {
    std::string left = option.name;
    for (const auto& [alias, real] : aliases_) {
      if (real == option.name) left += ", " + alias;
    }
    if (option.kind == Option::Kind::kUint) left += " N";
    if (option.kind == Option::Kind::kString) {
      std::string values;
      for (const std::string& v : option.allowed) values += (values.empty() ? "" : "|") + v;
      left += " " + (values.empty() ? std::string("VALUE") : values);
    }
    std::printf("  %-32s %s\n", left.c_str(), option.help.c_str());
  }
}

void Options::parse(int argc, char** argv) {
  auto bad = [&](const std::string& message) {
    std::fprintf(stderr, "%s: %s (try --help)\n", program_.c_str(), message.c_str());
    std::exit(2);
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string inline_value;
    bool has_inline_value = false;
    if (size_t eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
      inline_value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_inline_value = true;
    }
    const Option* option = find(arg);
    if (option == nullptr) bad("unknown option '" + arg + "'");
    if (option->name == "--help") {
      print_usage();
      std::exit(0);
    }
    auto next_value = [&]() -> std::string {
      if (has_inline_value) return inline_value;
      if (i + 1 >= argc) bad("option " + arg + " needs a value");
      return argv[++i];
    };
    switch (option->kind) {
      case Option::Kind::kFlag:
        *static_cast<bool*>(option->value) = true;
        break;
      case Option::Kind::kHeadless:
        *static_cast<bool*>(option->value) = false;
        break;
      case Option::Kind::kUint: {
        std::string text = next_value();
        char* end = nullptr;
        unsigned long parsed = std::strtoul(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || text[0] == '-' || parsed > UINT32_MAX) {
          bad("option " + arg + " needs a non-negative integer, got '" + text + "'");
        }
        *static_cast<uint32_t*>(option->value) = static_cast<uint32_t>(parsed);
        break;
      }
      case Option::Kind::kString: {
        std::string text = next_value();
        if (!option->allowed.empty() && std::find(option->allowed.begin(), option->allowed.end(),
                                                  text) == option->allowed.end()) {
          bad("bad value '" + text + "' for option " + arg);
        }
        *static_cast<std::string*>(option->value) = text;
        break;
      }
    }
  }
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
  uint32_t instance_version = VK_API_VERSION_1_3;
  if (loader_version < VK_API_VERSION_1_3) instance_version = VK_API_VERSION_1_2;
  if (loader_version < VK_API_VERSION_1_2) instance_version = VK_API_VERSION_1_1;
  if (loader_version < VK_API_VERSION_1_1) fail("the Vulkan loader does not support Vulkan 1.1");

  std::vector<std::string> available = available_instance_extensions();
  std::vector<const char*> wanted;
  if (contains(available, VK_EXT_DEBUG_UTILS_EXTENSION_NAME)) {
    wanted.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  if (config.swapchain) {
    for (const char* name : {VK_KHR_SURFACE_EXTENSION_NAME, VK_KHR_XCB_SURFACE_EXTENSION_NAME}) {
      if (!contains(available, name)) fail(std::string("instance extension missing: ") + name);
      wanted.push_back(name);
    }
  }
  for (const char* name : config.optional_instance_extensions) {
    if (contains(available, name)) wanted.push_back(name);
  }
  for (const char* name : wanted) instance_extensions_.emplace_back(name);
  debug_utils = has_instance_extension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = config.app_name.c_str();
  app.applicationVersion = 1;
  app.pEngineName = "vkleak-scenarios";
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
  if (config.swapchain) {
    if (!contains(device_available, VK_KHR_SWAPCHAIN_EXTENSION_NAME)) {
      fail("device extension missing: " VK_KHR_SWAPCHAIN_EXTENSION_NAME);
    }
    device_wanted.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
  }
  for (const char* name : config.optional_device_extensions) {
    if (contains(device_available, name)) device_wanted.push_back(name);
  }
  for (const char* name : device_wanted) device_extensions_.emplace_back(name);

  // Features: only the few the scenarios use, when supported.
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
  vkGetPhysicalDeviceFeatures2(physical_device, &features);
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
  device_info.pNext = &enabled;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  device_info.enabledExtensionCount = static_cast<uint32_t>(device_wanted.size());
  device_info.ppEnabledExtensionNames = device_wanted.data();
  VK_CHECK(vkCreateDevice(physical_device, &device_info, nullptr, &device));
  vkGetDeviceQueue(device, queue_family, 0, &queue);

  if (debug_utils) {
    set_object_name_ = reinterpret_cast<PFN_vkSetDebugUtilsObjectNameEXT>(
        device_proc("vkSetDebugUtilsObjectNameEXT"));
    if (set_object_name_ == nullptr) {
      set_object_name_ = reinterpret_cast<PFN_vkSetDebugUtilsObjectNameEXT>(
          instance_proc("vkSetDebugUtilsObjectNameEXT"));
    }
    insert_label_ = reinterpret_cast<PFN_vkQueueInsertDebugUtilsLabelEXT>(
        device_proc("vkQueueInsertDebugUtilsLabelEXT"));
    if (insert_label_ == nullptr) {
      insert_label_ = reinterpret_cast<PFN_vkQueueInsertDebugUtilsLabelEXT>(
          instance_proc("vkQueueInsertDebugUtilsLabelEXT"));
    }
  }
  name(VK_OBJECT_TYPE_DEVICE, device, "scenario.device");
  name(VK_OBJECT_TYPE_QUEUE, queue, "scenario.queue");
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
  VkMemoryAllocateInfo info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  info.pNext = p_next;
  info.allocationSize = size;
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
  info.memoryTypeIndex =
      ctx.find_memory_type(type_bits, required, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
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

void sleep_ms(unsigned milliseconds) {
  std::this_thread::sleep_for(std::chrono::milliseconds(milliseconds));
}

// ---------------------------------------------------------------------------------------------
// Window

Window create_window(uint32_t width, uint32_t height, const char* title) {
  Window window;
  int screen_index = 0;
  window.connection = xcb_connect(nullptr, &screen_index);
  if (window.connection == nullptr || xcb_connection_has_error(window.connection) != 0) {
    fail("cannot connect to the X server (is DISPLAY set? run under xvfb-run -a)");
  }
  xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(window.connection));
  for (int i = 0; i < screen_index; ++i) xcb_screen_next(&it);
  xcb_screen_t* screen = it.data;
  window.window = xcb_generate_id(window.connection);
  uint32_t value_mask = XCB_CW_BACK_PIXEL;
  uint32_t values[] = {screen->black_pixel};
  xcb_create_window(window.connection, XCB_COPY_FROM_PARENT, window.window, screen->root, 0, 0,
                    static_cast<uint16_t>(width), static_cast<uint16_t>(height), 0,
                    XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual, value_mask, values);
  xcb_change_property(window.connection, XCB_PROP_MODE_REPLACE, window.window, XCB_ATOM_WM_NAME,
                      XCB_ATOM_STRING, 8, static_cast<uint32_t>(std::strlen(title)), title);
  xcb_map_window(window.connection, window.window);
  xcb_flush(window.connection);
  return window;
}

void destroy_window(Window& window) {
  if (window.connection == nullptr) return;
  xcb_destroy_window(window.connection, window.window);
  xcb_disconnect(window.connection);
  window = Window{};
}

VkSurfaceKHR create_surface(const Context& ctx, const Window& window, const std::string& name) {
  VkXcbSurfaceCreateInfoKHR info{VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR};
  info.connection = window.connection;
  info.window = window.window;
  VkSurfaceKHR surface = VK_NULL_HANDLE;
  VK_CHECK(vkCreateXcbSurfaceKHR(ctx.instance, &info, nullptr, &surface));
  ctx.name(VK_OBJECT_TYPE_SURFACE_KHR, surface, name);  // a no-op, see Context::name
  return surface;
}

Swapchain create_swapchain(const Context& ctx, VkSurfaceKHR surface, VkExtent2D window_extent,
                           VkSwapchainKHR old, const std::string& name) {
  VkSurfaceCapabilitiesKHR caps;
  VK_CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(ctx.physical_device, surface, &caps));
  uint32_t count = 0;
  VK_CHECK(vkGetPhysicalDeviceSurfaceFormatsKHR(ctx.physical_device, surface, &count, nullptr));
  std::vector<VkSurfaceFormatKHR> formats(count);
  VK_CHECK(
      vkGetPhysicalDeviceSurfaceFormatsKHR(ctx.physical_device, surface, &count, formats.data()));
  if (formats.empty()) fail("the surface has no formats");
  VkSurfaceFormatKHR format = formats[0];
  for (const auto& f : formats) {
    if (f.format == VK_FORMAT_B8G8R8A8_UNORM) format = f;
  }
  VK_CHECK(
      vkGetPhysicalDeviceSurfacePresentModesKHR(ctx.physical_device, surface, &count, nullptr));
  std::vector<VkPresentModeKHR> modes(count);
  VK_CHECK(vkGetPhysicalDeviceSurfacePresentModesKHR(ctx.physical_device, surface, &count,
                                                     modes.data()));
  // Fastest first: the scenarios must not be throttled by a (virtual) display.
  VkPresentModeKHR mode = VK_PRESENT_MODE_FIFO_KHR;
  for (VkPresentModeKHR preferred : {VK_PRESENT_MODE_MAILBOX_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR}) {
    if (std::find(modes.begin(), modes.end(), preferred) != modes.end()) mode = preferred;
  }
  if ((caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT) == 0) {
    fail("swapchain images cannot be cleared (no TRANSFER_DST usage)");
  }
  Swapchain result;
  result.extent = caps.currentExtent;
  if (result.extent.width == UINT32_MAX) result.extent = window_extent;
  result.format = format.format;
  uint32_t image_count = caps.minImageCount + 1;
  if (caps.maxImageCount != 0) image_count = std::min(image_count, caps.maxImageCount);

  VkSwapchainCreateInfoKHR info{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
  info.surface = surface;
  info.minImageCount = image_count;
  info.imageFormat = format.format;
  info.imageColorSpace = format.colorSpace;
  info.imageExtent = result.extent;
  info.imageArrayLayers = 1;
  info.imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  info.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
  info.preTransform = caps.currentTransform;
  info.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
  if ((caps.supportedCompositeAlpha & VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR) == 0) {
    info.compositeAlpha = VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR;
  }
  info.presentMode = mode;
  info.clipped = VK_TRUE;
  info.oldSwapchain = old;
  VK_CHECK(vkCreateSwapchainKHR(ctx.device, &info, nullptr, &result.swapchain));
  ctx.name(VK_OBJECT_TYPE_SWAPCHAIN_KHR, result.swapchain, name);
  return result;
}

std::vector<VkImage> get_swapchain_images(const Context& ctx, VkSwapchainKHR swapchain) {
  uint32_t count = 0;
  VK_CHECK(vkGetSwapchainImagesKHR(ctx.device, swapchain, &count, nullptr));
  std::vector<VkImage> images(count);
  VK_CHECK(vkGetSwapchainImagesKHR(ctx.device, swapchain, &count, images.data()));
  return images;
}

// ---------------------------------------------------------------------------------------------
// FrameLoop

FrameLoop::FrameLoop(Context& ctx, const FrameLoopConfig& config) : ctx_(ctx), config_(config) {
  if (config_.frames_in_flight == 0) fail("frames in flight must be at least 1");
  if (config_.timeline && !ctx_.timeline_semaphore) {
    fail("--timeline needs the timelineSemaphore feature (Vulkan 1.2)");
  }
  if (config_.timeline) {
    VkSemaphoreTypeCreateInfo type_info{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type_info.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    type_info.initialValue = 0;
    VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    info.pNext = &type_info;
    VK_CHECK(vkCreateSemaphore(ctx_.device, &info, nullptr, &timeline_));
    ctx_.name(VK_OBJECT_TYPE_SEMAPHORE, timeline_, "frame.timeline");
  }
  slots_.resize(config_.frames_in_flight);
  for (uint32_t i = 0; i < slots_.size(); ++i) {
    Slot& slot = slots_[i];
    std::string suffix = "." + std::to_string(i);
    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool_info.queueFamilyIndex = ctx_.queue_family;
    VK_CHECK(vkCreateCommandPool(ctx_.device, &pool_info, nullptr, &slot.pool));
    ctx_.name(VK_OBJECT_TYPE_COMMAND_POOL, slot.pool, "frame.cmdpool" + suffix);
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = slot.pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VK_CHECK(vkAllocateCommandBuffers(ctx_.device, &alloc, &slot.cmd));
    ctx_.name(VK_OBJECT_TYPE_COMMAND_BUFFER, slot.cmd, "frame.cmd" + suffix);
    if (!config_.timeline) slot.fence = create_fence(ctx_, "frame.fence" + suffix);
    if (config_.swapchain) {
      VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
      VK_CHECK(vkCreateSemaphore(ctx_.device, &info, nullptr, &slot.acquire_semaphore));
      ctx_.name(VK_OBJECT_TYPE_SEMAPHORE, slot.acquire_semaphore, "frame.acquire" + suffix);
    }
  }
  if (config_.swapchain) {
    window_ = create_window(config_.width, config_.height, "vkleak scenario");
    surface_ = create_surface(ctx_, window_, "frame.surface");
    VkBool32 supported = VK_FALSE;
    VK_CHECK(vkGetPhysicalDeviceSurfaceSupportKHR(ctx_.physical_device, ctx_.queue_family, surface_,
                                                  &supported));
    if (!supported) fail("the queue family cannot present to the window");
    create_swapchain();
  }
}

void FrameLoop::create_swapchain() {
  VkSwapchainKHR old = swapchain_.swapchain;
  swapchain_ = scenario::create_swapchain(ctx_, surface_, {config_.width, config_.height}, old,
                                          "frame.swapchain");
  if (old != VK_NULL_HANDLE) vkDestroySwapchainKHR(ctx_.device, old, nullptr);
  images_ = get_swapchain_images(ctx_, swapchain_.swapchain);
  present_semaphores_.resize(images_.size());
  for (uint32_t i = 0; i < images_.size(); ++i) {
    ctx_.name(VK_OBJECT_TYPE_IMAGE, images_[i], "frame.swapchain.image." + std::to_string(i));
    VkSemaphoreCreateInfo sem_info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    VK_CHECK(vkCreateSemaphore(ctx_.device, &sem_info, nullptr, &present_semaphores_[i]));
    ctx_.name(VK_OBJECT_TYPE_SEMAPHORE, present_semaphores_[i],
              "frame.present." + std::to_string(i));
  }
}

void FrameLoop::destroy_swapchain_images() {
  for (VkSemaphore semaphore : present_semaphores_) {
    vkDestroySemaphore(ctx_.device, semaphore, nullptr);
  }
  present_semaphores_.clear();
  images_.clear();
}

void FrameLoop::recreate_swapchain() {
  VK_CHECK(vkDeviceWaitIdle(ctx_.device));
  destroy_swapchain_images();
  create_swapchain();
}

void FrameLoop::wait_slot(const Slot& slot) {
  if (config_.timeline) {
    if (slot.timeline_value == 0) return;
    VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    info.semaphoreCount = 1;
    info.pSemaphores = &timeline_;
    info.pValues = &slot.timeline_value;
    VK_CHECK(vkWaitSemaphores(ctx_.device, &info, UINT64_MAX));
  } else if (frame_ >= slots_.size()) {
    VK_CHECK(vkWaitForFences(ctx_.device, 1, &slot.fence, VK_TRUE, UINT64_MAX));
    VK_CHECK(vkResetFences(ctx_.device, 1, &slot.fence));
  }
}

VkCommandBuffer FrameLoop::begin_frame() {
  if (in_frame_) fail("FrameLoop::begin_frame called twice");
  Slot& current = slots_[slot()];
  wait_slot(current);
  VK_CHECK(vkResetCommandPool(ctx_.device, current.pool, 0));
  if (config_.swapchain) {
    for (;;) {
      VkResult result =
          vkAcquireNextImageKHR(ctx_.device, swapchain_.swapchain, UINT64_MAX,
                                current.acquire_semaphore, VK_NULL_HANDLE, &image_index_);
      if (result == VK_ERROR_OUT_OF_DATE_KHR) {
        recreate_swapchain();
        continue;
      }
      if (result != VK_SUCCESS && result != VK_SUBOPTIMAL_KHR) {
        fail_vk(result, "vkAcquireNextImageKHR", __FILE__, __LINE__);
      }
      break;
    }
  }
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VK_CHECK(vkBeginCommandBuffer(current.cmd, &begin));
  in_frame_ = true;
  return current.cmd;
}

void FrameLoop::record_clear(VkCommandBuffer cmd) {
  VkImageMemoryBarrier barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  barrier.srcAccessMask = 0;
  barrier.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  barrier.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.image = images_[image_index_];
  barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
                       nullptr, 0, nullptr, 1, &barrier);
  float shade = static_cast<float>(frame_ % 64) / 63.0f;
  VkClearColorValue color{{shade, 0.25f, 1.0f - shade, 1.0f}};
  vkCmdClearColorImage(cmd, barrier.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &color, 1,
                       &barrier.subresourceRange);
  barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = 0;
  barrier.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  barrier.newLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0,
                       0, nullptr, 0, nullptr, 1, &barrier);
}

void FrameLoop::end_frame() {
  if (!in_frame_) fail("FrameLoop::end_frame called without begin_frame");
  Slot& current = slots_[slot()];
  if (config_.swapchain) record_clear(current.cmd);
  VK_CHECK(vkEndCommandBuffer(current.cmd));

  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &current.cmd;
  VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
  std::vector<VkSemaphore> signals;
  std::vector<uint64_t> signal_values;
  uint64_t wait_value = 0;
  if (config_.swapchain) {
    submit.waitSemaphoreCount = 1;
    submit.pWaitSemaphores = &current.acquire_semaphore;
    submit.pWaitDstStageMask = &wait_stage;
    signals.push_back(present_semaphores_[image_index_]);
    signal_values.push_back(0);
  }
  VkTimelineSemaphoreSubmitInfo timeline_info{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  if (config_.timeline) {
    current.timeline_value = ++last_timeline_value_;
    signals.push_back(timeline_);
    signal_values.push_back(current.timeline_value);
    timeline_info.waitSemaphoreValueCount = submit.waitSemaphoreCount;
    timeline_info.pWaitSemaphoreValues = &wait_value;
    timeline_info.signalSemaphoreValueCount = static_cast<uint32_t>(signal_values.size());
    timeline_info.pSignalSemaphoreValues = signal_values.data();
    submit.pNext = &timeline_info;
  }
  submit.signalSemaphoreCount = static_cast<uint32_t>(signals.size());
  submit.pSignalSemaphores = signals.data();
  VK_CHECK(vkQueueSubmit(ctx_.queue, 1, &submit, current.fence));
  last_fence_ = current.fence;

  if (config_.swapchain) {
    VkPresentInfoKHR present{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
    present.waitSemaphoreCount = 1;
    present.pWaitSemaphores = &present_semaphores_[image_index_];
    present.swapchainCount = 1;
    present.pSwapchains = &swapchain_.swapchain;
    present.pImageIndices = &image_index_;
    VkResult result = vkQueuePresentKHR(ctx_.queue, &present);
    if (result == VK_ERROR_OUT_OF_DATE_KHR || result == VK_SUBOPTIMAL_KHR) {
      recreate_swapchain();
    } else if (result != VK_SUCCESS) {
      fail_vk(result, "vkQueuePresentKHR", __FILE__, __LINE__);
    }
  }
  in_frame_ = false;
  ++frame_;
}

void FrameLoop::wait_last_submit() {
  if (frame_ == 0) return;
  if (config_.timeline) {
    VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    info.semaphoreCount = 1;
    info.pSemaphores = &timeline_;
    info.pValues = &last_timeline_value_;
    VK_CHECK(vkWaitSemaphores(ctx_.device, &info, UINT64_MAX));
  } else {
    VK_CHECK(vkWaitForFences(ctx_.device, 1, &last_fence_, VK_TRUE, UINT64_MAX));
  }
}

void FrameLoop::destroy() {
  VK_CHECK(vkDeviceWaitIdle(ctx_.device));
  if (config_.swapchain) {
    destroy_swapchain_images();
    vkDestroySwapchainKHR(ctx_.device, swapchain_.swapchain, nullptr);
    swapchain_ = Swapchain{};
    vkDestroySurfaceKHR(ctx_.instance, surface_, nullptr);
    surface_ = VK_NULL_HANDLE;
    destroy_window(window_);
  }
  for (Slot& slot : slots_) {
    vkDestroyCommandPool(ctx_.device, slot.pool, nullptr);  // frees slot.cmd with it
    vkDestroyFence(ctx_.device, slot.fence, nullptr);
    vkDestroySemaphore(ctx_.device, slot.acquire_semaphore, nullptr);
  }
  slots_.clear();
  vkDestroySemaphore(ctx_.device, timeline_, nullptr);
  timeline_ = VK_NULL_HANDLE;
}

}  // namespace scenario
