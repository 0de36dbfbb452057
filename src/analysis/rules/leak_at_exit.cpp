#include <string>

#include "analysis/rules/rules.h"

namespace vkleak::analysis {

GroupHits find_leaks_at_exit(const SnapshotIndex& index, const AnalysisOptions& options,
                             const std::vector<uint8_t>& skip) {
  const Snapshot& s = index.snapshot();
  const size_t n = index.size();
  // The scope object itself is being destroyed, not leaked.
  const int64_t scope = s.scope_device ? *s.scope_device : s.scope_instance ? *s.scope_instance : 0;
  const auto skipped = [&](size_t i) { return !skip.empty() && skip[i]; };

  // Pool children go with their pool: one finding for the pool says how many it holds.
  std::unordered_map<size_t, std::vector<size_t>> children;
  auto app_pool_of = [&](size_t i) {
    const size_t p = pool_of(index, i);
    return p != kNotFound && index.app_made(p) ? p : kNotFound;
  };
  for (size_t i = 0; i < n; ++i) {
    if (!index.app_made(i) || skipped(i)) continue;
    if (const size_t p = app_pool_of(i); p != kNotFound) children[p].push_back(i);
  }

  // An object with a finding of its own here (not the scope, not memory attached to another, not
  // a pool child).
  const auto reported = [&](size_t i) {
    return index.app_made(i) && !skipped(i) && static_cast<int64_t>(index.object(i).id) != scope &&
           !index.attached(i) && app_pool_of(i) == kNotFound;
  };
  // A view of a leaked image or buffer is part of that leak: destroying the image is the fix,
  // and the view goes with it (one cause, one block).
  std::unordered_map<size_t, std::vector<size_t>> views;
  std::vector<uint8_t> folded(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const std::string& type = index.type(i);
    if ((type != "VkImageView" && type != "VkBufferView") || !reported(i)) continue;
    auto [first, last] = index.edges(i);
    for (const Edge* e = first; e != last; ++e) {
      const std::string& kind = s.edge_kinds[e->kind];
      if ((kind != "image" && kind != "buffer") || e->to == kNullId) continue;
      const size_t target = index.find(e->to);
      if (target == kNotFound || !reported(target)) continue;
      views[target].push_back(i);
      folded[i] = 1;
      break;
    }
  }

  HitCollector hits(index, options.max_examples);
  for (size_t i = 0; i < n; ++i) {
    // Memory only this object is bound to, pool children and views of a leaked resource are
    // counted with their owner.
    if (!reported(i) || folded[i]) continue;
    HitCollector::Pending& entry = hits.add(index.group(i), i, index.held_bytes(i));
    for (size_t m : index.attached_memory(i)) {
      hits.relate(&entry, "memory", m, index.object(m).size);
    }
    if (auto it = children.find(i); it != children.end()) {
      for (size_t c : it->second) hits.relate(&entry, "pool children", c, index.held_bytes(c));
    }
    if (auto it = views.find(i); it != views.end()) {
      for (size_t v : it->second) hits.relate(&entry, "views", v, index.held_bytes(v));
    }
  }
  return hits.finish();
}

std::vector<UndestroyedRoot> find_undestroyed_roots(const SnapshotIndex& index,
                                                    std::vector<uint8_t>* under_root) {
  const size_t n = index.size();
  under_root->assign(n, 0);
  const auto is_root_type = [&](size_t i) {
    const std::string& t = index.type(i);
    return t == "VkInstance" || t == "VkDevice";
  };
  // A device's record is in its own table (its owner is itself): its instance is in the
  // snapshot's list of devices.
  std::unordered_map<int64_t, int64_t> instance_of_device;
  for (const Device& d : index.snapshot().devices) instance_of_device[d.id] = d.instance;
  // The outermost live owner of i (an object's owner is its device or instance, a device's its
  // instance), or kNotFound when the chain leaves the snapshot or ends in no instance or device.
  const auto top_of = [&](size_t i) {
    size_t cur = i;
    for (int step = 0; step < 4; ++step) {
      const Object& o = index.object(cur);
      int64_t owner = o.owner;
      if (owner == static_cast<int64_t>(o.id)) {
        auto it = instance_of_device.find(owner);
        owner = it != instance_of_device.end() ? it->second : 0;
      }
      if (owner <= 0 || owner == static_cast<int64_t>(o.id)) break;
      const size_t up = index.find(owner);
      if (up == kNotFound) {
        if (o.owner == owner) return kNotFound;  // an owner the snapshot does not show
        break;                                   // a device whose instance is gone: the root
      }
      cur = up;
    }
    return is_root_type(cur) && index.app_made(cur) ? cur : kNotFound;
  };
  std::vector<UndestroyedRoot> roots;
  std::unordered_map<size_t, size_t> slot;  // root index -> its entry in roots
  // In id order: the same roots, members and order whatever the order of objects in the file.
  for (size_t k = 0; k < n; ++k) {
    const size_t i = index.by_id(k);
    if (!index.app_made(i)) continue;
    const size_t top = top_of(i);
    if (top == kNotFound) continue;
    auto [it, added] = slot.try_emplace(top, roots.size());
    if (added) roots.push_back(UndestroyedRoot{top, {}});
    if (i != top) roots[it->second].members.push_back(i);
    (*under_root)[i] = 1;
  }
  return roots;
}

}  // namespace vkleak::analysis
