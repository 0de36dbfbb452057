// The object graph's edges: what references what. What command buffers use (references) and
// the submissions that stamp last use are the device state's (tracking/command_refs.h,
// tracking/submissions.h), below this room; edges are kept in the scope's EdgeStore
// (store/edge_store.h).
//
// Generated code (graph_walkers.cpp, from vk.xml) walks create-info structs for handle-typed
// members and feeds them to the sink below; the runtime (graph.cpp) resolves handles to objects
// and stores the edges.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "base/passthrough.h"
#include "base/thread_box.h"
#include "store/edge_store.h"
#include "store/names.h"
#include "tracking/tracker.h"
#include "tracking/tracker_hot.h"

namespace vkleak {

// One out-edge found in a create info: `kind` is the member path in vk.xml terms
// ("image", "renderPass", "pStages.module", "pAttachments"), `index` the array index (0 for
// non-arrays). Storage is inline for the common case: no allocation for a view or a
// framebuffer with few attachments.
struct EdgeRef {
  ObjectType type;
  uint64_t handle;
  const char* kind;
  uint32_t index;
};

class EdgeSink {
 public:
  void add(ObjectType type, uint64_t handle, const char* kind, uint32_t index) noexcept {
    if (handle == 0) return;
    if (count_ < kInline) {
      inline_[count_++] = {type, handle, kind, index};
      return;
    }
    try {
      overflow_.push_back({type, handle, kind, index});
      count_++;
    } catch (...) {
    }
  }
  uint32_t size() const noexcept { return count_; }
  const EdgeRef& operator[](uint32_t i) const noexcept {
    return i < kInline ? inline_[i] : overflow_[i - kInline];
  }

 private:
  static constexpr uint32_t kInline = 8;
  EdgeRef inline_[kInline];
  std::vector<EdgeRef> overflow_;
  uint32_t count_ = 0;
};

// Stores the edges of a just-created object (hooks call this after on_create when the create
// info has handle members). The object must be in `scope`'s table.
void on_edges(Scope& scope, ObjectType src_type, uint64_t src_handle,
              const EdgeSink& edges) noexcept;

// on_create_with_edges() for every object but views whose one edge goes into their record.
void on_create_with_edge_list(Scope& scope, ObjectType type, uint64_t handle, Origin origin,
                              uint64_t parent_handle, ObjectType parent_type, uint64_t size,
                              CallsiteId callsite, const EdgeSink& edges) noexcept;

// The edge targets this thread resolved last (a set's layout, a view's image, the memory that
// buffers are bound to): most edges point at a few objects again and again. An entry holds while
// no referenced object was destroyed or renamed and no device went away since (the generation).
struct TargetCache {
  // 64: a frame's descriptor writes go round more targets than 8 (a set of 8 descriptors
  // rewritten with other buffers and views missed an 8-entry cache every time; issue 28).
  // Two ways a set: 16 targets (two groups of a set's 8 descriptors) collided in a direct-mapped
  // cache one or two times a call (issue 28).
  static constexpr uint32_t kEntries = 64;
  static constexpr uint32_t kWays = 2;
  struct Entry {
    const Scope* scope;
    uint64_t handle;
    uint64_t id;
    uint32_t generation;
    uint32_t name;
    ObjectType type;
  } entries[kEntries];
  static uint32_t set_of(uint64_t handle) noexcept {  // index of the set's first way
    return static_cast<uint32_t>((handle * 0x9e3779b97f4a7c15ull) >> 59) * kWays;
  }
  const Entry* find(const Scope& target, ObjectType type, uint64_t handle,
                    uint32_t generation) const noexcept {
    const Entry* e = &entries[set_of(handle)];
    for (uint32_t w = 0; w < kWays; ++w, ++e)
      if (e->handle == handle && e->type == type && e->scope == &target &&
          e->generation == generation)
        return e;
    return nullptr;
  }
  // The newest entry goes first in its set; the older one moves to the second way.
  void put(const Entry& fresh) noexcept {
    Entry* e = &entries[set_of(fresh.handle)];
    e[1] = e[0];
    e[0] = fresh;
  }
};
static_assert(TargetCache::kWays == 2, "put() moves one older entry");

// This thread's copies of the bindings of the set layouts it wrote into last, so that a
// descriptor write takes neither the device's descriptor mutex nor a copy of the bindings
// (issue 28: the copy's malloc and free and the mutex were ~300 instructions of an 8-write
// vkUpdateDescriptorSets). An entry holds while g_descriptor_layouts_generation is the one it
// was copied under. Used by hooks_graph.cpp's SlotMap.
struct LayoutCache {
  static constexpr uint32_t kEntries = 4;
  struct Entry {
    const DeviceState* device = nullptr;  // null: empty
    uint64_t layout = 0;
    uint32_t generation = 0;
    std::vector<DescriptorInfo::Binding> bindings;
  } entries[kEntries];
  static uint32_t index(uint64_t layout) noexcept {
    return static_cast<uint32_t>((layout * 0x9e3779b97f4a7c15ull) >> 62);
  }
};

// The per-thread caches of edge making, in one box: each box costs static TLS, of which the
// layer has little (thread_box.h).
struct EdgeCaches {
  TargetCache targets;
  LayoutCache layouts;
};
using EdgeCachesBox = ThreadBox<EdgeCaches>;  // ~2.7 KB: on the heap (thread_box.h)
inline TargetCache* thread_target_cache() noexcept {
  EdgeCaches* c = EdgeCachesBox::get();
  return c ? &c->targets : nullptr;
}

// resolve_edge_target past the cache: looks the target up and caches it (`cache` may be null).
void resolve_uncached(Scope& target, ObjectType type, uint64_t handle, uint32_t generation,
                      TargetCache* cache, uint64_t* id, uint32_t* name) noexcept;

// resolve_edge_target for a run of edges made in one call (a vkUpdateDescriptorSets): the
// thread's cache and the generation are read once for the run, and a hit is inline. A target
// destroyed or renamed by another thread during the call may then be named as it was when the
// call began (as if the call had run first).
class EdgeTargets {
 public:
  EdgeTargets() noexcept;
  // `target`: target_scope(scope, type), which the caller may know.
  void resolve(Scope& target, ObjectType type, uint64_t handle, uint64_t* id,
               uint32_t* name) noexcept {
    if (const TargetCache::Entry* c =
            cache_ ? cache_->find(target, type, handle, generation_) : nullptr) {
      *id = c->id;
      *name = c->name;
      return;
    }
    resolve_uncached(target, type, handle, generation_, cache_, id, name);
  }

