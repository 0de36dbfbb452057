// The exiting flag (see passthrough.h).
#include "base/passthrough.h"

#include <cstdlib>

namespace vkleak {
namespace {

// VKLEAK_BENCH_PASSTHROUGH=1: the layer only passes calls through from the start (it still keeps
// its instances and devices, so every hook finds its dispatch): the physical limit of a layer on
// each call, for benchmarks (bench/README.md). Not a user setting; nothing is tracked.
bool passthrough_from_start() noexcept {
  const char* v = std::getenv("VKLEAK_BENCH_PASSTHROUGH");
  return v && v[0] == '1' && v[1] == '\0';
}

}  // namespace

std::atomic<bool> g_passthrough{passthrough_from_start()};

void set_passthrough() noexcept {
  g_passthrough.store(true, std::memory_order_relaxed);
}

}  // namespace vkleak
