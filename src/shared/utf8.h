// Strict UTF-8 (RFC 3629, Unicode table 3-7): no overlong forms, no surrogates, nothing past
// U+10FFFF, no truncated sequences. One definition for the layer's JSON writer (which replaces
// what fails with U+FFFD) and the CLI's snapshot reader (which refuses it).
//
// Header-only and allocation-free: the layer uses it while writing snapshots.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vkleak {

// The bytes at p (p[0] >= 0x80, `avail` >= 1 of them): the length of the valid sequence there
// (*valid = true), or of the maximal subpart of one that is invalid (at least 1; *valid = false).
inline size_t utf8_sequence(const unsigned char* p, size_t avail, bool* valid) noexcept {
  const unsigned char c = p[0];
  size_t need;
  unsigned char lo = 0x80, hi = 0xbf;  // the second byte's range
  if (c >= 0xc2 && c <= 0xdf) {
    need = 1;
  } else if (c >= 0xe0 && c <= 0xef) {
    need = 2;
    if (c == 0xe0) lo = 0xa0;  // overlong
    if (c == 0xed) hi = 0x9f;  // surrogates
  } else if (c >= 0xf0 && c <= 0xf4) {
    need = 3;
    if (c == 0xf0) lo = 0x90;  // overlong
    if (c == 0xf4) hi = 0x8f;  // past U+10FFFF
  } else {
    *valid = false;  // a continuation byte, C0/C1 (overlong) or F5..FF
    return 1;
  }
  for (size_t k = 1; k <= need; ++k) {
    if (k >= avail || p[k] < lo || p[k] > hi) {
      *valid = false;
      return k;
    }
    lo = 0x80;
    hi = 0xbf;
  }
  *valid = true;
  return need + 1;
}

// The code point of the valid sequence of len bytes at p (as utf8_sequence measured it).
inline uint32_t utf8_decode(const unsigned char* p, size_t len) noexcept {
  if (len == 2) return (p[0] & 0x1fu) << 6 | (p[1] & 0x3fu);
  if (len == 3) return (p[0] & 0x0fu) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu);
  return (p[0] & 0x07u) << 18 | (p[1] & 0x3fu) << 12 | (p[2] & 0x3fu) << 6 | (p[3] & 0x3fu);
}

// Whether all n bytes at s are strict UTF-8.
inline bool valid_utf8(const unsigned char* s, size_t n) noexcept {
  for (size_t i = 0; i < n;) {
    if (s[i] < 0x80) {
      ++i;
      continue;
    }
    bool valid = false;
    i += utf8_sequence(s + i, n - i, &valid);
    if (!valid) return false;
  }
  return true;
}

}  // namespace vkleak
