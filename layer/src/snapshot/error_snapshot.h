// Error snapshots: when a command returns VK_ERROR_OUT_OF_DEVICE_MEMORY,
// VK_ERROR_OUT_OF_HOST_MEMORY or VK_ERROR_DEVICE_LOST, one snapshot of what was alive then
// (reason out_of_device_memory / out_of_host_memory / device_lost, label the command's name).
// Rate limited: one per error per kErrorSnapshotIntervalMs, kMaxErrorSnapshots per run; every
// snapshot counts all such results seen so far ("error_results").
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

namespace vkleak {

constexpr int64_t kErrorSnapshotIntervalMs = 10000;
constexpr uint32_t kMaxErrorSnapshots = 16;

// Every hook calls it when its command's result is < 0 (the one compare on the hot path); other
// errors are ignored here.
[[gnu::cold]] [[gnu::noinline]] void on_error_result(VkResult result, const char* command) noexcept;

// For hand-written hooks: the same one compare.
inline void check_result(VkResult result, const char* command) noexcept {
  if (__builtin_expect(result < 0, 0)) on_error_result(result, command);
}

// Totals seen so far, copied when a snapshot is collected.
struct ErrorCounts {
  uint64_t out_of_device_memory = 0, out_of_host_memory = 0, device_lost = 0;
};
ErrorCounts error_counts() noexcept;

}  // namespace vkleak
