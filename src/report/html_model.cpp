#include "report/html_model.h"

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
// What the page shows of the analysis model
// ---------------------------------------------------------------------------------------------

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

}  // namespace vkleak::report::html
