// vkleak report / diff / gate end to end, on generated runs: exit codes, formats and files, runs
// of several processes, and bad input (never a crash, always exit 2 with the file named, never
// modified).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "format/snapshot_format.h"
#include "snapshot_builder.h"
#include "test_support.h"

namespace vkleak {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::ProcessOptions;
using test::ProcessResult;
using test::read_file;
using test::run_process;
using test::TempDir;
using test::write_file;

std::string describe(const ProcessResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout:\n" + r.out.substr(0, 3000) +
         "\nstderr:\n" + r.err.substr(0, 3000);
}

ProcessResult vkleak(std::vector<std::string> args) {
  args.insert(args.begin(), VKLEAK_BIN);
  ProcessOptions options;
  options.unset_env = {"VKLEAK_*", "NO_COLOR"};
  options.set_env = {{"DEBUGINFOD_URLS", ""}};
  return run_process(args, options);
}

void generate(const std::string& dir, std::vector<std::string> flags) {
  flags.insert(flags.begin(), {VKLEAK_GEN_RUN, dir, "--objects", "300"});
  const ProcessResult r = run_process(flags);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
}

class CommandsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    generate(leaky(), {"--teardown"});
    generate(clean(), {"--clean", "--teardown", "--pid", "77"});
  }
  std::string leaky() const { return dir_.file("leaky"); }
  std::string clean() const { return dir_.file("clean"); }
  std::string file(const std::string& name) const { return dir_.file(name); }

  TempDir dir_;
};

