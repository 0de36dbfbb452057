// What every finding carries, however it was found: ranking, names never silently cut,
// examples, call sites, runs of several snapshots.
#include <gtest/gtest.h>

#include "analysis/messages.h"
#include "core/summary.h"
#include "test_util.h"

namespace vkleak {
namespace {

using analysis::FindingKind;
using test::SnapshotBuilder;

constexpr uint64_t kPid = 700;

TEST(AnalyzerTest, RankedByBytesThenCount) {
  SnapshotBuilder s(kPid, 1, format::Reason::kDeviceDestroy, 10);
  const int few_big = s.callsite(0x1000);
  const int many_small = s.callsite(0x2000);
  const int many_empty = s.callsite(0x3000);
  s.object({10, "VkImage", "big", 0, 1 << 20, few_big});
  for (uint64_t i = 0; i < 20; ++i) s.object({100 + i, "VkBuffer", "small", 0, 16, many_small});
  for (uint64_t i = 0; i < 30; ++i) s.object({200 + i, "VkSampler", "s", 0, 0, many_empty});
  s.object({300, "VkFence", "f", 0, 0, s.callsite(0x4000)});
  const analysis::RunReport r = test::analyse({s});
  ASSERT_EQ(r.findings.size(), 4u);
  EXPECT_EQ(r.findings[0].object_type, "VkImage");
  EXPECT_EQ(r.findings[1].object_type, "VkBuffer");
  EXPECT_EQ(r.findings[2].object_type, "VkSampler");
  EXPECT_EQ(r.findings[3].object_type, "VkFence");
}

TEST(AnalyzerTest, NamesAreNeverCutSilently) {
  SnapshotBuilder s(kPid, 1, format::Reason::kDeviceDestroy, 10);
  const int site = s.callsite(0x1000);
  for (uint64_t i = 0; i < 150; ++i) {
    s.object({100 + i, "VkBuffer", "leak." + std::to_string(i), 0, 16, site});
  }
  analysis::AnalysisOptions options = test::test_options();
  options.max_names = 100;
  options.max_examples = 3;
  const analysis::RunReport r = test::analyse({s}, options);
  const analysis::Finding* f = test::only(r, FindingKind::kLeakAtExit, "VkBuffer");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->names.size(), 100u);
  EXPECT_EQ(f->names_omitted, 50u);
  // Natural order: leak.2 before leak.10.
  EXPECT_EQ(f->names[2], "leak.2");
  EXPECT_EQ(f->names[10], "leak.10");
  EXPECT_EQ(f->examples.size(), 3u);
  EXPECT_EQ(f->examples_omitted, 147u);
}

TEST(AnalyzerTest, GroupsWithoutCallSitesGoByNamePattern) {
  SnapshotBuilder s(kPid, 1, format::Reason::kDeviceDestroy, 10);
  for (uint64_t i = 0; i < 4; ++i) s.object({100 + i, "VkBuffer", "leak." + std::to_string(i)});
  s.object({200, "VkBuffer", "other"});
  s.object({201, "VkBuffer", std::nullopt});
  const analysis::RunReport r = test::analyse({s});
  ASSERT_EQ(r.findings.size(), 3u);
  EXPECT_EQ(r.findings[0].count, 4u);
  EXPECT_EQ(r.findings[0].name_pattern, "leak.*");
  EXPECT_EQ(r.findings[0].callsite_source, "none");
  EXPECT_TRUE(r.findings[0].callsite.empty());
}

TEST(AnalyzerTest, RunFacts) {
  SnapshotBuilder a(kPid, 0, format::Reason::kFrame, 25);
  SnapshotBuilder b(kPid, 1, format::Reason::kDeviceDestroy, 30);
  const analysis::RunReport r = test::analyse({a, b});
  EXPECT_EQ(r.pid, kPid);
  EXPECT_EQ(r.executable, "/opt/app/bin/app");
  EXPECT_EQ(r.frame_boundary, "submit");
  ASSERT_EQ(r.snapshots.size(), 2u);
  EXPECT_EQ(r.snapshots[1].reason, "device_destroy");
  EXPECT_EQ(r.series.frames, std::vector<uint64_t>{25}) << "teardown snapshots are no points";
  EXPECT_TRUE(r.findings.empty());
}

TEST(NamePatternTest, DigitRunsBecomeStars) {
  EXPECT_EQ(analysis::name_pattern("texture.view.12"), "texture.view.*");
  EXPECT_EQ(analysis::name_pattern("frame.cmd.0"), "frame.cmd.*");
  EXPECT_EQ(analysis::name_pattern("a1b22c"), "a*b*c");
  EXPECT_EQ(analysis::name_pattern(""), "");
  EXPECT_EQ(analysis::join_patterns({"x.1", "x.2", "y"}), "x.*|y");
  EXPECT_TRUE(analysis::natural_less("a.9", "a.10"));
  EXPECT_FALSE(analysis::natural_less("a.10", "a.9"));
  EXPECT_TRUE(analysis::natural_less("a", "b"));
}

TEST(FrameCountingTest, NotesSayHowFramesWereCounted) {
  analysis::FrameCounting c;
  c.max_frame = 300;
  c.submits = 300;
  EXPECT_EQ(analysis::frame_counting_note(c), "") << "frames at explicit submits: nothing to say";
  EXPECT_EQ(analysis::periodic_snapshots_hint(c), "vkleak run --every N takes them");
  c.at_submits_auto = true;
  EXPECT_EQ(analysis::frame_counting_note(c), kFramesAtSubmitsNote);

  analysis::FrameCounting never;  // frame_boundary=present, a program that never presents
  never.submits = 4000;
  EXPECT_EQ(analysis::frame_counting_note(never),
            "frames never ended: 4,000 submit(s) and no present with frame_boundary=present "
            "(--frame-boundary auto or submit counts frames at submits)");
  EXPECT_EQ(analysis::periodic_snapshots_hint(never),
            "frames never ended: see the note on frame_boundary");
  never.presents = 1;
  EXPECT_EQ(analysis::frame_counting_note(never), "") << "it presented: frames did end";
}

}  // namespace
}  // namespace vkleak
