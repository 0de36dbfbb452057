// Instance-level debug objects, hard: VkDebugUtilsMessengerEXT and (when offered)
// VkDebugReportCallbackEXT created and destroyed many times, with every function pointer taken
// from vkGetInstanceProcAddr as real apps do.
//   - a messenger and a report callback chained into VkInstanceCreateInfo::pNext;
//   - --destroy-null: vkDestroy*(instance, VK_NULL_HANDLE) (the loader of Debian 12 crashes);
//   - --rounds serial create/destroy rounds of 8 messengers + 8 report callbacks (destroyed in
//     creation order, then in reverse);
//   - a messenger created before a VkDevice and destroyed after vkDestroyDevice, one created
//     after the device, and one deliberate validation error (a VkBufferCreateInfo::pNext that
//     does not belong there, ignored by drivers): the validation layer reports it to every
//     messenger / report callback alive;
//   - --threads threads each creating/destroying --per-thread messengers (and report callbacks)
//     concurrently on the main instance;
//   - --instance-threads threads each creating and destroying --solo-instances instances of
//     their own (with messengers) concurrently, before the main instance exists: the process's
//     last instance is destroyed while another thread creates one;
//   - --instances instances alive at once, each with a pNext messenger and its own messengers,
//     destroyed out of creation order; then --instance-threads threads each creating and
//     destroying 3 instances of their own with messengers, concurrently;
//   - --leak: leaks one messenger, created in leak_debug_messenger() (exported, not inlined, so
//     that its call site symbolizes to it) on the main instance, which is then destroyed.
// Instance-level objects are not named (Mesa crashes naming them through a device, see
// README.md): the leaked messenger is identified by its call site.
// stdout, one line each: "gipa <query>=<null|set>" for the proc-address answers, then
// "callbacks <counter>=<n>" (messages the app's callbacks received), then "done: ...". Only
// validation-layer messages reach the callbacks on lavapipe, so without that layer every count
// is 0, and with it the counts must not depend on whether vkleak is in the stack.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "scenario_common.h"

namespace {

// The VUID of the deliberate validation error.
constexpr const char kDeliberateVuid[] = "VUID-VkBufferCreateInfo-pNext-pNext";

struct Counters {
  std::atomic<uint32_t> messenger_errors{0};      // error-severity messages, persistent messengers
  std::atomic<uint32_t> messenger_deliberate{0};  // ... of which the deliberate error
  std::atomic<uint32_t> report_errors{0};         // error reports, persistent report callbacks
  std::atomic<uint32_t> report_deliberate{0};
  std::atomic<uint32_t> create_info_messages{0};  // the VkInstanceCreateInfo::pNext messengers
  std::atomic<uint32_t> churn_messages{0};        // short-lived messengers/callbacks (any)
};
Counters g_counters;

VKAPI_ATTR VkBool32 VKAPI_CALL count_messenger(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                               VkDebugUtilsMessageTypeFlagsEXT,
                                               const VkDebugUtilsMessengerCallbackDataEXT* data,
                                               void* user_data) {
  auto* counter = static_cast<std::atomic<uint32_t>*>(user_data);
  if (counter == &g_counters.messenger_errors) {
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
      counter->fetch_add(1);
      if (data && data->pMessageIdName && std::strstr(data->pMessageIdName, kDeliberateVuid))
        g_counters.messenger_deliberate.fetch_add(1);
    }
  } else if (counter) {
    counter->fetch_add(1);
  }
  return VK_FALSE;
}

VKAPI_ATTR VkBool32 VKAPI_CALL count_report(VkDebugReportFlagsEXT flags,
                                            VkDebugReportObjectTypeEXT, uint64_t, size_t, int32_t,
                                            const char* layer_prefix, const char* message,
                                            void* user_data) {
  auto* counter = static_cast<std::atomic<uint32_t>*>(user_data);
  if (counter == &g_counters.report_errors) {
    if (flags & VK_DEBUG_REPORT_ERROR_BIT_EXT) {
      counter->fetch_add(1);
      if ((message && std::strstr(message, kDeliberateVuid)) ||
          (layer_prefix && std::strstr(layer_prefix, kDeliberateVuid)))
        g_counters.report_deliberate.fetch_add(1);
    }
  } else if (counter) {
    counter->fetch_add(1);
  }
  return VK_FALSE;
}