TEST_F(CommandsTest, ReportFindsEveryKindOfTheGeneratedRun) {
  const ProcessResult r = vkleak({"report", leaky(), "--format", "json", "--no-symbolize"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["format"], "vkleak-findings");
  std::set<std::string> kinds;
  for (const json& f : doc["findings"]) kinds.insert(f["kind"].get<std::string>());
  EXPECT_EQ(kinds, (std::set<std::string>{"leak_at_exit", "growth", "retained", "stale_view",
                                          "orphaned_memory", "destroyed_in_flight"}));
  ASSERT_EQ(doc["runs"].size(), 1u);
  EXPECT_EQ(doc["runs"][0]["snapshots"].size(), 8u);
  EXPECT_EQ(doc["series"]["frames"].size(), 6u);
}

TEST_F(CommandsTest, ReportSaysNothingAboutACleanRun) {
  const ProcessResult r = vkleak({"report", clean(), "--color", "never"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out.rfind("vkleak: no findings in 1 run", 0), 0u) << r.out;
}

TEST_F(CommandsTest, SeveralProcessesAreSeveralRunsEachLabelled) {
  fs::create_directories(file("both"));
  for (const std::string& dir : {leaky(), clean()}) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      fs::copy_file(entry.path(), file("both") + "/" + entry.path().filename().string());
    }
  }
  const ProcessResult r = vkleak({"report", file("both"), "--color", "never", "--no-symbolize"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("in 2 runs"), std::string::npos) << r.out.substr(0, 300);
  EXPECT_NE(r.out.find("Run pid 77: /opt/app/bin/app"), std::string::npos);
  EXPECT_NE(r.out.find("Run pid 4242: /opt/app/bin/app"), std::string::npos);
  const json doc = json::parse(vkleak({"report", file("both"), "--format", "json"}).out);
  ASSERT_EQ(doc["runs"].size(), 2u);
  EXPECT_EQ(doc["runs"][0]["pid"], 77);
  EXPECT_EQ(doc["runs"][0]["findings"], 0);
  for (const json& f : doc["findings"]) EXPECT_EQ(f["pid"], 4242);
}

TEST_F(CommandsTest, EveryFormatAndOutputFile) {
  const ProcessResult r =
      vkleak({"report", leaky(), "--format", "markdown", "--json", file("f.json"), "--sarif",
              file("f.sarif"), "--junit", file("f.xml"), "--markdown", file("f.md")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("| # | Kind | Type |"), std::string::npos);
  EXPECT_EQ(read_file(file("f.md")), r.out);
  EXPECT_EQ(json::parse(read_file(file("f.json")))["version"], 1);
  EXPECT_EQ(json::parse(read_file(file("f.sarif")))["version"], "2.1.0");
  EXPECT_NE(read_file(file("f.xml")).find("<testsuites"), std::string::npos);
  for (const char* format : {"text", "json", "junit", "sarif"}) {
    EXPECT_EQ(vkleak({"report", leaky(), "--format", format}).exit_code, 0) << format;
  }
}

TEST_F(CommandsTest, GateExitCodes) {
  EXPECT_EQ(vkleak({"gate", clean()}).exit_code, 0);
  const ProcessResult fail = vkleak({"gate", leaky(), "--color", "never"});
  EXPECT_EQ(fail.exit_code, 1) << describe(fail);
  EXPECT_NE(fail.out.find("Gate: FAIL"), std::string::npos);

  // Its own findings as the baseline: nothing new.
  ASSERT_EQ(vkleak({"report", leaky(), "--json", file("base.json"), "--format", "json"}).exit_code,
            0);
  const ProcessResult base = vkleak({"gate", leaky(), "--baseline", file("base.json")});
  EXPECT_EQ(base.exit_code, 0) << describe(base);

  write_file(file("supp.txt"),
             "# everything from the generator's app\nkind=* frame=app+*\n"
             "kind=destroyed_in_flight  # no call site to match\n");
  const ProcessResult supp = vkleak({"gate", leaky(), "--suppressions", file("supp.txt")});
  EXPECT_EQ(supp.exit_code, 0) << describe(supp);

  EXPECT_EQ(vkleak({"gate", leaky(), "--max-findings", "100"}).exit_code, 0);
  EXPECT_EQ(vkleak({"gate", leaky(), "--fail-on", "invalid_destroy"}).exit_code, 0);
  EXPECT_EQ(vkleak({"gate", leaky(), "--fail-on", "growth,retained"}).exit_code, 1);

  const ProcessResult json_out = vkleak({"gate", leaky(), "--format", "json"});
  EXPECT_EQ(json_out.exit_code, 1);
  const json doc = json::parse(json_out.out);
  EXPECT_EQ(doc["gate"]["result"], "fail");
  EXPECT_EQ(doc["findings"][0]["status"], "new");
}

// vkleak baseline (issue 36): writes the known problems, the gate passes on them, --update is
// stable, a fixed problem is named, and a baseline of another program is exit code 4.
TEST_F(CommandsTest, BaselineWritesUpdatesAndTheGateReadsIt) {
  const std::string path = file("vkleak-baseline.json");
  const ProcessResult written = vkleak({"baseline", leaky(), "-o", path});
  ASSERT_EQ(written.exit_code, 0) << describe(written);
  const std::string text = read_file(path);
  const json doc = json::parse(text);
  EXPECT_EQ(doc["format"], "vkleak-baseline");
  EXPECT_EQ(doc["programs"], json::array({"app"}));
  EXPECT_FALSE(doc["entries"].empty());
  EXPECT_EQ(text.find(dir_.file("")), std::string::npos) << "no run paths";
  const ProcessResult pass = vkleak({"gate", leaky(), "--baseline", path, "--format", "json"});
  EXPECT_EQ(pass.exit_code, 0) << describe(pass);
  EXPECT_EQ(json::parse(pass.out)["gate"]["fixed"], json::array());

  // --update of the same problems: the same bytes, nothing added or removed.
  const ProcessResult same = vkleak({"baseline", leaky(), "-o", path, "--update"});
  EXPECT_EQ(same.exit_code, 0) << describe(same);
  EXPECT_EQ(read_file(path), text);
  EXPECT_NE(same.err.find("(0 added, 0 removed)"), std::string::npos) << same.err;

  // Against a clean run every entry is fixed: named by the gate, removed by --update.
  const ProcessResult fixed = vkleak({"gate", clean(), "--baseline", path, "--format", "json"});
  EXPECT_EQ(fixed.exit_code, 0) << describe(fixed);
  EXPECT_EQ(json::parse(fixed.out)["gate"]["fixed"].size(), doc["entries"].size());
  EXPECT_NE(fixed.err.find("fixed: "), std::string::npos) << fixed.err;
  const ProcessResult removed = vkleak({"baseline", clean(), "-o", path, "--update"});
  EXPECT_EQ(removed.exit_code, 0) << describe(removed);
  EXPECT_NE(removed.err.find("removed (fixed): "), std::string::npos) << removed.err;
  EXPECT_TRUE(json::parse(read_file(path))["entries"].empty());

  // Another program's baseline: refused, unless asked for.
  json other = doc;
  other["programs"] = json::array({"editor"});
  write_file(file("other.json"), other.dump());
  const ProcessResult refused = vkleak({"gate", leaky(), "--baseline", file("other.json")});
  EXPECT_EQ(refused.exit_code, 4) << describe(refused);
  EXPECT_NE(refused.err.find("the baseline is of \"editor\", the snapshots are of \"app\""),
            std::string::npos)
      << refused.err;
  EXPECT_EQ(vkleak({"gate", leaky(), "--baseline", file("other.json"), "--baseline-any-program"})
                .exit_code,
            0);
  EXPECT_EQ(vkleak({"baseline", leaky(), "-o", file("other.json"), "--update"}).exit_code, 4);
  EXPECT_EQ(vkleak({"baseline", leaky(), "-o", file("missing.json"), "--update"}).exit_code, 2);
}

TEST_F(CommandsTest, GateUsageAndInputErrorsAreExitCode2) {
  EXPECT_EQ(vkleak({"gate"}).exit_code, 2);
  EXPECT_EQ(vkleak({"gate", clean(), "--bogus"}).exit_code, 2);
  EXPECT_EQ(vkleak({"gate", clean(), "--fail-on", "leaks"}).exit_code, 2);
  EXPECT_EQ(vkleak({"gate", clean(), "--max-findings", "-1"}).exit_code, 2);
  EXPECT_EQ(vkleak({"gate", file("missing")}).exit_code, 2);
  fs::create_directories(file("empty"));
  const ProcessResult empty = vkleak({"gate", file("empty")});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("no snapshots"), std::string::npos) << empty.err;
  write_file(file("bad-supp.txt"), "kind=growth\nwhat=ever\n");
  const ProcessResult supp = vkleak({"gate", clean(), "--suppressions", file("bad-supp.txt")});
  EXPECT_EQ(supp.exit_code, 2);
  EXPECT_NE(supp.err.find("bad-supp.txt:2: unknown key 'what'"), std::string::npos) << supp.err;
  write_file(file("bad-base.json"), "{\"format\": \"vkleak-snapshot\"}");
  EXPECT_EQ(vkleak({"gate", clean(), "--baseline", file("bad-base.json")}).exit_code, 2);
  EXPECT_EQ(vkleak({"gate", clean(), "--baseline", file("missing.json")}).exit_code, 2);
}

// One snapshot file of the clean run, damaged in every way a file can be.
class BadInputTest : public CommandsTest {
 protected:
  std::string damaged(const std::string& name, const std::string& content) {
    const std::string dir = file("bad-" + name);
    fs::create_directories(dir);
    for (const auto& entry : fs::directory_iterator(clean())) {
      fs::copy_file(entry.path(), dir + "/" + entry.path().filename().string());
    }
    const std::string victim = dir + "/vkleak-77-0002-frame.json";
    write_file(victim, content);
    return victim;
  }
};

TEST_F(BadInputTest, EveryCommandRefusesWithExitCode2AndNeverModifiesInput) {
  const std::string good = read_file(clean() + "/vkleak-77-0002-frame.json");
  std::string newer = good;
  newer.replace(newer.find("\"version\":2"), 11, "\"version\":9");
  std::string corrupted = good;
  corrupted[corrupted.size() / 2] = '\x01';
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"truncated", good.substr(0, good.size() / 3)},
      {"corrupted", corrupted},
      {"foreign", "{\"format\": \"something-else\", \"version\": 1}"},
      {"newer", newer},
      {"empty", ""},
      {"binary", std::string("\x7f"
                             "ELF\x02\x01\x01\0\0\0",
                             10)},
  };
  for (const auto& [name, content] : cases) {
    SCOPED_TRACE(name);
    const std::string victim = damaged(name, content);
    struct stat before;
    ASSERT_EQ(::stat(victim.c_str(), &before), 0);
    const std::string dir = fs::path(victim).parent_path().string();
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"report", dir},
          {"gate", dir},
          {"report", victim},
          {"diff", victim, clean() + "/vkleak-77-0001-frame.json"}}) {
      const ProcessResult r = vkleak(args);
      EXPECT_EQ(r.exit_code, 2) << args[0] << "\n" << describe(r);
      EXPECT_NE(r.err.find(victim), std::string::npos) << r.err;
      EXPECT_EQ(r.err.find("terminate"), std::string::npos) << r.err;
    }
    struct stat after;
    ASSERT_EQ(::stat(victim.c_str(), &after), 0);
    EXPECT_EQ(read_file(victim), content);
    EXPECT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
    EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  }
}

