// Hand-written hooks: pools and their children, swapchains and their images. Children are owned
// by their parent, so implicit frees (pool destroy/reset, swapchain destroy) forget them.
#include <mutex>
#include <vector>

#include "base/passthrough.h"
#include "callsite/callsite.h"
#include "format/snapshot_format.h"
#include "manual_hooks.h"
#include "snapshot/error_snapshot.h"
#include "tracking/state.h"
#include "tracking/tracker.h"
#include "tracking/tracker_hot.h"

namespace vkleak {
namespace manual {

VKAPI_ATTR VkResult VKAPI_CALL
AllocateCommandBuffers(VkDevice device, const VkCommandBufferAllocateInfo* pAllocateInfo,
                       VkCommandBuffer* pCommandBuffers) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.AllocateCommandBuffers(device, pAllocateInfo, pCommandBuffers);
  check_result(result, "vkAllocateCommandBuffers");
  if (result == VK_SUCCESS) {
    const CallsiteId cs = capture_callsite();
    const bool secondary = pAllocateInfo->level == VK_COMMAND_BUFFER_LEVEL_SECONDARY;
    for (uint32_t i = 0; i < pAllocateInfo->commandBufferCount; ++i) {
      hot::record_pool_child(*state, ObjectType::kCommandBuffer, to_u64(pCommandBuffers[i]),
                             to_u64(pAllocateInfo->commandPool), 0, cs);
      if (passthrough()) continue;
      try {
        state->command_refs.create(state, to_u64(pCommandBuffers[i]), secondary);
      } catch (...) {
        state->degraded.store(true, std::memory_order_relaxed);
      }
    }
  }
  return result;
}

VKAPI_ATTR void VKAPI_CALL FreeCommandBuffers(VkDevice device, VkCommandPool commandPool,
                                              uint32_t commandBufferCount,
                                              const VkCommandBuffer* pCommandBuffers) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return;
  for (uint32_t i = 0; pCommandBuffers && i < commandBufferCount; ++i)
    on_free_from_pool(*state, ObjectType::kCommandPool, to_u64(commandPool),
                      to_u64(pCommandBuffers[i]));
  state->dispatch.FreeCommandBuffers(device, commandPool, commandBufferCount, pCommandBuffers);
}

VKAPI_ATTR void VKAPI_CALL DestroyCommandPool(VkDevice device, VkCommandPool commandPool,
                                              const VkAllocationCallbacks* pAllocator) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return;
  on_destroy(*state, ObjectType::kCommandPool, to_u64(commandPool));  // and its command buffers
  state->dispatch.DestroyCommandPool(device, commandPool, pAllocator);
}

VKAPI_ATTR VkResult VKAPI_CALL
AllocateDescriptorSets(VkDevice device, const VkDescriptorSetAllocateInfo* pAllocateInfo,
                       VkDescriptorSet* pDescriptorSets) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.AllocateDescriptorSets(device, pAllocateInfo, pDescriptorSets);
  check_result(result, "vkAllocateDescriptorSets");
  if (result == VK_SUCCESS) {
    const CallsiteId cs = capture_callsite();
    for (uint32_t i = 0; i < pAllocateInfo->descriptorSetCount; ++i) {
      // The set's layout (its (binding, element) slots when descriptors are written, and its
      // "pSetLayouts" edge in snapshots) is kept in the set's own record: no EdgeStore entry
      // until something is written into the set.
      hot::record_pool_child(*state, ObjectType::kDescriptorSet, to_u64(pDescriptorSets[i]),
                             to_u64(pAllocateInfo->descriptorPool),
                             to_u64(pAllocateInfo->pSetLayouts[i]), cs);
    }
  }
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL FreeDescriptorSets(VkDevice device, VkDescriptorPool descriptorPool,
                                                  uint32_t descriptorSetCount,
                                                  const VkDescriptorSet* pDescriptorSets) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  for (uint32_t i = 0; pDescriptorSets && i < descriptorSetCount; ++i)
    hot::free_from_pool(*state, ObjectType::kDescriptorPool, to_u64(descriptorPool),
                        to_u64(pDescriptorSets[i]));
  VkResult result = state->dispatch.FreeDescriptorSets(device, descriptorPool, descriptorSetCount,
                                                       pDescriptorSets);
  check_result(result, "vkFreeDescriptorSets");
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDescriptorPool(VkDevice device,
                                                    const VkDescriptorPoolCreateInfo* pCreateInfo,
                                                    const VkAllocationCallbacks* pAllocator,
                                                    VkDescriptorPool* pDescriptorPool) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result =
      state->dispatch.CreateDescriptorPool(device, pCreateInfo, pAllocator, pDescriptorPool);
  check_result(result, "vkCreateDescriptorPool");
  if (result != VK_SUCCESS || *pDescriptorPool == VK_NULL_HANDLE) return result;
  on_create(*state, ObjectType::kDescriptorPool, to_u64(*pDescriptorPool), Origin::kCreated,
            state->handle, ObjectType::kDevice, 0, capture_callsite());
  // Whether the pool may free its sets one by one (FREE_DESCRIPTOR_SET_BIT): the analysis
  // judges such a pool's sets one by one, and the sets of other pools by their pool.
  on_pool_create_flags(*state, to_u64(*pDescriptorPool), pCreateInfo->flags);
  return result;
}
static_assert(format::kPoolFreesSetsOneByOne == VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT,
              "the snapshot's create_flags are Vulkan's");

