#include <string>

#include "analysis/rules/rules.h"

namespace vkleak::analysis {

GroupHits find_leaks_at_exit(const SnapshotIndex& index, const AnalysisOptions& options) {
  const Snapshot& s = index.snapshot();
  const size_t n = index.size();
  // The scope object itself is being destroyed, not leaked.
  const int64_t scope = s.scope_device ? *s.scope_device : s.scope_instance ? *s.scope_instance : 0;

  // Pool children go with their pool: one finding for the pool says how many it holds.
  std::unordered_map<size_t, std::vector<size_t>> children;
  auto app_pool_of = [&](size_t i) {
    const size_t p = pool_of(index, i);
    return p != kNotFound && index.app_made(p) ? p : kNotFound;
  };
  for (size_t i = 0; i < n; ++i) {
    if (!index.app_made(i)) continue;
    if (const size_t p = app_pool_of(i); p != kNotFound) children[p].push_back(i);
  }

  HitCollector hits(index, options.max_examples);
  for (size_t i = 0; i < n; ++i) {
    const Object& o = index.object(i);
    if (!index.app_made(i) || static_cast<int64_t>(o.id) == scope) continue;
    // Memory only this object is bound to, and pool children, are counted with their owner.
    if (index.attached(i) || app_pool_of(i) != kNotFound) continue;
    HitCollector::Pending& entry = hits.add(index.group(i), i, index.held_bytes(i));
    for (size_t m : index.attached_memory(i)) {
      hits.relate(&entry, "memory", m, index.object(m).size);
    }
    if (auto it = children.find(i); it != children.end()) {
      for (size_t c : it->second) hits.relate(&entry, "pool children", c, index.held_bytes(c));
    }
  }
  return hits.finish();
}

}  // namespace vkleak::analysis