TEST_F(BadInputTest, HugeFilesAreRefusedBeforeReading) {
  const std::string victim = damaged("huge", "");
  // Sparse: 9 GiB that take no disk, over the reader's 8 GiB limit.
  ASSERT_EQ(::truncate(victim.c_str(), off_t{9} << 30), 0);
  const ProcessResult r = vkleak({"report", fs::path(victim).parent_path().string()});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_NE(r.err.find("more than the limit"), std::string::npos) << r.err;
}

TEST_F(CommandsTest, DiffTwoAndThree) {
  const std::string a = leaky() + "/vkleak-4242-0000-frame.json";
  const std::string b = leaky() + "/vkleak-4242-0002-frame.json";
  const std::string c = leaky() + "/vkleak-4242-0004-frame.json";
  const ProcessResult two = vkleak({"diff", a, b, "--format", "json"});
  ASSERT_EQ(two.exit_code, 0) << describe(two);
  const json d2 = json::parse(two.out);
  EXPECT_EQ(d2["format"], "vkleak-diff");
  EXPECT_EQ(d2["mode"], "two");
  EXPECT_GT(d2["born"]["count"].get<uint64_t>(), 60u);  // churn + 60 frames of leaks
  const ProcessResult three = vkleak({"diff", a, b, c, "--color", "never"});
  ASSERT_EQ(three.exit_code, 0) << describe(three);
  EXPECT_NE(three.out.find("Born between A and B, still alive in C:"), std::string::npos);
  EXPECT_NE(three.out.find("By creation call site"), std::string::npos);
  EXPECT_EQ(vkleak({"diff", a}).exit_code, 2);
  EXPECT_EQ(vkleak({"diff", a, b, c, a}).exit_code, 2);
}

