// Whether a run's snapshots cover it from its start to its end: a gate may call a run clean only
// when they do. A run is incomplete when a sequence number is missing (the layer could not write
// it, or it is not among the inputs), when the layer recorded a failed write, when two processes
// wrote under one pid, or when its last snapshot is not the end-of-run one (it crashed, was
// killed, called _exit(), or is still running).
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
  std::map<uint64_t, Seen> by_sequence_;
  // Of the snapshot with the highest sequence number (the layer's record is cumulative).
  uint64_t unwritten_count_ = 0;
  std::vector<UnwrittenSnapshot> unwritten_;
  uint64_t coalesced_signals_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> run_frames_;  // (sequence, frame), unscoped ones
};

}  // namespace vkleak::analysis
