// The HTML page's line charts, drawn server-side as SVG, and the number formatting they share
// with the other parts (locale-independent: coordinates never come out as "12,5").
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/html_model.h"
#include "report/html_report.h"

namespace vkleak::report::html {

// Locale-independent decimal with at most `decimals` digits after the point (trailing zeros
// dropped).
std::string decimal(double value, int decimals);
// An SVG coordinate: decimal(v, 1).
std::string coord(double v);

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

// The first and last values of a series, and its highest (0 when it has none).
std::optional<double> first_value(const std::vector<std::optional<double>>& values);
std::optional<double> last_value(const std::vector<std::optional<double>>& values);
double peak(const std::vector<std::optional<double>>& values);

std::string line_chart(const ChartSpec& chart_spec, const std::vector<double>& xs,
                       const std::vector<Line>& lines);
// Per-type lines for one metric: the biggest kMaxSeries by peak, the rest summed as "other".
std::vector<Line> type_lines(const Report& r, bool bytes,
                             const std::map<std::string, std::string>& colors);
// "VkBuffer from 1 to 300; ...": a chart's <desc>.
std::string series_description(const std::vector<Line>& lines, bool bytes);

}  // namespace vkleak::report::html
