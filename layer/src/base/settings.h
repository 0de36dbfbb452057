// Layer settings, following the Khronos layer conventions:
//   environment   VKLEAK_<KEY> or VK_VKLEAK_TRACKER_<KEY>   (highest precedence)
//   settings file vk_layer_settings.txt, key vkleak_tracker.<key>  (VK_LAYER_SETTINGS_PATH: file
//                 or directory; else ./vk_layer_settings.txt)
//   API           VkLayerSettingsCreateInfoEXT chained to VkInstanceCreateInfo (lowest)
// Unknown keys are warned about. The table of keys is kSettingKeys in settings.cpp and the
// README's settings table.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <string>
#include <vector>

#include "shared/setting_ranges.h"  // ranges the CLI checks too

namespace vkleak {

// What ends a frame. kAuto: presents, except on a device that has made kAutoSubmitFrames (or
// snapshot_every, when fewer: tracking/state.h auto_submit_frames) successful submits without ever presenting (compute, headless, GL on zink without a Vulkan
// swapchain): from then on each submit ends a frame, until it presents (then presents again).
enum class FrameBoundary : uint8_t { kAuto, kPresent, kSubmit };

// Enough for the start-up uploads of presenting apps (vkcube makes 2 before its first present),
// few enough that a never-presenting program gets frames almost at once.
constexpr uint64_t kAutoSubmitFrames = 64;

struct Settings {
  std::string output_dir = "vkleak-snapshots";
  uint32_t snapshot_every = 0;  // frames between periodic snapshots; 0 = off
  FrameBoundary frame_boundary = FrameBoundary::kAuto;
  // Return addresses kept per call site; 0 = off. 1 (the app's call site) costs ~3 ns, each
  // deeper frame ~10 ns of unwinding (bench/RESULTS.md). The default sees through allocation
  // wrappers: reports group objects by call site, and one frame would merge unrelated ones.
  uint32_t callstack_depth = kDefaultCallstackDepth;
  // More modules of the Vulkan stack (callsite.h), comma-separated file-name patterns: their
  // frames do not count toward callstack_depth.
  std::string vulkan_stack_modules;
  // Destroys remembered per thread to explain a later invalid destroy of the same handle.
  uint32_t graveyard_size = kDefaultGraveyardSize;
  // Record the stack of every destroy (shown as "first destroyed here" and for a stale view's
  // target); off, only destroys in flight and invalid ones have theirs. On by default since
  // issue 27: the line to fix of a stale view is its target's destroy, and the cost is a few
  // ns a destroy (bench/RESULTS.md).
  bool destroy_callstacks = true;
  // Enable VK_EXT_memory_budget on devices that offer it (the app and the layers above do not
  // see it) and record each heap's budget and usage in snapshots; false: the device's create
  // info passes down unchanged, and snapshots list the heaps' sizes only.
  bool memory_budget = true;
  bool snapshot_at_exit = true;
  bool crash_snapshot = true;  // a snapshot on SIGABRT/SEGV/BUS/FPE/ILL (crash_snapshot.h)
  std::string snapshot_signal = "SIGUSR1";  // "none" to disable
  std::string trigger_file;                 // default: <output_dir>/vkleak.trigger
  std::string log_level = "warn";
  std::string log_file;  // empty: stderr
  // Mode of snapshot files (octal setting, 0600..0644); directories the layer makes get rwx for
  // the owner and r-x where this lets others read (safe_file.h).
  uint32_t file_mode = 0600;
};

// Reads all sources for one instance. `create_info` may be null.
Settings load_settings(const VkInstanceCreateInfo* create_info) noexcept;

// "key=value" pairs as the snapshot records them.
std::vector<std::pair<std::string, std::string>> describe(const Settings& s);

const char* to_string(FrameBoundary b) noexcept;

// Creates the output directory (and its missing parents) when an instance is created, so that a
// trigger file can be made before the first snapshot. The directories it made are removed at
// exit (remove_empty_output_dirs, registered with atexit) if they are still empty: programs
// that never write a snapshot leave nothing behind. Failures are left to the snapshot writer.
void prepare_output_dir(const std::string& dir, uint32_t file_mode) noexcept;
void remove_empty_output_dirs() noexcept;

// Parses one value into `s`; returns false (and leaves `s` unchanged) when key or value is bad.
bool apply_setting(Settings& s, const std::string& key, const std::string& value,
                   std::string* error);

}  // namespace vkleak
