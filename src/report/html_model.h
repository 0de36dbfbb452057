// The HTML page's view of the analysis model (Report: the first run's series and every run's
// findings, as the page shows them) and the presentation helpers its parts share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/finding.h"
#include "analysis/problems.h"

namespace vkleak::report::html {

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
  std::vector<uint64_t> run_frames;  // the first run's snapshots: first and last frame
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

Report make_report(const analysis::ReportDocument& doc);
std::vector<std::optional<double>> values(const std::vector<uint64_t>& list);
// "VkBuffer \"tex.*\" @ load": a group's series label.
std::string group_label(const analysis::GroupSeries& g);
// A chain link to a destroyed object.
bool destroyed(const ChainLink& l);

std::string kind_class(analysis::FindingKind kind);
// Shortens to at most max code points, the last one an ellipsis.
std::string truncate(const std::string& text, size_t max);
// "f() (/long/path/to/file.cpp:42)" -> "f() (file.cpp:42)".
std::string short_frame(const std::string& frame);
// "12 – 40": the span of frames.
std::string frames_text(const std::vector<uint64_t>& frames);

inline constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#59a14f", "#b07aa1",
                                           "#76b7b2", "#edc948", "#ff9da7", "#9c755f", "#3b3b98"};
inline constexpr const char* kOtherColor = "#9aa0a6";
inline constexpr size_t kMaxSeries = 8;  // more lines than this are unreadable: the rest are summed

}  // namespace vkleak::report::html
