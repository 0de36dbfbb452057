// Unit tests of the HTML report renderer: escaping, empty and malformed input, the charts (one
// line per type, legends, axes, single snapshots, gaps), the chain diagram and number formats.
#include "html/html_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <random>
#include <regex>
#include <string>
#include <vector>

namespace vkleak {
namespace {

using nlohmann::json;

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

json series_doc(const json& frames, const json& types) {
  return {{"format", "vkleak-findings"},
          {"version", 1},
          {"findings", json::array()},
          {"series", {{"frames", frames}, {"types", types}}}};
}

json load_fixture() {
  std::ifstream in(VKLEAK_HTML_TEST_DATA "/findings.json");
  return json::parse(in);
}

// --- escaping --------------------------------------------------------------------------------

TEST(HtmlEscape, MarkupCharactersBecomeEntities) {
  EXPECT_EQ(html::escape("<script>alert(\"x\")</script>"),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
  EXPECT_EQ(html::escape("a & 'b'"), "a &amp; &#39;b&#39;");
}

TEST(HtmlEscape, ControlsAreVisibleAndBadUtf8IsReplaced) {
  EXPECT_EQ(html::escape("red\x1b[31m"), "red\\x1b[31m");
  EXPECT_EQ(html::escape(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(html::escape("\xff"), "\xef\xbf\xbd");
  EXPECT_EQ(html::escape("\xc3"), "\xef\xbf\xbd");  // truncated sequence
  EXPECT_EQ(html::escape("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // surrogate
  EXPECT_EQ(html::escape("\xc2\x9b"), "\\u009b");                                   // C1 CSI
  EXPECT_EQ(html::escape("caf\xc3\xa9 \xf0\x9f\x98\x80"), "caf\xc3\xa9 \xf0\x9f\x98\x80");
  EXPECT_EQ(html::escape("tab\tnewline\n"), "tab\tnewline\n");
}

TEST(HtmlEscape, BidiAndInvisibleCodePointsAreShown) {
  EXPECT_EQ(html::escape("ok\u202e\u2066exe\u2069\u2028"),
            "ok&lt;U+202E&gt;&lt;U+2066&gt;exe&lt;U+2069&gt;&lt;U+2028&gt;");
  EXPECT_EQ(html::escape("z\u200bw\ufeff\U000e0041"),
            "z&lt;U+200B&gt;w&lt;U+FEFF&gt;&lt;U+E0041&gt;");
}

TEST(HtmlReport, LongNamesAreCut) {
  const std::string huge(1'000'000, 'n');
  const std::string page =
      render_html({{"findings",
                    {{{"kind", "leak_at_exit"},
                      {"names", {huge, "b", "c", "d"}},
                      {"callsite", {huge}},
                      {"examples", {{{"id", 1}, {"handle", "0x1"}, {"name", huge}}}}}}}});
  EXPECT_LT(page.size(), 200'000u);
  EXPECT_NE(page.find(std::string(200, 'n') + "\xe2\x80\xa6 (1,000,000 bytes)"), std::string::npos);
}

TEST(HtmlReport, UserStringsNeverBecomeMarkup) {
  const std::string evil = "<script>alert(1)</script>";
  const std::string attr = "x\" onmouseover=\"alert(2)";
  json doc = {{"run", {{"executable", "/bin/" + evil}, {"generated", attr}}},
              {"findings",
               {{{"kind", attr},
                 {"object_type", evil},
                 {"names", {evil, attr}},
                 {"callsite", {evil}},
                 {"message", evil},
                 {"chain", {{{"type", evil}, {"name", attr}, {"id", 1}}}},
                 {"examples", {{{"id", 1}, {"handle", evil}, {"name", attr}}}}}}},
              {"series",
               {{"frames", {1, 2, 3}},
                {"types", {{evil, {{"live", {1, 2, 3}}, {"bytes", {1, 2, 3}}}}}},
                {"groups", {{{"label", evil}, {"live", {1, 2, 3}}}}}}}};
  const std::string page = render_html(doc);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("onmouseover=\""), std::string::npos);
  EXPECT_EQ(page.find("\" onmouseover"), std::string::npos);
  EXPECT_GE(count(page, "&lt;script&gt;alert(1)&lt;/script&gt;"), 8u);
  EXPECT_GE(count(page, "x&quot; onmouseover=&quot;alert(2)"), 3u);
  // An unknown kind is shown, but never used as a class name.
  EXPECT_NE(page.find("class=\"vk-finding vk-kind-other\""), std::string::npos);
}

TEST(HtmlReport, ContentSecurityPolicyForbidsScriptsAndNetwork) {
  const std::string page = render_html(json::object());
  EXPECT_NE(page.find("Content-Security-Policy\" content=\"default-src 'none'"), std::string::npos);
  EXPECT_EQ(page.find("http://"), std::string::npos);
  EXPECT_EQ(page.find("https://"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
}

// --- empty and malformed documents -----------------------------------------------------------

TEST(HtmlReport, NoFindingsIsAFriendlyPass) {
  for (const json& doc :
       {json(), json::object(), json::array(), json("text"), json(42),
        json{{"format", "vkleak-findings"}, {"version", 1}, {"findings", json::array()}},
        json{{"findings", "not a list"}, {"run", json::array()}, {"series", 7}}}) {
    SCOPED_TRACE(doc.dump());
    const std::string page = render_html(doc);
    EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_NE(page.find("</html>"), std::string::npos);
    EXPECT_NE(page.find("id=\"no-findings\">No leaks found"), std::string::npos);
    EXPECT_NE(page.find("vk-badge vk-pass"), std::string::npos);
    EXPECT_EQ(page.find("<svg"), std::string::npos);
    EXPECT_NE(page.find("id=\"no-series\""), std::string::npos);
  }
}

TEST(HtmlReport, WrongTypesAreLeftOut) {
  json doc = {{"findings",
               {{{"kind", "growth"},
                 {"object_type", 17},
                 {"count", "300"},
                 {"bytes", -5},
                 {"names", {1, "real.name", nullptr}},
                 {"frames", {"a", 20}},
                 {"chain", {"x", {{"type", "VkBuffer"}}}}},
                "not an object"}}};
  std::string page;
  ASSERT_NO_THROW(page = render_html(doc));
  EXPECT_EQ(count(page, "<tr class=\"vk-finding "), 1u);
  EXPECT_NE(page.find("<td class=\"vk-num vk-count\"></td>"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"vk-names\">real.name</td>"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"vk-frames\">20</td>"), std::string::npos);
  EXPECT_EQ(count(page, "<g class=\"vk-chain-link\""), 1u);
}

TEST(HtmlReport, ForeignOrNewerDocumentsAreFlagged) {
  EXPECT_NE(render_html({{"format", "something-else"}}).find("id=\"format-warning\""),
            std::string::npos);
  EXPECT_NE(render_html({{"format", "vkleak-findings"}, {"version", 2}}).find("version 2"),
            std::string::npos);
  EXPECT_EQ(render_html({{"format", "vkleak-findings"}, {"version", 1}}).find("format-warning"),
            std::string::npos);
}

TEST(HtmlReport, RandomlyDamagedDocumentsStillRender) {
  // Replace values anywhere in the fixture by values of other types: never a throw.
  const json fixture = load_fixture();
  const std::vector<json> replacements = {nullptr,
                                          -1,
                                          1.5e300,
                                          "<b>",
                                          json::array(),
                                          json::object(),
                                          true,
                                          UINT64_MAX,
                                          json::array({nullptr})};
  std::mt19937 rng(1234);
  for (int round = 0; round < 300; ++round) {
    json damaged = fixture;
    for (int k = 0; k < 6; ++k) {
      // A random leaf or one of its ancestors (whole findings, series, chains...).
      const json flat = damaged.flatten();
      std::vector<std::string> leaves;
      for (const auto& item : flat.items()) leaves.push_back(item.key());
      if (leaves.empty()) break;
      json::json_pointer ptr(leaves[rng() % leaves.size()]);
      for (int up = static_cast<int>(rng() % 4); up > 0 && !ptr.empty(); --up) {
        ptr = ptr.parent_pointer();
      }
      damaged[ptr] = replacements[rng() % replacements.size()];
    }
    std::string page;
    ASSERT_NO_THROW(page = render_html(damaged)) << damaged.dump();
    ASSERT_NE(page.find("</html>"), std::string::npos);
    static const std::regex kNotANumber("[=\"( ]-?(nan|inf)\\b");
    ASSERT_FALSE(std::regex_search(page, kNotANumber)) << damaged.dump();
  }
}

// The shape `vkleak report --format json` writes: call-site frames as objects, frames as
// {"first", "last"}, "chains" with "links", series types as a list, groups by their parts,
// "runs" instead of "run", a gate verdict.
TEST(HtmlReport, ReadsTheAnalysisOutputShape) {
  const json doc = {
      {"format", "vkleak-findings"},
      {"version", 1},
      {"gate", {{"result", "pass"}}},
      {"runs",
       {{{"pid", 77},
         {"executable", "/bin/app"},
         {"snapshots", {{{"frame", 10}}, {{"frame", 30}}, {{"frame", 20}}}}}}},
      {"series",
       {{"frames", {10, 20, 30}},
        {"types", {{{"type", "VkBuffer"}, {"live", {1, 2, 3}}, {"bytes", {4, 5, 6}}}}},
        {"groups",
         {{{"object_type", "VkBuffer"},
           {"name_pattern", "frame.buffer.*"},
           {"function", "make_buffer"},
           {"live", {1, 2, 3}}}}}}},
      {"findings",
       {{{"kind", "stale_view"},
         {"status", "baseline"},
         {"object_type", "VkBufferView"},
         {"names", {"a"}},
         {"names_omitted", 4},
         {"callsite",
          {{{"text", "make_view (app.cpp:12)"}, {"function", "make_view"}},
           {{"text", "main (app.cpp:40)"}}}},
         {"frames", {{"first", 10}, {"last", 30}, {"last_used", 12}}},
         {"chains",
          {{{"bytes", 4096},
            {"links",
             {{{"id", 5}, {"type", "VkBufferView"}, {"state", "live"}},
              {{"id", 4}, {"type", "VkBuffer"}, {"state", "retained"}, {"bytes", 4096}},
              {{"id", 3}, {"type", "VkDeviceMemory"}, {"state", "destroyed"}}}}}}}}}}};
  const std::string page = render_html(doc);
  EXPECT_NE(page.find("PASS \xc2\xb7 gate passed (1 finding)"), std::string::npos);
  EXPECT_NE(page.find("<dd>/bin/app</dd>"), std::string::npos);
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

TEST(HtmlReport, FailingGateFails) {
  const std::string page =
      render_html({{"gate", {{"result", "fail"}}}, {"findings", json::array()}});
  EXPECT_NE(page.find("vk-badge vk-fail\" id=\"verdict\">FAIL \xc2\xb7 gate failed"),
            std::string::npos);
}

// A run not checked whole never shows PASS: with a gate's verdict or without one, the badge says
// INCOMPLETE and the header lists why, escaped.
TEST(HtmlReport, IncompleteRunNeverPasses) {
  const json runs = {{{"pid", 9},
                      {"incomplete", {"the run crashed (SIGSEGV) at frame 3 <b>"}},
                      {"snapshots", json::array()}}};
  for (const json& gate : {json{{"result", "incomplete"}}, json(nullptr)}) {
    json doc = {{"runs", runs}, {"findings", json::array()}};
    if (!gate.is_null()) doc["gate"] = gate;
    const std::string page = render_html(doc);
    EXPECT_NE(page.find("id=\"verdict\">INCOMPLETE \xc2\xb7 run not checked whole"),
              std::string::npos);
    EXPECT_EQ(page.find("PASS \xc2\xb7"), std::string::npos);
    EXPECT_NE(page.find("<li>pid 9: the run crashed (SIGSEGV) at frame 3 &lt;b&gt;</li>"),
              std::string::npos);
  }
}

// --- charts ----------------------------------------------------------------------------------

TEST(HtmlCharts, OneLinePerTypeWithLegendAxesAndTitle) {
  const json doc = series_doc({10, 20, 30, 40},
                              {{"VkBuffer", {{"live", {1, 2, 3, 4}}, {"bytes", {10, 20, 30, 40}}}},
                               {"VkImage", {{"live", {5, 5, 5, 5}}, {"bytes", {0, 0, 0, 0}}}},
                               {"VkFence", {{"live", {2, 1, 2, 1}}}}});
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
  const std::string page =
      render_html(series_doc({0, 10, 20}, {{"VkBuffer", {{"live", {0, 50, 100}}}}}));
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
      chart(render_html(series_doc({1, 2, 3}, {{"VkBuffer", {{"live", {1, 2, 3}}}},
                                               {"VkDeviceMemory", {{"live", {1, 2, 3}}}},
                                               {"VkFence", {{"live", {1, 1, 1}}}}})),
            "chart-live");
  EXPECT_EQ(series_paths(live).size(), 2u);
  EXPECT_EQ(count(live, "class=\"vk-legend-item\""), 2u);
  EXPECT_NE(live.find(">= VkDeviceMemory</tspan>"), std::string::npos);
  EXPECT_NE(live.find("<title>VkBuffer = VkDeviceMemory (last: 3)</title>"), std::string::npos);
}

TEST(HtmlCharts, ALongLegendMakesTheChartTaller) {
  json types = json::object();
  for (int i = 0; i < 60; ++i) types["VkType" + std::to_string(i)] = {{"live", {i % 8 + 1, 2}}};
  const std::string live = chart(render_html(series_doc({1, 2}, types)), "chart-live");
  static const std::regex kHeight("viewBox=\"0 0 960 ([0-9]+)\"");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(live, m, kHeight));
  EXPECT_GT(std::stoi(m[1]), 340);
  EXPECT_EQ(series_paths(live).size(), 8u);  // 60 types, 8 distinct series
  EXPECT_EQ(count(live, " more types</tspan>"), 8u);
}

TEST(HtmlReport, TableShowsCallSitesWithoutDirectories) {
  const std::string frame = "f(int) (/very/long/path/src/file.cpp:42)";
  const std::string page =
      render_html({{"findings", {{{"kind", "growth"}, {"callsite", {frame}}}}}});
  EXPECT_NE(page.find("<code title=\"" + frame + "\">f(int) (file.cpp:42)</code>"),
            std::string::npos);
  EXPECT_NE(page.find("<li><code>" + frame + "</code></li>"), std::string::npos);
  // Nothing to shorten: kept as is.
  const std::string plain = render_html({{"findings", {{{"callsite", {"0x1234 (a/b)x"}}}}}});
  EXPECT_NE(plain.find(">0x1234 (a/b)x</code></td>"), std::string::npos);
}

TEST(HtmlCharts, ManyTypesFoldIntoOther) {
  json types = json::object();
  for (int i = 0; i < 12; ++i) {
    types["VkType" + std::to_string(i)] = {{"live", {i + 1, i + 2}}};
  }
  const std::string live = chart(render_html(series_doc({1, 2}, types)), "chart-live");
  EXPECT_EQ(series_paths(live).size(), 9u);
  EXPECT_NE(live.find("data-series=\"other (4 types)\""), std::string::npos);
  // The biggest types are the ones drawn.
  EXPECT_NE(live.find("data-series=\"VkType11\""), std::string::npos);
  EXPECT_EQ(live.find("data-series=\"VkType0\""), std::string::npos);
}

TEST(HtmlCharts, OneSnapshotIsDrawnAsPoints) {
  const std::string page =
      render_html(series_doc({100}, {{"VkBuffer", {{"live", {3}}}}, {"VkImage", {{"live", {7}}}}}));
  const std::string live = chart(page, "chart-live");
  EXPECT_TRUE(series_paths(live).empty());
  EXPECT_EQ(count(live, "<circle class=\"vk-point\""), 2u);
  EXPECT_NE(live.find(">100</text>"), std::string::npos);  // the one frame is labelled
  EXPECT_NE(page.find("Only one snapshot"), std::string::npos);
}

TEST(HtmlCharts, MissingValuesBreakTheLine) {
  const std::string live =
      chart(render_html(series_doc({1, 2, 3, 4, 5, 6},
                                   {{"VkBuffer", {{"live", {1, 2, nullptr, 4, 5, 6}}}}})),
            "chart-live");
  const auto paths = series_paths(live);
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_EQ(count(paths[0], "M"), 2u);
  EXPECT_EQ(points(paths[0]).size(), 5u);
}

TEST(HtmlCharts, WithoutFramesTheAxisCountsSnapshots) {
  json doc = series_doc(nullptr, {{"VkBuffer", {{"live", {1, 2, 3}}}}});
  const std::string live = chart(render_html(doc), "chart-live");
  EXPECT_EQ(series_paths(live).size(), 1u);
  EXPECT_NE(live.find(">snapshot</text>"), std::string::npos);
}

TEST(HtmlCharts, TopGrowingGroupsAsSmallMultiples) {
  json doc = series_doc({1, 2, 3}, json::object());
  json groups = json::array();
  for (int i = 0; i < 8; ++i) {
    groups.push_back({{"label", "group " + std::to_string(i)}, {"live", {0, i, 2 * i}}});
  }
  doc["series"]["groups"] = groups;
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
  const std::string page = render_html(load_fixture());
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
  json chain = json::array();
  for (int i = 0; i < 9; ++i) chain.push_back({{"type", "VkBuffer"}, {"id", i}});
  const std::string chains = chart(
      render_html({{"findings", {{{"kind", "retained"}, {"chain", chain}}}}}), "chart-chains");
  EXPECT_EQ(count(chains, "<g class=\"vk-chain-link\""), 5u);
  EXPECT_NE(chains.find("\xe2\x80\xa6 4 more"), std::string::npos);
}

TEST(HtmlChains, AFindingDrawsThreeOfItsChains) {
  json chains = json::array();
  for (int i = 0; i < 7; ++i) {
    chains.push_back({{"bytes", 1024}, {"links", {{{"type", "VkBufferView"}, {"id", i}}}}});
  }
  const std::string page = render_html({{"findings",
                                         {{{"kind", "stale_view"}, {"chains", chains}},
                                          {{"kind", "retained"}, {"chains", chains}}}}});
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
  const std::string page = render_html({{"findings", {{{"kind", "growth"}}}}});
  EXPECT_EQ(page.find("chart-chains"), std::string::npos);
}

// --- the table, the summary and number formats -----------------------------------------------

TEST(HtmlReport, FindingsTableKeepsTheRankingAndFormatsNumbers) {
  const json doc = load_fixture();
  const std::string page = render_html(doc);
  EXPECT_EQ(count(page, "<tr class=\"vk-finding "), doc["findings"].size());
  size_t last = 0;
  for (size_t i = 0; i < doc["findings"].size(); ++i) {
    const size_t pos = page.find("id=\"finding-" + std::to_string(i + 1) + "\" data-kind=\"" +
                                 doc["findings"][i]["kind"].get<std::string>() + "\"");
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
  const std::string page = render_html({{"findings",
                                         {{{"kind", "growth"},
                                           {"count", 1234567},
                                           {"bytes", UINT64_MAX},
                                           {"frames", {1e300, 5}}}}}});
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

json misuse_doc() {
  json names = json::array();
  for (int i = 0; i < 300; ++i) names.push_back("thumb." + std::to_string(i));
  json frame = {{"text", "drop<script> (/src/app.cpp:30) (inlined)"}, {"inlined", true}};
  json finding = {{"kind", "destroyed_in_flight"},
                  {"object_type", "VkImage"},
                  {"count", 300},
                  {"names", names},
                  {"message", "VkImage \"thumb.0\" (id 12) destroyed"},
                  {"stacks",
                   {{{"label", "destroyed here"},
                     {"frames", {frame}},
                     {"lines", json::array()},
                     {"note", nullptr}},
                    {{"label", "while in use by"},
                     {"frames", json::array()},
                     {"lines", {"queue 0, submission 7, frame 40"}},
                     {"note", nullptr}},
                    {{"label", "created here"},
                     {"frames", json::array()},
                     {"lines", json::array()},
                     {"note", "at frame 3; stack not recorded"}}}}};
  return {{"format", "vkleak-findings"}, {"version", 1}, {"findings", {finding}}};
}

TEST(HtmlReport, MisuseFindingsShowTheirStacks) {
  const std::string page = render_html(misuse_doc());
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
  const std::string page = render_html(misuse_doc());
  EXPECT_NE(page.find("<td class=\"vk-names\">thumb.{0..299}</td>"), std::string::npos);
  EXPECT_EQ(page.find("thumb.150"), std::string::npos) << "not a 300-name line";
}

}  // namespace
}  // namespace vkleak
