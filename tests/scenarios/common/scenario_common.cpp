#include "scenario_common.h"

#include <vulkan/vulkan_xcb.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace scenario {

// ---------------------------------------------------------------------------------------------
// Options

Options::Options(std::string program, std::string description, uint32_t default_frames)
    : frames(default_frames), program_(std::move(program)), description_(std::move(description)) {
  add_uint("--frames", &frames, "number of frames (default " + std::to_string(frames) + ")");
  options_.push_back({"--headless",
                      Option::Kind::kHeadless,
                      &swapchain,
                      "frames end at vkQueueSubmit (default)",
                      {}});
  add_flag("--swapchain", &swapchain,
           "open an xcb window and present every frame; frames end at vkQueuePresentKHR");
  options_.push_back({"--help", Option::Kind::kFlag, nullptr, "print this help", {}});
}

void Options::add_uint(const std::string& name, uint32_t* value, const std::string& help) {
  options_.push_back({name, Option::Kind::kUint, value, help, {}});
}

void Options::add_string(const std::string& name, std::string* value, const std::string& help,
                         std::vector<std::string> allowed) {
  options_.push_back({name, Option::Kind::kString, value, help, std::move(allowed)});
}

void Options::add_flag(const std::string& name, bool* value, const std::string& help) {
  options_.push_back({name, Option::Kind::kFlag, value, help, {}});
}

void Options::add_alias(const std::string& alias, const std::string& name) {
  aliases_.emplace_back(alias, name);
}

const Options::Option* Options::find(const std::string& name) const {
  std::string target = name;
  for (const auto& [alias, real] : aliases_) {
    if (alias == name) target = real;
  }
  for (const Option& option : options_) {
    if (option.name == target) return &option;
  }
  return nullptr;
}

void Options::print_usage() const {
  std::printf("usage: %s [options]\n%s\n\noptions:\n", program_.c_str(), description_.c_str());
  for (const Option& option : options_) {
    std::string left = option.name;
    for (const auto& [alias, real] : aliases_) {
      if (real == option.name) left += ", " + alias;
    }
    if (option.kind == Option::Kind::kUint) left += " N";
    if (option.kind == Option::Kind::kString) {
      std::string values;
      for (const std::string& v : option.allowed) values += (values.empty() ? "" : "|") + v;
      left += " " + (values.empty() ? std::string("VALUE") : values);
    }
    std::printf("  %-32s %s\n", left.c_str(), option.help.c_str());
  }
}

