#include "report/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/name_ranges.h"
#include "analysis/problems.h"
#include "core/escape.h"
#include "core/format.h"
#include "core/hex.h"
#include "report/explorer_assets.h"  // generated: explorer.js, explorer.css, their hashes
#include "report/explorer_data.h"
#include "report/output.h"

namespace vkleak {

// ---------------------------------------------------------------------------------------------
// Number formatting
// ---------------------------------------------------------------------------------------------

namespace {

// Locale-independent decimal with at most `decimals` digits after the point (trailing zeros
// dropped): SVG coordinates must never come out as "12,5".
std::string decimal(double value, int decimals) {
  if (!std::isfinite(value)) return "0";
  double scale = 1;
  for (int i = 0; i < decimals; ++i) scale *= 10;
  const double scaled = std::round(std::fabs(value) * scale);
  if (scaled >= 9e18) return value < 0 ? "-9e18" : "9e18";
  auto units = static_cast<uint64_t>(scaled);
  const auto whole_scale = static_cast<uint64_t>(scale);
  std::string out = (value < 0 && units != 0) ? "-" : "";
  out += std::to_string(units / whole_scale);
  std::string frac;
  uint64_t rest = units % whole_scale;
  for (int i = 0; i < decimals; ++i) {
    frac.insert(frac.begin(), static_cast<char>('0' + rest % 10));
    rest /= 10;
  }
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  if (!frac.empty()) out += "." + frac;
  return out;
}

std::string coord(double v) {
  return decimal(v, 1);
}

}  // namespace

namespace html {

Ticks nice_ticks(double lo, double hi, int target, bool bytes) {
  Ticks t;
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo)) {
    t.first = std::isfinite(lo) ? lo : 0;
    return t;
  }
  const double raw = (hi - lo) / std::max(1, target);
  double step;
  if (bytes) {
    // Powers of two within a binary unit, so labels read "4 MiB", "512 KiB", "1.5 GiB".
    double unit = 1;
    while (raw / unit >= 1024 && unit < 1e18) unit *= 1024;
    double factor = 1;
    while (factor < raw / unit && factor < 1024) factor *= 2;
    step = factor * unit;
  } else {
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    step = 10 * magnitude;
    for (double f : {1.0, 2.0, 5.0}) {
      if (f * magnitude >= raw) {
        step = f * magnitude;
        break;
      }
    }
  }
  step = std::max(step, 1.0);  // frames, counts and bytes are whole numbers
  t.step = step;
  t.first = std::ceil(lo / step - 1e-9) * step;
  t.count = static_cast<int>(std::floor((hi - t.first) / step + 1e-9)) + 1;
  t.count = std::clamp(t.count, 1, 1000);
  return t;
}

std::string tick_label(double value, bool bytes) {
  if (!bytes) {
    if (value >= 0 && value < 1.8e19 && value == std::floor(value)) {
      return format_count(static_cast<uint64_t>(value));
    }
    return decimal(value, 2);
  }
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (value <= 0) return "0";
  size_t unit = 0;
  double scaled = value;
  while (scaled >= 1024 && unit + 1 < std::size(kUnits)) {
    scaled /= 1024;
    ++unit;
  }
  return decimal(scaled, 2) + " " + kUnits[unit];
}

}  // namespace html

namespace {

// ---------------------------------------------------------------------------------------------
// What the page shows of the analysis model
// ---------------------------------------------------------------------------------------------

using analysis::Chain;
using analysis::ChainLink;
using analysis::Finding;
using analysis::KindInfo;

// A series as the charts draw it (a missing value breaks the line).
struct Series {
  std::string label;
  std::vector<std::optional<double>> live;
  std::vector<std::optional<double>> bytes;
};

// The header and charts show the first run; the table lists the findings of every run.
struct Report {
  const analysis::RunReport* run = nullptr;  // the first, nullptr when there is none
  size_t runs = 0;
  std::vector<uint64_t> run_frames;     // the first run's snapshots: first and last frame
  analysis::GateResult gate = analysis::GateResult::kNone;  // what a gate decided
  std::vector<std::string> incomplete;  // why runs were not checked whole ("pid N: ...")
  std::vector<const Finding*> findings;
  // Per finding: its problem when that joins it with others (nullptr: a problem of its own),
  // and the index of the first finding of its run in findings.
  std::vector<const analysis::Problem*> problems;
  std::vector<size_t> run_first;
  analysis::ProblemTotals totals;  // each object once
  std::vector<double> frames;      // the x axis of every chart
  bool x_is_frame = true;          // false: no frames, x is the snapshot index
  std::vector<Series> types;
  std::vector<Series> groups;
};

std::vector<std::optional<double>> values(const std::vector<uint64_t>& list) {
  return {list.begin(), list.end()};
}

std::string group_label(const analysis::GroupSeries& g) {
  std::string label = g.object_type;
  if (!g.name_pattern.empty()) label += (label.empty() ? "" : " ") + display_cut(g.name_pattern);
  if (!g.function.empty()) label += " @ " + display_cut(g.function);
  return label.empty() ? "(unnamed group)" : label;
}

Report make_report(const analysis::ReportDocument& doc) {
  Report r;
  r.runs = doc.runs.size();
  r.gate = doc.gate_result();
  r.totals = analysis::problem_totals(doc);
  for (const analysis::RunReport& run : doc.runs) {
    const size_t first = r.findings.size();
    for (const Finding& f : run.findings) {
      const analysis::Problem* p = analysis::problem_of(run, f);
      r.findings.push_back(&f);
      r.problems.push_back(p != nullptr && p->findings.size() > 1 ? p : nullptr);
      r.run_first.push_back(first);
    }
  }
  for (const analysis::RunReport& run : doc.runs) {
    for (const std::string& problem : run.incomplete) {
      r.incomplete.push_back(doc.run_label(run) + ": " + problem);
    }
  }
  if (!doc.runs.empty()) {
    r.run = &doc.runs.front();
    if (!r.run->snapshots.empty()) {
      const auto [lo, hi] =
          std::minmax_element(r.run->snapshots.begin(), r.run->snapshots.end(),
                              [](const auto& a, const auto& b) { return a.frame < b.frame; });
      r.run_frames = {lo->frame, hi->frame};
    }
    const analysis::RunSeries& series = r.run->series;
    for (const analysis::TypeSeries& t : series.types) {
      if (!t.type.empty()) r.types.push_back({t.type, values(t.live), values(t.bytes)});
    }
    for (const analysis::GroupSeries& g : series.groups) {
      r.groups.push_back({group_label(g), values(g.live), values(g.bytes)});
    }
    for (uint64_t frame : series.frames) r.frames.push_back(static_cast<double>(frame));
  }
  if (r.frames.empty()) {
    size_t points = 0;
    for (const auto* list : {&r.types, &r.groups}) {
      for (const Series& s : *list) points = std::max({points, s.live.size(), s.bytes.size()});
    }
    r.x_is_frame = false;
    for (size_t i = 0; i < points; ++i) r.frames.push_back(static_cast<double>(i + 1));
  }
  return r;
}

bool destroyed(const ChainLink& l) {
  return l.state == analysis::ChainState::kDestroyed || l.destroyed_frame.has_value();
}

// ---------------------------------------------------------------------------------------------
// Presentation helpers
// ---------------------------------------------------------------------------------------------

std::string kind_class(analysis::FindingKind kind) {
  return std::string("vk-kind-") + analysis::kind_name(kind);
}

// Shortens to at most max code points, the last one an ellipsis.
std::string truncate(const std::string& text, size_t max) {
  const auto is_lead = [&](size_t i) {
    return (static_cast<unsigned char>(text[i]) & 0xc0) != 0x80;
  };
  size_t chars = 0;
  size_t cut = text.size();
  for (size_t i = 0; i < text.size(); ++i) {
    if (!is_lead(i)) continue;
    if (chars == max - 1) cut = i;
    if (++chars > max) return text.substr(0, cut) + "\xe2\x80\xa6";  // U+2026
  }
  return text;
}

// "f() (/long/path/to/file.cpp:42)" -> "f() (file.cpp:42)": the table has no room for paths;
// the details show the full frame.
std::string short_frame(const std::string& frame) {
  const size_t open = frame.rfind(" (");
  if (open == std::string::npos || frame.empty() || frame.back() != ')') return frame;
  const size_t slash = frame.rfind('/');
  if (slash == std::string::npos || slash < open) return frame;
  return frame.substr(0, open + 2) + frame.substr(slash + 1);
}

std::string frames_text(const std::vector<uint64_t>& frames) {
  if (frames.empty()) return "";
  const uint64_t lo = *std::min_element(frames.begin(), frames.end());
  const uint64_t hi = *std::max_element(frames.begin(), frames.end());
  if (lo == hi) return format_count(lo);
  return format_count(lo) + " \xe2\x80\x93 " + format_count(hi);  // en dash
}

constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#59a14f", "#b07aa1",
                                    "#76b7b2", "#edc948", "#ff9da7", "#9c755f", "#3b3b98"};
