// Misuse findings read like ASan's reports: destroyed_in_flight, invalid_destroy (per reason) and
// stale_view carry labeled stacks, their headlines name the object, and every output shows them.
// The snapshots are written and read back by the real reader; the fields of the misuse-stacks
// contract (issue 16) are then set on the model, as the reader will set them from the file.
#include <gtest/gtest.h>

#include <unistd.h>

#include "report/output.h"
#include "test_util.h"

namespace vkleak {
namespace {

using analysis::Finding;
using analysis::FindingKind;
using analysis::LabeledStack;
using nlohmann::json;
using test::EventSpec;
using test::SnapshotBuilder;

constexpr uint64_t kPid = 700;

analysis::RunReport analyse(std::vector<Snapshot> snapshots) {
  analysis::RunAnalyzer analyzer(test::test_options());
  for (Snapshot& s : snapshots) analyzer.add(std::move(s));
  return analyzer.finish();
}

std::vector<std::string> labels(const Finding& f) {
  std::vector<std::string> out;
  for (const LabeledStack& s : f.stacks) out.push_back(s.label);
  return out;
}

// A set made at 0x1000 (frame 24), seen alive, then freed at 0x5000 while submission 41 used it.
std::vector<Snapshot> freed_in_flight(bool with_created) {
  SnapshotBuilder before(kPid, 1, format::Reason::kFrame, 25);
  const int sets = before.callsite(0x1000);
  before.object(
      {21, "VkDescriptorSet", "compute.bindings", 24, 0, sets, format::Origin::kAllocated, 24});
  SnapshotBuilder after(kPid, 2, format::Reason::kFrame, 50);
  const int made = after.callsite(0x1000);
  const int freed = after.callsite(0x5000);
  EventSpec e;
  e.object = 21;
  e.name = "compute.bindings";
  e.frame = 41;
  e.submission_frame = 40;
  e.message = "";  // the layer's sentence, when there is one, is the headline (events_test)
  after.event(e);
  Snapshot s = after.read();
  Event& ev = s.events.at(0);
  ev.callsite = freed;
  // The layer writes the path from the object outwards (the command buffer last).
  ev.path.insert(ev.path.begin(), EventPathStep{8, "VkPipeline", std::string("outer"), "used by"});
  if (with_created) {
    ev.has_created = true;
    ev.created_frame = 24;
    ev.created_callsite = made;
  }
  std::vector<Snapshot> out;
  out.push_back(before.read());
  out.push_back(std::move(s));
  return out;
}

TEST(MisuseStacksTest, DestroyedInFlightHasTheDestroyTheUseAndTheCreation) {
  const analysis::RunReport r = analyse(freed_in_flight(true));
  const Finding* f = test::only(r, FindingKind::kDestroyedInFlight, "VkDescriptorSet");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(labels(*f),
            (std::vector<std::string>{"destroyed here", "while in use by", "created here"}));
  ASSERT_EQ(f->stacks[0].frames.size(), 3u);
  EXPECT_EQ(f->stacks[0].frames[0].text, "app+0x5000");
  EXPECT_EQ(f->stacks[0].note, "");
  EXPECT_TRUE(f->stacks[1].frames.empty());
  // From the command buffer down to the object, as the reader follows it.
  EXPECT_EQ(f->stacks[1].lines,
            (std::vector<std::string>{
                "queue 0, submission 41, frame 40",
                "VkCommandBuffer \"frame.cmd.0\" (id 6) > VkPipeline \"outer\" (id 8) > "
                "VkDescriptorSet \"compute.bindings\" (id 21)"}));
  ASSERT_FALSE(f->stacks[2].frames.empty());
  EXPECT_EQ(f->stacks[2].frames[0].text, "app+0x1000");
  EXPECT_EQ(f->stacks[2].note, "at frame 24");
  // The finding's call site stays the creation: fingerprints and baselines do not move.
  ASSERT_FALSE(f->callsite.empty());
  EXPECT_EQ(f->callsite.front().text, "app+0x1000");
  EXPECT_EQ(f->message,
            "VkDescriptorSet \"compute.bindings\" (id 21) freed at frame 41 while submission 41 "
            "on queue 0 (frame 40) that uses it was not proven complete");
}

TEST(MisuseStacksTest, WithoutACreationRecordTheLookupStandsInAndSaysSo) {
  const analysis::RunReport r = analyse(freed_in_flight(false));
  const Finding* f = test::only(r, FindingKind::kDestroyedInFlight, "VkDescriptorSet");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->stacks.size(), 3u);
  const LabeledStack& created = f->stacks[2];
  EXPECT_EQ(created.label, "created here");
  ASSERT_FALSE(created.frames.empty());
  EXPECT_EQ(created.frames[0].text, "app+0x1000");
  EXPECT_EQ(created.note, "not recorded with the event: the object's call site in a snapshot");

