#include "analysis/output.h"

#include "analysis/messages.h"

namespace vkleak::analysis {

size_t ReportDocument::finding_count() const {
  size_t n = 0;
  for (const RunReport& r : runs) n += r.findings.size();
  return n;
}

std::string ReportDocument::gate_result() const {
  if (!gate) return "";
  if (gate->incomplete_runs > 0 && !gate->allow_incomplete) return "incomplete";
  return gate->pass ? "pass" : "fail";
}

std::string finding_title(const Finding& f) {
  const std::string name = quoted_pattern(f);
  return name.empty() ? f.object_type : f.object_type + " " + name;
}

const Frame* source_frame(const Finding& f) {
  for (const Frame& frame : f.callsite) {
    if (!frame.file.empty() && frame.line > 0) return &frame;
  }
  return nullptr;
}

std::string callsite_summary(const Finding& f) {
  if (f.callsite.empty()) return "";
  const Frame& first = f.callsite.front();
  return first.text;
}

std::vector<const Finding*> all_findings(const ReportDocument& doc) {
  std::vector<const Finding*> out;
  for (const RunReport& r : doc.runs) {
    for (const Finding& f : r.findings) out.push_back(&f);
  }
  return out;
}

}  // namespace vkleak::analysis
