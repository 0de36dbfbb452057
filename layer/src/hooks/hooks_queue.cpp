// Hand-written hooks: queue submission and presentation (frame boundaries), debug names and the
// in-band snapshot trigger, image sizes, deferred pipeline creation.
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "base/passthrough.h"
#include "graph/graph.h"
#include "manual_hooks.h"
#include "snapshot/error_snapshot.h"
#include "snapshot/snapshot.h"
#include "tracking/state.h"
#include "tracking/tracker.h"
#include "tracking/tracker_hot.h"

namespace vkleak {
namespace {

// Ends `count` frames at once (more than one only when frame_boundary=auto switches to submits:
// the submits made so far count, so that frames equal submits as with frame_boundary=submit).
void end_frame(DeviceState& state, uint64_t count) noexcept {
  const uint64_t frame = state.frame.fetch_add(count, std::memory_order_relaxed) + count;
  state.creation_frame.store(static_cast<uint32_t>(frame), std::memory_order_relaxed);
  refresh_clock();  // creation times are to the frame (see recent_ms)
  if (InstanceState* inst = state.instance) {
    uint64_t seen = inst->frame.load(std::memory_order_relaxed);
    while (seen < frame && !inst->frame.compare_exchange_weak(seen, frame)) {
    }
    inst->creation_frame.store(static_cast<uint32_t>(inst->frame.load(std::memory_order_relaxed)),
                               std::memory_order_relaxed);
  }
  const uint64_t every = state.snapshot_every;
  const bool crossed =
      every && (count == 1 ? frame % every == 0 : frame / every != (frame - count) / every);
  if (crossed && !passthrough()) {
    state.heap_budget.sample(frame);  // the driver's view beside this snapshot's objects
    snapshot_now(SnapshotReason::kFrame, nullptr, nullptr, "");
  }
}

// Per submit: relaxed atomics only, no lock.
void after_submit(DeviceState& state, VkResult result) noexcept {
  if (result != VK_SUCCESS) return;
  const uint64_t submits = state.submits.fetch_add(1, std::memory_order_relaxed) + 1;
  if (state.frame_boundary == FrameBoundary::kSubmit) {
    end_frame(state, 1);
  } else if (state.frame_boundary == FrameBoundary::kAuto &&
             state.presents.load(std::memory_order_relaxed) == 0) {
    const uint64_t decide_at = auto_submit_frames(state);
    if (submits < decide_at) {
      // Not decided yet: what is made now is stamped with the submit count (Scope).
      state.creation_frame.store(kUndecidedFrame | static_cast<uint32_t>(submits),
                                 std::memory_order_relaxed);
    } else if (submits == decide_at) {
      log().info(
          "device {:#x}: {} submits and no present: frames end at submits "
          "(frame_boundary=auto)",
          state.handle, submits);
      state.frames_were_submits.store(true, std::memory_order_relaxed);
      end_frame(state, submits);
    } else {
      end_frame(state, 1);
    }
  }
}

// Whether a submit records nothing (no command buffers, semaphores or fence): then the tracker
// only counts it (SubmissionTracker::submit_empty).
template <typename Info, typename F>
bool nothing_to_record(uint32_t count, const Info* infos, VkFence fence, F&& counts) noexcept {
  if (fence != VK_NULL_HANDLE) return false;
  for (uint32_t i = 0; i < count; ++i)
    if (counts(infos[i])) return false;
  return true;
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
  check_result(result, "vkQueueSubmit");
  if (result == VK_SUCCESS && !passthrough() &&
      nothing_to_record(submitCount, pSubmits, fence, [](const VkSubmitInfo& s) {
        return s.commandBufferCount | s.waitSemaphoreCount | s.signalSemaphoreCount;
      })) {
    if (QueueState* q = state->submissions.queue(queue)) SubmissionTracker::submit_empty(*q);
  } else if (result == VK_SUCCESS && !passthrough()) {
    try {
      std::vector<SubmissionTracker::Batch> batches(submitCount);
      for (uint32_t i = 0; i < submitCount; ++i) {
        const VkSubmitInfo& s = pSubmits[i];
        const VkTimelineSemaphoreSubmitInfo* values = nullptr;
        for (auto* p = static_cast<const VkBaseInStructure*>(s.pNext); p; p = p->pNext)
          if (p->sType == VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO)
            values = reinterpret_cast<const VkTimelineSemaphoreSubmitInfo*>(p);
        auto& b = batches[i];
        b.command_buffers.assign(s.pCommandBuffers, s.pCommandBuffers + s.commandBufferCount);
        for (uint32_t k = 0; k < s.waitSemaphoreCount; ++k) {
          uint64_t v = values && values->pWaitSemaphoreValues && k < values->waitSemaphoreValueCount
                           ? values->pWaitSemaphoreValues[k]
                           : 0;
          b.waits.push_back({to_u64(s.pWaitSemaphores[k]), v});
        }
        for (uint32_t k = 0; k < s.signalSemaphoreCount; ++k) {
          uint64_t v =
              values && values->pSignalSemaphoreValues && k < values->signalSemaphoreValueCount
                  ? values->pSignalSemaphoreValues[k]
                  : 0;
          b.signals.push_back({to_u64(s.pSignalSemaphores[k]), v});
        }
      }
      if (QueueState* q = state->submissions.queue(queue))
        state->submissions.submit(*state, *q, batches.data(), submitCount, to_u64(fence));
    } catch (...) {
      state->degraded.store(true, std::memory_order_relaxed);
    }
  }
  after_submit(*state, result);
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit2(VkQueue queue, uint32_t submitCount,
                                            const VkSubmitInfo2* pSubmits, VkFence fence) noexcept {
  DeviceState* state = get_device_state(queue);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.QueueSubmit2(queue, submitCount, pSubmits, fence);
  check_result(result, "vkQueueSubmit2");
  if (result == VK_SUCCESS && !passthrough() &&
      nothing_to_record(submitCount, pSubmits, fence, [](const VkSubmitInfo2& s) {
        return s.commandBufferInfoCount | s.waitSemaphoreInfoCount | s.signalSemaphoreInfoCount;
      })) {
    if (QueueState* q = state->submissions.queue(queue)) SubmissionTracker::submit_empty(*q);
  } else if (result == VK_SUCCESS && !passthrough()) {
    try {
      std::vector<SubmissionTracker::Batch> batches(submitCount);
      for (uint32_t i = 0; i < submitCount; ++i) {
        const VkSubmitInfo2& s = pSubmits[i];
        auto& b = batches[i];
        for (uint32_t k = 0; k < s.commandBufferInfoCount; ++k)
          b.command_buffers.push_back(s.pCommandBufferInfos[k].commandBuffer);
        for (uint32_t k = 0; k < s.waitSemaphoreInfoCount; ++k)
          b.waits.push_back(
              {to_u64(s.pWaitSemaphoreInfos[k].semaphore), s.pWaitSemaphoreInfos[k].value});
        for (uint32_t k = 0; k < s.signalSemaphoreInfoCount; ++k)
          b.signals.push_back(
              {to_u64(s.pSignalSemaphoreInfos[k].semaphore), s.pSignalSemaphoreInfos[k].value});
      }
      if (QueueState* q = state->submissions.queue(queue))
        state->submissions.submit(*state, *q, batches.data(), submitCount, to_u64(fence));
    } catch (...) {
      state->degraded.store(true, std::memory_order_relaxed);
    }
  }
  after_submit(*state, result);
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL QueueBindSparse(VkQueue queue, uint32_t bindInfoCount,
                                               const VkBindSparseInfo* pBindInfo,
                                               VkFence fence) noexcept {
  DeviceState* state = get_device_state(queue);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.QueueBindSparse(queue, bindInfoCount, pBindInfo, fence);
  check_result(result, "vkQueueBindSparse");
  if (result == VK_SUCCESS && !passthrough()) {
    try {
      // Sparse memory bindings are edges resource -> memory, one per bound range (keyed by
      // its index: a later bind of the same range replaces it).
      std::vector<SubmissionTracker::Batch> batches(bindInfoCount);
      for (uint32_t i = 0; i < bindInfoCount; ++i) {
        const VkBindSparseInfo& info = pBindInfo[i];
        for (uint32_t b = 0; b < info.bufferBindCount; ++b) {
          const auto& bind = info.pBufferBinds[b];
          for (uint32_t k = 0; k < bind.bindCount; ++k)
            add_slot_edge(*state, ObjectType::kBuffer, to_u64(bind.buffer),
                          ObjectType::kDeviceMemory, to_u64(bind.pBinds[k].memory), "memory.sparse",
                          static_cast<uint32_t>(bind.pBinds[k].resourceOffset >> 12),
                          bind.pBinds[k].memoryOffset, bind.pBinds[k].size);
        }
        for (uint32_t b = 0; b < info.imageOpaqueBindCount; ++b) {
          const auto& bind = info.pImageOpaqueBinds[b];
          for (uint32_t k = 0; k < bind.bindCount; ++k)
            add_slot_edge(*state, ObjectType::kImage, to_u64(bind.image), ObjectType::kDeviceMemory,
                          to_u64(bind.pBinds[k].memory), "memory.sparse",
                          static_cast<uint32_t>(bind.pBinds[k].resourceOffset >> 12),
                          bind.pBinds[k].memoryOffset, bind.pBinds[k].size);
        }
        for (uint32_t k = 0; k < info.waitSemaphoreCount; ++k)
          batches[i].waits.push_back({to_u64(info.pWaitSemaphores[k]), 0});
        for (uint32_t k = 0; k < info.signalSemaphoreCount; ++k)
          batches[i].signals.push_back({to_u64(info.pSignalSemaphores[k]), 0});
      }
      if (QueueState* q = state->submissions.queue(queue))
        state->submissions.submit(*state, *q, batches.data(), bindInfoCount, to_u64(fence));
    } catch (...) {
      state->degraded.store(true, std::memory_order_relaxed);
    }
  }
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL QueuePresentKHR(VkQueue queue,
                                               const VkPresentInfoKHR* pPresentInfo) noexcept {
  DeviceState* state = get_device_state(queue);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.QueuePresentKHR(queue, pPresentInfo);
  check_result(result, "vkQueuePresentKHR");
  if (pPresentInfo && !passthrough()) {
    try {
      std::vector<uint64_t> images;
      {
        std::lock_guard<std::mutex> lock(state->descriptors.mutex);
        for (uint32_t i = 0; i < pPresentInfo->swapchainCount; ++i) {
          auto it = state->descriptors.swapchain_images.find(to_u64(pPresentInfo->pSwapchains[i]));
          if (it != state->descriptors.swapchain_images.end() &&
              pPresentInfo->pImageIndices[i] < it->second.size())
            images.push_back(it->second[pPresentInfo->pImageIndices[i]]);
        }
      }
      if (QueueState* q = state->submissions.queue(queue))
        state->submissions.present(*state, *q, images.data(), static_cast<uint32_t>(images.size()));
    } catch (...) {
    }
  }
  // A frame ends at every present the app made, whatever the result (OUT_OF_DATE included).
  // With frame_boundary=auto, also on a device that counted submits until now: a program that
  // presents has its frames at presents.
  const uint64_t presents = state->presents.fetch_add(1, std::memory_order_relaxed);
  if (state->frame_boundary != FrameBoundary::kSubmit) {
    if (presents == 0 && state->frame_boundary == FrameBoundary::kAuto &&
        state->submits.load(std::memory_order_relaxed) >= auto_submit_frames(*state))
      log().info("device {:#x} presents: frames end at presents again (frame_boundary=auto)",
                 state->handle);
    end_frame(*state, 1);
  }
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

VKAPI_ATTR void VKAPI_CALL
QueueInsertDebugUtilsLabelEXT(VkQueue queue, const VkDebugUtilsLabelEXT* pLabelInfo) noexcept {
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

VKAPI_ATTR void VKAPI_CALL GetImageMemoryRequirements(
    VkDevice device, VkImage image, VkMemoryRequirements* pMemoryRequirements) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return;
  state->dispatch.GetImageMemoryRequirements(device, image, pMemoryRequirements);
  if (pMemoryRequirements)
    on_size_known(*state, ObjectType::kImage, to_u64(image), pMemoryRequirements->size);
}

VKAPI_ATTR void VKAPI_CALL
GetImageMemoryRequirements2(VkDevice device, const VkImageMemoryRequirementsInfo2* pInfo,
                            VkMemoryRequirements2* pMemoryRequirements) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return;
  state->dispatch.GetImageMemoryRequirements2(device, pInfo, pMemoryRequirements);
  if (pInfo && pMemoryRequirements)
    on_size_known(*state, ObjectType::kImage, to_u64(pInfo->image),
                  pMemoryRequirements->memoryRequirements.size);
}

VKAPI_ATTR VkResult VKAPI_CALL
GetDeferredOperationResultKHR(VkDevice device, VkDeferredOperationKHR operation) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.GetDeferredOperationResultKHR(device, operation);
  check_result(result, "vkGetDeferredOperationResultKHR");
  if (result != VK_NOT_READY) resolve_deferred(*state, to_u64(operation));
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL DeferredOperationJoinKHR(VkDevice device,
                                                        VkDeferredOperationKHR operation) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.DeferredOperationJoinKHR(device, operation);
  check_result(result, "vkDeferredOperationJoinKHR");
  if (result == VK_SUCCESS) resolve_deferred(*state, to_u64(operation));
  return result;
}

VKAPI_ATTR void VKAPI_CALL
DestroyDeferredOperationKHR(VkDevice device, VkDeferredOperationKHR operation,
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
