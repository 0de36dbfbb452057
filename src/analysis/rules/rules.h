// The rules, one job each. Per-snapshot rules read a SnapshotIndex and return what they found
// per group; growth and the event rules work over the whole run. Definitions: FINDINGS.md.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "analysis/hits.h"
#include "analysis/options.h"
#include "analysis/snapshot_index.h"

namespace vkleak::analysis {

using GroupHits = std::unordered_map<uint32_t, Hits>;

// leak_at_exit: what a device_destroy, instance_destroy or exit snapshot still holds.
GroupHits find_leaks_at_exit(const SnapshotIndex& index, const AnalysisOptions& options);

// retained, step 1: which objects are superseded and unused (1 per object). Also the newest use
// per group, for the messages.
struct RetainedMarks {
  std::vector<uint8_t> retained;
  std::unordered_map<uint32_t, uint64_t> group_last_used;
};
RetainedMarks mark_retained(const SnapshotIndex& index, const Thresholds& thresholds);

// stale_view: views, descriptor sets and framebuffers referencing destroyed or retained objects.
// referrers gets 1 for each one reported (they are not reported again as retained).
GroupHits find_stale_views(const SnapshotIndex& index, const RetainedMarks& marks,
                           const AnalysisOptions& options, std::vector<uint8_t>* referrers);

// retained, step 2: the marked objects that are not stale referrers, by group.
GroupHits collect_retained(const SnapshotIndex& index, const RetainedMarks& marks,
                           const std::vector<uint8_t>& referrers, const AnalysisOptions& options);

// orphaned_memory: memory with nothing bound, unused for a while.
GroupHits find_orphaned_memory(const SnapshotIndex& index, const AnalysisOptions& options);

// growth: whether a series (one value per snapshot after the warm-up) keeps rising.
struct GrowthVerdict {
  bool growing = false;
  uint32_t rises = 0;
  uint32_t intervals = 0;
};
GrowthVerdict judge_growth(const std::vector<uint64_t>& values, const Thresholds& thresholds);

}  // namespace vkleak::analysis
