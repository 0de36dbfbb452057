#include "analysis/grouping.h"

#include <algorithm>

namespace vkleak::analysis {

std::string name_pattern(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] >= '0' && name[i] <= '9') {
      while (i + 1 < name.size() && name[i + 1] >= '0' && name[i + 1] <= '9') ++i;
      out += '*';
    } else {
      out += name[i];
    }
  }
  return out;
}

bool natural_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      size_t ei = i, ej = j;
      while (ei < a.size() && digit(a[ei])) ++ei;
      while (ej < b.size() && digit(b[ej])) ++ej;
      // Without leading zeros, the longer run is the larger number.
      size_t si = i, sj = j;
      while (si + 1 < ei && a[si] == '0') ++si;
      while (sj + 1 < ej && b[sj] == '0') ++sj;
      if (ei - si != ej - sj) return ei - si < ej - sj;
      const int c = a.compare(si, ei - si, b, sj, ej - sj);
      if (c != 0) return c < 0;
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  if ((a.size() - i) != (b.size() - j)) return a.size() - i < b.size() - j;
  return a < b;
}

std::string join_patterns(const std::vector<std::string>& names) {
  std::vector<std::string> patterns;
  for (const std::string& n : names) patterns.push_back(name_pattern(n));
  std::sort(patterns.begin(), patterns.end());
  patterns.erase(std::unique(patterns.begin(), patterns.end()), patterns.end());
  std::string out;
  for (const std::string& p : patterns) {
    if (!out.empty()) out += '|';
    out += p;
  }
  return out;
}

uint32_t GroupTable::type_id(const std::string& type) {
  auto [it, added] = type_ids_.try_emplace(type, static_cast<uint32_t>(types_.size()));
  if (added) types_.push_back(type);
  return it->second;
}

uint32_t GroupTable::pattern_id(const std::string& pattern) {
  auto [it, added] = pattern_ids_.try_emplace(pattern, static_cast<uint32_t>(patterns_.size()));
  if (added) patterns_.push_back(pattern);
  return it->second;
}

uint32_t GroupTable::group(uint32_t type, uint32_t callsite, uint32_t pattern) {
  // Call site and pattern never both matter: one 32-bit id plus a flag.
  const bool by_callsite = callsite != kNoCallsiteId;
  const uint64_t key =
      uint64_t{type} << 33 | uint64_t{by_callsite} << 32 | (by_callsite ? callsite : pattern);
  auto [it, added] = group_ids_.try_emplace(key, static_cast<uint32_t>(groups_.size()));
  if (added) groups_.push_back(Group{type, callsite, by_callsite ? kNoPattern : pattern});
  return it->second;
}

}  // namespace vkleak::analysis
