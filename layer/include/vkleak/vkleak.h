/* vkleak.h: scoped leak checks from inside a program or its tests (C99 and C++).
 *
 * Header-only; links nothing but the Vulkan loader. Each call finds the VK_LAYER_VKLEAK_tracker
 * layer's entry point through vkGetDeviceProcAddr (the way layers expose extra commands); when
 * the layer is not loaded, or the device is VK_NULL_HANDLE, it is a no-op returning 0.
 *
 *   uint64_t cp = vkleak_checkpoint(device);
 *   ... code under test ...
 *   vkleak_object leaked[16];
 *   uint32_t n = vkleak_live_since(device, cp, leaked, 16);  // n: how many, maybe > 16
 *
 * A checkpoint belongs to the thread that took it: vkleak_live_since() on that thread returns
 * the objects of `device` that this thread created after the checkpoint and that are alive now.
 * Objects other threads create and destroy meanwhile are not counted. Instance-level objects
 * (surfaces, debug messengers) are not device objects and are not counted. A thread's
 * checkpoints reach back over its last million or so creations. Objects the program retrieves
 * rather than creates (queues, swapchain images, display objects) are never counted.
 *
 * See README.md ("Leak checks in test suites") and vkleak_gtest.h for GoogleTest.
 */
#ifndef VKLEAK_VKLEAK_H
#define VKLEAK_VKLEAK_H

#include <stdint.h>
#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vkleak_object {
  VkObjectType type;
  uint64_t handle;
  const char* name;      /* its debug name, NULL if none */
  uint64_t bytes;        /* memory: its size; a resource: its memory requirement; else 0 */
  const char* call_site; /* where it was made: "function (module+0xoffset)" or "module+0xoffset",
                            NULL when call sites are off (callstack_depth=0) */
} vkleak_object;

/* The layer's entry points, by these names through vkGetDeviceProcAddr. */
typedef uint64_t(VKAPI_PTR* PFN_vkleak_checkpoint)(VkDevice device);
typedef uint32_t(VKAPI_PTR* PFN_vkleak_live_since)(VkDevice device, uint64_t checkpoint,
                                                   vkleak_object* out, uint32_t capacity);
typedef int(VKAPI_PTR* PFN_vkleak_snapshot)(VkDevice device, const char* label);

/* A token for the objects this thread creates from now on (0 without the layer). */
static inline uint64_t vkleak_checkpoint(VkDevice device) {
  if (device == VK_NULL_HANDLE) return 0; /* the loader's vkGetDeviceProcAddr would crash */
  PFN_vkleak_checkpoint f = (PFN_vkleak_checkpoint)vkGetDeviceProcAddr(device, "vkleak_checkpoint");
  return f ? f(device) : 0;
}

/* Objects of `device` this thread created after `checkpoint` and alive now: fills up to
 * `capacity` of them into `out` (oldest first; strings valid until the next call on this
 * thread), returns how many there are (0 without the layer). */
static inline uint32_t vkleak_live_since(VkDevice device, uint64_t checkpoint, vkleak_object* out,
                                         uint32_t capacity) {
  if (device == VK_NULL_HANDLE) return 0;
  PFN_vkleak_live_since f = (PFN_vkleak_live_since)vkGetDeviceProcAddr(device, "vkleak_live_since");
  return f ? f(device, checkpoint, out, capacity) : 0;
}

/* Writes a snapshot now (reason "trigger", this label) into the layer's output directory, for
 * `vkleak report`: 0 when written (or without the layer), else an errno value. */
static inline int vkleak_snapshot(VkDevice device, const char* label) {
  if (device == VK_NULL_HANDLE) return 0;
  PFN_vkleak_snapshot f = (PFN_vkleak_snapshot)vkGetDeviceProcAddr(device, "vkleak_snapshot");
  return f ? f(device, label) : 0;
}

#ifdef __cplusplus
}
#endif

#endif /* VKLEAK_VKLEAK_H */