 private:
  TargetCache* cache_;
  uint32_t generation_;
};

// What an edge to (type, handle) from `scope` names: the target's id and name (0 when it is not
// live), through make_edge's per-thread cache; the target is marked as referenced. make_edge
// without the Edge, for an edge kept in its source's record.
void resolve_edge_target(Scope& scope, ObjectType type, uint64_t handle, uint64_t* id,
                         uint32_t* name) noexcept;

// Whether the create info gave exactly the one edge that `type` keeps in its record
// (inline_edge_kind: a view's image or buffer).
inline bool is_inline_edge(ObjectType type, const EdgeSink& sink) noexcept {
  const InlineEdgeKind k = inline_edge_kind(type);
  if (!k.kind || sink.size() != 1) return false;
  const EdgeRef& e = sink[0];
  return e.type == k.dst_type && e.index == 0 &&
         (e.kind == k.kind || std::strcmp(e.kind, k.kind) == 0);
}

// on_create() and on_edges() in one: the record is inserted already marked as having edges,
// which saves a table lookup per object (generated create hooks with a create-info walker).
// Inline so that a view's create (its one edge kept in its record, no EdgeStore entry) folds
// its constants into the generated hook; every other type calls on_create_with_edge_list.
__attribute__((always_inline)) inline void on_create_with_edges(
    Scope& scope, ObjectType type, uint64_t handle, Origin origin, uint64_t parent_handle,
    ObjectType parent_type, uint64_t size, CallsiteId callsite, const EdgeSink& edges) noexcept {
  if (keeps_inline_edge(type) && size == 0 && is_inline_edge(type, edges) && !passthrough()) {
    const EdgeRef& ref = edges[0];
    uint64_t id = 0;
    uint32_t name = 0;
    resolve_edge_target(scope, ref.type, ref.handle, &id, &name);
    if (name < kInlineEdgeNameLimit) {
      retain_name(name);  // the record's reference
      // The record's size word holds the target's handle (views have no size).
      if (hot::record(scope, type, handle, origin, parent_handle, parent_type, ref.handle, callsite,
                      false, inline_edge_link(id, name)) != 0)
        return;
      release_name(name);
      on_edges(scope, type, handle, edges);  // a duplicate handle: the EdgeStore takes the edge
      return;
    }
  }
  on_create_with_edge_list(scope, type, handle, origin, parent_handle, parent_type, size, callsite,
                           edges);
}

// The edge to (type, handle) as a source in `scope` would store it: the target's id and name
// resolved (through a per-thread cache of recent targets), the target marked as referenced.
Edge make_edge(Scope& scope, ObjectType type, uint64_t handle, const char* kind, uint32_t slot,
               bool slot_keyed, uint64_t offset, uint64_t size) noexcept;

// A slot-keyed edge (descriptor writes, memory bindings): replaces the edge of the same kind in
// the same slot. handle 0 records an empty slot (the old edge is dropped). `source_marked`: the
// source was recorded with has_edges already (record_object).
void add_slot_edge(Scope& scope, ObjectType src_type, uint64_t src_handle, ObjectType type,
                   uint64_t handle, const char* kind, uint32_t slot, uint64_t offset, uint64_t size,
                   bool source_marked = false) noexcept;

}  // namespace vkleak