constexpr const char* kOtherColor = "#9aa0a6";
constexpr size_t kMaxSeries = 8;  // more lines than this are unreadable: the rest are summed

// ---------------------------------------------------------------------------------------------
// Line charts (server-side SVG)
// ---------------------------------------------------------------------------------------------

struct Line {
  std::string label;
  std::vector<std::optional<double>> values;
  std::string color;
  // Series with exactly these values, drawn as this one line (one would hide the others).
  std::vector<std::string> same;
};

struct ChartSpec {
  std::string id;
  std::string extra_class;
  std::string title;        // <title> and aria-label
  std::string description;  // <desc>
  std::string x_label;
  std::string y_label;
  bool bytes = false;
  int width = 960;
  int height = 340;
  int left = 84;
  int right = 210;  // the legend column; 0 puts the legend in the top margin
  int top = 24;
  int bottom = 52;
  int x_ticks = 8;
  int y_ticks = 6;
};

// "VkBuffer = VkDeviceMemory" for a line that stands for several series.
std::string full_label(const Line& l) {
  std::string label = l.label;
  for (const std::string& same : l.same) label += " = " + same;
  return label;
}

std::optional<double> last_value(const std::vector<std::optional<double>>& values) {
  for (auto it = values.rbegin(); it != values.rend(); ++it) {
    if (*it) return **it;
  }
  return std::nullopt;
}

std::optional<double> first_value(const std::vector<std::optional<double>>& values) {
  for (const auto& v : values) {
    if (v) return *v;
  }
  return std::nullopt;
}

double peak(const std::vector<std::optional<double>>& values) {
  double p = 0;
  for (const auto& v : values) {
    if (v) p = std::max(p, *v);
  }
  return p;
}

constexpr size_t kLegendSame = 4;  // "= type" rows under a line's name

// Height of a line's entry in a legend column.
double legend_rows(const Line& l) {
  return 20 + 16 * static_cast<double>(std::min(l.same.size(), kLegendSame + 1));
}

std::string line_chart(const ChartSpec& chart_spec, const std::vector<double>& xs,
                       const std::vector<Line>& lines) {
  // A legend column taller than the chart makes the chart taller.
  ChartSpec spec = chart_spec;
  if (spec.right > 0) {
    double legend = 16;
    for (const Line& l : lines) legend += legend_rows(l);
    spec.height = std::max(spec.height, spec.top + static_cast<int>(legend));
  }
  const double plot_w = spec.width - spec.left - spec.right - 12;
  const double plot_h = spec.height - spec.top - spec.bottom;
  const double x0 = spec.left;
  const double y0 = spec.top;

  double x_lo = xs.empty() ? 0 : *std::min_element(xs.begin(), xs.end());
  double x_hi = xs.empty() ? 1 : *std::max_element(xs.begin(), xs.end());
  html::Ticks xt = html::nice_ticks(x_lo, x_hi, spec.x_ticks, false);
  if (!(x_hi > x_lo)) {  // one snapshot: centre it
    xt = html::Ticks{x_lo, 1, 1};
    x_lo -= 1;
    x_hi += 1;
  }
  double y_max = 0;
  for (const Line& l : lines) y_max = std::max(y_max, peak(l.values));
  if (y_max <= 0) y_max = 1;
  html::Ticks yt = html::nice_ticks(0, y_max, spec.y_ticks, spec.bytes);
  // The axis ends at the first tick at or above the highest value.
  const double y_hi = yt.step * std::max(1.0, std::ceil(y_max / yt.step - 1e-9));
  yt.first = 0;
  yt.count = static_cast<int>(std::lround(y_hi / yt.step)) + 1;

  const auto px = [&](double x) { return x0 + (x - x_lo) / (x_hi - x_lo) * plot_w; };
  const auto py = [&](double y) { return y0 + plot_h - y / y_hi * plot_h; };

  std::string s;
  const std::string title_id = spec.id + "-title";
  const std::string desc_id = spec.id + "-desc";
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"vk-chart" +
       (spec.extra_class.empty() ? "" : " " + spec.extra_class) + "\" id=\"" + spec.id +
       "\" role=\"img\" aria-label=\"" + html_text(spec.title) + "\" aria-describedby=\"" +
       desc_id + "\" viewBox=\"0 0 " + std::to_string(spec.width) + " " +
       std::to_string(spec.height) + "\" width=\"" + std::to_string(spec.width) + "\" height=\"" +
       std::to_string(spec.height) + "\" preserveAspectRatio=\"xMinYMin meet\">\n";
  s += "<title id=\"" + title_id + "\">" + html_text(spec.title) + "</title>\n";
  s += "<desc id=\"" + desc_id + "\">" + html_text(spec.description) + "</desc>\n";
  s += "<rect class=\"vk-plot-bg\" x=\"" + coord(x0) + "\" y=\"" + coord(y0) + "\" width=\"" +
       coord(plot_w) + "\" height=\"" + coord(plot_h) + "\"/>\n";

  // Y axis: grid lines, ticks and labels.
  s += "<g class=\"vk-axis vk-axis-y\">\n";
  for (int i = 0; i < yt.count; ++i) {
    const double v = yt.first + yt.step * i;
    const double y = py(v);
    s += "<line class=\"vk-grid\" x1=\"" + coord(x0) + "\" x2=\"" + coord(x0 + plot_w) +
         "\" y1=\"" + coord(y) + "\" y2=\"" + coord(y) + "\"/>";
    s += "<line class=\"vk-tick\" x1=\"" + coord(x0 - 5) + "\" x2=\"" + coord(x0) + "\" y1=\"" +
         coord(y) + "\" y2=\"" + coord(y) + "\"/>";
    s += "<text class=\"vk-tick-label\" x=\"" + coord(x0 - 8) + "\" y=\"" + coord(y + 4) +
         "\" text-anchor=\"end\">" + html_text(html::tick_label(v, spec.bytes)) + "</text>\n";
  }
  s += "<line class=\"vk-axis-line\" x1=\"" + coord(x0) + "\" x2=\"" + coord(x0) + "\" y1=\"" +
       coord(y0) + "\" y2=\"" + coord(y0 + plot_h) + "\"/>\n";
  const double label_y = y0 + plot_h / 2;
  s += "<text class=\"vk-axis-label\" transform=\"translate(" + coord(16) + " " + coord(label_y) +
       ") rotate(-90)\" text-anchor=\"middle\">" + html_text(spec.y_label) + "</text>\n";
  s += "</g>\n";

  // X axis.
  s += "<g class=\"vk-axis vk-axis-x\">\n";
  s += "<line class=\"vk-axis-line\" x1=\"" + coord(x0) + "\" x2=\"" + coord(x0 + plot_w) +
       "\" y1=\"" + coord(y0 + plot_h) + "\" y2=\"" + coord(y0 + plot_h) + "\"/>\n";
  for (int i = 0; i < xt.count; ++i) {
    const double v = xt.first + xt.step * i;
    const double x = px(v);
    s += "<line class=\"vk-tick\" x1=\"" + coord(x) + "\" x2=\"" + coord(x) + "\" y1=\"" +
         coord(y0 + plot_h) + "\" y2=\"" + coord(y0 + plot_h + 5) + "\"/>";
    s += "<text class=\"vk-tick-label\" x=\"" + coord(x) + "\" y=\"" + coord(y0 + plot_h + 19) +
         "\" text-anchor=\"middle\">" + html_text(html::tick_label(v, false)) + "</text>\n";
  }
  s += "<text class=\"vk-axis-label\" x=\"" + coord(x0 + plot_w / 2) + "\" y=\"" +
       coord(y0 + plot_h + 42) + "\" text-anchor=\"middle\">" + html_text(spec.x_label) +
       "</text>\n";
  s += "</g>\n";

  // The series: one path each, broken where a value is missing; a point with no neighbour
  // (one snapshot, or between gaps) is drawn as a dot.
  s += "<g class=\"vk-plot\">\n";
  for (const Line& l : lines) {
    const size_t n = std::min(l.values.size(), xs.size());
    std::string d;
    std::string dots;
    size_t points = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!l.values[i]) continue;
      const bool prev = i > 0 && l.values[i - 1].has_value();
      const bool next = i + 1 < n && l.values[i + 1].has_value();
      const double x = px(xs[i]);
      const double y = py(*l.values[i]);
      if (!prev && !next) {
        dots += "<circle class=\"vk-point\" cx=\"" + coord(x) + "\" cy=\"" + coord(y) +
                "\" r=\"4\" fill=\"" + l.color + "\"><title>" + html_text(full_label(l)) + ": " +
                html_text(html::tick_label(*l.values[i], spec.bytes)) + "</title></circle>\n";
        continue;
      }
      d += (prev ? " L" : (d.empty() ? "M" : " M")) + coord(x) + " " + coord(y);
      ++points;
    }
    if (points > 0) {
      const std::string last = html::tick_label(last_value(l.values).value_or(0), spec.bytes);
      s += "<path class=\"vk-series\" data-series=\"" + html_text(l.label) + "\" d=\"" + d +
           "\" stroke=\"" + l.color + "\"><title>" + html_text(full_label(l)) +
           " (last: " + html_text(last) + ")</title></path>\n";
    }
    s += dots;
  }
  s += "</g>\n";

  // Legend: a column right of the plot, or one row in the top margin.
  s += "<g class=\"vk-legend\">\n";
  double lx = spec.right > 0 ? x0 + plot_w + 24 : x0;
  double ly = spec.right > 0 ? y0 + 8 : 10;
  for (const Line& l : lines) {
    s += "<g class=\"vk-legend-item\"><line x1=\"" + coord(lx) + "\" x2=\"" + coord(lx + 18) +
         "\" y1=\"" + coord(ly) + "\" y2=\"" + coord(ly) + "\" stroke=\"" + l.color +
         "\"/><text x=\"" + coord(lx + 24) + "\" y=\"" + coord(ly + 4) + "\">" +
         html_text(truncate(l.label, 26));
    // The series it stands for too, one per row, under its name.
    for (size_t k = 0; k < l.same.size() && k < kLegendSame; ++k) {
      s += "<tspan class=\"vk-legend-same\" x=\"" + coord(lx + 24) +
           "\" dy=\"16\">= " + html_text(truncate(l.same[k], 24)) + "</tspan>";
    }
    if (l.same.size() > kLegendSame) {
      s += "<tspan class=\"vk-legend-same\" x=\"" + coord(lx + 24) +
           "\" dy=\"16\">= " + std::to_string(l.same.size() - kLegendSame) + " more types</tspan>";
    }
    s += "</text></g>\n";
    if (spec.right > 0) {
      ly += legend_rows(l);
    } else {
      lx += 40 + 7 * static_cast<double>(std::min<size_t>(l.label.size(), 26));
    }
  }
  s += "</g>\n</svg>\n";
  return s;
}

