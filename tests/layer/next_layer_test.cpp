// The layer over a next layer that lacks commands: no hook may call a null pointer, whatever
// the chain below provides and however the hook was handed out. The layer is loaded as the
// loader loads it (dlopen, negotiation, the link info in the create infos); below it is this
// test's own minimal "next layer". Every hooked command is called (generated from vk.xml:
// hook_calls.inc), so a command added to the registry is covered without editing this file.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

enum class Level { kGlobal, kInstance, kDevice };
constexpr int64_t kNoResult = INT64_MIN;

// A dispatchable handle: the loader's dispatch pointer is its first word, and the layer finds
// its state by that word.
struct Dispatchable {
  const void* key;
};

struct HookArgs {
  VkInstance instance;
  VkPhysicalDevice physical_device;
  VkDevice device;
  VkQueue queue;
  VkCommandBuffer command_buffer;
  // Zeroed memory for every pointer parameter: counts read 0, pNext and arrays null.
  struct Memory {
    void* p;
    template <typename T>
    operator T*() const {
      return static_cast<T*>(p);
    }
  };
  Memory memory() const {
    alignas(64) static unsigned char zeros[1 << 16];
    std::memset(zeros, 0, sizeof zeros);  // hooks and the layers below may have written
    return {zeros};
  }
  // A non-dispatchable handle the layer never saw.
  struct Unknown {
    template <typename T>
    operator T*() const {
      return reinterpret_cast<T*>(uintptr_t{0xdead0});
    }
  };
  Unknown unknown_handle() const { return {}; }
};

struct HookCall {
  const char* name;
  Level level;
  bool instance_extension_fallback;  // fetched with vkGetInstanceProcAddr where GDPA lacks it
  int64_t (*call)(PFN_vkVoidFunction f, const HookArgs& a);
};

#include "hook_calls.inc"

// --- The next layer -----------------------------------------------------------------------

// What the next layer's vkGetInstanceProcAddr answers beyond the basics: nothing, or a generic
// function for every name (as the loader's terminator answers debug-utils names whether or not
// the extension is enabled, while its vkGetDeviceProcAddr gives null for them).
enum class NextHas { kBare, kInstanceAnswersEverything };
NextHas g_below = NextHas::kBare;
int g_calls_below = 0;
std::string g_last_below;

const void* const kInstanceKey = "instance dispatch";
const void* const kDeviceKey = "device dispatch";
Dispatchable g_instance{kInstanceKey}, g_physical_device{kInstanceKey};
Dispatchable g_device{kDeviceKey}, g_queue{kDeviceKey}, g_command_buffer{kDeviceKey};

// Stands for any command below: called through pointers of every signature (the x86-64 SysV
// convention makes that harmless for a function that reads no arguments); returns VK_SUCCESS.
int64_t any_command_below() {
  ++g_calls_below;
  return 0;
}

