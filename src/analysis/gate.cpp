#include "analysis/gate.h"

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
  for (RunReport& run : doc->runs) {
    for (Finding& f : run.findings) {
      if (const SuppressionRule* rule = suppressions ? suppressions->match(f) : nullptr) {
        f.status = "suppressed";
        f.suppressed_by = rule->text;
        ++summary.suppressed;
        SuppressionUse& use =
            summary.suppressions[static_cast<size_t>(rule - suppressions->rules().data())];
        ++use.findings;
        use.objects += f.count;
        use.bytes += f.bytes;
      } else if (baseline != nullptr && baseline->contains(f)) {
        f.status = "baseline";
        ++summary.baseline;
      } else if (!policy.fail_on.empty() && !policy.fail_on.count(f.kind)) {
        f.status = "ignored";
      } else {
        f.status = "new";
        ++summary.new_findings;
      }
    }
  }
  summary.allow_incomplete = policy.allow_incomplete;
  for (const RunReport& run : doc->runs) summary.incomplete_runs += run.incomplete.empty() ? 0 : 1;
  summary.pass = summary.new_findings <= policy.max_findings &&
                 (policy.allow_incomplete || summary.incomplete_runs == 0);
  doc->gate = summary;
  return summary;
}

}  // namespace vkleak::analysis
