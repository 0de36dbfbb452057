#include "bench_context.h"

#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <vector>

namespace bench {
namespace {

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

harness::ContextConfig bench_config() {
  harness::ContextConfig config;
  config.app_name = "vkleak-bench";
  config.max_api_version = VK_API_VERSION_1_2;
  config.enable_features = false;
  config.object_names = false;
  return config;
}

}  // namespace

Context::Context() : harness::Context(bench_config()) {
  device_name = properties.deviceName;
  driver = driver_info();
  queue_insert_label = harness::Context::queue_insert_label();
  if (queue_insert_label) {  // VK_EXT_debug_utils is enabled
    set_object_name = reinterpret_cast<PFN_vkSetDebugUtilsObjectNameEXT>(
        device_proc("vkSetDebugUtilsObjectNameEXT"));
  }
}

void Context::name(VkObjectType type, uint64_t handle, const char* object_name) const {
  if (!set_object_name) return;
  VkDebugUtilsObjectNameInfoEXT info{};
  info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT;
  info.objectType = type;
  info.objectHandle = handle;
  info.pObjectName = object_name;
  set_object_name(device, &info);
}

Context& context() {
  std::unique_ptr<Context>& slot = context_slot();
  if (!slot) slot = std::make_unique<Context>();
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
  slot->destroy();
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
    VK_CHECK(vkCreateBuffer(ctx.device, &info, nullptr, &b));
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
