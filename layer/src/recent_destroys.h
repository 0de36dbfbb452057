// The last destroys of a scope (setting `graveyard_size`: how many per destroying thread), so that a destroy of a handle
// that is not live can say what the handle was: its type, debug name, creation and first destroy.
// Only that rare path reads it; the hot path writes one entry, in the ring of its own thread's
// shard, handing over the record's creation-context and name references instead of dropping
// them (the entry it overwrites gives its references back).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "creation_context.h"
#include "names.h"
#include "spin_lock.h"
#include "vk_object_types.h"

namespace vkleak {

struct DestroyedEntry {
  uint64_t handle = 0;
  uint64_t id = 0;
  ContextId context = 0;  // a reference the ring holds
  uint32_t name = 0;      // likewise
  uint32_t destroyed_frame = 0;
  uint32_t destroy_callsite = 0;  // 0 unless destroy_callstacks is on
  ObjectType type = ObjectType::kUnknown;
};

// What a lookup found, copied while the ring's references still held it.
struct DestroyedInfo {
  uint64_t id = 0;
  CreationContext made;
  std::string name;
  uint32_t destroyed_frame = 0;
  uint32_t destroy_callsite = 0;
};

// This thread's shard (threads take them in turn): a thread's destroys write its own ring.
extern __thread uint32_t t_destroy_shard __attribute__((tls_model("initial-exec")));
uint32_t assign_destroy_shard() noexcept;

class RecentDestroys {
 public:
  static constexpr uint32_t kShards = 8;

  RecentDestroys() = default;
  ~RecentDestroys();  // gives back the references the entries hold
  RecentDestroys(const RecentDestroys&) = delete;
  RecentDestroys& operator=(const RecentDestroys&) = delete;

  // Entries kept per shard: a single-threaded app's destroys all go to one, so each remembers
  // the whole setting (memory: up to kShards rings, each allocated on its first destroy). 0
  // keeps none. Set once, before any add().
  void set_capacity(uint32_t entries) noexcept { per_shard_ = entries; }

  // Takes over `context` and `name` (references the destroyed record held).
  __attribute__((always_inline)) void add(uint64_t handle, ObjectType type, uint64_t id,
                                          ContextId context, uint32_t name, uint32_t frame,
                                          uint32_t destroy_callsite) noexcept {
    if (__builtin_expect(per_shard_ == 0, 0)) return give_back(context, name);  // graveyard off
    uint32_t shard = t_destroy_shard;
    if (__builtin_expect(shard == 0, 0)) shard = assign_destroy_shard();
    Shard& s = shards_[shard & (kShards - 1)];
    s.lock.lock();
    if (__builtin_expect(s.entries == nullptr, 0) && !allocate(s)) {  // out of memory
      s.lock.unlock();
      give_back(context, name);
      return;
    }
    DestroyedEntry& e = s.entries[s.next];
    const ContextId old_context = e.context;
    const uint32_t old_name = e.name;
    e = {handle, id, context, name, frame, destroy_callsite, type};
    if (++s.next == per_shard_) s.next = 0;
    s.lock.unlock();
    give_back(old_context, old_name);
  }

  uint32_t capacity() const noexcept { return per_shard_; }  // per thread's ring

  // The latest destroy of (handle, type) still remembered.
  bool find(uint64_t handle, ObjectType type, DestroyedInfo* out) const noexcept;

  // Bytes held by the rings (not counting names and contexts kept alive).
  uint64_t bytes() const noexcept;

 private:
  struct alignas(64) Shard {
    mutable SpinLock lock;
    std::unique_ptr<DestroyedEntry[]> entries;  // per_shard_ of them, allocated on first use
    uint32_t next = 0;
  };
  __attribute__((cold, noinline)) bool allocate(Shard& s) noexcept;
  __attribute__((always_inline)) static void give_back(ContextId context, uint32_t name) noexcept {
    release_context(context);
    if (__builtin_expect(name != 0, 0)) release_name(name);
  }

  uint32_t per_shard_ = 0;
  Shard shards_[kShards];
};

}  // namespace vkleak
