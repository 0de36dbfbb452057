// Debug names in a series, as a reader wants them: "thumb.0" ... "thumb.299" is one entry,
// "thumb.{0..299}", not a line of 300 names; gaps show ("thumb.{0..9,12..20}").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace vkleak::analysis {

// The names as entries: names that share a prefix and end in a base-10 number become one entry
// "prefix{a..b,c,d..e}" (runs of three or more as a..b); zero-padded numbers stay padded
// ("f.{007..012}"). A series of one name, names without a number at the end and numbers of more
// than 18 digits stay as they are. Entries come in the order of their first name. Linear in the
// total length of the names when each series comes in ascending order (as sorted names do).
struct NameEntry {
  std::string text;  // "thumb.{0..299}" or a name as it is
  size_t names = 1;  // how many names it stands for
};
std::vector<NameEntry> name_ranges(const std::vector<std::string>& names);

}  // namespace vkleak::analysis
