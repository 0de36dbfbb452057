// Ranges of the layer's settings that the CLI checks too (vkleak run --callstack-depth): one
// definition, included by both, so a value the CLI accepts is one the layer takes.
#pragma once

#include <cstdint>

#include "format/snapshot_format.h"  // the frames a call site may hold

namespace vkleak {

// Return addresses recorded per creation call site (frames of the Vulkan stack not counted).
inline constexpr uint32_t kDefaultCallstackDepth = 8;
inline constexpr uint32_t kMaxCallstackDepth = format::kMaxCallsiteFrames;

// Recent destroys remembered per destroying thread to explain an invalid destroy: 48
// bytes each (bench/RESULTS.md).
inline constexpr uint32_t kDefaultGraveyardSize = 4096;
inline constexpr uint32_t kMaxGraveyardSize = 1u << 20;

}  // namespace vkleak
