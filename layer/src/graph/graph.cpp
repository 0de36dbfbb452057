// Edges between objects (see graph.h, edge_store.h).
#include "graph/graph.h"

#include <new>

#include "base/log.h"
#include "base/passthrough.h"
#include "base/thread_box.h"
#include "store/names.h"
#include "tracking/state.h"
#include "tracking/tracker.h"

namespace vkleak {

// The source's EdgeStore entry must be erased with it (only then: most objects have none).
void mark_has_edges(Scope& scope, ObjectType type, uint64_t handle) noexcept {
  scope.table.update(handle, type, [](ObjectRecord& r) { r.has_edges = 1; });
}

Edge make_edge(Scope& scope, ObjectType type, uint64_t handle, const char* kind, uint32_t slot,
               bool slot_keyed, uint64_t offset, uint64_t size) noexcept {
  Edge e = unresolved_edge(type, handle, kind, slot, slot_keyed, offset, size);
  Scope& target = target_scope(scope, type);
  // Read before the lookup: a change in between leaves the entry stale, never wrong.
  const uint32_t generation = g_target_generation.load(std::memory_order_acquire);
  TargetCache* cache = thread_target_cache();
  if (const TargetCache::Entry* c =
          cache ? cache->find(target, type, handle, generation) : nullptr) {
    e.dst_id = c->id;
    e.dst_name = c->name;
    return e;
  }
  const bool live = target.table.update(handle, type, [&](ObjectRecord& r) {
    r.referenced = 1;  // remembered in the graveyard when destroyed: stale edges name it
    e.dst_id = r.id;
    e.dst_name = r.name;
  });
  if (live && cache) cache->put({&target, handle, e.dst_id, generation, e.dst_name, type});
  return e;
}

// make_edge's lookup again, for a view's inline edge. Kept apart on purpose: one shared inline
// body (by pointers, or returning the pair) cost vkUpdateDescriptorSets 16 to 123 instructions
// more per 8 writes under callgrind, as make_edge then no longer writes its Edge in place.
void resolve_edge_target(Scope& scope, ObjectType type, uint64_t handle, uint64_t* id,
                         uint32_t* name) noexcept {
  Scope& target = target_scope(scope, type);
  const uint32_t generation = g_target_generation.load(std::memory_order_acquire);
  TargetCache* cache = thread_target_cache();
  if (const TargetCache::Entry* c =
          cache ? cache->find(target, type, handle, generation) : nullptr) {
    *id = c->id;
    *name = c->name;
    return;
  }
  resolve_uncached(target, type, handle, generation, cache, id, name);
}

void resolve_uncached(Scope& target, ObjectType type, uint64_t handle, uint32_t generation,
                      TargetCache* cache, uint64_t* id, uint32_t* name) noexcept {
  uint64_t found_id = 0;
  uint32_t found_name = 0;
  const bool live = target.table.update(handle, type, [&](ObjectRecord& r) {
    r.referenced = 1;  // as make_edge
    found_id = r.id;
    found_name = r.name;
  });
  if (live && cache) cache->put({&target, handle, found_id, generation, found_name, type});
  *id = found_id;
  *name = found_name;
}

EdgeTargets::EdgeTargets() noexcept
    : cache_(thread_target_cache()),
      generation_(g_target_generation.load(std::memory_order_acquire)) {}

namespace {

// Stores the edges; the caller marks (or has marked) the source as having edges.
bool store_edges(Scope& scope, ObjectType src_type, uint64_t src_handle,
                 const EdgeSink& sink) noexcept {
  try {
    const uint32_t n = sink.size();
    Edge local[8];
    std::vector<Edge> many;
    Edge* out = local;
    if (n > 8) {
      many.resize(n);
      out = many.data();
    }
    for (uint32_t i = 0; i < n; ++i) {
      const EdgeRef& r = sink[i];
      // Constructed in place (guaranteed elision): assigned from a returned temporary, an Edge
      // is copied whole right after being written field by field, and that copy stalls on
      // store forwarding (two thirds of this function's time in an image view's create).
      ::new (&out[i]) Edge(make_edge(scope, r.type, r.handle, r.kind, r.index, false, 0, 0));
    }
    scope.edges.add(src_handle, src_type, out, n);
    return true;
  } catch (...) {
    scope.degraded.store(true, std::memory_order_relaxed);
    return false;
  }
}

}  // namespace

void on_edges(Scope& scope, ObjectType src_type, uint64_t src_handle,
              const EdgeSink& sink) noexcept {
  if (passthrough() || sink.size() == 0) return;
  if (store_edges(scope, src_type, src_handle, sink)) mark_has_edges(scope, src_type, src_handle);
}

void on_create_with_edge_list(Scope& scope, ObjectType type, uint64_t handle, Origin origin,
                              uint64_t parent_handle, ObjectType parent_type, uint64_t size,
                              CallsiteId callsite, const EdgeSink& sink) noexcept {
  const bool has_edges = sink.size() > 0;
  if (record_object(scope, type, handle, origin, parent_handle, parent_type, size, callsite,
                    has_edges) != 0) {
    if (has_edges) store_edges(scope, type, handle, sink);
  } else {
    on_edges(scope, type, handle, sink);  // a duplicate handle (or not recorded): mark it
  }
}

void add_slot_edge(Scope& scope, ObjectType src_type, uint64_t src_handle, ObjectType type,
                   uint64_t handle, const char* kind, uint32_t slot, uint64_t offset, uint64_t size,
                   bool source_marked) noexcept {
  if (passthrough()) return;
  if (handle == 0) {
    scope.edges.remove_slot(src_handle, src_type, kind, slot);
    return;
  }
  try {
    Edge e = make_edge(scope, type, handle, kind, slot, true, offset, size);
    scope.edges.add(src_handle, src_type, &e, 1);
    if (!source_marked) mark_has_edges(scope, src_type, src_handle);
  } catch (...) {
    scope.degraded.store(true, std::memory_order_relaxed);
  }
}

}  // namespace vkleak