  // Nothing recorded at all (a snapshot of a layer before misuse stacks, no earlier snapshot).
  SnapshotBuilder alone(kPid, 1, format::Reason::kFrame, 50);
  EventSpec e;
  e.object = 21;
  e.frame = 41;
  alone.event(e);
  const analysis::RunReport bare = analyse({alone.read()});
  const Finding* b = test::only(bare, FindingKind::kDestroyedInFlight, "VkDescriptorSet");
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(labels(*b), (std::vector<std::string>{"destroyed here", "created here"}));
  EXPECT_TRUE(b->stacks[0].frames.empty());
  EXPECT_EQ(b->stacks[0].note,
            "stack not recorded (callstack_depth=0, or a layer without misuse stacks)");
  EXPECT_EQ(b->stacks[1].note, "not recorded with the event, and no snapshot saw the object");
}

TEST(MisuseStacksTest, CreationFoundByNameSaysWhose) {
  SnapshotBuilder s(kPid, 1, format::Reason::kFrame, 25);
  const int sets = s.callsite(0x2000);
  EventSpec e;
  e.object = 21;
  e.name = "compute.bindings";
  e.frame = 11;
  s.event(e);
  s.object(
      {40, "VkDescriptorSet", "compute.bindings", 12, 0, sets, format::Origin::kAllocated, 24});
  const analysis::RunReport r = analyse({s.read()});
  const Finding* f = test::only(r, FindingKind::kDestroyedInFlight, "VkDescriptorSet");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->stacks.size(), 2u);
  EXPECT_EQ(f->stacks[1].frames.at(0).text, "app+0x2000");
  EXPECT_EQ(f->stacks[1].note,
            "not recorded with the event: the call site of a later object with the same name");
}

// An invalid destroy at 0x6000 of sampler 12 ("linear", made at 0x1000 in frame 2).
Snapshot invalid_destroy(const std::string& reason, bool first_destroy_stack) {
  SnapshotBuilder b(kPid, 1, format::Reason::kFrame, 10);
  const int made = b.callsite(0x1000);
  const int call = b.callsite(0x6000);
  const int first = b.callsite(0x7000);
  b.object({2, "VkDevice", "second gpu", 0, 0, -1, format::Origin::kCreated});
  EventSpec e;
  e.kind = format::EventKind::kInvalidDestroy;
  e.type = "VkSampler";
  e.frame = 7;
  e.message = "destroy of an unknown or already destroyed VkSampler";
  if (reason != "unknown_handle") {
    e.object = 12;
    e.name = "linear";
  }
  b.event(e);
  Snapshot s = b.read();
  Event& ev = s.events.at(0);
  ev.reason = reason;
  ev.callsite = call;
  if (reason != "unknown_handle") {
    ev.has_created = true;
    ev.created_frame = 2;
    ev.created_callsite = made;
  }
  if (reason == "already_destroyed") {
    ev.has_first_destroy = true;
    ev.first_destroy_frame = 3;
    ev.first_destroy_callsite = first_destroy_stack ? first : kNoCallsite;
  }
  if (reason == "wrong_device") ev.belongs_to = 2;
  return s;
}

