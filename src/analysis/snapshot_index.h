// What the rules need to know about each object of one snapshot, computed once: its group, the
// frame "now" for its device, when it was last active, what memory only it keeps alive, and
// the bytes it holds. Flat arrays indexed like Snapshot::objects, so a million objects cost a
// few dozen bytes each.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/callsites.h"
#include "analysis/grouping.h"
#include "core/snapshot.h"

namespace vkleak::analysis {

inline constexpr uint32_t kNever = UINT32_MAX;
inline constexpr size_t kNotFound = SIZE_MAX;

// device_destroy and instance_destroy snapshots list what was left at teardown.
bool is_teardown(const Snapshot& snapshot);

class SnapshotIndex {
 public:
  SnapshotIndex(const Snapshot& snapshot, CallsiteTable* callsites, GroupTable* groups);

  const Snapshot& snapshot() const { return s_; }
  size_t size() const { return s_.objects.size(); }
  const Object& object(size_t i) const { return s_.objects[i]; }
  const std::string& type(size_t i) const { return s_.type_names[s_.objects[i].type]; }

  // The index of the k-th object in increasing id order.
  size_t by_id(size_t k) const { return by_id_[k].second; }
  // Index of the live object with this id, or kNotFound.
  size_t find(int64_t id) const;
  // The destroyed-list entry with this id, or nullptr.
  const DestroyedObject* destroyed(int64_t id) const;

  uint32_t group(size_t i) const { return group_[i]; }
  uint32_t callsite(size_t i) const {
    const int32_t c = s_.objects[i].callsite;
    return c < 0 ? kNoCallsiteId : callsite_ids_[static_cast<size_t>(c)];
  }
  // Callsite ids of the snapshot's call-site table (for the destroyed list).
  // Out of range (a damaged snapshot) reads as none.
  uint32_t callsite_id(int32_t snapshot_callsite) const {
    return snapshot_callsite < 0 || static_cast<size_t>(snapshot_callsite) >= callsite_ids_.size()
               ? kNoCallsiteId
               : callsite_ids_[static_cast<size_t>(snapshot_callsite)];
  }

  // The current frame of the object's device (the snapshot's frame for instance objects).
  uint64_t now(size_t i) const { return now_[i]; }
  // Frame of the last submission that used it; kNever when none did.
  uint32_t last_use(size_t i) const { return last_use_[i]; }
  // The last use, or the creation frame when never used.
  uint64_t last_active(size_t i) const {
    return last_use_[i] == kNever ? s_.objects[i].frame : last_use_[i];
  }
  // Frames since it was last active.
  uint64_t idle(size_t i) const {
    const uint64_t active = last_active(i);
    return now_[i] > active ? now_[i] - active : 0;
  }

  // Created or allocated by the application (not retrieved handles or swapchain images).
  bool app_made(size_t i) const {
    const Origin o = s_.objects[i].origin;
    return o == Origin::kCreated || o == Origin::kAllocated;
  }
  bool is_memory(size_t i) const { return s_.objects[i].type == memory_type_; }
  // Memory: how many live objects are bound to it.
  uint32_t binders(size_t i) const { return binders_[i]; }
  // Memory bound to exactly one live object: that object's index; it goes with it everywhere.
  size_t attached_to(size_t i) const { return attached_to_[i]; }
  bool attached(size_t i) const { return attached_to_[i] != kNotFound; }
  // Bytes it keeps alive: memory only it is bound to, or its share of shared memory, or its own
  // size when nothing is bound; memory objects hold their size.
  uint64_t held_bytes(size_t i) const { return held_[i]; }
  // The memory objects attached to object i (usually none or one).
  std::vector<size_t> attached_memory(size_t i) const;

  bool is_memory_edge(const Edge& e) const {
    return e.kind == memory_kind_ || e.kind == sparse_kind_;
  }
  std::pair<const Edge*, const Edge*> edges(size_t i) const;

 private:
  const Snapshot& s_;
  std::vector<uint32_t> callsite_ids_;
  std::vector<uint32_t> group_;
  std::vector<uint64_t> now_;
  std::vector<uint32_t> last_use_;
  std::vector<uint32_t> binders_;
  std::vector<size_t> attached_to_;
  std::vector<uint64_t> held_;
  std::vector<std::pair<uint64_t, uint32_t>> by_id_;  // (id, index), sorted
  std::vector<uint32_t> edge_begin_;                  // edges of object i: [begin[i], begin[i+1])
  std::unordered_map<int64_t, size_t> destroyed_;
  uint16_t memory_type_ = UINT16_MAX;
  uint16_t memory_kind_ = UINT16_MAX;
  uint16_t sparse_kind_ = UINT16_MAX;
};

}  // namespace vkleak::analysis
