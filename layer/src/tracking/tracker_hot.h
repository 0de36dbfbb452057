// The create and destroy paths of the generated hooks, inline: each hook's constants (object
// type, origin) fold into them, and a create or destroy costs no call into the tracker. What
// is rare (duplicates, parents other than the scope, objects in use or referenced, pools) stays
// out of line in tracker.cpp. Apart from tracker.h because these bodies need the whole state
// (state.h), and tracker.h only the object table's record.
#pragma once

#include <atomic>
#include <cstdint>

#include "base/clock.h"
#include "base/passthrough.h"
#include "store/creation_context.h"
#include "store/object_table.h"
#include "store/recent_destroys.h"
#include "tracking/state.h"
#include "tracking/tracker.h"

namespace vkleak {
namespace hot {

// Ids are handed out in per-thread blocks so that threads creating concurrently do not bounce
// one cache line; within a thread they follow creation order. Initial-exec TLS: a plain
// %fs-relative access instead of a __tls_get_addr call per creation (16 bytes of the static TLS
// surplus glibc keeps for dlopen'ed libraries).
struct IdBlock {
  uint64_t next, end;
};
extern __thread IdBlock t_ids __attribute__((tls_model("initial-exec")));  // see t_context_cache
__attribute__((noinline)) uint64_t next_id_block() noexcept;  // a new block: its first id
__attribute__((always_inline)) inline uint64_t next_id() noexcept {
  IdBlock& b = t_ids;
  return b.next != b.end ? b.next++ : next_id_block();
}

// Out of line (tracker.cpp): the insert did not happen (a live handle, or out of memory); a
// parent other than the scope; the destroy of an object that needs more than dropping its
// record (`removed`: the record as it was), or of a handle that is not live.
__attribute__((cold, noinline)) void not_inserted(Scope& scope, ObjectType type, uint64_t handle,
                                                  bool retrieved, ObjectTable::InsertResult result,
                                                  ContextId context) noexcept;
__attribute__((noinline)) void remember_parent(Scope& scope, uint64_t id, uint64_t handle,
                                               uint64_t parent_handle,
                                               ObjectType parent_type) noexcept;
__attribute__((noinline)) uint64_t id_if_live(Scope& scope, ObjectType type,
                                              uint64_t handle) noexcept;
__attribute__((noinline)) void destroy_whole(Scope& scope, ObjectType type, uint64_t handle,
                                             const ObjectRecord& removed,
                                             CallsiteId destroy_callsite) noexcept;
// `what`: "destroy" or "free"; `callsite`: the bad call's.
__attribute__((cold, noinline)) void note_invalid_destroy(Scope& scope, ObjectType type,
                                                          uint64_t handle, const char* what,
                                                          CallsiteId callsite) noexcept;

// Types whose destruction does more than drop a record: pools and swapchains free their
// children, command buffers their recorded references, and objects with a parent other than
// their scope or a pool leave a ParentMap entry.
constexpr bool destroy_keeps_more(ObjectType t) noexcept {
  const ObjectType xml_parent = xml_parent_type(t);
  return owns_children(t) || t == ObjectType::kCommandBuffer ||
         (xml_parent != ObjectType::kDevice && xml_parent != ObjectType::kInstance &&
          !owns_children(xml_parent));
}
struct TypeFlags {
  bool of[kObjectTypeCount];
};
inline constexpr TypeFlags kDestroyKeepsMore = [] {
  TypeFlags f{};
  for (uint32_t t = 0; t < kObjectTypeCount; ++t)
    f.of[t] = destroy_keeps_more(static_cast<ObjectType>(t));
  return f;
}();
static_assert(!kDestroyKeepsMore.of[static_cast<uint32_t>(ObjectType::kBuffer)]);
static_assert(kDestroyKeepsMore.of[static_cast<uint32_t>(ObjectType::kCommandPool)]);
static_assert(kDestroyKeepsMore.of[static_cast<uint32_t>(ObjectType::kDisplayModeKHR)]);

// Whether a destroyed record leaves more than its context behind: a submission that used it,
// edges, something that references it, a name (its own or its inline edge's). Such a destroy
// copies the whole record and takes the out-of-line path; the rest only drop the record. The
// type is a constant in each hook, so the view check folds away for other types.
__attribute__((always_inline)) inline bool leaves_more(const ObjectRecord& r,
                                                       ObjectType type) noexcept {
  return r.use_serial != 0 || (r.meta & (kMetaHasEdges | kMetaReferenced)) || r.name != 0 ||
         (keeps_inline_edge(type) && inline_edge_name_of_view(r) != 0);
}

// record_object's body (tracker.h). `link`: memory_slot | memory_offset << 32 of the new record
// (0 but for views' inline edges and pool children's slots: see ObjectRecord).
__attribute__((always_inline)) inline uint64_t record(Scope& scope, ObjectType type,
                                                      uint64_t handle, Origin origin,
                                                      uint64_t parent_handle,
                                                      ObjectType parent_type, uint64_t size,
                                                      CallsiteId callsite, bool has_edges,
                                                      uint64_t link = 0) noexcept {
  if (handle == 0 || passthrough()) return 0;
  const bool retrieved = origin == Origin::kRetrieved || origin == Origin::kSwapchainImage;
  if (retrieved) {
    if (const uint64_t live_id = id_if_live(scope, type, handle)) return live_id;
  }
  const uint64_t id = next_id() & ((uint64_t{1} << 40) - 1);
  const uint64_t meta = record_meta(id, type, static_cast<uint64_t>(origin), 1, has_edges);
  const ContextId context =
      intern_context(callsite, scope.creation_frame.load(std::memory_order_relaxed), recent_ms());
  // Every field written once, whole (see ObjectTable::insert).
  const ObjectTable::InsertResult inserted = scope.table.insert(
      handle, type, !retrieved, [&](ObjectRecord & r) __attribute__((always_inline)) {
        r.handle = handle;
        r.size = size;
        r.meta = meta;
        r.context = context;
        r.name = 0;
        r.use_frame = 0;
        r.use_serial = 0;
        r.memory_slot = static_cast<uint32_t>(link);
        r.memory_offset = static_cast<uint32_t>(link >> 32);
      });
  if (inserted != ObjectTable::InsertResult::kInserted) {
    not_inserted(scope, type, handle, retrieved, inserted, context);
    return 0;
  }
  // Most objects are children of their scope: nothing more to remember.
  if (parent_type == scope.type && parent_handle == scope.handle) return id;
  remember_parent(scope, id, handle, parent_handle, parent_type);
  return id;
}

// record() for a pool's child (descriptor set, command buffer): its slot in the pool's list of
// children is taken first and kept in its record (child_slot), so that freeing it finds it
// there without a search (on_free_from_pool).
__attribute__((always_inline)) inline uint64_t record_pool_child(Scope& scope, ObjectType type,
                                                                 uint64_t handle, uint64_t pool,
                                                                 uint64_t size,
                                                                 CallsiteId callsite) noexcept {
  if (handle == 0 || passthrough()) return 0;
  uint32_t slot = 0;
  try {
    slot = scope.children.add(pool, handle, true);  // the app synchronizes the pool
  } catch (...) {
    scope.degraded.store(true, std::memory_order_relaxed);  // as remember_parent
  }
  const uint64_t id = next_id() & ((uint64_t{1} << 40) - 1);
  const uint64_t meta = record_meta(id, type, static_cast<uint64_t>(Origin::kAllocated), 1, false);
  const ContextId context =
      intern_context(callsite, scope.creation_frame.load(std::memory_order_relaxed), recent_ms());
  const ObjectTable::InsertResult inserted = scope.table.insert(
      handle, type, true, [&](ObjectRecord & r) __attribute__((always_inline)) {
        r.handle = handle;
        r.size = size;
        r.meta = meta;
        r.context = context;
        r.name = 0;
        r.use_frame = 0;
        r.use_serial = 0;
        r.memory_slot = 0;
        r.memory_offset = slot;
      });
  if (inserted != ObjectTable::InsertResult::kInserted) {
    // A live handle again (it keeps its one place in the list) or no memory.
    if (slot) scope.children.remove(pool, handle, slot, true);
    not_inserted(scope, type, handle, false, inserted, context);
    return 0;
  }
  return id;
}

// The rest of a pool child's free when it needs more than dropping its record (tracker.cpp).
__attribute__((noinline)) void free_whole(Scope& scope, const ObjectRecord& removed) noexcept;

// on_free_from_pool's body (tracker.h), inline in the hooks: the child's type is a constant.
__attribute__((always_inline)) inline void free_from_pool(Scope& scope, ObjectType pool_type,
                                                          uint64_t pool, uint64_t child) noexcept {
  if (child == 0 || passthrough()) return;
  const ObjectType child_type = pool_type == ObjectType::kDescriptorPool
                                    ? ObjectType::kDescriptorSet
                                    : ObjectType::kCommandBuffer;
  // As on_destroy: most sets were never submitted, nothing points at them and they have no
  // name: only their record goes, its context to the recent destroys. Command buffers always
  // take the whole path (their recorded references go too). No destroy stack: a pool child's
  // free never took one.
  bool whole = child_type == ObjectType::kCommandBuffer;
  ObjectRecord removed;
  ContextId context = 0;
  uint64_t id = 0;
  uint32_t slot = 0;
  const ObjectTable::EraseResult result = scope.table.erase_with(
      child, child_type, [&](const ObjectRecord& r) __attribute__((always_inline)) {
        slot = child_slot(r);
        if (whole || leaves_more(r, child_type)) {
          removed = r;
          whole = true;
        } else {
          context = r.context;
          id = r.id;
        }
      });
  if (result == ObjectTable::EraseResult::kNotLive) {
    note_invalid_destroy(scope, child_type, child, "free", capture_stack_here());
    return;
  }
  if (result == ObjectTable::EraseResult::kDecremented) return;  // a duplicate, still live
  scope.children.remove(pool, child, slot, true);                // the app synchronizes the pool
  if (whole)
    free_whole(scope, removed);
  else
    remember_destroy(scope.object_id, child, child_type, id, context, 0,
                     static_cast<uint32_t>(scope.frame.load(std::memory_order_relaxed)),
                     kNoCallsite);
}

}  // namespace hot

// on_create for an object made from the scope's own instance or device (most objects: the
// generated hooks call this when the command's first parameter is the parent).
__attribute__((always_inline)) inline void on_create_child(Scope& scope, ObjectType type,
                                                           uint64_t handle, Origin origin,
                                                           uint64_t size,
                                                           CallsiteId callsite) noexcept {
  hot::record(scope, type, handle, origin, scope.handle, scope.type, size, callsite, false);
}

// Forgets an object (and, for pools and swapchains, the children they own). Unknown handles are
// remembered as an invalid destroy. VK_NULL_HANDLE is a no-op.
__attribute__((always_inline)) inline void on_destroy(Scope& scope, ObjectType type,
                                                      uint64_t handle) noexcept {
  if (handle == 0 || passthrough()) return;
  // Most objects were never submitted, nothing points at them, they have no name and their type
  // keeps nothing elsewhere: only their record goes, its context to the recent destroys. The
  // others copy their whole record.
  bool whole = hot::kDestroyKeepsMore.of[static_cast<uint32_t>(type)];
  ObjectRecord removed;
  ContextId context = 0;
  uint64_t id = 0;
  const ObjectTable::EraseResult result = scope.table.erase_with(
      handle, type, [&](const ObjectRecord& r) __attribute__((always_inline)) {
        // Names' references (the object's, its inline edge's) go in forget().
        if (whole || hot::leaves_more(r, type)) {
          removed = r;
          whole = true;
        } else {
          context = r.context;
          id = r.id;
        }
      });
  if (result == ObjectTable::EraseResult::kRemoved) {
    // A valid destroy's stack unless turned off (destroy_callstacks=false): the call chain is
    // recognized on the stack like a create's, about 85 instructions and 2-5 ns more per
    // create/destroy pair at depth 8 (bench/RESULTS.md, issue 27).
    const CallsiteId destroyed_at =
        __builtin_expect(g_destroy_callstacks.load(std::memory_order_relaxed), 1)
            ? capture_callsite()
            : kNoCallsite;
    if (whole)
      hot::destroy_whole(scope, type, handle, removed, destroyed_at);
    else
      remember_destroy(scope.object_id, handle, type, id, context, 0,
                       static_cast<uint32_t>(scope.frame.load(std::memory_order_relaxed)),
                       destroyed_at);
  } else if (result == ObjectTable::EraseResult::kNotLive) {
    // vkFreeMemory comes here too; pool children are freed through on_free_from_pool.
    hot::note_invalid_destroy(scope, type, handle,
                              type == ObjectType::kDeviceMemory ? "free" : "destroy",
                              capture_callsite());
  }  // kDecremented: a duplicate handle, still live once more
}

}  // namespace vkleak
