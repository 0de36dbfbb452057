/* The C API of vkleak.h from C99, on the real loader and lavapipe: run with the layer
 * (argv[1] "layer") and without it ("none"). Exits 0 when every check holds, else prints what
 * failed and exits 1.
 *   scope:    a scope that creates 3 buffers and destroys 1 made before it sees exactly 3,
 *             their names and call sites, oldest first; a short array gets the count anyway
 *   threads:  the same while 2 other threads create and destroy buffers of their own (each
 *             holding 4 alive while the scope looks)
 *   snapshot: vkleak_snapshot() writes a snapshot (0), or is a no-op returning 0
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vkleak/vkleak.h>

static int g_failures = 0;
#define CHECK(cond, ...)                                     \
  do {                                                       \
    if (!(cond)) {                                           \
      fprintf(stderr, "FAILED %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                          \
      fprintf(stderr, "\n");                                 \
      ++g_failures;                                          \
    }                                                        \
  } while (0)

static VkInstance g_instance;
static VkDevice g_device;
static PFN_vkSetDebugUtilsObjectNameEXT g_set_name;

static int setup(void) {
  VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "vkleak_api_c_test";
  app.apiVersion = VK_API_VERSION_1_1;
  const char* ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  ici.enabledExtensionCount = 1;
  ici.ppEnabledExtensionNames = &ext;
  if (vkCreateInstance(&ici, NULL, &g_instance) != VK_SUCCESS) return 0;
  uint32_t count = 1;
  VkPhysicalDevice pd;
  if (vkEnumeratePhysicalDevices(g_instance, &count, &pd) < 0 || count == 0) return 0;
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qci = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  if (vkCreateDevice(pd, &dci, NULL, &g_device) != VK_SUCCESS) return 0;
  g_set_name = (PFN_vkSetDebugUtilsObjectNameEXT)vkGetInstanceProcAddr(
      g_instance, "vkSetDebugUtilsObjectNameEXT");
  return 1;
}

static VkBuffer make_buffer(const char* name) {
  VkBufferCreateInfo bci = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = 256;
  bci.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  VkBuffer b = VK_NULL_HANDLE;
  if (vkCreateBuffer(g_device, &bci, NULL, &b) != VK_SUCCESS) return VK_NULL_HANDLE;
  if (name && g_set_name) {
    VkDebugUtilsObjectNameInfoEXT n = {VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
    n.objectType = VK_OBJECT_TYPE_BUFFER;
    n.objectHandle = (uint64_t)b;
    n.pObjectName = name;
    g_set_name(g_device, &n);
  }
  return b;
}

/* 3 made, 1 made before destroyed: exactly the 3, oldest first. */
static void scope(int layer, const char* what) {
  VkBuffer before = make_buffer("api.before");
  const uint64_t cp = vkleak_checkpoint(g_device);
  CHECK(layer ? cp != 0 : cp == 0, "%s: checkpoint %llu", what, (unsigned long long)cp);
  VkBuffer made[3];
  made[0] = make_buffer("api.scope.0");
  made[1] = make_buffer("api.scope.1");
  made[2] = make_buffer(NULL);
  vkDestroyBuffer(g_device, before, NULL);
  vkleak_object out[8];
  memset(out, 0, sizeof out);
  const uint32_t n = vkleak_live_since(g_device, cp, out, 8);
  CHECK(n == (layer ? 3u : 0u), "%s: %u objects live since the checkpoint", what, n);
  if (layer && n == 3) {
    for (int i = 0; i < 3; ++i) {
      CHECK(out[i].type == VK_OBJECT_TYPE_BUFFER, "%s: type %d", what, (int)out[i].type);
      CHECK(out[i].handle == (uint64_t)made[i], "%s: object %d is not the %dth made", what, i, i);
      CHECK(out[i].call_site != NULL && out[i].call_site[0] != '\0', "%s: no call site", what);
    }
    CHECK(out[0].name && strcmp(out[0].name, "api.scope.0") == 0, "%s: name %s", what,
          out[0].name ? out[0].name : "(null)");
    CHECK(out[2].name == NULL, "%s: an unnamed buffer has a name", what);
    CHECK(out[0].call_site && strstr(out[0].call_site, "api_c_test"),
          "%s: call site %s is not this program's", what, out[0].call_site);
    vkleak_object one;
    CHECK(vkleak_live_since(g_device, cp, &one, 1) == 3, "%s: count with capacity 1", what);
    CHECK(one.handle == (uint64_t)made[0], "%s: capacity 1 gets the oldest", what);
  }
  for (int i = 0; i < 3; ++i) vkDestroyBuffer(g_device, made[i], NULL);
  CHECK(vkleak_live_since(g_device, cp, NULL, 0) == 0, "%s: destroyed objects still counted", what);
}

