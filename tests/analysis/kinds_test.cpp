// The one list of finding kinds (analysis/finding.h kKinds): every kind a rule reports is in it
// with its strings, and the outputs and the gate read it.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/finding.h"
#include "report/output.h"
#include "test_support.h"

namespace vkleak {
namespace {

namespace fs = std::filesystem;
using analysis::FindingKind;
using analysis::KindInfo;
using analysis::kKinds;

// kLeakAtExit -> "leak_at_exit"
std::string snake(const std::string& enumerator) {
  std::string out;
  for (size_t i = 1; i < enumerator.size(); ++i) {
    const char c = enumerator[i];
    if (std::isupper(static_cast<unsigned char>(c))) {
      if (!out.empty()) out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out;
}

TEST(Kinds, EveryRowIsCompleteAndDistinct) {
  std::set<std::string> names;
  std::set<int> ranks;
  for (size_t i = 0; i < std::size(kKinds); ++i) {
    const KindInfo& k = kKinds[i];
    SCOPED_TRACE(k.name);
    EXPECT_EQ(static_cast<size_t>(k.kind), i);
    EXPECT_TRUE(names.insert(k.name).second);
    EXPECT_TRUE(ranks.insert(k.summary_rank).second);
    EXPECT_TRUE(std::regex_match(k.name, std::regex("[a-z]+(_[a-z]+)*")));
    for (const char* text : {k.title, k.summary, k.description})
      EXPECT_GT(std::string(text).size(), 3u);
    EXPECT_EQ(analysis::kind_from_name(k.name), k.kind);
    EXPECT_STREQ(analysis::kind_name(k.kind), k.name);
  }
  EXPECT_EQ(analysis::kind_names().size(), std::size(kKinds));
  EXPECT_FALSE(analysis::kind_from_name("leaks").has_value());
}

// Every FindingKind a rule (or any analysis source) names is in the list, under its own name.
TEST(Kinds, EveryKindTheRulesReportIsListed) {
  static const std::regex kUse("FindingKind::(k[A-Za-z]+)");
  std::set<std::string> used;
  for (const auto& entry : fs::recursive_directory_iterator(VKLEAK_SOURCE_DIR "/src/analysis")) {
    if (entry.path().extension() != ".cpp") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    for (auto it = std::sregex_iterator(s.begin(), s.end(), kUse); it != std::sregex_iterator();
         ++it) {
      used.insert((*it)[1]);
    }
  }
  EXPECT_GE(used.size(), std::size(kKinds)) << "the rules report every kind";
  for (const std::string& enumerator : used) {
    SCOPED_TRACE(enumerator);
    const auto kind = analysis::kind_from_name(snake(enumerator));
    ASSERT_TRUE(kind.has_value()) << snake(enumerator) << " is not in kKinds";
  }
}

TEST(Kinds, TheOutputsReadTheList) {
  analysis::ReportDocument doc;
  doc.runs.emplace_back();
  for (const KindInfo& k : kKinds) {
    analysis::Finding f;
    f.kind = k.kind;
    f.object_type = "VkBuffer";
    doc.runs.back().findings.push_back(f);
  }
  const std::string text = report::render_text(doc, Style(false));
  const std::string junit = report::render_junit(doc);
  const nlohmann::json sarif = report::render_sarif(doc, "");
  const nlohmann::json json = report::findings_json(doc);
  for (const KindInfo& k : kKinds) {
    SCOPED_TRACE(k.name);
    EXPECT_NE(text.find(std::string("  ") + k.name + "  VkBuffer"), std::string::npos);
    EXPECT_NE(junit.find(std::string("<failure type=\"") + k.name + "\""), std::string::npos);
    EXPECT_NE(junit.find(k.description), std::string::npos);
    EXPECT_EQ(json["summary"]["by_kind"][k.name], 1);
    bool rule = false;
    for (const auto& r : sarif["runs"][0]["tool"]["driver"]["rules"]) {
      rule |= r["id"] == k.name && r["fullDescription"]["text"] == k.description;
    }
    EXPECT_TRUE(rule);
  }
}

// The gate's --fail-on takes exactly the kinds of the list.
TEST(Kinds, GateFailOnTakesEveryKind) {
  test::TempDir dir;
  const std::string run = dir.file("run");
  ASSERT_EQ(test::run_process({VKLEAK_GEN_RUN, run, "--objects", "10", "--clean", "--teardown"})
                .exit_code,
            0);
  test::ProcessOptions options;
  options.unset_env = {"VKLEAK_*", "NO_COLOR"};
  options.set_env = {{"DEBUGINFOD_URLS", ""}};
  for (const KindInfo& k : kKinds) {
    const auto r = test::run_process({VKLEAK_BIN, "gate", run, "--fail-on", k.name}, options);
    EXPECT_EQ(r.exit_code, 0) << k.name << "\n" << r.err;
  }
  EXPECT_EQ(test::run_process({VKLEAK_BIN, "gate", run, "--fail-on", "leaks"}, options).exit_code,
            2);
}

}  // namespace
}  // namespace vkleak
