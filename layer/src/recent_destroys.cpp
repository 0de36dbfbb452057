#include "recent_destroys.h"

#include <atomic>
#include <mutex>
#include <new>

namespace vkleak {

__thread uint32_t t_destroy_shard __attribute__((tls_model("initial-exec"))) = 0;

uint32_t assign_destroy_shard() noexcept {
  static std::atomic<uint32_t> next{0};
  // Never 0 (0 means "not assigned yet"); the low bits pick the shard.
  t_destroy_shard = RecentDestroys::kShards +
                    next.fetch_add(1, std::memory_order_relaxed) % RecentDestroys::kShards;
  return t_destroy_shard;
}

RecentDestroys::~RecentDestroys() {
  for (Shard& s : shards_) {
    if (!s.entries) continue;
    for (uint32_t i = 0; i < per_shard_; ++i) give_back(s.entries[i].context, s.entries[i].name);
  }
}

bool RecentDestroys::allocate(Shard& s) noexcept {
  s.entries.reset(new (std::nothrow) DestroyedEntry[per_shard_]);
  return s.entries != nullptr;
}

bool RecentDestroys::find(uint64_t handle, ObjectType type, DestroyedInfo* out) const noexcept {
  bool found = false;
  for (const Shard& s : shards_) {
    std::lock_guard<SpinLock> lock(s.lock);
    if (!s.entries) continue;
    for (uint32_t i = 0; i < per_shard_; ++i) {
      const DestroyedEntry& e = s.entries[i];
      // Ids grow with creation: of two destroys of one handle value, the later-made object's
      // is the later destroy.
      if (e.handle != handle || e.type != type || (found && e.id < out->id)) continue;
      try {
        out->id = e.id;
        out->made = context_of(e.context);
        out->name = name_string(e.name);
        out->destroyed_frame = e.destroyed_frame;
        out->destroy_callsite = e.destroy_callsite;
        found = true;
      } catch (...) {
      }
    }
  }
  return found;
}

uint64_t RecentDestroys::bytes() const noexcept {
  uint64_t total = 0;
  for (const Shard& s : shards_)
    if (s.entries) total += uint64_t{per_shard_} * sizeof(DestroyedEntry);
  return total;
}

}  // namespace vkleak
