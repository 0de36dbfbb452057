// Hostile inputs: what an app may hand the layer that is not what the spec promises.
//   --mode names: invalid UTF-8 (overlong, surrogate, truncated, 0xFF) and control characters
//     in pApplicationName, pEngineName, buffer debug names and a snapshot label (queue label
//     "vkleak.snapshot:<bad bytes>"). The named buffers are alive at the label's snapshot,
//     then destroyed; clean teardown.
//   --mode churn: --iterations create/destroy pairs of buffers, each named uniquely
//     ("staging#<i>") before its destroy; prints "rss_kb <n>" after each quarter.
//   --mode double-destroy: vkDestroyDevice twice on the same device (the second call goes
//     through the function pointer from vkGetDeviceProcAddr, as engines hold it), then prints
//     "survived" and destroys the instance.
//   --mode disguise: leaks buffers named to disguise a report (a Markdown link and image,
//     backticks, HTML, bidi controls, ESC, a 100,000-byte name, a pipe); clean teardown.
//   --mode wait: creates the instance and device, prints "ready", waits for a line on stdin
//     (the test makes a trigger file meanwhile), then tears down.
// stdout ends with "done: <mode>".
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "scenario_common.h"

namespace {

// The bad byte sequences, each with a printable tag around it (the tests know them).
const char* const kBadNames[] = {
    "overlong-\xc0\xaf-end",          // '/' as an overlong pair
    "surrogate-\xed\xa0\x80-end",     // U+D800
    "truncated-\xe2\x82",             // a cut euro sign, at the very end
    "ff-\xff\xfe-end",                // never valid
    "ctrl-\x01\x1f\"\\-end",          // controls and JSON's specials
    "past-max-\xf4\x90\x80\x80-end",  // U+110000
};
// Names that would turn into links, images or reordered text if a report did not escape them.
const char* const kDisguiseNames[] = {
    "[click](https://evil.example/p)",   "![i](x.png)", "a`b``c", "<img src=x onerror=alert(1)>",
    "ok\u202e\u2066gnp.exe\u2069\u2028", "red\x1b[31m", "x|y",
};
const char kBadApp[] = "app-\xc3\x28-\xe9t\xe9";  // Latin-1 "été" and a broken pair
const char kBadEngine[] = "engine-\xf0\x9f\x98";  // a truncated 4-byte sequence
const char kBadLabel[] = "vkleak.snapshot:label-\xc0\x80-\xed\xbf\xbf";

// An arena-style allocator that never gives memory back: with it, the freed device's memory
// (the loader's, the driver's) still holds what it held, and the second vkDestroyDevice reaches
// the layer (glibc's free would scribble over the loader's dispatch table, and the loader would
// stop the call itself).
void* VKAPI_CALL arena_alloc(void*, size_t size, size_t alignment, VkSystemAllocationScope) {
  return aligned_alloc(alignment < 16 ? 16 : alignment, (size + 15) / 16 * 16);
}
void* VKAPI_CALL arena_realloc(void*, void* old, size_t size, size_t alignment,
                               VkSystemAllocationScope) {
  void* p = aligned_alloc(alignment < 16 ? 16 : alignment, (size + 15) / 16 * 16);
  if (p && old) std::memcpy(p, old, size);  // may over-read `old`; test-only and never freed
  return p;
}
void VKAPI_CALL arena_free(void*, void*) {}
const VkAllocationCallbacks kArena = {nullptr,    arena_alloc, arena_realloc,
                                      arena_free, nullptr,     nullptr};

long rss_kb() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long kb = -1;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmRSS: %ld kB", &kb) == 1) break;
  std::fclose(f);
  return kb;
}

struct Vk {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  PFN_vkSetDebugUtilsObjectNameEXT set_name = nullptr;
  PFN_vkQueueInsertDebugUtilsLabelEXT insert_label = nullptr;

