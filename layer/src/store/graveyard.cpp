// The graveyard (see graveyard.h).
#include "store/graveyard.h"

#include "store/names.h"

namespace vkleak {

void Graveyard::bury(const ObjectRecord& r, uint32_t frame, uint32_t destroy_callsite) noexcept {
  Shard& s = shards_[(r.handle >> 4) % kShards];
  std::lock_guard<SpinLock> lock(s.mutex);
  try {
    const CreationContext made = context_of(r.context);
    if (s.ring.size() < kPerShard) {
      s.ring.push_back({r, frame, made, destroy_callsite});
    } else {
      release_name(s.ring[s.next].record.name);
      s.ring[s.next] = {r, frame, made, destroy_callsite};
      s.next = (s.next + 1) % kPerShard;
    }
    retain_name(r.name);  // the ring's own reference
  } catch (...) {
  }
}

Graveyard::~Graveyard() {
  for (const Shard& s : shards_)
    for (const GraveRecord& g : s.ring) release_name(g.record.name);
}

}  // namespace vkleak
