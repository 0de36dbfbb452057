// vkleak: runs Vulkan programs under the vkleak layer and reads the snapshots it writes.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <utility>

#include "cli/cmd_baseline.h"
#include "cli/cmd_diff.h"
#include "cli/cmd_gate.h"
#include "cli/cmd_report.h"
#include "cli/cmd_run.h"
#include "cli/cmd_show.h"
#include "cli/common.h"
#include "shared/text.h"

namespace {

// CLI11 reports --help and --version as "errors" with exit code 0; everything else is a usage
// error, exit code 2, with a pointer to the relevant help.
int handle_parse_error(CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  if (e.get_exit_code() == 0) return app.exit(e);
  std::string command = "vkleak";
  for (const CLI::App* sub : app.get_subcommands()) command += " " + sub->get_name();
  // `vkleak bogus`: CLI11 says "A subcommand is required"; name the word it did not know.
  if (command == "vkleak" && argc > 1 && argv[1][0] != '-') {
    std::string known;
    const auto all = std::as_const(app).get_subcommands([](const CLI::App*) { return true; });
    for (size_t i = 0; i < all.size(); ++i) {
      known += (i == 0 ? "" : i + 1 == all.size() ? " and " : ", ") + all[i]->get_name();
    }
    vkleak::cli::print_error("unknown command " + vkleak::quote_printable(argv[1], 60) +
                             "; the commands are " + known);
    std::cerr << "Run 'vkleak --help' for usage." << std::endl;
    return vkleak::cli::kExitUsage;
  }
  vkleak::cli::print_error(e.what());
  // `vkleak run app --flag` parses --flag as vkleak's own: say how to pass it to the app.
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr && command == "vkleak run") {
    std::cerr << "Put the application and its arguments after --: "
                 "vkleak run [OPTIONS] -- APP [ARGS...]"
              << std::endl;
  }
  std::cerr << "Run '" << command << " --help' for usage." << std::endl;
  return vkleak::cli::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Find GPU object leaks in Vulkan programs.", "vkleak"};
  app.set_version_flag("--version", std::string("vkleak ") + VKLEAK_VERSION);
  app.require_subcommand(1);

  vkleak::cli::RunOptions run_options;
  vkleak::cli::ShowOptions show_options;
  CLI::App* run = vkleak::cli::add_run_command(&app, &run_options);
  CLI::App* show = vkleak::cli::add_show_command(&app, &show_options);
  vkleak::cli::ReportFlags report_flags;
  vkleak::cli::DiffFlags diff_flags;
  vkleak::cli::GateFlags gate_flags;
  CLI::App* report = vkleak::cli::add_report_command(&app, &report_flags);
  CLI::App* diff = vkleak::cli::add_diff_command(&app, &diff_flags);
  CLI::App* gate = vkleak::cli::add_gate_command(&app, &gate_flags);
  vkleak::cli::BaselineFlags baseline_flags;
  CLI::App* baseline = vkleak::cli::add_baseline_command(&app, &baseline_flags);
  // Set after the subcommands are added, which would otherwise inherit it.
  app.footer(
      "Examples:\n"
      "  vkleak run -- ./my_app --level 3   run under the layer, snapshots in ./vkleak-snapshots\n"
      "  vkleak show vkleak-snapshots/run-*/vkleak-1234-0002-exit.json\n"
      "  vkleak report vkleak-snapshots/run-*        findings of a run\n"
      "  vkleak baseline out -o base.json           known problems, for the gate (--update)\n"
      "  vkleak gate out --baseline base.json       pass/fail for CI (exit 0/1)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return handle_parse_error(app, e, argc, argv);
  }

  try {
    if (run->parsed()) return vkleak::cli::run_command(run_options);
    if (show->parsed()) return vkleak::cli::show_command(show_options);
    if (report->parsed()) return vkleak::cli::report_command(report_flags);
    if (diff->parsed()) return vkleak::cli::diff_command(diff_flags);
    if (gate->parsed()) return vkleak::cli::gate_command(gate_flags);
    if (baseline->parsed()) return vkleak::cli::baseline_command(baseline_flags);
  } catch (const std::bad_alloc&) {
    vkleak::cli::print_error("out of memory");
    return vkleak::cli::kExitUsage;
  } catch (const std::exception& e) {
    vkleak::cli::print_error(e.what());
    return vkleak::cli::kExitUsage;
  }
  return vkleak::cli::kExitUsage;
}
