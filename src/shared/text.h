// Text formatting shared by every command: sizes, counts, safe quoting, colour and tables.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vkleak {

// "0 B", "512 B", "1.5 KiB", "12.0 MiB", ... (binary units, one decimal above bytes);
// UINT64_MAX, where saturating sums stop, is ">= 16.0 EiB".
std::string format_bytes(uint64_t bytes);

// "1,234,567".
std::string format_count(uint64_t count);

// "850 ms", "12.3 s", "4 min 05 s".
std::string format_duration_ms(uint64_t ms);

// Text from a snapshot is untrusted: escapes control characters (C0, DEL, C1) and invalid UTF-8
// as \xNN so a debug name cannot drive the terminal, shows bidi controls, line separators and
// other invisible characters as <U+202E> so they cannot reorder or hide text, doubles '\', and
// shortens it to max_chars code points + "… (N bytes)", N the full length.
std::string printable(std::string_view text, size_t max_chars = SIZE_MAX);
// The same, in double quotes.
std::string quote_printable(std::string_view text, size_t max_chars = SIZE_MAX);

// Display width: UTF-8 code points, ANSI escape sequences excluded.
size_t display_width(std::string_view text);

enum class ColorMode { kAuto, kAlways, kNever };

// Whether to colour output written to fd: always/never as asked; auto when fd is a terminal and
// NO_COLOR is unset or empty (https://no-color.org).
bool should_color(ColorMode mode, int fd);

// ANSI styling that is a no-op when disabled.
class Style {
 public:
  explicit Style(bool enabled) : enabled_(enabled) {}
  bool enabled() const { return enabled_; }
  std::string bold(std::string_view text) const { return wrap("1", text); }
  std::string dim(std::string_view text) const { return wrap("2", text); }
  std::string red(std::string_view text) const { return wrap("31", text); }
  std::string green(std::string_view text) const { return wrap("32", text); }
  std::string yellow(std::string_view text) const { return wrap("33", text); }
  std::string cyan(std::string_view text) const { return wrap("36", text); }

 private:
  std::string wrap(const char* code, std::string_view text) const;
  bool enabled_;
};

// A plain-text table with aligned columns; cells may already contain ANSI styling.
class Table {
 public:
  enum class Align { kLeft, kRight };

  void add_column(std::string header, Align align);
  void add_row(std::vector<std::string> cells);
  // Rendered with a dim rule above it (totals).
  void add_footer(std::vector<std::string> cells);
  // Each line is indented by indent spaces and ends with '\n'.
  std::string render(const Style& style, size_t indent = 0) const;

 private:
  struct Column {
    std::string header;
    Align align;
  };
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::vector<std::string>> footer_;
};

}  // namespace vkleak
