#include "cli/cmd_report.h"

#include "cli/common.h"
#include "core/snapshot.h"

namespace vkleak::cli {

CLI::App* add_report_command(CLI::App* app, ReportFlags* flags) {
  CLI::App* report = app->add_subcommand(
      "report",
      "Find leaks in runs: leaked at exit, growing, retained, stale views, orphaned memory, "
      "destroyed in flight");
  report->set_version_flag("--version", std::string("vkleak ") + VKLEAK_VERSION);
  add_input_flags(report, flags, "What to analyse");
  add_output_flags(report, flags);
  add_sparklines_option(report, flags);
  add_threshold_flags(report, flags);
  report->footer(
      "Exit code 0 whatever it finds (vkleak gate decides pass or fail), 2 on bad flags or "
      "input.\nFinding kinds and thresholds: src/analysis/FINDINGS.md.");
  return report;
}

int report_command(const ReportFlags& flags) {
  analysis::ReportDocument doc;
  try {
    doc = analyse_inputs(flags);
  } catch (const SnapshotError& e) {
    print_error(e.what());
    return kExitUsage;
  }
  return write_outputs(doc, flags);
}

}  // namespace vkleak::cli
