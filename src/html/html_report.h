// The HTML report: one self-contained page (inline CSS and server-side SVG charts, no script, no
// network) rendered from the findings document that the analysis produces.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace vkleak {

// Renders the findings document ({"format": "vkleak-findings", "version": 1, "run", "findings",
// "series"}) as a complete HTML file. Defensive by design: any member may be missing, empty or
// of the wrong type, and is then left out rather than failing. Every string from the document
// is escaped (debug names are user data).
std::string render_html(const nlohmann::json& findings_doc);

// Exposed for tests.
namespace html {

// Escapes text for HTML element content and attribute values: & < > " ' become entities,
// control characters become visible \xNN, ill-formed UTF-8 becomes U+FFFD.
std::string escape(std::string_view text);

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
}  // namespace vkleak
