// The exiting flag (see passthrough.h).
#include "base/passthrough.h"

namespace vkleak {

std::atomic<bool> g_passthrough{false};

void set_passthrough() noexcept {
  g_passthrough.store(true, std::memory_order_relaxed);
}

}  // namespace vkleak
