// Per-instance and per-device state, and the process-wide registries that find them.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "child_index.h"
#include "event_log.h"
#include "object_table.h"
#include "settings.h"
#include "tracker.h"
#include "vk_dispatch.h"

namespace vkleak {

// What owns an object table.
struct Scope {
  ObjectType type = ObjectType::kUnknown;  // kInstance or kDevice
  uint64_t handle = 0;
  uint64_t object_id = 0;  // id of the VkInstance / VkDevice record
  ObjectTable table;
  ChildIndex children;  // pools' and swapchains' implicit children
  EventLog events;
  std::atomic<uint64_t> frame{0};
  std::atomic<bool> degraded{false};
};

struct InstanceState : Scope {
  InstanceDispatch dispatch{};
  PFN_vkGetInstanceProcAddr next_gipa = nullptr;
  Settings settings;
  std::string application_name;
  std::string engine_name;
  uint32_t api_version = 0;
};

struct DeviceState : Scope {
  DeviceDispatch dispatch{};
  PFN_vkGetDeviceProcAddr next_gdpa = nullptr;
  InstanceState* instance = nullptr;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  std::string physical_device_name;
  FrameBoundary frame_boundary = FrameBoundary::kPresent;
  uint32_t snapshot_every = 0;
  std::atomic<uint64_t> submits{0};
  std::atomic<uint64_t> presents{0};
};

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

// Milliseconds since the layer was loaded (coarse monotonic clock: cheap on the hot path).
uint32_t now_ms() noexcept;

// True once the process is exiting and the final snapshot has been taken: hooks then only
// pass calls through.
bool passthrough() noexcept;
void set_passthrough() noexcept;

}  // namespace vkleak