TEST(MisuseStacksTest, DoubleDestroyHasTheCallTheCreationAndTheFirstDestroy) {
  const analysis::RunReport r = analyse({invalid_destroy("already_destroyed", false)});
  const Finding* f = test::only(r, FindingKind::kInvalidDestroy, "VkSampler");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->message,
            "destroy of VkSampler \"linear\" (id 12), already destroyed at frame 3 (again at "
            "frame 7)");
  ASSERT_EQ(labels(*f), (std::vector<std::string>{"invalid call here", "created here",
                                                  "first destroyed here"}));
  EXPECT_EQ(f->stacks[0].frames.at(0).text, "app+0x6000");
  EXPECT_EQ(f->stacks[1].frames.at(0).text, "app+0x1000");
  EXPECT_EQ(f->stacks[1].note, "at frame 2");
  EXPECT_TRUE(f->stacks[2].frames.empty());
  EXPECT_EQ(f->stacks[2].note,
            "at frame 3; stack not recorded (destroy_callstacks was off: vkleak run "
            "--destroy-callstacks records them)");
  EXPECT_EQ(f->callsite.at(0).text, "app+0x1000") << "the creation, as for the other kinds";
  EXPECT_EQ(f->callsite_source, "object");

  const analysis::RunReport with = analyse({invalid_destroy("already_destroyed", true)});
  const Finding* g = test::only(with, FindingKind::kInvalidDestroy, "VkSampler");
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->stacks.size(), 3u);
  EXPECT_EQ(g->stacks[2].frames.at(0).text, "app+0x7000");
  EXPECT_EQ(g->stacks[2].note, "at frame 3");

  // The creation's frame without its stack (creation stacks off in the layer).
  Snapshot no_stack = invalid_destroy("already_destroyed", false);
  no_stack.events[0].created_callsite = kNoCallsite;
  const analysis::RunReport n = analyse({std::move(no_stack)});
  const Finding* h = test::only(n, FindingKind::kInvalidDestroy, "VkSampler");
  ASSERT_NE(h, nullptr);
  ASSERT_EQ(h->stacks.size(), 3u);
  EXPECT_TRUE(h->stacks[1].frames.empty());
  EXPECT_EQ(h->stacks[1].note, "at frame 2; stack not recorded");
}

TEST(MisuseStacksTest, WrongDeviceNamesTheDeviceThatOwnsIt) {
  const analysis::RunReport r = analyse({invalid_destroy("wrong_device", false)});
  const Finding* f = test::only(r, FindingKind::kInvalidDestroy, "VkSampler");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(labels(*f), (std::vector<std::string>{"invalid call here", "created here"}));
  EXPECT_EQ(f->stacks[1].frames.at(0).text, "app+0x1000");
  ASSERT_EQ(f->stacks[1].lines.size(), 1u);
  EXPECT_EQ(f->stacks[1].lines[0].rfind("on VkDevice \"second gpu\" (id 2)", 0), 0u)
      << f->stacks[1].lines[0];
  EXPECT_NE(f->message.find("with the wrong device: it belongs to VkDevice \"second gpu\" (id 2)"),
            std::string::npos)
      << f->message;
}

