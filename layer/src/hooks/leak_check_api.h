// The C API of include/vkleak/vkleak.h: scoped leak checks a program or its tests call through
// vkGetDeviceProcAddr("vkleak_checkpoint" / "vkleak_live_since" / "vkleak_snapshot").
#pragma once

#include <vulkan/vulkan.h>

namespace vkleak {

// The entry point of that name, or null for any other name.
PFN_vkVoidFunction leak_check_entry_point(const char* name) noexcept;

}  // namespace vkleak
