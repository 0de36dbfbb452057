// `vkleak gate`: pass or fail for CI.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/report_options.h"

namespace vkleak::cli {

struct GateFlags {
  ReportFlags report;
  std::string baseline;
  std::string suppressions;
  int64_t max_findings = 0;
  std::vector<std::string> fail_on;
  bool allow_incomplete = false;
  bool baseline_any_program = false;
  bool accept_skipped_teardown = false;
};

CLI::App* add_gate_command(CLI::App* app, GateFlags* flags);
// 0: pass, 1: more new findings than allowed, 2: usage or input error, 3: a run not checked
// whole (unless allowed), 4: a baseline of another program (unless allowed).
int gate_command(const GateFlags& flags);

}  // namespace vkleak::cli
