// vkleak_bench: Google Benchmark programs on the real Vulkan loader. Which layers are in the
// process is the environment's choice (see compare.py); this program only measures.
//
//   vkleak_bench [--live=0,100000,1000000] [--submit-live=1000,1000000] [--draws=N]
//                [--max-threads=N]
//                [--snapshot-objects=N] [--snapshot-repeats=N] [--memory-objects=N]
//                [--warmup=SECONDS] [--pair-iterations=N]
//                [Google Benchmark flags: --benchmark_filter=..., --benchmark_format=json, ...]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "bench_context.h"
#include "bench_options.h"

namespace {

bool take_value(const char* arg, const char* flag, std::string* value) {
  const size_t n = std::strlen(flag);
  if (std::strncmp(arg, flag, n) != 0 || arg[n] != '=') return false;
  *value = arg + n + 1;
  return true;
}

int64_t to_int(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < 0)
    bench::fail("bad value for " + flag + ": '" + text + "'");
  return v;
}

// A comma-separated list of counts.
std::vector<int64_t> to_ints(const std::string& flag, const std::string& text) {
  std::vector<int64_t> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    out.push_back(to_int(flag, text.substr(start, comma - start)));
    start = comma + 1;
  }
  return out;
}

// Removes our flags from argv, leaving Google Benchmark's.
bench::Options parse_options(int* argc, char** argv) {
  bench::Options o;
  o.max_threads = std::max(4, static_cast<int>(std::thread::hardware_concurrency()));
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    std::string v;
    if (take_value(argv[i], "--live", &v)) {
      o.live_counts = to_ints("--live", v);
    } else if (take_value(argv[i], "--submit-live", &v)) {
      o.submit_live_counts = to_ints("--submit-live", v);
    } else if (take_value(argv[i], "--draws", &v)) {
      o.draws = to_int("--draws", v);
    } else if (take_value(argv[i], "--max-threads", &v)) {
      o.max_threads = static_cast<int>(std::max<int64_t>(1, to_int("--max-threads", v)));
    } else if (take_value(argv[i], "--snapshot-objects", &v)) {
      o.snapshot_objects = to_int("--snapshot-objects", v);
    } else if (take_value(argv[i], "--pair-iterations", &v)) {
      o.pair_iterations = std::max<int64_t>(0, to_int("--pair-iterations", v));
    } else if (take_value(argv[i], "--snapshot-repeats", &v)) {
      o.snapshot_repeats = std::max<int64_t>(1, to_int("--snapshot-repeats", v));
    } else if (take_value(argv[i], "--warmup", &v)) {
      char* end = nullptr;
      o.warmup_s = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || o.warmup_s < 0)
        bench::fail("bad value for --warmup: '" + v + "'");
    } else if (take_value(argv[i], "--memory-objects", &v)) {
      o.memory_objects = std::max<int64_t>(1, to_int("--memory-objects", v));
    } else {
      argv[out++] = argv[i];
    }
  }
  *argc = out;
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::Options options = parse_options(&argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  bench::register_object_benchmarks(options);
  bench::register_submit_benchmarks(options);
  // The context goes into the JSON "context" block, for compare.py's machine description.
  benchmark::AddCustomContext("vulkan_device", bench::context().device_name);
  benchmark::AddCustomContext("vulkan_driver", bench::context().driver);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  bench::destroy_context();
  return 0;
}
