// The one Vulkan harness of the test scenarios (tests/scenarios) and the benchmarks (bench/):
// errors, instance and device creation, debug names and labels, and resource helpers. It lives
// beside both, not inside either, so that neither bench/ nor tests/scenarios depends on the other.
//
// Every Vulkan error ends the program: a message on stderr, exit code 1. Nothing is destroyed
// implicitly: the programs tear down explicitly what they own (and scenarios deliberately leave
// what their incident leaks), so that what is alive at vkDestroyDevice is exactly what they say.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace harness {

// ---------------------------------------------------------------------------------------------
// Errors

const char* result_name(VkResult result);

// Prints "error: <what> failed: <result> (<code>) at <file>:<line>" on stderr and exits with
// code 1.
[[noreturn]] void fail_vk(VkResult result, const char* what, const char* file, int line);
// Prints "error: <message>" on stderr and exits with code 1.
[[noreturn]] void fail(const std::string& message);

#define VK_CHECK(expr)                                                 \
  do {                                                                 \
    VkResult vk_check_result_ = (expr);                                \
    if (vk_check_result_ != VK_SUCCESS) {                              \
      ::harness::fail_vk(vk_check_result_, #expr, __FILE__, __LINE__); \
    }                                                                  \
  } while (0)

template <typename H>
inline uint64_t handle_u64(H handle) {
  if constexpr (std::is_pointer_v<H>) {
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handle));
  } else {
    return static_cast<uint64_t>(handle);
  }
}

// ---------------------------------------------------------------------------------------------
// Context: instance, physical device, device, one graphics+compute queue

struct ContextConfig {
  std::string app_name;
  uint32_t app_version = 0;
  std::string engine_name;  // empty: none
  // The instance's apiVersion: this, or less where the loader is older (at least Vulkan 1.1).
  uint32_t max_api_version = VK_API_VERSION_1_3;
  // Required extensions (the program fails without them), then optional ones (enabled where
  // available). VK_EXT_debug_utils is always enabled where available.
  std::vector<const char*> instance_extensions;
  std::vector<const char*> device_extensions;
  std::vector<const char*> optional_instance_extensions;
  std::vector<const char*> optional_device_extensions;
  // Enables timelineSemaphore, samplerYcbcrConversion and privateData where supported.
  bool enable_features = true;
  // false: name() is a no-op (the benchmarks measure a program that names nothing).
  bool object_names = true;
};

class Context {
 public:
  explicit Context(const ContextConfig& config);
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // vkDeviceWaitIdle, vkDestroyDevice, vkDestroyInstance. Not called implicitly.
  void destroy();

  bool has_instance_extension(const char* name) const;
  bool has_device_extension(const char* name) const;
  // Effective API version (min of instance and device versions).
  uint32_t api_version() const { return api_version_; }

  // vkSetDebugUtilsObjectNameEXT; a no-op without VK_EXT_debug_utils, and for instance-level
  // objects (surfaces, messengers, ...), which Mesa cannot name through a device.
  void name(VkObjectType type, uint64_t handle, const std::string& name) const;
  template <typename H>
  void name(VkObjectType type, H handle, const std::string& object_name) const {
    name(type, handle_u64(handle), object_name);
  }
  // vkQueueInsertDebugUtilsLabelEXT on the queue; a no-op without VK_EXT_debug_utils.
  void insert_label(const std::string& label) const;
  // The function itself (nullptr without VK_EXT_debug_utils), for callers that time the call.
  PFN_vkQueueInsertDebugUtilsLabelEXT queue_insert_label() const { return insert_label_; }

  // A memory type index with all of `required`; prefers one that also has all of `preferred`.
  uint32_t find_memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                            VkMemoryPropertyFlags preferred = 0) const;

  PFN_vkVoidFunction device_proc(const char* name) const;
  PFN_vkVoidFunction instance_proc(const char* name) const;

  // "<driverName> <driverInfo>" where the device reports them (Vulkan 1.2), else "".
  std::string driver_info() const;

  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queue_family = 0;
  VkPhysicalDeviceProperties properties{};
  VkPhysicalDeviceMemoryProperties memory_properties{};
  bool debug_utils = false;
  bool timeline_semaphore = false;  // feature enabled
  bool private_data = false;        // feature enabled (Vulkan 1.3 or VK_EXT_private_data)
  bool sampler_ycbcr_conversion = false;

 private:
  std::vector<std::string> instance_extensions_;
  std::vector<std::string> device_extensions_;
  uint32_t api_version_ = VK_API_VERSION_1_1;
  PFN_vkSetDebugUtilsObjectNameEXT set_object_name_ = nullptr;
  PFN_vkQueueInsertDebugUtilsLabelEXT insert_label_ = nullptr;
};

