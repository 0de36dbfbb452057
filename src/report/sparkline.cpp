#include "report/sparkline.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string_view>

#include "shared/escape.h"

namespace vkleak::report {

using namespace analysis;  // the model it renders

std::vector<uint64_t> resample_max(const std::vector<uint64_t>& values, size_t width) {
  const size_t n = values.size();
  if (n <= width) return values;
  std::vector<uint64_t> out(width, 0);
  for (size_t i = 0; i < width; ++i) {
    // Bucket i holds [i*n/width, (i+1)*n/width): n > width, so never empty.
    const size_t begin = i * n / width;
    const size_t end = (i + 1) * n / width;
    out[i] = *std::max_element(values.begin() + static_cast<ptrdiff_t>(begin),
                               values.begin() + static_cast<ptrdiff_t>(end));
  }
  return out;
}

std::string spark_glyphs(const std::vector<uint64_t>& values, uint64_t peak, SparkGlyphs glyphs) {
  static constexpr const char* kBlocks[] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                            "\u2585", "\u2586", "\u2587", "\u2588"};
  static constexpr char kAscii[] = "_.,-=+*#";
  for (uint64_t v : values) peak = std::max(peak, v);
  std::string out;
  for (uint64_t v : values) {
    if (v == 0) {
      out += ' ';
      continue;
    }
    // 1..8 eighths of the peak, rounded up: the smallest value still shows.
    const double eighths = std::ceil(static_cast<double>(v) / static_cast<double>(peak) * 8.0);
    const size_t level = std::clamp<size_t>(static_cast<size_t>(eighths), 1, 8) - 1;
    if (glyphs == SparkGlyphs::kUtf8) {
      out += kBlocks[level];
    } else {
      out += kAscii[level];
    }
  }
  return out;
}

bool locale_is_utf8(const char* lc_all, const char* lc_ctype, const char* lang) {
  for (const char* value : {lc_all, lc_ctype, lang}) {
    if (value == nullptr || value[0] == '\0') continue;
    // "en_US.UTF-8", "C.utf8", "de_DE.UTF-8@euro": the codeset after the dot.
    std::string codeset(value);
    const size_t dot = codeset.find('.');
    if (dot == std::string::npos) return false;
    codeset = codeset.substr(dot + 1, codeset.find('@', dot) - dot - 1);
    std::string folded;
    for (char c : codeset) {
      if (c != '-') folded += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return folded == "utf8";
  }
  return false;
}

namespace {

size_t code_points(std::string_view text) {
  size_t n = 0;
  for (char c : text) n += (static_cast<unsigned char>(c) & 0xc0) != 0x80 ? 1 : 0;
  return n;
}

std::string pad(const std::string& text, size_t width) {
  const size_t n = code_points(text);
  return n >= width ? text : text + std::string(width - n, ' ');
}

}  // namespace

std::string render_sparklines(const RunReport& run, const SparklineOptions& options,
                              const Style& style) {
  const RunSeries& series = run.series;
  if (series.frames.size() < 2) return "";
  struct Row {
    const TypeSeries* type;
    uint64_t peak;
  };
  std::vector<Row> rows;
  for (const TypeSeries& t : series.types) {
    const uint64_t peak = t.bytes.empty() ? 0 : *std::max_element(t.bytes.begin(), t.bytes.end());
    if (peak > 0) rows.push_back({&t, peak});
  }
  if (rows.empty()) return "";
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.peak > b.peak; });
  const size_t omitted = rows.size() > options.max_types ? rows.size() - options.max_types : 0;
  rows.resize(rows.size() - omitted);

  // Columns: indent, type, sparkline, "last, peak"; the sparkline takes what the rest leaves.
  constexpr size_t kIndent = 4, kTypeChars = 40, kMinWidth = 8;
  std::vector<std::string> names, tails;
  size_t name_width = 0, tail_width = 0;
  for (const Row& r : rows) {
    names.push_back(printable(r.type->type, kTypeChars));
    tails.push_back(format_bytes(r.type->bytes.back()) + ", peak " + format_bytes(r.peak));
    name_width = std::max(name_width, code_points(names.back()));
    tail_width = std::max(tail_width, tails.back().size());
  }
  const size_t fixed = kIndent + name_width + 2 + 2 + tail_width;
  const size_t room = options.columns > fixed ? options.columns - fixed : 0;
  const size_t width = std::min(series.frames.size(), std::max(room, kMinWidth));

  std::string out = "  live bytes by type, frames " + std::to_string(series.frames.front()) + "-" +
                    std::to_string(series.frames.back()) + ":\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    // Every type has a value per snapshot, so all lines have the same width.
    const std::string line =
        spark_glyphs(resample_max(rows[i].type->bytes, width), rows[i].peak, options.glyphs);
    out += std::string(kIndent, ' ') + pad(names[i], name_width) + "  " + style.cyan(line) + "  " +
           tails[i] + '\n';
  }
  if (omitted > 0) {
    out += std::string(kIndent, ' ') +
           style.dim("(" + format_count(omitted) +
                     (omitted == 1 ? " more type holds bytes)" : " more types hold bytes)")) +
           '\n';
  }
  return out;
}

}  // namespace vkleak::report