TEST(MisuseStacksTest, UnknownHandleHasOnlyTheCall) {
  const analysis::RunReport r = analyse({invalid_destroy("unknown_handle", false)});
  const Finding* f = test::only(r, FindingKind::kInvalidDestroy, "VkSampler");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(labels(*f), (std::vector<std::string>{"invalid call here"}));
  EXPECT_EQ(f->stacks[0].frames.at(0).text, "app+0x6000");
  EXPECT_NE(f->message.find("a handle the layer never saw"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("bounded graveyard"), std::string::npos) << f->message;
  // A damaged call-site index reads as none.
  Snapshot damaged = invalid_destroy("unknown_handle", false);
  damaged.events[0].callsite = 999;
  const analysis::RunReport d = analyse({std::move(damaged)});
  const Finding* x = test::only(d, FindingKind::kInvalidDestroy, "VkSampler");
  ASSERT_NE(x, nullptr);
  EXPECT_TRUE(x->stacks.at(0).frames.empty());
  // A layer without reasons: its own message, the call's stack only.
  Snapshot old = invalid_destroy("unknown_handle", false);
  old.events[0].reason.clear();
  const analysis::RunReport o = analyse({std::move(old)});
  const Finding* g = test::only(o, FindingKind::kInvalidDestroy, "VkSampler");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->message, "destroy of an unknown or already destroyed VkSampler");
}

TEST(MisuseStacksTest, AGroupTakesItsFirstEventsStacks) {
  SnapshotBuilder b(kPid, 1, format::Reason::kFrame, 100);
  const int made = b.callsite(0x1000);
  const int first_call = b.callsite(0x6000);
  const int second_call = b.callsite(0x8000);
  for (uint64_t i = 0; i < 2; ++i) {
    EventSpec e;
    e.kind = format::EventKind::kInvalidDestroy;
    e.type = "VkBuffer";
    e.object = 50 + i;
    e.name = "staging." + std::to_string(i);
    e.frame = 10 + i;
    b.event(e);
  }
  Snapshot s = b.read();
  for (size_t i = 0; i < 2; ++i) {
    s.events[i].reason = "already_destroyed";
    s.events[i].callsite = i == 0 ? first_call : second_call;
    s.events[i].has_created = true;
    s.events[i].created_callsite = made;
  }
  const analysis::RunReport r = analyse({std::move(s)});
  const Finding* f = test::only(r, FindingKind::kInvalidDestroy, "VkBuffer");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 2u);
  EXPECT_EQ(f->stacks.at(0).frames.at(0).text, "app+0x6000");
  EXPECT_EQ(f->message.rfind("2 VkBuffer \"staging.*\" destroyed or freed invalidly", 0), 0u)
      << f->message;
  EXPECT_NE(f->message.find("First: destroy of VkBuffer \"staging.0\" (id 50)"), std::string::npos)
      << f->message;
}

// A set made at 0x1000 whose view 5 was destroyed (frame 50) at 0x9000.
Snapshot stale_set(bool destroy_stack) {
  SnapshotBuilder b(kPid, 1, format::Reason::kFrame, 100);
  const int sets = b.callsite(0x1000);
  const int destroy = b.callsite(0x9000);
  b.object({10, "VkDescriptorSet", "bindgroup.0", 0, 0, sets, format::Origin::kAllocated, 49});
  b.edge({10, "descriptor", 5, "VkImageView"});
  b.destroyed({5, "VkImageView", "texture.view.0", 0, 50});
  Snapshot s = b.read();
  if (destroy_stack) s.destroyed.at(0).destroy_callsite = destroy;
  return s;
}

TEST(MisuseStacksTest, StaleViewHasTheViewsCreationAndItsTargetsDestroy) {
  const analysis::RunReport r = analyse({stale_set(true)});
  const Finding* f = test::only(r, FindingKind::kStaleView, "VkDescriptorSet");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(labels(*f), (std::vector<std::string>{"view created here", "target destroyed here"}));
  EXPECT_EQ(f->stacks[0].frames.at(0).text, "app+0x1000");
  EXPECT_EQ(f->stacks[0].lines,
            (std::vector<std::string>{"VkDescriptorSet \"bindgroup.0\" (id 10)"}));
  EXPECT_EQ(f->stacks[1].frames.at(0).text, "app+0x9000");
  EXPECT_EQ(f->stacks[1].lines,
            (std::vector<std::string>{"VkImageView \"texture.view.0\" (id 5)"}));
  EXPECT_EQ(f->stacks[1].note, "at frame 50");

  const analysis::RunReport bare = analyse({stale_set(false)});
  const Finding* g = test::only(bare, FindingKind::kStaleView, "VkDescriptorSet");
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->stacks.size(), 2u);
  EXPECT_TRUE(g->stacks[1].frames.empty());
  EXPECT_EQ(g->stacks[1].note,
            "at frame 50; stack not recorded (destroy_callstacks was off: vkleak run "
            "--destroy-callstacks records them)");
}

