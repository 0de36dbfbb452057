#include "bench_context.h"

#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>

namespace bench {
namespace {

const char* result_name(VkResult r) {
  switch (r) {
    case VK_ERROR_OUT_OF_HOST_MEMORY:
      return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
      return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED:
      return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT:
      return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT:
      return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER:
      return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_DEVICE_LOST:
      return "VK_ERROR_DEVICE_LOST";
    case VK_TIMEOUT:
      return "VK_TIMEOUT";
    default:
      return "VkResult";
  }
}

bool has_extension(const std::vector<VkExtensionProperties>& list, const char* name) {
  for (const VkExtensionProperties& e : list)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

// Fillers live here rather than in the Context so that destroy_context() can drop them first.
std::vector<VkBuffer>& fillers() {
  static auto* v = new std::vector<VkBuffer>;  // never destroyed: used until destroy_context()
  return *v;
}

std::vector<std::function<void()>>& teardowns() {
  static auto* v = new std::vector<std::function<void()>>;
  return *v;
}

std::unique_ptr<Context>& context_slot() {
  static auto* c = new std::unique_ptr<Context>;
  return *c;
}

std::unique_ptr<Context> create_context() {
  auto ctx = std::make_unique<Context>();

  uint32_t n = 0;
  vkEnumerateInstanceExtensionProperties(nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> instance_exts(n);
  vkEnumerateInstanceExtensionProperties(nullptr, &n, instance_exts.data());
  std::vector<const char*> enabled;
  // Needed for vkQueueInsertDebugUtilsLabelEXT, vkleak's in-band snapshot trigger.
  ctx->debug_utils = has_extension(instance_exts, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  if (ctx->debug_utils) enabled.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);

  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "vkleak-bench";
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo ici{};
  ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  ici.pApplicationInfo = &app;
  ici.enabledExtensionCount = static_cast<uint32_t>(enabled.size());
  ici.ppEnabledExtensionNames = enabled.data();
  BENCH_VK_CHECK(vkCreateInstance(&ici, nullptr, &ctx->instance));

  uint32_t count = 0;
  BENCH_VK_CHECK(vkEnumeratePhysicalDevices(ctx->instance, &count, nullptr));
  if (count == 0) fail("no Vulkan physical device");
  std::vector<VkPhysicalDevice> devices(count);
  BENCH_VK_CHECK(vkEnumeratePhysicalDevices(ctx->instance, &count, devices.data()));
  ctx->physical_device = devices[0];

  VkPhysicalDeviceDriverProperties driver{};
  driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
  VkPhysicalDeviceProperties2 props{};
  props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  props.pNext = &driver;
  vkGetPhysicalDeviceProperties2(ctx->physical_device, &props);
  ctx->device_name = props.properties.deviceName;
  ctx->driver = std::string(driver.driverName) + " " + driver.driverInfo;
  vkGetPhysicalDeviceMemoryProperties(ctx->physical_device, &ctx->memory_properties);

  vkGetPhysicalDeviceQueueFamilyProperties(ctx->physical_device, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(ctx->physical_device, &count, families.data());
  ctx->queue_family = UINT32_MAX;
  for (uint32_t i = 0; i < count; ++i) {
    if (families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) {
      ctx->queue_family = i;
      break;
    }
  }
  if (ctx->queue_family == UINT32_MAX) fail("no graphics queue family");

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{};
  qci.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  qci.queueFamilyIndex = ctx->queue_family;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkDeviceCreateInfo dci{};
  dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  BENCH_VK_CHECK(vkCreateDevice(ctx->physical_device, &dci, nullptr, &ctx->device));
  vkGetDeviceQueue(ctx->device, ctx->queue_family, 0, &ctx->queue);
  if (ctx->debug_utils) {
    ctx->queue_insert_label = reinterpret_cast<PFN_vkQueueInsertDebugUtilsLabelEXT>(
        vkGetInstanceProcAddr(ctx->instance, "vkQueueInsertDebugUtilsLabelEXT"));
  }
  return ctx;
}

}  // namespace

void fail_vk(VkResult result, const char* what, const char* file, int line) {
  std::fprintf(stderr, "error: %s failed: %s (%d) (%s:%d)\n", what, result_name(result),
               static_cast<int>(result), file, line);
  std::exit(1);
}

void fail(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  std::exit(1);
}

uint32_t Context::find_memory_type(uint32_t type_bits, VkMemoryPropertyFlags required) const {
  for (uint32_t i = 0; i < memory_properties.memoryTypeCount; ++i) {
    if ((type_bits & (1u << i)) &&
        (memory_properties.memoryTypes[i].propertyFlags & required) == required)
      return i;
  }
  fail("no suitable memory type");
}

Context& context() {
  std::unique_ptr<Context>& slot = context_slot();
  if (!slot) slot = create_context();
  return *slot;
}

void destroy_context() {
  std::unique_ptr<Context>& slot = context_slot();
  if (!slot) return;
  set_live_fillers(0);
  vkDeviceWaitIdle(slot->device);
  std::vector<std::function<void()>>& t = teardowns();
  while (!t.empty()) {
    std::function<void()> f = std::move(t.back());
    t.pop_back();
    f();
  }
  vkDestroyDevice(slot->device, nullptr);
  vkDestroyInstance(slot->instance, nullptr);
  slot.reset();
}

void at_teardown(std::function<void()> f) {
  teardowns().push_back(std::move(f));
}

VkBufferCreateInfo buffer_info(VkDeviceSize size) {
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = size;
  info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  return info;
}

void set_live_fillers(size_t count) {
  Context& ctx = context();
  std::vector<VkBuffer>& v = fillers();
  const VkBufferCreateInfo info = buffer_info(256);
  if (count > v.size()) v.reserve(count);
  while (v.size() < count) {
    VkBuffer b;
    BENCH_VK_CHECK(vkCreateBuffer(ctx.device, &info, nullptr, &b));
    v.push_back(b);
  }
  while (v.size() > count) {
    vkDestroyBuffer(ctx.device, v.back(), nullptr);
    v.pop_back();
  }
  if (count == 0) v.shrink_to_fit();
}

size_t live_fillers() {
  return fillers().size();
}

uint64_t rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.compare(0, 6, "VmRSS:") == 0)
      return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
  }
  return 0;
}

bool module_loaded(const char* name) {
  struct Query {
    const char* name;
    bool found;
  } q{name, false};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* query = static_cast<Query*>(data);
        if (info->dlpi_name && std::strstr(info->dlpi_name, query->name)) {
          query->found = true;
          return 1;
        }
        return 0;
      },
      &q);
  return q.found;
}

}  // namespace bench
