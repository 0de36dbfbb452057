// Problems: findings about the same objects joined, so that every total counts an object and its
// bytes once. A group that grew and leaked at exit is two findings (two kinds, two verdicts) but
// one problem: 300 buffers, not 600.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/finding.h"

namespace vkleak::analysis {

// Joins the run's findings that share an object (by id, Finding::objects) into problems, sets
// RunReport::problems (ranked: certain first, then how fast they accumulate, bytes, count, then the
// best-ranked finding) and each
// finding's problem. A finding without objects (an event) is a problem of its own.
// Findings whose whole call chain lies inside libraries the program loads (GL on zink, its own
// threads, a toolkit) join into one problem per library: not the program's own code, one cause.
void assign_problems(RunReport* run);

// The library that a finding's whole call chain lies in, outside the program's executable (the
// run's): the innermost module below the loader and layers ("libgallium-24.2.so",
// "libQt6Gui.so.6"), libc's thread start aside; "" when a frame is the executable's (or in no
// module), and for events. Where the executable is unknown, every frame outside the Vulkan stack
// (shared/vulkan_stack.h, --stack-module) is taken for the program's own.
std::string library_of(const Finding& f, std::string_view executable);

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

// A problem as every output shows it: one block (text, Markdown), one test case (JUnit), one
// result (SARIF) with its kinds listed and its evidence once.
struct ShownProblem {
  const RunReport* run = nullptr;
  const Problem* problem = nullptr;
  size_t number = 0;  // "#N": 1-based, in the order shown
  // Its best-ranked finding: the title, call site and evidence shown for the problem.
  const Finding& primary() const { return run->findings[problem->findings.front()]; }
  std::vector<const Finding*> findings() const;
  GateStatus status() const { return problem->status; }
};

// Every run's problems in the order the outputs show them: a gate's new problems first (the
// line to fix is the first thing read), then the others; within each, runs in order, each
// ranked. A model built by hand (no problems assigned) shows one problem per finding.
class ShownProblems {
 public:
  explicit ShownProblems(const ReportDocument& doc);
  const std::vector<ShownProblem>& all() const { return shown_; }
  size_t size() const { return shown_.size(); }

  // The innermost frame of p's call site with a source line that no other problem of the
  // document has in its call sites: the caller that tells this problem apart, not the shared
  // helper all of them go through. The innermost source frame when every frame is shared;
  // nullptr when no frame has a source line. SARIF's location, Markdown's "created at".
  const Frame* distinguishing_frame(const ShownProblem& p) const;

 private:
  std::vector<std::vector<Problem>> owned_;  // per run, for runs without problems
  std::vector<ShownProblem> shown_;
  // "file:line:function" of a source frame -> how many problems have it (made on first use).
  mutable std::unordered_map<std::string, size_t> problems_with_frame_;
};

// "leak_at_exit + growth": the problem's kinds, in the order of its findings.
std::string kinds_text(const Problem& p, const std::string& separator = " + ");

}  // namespace vkleak::analysis
