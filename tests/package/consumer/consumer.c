/* A program of a vkleak user, built against an installed vkleak (tests/package): it creates an
 * instance and a device, leaks one named buffer inside a checkpoint and checks that
 * vkleak_live_since sees exactly that buffer.
 *   consumer EXPECTED   EXPECTED: 1 under the layer, 0 without it (every call a no-op)
 * Exits 0 when the count is EXPECTED, 1 when not, 2 when no Vulkan device could be made. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vkleak/vkleak.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s EXPECTED\n", argv[0]);
    return 2;
  }
  const unsigned expected = (unsigned)atoi(argv[1]);
  VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "vkleak_consumer";
  app.apiVersion = VK_API_VERSION_1_1;
  const char* ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  ici.enabledExtensionCount = 1;
  ici.ppEnabledExtensionNames = &ext;
  VkInstance instance;
  if (vkCreateInstance(&ici, NULL, &instance) != VK_SUCCESS) return 2;
  uint32_t count = 1;
  VkPhysicalDevice pd;
  if (vkEnumeratePhysicalDevices(instance, &count, &pd) < 0 || count == 0) return 2;
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qci = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  VkDevice device;
  if (vkCreateDevice(pd, &dci, NULL, &device) != VK_SUCCESS) return 2;

  const uint64_t checkpoint = vkleak_checkpoint(device);
  VkBufferCreateInfo bci = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = 4096;
  bci.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  VkBuffer leaked;
  if (vkCreateBuffer(device, &bci, NULL, &leaked) != VK_SUCCESS) return 2;
  PFN_vkSetDebugUtilsObjectNameEXT set_name =
      (PFN_vkSetDebugUtilsObjectNameEXT)vkGetInstanceProcAddr(instance,
                                                              "vkSetDebugUtilsObjectNameEXT");
  if (set_name) {
    VkDebugUtilsObjectNameInfoEXT name = {VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
    name.objectType = VK_OBJECT_TYPE_BUFFER;
    name.objectHandle = (uint64_t)leaked;
    name.pObjectName = "consumer.leaked";
    set_name(device, &name);
  }
  /* The leak: never destroyed. */
  vkleak_object live[4];
  memset(live, 0, sizeof live);
  const uint32_t n = vkleak_live_since(device, checkpoint, live, 4);
  printf("consumer: %u object(s) live since the checkpoint\n", n);
  int ok = n == expected;
  if (ok && n == 1)
    ok = live[0].type == VK_OBJECT_TYPE_BUFFER && live[0].handle == (uint64_t)leaked &&
         live[0].name != NULL && strcmp(live[0].name, "consumer.leaked") == 0;
  if (!ok) fprintf(stderr, "consumer: expected %u: the leaked buffer\n", expected);

  vkDestroyDevice(device, NULL);
  vkDestroyInstance(instance, NULL);
  return ok ? 0 : 1;
}
