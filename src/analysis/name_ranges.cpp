#include "analysis/name_ranges.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace vkleak::analysis {

namespace {

constexpr size_t kMaxDigits = 18;  // fits in uint64_t

struct Split {
  std::string_view prefix;
  uint64_t number = 0;
  size_t digits = 0;  // 0: no number at the end
  bool padded = false;
};

Split split(const std::string& name) {
  size_t start = name.size();
  while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9') --start;
  Split s;
  s.prefix = std::string_view(name).substr(0, start);
  const size_t digits = name.size() - start;
  if (digits == 0 || digits > kMaxDigits) return s;
  for (size_t i = start; i < name.size(); ++i) s.number = s.number * 10 + (name[i] - '0');
  s.digits = digits;
  s.padded = digits > 1 && name[start] == '0';
  return s;
}

struct Series {
  std::string_view prefix;
  size_t width = 0;  // zero-padded to this many digits, 0: not padded
  std::vector<uint64_t> numbers;
  const std::string* only = nullptr;  // the first name, shown as is when it is alone
};

std::string number_text(uint64_t n, size_t width) {
  std::string digits = std::to_string(n);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

}  // namespace

std::vector<NameEntry> name_ranges(const std::vector<std::string>& names) {
  std::vector<Split> splits;
  splits.reserve(names.size());
  // The widths of zero-padded series, by prefix: "f.100" belongs with "f.007".
  std::unordered_set<std::string> padded_widths;
  std::string key;
  const auto make_key = [&key](std::string_view prefix, size_t width) -> const std::string& {
    key.assign(prefix);
    key += '\0';
    key += std::to_string(width);
    return key;
  };
  for (const std::string& name : names) {
    splits.push_back(split(name));
    const Split& s = splits.back();
    if (s.padded) padded_widths.insert(make_key(s.prefix, s.digits));
  }

  // Entries in order of first appearance: a series (index into series) or a plain name.
  struct Entry {
    size_t series = SIZE_MAX;
    const std::string* name = nullptr;
  };
  std::vector<Entry> entries;
  std::vector<Series> series;
  std::unordered_map<std::string, size_t> by_key;
  for (size_t i = 0; i < names.size(); ++i) {
    const Split& s = splits[i];
    if (s.digits == 0) {
      entries.push_back({SIZE_MAX, &names[i]});
      continue;
    }
    size_t width = s.padded ? s.digits : 0;
    if (!s.padded && !padded_widths.empty() && padded_widths.count(make_key(s.prefix, s.digits)))
      width = s.digits;
    auto [it, added] = by_key.try_emplace(make_key(s.prefix, width), series.size());
    if (added) {
      series.push_back(Series{s.prefix, width, {}, &names[i]});
      entries.push_back({it->second, nullptr});
    }
    series[it->second].numbers.push_back(s.number);
  }

  std::vector<NameEntry> out;
  out.reserve(entries.size());
  for (const Entry& e : entries) {
    if (e.series == SIZE_MAX) {
      out.push_back({*e.name, 1});
      continue;
    }
    Series& s = series[e.series];
    std::vector<uint64_t>& v = s.numbers;
    if (!std::is_sorted(v.begin(), v.end())) std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    if (v.size() == 1) {
      out.push_back({*s.only, 1});
      continue;
    }
    std::string text(s.prefix);
    text += '{';
    for (size_t i = 0; i < v.size();) {
      size_t j = i;
      while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
      if (i > 0) text += ',';
      if (j - i >= 2) {
        text += number_text(v[i], s.width) + ".." + number_text(v[j], s.width);
      } else {
        for (size_t k = i; k <= j; ++k) text += (k > i ? "," : "") + number_text(v[k], s.width);
      }
      i = j + 1;
    }
    text += '}';
    out.push_back({std::move(text), v.size()});
  }
  return out;
}

}  // namespace vkleak::analysis
