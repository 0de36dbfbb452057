// `vkleak show`: what one snapshot holds, by type and by creation call site.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "cli/common.h"

namespace vkleak::cli {

struct ShowOptions {
  std::string snapshot;
  OutputFormat format = OutputFormat::kText;
  ColorMode color = ColorMode::kAuto;
  int64_t top = 10;  // 0: all call sites
  bool no_symbolize = false;
};

CLI::App* add_show_command(CLI::App* app, ShowOptions* options);

int show_command(const ShowOptions& options);

}  // namespace vkleak::cli
