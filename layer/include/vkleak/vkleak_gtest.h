// vkleak_gtest.h: a GoogleTest guard over vkleak.h. A scope that leaves GPU objects alive fails
// the test it runs in, listing each object with its call site.
//
//   TEST(Renderer, UploadsFreeTheirStaging) {
//     vkleak::LeakGuard guard(device);      // objects this thread creates from here on...
//     guard.allow_type(VK_OBJECT_TYPE_PIPELINE_CACHE);  // ...except warm-up caches
//     renderer.upload(mesh);
//   }                                        // ...must be gone here, or the test fails
//
// Without the vkleak layer the guard checks nothing (active() is false): the first such guard of
// the process says so once on stderr, and with VKLEAK_REQUIRE=1 in the environment every such
// guard fails its test ("vkleak layer not loaded"), so that a CI job that lost the layer cannot
// stay green.
#ifndef VKLEAK_VKLEAK_GTEST_H
#define VKLEAK_VKLEAK_GTEST_H

#include <gtest/gtest.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "vkleak.h"

namespace vkleak {

// "VkBuffer" for the common types, "VkObjectType 1000xxx" for the others.
inline std::string object_type_name(VkObjectType type) {
  switch (type) {
    case VK_OBJECT_TYPE_BUFFER:
      return "VkBuffer";
    case VK_OBJECT_TYPE_IMAGE:
      return "VkImage";
    case VK_OBJECT_TYPE_DEVICE_MEMORY:
      return "VkDeviceMemory";
    case VK_OBJECT_TYPE_BUFFER_VIEW:
      return "VkBufferView";
    case VK_OBJECT_TYPE_IMAGE_VIEW:
      return "VkImageView";
    case VK_OBJECT_TYPE_SAMPLER:
      return "VkSampler";
    case VK_OBJECT_TYPE_DESCRIPTOR_SET:
      return "VkDescriptorSet";
    case VK_OBJECT_TYPE_DESCRIPTOR_POOL:
      return "VkDescriptorPool";
    case VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT:
      return "VkDescriptorSetLayout";
    case VK_OBJECT_TYPE_PIPELINE:
      return "VkPipeline";
    case VK_OBJECT_TYPE_PIPELINE_LAYOUT:
      return "VkPipelineLayout";
    case VK_OBJECT_TYPE_PIPELINE_CACHE:
      return "VkPipelineCache";
    case VK_OBJECT_TYPE_SHADER_MODULE:
      return "VkShaderModule";
    case VK_OBJECT_TYPE_RENDER_PASS:
      return "VkRenderPass";
    case VK_OBJECT_TYPE_FRAMEBUFFER:
      return "VkFramebuffer";
    case VK_OBJECT_TYPE_COMMAND_POOL:
      return "VkCommandPool";
    case VK_OBJECT_TYPE_COMMAND_BUFFER:
      return "VkCommandBuffer";
    case VK_OBJECT_TYPE_FENCE:
      return "VkFence";
    case VK_OBJECT_TYPE_SEMAPHORE:
      return "VkSemaphore";
    case VK_OBJECT_TYPE_EVENT:
      return "VkEvent";
    case VK_OBJECT_TYPE_QUERY_POOL:
      return "VkQueryPool";
    case VK_OBJECT_TYPE_SWAPCHAIN_KHR:
      return "VkSwapchainKHR";
    default:
      return "VkObjectType " + std::to_string(static_cast<int64_t>(type));
  }
}

class LeakGuard {
 public:
  // The failure is reported at the line that declares the guard.
  explicit LeakGuard(VkDevice device, const char* file = __builtin_FILE(),
                     int line = __builtin_LINE())
      : device_(device), checkpoint_(vkleak_checkpoint(device)), file_(file), line_(line) {
    if (!active()) say_inactive();
  }
  LeakGuard(const LeakGuard&) = delete;
  LeakGuard& operator=(const LeakGuard&) = delete;
  ~LeakGuard() {
    if (!checked_) check();
  }

