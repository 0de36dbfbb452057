// The output formats: JSON document, SARIF 2.1.0, JUnit, Markdown, text. (The JSON Schema itself
// is checked by validate_outputs.py and the integration tests.)
#include <gtest/gtest.h>

#include <regex>

#include "analysis/output.h"
#include "test_util.h"

namespace vkleak {
namespace {

using analysis::Finding;
using analysis::FindingKind;
using nlohmann::json;

analysis::ReportDocument sample() {
  Finding located;
  located.kind = FindingKind::kRetained;
  located.object_type = "VkBuffer";
  located.count = 285;
  located.bytes = 285 * 65536;
  located.names = {"wrapper.vertices", "a|b<c>&\"d\""};
  located.name_pattern = "wrapper.vertices";
  located.message = "285 VkBuffer retained";
  analysis::Frame frame;
  frame.function = "GpuBuffer::GpuBuffer(int)";
  frame.file = "/work/src/gpu buffer.cpp";
  frame.line = 41;
  frame.module = "app";
  frame.text = "GpuBuffer::GpuBuffer(int) (/work/src/gpu buffer.cpp:41)";
  analysis::Frame caller = frame;
  caller.function = "main";
  caller.line = 99;
  caller.text = "main (/work/src/gpu buffer.cpp:99)";
  located.callsite = {frame, caller};
  located.pid = 42;
  located.snapshot = "run/vkleak-42-0003-frame.json";

  Finding unlocated;
  unlocated.kind = FindingKind::kDestroyedInFlight;
  unlocated.object_type = "VkDescriptorSet";
  unlocated.count = 1;
  unlocated.message = "freed while in flight";
  unlocated.pid = 42;

  analysis::ReportDocument doc;
  analysis::RunReport run;
  run.pid = 42;
  run.findings = {located, unlocated};
  run.series.frames = {25, 50};
  run.series.types.push_back({"VkBuffer", {1, 2}, {10, 20}});
  doc.runs.push_back(run);
  return doc;
}

TEST(OutputTest, FindingsJson) {
  const json j = analysis::findings_json(sample());
  EXPECT_EQ(j["format"], "vkleak-findings");
  EXPECT_EQ(j["version"], 1);
  ASSERT_EQ(j["findings"].size(), 2u);
  const json& f = j["findings"][0];
  EXPECT_EQ(f["kind"], "retained");
  EXPECT_EQ(f["object_type"], "VkBuffer");
  EXPECT_EQ(f["count"], 285);
  EXPECT_EQ(f["names"][0], "wrapper.vertices");
  EXPECT_EQ(f["callsite"][0], "GpuBuffer::GpuBuffer(int) (/work/src/gpu buffer.cpp:41)");
  EXPECT_EQ(f["function"], "GpuBuffer::GpuBuffer(int)");
  EXPECT_EQ(f["location"]["line"], 41);
  EXPECT_EQ(f["fingerprint"], "retained|VkBuffer|GpuBuffer::GpuBuffer(int)|wrapper.vertices");
  EXPECT_FALSE(f.contains("status")) << "only the gate sets a status";
  EXPECT_TRUE(j["findings"][1]["location"].is_null());
  EXPECT_EQ(j["summary"]["by_kind"]["retained"], 1);
  EXPECT_EQ(j["series"]["frames"], json({25, 50}));
  EXPECT_EQ(j["runs"][0]["series"]["types"][0]["live"], json({1, 2}));
  EXPECT_FALSE(j.contains("gate"));
}

TEST(OutputTest, SarifLocatesFindingsOnTheirSourceLine) {
  const json s = analysis::render_sarif(sample(), "/work");
  EXPECT_EQ(s["version"], "2.1.0");
  EXPECT_NE(s["$schema"].get<std::string>().find("sarif-2.1.0"), std::string::npos);
  ASSERT_EQ(s["runs"].size(), 1u);
  const json& run = s["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "vkleak");
  EXPECT_EQ(run["tool"]["driver"]["rules"].size(), std::size(analysis::kAllKinds));
  ASSERT_EQ(run["results"].size(), 2u);
  const json& r = run["results"][0];
  EXPECT_EQ(r["ruleId"], "retained");
  EXPECT_EQ(run["tool"]["driver"]["rules"][r["ruleIndex"].get<int>()]["id"], "retained");
  EXPECT_EQ(r["level"], "warning");
  const json& loc = r["locations"][0]["physicalLocation"];
  EXPECT_EQ(loc["artifactLocation"]["uri"], "src/gpu%20buffer.cpp");
  EXPECT_EQ(loc["artifactLocation"]["uriBaseId"], "SRCROOT");
  EXPECT_EQ(loc["region"]["startLine"], 41);
  EXPECT_EQ(run["originalUriBaseIds"]["SRCROOT"]["uri"], "file:///work/");
  EXPECT_EQ(r["stacks"][0]["frames"].size(), 2u);
  EXPECT_FALSE(r["partialFingerprints"]["vkleakFingerprint/v1"].get<std::string>().empty());
  EXPECT_FALSE(run["results"][1].contains("locations"));
  EXPECT_EQ(run["results"][1]["level"], "error");
  // Outside the source root: an absolute file URI.
  const json outside = analysis::render_sarif(sample(), "/elsewhere");
  EXPECT_EQ(outside["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
                   ["uri"],
            "file:///work/src/gpu%20buffer.cpp");
}

TEST(OutputTest, SarifCarriesGateStates) {
  analysis::ReportDocument doc = sample();
  doc.runs[0].findings[0].status = "suppressed";
  doc.runs[0].findings[0].suppressed_by = "kind=retained";
  doc.runs[0].findings[1].status = "new";
  const json s = analysis::render_sarif(doc, "");
  const json& results = s["runs"][0]["results"];
  EXPECT_EQ(results[0]["suppressions"][0]["kind"], "external");
  EXPECT_EQ(results[0]["baselineState"], "unchanged");
  EXPECT_EQ(results[1]["baselineState"], "new");
}

TEST(OutputTest, JUnitOneTestCasePerKindAndOneForTheRunBeingWhole) {
  const std::string xml = analysis::render_junit(sample());
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", 0), 0u);
  const std::regex testcase("<testcase ");
  EXPECT_EQ(
      std::distance(std::sregex_iterator(xml.begin(), xml.end(), testcase), std::sregex_iterator()),
      8);
  EXPECT_NE(xml.find("<testcase classname=\"vkleak\" name=\"complete_run\">\n    </testcase>"),
            std::string::npos);
  analysis::ReportDocument cut = sample();
  cut.runs[0].incomplete = {"the run crashed (SIGSEGV) at frame 3"};
  const std::string cut_xml = analysis::render_junit(cut);
  EXPECT_NE(cut_xml.find("failures=\"3\""), std::string::npos);
  EXPECT_NE(cut_xml.find("<failure type=\"incomplete_run\""), std::string::npos);
  EXPECT_NE(cut_xml.find("the run crashed (SIGSEGV) at frame 3"), std::string::npos);
  EXPECT_NE(xml.find("failures=\"2\""), std::string::npos);
  EXPECT_NE(xml.find("<failure type=\"retained\""), std::string::npos);
  EXPECT_NE(xml.find("<failure type=\"destroyed_in_flight\""), std::string::npos);
  EXPECT_EQ(xml.find("<failure type=\"growth\""), std::string::npos);
  // Names are data: escaped.
  EXPECT_EQ(xml.find("a|b<c>"), std::string::npos);
}

TEST(OutputTest, JUnitFailsOnlyNewFindingsOfAGate) {
  analysis::ReportDocument doc = sample();
  doc.runs[0].findings[0].status = "baseline";
  doc.runs[0].findings[1].status = "new";
  doc.gate = analysis::GateSummary{};
  const std::string xml = analysis::render_junit(doc);
  EXPECT_NE(xml.find("failures=\"1\""), std::string::npos);
  EXPECT_NE(xml.find("<system-out>[baseline]"), std::string::npos);
}

TEST(OutputTest, MarkdownTable) {
  const std::string md = analysis::render_markdown(sample());
  EXPECT_NE(md.find("### vkleak: 2 findings in 1 run"), std::string::npos) << md;
  EXPECT_NE(md.find("| # | Kind | Type | Count | Bytes | Names | Created at |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("|--:|---|---|--:|--:|---|---|"), std::string::npos);
  EXPECT_NE(md.find("| 1 | `retained` | VkBuffer | 285 | 17.8 MiB |"), std::string::npos) << md;
  EXPECT_NE(md.find("gpu buffer.cpp:41"), std::string::npos);
  // A pipe in a name must not split the cell.
  EXPECT_NE(md.find("a\\|b"), std::string::npos) << md;
  EXPECT_EQ(analysis::render_markdown(analysis::ReportDocument{}).find("|"), std::string::npos);
}

TEST(OutputTest, TextColoursOnlyWhenAsked) {
  const std::string plain = analysis::render_text(sample(), Style(false));
  EXPECT_NE(plain.find("vkleak: 2 findings (1 destroyed_in_flight, 1 retained) in 1 run"),
            std::string::npos)
      << plain;
  EXPECT_NE(plain.find("created at: GpuBuffer::GpuBuffer(int)"), std::string::npos);
  EXPECT_EQ(plain.find("\x1b["), std::string::npos);
  EXPECT_NE(analysis::render_text(sample(), Style(true)).find("\x1b["), std::string::npos);
  EXPECT_NE(analysis::render_text(analysis::ReportDocument{}, Style(false)).find("no findings"),
            std::string::npos);
}

}  // namespace
}  // namespace vkleak
