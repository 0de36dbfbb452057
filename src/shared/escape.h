// One escaping rule per output medium, and saturating byte sums. Names, paths and symbols come from
// the application (untrusted): every human-readable output passes them through printable() (see
// format.h: controls as \xNN, bidi and invisible code points as <U+XXXX>, long text cut to
// kDisplayChars code points + "… (N bytes)") and then through the rule of its medium below.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "shared/text.h"
#include "shared/utf8.h"

namespace vkleak {

// How many code points of an untrusted string the reports show; the JSON keeps it whole.
inline constexpr size_t kDisplayChars = 200;

// Byte totals stop at UINT64_MAX instead of wrapping; format_bytes shows that as ">= 16.0 EiB".
constexpr uint64_t saturating_add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}
// b - a as a signed difference, clamped to int64_t.
constexpr int64_t saturating_delta(uint64_t from, uint64_t to) {
  if (to >= from) {
    const uint64_t d = to - from;
    return d > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(d);
  }
  const uint64_t d = from - to;
  return d > static_cast<uint64_t>(INT64_MAX) ? INT64_MIN : -static_cast<int64_t>(d);
}
// |v| without overflow for INT64_MIN.
constexpr uint64_t magnitude(int64_t v) {
  return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
}

// Code points that reorder or hide text (Trojan Source, CVE-2021-42574) or break lines where a
// reader sees none: bidi controls and marks, line/paragraph separators, zero-width and other
// invisible format characters, tag characters. Every output shows them as <U+XXXX>.
constexpr bool hidden_code_point(uint32_t cp) {
  return cp == 0x00ad || cp == 0x061c || cp == 0x180e || (cp >= 0x200b && cp <= 0x200f) ||
         (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) || cp == 0xfeff ||
         (cp >= 0xfff9 && cp <= 0xfffb) || (cp >= 0xe0000 && cp <= 0xe007f);
}

// The first max_chars code points of text, and "… (N bytes)" when that is not all of it (for
// outputs with an escaping rule of their own, such as HTML).
inline std::string display_cut(std::string_view text, size_t max_chars = kDisplayChars) {
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xc0) == 0x80) continue;
    if (chars++ == max_chars) {
      return std::string(text.substr(0, i)) + "\xe2\x80\xa6 (" + format_count(text.size()) +
             " bytes)";
    }
  }
  return std::string(text);
}

// Markdown (CommonMark + GitHub tables): untrusted text only ever goes into a code span, where
// nothing is a link, an image, an entity or HTML. The fence is one backtick longer than the
// longest run in the text, padded with spaces when the text starts or ends with a backtick or
// space (CommonMark strips one each side). In a table cell, '|' becomes "\|": GitHub splits
// cells before it parses code spans, and drops that backslash inside them.
inline std::string markdown_code(std::string_view text, bool in_table,
                                 size_t max_chars = kDisplayChars) {
  const std::string body = printable(text, max_chars);
  if (body.empty()) return "";
  size_t longest = 0;
  size_t run = 0;
  bool all_spaces = true;
  for (char c : body) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    if (c != ' ') all_spaces = false;
  }
  const std::string fence(longest + 1, '`');
  const bool pad = body.front() == '`' || body.back() == '`' ||
                   (body.front() == ' ' && body.back() == ' ' && !all_spaces);
  std::string out = fence;
  if (pad) out += ' ';
  for (char c : body) {
    if (c == '|' && in_table) out += '\\';
    out += c;
  }
  if (pad) out += ' ';
  out += fence;
  return out;
}

// Markdown: untrusted lines as a fenced code block (CommonMark), where nothing is markup. Each
// line passes printable() (no line break or control is left to end it early); the fence is a
// backtick run longer than any in the lines (at least three), so no line can close it. indent
// (e.g. a list item's) goes before every line.
inline std::string markdown_block(const std::vector<std::string>& lines, std::string_view indent,
                                  size_t max_chars = kDisplayChars) {
  std::vector<std::string> bodies;
  bodies.reserve(lines.size());
  size_t longest = 2;
  for (const std::string& line : lines) {
    bodies.push_back(printable(line, max_chars));
    size_t run = 0;
    for (char c : bodies.back()) {
      run = c == '`' ? run + 1 : 0;
      longest = std::max(longest, run);
    }
  }
  const std::string fence(longest + 1, '`');
  std::string out = std::string(indent) + fence + "\n";
  for (const std::string& body : bodies) out += std::string(indent) + body + "\n";
  out += std::string(indent) + fence + "\n";
  return out;
}

// The markup characters as entities, any other byte as it is. apostrophe: "&apos;" for XML,
// "&#39;" for HTML (HTML 4 has no &apos;).
inline void append_markup_escaped(std::string* out, char c, const char* apostrophe) {
  switch (c) {
    case '&':
      *out += "&amp;";
      break;
    case '<':
      *out += "&lt;";
      break;
    case '>':
      *out += "&gt;";
      break;
    case '"':
      *out += "&quot;";
      break;
    case '\'':
      *out += apostrophe;
      break;
    default:
      *out += c;
  }
}

// XML 1.0 text and attribute values (JUnit): printable() first, so no character XML cannot carry
// is left, then the five markup characters as entities.
inline std::string xml_text(std::string_view text, size_t max_chars = kDisplayChars) {
  std::string out;
  for (char c : printable(text, max_chars)) append_markup_escaped(&out, c, "&apos;");
  return out;
}

// HTML element content and attribute values: the markup characters as entities; controls as a
// visible \xNN (tab and newline kept), C1 controls as \u00NN, hidden code points as <U+XXXX>
// (as printable() shows them), ill-formed UTF-8 as U+FFFD a byte. Text is not cut: the HTML
// report cuts with display_cut() first.
inline std::string html_text(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  char buf[24];
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = bytes[i];
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) {
        std::snprintf(buf, sizeof(buf), "\\x%02x", c);
        out += buf;
      } else {
        append_markup_escaped(&out, static_cast<char>(c), "&#39;");
      }
      ++i;
      continue;
    }
    bool valid = false;
    const size_t len = utf8_sequence(bytes + i, text.size() - i, &valid);
    if (!valid) {
      out += "\xef\xbf\xbd";  // U+FFFD
      ++i;
      continue;
    }
    const uint32_t cp = utf8_decode(bytes + i, len);
    if (cp < 0xa0) {
      std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(cp));  // C1
      out += buf;
    } else if (hidden_code_point(cp)) {
      std::snprintf(buf, sizeof(buf), "&lt;U+%04X&gt;", static_cast<unsigned>(cp));
      out += buf;
    } else {
      out.append(text.data() + i, len);
    }
    i += len;
  }
  return out;
}

}  // namespace vkleak
