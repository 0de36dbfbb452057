// Retainers: why objects are still alive. The snapshot's references (edges: descriptors, views,
// bindings, attachments; and pools' ownership of their sets and command buffers) form a graph;
// its roots are the objects nothing live references. Each object is labelled with the one root
// it is reachable from, or as shared (reachable from several), in one pass linear in objects and
// edges; a root's retained bytes are those of the objects labelled with it (dominator-style at
// the level of roots). A cycle that no root reaches gets its first object as its root.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "analysis/finding.h"
#include "analysis/snapshot_index.h"

namespace vkleak::analysis {

class Retainers {
 public:
  explicit Retainers(const SnapshotIndex& index);

  // The roots keeping these objects (indices into the snapshot) alive, largest bytes first, at
  // most max_roots (the rest counted in *omitted); objects that are their own root (nothing
  // references them) have none.
  std::vector<RetainerRoot> of(const std::vector<size_t>& objects, size_t max_roots,
                               uint64_t* omitted);
  // The same for the live objects of a group.
  std::vector<RetainerRoot> of_group(uint32_t group, size_t max_roots, uint64_t* omitted);

  // Exposed for tests: the root of object i, kShared, or i itself for a root.
  static constexpr uint32_t kShared = UINT32_MAX - 1;
  uint32_t root(size_t i) const { return label_[i]; }

 private:
  struct Tally {
    std::unordered_map<uint16_t, uint64_t> types;
    uint64_t bytes = 0;
  };
  void propagate(std::vector<uint32_t>* queue);
  // Bytes an object holds on its own: memory its size, a bound resource nothing (its memory is
  // counted), anything else its size.
  uint64_t own_bytes(size_t i) const;
  // Objects reachable from `from` whose label is `label` (from included), tallied.
  void tally_region(const std::vector<uint32_t>& from, uint32_t label, Tally* out);
  RetainerRoot make_root(const Tally& t, uint32_t root) const;
  std::vector<ChainLink> path_to(size_t i) const;

  const SnapshotIndex& index_;
  std::vector<uint32_t> child_begin_;  // children of i: children_[child_begin_[i] ..]
  std::vector<uint32_t> children_;
  std::vector<uint32_t> label_;
  std::vector<uint32_t> pred_;   // who first gave it its label: the way back to its root
  std::vector<uint8_t> bound_;   // has a memory edge to live memory
  std::vector<uint32_t> visit_;  // epoch of the last region walk that saw it
  uint32_t epoch_ = 0;
  std::unordered_map<uint32_t, Tally> roots_;                   // tallies computed so far, by root
  std::unordered_map<uint32_t, std::vector<uint32_t>> groups_;  // built on first of_group
  bool groups_built_ = false;
};

}  // namespace vkleak::analysis
