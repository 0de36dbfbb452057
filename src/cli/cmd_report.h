// `vkleak report`: analyses runs and prints their findings.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/report_options.h"

namespace vkleak::cli {

CLI::App* add_report_command(CLI::App* app, ReportFlags* flags);
int report_command(const ReportFlags& flags);

}  // namespace vkleak::cli
