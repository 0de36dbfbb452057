#include "core/summary.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "format/snapshot_format.h"
#include "shared/escape.h"

namespace vkleak {

std::vector<TypeTotal> type_totals(const Snapshot& snapshot) {
  std::vector<TypeTotal> totals(snapshot.type_names.size());
  for (size_t i = 0; i < totals.size(); ++i) totals[i].type = snapshot.type_names[i];
  for (const Object& o : snapshot.objects) {
    TypeTotal& t = totals[o.type];
    ++t.live;
    t.bytes = saturating_add(t.bytes, o.size);
  }
  // The type table also names types only edges or destroyed objects have.
  totals.erase(
      std::remove_if(totals.begin(), totals.end(), [](const TypeTotal& t) { return t.live == 0; }),
      totals.end());
  std::sort(totals.begin(), totals.end(), [](const TypeTotal& a, const TypeTotal& b) {
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.live != b.live) return a.live > b.live;
    return a.type < b.type;
  });
  return totals;
}

std::vector<CountMismatch> check_counts(const Snapshot& snapshot,
                                        const std::vector<TypeTotal>& totals) {
  std::map<std::string, CountMismatch> by_type;
  for (const TypeTotal& t : totals) by_type[t.type].objects = t;
  for (const auto& [type, count] : snapshot.counts) by_type[type].declared = count;
  std::vector<CountMismatch> mismatches;
  for (auto& [type, m] : by_type) {
    if (m.objects.live == m.declared.live && m.objects.bytes == m.declared.bytes) continue;
    m.type = type;
    m.objects.type = type;
    mismatches.push_back(std::move(m));
  }
  return mismatches;
}

std::vector<CallsiteGroup> group_by_callsite(const Snapshot& snapshot, size_t max_examples) {
  // Index 0 is the "no call site" group; call site i is group i + 1.
  std::vector<CallsiteGroup> groups(snapshot.callsites.size() + 1);
  std::vector<std::unordered_map<uint16_t, uint64_t>> types(groups.size());
  for (const Object& o : snapshot.objects) {
    const size_t g = static_cast<size_t>(o.callsite + 1);
    CallsiteGroup& group = groups[g];
    ++group.count;
    group.bytes = saturating_add(group.bytes, o.size);
    ++types[g][o.type];
    if (o.name != kNoName && group.example_names.size() < max_examples &&
        std::find(group.example_names.begin(), group.example_names.end(), o.name) ==
            group.example_names.end()) {
      group.example_names.push_back(o.name);
    }
  }
  std::vector<CallsiteGroup> result;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].count == 0) continue;
    CallsiteGroup& group = groups[g];
    group.callsite = static_cast<int32_t>(g) - 1;
    group.types.assign(types[g].begin(), types[g].end());
    std::sort(group.types.begin(), group.types.end(), [&](const auto& a, const auto& b) {
      if (a.second != b.second) return a.second > b.second;
      return snapshot.type_names[a.first] < snapshot.type_names[b.first];
    });
    result.push_back(std::move(group));
  }
  std::sort(result.begin(), result.end(), [](const CallsiteGroup& a, const CallsiteGroup& b) {
    if (a.count != b.count) return a.count > b.count;
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    return a.callsite < b.callsite;
  });
  return result;
}

bool frames_at_submits_auto(const Snapshot& snapshot) {
  for (const Device& d : snapshot.devices)
    if (d.frame_boundary_auto && d.frame_boundary == format::name(format::FrameBoundary::kSubmit))
      return true;
  return false;
}

}  // namespace vkleak