TEST(MisuseStacksTest, LeaksHaveNoStacks) {
  SnapshotBuilder b(kPid, 1, format::Reason::kExit, 100);
  b.object({10, "VkBuffer", "kept", 0, 64, b.callsite(0x1000), format::Origin::kCreated});
  const analysis::RunReport r = analyse({b.read()});
  ASSERT_FALSE(r.findings.empty());
  for (const Finding& f : r.findings) EXPECT_TRUE(f.stacks.empty()) << kind_name(f.kind);
}

// --- outputs ---------------------------------------------------------------------------------

analysis::Frame frame(const std::string& function, int line, bool inlined = false) {
  analysis::Frame f;
  f.function = function;
  f.file = "/src/app.cpp";
  f.line = line;
  f.module = "app";
  f.inlined = inlined;
  // No "(inlined)" in the text: the outputs mark it from the flag.
  f.text = function + " (/src/app.cpp:" + std::to_string(line) + ")";
  return f;
}

analysis::ReportDocument misuse_doc() {
  Finding f;
  f.kind = FindingKind::kDestroyedInFlight;
  f.object_type = "VkImage";
  f.count = 1;
  f.names = {"thumb.3"};
  f.display_name = "thumb.3";
  f.message = "VkImage \"thumb.3\" (id 12) destroyed at frame 41 while ...";
  f.callsite = {frame("make_thumb", 10)};
  f.callsite_source = "object";
  f.stacks.push_back({"destroyed here", {frame("drop", 30, true), frame("evict", 31)}, {}, ""});
  f.stacks.push_back({"while in use by",
                      {},
                      {"queue 0, submission 7, frame 40", "VkCommandBuffer > VkImage"},
                      ""});
  // A hostile frame text: backticks that would close a short fence, markup for the HTML.
  analysis::Frame hostile = frame("make_thumb", 10);
  hostile.text = "make```thumb<b>x</b> (/src/app.cpp:10)";
  f.stacks.push_back({"created here", {hostile}, {}, "at frame 24"});
  f.pid = 1;
  analysis::ReportDocument doc;
  analysis::RunReport run;
  run.pid = 1;
  run.findings = {f};
  doc.runs.push_back(run);
  return doc;
}

TEST(MisuseStacksOutputTest, TextReadsLikeASan) {
  const std::string text = report::render_text(misuse_doc(), Style(false));
  const std::string expected =
      "      destroyed here:\n"
      "          #0 drop (/src/app.cpp:30) (inlined)\n"
      "          #1 evict (/src/app.cpp:31)\n"
      "      while in use by:\n"
      "          queue 0, submission 7, frame 40\n"
      "          VkCommandBuffer > VkImage\n"
      "      created here:\n"
      "          #0 make```thumb<b>x</b> (/src/app.cpp:10)\n"
      "          at frame 24\n";
  EXPECT_NE(text.find(expected), std::string::npos) << text;
  EXPECT_EQ(text.find("created at:"), std::string::npos) << "the stacks say it";
}

TEST(MisuseStacksOutputTest, JsonHasTheStacks) {
  const json j = report::findings_json(misuse_doc())["findings"][0];
  ASSERT_EQ(j["stacks"].size(), 3u);
  EXPECT_EQ(j["stacks"][0]["label"], "destroyed here");
  EXPECT_EQ(j["stacks"][0]["frames"][0]["function"], "drop");
  EXPECT_EQ(j["stacks"][0]["frames"][0]["inlined"], true);
  EXPECT_EQ(j["stacks"][0]["note"], nullptr);
  EXPECT_EQ(j["stacks"][1]["lines"][0], "queue 0, submission 7, frame 40");
  EXPECT_EQ(j["stacks"][2]["note"], "at frame 24");
}

