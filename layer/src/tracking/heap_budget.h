// The driver's own view of a device's memory: each heap's size and, where the driver has
// VK_EXT_memory_budget, its budget and the process's usage of it. Usage counts everything the
// process holds on the heap (every device and library, the driver's own allocations), so a
// snapshot can set it beside the bytes vkleak tracks: what grows there and not in the tracked
// objects is memory the app's objects do not explain.
//
// Decided once when the device is created (plan_heap_budget: may the layer query it, must it
// enable the extension), sampled on app threads only (the query calls into the driver, which a
// signal handler, a crash thread or an exit handler must not), read by the snapshot collector
// from any thread.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include "base/spin_lock.h"
#include "format/snapshot_format.h"

namespace vkleak {

struct InstanceState;

inline constexpr const char* kMemoryBudgetExtension = "VK_EXT_memory_budget";

struct HeapSample {
  uint64_t size = 0;
  uint64_t budget = 0;  // meaningful when the sample's status is kSampled
  uint64_t usage = 0;
  bool device_local = false;
};

struct HeapBudgetSample {
  format::HeapBudgetStatus status = format::HeapBudgetStatus::kNotSampled;
  // Who enabled the extension on the device; neither (enabled_known false) where the device would
  // not be created with it and was created as the app asked.
  bool enabled_known = false;
  format::HeapBudgetEnabledBy enabled_by = format::HeapBudgetEnabledBy::kApp;
  uint64_t frame = 0;  // when it was sampled (kSampled only)
  uint32_t time_ms = 0;
  uint32_t heap_count = 0;
  HeapSample heaps[VK_MAX_MEMORY_HEAPS];
};

// What vkCreateDevice must do for the budget: the decision and, when the layer adds the
// extension, nothing else (the caller copies the create info with one more name).
struct HeapBudgetPlan {
  format::HeapBudgetStatus status = format::HeapBudgetStatus::kUnsupported;
  bool app_enabled = false;    // the app's create info names the extension
  bool layer_enables = false;  // the app did not enable it: add it to the create info
  PFN_vkGetPhysicalDeviceMemoryProperties2 query = nullptr;  // null unless it can be sampled
};

// Decides for one vkCreateDevice. `wanted` is the memory_budget setting; `device_api` the
// physical device's apiVersion. Calls down only what exists (vkEnumerateDeviceExtensionProperties
// of the next layer) and never throws.
HeapBudgetPlan plan_heap_budget(const InstanceState& instance, VkPhysicalDevice physical_device,
                                uint32_t device_api, const VkDeviceCreateInfo& create_info,
                                bool wanted) noexcept;

// One device's latest sample.
class HeapBudget {
 public:
  // After the device was created with `plan`: the heaps' sizes
  // (vkGetPhysicalDeviceMemoryProperties, Vulkan 1.0) and the plan's status; then a first sample
  // when it can be taken.
  void start(const InstanceState& instance, VkPhysicalDevice physical_device,
             const HeapBudgetPlan& plan, uint64_t frame) noexcept;
  // Queries the driver (an app thread only); keeps the status when the budget is not available.
  void sample(uint64_t frame) noexcept;
  HeapBudgetSample latest() const noexcept;

 private:
  mutable SpinLock lock_;  // a copy of ~600 bytes; never taken in a signal handler
  HeapBudgetSample latest_;
  VkPhysicalDevice physical_device_ = VK_NULL_HANDLE;
  PFN_vkGetPhysicalDeviceMemoryProperties2 query_ = nullptr;
};

}  // namespace vkleak
