// The last destroys of each thread (setting `graveyard_size`: how many), so that a destroy of a
// handle that is not live can say what the handle was: its type, debug name, creation and first
// destroy. Only that rare path reads them; the hot path writes one entry into its own thread's
// ring, handing over the record's creation-context and name references instead of dropping them
// (the entry it overwrites gives its references back). A ring belongs to one thread at a time:
// rings shared by threads (sharded by thread) made two threads that destroy at once three times
// slower (bench/RESULTS.md). Its owner writes it without a lock or any atomic read-modify-write
// (issue 28: the lock's exchange was ~4 ns of every destroy): each entry is a seqlock, its
// version odd while the owner rewrites it, and a reader copies an entry and keeps it only if
// the version did not move; the ids it copies stay readable because the reader pins contexts
// and names (freed ones are not reused meanwhile). A ring outlives its thread and is handed to
// the next new thread, so the rings follow the most threads that ever destroyed at once, not
// the run's history.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "store/creation_context.h"
#include "store/names.h"
#include "vk_object_types.h"

namespace vkleak {

struct DestroyedEntry {
  uint64_t scope = 0;  // the owning VkDevice's or VkInstance's object id (run-unique)
  uint64_t handle = 0;
  uint64_t id = 0;        // 0: an empty entry
  ContextId context = 0;  // a reference the ring holds
  uint32_t name = 0;      // likewise
  uint32_t destroyed_frame = 0;
  uint32_t destroy_callsite = 0;  // 0 unless destroy_callstacks is on
  ObjectType type = ObjectType::kUnknown;
};

// A ring's entry: the fields above as atomics that only the ring's owner writes (plain stores
// on x86; releases, so that a reader that sees one of them sees the odd version before it) and
// readers load (acquires: the version's second load cannot move before them). No fences: TSan
// does not model them.
struct RingEntry {
  std::atomic<uint32_t> version{0};  // odd while the owner rewrites the entry
  std::atomic<uint32_t> type{0};
  std::atomic<uint64_t> scope{0};
  std::atomic<uint64_t> handle{0};
  std::atomic<uint64_t> id{0};
  std::atomic<uint32_t> context{0};
  std::atomic<uint32_t> name{0};
  std::atomic<uint32_t> destroyed_frame{0};
  std::atomic<uint32_t> destroy_callsite{0};
};
static_assert(sizeof(RingEntry) == 48, "one entry in 48 bytes: rings are graveyard_size of them");

// What a lookup found, copied while the ring's references still held it.
struct DestroyedInfo {
  uint64_t id = 0;
  CreationContext made;
  std::string name;
  uint32_t destroyed_frame = 0;
  uint32_t destroy_callsite = 0;
};

// What a ring overwrote, by handle bucket: the latest frame (+1; 0: none) among the destroys
// it forgot. Object ids come from per-thread blocks, so they order creations within a thread
// only; frames (per scope) and a ring's own order are what orders destroys across threads. A
// lookup that finds a destroy of a handle cannot tell it from a later object of the same
// handle that another ring forgot in the same frame or later: it says so rather than name the
// wrong object.
inline constexpr uint32_t kForgottenBuckets = 256;
inline uint32_t forgotten_bucket(uint64_t scope, uint64_t handle) noexcept {
  return static_cast<uint32_t>(((handle ^ (scope << 32)) * 0x9e3779b97f4a7c15ull) >> 56);
}

// A cache line of its own: the rings of two threads must not share one (their headers are
// written on every destroy).
struct alignas(64) DestroyRing {
  std::atomic<uint32_t> next{0};  // the entry the owner writes next (written by the owner only)
  uint32_t capacity = 0;
  RingEntry* entries = nullptr;                // capacity of them
  std::atomic<uint32_t>* forgotten = nullptr;  // kForgottenBuckets of them (owner writes)
};

// Entries per ring for rings made from now on (0: none are made, destroys keep nothing).
void set_graveyard_size(uint32_t entries) noexcept;
uint32_t graveyard_size() noexcept;

// This thread's ring: null until its first destroy, no_ring() when it cannot have one (the
// graveyard is off, out of memory, the thread is exiting). One word of static TLS, which is
// scarce (tests/layer/check_static_tls.py).
extern __thread DestroyRing* t_destroy_ring __attribute__((tls_model("initial-exec")));
inline constexpr uintptr_t kNoRingValue = alignof(DestroyRing);  // never a ring's address
inline DestroyRing* no_ring() noexcept {
  return reinterpret_cast<DestroyRing*>(kNoRingValue);
}
DestroyRing* acquire_destroy_ring() noexcept;  // for this thread; no_ring() when it gets none

__attribute__((always_inline)) inline void give_back_references(ContextId context,
                                                                uint32_t name) noexcept {
  release_context(context);
  if (__builtin_expect(name != 0, 0)) release_name(name);
}

// Remembers a destroy; takes over `context` and `name` (references the destroyed record held).
// The owner's stores only: no lock, no exchange.
__attribute__((always_inline)) inline void remember_destroy(uint64_t scope, uint64_t handle,
                                                            ObjectType type, uint64_t id,
                                                            ContextId context, uint32_t name,
                                                            uint32_t frame,
                                                            uint32_t destroy_callsite) noexcept {
  DestroyRing* ring = t_destroy_ring;
  if (__builtin_expect(reinterpret_cast<uintptr_t>(ring) <= kNoRingValue, 0)) {
    if (ring == nullptr) ring = acquire_destroy_ring();
    if (ring == no_ring()) return give_back_references(context, name);  // graveyard off
  }
  constexpr auto rel = std::memory_order_release;
  constexpr auto own = std::memory_order_relaxed;  // what only this thread writes
  const uint32_t next = ring->next.load(own);
  RingEntry& e = ring->entries[next];
  const uint32_t version = e.version.load(own);
  const ContextId old_context = e.context.load(own);
  const uint32_t old_name = e.name.load(own);
  const uint64_t old_id = e.id.load(own);
  e.version.store(version + 1, own);  // odd: the stores below are releases, ordered after it
  if (old_id != 0) {
    std::atomic<uint32_t>& forgotten =
        ring->forgotten[forgotten_bucket(e.scope.load(own), e.handle.load(own))];
    const uint32_t old_frame = e.destroyed_frame.load(own);
    if (old_frame + 1 > forgotten.load(own)) forgotten.store(old_frame + 1, rel);
  }
  e.scope.store(scope, rel);
  e.handle.store(handle, rel);
  e.id.store(id, rel);
  e.context.store(context, rel);
  e.name.store(name, rel);
  e.destroyed_frame.store(frame, rel);
  e.destroy_callsite.store(destroy_callsite, rel);
  e.type.store(static_cast<uint32_t>(type), rel);
  e.version.store(version + 2, rel);
  ring->next.store(next + 1 == ring->capacity ? 0 : next + 1, rel);
  give_back_references(old_context, old_name);  // the entry no longer holds them
}

// Rings made so far (tests and budgets): the most threads that destroyed at once.
size_t destroy_ring_count() noexcept;

enum class DestroyLookup {
  kNotFound,  // no destroy of the handle is remembered
  kFound,     // the latest destroy of the handle, in *out
  kReused,    // destroys are remembered, but which is the latest cannot be told (two threads'
              // in one frame, or a later one of the handle may have been forgotten): *out empty
};
// The latest remembered destroy of (handle, type) in the scope, in any thread's ring.
DestroyLookup find_destroy(uint64_t scope, uint64_t handle, ObjectType type,
                           DestroyedInfo* out) noexcept;

}  // namespace vkleak