// Per-type lines for one metric: the biggest kMaxSeries by peak, the rest summed as "other".
std::vector<Line> type_lines(const Report& r, bool bytes,
                             const std::map<std::string, std::string>& colors) {
  std::vector<const Series*> ranked;
  for (const Series& s : r.types) {
    if (peak(bytes ? s.bytes : s.live) > 0) ranked.push_back(&s);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [&](const Series* a, const Series* b) {
    return peak(bytes ? a->bytes : a->live) > peak(bytes ? b->bytes : b->live);
  });
  std::vector<Line> lines;
  std::vector<std::optional<double>> other(r.frames.size());
  size_t others = 0;
  for (size_t i = 0; i < ranked.size(); ++i) {
    const auto& values = bytes ? ranked[i]->bytes : ranked[i]->live;
    auto same =
        std::find_if(lines.begin(), lines.end(), [&](const Line& l) { return l.values == values; });
    if (same != lines.end()) {
      same->same.push_back(ranked[i]->label);
      continue;
    }
    if (lines.size() < kMaxSeries) {
      lines.push_back({ranked[i]->label, values, colors.at(ranked[i]->label), {}});
      continue;
    }
    ++others;
    for (size_t k = 0; k < other.size() && k < values.size(); ++k) {
      if (values[k]) other[k] = other[k].value_or(0) + *values[k];
    }
  }
  if (others > 0) {
    lines.push_back({"other (" + std::to_string(others) + (others == 1 ? " type)" : " types)"),
                     other,
                     kOtherColor,
                     {}});
  }
  return lines;
}

std::string series_description(const std::vector<Line>& lines, bool bytes) {
  std::string d;
  for (const Line& l : lines) {
    const auto first = first_value(l.values);
    const auto last = last_value(l.values);
    if (!first || !last) continue;
    if (!d.empty()) d += "; ";
    d += full_label(l) + " from " + html::tick_label(*first, bytes) + " to " +
         html::tick_label(*last, bytes);
  }
  return d.empty() ? "No values." : d + ".";
}

// ---------------------------------------------------------------------------------------------
// Retention chains (boxes and arrows)
// ---------------------------------------------------------------------------------------------

// Box colour by role: what a reader scans for is the view that pins the memory.
const char* link_role(const std::string& type) {
  if (type == "VkDeviceMemory") return "memory";
  if (type.size() >= 4 && type.compare(type.size() - 4, 4, "View") == 0) return "view";
  if (type == "VkBuffer" || type == "VkImage" || type == "VkAccelerationStructureKHR") {
    return "resource";
  }
  return "other";
}

std::string chain_text(const std::vector<ChainLink>& chain) {
  std::string s;
  for (size_t i = 0; i < chain.size(); ++i) {
    const ChainLink& l = chain[i];
    if (i > 0) s += " \xe2\x86\x92 ";  // →
    s += l.type.empty() ? "?" : l.type;
    if (l.name && !l.name->empty()) s += " \xe2\x80\x9c" + display_cut(*l.name) + "\xe2\x80\x9d";
    s += " (id " + std::to_string(l.id) + ") " + format_bytes(l.bytes);
    if (destroyed(l)) {
      s += " [destroyed]";
    } else if (l.state != analysis::ChainState::kLive) {
      s += " [" + std::string(analysis::name(l.state)) + "]";
    }
  }
  return s;
}

constexpr size_t kMaxChains = 12;        // rows in the chain diagram
constexpr size_t kChainsPerFinding = 3;  // the rest of a finding's chains look alike

size_t drawn_chains(const Finding& f) {
  return std::min(f.chains.size(), kChainsPerFinding);
}

// The anchor of a finding's k-th chain in the diagram.
std::string chain_anchor(size_t rank, size_t k) {
  return "chain-" + std::to_string(rank) + (k == 0 ? "" : "-" + std::to_string(k + 1));
}

