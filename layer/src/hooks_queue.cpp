// Hand-written hooks: queue submission and presentation (frame boundaries), debug names and the
// in-band snapshot trigger, image sizes, deferred pipeline creation.
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "layer_state.h"
#include "log.h"
#include "manual_hooks.h"
#include "snapshot.h"
#include "tracker_internal.h"

namespace vkleak {
namespace {

void end_frame(DeviceState& state) noexcept {
  const uint64_t frame = state.frame.fetch_add(1, std::memory_order_relaxed) + 1;
  if (InstanceState* inst = state.instance) {
    uint64_t seen = inst->frame.load(std::memory_order_relaxed);
    while (seen < frame && !inst->frame.compare_exchange_weak(seen, frame)) {
    }
  }
  if (state.snapshot_every && frame % state.snapshot_every == 0 && !passthrough())
    snapshot_async(SnapshotReason::kFrame, "");
}

void after_submit(DeviceState& state, VkResult result) noexcept {
  if (result != VK_SUCCESS) return;
  state.submits.fetch_add(1, std::memory_order_relaxed);
  if (state.frame_boundary == FrameBoundary::kSubmit) end_frame(state);
}

// Instance-level object types live in the instance's table; the rest in the device's.
Scope* scope_for(DeviceState& device, ObjectType type) noexcept {
  switch (type) {
    case ObjectType::kInstance:
    case ObjectType::kPhysicalDevice:
    case ObjectType::kDevice:
    case ObjectType::kSurfaceKHR:
    case ObjectType::kDebugUtilsMessengerEXT:
    case ObjectType::kDebugReportCallbackEXT:
    case ObjectType::kDisplayKHR:
    case ObjectType::kDisplayModeKHR:
      return device.instance;
    default:
      return &device;
  }
}

constexpr const char kSnapshotLabel[] = "vkleak.snapshot";

// Deferred pipeline creations waiting for their operation to complete, per device.
struct PendingPipelines {
  const VkPipeline* pipelines;
  uint32_t count;
  CallsiteId callsite;
};
struct DeferredTable {
  std::mutex mutex;
  std::unordered_map<uint64_t, std::unordered_map<uint64_t, PendingPipelines>> by_device;
};
DeferredTable& deferred() {
  static auto* t = new DeferredTable;
  return *t;
}

void resolve_deferred(DeviceState& state, uint64_t operation) noexcept {
  PendingPipelines p{};
  {
    std::lock_guard<std::mutex> lock(deferred().mutex);
    auto dev = deferred().by_device.find(state.handle);
    if (dev == deferred().by_device.end()) return;
    auto it = dev->second.find(operation);
    if (it == dev->second.end()) return;
    p = it->second;
    dev->second.erase(it);
  }
  for (uint32_t i = 0; i < p.count; ++i)
    on_create(state, ObjectType::kPipeline, to_u64(p.pipelines[i]), Origin::kCreated, state.handle,
              ObjectType::kDevice, 0, p.callsite);
}

}  // namespace

void on_deferred_pipelines(DeviceState& device, uint64_t deferred_operation,
                           const VkPipeline* pipelines, uint32_t count,
                           CallsiteId callsite) noexcept {
  try {
    std::lock_guard<std::mutex> lock(deferred().mutex);
    deferred().by_device[device.handle][deferred_operation] = {pipelines, count, callsite};
  } catch (...) {
    device.degraded.store(true, std::memory_order_relaxed);
  }
}

namespace manual {

VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit(VkQueue queue, uint32_t submitCount,
                                           const VkSubmitInfo* pSubmits, VkFence fence) noexcept {
  DeviceState* state = get_device_state(queue);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.QueueSubmit(queue, submitCount, pSubmits, fence);
  after_submit(*state, result);
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit2(VkQueue queue, uint32_t submitCount,
                                            const VkSubmitInfo2* pSubmits, VkFence fence) noexcept {
  DeviceState* state = get_device_state(queue);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.QueueSubmit2(queue, submitCount, pSubmits, fence);
  after_submit(*state, result);
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL QueueBindSparse(VkQueue queue, uint32_t bindInfoCount,
                                               const VkBindSparseInfo* pBindInfo,
                                               VkFence fence) noexcept {
  DeviceState* state = get_device_state(queue);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  return state->dispatch.QueueBindSparse(queue, bindInfoCount, pBindInfo, fence);
}

VKAPI_ATTR VkResult VKAPI_CALL QueuePresentKHR(VkQueue queue,
                                               const VkPresentInfoKHR* pPresentInfo) noexcept {
  DeviceState* state = get_device_state(queue);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.QueuePresentKHR(queue, pPresentInfo);
  // A frame ends at every present the app made, whatever the result (OUT_OF_DATE included).
  state->presents.fetch_add(1, std::memory_order_relaxed);
  if (state->frame_boundary == FrameBoundary::kPresent) end_frame(*state);
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL SetDebugUtilsObjectNameEXT(
    VkDevice device, const VkDebugUtilsObjectNameInfoEXT* pNameInfo) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  if (pNameInfo) {
    ObjectType type = from_vk_object_type(pNameInfo->objectType);
    if (Scope* scope = scope_for(*state, type))
      on_name(*scope, type, pNameInfo->objectHandle, pNameInfo->pObjectName);
  }
  return state->dispatch.SetDebugUtilsObjectNameEXT(device, pNameInfo);
}

VKAPI_ATTR VkResult VKAPI_CALL DebugMarkerSetObjectNameEXT(
    VkDevice device, const VkDebugMarkerObjectNameInfoEXT* pNameInfo) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  if (pNameInfo) {
    ObjectType type = from_debug_report_object_type(pNameInfo->objectType);
    if (Scope* scope = scope_for(*state, type))
      on_name(*scope, type, pNameInfo->object, pNameInfo->pObjectName);
  }
  return state->dispatch.DebugMarkerSetObjectNameEXT(device, pNameInfo);
}

VKAPI_ATTR void VKAPI_CALL QueueInsertDebugUtilsLabelEXT(
    VkQueue queue, const VkDebugUtilsLabelEXT* pLabelInfo) noexcept {
  DeviceState* state = get_device_state(queue);
  if (!state) return;
  state->dispatch.QueueInsertDebugUtilsLabelEXT(queue, pLabelInfo);
  // In-band trigger, for programs where signals are awkward: a queue label
  // "vkleak.snapshot" or "vkleak.snapshot:<label>" takes a snapshot right here.
  const char* name = pLabelInfo ? pLabelInfo->pLabelName : nullptr;
  if (!name || passthrough()) return;
  const size_t n = sizeof(kSnapshotLabel) - 1;
  if (std::strncmp(name, kSnapshotLabel, n) != 0 || (name[n] != '\0' && name[n] != ':')) return;
  snapshot_now(SnapshotReason::kTrigger, nullptr, nullptr, name[n] == ':' ? name + n + 1 : "label");
}

VKAPI_ATTR void VKAPI_CALL GetImageMemoryRequirements(VkDevice device, VkImage image,
                                                      VkMemoryRequirements* pMemoryRequirements) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return;
  state->dispatch.GetImageMemoryRequirements(device, image, pMemoryRequirements);
  if (pMemoryRequirements)
    on_size_known(*state, ObjectType::kImage, to_u64(image), pMemoryRequirements->size);
}

VKAPI_ATTR void VKAPI_CALL GetImageMemoryRequirements2(
    VkDevice device, const VkImageMemoryRequirementsInfo2* pInfo,
    VkMemoryRequirements2* pMemoryRequirements) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return;
  state->dispatch.GetImageMemoryRequirements2(device, pInfo, pMemoryRequirements);
  if (pInfo && pMemoryRequirements)
    on_size_known(*state, ObjectType::kImage, to_u64(pInfo->image),
                  pMemoryRequirements->memoryRequirements.size);
}

VKAPI_ATTR VkResult VKAPI_CALL GetDeferredOperationResultKHR(VkDevice device,
                                                             VkDeferredOperationKHR operation) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.GetDeferredOperationResultKHR(device, operation);
  if (result != VK_NOT_READY) resolve_deferred(*state, to_u64(operation));
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL DeferredOperationJoinKHR(VkDevice device,
                                                        VkDeferredOperationKHR operation) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.DeferredOperationJoinKHR(device, operation);
  if (result == VK_SUCCESS) resolve_deferred(*state, to_u64(operation));
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyDeferredOperationKHR(VkDevice device,
                                                       VkDeferredOperationKHR operation,
                                                       const VkAllocationCallbacks* pAllocator) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return;
  // Pipelines of a completed operation not yet collected are valid now; an operation destroyed
  // before completion is invalid usage and its pipelines are unknown.
  resolve_deferred(*state, to_u64(operation));
  on_destroy(*state, ObjectType::kDeferredOperationKHR, to_u64(operation));
  state->dispatch.DestroyDeferredOperationKHR(device, operation, pAllocator);
}

}  // namespace manual
}  // namespace vkleak
