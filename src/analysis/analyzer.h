// Analyses one run: the snapshots of one process, fed in sequence order, one at a time (a run
// may hold more snapshots than fit in memory together). As each arrives, leaks at exit are
// counted and the whole-run evidence gathered (series, rings and busy pools, free lists); the
// judgements that span the run (growth, retained, stale views, orphaned memory at the last
// snapshot taken during the run, events) are settled by finish().
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/callsites.h"
#include "analysis/completeness.h"
#include "analysis/finding.h"
#include "analysis/grouping.h"
#include "analysis/hits.h"
#include "analysis/lifetimes.h"
#include "analysis/messages.h"
#include "analysis/options.h"
#include "analysis/retainers.h"
#include "analysis/rules/events.h"
#include "analysis/rules/rules.h"
#include "analysis/snapshot_index.h"
#include "core/snapshot.h"

namespace vkleak::analysis {

class RunAnalyzer {
 public:
  explicit RunAnalyzer(const AnalysisOptions& options);
  ~RunAnalyzer();
  RunAnalyzer(const RunAnalyzer&) = delete;
  RunAnalyzer& operator=(const RunAnalyzer&) = delete;

  // The next snapshot of the run. The last one taken during the run (not at teardown) is kept
  // until finish(): growth findings describe its objects.
  void add(Snapshot snapshot);
  RunReport finish();

 private:
  struct Point {
    uint32_t point;  // index into frames_
    uint64_t live;
    uint64_t bytes;
  };

  void note_incident(const Snapshot& snap);  // crash and error snapshots
  void record_series(const SnapshotIndex& index);
  // Pools seen freeing sets one by one (FREE_DESCRIPTOR_SET_BIT) between two snapshots.
  void note_sets_freed_one_by_one(const SnapshotIndex& before, const SnapshotIndex& now);
  // A set in a pool (is_set_in_pool) judged by itself, not through its pool's accumulation.
  bool sets_are_their_own_unit(const SnapshotIndex& index, size_t set) const;
  // Sets in pools that reference destroyed objects (`dangling`, from find_stale_views), per
  // group, and since when each has without a break.
  void note_dangling_sets(const SnapshotIndex& index, const std::vector<uint8_t>& dangling);
  // Whether a group whose pools are its unit keeps more and more sets that point at destroyed
  // objects (a cache that never evicts in an allocator that grows by pools).
  bool dangling_sets_accumulate(uint32_t group, const std::vector<uint64_t>& frames) const;
  void record_lifetimes(const SnapshotIndex& index, size_t report_index);
  void finish_lifetimes();
  // Which groups accumulate over the snapshots after the warm-up (accumulating_).
  void judge_accumulation_of_groups();
  void add_growth_findings(std::vector<Finding>* findings);
  // retained, stale_view and orphaned_memory, judged once at the last snapshot taken during the
  // run with the whole run's evidence: an object idle then used or freed later is none of them.
  void judge_last_snapshot(std::vector<Finding>* findings);
  Finding make_finding(FindingKind kind, uint32_t group, Hits&& hits);
  // exit() without teardown: the roots never destroyed (find_undestroyed_roots), kept until
  // finish() makes one leak_at_exit finding each.
  void record_exit_roots(const SnapshotIndex& index, const std::vector<UndestroyedRoot>& roots);
  // _exit(), quick_exit() or a fatal signal: what was alive, listed and not judged.
  void record_skipped_teardown(const SnapshotIndex& index, std::string ended_by);
  // One finding per root never destroyed, holding what no other finding explains: a group that
  // grew is a cause of its own, the rest is the one forgotten teardown.
  void add_exit_root_findings(std::vector<Finding>* findings);
  // Objects gained per 1000 frames after the warm-up by a group that accumulates, else 0.
  uint64_t accumulation_rate(uint32_t group) const;
  // stale_view of a destroyed target: "view created here", "target destroyed here".
  std::vector<LabeledStack> stale_stacks(const Finding& f, const StaleTarget& t);

  AnalysisOptions options_;
  CallsiteTable callsites_;
  GroupTable groups_;
  RunReport report_;
  std::unordered_map<uint32_t, Hits> leaks_;  // summed over teardown snapshots
  struct ExitMember {
    uint64_t id;
    uint32_t group;
    uint64_t bytes;  // held: with the memory only it is bound to
  };
  struct ExitRoot {
    uint32_t group;
    Hits root;                        // the root alone
    std::vector<ExitMember> members;  // under it, attached memory left out (counted in bytes)
  };
  std::vector<ExitRoot> exit_roots_;  // of the exit snapshot of exit() without teardown
  std::optional<SkippedTeardown> skipped_teardown_;
  EventRule events_;
  ReuseTracker reuse_;                   // rings and pools: retained and growth
  StaleRecycleTracker stale_recycling_;  // recycled descriptor sets: stale_view
  // Descriptor pools whose sets are their own unit: one freed while another stayed.
  std::unordered_set<int64_t> frees_sets_one_by_one_;
  std::unordered_set<uint32_t> at_teardown_;  // groups with members alive at teardown
  std::unordered_set<uint64_t> outlived_;     // ids alive at teardown or in the exit snapshot
  size_t first_point_ = 0;                    // the first snapshot after the warm-up
  bool judged_ = false;                       // enough snapshots after it to judge
  std::unordered_map<uint32_t, AccumulationVerdict> accumulating_;
  // Groups of sets allocated with their pool, in pools only ever added, whose dangling sets
  // accumulate: the evidence that their pools' steps (too few to call growth) do not give.
  std::unordered_set<uint32_t> dangling_accumulating_;
  struct DanglingSince {
    uint32_t group;
    uint32_t point;  // the first snapshot of its current dangling run (index into frames_)
  };
  std::unordered_map<uint64_t, DanglingSince> dangling_since_;        // set id ->, as last seen
  std::unordered_map<uint32_t, std::vector<Point>> dangling_series_;  // group -> count (live)
  IdCallsites previous_;
  std::vector<uint64_t> frames_;  // of the snapshots taken during the run
  std::unordered_map<uint32_t, std::vector<Point>> group_series_;
  std::unordered_map<std::string, std::vector<Point>> type_series_;
  LifetimeCollector lifetimes_;
  DriverMemoryCollector driver_memory_;
  std::unique_ptr<Snapshot> last_;
  std::unique_ptr<SnapshotIndex> last_index_;
  std::unique_ptr<Retainers> retainers_;  // of last_index_, built by finish() when needed
  std::vector<std::string> incidents_;    // crash and error snapshots, as notes
  bool saw_teardown_ = false;
  bool saw_exit_ = false;
  bool degraded_ = false;
  uint64_t events_dropped_ = 0;
  FrameCounting frame_counting_;  // for the notes on how frames were counted
  CompletenessCheck completeness_;
  Snapshot::ErrorResults error_results_;  // the highest counts seen (they only grow)
};

}  // namespace vkleak::analysis
