// Problems: findings about the same objects joined, so that every total counts an object and its
// bytes once. A group that grew and leaked at exit is two findings (two kinds, two verdicts) but
// one problem: 300 buffers, not 600.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/finding.h"

namespace vkleak::analysis {

// Joins the run's findings that share an object (by id, Finding::objects) into problems, sets
// RunReport::problems (ranked: bytes, then count, then the best-ranked finding) and each
// finding's problem. A finding without objects (an event) is a problem of its own.
void assign_problems(RunReport* run);

// The run's problems, or, when they were never assigned (a model built by hand), one per finding.
std::vector<Problem> run_problems(const RunReport& run);

// What a report counts: problems, and the distinct objects and bytes of its findings.
struct ProblemTotals {
  uint64_t problems = 0;
  uint64_t findings = 0;
  uint64_t objects = 0;
  uint64_t bytes = 0;
};
// A run whose problems were never assigned (a model built by hand) counts each finding as one.
ProblemTotals problem_totals(const RunReport& run);
ProblemTotals problem_totals(const ReportDocument& doc);

// The problem of a finding of this run, nullptr when problems were never assigned.
const Problem* problem_of(const RunReport& run, const Finding& f);

}  // namespace vkleak::analysis
