// The rules, one job each. Per-snapshot rules read a SnapshotIndex and return what they found
// per group; growth and the event rules work over the whole run. Definitions: FINDINGS.md.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "analysis/hits.h"
#include "analysis/options.h"
#include "analysis/snapshot_index.h"

namespace vkleak::analysis {

using GroupHits = std::unordered_map<uint32_t, Hits>;

// leak_at_exit: what a device_destroy, instance_destroy or exit snapshot still holds, one entry per
// group; objects where skip[i] is set are left out (empty: none).
GroupHits find_leaks_at_exit(const SnapshotIndex& index, const AnalysisOptions& options,
                             const std::vector<uint8_t>& skip = {});

// leak_at_exit at exit() (or a return from main) without teardown: each root the program never
// destroyed, the outermost of a VkInstance or a VkDevice alive in the exit snapshot, with every
// application object under it (through Object::owner). One forgotten teardown is one root, not
// one leak per call site. under_root[i] is set for the roots and their members; objects whose
// owner is not in the snapshot belong to none.
struct UndestroyedRoot {
  size_t root = kNotFound;
  std::vector<size_t> members;  // application objects under it, attached memory included
};
std::vector<UndestroyedRoot> find_undestroyed_roots(const SnapshotIndex& index,
                                                    std::vector<uint8_t>* under_root);

// The index of the pool (VkCommandPool, VkDescriptorPool) alive in the snapshot that object i
// was allocated from, or kNotFound.
size_t pool_of(const SnapshotIndex& index, size_t i);
// Allocated from a pool that is alive in the snapshot.
bool is_pool_child(const SnapshotIndex& index, size_t i);
// A VkDescriptorSet allocated from a VkDescriptorPool that is alive in the snapshot.
bool is_set_in_pool(const SnapshotIndex& index, size_t i);
// A set in a pool made in the frame its pool was (a WebGPU implementation allocates every set of
// a pool up front), not on demand.
bool is_set_allocated_with_its_pool(const SnapshotIndex& index, size_t i);

// retained, step 1: which objects are superseded and unused (1 per object). Also the newest use
// per group, for the messages.
struct RetainedMarks {
  std::vector<uint8_t> retained;
  std::unordered_map<uint32_t, uint64_t> group_last_used;
};
RetainedMarks mark_retained(const SnapshotIndex& index, const Thresholds& thresholds);

// retained and growth, across the run: objects that come back into use after being idle (a ring
// or pool handed out round-robin), the pools holding them, and their siblings in those pools.
class ReuseTracker {
 public:
  // The next snapshot taken during the run.
  void observe(const SnapshotIndex& index, const Thresholds& thresholds);
  // The group has a member that was used again after being idle, or is a pool whose members
  // are used again from one snapshot to the next.
  bool reused(uint32_t group) const { return reused_.count(group) != 0; }
  // A pool (by id) whose members were used again from one snapshot to the next.
  bool pool_reused(int64_t pool) const { return reused_pools_.count(pool) != 0; }
  // Some member sits in a pool whose members are used again.
  bool in_reused_pool(uint32_t group) const;

 private:
  struct Seen {
    uint64_t id;
    uint32_t last_active;  // saturated: 16 bytes an object, a million objects per snapshot
    bool idle;             // for --min-frames-unused, not in flight
    bool operator<(const Seen& other) const { return id < other.id; }
  };
  std::vector<Seen> seen_;  // the previous snapshot's objects, by id
  std::unordered_set<uint32_t> reused_;
  std::unordered_set<int64_t> reused_pools_;  // parents of objects used again
  std::unordered_map<uint32_t, std::unordered_set<int64_t>> parents_;
};

// stale_view: views, descriptor sets and framebuffers referencing destroyed or retained objects.
// referrers gets kDangling or kPinning for each one reported (they are not reported again as
// retained).
inline constexpr uint8_t kDangling = 1;
inline constexpr uint8_t kPinning = 2;
// What is not judged, per object (bits of exempt[i]; empty: everything is judged):
// - kDanglingUnjudged: its references to destroyed objects (a set in its pool without the
//   evidence of accumulation: it may wait for its pool's reset);
// - kOnFreeList: anything (a set of an engine's own free list, StaleRecycleTracker: it waits to
//   be handed out again and rewritten, and pins nothing);
// - kUnpinnable: as the target of a pin (it outlived its device: a leak of its own, and the view
//   of it part of that leak).
inline constexpr uint8_t kDanglingUnjudged = 1;
inline constexpr uint8_t kOnFreeList = 2;
inline constexpr uint8_t kUnpinnable = 4;
GroupHits find_stale_views(const SnapshotIndex& index, const RetainedMarks& marks,
                           const std::vector<uint8_t>& exempt, const AnalysisOptions& options,
                           std::vector<uint8_t>* referrers);

// stale_view, across the run: referrers that only dangle and are later rewritten (an engine's
// own free list of descriptor sets) versus ones that pin bytes or keep piling up.
class StaleRecycleTracker {
 public:
  // The next snapshot taken during the run, with the dangling referrers find_stale_views found.
  void observe(const SnapshotIndex& index, const std::vector<uint8_t>& referrers);
  // Some of its dangling referrers were rewritten later, and its count of dangling referrers
  // does not grow (judge_growth over the snapshots after the warm-up).
  bool recycled(uint32_t group, const Thresholds& thresholds) const;

