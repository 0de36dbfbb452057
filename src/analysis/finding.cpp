#include "analysis/finding.h"

#include <algorithm>
#include <cctype>
#include <tuple>

#include "core/symbolizer.h"

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

namespace {

// The namespaces of support code (is_support_frame): data, one place.
constexpr std::string_view kSupportNamespaces[] = {
    "std::",   "__gnu_cxx::", "__cxxabiv1::",      "testing::",
    "Catch::", "doctest::",   "boost::unit_test::"};

// "void ns::f<T>(int) const" -> "ns::f<T>": the name without its return type and parameters.
std::string_view qualified_name(std::string_view function) {
  size_t depth = 0, start = 0, end = function.size();
  for (size_t i = 0; i < function.size(); ++i) {
    const char c = function[i];
    if (c == '<') {
      ++depth;
    } else if (c == '>' && depth > 0) {
      --depth;
    } else if (depth == 0 && c == '(') {
      end = i;
      break;
    } else if (depth == 0 && c == ' ') {
      start = i + 1;
    }
  }
  return start < end ? function.substr(start, end - start) : function;
}

}  // namespace

bool is_support_frame(const Frame& frame) {
  if (frame.function.empty()) return false;
  const std::string_view name = qualified_name(frame.function);
  for (std::string_view ns : kSupportNamespaces)
    if (name.substr(0, ns.size()) == ns) return true;
  return false;
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

std::string FindingKey::shape_identity() const {
  if (shape == where) return "";
  FindingKey weaker = *this;
  weaker.where = shape;
  return weaker.identity();
}

FindingKey Finding::key() const {
  const std::vector<std::string> path = callsite_path(callsite);
  return FindingKey{kind_name(kind), object_type, path_identity(path), name_pattern,
                    path_shape(path)};
}

std::string Finding::fingerprint() const {
  return key().fingerprint();
}

std::string Finding::identity() const {
  return key().identity();
}

namespace {

// "module+0x1f" from a frame no symbol names: its text starts with it ("app+0x1f (build-id
// mismatch)", "app+0x1f [Vulkan stack]"); a frame outside any module is "?" (its absolute address
// moves with every run).
std::string unnamed_frame(const Frame& frame) {
  if (frame.module.empty()) return "?";
  const std::string prefix = frame.module + "+0x";
  if (frame.text.compare(0, prefix.size(), prefix) != 0) return frame.module + "+?";
  size_t end = prefix.size();
  while (end < frame.text.size() && std::isxdigit(static_cast<unsigned char>(frame.text[end])))
    ++end;
  return frame.text.substr(0, end);
}

}  // namespace

std::vector<std::string> callsite_path(const std::vector<Frame>& callsite) {
  std::vector<std::string> out;
  for (const Frame& frame : callsite) {
    if (!frame.function.empty() && is_startup_frame(frame.function)) continue;
    out.push_back(frame.function.empty() ? unnamed_frame(frame) : frame.function);
    // What calls main is the C runtime's, whatever --startup-frames shows.
    if (frame.function == "main") break;
  }
  return out;
}

bool is_unnamed_frame(const std::string& frame) {
  if (frame == "?") return true;
  // A function's name never ends in +0x<hex> with no parenthesis in it (C++ names have their
  // parameters; C names no '+').
  const size_t plus = frame.rfind("+0x");
  if (plus == std::string::npos || plus == 0 || frame.find('(') != std::string::npos) return false;
  if (frame.size() == plus + 3) return false;
  for (size_t i = plus + 3; i < frame.size(); ++i) {
    if (!std::isxdigit(static_cast<unsigned char>(frame[i]))) return false;
  }
  return true;
}

std::string path_identity(const std::vector<std::string>& path) {
  std::string out;
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    if (!out.empty()) out += " > ";
    out += *it;
  }
  return out;
}

std::string path_shape(const std::vector<std::string>& path) {
  std::vector<std::string> shape;
  for (const std::string& frame : path) {
    shape.push_back(is_unnamed_frame(frame) && frame != "?"
                        ? frame.substr(0, frame.rfind("+0x")) + "+?"
                        : frame);
  }
  return path_identity(shape);
}

std::string callsite_identity(const std::vector<Frame>& callsite) {
  return path_identity(callsite_path(callsite));
}

std::string callsite_shape(const std::vector<Frame>& callsite) {
  return path_shape(callsite_path(callsite));
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
    if (a.accumulation != b.accumulation) return a.accumulation > b.accumulation;
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
  if (skipped_teardown_runs > 0 && !accept_skipped_teardown) return GateResult::kTeardownNotChecked;
  return pass ? GateResult::kPass : GateResult::kFail;
}

GateResult ReportDocument::gate_result() const {
  return gate ? gate->result() : GateResult::kNone;
}

}  // namespace vkleak::analysis
