// Comparing snapshots. Two: what changed from A to B, per type and per group (type + creation
// call site), and the objects born after A that are still alive in B. Three: the objects born
// between A and B that are still alive in C, the heap profilers' three-snapshot technique
// (things made during one repetition of an action and never freed afterwards).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/finding.h"
#include "analysis/options.h"
#include "core/snapshot.h"

namespace vkleak::analysis {

struct DiffSide {
  std::string path;
  uint64_t pid = 0;
  uint64_t sequence = 0;
  std::string reason;
  uint64_t frame = 0;
  uint64_t objects = 0;
  uint64_t max_id = 0;  // the newest object: everything born later has a larger id
};

struct DiffRow {
  std::string object_type;
  std::string name_pattern;        // groups: the names' patterns
  std::vector<Frame> callsite;     // groups: the creation call site
  std::vector<std::string> names;  // groups: distinct names, at most max_names
  uint64_t names_omitted = 0;
  std::vector<uint64_t> live;           // per snapshot, A, B (, C)
  std::vector<uint64_t> bytes;          // per snapshot: for groups what the objects hold
  uint64_t born = 0, born_bytes = 0;    // two: born after A, alive in B; three: see header
  std::vector<ExampleObject> examples;  // of the born ones, oldest first
};

struct DiffResult {
  std::vector<DiffSide> sides;  // A, B and maybe C
  bool same_process = true;     // ids compare only within one process
  bool three = false;
  std::vector<DiffRow> types;   // by type, all of them
  std::vector<DiffRow> groups;  // by group, changed ones, most bytes then count first
  uint64_t born = 0, born_bytes = 0;
  std::vector<std::string> notes;
};

// a, b (and c for the three-snapshot form) in the order they were taken.
DiffResult diff_snapshots(const Snapshot& a, const Snapshot& b, const Snapshot* c,
                          const AnalysisOptions& options);

}  // namespace vkleak::analysis
