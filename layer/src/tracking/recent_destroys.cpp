#include "tracking/recent_destroys.h"

#include <atomic>
#include <mutex>
#include <new>
#include <vector>

#include "../../../src/core/setting_ranges.h"

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
      auto* entries = made ? new (std::nothrow) DestroyedEntry[capacity] : nullptr;
      if (!entries) {
        delete made;
        return no_ring();
      }
      made->capacity = capacity;
      made->entries = entries;
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

bool find_destroy(uint64_t scope, uint64_t handle, ObjectType type, DestroyedInfo* out) noexcept {
  bool found = false;
  try {
    Rings& r = rings();
    std::lock_guard<std::mutex> rings_lock(r.mutex);
    for (DestroyRing* ring : r.all) {
      std::lock_guard<SpinLock> lock(ring->lock);
      for (uint32_t i = 0; i < ring->capacity; ++i) {
        const DestroyedEntry& e = ring->entries[i];
        // Ids grow with creation: of two destroys of one handle value, the later-made object's
        // is the later destroy.
        if (e.handle != handle || e.type != type || e.scope != scope || (found && e.id < out->id))
          continue;
        out->id = e.id;
        out->made = context_of(e.context);
        out->name = name_string(e.name);
        out->destroyed_frame = e.destroyed_frame;
        out->destroy_callsite = e.destroy_callsite;
        found = true;
      }
    }
  } catch (...) {
  }
  return found;
}

}  // namespace vkleak
