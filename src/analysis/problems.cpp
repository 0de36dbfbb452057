#include "analysis/problems.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include "analysis/callsites.h"
#include "core/module_map.h"
#include "shared/escape.h"
#include "shared/vulkan_stack.h"

namespace vkleak::analysis {

namespace {

size_t root(std::vector<size_t>* parent, size_t i) {
  while ((*parent)[i] != i) {
    (*parent)[i] = (*parent)[(*parent)[i]];
    i = (*parent)[i];
  }
  return i;
}

}  // namespace

std::string library_of(const Finding& f, std::string_view executable) {
  if (kind_is_event(f.kind) || f.callsite.empty()) return "";
  const std::string_view program = base_name(executable);
  std::string library;
  for (const Frame& frame : f.callsite) {
    if (frame.module.empty()) return "";  // an address in no module: say nothing
    if (is_thread_start_module(frame.module) || is_vulkan_loader_or_layer_module(frame.module))
      continue;
    // The program's own frame: in its executable; where that is unknown, outside the stack.
    if (program.empty() ? !is_vulkan_stack_module(frame.module) : frame.module == program)
      return "";
    if (library.empty()) library = frame.module;  // the innermost: what called Vulkan
  }
  return library;
}

void assign_problems(RunReport* run) {
  std::vector<Finding>& findings = run->findings;
  std::vector<size_t> parent(findings.size());
  std::iota(parent.begin(), parent.end(), size_t{0});
  // Leaks made wholly inside one library (zink, its own thread too; a toolkit) are one cause:
  // one block.
  std::unordered_map<std::string, size_t> first_of_library;
  std::vector<std::string> library(findings.size());
  for (size_t i = 0; i < findings.size(); ++i) {
    library[i] = library_of(findings[i], run->executable);
    if (library[i].empty()) continue;
    auto [it, added] = first_of_library.try_emplace(library[i], i);
    if (!added) parent[root(&parent, i)] = root(&parent, it->second);
  }
  // The first finding each object was seen in: later ones with it join that one's problem.
  std::unordered_map<uint64_t, size_t> first_seen;
  for (size_t i = 0; i < findings.size(); ++i) {
    for (const auto& [id, bytes] : findings[i].objects) {
      auto [it, added] = first_seen.try_emplace(id, i);
      if (!added) parent[root(&parent, i)] = root(&parent, it->second);
    }
  }
  first_seen.clear();

  std::vector<Problem> problems;
  std::unordered_map<size_t, size_t> by_root;  // union-find root -> index in problems
  for (size_t i = 0; i < findings.size(); ++i) {
    auto [it, added] = by_root.try_emplace(root(&parent, i), problems.size());
    if (added) problems.emplace_back();
    Problem& p = problems[it->second];
    p.findings.push_back(i);
    if (!library[i].empty()) p.library = library[i];
    if (std::find(p.kinds.begin(), p.kinds.end(), findings[i].kind) == p.kinds.end())
      p.kinds.push_back(findings[i].kind);
  }
  for (Problem& p : problems) {
    p.heuristic = std::all_of(p.findings.begin(), p.findings.end(),
                              [&](size_t i) { return findings[i].heuristic; });
    for (size_t i : p.findings) p.accumulation = std::max(p.accumulation, findings[i].accumulation);
    if (p.findings.size() == 1) {
      p.count = findings[p.findings.front()].count;
      p.bytes = findings[p.findings.front()].bytes;
      continue;
    }
    // Each object once, with the most bytes any of its findings counted it with.
    std::vector<std::pair<uint64_t, uint64_t>> objects;
    for (size_t i : p.findings) {
      objects.insert(objects.end(), findings[i].objects.begin(), findings[i].objects.end());
    }
    std::sort(objects.begin(), objects.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    for (size_t k = 0; k < objects.size(); ++k) {
      if (k > 0 && objects[k].first == objects[k - 1].first) continue;
      ++p.count;
      p.bytes = saturating_add(p.bytes, objects[k].second);
    }
  }
  std::stable_sort(problems.begin(), problems.end(), [](const Problem& a, const Problem& b) {
    if (a.heuristic != b.heuristic) return b.heuristic;
    if (a.accumulation != b.accumulation) return a.accumulation > b.accumulation;
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.count != b.count) return a.count > b.count;
    return a.findings.front() < b.findings.front();
  });
  for (size_t k = 0; k < problems.size(); ++k) {
    for (size_t i : problems[k].findings) findings[i].problem = k;
  }
  run->problems = std::move(problems);
}

std::vector<Problem> run_problems(const RunReport& run) {
  if (!run.problems.empty() || run.findings.empty()) return run.problems;
  std::vector<Problem> out;
  for (size_t i = 0; i < run.findings.size(); ++i) {
    const Finding& f = run.findings[i];
    out.push_back(Problem{{i},
                          {f.kind},
                          f.heuristic,
                          f.accumulation,
                          library_of(f, run.executable),
                          f.count,
                          f.bytes,
                          f.status,
                          f.suppressed_by});
  }
  return out;
}

ProblemTotals problem_totals(const RunReport& run) {
  ProblemTotals t;
  t.findings = run.findings.size();
  for (const Problem& p : run_problems(run)) {
    ++t.problems;
    t.objects += p.count;
    t.bytes = saturating_add(t.bytes, p.bytes);
  }
  return t;
}

ProblemTotals problem_totals(const ReportDocument& doc) {
  ProblemTotals t;
  for (const RunReport& run : doc.runs) {
    const ProblemTotals r = problem_totals(run);
    t.problems += r.problems;
    t.findings += r.findings;
    t.objects += r.objects;
    t.bytes = saturating_add(t.bytes, r.bytes);
  }
  return t;
}

const Problem* problem_of(const RunReport& run, const Finding& f) {
  return !run.problems.empty() && f.problem < run.problems.size() ? &run.problems[f.problem]
                                                                  : nullptr;
}

std::vector<const Finding*> ShownProblem::findings() const {
  std::vector<const Finding*> out;
  for (size_t i : problem->findings) out.push_back(&run->findings[i]);
  return out;
}

ShownProblems::ShownProblems(const ReportDocument& doc) {
  owned_.reserve(doc.runs.size());  // pointers into it stay valid
  std::vector<ShownProblem> rest;
  for (const RunReport& run : doc.runs) {
    const std::vector<Problem>* problems = &run.problems;
    if (run.problems.empty() && !run.findings.empty()) {
      owned_.push_back(run_problems(run));
      problems = &owned_.back();
    }
    for (const Problem& p : *problems) {
      (p.status == GateStatus::kNew ? shown_ : rest).push_back(ShownProblem{&run, &p, 0});
    }
  }
  shown_.insert(shown_.end(), rest.begin(), rest.end());
  for (size_t i = 0; i < shown_.size(); ++i) shown_[i].number = i + 1;
}

namespace {

std::string frame_key(const Frame& f) {
  return f.file + ":" + std::to_string(f.line) + ":" + f.function;
}

}  // namespace

const Frame* ShownProblems::distinguishing_frame(const ShownProblem& p) const {
  if (problems_with_frame_.empty()) {
    // Once: in how many problems each source frame appears (linear in the frames).
    for (const ShownProblem& q : shown_) {
      std::unordered_set<std::string> keys;
      for (const Finding* f : q.findings()) {
        for (const Frame& frame : f->callsite) {
          if (!frame.file.empty() && frame.line > 0) keys.insert(frame_key(frame));
        }
      }
      for (const std::string& key : keys) ++problems_with_frame_[key];
    }
  }
  const Frame* innermost = nullptr;
  for (const Frame& frame : p.primary().callsite) {
    if (frame.file.empty() || frame.line <= 0) continue;
    if (innermost == nullptr) innermost = &frame;
    auto it = problems_with_frame_.find(frame_key(frame));
    if (it == problems_with_frame_.end() || it->second <= 1) return &frame;
  }
  return innermost;
}

std::string kinds_text(const Problem& p, const std::string& separator) {
  std::string out;
  for (FindingKind k : p.kinds) out += (out.empty() ? "" : separator) + kind_name(k);
  return out;
}

}  // namespace vkleak::analysis
