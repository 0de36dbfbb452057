// Recently destroyed objects that edges pointed at, per scope (Scope::graveyard): snapshots name
// what a stale edge points at from it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "base/spin_lock.h"
#include "store/creation_context.h"
#include "store/object_table.h"

namespace vkleak {

// A bounded ring of destroyed objects per shard: enough to name what a stale edge points at.
struct GraveRecord {
  ObjectRecord record;
  uint32_t destroyed_frame;
  CreationContext made;           // record.context's triple: the context goes with the object
  uint32_t destroy_callsite = 0;  // 0 unless destroy_callstacks is on
};
class Graveyard {
 public:
  Graveyard() = default;
  ~Graveyard();  // gives back the names its records hold
  Graveyard(const Graveyard&) = delete;
  Graveyard& operator=(const Graveyard&) = delete;
  void bury(const ObjectRecord& r, uint32_t frame, uint32_t destroy_callsite) noexcept;
  // Calls f(const GraveRecord&) for each remembered object.
  template <typename F>
  void for_each(F&& f) const {
    for (const Shard& s : shards_) {
      std::lock_guard<SpinLock> lock(s.mutex);
      for (const GraveRecord& g : s.ring) f(g);
    }
  }

 private:
  static constexpr size_t kShards = 8;
  static constexpr size_t kPerShard = 8192;
  struct alignas(64) Shard {
    mutable SpinLock mutex;
    std::vector<GraveRecord> ring;
    size_t next = 0;
  };
  Shard shards_[kShards];
};

}  // namespace vkleak
