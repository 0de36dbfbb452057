// Shared code of the vkleak test scenarios: option parsing, instance/device creation, debug names,
// buffer and pipeline helpers, and a FrameLoop that ends frames at submits (--headless) or at
// presents (--swapchain, an xcb window; works under Xvfb with lavapipe).
//
// Every Vulkan error ends the program: a message on stderr, exit code 1. Nothing is destroyed
// implicitly: each scenario tears down explicitly what it owns (and deliberately leaves what its
// incident leaks), so that what is alive at vkDestroyDevice is exactly what the scenario says.
#pragma once

#include <vulkan/vulkan.h>
#include <xcb/xcb.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace scenario {

// ---------------------------------------------------------------------------------------------
// Errors

const char* result_name(VkResult result);

// Prints "error: <what> failed: <result> (<file>:<line>)" on stderr and exits with code 1.
[[noreturn]] void fail_vk(VkResult result, const char* what, const char* file, int line);
// Prints "error: <message>" on stderr and exits with code 1.
[[noreturn]] void fail(const std::string& message);

#define VK_CHECK(expr)                                                  \
  do {                                                                  \
    VkResult vk_check_result_ = (expr);                                 \
    if (vk_check_result_ != VK_SUCCESS) {                               \
      ::scenario::fail_vk(vk_check_result_, #expr, __FILE__, __LINE__); \
    }                                                                   \
  } while (0)

// ---------------------------------------------------------------------------------------------
// Options

// Every program accepts --frames N, --headless, --swapchain and --help; programs add their own.
class Options {
 public:
  Options(std::string program, std::string description, uint32_t default_frames = 300);

  void add_uint(const std::string& name, uint32_t* value, const std::string& help);
  void add_string(const std::string& name, std::string* value, const std::string& help,
                  std::vector<std::string> allowed = {});
  void add_flag(const std::string& name, bool* value, const std::string& help);
  // Makes `alias` another spelling of the already added option `name`.
  void add_alias(const std::string& alias, const std::string& name);

  // Parses argv; prints the usage and exits 0 on --help, exits 2 on a bad command line.
  void parse(int argc, char** argv);

  uint32_t frames;
  bool swapchain = false;

 private:
  struct Option {
    std::string name;
    enum class Kind { kUint, kString, kFlag, kHeadless } kind;
    void* value;
    std::string help;
    std::vector<std::string> allowed;
  };
  const Option* find(const std::string& name) const;
  void print_usage() const;

  std::string program_;
  std::string description_;
  std::vector<Option> options_;
  std::vector<std::pair<std::string, std::string>> aliases_;
};

// ---------------------------------------------------------------------------------------------
// Context: instance, physical device, device, one graphics+compute queue

struct ContextConfig {
  std::string app_name = "vkleak-scenario";
  bool swapchain = false;  // requires VK_KHR_surface, VK_KHR_xcb_surface and VK_KHR_swapchain
  std::vector<const char*> optional_instance_extensions;
  std::vector<const char*> optional_device_extensions;
};

template <typename H>
inline uint64_t handle_u64(H handle) {
  if constexpr (std::is_pointer_v<H>) {
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handle));
  } else {
    return static_cast<uint64_t>(handle);
  }
}

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

  // A memory type index with all of `required`; prefers one that also has all of `preferred`.
  uint32_t find_memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                            VkMemoryPropertyFlags preferred = 0) const;

  PFN_vkVoidFunction device_proc(const char* name) const;
  PFN_vkVoidFunction instance_proc(const char* name) const;

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
// Resources

struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
};

