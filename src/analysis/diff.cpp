#include "analysis/diff.h"

#include <algorithm>
#include <map>
#include <memory>
#include <unordered_map>

#include "analysis/callsites.h"
#include "analysis/grouping.h"
#include "analysis/hits.h"
#include "analysis/snapshot_index.h"
#include "shared/escape.h"

namespace vkleak::analysis {

namespace {

DiffSide side_of(const Snapshot& s) {
  DiffSide d;
  d.path = s.path;
  d.pid = s.pid;
  d.sequence = s.sequence;
  d.reason = s.reason;
  d.frame = s.frame;
  d.objects = s.objects.size();
  for (const Object& o : s.objects) d.max_id = std::max(d.max_id, o.id);
  return d;
}

int64_t delta(const std::vector<uint64_t>& v) {
  return saturating_delta(v.front(), v.back());
}

}  // namespace

DiffResult diff_snapshots(const Snapshot& a, const Snapshot& b, const Snapshot* c,
                          const AnalysisOptions& options) {
  DiffResult result;
  std::vector<const Snapshot*> snaps = {&a, &b};
  if (c != nullptr) snaps.push_back(c);
  result.three = c != nullptr;
  for (const Snapshot* s : snaps) result.sides.push_back(side_of(*s));
  const size_t n = snaps.size();
  for (const Snapshot* s : snaps) result.same_process &= s->pid == a.pid;
  if (!result.same_process) {
    result.notes.push_back(
        "the snapshots come from different processes: object ids do not compare, so only counts "
        "and bytes per type and per call site are compared");
  }

  CallsiteTable callsites(options.symbolize);
  GroupTable groups;
  std::vector<std::unique_ptr<SnapshotIndex>> index;
  for (const Snapshot* s : snaps)
    index.push_back(std::make_unique<SnapshotIndex>(*s, &callsites, &groups));

  std::map<std::string, DiffRow> types;
  std::unordered_map<uint32_t, DiffRow> rows;
  for (size_t k = 0; k < n; ++k) {
    const SnapshotIndex& ix = *index[k];
    for (size_t i = 0; i < ix.size(); ++i) {
      DiffRow& t = types[ix.type(i)];
      if (t.live.empty()) {
        t.object_type = ix.type(i);
        t.live.assign(n, 0);
        t.bytes.assign(n, 0);
      }
      ++t.live[k];
      t.bytes[k] = saturating_add(t.bytes[k], ix.object(i).size);
      if (ix.attached(i)) continue;  // counted with the object it is bound to
      DiffRow& g = rows[ix.group(i)];
      if (g.live.empty()) {
        g.live.assign(n, 0);
        g.bytes.assign(n, 0);
      }
      ++g.live[k];
      g.bytes[k] = saturating_add(g.bytes[k], ix.held_bytes(i));
    }
  }

  // The born objects: after A (and, for three, no later than B's newest), alive in the last.
  const SnapshotIndex& last = *index.back();
  HitCollector born(last, options.max_examples);
  if (result.same_process) {
    const uint64_t low = result.sides[0].max_id;
    const uint64_t high = result.three ? result.sides[1].max_id : UINT64_MAX;
    for (size_t i = 0; i < last.size(); ++i) {
      const uint64_t id = last.object(i).id;
      if (id <= low || id > high || last.attached(i)) continue;
      HitCollector::Pending& p = born.add(last.group(i), i, last.held_bytes(i));
      for (size_t m : last.attached_memory(i)) born.relate(&p, "memory", m, last.object(m).size);
    }
  }
  for (auto& [group, h] : born.finish()) {
    DiffRow& g = rows[group];
    g.born = h.count;
    g.born_bytes = h.bytes;
    result.born += h.count;
    result.born_bytes = saturating_add(result.born_bytes, h.bytes);
    std::sort(h.names.begin(), h.names.end(), natural_less);
    const size_t shown = std::min<size_t>(h.names.size(), options.max_names);
    g.names.assign(h.names.begin(), h.names.begin() + static_cast<std::ptrdiff_t>(shown));
    g.names_omitted = h.names.size() - shown;
    g.name_pattern = join_patterns(h.primary_names);
    g.examples = std::move(h.examples);
  }

  for (auto& [type, row] : types) result.types.push_back(std::move(row));
  std::sort(result.types.begin(), result.types.end(), [](const DiffRow& x, const DiffRow& y) {
    const auto kx = std::make_pair(magnitude(delta(x.bytes)), magnitude(delta(x.live)));
    const auto ky = std::make_pair(magnitude(delta(y.bytes)), magnitude(delta(y.live)));
    return kx != ky ? kx > ky : x.object_type < y.object_type;
  });
  for (auto& [group, row] : rows) {
    if (row.born == 0 && delta(row.live) == 0 && delta(row.bytes) == 0) continue;
    const GroupTable::Group& g = groups.at(group);
    row.object_type = groups.type_name(g.type);
    if (g.pattern != kNoPattern) row.name_pattern = groups.pattern(g.pattern);
    row.callsite = callsites.frames(g.callsite);
    result.groups.push_back(std::move(row));
  }
  std::sort(result.groups.begin(), result.groups.end(), [](const DiffRow& x, const DiffRow& y) {
    const auto kx =
        std::make_tuple(x.born_bytes, x.born, magnitude(delta(x.bytes)), magnitude(delta(x.live)));
    const auto ky =
        std::make_tuple(y.born_bytes, y.born, magnitude(delta(y.bytes)), magnitude(delta(y.live)));
    if (kx != ky) return kx > ky;
    return std::tie(x.object_type, x.name_pattern) < std::tie(y.object_type, y.name_pattern);
  });
  return result;
}

}  // namespace vkleak::analysis