  void create(const char* app_name, const char* engine_name,
              const VkAllocationCallbacks* device_allocator = nullptr) {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = app_name;
    app.pEngineName = engine_name;
    app.apiVersion = VK_API_VERSION_1_1;
    const char* ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    ici.enabledExtensionCount = 1;
    ici.ppEnabledExtensionNames = &ext;
    VK_CHECK(vkCreateInstance(&ici, nullptr, &instance));
    uint32_t count = 1;
    VkResult r = vkEnumeratePhysicalDevices(instance, &count, &physical);
    if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || count == 0) scenario::fail("no device");
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qci.queueFamilyIndex = 0;
    qci.queueCount = 1;
    qci.pQueuePriorities = &priority;
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    VK_CHECK(vkCreateDevice(physical, &dci, device_allocator, &device));
    vkGetDeviceQueue(device, 0, 0, &queue);
    set_name = reinterpret_cast<PFN_vkSetDebugUtilsObjectNameEXT>(
        vkGetInstanceProcAddr(instance, "vkSetDebugUtilsObjectNameEXT"));
    insert_label = reinterpret_cast<PFN_vkQueueInsertDebugUtilsLabelEXT>(
        vkGetInstanceProcAddr(instance, "vkQueueInsertDebugUtilsLabelEXT"));
    if (!set_name || !insert_label) scenario::fail("VK_EXT_debug_utils missing");
  }
  VkBuffer buffer() const {
    VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.size = 256;
    bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    VkBuffer b = VK_NULL_HANDLE;
    VK_CHECK(vkCreateBuffer(device, &bci, nullptr, &b));
    return b;
  }
  void name(VkBuffer b, const char* n) const {
    VkDebugUtilsObjectNameInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
    info.objectType = VK_OBJECT_TYPE_BUFFER;
    info.objectHandle = scenario::handle_u64(b);
    info.pObjectName = n;
    VK_CHECK(set_name(device, &info));
  }
  void destroy() {
    vkDestroyDevice(device, nullptr);
    vkDestroyInstance(instance, nullptr);
  }
};

}  // namespace

int main(int argc, char** argv) {
  scenario::Options options("hostile_inputs", "invalid UTF-8, unique names, double destroys", 0);
  std::string mode = "names";
  uint32_t iterations = 100000;
  options.add_string("--mode", &mode, "what to do",
                     {"names", "churn", "double-destroy", "wait", "disguise"});
  options.add_uint("--iterations", &iterations, "create/destroy pairs of --mode churn");
  options.parse(argc, argv);

  Vk vk;
  if (mode == "names") {
    vk.create(kBadApp, kBadEngine);
    std::vector<VkBuffer> buffers;
    for (const char* n : kBadNames) {
      buffers.push_back(vk.buffer());
      vk.name(buffers.back(), n);
    }
    VkDebugUtilsLabelEXT label{VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
    label.pLabelName = kBadLabel;
    vk.insert_label(vk.queue, &label);
    for (VkBuffer b : buffers) vkDestroyBuffer(vk.device, b, nullptr);
    vk.destroy();
  } else if (mode == "disguise") {
    vk.create("hostile_inputs", "disguise");
    for (const char* n : kDisguiseNames) vk.name(vk.buffer(), n);
    vk.name(vk.buffer(), std::string(100000, 'n').c_str());
    vk.destroy();  // the buffers leak: findings with these names
  } else if (mode == "churn") {
    vk.create("hostile_inputs", "churn");
    const uint32_t quarter = iterations / 4 ? iterations / 4 : 1;
    for (uint32_t i = 0; i < iterations; ++i) {
      VkBuffer b = vk.buffer();
      vk.name(b, ("staging#" + std::to_string(i)).c_str());
      vkDestroyBuffer(vk.device, b, nullptr);
      if ((i + 1) % quarter == 0) std::printf("rss_kb %ld\n", rss_kb());
    }
    vk.destroy();
  } else if (mode == "double-destroy") {
    vk.create("hostile_inputs", "double-destroy", &kArena);
    auto destroy_device =
        reinterpret_cast<PFN_vkDestroyDevice>(vkGetDeviceProcAddr(vk.device, "vkDestroyDevice"));
    if (!destroy_device) scenario::fail("no vkDestroyDevice");
    destroy_device(vk.device, &kArena);
    std::fflush(stdout);
    destroy_device(vk.device, &kArena);  // the bug under test
    std::printf("survived\n");
    vkDestroyInstance(vk.instance, nullptr);
  } else {
    vk.create("hostile_inputs", "wait");
    std::printf("ready\n");
    std::fflush(stdout);
    std::string line;
    std::getline(std::cin, line);
    vk.destroy();
  }
  std::printf("done: %s\n", mode.c_str());
  return 0;
}
