// Per-instance and per-device state, and the process-wide registries that find them.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/settings.h"
#include "store/child_index.h"
#include "store/creation_context.h"
#include "store/edge_store.h"
#include "store/event_log.h"
#include "store/graveyard.h"
#include "store/memory_directory.h"
#include "store/names.h"
#include "store/object_table.h"
#include "tracking/command_refs.h"
#include "tracking/heap_budget.h"
#include "tracking/registry.h"
#include "tracking/submissions.h"

#include "vk_dispatch.h"

namespace vkleak {

// Object id -> parent id, for the few objects whose parent is not their scope, a pool or a
// swapchain (devices, display modes, video session parameters).
class ParentMap {
 public:
  void set(uint64_t id, uint64_t parent) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      map_[id] = parent;
    } catch (...) {
    }
  }
  void erase(uint64_t id) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    map_.erase(id);
  }
  std::unordered_map<uint64_t, uint64_t> copy() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return map_;
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, uint64_t> map_;
};

// What owns an object table.
struct Scope {
  ObjectType type = ObjectType::kUnknown;  // kInstance or kDevice
  uint64_t handle = 0;
  uint64_t object_id = 0;  // id of the VkInstance / VkDevice record
  ObjectTable table;
  ChildIndex children;  // pools' and swapchains' implicit children
  EdgeStore edges;      // what each object references
  ParentMap parents;    // parents other than the scope, a pool or a swapchain (rare)
  Graveyard graveyard;  // recently destroyed objects, to describe what stale edges point at
  EventLog events;
  std::atomic<uint64_t> frame{0};
  // What new objects are stamped with: the frame, or while frame_boundary=auto has not decided
  // (a device's first auto_submit_frames() submits without a present) kUndecidedFrame | submits,
  // which snapshots read as the submit count if the device then counts frames at submits, else
  // as frame 0 (reported_creation_frame). So a program that never presents is numbered by
  // submits from its first submit, and one that presents keeps its present-counted frames.
  std::atomic<uint32_t> creation_frame{0};
  std::atomic<bool> frames_were_submits{false};  // auto: switched to submits (sticky)
  std::atomic<bool> degraded{false};
  // The process that made it (registry.h): a forked child's snapshots leave its parent's out.
  const uint32_t generation = process_generation();

  Scope() = default;
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
  // What the app never destroyed gives its creation contexts and names back with its table.
  ~Scope() {
    table.for_each([](const ObjectRecord& r) {
      release_context(r.context);
      release_name(r.name);
      release_name(inline_edge_name(r));
    });
  }
};

// Bumped after any device's DescriptorInfo::layouts changes and when a device goes away: the
// per-thread copies of layouts' bindings (vkUpdateDescriptorSets) are then stale.
extern std::atomic<uint32_t> g_descriptor_layouts_generation;

// Descriptor bookkeeping the graph needs to give each (binding, element) a slot: the bindings of
// each set layout and the entries of each update template (a set's layout is its edge
// "pSetLayouts"), and the images of each swapchain in order.
struct DescriptorInfo {
  struct Binding {
    uint32_t binding, count, first_slot;
    VkDescriptorType type;
  };
  struct TemplateEntry {
    uint32_t binding, element, count;
    VkDescriptorType type;
    size_t offset, stride;
  };
  std::mutex mutex;
  std::unordered_map<uint64_t, std::vector<Binding>> layouts;          // set layout -> bindings
  std::unordered_map<uint64_t, std::vector<TemplateEntry>> templates;  // template -> entries
  std::unordered_map<uint64_t, std::vector<uint64_t>> swapchain_images;
};

struct InstanceState : Scope {
  InstanceDispatch dispatch{};
  PFN_vkGetInstanceProcAddr next_gipa = nullptr;
  Settings settings;
  std::string application_name;
  std::string engine_name;
  uint32_t api_version = 0;
  bool properties2_extension = false;  // the app enabled VK_KHR_get_physical_device_properties2
};

struct DeviceState : Scope {
  DeviceDispatch dispatch{};
  PFN_vkGetDeviceProcAddr next_gdpa = nullptr;
  InstanceState* instance = nullptr;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  std::string physical_device_name;
  FrameBoundary frame_boundary = FrameBoundary::kAuto;  // the setting (see boundary_in_effect)
  uint32_t snapshot_every = 0;
  std::atomic<uint64_t> submits{0};
  std::atomic<uint64_t> presents{0};
  SubmissionTracker submissions;
  CommandRefsRegistry command_refs;
  DescriptorInfo descriptors;  // set layouts, update templates, sets' layouts
  MemoryDirectory memories;    // what bound resources' records name their memory by
  HeapBudget heap_budget;      // the driver's view of the heaps (heap_budget.h)
};

