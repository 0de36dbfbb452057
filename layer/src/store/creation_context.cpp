#include "store/creation_context.h"

#include <atomic>
#include <mutex>
#include <vector>

#include "base/append_only_array.h"
#include "base/spin_lock.h"

namespace vkleak {
namespace {

struct ContextSlot {
  CreationContext value;
  std::atomic<uint32_t> refs{0};
};

// 4096 contexts a chunk (64 KiB), up to 256M contexts.
using ContextArray = AppendOnlyArray<ContextSlot, 12, 1u << 16>;

struct ContextStore {
  ContextArray slots;
  SpinLock free_mutex;
  std::vector<ContextId>* free_ids = nullptr;  // allocated on the first free; never destroyed
  std::vector<ContextId>* deferred = nullptr;  // freed while pinned: reused once unpinned
  uint32_t pins = 0;                           // live ContextPins (under free_mutex)
  std::atomic<uint64_t> live{0};
};

// Never destroyed (hooks may run during exit) and constant-initialized: the 512 KiB chunk table
// stays untouched zero pages in .bss, except for the chunks in use.
union StoreStorage {
  ContextStore store;
  constexpr StoreStorage() : store() {}
  ~StoreStorage() {}
};
StoreStorage g_storage;  // constexpr constructor: constant initialization
ContextStore& store() {
  return g_storage.store;
}

// A context with `refs` references: a freed one reused, or a new one. 0 when out of memory.
ContextId make_context(const CreationContext& key, uint32_t refs) noexcept {
  ContextStore& s = store();
  ContextId id = 0;
  {
    std::lock_guard<SpinLock> lock(s.free_mutex);
    if (s.free_ids && !s.free_ids->empty()) {
      id = s.free_ids->back();
      s.free_ids->pop_back();
    }
  }
  if (!id) id = s.slots.allocate();
  if (!id) return 0;
  ContextSlot* slot = s.slots.slot(id);
  slot->value = key;
  slot->refs.store(refs, std::memory_order_relaxed);
  s.live.fetch_add(1, std::memory_order_relaxed);
  return id;
}

// The last reference went: the id is reused (once no snapshot pins freed contexts).
__attribute__((noinline)) void free_context(ContextId id) noexcept {
  ContextStore& s = store();
  s.live.fetch_sub(1, std::memory_order_relaxed);
  std::lock_guard<SpinLock> lock(s.free_mutex);
  try {
    std::vector<ContextId>*& list = s.pins ? s.deferred : s.free_ids;
    if (!list) list = new std::vector<ContextId>;
    list->push_back(id);
  } catch (...) {
    // Out of memory: the slot stays unused.
  }
}

void release_refs(ContextId id, uint32_t n) noexcept {
  if (store().slots.slot(id)->refs.fetch_sub(n, std::memory_order_acq_rel) == n) free_context(id);
}

// This thread's cache and pending releases (creation_context.h): the cache is allocated on the
// thread's first creation; the owner (constructed by its first use in the thread) gives back
// the cache entries' references and the pending releases when the thread exits.
__thread bool t_contexts_gone __attribute__((tls_model("initial-exec"))) = false;
struct ContextsOwner {
  ContextCacheEntry* cache = nullptr;
  bool releasing = false;  // this thread has deferred releases (registers the destructor)
  ~ContextsOwner() {
    t_context_cache = nullptr;
    t_contexts_gone = true;  // hooks called later in this thread's exit go uncached, undeferred
    const PendingRelease pending = t_pending_release;
    t_pending_release = PendingRelease{};
    if (pending.id) release_refs(pending.id, pending.count);
    if (!cache) return;
    for (uint32_t i = 0; i < kContextCacheSize; ++i)
      if (cache[i].id) release_refs(cache[i].id, 1 + cache[i].credits);
    delete[] cache;
  }
};
thread_local ContextsOwner t_contexts_owner;

ContextCacheEntry* thread_cache() noexcept {
  if (ContextCacheEntry* c = t_context_cache) return c;
  if (t_contexts_gone) return nullptr;
  auto* c = new (std::nothrow) ContextCacheEntry[kContextCacheSize];
  if (!c) return nullptr;
  t_contexts_owner.cache = c;
  t_context_cache = c;
  return c;
}

}  // namespace

__thread ContextCacheEntry* t_context_cache __attribute__((tls_model("initial-exec"))) = nullptr;
__thread PendingRelease t_pending_release __attribute__((tls_model("initial-exec"))) = {0, 0};

ContextId intern_context_slow(uint32_t callsite, uint32_t frame, uint32_t time_ms) noexcept {
  const CreationContext key{callsite, frame, time_ms};
  ContextCacheEntry* cache = thread_cache();
  if (!cache) return make_context(key, 1);
  ContextCacheEntry& e = cache[context_cache_index(callsite)];
  if (e.id && e.key.callsite == callsite && e.key.frame == frame && e.key.time_ms == time_ms) {
    // Out of credits: the entry's own reference keeps the context alive while it takes more.
    store().slots.slot(e.id)->refs.fetch_add(kContextCredits, std::memory_order_relaxed);
    e.credits = kContextCredits - 1;
    return e.id;
  }
  // The entry's own reference, the caller's, and credits for the next objects.
  const ContextId id = make_context(key, 2 + kContextCredits);
  if (!id) return 0;
  if (e.id) release_refs(e.id, 1 + e.credits);  // the cache moves on
  e.key = key;
  e.id = id;
  e.credits = kContextCredits;
  return id;
}

void release_context_slow(ContextId id) noexcept {
  if (!id) return;
  if (t_contexts_gone) {  // the thread is exiting: nothing would flush a deferred release
    release_refs(id, 1);
    return;
  }
  t_contexts_owner.releasing = true;  // constructs the owner: it flushes at thread exit
  const PendingRelease flushed = t_pending_release;
  t_pending_release = PendingRelease{id, 1};
  if (flushed.id) release_refs(flushed.id, flushed.count);
}

ContextPin::ContextPin() noexcept {
  std::lock_guard<SpinLock> lock(store().free_mutex);
  store().pins++;
}

ContextPin::~ContextPin() {
  ContextStore& s = store();
  std::lock_guard<SpinLock> lock(s.free_mutex);
  if (--s.pins != 0 || !s.deferred || s.deferred->empty()) return;
  try {
    if (!s.free_ids) s.free_ids = new std::vector<ContextId>;
    s.free_ids->insert(s.free_ids->end(), s.deferred->begin(), s.deferred->end());
  } catch (...) {
    // Out of memory: those slots stay unused.
  }
  s.deferred->clear();
}

CreationContext context_of(ContextId id) noexcept {
  const ContextSlot* c = store().slots.at(id);
  return c ? c->value : CreationContext{};
}

uint64_t live_context_count() noexcept {
  return store().live.load(std::memory_order_relaxed);
}

uint64_t context_count() noexcept {
  return store().slots.size();
}

}  // namespace vkleak
