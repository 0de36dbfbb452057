// Helpers for the analysis tests: run the analyzer over synthetic snapshots, pick findings.
#pragma once

#include <string>
#include <vector>

#include "analysis/analyzer.h"
#include "snapshot_builder.h"

namespace vkleak::test {

inline analysis::AnalysisOptions test_options() {
  analysis::AnalysisOptions options;
  options.symbolize = false;  // the synthetic module has no file
  return options;
}

inline analysis::RunReport analyse(const std::vector<SnapshotBuilder>& snapshots,
                                   const analysis::AnalysisOptions& options = test_options()) {
  analysis::RunAnalyzer analyzer(options);
  for (const SnapshotBuilder& b : snapshots) analyzer.add(b.read());
  return analyzer.finish();
}

inline std::vector<const analysis::Finding*> of_kind(const analysis::RunReport& report,
                                                     analysis::FindingKind kind) {
  std::vector<const analysis::Finding*> out;
  for (const analysis::Finding& f : report.findings) {
    if (f.kind == kind) out.push_back(&f);
  }
  return out;
}

// The only finding of kind about type, or nullptr (and a test failure) when there is not
// exactly one.
const analysis::Finding* only(const analysis::RunReport& report, analysis::FindingKind kind,
                              const std::string& type);

inline bool has_name(const analysis::Finding& f, const std::string& name) {
  for (const std::string& n : f.names) {
    if (n == name) return true;
  }
  return false;
}

}  // namespace vkleak::test