std::string chains_chart(const Report& r) {
  constexpr size_t kMaxLinks = 6;
  constexpr int kBoxW = 200;
  constexpr int kBoxH = 58;
  constexpr int kGap = 56;
  constexpr int kRowH = kBoxH + 44;
  constexpr int kLeft = 16;
  constexpr int kTop = 44;

  struct Row {
    size_t finding;
    size_t chain;
  };
  std::vector<Row> rows;
  for (size_t i = 0; i < r.findings.size(); ++i) {
    for (size_t k = 0; k < drawn_chains(*r.findings[i]) && rows.size() < kMaxChains; ++k) {
      rows.push_back({i, k});
    }
  }
  if (rows.empty()) return "";
  size_t widest = 1;
  for (const Row& row : rows) {
    widest = std::max(widest,
                      std::min(r.findings[row.finding]->chains[row.chain].links.size(), kMaxLinks));
  }
  const int width = std::max(960, kLeft * 2 + static_cast<int>(widest) * (kBoxW + kGap) - kGap);
  const int height = kTop + static_cast<int>(rows.size()) * kRowH;

  std::string s;
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"vk-chart vk-chains\" id=\"chart-chains\" "
       "role=\"img\" aria-label=\"Retention chains: what keeps each leaked object alive\" "
       "aria-describedby=\"chart-chains-desc\" viewBox=\"0 0 " +
       std::to_string(width) + " " + std::to_string(height) + "\" width=\"" +
       std::to_string(width) + "\" height=\"" + std::to_string(height) +
       "\" preserveAspectRatio=\"xMinYMin meet\">\n";
  s += "<title>Retention chains</title>\n<desc id=\"chart-chains-desc\">";
  for (const Row& row : rows) {
    s += "Finding " + std::to_string(row.finding + 1) + ": " +
         html_text(chain_text(r.findings[row.finding]->chains[row.chain].links)) + ". ";
  }
  s += "</desc>\n";
  s += "<defs><marker id=\"vk-arrowhead\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
       "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">"
       "<path d=\"M0 0 L10 5 L0 10 z\" class=\"vk-arrowhead\"/></marker></defs>\n";

  // Legend: box colours by role, and what an arrow means.
  s += "<g class=\"vk-legend\">\n";
  int lx = kLeft;
  for (const auto& [role, label] :
       std::vector<std::pair<const char*, const char*>>{{"view", "view"},
                                                        {"resource", "buffer / image"},
                                                        {"memory", "device memory"},
                                                        {"other", "other"}}) {
    s += "<g class=\"vk-legend-item\"><rect class=\"vk-box vk-role-" + std::string(role) +
         "\" x=\"" + std::to_string(lx) +
         "\" y=\"8\" width=\"16\" height=\"12\" rx=\"2\"/>"
         "<text x=\"" +
         std::to_string(lx + 22) + "\" y=\"18\">" + label + "</text></g>\n";
    lx += 44 + 7 * static_cast<int>(std::string(label).size());
  }
  s += "<g class=\"vk-legend-item\"><rect class=\"vk-box vk-role-other vk-destroyed\" x=\"" +
       std::to_string(lx) + "\" y=\"8\" width=\"16\" height=\"12\" rx=\"2\"/><text x=\"" +
       std::to_string(lx + 22) + "\" y=\"18\">destroyed</text></g>\n";
  lx += 44 + 7 * 9;
  s += "<g class=\"vk-legend-item\"><line class=\"vk-arrow\" x1=\"" + std::to_string(lx) +
       "\" x2=\"" + std::to_string(lx + 30) +
       "\" y1=\"14\" y2=\"14\" marker-end=\"url(#vk-arrowhead)\"/><text x=\"" +
       std::to_string(lx + 38) + "\" y=\"18\">keeps alive</text></g>\n";
  s += "</g>\n";

  for (size_t row = 0; row < rows.size(); ++row) {
    const Finding& f = *r.findings[rows[row].finding];
    const Chain& chain = f.chains[rows[row].chain];
    const size_t rank = rows[row].finding + 1;
    const int y = kTop + static_cast<int>(row) * kRowH;
    s += "<g class=\"vk-chain\" id=\"" + chain_anchor(rank, rows[row].chain) +
         "\" data-finding=\"" + std::to_string(rank) + "\">\n";
    std::string caption = "#" + std::to_string(rank) + " " + analysis::kind_info(f.kind).title;
    if (!f.object_type.empty()) caption += " \xc2\xb7 " + f.object_type;
    caption += " \xc2\xb7 " + format_count(f.count) + " objects";
    caption += " \xc2\xb7 holds " + format_bytes(chain.bytes);
    if (rows[row].chain + 1 == drawn_chains(f) && f.chains.size() > drawn_chains(f)) {
      caption += " (+" + std::to_string(f.chains.size() - drawn_chains(f)) + " more like it)";
    }
    s += "<text class=\"vk-chain-caption\" x=\"" + std::to_string(kLeft) + "\" y=\"" +
         std::to_string(y + 12) + "\">" + html_text(caption) + "</text>\n";
    const size_t shown = std::min(chain.links.size(), kMaxLinks);
    for (size_t k = 0; k < shown; ++k) {
      const int bx = kLeft + static_cast<int>(k) * (kBoxW + kGap);
      const int by = y + 22;
      // The last box stands for the rest when the chain is too long to draw.
      const bool elided = k + 1 == shown && chain.links.size() > shown;
      if (k > 0) {
        s += "<line class=\"vk-arrow\" x1=\"" + std::to_string(bx - kGap + 4) + "\" x2=\"" +
             std::to_string(bx - 4) + "\" y1=\"" + std::to_string(by + kBoxH / 2) + "\" y2=\"" +
             std::to_string(by + kBoxH / 2) + "\" marker-end=\"url(#vk-arrowhead)\"/>\n";
      }
      if (elided) {
        s += "<g class=\"vk-chain-link vk-chain-more\"><rect class=\"vk-box vk-role-other\" x=\"" +
             std::to_string(bx) + "\" y=\"" + std::to_string(by) + "\" width=\"" +
             std::to_string(kBoxW) + "\" height=\"" + std::to_string(kBoxH) +
             "\" rx=\"6\"/><text class=\"vk-box-type\" x=\"" + std::to_string(bx + 10) + "\" y=\"" +
             std::to_string(by + 34) + "\">\xe2\x80\xa6 " +
             std::to_string(chain.links.size() - shown + 1) + " more</text></g>\n";
        break;
      }
      const ChainLink& l = chain.links[k];
      std::string meta = "id " + std::to_string(l.id);
      if (l.bytes > 0) meta += " \xc2\xb7 " + format_bytes(l.bytes);
      const analysis::ChainState state = destroyed(l) ? analysis::ChainState::kDestroyed : l.state;
      if (state != analysis::ChainState::kLive) {
        meta += (meta.empty() ? "" : " \xc2\xb7 ") + std::string(analysis::name(state));
      }
      s += "<g class=\"vk-chain-link\" data-type=\"" + html_text(l.type) + "\"><title>" +
           html_text(chain_text({l})) + "</title>";
      s += "<rect class=\"vk-box vk-role-" + std::string(link_role(l.type)) +
           (destroyed(l) ? " vk-destroyed" : "") + "\" x=\"" + std::to_string(bx) + "\" y=\"" +
           std::to_string(by) + "\" width=\"" + std::to_string(kBoxW) + "\" height=\"" +
           std::to_string(kBoxH) + "\" rx=\"6\"/>";
      s += "<text class=\"vk-box-type\" x=\"" + std::to_string(bx + 10) + "\" y=\"" +
           std::to_string(by + 18) + "\">" +
           html_text(truncate(l.type.empty() ? "?" : l.type, 26)) + "</text>";
      s += "<text class=\"vk-box-name\" x=\"" + std::to_string(bx + 10) + "\" y=\"" +
           std::to_string(by + 34) + "\">" +
           html_text(truncate(l.name && !l.name->empty() ? *l.name : "(unnamed)", 28)) + "</text>";
      s += "<text class=\"vk-box-meta\" x=\"" + std::to_string(bx + 10) + "\" y=\"" +
           std::to_string(by + 50) + "\">" + html_text(meta) + "</text></g>\n";
    }
    s += "</g>\n";
  }
  s += "</svg>\n";
  return s;
}

// ---------------------------------------------------------------------------------------------
// The page
// ---------------------------------------------------------------------------------------------

void add_run_item(std::string* s, const char* label, const std::string& value,
                  const char* cls = "") {
  if (value.empty()) return;
  *s += "<div" + std::string(*cls ? " class=\"" + std::string(cls) + "\"" : "") + "><dt>" + label +
        "</dt><dd>" + html_text(value) + "</dd></div>";
}

