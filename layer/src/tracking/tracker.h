// The tracking API that every hook (generated or hand-written), the graph and the snapshot
// call. Its hot paths (on_create_child, on_destroy) are inline in tracker_hot.h, which needs the
// whole state (state.h); this header needs only the object table's record.
//
// Hooks follow one shape: find the state by the dispatchable first parameter, and then
//   create-like:  call down first, then on_create() for every non-null returned handle;
//   destroy-like: on_destroy() first, then call down (closes the window in which the driver hands a
//                 just-freed handle value to another thread, without any global lock).
// Every function here is noexcept: bookkeeping failures mark the scope degraded, never the app.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "callsite/callsite.h"       // CallsiteId, capture_callsite()
#include "format/snapshot_format.h"  // Origin
#include "store/object_table.h"      // ObjectRecord
#include "vk_object_types.h"         // generated: enum class ObjectType, object_type_name(), ...

namespace vkleak {

struct Scope;          // what owns an object table: an instance or a device
struct InstanceState;  // : Scope
struct DeviceState;    // : Scope

using Origin = format::Origin;  // the snapshot contract's (src/format/)

// Handles as 64-bit integers: dispatchable handles are pointers, non-dispatchable ones are
// uint64_t on 64-bit targets and may be pointers elsewhere.
template <typename H>
inline uint64_t to_u64(H h) noexcept {
  if constexpr (std::is_pointer_v<H>) {
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(h));
  } else {
    return static_cast<uint64_t>(h);
  }
}

// Records a new (or re-retrieved) object. parent_handle/parent_type name the object it was made
// from (its pool, swapchain, display, ...); pass the scope's own handle for plain children.
// Retrieved objects (origin kRetrieved / kSwapchainImage) are idempotent: a second retrieval of a
// live handle changes nothing. A created handle that is already live counts a duplicate.
void on_create(Scope& scope, ObjectType type, uint64_t handle, Origin origin,
               uint64_t parent_handle, ObjectType parent_type, uint64_t size,
               CallsiteId callsite) noexcept;

// on_create_child() and on_destroy(), the paths of most hooks, are inline in tracker_hot.h.

// Sets the size of an object once it is known (image memory requirements, ...).
void on_size_known(Scope& scope, ObjectType type, uint64_t handle, uint64_t size) noexcept;
// A descriptor pool's create flags, kept in its record for snapshots.
void on_pool_create_flags(Scope& scope, uint64_t pool, uint32_t flags) noexcept;

// Pipelines whose creation was deferred (VK_OPERATION_DEFERRED_KHR): their handles are written
// when the deferred operation completes; they are recorded then.
void on_deferred_pipelines(DeviceState& device, uint64_t deferred_operation,
                           const VkPipeline* pipelines, uint32_t count,
                           CallsiteId callsite) noexcept;

// --- What the hand-written hooks, the graph and the snapshot use besides ---

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

// The C API's checkpoints (include/vkleak/vkleak.h). Object ids come in per-thread blocks, so
// a thread's ids after a checkpoint are the rest of its block and the blocks it takes later
// (logged from its first checkpoint on). thread_checkpoint(): a token (0: none, out of memory);
// thread_ids_since(): the id ranges [first, end) this thread has handed out since, sorted.
uint64_t thread_checkpoint() noexcept;
std::vector<std::pair<uint64_t, uint64_t>> thread_ids_since(uint64_t checkpoint);

}  // namespace vkleak
