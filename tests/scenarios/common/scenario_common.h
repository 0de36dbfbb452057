// Shared code of the vkleak test scenarios, on top of the Vulkan harness (tests/harness, shared
// with the benchmarks): option parsing, the scenarios' Context (names its device and queue), and
// a FrameLoop that ends frames at submits (--headless) or at presents (--swapchain, an xcb window;
// works under Xvfb with lavapipe).
//
// Every Vulkan error ends the program: a message on stderr, exit code 1. Nothing is destroyed
// implicitly: each scenario tears down explicitly what it owns (and deliberately leaves what its
// incident leaks), so that what is alive at vkDestroyDevice is exactly what the scenario says.
#pragma once

#include <vulkan/vulkan.h>
#include <xcb/xcb.h>

#include <cstdint>
#include <string>
#include <vector>

#include "vk_harness.h"

namespace scenario {

// The harness's errors (VK_CHECK, fail) and resource helpers, as scenario::*.
using namespace harness;

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
// Context: the harness's, with the scenarios' instance settings; names its device and queue
// "scenario.device" and "scenario.queue".

struct ContextConfig {
  std::string app_name = "vkleak-scenario";
  bool swapchain = false;  // requires VK_KHR_surface, VK_KHR_xcb_surface and VK_KHR_swapchain
  std::vector<const char*> optional_instance_extensions;
  std::vector<const char*> optional_device_extensions;
};

class Context : public harness::Context {
 public:
  explicit Context(const ContextConfig& config);
};

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
