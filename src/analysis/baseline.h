// A baseline: the findings of an earlier `vkleak report --format json` (or gate). A finding is
// in the baseline when one there is about the same objects: the same Vulkan type, call site
// (callsite_identity: the functions of the innermost calls, inline chains included; without
// symbols the module+offset stack) and name pattern, whatever its kind (a problem judged as
// growth at one snapshot cadence and as retained at another is one problem): counts, bytes,
// handles and line numbers may change. The identity is computed from each finding's fields
// (object_type, callsite_frames, function, name_pattern), never read from a stored fingerprint,
// so baselines of every earlier build read the same way.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "analysis/finding.h"

namespace vkleak::analysis {

// Larger baselines are refused unread: parsing costs several times the file's size in memory.
inline constexpr uint64_t kMaxBaselineBytes = uint64_t{64} << 20;

class Baseline {
 public:
  // Throws std::runtime_error when the file cannot be read (missing, a directory, a FIFO, a
  // device, larger than kMaxBaselineBytes) or is not a findings document of a version this build
  // knows.
  static Baseline load(const std::string& path);
  static Baseline parse(const std::string& text, const std::string& path);

  bool contains(const Finding& f) const { return identities_.count(f.identity()) > 0; }
  size_t size() const { return identities_.size(); }

 private:
  std::set<std::string> identities_;  // Finding::identity()
};

}  // namespace vkleak::analysis
