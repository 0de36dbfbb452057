// Aggregations of one snapshot that several commands print: totals per type, and objects grouped
// by creation call site.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/snapshot.h"

namespace vkleak {

struct TypeTotal {
  std::string type;
  uint64_t live = 0;
  uint64_t bytes = 0;
};

// Totals per type computed from the objects, by bytes then count, descending.
std::vector<TypeTotal> type_totals(const Snapshot& snapshot);

// A type whose totals in the objects differ from the snapshot's "counts".
struct CountMismatch {
  std::string type;
  TypeTotal objects;   // what the objects add up to
  TypeCount declared;  // what "counts" says (zero when absent)
};
std::vector<CountMismatch> check_counts(const Snapshot& snapshot,
                                        const std::vector<TypeTotal>& totals);

struct CallsiteGroup {
  int32_t callsite = kNoCallsite;  // kNoCallsite groups the objects without one
  uint64_t count = 0;
  uint64_t bytes = 0;
  std::vector<std::pair<uint16_t, uint64_t>> types;  // (type index, count), most first
  std::vector<int32_t> example_names;                // distinct, in order of appearance
};

// Objects grouped by creation call site, by count then bytes, descending.
std::vector<CallsiteGroup> group_by_callsite(const Snapshot& snapshot, size_t max_examples = 3);

// True when frame_boundary=auto counts some device's frames at submits: it made many submits and
// never presented (compute, headless, GL through zink without a Vulkan swapchain).
bool frames_at_submits_auto(const Snapshot& snapshot);

// What reports and `vkleak show` say about such a run.
inline constexpr const char* kFramesAtSubmitsNote =
    "frames counted at submits: this program never presented (frame_boundary=auto; "
    "--frame-boundary present or submit to choose)";

}  // namespace vkleak
