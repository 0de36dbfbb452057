// Unit tests of the HTML report renderer: escaping, empty and extreme reports, the charts (one
// line per type, legends, axes, single snapshots), the chain diagram, the kinds and number formats.
#include "report/html_report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "analysis/problems.h"
#include "core/escape.h"
#include "fixture.h"

namespace vkleak {
namespace {

size_t count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = haystack.find(needle); pos != std::string::npos;
       pos = haystack.find(needle, pos + needle.size())) {
    ++n;
  }
  return n;
}

// The text of the first element that starts with `open` (up to its matching `close`).
std::string element(const std::string& page, const std::string& open, const std::string& close) {
  const size_t start = page.find(open);
  if (start == std::string::npos) return "";
  const size_t end = page.find(close, start);
  return page.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::string chart(const std::string& page, const std::string& id) {
  return element(page, "id=\"" + id + "\"", "</svg>");
}

// The d attributes of the series paths in an SVG fragment.
std::vector<std::string> series_paths(const std::string& svg) {
  std::vector<std::string> out;
  static const std::regex kPath("<path class=\"vk-series\"[^>]* d=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), kPath); it != std::sregex_iterator();
       ++it) {
    out.push_back((*it)[1]);
  }
  return out;
}

struct Point {
  double x, y;
};
std::vector<Point> points(const std::string& d) {
  std::vector<Point> out;
  static const std::regex kPoint("[ML](-?[0-9.]+) (-?[0-9.]+)");
  for (auto it = std::sregex_iterator(d.begin(), d.end(), kPoint); it != std::sregex_iterator();
       ++it) {
    out.push_back({std::stod((*it)[1]), std::stod((*it)[2])});
  }
  return out;
}

using analysis::Chain;
using analysis::ChainLink;
using analysis::Finding;
using analysis::FindingKind;
using analysis::ReportDocument;

// One run with these findings (and no series).
ReportDocument doc_of(std::vector<Finding> findings) {
  ReportDocument doc;
  doc.runs.emplace_back();
  doc.runs.back().findings = std::move(findings);
  return doc;
}

Finding finding(FindingKind kind) {
  Finding f;
  f.kind = kind;
  return f;
}

analysis::Frame frame(const std::string& text) {
  analysis::Frame f;
  f.text = text;
  return f;
}

ChainLink link(const std::string& type, uint64_t id, const std::string& state = "live",
               uint64_t bytes = 0) {
  ChainLink l;
  l.type = type;
  l.id = id;
  l.state = state;
  l.bytes = bytes;
  return l;
}

struct TypeValues {
  std::string type;
  std::vector<uint64_t> live;
  std::vector<uint64_t> bytes;
};

ReportDocument series_doc(std::vector<uint64_t> frames, const std::vector<TypeValues>& types) {
  ReportDocument doc = doc_of({});
  analysis::RunSeries& s = doc.runs.back().series;
  s.frames = std::move(frames);
  for (const TypeValues& t : types) s.types.push_back({t.type, t.live, t.bytes});
  return doc;
}

// --- escaping --------------------------------------------------------------------------------

TEST(HtmlEscape, MarkupCharactersBecomeEntities) {
  EXPECT_EQ(html_text("<script>alert(\"x\")</script>"),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
  EXPECT_EQ(html_text("a & 'b'"), "a &amp; &#39;b&#39;");
}

TEST(HtmlEscape, ControlsAreVisibleAndBadUtf8IsReplaced) {
  EXPECT_EQ(html_text("red\x1b[31m"), "red\\x1b[31m");
  EXPECT_EQ(html_text(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(html_text("\xff"), "\xef\xbf\xbd");
  EXPECT_EQ(html_text("\xc3"), "\xef\xbf\xbd");  // truncated sequence
  EXPECT_EQ(html_text("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // surrogate
  EXPECT_EQ(html_text("\xc2\x9b"), "\\u009b");                                   // C1 CSI
  EXPECT_EQ(html_text("caf\xc3\xa9 \xf0\x9f\x98\x80"), "caf\xc3\xa9 \xf0\x9f\x98\x80");
  EXPECT_EQ(html_text("tab\tnewline\n"), "tab\tnewline\n");
}

TEST(HtmlEscape, BidiAndInvisibleCodePointsAreShown) {
  EXPECT_EQ(html_text("ok\u202e\u2066exe\u2069\u2028"),
            "ok&lt;U+202E&gt;&lt;U+2066&gt;exe&lt;U+2069&gt;&lt;U+2028&gt;");
  EXPECT_EQ(html_text("z\u200bw\ufeff\U000e0041"), "z&lt;U+200B&gt;w&lt;U+FEFF&gt;&lt;U+E0041&gt;");
}

TEST(HtmlReport, LongNamesAreCut) {
  const std::string huge(1'000'000, 'n');
  Finding f = finding(FindingKind::kLeakAtExit);
  f.names = {huge, "b", "c", "d"};
  f.callsite = {frame(huge)};
  analysis::ExampleObject example;
  example.id = 1;
  example.handle = 1;
  example.name = huge;
  f.examples = {example};
  const std::string page = render_html(doc_of({f}));
  EXPECT_LT(page.size(), 200'000u);
  EXPECT_NE(page.find(std::string(200, 'n') + "\xe2\x80\xa6 (1,000,000 bytes)"), std::string::npos);
}

TEST(HtmlReport, UserStringsNeverBecomeMarkup) {
  const std::string evil = "<script>alert(1)</script>";
  const std::string attr = "x\" onmouseover=\"alert(2)";
  Finding f = finding(FindingKind::kStaleView);
  f.object_type = evil;
  f.names = {evil, attr};
  f.callsite = {frame(evil)};
  f.message = evil;
  ChainLink l = link(evil, 1);
  l.name = attr;
  f.chains = {Chain{{l}, 0}};
  analysis::ExampleObject example;
  example.id = 1;
  example.name = attr;
  f.examples = {example};
  ReportDocument doc = series_doc({1, 2, 3}, {{evil, {1, 2, 3}, {1, 2, 3}}});
  doc.runs.back().findings = {f};
  doc.runs.back().executable = "/bin/" + evil;
  doc.runs.back().series.groups.push_back({evil, "", "", {1, 2, 3}, {}});
  const std::string page = render_html(doc);
  // The only script element is the explorer's data (i18-data), and user text cannot close it.
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_EQ(count(page, "<script"), 1u);
  EXPECT_EQ(count(page, "</script"), 1u);
  EXPECT_EQ(page.find("onmouseover=\""), std::string::npos);
  EXPECT_EQ(page.find("\" onmouseover"), std::string::npos);
  EXPECT_GE(count(page, "&lt;script&gt;alert(1)&lt;/script&gt;"), 8u);
  EXPECT_GE(count(page, "x&quot; onmouseover=&quot;alert(2)"), 3u);
  // A kind's class comes from the kinds list, never from user data.
  EXPECT_NE(page.find("class=\"vk-finding vk-kind-stale_view\""), std::string::npos);
}

TEST(HtmlReport, ContentSecurityPolicyForbidsScriptsAndNetwork) {
  const std::string page = render_html(ReportDocument{});
  EXPECT_NE(page.find("Content-Security-Policy\" content=\"default-src 'none'"), std::string::npos);
  EXPECT_EQ(page.find("http://"), std::string::npos);
  EXPECT_EQ(page.find("https://"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
}

// --- empty and extreme reports ---------------------------------------------------------------

TEST(HtmlReport, NoFindingsIsAFriendlyPass) {
  for (const ReportDocument& doc : {ReportDocument{}, doc_of({})}) {
    SCOPED_TRACE(doc.runs.size());
    const std::string page = render_html(doc);
    EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_NE(page.find("</html>"), std::string::npos);
    EXPECT_NE(page.find("id=\"no-findings\">No leaks found"), std::string::npos);
    EXPECT_NE(page.find("vk-badge vk-pass"), std::string::npos);
    EXPECT_EQ(page.find("<svg"), std::string::npos);
    EXPECT_NE(page.find("id=\"no-series\""), std::string::npos);
  }
}

TEST(HtmlReport, RandomlyDistortedReportsStillRender) {
  // Extreme numbers, series shorter or longer than the frames, empty strings and chains, anywhere
  // in the fixture: never a throw, never a NaN or an infinity in the page.
  const ReportDocument fixture = html_test::incident_fixture();
  const std::vector<uint64_t> numbers = {0, 1, UINT64_MAX, uint64_t{1} << 63};
  std::mt19937 rng(1234);
  const auto number = [&] { return numbers[rng() % numbers.size()]; };
  for (int round = 0; round < 200; ++round) {
    ReportDocument doc = fixture;
    analysis::RunReport& run = doc.runs.back();
    for (int k = 0; k < 6; ++k) {
      Finding& f = run.findings[rng() % run.findings.size()];
      analysis::RunSeries& s = run.series;
      switch (rng() % 8) {
        case 0:
          f.bytes = number();
          f.count = number();
          break;
        case 1:
          f.frames.first = number();
          f.frames.last = number();
          break;
        case 2:
          f.names.clear();
          f.callsite.clear();
          f.object_type.clear();
          break;
        case 3:
          if (!f.chains.empty()) f.chains[0].links.clear();
          f.chains.push_back(Chain{{link("", number(), "", number())}, number()});
          break;
        case 4:
          s.types[rng() % s.types.size()].live.resize(rng() % 20, number());
          break;
        case 5:
          s.groups[rng() % s.groups.size()].bytes.assign(rng() % 20, number());
          break;
        case 6:
          s.frames.resize(rng() % 20, number());
          break;
        default:
          run.snapshots.resize(rng() % 3);
      }
    }
    std::string page;
    ASSERT_NO_THROW(page = render_html(doc)) << round;
    ASSERT_NE(page.find("</html>"), std::string::npos);
    static const std::regex kNotANumber("[=\"( ]-?(nan|inf)\\b");
    ASSERT_FALSE(std::regex_search(page, kNotANumber)) << round;
  }
}

// The model as `vkleak report` fills it: call sites with functions and files, several snapshots,
// a chain with retained and destroyed links, a group of a call site, a gate verdict.
TEST(HtmlReport, RendersTheAnalysisModel) {
  Finding f = finding(FindingKind::kStaleView);
  f.status = "baseline";
  f.object_type = "VkBufferView";
  f.names = {"a"};
  f.names_omitted = 4;
  analysis::Frame view = frame("make_view (app.cpp:12)");
  view.function = "make_view";
  view.file = "app.cpp";
  view.line = 12;
  f.callsite = {view, frame("main (app.cpp:40)")};
  f.frames.first = 10;
  f.frames.last = 30;
  f.frames.last_used = 12;
  f.chains = {Chain{{link("VkBufferView", 5), link("VkBuffer", 4, "retained", 4096),
                     link("VkDeviceMemory", 3, "destroyed")},
                    4096}};
  ReportDocument doc = series_doc({10, 20, 30}, {{"VkBuffer", {1, 2, 3}, {4, 5, 6}}});
  analysis::RunReport& run = doc.runs.back();
  run.findings = {f};
  run.pid = 77;
  run.executable = "/bin/app";
  for (uint64_t frame : {10, 30, 20}) run.snapshots.push_back({"", 0, "periodic", frame, 0});
  run.series.groups.push_back({"VkBuffer", "frame.buffer.*", "make_buffer", {1, 2, 3}, {}});
  doc.gate = analysis::GateSummary{};
  const std::string page = render_html(doc);
  EXPECT_NE(page.find("PASS \xc2\xb7 gate passed (1 finding)"), std::string::npos);
  EXPECT_NE(page.find("<dd>/bin/app</dd>"), std::string::npos);
  EXPECT_NE(page.find("<dt>PID</dt><dd>77</dd>"), std::string::npos);
  EXPECT_NE(page.find("<dt>Snapshots</dt><dd>3</dd>"), std::string::npos);
  EXPECT_NE(page.find("<dt>Frames</dt><dd>10 \xe2\x80\x93 30</dd>"), std::string::npos);
  EXPECT_NE(page.find("<span class=\"vk-status\">baseline</span>"), std::string::npos);
  EXPECT_NE(page.find("a <span class=\"vk-more\">+4 more</span>"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"vk-callsite\"><code title=\"make_view (app.cpp:12)\">make_view "
                      "(app.cpp:12)</code>"),
            std::string::npos);
  EXPECT_NE(page.find("<li><code>main (app.cpp:40)</code></li>"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"vk-frames\">10 \xe2\x80\x93 30</td>"), std::string::npos);
  EXPECT_EQ(series_paths(chart(page, "chart-live")).size(), 1u);
  EXPECT_NE(page.find("VkBuffer frame.buffer.* @ make_buffer"), std::string::npos);
  const std::string chains = chart(page, "chart-chains");
  EXPECT_EQ(count(chains, "<g class=\"vk-chain-link\""), 3u);
  EXPECT_NE(chains.find("holds 4.0 KiB"), std::string::npos);
  EXPECT_NE(chains.find("id 4 \xc2\xb7 4.0 KiB \xc2\xb7 retained"), std::string::npos);
  EXPECT_EQ(count(chains, "class=\"vk-box vk-role-memory vk-destroyed\""), 1u);
}

TEST(HtmlReport, SeveralRunsShowTheFirstAndListEveryFinding) {
  ReportDocument doc = doc_of({finding(FindingKind::kGrowth)});
  doc.runs.back().executable = "/bin/first";
  doc.runs.emplace_back();
  doc.runs.back().executable = "/bin/second";
  doc.runs.back().findings = {finding(FindingKind::kRetained), finding(FindingKind::kRetained)};
  const std::string page = render_html(doc);
  EXPECT_NE(page.find("<dt>Runs</dt><dd>2 (the first is shown)</dd>"), std::string::npos);
  EXPECT_NE(page.find("<dd>/bin/first</dd>"), std::string::npos);
  EXPECT_EQ(page.find("/bin/second"), std::string::npos);
  EXPECT_EQ(count(page, "<tr class=\"vk-finding "), 3u);
}

TEST(HtmlReport, FailingGateFails) {
  ReportDocument doc = doc_of({});
  doc.gate = analysis::GateSummary{};
  doc.gate->pass = false;
  const std::string page = render_html(doc);
  EXPECT_NE(page.find("vk-badge vk-fail\" id=\"verdict\">FAIL \xc2\xb7 gate failed"),
            std::string::npos);
}

// A run not checked whole never shows PASS: with a gate's verdict or without one, the badge says
// INCOMPLETE and the header lists why, escaped.
TEST(HtmlReport, IncompleteRunNeverPasses) {
  for (const bool gate : {true, false}) {
    ReportDocument doc = doc_of({});
    doc.runs.back().pid = 9;
    doc.runs.back().incomplete = {"the run crashed (SIGSEGV) at frame 3 <b>"};
    if (gate) {
      doc.gate = analysis::GateSummary{};
      doc.gate->incomplete_runs = 1;
    }
    const std::string page = render_html(doc);
    EXPECT_NE(page.find("id=\"verdict\">INCOMPLETE \xc2\xb7 run not checked whole"),
              std::string::npos);
    EXPECT_EQ(page.find("PASS \xc2\xb7"), std::string::npos);
    EXPECT_NE(page.find("<li>pid 9: the run crashed (SIGSEGV) at frame 3 &lt;b&gt;</li>"),
              std::string::npos);
  }
}

// Every kind of the one kinds list has its card, tag, class and colour on the page.
TEST(HtmlReport, EveryKindHasItsCardTagAndColour) {
  std::vector<Finding> findings;
  for (const analysis::KindInfo& k : analysis::kKinds) findings.push_back(finding(k.kind));
  const std::string page = render_html(doc_of(findings));
  for (const analysis::KindInfo& k : analysis::kKinds) {
    SCOPED_TRACE(k.name);
    const std::string cls = std::string("vk-kind-") + k.name;
    const size_t card = page.find("<div class=\"vk-card " + cls + "\" data-kind=\"" + k.name +
                                  "\" title=\"" + html_text(k.summary) + "\">");
    ASSERT_NE(card, std::string::npos);
    EXPECT_NE(page.find("<span class=\"vk-card-label\">" + html_text(k.title) + "</span>", card),
              std::string::npos);
    EXPECT_NE(page.find("class=\"vk-finding " + cls + "\""), std::string::npos);
    EXPECT_NE(page.find("." + cls + " { --kind:#"), std::string::npos) << "no colour in the style";
  }
  // The cards come in summary_rank order.
  std::vector<std::pair<int, size_t>> cards;
  for (const analysis::KindInfo& k : analysis::kKinds) {
    cards.emplace_back(k.summary_rank,
                       page.find(std::string("<div class=\"vk-card vk-kind-") + k.name + "\""));
  }
  std::sort(cards.begin(), cards.end());
  for (size_t i = 1; i < cards.size(); ++i) EXPECT_LT(cards[i - 1].second, cards[i].second);
}

// --- charts ----------------------------------------------------------------------------------

TEST(HtmlCharts, OneLinePerTypeWithLegendAxesAndTitle) {
  const ReportDocument doc =
      series_doc({10, 20, 30, 40}, {{"VkBuffer", {1, 2, 3, 4}, {10, 20, 30, 40}},
                                    {"VkImage", {5, 5, 5, 5}, {0, 0, 0, 0}},
                                    {"VkFence", {2, 1, 2, 1}, {}}});
  const std::string page = render_html(doc);
  const std::string live = chart(page, "chart-live");
  ASSERT_FALSE(live.empty());
  EXPECT_NE(page.find("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"vk-chart\" "
                      "id=\"chart-live\" role=\"img\" aria-label=\"Live objects per type"),
            std::string::npos);
  EXPECT_NE(live.find("<title id=\"chart-live-title\">Live objects per type"), std::string::npos);
  EXPECT_EQ(series_paths(live).size(), 3u);
  for (const char* type : {"VkBuffer", "VkImage", "VkFence"}) {
    EXPECT_NE(live.find("data-series=\"" + std::string(type) + "\""), std::string::npos) << type;
  }
  EXPECT_EQ(count(live, "class=\"vk-legend-item\""), 3u);
  EXPECT_NE(live.find(">frame</text>"), std::string::npos);
  EXPECT_NE(live.find(">live objects</text>"), std::string::npos);
  EXPECT_GE(count(live, "class=\"vk-tick-label\""), 6u);
  // Bytes: only the types that have any.
  const std::string bytes = chart(page, "chart-bytes");
  EXPECT_EQ(series_paths(bytes).size(), 1u);
  EXPECT_NE(bytes.find("data-series=\"VkBuffer\""), std::string::npos);
}

TEST(HtmlCharts, PathsFollowTheValues) {
  const std::string page = render_html(series_doc({0, 10, 20}, {{"VkBuffer", {0, 50, 100}, {}}}));
  const auto paths = series_paths(chart(page, "chart-live"));
  ASSERT_EQ(paths.size(), 1u);
  const auto p = points(paths[0]);
  ASSERT_EQ(p.size(), 3u);
  // Left to right, evenly spaced, rising (SVG y grows downwards), the top value at the top of
  // the plot area (100 is a tick) and 0 on the x axis.
  EXPECT_LT(p[0].x, p[1].x);
  EXPECT_NEAR(p[1].x - p[0].x, p[2].x - p[1].x, 0.11);
  EXPECT_GT(p[0].y, p[1].y);
  EXPECT_GT(p[1].y, p[2].y);
  EXPECT_NEAR(p[2].y, 24, 0.11);
  EXPECT_NEAR(p[0].y, 340 - 52, 0.11);
}

TEST(HtmlCharts, IdenticalSeriesShareOneLine) {
  // A buffer per allocation: the same counts, and one line would hide the other.
  const std::string live =
      chart(render_html(series_doc({1, 2, 3}, {{"VkBuffer", {1, 2, 3}, {}},
                                               {"VkDeviceMemory", {1, 2, 3}, {}},
                                               {"VkFence", {1, 1, 1}, {}}})),
            "chart-live");
  EXPECT_EQ(series_paths(live).size(), 2u);
  EXPECT_EQ(count(live, "class=\"vk-legend-item\""), 2u);
  EXPECT_NE(live.find(">= VkDeviceMemory</tspan>"), std::string::npos);
  EXPECT_NE(live.find("<title>VkBuffer = VkDeviceMemory (last: 3)</title>"), std::string::npos);
}

TEST(HtmlCharts, ALongLegendMakesTheChartTaller) {
  std::vector<TypeValues> types;
  for (uint64_t i = 0; i < 60; ++i)
    types.push_back({"VkType" + std::to_string(i), {i % 8 + 1, 2}, {}});
  const std::string live = chart(render_html(series_doc({1, 2}, types)), "chart-live");
  static const std::regex kHeight("viewBox=\"0 0 960 ([0-9]+)\"");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(live, m, kHeight));
  EXPECT_GT(std::stoi(m[1]), 340);
  EXPECT_EQ(series_paths(live).size(), 8u);  // 60 types, 8 distinct series
  EXPECT_EQ(count(live, " more types</tspan>"), 8u);
}

TEST(HtmlReport, TableShowsCallSitesWithoutDirectories) {
  const std::string text = "f(int) (/very/long/path/src/file.cpp:42)";
  analysis::Frame located = frame(text);
  located.function = "f(int)";
  located.file = "/very/long/path/src/file.cpp";
  located.line = 42;
  Finding f = finding(FindingKind::kGrowth);
  f.callsite = {located};
  const std::string page = render_html(doc_of({f}));
  EXPECT_NE(page.find("<code title=\"" + text + "\">f(int) (file.cpp:42)</code>"),
            std::string::npos);
  EXPECT_NE(page.find("<li><code>" + text + "</code></li>"), std::string::npos);
  // Without a function: the frame as it is.
  f.callsite = {frame("0x1234 (a/b)x")};
  const std::string plain = render_html(doc_of({f}));
  EXPECT_NE(plain.find(">0x1234 (a/b)x</code></td>"), std::string::npos);
}

TEST(HtmlCharts, ManyTypesFoldIntoOther) {
  std::vector<TypeValues> types;
  for (uint64_t i = 0; i < 12; ++i)
    types.push_back({"VkType" + std::to_string(i), {i + 1, i + 2}, {}});
  const std::string live = chart(render_html(series_doc({1, 2}, types)), "chart-live");
  EXPECT_EQ(series_paths(live).size(), 9u);
  EXPECT_NE(live.find("data-series=\"other (4 types)\""), std::string::npos);
  // The biggest types are the ones drawn.
  EXPECT_NE(live.find("data-series=\"VkType11\""), std::string::npos);
  EXPECT_EQ(live.find("data-series=\"VkType0\""), std::string::npos);
}

TEST(HtmlCharts, OneSnapshotIsDrawnAsPoints) {
  const std::string page =
      render_html(series_doc({100}, {{"VkBuffer", {3}, {}}, {"VkImage", {7}, {}}}));
  const std::string live = chart(page, "chart-live");
  EXPECT_TRUE(series_paths(live).empty());
  EXPECT_EQ(count(live, "<circle class=\"vk-point\""), 2u);
  EXPECT_NE(live.find(">100</text>"), std::string::npos);  // the one frame is labelled
  EXPECT_NE(page.find("Only one snapshot"), std::string::npos);
}

TEST(HtmlCharts, WithoutFramesTheAxisCountsSnapshots) {
  const std::string live =
      chart(render_html(series_doc({}, {{"VkBuffer", {1, 2, 3}, {}}})), "chart-live");
  EXPECT_EQ(series_paths(live).size(), 1u);
  EXPECT_NE(live.find(">snapshot</text>"), std::string::npos);
}

TEST(HtmlCharts, TopGrowingGroupsAsSmallMultiples) {
  ReportDocument doc = series_doc({1, 2, 3}, {});
  for (uint64_t i = 0; i < 8; ++i) {
    doc.runs.back().series.groups.push_back({"group", std::to_string(i), "", {0, i, 2 * i}, {}});
  }
  const std::string page = render_html(doc);
  const std::string multiples = element(page, "id=\"chart-groups\"", "<section");
  EXPECT_EQ(count(multiples, "class=\"vk-chart vk-group-chart\""), 6u);
  // Most growth first: group 7 is chart 1; groups 0 and 1 grew least and are left out.
  EXPECT_NE(chart(page, "chart-group-1").find("group 7"), std::string::npos);
  EXPECT_EQ(multiples.find("group 0"), std::string::npos);
  EXPECT_EQ(multiples.find("group 1 "), std::string::npos);
  EXPECT_EQ(count(multiples, "<title id=\"chart-group-"), 6u);
}

// --- the chain diagram -----------------------------------------------------------------------

TEST(HtmlChains, BoxesAndArrowsForEachChain) {
  const std::string page = render_html(html_test::incident_fixture());
  const std::string chains = chart(page, "chart-chains");
  ASSERT_FALSE(chains.empty());
  EXPECT_NE(chains.find("role=\"img\""), std::string::npos);
  EXPECT_EQ(count(chains, "<g class=\"vk-chain\""), 3u);
  const std::string first = element(chains, "<g class=\"vk-chain\" id=\"chain-4\"", "</g>\n</g>");
  EXPECT_EQ(count(first, "<g class=\"vk-chain-link\""), 3u);
  EXPECT_EQ(count(first, "<line class=\"vk-arrow\""), 2u);
  EXPECT_NE(first.find("data-type=\"VkBufferView\""), std::string::npos);
  EXPECT_NE(first.find("vk-role-view"), std::string::npos);
  EXPECT_NE(first.find("vk-role-memory"), std::string::npos);
  EXPECT_NE(first.find("id 18 \xc2\xb7 4.0 MiB"), std::string::npos);
  EXPECT_NE(first.find("holds 20.0 MiB"), std::string::npos);
  // A destroyed link is drawn dashed.
  EXPECT_EQ(count(chains, "class=\"vk-box vk-role-view vk-destroyed\""), 1u);
  // The findings table links to the diagram.
  EXPECT_NE(page.find("<a href=\"#chain-4\">"), std::string::npos);
}

TEST(HtmlChains, LongChainsAreElided) {
  Chain chain;
  for (uint64_t i = 0; i < 9; ++i) chain.links.push_back(link("VkBuffer", i));
  Finding f = finding(FindingKind::kRetained);
  f.chains = {chain};
  const std::string chains = chart(render_html(doc_of({f})), "chart-chains");
  EXPECT_EQ(count(chains, "<g class=\"vk-chain-link\""), 5u);
  EXPECT_NE(chains.find("\xe2\x80\xa6 4 more"), std::string::npos);
}

TEST(HtmlChains, AFindingDrawsThreeOfItsChains) {
  std::vector<Chain> chains;
  for (uint64_t i = 0; i < 7; ++i) chains.push_back(Chain{{link("VkBufferView", i)}, 1024});
  Finding stale = finding(FindingKind::kStaleView);
  stale.chains = chains;
  Finding retained = finding(FindingKind::kRetained);
  retained.chains = chains;
  const std::string page = render_html(doc_of({stale, retained}));
  const std::string diagram = chart(page, "chart-chains");
  EXPECT_EQ(count(diagram, "<g class=\"vk-chain\""), 6u);
  EXPECT_EQ(count(diagram, "(+4 more like it)"), 2u);
  EXPECT_NE(diagram.find("id=\"chain-2-3\""), std::string::npos);
  // The details list five, link the three drawn, and count the rest.
  EXPECT_EQ(count(page, "<dt>Chain</dt>"), 10u);
  EXPECT_EQ(count(page, "(diagram)</a>"), 6u);
  EXPECT_EQ(count(page, "and 2 more chains"), 2u);
}

TEST(HtmlChains, NoChainsNoDiagram) {
  const std::string page = render_html(doc_of({finding(FindingKind::kGrowth)}));
  EXPECT_EQ(page.find("chart-chains"), std::string::npos);
}

// --- the table, the summary and number formats -----------------------------------------------

TEST(HtmlReport, FindingsTableKeepsTheRankingAndFormatsNumbers) {
  const ReportDocument doc = html_test::incident_fixture();
  const std::vector<analysis::Finding>& findings = doc.runs.front().findings;
  const std::string page = render_html(doc);
  EXPECT_EQ(count(page, "<tr class=\"vk-finding "), findings.size());
  size_t last = 0;
  for (size_t i = 0; i < findings.size(); ++i) {
    const size_t pos = page.find("id=\"finding-" + std::to_string(i + 1) + "\" data-kind=\"" +
                                 analysis::kind_name(findings[i].kind) + "\"");
    ASSERT_NE(pos, std::string::npos) << i;
    EXPECT_GT(pos, last);
    last = pos;
  }
  EXPECT_NE(page.find("<td class=\"vk-num vk-bytes\" title=\"19660800 bytes\">18.8 MiB</td>"),
            std::string::npos);
  EXPECT_NE(page.find("<td class=\"vk-frames\">20 \xe2\x80\x93 300</td>"), std::string::npos);
  // Innermost call site in the table, the full one in the details.
  EXPECT_NE(page.find(">GpuBuffer::GpuBuffer() (incident1_wrapper_growth.cpp:42)</code></td>"),
            std::string::npos);
  EXPECT_NE(page.find("<li><code>main (incident1_wrapper_growth.cpp:131)</code></li>"),
            std::string::npos);
  EXPECT_NE(page.find("FAIL \xc2\xb7 8 findings"), std::string::npos);
  EXPECT_NE(page.find("data-kind=\"growth\" title=\"count or bytes keep rising"),
            std::string::npos);
  EXPECT_NE(page.find("<title>vkleak report: incidents_1_2_5</title>"), std::string::npos);
}

TEST(HtmlReport, CountsAndHugeNumbers) {
  Finding f = finding(FindingKind::kGrowth);
  f.count = 1234567;
  f.bytes = UINT64_MAX;
  f.frames.first = 5;
  f.frames.last = 5;
  const std::string page = render_html(doc_of({f}));
  EXPECT_NE(page.find(">1,234,567</td>"), std::string::npos);
  // UINT64_MAX is where saturating sums stop: shown as at least that much.
  EXPECT_NE(page.find("title=\"18446744073709551615 bytes\">&gt;= 16.0 EiB</td>"),
            std::string::npos);
  EXPECT_NE(page.find("<td class=\"vk-frames\">5</td>"), std::string::npos);
}

TEST(HtmlTicks, NiceSteps) {
  html::Ticks t = html::nice_ticks(0, 300, 6, false);
  EXPECT_EQ(t.step, 50);
  EXPECT_EQ(t.first, 0);
  EXPECT_EQ(t.count, 7);
  t = html::nice_ticks(20, 300, 8, false);
  EXPECT_EQ(t.step, 50);
  EXPECT_EQ(t.first, 50);
  EXPECT_EQ(t.count, 6);
  t = html::nice_ticks(0, 3, 6, false);  // never below 1: frames and counts are whole
  EXPECT_EQ(t.step, 1);
  t = html::nice_ticks(0, 19660800, 6, true);
  EXPECT_EQ(t.step, 4 << 20);
  t = html::nice_ticks(0, 3u << 30, 6, true);
  EXPECT_EQ(t.step, 512 << 20);
  t = html::nice_ticks(5, 5, 6, false);
  EXPECT_EQ(t.count, 1);
  t = html::nice_ticks(0, NAN, 6, false);
  EXPECT_EQ(t.count, 1);
}

TEST(HtmlTicks, Labels) {
  EXPECT_EQ(html::tick_label(0, true), "0");
  EXPECT_EQ(html::tick_label(512, true), "512 B");
  EXPECT_EQ(html::tick_label(4 << 20, true), "4 MiB");
  EXPECT_EQ(html::tick_label(1.5 * (1 << 30), true), "1.5 GiB");
  EXPECT_EQ(html::tick_label(1500, false), "1,500");
  EXPECT_EQ(html::tick_label(2.5, false), "2.5");
}

}  // namespace
}  // namespace vkleak

namespace vkleak {
namespace {

TEST(HtmlReport, MisuseFindingsShowTheirStacks) {
  const std::string page = render_html(doc_of({html_test::misuse_finding()}));
  EXPECT_NE(page.find("<dt>destroyed here</dt><dd class=\"vk-misuse-stack\"><ol class=\"vk-stack\" "
                      "start=\"0\"><li><code>drop&lt;script&gt; (/src/app.cpp:30) (inlined)"
                      "</code></li></ol></dd>"),
            std::string::npos);
  EXPECT_NE(page.find("<dt>while in use by</dt><dd class=\"vk-misuse-stack\"><div "
                      "class=\"vk-stack-line\">queue 0, submission 7, frame 40</div></dd>"),
            std::string::npos);
  EXPECT_NE(page.find("<div class=\"vk-more\">at frame 3; stack not recorded</div>"),
            std::string::npos);
  EXPECT_EQ(page.find("<script>"), std::string::npos);
}

TEST(HtmlReport, NameSeriesShowAsRanges) {
  const std::string page = render_html(doc_of({html_test::misuse_finding()}));
  EXPECT_NE(page.find("<td class=\"vk-names\">thumb.{0..299}</td>"), std::string::npos);
  EXPECT_EQ(page.find("thumb.150"), std::string::npos) << "not a 300-name line";
}

// Findings about the same objects: one problem row with its findings under it, where its
// best-ranked finding would be, and the total card counts each object once.
TEST(HtmlReport, FindingsOfOneProblemShowTogether) {
  const auto with_objects = [](FindingKind kind, uint64_t first, uint64_t end, uint64_t bytes) {
    Finding f = finding(kind);
    f.object_type = "VkBuffer";
    for (uint64_t id = first; id < end; ++id) f.objects.emplace_back(id, bytes);
    f.count = end - first;
    f.bytes = f.count * bytes;
    return f;
  };
  // Ranked: growth (300 buffers), retained (other 100), leak at exit (200 of the growth's).
  ReportDocument doc = doc_of({with_objects(FindingKind::kGrowth, 0, 300, 65536),
                               with_objects(FindingKind::kRetained, 1000, 1100, 65536),
                               with_objects(FindingKind::kLeakAtExit, 100, 300, 65536)});
  analysis::assign_problems(&doc.runs.back());
  const std::string page = render_html(doc);
  EXPECT_EQ(count(page, "<tr class=\"vk-finding "), 3u);
  EXPECT_EQ(count(page, "<tr class=\"vk-problem\""), 1u);
  const size_t problem =
      page.find("<tr class=\"vk-problem\" id=\"problem-1\" data-kinds=\"growth leak_at_exit\">");
  const size_t growth = page.find("id=\"finding-1\" data-kind=\"growth\"");
  const size_t leak = page.find("id=\"finding-3\" data-kind=\"leak_at_exit\"");
  const size_t retained = page.find("id=\"finding-2\" data-kind=\"retained\"");
  ASSERT_NE(problem, std::string::npos);
  ASSERT_NE(growth, std::string::npos);
  ASSERT_NE(leak, std::string::npos);
  ASSERT_NE(retained, std::string::npos);
  EXPECT_LT(problem, growth);
  EXPECT_LT(growth, leak) << "the problem's findings together";
  EXPECT_LT(leak, retained);
  EXPECT_NE(page.find("One problem, 2 kinds: Growth + Leak at exit</span> <span "
                      "class=\"vk-problem-sub\">300 objects \xc2\xb7 18.8 MiB counted once"),
            std::string::npos);
  EXPECT_NE(page.find("class=\"vk-finding vk-kind-leak_at_exit vk-in-problem\""),
            std::string::npos);
  EXPECT_NE(page.find("class=\"vk-finding vk-kind-retained\" id=\"finding-2\""), std::string::npos)
      << "a problem of one finding is just its row";
  // 400 buffers (300 + 100), 25.0 MiB; the findings' sum would be 600 and 37.5 MiB.
  EXPECT_NE(page.find("<span class=\"vk-card-n\">25.0 MiB</span><span class=\"vk-card-label\">in "
                      "findings</span><span class=\"vk-card-sub\">400 objects, 2 problems, 3 "
                      "findings</span>"),
            std::string::npos);
}

}  // namespace
}  // namespace vkleak
