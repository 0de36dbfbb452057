// Per-instance and per-device state (see state.h).
#include "tracking/state.h"

namespace vkleak {

std::atomic<uint32_t> g_descriptor_layouts_generation{1};

}  // namespace vkleak