void Options::parse(int argc, char** argv) {
  auto bad = [&](const std::string& message) {
    std::fprintf(stderr, "%s: %s (try --help)\n", program_.c_str(), message.c_str());
    std::exit(2);
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string inline_value;
    bool has_inline_value = false;
    if (size_t eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
      inline_value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_inline_value = true;
    }
    const Option* option = find(arg);
    if (option == nullptr) bad("unknown option '" + arg + "'");
    if (option->name == "--help") {
      print_usage();
      std::exit(0);
    }
    auto next_value = [&]() -> std::string {
      if (has_inline_value) return inline_value;
      if (i + 1 >= argc) bad("option " + arg + " needs a value");
      return argv[++i];
    };
    switch (option->kind) {
      case Option::Kind::kFlag:
        *static_cast<bool*>(option->value) = true;
        break;
      case Option::Kind::kHeadless:
        *static_cast<bool*>(option->value) = false;
        break;
      case Option::Kind::kUint: {
        std::string text = next_value();
        char* end = nullptr;
        unsigned long parsed = std::strtoul(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || text[0] == '-' || parsed > UINT32_MAX) {
          bad("option " + arg + " needs a non-negative integer, got '" + text + "'");
        }
        *static_cast<uint32_t*>(option->value) = static_cast<uint32_t>(parsed);
        break;
      }
      case Option::Kind::kString: {
        std::string text = next_value();
        if (!option->allowed.empty() && std::find(option->allowed.begin(), option->allowed.end(),
                                                  text) == option->allowed.end()) {
          bad("bad value '" + text + "' for option " + arg);
        }
        *static_cast<std::string*>(option->value) = text;
        break;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Context

namespace {

harness::ContextConfig harness_config(const ContextConfig& config) {
  harness::ContextConfig h;
  h.app_name = config.app_name;
  h.app_version = 1;
  h.engine_name = "vkleak-scenarios";
  if (config.swapchain) {
    h.instance_extensions = {VK_KHR_SURFACE_EXTENSION_NAME, VK_KHR_XCB_SURFACE_EXTENSION_NAME};
    h.device_extensions = {VK_KHR_SWAPCHAIN_EXTENSION_NAME};
  }
  h.optional_instance_extensions = config.optional_instance_extensions;
  h.optional_device_extensions = config.optional_device_extensions;
  return h;
}

}  // namespace

Context::Context(const ContextConfig& config) : harness::Context(harness_config(config)) {
  name(VK_OBJECT_TYPE_DEVICE, device, "scenario.device");
  name(VK_OBJECT_TYPE_QUEUE, queue, "scenario.queue");
}

void sleep_ms(unsigned milliseconds) {
  std::this_thread::sleep_for(std::chrono::milliseconds(milliseconds));
}

// ---------------------------------------------------------------------------------------------
// Window

Window create_window(uint32_t width, uint32_t height, const char* title) {
  Window window;
  int screen_index = 0;
  window.connection = xcb_connect(nullptr, &screen_index);
  if (window.connection == nullptr || xcb_connection_has_error(window.connection) != 0) {
    fail("cannot connect to the X server (is DISPLAY set? run under xvfb-run -a)");
  }
  xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(window.connection));
  for (int i = 0; i < screen_index; ++i) xcb_screen_next(&it);
  xcb_screen_t* screen = it.data;
  window.window = xcb_generate_id(window.connection);
  uint32_t value_mask = XCB_CW_BACK_PIXEL;
  uint32_t values[] = {screen->black_pixel};
  xcb_create_window(window.connection, XCB_COPY_FROM_PARENT, window.window, screen->root, 0, 0,
                    static_cast<uint16_t>(width), static_cast<uint16_t>(height), 0,
                    XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual, value_mask, values);
  xcb_change_property(window.connection, XCB_PROP_MODE_REPLACE, window.window, XCB_ATOM_WM_NAME,
                      XCB_ATOM_STRING, 8, static_cast<uint32_t>(std::strlen(title)), title);
  xcb_map_window(window.connection, window.window);
  xcb_flush(window.connection);
  return window;
}

void destroy_window(Window& window) {
  if (window.connection == nullptr) return;
  xcb_destroy_window(window.connection, window.window);
  xcb_disconnect(window.connection);
  window = Window{};
}

VkSurfaceKHR create_surface(const Context& ctx, const Window& window, const std::string& name) {
  VkXcbSurfaceCreateInfoKHR info{VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR};
  info.connection = window.connection;
  info.window = window.window;
  VkSurfaceKHR surface = VK_NULL_HANDLE;
  VK_CHECK(vkCreateXcbSurfaceKHR(ctx.instance, &info, nullptr, &surface));
  ctx.name(VK_OBJECT_TYPE_SURFACE_KHR, surface, name);  // a no-op, see Context::name
  return surface;
}

Swapchain create_swapchain(const Context& ctx, VkSurfaceKHR surface, VkExtent2D window_extent,
                           VkSwapchainKHR old, const std::string& name) {
  VkSurfaceCapabilitiesKHR caps;
  VK_CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(ctx.physical_device, surface, &caps));
  uint32_t count = 0;
  VK_CHECK(vkGetPhysicalDeviceSurfaceFormatsKHR(ctx.physical_device, surface, &count, nullptr));
  std::vector<VkSurfaceFormatKHR> formats(count);
  VK_CHECK(
      vkGetPhysicalDeviceSurfaceFormatsKHR(ctx.physical_device, surface, &count, formats.data()));
  if (formats.empty()) fail("the surface has no formats");
  VkSurfaceFormatKHR format = formats[0];
  for (const auto& f : formats) {
    if (f.format == VK_FORMAT_B8G8R8A8_UNORM) format = f;
  }
  VK_CHECK(
      vkGetPhysicalDeviceSurfacePresentModesKHR(ctx.physical_device, surface, &count, nullptr));
  std::vector<VkPresentModeKHR> modes(count);
  VK_CHECK(vkGetPhysicalDeviceSurfacePresentModesKHR(ctx.physical_device, surface, &count,
                                                     modes.data()));
  // Fastest first: the scenarios must not be throttled by a (virtual) display.
  VkPresentModeKHR mode = VK_PRESENT_MODE_FIFO_KHR;
  for (VkPresentModeKHR preferred : {VK_PRESENT_MODE_MAILBOX_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR}) {
    if (std::find(modes.begin(), modes.end(), preferred) != modes.end()) mode = preferred;
  }
  if ((caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT) == 0) {
    fail("swapchain images cannot be cleared (no TRANSFER_DST usage)");
  }
  Swapchain result;
  result.extent = caps.currentExtent;
  if (result.extent.width == UINT32_MAX) result.extent = window_extent;
  result.format = format.format;
  uint32_t image_count = caps.minImageCount + 1;
  if (caps.maxImageCount != 0) image_count = std::min(image_count, caps.maxImageCount);

  VkSwapchainCreateInfoKHR info{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
  info.surface = surface;
  info.minImageCount = image_count;
  info.imageFormat = format.format;
  info.imageColorSpace = format.colorSpace;
  info.imageExtent = result.extent;
  info.imageArrayLayers = 1;
  info.imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  info.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
  info.preTransform = caps.currentTransform;
  info.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
  if ((caps.supportedCompositeAlpha & VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR) == 0) {
    info.compositeAlpha = VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR;
  }
  info.presentMode = mode;
  info.clipped = VK_TRUE;
  info.oldSwapchain = old;
  VK_CHECK(vkCreateSwapchainKHR(ctx.device, &info, nullptr, &result.swapchain));
  ctx.name(VK_OBJECT_TYPE_SWAPCHAIN_KHR, result.swapchain, name);
  return result;
}

std::vector<VkImage> get_swapchain_images(const Context& ctx, VkSwapchainKHR swapchain) {
  uint32_t count = 0;
  VK_CHECK(vkGetSwapchainImagesKHR(ctx.device, swapchain, &count, nullptr));
  std::vector<VkImage> images(count);
  VK_CHECK(vkGetSwapchainImagesKHR(ctx.device, swapchain, &count, images.data()));
  return images;
}

// ---------------------------------------------------------------------------------------------
// FrameLoop

FrameLoop::FrameLoop(Context& ctx, const FrameLoopConfig& config) : ctx_(ctx), config_(config) {
  if (config_.frames_in_flight == 0) fail("frames in flight must be at least 1");
  if (config_.timeline && !ctx_.timeline_semaphore) {
    fail("--timeline needs the timelineSemaphore feature (Vulkan 1.2)");
  }
  if (config_.timeline) {
    VkSemaphoreTypeCreateInfo type_info{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type_info.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    type_info.initialValue = 0;
    VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    info.pNext = &type_info;
    VK_CHECK(vkCreateSemaphore(ctx_.device, &info, nullptr, &timeline_));
    ctx_.name(VK_OBJECT_TYPE_SEMAPHORE, timeline_, "frame.timeline");
  }
  slots_.resize(config_.frames_in_flight);
  for (uint32_t i = 0; i < slots_.size(); ++i) {
    Slot& slot = slots_[i];
    std::string suffix = "." + std::to_string(i);
    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool_info.queueFamilyIndex = ctx_.queue_family;
    VK_CHECK(vkCreateCommandPool(ctx_.device, &pool_info, nullptr, &slot.pool));
    ctx_.name(VK_OBJECT_TYPE_COMMAND_POOL, slot.pool, "frame.cmdpool" + suffix);
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = slot.pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VK_CHECK(vkAllocateCommandBuffers(ctx_.device, &alloc, &slot.cmd));
    ctx_.name(VK_OBJECT_TYPE_COMMAND_BUFFER, slot.cmd, "frame.cmd" + suffix);
    if (!config_.timeline) slot.fence = create_fence(ctx_, "frame.fence" + suffix);
    if (config_.swapchain) {
      VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
      VK_CHECK(vkCreateSemaphore(ctx_.device, &info, nullptr, &slot.acquire_semaphore));
      ctx_.name(VK_OBJECT_TYPE_SEMAPHORE, slot.acquire_semaphore, "frame.acquire" + suffix);
    }
  }
  if (config_.swapchain) {
    window_ = create_window(config_.width, config_.height, "vkleak scenario");
    surface_ = create_surface(ctx_, window_, "frame.surface");
    VkBool32 supported = VK_FALSE;
    VK_CHECK(vkGetPhysicalDeviceSurfaceSupportKHR(ctx_.physical_device, ctx_.queue_family, surface_,
                                                  &supported));
    if (!supported) fail("the queue family cannot present to the window");
    create_swapchain();
  }
}

void FrameLoop::create_swapchain() {
  VkSwapchainKHR old = swapchain_.swapchain;
  swapchain_ = scenario::create_swapchain(ctx_, surface_, {config_.width, config_.height}, old,
                                          "frame.swapchain");
  if (old != VK_NULL_HANDLE) vkDestroySwapchainKHR(ctx_.device, old, nullptr);
  images_ = get_swapchain_images(ctx_, swapchain_.swapchain);
  present_semaphores_.resize(images_.size());
  for (uint32_t i = 0; i < images_.size(); ++i) {
    ctx_.name(VK_OBJECT_TYPE_IMAGE, images_[i], "frame.swapchain.image." + std::to_string(i));
    VkSemaphoreCreateInfo sem_info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    VK_CHECK(vkCreateSemaphore(ctx_.device, &sem_info, nullptr, &present_semaphores_[i]));
    ctx_.name(VK_OBJECT_TYPE_SEMAPHORE, present_semaphores_[i],
              "frame.present." + std::to_string(i));
  }
}

void FrameLoop::destroy_swapchain_images() {
  for (VkSemaphore semaphore : present_semaphores_) {
    vkDestroySemaphore(ctx_.device, semaphore, nullptr);
  }
  present_semaphores_.clear();
  images_.clear();
}

void FrameLoop::recreate_swapchain() {
  VK_CHECK(vkDeviceWaitIdle(ctx_.device));
  destroy_swapchain_images();
  create_swapchain();
}

void FrameLoop::wait_slot(const Slot& slot) {
  if (config_.timeline) {
    if (slot.timeline_value == 0) return;
    VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    info.semaphoreCount = 1;
    info.pSemaphores = &timeline_;
    info.pValues = &slot.timeline_value;
    VK_CHECK(vkWaitSemaphores(ctx_.device, &info, UINT64_MAX));
  } else if (frame_ >= slots_.size()) {
    VK_CHECK(vkWaitForFences(ctx_.device, 1, &slot.fence, VK_TRUE, UINT64_MAX));
    VK_CHECK(vkResetFences(ctx_.device, 1, &slot.fence));
  }
}

VkCommandBuffer FrameLoop::begin_frame() {
  if (in_frame_) fail("FrameLoop::begin_frame called twice");
  Slot& current = slots_[slot()];
  wait_slot(current);
  VK_CHECK(vkResetCommandPool(ctx_.device, current.pool, 0));
  if (config_.swapchain) {
    for (;;) {
      VkResult result =
          vkAcquireNextImageKHR(ctx_.device, swapchain_.swapchain, UINT64_MAX,
                                current.acquire_semaphore, VK_NULL_HANDLE, &image_index_);
      if (result == VK_ERROR_OUT_OF_DATE_KHR) {
        recreate_swapchain();
        continue;
      }
      if (result != VK_SUCCESS && result != VK_SUBOPTIMAL_KHR) {
        fail_vk(result, "vkAcquireNextImageKHR", __FILE__, __LINE__);
      }
      break;
    }
  }
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VK_CHECK(vkBeginCommandBuffer(current.cmd, &begin));
  in_frame_ = true;
  return current.cmd;
}

void FrameLoop::record_clear(VkCommandBuffer cmd) {
  VkImageMemoryBarrier barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  barrier.srcAccessMask = 0;
  barrier.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  barrier.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.image = images_[image_index_];
  barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
                       nullptr, 0, nullptr, 1, &barrier);
  float shade = static_cast<float>(frame_ % 64) / 63.0f;
  VkClearColorValue color{{shade, 0.25f, 1.0f - shade, 1.0f}};
  vkCmdClearColorImage(cmd, barrier.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &color, 1,
                       &barrier.subresourceRange);
  barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = 0;
  barrier.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
  barrier.newLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0,
                       0, nullptr, 0, nullptr, 1, &barrier);
}

void FrameLoop::end_frame() {
  if (!in_frame_) fail("FrameLoop::end_frame called without begin_frame");
  Slot& current = slots_[slot()];
  if (config_.swapchain) record_clear(current.cmd);
  VK_CHECK(vkEndCommandBuffer(current.cmd));

  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &current.cmd;
  VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
  std::vector<VkSemaphore> signals;
  std::vector<uint64_t> signal_values;
  uint64_t wait_value = 0;
  if (config_.swapchain) {
    submit.waitSemaphoreCount = 1;
    submit.pWaitSemaphores = &current.acquire_semaphore;
    submit.pWaitDstStageMask = &wait_stage;
    signals.push_back(present_semaphores_[image_index_]);
    signal_values.push_back(0);
  }
  VkTimelineSemaphoreSubmitInfo timeline_info{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  if (config_.timeline) {
    current.timeline_value = ++last_timeline_value_;
    signals.push_back(timeline_);
    signal_values.push_back(current.timeline_value);
    timeline_info.waitSemaphoreValueCount = submit.waitSemaphoreCount;
    timeline_info.pWaitSemaphoreValues = &wait_value;
    timeline_info.signalSemaphoreValueCount = static_cast<uint32_t>(signal_values.size());
    timeline_info.pSignalSemaphoreValues = signal_values.data();
    submit.pNext = &timeline_info;
  }
  submit.signalSemaphoreCount = static_cast<uint32_t>(signals.size());
  submit.pSignalSemaphores = signals.data();
  VK_CHECK(vkQueueSubmit(ctx_.queue, 1, &submit, current.fence));
  last_fence_ = current.fence;

  if (config_.swapchain) {
    VkPresentInfoKHR present{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
    present.waitSemaphoreCount = 1;
    present.pWaitSemaphores = &present_semaphores_[image_index_];
    present.swapchainCount = 1;
    present.pSwapchains = &swapchain_.swapchain;
    present.pImageIndices = &image_index_;
    VkResult result = vkQueuePresentKHR(ctx_.queue, &present);
    if (result == VK_ERROR_OUT_OF_DATE_KHR || result == VK_SUBOPTIMAL_KHR) {
      recreate_swapchain();
    } else if (result != VK_SUCCESS) {
      fail_vk(result, "vkQueuePresentKHR", __FILE__, __LINE__);
    }
  }
  in_frame_ = false;
  ++frame_;
}

void FrameLoop::wait_last_submit() {
  if (frame_ == 0) return;
  if (config_.timeline) {
    VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    info.semaphoreCount = 1;
    info.pSemaphores = &timeline_;
    info.pValues = &last_timeline_value_;
    VK_CHECK(vkWaitSemaphores(ctx_.device, &info, UINT64_MAX));
  } else {
    VK_CHECK(vkWaitForFences(ctx_.device, 1, &last_fence_, VK_TRUE, UINT64_MAX));
  }
}

void FrameLoop::destroy() {
  VK_CHECK(vkDeviceWaitIdle(ctx_.device));
  if (config_.swapchain) {
    destroy_swapchain_images();
    vkDestroySwapchainKHR(ctx_.device, swapchain_.swapchain, nullptr);
    swapchain_ = Swapchain{};
    vkDestroySurfaceKHR(ctx_.instance, surface_, nullptr);
    surface_ = VK_NULL_HANDLE;
    destroy_window(window_);
  }
  for (Slot& slot : slots_) {
    vkDestroyCommandPool(ctx_.device, slot.pool, nullptr);  // frees slot.cmd with it
    vkDestroyFence(ctx_.device, slot.fence, nullptr);
    vkDestroySemaphore(ctx_.device, slot.acquire_semaphore, nullptr);
  }
  slots_.clear();
  vkDestroySemaphore(ctx_.device, timeline_, nullptr);
  timeline_ = VK_NULL_HANDLE;
}

}  // namespace scenario
