// Groups of objects: the same type and creation call site, or, for objects made without a
// recorded call site, the same type and debug-name pattern. Group ids ("nodes") are dense and
// stable for the whole analysis, so per-snapshot results can be merged by id.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/callsites.h"

namespace vkleak::analysis {

// The debug name with every run of digits replaced by '*': "texture.view.12" -> "texture.view.*".
std::string name_pattern(std::string_view name);

// "name.2" before "name.10": digit runs compare as numbers.
bool natural_less(const std::string& a, const std::string& b);

// The patterns of a set of names, distinct and sorted, joined by '|' ("" for none).
std::string join_patterns(const std::vector<std::string>& names);

inline constexpr uint32_t kNoPattern = UINT32_MAX;

class GroupTable {
 public:
  struct Group {
    uint32_t type;      // id from type_id()
    uint32_t callsite;  // CallsiteTable id, or kNoCallsiteId
    uint32_t pattern;   // pattern_id() of the name when there is no call site, else kNoPattern
  };

  uint32_t type_id(const std::string& type);
  const std::string& type_name(uint32_t id) const { return types_[id]; }
  uint32_t pattern_id(const std::string& pattern);
  const std::string& pattern(uint32_t id) const { return patterns_[id]; }

  uint32_t group(uint32_t type, uint32_t callsite, uint32_t pattern);
  const Group& at(uint32_t id) const { return groups_[id]; }
  size_t size() const { return groups_.size(); }

 private:
  std::vector<std::string> types_;
  std::unordered_map<std::string, uint32_t> type_ids_;
  std::vector<std::string> patterns_;
  std::unordered_map<std::string, uint32_t> pattern_ids_;
  std::vector<Group> groups_;
  std::unordered_map<uint64_t, uint32_t> group_ids_;
};

}  // namespace vkleak::analysis
