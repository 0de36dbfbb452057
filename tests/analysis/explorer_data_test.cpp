// The explorer's embedded data (report/explorer_data.h): the JSON parses back to the model
// exactly, string tables are shared, and hostile strings can neither end the <script> element
// nor come back changed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "report/explorer_data.h"
#include "report/html_report.h"

namespace vkleak {
namespace {

using analysis::Frame;
using analysis::LifetimeGroup;
using analysis::RunReport;
using report::render_html;
using nlohmann::json;

Frame frame(std::string function, std::string file, int line, bool inlined = false) {
  Frame f;
  f.function = std::move(function);
  f.file = std::move(file);
  f.line = line;
  f.inlined = inlined;
  f.module = "app";
  f.text = f.function.empty() ? "app+0x" + std::to_string(line) : f.function;
  return f;
}

RunReport sample_run(const std::string& odd = "odd") {
  RunReport r;
  r.lifetimes.snapshots = {{0, 3, 120, 4100, "frame", std::nullopt},
                           {2, 5, 300, 9000, "trigger", "level " + odd}};
  const Frame main_frame = frame("main", "/src/app.cpp", 10);
  const Frame load = frame("load_" + odd, "/src/" + odd + ".cpp", 22);
  const Frame helper = frame("make_buffer", "/src/app.cpp", 40, true);
  const Frame unknown = frame("", "", 0x1234);  // no symbols: its module+offset text
  // Innermost first, as Finding::callsite.
  r.lifetimes.groups = {LifetimeGroup{"VkBuffer", "mesh.*", {helper, load, main_frame}},
                        LifetimeGroup{"VkImage", "tex." + odd + ".*", {unknown, main_frame}},
                        LifetimeGroup{"VkBuffer", "", {}},
                        LifetimeGroup{"Vk" + odd, "", {helper, load, main_frame}},
                        LifetimeGroup{"VkDeviceMemory", "", {helper, load, main_frame}, true}};
  r.lifetimes.cells = {{0, 0, 0, 2, 300},
                       {0, 0, 1, 1, 100},
                       {1, 1, 1, 7, uint64_t{1} << 40},
                       {2, 0, 1, 1, 0},
                       {3, 1, 1, 1000000, UINT64_MAX},
                       {4, 0, 1, 3, 0}};
  r.lifetimes.cells_omitted = 3;
  r.lifetimes.objects_omitted = 4;
  r.lifetimes.bytes_omitted = 4496;
  analysis::Finding leak;
  leak.kind = analysis::FindingKind::kLeakAtExit;
  leak.lifetime_group = 3;
  leak.problem = 0;
  leak.count = 1000000;
  leak.bytes = UINT64_MAX;
  analysis::Finding event;
  event.kind = analysis::FindingKind::kInvalidDestroy;
  event.problem = 1;
  r.findings = {leak, event};
  return r;
}

// The model as read back from the JSON: what explorer_data_json must preserve.
struct ReadBack {
  std::vector<analysis::LifetimeSnapshot> snapshots;
  std::vector<LifetimeGroup> groups;
  std::vector<analysis::LifetimeCell> cells;
  json omitted, findings;
};

ReadBack read_back(const json& j) {
  ReadBack out;
  EXPECT_EQ(j.at("version"), 1);
  for (const json& s : j.at("snapshots")) {
    analysis::LifetimeSnapshot snap;
    snap.sequence = s.at("sequence");
    snap.frame = s.at("frame");
    snap.time_ms = s.at("time_ms");
    snap.reason = s.at("reason");
    if (!s.at("label").is_null()) snap.label = s.at("label").get<std::string>();
    out.snapshots.push_back(snap);
  }
  const auto& strings = j.at("strings");
  const auto str = [&](const json& id) {
    return id.get<int64_t>() < 0 ? std::string() : strings.at(id.get<size_t>()).get<std::string>();
  };
  for (const json& g : j.at("groups")) {
    LifetimeGroup group;
    group.object_type = j.at("types").at(g.at(0).get<size_t>());
    group.name_pattern = g.at(2);
    EXPECT_EQ(g.size(), 5u);
    group.attached = g.at(3).get<int>() == 1;
    // The path: the stack's functions, outermost first (-1 exactly when there is no stack).
    EXPECT_EQ(g.at(4).get<int64_t>() < 0, g.at(1).get<int64_t>() < 0);
    if (g.at(1).get<int64_t>() >= 0) {
      const json& stack = j.at("stacks").at(g.at(1).get<size_t>());
      const json& path = j.at("paths").at(g.at(4).get<size_t>());
      EXPECT_EQ(path.size(), stack.size());
      for (size_t k = 0; k < stack.size() && k < path.size(); ++k) {
        EXPECT_EQ(path[k], j.at("frames").at(stack[k].get<size_t>()).at(0));
      }
      for (auto it = stack.rbegin(); it != stack.rend(); ++it) {  // back to innermost first
        const json& f = j.at("frames").at(it->get<size_t>());
        Frame fr;
        fr.function = str(f.at(0));
        fr.file = str(f.at(1));
        fr.line = f.at(2);
        fr.inlined = f.at(3) == 1;
        group.callsite.push_back(fr);
      }
    }
    out.groups.push_back(group);
  }
  const json& cells = j.at("cells");
  EXPECT_EQ(cells.size() % 5, 0u);
  for (size_t i = 0; i + 4 < cells.size(); i += 5) {
    out.cells.push_back({cells[i], cells[i + 1], cells[i + 2], cells[i + 3], cells[i + 4]});
  }
  out.omitted = j.at("omitted");
  out.findings = j.at("findings");
  return out;
}

void expect_same(const RunReport& r, const ReadBack& back) {
  const analysis::RunLifetimes& lt = r.lifetimes;
  ASSERT_EQ(back.snapshots.size(), lt.snapshots.size());
  for (size_t i = 0; i < lt.snapshots.size(); ++i) {
    EXPECT_EQ(back.snapshots[i].sequence, lt.snapshots[i].sequence);
    EXPECT_EQ(back.snapshots[i].frame, lt.snapshots[i].frame);
    EXPECT_EQ(back.snapshots[i].time_ms, lt.snapshots[i].time_ms);
    EXPECT_EQ(back.snapshots[i].reason, lt.snapshots[i].reason);
    EXPECT_EQ(back.snapshots[i].label, lt.snapshots[i].label);
  }
  ASSERT_EQ(back.groups.size(), lt.groups.size());
  for (size_t g = 0; g < lt.groups.size(); ++g) {
    SCOPED_TRACE(g);
    EXPECT_EQ(back.groups[g].object_type, lt.groups[g].object_type);
    EXPECT_EQ(back.groups[g].name_pattern, lt.groups[g].name_pattern);
    EXPECT_EQ(back.groups[g].attached, lt.groups[g].attached);
    ASSERT_EQ(back.groups[g].callsite.size(), lt.groups[g].callsite.size());
    for (size_t k = 0; k < lt.groups[g].callsite.size(); ++k) {
      const Frame& want = lt.groups[g].callsite[k];
      const Frame& got = back.groups[g].callsite[k];
      EXPECT_EQ(got.function, want.function.empty() ? want.text : want.function);
      EXPECT_EQ(got.file, want.file);
      EXPECT_EQ(got.line, want.line);
      EXPECT_EQ(got.inlined, want.inlined);
    }
  }
  ASSERT_EQ(back.cells.size(), lt.cells.size());
  for (size_t i = 0; i < lt.cells.size(); ++i) {
    EXPECT_EQ(back.cells[i].group, lt.cells[i].group);
    EXPECT_EQ(back.cells[i].first, lt.cells[i].first);
    EXPECT_EQ(back.cells[i].last, lt.cells[i].last);
    EXPECT_EQ(back.cells[i].count, lt.cells[i].count);
    EXPECT_EQ(back.cells[i].bytes, lt.cells[i].bytes);
  }
  EXPECT_EQ(back.omitted, (json{{"cells", lt.cells_omitted},
                                {"objects", lt.objects_omitted},
                                {"bytes", lt.bytes_omitted}}));
  ASSERT_EQ(back.findings.size(), r.findings.size());
  for (size_t i = 0; i < r.findings.size(); ++i) {
    const analysis::Finding& f = r.findings[i];
    EXPECT_EQ(back.findings[i],
              (json{{"rank", i + 1},
                    {"problem", f.problem},
                    {"kind", analysis::kind_name(f.kind)},
                    {"group", f.lifetime_group ? int64_t{*f.lifetime_group} : int64_t{-1}},
                    {"count", f.count},
                    {"bytes", f.bytes}}));
  }
}

TEST(ExplorerDataTest, ParsesBackToTheModel) {
  const RunReport r = sample_run();
  const json j = json::parse(report::explorer_data_json(r));
  expect_same(r, read_back(j));
  // Tables hold each string, frame and stack once: groups 0, 3 and 4 share a stack.
  EXPECT_EQ(j.at("types"), (json{"VkBuffer", "VkImage", "Vkodd", "VkDeviceMemory"}));
  EXPECT_EQ(j.at("stacks").size(), 2u);
  EXPECT_EQ(j.at("groups")[0][1], j.at("groups")[3][1]);
  EXPECT_EQ(j.at("groups")[4][1], j.at("groups")[3][1]);
  // The 4th element: memory bound to one object (its bytes counted with that object).
  EXPECT_EQ(j.at("groups")[0][3], 0);
  EXPECT_EQ(j.at("groups")[4][3], 1);
  EXPECT_EQ(j.at("groups")[2][1], -1);
  EXPECT_EQ(j.at("frames").size(), 4u);  // main, load_odd, make_buffer, app+0x4660
  std::set<std::string> distinct;
  for (const json& s : j.at("strings")) EXPECT_TRUE(distinct.insert(s).second) << s;
  // An unknown function is its module+offset text; an unknown file is -1.
  EXPECT_EQ(j.at("strings").at(j.at("frames")[j.at("stacks")[1][1].get<size_t>()][0].get<size_t>()),
            "app+0x4660");
}

// Stacks that differ only in lines (an inlined helper's caller at two lines) share one path:
// the key the page groups and labels call sites by; other functions make other paths.
TEST(ExplorerDataTest, StacksThatDifferOnlyInLinesShareAPath) {
  RunReport r = sample_run();
  const Frame main_a = frame("main", "/src/app.cpp", 10);
  const Frame main_b = frame("main", "/src/app.cpp", 12);
  const Frame helper = frame("make_staging", "/src/app.cpp", 40, true);
  const Frame upload = frame("upload_params", "/src/app.cpp", 50);
  r.lifetimes.groups = {LifetimeGroup{"VkBuffer", "", {helper, main_a}},
                        LifetimeGroup{"VkBuffer", "", {helper, main_b}},
                        LifetimeGroup{"VkBuffer", "", {helper, upload, main_a}},
                        LifetimeGroup{"VkBuffer", "", {}}};
  r.lifetimes.cells = {{0, 0, 1, 1, 10}, {1, 0, 1, 1, 10}, {2, 0, 1, 1, 10}, {3, 0, 1, 1, 10}};
  r.findings.clear();
  const json j = json::parse(report::explorer_data_json(r));
  expect_same(r, read_back(j));
  const json& g = j.at("groups");
  EXPECT_NE(g[0][1], g[1][1]);  // two stacks
  EXPECT_EQ(g[0][4], g[1][4]);  // one path
  EXPECT_NE(g[2][4], g[0][4]);
  EXPECT_EQ(g[3][4], -1);
  EXPECT_EQ(j.at("paths").size(), 2u);
  const auto& strings = j.at("strings");
  std::vector<std::string> names;
  for (const json& f : j.at("paths")[g[2][4].get<size_t>()])
    names.push_back(strings[f.get<size_t>()]);
  EXPECT_EQ(names, (std::vector<std::string>{"main", "upload_params", "make_staging"}));
}

TEST(ExplorerDataTest, HostileStringsCannotEndTheElementAndRoundTrip) {
  for (const std::string odd : {"</script><script>alert(1)</script>", "<!--", "<!-- <script>",
                                "x\xe2\x80\xa8y", "</SCRIPT >", "\"\\\n\x01"}) {
    SCOPED_TRACE(odd);
    analysis::ReportDocument doc;
    doc.runs.push_back(sample_run(odd));
    const std::string open = "<script type=\"application/json\" id=\"vkleak-explorer-data\">";
    const std::string element = report::explorer_data_element(doc);
    ASSERT_EQ(element.rfind(open, 0), 0u);
    ASSERT_EQ(element.substr(element.size() - 10), "</script>\n");
    const std::string body = element.substr(open.size(), element.size() - open.size() - 10);
    // No '<' at all inside: nothing can close the element or open a comment.
    EXPECT_EQ(body.find('<'), std::string::npos);
    if (odd.find('<') != std::string::npos) {
      EXPECT_NE(body.find("\\u003c"), std::string::npos);
    }
    expect_same(doc.runs.front(), read_back(json::parse(body)));
  }
}

TEST(ExplorerDataTest, InvalidUtf8IsReplacedAsInEveryJsonOutput) {
  const RunReport r = sample_run("bad\xff\xfe<");
  const std::string text = report::explorer_data_json(r);
  const json j = json::parse(text);  // valid UTF-8 now
  EXPECT_EQ(j.at("snapshots")[1].at("label"), "level bad\xef\xbf\xbd\xef\xbf\xbd<");
  EXPECT_EQ(text.find('<'), std::string::npos);
}

TEST(ExplorerDataTest, TheHtmlPageEmbedsItOnceForTheFirstRun) {
  analysis::ReportDocument doc;
  // The element, not the explorer script's reference to its id.
  const std::string id = "id=\"vkleak-explorer-data\"";
  EXPECT_EQ(render_html(doc).find(id), std::string::npos);
  doc.runs.push_back(sample_run("first"));
  doc.runs.push_back(sample_run("second"));
  const std::string page = render_html(doc);
  const std::string open = "<script type=\"application/json\" id=\"vkleak-explorer-data\">";
  const size_t at = page.find(open);
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(page.find(id, at + open.size()), std::string::npos);
  const size_t end = page.find("</script>", at);
  const json j = json::parse(page.substr(at + open.size(), end - at - open.size()));
  EXPECT_EQ(j.at("snapshots")[1].at("label"), "level first");
}

}  // namespace
}  // namespace vkleak
