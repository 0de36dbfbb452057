// Handles and addresses travel as "0x..." strings in snapshots (JSON numbers lose precision
// above 2^53 in many readers).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace vkleak {

// Parses "0x" followed by 1 to 16 hex digits. False on anything else (no sign, no spaces).
inline bool parse_hex_u64(std::string_view text, uint64_t* out) {
  if (text.size() < 3 || text.size() > 18 || text[0] != '0' || text[1] != 'x') return false;
  uint64_t value = 0;
  for (size_t i = 2; i < text.size(); ++i) {
    const char c = text[i];
    uint64_t digit;
    if (c >= '0' && c <= '9') {
      digit = static_cast<uint64_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      digit = static_cast<uint64_t>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      digit = static_cast<uint64_t>(c - 'A' + 10);
    } else {
      return false;
    }
    value = (value << 4) | digit;
  }
  *out = value;
  return true;
}

// "0x" and lowercase hex digits, no padding: the snapshot's own spelling.
inline std::string format_hex(uint64_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  char buf[18];
  size_t pos = sizeof(buf);
  do {
    buf[--pos] = kDigits[value & 0xf];
    value >>= 4;
  } while (value != 0);
  buf[--pos] = 'x';
  buf[--pos] = '0';
  return std::string(buf + pos, sizeof(buf) - pos);
}

}  // namespace vkleak
