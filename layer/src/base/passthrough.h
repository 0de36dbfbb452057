// The process-wide "exiting" flag.
#pragma once

#include <atomic>

namespace vkleak {

// True once the process is exiting and the final snapshot has been taken: hooks then only
// pass calls through.
extern std::atomic<bool> g_passthrough;
inline bool passthrough() noexcept {
  return g_passthrough.load(std::memory_order_relaxed);
}
void set_passthrough() noexcept;

}  // namespace vkleak