std::string header(const Report& r) {
  std::string s =
      "<header class=\"vk-header\" id=\"run\">\n<div class=\"vk-title\"><h1>vkleak report</h1>";
  const std::string count =
      std::to_string(r.findings.size()) + (r.findings.size() == 1 ? " finding" : " findings");
  const std::string problems =
      format_count(r.totals.problems) + (r.totals.problems == 1 ? " problem" : " problems");
  if (r.gate == analysis::GateResult::kIncomplete ||
      (r.gate == analysis::GateResult::kNone && !r.incomplete.empty())) {
    // Nothing can pass that was not checked whole.
    s += "<span class=\"vk-badge vk-fail\" id=\"verdict\">INCOMPLETE \xc2\xb7 run not checked "
         "whole (" +
         count + ")</span>";
  } else if (r.gate == analysis::GateResult::kPass) {  // a gate's verdict wins: it knows the baseline and suppressions
    s += "<span class=\"vk-badge vk-pass\" id=\"verdict\">PASS \xc2\xb7 gate passed" +
         (r.findings.empty() ? std::string() : " (" + count + ")") + "</span>";
  } else if (r.gate == analysis::GateResult::kFail) {
    s += "<span class=\"vk-badge vk-fail\" id=\"verdict\">FAIL \xc2\xb7 gate failed (" + problems +
         ", " + count + ")</span>";
  } else if (r.findings.empty()) {
    s += "<span class=\"vk-badge vk-pass\" id=\"verdict\">PASS \xc2\xb7 no leaks found</span>";
  } else {
    // A report is no gate: it says what it found, not pass or fail (vkleak gate knows the
    // baseline and the suppressions).
    s += "<span class=\"vk-badge vk-found\" id=\"verdict\">" + problems + " found \xc2\xb7 " +
         count + "</span>";
  }
  s += "</div>\n<dl class=\"vk-run\">";
  const std::string executable = r.run ? r.run->executable : "";
  add_run_item(&s, "Executable", executable.empty() ? "(unknown)" : executable, "vk-exe");
  if (r.run) add_run_item(&s, "PID", std::to_string(r.run->pid));
  if (r.run && !r.run->snapshots.empty()) {
    add_run_item(&s, "Snapshots", format_count(r.run->snapshots.size()));
  }
  if (r.runs > 1) add_run_item(&s, "Runs", format_count(r.runs) + " (the first is shown)");
  add_run_item(&s, "Frames", frames_text(r.run_frames));
  s += "</dl>\n";
  if (!r.incomplete.empty()) {
    s += "<ul class=\"vk-incomplete\" id=\"incomplete\">";
    for (const std::string& problem : r.incomplete) s += "<li>" + html_text(problem) + "</li>";
    s += "</ul>\n";
  }
  s += "</header>\n";
  return s;
}

std::string summary(const Report& r) {
  std::string s = "<section id=\"summary\">\n<h2>Summary</h2>\n";
  if (r.findings.empty()) {
    s += "<div class=\"vk-empty-state\" id=\"no-findings\">No leaks found"
         "<span>vkleak found no growth, retained objects, stale views, orphaned memory or "
         "leaks at exit in this run.</span></div>\n</section>\n";
    return s;
  }
  // Kinds in the order summaries list them.
  std::vector<const KindInfo*> kinds;
  for (const KindInfo& k : analysis::kKinds) kinds.push_back(&k);
  std::sort(kinds.begin(), kinds.end(),
            [](const KindInfo* a, const KindInfo* b) { return a->summary_rank < b->summary_rank; });
  s += "<div class=\"vk-cards\">\n";
  for (const KindInfo* info : kinds) {
    uint64_t findings = 0;
    uint64_t objects = 0;
    uint64_t bytes = 0;
    for (const Finding* f : r.findings) {
      if (f->kind != info->kind) continue;
      ++findings;
      objects += f->count;
      bytes = saturating_add(bytes, f->bytes);
    }
    if (findings == 0) continue;
    s += "<div class=\"vk-card " + kind_class(info->kind) + "\" data-kind=\"" +
         html_text(info->name) + "\" title=\"" + html_text(info->summary) +
         "\"><span class=\"vk-card-n\">" + std::to_string(findings) +
         "</span><span class=\"vk-card-label\">" + html_text(info->title) +
         "</span><span class=\"vk-card-sub\">" + format_count(objects) + " objects \xc2\xb7 " +
         html_text(format_bytes(bytes)) + "</span></div>\n";
  }
  // Each object once: findings about the same objects are one problem.
  const analysis::ProblemTotals& t = r.totals;
  s += "<div class=\"vk-card vk-total\" id=\"total-bytes\" title=\"Each object counted once: "
       "findings about the same objects are one problem\"><span class=\"vk-card-n\">" +
       html_text(format_bytes(t.bytes)) +
       "</span><span class=\"vk-card-label\">in findings</span>"
       "<span class=\"vk-card-sub\">" +
       format_count(t.objects) + " objects, " + format_count(t.problems) +
       (t.problems == 1 ? " problem, " : " problems, ") + format_count(t.findings) +
       (t.findings == 1 ? " finding" : " findings") + "</span></div>\n";
  s += "</div>\n</section>\n";
  return s;
}

std::string names_cell(const std::vector<std::string>& names, uint64_t omitted) {
  if (names.empty() && omitted == 0) return "<span class=\"vk-more\">(unnamed)</span>";
  constexpr size_t kShown = 3;
  std::string s;
  // A series of names is one entry ("thumb.{0..299}"); "+N more" counts names.
  uint64_t more = omitted;
  const std::vector<analysis::NameEntry> entries = analysis::name_ranges(names);
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i >= kShown) {
      more += entries[i].names;
      continue;
    }
    if (i > 0) s += ", ";
    s += html_text(display_cut(entries[i].text));
  }
  if (more > 0) s += " <span class=\"vk-more\">+" + format_count(more) + " more</span>";
  return s;
}

// "1 VkDescriptorPool "x" explains 40 VkDescriptorSet, 12 VkImageView, 96 MiB": a root and
// what only it keeps alive.
std::string retainer_text(const analysis::RetainerRoot& root) {
  std::string s = root.shared ? std::string("Several roots (shared) explain ")
                              : "1 " + (root.type.empty() ? std::string("?") : root.type) +
                                    (root.name ? " \"" + display_cut(*root.name) + "\"" : "") +
                                    " explains ";
  std::string counts;
  for (const analysis::TypeTally& t : root.counts) {
    counts += (counts.empty() ? "" : ", ") + format_count(t.count) + " " + t.type;
  }
  if (counts.empty()) counts = format_count(root.objects) + " objects";
  return s + counts + ", " + format_bytes(root.bytes);
}

// "VkDescriptorPool "x" > VkDescriptorSet "s" > VkImageView": the way from the root.
std::string retainer_path(const analysis::RetainerRoot& root) {
  std::string s;
  for (const ChainLink& l : root.path) {
    if (!s.empty()) s += " > ";
    s += (l.type.empty() ? std::string("?") : l.type) +
         (l.name && !l.name->empty() ? " \"" + display_cut(*l.name) + "\"" : "");
  }
  return s;
}

