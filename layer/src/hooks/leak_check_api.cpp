#include "hooks/leak_check_api.h"

#include <pthread.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include <vkleak/vkleak.h>  // the C API this implements (layer/include)
#include "base/passthrough.h"
#include "callsite/callsite.h"
#include "snapshot/snapshot.h"
#include "store/creation_context.h"
#include "store/names.h"
#include "tracking/state.h"
#include "tracking/tracker.h"

namespace vkleak {
namespace {

// What vkleak_live_since() returned last on this thread: its strings live until the next call.
// Through a pthread key, not TLS (the layer's TLS block is nearly all spent: thread_box.h).
std::deque<std::string>* thread_strings() {
  static pthread_key_t key;
  static const bool made = pthread_key_create(&key, [](void* p) {
                             delete static_cast<std::deque<std::string>*>(p);
                           }) == 0;
  if (!made) return nullptr;
  auto* strings = static_cast<std::deque<std::string>*>(pthread_getspecific(key));
  if (!strings) {
    strings = new std::deque<std::string>;
    if (pthread_setspecific(key, strings) != 0) {
      delete strings;
      return nullptr;
    }
  }
  return strings;
}

struct Found {
  uint64_t id;
  ObjectType type;
  uint64_t handle;
  uint64_t bytes;
  uint32_t name;
  ContextId context;
};

bool in_ranges(const std::vector<std::pair<uint64_t, uint64_t>>& ranges, uint64_t id) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), std::make_pair(id, UINT64_MAX));
  return it != ranges.begin() && id < std::prev(it)->second;
}

VKAPI_ATTR uint64_t VKAPI_CALL checkpoint(VkDevice device) noexcept {
  if (!get_device_state(device) || passthrough()) return 0;
  return thread_checkpoint();
}

VKAPI_ATTR uint32_t VKAPI_CALL live_since(VkDevice device, uint64_t checkpoint, vkleak_object* out,
                                          uint32_t capacity) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state || checkpoint == 0) return 0;
  try {
    std::deque<std::string>* strings = thread_strings();
    if (!strings) return 0;
    strings->clear();
    const auto ranges = thread_ids_since(checkpoint);
    if (ranges.empty()) return 0;
    // Names and contexts are read after the table's locks: pinned meanwhile.
    const NamePin names;
    const ContextPin contexts;
    std::vector<Found> found;
    state->table.for_each([&](const ObjectRecord& r) {
      // Retrieved objects (queues, swapchain images, displays) are the driver's: no test can
      // destroy them, so none is a leak.
      const auto origin = static_cast<Origin>(r.origin);
      if (origin == Origin::kRetrieved || origin == Origin::kSwapchainImage) return;
      if (in_ranges(ranges, r.id))
        found.push_back(
            {r.id, static_cast<ObjectType>(r.type), r.handle, byte_size(r), r.name, r.context});
    });
    std::sort(found.begin(), found.end(),
              [](const Found& a, const Found& b) { return a.id < b.id; });
    const uint32_t n = static_cast<uint32_t>(std::min<size_t>(found.size(), UINT32_MAX));
    for (uint32_t i = 0; i < n && i < capacity && out; ++i) {
      const Found& f = found[i];
      vkleak_object& o = out[i];
      o.type = to_vk_object_type(f.type);
      o.handle = f.handle;
      o.bytes = f.bytes;
      o.name = nullptr;
      if (f.name) o.name = strings->emplace_back(name_string(f.name)).c_str();
      o.call_site = nullptr;
      if (const CallsiteId site = context_of(f.context).callsite) {
        std::string text = describe_callsite(site);
        if (!text.empty()) o.call_site = strings->emplace_back(std::move(text)).c_str();
      }
    }
    return n;
  } catch (...) {
    return 0;  // out of memory: nothing said rather than something wrong
  }
}

VKAPI_ATTR int VKAPI_CALL snapshot(VkDevice device, const char* label) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state || passthrough()) return 0;
  state->heap_budget.sample(state->frame.load(std::memory_order_relaxed));
  try {
    return snapshot_requested(label ? label : "");
  } catch (...) {
    return ENOMEM;
  }
}

}  // namespace

PFN_vkVoidFunction leak_check_entry_point(const char* name) noexcept {
  if (std::strcmp(name, "vkleak_checkpoint") == 0)
    return reinterpret_cast<PFN_vkVoidFunction>(&checkpoint);
  if (std::strcmp(name, "vkleak_live_since") == 0)
    return reinterpret_cast<PFN_vkVoidFunction>(&live_since);
  if (std::strcmp(name, "vkleak_snapshot") == 0)
    return reinterpret_cast<PFN_vkVoidFunction>(&snapshot);
  return nullptr;
}

}  // namespace vkleak
