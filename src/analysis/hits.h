// What a rule found for one group: counts, bytes, frames, names, examples, related objects and
// chains. Collected per snapshot by index (cheap), then made self-contained (strings) so the
// snapshot can go, and merged across snapshots.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/finding.h"
#include "analysis/snapshot_index.h"

namespace vkleak::analysis {

// stale_view: the first referrer of a destroyed object, and that object, for the finding's
// stacks ("view created here", "target destroyed here").
struct StaleTarget {
  std::string referrer;  // "VkImageView \"thumb.view\" (id 9)"
  std::string target;    // "VkImage \"thumb\" (id 7)"
  uint64_t destroyed_frame = 0;
  uint32_t destroy_callsite = kNoCallsiteId;  // recorded only with destroy_callstacks=true
};

struct Hits {
  uint64_t count = 0;
  uint64_t bytes = 0;
  uint64_t first_frame = UINT64_MAX;  // creation frames of the objects
  uint64_t last_frame = 0;
  std::optional<uint64_t> last_used;        // the latest use of any of them
  std::optional<uint64_t> group_last_used;  // retained: the newest use in their group
  std::vector<std::string> names;           // sorted, distinct, all of them (related too)
  std::vector<std::string> primary_names;   // the names of the group's own objects
  std::vector<ExampleObject> examples;      // oldest first
  std::map<std::pair<std::string, std::string>, Related> related;  // by (relation, type)
  // Pool children: how many were made at each call site (CallsiteTable ids), by (relation, type).
  std::map<std::pair<std::string, std::string>, std::map<uint32_t, uint64_t>> related_callsites;
  std::vector<Chain> chains;
  uint64_t chains_total = 0;
  std::optional<uint64_t> stale_first_destroyed;  // stale_view: destroyed targets' frames
  std::optional<uint64_t> stale_last_destroyed;
  uint64_t stale_dangling = 0;  // referrers of destroyed objects
  uint64_t stale_pinning = 0;   // referrers of retained objects
  std::optional<StaleTarget> stale_target;
  std::vector<std::pair<uint64_t, uint64_t>> objects;  // (id, bytes counted), sorted by id
  // What holds them alive in the snapshot of the evidence (leak_at_exit: its teardown
  // snapshot), through that snapshot's live edges; unset: the finding takes the last snapshot's.
  std::optional<std::vector<RetainerRoot>> retainers;
  uint64_t retainers_omitted = 0;
  // Where the evidence is.
  uint64_t snapshot_frame = 0;
  std::string snapshot_path;
  std::string snapshot_reason;

  // Adds other's objects (leak_at_exit over several teardown snapshots).
  void merge(Hits&& other, size_t max_examples);
};

// Collects hits by object index within one snapshot; finish() turns them into Hits.
class HitCollector {
 public:
  HitCollector(const SnapshotIndex& index, size_t max_examples)
      : index_(index), max_examples_(max_examples) {}

  struct Pending {
    uint64_t count = 0;
    uint64_t bytes = 0;
    uint64_t first_frame = UINT64_MAX;
    uint64_t last_frame = 0;
    std::optional<uint64_t> last_used;
    std::optional<uint64_t> group_last_used;
    std::vector<std::pair<uint64_t, size_t>> examples;  // (id, index): a max-heap by id
    std::vector<int32_t> names;
    std::vector<int32_t> primary_names;
    std::map<std::pair<std::string, std::string>, Related> related;
    std::map<std::pair<std::string, std::string>, std::map<uint32_t, uint64_t>> related_callsites;
    std::vector<Chain> chains;
    uint64_t chains_total = 0;
    std::optional<uint64_t> stale_first_destroyed;
    std::optional<uint64_t> stale_last_destroyed;
    uint64_t stale_dangling = 0;
    uint64_t stale_pinning = 0;
    std::optional<StaleTarget> stale_target;
    std::vector<std::pair<uint64_t, uint64_t>> objects;  // (id, bytes counted)
  };

  // Counts object i in group (bytes: what it holds) and returns its entry for extras.
  Pending& add(uint32_t group, size_t i, uint64_t bytes);
  // Adds a related object j (its name too) to the entry of group.
  void relate(Pending* entry, const std::string& relation, size_t j, uint64_t bytes);
  // The same for a destroyed object.
  void relate_destroyed(Pending* entry, const DestroyedObject& d);

  bool empty() const { return pending_.empty(); }
  std::unordered_map<uint32_t, Hits> finish();

 private:
  const SnapshotIndex& index_;
  size_t max_examples_;
  std::unordered_map<uint32_t, Pending> pending_;
};

// An example object as reports show it.
ExampleObject example_of(const SnapshotIndex& index, size_t i);

}  // namespace vkleak::analysis
