// Finding the runs in the inputs and reading their snapshots: files grouped by process id and
// ordered by sequence, read ahead on several threads (a 1M-object snapshot takes about a second
// to read; two of them read side by side take about as long as one).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <future>
#include <string>
#include <vector>

#include "core/snapshot.h"
#include "core/snapshot_reader.h"

namespace vkleak::analysis {

struct RunFiles {
  uint64_t pid = 0;
  std::string run_id;              // empty: files of layers before run ids
  std::vector<std::string> paths;  // in sequence order
};

// The runs in inputs (directories of snapshots, or snapshot files), by (pid, run id). Files
// named vkleak-<pid>-<runid>-<sequence>-<reason>.json (or vkleak-<pid>-<sequence>-<reason>.json
// by older layers: one run per pid) are grouped and ordered by their names: two processes with
// one pid (reruns, containers) are two runs. Files named otherwise form one more run, in the
// order given. Whether each file's content is the run its name says is checked as it is read
// (CompletenessCheck). Throws SnapshotError when an input cannot be
// listed or a directory holds no snapshot.
std::vector<RunFiles> discover_runs(const std::vector<std::string>& inputs);

// Shows reading progress on stderr when it is a terminal and the input is large.
class Progress {
 public:
  Progress(uint64_t total_bytes, bool enabled);
  ~Progress();
  std::atomic<uint64_t>* counter() { return &read_; }
  // Redraws (at most a few times a second).
  void update();
  void clear();

 private:
  uint64_t total_;
  bool enabled_;
  bool drawn_ = false;
  int64_t last_draw_ms_ = 0;
  std::atomic<uint64_t> read_{0};
};

// Total size of the files (0 for what cannot be sized).
uint64_t total_file_bytes(const std::vector<std::string>& paths);

// Whether progress should show: stderr is a terminal and there is enough to read.
bool want_progress(uint64_t total_bytes);

// Reads snapshots ahead of their consumer on up to `jobs` threads and hands them out in order.
class SnapshotLoader {
 public:
  SnapshotLoader(std::vector<std::string> paths, unsigned jobs, Progress* progress);
  ~SnapshotLoader();

  // The next snapshot into *out; false when all were handed out. Throws SnapshotError.
  bool next(Snapshot* out);

 private:
  void launch();

  std::vector<std::string> paths_;
  size_t next_launch_ = 0;
  unsigned jobs_;
  Progress* progress_;
  ReadOptions options_;
  std::deque<std::future<Snapshot>> pending_;
};

// How many snapshots to read at once: the cores there are, at most 4 (memory).
unsigned default_jobs();

}  // namespace vkleak::analysis