VkDebugUtilsMessengerCreateInfoEXT messenger_info(std::atomic<uint32_t>* counter) {
  VkDebugUtilsMessengerCreateInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
  info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  info.pfnUserCallback = count_messenger;
  info.pUserData = counter;
  return info;
}

VkDebugReportCallbackCreateInfoEXT report_info(std::atomic<uint32_t>* counter) {
  VkDebugReportCallbackCreateInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_REPORT_CALLBACK_CREATE_INFO_EXT};
  info.flags = VK_DEBUG_REPORT_ERROR_BIT_EXT | VK_DEBUG_REPORT_WARNING_BIT_EXT;
  info.pfnCallback = count_report;
  info.pUserData = counter;
  return info;
}

std::vector<std::string> instance_extensions() {
  uint32_t count = 0;
  VK_CHECK(vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr));
  std::vector<VkExtensionProperties> props(count);
  VK_CHECK(vkEnumerateInstanceExtensionProperties(nullptr, &count, props.data()));
  std::vector<std::string> names;
  for (const auto& p : props) names.emplace_back(p.extensionName);
  return names;
}

bool has(const std::vector<std::string>& names, const char* name) {
  for (const auto& n : names) {
    if (n == name) return true;
  }
  return false;
}

// The debug functions of one instance, from vkGetInstanceProcAddr.
struct DebugFns {
  PFN_vkCreateDebugUtilsMessengerEXT create_messenger = nullptr;
  PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger = nullptr;
  PFN_vkCreateDebugReportCallbackEXT create_report = nullptr;
  PFN_vkDestroyDebugReportCallbackEXT destroy_report = nullptr;
  bool report() const { return create_report && destroy_report; }
};

DebugFns load_fns(VkInstance instance) {
  DebugFns f;
  f.create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
      vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
  f.destroy_messenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
      vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
  f.create_report = reinterpret_cast<PFN_vkCreateDebugReportCallbackEXT>(
      vkGetInstanceProcAddr(instance, "vkCreateDebugReportCallbackEXT"));
  f.destroy_report = reinterpret_cast<PFN_vkDestroyDebugReportCallbackEXT>(
      vkGetInstanceProcAddr(instance, "vkDestroyDebugReportCallbackEXT"));
  if (!f.create_messenger || !f.destroy_messenger)
    scenario::fail("vkGetInstanceProcAddr gave no vkCreate/DestroyDebugUtilsMessengerEXT");
  return f;
}

struct Config {
  bool debug_report = false;  // VK_EXT_debug_report offered (and enabled)
};

