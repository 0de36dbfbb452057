// Events the layer detects as they happen (invalid destroys, duplicate handles, ...), kept per
// scope until the next snapshot reports them.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "vk_object_types.h"

namespace vkleak {

struct EventPathStep {
  uint64_t id;
  ObjectType type;
  std::string name;
  const char* relation;  // "written in", "viewed by", "attached to", "bound to", "bound in"
};

struct Event {
  std::string kind;  // "destroyed_in_flight", "invalid_destroy", "duplicate_handle"
  ObjectType type = ObjectType::kUnknown;
  uint64_t handle = 0;
  uint64_t object_id = 0;  // 0 when unknown
  uint64_t frame = 0;
  uint32_t time_ms = 0;
  std::string message;
  std::string name;  // the object's debug name, if any
  // destroyed_in_flight: the submission that still used it, and how it reached the object.
  int32_t queue = -1;
  uint64_t serial = 0;
  uint64_t use_frame = 0;
  std::vector<EventPathStep> path;
  uint32_t callsite = 0;  // the call that did it (0: not captured)
  // The object's creation: destroyed_in_flight, the object itself; invalid_destroy, the earlier
  // object with this handle, or the one on the device that owns it.
  bool has_created = false;
  uint32_t created_frame = 0;
  uint32_t created_callsite = 0;
  const char* reason = nullptr;    // invalid_destroy: "already_destroyed", "unknown_handle", ...
  bool has_first_destroy = false;  // reason already_destroyed: the earlier, valid destroy
  uint32_t first_destroy_frame = 0;
  uint32_t first_destroy_callsite = 0;
  uint64_t belongs_to = 0;  // reason wrong_device: the owning VkDevice's object id
};

class EventLog {
 public:
  void add(Event e) noexcept {
    try {
      std::lock_guard<std::mutex> lock(mutex_);
      if (events_.size() < kMaxPending)
        events_.push_back(std::move(e));
      else
        dropped_++;
    } catch (...) {
      dropped_++;
    }
  }
  // Moves the pending events out; `dropped` receives how many did not fit since the last take.
  std::vector<Event> take(uint64_t* dropped) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Event> out;
    out.swap(events_);
    *dropped = dropped_;
    dropped_ = 0;
    return out;
  }

 private:
  static constexpr size_t kMaxPending = 100000;
  std::mutex mutex_;
  std::vector<Event> events_;
  uint64_t dropped_ = 0;
};

}  // namespace vkleak
