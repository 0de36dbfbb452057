// Memory the driver counts and vkleak cannot see: every frame (an empty submit on the tracked
// device) allocates --chunk-mib MiB of device-local memory and keeps it until the end, either
// through a second instance and device that the vkleak layer is not loaded into (--where hidden,
// the default: a library whose Vulkan calls vkleak does not see; the loader's
// VK_LOADER_LAYERS_DISABLE filter keeps the layer out of that one instance) or on the tracked
// device itself (--where tracked). --app-enables: the app enables VK_EXT_memory_budget itself
// where the device offers it. --print-extensions: says which memory-reporting extensions the
// device offers; --time-budget-queries N: the cost of the layer's sample. Everything is freed and
// destroyed at the end: no leak at exit. stdout: "done: <MiB> MiB" (the snapshots say which
// instances vkleak saw).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "scenario_common.h"

namespace {

// An instance and device made with the vkleak layer filtered out (the loader reads its filters
// at each vkCreateInstance), the environment restored afterwards.
struct HiddenDevice {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
};

std::string getenv_or(const char* name, bool* set) {
  const char* v = std::getenv(name);
  *set = v != nullptr;
  return v ? v : "";
}

HiddenDevice create_hidden_device() {
  bool had_disable = false, had_enable = false;
  const std::string disable = getenv_or("VK_LOADER_LAYERS_DISABLE", &had_disable);
  const std::string enable = getenv_or("VK_LOADER_LAYERS_ENABLE", &had_enable);
  setenv("VK_LOADER_LAYERS_DISABLE", "VK_LAYER_VKLEAK_tracker", 1);
  unsetenv("VK_LOADER_LAYERS_ENABLE");  // it would win over the disable filter

  HiddenDevice h;
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "driver_memory.hidden";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  VK_CHECK(vkCreateInstance(&info, nullptr, &h.instance));
  if (had_disable)
    setenv("VK_LOADER_LAYERS_DISABLE", disable.c_str(), 1);
  else
    unsetenv("VK_LOADER_LAYERS_DISABLE");
  if (had_enable) setenv("VK_LOADER_LAYERS_ENABLE", enable.c_str(), 1);

  uint32_t count = 1;
  VkResult r = vkEnumeratePhysicalDevices(h.instance, &count, &h.physical_device);
  if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || count == 0) scenario::fail("no physical device");
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue.queueFamilyIndex = 0;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  VkDeviceCreateInfo dev{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dev.queueCreateInfoCount = 1;
  dev.pQueueCreateInfos = &queue;
  VK_CHECK(vkCreateDevice(h.physical_device, &dev, nullptr, &h.device));
  return h;
}

uint32_t device_local_type(VkPhysicalDevice physical_device) {
  VkPhysicalDeviceMemoryProperties props;
  vkGetPhysicalDeviceMemoryProperties(physical_device, &props);
  for (uint32_t i = 0; i < props.memoryTypeCount; ++i) {
    if (props.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) return i;
  }
  return 0;
}

// What the device offers (as the app sees it through the layers) for memory reporting.
void print_memory_extensions(VkPhysicalDevice physical_device) {
  uint32_t count = 0;
  VK_CHECK(vkEnumerateDeviceExtensionProperties(physical_device, nullptr, &count, nullptr));
  std::vector<VkExtensionProperties> props(count);
  VK_CHECK(vkEnumerateDeviceExtensionProperties(physical_device, nullptr, &count, props.data()));
  for (const char* name : {"VK_EXT_memory_budget", "VK_EXT_device_memory_report",
                           "VK_EXT_device_address_binding_report", "VK_EXT_memory_priority"}) {
    bool offered = false;
    for (const VkExtensionProperties& p : props) offered |= std::string(p.extensionName) == name;
    std::printf("extension: %s %s\n", name, offered ? "offered" : "absent");
  }
}

// The cost of one sample as the layer takes it (vkGetPhysicalDeviceMemoryProperties2 with the
// budget chained), averaged over `count` calls.
void time_budget_queries(VkPhysicalDevice physical_device, uint32_t count) {
  VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
  VkPhysicalDeviceMemoryProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2,
                                          &budget};
  const auto start = std::chrono::steady_clock::now();
  for (uint32_t i = 0; i < count; ++i)
    vkGetPhysicalDeviceMemoryProperties2(physical_device, &props);
  const double ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  std::printf("budget query: %.0f ns\n", ns / count);
}

}  // namespace

int main(int argc, char** argv) {
  scenario::Options options("driver_memory",
                            "Allocates device memory every frame where vkleak sees it or not.", 60);
  std::string where = "hidden";
  uint32_t chunk_mib = 4;
  bool app_enables = false;
  options.add_string("--where", &where, "where the memory is allocated (hidden)",
                     {"hidden", "tracked"});
  options.add_uint("--chunk-mib", &chunk_mib, "MiB allocated each frame (4)");
  options.add_flag("--app-enables", &app_enables,
                   "the app enables VK_EXT_memory_budget itself where offered");
  bool print_extensions = false;
  options.add_flag("--print-extensions", &print_extensions,
                   "print the device's memory-reporting extensions first (\"extension: NAME\")");
  uint32_t time_queries = 0;
  options.add_uint("--time-budget-queries", &time_queries,
                   "time this many budget queries first (where VK_EXT_memory_budget is offered)");
  options.parse(argc, argv);

  scenario::ContextConfig config;
  config.app_name = "driver_memory";
  if (app_enables) config.optional_device_extensions.push_back("VK_EXT_memory_budget");
  scenario::Context ctx(config);
  if (print_extensions) print_memory_extensions(ctx.physical_device);
  if (time_queries) time_budget_queries(ctx.physical_device, time_queries);

  HiddenDevice hidden;
  if (where == "hidden") hidden = create_hidden_device();
  const VkDevice alloc_device = where == "hidden" ? hidden.device : ctx.device;
  const uint32_t type =
      device_local_type(where == "hidden" ? hidden.physical_device : ctx.physical_device);

  std::vector<VkDeviceMemory> chunks;
  for (uint32_t frame = 0; frame < options.frames; ++frame) {
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = VkDeviceSize{chunk_mib} << 20;
    alloc.memoryTypeIndex = type;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VK_CHECK(vkAllocateMemory(alloc_device, &alloc, nullptr, &memory));
    if (where == "tracked") ctx.name(VK_OBJECT_TYPE_DEVICE_MEMORY, memory, "frame.chunk");
    chunks.push_back(memory);
    VK_CHECK(vkQueueSubmit(ctx.queue, 0, nullptr, VK_NULL_HANDLE));  // ends a frame (submits)
  }
  VK_CHECK(vkQueueWaitIdle(ctx.queue));
  std::printf("done: %u MiB\n", chunk_mib * options.frames);
  std::fflush(stdout);

  for (VkDeviceMemory memory : chunks) vkFreeMemory(alloc_device, memory, nullptr);
  if (hidden.device) {
    vkDestroyDevice(hidden.device, nullptr);
    vkDestroyInstance(hidden.instance, nullptr);
  }
  ctx.destroy();
  return 0;
}
