// destroyed_in_flight and invalid_destroy: the layer detects them as they happen and each
// snapshot carries the events since the previous one. This rule groups them (kind, type, name
// pattern) and finds the creation call site of the object each one names.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

#include "analysis/finding.h"
#include "analysis/options.h"
#include "analysis/snapshot_index.h"

namespace vkleak::analysis {

// (id, call site id) of every object of a snapshot, sorted by id.
using IdCallsites = std::vector<std::pair<uint64_t, uint32_t>>;
IdCallsites id_callsites(const SnapshotIndex& index);

class EventRule {
 public:
  explicit EventRule(const AnalysisOptions& options) : options_(options) {}

  struct Group {
    FindingKind kind = FindingKind::kDestroyedInFlight;
    std::string type;
    std::string pattern;
    uint64_t count = 0;
    uint64_t first_frame = UINT64_MAX;
    uint64_t last_frame = 0;
    std::vector<EventExample> examples;
    std::vector<std::string> names;  // distinct, in order of first appearance
    uint32_t callsite = UINT32_MAX;
    std::string callsite_source = "none";
    std::optional<std::string> lookup_name;  // for a call site by name, while none is found
    std::string snapshot;
    std::vector<std::string> reasons;  // invalid_destroy: the events' reasons, distinct
    // The first event's headline and stacks (Finding::stacks, with call site ids).
    std::string headline;
    struct Stack {
      std::string label;
      uint32_t callsite = kNoCallsiteId;
      std::vector<std::string> lines;
      std::string note;
      // "created here" of an event that did not record the creation: the group's call site
      // (found as before the layer recorded it) stands in, and the note says so.
      bool creation_fallback = false;
    };
    std::vector<Stack> stacks;
  };

  // The events of one snapshot. previous: the objects of the snapshot before it, where the
  // objects these events name were last seen alive.
  void add(const SnapshotIndex& index, const IdCallsites& previous);
  // Call sites still missing, from objects of index with the same type and name (the object
  // made again after the event, usually by the same code).
  void resolve_by_name(const SnapshotIndex& index);

  std::vector<Group> take() {
    names_seen_.clear();
    by_key_.clear();
    return std::move(groups_);
  }
  uint64_t duplicate_handles() const { return duplicate_handles_; }

 private:
  const AnalysisOptions& options_;
  std::vector<Group> groups_;
  std::vector<std::unordered_set<std::string>> names_seen_;  // per group: its names
  std::map<std::tuple<int, std::string, std::string>, size_t> by_key_;
  uint64_t duplicate_handles_ = 0;
};

}  // namespace vkleak::analysis