// Issue 26: a call site's frames were unbounded on read; 2M frames (a 35 MB snapshot) made
// `report --format json` die of std::bad_alloc, 1M gave a 259 MB report. The reader keeps as many
// as the layer writes (format::kMaxCallsiteFrames).
TEST(HugeCallSiteTest, ReportKeepsAsManyFramesAsTheLayerWrites) {
  TempDir dir;
  const std::string run = dir.file("run");
  fs::create_directories(run);
  constexpr uint64_t kFrames = 300000;
  std::vector<uint64_t> offsets(kFrames);
  for (uint64_t i = 0; i < kFrames; ++i) offsets[i] = 0x1000 + 0x10 * i;
  test::SnapshotBuilder b(900, 1, format::Reason::kExit, 10);
  const int site = b.callsite_at(offsets);
  b.object({1, "VkInstance", std::nullopt, 0, 0, -1});
  b.object({2, "VkDevice", std::nullopt, 0, 0, -1});
  b.object({3, "VkBuffer", "leaked", 1, 4096, site});
  b.write(run);
  const ProcessResult r = vkleak({"report", run, "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_LT(r.out.size(), size_t{1} << 20) << "the report does not grow with the frames";
  const json report = json::parse(r.out);
  size_t callsites = 0;
  for (const json& f : report["findings"]) {
    // At exit without teardown the buffer is in the instance's finding, by call site (issue 36).
    for (const json& g : f["contents"]) {
      if (g["callsite_frames"].empty()) continue;  // the device
      ++callsites;
      EXPECT_EQ(g["callsite_frames"].size(), format::kMaxCallsiteFrames) << g.dump().substr(0, 300);
    }
    if (!f.contains("callsite") || f["callsite"].empty()) continue;  // the instance
    ++callsites;
    EXPECT_EQ(f["callsite"].size(), format::kMaxCallsiteFrames) << f.dump().substr(0, 300);
  }
  EXPECT_GT(callsites, 0u) << r.out.substr(0, 3000);
}

}  // namespace
}  // namespace vkleak