VKAPI_ATTR VkResult VKAPI_CALL next_create_instance(const VkInstanceCreateInfo*,
                                                    const VkAllocationCallbacks*, VkInstance* out) {
  *out = reinterpret_cast<VkInstance>(&g_instance);
  return VK_SUCCESS;
}
VKAPI_ATTR void VKAPI_CALL next_destroy_instance(VkInstance, const VkAllocationCallbacks*) {}
VKAPI_ATTR VkResult VKAPI_CALL next_create_device(VkPhysicalDevice, const VkDeviceCreateInfo*,
                                                  const VkAllocationCallbacks*, VkDevice* out) {
  *out = reinterpret_cast<VkDevice>(&g_device);
  return VK_SUCCESS;
}
VKAPI_ATTR void VKAPI_CALL next_destroy_device(VkDevice, const VkAllocationCallbacks*) {}
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL next_gdpa(VkDevice, const char* name);

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL next_gipa(VkInstance, const char* name) {
  if (!std::strcmp(name, "vkCreateInstance"))
    return reinterpret_cast<PFN_vkVoidFunction>(&next_create_instance);
  if (!std::strcmp(name, "vkDestroyInstance"))
    return reinterpret_cast<PFN_vkVoidFunction>(&next_destroy_instance);
  if (!std::strcmp(name, "vkCreateDevice"))
    return reinterpret_cast<PFN_vkVoidFunction>(&next_create_device);
  if (!std::strcmp(name, "vkGetInstanceProcAddr"))
    return reinterpret_cast<PFN_vkVoidFunction>(&next_gipa);
  if (!std::strcmp(name, "vkGetDeviceProcAddr"))
    return reinterpret_cast<PFN_vkVoidFunction>(&next_gdpa);
  if (g_below == NextHas::kInstanceAnswersEverything)
    return reinterpret_cast<PFN_vkVoidFunction>(&any_command_below);
  return nullptr;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL next_gdpa(VkDevice, const char* name) {
  if (!std::strcmp(name, "vkDestroyDevice"))
    return reinterpret_cast<PFN_vkVoidFunction>(&next_destroy_device);
  if (!std::strcmp(name, "vkGetDeviceProcAddr"))
    return reinterpret_cast<PFN_vkVoidFunction>(&next_gdpa);
  return nullptr;
}

// --- The layer, loaded as the loader loads it --------------------------------------------

// The built layer, or another copy of it (VKLEAK_TEST_LAYER: a machine the tree was copied to).
const char* layer_path() {
  const char* path = std::getenv("VKLEAK_TEST_LAYER");
  return path && *path ? path : VKLEAK_LAYER_PATH;
}

struct Layer {
  PFN_vkGetInstanceProcAddr gipa = nullptr;
  PFN_vkGetDeviceProcAddr gdpa = nullptr;

  static Layer& get() {
    static Layer layer = load();
    return layer;
  }

  static Layer load() {
    Layer l;
    void* lib = dlopen(layer_path(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) return l;
    auto negotiate = reinterpret_cast<PFN_vkNegotiateLoaderLayerInterfaceVersion>(
        dlsym(lib, "vkNegotiateLoaderLayerInterfaceVersion"));
    VkNegotiateLayerInterface v{
        LAYER_NEGOTIATE_INTERFACE_STRUCT, nullptr, 2, nullptr, nullptr, nullptr};
    if (!negotiate || negotiate(&v) != VK_SUCCESS) return l;
    l.gipa = v.pfnGetInstanceProcAddr;
    l.gdpa = v.pfnGetDeviceProcAddr;
    return l;
  }

  // An instance and a device of the layer's over the next layer as g_below says.
  HookArgs create(NextHas below) {
    g_below = below;
    VkLayerInstanceLink ilink{nullptr, &next_gipa, nullptr};
    VkLayerInstanceCreateInfo ilayer{};
    ilayer.sType = VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO;
    ilayer.function = VK_LAYER_LINK_INFO;
    ilayer.u.pLayerInfo = &ilink;
    VkInstanceCreateInfo ici{};
    ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ici.pNext = &ilayer;
    VkInstance instance = VK_NULL_HANDLE;
    auto create_instance =
        reinterpret_cast<PFN_vkCreateInstance>(gipa(VK_NULL_HANDLE, "vkCreateInstance"));
    EXPECT_EQ(create_instance(&ici, nullptr, &instance), VK_SUCCESS);

    VkLayerDeviceLink dlink{nullptr, &next_gipa, &next_gdpa};
    VkLayerDeviceCreateInfo dlayer{};
    dlayer.sType = VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO;
    dlayer.function = VK_LAYER_LINK_INFO;
    dlayer.u.pLayerInfo = &dlink;
    VkDeviceCreateInfo dci{};
    dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    dci.pNext = &dlayer;
    VkDevice device = VK_NULL_HANDLE;
    // As MangoHud and vkBasalt fetch it: with no instance.
    auto create_device =
        reinterpret_cast<PFN_vkCreateDevice>(gipa(VK_NULL_HANDLE, "vkCreateDevice"));
    EXPECT_NE(create_device, nullptr);
    if (create_device) {
      EXPECT_EQ(create_device(reinterpret_cast<VkPhysicalDevice>(&g_physical_device), &dci, nullptr,
                              &device),
                VK_SUCCESS);
    }
    return {instance, reinterpret_cast<VkPhysicalDevice>(&g_physical_device), device,
            reinterpret_cast<VkQueue>(&g_queue),
            reinterpret_cast<VkCommandBuffer>(&g_command_buffer)};
  }

  void destroy(const HookArgs& a) {
    auto destroy_device = reinterpret_cast<PFN_vkDestroyDevice>(gdpa(a.device, "vkDestroyDevice"));
    ASSERT_NE(destroy_device, nullptr);
    destroy_device(a.device, nullptr);
    auto destroy_instance =
        reinterpret_cast<PFN_vkDestroyInstance>(gipa(a.instance, "vkDestroyInstance"));
    ASSERT_NE(destroy_instance, nullptr);
    destroy_instance(a.instance, nullptr);
  }
};

bool is_lifecycle(const char* name) {
  for (const char* n :
       {"vkCreateInstance", "vkDestroyInstance", "vkCreateDevice", "vkDestroyDevice"})
    if (!std::strcmp(name, n)) return true;
  return false;
}

class NextLayerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char dir[] = "/tmp/vkleak-next-layer-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    setenv("VKLEAK_OUTPUT_DIR", dir, 1);
    setenv("VKLEAK_SNAPSHOT_AT_EXIT", "false", 1);
    setenv("VKLEAK_LOG_LEVEL", "error", 1);
  }
  void SetUp() override {
    ASSERT_NE(Layer::get().gipa, nullptr)
        << "cannot load " << VKLEAK_LAYER_PATH << ": " << dlerror();
  }
};

