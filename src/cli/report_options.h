// What `vkleak report` and `vkleak gate` share: inputs, thresholds, output formats and files,
// and reading + analysing every run of the inputs.
#pragma once

#include <CLI/CLI.hpp>
#include <array>
#include <string>
#include <vector>

#include "analysis/options.h"
#include "report/output.h"
#include "report/renderers.h"
#include "shared/text.h"

namespace vkleak::cli {

// --sparklines: auto draws them when stdout is a terminal.
enum class SparklineMode { kAuto, kAlways, kNever };

struct ReportFlags {
  std::vector<std::string> inputs;
  std::string format = report::kDefaultFormat;  // a name of report::kRenderers
  ColorMode color = ColorMode::kAuto;
  SparklineMode sparklines = SparklineMode::kNever;  // add_sparklines_option makes it auto
  // --json FILE, --markdown FILE, ...: by the index of their row in report::kRenderers.
  std::array<std::string, report::kRendererCount> files;
  std::string source_root;  // SARIF: source paths under it become relative (default: cwd)
  analysis::AnalysisOptions analysis;
  unsigned jobs = 0;  // 0: default_jobs()
};

void add_input_flags(CLI::App* command, ReportFlags* flags, const std::string& what);
void add_threshold_flags(CLI::App* command, ReportFlags* flags);
void add_output_flags(CLI::App* command, ReportFlags* flags);
// --sparklines=auto|always|never (auto by default): per-type sparklines in the text output.
void add_sparklines_option(CLI::App* command, ReportFlags* flags);
// --stack-module PATTERN (repeatable): more modules of the Vulkan stack, whose frames a call site
// does not show (core/module_map.h). For report, gate, show and diff.
void add_stack_module_option(CLI::App* command);
// --debug-file-directory DIR (repeatable): where separate debug files are looked up instead of
// /usr/lib/debug (core/symbolizer.h). For report, gate, show and diff.
void add_debug_file_directory_option(CLI::App* command);
// --startup-frames: show _start and __libc_start_* frames (core/symbolizer.h). For report, gate,
// show and diff.
void add_startup_frames_option(CLI::App* command);

// The inputs with each directory of run directories (one that holds no snapshot but
// subdirectories that do, as vkleak run's default ./vkleak-snapshots/run-<time>-<pid>/) replaced
// by its newest run: the one whose last snapshot was written last. Says on stderr which it took
// and how to choose another.
std::vector<std::string> resolve_run_inputs(const std::vector<std::string>& inputs);

// Reads and analyses every run. Throws SnapshotError (unusable input).
analysis::ReportDocument analyse_inputs(const ReportFlags& flags);

// Says on stderr, for each run the snapshots do not cover whole, why: as an error, or as a
// warning when `allowed` (--allow-incomplete). True when a run was not covered and not allowed.
bool say_incomplete_runs(const analysis::ReportDocument& doc, bool allowed);

// Writes all of content to fd; 0 or the errno of the failure.
int write_all(int fd, const std::string& content);

// Writes the document to stdout in --format and to each requested file. Returns kExitOk, or
// kExitUsage (after saying why) when something could not be written.
int write_outputs(const analysis::ReportDocument& doc, const ReportFlags& flags);

}  // namespace vkleak::cli
