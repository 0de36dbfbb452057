// The tracking API that every hook (generated or hand-written) calls.
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

#include "format/snapshot_format.h"
#include "vk_object_types.h"  // generated: enum class ObjectType, object_type_name(), ...

namespace vkleak {

struct Scope;          // what owns an object table: an instance or a device
struct InstanceState;  // : Scope
struct DeviceState;    // : Scope

using Origin = format::Origin;  // the snapshot contract's (src/format/)

using CallsiteId = uint32_t;  // 0 = no call site (capture off or failed)
inline constexpr CallsiteId kNoCallsite = 0;

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

// The creation call site of the current thread's Vulkan call, de-duplicated into the shared
// table. Frames inside the layer itself are dropped. Call once per command, share across arrays.
// The check for "capture off" is inline: with call sites off a hook pays one load.
// Inlined into the hook, so that its return address is the hook's: the app's call site when
// the loader's trampoline jumped to the hook (depth 1 then needs no unwinding at all).
extern std::atomic<uint32_t> g_callstack_depth;
// The hook's frame address keys a per-thread memo of stack walks (stack_memo.h): a chain
// walked once is found again by checking its return addresses where they lie on the stack.
CallsiteId capture_and_intern(uintptr_t hook_return_address,
                              uintptr_t hook_cfa) noexcept;  // callsite.cpp
// The current stack, from anywhere in the layer (no memo): for rare paths outside a hook's own
// body (an object destroyed in flight, an invalid free).
CallsiteId capture_stack_here() noexcept;  // callsite.cpp
// Setting destroy_callstacks: valid destroys record their stack too (off: only the rare bad ones).
extern std::atomic<bool> g_destroy_callstacks;
__attribute__((always_inline)) inline CallsiteId capture_callsite() noexcept {
  if (g_callstack_depth.load(std::memory_order_relaxed) == 0) return kNoCallsite;
  return capture_and_intern(reinterpret_cast<uintptr_t>(__builtin_return_address(0)),
                            reinterpret_cast<uintptr_t>(__builtin_dwarf_cfa()));
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

// Pipelines whose creation was deferred (VK_OPERATION_DEFERRED_KHR): their handles are written
// when the deferred operation completes; they are recorded then.
void on_deferred_pipelines(DeviceState& device, uint64_t deferred_operation,
                           const VkPipeline* pipelines, uint32_t count,
                           CallsiteId callsite) noexcept;

}  // namespace vkleak
