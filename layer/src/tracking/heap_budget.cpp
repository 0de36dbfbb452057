#include "tracking/heap_budget.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "base/clock.h"
#include "tracking/state.h"

namespace vkleak {
namespace {

bool names_extension(const VkDeviceCreateInfo& ci, const char* name) noexcept {
  if (!ci.ppEnabledExtensionNames) return false;
  for (uint32_t i = 0; i < ci.enabledExtensionCount; ++i) {
    const char* e = ci.ppEnabledExtensionNames[i];
    if (e && std::strcmp(e, name) == 0) return true;
  }
  return false;
}

// Whether the layers below and the driver offer the device extension.
bool offered(const InstanceState& instance, VkPhysicalDevice physical_device,
             const char* name) noexcept {
  try {
    std::vector<VkExtensionProperties> props;
    VkResult r = VK_INCOMPLETE;
    for (int attempt = 0; attempt < 3 && r == VK_INCOMPLETE; ++attempt) {
      uint32_t count = 0;
      if (instance.dispatch.EnumerateDeviceExtensionProperties(physical_device, nullptr, &count,
                                                               nullptr) != VK_SUCCESS)
        return false;
      props.resize(count);
      r = instance.dispatch.EnumerateDeviceExtensionProperties(physical_device, nullptr, &count,
                                                               props.data());
      props.resize(std::min<size_t>(count, props.size()));
    }
    if (r != VK_SUCCESS) return false;
    for (const VkExtensionProperties& p : props) {
      if (strnlen(p.extensionName, VK_MAX_EXTENSION_NAME_SIZE) < VK_MAX_EXTENSION_NAME_SIZE &&
          std::strcmp(p.extensionName, name) == 0)
        return true;
    }
  } catch (...) {  // out of memory: no budget, the app goes on
  }
  return false;
}

}  // namespace

HeapBudgetPlan plan_heap_budget(const InstanceState& instance, VkPhysicalDevice physical_device,
                                uint32_t device_api, const VkDeviceCreateInfo& create_info,
                                bool wanted) noexcept {
  using format::HeapBudgetStatus;
  HeapBudgetPlan plan;
  if (!wanted) {
    plan.status = HeapBudgetStatus::kOff;
    return plan;
  }
  // vkGetPhysicalDeviceMemoryProperties2: core where both the instance and the device are 1.1,
  // else through the instance extension, if the app enabled it (the layer does not add
  // instance extensions: the app's instance would see them).
  const uint32_t instance_api = instance.api_version ? instance.api_version : VK_API_VERSION_1_0;
  const char* query_name = nullptr;
  if (std::min(instance_api, device_api) >= VK_API_VERSION_1_1)
    query_name = "vkGetPhysicalDeviceMemoryProperties2";
  else if (instance.properties2_extension)
    query_name = "vkGetPhysicalDeviceMemoryProperties2KHR";
  auto query = query_name && instance.next_gipa
                   ? reinterpret_cast<PFN_vkGetPhysicalDeviceMemoryProperties2>(instance.next_gipa(
                         reinterpret_cast<VkInstance>(instance.handle), query_name))
                   : nullptr;
  if (!query) {
    plan.status = HeapBudgetStatus::kNeedsProperties2;
    return plan;
  }
  plan.app_enabled = names_extension(create_info, kMemoryBudgetExtension);
  if (!plan.app_enabled) {
    if (!offered(instance, physical_device, kMemoryBudgetExtension)) {
      plan.status = HeapBudgetStatus::kUnsupported;
      return plan;
    }
    plan.layer_enables = true;
  }
  plan.status = HeapBudgetStatus::kSampled;
  plan.query = query;
  return plan;
}

void HeapBudget::start(const InstanceState& instance, VkPhysicalDevice physical_device,
                       const HeapBudgetPlan& plan, uint64_t frame) noexcept {
  HeapBudgetSample s;
  VkPhysicalDeviceMemoryProperties props{};
  instance.dispatch.GetPhysicalDeviceMemoryProperties(physical_device, &props);
  s.heap_count = std::min<uint32_t>(props.memoryHeapCount, VK_MAX_MEMORY_HEAPS);
  for (uint32_t i = 0; i < s.heap_count; ++i) {
    s.heaps[i].size = props.memoryHeaps[i].size;
    s.heaps[i].device_local = props.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT;
  }
  s.status = plan.query ? format::HeapBudgetStatus::kNotSampled : plan.status;
  s.enabled_known = plan.app_enabled || plan.layer_enables;
  s.enabled_by =
      plan.app_enabled ? format::HeapBudgetEnabledBy::kApp : format::HeapBudgetEnabledBy::kLayer;
  {
    SpinGuard lock(lock_);
    latest_ = s;
    physical_device_ = physical_device;
    query_ = plan.query;
  }
  sample(frame);
}

void HeapBudget::sample(uint64_t frame) noexcept {
  PFN_vkGetPhysicalDeviceMemoryProperties2 query;
  VkPhysicalDevice physical_device;
  {
    SpinGuard lock(lock_);
    query = query_;
    physical_device = physical_device_;
  }
  if (!query) return;
  VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{};
  budget.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT;
  VkPhysicalDeviceMemoryProperties2 props{};
  props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2;
  props.pNext = &budget;
  query(physical_device, &props);
  const uint32_t time_ms = refresh_clock();
  SpinGuard lock(lock_);
  HeapBudgetSample& s = latest_;
  s.status = format::HeapBudgetStatus::kSampled;
  s.frame = frame;
  s.time_ms = time_ms;
  s.heap_count = std::min<uint32_t>(props.memoryProperties.memoryHeapCount, VK_MAX_MEMORY_HEAPS);
  for (uint32_t i = 0; i < s.heap_count; ++i) {
    const VkMemoryHeap& h = props.memoryProperties.memoryHeaps[i];
    s.heaps[i] = {h.size, budget.heapBudget[i], budget.heapUsage[i],
                  (h.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0};
  }
}

HeapBudgetSample HeapBudget::latest() const noexcept {
  SpinGuard lock(lock_);
  return latest_;
}

}  // namespace vkleak