  // What may stay alive (warm-up objects): every object of a type, objects whose debug name
  // starts with a prefix, or up to `count` objects of any kind.
  LeakGuard& allow_type(VkObjectType type) {
    allowed_types_.push_back(type);
    return *this;
  }
  LeakGuard& allow_name_prefix(std::string prefix) {
    allowed_prefixes_.push_back(std::move(prefix));
    return *this;
  }
  LeakGuard& allow_count(uint32_t count) {
    allowed_count_ = count;
    return *this;
  }

  // False without the layer: nothing is checked.
  bool active() const { return checkpoint_ != 0; }

  // Objects created on this thread since the guard began, alive now, not allowed (their strings
  // are copied: valid as long as the returned vector).
  struct Object {
    VkObjectType type;
    uint64_t handle;
    std::string name;  // empty if none
    uint64_t bytes;
    std::string call_site;  // empty when call sites are off
  };
  std::vector<Object> leaked() const {
    std::vector<Object> out;
    if (!active()) return out;
    std::vector<vkleak_object> objects(64);
    uint32_t n = vkleak_live_since(device_, checkpoint_, objects.data(), 64);
    if (n > objects.size()) {
      objects.resize(n);
      n = vkleak_live_since(device_, checkpoint_, objects.data(), n);
      if (n > objects.size()) n = static_cast<uint32_t>(objects.size());
    }
    for (uint32_t i = 0; i < n; ++i) {
      const vkleak_object& o = objects[i];
      if (allowed(o)) continue;
      out.push_back(
          {o.type, o.handle, o.name ? o.name : "", o.bytes, o.call_site ? o.call_site : ""});
    }
    if (out.size() <= allowed_count_) out.clear();
    return out;
  }

  // Fails the current test when objects leaked (once; the destructor calls it otherwise).
  void check() {
    checked_ = true;
    const std::vector<Object> objects = leaked();
    if (objects.empty()) return;
    std::string text = std::to_string(objects.size()) +
                       " GPU object(s) created in this scope are "
                       "still alive (vkleak):";
    for (const Object& o : objects) {
      char handle[32];
      std::snprintf(handle, sizeof handle, "0x%" PRIx64, o.handle);
      text += "\n  " + object_type_name(o.type) + " " + handle;
      if (!o.name.empty()) text += " \"" + o.name + "\"";
      if (o.bytes) text += ", " + std::to_string(o.bytes) + " bytes";
      text += o.call_site.empty() ? std::string(", call site not recorded")
                                  : ", created at " + o.call_site;
    }
    text +=
        "\n(a call site module+0xoffset: `addr2line -f -i -C -e <module> <offset>` gives its "
        "line; `vkleak report` on a vkleak_snapshot() shows whole stacks)";
    ADD_FAILURE_AT(file_, line_) << text;
  }

 private:
  // A guard that checks nothing: fails under VKLEAK_REQUIRE=1, else says so once per process.
  void say_inactive() const {
    const char* require = std::getenv("VKLEAK_REQUIRE");
    if (require && std::string(require) == "1") {
      ADD_FAILURE_AT(file_, line_)
          << "vkleak layer not loaded: this leak guard checks nothing (VKLEAK_REQUIRE=1 is set; "
             "run the tests under `vkleak run --` or with VK_INSTANCE_LAYERS="
             "VK_LAYER_VKLEAK_tracker)";
      return;
    }
    static std::atomic<bool> said{false};
    if (!said.exchange(true))
      std::fprintf(stderr,
                   "vkleak: leak guards are inactive: the vkleak layer is not loaded (or the "
                   "device is VK_NULL_HANDLE); VKLEAK_REQUIRE=1 makes them fail instead\n");
  }

  bool allowed(const vkleak_object& o) const {
    for (VkObjectType t : allowed_types_)
      if (t == o.type) return true;
    if (o.name) {
      for (const std::string& p : allowed_prefixes_)
        if (std::string(o.name).compare(0, p.size(), p) == 0) return true;
    }
    return false;
  }

  VkDevice device_;
  uint64_t checkpoint_;
  const char* file_;
  int line_;
  bool checked_ = false;
  std::vector<VkObjectType> allowed_types_;
  std::vector<std::string> allowed_prefixes_;
  uint32_t allowed_count_ = 0;
};

}  // namespace vkleak

#endif  // VKLEAK_VKLEAK_GTEST_H
