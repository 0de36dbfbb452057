// A baseline: the findings of an earlier `vkleak report --format json` (or gate). A finding is
// in the baseline when one there has the same kind, Vulkan type, innermost application function
// of its call site and name pattern: counts, bytes, handles and line numbers may change.
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

  bool contains(const Finding& f) const { return fingerprints_.count(f.fingerprint()) > 0; }
  size_t size() const { return fingerprints_.size(); }

 private:
  std::set<std::string> fingerprints_;
};

}  // namespace vkleak::analysis
