#include "analysis/driver_memory.h"

#include <algorithm>

#include "shared/escape.h"
#include "shared/text.h"

namespace vkleak::analysis {
namespace {

// The device's tracked bytes: its live VkDeviceMemory objects.
uint64_t tracked_bytes(const Snapshot& s, int64_t device) {
  int memory_type = -1;
  for (size_t t = 0; t < s.type_names.size(); ++t) {
    if (s.type_names[t] == "VkDeviceMemory") memory_type = static_cast<int>(t);
  }
  if (memory_type < 0) return 0;
  uint64_t bytes = 0;
  for (const Object& o : s.objects) {
    if (o.type == memory_type && o.owner == device) bytes = saturating_add(bytes, o.size);
  }
  return bytes;
}

uint64_t total_usage(const DeviceMemoryView& v, size_t point) {
  uint64_t sum = 0;
  for (const HeapSeries& h : v.heaps) sum = saturating_add(sum, h.usage[point]);
  return sum;
}

uint64_t growth(uint64_t from, uint64_t to) {
  return to > from ? to - from : 0;
}

// Judges one view: usage that grew over the run after its first quarter, still growing in the
// second half of that window (not warm-up that levels off), by more than the tracked bytes did.
void judge(DeviceMemoryView* v) {
  const size_t n = v->frames.size();
  if (n < kMinDriverMemoryPoints) {
    v->too_few_points = n > 0;
    return;
  }
  const size_t first = n / 4, last = n - 1, mid = first + (last - first) / 2;
  const uint64_t u0 = total_usage(*v, first), um = total_usage(*v, mid), u1 = total_usage(*v, last);
  const uint64_t grown = growth(u0, u1);
  if (grown == 0 || growth(u0, um) == 0 || growth(um, u1) * 4 < grown) return;
  const uint64_t tracked_grown = growth(v->tracked[first], v->tracked[last]);
  const uint64_t unexplained = grown > tracked_grown ? grown - tracked_grown : 0;
  const uint64_t floor = std::max(kMinUnexplainedBytes, u0 / 1000 * kMinUnexplainedPermille);
  if (unexplained < floor) return;
  v->unexplained = UnexplainedGrowth{v->frames[first],  v->frames[last],  u0,         u1,
                                     v->tracked[first], v->tracked[last], unexplained};
}

}  // namespace

void DriverMemoryCollector::add(const Snapshot& snapshot) {
  for (const Device& d : snapshot.devices) {
    const MemoryBudget& b = d.memory_budget;
    if (!b.present) continue;
    auto it = std::find_if(views_.begin(), views_.end(),
                           [&](const DeviceMemoryView& v) { return v.device == d.id; });
    if (it == views_.end()) {
      DeviceMemoryView v;
      v.device = d.id;
      v.physical_device = d.physical_device;
      views_.push_back(std::move(v));
      last_time_ms_.push_back(UINT64_MAX);
      it = views_.end() - 1;
    }
    DeviceMemoryView& v = *it;
    const size_t k = static_cast<size_t>(it - views_.begin());
    v.status = b.status;
    if (b.enabled_by) v.enabled_by = b.enabled_by;
    if (v.heaps.empty() || v.heaps.size() != b.heaps.size()) {
      // The first time, or a file whose heaps changed (a hostile or mixed run): start again.
      v.heaps.clear();
      v.frames.clear();
      v.tracked.clear();
      for (const MemoryHeap& h : b.heaps)
        v.heaps.push_back({h.index, h.size, h.device_local, {}, {}});
    }
    if (b.status != format::HeapBudgetStatus::kSampled || !b.time_ms) continue;
    if (*b.time_ms == last_time_ms_[k]) continue;  // the same sample again: no new point
    last_time_ms_[k] = *b.time_ms;
    v.frames.push_back(b.frame.value_or(d.frame));
    v.tracked.push_back(tracked_bytes(snapshot, d.id));
    for (size_t i = 0; i < v.heaps.size(); ++i) {
      v.heaps[i].usage.push_back(b.heaps[i].usage.value_or(0));
      v.heaps[i].budget.push_back(b.heaps[i].budget.value_or(0));
    }
  }
}

std::vector<DeviceMemoryView> DriverMemoryCollector::finish() {
  for (DeviceMemoryView& v : views_) judge(&v);
  last_time_ms_.clear();
  return std::move(views_);
}

std::string budget_unavailable_reason(format::HeapBudgetStatus status) {
  switch (status) {
    case format::HeapBudgetStatus::kSampled:
      return "";
    case format::HeapBudgetStatus::kUnsupported:
      return "the driver lacks VK_EXT_memory_budget";
    case format::HeapBudgetStatus::kNeedsProperties2:
      return "the instance has neither Vulkan 1.1 nor VK_KHR_get_physical_device_properties2";
    case format::HeapBudgetStatus::kOff:
      return "the layer setting memory_budget is false";
    case format::HeapBudgetStatus::kNotSampled:
      return "no sample was taken";
  }
  return "";
}

std::string describe_heap(const HeapSeries& heap, size_t point) {
  std::string s = "heap " + std::to_string(heap.index) +
                  (heap.device_local ? " (device local)" : " (host)") + ": ";
  if (point >= heap.usage.size()) return s + format_bytes(heap.size) + ", no budget";
  return s + format_bytes(heap.usage[point]) + " used of a " + format_bytes(heap.budget[point]) +
         " budget (" + format_bytes(heap.size) + " heap)";
}

std::string driver_memory_line(const DeviceMemoryView& v) {
  if (v.frames.empty()) return "";
  const size_t last = v.frames.size() - 1;
  std::string s = "device " + std::to_string(v.device) + " (" + v.physical_device + ") at frame " +
                  std::to_string(v.frames[last]) + ": ";
  for (const HeapSeries& h : v.heaps) s += describe_heap(h, last) + "; ";
  return s + "VkDeviceMemory tracked by vkleak: " + format_bytes(v.tracked[last]);
}

std::string unexplained_growth_note(const DeviceMemoryView& v) {
  if (!v.unexplained) return "";
  const UnexplainedGrowth& g = *v.unexplained;
  const uint64_t tracked_grown = growth(g.tracked_from, g.tracked_to);
  return "driver memory: the driver reports " + format_bytes(growth(g.usage_from, g.usage_to)) +
         " more in use on device " + std::to_string(v.device) + " (" + v.physical_device +
         ") from frame " + std::to_string(g.from_frame) + " to " + std::to_string(g.to_frame) +
         ", still growing, while the VkDeviceMemory vkleak tracks there grew " +
         format_bytes(tracked_grown) + ": " + format_bytes(g.unexplained) +
         " that no object of the app explains (the driver's own or implicit allocations such as "
         "command buffers, descriptor pools and pipelines, or a library whose Vulkan calls "
         "vkleak does not see)";
}

}  // namespace vkleak::analysis
