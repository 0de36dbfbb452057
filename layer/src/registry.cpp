// Dispatch-key registries. Lookups (every hook) are lock-free: a fixed array of (key, state)
// slots scanned up to a high-water mark; devices and instances are few. Writes happen only at
// instance/device create and destroy, under a mutex that also guards the shared owners.
#include <time.h>

#include <algorithm>

#include "layer_state.h"
#include "log.h"

namespace vkleak {
namespace {

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

  void add(const std::shared_ptr<State>& s, const void* key) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      owners_.push_back(s);
    } catch (...) {
      return;
    }
    size_t n = high_.load(std::memory_order_relaxed);
    size_t i = 0;
    while (i < n && slots_[i].key.load(std::memory_order_relaxed) != nullptr) ++i;
    if (i == kSlots) {
      log().error("more than {} live instances or devices: not tracking the newest", kSlots);
      return;
    }
    slots_[i].state.store(s.get(), std::memory_order_release);
    slots_[i].key.store(key, std::memory_order_release);
    if (i == n) high_.store(n + 1, std::memory_order_release);
  }

  std::shared_ptr<State> remove(const void* key) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    State* raw = nullptr;
    size_t n = high_.load(std::memory_order_relaxed);
    for (size_t i = 0; i < n; ++i) {
      if (slots_[i].key.load(std::memory_order_relaxed) == key) {
        raw = slots_[i].state.load(std::memory_order_relaxed);
        slots_[i].key.store(nullptr, std::memory_order_release);
        break;
      }
    }
    std::shared_ptr<State> out;
    auto it = std::find_if(owners_.begin(), owners_.end(),
                           [&](const std::shared_ptr<State>& p) { return p.get() == raw; });
    if (raw && it != owners_.end()) {
      out = *it;
      owners_.erase(it);
    }
    return out;
  }

  std::vector<std::shared_ptr<State>> all() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return owners_;
  }

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

// Never destroyed: hooks may run on other threads while the process exits.
KeyRegistry<InstanceState>& instances() {
  static auto* r = new KeyRegistry<InstanceState>;
  return *r;
}
KeyRegistry<DeviceState>& devices() {
  static auto* r = new KeyRegistry<DeviceState>;
  return *r;
}

uint64_t monotonic_ms() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000 + static_cast<uint64_t>(ts.tv_nsec) / 1000000;
}
const uint64_t g_load_ms = monotonic_ms();
std::atomic<bool> g_passthrough{false};

}  // namespace

InstanceState* get_instance_state(const void* dispatchable) noexcept {
  return dispatchable ? instances().find(dispatch_key(dispatchable)) : nullptr;
}
DeviceState* get_device_state(const void* dispatchable) noexcept {
  return dispatchable ? devices().find(dispatch_key(dispatchable)) : nullptr;
}

void register_instance(const std::shared_ptr<InstanceState>& s, const void* key) noexcept {
  instances().add(s, key);
}
std::shared_ptr<InstanceState> unregister_instance(const void* key) noexcept {
  return instances().remove(key);
}
void register_device(const std::shared_ptr<DeviceState>& s, const void* key) noexcept {
  devices().add(s, key);
}
std::shared_ptr<DeviceState> unregister_device(const void* key) noexcept {
  return devices().remove(key);
}
std::vector<std::shared_ptr<InstanceState>> all_instances() { return instances().all(); }
std::vector<std::shared_ptr<DeviceState>> all_devices() { return devices().all(); }

Scope& scope_of(InstanceState& s) noexcept { return s; }
Scope& scope_of(DeviceState& s) noexcept { return s; }

uint32_t now_ms() noexcept { return static_cast<uint32_t>(monotonic_ms() - g_load_ms); }

bool passthrough() noexcept { return g_passthrough.load(std::memory_order_relaxed); }
void set_passthrough() noexcept { g_passthrough.store(true, std::memory_order_relaxed); }

}  // namespace vkleak