VKAPI_ATTR void VKAPI_CALL DestroyDescriptorPool(VkDevice device, VkDescriptorPool descriptorPool,
                                                 const VkAllocationCallbacks* pAllocator) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return;
  on_destroy(*state, ObjectType::kDescriptorPool, to_u64(descriptorPool));  // and its sets
  state->dispatch.DestroyDescriptorPool(device, descriptorPool, pAllocator);
}

VKAPI_ATTR VkResult VKAPI_CALL ResetDescriptorPool(VkDevice device, VkDescriptorPool descriptorPool,
                                                   VkDescriptorPoolResetFlags flags) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  if (!passthrough()) free_children(*state, ObjectType::kDescriptorPool, to_u64(descriptorPool));
  VkResult result = state->dispatch.ResetDescriptorPool(device, descriptorPool, flags);
  check_result(result, "vkResetDescriptorPool");
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateSwapchainKHR(VkDevice device,
                                                  const VkSwapchainCreateInfoKHR* pCreateInfo,
                                                  const VkAllocationCallbacks* pAllocator,
                                                  VkSwapchainKHR* pSwapchain) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.CreateSwapchainKHR(device, pCreateInfo, pAllocator, pSwapchain);
  check_result(result, "vkCreateSwapchainKHR");
  if (result == VK_SUCCESS)
    on_create(*state, ObjectType::kSwapchainKHR, to_u64(*pSwapchain), Origin::kCreated,
              state->handle, ObjectType::kDevice, 0, capture_callsite());
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateSharedSwapchainsKHR(
    VkDevice device, uint32_t swapchainCount, const VkSwapchainCreateInfoKHR* pCreateInfos,
    const VkAllocationCallbacks* pAllocator, VkSwapchainKHR* pSwapchains) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.CreateSharedSwapchainsKHR(device, swapchainCount, pCreateInfos,
                                                              pAllocator, pSwapchains);
  check_result(result, "vkCreateSharedSwapchainsKHR");
  if (result == VK_SUCCESS) {
    const CallsiteId cs = capture_callsite();
    for (uint32_t i = 0; i < swapchainCount; ++i)
      on_create(*state, ObjectType::kSwapchainKHR, to_u64(pSwapchains[i]), Origin::kCreated,
                state->handle, ObjectType::kDevice, 0, cs);
  }
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroySwapchainKHR(VkDevice device, VkSwapchainKHR swapchain,
                                               const VkAllocationCallbacks* pAllocator) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return;
  on_destroy(*state, ObjectType::kSwapchainKHR, to_u64(swapchain));  // and its images
  {
    std::lock_guard<std::mutex> lock(state->descriptors.mutex);
    state->descriptors.swapchain_images.erase(to_u64(swapchain));
  }
  state->dispatch.DestroySwapchainKHR(device, swapchain, pAllocator);
}

VKAPI_ATTR VkResult VKAPI_CALL GetSwapchainImagesKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                     uint32_t* pSwapchainImageCount,
                                                     VkImage* pSwapchainImages) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.GetSwapchainImagesKHR(device, swapchain, pSwapchainImageCount,
                                                          pSwapchainImages);
  check_result(result, "vkGetSwapchainImagesKHR");
  if ((result == VK_SUCCESS || result == VK_INCOMPLETE) && pSwapchainImages) {
    // The same handles come back from every call: recording is idempotent.
    std::vector<uint64_t> images;
    for (uint32_t i = 0; i < *pSwapchainImageCount; ++i) {
      on_create(*state, ObjectType::kImage, to_u64(pSwapchainImages[i]), Origin::kSwapchainImage,
                to_u64(swapchain), ObjectType::kSwapchainKHR, 0, kNoCallsite);
      images.push_back(to_u64(pSwapchainImages[i]));
    }
    // In index order, for presents (which name images by index).
    std::lock_guard<std::mutex> lock(state->descriptors.mutex);
    auto& known = state->descriptors.swapchain_images[to_u64(swapchain)];
    if (images.size() > known.size()) known = std::move(images);
  }
  return result;
}

}  // namespace manual
}  // namespace vkleak