// ---------------------------------------------------------------------------------------------
// Resources. Each is named `name` (see Context::name).

struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
};

// A VkBuffer without memory (exclusive sharing).
VkBuffer create_buffer_object(const Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                              const std::string& name, const void* p_next = nullptr);
// A VkDeviceMemory of `size` bytes from a host-visible type allowed by `type_bits` (any type
// where none is host-visible), preferably device-local.
VkDeviceMemory allocate_memory(const Context& ctx, VkDeviceSize size, uint32_t type_bits,
                               const std::string& name, const void* p_next = nullptr);
// A VkDeviceMemory of `size` bytes of memory type `type_index`.
VkDeviceMemory allocate_memory_of_type(const Context& ctx, VkDeviceSize size, uint32_t type_index,
                                       const std::string& name, const void* p_next = nullptr);
// A buffer with its own host-visible memory: the buffer is named `name`, the memory
// `name + ".memory"`.
Buffer create_buffer(const Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                     const std::string& name);
void destroy_buffer(const Context& ctx, Buffer& buffer);
// Maps the memory, copies `size` bytes and unmaps it.
void upload(const Context& ctx, VkDeviceMemory memory, VkDeviceSize offset, const void* data,
            size_t size);
void download(const Context& ctx, VkDeviceMemory memory, VkDeviceSize offset, void* data,
              size_t size);

// A 2D R8G8B8A8_UNORM image, optimal tiling, one mip level and layer, without memory.
VkImage create_image(const Context& ctx, VkExtent2D extent, VkImageUsageFlags usage,
                     const std::string& name);
// A 2D color view of all of such an image.
VkImageView create_image_view(const Context& ctx, VkImage image, const std::string& name);
// One R8G8B8A8_UNORM color attachment, cleared and stored, left in COLOR_ATTACHMENT_OPTIMAL.
VkRenderPass create_render_pass(const Context& ctx, const std::string& name);
VkFramebuffer create_framebuffer(const Context& ctx, VkRenderPass render_pass, VkImageView view,
                                 VkExtent2D extent, const std::string& name);

VkShaderModule create_shader_module(const Context& ctx, const uint32_t* code, size_t code_bytes,
                                    const std::string& name);
template <size_t N>
VkShaderModule create_shader_module(const Context& ctx, const uint32_t (&code)[N],
                                    const std::string& name) {
  return create_shader_module(ctx, code, sizeof(code), name);
}
VkDescriptorSetLayout create_set_layout(const Context& ctx,
                                        const std::vector<VkDescriptorType>& bindings,
                                        VkShaderStageFlags stages, const std::string& name);
VkPipelineLayout create_pipeline_layout(const Context& ctx,
                                        const std::vector<VkDescriptorSetLayout>& set_layouts,
                                        const std::string& name, uint32_t push_constant_bytes = 0);
VkPipeline create_compute_pipeline(const Context& ctx, VkPipelineLayout layout,
                                   VkShaderModule module, const std::string& name);
// Draws triangle lists of 2-float vertices (R32G32_SFLOAT, binding 0, location 0) from `vert` and
// `frag` into one color attachment: static viewport and scissor of `extent`, no culling, no
// blending.
VkPipeline create_graphics_pipeline(const Context& ctx, VkPipelineLayout layout,
                                    VkRenderPass render_pass, VkShaderModule vert,
                                    VkShaderModule frag, VkExtent2D extent,
                                    const std::string& name);
VkDescriptorPool create_descriptor_pool(const Context& ctx, uint32_t max_sets,
                                        const std::vector<VkDescriptorPoolSize>& sizes,
                                        VkDescriptorPoolCreateFlags flags, const std::string& name);
VkDescriptorSet allocate_set(const Context& ctx, VkDescriptorPool pool,
                             VkDescriptorSetLayout layout, const std::string& name);
void write_buffer_descriptor(const Context& ctx, VkDescriptorSet set, uint32_t binding,
                             VkDescriptorType type, VkBuffer buffer,
                             VkDeviceSize range = VK_WHOLE_SIZE);
VkCommandPool create_command_pool(const Context& ctx, VkCommandPoolCreateFlags flags,
                                  const std::string& name);
VkCommandBuffer allocate_command_buffer(const Context& ctx, VkCommandPool pool,
                                        const std::string& name);
VkFence create_fence(const Context& ctx, const std::string& name, bool signaled = false);

}  // namespace harness
