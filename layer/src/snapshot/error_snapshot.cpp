#include "snapshot/error_snapshot.h"

#include <atomic>
#include <chrono>
#include <cstdint>

#include "base/log.h"
#include "snapshot/snapshot.h"
#include "tracking/state.h"

namespace vkleak {
namespace {

// In the order of format::kErrorReasons (and so of ErrorCounts and "error_results").
struct ErrorKind {
  VkResult result;
  SnapshotReason reason;
  const char* name;  // for the log
};
constexpr ErrorKind kKinds[] = {
    {VK_ERROR_OUT_OF_DEVICE_MEMORY, SnapshotReason::kOutOfDeviceMemory,
     "VK_ERROR_OUT_OF_DEVICE_MEMORY"},
    {VK_ERROR_OUT_OF_HOST_MEMORY, SnapshotReason::kOutOfHostMemory, "VK_ERROR_OUT_OF_HOST_MEMORY"},
    {VK_ERROR_DEVICE_LOST, SnapshotReason::kDeviceLost, "VK_ERROR_DEVICE_LOST"},
};
static_assert(kKinds[0].reason == format::kErrorReasons[0] &&
              kKinds[1].reason == format::kErrorReasons[1] &&
              kKinds[2].reason == format::kErrorReasons[2]);
constexpr int kKindCount = sizeof(kKinds) / sizeof(kKinds[0]);

std::atomic<uint64_t> g_seen[kKindCount];
std::atomic<int64_t> g_last_ms[kKindCount] = {-1, -1, -1};  // last snapshot; -1: none yet
std::atomic<bool> g_coalesced_logged[kKindCount];
std::atomic<uint32_t> g_taken{0};

int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void on_error_result(VkResult result, const char* command) noexcept {
  int k = 0;
  while (k < kKindCount && kKinds[k].result != result) ++k;
  if (k == kKindCount) return;
  g_seen[k].fetch_add(1, std::memory_order_relaxed);
  const int64_t now = steady_ms();
  int64_t last = g_last_ms[k].load(std::memory_order_relaxed);
  bool take = (last < 0 || now - last >= kErrorSnapshotIntervalMs) &&
              g_last_ms[k].compare_exchange_strong(last, now);
  if (take && g_taken.fetch_add(1, std::memory_order_relaxed) >= kMaxErrorSnapshots) take = false;
  try {
    if (!take) {
      if (!g_coalesced_logged[k].exchange(true))
        log().warn(
            "{} from {} again: counted in the snapshots' error_results, not snapshotted (one "
            "snapshot per error per {} s, {} per run)",
            kKinds[k].name, command, kErrorSnapshotIntervalMs / 1000, kMaxErrorSnapshots);
      return;
    }
    log().warn("{} from {}: taking a snapshot of what is alive", kKinds[k].name, command);
  } catch (...) {
  }
  // What the driver says of the heaps when memory ran out (an app thread: it may call down).
  try {
    for (const auto& d : all_devices())
      d->heap_budget.sample(d->frame.load(std::memory_order_relaxed));
  } catch (...) {
  }
  // Collecting may fail too (out of host memory): snapshot_now catches and logs it.
  snapshot_now(kKinds[k].reason, nullptr, nullptr, command);
}

ErrorCounts error_counts() noexcept {
  return {g_seen[0].load(std::memory_order_relaxed), g_seen[1].load(std::memory_order_relaxed),
          g_seen[2].load(std::memory_order_relaxed)};
}

}  // namespace vkleak
