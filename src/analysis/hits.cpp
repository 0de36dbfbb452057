#include "analysis/hits.h"

#include <algorithm>
#include <iterator>

#include "shared/escape.h"

namespace vkleak::analysis {

namespace {

template <typename T>
void keep_min(std::optional<T>* a, const std::optional<T>& b) {
  if (b && (!*a || *b < **a)) *a = b;
}
template <typename T>
void keep_max(std::optional<T>* a, const std::optional<T>& b) {
  if (b && (!*a || *b > **a)) *a = b;
}

}  // namespace

ExampleObject example_of(const SnapshotIndex& index, size_t i) {
  const Object& o = index.object(i);
  ExampleObject e;
  e.id = o.id;
  e.type = index.type(i);
  e.handle = o.handle;
  if (const std::string* name = index.snapshot().name(o)) e.name = *name;
  e.frame = o.frame;
  e.bytes = index.held_bytes(i);
  if (index.last_use(i) != kNever) e.last_use_frame = index.last_use(i);
  return e;
}

void Hits::merge(Hits&& other, size_t max_examples) {
  count += other.count;
  bytes = saturating_add(bytes, other.bytes);
  first_frame = std::min(first_frame, other.first_frame);
  last_frame = std::max(last_frame, other.last_frame);
  keep_max(&last_used, other.last_used);
  keep_max(&group_last_used, other.group_last_used);
  std::vector<std::string> all;
  std::set_union(names.begin(), names.end(), other.names.begin(), other.names.end(),
                 std::back_inserter(all));
  names = std::move(all);
  std::vector<std::string> primary;
  std::set_union(primary_names.begin(), primary_names.end(), other.primary_names.begin(),
                 other.primary_names.end(), std::back_inserter(primary));
  primary_names = std::move(primary);
  for (ExampleObject& e : other.examples) examples.push_back(std::move(e));
  std::sort(examples.begin(), examples.end(),
            [](const ExampleObject& a, const ExampleObject& b) { return a.id < b.id; });
  if (examples.size() > max_examples) examples.resize(max_examples);
  for (const auto& [key, sites] : other.related_callsites) {
    for (const auto& [site, n] : sites) related_callsites[key][site] += n;
  }
  for (auto& [key, r] : other.related) {
    Related& mine = related[key];
    mine.relation = r.relation;
    mine.type = r.type;
    mine.count += r.count;
    mine.bytes = saturating_add(mine.bytes, r.bytes);
  }
  for (Chain& c : other.chains) {
    if (chains.size() < max_examples) chains.push_back(std::move(c));
  }
  chains_total += other.chains_total;
  keep_min(&stale_first_destroyed, other.stale_first_destroyed);
  keep_max(&stale_last_destroyed, other.stale_last_destroyed);
  stale_dangling += other.stale_dangling;
  stale_pinning += other.stale_pinning;
  if (!stale_target) stale_target = std::move(other.stale_target);
  std::vector<std::pair<uint64_t, uint64_t>> all_objects;
  all_objects.reserve(objects.size() + other.objects.size());
  std::merge(objects.begin(), objects.end(), other.objects.begin(), other.objects.end(),
             std::back_inserter(all_objects));
  objects = std::move(all_objects);
  if (other.retainers) {
    // Each teardown snapshot's own roots (another device's): together, largest first, capped.
    if (!retainers) retainers.emplace();
    for (RetainerRoot& r : *other.retainers) retainers->push_back(std::move(r));
    retainers_omitted += other.retainers_omitted;
    std::stable_sort(
        retainers->begin(), retainers->end(),
        [](const RetainerRoot& a, const RetainerRoot& b) { return a.bytes > b.bytes; });
    if (retainers->size() > max_examples) {
      retainers_omitted += retainers->size() - max_examples;
      retainers->resize(max_examples);
    }
  }
  // The latest snapshot speaks for the merged hits.
  snapshot_frame = other.snapshot_frame;
  snapshot_path = std::move(other.snapshot_path);
  snapshot_reason = std::move(other.snapshot_reason);
}

HitCollector::Pending& HitCollector::add(uint32_t group, size_t i, uint64_t bytes) {
  Pending& p = pending_[group];
  const Object& o = index_.object(i);
  ++p.count;
  p.bytes = saturating_add(p.bytes, bytes);
  p.objects.emplace_back(o.id, bytes);
  p.first_frame = std::min<uint64_t>(p.first_frame, o.frame);
  p.last_frame = std::max<uint64_t>(p.last_frame, o.frame);
  if (index_.last_use(i) != kNever)
    keep_max(&p.last_used, std::optional<uint64_t>(index_.last_use(i)));
  if (o.name != kNoName) {
    p.names.push_back(o.name);
    p.primary_names.push_back(o.name);
  }
  // The oldest objects make the best examples: they have been there longest.
  auto by_id = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (p.examples.size() < max_examples_) {
    p.examples.emplace_back(o.id, i);
    std::push_heap(p.examples.begin(), p.examples.end(), by_id);
  } else if (max_examples_ > 0 && o.id < p.examples.front().first) {
    std::pop_heap(p.examples.begin(), p.examples.end(), by_id);
    p.examples.back() = {o.id, i};
    std::push_heap(p.examples.begin(), p.examples.end(), by_id);
  }
  return p;
}

void HitCollector::relate(Pending* entry, const std::string& relation, size_t j, uint64_t bytes) {
  const std::string& type = index_.type(j);
  Related& r = entry->related[{relation, type}];
  r.relation = relation;
  r.type = type;
  ++r.count;
  r.bytes = saturating_add(r.bytes, bytes);
  // What made the pool's sets is what a leaked pool's finding must name.
  if (relation == "pool children") ++entry->related_callsites[{relation, type}][index_.callsite(j)];
  const Object& o = index_.object(j);
  if (o.name != kNoName) entry->names.push_back(o.name);
}

void HitCollector::relate_destroyed(Pending* entry, const DestroyedObject& d) {
  const std::string& type = index_.snapshot().type_names[d.type];
  Related& r = entry->related[{"destroyed", type}];
  r.relation = "destroyed";
  r.type = type;
  ++r.count;
  if (d.name != kNoName) entry->names.push_back(d.name);
}

namespace {

std::vector<std::string> distinct_names(std::vector<int32_t>* ids, const Snapshot& s) {
  std::sort(ids->begin(), ids->end());
  ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
  std::vector<std::string> out;
  out.reserve(ids->size());
  for (int32_t n : *ids) out.push_back(s.names[static_cast<size_t>(n)]);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::unordered_map<uint32_t, Hits> HitCollector::finish() {
  std::unordered_map<uint32_t, Hits> out;
  const Snapshot& s = index_.snapshot();
  for (auto& [group, p] : pending_) {
    Hits h;
    h.count = p.count;
    h.bytes = p.bytes;
    h.first_frame = p.first_frame;
    h.last_frame = p.last_frame;
    h.last_used = p.last_used;
    h.group_last_used = p.group_last_used;
    h.names = distinct_names(&p.names, s);
    h.primary_names = distinct_names(&p.primary_names, s);
    std::sort(p.examples.begin(), p.examples.end());
    for (const auto& [id, i] : p.examples) h.examples.push_back(example_of(index_, i));
    h.related = std::move(p.related);
    h.related_callsites = std::move(p.related_callsites);
    h.chains = std::move(p.chains);
    h.chains_total = p.chains_total;
    h.stale_first_destroyed = p.stale_first_destroyed;
    h.stale_last_destroyed = p.stale_last_destroyed;
    h.stale_dangling = p.stale_dangling;
    h.stale_pinning = p.stale_pinning;
    h.stale_target = std::move(p.stale_target);
    std::sort(p.objects.begin(), p.objects.end());
    h.objects = std::move(p.objects);
    h.snapshot_frame = s.frame;
    h.snapshot_path = s.path;
    h.snapshot_reason = s.reason;
    out.emplace(group, std::move(h));
  }
  pending_.clear();
  return out;
}

}  // namespace vkleak::analysis
