// The gate's policy: which problems are new (not suppressed, not in the baseline, of a kind that
// counts), whether there are more of them than allowed, and whether every run was checked whole.
#pragma once

#include <cstdint>
#include <set>

#include "analysis/baseline.h"
#include "analysis/finding.h"
#include "analysis/suppressions.h"

namespace vkleak::analysis {

struct GatePolicy {
  uint64_t max_findings = 0;      // new problems allowed
  std::set<FindingKind> fail_on;  // empty: every kind
  // Judge incomplete runs (crashed, killed, snapshots missing) by their findings alone.
  bool allow_incomplete = false;
  // Judge runs whose process skipped its teardown (_exit(), quick_exit()) by their findings alone.
  bool accept_skipped_teardown = false;
};

// Judges problems (findings about the same objects, analysis/problems.h; assigned here for a
// model built without them): marks each problem and each of its findings new, baseline,
// suppressed or ignored (no kind that counts; GateStatus), counts problems, and returns the
// verdict (GateSummary::result()); also stores it in doc->gate.
GateSummary apply_gate(ReportDocument* doc, const Suppressions* suppressions,
                       const Baseline* baseline, const GatePolicy& policy);

}  // namespace vkleak::analysis
