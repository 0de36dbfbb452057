#include "analysis/finding.h"

#include <algorithm>
#include <tuple>

namespace vkleak::analysis {

const char* kind_name(FindingKind kind) {
  switch (kind) {
    case FindingKind::kLeakAtExit:
      return "leak_at_exit";
    case FindingKind::kGrowth:
      return "growth";
    case FindingKind::kRetained:
      return "retained";
    case FindingKind::kStaleView:
      return "stale_view";
    case FindingKind::kOrphanedMemory:
      return "orphaned_memory";
    case FindingKind::kDestroyedInFlight:
      return "destroyed_in_flight";
    case FindingKind::kInvalidDestroy:
      return "invalid_destroy";
  }
  return "unknown";
}

std::optional<FindingKind> kind_from_name(const std::string& name) {
  for (FindingKind kind : kAllKinds) {
    if (name == kind_name(kind)) return kind;
  }
  return std::nullopt;
}

const char* kind_description(FindingKind kind) {
  switch (kind) {
    case FindingKind::kLeakAtExit:
      return "Objects the application made that are still alive when their device or instance is "
             "destroyed, or at exit when it never tore down.";
    case FindingKind::kGrowth:
      return "A group of objects (same type and creation call site) whose live count or bytes keep "
             "rising from snapshot to snapshot after the warm-up.";
    case FindingKind::kRetained:
      return "Objects no submission has used for many frames while a newer object of their group "
             "is in use: superseded but never freed.";
    case FindingKind::kStaleView:
      return "Views, descriptor sets or framebuffers that reference a destroyed object, or that "
             "pin a retained one.";
    case FindingKind::kOrphanedMemory:
      return "Device memory with nothing bound to it and unused for many frames.";
    case FindingKind::kDestroyedInFlight:
      return "An object destroyed or freed while a submission that uses it was not proven "
             "complete.";
    case FindingKind::kInvalidDestroy:
      return "A destroy or free of a handle the layer does not know as alive (double destroy, "
             "wrong device, or a handle never created).";
  }
  return "";
}

bool kind_is_error(FindingKind kind) {
  switch (kind) {
    case FindingKind::kLeakAtExit:
    case FindingKind::kStaleView:
    case FindingKind::kDestroyedInFlight:
    case FindingKind::kInvalidDestroy:
      return true;
    default:
      return false;
  }
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

std::string make_fingerprint(const std::string& kind, const std::string& object_type,
                             const std::string& function, const std::string& name_pattern) {
  return kind + "|" + object_type + "|" + function + "|" + name_pattern;
}

std::string Finding::fingerprint() const {
  // Without symbols, the module keeps call sites of different libraries apart.
  std::string where = function();
  if (where.empty() && !callsite.empty()) where = callsite.front().module;
  return make_fingerprint(kind_name(kind), object_type, where, name_pattern);
}

void rank_findings(std::vector<Finding>* findings) {
  // The fingerprint last: the same findings always come in the same order.
  std::stable_sort(findings->begin(), findings->end(), [](const Finding& a, const Finding& b) {
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.count != b.count) return a.count > b.count;
    return std::make_tuple(a.kind, a.fingerprint()) < std::make_tuple(b.kind, b.fingerprint());
  });
}

}  // namespace vkleak::analysis
