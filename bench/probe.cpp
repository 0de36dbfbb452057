// vkleak_bench_probe: proves what a layer configuration really is, for compare.py's report.
//
// Prints one JSON object: the layer libraries the loader put in the process, the device and
// driver, whether handles come back wrapped (the validation layer's unique handles), and how many
// validation messages three deliberate errors drew, one per kind of check:
//   api_parameters    a VkBufferCreateInfo with usage 0 (stateless parameter validation);
//   core              vkBindBufferMemory into memory smaller than the buffer (core checks);
//   object_lifetimes  a buffer still alive at vkDestroyDevice (object lifetime tracking).
// A configuration that disables a check draws no message of its kind.
#include <vulkan/vulkan.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "bench_context.h"

namespace {

struct Counts {
  int api_parameters = 0;
  int core = 0;
  int object_lifetimes = 0;
  int other = 0;
};

VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                          VkDebugUtilsMessageTypeFlagsEXT,
                                          const VkDebugUtilsMessengerCallbackDataEXT* data,
                                          void* user) {
  auto* counts = static_cast<Counts*>(user);
  const char* id = data && data->pMessageIdName ? data->pMessageIdName : "";
  if (std::strstr(id, "VkBufferCreateInfo-usage-requiredbitmask")) {
    counts->api_parameters++;
  } else if (std::strstr(id, "vkBindBufferMemory-size")) {
    counts->core++;
  } else if (std::strstr(id, "vkDestroyDevice-device-00378")) {
    counts->object_lifetimes++;
  } else {
    counts->other++;
  }
  return VK_FALSE;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out + "\"";
}

}  // namespace

int main() {
  bench::Context& ctx = bench::context();
  Counts counts;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
      vkGetInstanceProcAddr(ctx.instance, "vkCreateDebugUtilsMessengerEXT"));
  auto destroy_messenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
      vkGetInstanceProcAddr(ctx.instance, "vkDestroyDebugUtilsMessengerEXT"));
  if (ctx.debug_utils && create_messenger) {
    VkDebugUtilsMessengerCreateInfoEXT mi{};
    mi.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
    mi.pfnUserCallback = on_message;
    mi.pUserData = &counts;
    VK_CHECK(create_messenger(ctx.instance, &mi, nullptr, &messenger));
  }

  // 1. Parameter validation: usage 0 (lavapipe accepts it).
  VkBufferCreateInfo bad = bench::buffer_info(4096);
  bad.usage = 0;
  VkBuffer no_usage = VK_NULL_HANDLE;
  if (vkCreateBuffer(ctx.device, &bad, nullptr, &no_usage) == VK_SUCCESS)
    vkDestroyBuffer(ctx.device, no_usage, nullptr);

  // 2. Core checks: 4 KiB buffer bound to 256 bytes (lavapipe only records the pointer).
  const VkBufferCreateInfo good = bench::buffer_info(4096);
  VkBuffer big = VK_NULL_HANDLE;
  VK_CHECK(vkCreateBuffer(ctx.device, &good, nullptr, &big));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(ctx.device, big, &req);
  VkMemoryAllocateInfo ai{};
  ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  ai.allocationSize = 256;
  ai.memoryTypeIndex = ctx.find_memory_type(req.memoryTypeBits, 0);
  VkDeviceMemory small = VK_NULL_HANDLE;
  VK_CHECK(vkAllocateMemory(ctx.device, &ai, nullptr, &small));
  vkBindBufferMemory(ctx.device, big, small, 0);
  // The validation layer's wrapped handles are (id << 40) | id for a small sequential id;
  // lavapipe's are heap pointers.
  const uint64_t h = reinterpret_cast<uint64_t>(big);
  const bool wrapped = (h >> 40) != 0 && (h >> 40) == (h & 0xffffff);
  vkDestroyBuffer(ctx.device, big, nullptr);
  vkFreeMemory(ctx.device, small, nullptr);

  // 3. Object lifetimes: a buffer left alive at vkDestroyDevice.
  VkBuffer leaked = VK_NULL_HANDLE;
  VK_CHECK(vkCreateBuffer(ctx.device, &good, nullptr, &leaked));
  const std::string device_name = ctx.device_name;
  const std::string driver = ctx.driver;
  // Before vkDestroyInstance: the loader unloads the layers there.
  const bool vkleak_loaded = bench::module_loaded("libVkLayer_vkleak");
  const bool validation_loaded = bench::module_loaded("libVkLayer_khronos_validation");
  vkDeviceWaitIdle(ctx.device);
  vkDestroyDevice(ctx.device, nullptr);
  if (messenger) destroy_messenger(ctx.instance, messenger, nullptr);
  vkDestroyInstance(ctx.instance, nullptr);

  std::printf(
      "{\"vkleak_loaded\":%s,\"validation_loaded\":%s,\"device\":%s,\"driver\":%s,"
      "\"handles_wrapped\":%s,\"messages\":{\"api_parameters\":%d,\"core\":%d,"
      "\"object_lifetimes\":%d,\"other\":%d}}\n",
      vkleak_loaded ? "true" : "false", validation_loaded ? "true" : "false",
      json_string(device_name).c_str(), json_string(driver).c_str(), wrapped ? "true" : "false",
      counts.api_parameters, counts.core, counts.object_lifetimes, counts.other);
  return 0;
}