 private:
  std::unordered_map<uint64_t, std::pair<uint32_t, uint64_t>> stale_;  // id -> (group, targets)
  std::unordered_set<uint32_t> rewritten_;
  std::vector<uint64_t> frames_;
  std::unordered_map<uint32_t, std::vector<std::pair<size_t, uint64_t>>> counts_;  // (point, n)
};

// retained, step 2: the marked objects that are not stale referrers, by group.
GroupHits collect_retained(const SnapshotIndex& index, const RetainedMarks& marks,
                           const std::vector<uint8_t>& referrers, const AnalysisOptions& options);

// orphaned_memory: memory with nothing bound, unused for a while, among the objects that
// `evidence` marks (1: its group accumulates, or it outlived its device).
GroupHits find_orphaned_memory(const SnapshotIndex& index, const std::vector<uint8_t>& evidence,
                               const AnalysisOptions& options);

// growth: whether a series (one value per snapshot after the warm-up) keeps rising, often
// (rises) or in steps that never come back down (stepped).
struct GrowthVerdict {
  bool growing = false;
  bool stepped = false;  // growing by the step rule only
  uint32_t rises = 0;
  uint32_t intervals = 0;
};
GrowthVerdict judge_growth(const std::vector<uint64_t>& values, const Thresholds& thresholds);
// accumulation: whether a group's objects pile up over the run, the evidence that growth,
// retained, stale_view by pinning and orphaned_memory need before they speak (FINDINGS.md). Two
// series over the snapshots after the warm-up must both keep rising, by judge_growth, and rise
// in both halves of the run:
// - the floor of the live count (at each snapshot, the fewest alive from then on): a working set,
//   a pool or a population that comes and goes keeps its floor, however high it ends;
// - the kept objects (those alive at the last snapshot) created by each snapshot: objects that
//   stay, not a turnover of new ones (resize-recreated targets, emitters, deletion queues).
// A group whose floor is 0 past the middle of the series (empty at a snapshot in the second
// half: it starts over) is not judged.
struct AccumulationVerdict {
  bool accumulating = false;
  GrowthVerdict floor;
  GrowthVerdict kept;
};
AccumulationVerdict judge_accumulation(const std::vector<uint64_t>& live,
                                       const std::vector<uint64_t>& kept,
                                       const Thresholds& thresholds);
// At each point, the lowest value from there to the end.
std::vector<uint64_t> running_floor(const std::vector<uint64_t>& live);
// At each of frames, how many of the creation frames `created` are before it.
std::vector<uint64_t> kept_series(const std::vector<uint64_t>& frames,
                                  std::vector<uint64_t> created);
// Rising by a quarter of its whole rise (one at least) both before and after its middle point,
// from its first non-zero value on.
bool spread_over_run(const std::vector<uint64_t>& values);
// The same from its first value on, zeros included.
bool rises_in_both_halves(const std::vector<uint64_t>& values);

// growth: rising more slowly in the second half of the series than in the first (per frame).
bool decelerating(const std::vector<uint64_t>& frames, const std::vector<uint64_t>& values);

}  // namespace vkleak::analysis
