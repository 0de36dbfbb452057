// Whether a run's snapshots cover it from its start to its end: a gate may call a run clean only
// when they do. A run is incomplete when a sequence number is missing (the layer could not write
// it, or it is not among the inputs), when the layer recorded a failed write, when two processes
// wrote under one pid, when a file's content is not the run (pid, run id, sequence) its name
// says or the snapshots are of several runs, or when its last snapshot is not the end-of-run
// one (it crashed, was killed, called _exit(), or is still running). The end of a run is the
// process's: its exit snapshot, or its last instance's destroy snapshot, which the layer marks
// final at exit when no instance was created after it; an early vkDestroyInstance (a probe
// instance) never ends a run.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/snapshot.h"

namespace vkleak::analysis {

struct Completeness {
  std::vector<std::string> problems;  // plain reasons, one line each; empty: complete
  std::vector<std::string> warnings;  // odd but checkable (frames going backwards, coalesced)
  std::string crash_signal;           // "SIGSEGV" when the run crashed, else empty
};

class CompletenessCheck {
 public:
  // Snapshots of one run, in any order.
  void add(const Snapshot& snapshot);
  Completeness finish() const;

 private:
  struct Seen {
    std::string reason;
    std::optional<std::string> label;
    uint64_t frame = 0;
    bool final_snapshot = false;
    uint64_t count = 0;  // files with this sequence number
  };
  uint64_t pid_ = 0;
  bool have_run_id_ = false;
  std::string run_id_;                // the first snapshot's
  std::string mixed_;                 // set when another snapshot has another run id
  std::vector<std::string> foreign_;  // files whose content is not the run their name says
  std::map<uint64_t, Seen> by_sequence_;
  // Of the snapshot with the highest sequence number (the layer's record is cumulative).
  uint64_t unwritten_count_ = 0;
  std::vector<UnwrittenSnapshot> unwritten_;
  uint64_t coalesced_signals_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> run_frames_;  // (sequence, frame), unscoped ones
};

}  // namespace vkleak::analysis
