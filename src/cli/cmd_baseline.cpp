#include "cli/cmd_baseline.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <vector>

#include "analysis/baseline.h"
#include "cli/common.h"
#include "core/snapshot.h"

namespace vkleak::cli {

CLI::App* add_baseline_command(CLI::App* app, BaselineFlags* flags) {
  CLI::App* baseline = app->add_subcommand(
      "baseline",
      "Write the known problems of runs to a baseline file for vkleak gate --baseline: one entry "
      "per problem, sorted, no pids or absolute paths, made to be committed and reviewed");
  baseline->set_version_flag("--version", std::string("vkleak ") + VKLEAK_VERSION);
  add_input_flags(baseline, &flags->report, "The runs whose problems are known");
  baseline->add_option("-o,--output", flags->output, "The baseline file (vkleak-baseline.json)")
      ->option_text("FILE");
  baseline->add_flag("--update", flags->update,
                     "Update the file: keep its entries that still occur as they are, add the "
                     "new problems, remove the fixed ones, and say which");
  baseline->add_flag("--baseline-any-program", flags->any_program,
                     "--update a baseline made from runs of another program (its executable's "
                     "file name differs) instead of exit code 4");
  baseline->add_flag("--allow-incomplete", flags->allow_incomplete,
                     "Write from runs the snapshots do not cover whole (crashed, killed, a "
                     "snapshot missing) instead of exit code 3");
  add_threshold_flags(baseline, &flags->report);
  baseline->footer(
      "Exit codes: 0 written, 2 bad flags or input (a corrupt snapshot, no snapshots, an "
      "unreadable baseline with --update), 3 a run was not checked whole (its problems may be "
      "missing; --allow-incomplete accepts it), 4 --update of a baseline of another program "
      "(--baseline-any-program accepts it).\nThe file's format: "
      "src/schema/vkleak-baseline.schema.json.");
  return baseline;
}

namespace {

// Written whole or not at all: a temporary file next to it, renamed over it. The temporary is
// made new (O_EXCL): never a file or link that was there before.
bool write_atomically(const std::string& path, const std::string& content) {
  const std::string temporary = path + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(temporary.c_str(),
                        O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0666);
  int err = fd < 0 ? errno : write_all(fd, content);
  if (fd >= 0 && ::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(temporary.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    if (fd >= 0) ::unlink(temporary.c_str());
    print_error(printable(path) + ": cannot write: " + std::strerror(err));
    return false;
  }
  return true;
}

}  // namespace

int baseline_command(const BaselineFlags& flags) {
  std::optional<analysis::Baseline> old;
  if (flags.update) {
    try {
      old = analysis::Baseline::load(flags.output);
    } catch (const std::runtime_error& e) {
      print_error(std::string(e.what()) + " (--update reads the file it rewrites)");
      return kExitUsage;
    }
  }
  analysis::ReportDocument doc;
  try {
    doc = analyse_inputs(flags.report);
  } catch (const SnapshotError& e) {
    print_error(e.what());
    return kExitUsage;
  }
  // A run cut short may lack problems: a baseline from it would call them fixed.
  if (say_incomplete_runs(doc, flags.allow_incomplete)) return kExitIncomplete;
  analysis::Baseline baseline;
  if (old) {
    const std::string mismatch = analysis::program_mismatch(*old, doc);
    if (!mismatch.empty() && !flags.any_program) {
      print_error(printable(flags.output) + ": " + mismatch +
                  "; write a new one without --update, or pass --baseline-any-program");
      return kExitOtherProgram;
    }
    std::vector<std::string> added, removed;
    baseline = old->updated(doc, &added, &removed);
    for (const std::string& d : added) print_note("added: " + printable(d));
    for (const std::string& d : removed) print_note("removed (fixed): " + printable(d));
    if (!write_atomically(flags.output, baseline.serialize())) return kExitUsage;
    print_note(printable(flags.output) + ": " + format_count(baseline.size()) + " known " +
               (baseline.size() == 1 ? "problem" : "problems") + " (" + format_count(added.size()) +
               " added, " + format_count(removed.size()) + " removed)");
    return kExitOk;
  }
  baseline = analysis::Baseline::of(doc);
  if (!write_atomically(flags.output, baseline.serialize())) return kExitUsage;
  print_note(printable(flags.output) + ": " + format_count(baseline.size()) + " known " +
             (baseline.size() == 1 ? "problem" : "problems"));
  return kExitOk;
}

}  // namespace vkleak::cli
