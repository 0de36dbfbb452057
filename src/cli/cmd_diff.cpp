#include "cli/cmd_diff.h"
#include "cli/report_options.h"

#include <unistd.h>

#include <iostream>

#include "analysis/diff.h"
#include "analysis/run.h"
#include "report/output_diff.h"

namespace vkleak::cli {

CLI::App* add_diff_command(CLI::App* app, DiffFlags* flags) {
  CLI::App* diff = app->add_subcommand(
      "diff",
      "Compare snapshots: A B shows the changes and the objects born after A still alive in B; "
      "A B C shows the objects born between A and B still alive in C");
  diff->set_version_flag("--version", std::string("vkleak ") + VKLEAK_VERSION);
  diff->add_option("snapshots", flags->snapshots, "Two or three snapshot files, oldest first")
      ->required()
      ->expected(2, 3);
  add_format_option(diff, &flags->format);
  add_color_option(diff, &flags->color);
  diff->add_option("--top", flags->top, "Call sites to show (default 20; 0 shows all)")
      ->check(CLI::Range(int64_t{0}, int64_t{0x7fffffff}))
      ->option_text("N");
  diff->add_option("--max-examples", flags->analysis.max_examples,
                   "Example objects per call site (default 5)")
      ->check(CLI::Range(uint32_t{0}, uint32_t{10000}))
      ->option_text("N");
  add_stack_module_option(diff);
  add_debug_file_directory_option(diff);
  add_startup_frames_option(diff);
  diff->add_flag(
      "--no-symbolize", [flags](int64_t) { flags->analysis.symbolize = false; },
      "Call sites as module+offset, without reading any binary");
  return diff;
}

int diff_command(const DiffFlags& flags) {
  std::vector<Snapshot> snapshots;
  try {
    const uint64_t total = analysis::total_file_bytes(flags.snapshots);
    analysis::Progress progress(total, analysis::want_progress(total));
    // All of them at once: the two (or three) files are read side by side.
    analysis::SnapshotLoader loader(flags.snapshots, static_cast<unsigned>(flags.snapshots.size()),
                                    &progress);
    Snapshot s;
    while (loader.next(&s)) snapshots.push_back(std::move(s));
    progress.clear();
  } catch (const SnapshotError& e) {
    print_error(e.what());
    return kExitUsage;
  }
  const analysis::DiffResult result = analysis::diff_snapshots(
      snapshots[0], snapshots[1], snapshots.size() > 2 ? &snapshots[2] : nullptr, flags.analysis);
  if (flags.format == OutputFormat::kJson) {
    std::cout << report::diff_json(result).dump(2, ' ', false,
                                                nlohmann::json::error_handler_t::replace)
              << '\n';
  } else {
    std::cout << report::render_diff_text(result, Style(should_color(flags.color, STDOUT_FILENO)),
                                          static_cast<size_t>(flags.top));
  }
  std::cout.flush();
  return std::cout ? kExitOk : kExitUsage;
}

}  // namespace vkleak::cli
