#include "analysis/gate.h"

#include <vector>

#include "analysis/problems.h"

namespace vkleak::analysis {

GateSummary apply_gate(ReportDocument* doc, const Suppressions* suppressions,
                       const Baseline* baseline, const GatePolicy& policy) {
  GateSummary summary;
  summary.max_findings = policy.max_findings;
  for (FindingKind k : kAllKinds) {
    if (policy.fail_on.empty() || policy.fail_on.count(k)) summary.fail_on.push_back(kind_name(k));
  }
  if (suppressions != nullptr) {
    for (const SuppressionRule& rule : suppressions->rules()) {
      SuppressionUse use;
      use.rule = rule.text;
      use.file = suppressions->path();
      use.line = rule.line;
      summary.suppressions.push_back(std::move(use));
    }
  }
  // Problems, not findings: one missing free judged as three kinds is one problem, new or
  // known as a whole. A problem is known when the baseline has it (Baseline::match_run: any
  // finding of it by its identity, a new facet of a known problem such as the retained judgement
  // a finer snapshot cadence adds is not new; a stripped program's by its shape); a suppression
  // rule silences the findings it matches, and the problem when it matches all of them; --fail-on
  // counts a problem when one of its unsuppressed kinds is listed.
  std::vector<bool> occurring(baseline != nullptr ? baseline->size() : 0, false);
  for (RunReport& run : doc->runs) {
    if (run.problems.empty() && !run.findings.empty()) assign_problems(&run);
    const std::vector<bool> matched = baseline != nullptr
                                          ? baseline->match_run(run, &occurring)
                                          : std::vector<bool>(run.problems.size(), false);
    for (size_t pi = 0; pi < run.problems.size(); ++pi) {
      Problem& p = run.problems[pi];
      const bool known = matched[pi];
      for (size_t i : p.findings) {
        Finding& f = run.findings[i];
        f.status = GateStatus::kNone;
        f.suppressed_by.clear();
        if (const SuppressionRule* rule = suppressions ? suppressions->match(f) : nullptr) {
          f.status = GateStatus::kSuppressed;
          f.suppressed_by = rule->text;
          // LeakSanitizer's "Suppressions used": what each rule matched.
          SuppressionUse& use =
              summary.suppressions[static_cast<size_t>(rule - suppressions->rules().data())];
          ++use.findings;
          use.objects += f.count;
          use.bytes += f.bytes;
        }
      }
      bool any_new = false, any_suppressed = false, any_known = false;
      p.suppressed_by.clear();
      for (size_t i : p.findings) {
        Finding& f = run.findings[i];
        if (f.status == GateStatus::kSuppressed) {
          if (!any_suppressed) p.suppressed_by = f.suppressed_by;
          any_suppressed = true;
          continue;
        }
        if (known) {
          f.status = GateStatus::kBaseline;
          any_known = true;
        } else if (!policy.fail_on.empty() && !policy.fail_on.count(f.kind)) {
          f.status = GateStatus::kIgnored;
        } else {
          f.status = GateStatus::kNew;
          any_new = true;
        }
      }
      p.status = any_new          ? GateStatus::kNew
                 : any_known      ? GateStatus::kBaseline
                 : any_suppressed ? GateStatus::kSuppressed
                                  : GateStatus::kIgnored;
      if (p.status != GateStatus::kSuppressed) p.suppressed_by.clear();
      if (p.status == GateStatus::kNew) ++summary.new_findings;
      if (p.status == GateStatus::kBaseline) ++summary.baseline;
      if (p.status == GateStatus::kSuppressed) ++summary.suppressed;
    }
  }
  // What the baseline knows that no run has any more: fixed, to be removed so it ratchets down
  // (a suppressed problem still occurs).
  for (size_t e = 0; e < occurring.size(); ++e) {
    if (!occurring[e]) summary.fixed.push_back(baseline->entries()[e].description);
  }
  summary.allow_incomplete = policy.allow_incomplete;
  for (const RunReport& run : doc->runs) summary.incomplete_runs += run.incomplete.empty() ? 0 : 1;
  // A complete run that skipped its teardown (_exit(), quick_exit()) was not checked for leaks
  // at exit: not green unless accepted. A crash is incomplete already.
  summary.accept_skipped_teardown = policy.accept_skipped_teardown;
  for (const RunReport& run : doc->runs)
    summary.skipped_teardown_runs += run.incomplete.empty() && run.skipped_teardown ? 1 : 0;
  summary.pass = summary.new_findings <= policy.max_findings &&
                 (policy.allow_incomplete || summary.incomplete_runs == 0) &&
                 (policy.accept_skipped_teardown || summary.skipped_teardown_runs == 0);
  doc->gate = summary;
  return summary;
}

}  // namespace vkleak::analysis
