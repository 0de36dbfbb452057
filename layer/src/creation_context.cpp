#include "creation_context.h"

#include <atomic>
#include <mutex>
#include <vector>

#include "append_only_array.h"
#include "spin_lock.h"

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

// The last context per call site (direct-mapped by call site) of one thread, each holding one
// reference. Allocated on the thread's first creation; the pointer is initial-exec TLS (read on
// every creation) and the owner drops the references and frees the cache when the thread exits.
struct ThreadContexts {
  static constexpr uint32_t kSize = 64;
  struct Entry {
    CreationContext key;
    ContextId id = 0;
  };
  Entry entries[kSize];
  static uint32_t index(uint32_t callsite) noexcept { return (callsite * 0x9e3779b9u) >> 26; }
};
static_assert(ThreadContexts::kSize == 1u << (32 - 26), "index() covers the cache");
__attribute__((tls_model("initial-exec"))) thread_local ThreadContexts* t_contexts = nullptr;
__attribute__((tls_model("initial-exec"))) thread_local bool t_contexts_gone = false;
struct ContextsOwner {
  ThreadContexts* cache = nullptr;
  ~ContextsOwner() {
    t_contexts = nullptr;
    t_contexts_gone = true;  // hooks called later in this thread's exit go uncached
    if (!cache) return;
    for (const ThreadContexts::Entry& e : cache->entries) release_context(e.id);
    delete cache;
  }
};
thread_local ContextsOwner t_contexts_owner;

ThreadContexts* thread_contexts() noexcept {
  if (ThreadContexts* c = t_contexts) return c;
  if (t_contexts_gone) return nullptr;
  auto* c = new (std::nothrow) ThreadContexts;
  if (!c) return nullptr;
  t_contexts_owner.cache = c;
  t_contexts = c;
  return c;
}

}  // namespace

ContextId intern_context(uint32_t callsite, uint32_t frame, uint32_t time_ms) noexcept {
  const CreationContext key{callsite, frame, time_ms};
  ThreadContexts* cache = thread_contexts();
  if (!cache) return make_context(key, 1);
  ThreadContexts::Entry& e = cache->entries[ThreadContexts::index(callsite)];
  if (e.id && e.key.callsite == callsite && e.key.frame == frame && e.key.time_ms == time_ms) {
    // The cache's reference keeps it alive: never taken from zero.
    store().slots.slot(e.id)->refs.fetch_add(1, std::memory_order_relaxed);
    return e.id;
  }
  const ContextId id = make_context(key, 2);  // the caller's and the cache's
  if (!id) return 0;
  release_context(e.id);  // the cache moves on
  e = {key, id};
  return id;
}

void release_context(ContextId id) noexcept {
  if (!id) return;
  ContextStore& s = store();
  if (s.slots.slot(id)->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
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