// An instance with VK_EXT_debug_utils (and VK_EXT_debug_report when offered), a messenger and a
// report callback chained into its create info.
VkInstance create_instance(const Config& config, const char* app_name) {
  std::vector<const char*> extensions{VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
  if (config.debug_report) extensions.push_back(VK_EXT_DEBUG_REPORT_EXTENSION_NAME);
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = app_name;
  app.pEngineName = "vkleak-scenarios";
  app.apiVersion = VK_API_VERSION_1_1;
  VkDebugReportCallbackCreateInfoEXT chained_report = report_info(&g_counters.create_info_messages);
  VkDebugUtilsMessengerCreateInfoEXT chained = messenger_info(&g_counters.create_info_messages);
  if (config.debug_report) chained.pNext = &chained_report;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pNext = &chained;
  info.pApplicationInfo = &app;
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  VkInstance instance = VK_NULL_HANDLE;
  VK_CHECK(vkCreateInstance(&info, nullptr, &instance));
  return instance;
}

// `count` messengers (and report callbacks), destroyed in creation order or in reverse.
void churn(VkInstance instance, const DebugFns& fns, uint32_t count, bool reverse) {
  std::vector<VkDebugUtilsMessengerEXT> messengers(count, VK_NULL_HANDLE);
  std::vector<VkDebugReportCallbackEXT> reports(count, VK_NULL_HANDLE);
  const VkDebugUtilsMessengerCreateInfoEXT m_info = messenger_info(&g_counters.churn_messages);
  const VkDebugReportCallbackCreateInfoEXT r_info = report_info(&g_counters.churn_messages);
  for (uint32_t i = 0; i < count; ++i) {
    VK_CHECK(fns.create_messenger(instance, &m_info, nullptr, &messengers[i]));
    if (messengers[i] == VK_NULL_HANDLE) scenario::fail("VK_SUCCESS but no messenger");
    if (fns.report()) VK_CHECK(fns.create_report(instance, &r_info, nullptr, &reports[i]));
  }
  for (uint32_t k = 0; k < count; ++k) {
    const uint32_t i = reverse ? count - 1 - k : k;
    fns.destroy_messenger(instance, messengers[i], nullptr);
    if (fns.report()) fns.destroy_report(instance, reports[i], nullptr);
  }
}

void print_proc(const char* query, PFN_vkVoidFunction f) {
  std::printf("gipa %s=%s\n", query, f ? "set" : "null");
}

// Creates the device-level part: a messenger before the device, one after, the deliberate
// validation error, vkDestroyDevice, then both messengers (and the report callback).
void device_phase(VkInstance instance, const DebugFns& fns) {
  const VkDebugUtilsMessengerCreateInfoEXT m_info = messenger_info(&g_counters.messenger_errors);
  VkDebugUtilsMessengerEXT before_device = VK_NULL_HANDLE;
  VK_CHECK(fns.create_messenger(instance, &m_info, nullptr, &before_device));

  uint32_t count = 0;
  VK_CHECK(vkEnumeratePhysicalDevices(instance, &count, nullptr));
  if (count == 0) scenario::fail("no physical device");
  std::vector<VkPhysicalDevice> physical(count);
  VK_CHECK(vkEnumeratePhysicalDevices(instance, &count, physical.data()));
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = 0;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  VkDevice device = VK_NULL_HANDLE;
  VK_CHECK(vkCreateDevice(physical[0], &device_info, nullptr, &device));

  VkDebugUtilsMessengerEXT after_device = VK_NULL_HANDLE;
  VK_CHECK(fns.create_messenger(instance, &m_info, nullptr, &after_device));
  VkDebugReportCallbackEXT report = VK_NULL_HANDLE;
  if (fns.report()) {
    const VkDebugReportCallbackCreateInfoEXT r_info = report_info(&g_counters.report_errors);
    VK_CHECK(fns.create_report(instance, &r_info, nullptr, &report));
  }
  // Instance-level commands are not device-level: vkGetDeviceProcAddr answers NULL.
  print_proc("device:vkCreateDebugUtilsMessengerEXT",
             vkGetDeviceProcAddr(device, "vkCreateDebugUtilsMessengerEXT"));
  print_proc("device:vkDestroyDebugUtilsMessengerEXT",
             vkGetDeviceProcAddr(device, "vkDestroyDebugUtilsMessengerEXT"));

  // The deliberate validation error: a struct that is not allowed in VkBufferCreateInfo::pNext
  // (drivers skip structures they do not know for a command).
  VkImageFormatListCreateInfo misplaced{VK_STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO};
  VkBufferCreateInfo buffer_info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  buffer_info.pNext = &misplaced;
  buffer_info.size = 256;
  buffer_info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  buffer_info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  VK_CHECK(vkCreateBuffer(device, &buffer_info, nullptr, &buffer));
  vkDestroyBuffer(device, buffer, nullptr);

  vkDestroyDevice(device, nullptr);
  // Destroyed after the device they were created before / after.
  fns.destroy_messenger(instance, after_device, nullptr);
  fns.destroy_messenger(instance, before_device, nullptr);
  if (fns.report()) fns.destroy_report(instance, report, nullptr);
}

void threaded_churn(VkInstance instance, const DebugFns& fns, uint32_t threads,
                    uint32_t per_thread) {
  std::vector<std::thread> workers;
  for (uint32_t t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (uint32_t i = 0; i < per_thread; i += 4) churn(instance, fns, 4, (i + t) % 8 == 0);
    });
  }
  for (auto& w : workers) w.join();
}

