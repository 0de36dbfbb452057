// The driver's view of memory beside vkleak's: per device, each heap's budget and usage as the
// driver reported them (VK_EXT_memory_budget, in the snapshots' devices/*/memory_budget) and the
// bytes of the VkDeviceMemory objects vkleak tracks on the device, over the snapshots taken
// during the run. Where usage keeps growing and the tracked bytes do not, the difference is
// memory the app's objects do not explain: the driver's own allocations, implicit ones (command
// buffers, descriptor pools, pipelines), or a library whose Vulkan calls vkleak does not see.
// That is said as a note, not a finding: it has no call site to fix, baseline or suppress.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/snapshot.h"

namespace vkleak::analysis {

struct HeapSeries {
  uint32_t index = 0;
  uint64_t size = 0;
  bool device_local = false;
  std::vector<uint64_t> usage;   // one per point of its device's view
  std::vector<uint64_t> budget;  // idem
};

// Usage that grew while the tracked bytes did not, from `from_frame` to `to_frame`.
struct UnexplainedGrowth {
  uint64_t from_frame = 0;
  uint64_t to_frame = 0;
  uint64_t usage_from = 0;  // all heaps together
  uint64_t usage_to = 0;
  uint64_t tracked_from = 0;
  uint64_t tracked_to = 0;
  uint64_t unexplained = 0;  // usage growth less tracked growth (when that was positive)
};

struct DeviceMemoryView {
  int64_t device = 0;  // the device's object id
  std::string physical_device;
  format::HeapBudgetStatus status = format::HeapBudgetStatus::kNotSampled;  // the last seen
  std::optional<format::HeapBudgetEnabledBy> enabled_by;
  // One point per snapshot taken during the run with a sample of its own (a snapshot taken off
  // the app's thread repeats the previous sample and adds no point).
  std::vector<uint64_t> frames;   // the sample's frame
  std::vector<uint64_t> tracked;  // bytes of the device's live VkDeviceMemory at that snapshot
  std::vector<HeapSeries> heaps;
  std::optional<UnexplainedGrowth> unexplained;
  // Sampled, but with fewer than kMinDriverMemoryPoints points: growth was not judged.
  bool too_few_points = false;
};

// Points a device needs before its growth is judged: the first quarter is left out as warm-up
// and what is left must show growth in both of its halves.
inline constexpr size_t kMinDriverMemoryPoints = 4;
// Growth nobody's objects explain, below which nothing is said: the larger of these.
inline constexpr uint64_t kMinUnexplainedBytes = uint64_t{32} << 20;
inline constexpr uint64_t kMinUnexplainedPermille = 50;  // of the usage at the judged start

class DriverMemoryCollector {
 public:
  // A snapshot taken during the run (not at teardown), in sequence order.
  void add(const Snapshot& snapshot);
  std::vector<DeviceMemoryView> finish();

 private:
  std::vector<DeviceMemoryView> views_;
  std::vector<uint64_t> last_time_ms_;  // per view: its last point's sample time
};

// The note for a view with unexplained growth (plain words, not escaped).
std::string unexplained_growth_note(const DeviceMemoryView& view);
// "heap 0 (device local): 1.2 GiB used of a 79.1 GiB budget"
std::string describe_heap(const HeapSeries& heap, size_t point);
// The driver's view at the view's last point beside the tracked bytes, in one line ("" when it
// has no point): "device 3 (NVIDIA H100) at frame 60: heap 0 (device local): 3.8 GiB used of a
// 79.1 GiB budget (79.6 GiB heap); heap 1 (host): ...; VkDeviceMemory tracked by vkleak: 0 B".
std::string driver_memory_line(const DeviceMemoryView& view);
// Why a view has no budget, in words ("the driver lacks VK_EXT_memory_budget"); "" if sampled.
std::string budget_unavailable_reason(format::HeapBudgetStatus status);

}  // namespace vkleak::analysis
