#include "report/html_charts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "shared/escape.h"
#include "shared/text.h"

namespace vkleak::report::html {

// ---------------------------------------------------------------------------------------------
// Number formatting
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Line charts (server-side SVG)
// ---------------------------------------------------------------------------------------------

namespace {

// "VkBuffer = VkDeviceMemory" for a line that stands for several series.
std::string full_label(const Line& l) {
  std::string label = l.label;
  for (const std::string& same : l.same) label += " = " + same;
  return label;
}

constexpr size_t kLegendSame = 4;  // "= type" rows under a line's name

// Height of a line's entry in a legend column.
double legend_rows(const Line& l) {
  return 20 + 16 * static_cast<double>(std::min(l.same.size(), kLegendSame + 1));
}

}  // namespace

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

}  // namespace vkleak::report::html
