// Whether a run's snapshots cover it whole (src/analysis/completeness.h), and the gate's exit
// code 3 for one they do not: a missing or unwritten snapshot, no end-of-run snapshot, a crash,
// two processes under one pid. A run the gate never saw whole must never pass.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/completeness.h"
#include "core/snapshot_reader.h"
#include "snapshot_builder.h"
#include "test_support.h"

namespace vkleak {
namespace {

namespace fs = std::filesystem;
using test::SnapshotBuilder;

analysis::Completeness check(const std::vector<SnapshotBuilder>& snapshots) {
  analysis::CompletenessCheck c;
  for (const SnapshotBuilder& b : snapshots) c.add(b.read());
  return c.finish();
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

TEST(CompletenessTest, AWholeRunIsComplete) {
  const analysis::Completeness c =
      check({SnapshotBuilder(5, 0, format::Reason::kFrame, 10),
             SnapshotBuilder(5, 1, format::Reason::kDeviceDestroy, 20),
             SnapshotBuilder(5, 2, format::Reason::kInstanceDestroy, 20)
                 .top(format::top::kFinal, "true")});
  EXPECT_TRUE(c.problems.empty()) << joined(c.problems);
  EXPECT_TRUE(c.crash_signal.empty());
}

TEST(CompletenessTest, FilesOfOlderLayersEndWithTheirTeardown) {
  // No "final" member: an instance_destroy or exit snapshot at the end is the end of the run.
  EXPECT_TRUE(check({SnapshotBuilder(5, 0, format::Reason::kExit, 3)}).problems.empty());
  EXPECT_FALSE(check({SnapshotBuilder(5, 0, format::Reason::kDeviceDestroy, 3)}).problems.empty());
}

TEST(CompletenessTest, AFailedWriteTheLayerRecordedIsNamedWithItsError) {
  // The incident of issue 15: a full disk lost the device_destroy snapshot, the small
  // instance_destroy one made it.
  const analysis::Completeness c = check(
      {SnapshotBuilder(5, 1, format::Reason::kInstanceDestroy, 20)
           .top(format::top::kFinal, "true")
           .top(format::top::kUnwrittenCount, "1")
           .top(
               format::top::kUnwritten,
               R"([{"sequence":0,"reason":"device_destroy","error":"No space left on device"}])")});
  ASSERT_EQ(c.problems.size(), 1u) << joined(c.problems);
  EXPECT_EQ(c.problems[0],
            "the layer could not write 1 snapshot: #0 (device_destroy): No space left on device");
}

TEST(CompletenessTest, HolesInTheSequenceAreMissingSnapshots) {
  const analysis::Completeness c =
      check({SnapshotBuilder(5, 0, format::Reason::kFrame, 10),
             SnapshotBuilder(5, 3, format::Reason::kFrame, 40),
             SnapshotBuilder(5, 4, format::Reason::kExit, 40).top(format::top::kFinal, "true")});
  ASSERT_EQ(c.problems.size(), 1u) << joined(c.problems);
  EXPECT_EQ(c.problems[0], "2 snapshots are missing: #1, #2 (not among the inputs, or deleted)");
}

TEST(CompletenessTest, AHugeClaimedSequenceIsCountedNotWalked) {
  const analysis::Completeness c =
      check({SnapshotBuilder(5, uint64_t{1} << 62, format::Reason::kExit, 40)
                 .top(format::top::kFinal, "true")});
  ASSERT_EQ(c.problems.size(), 1u) << joined(c.problems);
  EXPECT_NE(c.problems[0].find("4,611,686,018,427,387,904 snapshots are missing: #0, #1, #2, "
                               "#3, #4 and 4,611,686,018,427,387,899 more"),
            std::string::npos)
      << c.problems[0];
}

TEST(CompletenessTest, ARunWithoutItsEndOfRunSnapshotIsIncomplete) {
  const analysis::Completeness c = check({SnapshotBuilder(5, 0, format::Reason::kFrame, 10),
                                          SnapshotBuilder(5, 1, format::Reason::kFrame, 20)});
  ASSERT_EQ(c.problems.size(), 1u) << joined(c.problems);
  EXPECT_EQ(c.problems[0].rfind("the run has no end-of-run snapshot: the last is #1 (frame) at "
                                "frame 20",
                                0),
            0u)
      << c.problems[0];
  // A device_destroy snapshot marked as not final (another instance lives on) is no end either.
  EXPECT_FALSE(check({SnapshotBuilder(5, 0, format::Reason::kInstanceDestroy, 3)
                          .top(format::top::kFinal, "false")})
                   .problems.empty());
}

TEST(CompletenessTest, ACrashIsSaidWithItsSignal) {
  const analysis::Completeness c = check(
      {SnapshotBuilder(5, 0, format::Reason::kFrame, 10),
       SnapshotBuilder(5, 1, format::Reason::kCrash, 12).top(format::top::kLabel, "\"SIGSEGV\"")});
  EXPECT_EQ(c.crash_signal, "SIGSEGV");
  ASSERT_EQ(c.problems.size(), 1u) << joined(c.problems);
  EXPECT_EQ(c.problems[0].rfind("the run crashed (SIGSEGV) at frame 12", 0), 0u) << c.problems[0];
}

TEST(CompletenessTest, TwoProcessesUnderOnePidAndFramesGoingBack) {
  const analysis::Completeness c = check({SnapshotBuilder(1, 0, format::Reason::kFrame, 50),
                                          SnapshotBuilder(1, 0, format::Reason::kFrame, 5),
                                          SnapshotBuilder(1, 1, format::Reason::kFrame, 4),
                                          SnapshotBuilder(1, 2, format::Reason::kExit, 60)});
  ASSERT_EQ(c.problems.size(), 1u) << joined(c.problems);
  EXPECT_EQ(c.problems[0].rfind("snapshot #0 appears 2 times: several processes with pid 1", 0), 0u)
      << c.problems[0];
  ASSERT_EQ(c.warnings.size(), 1u) << joined(c.warnings);
  EXPECT_EQ(c.warnings[0].rfind("frames go backwards: snapshot #1 is at frame 4", 0), 0u)
      << c.warnings[0];
}

TEST(CompletenessTest, CoalescedSignalsAreCounted) {
  const analysis::Completeness c = check({SnapshotBuilder(5, 0, format::Reason::kSignal, 10),
                                          SnapshotBuilder(5, 1, format::Reason::kExit, 10)
                                              .top(format::top::kFinal, "true")
                                              .top(format::top::kCoalescedSignals, "41")});
  EXPECT_TRUE(c.problems.empty()) << joined(c.problems);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0],
            "41 snapshot signals arrived while one was pending and shared its snapshot");
}

constexpr const char* kRunA = "\"0123456789abcdef\"";
constexpr const char* kRunB = "\"fedcba9876543210\"";

TEST(CompletenessTest, AnInstanceDestroyOfARunWithAnIdIsTheEndOnlyWhenMarkedFinal) {
  // Layers that write run ids say "final" on every snapshot; an instance_destroy is the end only
  // when it says true (marked at exit): a probe instance's early destroy never ends the run.
  const analysis::Completeness early =
      check({SnapshotBuilder(5, 0, format::Reason::kInstanceDestroy, 0).top(format::top::kRunId,
                                                                            kRunA)});
  ASSERT_EQ(early.problems.size(), 1u) << joined(early.problems);
  EXPECT_EQ(early.problems[0].rfind("the run has no end-of-run snapshot: the last is #0 "
                                    "(instance_destroy)",
                                    0),
            0u)
      << early.problems[0];
  EXPECT_FALSE(check({SnapshotBuilder(5, 0, format::Reason::kInstanceDestroy, 0)
                          .top(format::top::kRunId, kRunA)
                          .top(format::top::kFinal, "false"),
                      SnapshotBuilder(5, 1, format::Reason::kFrame, 3)
                          .top(format::top::kRunId, kRunA)
                          .top(format::top::kFinal, "false")})
                   .problems.empty());
  EXPECT_TRUE(check({SnapshotBuilder(5, 0, format::Reason::kInstanceDestroy, 0)
                         .top(format::top::kRunId, kRunA)
                         .top(format::top::kFinal, "false"),
                     SnapshotBuilder(5, 1, format::Reason::kInstanceDestroy, 3)
                         .top(format::top::kRunId, kRunA)
                         .top(format::top::kFinal, "true")})
                  .problems.empty());
}

TEST(CompletenessTest, SnapshotsOfTwoRunsAreNeverOneRun) {
  const analysis::Completeness c =
      check({SnapshotBuilder(5, 0, format::Reason::kFrame, 1).top(format::top::kRunId, kRunA),
             SnapshotBuilder(5, 1, format::Reason::kExit, 2)
                 .top(format::top::kRunId, kRunB)
                 .top(format::top::kFinal, "true")});
  ASSERT_EQ(c.problems.size(), 1u) << joined(c.problems);
  EXPECT_EQ(c.problems[0],
            "snapshots of two runs are mixed: pid 5 run 0123456789abcdef and pid 5 run "
            "fedcba9876543210 (give each run its own directory)");
}

TEST(CompletenessTest, AFileWhoseContentIsAnotherRunIsNotTheRuns) {
  // Another process's final snapshot renamed into a killed run's directory: its name says
  // pid 5, its content pid 6.
  test::TempDir tmp;
  const std::string dir = tmp.file("run");
  fs::create_directories(dir);
  const std::string killed = SnapshotBuilder(5, 0, format::Reason::kFrame, 1).write(dir);
  const std::string other = SnapshotBuilder(6, 1, format::Reason::kExit, 2)
                                .top(format::top::kFinal, "true")
                                .write(dir);
  const std::string renamed = dir + "/vkleak-5-0001-exit.json";
  fs::rename(other, renamed);
  analysis::CompletenessCheck check;
  check.add(read_snapshot(killed));
  check.add(read_snapshot(renamed));
  const analysis::Completeness c = check.finish();
  ASSERT_FALSE(c.problems.empty());
  EXPECT_EQ(c.problems[0],
            "snapshot vkleak-5-0001-exit.json is not the run its name says: its content is pid 6 "
            "snapshot #1 (a file of another process renamed or copied here)");

  // Likewise a run id: the name says run A, the content run B.
  const std::string a = SnapshotBuilder(5, 0, format::Reason::kExit, 2)
                            .top(format::top::kRunId, kRunB)
                            .top(format::top::kFinal, "true")
                            .write(dir);
  const std::string as_a = dir + "/vkleak-5-0123456789abcdef-0000-exit.json";
  fs::rename(a, as_a);
  analysis::CompletenessCheck by_id;
  by_id.add(read_snapshot(as_a));
  const analysis::Completeness d = by_id.finish();
  ASSERT_EQ(d.problems.size(), 1u) << joined(d.problems);
  EXPECT_NE(d.problems[0].find("its content is pid 5 run fedcba9876543210 snapshot #0"),
            std::string::npos)
      << d.problems[0];
}

// The gate end to end: exit 3 and the reason for each kind of hole, --allow-incomplete to judge
// by findings alone, and the JSON's verdict.
class GateIncompleteTest : public ::testing::Test {
 protected:
  test::ProcessResult vkleak(std::vector<std::string> args) {
    args.insert(args.begin(), VKLEAK_BIN);
    test::ProcessOptions options;
    options.unset_env = {"VKLEAK_*", "NO_COLOR"};
    return test::run_process(args, options);
  }
  std::string dir(const std::string& name, const std::vector<SnapshotBuilder>& snapshots) {
    const std::string d = tmp_.file(name);
    fs::create_directories(d);
    for (const SnapshotBuilder& b : snapshots) b.write(d);
    return d;
  }
  test::TempDir tmp_;
};

TEST_F(GateIncompleteTest, ExitCodeThreeWithThePlainReason) {
  const std::string whole = dir("whole", {SnapshotBuilder(9, 0, format::Reason::kDeviceDestroy, 5),
                                          SnapshotBuilder(9, 1, format::Reason::kInstanceDestroy, 5)
                                              .top(format::top::kFinal, "true")});
  EXPECT_EQ(vkleak({"gate", whole}).exit_code, 0);

  const std::string lost = dir(
      "lost",
      {SnapshotBuilder(9, 1, format::Reason::kInstanceDestroy, 5)
           .top(format::top::kFinal, "true")
           .top(format::top::kUnwrittenCount, "1")
           .top(
               format::top::kUnwritten,
               R"([{"sequence":0,"reason":"device_destroy","error":"No space left on device"}])")});
  const test::ProcessResult r = vkleak({"gate", lost, "--color", "never"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("run pid 9 was not checked whole: the layer could not write 1 snapshot: #0 "
                       "(device_destroy): No space left on device"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("Gate: INCOMPLETE"), std::string::npos) << r.out;
  const nlohmann::json doc = nlohmann::json::parse(vkleak({"gate", lost, "--format", "json"}).out);
  EXPECT_EQ(doc["gate"]["result"], "incomplete");
  EXPECT_EQ(doc["runs"][0]["complete"], false);
  EXPECT_EQ(doc["runs"][0]["incomplete"].size(), 1u);

  const test::ProcessResult allowed = vkleak({"gate", lost, "--allow-incomplete"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_NE(allowed.err.find("allowed by --allow-incomplete"), std::string::npos) << allowed.err;

  const std::string crashed = dir(
      "crashed",
      {SnapshotBuilder(9, 0, format::Reason::kFrame, 5),
       SnapshotBuilder(9, 1, format::Reason::kCrash, 6).top(format::top::kLabel, "\"SIGABRT\"")});
  const test::ProcessResult c = vkleak({"gate", crashed});
  EXPECT_EQ(c.exit_code, 3);
  EXPECT_NE(c.err.find("the run crashed (SIGABRT)"), std::string::npos) << c.err;

  const std::string killed = dir("killed", {SnapshotBuilder(9, 0, format::Reason::kFrame, 5)});
  EXPECT_EQ(vkleak({"gate", killed}).exit_code, 3);
  // The report is no gate: it says so and exits 0.
  const test::ProcessResult report = vkleak({"report", killed, "--color", "never"});
  EXPECT_EQ(report.exit_code, 0);
  EXPECT_NE(report.out.find("incomplete: the run has no end-of-run snapshot"), std::string::npos)
      << report.out;
}

TEST_F(GateIncompleteTest, TwoRunsUnderOnePidAreTwoRuns) {
  // A clean run and a killed one with the same pid in one directory (a rerun in a container):
  // their files do not collide, and the killed run fails the gate.
  const std::string d =
      dir("same_pid", {SnapshotBuilder(9, 0, format::Reason::kDeviceDestroy, 5)
                           .top(format::top::kRunId, kRunA)
                           .top(format::top::kFinal, "false"),
                       SnapshotBuilder(9, 1, format::Reason::kInstanceDestroy, 5)
                           .top(format::top::kRunId, kRunA)
                           .top(format::top::kFinal, "true"),
                       SnapshotBuilder(9, 0, format::Reason::kFrame, 7)
                           .top(format::top::kRunId, kRunB)
                           .top(format::top::kFinal, "false")});
  EXPECT_EQ(std::distance(fs::directory_iterator(d), fs::directory_iterator()), 3);
  const test::ProcessResult r = vkleak({"gate", d, "--color", "never"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("the run has no end-of-run snapshot: the last is #0 (frame)"),
            std::string::npos)
      << r.err;
  const nlohmann::json doc = nlohmann::json::parse(vkleak({"gate", d, "--format", "json"}).out);
  ASSERT_EQ(doc["runs"].size(), 2u);
  EXPECT_EQ(doc["runs"][0]["complete"], true);
  EXPECT_EQ(doc["runs"][1]["complete"], false);
}

TEST_F(GateIncompleteTest, FindingsOfAnIncompleteRunStillFailWhenAllowed) {
  test::ObjectSpec leaked(10, "VkBuffer", std::string("leak.0"), 1, 4096);
  const std::string d =
      dir("leaky", {SnapshotBuilder(9, 1, format::Reason::kExit, 5).object(leaked)});
  EXPECT_EQ(vkleak({"gate", d}).exit_code, 3);  // incomplete wins: #0 is missing
  EXPECT_EQ(vkleak({"gate", d, "--allow-incomplete"}).exit_code, 1);
}

}  // namespace
}  // namespace vkleak