// chain_rows: the diagram rows before this finding's chains (the diagram stops at kMaxChains).
std::string finding_details(const Finding& f, size_t rank, size_t chain_rows) {
  std::string s =
      "<details class=\"vk-detail\" id=\"finding-" + std::to_string(rank) + "\"><summary>" +
      html_text(f.message.empty() ? "Details" : display_cut(f.message, 4 * kDisplayChars)) +
      "</summary>\n";
  s += "<dl class=\"vk-detail-list\">";
  s += "<dt>What it means</dt><dd>" + html_text(analysis::kind_info(f.kind).summary) + "</dd>";
  s += "<dt>Bytes</dt><dd>" + format_count(f.bytes) + " bytes</dd>";
  // Misuse: each stack under its label, frames numbered from #0 as ASan does.
  for (const analysis::LabeledStack& st : f.stacks) {
    s += "<dt>" + html_text(display_cut(st.label)) + "</dt><dd class=\"vk-misuse-stack\">";
    if (!st.frames.empty()) {
      s += "<ol class=\"vk-stack\" start=\"0\">";
      for (const analysis::Frame& frame : st.frames) {
        s += "<li><code>" + html_text(display_cut(frame.text, 4 * kDisplayChars)) + "</code></li>";
      }
      s += "</ol>";
    }
    for (const std::string& line : st.lines) {
      s += "<div class=\"vk-stack-line\">" + html_text(display_cut(line, 2 * kDisplayChars)) +
           "</div>";
    }
    if (!st.note.empty())
      s += "<div class=\"vk-more\">" + html_text(display_cut(st.note)) + "</div>";
    s += "</dd>";
  }
  // Frames whole up to 800 characters (C++ signatures run long); the cap bounds hostile names.
  if (!f.callsite.empty() && f.stacks.empty()) {
    s += "<dt>Call site</dt><dd><ol class=\"vk-stack\">";
    for (const analysis::Frame& frame : f.callsite) {
      s += "<li><code>" + html_text(display_cut(frame.text, 4 * kDisplayChars)) + "</code></li>";
    }
    s += "</ol></dd>";
  }
  constexpr size_t kListed = 5;
  for (size_t k = 0; k < f.chains.size() && k < kListed; ++k) {
    s += "<dt>Chain</dt><dd class=\"vk-chain-text\">" + html_text(chain_text(f.chains[k].links));
    s += ", holds " + html_text(format_bytes(f.chains[k].bytes));
    if (k < drawn_chains(f) && chain_rows + k < kMaxChains) {
      s += " <a href=\"#" + chain_anchor(rank, k) + "\">(diagram)</a>";
    }
    s += "</dd>";
  }
  if (f.chains.size() > kListed) {
    s += "<dt></dt><dd>and " + std::to_string(f.chains.size() - kListed) + " more chains</dd>";
  }
  if (const auto entries = analysis::name_ranges(f.names); entries.size() > 3) {
    s += "<dt>All names</dt><dd>";
    for (size_t i = 0; i < entries.size(); ++i) {
      s += (i ? ", " : "") + html_text(display_cut(entries[i].text));
    }
    s += "</dd>";
  }
  if (!f.retainers.empty()) {
    s += "<dt>Kept alive by</dt><dd>";
    for (size_t k = 0; k < f.retainers.size(); ++k) {
      s += (k ? "<br>" : "") + html_text(retainer_text(f.retainers[k]));
    }
    if (f.retainers_omitted > 0) {
      s += "<br><span class=\"vk-more\">+" + format_count(f.retainers_omitted) + " more</span>";
    }
    s += " <a href=\"#retainers-" + std::to_string(rank) + "\">(paths)</a></dd>";
  }
  if (!f.examples.empty()) {
    s += "<dt>Examples</dt><dd><table class=\"vk-examples\"><tr><th>id</th><th>handle</th>"
         "<th>name</th></tr>";
    for (const analysis::ExampleObject& e : f.examples) {
      s += "<tr><td>" + std::to_string(e.id) + "</td><td><code>" + html_text(format_hex(e.handle)) +
           "</code></td><td>" + html_text(display_cut(e.name.value_or(""))) + "</td></tr>";
    }
    s += "</table></dd>";
  }
  // Where the evidence is from: the snapshot the objects were seen in.
  if (!f.snapshot.empty() || f.frames.snapshot) {
    s += "<dt>Evidence</dt><dd>";
    if (f.frames.snapshot) s += "snapshot at frame " + format_count(*f.frames.snapshot);
    if (!f.snapshot.empty()) {
      s += std::string(f.frames.snapshot ? ", " : "") + "<code>" +
           html_text(display_cut(f.snapshot, 2 * kDisplayChars)) + "</code>";
    }
    s += "</dd>";
  }
  s += "</dl></details>";
  return s;
}

std::string findings_section(const Report& r) {
  std::string s = "<section id=\"findings\" class=\"vk-view\">\n<h2>Findings</h2>\n";
  if (r.findings.empty()) {
    s += "<p class=\"vk-note\">Nothing to list: no leaks found.</p>\n</section>\n";
    return s;
  }
  s += "<p class=\"vk-note\">Ranked by the analysis, most important first. Open a row for the "
       "full call site, the retention chain and example objects.</p>\n";
  // Filters: the script shows them (hidden without it, as they would do nothing).
  s += "<div class=\"vk-toolbar\" id=\"findings-tools\" hidden><label>Kind <select "
       "id=\"findings-kind\"><option value=\"\">all</option>";
  for (const KindInfo& k : analysis::kKinds) {
    const bool present = std::any_of(r.findings.begin(), r.findings.end(),
                                     [&](const Finding* f) { return f->kind == k.kind; });
    if (present) {
      s += "<option value=\"" + html_text(k.name) + "\">" + html_text(k.title) + "</option>";
    }
  }
  s += "</select></label><label>Filter <input type=\"search\" id=\"findings-text\" "
       "placeholder=\"type, name or function\"></label><span id=\"findings-shown\">" +
       std::to_string(r.findings.size()) + " of " + std::to_string(r.findings.size()) +
       " findings</span></div>\n";
  s += "<table class=\"vk-findings\" id=\"findings-table\"><thead><tr><th>#</th>"
       "<th data-sort=\"kind\">Kind</th><th data-sort=\"type\">Type</th>"
       "<th data-sort=\"count\">Count</th><th data-sort=\"bytes\">Bytes</th><th>Names</th>"
       "<th data-sort=\"function\">Call site</th><th>Frames</th></tr></thead>"
       "<tbody>\n";
  size_t chain_rows = 0;
  // One finding's row and its details row; in_problem: shown under its problem's row.
  const auto finding_rows = [&](size_t i, bool in_problem) {
    const Finding& f = *r.findings[i];
    const std::string rank = std::to_string(i + 1);
    // data-*: what the explorer sorts and filters by (exact integers, not display text).
    s += "<tr class=\"vk-finding " + kind_class(f.kind) + (in_problem ? " vk-in-problem" : "") +
         "\" data-rank=\"" + rank + "\" data-kind=\"" + html_text(analysis::kind_name(f.kind)) +
         "\" data-type=\"" + html_text(f.object_type) + "\" data-bytes=\"" +
         std::to_string(f.bytes) + "\" data-count=\"" + std::to_string(f.count) +
         "\" data-function=\"" + html_text(display_cut(f.function(), 4 * kDisplayChars)) +
         "\" data-name=\"" + html_text(display_cut(f.name_pattern)) + "\" data-problem=\"" +
         std::to_string(f.problem) + "\" tabindex=\"0\">";
    s += "<td class=\"vk-rank\">" + rank + "</td>";
    s += "<td><span class=\"vk-kind-tag\">" + html_text(analysis::kind_info(f.kind).title) +
         "</span>";
    // The gate's word on it, where it is not simply new.
    if (f.status != analysis::GateStatus::kNone && f.status != analysis::GateStatus::kNew) {
      s += " <span class=\"vk-status\">" + html_text(analysis::name(f.status)) + "</span>";
    }
    s += "</td>";
    s += "<td class=\"vk-type\">" + html_text(f.object_type) + "</td>";
    s += "<td class=\"vk-num vk-count\">" + format_count(f.count) + "</td>";
    s += "<td class=\"vk-num vk-bytes\" title=\"" + std::to_string(f.bytes) + " bytes\">" +
         html_text(format_bytes(f.bytes)) + "</td>";
    s += "<td class=\"vk-names\">" + names_cell(f.names, f.names_omitted) + "</td>";
    const std::string path = analysis::callsite_summary(f);
    s += "<td class=\"vk-callsite\">" +
         (f.callsite.empty()
              ? "<span class=\"vk-more\">(unknown)</span>"
              : "<code title=\"" + html_text(display_cut(f.callsite.front().text)) + "\">" +
                    html_text(
                        display_cut(path.empty() ? short_frame(f.callsite.front().text) : path)) +
                    "</code>") +
         "</td>";
    s += "<td class=\"vk-frames\">" + html_text(frames_text({f.frames.first, f.frames.last})) +
         "</td></tr>\n";
    s += "<tr class=\"vk-finding-details\" data-rank=\"" + rank + "\"><td></td><td colspan=\"7\">" +
         finding_details(f, i + 1, chain_rows) + "</td></tr>\n";
    chain_rows += drawn_chains(f);
  };
  // Findings about the same objects show together, where the best-ranked of them would be: one
  // problem row (its kinds, objects and bytes counted once; id problem-N, N the rank of its
  // best-ranked finding), then each finding.
  // A gate's new problems come first (issue 27): the line to fix is the first row.
  std::vector<bool> shown(r.findings.size(), false);
  const auto is_new = [&](size_t i) {
    if (r.gate == analysis::GateResult::kNone) return false;  // a report keeps the ranking
    const analysis::Problem* p = r.problems[i];
    if (p == nullptr) return r.findings[i]->status == analysis::GateStatus::kNew;
    for (size_t m : p->findings) {
      if (r.findings[r.run_first[i] + m]->status == analysis::GateStatus::kNew) return true;
    }
    return false;
  };
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < r.findings.size(); ++i) {
      if (shown[i] || is_new(i) != (pass == 0)) continue;
      const analysis::Problem* p = r.problems[i];
      if (p == nullptr) {
        shown[i] = true;
        finding_rows(i, false);
        continue;
      }
      std::string kinds, titles;
      for (analysis::FindingKind k : p->kinds) {
        kinds += (kinds.empty() ? "" : " ") + std::string(analysis::kind_name(k));
        titles += (titles.empty() ? "" : " + ") + std::string(analysis::kind_info(k).title);
      }
      std::string ranks;
      for (size_t m : p->findings)
        ranks += (ranks.empty() ? "#" : ", #") + std::to_string(r.run_first[i] + m + 1);
      s += "<tr class=\"vk-problem\" id=\"problem-" + std::to_string(i + 1) + "\" data-kinds=\"" +
           html_text(kinds) +
           "\"><td></td><td colspan=\"7\"><span class=\"vk-problem-title\">One "
           "problem, " +
           std::to_string(p->kinds.size()) + (p->kinds.size() == 1 ? " kind: " : " kinds: ") +
           html_text(titles) + "</span> <span class=\"vk-problem-sub\">" + format_count(p->count) +
           " objects \xc2\xb7 " + html_text(format_bytes(p->bytes)) +
           " counted once \xc2\xb7 findings " + ranks +
           " are about the same objects</span></td></tr>\n";
      for (size_t m : p->findings) {
        const size_t k = r.run_first[i] + m;
        finding_rows(k, true);
        shown[k] = true;
      }
    }
  }
  s += "</tbody></table>\n</section>\n";
  return s;
}

