#include "store/recent_destroys.h"

#include <atomic>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "shared/setting_ranges.h"

namespace vkleak {

__thread DestroyRing* t_destroy_ring __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

std::atomic<uint32_t> g_graveyard_size{kDefaultGraveyardSize};

// Every ring ever made (never freed: their entries stay searchable), and those whose thread
// exited, for the next new thread.
struct Rings {
  std::mutex mutex;
  std::vector<DestroyRing*> all;
  std::vector<DestroyRing*> idle;
};
Rings& rings() {
  static auto* r = new Rings;  // never destroyed: threads may still exit after static teardown
  return *r;
}

// Hands the thread's ring back when it exits (registered by the thread's first destroy).
struct RingOwner {
  bool registered = false;
  ~RingOwner() {
    DestroyRing* ring = t_destroy_ring;
    t_destroy_ring = no_ring();  // destroys later in this thread's exit keep nothing
    if (ring == nullptr || ring == no_ring()) return;
    Rings& r = rings();
    std::lock_guard<std::mutex> lock(r.mutex);
    try {
      r.idle.push_back(ring);
    } catch (...) {
    }
  }
};
thread_local RingOwner t_ring_owner;

}  // namespace

void set_graveyard_size(uint32_t entries) noexcept {
  g_graveyard_size.store(entries, std::memory_order_relaxed);
}

uint32_t graveyard_size() noexcept {
  return g_graveyard_size.load(std::memory_order_relaxed);
}

DestroyRing* acquire_destroy_ring() noexcept {
  t_destroy_ring = no_ring();  // off or out of memory: not asked again by this thread
  const uint32_t capacity = graveyard_size();
  if (capacity == 0) return no_ring();
  Rings& r = rings();
  DestroyRing* ring = nullptr;
  try {
    std::lock_guard<std::mutex> lock(r.mutex);
    if (!r.idle.empty()) {
      ring = r.idle.back();
      r.idle.pop_back();
    } else {
      r.all.reserve(r.all.size() + 1);
      auto* made = new (std::nothrow) DestroyRing;
      auto* entries = made ? new (std::nothrow) RingEntry[capacity] : nullptr;
      auto* forgotten =
          entries ? new (std::nothrow) std::atomic<uint32_t>[kForgottenBuckets]() : nullptr;
      if (!forgotten) {
        delete[] entries;
        delete made;
        return no_ring();
      }
      made->capacity = capacity;
      made->entries = entries;
      made->forgotten = forgotten;
      r.all.push_back(made);
      ring = made;
    }
    t_ring_owner.registered = true;
  } catch (...) {
    return no_ring();
  }
  t_destroy_ring = ring;
  return ring;
}

size_t destroy_ring_count() noexcept {
  Rings& r = rings();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.all.size();
}

namespace {

// A consistent copy of a ring's entry, read while its owner may be rewriting it (a seqlock's
// read: see RingEntry). The owner's rewrite is a few stores: wait it out.
DestroyedEntry read_entry(const RingEntry& e) noexcept {
  constexpr auto acq = std::memory_order_acquire;
  for (int spins = 0;; ++spins) {
    const uint32_t version = e.version.load(acq);
    if ((version & 1) == 0) {
      DestroyedEntry copy;
      copy.scope = e.scope.load(acq);
      copy.handle = e.handle.load(acq);
      copy.id = e.id.load(acq);
      copy.context = e.context.load(acq);
      copy.name = e.name.load(acq);
      copy.destroyed_frame = e.destroyed_frame.load(acq);
      copy.destroy_callsite = e.destroy_callsite.load(acq);
      copy.type = static_cast<ObjectType>(e.type.load(acq));
      if (e.version.load(std::memory_order_relaxed) == version) return copy;
    }
    if (spins < 64)
      __builtin_ia32_pause();
    else
      std::this_thread::yield();  // the owner was preempted mid-write
  }
}

}  // namespace

DestroyLookup find_destroy(uint64_t scope, uint64_t handle, ObjectType type,
                           DestroyedInfo* out) noexcept {
  // Per ring, its latest destroy of the handle (a ring is written in order, by one thread at a
  // time); across rings, the latest frame. Two rings' in the same frame cannot be ordered.
  // Rings are read while their owners write them: an entry copied consistently held its
  // context and name references when it was read, and the pins keep freed ids from being
  // reused until the copy below is done. An entry rewritten during the scan was forgotten
  // first, and its ring's `forgotten` (read after the entries) says so.
  const ContextPin context_pin;
  const NamePin name_pin;
  const DestroyRing* best_ring = nullptr;
  DestroyedEntry best;
  bool tie = false;
  const uint32_t bucket = forgotten_bucket(scope, handle);
  uint32_t forgotten_elsewhere = 0;  // per ring: frame + 1 of its latest forgotten destroy
  std::vector<std::pair<const DestroyRing*, uint32_t>> forgotten;
  try {
    Rings& r = rings();
    std::lock_guard<std::mutex> rings_lock(r.mutex);
    forgotten.reserve(r.all.size());
    for (DestroyRing* ring : r.all) {
      // From the newest entry back: the first match is this ring's latest.
      const uint32_t next = ring->next.load(std::memory_order_acquire);
      for (uint32_t age = 0; age < ring->capacity; ++age) {
        const uint32_t i = (next + ring->capacity - 1 - age) % ring->capacity;
        const RingEntry& slot = ring->entries[i];
        // Most entries are of other handles: one load rejects them before the copy.
        if (slot.handle.load(std::memory_order_relaxed) != handle) continue;
        const DestroyedEntry e = read_entry(slot);
        if (e.id == 0 || e.handle != handle || e.type != type || e.scope != scope) continue;
        if (best_ring == nullptr || e.destroyed_frame > best.destroyed_frame) {
          best_ring = ring;
          best = e;
          tie = false;
        } else if (e.destroyed_frame == best.destroyed_frame) {
          tie = true;
        }
        break;
      }
      forgotten.emplace_back(ring, ring->forgotten[bucket].load(std::memory_order_acquire));
    }
  } catch (...) {
    *out = DestroyedInfo();
    return DestroyLookup::kNotFound;
  }
  if (best_ring == nullptr) return DestroyLookup::kNotFound;
  // What the found entry's own ring forgot is older than it; what other rings forgot in its
  // frame or later may be a later object of the handle.
  for (const auto& [ring, frame_plus_one] : forgotten)
    if (ring != best_ring && frame_plus_one > forgotten_elsewhere)
      forgotten_elsewhere = frame_plus_one;
  if (tie || forgotten_elsewhere >= best.destroyed_frame + 1) {
    *out = DestroyedInfo();
    return DestroyLookup::kReused;
  }
  try {
    out->id = best.id;
    out->made = context_of(best.context);
    out->name = name_string(best.name);
    out->destroyed_frame = best.destroyed_frame;
    out->destroy_callsite = best.destroy_callsite;
  } catch (...) {
    *out = DestroyedInfo();
    return DestroyLookup::kNotFound;
  }
  return DestroyLookup::kFound;
}

}  // namespace vkleak
