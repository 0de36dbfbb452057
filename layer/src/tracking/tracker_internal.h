// Tracking helpers used by the hand-written hooks only.
#pragma once

#include "tracking/tracker.h"

namespace vkleak {

// Parents whose children die with them (pools, swapchains), and the type of those children.
constexpr bool owns_children(ObjectType parent) noexcept {
  return parent == ObjectType::kDescriptorPool || parent == ObjectType::kCommandPool ||
         parent == ObjectType::kSwapchainKHR;
}
ObjectType child_type_of(ObjectType parent) noexcept;

// Like on_create, returning the object's id (0 when not recorded, or already live).
// `has_edges`: the caller stores edges of the object right after (saves marking it later).
uint64_t record_object(Scope& scope, ObjectType type, uint64_t handle, Origin origin,
                       uint64_t parent_handle, ObjectType parent_type, uint64_t size,
                       CallsiteId callsite, bool has_edges = false) noexcept;

// Forgets every child of a pool or swapchain (pool destroy or reset, swapchain destroy).
void free_children(Scope& scope, ObjectType parent_type, uint64_t parent) noexcept;

// An explicit free of one pool child (vkFreeDescriptorSets, vkFreeCommandBuffers).
void on_free_from_pool(Scope& scope, ObjectType pool_type, uint64_t pool, uint64_t child) noexcept;

// Debug names (vkSetDebugUtilsObjectNameEXT, vkDebugMarkerSetObjectNameEXT).
void on_name(Scope& scope, ObjectType type, uint64_t handle, const char* name) noexcept;

// A slot-keyed edge (descriptor writes, memory bindings): replaces the edge of the same kind in
// the same slot. handle 0 records an empty slot (the old edge is dropped). `source_marked`: the
// source was recorded with has_edges already (record_object).
void add_slot_edge(Scope& scope, ObjectType src_type, uint64_t src_handle, ObjectType type,
                   uint64_t handle, const char* kind, uint32_t slot, uint64_t offset, uint64_t size,
                   bool source_marked = false) noexcept;

// Where objects of `type` referenced from `scope` live (instance-level targets).
Scope& target_scope(Scope& scope, ObjectType type) noexcept;

// Bumped when an object that edges point at is destroyed or renamed, and when a device goes
// away: per-thread caches of edge targets (make_edge) are then stale.
extern std::atomic<uint32_t> g_target_generation;
inline void edge_targets_changed() noexcept {
  g_target_generation.fetch_add(1, std::memory_order_release);
}

// Records a destroyed_in_flight event when `r` (just removed from `scope`) was still in use.
// `callsite`: the call's stack when the caller has it (else it is captured here).
void check_in_flight(Scope& scope, const ObjectRecord& r, const char* action,
                     CallsiteId callsite = kNoCallsite) noexcept;

}  // namespace vkleak
