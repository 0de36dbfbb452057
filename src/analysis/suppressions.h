// Suppression files, in the spirit of LeakSanitizer's: one rule per line, '#' starts a comment.
//
//   kind=retained type=VkBuffer name=stream.* frame=*TextureCache::*
//   leak_at_exit:ImGui_ImplVulkan_CreateFontsTexture
//
// A rule of key=glob fields matches a finding when every field it has matches: kind (the finding
// kind), type (the Vulkan type), name (any debug name of the finding, or its name pattern),
// frame (any frame of the creation call site: its function, source file, module or whole text).
// KIND:PATTERN is the LeakSanitizer form: PATTERN (with * wildcards) found anywhere in a frame;
// KIND may be * for any kind. Globs use * and ? and [...], as in fnmatch(3) (shared/glob.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/finding.h"

namespace vkleak::analysis {

bool glob_match(const std::string& pattern, const std::string& text);

struct SuppressionRule {
  std::string text;  // as written
  int line = 0;
  std::string kind = "*";
  std::string type = "*";
  std::string name;   // empty: any
  std::string frame;  // empty: any
};

// Larger suppression files are refused unread (a real one has a few hundred lines).
inline constexpr uint64_t kMaxSuppressionBytes = uint64_t{16} << 20;

class Suppressions {
 public:
  // Throws std::runtime_error "<path>:<line>: <problem>" on a malformed rule.
  static Suppressions parse(const std::string& text, const std::string& path);
  // Throws std::runtime_error when the file cannot be read (missing, a directory, a FIFO, a
  // device, larger than kMaxSuppressionBytes) or is malformed.
  static Suppressions load(const std::string& path);

  // The first rule matching f, or nullptr.
  const SuppressionRule* match(const Finding& f) const;
  const std::vector<SuppressionRule>& rules() const { return rules_; }
  // The file the rules came from.
  const std::string& path() const { return path_; }

 private:
  std::vector<SuppressionRule> rules_;
  std::string path_;
};

}  // namespace vkleak::analysis
