// The process-wide registries that map a dispatchable handle's loader dispatch key to the layer's
// state for it. Lookups run in every hook, so they are inline and lock-free: a fixed array of
// (key, state) slots scanned up to a high-water mark (instances and devices are few). Writes
// happen only at instance/device create and destroy, under a mutex that also guards the shared
// owners.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
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

extern KeyRegistry<InstanceState>* const g_instance_registry;
extern KeyRegistry<DeviceState>* const g_device_registry;

}  // namespace vkleak