// The timeline view: the script draws the objects' lifetimes (stacked, with a brush) from the
// embedded data; the line charts below are what every reader sees, script or not.
std::string charts_section(const Report& r) {
  std::string s =
      "<section id=\"timeline\" class=\"vk-view\">\n<h2>Timeline</h2>\n"
      "<div id=\"timeline-explorer\" hidden>\n"
      "<p class=\"vk-note\">What was alive at each snapshot, stacked. Drag across columns (or "
      "pick a range) to see what was created there and is still alive at the end.</p>\n"
      "<div class=\"vk-toolbar\"><span class=\"vk-seg\" role=\"group\" aria-label=\"Stack by\">"
      "<button type=\"button\" data-timeline-mode=\"types\" aria-pressed=\"true\">by type</button>"
      "<button type=\"button\" data-timeline-mode=\"groups\" aria-pressed=\"false\">by call "
      "site</button></span><span class=\"vk-seg\" role=\"group\" aria-label=\"Metric\">"
      "<button type=\"button\" data-metric=\"bytes\" aria-pressed=\"true\">bytes</button>"
      "<button type=\"button\" data-metric=\"count\" aria-pressed=\"false\">objects</button>"
      "</span><label>From snapshot <input type=\"number\" id=\"timeline-from\" min=\"0\" "
      "value=\"0\"></label><label>to <input type=\"number\" id=\"timeline-to\" min=\"0\" "
      "value=\"0\"></label></div>\n"
      "<div id=\"timeline-plot\"></div>\n<div id=\"timeline-legend\" "
      "class=\"vk-legend-html\"></div>\n"
      "<div id=\"timeline-tip\" aria-live=\"polite\"></div>\n"
      "<h3 id=\"timeline-selection-title\">Created in this range and still alive at the end</h3>\n"
      "<table class=\"vk-table\" id=\"timeline-selection\"><thead><tr><th>Type</th><th>Call site"
      "</th><th>Name</th><th class=\"vk-num\">Objects</th><th class=\"vk-num\">Bytes</th></tr>"
      "</thead><tbody></tbody><tfoot></tfoot></table>\n</div>\n"
      "<h3>Over the run</h3>\n";
  if (r.frames.empty() || (r.types.empty() && r.groups.empty())) {
    s += "<p class=\"vk-note\" id=\"no-series\">No time series in this report: it needs "
         "snapshots taken during the run (vkleak run --every N).</p>\n</section>\n";
    return s;
  }
  const std::string x_label = r.x_is_frame ? "frame" : "snapshot";
  if (r.frames.size() == 1) {
    s += "<p class=\"vk-note\">Only one snapshot: each value is a single point.</p>\n";
  }

  // One colour per type in both charts, the biggest types first.
  std::vector<const Series*> by_live;
  for (const Series& t : r.types) by_live.push_back(&t);
  std::stable_sort(by_live.begin(), by_live.end(), [](const Series* a, const Series* b) {
    return std::max(peak(a->live), peak(a->bytes) / 1e12) >
           std::max(peak(b->live), peak(b->bytes) / 1e12);
  });
  std::map<std::string, std::string> colors;
  for (size_t i = 0; i < by_live.size(); ++i) {
    colors[by_live[i]->label] = kPalette[i % std::size(kPalette)];
  }

  for (const bool bytes : {false, true}) {
    ChartSpec spec;
    spec.id = bytes ? "chart-bytes" : "chart-live";
    spec.title = bytes ? "Bytes per type across the run" : "Live objects per type across the run";
    spec.x_label = x_label;
    spec.y_label = bytes ? "bytes" : "live objects";
    spec.bytes = bytes;
    const std::vector<Line> lines = type_lines(r, bytes, colors);
    spec.description = series_description(lines, bytes);
    s += "<figure class=\"vk-figure\" id=\"" + spec.id + "-figure\"><figcaption>" + spec.title +
         "</figcaption>\n";
    if (lines.empty()) {
      s += "<p class=\"vk-note\">No " + std::string(bytes ? "bytes" : "live objects") +
           " recorded per type.</p>\n";
    } else {
      s += line_chart(spec, r.frames, lines);
    }
    s += "</figure>\n";
  }

  // The groups that grew most, one small chart each.
  constexpr size_t kMaxGroups = 6;
  std::vector<const Series*> groups;
  for (const Series& g : r.groups) {
    if (first_value(g.live)) groups.push_back(&g);
  }
  const auto growth = [](const Series* g) {
    return last_value(g->live).value_or(0) - first_value(g->live).value_or(0);
  };
  std::stable_sort(groups.begin(), groups.end(),
                   [&](const Series* a, const Series* b) { return growth(a) > growth(b); });
  if (groups.size() > kMaxGroups) groups.resize(kMaxGroups);
  s += "<h3>Top growing groups</h3>\n";
  if (groups.empty()) {
    s += "<p class=\"vk-note\" id=\"no-groups\">No per-call-site groups in this report.</p>\n";
  } else {
    s += "<div class=\"vk-multiples\" id=\"chart-groups\">\n";
    for (size_t i = 0; i < groups.size(); ++i) {
      const Series& g = *groups[i];
      ChartSpec spec;
      spec.id = "chart-group-" + std::to_string(i + 1);
      spec.extra_class = "vk-group-chart";
      spec.title = "Live objects of group " + g.label;
      spec.x_label = x_label;
      spec.y_label = "live";
      spec.width = 340;
      spec.height = 190;
      spec.left = 60;
      spec.right = 0;
      spec.top = 28;
      spec.bottom = 44;
      spec.x_ticks = 4;
      spec.y_ticks = 3;
      const double first = first_value(g.live).value_or(0);
      const double last = last_value(g.live).value_or(0);
      std::string change = html::tick_label(first, false) + " \xe2\x86\x92 " +
                           html::tick_label(last, false) + " live";
      if (auto b = last_value(g.bytes); b && *b >= 0) {
        // 2^64 and above (a saturated series) does not fit: the cast would be undefined.
        change += ", " + format_bytes(*b >= 18446744073709551615.0 ? UINT64_MAX
                                                                   : static_cast<uint64_t>(*b));
      }
      spec.description = g.label + ": " + change + ".";
      s += "<figure><figcaption>" + html_text(g.label) + " <span>" + html_text(change) +
           "</span></figcaption>\n";
      s += line_chart(spec, r.frames, {{"live objects", g.live, kPalette[2], {}}});
      s += "</figure>\n";
    }
    s += "</div>\n";
  }
  s += "</section>\n";
  return s;
}

// The flame graph: drawn by the script from the embedded data (objects by creation stack).
std::string flamegraph_section() {
  return "<section id=\"flamegraph\" class=\"vk-view\">\n<h2>Flame graph</h2>\n"
         "<p class=\"vk-note vk-noscript-note\" id=\"flamegraph-noscript\">The flame graph of "
         "live objects by creation stack is drawn by this page's script; the findings list each "
         "call site.</p>\n"
         "<div id=\"flame-explorer\" hidden>\n<p class=\"vk-note\">Live objects by creation "
         "stack, outermost frame on top (italic: inlined). Click a frame to zoom; choose a base "
         "snapshot to see what grew (red) and shrank (blue).</p>\n"
         "<div class=\"vk-toolbar\"><label>Snapshot <select id=\"flame-snapshot\"></select>"
         "</label><label>Compared with <select id=\"flame-base\"><option value=\"\">none"
         "</option></select></label><label>Metric <select id=\"flame-metric\"><option "
         "value=\"bytes\">bytes</option><option value=\"count\">objects</option></select></label>"
         "<label>Search <input type=\"search\" id=\"flame-search\" placeholder=\"function or "
         "file\"></label><span id=\"flame-search-result\"></span></div>\n"
         "<div id=\"flame-crumbs\"></div>\n<div id=\"flame-graph\"></div>\n"
         "<div id=\"flame-hover\"></div>\n</div>\n</section>\n";
}

