// Dispatch-key registries (see registry.h).
#include "tracking/registry.h"

#include <algorithm>

#include "base/log.h"
#include "tracking/state.h"

namespace vkleak {

template <typename State>
void KeyRegistry<State>::add(const std::shared_ptr<State>& s, const void* key) noexcept {
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

template <typename State>
std::shared_ptr<State> KeyRegistry<State>::remove(const void* key) noexcept {
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

template <typename State>
std::vector<std::shared_ptr<State>> KeyRegistry<State>::all() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return owners_;
}

template class KeyRegistry<InstanceState>;
template class KeyRegistry<DeviceState>;

namespace {

KeyRegistry<InstanceState>& instances() {
  return *g_instance_registry;
}
KeyRegistry<DeviceState>& devices() {
  return *g_device_registry;
}

}  // namespace

// Created when the layer is loaded, before any hook can run; never destroyed: hooks may run on
// other threads while the process exits.
KeyRegistry<InstanceState>* const g_instance_registry = new KeyRegistry<InstanceState>;
KeyRegistry<DeviceState>* const g_device_registry = new KeyRegistry<DeviceState>;

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
namespace {
std::atomic<uint32_t> g_process_generation{0};

// The scopes this process made (not inherited from a parent across fork()).
template <typename State>
std::vector<std::shared_ptr<State>> own(std::vector<std::shared_ptr<State>> all) {
  const uint32_t now = process_generation();
  all.erase(std::remove_if(all.begin(), all.end(),
                           [now](const std::shared_ptr<State>& s) { return s->generation != now; }),
            all.end());
  return all;
}
}  // namespace

uint32_t process_generation() noexcept {
  return g_process_generation.load(std::memory_order_relaxed);
}

void note_forked_child() noexcept {
  g_process_generation.fetch_add(1, std::memory_order_relaxed);
  instances().reset_lock_in_child();
  devices().reset_lock_in_child();
}

std::vector<std::shared_ptr<InstanceState>> all_instances() {
  return own(instances().all());
}
std::vector<std::shared_ptr<DeviceState>> all_devices() {
  return own(devices().all());
}

namespace {
struct DestroyedDevices {
  std::mutex mutex;
  DestroyedDevice ring[16];
  size_t next = 0;
};
DestroyedDevices& destroyed_devices() {
  static auto* d = new DestroyedDevices;  // never destroyed, as the registries
  return *d;
}
}  // namespace

void remember_destroyed_device(const DestroyedDevice& d) noexcept {
  DestroyedDevices& all = destroyed_devices();
  std::lock_guard<std::mutex> lock(all.mutex);
  all.ring[all.next] = d;
  all.next = (all.next + 1) % (sizeof(all.ring) / sizeof(all.ring[0]));
}

bool find_destroyed_device(uint64_t handle, DestroyedDevice* out) noexcept {
  DestroyedDevices& all = destroyed_devices();
  std::lock_guard<std::mutex> lock(all.mutex);
  for (const DestroyedDevice& d : all.ring) {
    if (d.handle == handle && handle != 0) {
      *out = d;
      return true;
    }
  }
  return false;
}

void forget_destroyed_device(uint64_t handle) noexcept {
  DestroyedDevices& all = destroyed_devices();
  std::lock_guard<std::mutex> lock(all.mutex);
  for (DestroyedDevice& d : all.ring)
    if (d.handle == handle) d = DestroyedDevice{};
}

}  // namespace vkleak
