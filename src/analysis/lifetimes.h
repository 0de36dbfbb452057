// The run's objects as the HTML explorer draws them (timeline, flame graph, diff), without
// per-object data: per group (object type + creation call site, the GroupTable groups) how many
// objects lived from snapshot `first` to snapshot `last` (both inclusive, indices into
// RunLifetimes::snapshots) and the bytes they held. An object is alive at snapshot s iff
// first <= s <= last; "alive at the end" is last == snapshots.size() - 1.
//
// Every object is counted once. Memory bound to exactly one object is counted in its own group
// (marked `attached`) with bytes 0: its bytes are that object's held bytes, as in the series and
// `vkleak diff`, so each byte is counted once. An object's bytes and attached state are those of
// the last snapshot that listed it.
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
  // Memory bound to exactly one object: counted here, its bytes with that object (cells: 0).
  bool attached = false;
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

// Builds RunLifetimes as snapshots arrive. Memory follows the live set: of the previous
// snapshot's objects only their first snapshot is kept here (4 bytes each); their ids, groups
// and bytes are read from that snapshot, which the analyzer keeps until the next one. A cell is
// closed when its objects disappear. Linear in the objects of each snapshot.
class LifetimeCollector {
 public:
  // One object of a snapshot.
  struct Entry {
    uint64_t id;
    uint32_t group;
    uint64_t bytes;
  };

  // A snapshot that lists every live object, and the previous one given to add() (none: n 0).
  // entry(k, &e) gives a snapshot's k-th object in increasing id order, false for one not
  // counted: the same answers for the previous snapshot as when it was added. An object whose
  // group differs from the previous snapshot's (memory attached, then not) keeps its first
  // snapshot and is closed in its last group. pattern(k): the k-th object's name pattern id or
  // UINT32_MAX, asked only for objects new in this snapshot.
  template <typename PrevOf, typename EntryOf, typename PatternOf>
  void add(LifetimeSnapshot snapshot, size_t prev_n, PrevOf prev, size_t n, EntryOf entry,
           PatternOf pattern);

  // Closes the objects alive at the end (prev: the last snapshot added, as in add()).
  // groups_out: the analysis group of each RunLifetimes::groups entry, for the caller to
  // describe (type, call site, patterns via patterns_of()). keep_groups: analysis groups that
  // must be listed even without cells.
  template <typename PrevOf>
  RunLifetimes finish(size_t max_cells, const std::vector<uint32_t>& keep_groups,
                      std::vector<uint32_t>* groups_out, size_t prev_n, PrevOf prev);

  // The distinct name pattern ids seen on a group's objects (at most a few).
  const std::vector<uint32_t>* patterns_of(uint32_t group) const;

 private:
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

  // The previous snapshot's counted objects, in id order, with their first snapshots.
  template <typename PrevOf>
  class PrevCursor {
   public:
    PrevCursor(size_t n, PrevOf& of, const std::vector<uint32_t>& first)
        : n_(n), of_(of), first_(first) {
      next();
    }
    bool has() const { return has_; }
    const Entry& entry() const { return e_; }
    // Its first snapshot (`fallback` should the previous snapshot not answer as before).
    uint32_t first(uint32_t fallback) const { return q_ < first_.size() ? first_[q_] : fallback; }
    void next() {
      if (has_) ++q_;
      has_ = false;
      while (p_ < n_ && !has_) has_ = of_(p_++, &e_);
    }

   private:
    size_t n_, p_ = 0, q_ = 0;
    PrevOf& of_;
    const std::vector<uint32_t>& first_;
    bool has_ = false;
    Entry e_{};
  };

  void close(uint32_t group, uint32_t first, uint32_t last, uint64_t bytes);
  void note_pattern(uint32_t group, uint32_t pattern);
  RunLifetimes finish_cells(size_t max_cells, const std::vector<uint32_t>& keep_groups,
                            std::vector<uint32_t>* groups_out);

  std::vector<LifetimeSnapshot> snapshots_;
  std::vector<uint32_t> first_;  // of the previous snapshot's counted objects, in id order
  std::unordered_map<Key, Sum, KeyHash> cells_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> patterns_;
};

inline constexpr size_t kMaxGroupPatterns = 4;

template <typename PrevOf, typename EntryOf, typename PatternOf>
void LifetimeCollector::add(LifetimeSnapshot snapshot, size_t prev_n, PrevOf prev, size_t n,
                            EntryOf entry, PatternOf pattern) {
  const auto s = static_cast<uint32_t>(snapshots_.size());
  snapshots_.push_back(std::move(snapshot));
  std::vector<uint32_t> first;
  first.reserve(n);
  PrevCursor<PrevOf> old(prev_n, prev, first_);
  const auto close_old = [&] {
    const Entry& o = old.entry();
    close(o.group, old.first(s - 1), s - 1, o.bytes);
    old.next();
  };
  Entry e{};
  for (size_t k = 0; k < n; ++k) {
    if (!entry(k, &e)) continue;
    while (old.has() && old.entry().id < e.id) close_old();
    if (old.has() && old.entry().id == e.id) {
      if (old.entry().group != e.group) {
        const uint32_t pat = pattern(k);
        if (pat != UINT32_MAX) note_pattern(e.group, pat);
      }
      first.push_back(old.first(s));
      old.next();
      continue;
    }
    first.push_back(s);
    const uint32_t pat = pattern(k);
    if (pat != UINT32_MAX) note_pattern(e.group, pat);
  }
  while (old.has()) close_old();
  first_.swap(first);
}

template <typename PrevOf>
RunLifetimes LifetimeCollector::finish(size_t max_cells, const std::vector<uint32_t>& keep_groups,
                                       std::vector<uint32_t>* groups_out, size_t prev_n,
                                       PrevOf prev) {
  if (!snapshots_.empty()) {
    const auto end = static_cast<uint32_t>(snapshots_.size() - 1);
    for (PrevCursor<PrevOf> old(prev_n, prev, first_); old.has(); old.next()) {
      close(old.entry().group, old.first(end), end, old.entry().bytes);
    }
  }
  first_ = {};
  return finish_cells(max_cells, keep_groups, groups_out);
}

}  // namespace vkleak::analysis
