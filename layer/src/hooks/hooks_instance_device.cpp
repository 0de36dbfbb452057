// Hand-written hooks: instance and device creation and destruction, physical devices, queues.
#include <vulkan/vk_layer.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "base/clock.h"
#include "base/death_test_child.h"
#include "base/log.h"
#include "base/passthrough.h"
#include "callsite/callsite.h"
#include "manual_hooks.h"
#include "snapshot/snapshot.h"
#include "store/recent_destroys.h"
#include "tracking/state.h"
#include "tracking/tracker.h"
#include "tracking/tracker_hot.h"

namespace vkleak {
namespace {

// Finds the loader's link info in a create info's pNext chain: matching sType AND function.
template <typename LayerCreateInfo, typename CreateInfo>
LayerCreateInfo* find_link_info(const CreateInfo* ci, VkStructureType stype) {
  auto* p = static_cast<const VkBaseInStructure*>(ci->pNext);
  for (; p; p = p->pNext) {
    if (p->sType != stype) continue;
    auto* info = reinterpret_cast<LayerCreateInfo*>(const_cast<VkBaseInStructure*>(p));
    if (info->function == VK_LAYER_LINK_INFO) return info;
  }
  return nullptr;
}

// Serializes "register an instance, start the snapshot writer" against "unregister an
// instance, stop the writer if it was the last". Without it, with the process's last instance
// destroyed on one thread while another thread creates one, the destroying thread could see no
// instance left and stop the writer after the new instance had started (reused) it, leaving that
// instance without a writer; or stop_writer's join could wait forever, the old writer thread
// having seen start_writer reset the shared stop flag before it woke up.
std::mutex& lifecycle_mutex() {
  static auto* m = new std::mutex;  // never destroyed: hooks may run while the process exits
  return *m;
}

// A vkDestroyDevice of a device destroyed before: an invalid destroy in its instance's events
// (and the log, written before the driver sees the call: it may crash on it), then passed
// down as the app asked (the layer never changes what the app does).
void destroy_device_again(VkDevice device, const DestroyedDevice& gone,
                          const VkAllocationCallbacks* pAllocator) noexcept {
  if (!passthrough()) {
    bool recorded = false;
    {
      std::lock_guard<std::mutex> lock(lifecycle_mutex());  // the instance stays registered
      if (InstanceState* instance = g_instance_registry->find(gone.instance_key)) {
        on_destroy(*instance, ObjectType::kDevice, gone.handle);  // not live: invalid_destroy
        recorded = true;
      }
    }
    log().warn("vkDestroyDevice of device {:#x}, already destroyed{}; passed down", gone.handle,
               recorded ? " (event invalid_destroy)" : "");
  }
  if (gone.destroy) gone.destroy(device, pAllocator);
}

// vkCreateDevice down the chain with one more device extension than the app asked for; where
// that fails, as the app asked (*added says which).
VkResult create_device_with(VkPhysicalDevice physical_device, const VkDeviceCreateInfo& app_info,
                            const char* extension, const VkAllocationCallbacks* allocator,
                            VkDevice* device, PFN_vkCreateDevice next_create,
                            bool* added) noexcept {
  *added = false;
  try {
    std::vector<const char*> names;
    names.reserve(app_info.enabledExtensionCount + 1);
    for (uint32_t i = 0; app_info.ppEnabledExtensionNames && i < app_info.enabledExtensionCount;
         ++i)
      names.push_back(app_info.ppEnabledExtensionNames[i]);
    names.push_back(extension);
    VkDeviceCreateInfo info = app_info;
    info.enabledExtensionCount = static_cast<uint32_t>(names.size());
    info.ppEnabledExtensionNames = names.data();
    const VkResult result = next_create(physical_device, &info, allocator, device);
    if (result == VK_SUCCESS) {
      *added = true;
      return result;
    }
    log().info("vkCreateDevice with {} failed ({}); created as the app asked", extension,
               static_cast<int>(result));
  } catch (...) {  // out of memory for the copy: as the app asked
  }
  return next_create(physical_device, &app_info, allocator, device);
}

}  // namespace

namespace manual {

VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo* pCreateInfo,
                                              const VkAllocationCallbacks* pAllocator,
                                              VkInstance* pInstance) noexcept {
  auto* link = pCreateInfo ? find_link_info<VkLayerInstanceCreateInfo>(
                                 pCreateInfo, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO)
                           : nullptr;
  if (!link || !link->u.pLayerInfo || !link->u.pLayerInfo->pfnNextGetInstanceProcAddr)
    return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  auto next_create =
      reinterpret_cast<PFN_vkCreateInstance>(next_gipa(VK_NULL_HANDLE, "vkCreateInstance"));
  if (!next_create) return VK_ERROR_INITIALIZATION_FAILED;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;  // the next layer reads its own link

  Settings settings = load_settings(pCreateInfo);
  configure_log(settings.log_level, settings.log_file);
  // A GoogleTest death-test child dies on purpose: not the run's crash, nothing to snapshot.
  static const bool death_test_child = is_death_test_child();
  if (death_test_child && !passthrough()) {
    log().info("a GoogleTest death-test child: not tracked, no snapshots");
    set_passthrough();
  }
  set_callstack_depth(settings.callstack_depth);
  g_destroy_callstacks.store(settings.destroy_callstacks, std::memory_order_relaxed);
  set_graveyard_size(settings.graveyard_size);
  // The loader has loaded every layer and driver of this instance by now.
  refresh_foreign_modules(settings.vulkan_stack_modules.c_str());
  const CallsiteId callsite = capture_callsite();

  VkResult result = next_create(pCreateInfo, pAllocator, pInstance);
  // Registered even after the final snapshot (passthrough): every later call on the instance
  // must still reach the next layer, and only a registered instance has a dispatch table.
  if (result != VK_SUCCESS) return result;
  try {
    auto state = std::make_shared<InstanceState>();
    state->type = ObjectType::kInstance;
    state->handle = to_u64(*pInstance);
    state->next_gipa = next_gipa;
    state->settings = settings;
    if (const VkApplicationInfo* app = pCreateInfo->pApplicationInfo) {
      if (app->pApplicationName) state->application_name = app->pApplicationName;
      if (app->pEngineName) state->engine_name = app->pEngineName;
      state->api_version = app->apiVersion;
    }
    for (uint32_t i = 0;
         pCreateInfo->ppEnabledExtensionNames && i < pCreateInfo->enabledExtensionCount; ++i) {
      const char* e = pCreateInfo->ppEnabledExtensionNames[i];
      if (e && std::strcmp(e, VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME) == 0)
        state->properties2_extension = true;
    }
    load_instance_dispatch(&state->dispatch, next_gipa, *pInstance);
    refresh_clock();
    state->object_id = record_object(*state, ObjectType::kInstance, state->handle, Origin::kCreated,
                                     0, ObjectType::kUnknown, 0, callsite);
    {
      std::lock_guard<std::mutex> lock(lifecycle_mutex());
      register_instance(state, dispatch_key(*pInstance));
      note_instance_created();
      if (!passthrough()) start_writer(settings);
    }
    // Trigger files work before the first snapshot (not made after the final one).
    if (!passthrough()) prepare_output_dir(settings.output_dir, settings.file_mode);
    static std::once_flag remove_once;  // registered first: runs after the exit snapshot
    std::call_once(remove_once, [] { std::atexit(remove_empty_output_dirs); });
    install_exit_handler();
    log().info("tracking instance {:#x}; snapshots in '{}'", state->handle,
               shown(settings.output_dir));
  } catch (...) {
    log().error("out of memory while setting up instance tracking; instance not tracked");
  }
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyInstance(VkInstance instance,
                                           const VkAllocationCallbacks* pAllocator) noexcept {
  if (!instance) return;
  InstanceState* state = get_instance_state(instance);
  if (!state) return;
  PFN_vkDestroyInstance next_destroy = state->dispatch.DestroyInstance;
  if (!passthrough()) snapshot_now(SnapshotReason::kInstanceDestroy, nullptr, state, "");
  std::shared_ptr<InstanceState> owner;
  {
    std::lock_guard<std::mutex> lock(lifecycle_mutex());
    owner = unregister_instance(dispatch_key(instance));
    edge_targets_changed();  // a later instance may reuse this one's address and handles
    // The loader unloads the layer after the last instance: the writer must be gone by then.
    if (all_instances().empty()) stop_writer();
  }
  if (next_destroy) next_destroy(instance, pAllocator);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice physicalDevice,
                                            const VkDeviceCreateInfo* pCreateInfo,
                                            const VkAllocationCallbacks* pAllocator,
                                            VkDevice* pDevice) noexcept {
  InstanceState* instance = get_instance_state(physicalDevice);
  auto* link = pCreateInfo ? find_link_info<VkLayerDeviceCreateInfo>(
                                 pCreateInfo, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO)
                           : nullptr;
  if (!instance || !link || !link->u.pLayerInfo) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  PFN_vkGetDeviceProcAddr next_gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  if (!next_gipa || !next_gdpa) return VK_ERROR_INITIALIZATION_FAILED;
  // The next vkCreateDevice, fetched with the real instance.
  auto next_create = reinterpret_cast<PFN_vkCreateDevice>(
      next_gipa(reinterpret_cast<VkInstance>(instance->handle), "vkCreateDevice"));
  if (!next_create) return VK_ERROR_INITIALIZATION_FAILED;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  const CallsiteId callsite = capture_callsite();

  VkPhysicalDeviceProperties props{};  // stays empty where the next layer lacks the command
  instance->dispatch.GetPhysicalDeviceProperties(physicalDevice, &props);
  // The driver's heap budget: VK_EXT_memory_budget enabled below the app where the app did not
  // (it has no commands: the app and the layers above see no difference).
  HeapBudgetPlan budget = passthrough()
                              ? HeapBudgetPlan{}
                              : plan_heap_budget(*instance, physicalDevice, props.apiVersion,
                                                 *pCreateInfo, instance->settings.memory_budget);
  VkResult result = VK_ERROR_INITIALIZATION_FAILED;
  if (budget.layer_enables) {
    // The query does not need the extension enabled (physical-device-level functionality of a
    // device extension the device offers), so the budget is sampled either way.
    result = create_device_with(physicalDevice, *pCreateInfo, kMemoryBudgetExtension, pAllocator,
                                pDevice, next_create, &budget.layer_enables);
  } else {
    result = next_create(physicalDevice, pCreateInfo, pAllocator, pDevice);
  }
  if (result != VK_SUCCESS) return result;  // registered in passthrough too (see CreateInstance)
  try {
    auto state = std::make_shared<DeviceState>();
    state->type = ObjectType::kDevice;
    state->handle = to_u64(*pDevice);
    state->next_gdpa = next_gdpa;
    state->instance = instance;
    state->physical_device = physicalDevice;
    state->frame_boundary = instance->settings.frame_boundary;
    state->snapshot_every = instance->settings.snapshot_every;
    props.deviceName[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE - 1] = '\0';
    state->physical_device_name = props.deviceName;
    load_device_dispatch(&state->dispatch, next_gdpa, *pDevice, next_gipa,
                         reinterpret_cast<VkInstance>(instance->handle));
    refresh_clock();
    state->object_id =
        record_object(*instance, ObjectType::kDevice, state->handle, Origin::kCreated,
                      to_u64(physicalDevice), ObjectType::kPhysicalDevice, 0, callsite);
    forget_destroyed_device(state->handle);  // a new device at a freed address
    state->heap_budget.start(*instance, physicalDevice, budget, 0);
    register_device(state, dispatch_key(*pDevice));
  } catch (...) {
    log().error("out of memory while setting up device tracking; device not tracked");
  }
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyDevice(VkDevice device,
                                         const VkAllocationCallbacks* pAllocator) noexcept {
  if (!device) return;
  // The handle is checked before its dispatch key is read: a destroyed device's memory is gone.
  DestroyedDevice gone;
  if (find_destroyed_device(to_u64(device), &gone)) {
    destroy_device_again(device, gone, pAllocator);
    return;
  }
  DeviceState* state = get_device_state(device);
  if (!state) return;
  PFN_vkDestroyDevice next_destroy = state->dispatch.DestroyDevice;
  // Before calling down: what is alive now is exactly what the app leaked on this device.
  if (!passthrough()) {
    state->heap_budget.sample(state->frame.load(std::memory_order_relaxed));
    snapshot_now(SnapshotReason::kDeviceDestroy, state, nullptr, "");
  }
  if (state->instance) on_destroy(*state->instance, ObjectType::kDevice, state->handle);
  remember_destroyed_device(
      {state->handle, next_destroy,
       state->instance ? dispatch_key(reinterpret_cast<void*>(state->instance->handle)) : nullptr});
  std::shared_ptr<DeviceState> owner = unregister_device(dispatch_key(device));
  g_command_refs_generation.fetch_add(1, std::memory_order_release);  // per-thread caches
  edge_targets_changed();  // a later device may reuse this one's address and handle values
  g_descriptor_layouts_generation.fetch_add(1, std::memory_order_release);  // the same
  if (next_destroy) next_destroy(device, pAllocator);
}

VKAPI_ATTR VkResult VKAPI_CALL
EnumeratePhysicalDevices(VkInstance instance, uint32_t* pPhysicalDeviceCount,
                         VkPhysicalDevice* pPhysicalDevices) noexcept {
  InstanceState* state = get_instance_state(instance);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result =
      state->dispatch.EnumeratePhysicalDevices(instance, pPhysicalDeviceCount, pPhysicalDevices);
  if ((result == VK_SUCCESS || result == VK_INCOMPLETE) && pPhysicalDevices &&
      pPhysicalDeviceCount) {
    for (uint32_t i = 0; i < *pPhysicalDeviceCount; ++i)
      on_create(*state, ObjectType::kPhysicalDevice, to_u64(pPhysicalDevices[i]),
                Origin::kRetrieved, state->handle, ObjectType::kInstance, 0, kNoCallsite);
  }
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL EnumeratePhysicalDeviceGroups(
    VkInstance instance, uint32_t* pPhysicalDeviceGroupCount,
    VkPhysicalDeviceGroupProperties* pPhysicalDeviceGroupProperties) noexcept {
  InstanceState* state = get_instance_state(instance);
  if (!state) return VK_ERROR_INITIALIZATION_FAILED;
  VkResult result = state->dispatch.EnumeratePhysicalDeviceGroups(
      instance, pPhysicalDeviceGroupCount, pPhysicalDeviceGroupProperties);
  if ((result == VK_SUCCESS || result == VK_INCOMPLETE) && pPhysicalDeviceGroupProperties &&
      pPhysicalDeviceGroupCount) {
    for (uint32_t g = 0; g < *pPhysicalDeviceGroupCount; ++g) {
      const auto& group = pPhysicalDeviceGroupProperties[g];
      for (uint32_t i = 0; i < group.physicalDeviceCount && i < VK_MAX_DEVICE_GROUP_SIZE; ++i)
        on_create(*state, ObjectType::kPhysicalDevice, to_u64(group.physicalDevices[i]),
                  Origin::kRetrieved, state->handle, ObjectType::kInstance, 0, kNoCallsite);
    }
  }
  return result;
}

VKAPI_ATTR void VKAPI_CALL GetDeviceQueue(VkDevice device, uint32_t queueFamilyIndex,
                                          uint32_t queueIndex, VkQueue* pQueue) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return;
  state->dispatch.GetDeviceQueue(device, queueFamilyIndex, queueIndex, pQueue);
  if (pQueue && *pQueue) state->submissions.queue(*pQueue);
  if (pQueue)
    on_create(*state, ObjectType::kQueue, to_u64(*pQueue), Origin::kRetrieved, state->handle,
              ObjectType::kDevice, 0, kNoCallsite);
}

VKAPI_ATTR void VKAPI_CALL GetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2* pQueueInfo,
                                           VkQueue* pQueue) noexcept {
  DeviceState* state = get_device_state(device);
  if (!state) return;
  state->dispatch.GetDeviceQueue2(device, pQueueInfo, pQueue);
  if (pQueue && *pQueue) state->submissions.queue(*pQueue);
  if (pQueue)
    on_create(*state, ObjectType::kQueue, to_u64(*pQueue), Origin::kRetrieved, state->handle,
              ObjectType::kDevice, 0, kNoCallsite);
}

}  // namespace manual
}  // namespace vkleak
