// Sizes of the benchmark workloads, from vkleak_bench's own command-line flags (parsed before
// Google Benchmark's): --live=0,100000,1000000 --submit-live=1000,1000000 --draws=1000
// --max-threads=4 --snapshot-objects=1000000 --snapshot-repeats=3 --memory-objects=1000000
// --warmup=0.1.
// compare.py --quick passes small values.
#pragma once

#include <cstdint>
#include <vector>

namespace bench {

struct Options {
  std::vector<int64_t> live_counts{0, 100000, 1000000};
  // Live filler objects during record+submit: its cost per submit must stay flat as they grow.
  std::vector<int64_t> submit_live_counts{1000, 1000000};
  int64_t draws = 1000;
  int max_threads = 4;
  int64_t snapshot_objects = 1000000;
  int64_t snapshot_repeats = 3;
  int64_t memory_objects = 1000000;
  // Seconds each timed benchmark runs unmeasured first (caches, allocator, lazy driver state):
  // otherwise the first benchmark of a process pays for them. Not for the one-shot snapshot and
  // memory benchmarks, whose first run is the measurement.
  double warmup_s = 0.1;
  // Exactly this many iterations of each create+destroy pair, no warm-up (0: as long as Google
  // Benchmark's --benchmark_min_time): for counting instructions per pair under callgrind.
  int64_t pair_iterations = 0;
};

void register_object_benchmarks(const Options& o);
void register_submit_benchmarks(const Options& o);

}  // namespace bench
