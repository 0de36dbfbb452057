// Shell-style globs, as fnmatch(3) without flags: '*' any run (slashes too), '?' one character,
// '[...]' a set ('!' or '^' negates, 'a-z' ranges, a leading ']' is literal, '\' quotes), '\'
// quotes the next character (a trailing one matches nothing), and a '[' that is never closed is
// itself (POSIX; glibc differs on some such patterns). One matcher for the layer (module patterns,
// inside Vulkan hooks: header-only, allocation-free) and the CLI (suppression rules). It backtracks
// only to the last '*', so a match costs at most pattern length x text length: glibc's fnmatch is
// exponential in the number of '*', and suppression files may come from untrusted branches.
#pragma once

#include <cstddef>
#include <string_view>

namespace vkleak {

namespace glob_detail {

// Length of the set starting at pattern[p] == '[', 0 when it is not closed (then '[' is literal).
inline size_t set_length(std::string_view pattern, size_t p) noexcept {
  size_t i = p + 1;
  if (i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^')) ++i;
  if (i < pattern.size() && pattern[i] == ']') ++i;
  while (i < pattern.size() && pattern[i] != ']') i += pattern[i] == '\\' ? 2 : 1;
  return i < pattern.size() ? i - p + 1 : 0;
}

// Whether c is in the set's body (between the brackets).
inline bool set_matches(std::string_view body, unsigned char c) noexcept {
  size_t i = 0;
  const bool negated = !body.empty() && (body[0] == '!' || body[0] == '^');
  if (negated) ++i;
  bool hit = false;
  for (; i < body.size(); ++i) {
    if (body[i] == '\\' && i + 1 < body.size()) ++i;  // quoted: itself
    const auto lo = static_cast<unsigned char>(body[i]);
    if (i + 2 < body.size() && body[i + 1] == '-') {
      const auto hi = static_cast<unsigned char>(body[i + 2]);
      hit |= lo <= c && c <= hi;
      i += 2;
    } else {
      hit |= lo == c;
    }
  }
  return hit != negated;
}

// Whether the pattern element at p (not '*') matches c; *length: how long the element is.
inline bool element_matches(std::string_view pattern, size_t p, char c, size_t* length) noexcept {
  if (pattern[p] == '?') {
    *length = 1;
    return true;
  }
  if (pattern[p] == '[') {
    if (const size_t n = set_length(pattern, p)) {
      *length = n;
      return set_matches(pattern.substr(p + 1, n - 2), static_cast<unsigned char>(c));
    }
  }
  if (pattern[p] == '\\') {
    *length = 2;
    return p + 1 < pattern.size() && pattern[p + 1] == c;
  }
  *length = 1;
  return pattern[p] == c;
}

}  // namespace glob_detail

inline bool glob_matches(std::string_view pattern, std::string_view text) noexcept {
  constexpr size_t kNone = std::string_view::npos;
  size_t p = 0, n = 0, star = kNone, mark = 0;
  while (n < text.size()) {
    size_t length = 0;
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = n;
    } else if (p < pattern.size() && glob_detail::element_matches(pattern, p, text[n], &length)) {
      p += length;
      ++n;
    } else if (star != kNone) {
      p = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace vkleak
