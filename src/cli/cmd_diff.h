// `vkleak diff A B [C]`: what changed between snapshots.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/options.h"
#include "cli/common.h"

namespace vkleak::cli {

struct DiffFlags {
  std::vector<std::string> snapshots;
  OutputFormat format = OutputFormat::kText;
  ColorMode color = ColorMode::kAuto;
  int64_t top = 20;
  analysis::AnalysisOptions analysis;
};

CLI::App* add_diff_command(CLI::App* app, DiffFlags* flags);
int diff_command(const DiffFlags& flags);

}  // namespace vkleak::cli
