// `vkleak baseline`: writes the file of known problems a gate compares against, and updates it
// (keeps what still occurs, adds what is new, removes what was fixed).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/report_options.h"

namespace vkleak::cli {

struct BaselineFlags {
  ReportFlags report;  // inputs and thresholds (the gate's must match them)
  std::string output = "vkleak-baseline.json";
  bool update = false;
  bool any_program = false;
  bool allow_incomplete = false;
};

CLI::App* add_baseline_command(CLI::App* app, BaselineFlags* flags);
// 0: written, 2: usage or input error, 3: a run not checked whole (unless allowed), 4: --update of
// a baseline of another program (unless allowed).
int baseline_command(const BaselineFlags& flags);

}  // namespace vkleak::cli