static pthread_barrier_t g_holding, g_looked;

static void* churn(void* arg) {
  (void)arg;
  for (int round = 0; round < 50; ++round) {
    VkBuffer b = make_buffer("api.other");
    vkDestroyBuffer(g_device, b, NULL);
  }
  VkBuffer held[4];
  for (int i = 0; i < 4; ++i) held[i] = make_buffer("api.other.held");
  pthread_barrier_wait(&g_holding); /* alive while the scope looks */
  pthread_barrier_wait(&g_looked);
  for (int i = 0; i < 4; ++i) vkDestroyBuffer(g_device, held[i], NULL);
  for (int round = 0; round < 50; ++round) {
    VkBuffer b = make_buffer(NULL);
    vkDestroyBuffer(g_device, b, NULL);
  }
  return NULL;
}

static void threads(int layer) {
  pthread_barrier_init(&g_holding, NULL, 3);
  pthread_barrier_init(&g_looked, NULL, 3);
  pthread_t t[2];
  const uint64_t cp = vkleak_checkpoint(g_device);
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, churn, NULL);
  VkBuffer made[3];
  for (int i = 0; i < 3; ++i) made[i] = make_buffer("api.threads");
  pthread_barrier_wait(&g_holding);
  const uint32_t n = vkleak_live_since(g_device, cp, NULL, 0);
  pthread_barrier_wait(&g_looked);
  CHECK(n == (layer ? 3u : 0u), "threads: %u objects live since the checkpoint", n);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  for (int i = 0; i < 3; ++i) vkDestroyBuffer(g_device, made[i], NULL);
  pthread_barrier_destroy(&g_holding);
  pthread_barrier_destroy(&g_looked);
}

static int count_snapshots(const char* dir, const char* label_part) {
  int n = 0;
  DIR* d = dir ? opendir(dir) : NULL;
  if (!d) return 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL)
    if (strstr(e->d_name, label_part) && strstr(e->d_name, ".json") && e->d_name[0] != '.') ++n;
  closedir(d);
  return n;
}

static void snapshot(int layer) {
  const char* dir = getenv("VKLEAK_OUTPUT_DIR");
  const int before = count_snapshots(dir, "-trigger.json");
  const int rc = vkleak_snapshot(g_device, "api.c");
  CHECK(rc == 0, "snapshot: returned %d", rc);
  const int after = count_snapshots(dir, "-trigger.json");
  CHECK(after == before + (layer ? 1 : 0), "snapshot: %d trigger snapshots, %d before", after,
        before);
}

int main(int argc, char** argv) {
  if (argc != 2 || (strcmp(argv[1], "layer") != 0 && strcmp(argv[1], "none") != 0)) {
    fprintf(stderr, "usage: %s layer|none\n", argv[0]);
    return 2;
  }
  const int layer = strcmp(argv[1], "layer") == 0;
  /* A device that failed to initialize: no-ops returning 0, not a crash in the loader. */
  CHECK(vkleak_checkpoint(VK_NULL_HANDLE) == 0, "checkpoint of a null device");
  CHECK(vkleak_live_since(VK_NULL_HANDLE, 1, NULL, 0) == 0, "live_since of a null device");
  CHECK(vkleak_snapshot(VK_NULL_HANDLE, "null") == 0, "snapshot of a null device");
  if (!setup()) {
    fprintf(stderr, "cannot create a Vulkan device\n");
    return 1;
  }
  scope(layer, "scope");
  scope(layer, "scope again"); /* a second checkpoint on the same thread */
  threads(layer);
  snapshot(layer);
  vkDestroyDevice(g_device, NULL);
  vkDestroyInstance(g_instance, NULL);
  if (g_failures) return 1;
  printf("api_c_test %s: all checks held\n", argv[1]);
  return 0;
}