TEST_F(NextLayerTest, EveryCommandIsListed) {
  // The generated list is the whole hook table: a few commands of each kind must be there.
  std::vector<std::string> names;
  for (const HookCall& c : kHookCalls) names.push_back(c.name);
  for (const char* expected :
       {"vkCreateBuffer", "vkDestroyBuffer", "vkAllocateDescriptorSets", "vkQueueSubmit",
        "vkSetDebugUtilsObjectNameEXT", "vkQueueInsertDebugUtilsLabelEXT",
        "vkCmdBindDescriptorSets", "vkGetSwapchainImagesKHR", "vkEnumeratePhysicalDevices"})
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  EXPECT_GT(names.size(), 150u);
}

TEST_F(NextLayerTest, HooksAreHandedOutOnlyForWhatTheNextLayerHas) {
  Layer& layer = Layer::get();
  HookArgs a = layer.create(NextHas::kBare);
  for (const HookCall& c : kHookCalls) {
    if (is_lifecycle(c.name)) continue;
    EXPECT_EQ(layer.gipa(a.instance, c.name), nullptr) << c.name;
    if (c.level == Level::kDevice) {
      EXPECT_EQ(layer.gdpa(a.device, c.name), nullptr) << c.name;
    }
  }
  // Its own entry points and what the next layer has are always answered.
  EXPECT_NE(layer.gipa(a.instance, "vkGetInstanceProcAddr"), nullptr);
  EXPECT_NE(layer.gdpa(a.device, "vkGetDeviceProcAddr"), nullptr);
  EXPECT_NE(layer.gdpa(a.device, "vkDestroyDevice"), nullptr);
  // Instance-level names are not device commands.
  EXPECT_EQ(layer.gdpa(a.device, "vkCreateDevice"), nullptr);
  // With no instance: our hooks (as the validation layer answers), nothing else.
  EXPECT_NE(layer.gipa(VK_NULL_HANDLE, "vkCreateDevice"), nullptr);
  EXPECT_NE(layer.gipa(VK_NULL_HANDLE, "vkCreateInstance"), nullptr);
  EXPECT_EQ(layer.gipa(VK_NULL_HANDLE, "vkNotACommandAtAll"), nullptr);
  layer.destroy(a);
}

// The libplacebo case, for every hooked command: the loader fills a device's dispatch table
// with our vkGetInstanceProcAddr's answers for debug-utils names, and the next layer answers
// them there but not through vkGetDeviceProcAddr. Whatever the layer handed out must be safe
// to call: each hook calls down once where the chain below has the command (the debug-utils
// names fall back to the instance's answer, as the loader fetches them), and otherwise gets
// what the loader gives for a missing command.
TEST_F(NextLayerTest, EveryHookIsSafeWhereTheNextLayerLacksItsCommand) {
  Layer& layer = Layer::get();
  HookArgs a = layer.create(NextHas::kInstanceAnswersEverything);
  int called = 0;
  for (const HookCall& c : kHookCalls) {
    if (is_lifecycle(c.name)) continue;
    PFN_vkVoidFunction f = layer.gipa(a.instance, c.name);
    ASSERT_NE(f, nullptr) << c.name << ": the next layer answers every name";
    g_calls_below = 0;
    const int64_t result = c.call(f, a);
    ++called;
    if (c.level == Level::kInstance || c.instance_extension_fallback) {
      EXPECT_EQ(g_calls_below, 1) << c.name << " must call down once";
    } else {
      EXPECT_EQ(g_calls_below, 0) << c.name << " called a command the device chain lacks";
      if (result != kNoResult) {
        EXPECT_EQ(result, VK_ERROR_EXTENSION_NOT_PRESENT) << c.name;
      }
    }
  }
  EXPECT_GT(called, 150);
  layer.destroy(a);
}

}  // namespace
