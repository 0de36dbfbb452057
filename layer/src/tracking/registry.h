// The process-wide registries that map a dispatchable handle's loader dispatch key to the layer's
// state for it. Lookups run in every hook, so they are inline and lock-free: a fixed array of
// (key, state) slots scanned up to a high-water mark (instances and devices are few). Writes
// happen only at instance/device create and destroy, under a mutex that also guards the shared
// owners.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

namespace vkleak {

struct InstanceState;
struct DeviceState;

template <typename State>
class KeyRegistry {
 public:
  State* find(const void* key) const noexcept {
    const size_t n = high_.load(std::memory_order_acquire);
    for (size_t i = 0; i < n; ++i) {
      if (slots_[i].key.load(std::memory_order_acquire) == key)
        return slots_[i].state.load(std::memory_order_acquire);
    }
    return nullptr;
  }

  void add(const std::shared_ptr<State>& s, const void* key) noexcept;
  std::shared_ptr<State> remove(const void* key) noexcept;
  std::vector<std::shared_ptr<State>> all() const;
  // In a forked child (one thread): the parent's threads that may have held the mutex are gone.
  void reset_lock_in_child() noexcept { new (&mutex_) std::mutex; }

 private:
  static constexpr size_t kSlots = 1024;
  struct Slot {
    std::atomic<const void*> key{nullptr};
    std::atomic<State*> state{nullptr};
  };
  Slot slots_[kSlots];
  std::atomic<size_t> high_{0};
  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<State>> owners_;
};

// Devices the app destroyed, by handle value (the loader's dispatch key may be gone with the
// device's memory): a second vkDestroyDevice is reported and still passed down, as the app
// asked. The last few only.
struct DestroyedDevice {
  uint64_t handle = 0;
  PFN_vkDestroyDevice destroy = nullptr;  // the next layer's or the driver's
  const void* instance_key = nullptr;     // its instance's dispatch key
};
void remember_destroyed_device(const DestroyedDevice& d) noexcept;
bool find_destroyed_device(uint64_t handle, DestroyedDevice* out) noexcept;
void forget_destroyed_device(uint64_t handle) noexcept;  // the handle value is a live device again

// Which process made a scope: bumped in a forked child (note_forked_child). A child inherits
// its parent's instances and devices (their tables, their hooks still work) but they are not
// its own: all_instances()/all_devices() and so every snapshot of the child leave them out.
uint32_t process_generation() noexcept;
// From the snapshot writer's pthread_atfork child handler (the child has one thread).
void note_forked_child() noexcept;

extern KeyRegistry<InstanceState>* const g_instance_registry;
extern KeyRegistry<DeviceState>* const g_device_registry;

}  // namespace vkleak
