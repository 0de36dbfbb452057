// The coarse clock (see clock.h).
#include "base/clock.h"

#include <time.h>

namespace vkleak {

namespace {

uint64_t monotonic_ms() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000 + static_cast<uint64_t>(ts.tv_nsec) / 1000000;
}
const uint64_t g_load_ms = monotonic_ms();

}  // namespace

std::atomic<uint32_t> g_clock_ms{0};

uint32_t now_ms() noexcept {
  return static_cast<uint32_t>(monotonic_ms() - g_load_ms);
}

uint32_t refresh_clock() noexcept {
  const uint32_t now = now_ms();
  // Monotonic even when threads race: only ever moves forward.
  uint32_t old = g_clock_ms.load(std::memory_order_relaxed);
  while (old < now && !g_clock_ms.compare_exchange_weak(old, now, std::memory_order_relaxed)) {
  }
  return now;
}

}  // namespace vkleak
