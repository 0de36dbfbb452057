// Creation contexts: where and when objects were made (call site, frame, time), shared by the
// objects made together.
//
// A record keeps one 32-bit ContextId instead of its call site, frame and creation time (12
// bytes). Creation times are read from the coarse clock (recent_ms: refreshed at frame
// boundaries and every 250 ms), so the objects one thread makes from one call site within a
// frame share a context. The 8 bytes saved hold a resource's memory binding in its 48-byte
// record, where an EdgeStore entry cost ~56 bytes more per bound buffer.
//
// A context lives as long as something refers to it: the records made with it (one reference
// each, given back after the object is destroyed: see release_context) and the creating
// thread's cache entry (its own and those it took in advance, given back when the thread moves
// on to another frame or exits). A
// freed context's id is reused. Ids are not unique per triple across threads (each thread
// caches its own), which costs a few duplicates and no lock on the hot path.
#pragma once

#include <cstdint>

namespace vkleak {

struct CreationContext {
  uint32_t callsite = 0;  // CallsiteId, 0 = none
  uint32_t frame = 0;     // owner's frame at creation
  uint32_t time_ms = 0;   // creation time since the layer was loaded
};

using ContextId = uint32_t;  // 0 = none (out of memory): reads as all zeros

// Each thread caches the last context it made per call site (direct-mapped by call site). An
// entry holds one reference of its own and `credits` more, taken in advance for the records it
// will hand the context to: a create that hits the cache touches no shared memory.
struct ContextCacheEntry {
  CreationContext key;
  ContextId id = 0;  // 0: empty
  uint32_t credits = 0;
};
inline constexpr uint32_t kContextCacheSize = 64;
inline constexpr uint32_t kContextCredits = 64;
__attribute__((always_inline)) inline uint32_t context_cache_index(uint32_t callsite) noexcept {
  return (callsite * 0x9e3779b9u) >> 26;
}
static_assert(kContextCacheSize == 1u << (32 - 26), "context_cache_index() covers the cache");
// Null until the thread's first creation (initial-exec TLS: one %fs-relative load; __thread,
// not thread_local: an extern thread_local is read through a TLS wrapper function).
extern __thread ContextCacheEntry* t_context_cache __attribute__((tls_model("initial-exec")));
ContextId intern_context_slow(uint32_t callsite, uint32_t frame, uint32_t time_ms) noexcept;

// The context of this triple, with one reference for the caller: this thread's cached one, or a
// new one. Inline: every create calls it.
__attribute__((always_inline)) inline ContextId intern_context(uint32_t callsite, uint32_t frame,
                                                               uint32_t time_ms) noexcept {
  if (ContextCacheEntry* cache = t_context_cache) {
    ContextCacheEntry& e = cache[context_cache_index(callsite)];
    if (e.credits != 0 && e.key.callsite == callsite && e.key.frame == frame &&
        e.key.time_ms == time_ms) {
      e.credits--;
      return e.id;
    }
  }
  return intern_context_slow(callsite, frame, time_ms);
}

// Drops a reference intern_context gave (the object was destroyed). Ignores 0.
// Deferred: each thread counts its releases of one context and gives them back when it releases
// another context, or exits. A create and a destroy on one thread then write no shared memory
// (threads' contexts lie side by side, four to a cache line); a context is freed at the latest
// when its last object's thread next releases a different one.
struct PendingRelease {
  ContextId id;
  uint32_t count;
};
extern __thread PendingRelease t_pending_release __attribute__((tls_model("initial-exec")));
void release_context_slow(ContextId id) noexcept;  // gives back the pending ones, defers `id`
__attribute__((always_inline)) inline void release_context(ContextId id) noexcept {
  PendingRelease& p = t_pending_release;
  if (id != 0 && id == p.id && p.count < (1u << 30)) {
    p.count++;
    return;
  }
  release_context_slow(id);
}

// The triple of a context the caller holds a reference to (directly, or through a record read
// under its table's lock), or of one a ContextPin keeps.
CreationContext context_of(ContextId id) noexcept;

// While one lives, freed contexts are not reused: a snapshot copies records under the table
// locks and reads their contexts later, off the app's thread, when the objects may be gone.
class ContextPin {
 public:
  ContextPin() noexcept;
  ~ContextPin();
  ContextPin(const ContextPin&) = delete;
  ContextPin& operator=(const ContextPin&) = delete;
};

// Contexts alive now, and ever made (tests and budgets).
uint64_t live_context_count() noexcept;
uint64_t context_count() noexcept;

}  // namespace vkleak
