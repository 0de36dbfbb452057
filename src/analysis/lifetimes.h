// The run's objects as the HTML explorer draws them (timeline, flame graph, diff), without
// per-object data: per group (object type + creation call site, the GroupTable groups) how many
// objects lived from snapshot `first` to snapshot `last` (both inclusive, indices into
// RunLifetimes::snapshots) and the bytes they held. An object is alive at snapshot s iff
// first <= s <= last; "alive at the end" is last == snapshots.size() - 1.
//
// Objects are counted as the series and `vkleak diff` count them: memory bound to exactly one
// object goes with that object (its held bytes), never on its own. An object's bytes are those
// of the last snapshot that listed it (held bytes rarely change while an object lives).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace vkleak::analysis {

struct Frame;  // finding.h

struct LifetimeCell {
  uint32_t group = 0;
  uint32_t first = 0;
  uint32_t last = 0;
  uint64_t count = 0;
  uint64_t bytes = 0;
};

struct LifetimeGroup {
  std::string object_type;
  std::string name_pattern;     // the names' patterns joined by '|', "" when unnamed
  std::vector<Frame> callsite;  // innermost first, inlined frames included, as Finding::callsite
};

struct LifetimeSnapshot {
  size_t report_index = 0;  // into RunReport::snapshots
  uint64_t sequence = 0;
  uint64_t frame = 0;
  uint64_t time_ms = 0;
  std::string reason;
  std::optional<std::string> label;
};

struct RunLifetimes {
  // The snapshots that list every live object (not device/instance-teardown scoped ones), in
  // order.
  std::vector<LifetimeSnapshot> snapshots;
  std::vector<LifetimeGroup> groups;
  std::vector<LifetimeCell> cells;  // sorted by group, first, last
  // Over the cap (AnalysisOptions::max_lifetime_cells): cells dropped, and their objects/bytes.
  uint64_t cells_omitted = 0, objects_omitted = 0, bytes_omitted = 0;
};

// Builds RunLifetimes as snapshots arrive. Memory follows the live set: only the objects of the
// previous snapshot are kept (id -> first, group, bytes), plus the closed cells; a cell is closed
// when its objects disappear. Linear in the objects of each snapshot.
class LifetimeCollector {
 public:
  // One object of a snapshot, in increasing id order.
  struct Entry {
    uint64_t id;
    uint32_t group;
    uint64_t bytes;
  };

  // A snapshot that lists every live object: entry(k, &e) gives its k-th object in increasing
  // id order (k < n), false for one not counted (attached memory); pattern(k) its name pattern
  // id or UINT32_MAX, asked only for objects new in this snapshot.
  template <typename EntryOf, typename PatternOf>
  void add(LifetimeSnapshot snapshot, size_t n, EntryOf entry, PatternOf pattern);

  // Closes the objects alive at the end. groups_out: the analysis group of each
  // RunLifetimes::groups entry, for the caller to describe (type, call site, patterns via
  // patterns_of()). keep_groups: analysis groups that must be listed even without cells.
  RunLifetimes finish(size_t max_cells, const std::vector<uint32_t>& keep_groups,
                      std::vector<uint32_t>* groups_out);

  // The distinct name pattern ids seen on a group's objects (at most a few).
  const std::vector<uint32_t>* patterns_of(uint32_t group) const;

 private:
  struct Live {
    uint64_t id;
    uint32_t first;
    uint32_t group;
    uint64_t bytes;
  };
  struct Key {
    uint32_t group, first, last;
    bool operator==(const Key& o) const {
      return group == o.group && first == o.first && last == o.last;
    }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      uint64_t h = (uint64_t{k.group} << 32 | k.first) * 0x9e3779b97f4a7c15ull;
      return static_cast<size_t>(h ^ (h >> 29) ^ (uint64_t{k.last} * 0xbf58476d1ce4e5b9ull));
    }
  };
  struct Sum {
    uint64_t count = 0;
    uint64_t bytes = 0;
  };

  void close(const Live& l, uint32_t last);
  void note_pattern(uint32_t group, uint32_t pattern);

  std::vector<LifetimeSnapshot> snapshots_;
  std::vector<Live> live_;  // of the previous snapshot, by id
  std::vector<Live> next_;
  std::unordered_map<Key, Sum, KeyHash> cells_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> patterns_;
};

inline constexpr size_t kMaxGroupPatterns = 4;

template <typename EntryOf, typename PatternOf>
void LifetimeCollector::add(LifetimeSnapshot snapshot, size_t n, EntryOf entry, PatternOf pattern) {
  const auto s = static_cast<uint32_t>(snapshots_.size());
  snapshots_.push_back(std::move(snapshot));
  next_.clear();
  next_.reserve(n);
  size_t p = 0;
  Entry e{};
  for (size_t k = 0; k < n; ++k) {
    if (!entry(k, &e)) continue;
    while (p < live_.size() && live_[p].id < e.id) close(live_[p++], s - 1);
    if (p < live_.size() && live_[p].id == e.id && live_[p].group == e.group) {
      next_.push_back(Live{e.id, live_[p].first, e.group, e.bytes});
      ++p;
      continue;
    }
    // Same id, other group: cannot happen within one process; counted as a new object.
    if (p < live_.size() && live_[p].id == e.id) close(live_[p++], s - 1);
    next_.push_back(Live{e.id, s, e.group, e.bytes});
    const uint32_t pat = pattern(k);
    if (pat != UINT32_MAX) note_pattern(e.group, pat);
  }
  while (p < live_.size()) close(live_[p++], s - 1);
  live_.swap(next_);
  // The previous set's memory is not kept for the next snapshot's: the live set only.
  next_ = {};
}

}  // namespace vkleak::analysis