// A VkBuffer without memory, named `name`.
VkBuffer create_buffer_object(const Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                              const std::string& name, const void* p_next = nullptr);
// A VkDeviceMemory of `size` bytes from a host-visible type allowed by `type_bits`, named `name`.
VkDeviceMemory allocate_memory(const Context& ctx, VkDeviceSize size, uint32_t type_bits,
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
VkDescriptorPool create_descriptor_pool(const Context& ctx, uint32_t max_sets,
                                        const std::vector<VkDescriptorPoolSize>& sizes,
                                        VkDescriptorPoolCreateFlags flags, const std::string& name);
VkDescriptorSet allocate_set(const Context& ctx, VkDescriptorPool pool,
                             VkDescriptorSetLayout layout, const std::string& name);
void write_buffer_descriptor(const Context& ctx, VkDescriptorSet set, uint32_t binding,
                             VkDescriptorType type, VkBuffer buffer,
                             VkDeviceSize range = VK_WHOLE_SIZE);
VkFence create_fence(const Context& ctx, const std::string& name, bool signaled = false);

// Sleeps so that lavapipe has finished the work just submitted (early-free scenarios).
void sleep_ms(unsigned milliseconds);

// An xcb window (swapchain mode) and a VkSurfaceKHR for it; needs a ContextConfig::swapchain
// context.
struct Window {
  xcb_connection_t* connection = nullptr;
  xcb_window_t window = 0;
};
Window create_window(uint32_t width, uint32_t height, const char* title);
void destroy_window(Window& window);
VkSurfaceKHR create_surface(const Context& ctx, const Window& window, const std::string& name);

// A swapchain of TRANSFER_DST images for `surface` (B8G8R8A8_UNORM when offered; MAILBOX or
// IMMEDIATE when offered, else FIFO), named `name`. `old` is passed as oldSwapchain, not destroyed.
struct Swapchain {
  VkSwapchainKHR swapchain = VK_NULL_HANDLE;
  VkExtent2D extent{};
  VkFormat format = VK_FORMAT_UNDEFINED;
};
Swapchain create_swapchain(const Context& ctx, VkSurfaceKHR surface, VkExtent2D window_extent,
                           VkSwapchainKHR old, const std::string& name);
std::vector<VkImage> get_swapchain_images(const Context& ctx, VkSwapchainKHR swapchain);

// ---------------------------------------------------------------------------------------------
// FrameLoop: per-slot command pools, command buffers and fences (or one timeline semaphore).
//   --headless:  a frame is a command buffer submitted with a fence; frames end at submits.
//   --swapchain: an xcb window + surface + swapchain; each frame acquires an image, clears it,
//                submits and presents; frames end at presents. Recreated on OUT_OF_DATE.

struct FrameLoopConfig {
  bool swapchain = false;
  uint32_t frames_in_flight = 2;
  bool timeline = false;  // synchronize slots with a timeline semaphore instead of fences
  uint32_t width = 128;
  uint32_t height = 128;
};

class FrameLoop {
 public:
  FrameLoop(Context& ctx, const FrameLoopConfig& config);
  FrameLoop(const FrameLoop&) = delete;
  FrameLoop& operator=(const FrameLoop&) = delete;

  // Starts frame frame(): waits until the slot's previous submission completed, resets the slot's
  // command pool, acquires a swapchain image (swapchain mode) and begins the command buffer.
  VkCommandBuffer begin_frame();
  // Ends and submits the command buffer (then presents in swapchain mode); frame() advances.
  void end_frame();
  // Waits until the last submission (and so every earlier one) completed.
  void wait_last_submit();
  // Waits idle and destroys everything the loop created. Not called implicitly.
  void destroy();

  uint64_t frame() const { return frame_; }  // the current (or next) frame, from 0
  uint32_t slot() const { return static_cast<uint32_t>(frame_ % slots_.size()); }
  uint32_t frames_in_flight() const { return static_cast<uint32_t>(slots_.size()); }
  bool swapchain_mode() const { return config_.swapchain; }

 private:
  struct Slot {
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;                  // fence mode
    uint64_t timeline_value = 0;                     // timeline mode: value its last submit signals
    VkSemaphore acquire_semaphore = VK_NULL_HANDLE;  // swapchain mode
  };
  void wait_slot(const Slot& slot);
  void create_swapchain();
  void destroy_swapchain_images();
  void recreate_swapchain();
  void record_clear(VkCommandBuffer cmd);

  Context& ctx_;
  FrameLoopConfig config_;
  std::vector<Slot> slots_;
  uint64_t frame_ = 0;
  bool in_frame_ = false;
  VkSemaphore timeline_ = VK_NULL_HANDLE;
  uint64_t last_timeline_value_ = 0;
  VkFence last_fence_ = VK_NULL_HANDLE;

  // Swapchain mode.
  Window window_;
  VkSurfaceKHR surface_ = VK_NULL_HANDLE;
  Swapchain swapchain_;
  std::vector<VkImage> images_;
  std::vector<VkSemaphore> present_semaphores_;  // one per swapchain image
  uint32_t image_index_ = 0;
};

}  // namespace scenario