// `count` instances alive at once, each with its own messengers, destroyed out of order.
void many_instances(const Config& config, uint32_t count, uint32_t rounds) {
  std::vector<VkInstance> instances;
  std::vector<DebugFns> fns;
  std::vector<VkDebugUtilsMessengerEXT> kept;
  for (uint32_t i = 0; i < count; ++i) {
    instances.push_back(create_instance(config, "debug_objects.many"));
    fns.push_back(load_fns(instances.back()));
    VkDebugUtilsMessengerEXT m = VK_NULL_HANDLE;
    const VkDebugUtilsMessengerCreateInfoEXT info = messenger_info(&g_counters.churn_messages);
    VK_CHECK(fns.back().create_messenger(instances.back(), &info, nullptr, &m));
    kept.push_back(m);
  }
  for (uint32_t r = 0; r < rounds; ++r) {
    for (uint32_t i = 0; i < count; ++i) churn(instances[i], fns[i], 2, (r + i) % 2 == 1);
  }
  // Odd indices first, then even ones (out of creation order).
  for (uint32_t pass = 0; pass < 2; ++pass) {
    for (uint32_t i = 0; i < count; ++i) {
      if (i % 2 != (pass == 0 ? 1u : 0u)) continue;
      fns[i].destroy_messenger(instances[i], kept[i], nullptr);
      vkDestroyInstance(instances[i], nullptr);
    }
  }
}

// Threads each creating and destroying their own instances (with messengers) concurrently.
void threaded_instances(const Config& config, uint32_t threads, uint32_t per_thread) {
  std::vector<std::thread> workers;
  for (uint32_t t = 0; t < threads; ++t) {
    workers.emplace_back([&config, per_thread] {
      for (uint32_t i = 0; i < per_thread; ++i) {
        VkInstance instance = create_instance(config, "debug_objects.thread");
        DebugFns fns = load_fns(instance);
        churn(instance, fns, 3, i % 2 == 1);
        vkDestroyInstance(instance, nullptr);
      }
    });
  }
  for (auto& w : workers) w.join();
}

}  // namespace

// The leaked messenger's call site: vkCreateDebugUtilsMessengerEXT is called right here.
__attribute__((noinline)) VkDebugUtilsMessengerEXT leak_debug_messenger(
    VkInstance instance, PFN_vkCreateDebugUtilsMessengerEXT create) {
  const VkDebugUtilsMessengerCreateInfoEXT info = messenger_info(&g_counters.churn_messages);
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  VK_CHECK(create(instance, &info, nullptr, &messenger));
  return messenger;
}

