#include "analysis/rules/rules.h"

namespace vkleak::analysis {

GroupHits find_orphaned_memory(const SnapshotIndex& index, const std::vector<uint8_t>& evidence,
                               const AnalysisOptions& options) {
  HitCollector hits(index, options.max_examples);
  for (size_t i = 0; i < index.size(); ++i) {
    if (!evidence[i] || !index.is_memory(i) || !index.app_made(i) || index.binders(i) != 0)
      continue;
    if (index.object(i).in_flight || index.idle(i) < options.thresholds.min_frames_unused) {
      continue;
    }
    hits.add(index.group(i), i, index.object(i).size);
  }
  return hits.finish();
}

}  // namespace vkleak::analysis