// Why objects are alive: per finding, the roots that keep them, complete without the script
// (which only picks one finding to show).
std::string retainers_section(const Report& r, const std::string& chains) {
  std::string s = "<section id=\"retainers\" class=\"vk-view\">\n<h2>Retainers</h2>\n";
  std::string body;
  std::string options;
  for (size_t i = 0; i < r.findings.size(); ++i) {
    const Finding& f = *r.findings[i];
    if (f.retainers.empty()) continue;
    const std::string rank = std::to_string(i + 1);
    std::string title = "#" + rank + " " + analysis::kind_info(f.kind).title;
    if (!f.object_type.empty()) title += " \xc2\xb7 " + f.object_type;
    if (!f.name_pattern.empty())
      title += " \xe2\x80\x9c" + display_cut(f.name_pattern) + "\xe2\x80\x9d";
    options += "<option value=\"" + rank + "\">" + html_text(title) + "</option>";
    uint64_t top = 1;
    for (const analysis::RetainerRoot& root : f.retainers) top = std::max(top, root.bytes);
    body += "<div class=\"vk-retainers-finding\" id=\"retainers-" + rank + "\" data-rank=\"" +
            rank + "\"><h3>" + html_text(title) + " <a href=\"#finding-" + rank +
            "\">(finding)</a></h3>\n";
    for (const analysis::RetainerRoot& root : f.retainers) {
      // The bar: this root's bytes against the finding's biggest root.
      const double share = 100.0 * static_cast<double>(root.bytes) / static_cast<double>(top);
      body += "<div class=\"vk-retainer-root" + std::string(root.shared ? " vk-shared" : "") +
              "\" data-bytes=\"" + std::to_string(root.bytes) + "\" data-objects=\"" +
              std::to_string(root.objects) + "\" data-type=\"" + html_text(root.type) +
              "\" data-name=\"" + html_text(display_cut(root.name.value_or(""))) +
              "\"><div class=\"vk-retainer-line\">" + html_text(retainer_text(root)) +
              "</div><svg class=\"vk-retainer-bar-svg\" width=\"100%\" height=\"8\" "
              "aria-hidden=\"true\"><rect x=\"0\" y=\"1\" height=\"6\" rx=\"3\" width=\"" +
              decimal(std::max(share, 0.5), 1) + "%\" fill=\"#e07a1f\"/></svg>";
      const std::string path = retainer_path(root);
      if (!path.empty()) {
        body += "<div class=\"vk-retainer-path\">" + html_text(path) + "</div>";
      }
      body += "</div>\n";
    }
    if (f.retainers_omitted > 0) {
      body += "<p class=\"vk-more\">+" + format_count(f.retainers_omitted) + " more roots</p>\n";
    }
    body += "</div>\n";
  }
  if (body.empty()) {
    s += "<p class=\"vk-note\" id=\"no-retainers\">No finding's objects are kept alive by "
         "others: nothing live references them.</p>\n";
  } else {
    s += "<p class=\"vk-note\">What keeps each finding's objects alive: the roots (objects "
         "nothing live references) that lead to them, and what only each root keeps alive, each "
         "byte counted once.</p>\n<div class=\"vk-toolbar\" id=\"retainers-tools\" hidden><label>"
         "Finding <select id=\"retainers-finding\"><option value=\"\">all</option>" +
         options + "</select></label></div>\n" + body;
  }
  if (!chains.empty()) {
    s += "<h3 id=\"chains\">Retention chains</h3>\n<p class=\"vk-note\">What keeps each object "
         "alive: every arrow points from a holder to what it holds.</p>\n" +
         chains;
  }
  s += "</section>\n";
  return s;
}

// The diff view: drawn by the script (two snapshots: new, freed and kept).
std::string diff_section() {
  return "<section id=\"diff\" class=\"vk-view\">\n<h2>Diff</h2>\n"
         "<p class=\"vk-note vk-noscript-note\" id=\"diff-noscript\">Comparing two snapshots "
         "(new, freed and kept objects) is done by this page's script; <code>vkleak diff</code> "
         "does it on the command line.</p>\n"
         "<div id=\"diff-explorer\" hidden>\n<div class=\"vk-toolbar\"><label>From <select "
         "id=\"diff-a\"></select></label><label>to <select id=\"diff-b\"></select></label>"
         "<label><input type=\"checkbox\" id=\"diff-hide-unchanged\" checked> hide unchanged"
         "</label></div>\n<p id=\"diff-summary\"></p>\n<div class=\"vk-diff-tables\">"
         "<div><h3>By type</h3><table class=\"vk-table\" id=\"diff-types\"></table></div>"
         "<div><h3>By call site</h3><p class=\"vk-note\">\u25b8 lists a call site's objects by "
         "the snapshots they were first and last seen in.</p><table class=\"vk-table\" "
         "id=\"diff-groups\">"
         "</table></div></div>\n<p class=\"vk-note\" id=\"diff-attached-note\">Every object "
         "is counted once, and every byte: memory bound to exactly one object counts as an "
         "object, its bytes with that object (shown greyed here).</p>\n</div>\n</section>\n";
}

std::string nav(const Report& r) {
  std::string s =
      "<nav id=\"vk-nav\" aria-label=\"Views\"><a href=\"#timeline\">Timeline</a><a "
      "href=\"#flamegraph\">Flame graph</a><a href=\"#findings\">Findings</a><a "
      "href=\"#retainers\">Retainers</a><a href=\"#diff\">Diff</a>";
  // The explorer's data is the first run's: say so when there are others, so that a timeline
  // of one process is not read as the whole document's.
  if (r.run && r.runs > 1) {
    const std::string& exe = r.run->executable;
    const size_t slash = exe.find_last_of('/');
    const std::string name = slash == std::string::npos ? exe : exe.substr(slash + 1);
    s += "<span class=\"vk-nav-run\" id=\"explorer-run\">timeline, flame graph and diff: pid " +
         std::to_string(r.run->pid) + (name.empty() ? "" : " " + html_text(display_cut(name))) +
         ", the first of " + std::to_string(r.runs) + " runs</span>";
  }
  return s + "</nav>\n";
}

}  // namespace

std::string render_html(const analysis::ReportDocument& doc) {
  const Report r = make_report(doc);
  std::string title = "vkleak report";
  if (r.run && !r.run->executable.empty()) {
    const std::string& exe = r.run->executable;
    const size_t slash = exe.find_last_of('/');
    title += ": " + (slash == std::string::npos ? exe : exe.substr(slash + 1));
  }

  std::string s;
  s.reserve(64 * 1024);
  s += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  // Defence in depth: even if some text escaped its escaping, nothing could load or run.
  // Inline script and style only by their hashes (computed at build time by embed.py).
  s += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
       "style-src '" +
       std::string(explorer::kStyleHash) + "'; script-src '" + explorer::kScriptHash +
       "'; img-src data:\">\n";
  s += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
#ifdef VKLEAK_VERSION
  s += "<meta name=\"generator\" content=\"vkleak " VKLEAK_VERSION "\">\n";
#endif
  s += "<title>" + html_text(title) + "</title>\n<style>" + explorer::kStyle +
       "</style>\n</head>\n<body>\n";
  s += header(r);
  s += nav(r);
  s += "<main>\n";
  s += summary(r);
  s += charts_section(r);
  s += flamegraph_section();
  s += findings_section(r);
  s += retainers_section(r, chains_chart(r));
  s += diff_section();
  s += analysis::explorer_data_element(doc);  // i18-data: the explorer's data, once
  s += "</main>\n<footer>Generated by vkleak";
#ifdef VKLEAK_VERSION
  s += " " VKLEAK_VERSION;
#endif
  s += " from a vkleak-findings document. This page is self-contained: no network; its one "
       "script only explores the data in it.</footer>\n";
  s += "<script>" + std::string(explorer::kScript) + "</script>\n</body>\n</html>\n";
  return s;
}

}  // namespace vkleak
