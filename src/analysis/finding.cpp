#include "analysis/finding.h"

#include <algorithm>
#include <tuple>

namespace vkleak::analysis {

std::optional<FindingKind> kind_from_name(const std::string& name) {
  for (const KindInfo& k : kKinds) {
    if (name == k.name) return k.kind;
  }
  return std::nullopt;
}

std::vector<std::string> kind_names() {
  std::vector<std::string> out;
  for (const KindInfo& k : kKinds) out.emplace_back(k.name);
  return out;
}

std::string Finding::function() const {
  return inlined_function_chain(callsite);
}

std::string inlined_function_chain(const std::vector<Frame>& callsite) {
  std::string out;
  for (const Frame& frame : callsite) {
    if (frame.function.empty()) break;
    out = out.empty() ? frame.function : frame.function + " > " + out;
    if (!frame.inlined) break;
  }
  return out;
}

std::string FindingKey::fingerprint() const {
  return kind + "|" + object_type + "|" + where + "|" + name_pattern;
}

std::string FindingKey::identity() const {
  const std::optional<FindingKind> k = kind_from_name(kind);
  // Misuse is an event, not objects: a double destroy is never a facet of a leak.
  if (k && kind_is_event(*k)) return fingerprint();
  return object_type + "|" + where + "|" + name_pattern;
}

FindingKey Finding::key() const {
  return FindingKey{kind_name(kind), object_type, callsite_identity(callsite), name_pattern};
}

std::string Finding::fingerprint() const {
  return key().fingerprint();
}

std::string Finding::identity() const {
  return key().identity();
}

std::string callsite_identity(const std::vector<Frame>& callsite) {
  std::string out;
  if (callsite.empty()) return out;
  if (!callsite.front().function.empty()) {
    // The innermost call with what was inlined into it, and the calls above it, up to
    // kIdentityCalls calls in all (inlined frames do not count), main or libc's start code.
    size_t calls = 0;
    for (const Frame& frame : callsite) {
      if (frame.function.empty() || frame.function.rfind("__libc_start", 0) == 0 ||
          frame.function == "_start")
        break;
      out = out.empty() ? frame.function : frame.function + " > " + out;
      if (frame.function == "main" || (!frame.inlined && ++calls == kIdentityCalls)) break;
    }
    return out;
  }
  // No symbols: each frame as module+offset (its text up to the first space; a frame that has
  // a function among unsymbolized ones by its function).
  for (const Frame& frame : callsite) {
    if (!out.empty()) out += ';';
    out += !frame.function.empty() ? frame.function : frame.text.substr(0, frame.text.find(' '));
  }
  return out;
}

bool frames_less(const std::vector<Frame>& a, const std::vector<Frame>& b) {
  return std::lexicographical_compare(
      a.begin(), a.end(), b.begin(), b.end(),
      [](const Frame& x, const Frame& y) { return x.text < y.text; });
}

void rank_findings(std::vector<Finding>* findings) {
  // The fingerprint last: the same findings always come in the same order.
  std::stable_sort(findings->begin(), findings->end(), [](const Finding& a, const Finding& b) {
    if (a.heuristic != b.heuristic) return b.heuristic;
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.count != b.count) return a.count > b.count;
    const auto ka = std::make_tuple(a.kind, a.fingerprint());
    const auto kb = std::make_tuple(b.kind, b.fingerprint());
    if (ka != kb) return ka < kb;
    // Two groups whose call sites differ only beyond the identity's calls: their whole paths,
    // then their objects, never the order the rules happened to produce them in (issue 36).
    if (frames_less(a.callsite, b.callsite)) return true;
    if (frames_less(b.callsite, a.callsite)) return false;
    return a.objects < b.objects;
  });
}

std::string ReportDocument::run_label(const RunReport& run) const {
  std::string label = "pid " + std::to_string(run.pid);
  for (const RunReport& other : runs) {
    if (&other != &run && other.pid == run.pid && !run.run_id.empty())
      return label + ", run " + run.run_id.substr(0, 8);
  }
  return label;
}

size_t ReportDocument::finding_count() const {
  size_t n = 0;
  for (const RunReport& r : runs) n += r.findings.size();
  return n;
}

GateResult GateSummary::result() const {
  if (incomplete_runs > 0 && !allow_incomplete) return GateResult::kIncomplete;
  return pass ? GateResult::kPass : GateResult::kFail;
}

GateResult ReportDocument::gate_result() const {
  return gate ? gate->result() : GateResult::kNone;
}

}  // namespace vkleak::analysis
