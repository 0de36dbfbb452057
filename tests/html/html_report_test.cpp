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
#include "fixture.h"
#include "report/explorer_assets.h"
#include "shared/escape.h"

namespace vkleak {
namespace {

using report::render_html;
namespace html = report::html;

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

// The page without the two scripts it is meant to have: the explorer (exactly the embedded
// text) and the explorer's data block (JSON, not run); what is left must hold no <script.
std::string without_own_scripts(std::string page) {
  const std::string script = std::string("<script>") + explorer::kScript + "</script>";
  if (const size_t at = page.find(script); at != std::string::npos) page.erase(at, script.size());
  const std::string data = "<script type=\"application/json\" id=\"vkleak-explorer-data\">";
  if (const size_t at = page.find(data); at != std::string::npos) {
    page.erase(at, page.find("</script>", at) + 9 - at);
  }
  return page;
}

// SHA-256 (FIPS 180-4) and base64, to check the page's CSP hashes independently of embed.py.
std::string sha256(const std::string& text) {
  static constexpr uint32_t k[64] = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
      0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
      0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
      0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
      0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
      0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
      0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
      0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
      0xc67178f2};
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::string m = text;
  const uint64_t bits = static_cast<uint64_t>(text.size()) * 8;
  m += static_cast<char>(0x80);
  while (m.size() % 64 != 56) m += '\0';
  for (int i = 7; i >= 0; --i) m += static_cast<char>((bits >> (8 * i)) & 0xff);
  const auto rotr = [](uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
  for (size_t block = 0; block < m.size(); block += 64) {
    uint32_t w[64];
    for (int i = 0; i < 16; ++i) {
      w[i] = 0;
      for (int b = 0; b < 4; ++b) w[i] = (w[i] << 8) | static_cast<uint8_t>(m[block + 4 * i + b]);
    }
    for (int i = 16; i < 64; ++i) {
      const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; ++i) {
      const uint32_t t1 =
          hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
      const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
  }
  std::string digest;
  for (uint32_t v : h) {
    for (int i = 3; i >= 0; --i) digest += static_cast<char>((v >> (8 * i)) & 0xff);
  }
  return digest;
}

std::string base64(const std::string& bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[v & 63] : '=';
  }
  return out;
}

// The text between `open` and the next `close` after it, "" when absent.
std::string between(const std::string& page, const std::string& open, const std::string& close) {
  const size_t start = page.find(open);
  if (start == std::string::npos) return "";
  const size_t end = page.find(close, start + open.size());
  return end == std::string::npos ? ""
                                  : page.substr(start + open.size(), end - start - open.size());
}

using analysis::Chain;
using analysis::ChainLink;
using analysis::ChainState;
using analysis::Finding;
using analysis::FindingKind;
using analysis::GateStatus;
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

ChainLink link(const std::string& type, uint64_t id, ChainState state = ChainState::kLive,
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

// Issue 26: a long name pattern and a root's name were written whole, twice (data-name and the
// explorer's data): a 1 MB name made a 2.2 MB page.
TEST(HtmlReport, LongNamePatternsRootsAndGroupsAreCut) {
  const std::string huge(1'000'000, 'n');
  Finding f = finding(FindingKind::kLeakAtExit);
  f.name_pattern = huge;
  f.display_name = huge;
  f.names = {huge};
  f.message = "VkBuffer \"" + huge + "\" still alive";
  f.lifetime_group = 0;
  analysis::RetainerRoot root;
  root.id = 7;
  root.type = "VkDescriptorPool";
  root.name = huge;
  root.objects = 1;
  root.bytes = 10;
  f.retainers = {root};
  ReportDocument doc = doc_of({f});
  analysis::LifetimeGroup group;
  group.object_type = "VkBuffer";
  group.name_pattern = huge;
  doc.runs.back().lifetimes.groups = {group};
  const std::string page = render_html(doc);
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
  // The only script elements: the explorer and its data (i18-data); user text cannot close one.
  EXPECT_EQ(without_own_scripts(page).find("<script"), std::string::npos);
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_EQ(count(page, "<script"), 2u);
  EXPECT_EQ(count(page, "</script"), 2u);
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
  // The one URL: the SVG namespace's name, which explorer.js creates elements in (never loaded).
  std::string rest = page;
  for (size_t at; (at = rest.find("http://www.w3.org/2000/svg")) != std::string::npos;) {
    rest.erase(at, 26);
  }
  EXPECT_EQ(rest.find("http://"), std::string::npos);
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
          f.chains.push_back(Chain{
              {link(
                  "", number(),
                  static_cast<ChainState>(f.chains.size() % std::size(analysis::kChainStateNames)),
                  number())},
              number()});
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
  f.status = GateStatus::kBaseline;
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
  f.chains = {Chain{{link("VkBufferView", 5), link("VkBuffer", 4, ChainState::kRetained, 4096),
                     link("VkDeviceMemory", 3, ChainState::kDestroyed)},
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

// Issue 27: a gate's new problem is the first row, though a known one ranks above it.
TEST(HtmlReport, NewProblemsComeFirst) {
  Finding known = finding(FindingKind::kGrowth);
  known.object_type = "VkImage";
  known.status = GateStatus::kBaseline;
  Finding fresh = finding(FindingKind::kLeakAtExit);
  fresh.object_type = "VkSampler";
  fresh.status = GateStatus::kNew;
  ReportDocument doc = doc_of({known, fresh});
  doc.gate = analysis::GateSummary{};
  const std::string page = render_html(doc);
  EXPECT_LT(page.find("<td class=\"vk-type\">VkSampler</td>"),
            page.find("<td class=\"vk-type\">VkImage</td>"));
  doc.gate.reset();  // a report keeps the ranking
  const std::string report = render_html(doc);
  EXPECT_GT(report.find("<td class=\"vk-type\">VkSampler</td>"),
            report.find("<td class=\"vk-type\">VkImage</td>"));
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
    const size_t pos = page.find("data-rank=\"" + std::to_string(i + 1) + "\" data-kind=\"" +
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
  // A report is no gate: it says what it found, never FAIL.
  EXPECT_NE(page.find("vk-badge vk-found\" id=\"verdict\">"), std::string::npos);
  EXPECT_NE(page.find(" found \xc2\xb7 8 findings</span>"), std::string::npos);
  EXPECT_EQ(page.find(">FAIL"), std::string::npos);
  EXPECT_NE(page.find("data-kind=\"growth\" title=\"objects pile up: the live count keeps rising"),
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

using report::render_html;
namespace html = report::html;

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
  EXPECT_EQ(without_own_scripts(page).find("<script"), std::string::npos);
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
  const size_t growth = page.find("data-rank=\"1\" data-kind=\"growth\"");
  const size_t leak = page.find("data-rank=\"3\" data-kind=\"leak_at_exit\"");
  const size_t retained = page.find("data-rank=\"2\" data-kind=\"retained\"");
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
  EXPECT_NE(page.find("class=\"vk-finding vk-kind-retained\" data-rank=\"2\""), std::string::npos)
      << "a problem of one finding is just its row";
  // 400 buffers (300 + 100), 25.0 MiB; the findings' sum would be 600 and 37.5 MiB.
  EXPECT_NE(page.find("<span class=\"vk-card-n\">25.0 MiB</span><span class=\"vk-card-label\">in "
                      "findings</span><span class=\"vk-card-sub\">400 objects, 2 problems, 3 "
                      "findings</span>"),
            std::string::npos);
}

}  // namespace
}  // namespace vkleak

// --- the explorer: views, hooks and the embedded script --------------------------------------

namespace vkleak {
namespace {

using report::render_html;
namespace html = report::html;

TEST(HtmlExplorer, Sha256AndBase64MatchKnownVectors) {
  EXPECT_EQ(base64(sha256("")), "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
  EXPECT_EQ(base64(sha256("abc")), "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=");
  EXPECT_EQ(base64(sha256(std::string(1000, 'a'))), "Qe3s5C1j6Nm/UVqbppMuHCDLyfWl0TRkWttdsblzfqM=");
}

// The CSP allows exactly the page's one inline style and one inline script, by the hashes of
// their texts as the page holds them; nothing else can run or load.
TEST(HtmlExplorer, CspAllowsExactlyTheEmbeddedScriptAndStyle) {
  for (const ReportDocument& doc : {html_test::incident_fixture(), ReportDocument{}}) {
    SCOPED_TRACE(doc.runs.size());
    const std::string page = render_html(doc);
    const std::string style = between(page, "<style>", "</style>");
    const std::string script = between(page, "<script>", "</script>");
    EXPECT_EQ(style, explorer::kStyle);
    EXPECT_EQ(script, explorer::kScript);
    EXPECT_EQ(between(page, "<meta http-equiv=\"Content-Security-Policy\" content=\"", "\">"),
              "default-src 'none'; style-src 'sha256-" + base64(sha256(style)) +
                  "'; script-src 'sha256-" + base64(sha256(script)) + "'; img-src data:");
    EXPECT_EQ(count(page, "<style"), 1u);
    EXPECT_EQ(count(page, "<script>"), 1u);
    EXPECT_EQ(without_own_scripts(page).find("<script"), std::string::npos);
    // Style attributes would be blocked by the CSP: the page has none (the script sets styles
    // through the CSSOM, which the CSP allows).
    EXPECT_EQ(page.find(" style=\""), std::string::npos);
  }
}

TEST(HtmlExplorer, NavLinksTheFiveViewsInOrder) {
  for (const ReportDocument& doc : {html_test::incident_fixture(), ReportDocument{}}) {
    SCOPED_TRACE(doc.runs.size());
    const std::string page = render_html(doc);
    const std::string nav = between(page, "<nav id=\"vk-nav\"", "</nav>");
    ASSERT_FALSE(nav.empty());
    size_t in_nav = 0;
    size_t in_page = page.find("</nav>");
    for (const char* view : {"timeline", "flamegraph", "findings", "retainers", "diff"}) {
      SCOPED_TRACE(view);
      const size_t link = nav.find("<a href=\"#" + std::string(view) + "\">");
      ASSERT_NE(link, std::string::npos);
      EXPECT_GT(link, in_nav);
      in_nav = link;
      const std::string section = "<section id=\"" + std::string(view) + "\" class=\"vk-view\">";
      EXPECT_EQ(count(page, section), 1u);
      const size_t at = page.find(section);
      EXPECT_GT(at, in_page) << "views in the nav's order";
      in_page = at;
    }
  }
}

// The views draw the first run only: with several runs the nav says which one, escaped.
TEST(HtmlExplorer, NavNamesTheRunTheViewsShowWhenThereAreSeveral) {
  ReportDocument doc = html_test::incident_fixture();
  ASSERT_EQ(doc.runs.size(), 1u);
  EXPECT_EQ(render_html(doc).find("id=\"explorer-run\""), std::string::npos);
  doc.runs.front().pid = 4242;
  doc.runs.front().executable = "/opt/app/<b>game";
  doc.runs.push_back(doc.runs.front());
  doc.runs.back().pid = 4343;
  const std::string nav = between(render_html(doc), "<nav id=\"vk-nav\"", "</nav>");
  EXPECT_NE(nav.find("id=\"explorer-run\">timeline, flame graph and diff: pid 4242 "
                     "&lt;b&gt;game, the first of 2 runs</span>"),
            std::string::npos)
      << nav;
}

// Every finding row carries what the explorer sorts and filters by, as exact values, and its
// full report is server-side.
TEST(HtmlExplorer, FindingRowsCarryTheirDataAndFullReports) {
  ReportDocument doc = html_test::incident_fixture();
  doc.runs.front().findings[0].name_pattern = "wrapper.*";
  doc.runs.front().findings[0].callsite.front().function = "GpuBuffer::GpuBuffer";
  const std::vector<Finding>& findings = doc.runs.front().findings;
  const std::string page = render_html(doc);
  for (size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    const std::string rank = std::to_string(i + 1);
    SCOPED_TRACE(rank);
    EXPECT_NE(page.find("data-rank=\"" + rank + "\" data-kind=\"" + analysis::kind_name(f.kind) +
                        "\" data-type=\"" + html_text(f.object_type) + "\" data-bytes=\"" +
                        std::to_string(f.bytes) + "\" data-count=\"" + std::to_string(f.count) +
                        "\" data-function=\"" + html_text(f.function()) + "\" data-name=\"" +
                        html_text(f.name_pattern) + "\" data-problem=\"" +
                        std::to_string(f.problem) + "\""),
              std::string::npos);
    EXPECT_EQ(count(page, "<details class=\"vk-detail\" id=\"finding-" + rank + "\">"), 1u);
  }
  EXPECT_NE(page.find("data-function=\"GpuBuffer::GpuBuffer\" data-name=\"wrapper.*\""),
            std::string::npos);
  EXPECT_NE(page.find("<table class=\"vk-findings\" id=\"findings-table\">"), std::string::npos);
  for (const char* key : {"bytes", "count", "kind", "type", "function"}) {
    EXPECT_EQ(count(page, "<th data-sort=\"" + std::string(key) + "\">"), 1u) << key;
  }
  // The kind filter offers the kinds the findings have.
  const std::string kinds = between(page, "<select id=\"findings-kind\">", "</select>");
  EXPECT_NE(kinds.find("<option value=\"\">all</option>"), std::string::npos);
  EXPECT_NE(kinds.find("<option value=\"growth\">"), std::string::npos);
  EXPECT_NE(kinds.find("<option value=\"destroyed_in_flight\">"), std::string::npos);
  EXPECT_EQ(kinds.find("<option value=\"invalid_destroy\">"), std::string::npos);
  EXPECT_NE(page.find("<span id=\"findings-shown\">8 of 8 findings</span>"), std::string::npos);
}

TEST(HtmlExplorer, DetailsShowLongFramesWhole) {
  Finding f = finding(FindingKind::kLeakAtExit);
  const std::string signature = "harness::create(" + std::string(400, 'x') + ")";
  f.callsite = {frame(signature + " (/src/h.cpp:3)"), frame(std::string(5000, 'y'))};
  const std::string page = render_html(doc_of({f}));
  EXPECT_NE(page.find("<li><code>" + signature + " (/src/h.cpp:3)</code></li>"), std::string::npos);
  EXPECT_EQ(page.find(std::string(801, 'y')), std::string::npos) << "still capped";
}

TEST(HtmlExplorer, DetailsNameTheEvidenceSnapshot) {
  Finding f = finding(FindingKind::kLeakAtExit);
  f.snapshot = "run/<pid>.snap-0003.json";
  f.frames.snapshot = 1200;
  const std::string page = render_html(doc_of({f}));
  EXPECT_NE(page.find("<dt>Evidence</dt><dd>snapshot at frame 1,200, <code>run/&lt;pid&gt;.snap-"
                      "0003.json</code></dd>"),
            std::string::npos);
  EXPECT_EQ(render_html(doc_of({finding(FindingKind::kLeakAtExit)})).find("<dt>Evidence</dt>"),
            std::string::npos);
}

TEST(HtmlExplorer, RetainersExplainWhatKeepsObjectsAlive) {
  const std::string page = render_html(html_test::incident_fixture());
  const std::string view = between(page, "<section id=\"retainers\"", "</section>");
  ASSERT_FALSE(view.empty());
  // Finding 6's roots, complete without the script: the line, the path, exact data-*.
  EXPECT_NE(view.find("<div class=\"vk-retainers-finding\" id=\"retainers-6\" data-rank=\"6\">"),
            std::string::npos);
  EXPECT_NE(view.find("<div class=\"vk-retainer-root\" data-bytes=\"100663296\" "
                      "data-objects=\"40\" data-type=\"VkDescriptorPool\" data-name=\"imgui.pool "
                      "&lt;b&gt;\"><div class=\"vk-retainer-line\">1 VkDescriptorPool "
                      "&quot;imgui.pool &lt;b&gt;&quot; explains 40 VkDescriptorSet, 12 "
                      "VkImageView, 96.0 MiB</div>"),
            std::string::npos);
  EXPECT_NE(view.find("<div class=\"vk-retainer-path\">VkDescriptorPool &quot;imgui.pool "
                      "&lt;b&gt;&quot; &gt; VkDescriptorSet &quot;imgui.texture.&lt;script&gt;"),
            std::string::npos);
  EXPECT_NE(view.find("<div class=\"vk-retainer-root vk-shared\" data-bytes=\"0\" "
                      "data-objects=\"12\" data-type=\"\" data-name=\"\"><div "
                      "class=\"vk-retainer-line\">Several roots (shared) explain 12 "
                      "VkDescriptorSet, 0 B</div>"),
            std::string::npos);
  EXPECT_EQ(count(view, "class=\"vk-retainer-root"), 2u);
  // The script's picker: one option per finding with roots.
  const std::string picker = between(view, "<select id=\"retainers-finding\">", "</select>");
  EXPECT_EQ(count(picker, "<option value=\""), 2u);
  EXPECT_NE(picker.find("<option value=\"6\">#6 Stale view"), std::string::npos);
  // The finding's report says it too, and links here.
  EXPECT_NE(page.find("<dt>Kept alive by</dt><dd>1 VkDescriptorPool"), std::string::npos);
  EXPECT_NE(page.find("<a href=\"#retainers-6\">(paths)</a>"), std::string::npos);

  const std::string none = render_html(doc_of({finding(FindingKind::kGrowth)}));
  EXPECT_NE(none.find("id=\"no-retainers\""), std::string::npos);
  EXPECT_EQ(none.find("<select id=\"retainers-finding\">"), std::string::npos);
}

// What only the script can draw says so without it, and its controls stay hidden.
TEST(HtmlExplorer, ScriptViewsAreHiddenUntilTheScriptBuildsThem) {
  const std::string page = render_html(html_test::incident_fixture());
  for (const char* id : {"timeline-explorer", "flame-explorer", "diff-explorer", "findings-tools",
                         "retainers-tools"}) {
    EXPECT_NE(page.find("id=\"" + std::string(id) + "\" hidden>"), std::string::npos) << id;
  }
  EXPECT_NE(page.find("id=\"flamegraph-noscript\""), std::string::npos);
  EXPECT_NE(page.find("id=\"diff-noscript\""), std::string::npos);
  for (const char* hook :
       {"<button type=\"button\" data-timeline-mode=\"types\"",
        "<button type=\"button\" data-timeline-mode=\"groups\"",
        "<button type=\"button\" data-metric=\"bytes\"",
        "<button type=\"button\" data-metric=\"count\"",
        "<input type=\"number\" id=\"timeline-from\"", "<input type=\"number\" id=\"timeline-to\"",
        "<table class=\"vk-table\" id=\"timeline-selection\">", "<div id=\"timeline-tip\"",
        "<select id=\"flame-snapshot\">", "<select id=\"flame-base\">",
        "<select id=\"flame-metric\">", "<input type=\"search\" id=\"flame-search\"",
        "<span id=\"flame-search-result\">", "<div id=\"flame-crumbs\">", "<select id=\"diff-a\">",
        "<select id=\"diff-b\">", "<table class=\"vk-table\" id=\"diff-types\">",
        "<table class=\"vk-table\" id=\"diff-groups\">",
        "<input type=\"checkbox\" id=\"diff-hide-unchanged\" checked>"}) {
    EXPECT_EQ(count(page, hook), 1u) << hook;
  }
}

}  // namespace
}  // namespace vkleak
