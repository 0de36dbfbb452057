// `vkleak run`: runs an application with the vkleak layer enabled.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace vkleak::cli {

struct RunOptions {
  std::string out_dir;           // empty: ./vkleak-snapshots/run-<time>-<pid>
  int64_t every = 0;             // 0: not given
  std::string frame_boundary;    // empty: not given
  int64_t callstack_depth = -1;  // -1: not given
  int destroy_callstacks = -1;   // -1: not given, 0: --no-destroy-callstacks, 1: on
  std::vector<std::string> command;
};

CLI::App* add_run_command(CLI::App* app, RunOptions* options);

// Returns the process exit code: the application's, or 126/127 when it could not be started,
// or kExitUsage when vkleak itself could not set up the run.
int run_command(const RunOptions& options);

}  // namespace vkleak::cli