TEST(MisuseStacksOutputTest, SarifStacksAndRelatedLocations) {
  const json sarif = report::render_sarif(misuse_doc(), "/src");
  const json& result = sarif["runs"][0]["results"][0];
  ASSERT_EQ(result["stacks"].size(), 3u);
  EXPECT_EQ(result["stacks"][0]["message"]["text"], "destroyed here");
  EXPECT_EQ(result["stacks"][0]["frames"][1]["location"]["physicalLocation"]["region"]["startLine"],
            31);
  EXPECT_EQ(result["stacks"][1]["message"]["text"],
            "while in use by: queue 0, submission 7, frame 40; VkCommandBuffer > VkImage");
  EXPECT_TRUE(result["stacks"][1]["frames"].empty());
  // The innermost source line of each stack that has one.
  ASSERT_EQ(result["relatedLocations"].size(), 2u);
  EXPECT_EQ(result["relatedLocations"][0]["message"]["text"], "destroyed here");
  EXPECT_EQ(result["relatedLocations"][0]["physicalLocation"]["region"]["startLine"], 30);
  EXPECT_EQ(result["relatedLocations"][1]["id"], 1);
  EXPECT_EQ(result["relatedLocations"][1]["physicalLocation"]["artifactLocation"]["uri"],
            "app.cpp");
}

TEST(MisuseStacksOutputTest, MarkdownFencedBlockNoLineCanClose) {
  const std::string md = report::render_markdown(misuse_doc());
  // The fence is longer than the frame's three backticks; the block stays in the list item.
  EXPECT_NE(md.find("\n   ````\n   destroyed here:\n       #0 drop (/src/app.cpp:30) (inlined)\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("   #0 make```thumb<b>x</b> (/src/app.cpp:10)\n"), std::string::npos) << md;
  EXPECT_NE(md.find("\n   ````\n\n"), std::string::npos) << md;
}

TEST(MisuseStacksOutputTest, JUnitFailureCarriesTheStacks) {
  const std::string xml = report::render_junit(misuse_doc());
  EXPECT_NE(xml.find("destroyed here:\n        #0 drop (/src/app.cpp:30) (inlined)"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("#0 make```thumb&lt;b&gt;x&lt;/b&gt;"), std::string::npos) << xml;
  EXPECT_EQ(xml.find("<b>x"), std::string::npos);
}

}  // namespace
}  // namespace vkleak

namespace vkleak {
namespace {

TEST(NameRangesOutputTest, TextAndMarkdownListASeriesAsOneRange) {
  analysis::ReportDocument doc = misuse_doc();
  Finding& f = doc.runs[0].findings[0];
  f.names.clear();
  for (int i = 0; i < 300; ++i) {
    if (i != 10 && i != 11) f.names.push_back("thumb." + std::to_string(i));
  }
  f.names.push_back("atlas");
  f.names.push_back("b.1");
  f.names.push_back("c.1");
  f.names_omitted = 5;
  const std::string text = report::render_text(doc, Style(false));
  EXPECT_NE(text.find("names:      \"thumb.{0..9,12..299}\", \"atlas\", \"b.1\", \"c.1\", and 5 "
                      "more\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("thumb.150"), std::string::npos);
  // Three entries in the table; "+N" counts the names left out (c.1 and the 5 omitted).
  const std::string md = report::render_markdown(doc);
  EXPECT_NE(md.find("| `thumb.{0..9,12..299}`, `atlas`, `b.1` +6 |"), std::string::npos) << md;
}

}  // namespace
}  // namespace vkleak
