#include "creation_context.h"

#include <atomic>

#include "append_only_array.h"

namespace vkleak {
namespace {

// 4096 contexts a chunk (48 KiB), up to 256M contexts.
using ContextArray = AppendOnlyArray<CreationContext, 12, 1u << 16>;
// Never destroyed (hooks may run during exit) and constant-initialized: the 512 KiB chunk table
// stays untouched zero pages in .bss, except for the chunks in use.
union ContextStorage {
  ContextArray array;
  constexpr ContextStorage() : array() {}
  ~ContextStorage() {}
};
ContextStorage g_contexts;  // constexpr constructor: constant initialization
ContextArray& contexts() {
  return g_contexts.array;
}

// The last context per call site (direct-mapped by call site) of one thread. Allocated on the
// thread's first creation; the pointer is initial-exec TLS (read on every creation) and the
// owner frees the cache when the thread exits.
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
  if (!cache) return contexts().push(key);
  ThreadContexts::Entry& e = cache->entries[ThreadContexts::index(callsite)];
  if (e.id && e.key.callsite == callsite && e.key.frame == frame && e.key.time_ms == time_ms)
    return e.id;
  const ContextId id = contexts().push(key);
  if (id) e = {key, id};
  return id;
}

CreationContext context_of(ContextId id) noexcept {
  const CreationContext* c = contexts().at(id);
  return c ? *c : CreationContext{};
}

uint64_t context_count() noexcept {
  return contexts().size();
}

}  // namespace vkleak
