// The terminal companion of the HTML timeline: one sparkline per type of the live bytes over a
// run's snapshots (RunReport::series), as ms_print draws heap size. The CLI decides whether to
// draw them (a terminal, or --sparklines=always) and passes the terminal's width and charset.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/finding.h"
#include "shared/text.h"

namespace vkleak::report {

enum class SparkGlyphs { kUtf8, kAscii };

struct SparklineOptions {
  size_t columns = 80;  // the terminal's width; the lines fit it
  SparkGlyphs glyphs = SparkGlyphs::kUtf8;
  size_t max_types = 8;  // the types with the highest peaks; the rest are counted
};

// values cut into `width` consecutive buckets of (nearly) equal size, each the maximum of its
// values, so that a spike is never lost; values unchanged when they fit.
std::vector<uint64_t> resample_max(const std::vector<uint64_t>& values, size_t width);

// One glyph per value, scaled to `peak` (at least the largest value): 0 is a space, any other
// value at least the lowest bar, peak the full block. UTF-8: the eighth blocks U+2581..U+2588;
// ASCII: "_.,-=+*#".
std::string spark_glyphs(const std::vector<uint64_t>& values, uint64_t peak, SparkGlyphs glyphs);

// Whether the locale's charset is UTF-8, from LC_ALL, LC_CTYPE and LANG as POSIX ranks them (the
// first that is set and not empty decides); nullptr for unset. Unset everywhere: the C locale.
bool locale_is_utf8(const char* lc_all, const char* lc_ctype, const char* lang);

// The lines for a run ("" when it has fewer than two snapshots during the run or no type holds
// bytes): a heading, then per type "    VkBuffer  ▁▂▅█  1.0 MiB, peak 1.0 MiB" (the value at
// the last snapshot, then the peak), highest peaks first.
std::string render_sparklines(const analysis::RunReport& run, const SparklineOptions& options,
                              const Style& style);

}  // namespace vkleak::report