int main(int argc, char** argv) {
  scenario::Options options("debug_objects",
                            "Creates and destroys debug messengers and report callbacks hard "
                            "(pNext-chained, several instances, several threads, around a "
                            "device). Submits nothing: --frames and --swapchain are ignored.",
                            0);
  uint32_t rounds = 100, threads = 4, per_thread = 200, instances = 3, instance_threads = 2;
  uint32_t solo_instances = 3;
  bool leak = false;
  options.add_uint("--rounds", &rounds, "serial rounds of 8 messengers (default 100)");
  options.add_uint("--threads", &threads, "threads churning on one instance (default 4)");
  options.add_uint("--per-thread", &per_thread, "messengers per thread (default 200)");
  options.add_uint("--instances", &instances, "instances alive at once (default 3)");
  options.add_uint("--instance-threads", &instance_threads,
                   "threads creating their own instances, 3 each (default 2)");
  options.add_uint("--solo-instances", &solo_instances,
                   "instances per --instance-threads thread made while no other instance is "
                   "alive (default 3)");
  options.add_flag("--leak", &leak, "leak one messenger (made in leak_debug_messenger)");
  std::string destroy_null = "none";
  options.add_string("--destroy-null", &destroy_null,
                     "destroy VK_NULL_HANDLE: none (default), messenger, report or both",
                     {"none", "messenger", "report", "both"});
  options.parse(argc, argv);

  const std::vector<std::string> available = instance_extensions();
  if (!has(available, VK_EXT_DEBUG_UTILS_EXTENSION_NAME))
    scenario::fail("VK_EXT_debug_utils not offered");
  Config config;
  config.debug_report = has(available, VK_EXT_DEBUG_REPORT_EXTENSION_NAME);
  std::fprintf(stderr, "debug_objects: VK_EXT_debug_report %s\n",
               config.debug_report ? "offered" : "not offered");

  // Without the extensions enabled, the loader gives no entry points (and neither may a layer).
  {
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    VkInstance bare = VK_NULL_HANDLE;
    VK_CHECK(vkCreateInstance(&info, nullptr, &bare));
    print_proc("bare:vkCreateDebugUtilsMessengerEXT",
               vkGetInstanceProcAddr(bare, "vkCreateDebugUtilsMessengerEXT"));
    print_proc("bare:vkCreateDebugReportCallbackEXT",
               vkGetInstanceProcAddr(bare, "vkCreateDebugReportCallbackEXT"));
    vkDestroyInstance(bare, nullptr);
  }
  print_proc("null:vkCreateDebugUtilsMessengerEXT",
             vkGetInstanceProcAddr(VK_NULL_HANDLE, "vkCreateDebugUtilsMessengerEXT"));

  // No other instance alive: the last instance of the process goes and another comes, on
  // different threads, again and again.
  threaded_instances(config, instance_threads, solo_instances);

  VkInstance instance = create_instance(config, "debug_objects");
  const DebugFns fns = load_fns(instance);
  print_proc("main:vkCreateDebugReportCallbackEXT",
             reinterpret_cast<PFN_vkVoidFunction>(fns.create_report));

  // VK_NULL_HANDLE is a valid argument of both destroy commands, but the loader's terminators
  // of Vulkan-Loader 1.3.239 (Debian 12) dereference it: opt-in, for the tests to check that the
  // outcome is the same with and without the layer.
  if (destroy_null == "messenger" || destroy_null == "both")
    fns.destroy_messenger(instance, VK_NULL_HANDLE, nullptr);
  if ((destroy_null == "report" || destroy_null == "both") && fns.report())
    fns.destroy_report(instance, VK_NULL_HANDLE, nullptr);
  std::fprintf(stderr, "debug_objects: survived --destroy-null %s\n", destroy_null.c_str());

  for (uint32_t r = 0; r < rounds; ++r) churn(instance, fns, 8, r % 2 == 1);
  device_phase(instance, fns);
  threaded_churn(instance, fns, threads, per_thread);
  many_instances(config, instances, rounds / 10 + 1);
  threaded_instances(config, instance_threads, 3);

  VkDebugUtilsMessengerEXT leaked = VK_NULL_HANDLE;
  if (leak) {
    leaked = leak_debug_messenger(instance, fns.create_messenger);
    std::fprintf(stderr, "debug_objects: leaked messenger 0x%llx\n",
                 static_cast<unsigned long long>(scenario::handle_u64(leaked)));
  }
  vkDestroyInstance(instance, nullptr);

  std::printf("callbacks messenger_errors=%u\n", g_counters.messenger_errors.load());
  std::printf("callbacks messenger_deliberate=%u\n", g_counters.messenger_deliberate.load());
  std::printf("callbacks report_errors=%u\n", g_counters.report_errors.load());
  std::printf("callbacks report_deliberate=%u\n", g_counters.report_deliberate.load());
  std::printf("callbacks create_info_messages=%u\n", g_counters.create_info_messages.load());
  std::printf("callbacks churn_messages=%u\n", g_counters.churn_messages.load());
  std::printf("done: %u messenger leaked\n", leak ? 1u : 0u);
  return 0;
}
