// The loader-layer interface (Vulkan-Loader docs/LoaderLayerInterface.md, interface version 2):
// negotiation, and vkGetInstanceProcAddr / vkGetDeviceProcAddr that hand out a hook only when
// the next layer in the chain has the function too.
#include <vulkan/vk_layer.h>

#include <cstring>

#include "base/log.h"
#include "hook_table.h"
#include "hooks/leak_check_api.h"
#include "manual_hooks.h"
#include "tracking/state.h"

#define VKLEAK_EXPORT extern "C" __attribute__((visibility("default")))

namespace vkleak {

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device,
                                                           const char* name) noexcept;

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetInstanceProcAddr(VkInstance instance,
                                                             const char* name) noexcept {
  if (!name) return nullptr;
  if (std::strcmp(name, "vkGetInstanceProcAddr") == 0)
    return reinterpret_cast<PFN_vkVoidFunction>(&GetInstanceProcAddr);
  if (std::strcmp(name, "vkGetDeviceProcAddr") == 0)
    return reinterpret_cast<PFN_vkVoidFunction>(&GetDeviceProcAddr);
  if (std::strcmp(name, "vkCreateInstance") == 0)
    return reinterpret_cast<PFN_vkVoidFunction>(&manual::CreateInstance);
  const HookEntry* hook = find_hook(name);
  if (instance == VK_NULL_HANDLE) {
    // Layers above ask for commands with no instance, e.g. MangoHud and vkBasalt fetch the next
    // vkCreateDevice with vkGetInstanceProcAddr(NULL, ...). Like the loader's terminator and the
    // validation layer, answer with our hook: each finds its state through its dispatchable
    // handle and calls down through a table that is never null (vk_dispatch.h).
    return hook ? hook->hook : nullptr;
  }
  InstanceState* state = get_instance_state(instance);
  if (!state) return nullptr;  // an instance created without us
  PFN_vkVoidFunction next = state->next_gipa(instance, name);
  if (!next) return nullptr;
  return hook ? hook->hook : next;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device,
                                                           const char* name) noexcept {
  if (!name) return nullptr;
  if (std::strcmp(name, "vkGetDeviceProcAddr") == 0)
    return reinterpret_cast<PFN_vkVoidFunction>(&GetDeviceProcAddr);
  DeviceState* state = get_device_state(device);
  if (!state) return nullptr;
  // The C API (include/vkleak/vkleak.h): ours, whatever the layers below have.
  if (PFN_vkVoidFunction api = leak_check_entry_point(name)) return api;
  PFN_vkVoidFunction next = state->next_gdpa(device, name);
  if (!next) return nullptr;  // also NULL for instance-level names, as the spec asks
  const HookEntry* hook = find_hook(name);
  return (hook && hook->device_level) ? hook->hook : next;
}

void note_absent_command(const char* name) noexcept {
  try {
    log().warn(
        "{} was called, but the layer or driver below does not provide it (is its extension "
        "enabled?): returned what the loader returns for a missing command",
        name);
  } catch (...) {
  }
}

}  // namespace vkleak

VKLEAK_EXPORT VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface* version) {
  if (!version || version->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT)
    return VK_ERROR_INITIALIZATION_FAILED;
  if (version->loaderLayerInterfaceVersion < 2) return VK_ERROR_INITIALIZATION_FAILED;
  version->loaderLayerInterfaceVersion = 2;
  version->pfnGetInstanceProcAddr = &vkleak::GetInstanceProcAddr;
  version->pfnGetDeviceProcAddr = &vkleak::GetDeviceProcAddr;
  version->pfnGetPhysicalDeviceProcAddr = nullptr;
  return VK_SUCCESS;
}

// Older loaders look these up by name.
VKLEAK_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance,
                                                                             const char* name) {
  return vkleak::GetInstanceProcAddr(instance, name);
}
VKLEAK_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device,
                                                                           const char* name) {
  return vkleak::GetDeviceProcAddr(device, name);
}