// How many submits without a present make frame_boundary=auto count frames at submits:
// kAutoSubmitFrames, or snapshot_every when that is fewer, so that `--every N` takes its first
// periodic snapshot at frame N whatever the boundary turns out to be (a program that presents
// after N start-up submits has its frames continue from N, as after kAutoSubmitFrames).
inline uint64_t auto_submit_frames(const DeviceState& d) noexcept {
  return d.snapshot_every != 0 && d.snapshot_every < kAutoSubmitFrames ? d.snapshot_every
                                                                       : kAutoSubmitFrames;
}

// What ends this device's frames now: the setting, or for kAuto, submits while the device has
// made auto_submit_frames() submits and no present (derived from the counters: nothing to keep).
inline FrameBoundary boundary_in_effect(const DeviceState& d) noexcept {
  if (d.frame_boundary != FrameBoundary::kAuto) return d.frame_boundary;
  return d.presents.load(std::memory_order_relaxed) == 0 &&
                 d.submits.load(std::memory_order_relaxed) >= auto_submit_frames(d)
             ? FrameBoundary::kSubmit
             : FrameBoundary::kPresent;
}

inline constexpr uint32_t kUndecidedFrame = 1u << 31;

// A creation frame as snapshots report it (see Scope::creation_frame).
inline uint32_t reported_creation_frame(const Scope& scope, uint32_t stamped) noexcept {
  if (!(stamped & kUndecidedFrame)) return stamped;
  return scope.frames_were_submits.load(std::memory_order_relaxed) ? stamped & ~kUndecidedFrame : 0;
}

// Where objects of `type` referenced from `scope` live: instance-level targets (surfaces,
// displays) live in the instance's table. Inline: every edge made asks.
inline Scope& target_scope(Scope& scope, ObjectType type) noexcept {
  if (scope.type != ObjectType::kDevice) return scope;
  switch (type) {
    case ObjectType::kSurfaceKHR:
    case ObjectType::kDisplayKHR:
    case ObjectType::kDisplayModeKHR:
    case ObjectType::kPhysicalDevice:
    case ObjectType::kInstance:
      if (auto* inst = static_cast<DeviceState&>(scope).instance) return *inst;
      return scope;
    default:
      return scope;
  }
}

// The object table's owner (inline: every generated hook calls it).
inline Scope& scope_of(InstanceState& s) noexcept {
  return s;
}
inline Scope& scope_of(DeviceState& s) noexcept {
  return s;
}

// The loader's dispatch pointer: the first word of every dispatchable handle.
inline const void* dispatch_key(const void* dispatchable) noexcept {
  return *static_cast<void* const*>(dispatchable);
}

// Registers / unregisters states. The registry holds shared ownership so that a snapshot taken
// off the app's thread can keep reading a state the app is destroying.
void register_instance(const std::shared_ptr<InstanceState>& s, const void* key) noexcept;
std::shared_ptr<InstanceState> unregister_instance(const void* key) noexcept;
void register_device(const std::shared_ptr<DeviceState>& s, const void* key) noexcept;
std::shared_ptr<DeviceState> unregister_device(const void* key) noexcept;

// Every live state (copies of the shared pointers, under the registry's mutex).
std::vector<std::shared_ptr<InstanceState>> all_instances();
std::vector<std::shared_ptr<DeviceState>> all_devices();

// Lock-free lookups by the loader dispatch key (the first word of a dispatchable handle).
// VkInstance and VkPhysicalDevice map to their InstanceState; VkDevice, VkQueue and
// VkCommandBuffer to their DeviceState. Null only for handles the layer never saw.
inline InstanceState* get_instance_state(const void* dispatchable) noexcept {
  return dispatchable ? g_instance_registry->find(dispatch_key(dispatchable)) : nullptr;
}
inline DeviceState* get_device_state(const void* dispatchable) noexcept {
  return dispatchable ? g_device_registry->find(dispatch_key(dispatchable)) : nullptr;
}

}  // namespace vkleak
