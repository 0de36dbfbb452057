#include <algorithm>
#include <string>
#include <unordered_set>

#include "analysis/messages.h"
#include "analysis/rules/rules.h"

namespace vkleak::analysis {

namespace {

bool is_referrer_type(const std::string& type) {
  return type == "VkBufferView" || type == "VkImageView" || type == "VkDescriptorSet" ||
         type == "VkFramebuffer";
}

// References that Vulkan allows to outlive their target (a set's layout, a framebuffer's
// render pass, a pipeline layout): not stale.
bool is_lasting_reference(const std::string& kind) {
  return kind == "pSetLayouts" || kind == "renderPass" || kind == "layout" ||
         kind == "pImmutableSamplers";
}

ChainLink link_of(const SnapshotIndex& index, size_t i, ChainState state) {
  const Object& o = index.object(i);
  ChainLink link;
  link.id = o.id;
  link.type = index.type(i);
  if (const std::string* name = index.snapshot().name(o)) link.name = *name;
  link.state = state;
  return link;
}

// What a view references (its buffer or image), or kNotFound.
size_t view_target(const SnapshotIndex& index, size_t i) {
  const std::string& type = index.type(i);
  if (type != "VkBufferView" && type != "VkImageView") return kNotFound;
  auto [first, last] = index.edges(i);
  for (const Edge* e = first; e != last; ++e) {
    const std::string& kind = index.snapshot().edge_kinds[e->kind];
    if (kind == "buffer" || kind == "image") return index.find(e->to);
  }
  return kNotFound;
}

// What a referrer points at now (kinds, slots, targets): descriptor writes change it.
uint64_t targets_of(const SnapshotIndex& index, size_t i) {
  uint64_t h = 1469598103934665603ull;
  const auto mix = [&h](uint64_t x) { h = (h ^ x) * 1099511628211ull; };
  auto [first, last] = index.edges(i);
  for (const Edge* e = first; e != last; ++e) {
    if (is_lasting_reference(index.snapshot().edge_kinds[e->kind])) continue;
    mix(e->kind);
    mix(e->slot);
    mix(static_cast<uint64_t>(e->to));
  }
  return h;
}

}  // namespace

void StaleRecycleTracker::observe(const SnapshotIndex& index,
                                  const std::vector<uint8_t>& referrers) {
  // Stale at an earlier snapshot, alive now and pointing elsewhere: rewritten.
  for (auto it = stale_.begin(); it != stale_.end();) {
    const size_t i = index.find(static_cast<int64_t>(it->first));
    if (i == kNotFound) {
      it = stale_.erase(it);
      continue;
    }
    if (targets_of(index, i) != it->second.second) {
      rewritten_.insert(it->second.first);
      it = stale_.erase(it);
      continue;
    }
    ++it;
  }
  const size_t point = frames_.size();
  frames_.push_back(index.snapshot().frame);
  std::unordered_map<uint32_t, uint64_t> counts;
  for (size_t i = 0; i < referrers.size(); ++i) {
    if (referrers[i] == 0) continue;
    const uint32_t g = index.group(i);
    ++counts[g];
    stale_[index.object(i).id] = {g, targets_of(index, i)};
  }
  for (const auto& [g, n] : counts) counts_[g].emplace_back(point, n);
}

bool StaleRecycleTracker::recycled(uint32_t group, const Thresholds& thresholds) const {
  if (rewritten_.count(group) == 0) return false;
  // The stale count per snapshot after the warm-up (0 where none was stale).
  size_t first = 0;
  while (first < frames_.size() && frames_[first] < thresholds.warmup_frames) ++first;
  std::vector<uint64_t> series(frames_.size() - first, 0);
  if (auto it = counts_.find(group); it != counts_.end()) {
    for (const auto& [point, n] : it->second) {
      if (point >= first) series[point - first] = n;
    }
  }
  return !judge_growth(series, thresholds).growing;
}

GroupHits find_stale_views(const SnapshotIndex& index, const RetainedMarks& marks,
                           const std::vector<uint8_t>& exempt, const AnalysisOptions& options,
                           std::vector<uint8_t>* referrers) {
  const auto exempted = [&exempt](size_t i, uint8_t bit) {
    return !exempt.empty() && (exempt[i] & bit) != 0;
  };
  const Snapshot& s = index.snapshot();
  const size_t n = index.size();
  referrers->assign(n, 0);
  HitCollector hits(index, options.max_examples);
  // Bytes count once per pinned resource, however many referrers pin it.
  std::unordered_map<uint32_t, std::unordered_set<size_t>> counted;
  const uint64_t stale_frames = options.thresholds.min_frames_stale;

  for (size_t v = 0; v < n; ++v) {
    if (!index.app_made(v) || index.object(v).in_flight || !is_referrer_type(index.type(v)) ||
        exempted(v, kOnFreeList)) {
      continue;
    }
    // The first dangling reference, and the pinned retained object holding the most bytes.
    const Edge* dangling = nullptr;
    size_t pinned = kNotFound;
    auto [first, last] = index.edges(v);
    for (const Edge* e = first; e != last; ++e) {
      if (e->to == kNullId || is_lasting_reference(s.edge_kinds[e->kind])) continue;
      const size_t t = index.find(e->to);
      if (t == kNotFound) {
        const DestroyedObject* d = index.destroyed(e->to);
        if (d != nullptr && dangling == nullptr &&
            index.now(v) >= static_cast<uint64_t>(d->destroyed_frame) + stale_frames) {
          dangling = e;
        }
      } else if (marks.retained[t] && !exempted(t, kUnpinnable) &&
                 (pinned == kNotFound || index.held_bytes(t) > index.held_bytes(pinned))) {
        pinned = t;
      }
    }
    const uint32_t g = index.group(v);
    if (pinned == kNotFound && exempted(v, kDanglingUnjudged)) dangling = nullptr;
    if (dangling == nullptr && pinned == kNotFound) continue;
    (*referrers)[v] = pinned != kNotFound ? kPinning : kDangling;

    Chain chain;
    chain.links.push_back(
        link_of(index, v, marks.retained[v] ? ChainState::kRetained : ChainState::kLive));
    if (pinned != kNotFound) {
      // referrer -> retained object [-> the resource a view of it sees] -> memory
      chain.links.push_back(link_of(index, pinned, ChainState::kRetained));
      size_t resource = pinned;
      if (const size_t r = view_target(index, pinned); r != kNotFound) {
        chain.links.push_back(
            link_of(index, r, marks.retained[r] ? ChainState::kRetained : ChainState::kLive));
        resource = r;
      }
      for (size_t m : index.attached_memory(resource)) {
        chain.links.push_back(link_of(index, m, ChainState::kLive));
        chain.links.back().bytes = index.object(m).size;
      }
      chain.bytes = index.held_bytes(resource);
      if (index.attached_memory(resource).empty()) chain.links.back().bytes = chain.bytes;
      const bool first_time = counted[g].insert(resource).second;
      HitCollector::Pending& entry = hits.add(g, v, first_time ? chain.bytes : 0);
      ++entry.stale_pinning;
      if (first_time) {
        hits.relate(&entry, "pinned", pinned, 0);
        if (resource != pinned) hits.relate(&entry, "pinned", resource, 0);
        for (size_t m : index.attached_memory(resource)) {
          hits.relate(&entry, "memory", m, index.object(m).size);
        }
      }
      ++entry.chains_total;
      if (entry.chains.size() < options.max_examples) entry.chains.push_back(std::move(chain));
    } else {
      const DestroyedObject* d = index.destroyed(dangling->to);
      HitCollector::Pending& entry = hits.add(g, v, 0);
      if (!entry.stale_target) {
        StaleTarget t;
        t.referrer = describe_object(index.type(v), s.name(index.object(v)), index.object(v).id);
        t.target =
            describe_object(s.type_names[d->type],
                            d->name != kNoName ? &s.names[static_cast<size_t>(d->name)] : nullptr,
                            static_cast<uint64_t>(d->id));
        t.destroyed_frame = static_cast<uint64_t>(d->destroyed_frame);
        t.destroy_callsite = index.callsite_id(d->destroy_callsite);
        entry.stale_target = std::move(t);
      }
      ChainLink link;
      link.id = static_cast<uint64_t>(d->id);
      link.type = s.type_names[d->type];
      if (d->name != kNoName) link.name = s.names[static_cast<size_t>(d->name)];
      link.state = ChainState::kDestroyed;
      link.destroyed_frame = static_cast<uint64_t>(d->destroyed_frame);
      chain.links.push_back(std::move(link));
      ++entry.stale_dangling;
      hits.relate_destroyed(&entry, *d);
      const auto frame = static_cast<uint64_t>(d->destroyed_frame);
      if (!entry.stale_first_destroyed || frame < *entry.stale_first_destroyed) {
        entry.stale_first_destroyed = frame;
      }
      if (!entry.stale_last_destroyed || frame > *entry.stale_last_destroyed) {
        entry.stale_last_destroyed = frame;
      }
      ++entry.chains_total;
      if (entry.chains.size() < options.max_examples) entry.chains.push_back(std::move(chain));
    }
  }
  return hits.finish();
}

}  // namespace vkleak::analysis
