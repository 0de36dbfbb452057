// The layer's coarse monotonic clock: milliseconds since the layer was loaded.
#pragma once

#include <atomic>
#include <cstdint>

namespace vkleak {

// Milliseconds since the layer was loaded (coarse monotonic clock).
uint32_t now_ms() noexcept;

// The clock as of its last refresh: at every frame boundary, every snapshot, and at least every
// 250 ms by the snapshot writer thread. Creation times use it: reading the clock costs ~7 ns
// (vDSO, under virtualization), a tenth of a buffer create+destroy on lavapipe.
extern std::atomic<uint32_t> g_clock_ms;
inline uint32_t recent_ms() noexcept {
  return g_clock_ms.load(std::memory_order_relaxed);
}
uint32_t refresh_clock() noexcept;  // returns now_ms()

}  // namespace vkleak
