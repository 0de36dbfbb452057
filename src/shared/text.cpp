#include "shared/text.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "shared/escape.h"
#include "shared/utf8.h"

namespace vkleak {

std::string format_bytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  if (bytes == UINT64_MAX) return ">= 16.0 EiB";  // a saturated sum (see shared/escape.h)
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  // Switch units before rounding would print "1024.0".
  while (value >= 1024.0 * 0.99995 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f %s", value, kUnits[unit]);
  return buf;
}

std::string format_count(uint64_t count) {
  std::string digits = std::to_string(count);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string format_duration_ms(uint64_t ms) {
  char buf[48];
  if (ms < 1000) {
    std::snprintf(buf, sizeof(buf), "%llu ms", static_cast<unsigned long long>(ms));
  } else if (ms < 60'000) {
    std::snprintf(buf, sizeof(buf), "%.1f s", static_cast<double>(ms) / 1000.0);
  } else {
    const uint64_t s = ms / 1000;
    std::snprintf(buf, sizeof(buf), "%llu min %02llu s", static_cast<unsigned long long>(s / 60),
                  static_cast<unsigned long long>(s % 60));
  }
  return buf;
}

namespace {

void append_escaped_byte(std::string* out, unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "\\x%02x", c);
  *out += buf;
}

}  // namespace

std::string printable(std::string_view text, size_t max_chars) {
  std::string out;
  out.reserve(std::min(text.size(), size_t{256}));
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  size_t chars = 0;
  size_t i = 0;
  while (i < text.size()) {
    if (chars == max_chars) {
      out += "\xe2\x80\xa6 (" + format_count(text.size()) + " bytes)";  // "… (N bytes)"
      break;
    }
    const unsigned char c = bytes[i];
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7f) {
        append_escaped_byte(&out, c);
      } else {
        if (c == '\\') out += '\\';  // keep escapes unambiguous
        out += static_cast<char>(c);
      }
      ++i;
    } else {
      bool valid = false;
      const size_t len = utf8_sequence(bytes + i, text.size() - i, &valid);
      const uint32_t cp = valid ? utf8_decode(bytes + i, len) : 0;
      if (!valid || (cp >= 0x80 && cp < 0xa0)) {
        // Invalid bytes one by one; C1 controls (0x9b alone is a CSI on some terminals) whole.
        for (size_t k = 0; k < (valid ? len : 1); ++k) append_escaped_byte(&out, bytes[i + k]);
        i += valid ? len : 1;
      } else if (hidden_code_point(cp)) {
        char buf[16];
        std::snprintf(buf, sizeof(buf), "<U+%04X>", static_cast<unsigned>(cp));
        out += buf;
        i += len;
      } else {
        out.append(text.data() + i, len);
        i += len;
      }
    }
    ++chars;
  }
  return out;
}

std::string quote_printable(std::string_view text, size_t max_chars) {
  std::string body = printable(text, max_chars);
  std::string out;
  out.reserve(body.size() + 2);
  out += '"';
  for (char c : body) {
    if (c == '"') out += '\\';
    out += c;
  }
  out += '"';
  return out;
}

size_t display_width(std::string_view text) {
  size_t width = 0;
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
      i += 2;
      while (i < text.size() && !(text[i] >= 0x40 && text[i] <= 0x7e)) ++i;
      ++i;  // the final byte
      continue;
    }
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c & 0xc0) != 0x80) ++width;
    ++i;
  }
  return width;
}

bool should_color(ColorMode mode, int fd) {
  switch (mode) {
    case ColorMode::kAlways:
      return true;
    case ColorMode::kNever:
      return false;
    case ColorMode::kAuto:
      break;
  }
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && no_color[0] != '\0') return false;
  return ::isatty(fd) == 1;
}

std::string Style::wrap(const char* code, std::string_view text) const {
  if (!enabled_) return std::string(text);
  std::string out = "\x1b[";
  out += code;
  out += 'm';
  out += text;
  out += "\x1b[0m";
  return out;
}

void Table::add_column(std::string header, Align align) {
  columns_.push_back({std::move(header), align});
}

void Table::add_row(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

void Table::add_footer(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  footer_.push_back(std::move(cells));
}

std::string Table::render(const Style& style, size_t indent) const {
  std::vector<size_t> widths(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = display_width(columns_[c].header);
    for (const auto* rows : {&rows_, &footer_}) {
      for (const auto& row : *rows) widths[c] = std::max(widths[c], display_width(row[c]));
    }
  }
  const std::string margin(indent, ' ');
  auto line = [&](const std::vector<std::string>& cells, bool header) {
    std::string out = margin;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const std::string& cell = cells[c];
      const std::string pad(widths[c] - display_width(cell), ' ');
      const bool last = c + 1 == columns_.size();
      std::string text = header ? style.bold(cell) : cell;
      if (columns_[c].align == Align::kRight) {
        out += pad + text;
      } else {
        out += text;
        if (!last) out += pad;
      }
      if (!last) out += "  ";
    }
    out += '\n';
    return out;
  };
  std::vector<std::string> header;
  for (const auto& column : columns_) header.push_back(column.header);
  std::string out = line(header, true);
  for (const auto& row : rows_) out += line(row, false);
  if (!footer_.empty()) {
    size_t total = 0;
    for (size_t w : widths) total += w;
    total += 2 * (widths.empty() ? 0 : widths.size() - 1);
    const std::string rule(total, '-');
    out += margin + style.dim(rule) + '\n';
    for (const auto& row : footer_) out += line(row, false);
  }
  return out;
}

}  // namespace vkleak
