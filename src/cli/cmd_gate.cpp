#include "cli/cmd_gate.h"

#include <iostream>
#include <optional>
#include <stdexcept>

#include "analysis/gate.h"
#include "cli/common.h"
#include "core/snapshot.h"

namespace vkleak::cli {

CLI::App* add_gate_command(CLI::App* app, GateFlags* flags) {
  CLI::App* gate = app->add_subcommand(
      "gate",
      "Decide pass or fail for CI: exit 0 when clean, 1 on new problems, 2 on errors, 3 on a "
      "run not checked whole, 4 on a baseline of another program");
  gate->set_version_flag("--version", std::string("vkleak ") + VKLEAK_VERSION);
  add_input_flags(gate, &flags->report, "What to check");
  gate->add_option("--baseline", flags->baseline,
                   "The known problems (vkleak baseline writes the file; a findings JSON of "
                   "vkleak report --format json is read too): only problems not in it fail, "
                   "whatever kinds it saw them as")
      ->option_text("FILE");
  gate->add_flag("--baseline-any-program", flags->baseline_any_program,
                 "Use a baseline made from runs of another program (its executable's file name "
                 "differs) instead of exit code 4");
  gate->add_option("--suppressions", flags->suppressions,
                   "Suppression rules, one per line (syntax: FINDINGS.md)")
      ->option_text("FILE");
  gate->add_option("--max-findings", flags->max_findings,
                   "New problems allowed (default 0; findings about the same objects are one)")
      ->check(CLI::Range(int64_t{0}, INT64_MAX))
      ->option_text("N");
  gate->add_option("--fail-on", flags->fail_on,
                   "Only problems with one of these kinds fail (comma-separated; default: all)")
      ->delimiter(',')
      ->check(CLI::IsMember(analysis::kind_names()))
      ->option_text("KINDS");
  gate->add_flag("--allow-incomplete", flags->allow_incomplete,
                 "Judge runs the snapshots do not cover whole (crashed, killed, a snapshot "
                 "missing or not written) by their findings alone, instead of exit code 3");
  gate->add_flag("--accept-skipped-teardown", flags->accept_skipped_teardown,
                 "Judge runs whose process ended in _exit() or quick_exit() (no teardown: what "
                 "it left alive is listed, not judged) by their findings alone, instead of exit "
                 "code 3");
  add_output_flags(gate, &flags->report);
  add_threshold_flags(gate, &flags->report);
  gate->footer(
      "Exit codes: 0 pass, 1 fail (new problems over --max-findings), 2 bad flags or input "
      "(a corrupt snapshot, no snapshots, an unreadable baseline or suppression file), 3 "
      "incomplete: a run was not checked whole (it crashed or was killed, a snapshot is missing "
      "or the layer could not write one; the reason is printed; --allow-incomplete accepts it), "
      "or teardown not checked: the program ended in _exit() or quick_exit() "
      "(--accept-skipped-teardown accepts it), "
      "4 the baseline is of another program (--baseline-any-program accepts it). 3 wins over 1. "
      "Known problems that no longer occur are named (fixed: remove them from the baseline with "
      "vkleak baseline --update); they do not change the exit code.");
  return gate;
}

namespace {

// As LeakSanitizer's "Suppressions used", on stderr whatever the format: what each rule matched,
// and a warning for each rule that matched nothing (a typo, or a leak fixed since).
void print_suppressions_used(const analysis::GateSummary& summary) {
  if (summary.suppressions.empty()) return;
  Table table;
  table.add_column("findings", Table::Align::kRight);
  table.add_column("objects", Table::Align::kRight);
  table.add_column("bytes", Table::Align::kRight);
  table.add_column("rule", Table::Align::kLeft);
  for (const analysis::SuppressionUse& u : summary.suppressions) {
    table.add_row({format_count(u.findings), format_count(u.objects), format_bytes(u.bytes),
                   printable(u.rule) + "  (" + printable(u.file) + ":" + std::to_string(u.line) +
                       (u.findings == 0 ? ", unused" : "") + ")"});
  }
  std::cerr << "Suppressions used:\n" << table.render(Style(false), 2);
  for (const analysis::SuppressionUse& u : summary.suppressions) {
    if (u.findings > 0) continue;
    print_warning(printable(u.file) + ":" + std::to_string(u.line) + ": suppression rule '" +
                  printable(u.rule) +
                  "' matched no finding: remove it if what it was for is fixed");
  }
}

}  // namespace

int gate_command(const GateFlags& flags) {
  // Policy files first: a typo there should fail fast, before minutes of reading.
  std::optional<analysis::Suppressions> suppressions;
  std::optional<analysis::Baseline> baseline;
  try {
    if (!flags.suppressions.empty()) {
      suppressions = analysis::Suppressions::load(flags.suppressions);
    }
    if (!flags.baseline.empty()) baseline = analysis::Baseline::load(flags.baseline);
  } catch (const std::runtime_error& e) {
    print_error(e.what());
    return kExitUsage;
  }
  analysis::ReportDocument doc;
  try {
    doc = analyse_inputs(flags.report);
  } catch (const SnapshotError& e) {
    print_error(e.what());
    return kExitUsage;
  }
  if (baseline) {
    // A baseline of another program would call this program's leaks known, or none of them.
    const std::string mismatch = analysis::program_mismatch(*baseline, doc);
    if (!mismatch.empty() && !flags.baseline_any_program) {
      print_error(printable(flags.baseline) + ": " + mismatch +
                  "; make one for this program with vkleak baseline, or pass "
                  "--baseline-any-program to use it anyway");
      return kExitOtherProgram;
    }
    if (!mismatch.empty()) {
      print_warning(printable(flags.baseline) + ": " + mismatch +
                    " (used anyway: --baseline-any-program)");
    }
  }
  analysis::GatePolicy policy;
  policy.max_findings = static_cast<uint64_t>(flags.max_findings);
  policy.allow_incomplete = flags.allow_incomplete;
  policy.accept_skipped_teardown = flags.accept_skipped_teardown;
  for (const std::string& kind : flags.fail_on) {
    if (auto k = analysis::kind_from_name(kind)) policy.fail_on.insert(*k);
  }
  const analysis::GateSummary summary = analysis::apply_gate(
      &doc, suppressions ? &*suppressions : nullptr, baseline ? &*baseline : nullptr, policy);
  const int written = write_outputs(doc, flags.report);
  if (written != kExitOk) return written;
  print_suppressions_used(summary);
  // The text output lists them; for the other formats, stderr does, so that a CI log shows them.
  if (flags.report.format != report::kDefaultFormat) {
    for (const std::string& fixed : summary.fixed) {
      print_note("fixed: " + printable(fixed) +
                 " (remove from the baseline with `vkleak baseline --update`)");
    }
  }
  say_incomplete_runs(doc, flags.allow_incomplete);
  for (const analysis::RunReport& run : doc.runs) {
    if (!run.incomplete.empty() || !run.skipped_teardown) continue;
    const analysis::SkippedTeardown& t = *run.skipped_teardown;
    const std::string line = "run " + doc.run_label(run) +
                             ": teardown not checked: the program ended with " +
                             printable(t.ended_by) + " at frame " + std::to_string(t.frame) +
                             "; what it left alive is listed, not judged";
    if (flags.accept_skipped_teardown)
      print_warning(line + " (accepted by --accept-skipped-teardown)");
    else
      print_error(line + " (--accept-skipped-teardown accepts it)");
  }
  switch (summary.result()) {
    case analysis::GateResult::kPass:
      return kExitOk;
    case analysis::GateResult::kIncomplete:
    case analysis::GateResult::kTeardownNotChecked:
      return kExitIncomplete;
    case analysis::GateResult::kFail:
    case analysis::GateResult::kNone:  // apply_gate always decides
      break;
  }
  return kExitFindings;
}

}  // namespace vkleak::cli
