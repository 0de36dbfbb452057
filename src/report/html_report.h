// The HTML report: one self-contained page (inline CSS and server-side SVG charts, no script, no
// network) rendered from the analysis model, as every other output.
#pragma once

#include <cstdint>
#include <string>

#include "analysis/finding.h"

namespace vkleak::report {

// Renders what report or gate found as a complete HTML file. Every string from the model is
// escaped (html_text in shared/escape.h: debug names are user data).
std::string render_html(const analysis::ReportDocument& doc);

// Exposed for tests.
namespace html {

// Tick positions for an axis over [lo, hi]: "nice" steps (1, 2, 5 x 10^k; for bytes 1, 2, 4,
// 8, ... x 1024^k), about `target` of them, covering the range.
struct Ticks {
  double first = 0;
  double step = 1;
  int count = 1;
};
Ticks nice_ticks(double lo, double hi, int target, bool bytes);

// An axis label: "1,500" for counts, "4 MiB" / "1.5 GiB" for bytes.
std::string tick_label(double value, bool bytes);

}  // namespace html
}  // namespace vkleak::report
