#include <algorithm>

#include "analysis/rules/rules.h"

namespace vkleak::analysis {

namespace {

// Objects whose use is tracked by their binder (attached memory) or by another rule (memory
// with nothing bound: orphaned_memory) are not candidates themselves.
bool candidate(const SnapshotIndex& index, size_t i) {
  if (!index.app_made(i) || index.attached(i)) return false;
  return !(index.is_memory(i) && index.binders(i) == 0);
}

}  // namespace

RetainedMarks mark_retained(const SnapshotIndex& index, const Thresholds& thresholds) {
  const size_t n = index.size();
  const uint64_t unused = thresholds.min_frames_unused;
  RetainedMarks marks;
  marks.retained.assign(n, 0);
  // Per group: the newest creation among members in recent use, and their newest use.
  std::unordered_map<uint32_t, uint64_t> newest_in_use;
  for (size_t i = 0; i < n; ++i) {
    if (!index.app_made(i) || index.attached(i) || index.last_use(i) == kNever) continue;
    const uint64_t use = index.last_use(i);
    if (index.now(i) >= use + unused) continue;  // not recent
    const uint32_t g = index.group(i);
    uint64_t& newest = newest_in_use.try_emplace(g, 0).first->second;
    newest = std::max<uint64_t>(newest, index.object(i).frame);
    uint64_t& last = marks.group_last_used.try_emplace(g, 0).first->second;
    last = std::max(last, use);
  }
  for (size_t i = 0; i < n; ++i) {
    if (!candidate(index, i) || index.object(i).in_flight) continue;
    if (index.idle(i) < unused) continue;
    // Superseded: a member created after this one was last active is in use now.
    auto it = newest_in_use.find(index.group(i));
    if (it != newest_in_use.end() && it->second > index.last_active(i)) marks.retained[i] = 1;
  }
  return marks;
}

GroupHits collect_retained(const SnapshotIndex& index, const RetainedMarks& marks,
                           const std::vector<uint8_t>& referrers, const AnalysisOptions& options) {
  HitCollector hits(index, options.max_examples);
  for (size_t i = 0; i < index.size(); ++i) {
    if (!marks.retained[i] || referrers[i]) continue;
    const uint32_t g = index.group(i);
    HitCollector::Pending& entry = hits.add(g, i, index.held_bytes(i));
    if (auto it = marks.group_last_used.find(g); it != marks.group_last_used.end()) {
      entry.group_last_used = it->second;
    }
    for (size_t m : index.attached_memory(i)) {
      hits.relate(&entry, "memory", m, index.object(m).size);
    }
  }
  return hits.finish();
}

}  // namespace vkleak::analysis

namespace vkleak::analysis {

size_t pool_of(const SnapshotIndex& index, size_t i) {
  const int64_t parent = index.object(i).parent;
  const size_t p = parent != kNullId ? index.find(parent) : kNotFound;
  if (p == kNotFound) return kNotFound;
  const std::string& type = index.type(p);
  return type == "VkCommandPool" || type == "VkDescriptorPool" ? p : kNotFound;
}

bool is_pool_child(const SnapshotIndex& index, size_t i) {
  return pool_of(index, i) != kNotFound;
}

bool is_set_in_pool(const SnapshotIndex& index, size_t i) {
  // A set's parent is its descriptor pool.
  return index.type(i) == "VkDescriptorSet" && is_pool_child(index, i);
}

bool is_set_allocated_with_its_pool(const SnapshotIndex& index, size_t i) {
  if (index.type(i) != "VkDescriptorSet") return false;
  const size_t pool = pool_of(index, i);
  return pool != kNotFound && index.object(i).frame == index.object(pool).frame;
}

void ReuseTracker::observe(const SnapshotIndex& index, const Thresholds& thresholds) {
  std::vector<Seen> seen;
  seen.reserve(index.size());
  for (size_t i = 0; i < index.size(); ++i) {
    if (!index.app_made(i) || index.attached(i)) continue;
    const Object& o = index.object(i);
    const uint32_t g = index.group(i);
    // Only pools make siblings: every object has a parent (its device at least).
    const size_t parent = pool_of(index, i);
    const bool pooled = parent != kNotFound;
    if (pooled) parents_[g].insert(o.parent);
    const auto active = static_cast<uint32_t>(std::min<uint64_t>(index.last_active(i), kNever));
    auto it = std::lower_bound(seen_.begin(), seen_.end(), Seen{o.id, 0, false});
    if (it != seen_.end() && it->id == o.id && active > it->last_active) {
      // Used again since the previous snapshot: its pool is in steady use; and when it was
      // idle then, it was waiting its turn (a ring), so its group is reused.
      if (it->idle) reused_.insert(g);
      if (pooled && reused_pools_.insert(o.parent).second) reused_.insert(index.group(parent));
    }
    seen.push_back(
        Seen{o.id, active, !o.in_flight && index.idle(i) >= thresholds.min_frames_unused});
  }
  std::sort(seen.begin(), seen.end());
  seen_ = std::move(seen);
}

bool ReuseTracker::in_reused_pool(uint32_t group) const {
  auto it = parents_.find(group);
  if (it == parents_.end()) return false;
  return std::any_of(it->second.begin(), it->second.end(),
                     [&](int64_t p) { return reused_pools_.count(p) != 0; });
}

}  // namespace vkleak::analysis
