// The snapshot reader: what it accepts, and a clear SnapshotError for every kind of bad input.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <random>
#include <sstream>
#include <string>
#include <thread>

#include "core/snapshot_reader.h"
#include "format/snapshot_format.h"
#include "shared/setting_ranges.h"
#include "snapshot_builder.h"
#include "test_support.h"

namespace vkleak {
namespace {

using test::data_path;
using test::read_file;
using test::TempDir;
using test::write_file;

// Replaces the one occurrence of from in text; fails the test if there is not exactly one.
std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const size_t pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  EXPECT_EQ(text.find(from, pos + 1), std::string::npos) << from;
  if (pos != std::string::npos) text.replace(pos, from.size(), to);
  return text;
}

// The message of the SnapshotError that reading content throws ("" when it does not throw).
std::string read_error(const std::string& content, const ReadOptions& options = {}) {
  TempDir dir;
  const std::string path = dir.file("snapshot.json");
  write_file(path, content);
  try {
    read_snapshot(path, options);
  } catch (const SnapshotError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos)
        << "the message names the file: " << e.what();
    return e.what();
  }
  return "";
}

std::string small() {
  return read_file(data_path("small.json"));
}

TEST(ReaderTest, ReadsTheSmallFixture) {
  const Snapshot s = read_snapshot(data_path("small.json"));
  EXPECT_EQ(s.version, 2);
  EXPECT_EQ(s.producer_name, "vkleak");
  EXPECT_EQ(s.producer_version, "0.1.0");
  EXPECT_EQ(s.pid, 4242u);
  EXPECT_EQ(s.sequence, 3u);
  EXPECT_EQ(s.executable, "/opt/vkleak-demo/bin/demo");
  EXPECT_EQ(s.reason, "device_destroy");
  ASSERT_TRUE(s.scope_device.has_value());
  EXPECT_EQ(*s.scope_device, 2);
  EXPECT_FALSE(s.scope_instance.has_value());
  EXPECT_EQ(s.frame, 120u);
  EXPECT_EQ(s.frame_boundary, "present");
  EXPECT_EQ(s.time_ms, 5321u);
  EXPECT_FALSE(s.degraded);

  ASSERT_EQ(s.instances.size(), 1u);
  EXPECT_EQ(s.instances[0].handle, 0x55d0c0a10010u);
  EXPECT_EQ(s.instances[0].application.value_or(""), "demo");
  EXPECT_FALSE(s.instances[0].engine.has_value());
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].physical_device, "llvmpipe (LLVM 15.0.6, 256 bits)");
  EXPECT_EQ(s.devices[0].submits, 240u);

  ASSERT_EQ(s.objects.size(), 8u);
  const Object& device = s.objects[0];
  EXPECT_EQ(s.type_name(device), "VkDevice");
  EXPECT_EQ(device.name, kNoName);
  EXPECT_EQ(device.parent, 1);
  EXPECT_EQ(device.callsite, 2);
  const Object& buffer = s.objects[1];
  EXPECT_EQ(buffer.id, 10u);
  EXPECT_EQ(buffer.handle, 0x1000u);
  EXPECT_EQ(s.type_name(buffer), "VkBuffer");
  ASSERT_NE(s.name(buffer), nullptr);
  EXPECT_EQ(*s.name(buffer), "frame.buffer.10");
  EXPECT_EQ(buffer.size, 65536u);
  EXPECT_EQ(buffer.origin, Origin::kCreated);
  EXPECT_EQ(buffer.frame, 10u);
  EXPECT_EQ(buffer.time_ms, 500u);
  EXPECT_EQ(buffer.refs, 1u);
  EXPECT_EQ(s.objects[2].origin, Origin::kAllocated);
  EXPECT_EQ(s.objects[6].refs, 2u);
  EXPECT_EQ(s.objects[7].callsite, kNoCallsite);
  EXPECT_EQ(*s.name(s.objects[7]), "hud \x1b[31mred\x1b[0m");
  // Types are interned once per snapshot (with those of edges and destroyed objects).
  EXPECT_EQ(s.objects[1].type, s.objects[3].type);
  EXPECT_EQ(s.type_names.size(), 5u);

  ASSERT_EQ(s.callsites.size(), 3u);
  EXPECT_EQ(s.callsites[0],
            (std::vector<uint64_t>{0x7f0000001234, 0x555500001100, 0x555500002200}));
  ASSERT_EQ(s.modules.size(), 3u);
  EXPECT_EQ(s.modules[0].base, 0x555500000000u);
  EXPECT_EQ(s.modules[0].bias, 0x555500000000u);
  EXPECT_EQ(s.modules[0].size, 65536u);
  EXPECT_EQ(s.modules[0].build_id, "0123456789abcdef0123456789abcdef01234567");
  EXPECT_EQ(s.modules[2].build_id, "");
  ASSERT_EQ(s.counts.count("VkDeviceMemory"), 1u);
  EXPECT_EQ(s.counts.at("VkDeviceMemory").live, 2u);
  EXPECT_EQ(s.counts.at("VkDeviceMemory").bytes, 2097152u);
  EXPECT_FALSE(s.label.has_value());
}

TEST(ReaderTest, ReadsVersion2GraphAndLifetimes) {
  const Snapshot s = read_snapshot(data_path("small.json"));
  ASSERT_EQ(s.devices[0].queues.size(), 1u);
  EXPECT_EQ(s.devices[0].queues[0].handle, 0x55d0c0a30030u);
  EXPECT_EQ(s.devices[0].queues[0].submitted, 240u);
  EXPECT_EQ(s.devices[0].queues[0].retired, 237u);

  EXPECT_TRUE(s.objects[1].in_flight);
  EXPECT_FALSE(s.objects[0].in_flight);
  ASSERT_EQ(s.last_uses.size(), 1u);
  const LastUse* use = last_use_of(s, 1);
  ASSERT_NE(use, nullptr);
  EXPECT_EQ(use->frame, 119u);
  EXPECT_EQ(use->serial, 238u);
  EXPECT_EQ(last_use_of(s, 0), nullptr);
  const MemoryBinding* memory = memory_of(s, 1);
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ(memory->memory, 11);
  EXPECT_EQ(memory->size, 65536u);
  EXPECT_EQ(memory_of(s, 2), nullptr);

  ASSERT_EQ(s.edges.size(), 2u);
  auto [first, last] = edges_of(s, 1);
  ASSERT_EQ(last - first, 1);
  EXPECT_EQ(s.edge_kinds[first->kind], "memory");
  EXPECT_EQ(first->to, 11);
  EXPECT_EQ(s.type_names[first->type], "VkDeviceMemory");
  EXPECT_EQ(first->size, 65536u);
  std::tie(first, last) = edges_of(s, 7);
  ASSERT_EQ(last - first, 1);
  EXPECT_EQ(s.edge_kinds[first->kind], "image");
  EXPECT_EQ(first->to, 9);
  EXPECT_EQ(s.names[static_cast<size_t>(first->name)], "hud.atlas");
  std::tie(first, last) = edges_of(s, 3);
  EXPECT_EQ(first, last);

  ASSERT_EQ(s.destroyed.size(), 1u);
  EXPECT_EQ(s.destroyed[0].id, 9);
  EXPECT_EQ(s.type_names[s.destroyed[0].type], "VkImage");
  EXPECT_EQ(s.destroyed[0].destroyed_frame, 30);
  EXPECT_EQ(s.destroyed[0].callsite, 2);

  ASSERT_EQ(s.events.size(), 2u);
  EXPECT_EQ(s.events[0].kind, "invalid_destroy");
  EXPECT_EQ(s.events[0].object, kNullId);
  EXPECT_FALSE(s.events[0].has_submission);
  const Event& e = s.events[1];
  EXPECT_EQ(e.kind, "destroyed_in_flight");
  EXPECT_EQ(e.object, 17);
  EXPECT_EQ(e.name.value_or(""), "frame.buffer.17");
  EXPECT_TRUE(e.has_submission);
  EXPECT_EQ(e.submission_serial, 199);
  EXPECT_EQ(e.submission_frame, 99);
  ASSERT_EQ(e.path.size(), 2u);
  EXPECT_EQ(e.path[1].type, "VkCommandBuffer");
  EXPECT_EQ(e.path[1].name.value_or(""), "main.cmd");
  EXPECT_EQ(e.path[0].relation, "written in");
  EXPECT_EQ(s.events_dropped, 0u);
}

// Misuse stacks: the call's own stack, the object's creation, and for an invalid destroy the
// reason, the first destroy and the owning device (all optional: older snapshots lack them).
TEST(ReaderTest, ReadsMisuseStacks) {
  std::string text = replace_once(small(), R"("time_ms": 77, "name": null,)",
                                  R"("time_ms": 77, "name": "linear", "callsite": 1,
      "created": {"frame": 2, "callsite": 2}, "reason": "already_destroyed",
      "first_destroy": {"frame": 3, "callsite": null}, "belongs_to": 4,)");
  text = replace_once(text, R"("size": 4194304, "callsite": 2})",
                      R"("size": 4194304, "callsite": 2, "destroy_callsite": 1})");
  TempDir dir;
  const std::string path = dir.file("misuse.json");
  write_file(path, text);
  const Snapshot s = read_snapshot(path);
  const Event& e = s.events[0];
  EXPECT_EQ(e.callsite, 1);
  EXPECT_TRUE(e.has_created);
  EXPECT_EQ(e.created_frame, 2);
  EXPECT_EQ(e.created_callsite, 2);
  EXPECT_EQ(e.reason, "already_destroyed");
  EXPECT_TRUE(e.has_first_destroy);
  EXPECT_EQ(e.first_destroy_frame, 3);
  EXPECT_EQ(e.first_destroy_callsite, kNoCallsite);
  EXPECT_EQ(e.belongs_to, 4);
  EXPECT_EQ(s.destroyed[0].destroy_callsite, 1);
  // Absent in the fixture's other event.
  EXPECT_EQ(s.events[1].callsite, kNoCallsite);
  EXPECT_FALSE(s.events[1].has_created);
  EXPECT_FALSE(s.events[1].has_first_destroy);
  EXPECT_EQ(s.events[1].belongs_to, kNullId);

  // A call site that does not exist is an error, as for objects.
  const std::string dangling = read_error(
      replace_once(small(), R"("time_ms": 77, "name": null,)",
                   R"("time_ms": 77, "name": null, "created": {"frame": 2, "callsite": 7},)"));
  EXPECT_NE(dangling.find("events[0]"), std::string::npos) << dangling;
  EXPECT_NE(dangling.find("call site 7 does not exist"), std::string::npos) << dangling;
  const std::string incomplete =
      read_error(replace_once(small(), R"("time_ms": 77, "name": null,)",
                              R"("time_ms": 77, "name": null, "created": {"frame": 2},)"));
  EXPECT_NE(incomplete.find("\"callsite\""), std::string::npos) << incomplete;
}

// What a snapshot says, by content only (strings, ids, call sites' frames): the same for every
// order a file lists it in.
std::string content(const Snapshot& s) {
  std::ostringstream out;
  const auto frames = [&s](int32_t c) {
    std::string text;
    if (c >= 0)
      for (uint64_t a : s.callsites[static_cast<size_t>(c)]) text += std::to_string(a) + ",";
    return text;
  };
  for (size_t i = 0; i < s.objects.size(); ++i) {
    const Object& o = s.objects[i];
    out << o.id << " " << s.type_name(o) << " " << (s.name(o) ? *s.name(o) : "-") << " "
        << frames(o.callsite) << "\n";
    if (const LastUse* u = last_use_of(s, i)) out << "  used " << u->frame << "\n";
    auto [first, last] = edges_of(s, i);
    for (const Edge* e = first; e != last; ++e)
      out << "  " << s.edge_kinds[e->kind] << " " << e->slot << " " << e->to << " "
          << s.type_names[e->type] << "\n";
  }
  for (const DestroyedObject& d : s.destroyed)
    out << "destroyed " << d.id << " " << s.type_names[d.type] << " " << frames(d.callsite) << "\n";
  for (const Event& e : s.events)
    out << "event " << e.kind << " " << e.frame << " " << e.object << " " << frames(e.callsite)
        << "\n";
  return out.str();
}

// Issue 36: the reader puts a snapshot in one order whatever the file's (the layer writes hash
// order): objects by id, edges by source and content, events by frame; call sites renumbered in
// the file are the same call sites.
TEST(ReaderTest, CanonicalOrderWhateverTheFileOrder) {
  const Snapshot as_written = read_snapshot(data_path("small.json"));
  for (size_t k = 1; k < as_written.objects.size(); ++k)
    EXPECT_LT(as_written.objects[k - 1].id, as_written.objects[k].id);

  nlohmann::json j = nlohmann::json::parse(small());
  for (const char* key : {"objects", "destroyed", "events"})
    std::reverse(j[key].begin(), j[key].end());
  for (nlohmann::json& o : j["objects"])
    if (o.contains("edges")) std::reverse(o["edges"].begin(), o["edges"].end());
  // The call-site table reversed: entry i becomes entry n-1-i, and every reference follows.
  const auto n = static_cast<int64_t>(j["callsites"].size());
  std::reverse(j["callsites"].begin(), j["callsites"].end());
  for (int64_t i = 0; i < n; ++i) j["callsites"][static_cast<size_t>(i)]["id"] = i;
  const auto flip = [n](nlohmann::json& v) {
    if (v.is_number_integer()) v = n - 1 - v.get<int64_t>();
  };
  for (nlohmann::json& o : j["objects"]) flip(o["callsite"]);
  for (nlohmann::json& d : j["destroyed"]) flip(d["callsite"]);
  for (nlohmann::json& e : j["events"]) {
    if (e.contains("callsite")) flip(e["callsite"]);
    if (e.contains("created")) flip(e["created"]["callsite"]);
  }
  TempDir dir;
  write_file(dir.file("reordered.json"), j.dump());
  const Snapshot reordered = read_snapshot(dir.file("reordered.json"));
  EXPECT_EQ(content(as_written), content(reordered));
  ASSERT_EQ(as_written.objects.size(), reordered.objects.size());
  for (size_t i = 0; i < reordered.objects.size(); ++i)
    EXPECT_EQ(as_written.objects[i].id, reordered.objects[i].id);
}

TEST(ReaderTest, ReadsVersion1) {
  // Version 1 had no last use, in-flight state, events or destroyed list.
  const Snapshot s = read_snapshot(data_path("v1/small.json"));
  EXPECT_EQ(s.version, 1);
  ASSERT_EQ(s.objects.size(), 8u);
  EXPECT_EQ(*s.name(s.objects[1]), "frame.buffer.10");
  EXPECT_TRUE(s.last_uses.empty());
  EXPECT_TRUE(s.edges.empty());
}

TEST(ReaderTest, ReadsTheMinimalFixture) {
  const Snapshot s = read_snapshot(data_path("minimal.json"));
  EXPECT_EQ(s.pid, 7u);
  EXPECT_EQ(s.reason, "exit");
  EXPECT_FALSE(s.scope_device.has_value());
  EXPECT_TRUE(s.executable.empty());
  EXPECT_TRUE(s.objects.empty());
  EXPECT_TRUE(s.counts.empty());
}

TEST(ReaderTest, IgnoresUnknownKeysAnywhere) {
  std::string text = small();
  text = replace_once(text, "\"pid\": 4242,",
                      "\"pid\": 4242, \"future\": {\"deep\": [1, {\"x\": [null, true]}]},");
  text = replace_once(text, "\"name\": \"frame.buffer.10\",",
                      "\"name\": \"frame.buffer.10\", \"future_field\": [1, 2, {\"a\": 3}],");
  text =
      replace_once(text, "\"submits\": 240,", "\"submits\": 240, \"engines\": [{\"family\": 0}],");
  TempDir dir;
  write_file(dir.file("s.json"), text);
  const Snapshot s = read_snapshot(dir.file("s.json"));
  EXPECT_EQ(s.pid, 4242u);
  ASSERT_EQ(s.objects.size(), 8u);
  EXPECT_EQ(*s.name(s.objects[1]), "frame.buffer.10");
  EXPECT_EQ(s.objects[1].size, 65536u);
  EXPECT_EQ(s.devices[0].presents, 120u);
}

TEST(ReaderTest, DoesNotModifyItsInput) {
  TempDir dir;
  const std::string path = dir.file("s.json");
  write_file(path, small());
  ::chmod(path.c_str(), 0444);
  struct stat before;
  ASSERT_EQ(::stat(path.c_str(), &before), 0);
  read_snapshot(path);  // a read-only file is enough
  struct stat after;
  ASSERT_EQ(::stat(path.c_str(), &after), 0);
  EXPECT_EQ(read_file(path), small());
  EXPECT_EQ(before.st_mtim.tv_sec, after.st_mtim.tv_sec);
  EXPECT_EQ(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
  EXPECT_EQ(after.st_mode & 0777, 0444u);
}

TEST(ReaderErrorTest, MissingFile) {
  try {
    read_snapshot("/nonexistent/vkleak-1-1-exit.json");
    FAIL() << "no error";
  } catch (const SnapshotError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/vkleak-1-1-exit.json"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos) << e.what();
  }
}

TEST(ReaderErrorTest, Directory) {
  TempDir dir;
  try {
    read_snapshot(dir.path());
    FAIL() << "no error";
  } catch (const SnapshotError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
}

TEST(ReaderErrorTest, UnreadableFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads everything";
  TempDir dir;
  write_file(dir.file("s.json"), small());
  ::chmod(dir.file("s.json").c_str(), 0);
  try {
    read_snapshot(dir.file("s.json"));
    FAIL() << "no error";
  } catch (const SnapshotError& e) {
    EXPECT_NE(std::string(e.what()).find("Permission denied"), std::string::npos) << e.what();
  }
}

TEST(ReaderErrorTest, DeviceFile) {
  try {
    read_snapshot("/dev/zero");
    FAIL() << "no error";
  } catch (const SnapshotError& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
}

TEST(ReaderErrorTest, NamedFifoIsRefusedWithoutBlocking) {
  // Nobody writes to it: a blocking open() would wait forever.
  TempDir dir;
  ASSERT_EQ(::mkfifo(dir.file("vkleak-1-1-exit.json").c_str(), 0600), 0);
  try {
    read_snapshot(dir.file("vkleak-1-1-exit.json"));
    FAIL() << "no error";
  } catch (const SnapshotError& e) {
    EXPECT_NE(std::string(e.what()).find("is a named pipe (FIFO), not a regular file"),
              std::string::npos)
        << e.what();
  }
}

TEST(ReaderTest, AnonymousPipeIsRead) {
  // What `vkleak show <(zcat x.json.gz)` hands the reader.
  const std::string text = small();
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::thread writer([&] {
    for (size_t done = 0; done < text.size();) {
      const ssize_t n = ::write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::close(fds[1]);
  });
  const std::string path = "/proc/self/fd/" + std::to_string(fds[0]);
  size_t objects = 0;
  EXPECT_NO_THROW(objects = read_snapshot(path).objects.size());
  EXPECT_EQ(objects, 8u);
  writer.join();
  ::close(fds[0]);
}

TEST(ReaderErrorTest, EmptyFile) {
  EXPECT_NE(read_error("").find("file is empty"), std::string::npos);
}

TEST(ReaderErrorTest, EveryTruncationIsReportedAsTruncated) {
  const std::string text = small();
  const size_t end = text.rfind('}');
  ASSERT_NE(end, std::string::npos);
  TempDir dir;
  for (size_t length = 1; length <= end; ++length) {
    // A new file each time: rewriting one truncated file makes ext4 flush it on every close.
    const std::string path = dir.file("cut" + std::to_string(length) + ".json");
    write_file(path, text.substr(0, length));
    try {
      read_snapshot(path);
      ADD_FAILURE() << "a " << length << "-byte prefix was accepted";
    } catch (const SnapshotError& e) {
      ASSERT_NE(std::string(e.what()).find("truncated"), std::string::npos)
          << length << ": " << e.what();
    }
    ::unlink(path.c_str());
  }
  const std::string whole = dir.file("whole.json");
  write_file(whole, text.substr(0, end + 1));  // the whole document, without the newline
  EXPECT_EQ(read_snapshot(whole).objects.size(), 8u);
}

TEST(ReaderErrorTest, ForeignDocuments) {
  for (const std::string& doc :
       {std::string("{\"name\": \"my-app\", \"version\": \"1.0.0\", \"dependencies\": {}}"),
        std::string("[1, 2, 3]"), std::string("42"), std::string("\"vkleak-snapshot\""),
        std::string("null"), std::string("{}"),
        std::string("{\"format\": \"chrome-trace\", \"version\": 1}"),
        std::string("{\"format\": 1, \"version\": 1}"),
        std::string("{\"version\": 1, \"pid\": 3, \"format\": \"vkleak-report\"}")}) {
    EXPECT_NE(read_error(doc).find("not a vkleak snapshot"), std::string::npos) << doc;
  }
  EXPECT_NE(read_error(replace_once(small(), "\"vkleak-snapshot\"", "\"vkleak-diff\""))
                .find("not a vkleak snapshot (\"format\" is the string \"vkleak-diff\""),
            std::string::npos);
}

TEST(ReaderErrorTest, NewerVersion) {
  const std::string message =
      "snapshot version 3 is newer than this vkleak supports (2); upgrade vkleak";
  EXPECT_NE(read_error(replace_once(small(), "\"version\": 2,", "\"version\": 3,")).find(message),
            std::string::npos);
  // A newer version may change anything after the version key: still the version message.
  std::string changed = replace_once(small(), "\"version\": 2,", "\"version\": 3,");
  changed = replace_once(changed, "\"pid\": 4242,", "\"pid\": \"4242@host\",");
  EXPECT_NE(read_error(changed).find(message), std::string::npos);
  // Even when the version comes first and the format later.
  EXPECT_NE(read_error("{\"version\": 3, \"objects\": {}, \"format\": \"vkleak-snapshot\"}")
                .find(message),
            std::string::npos);
  EXPECT_NE(read_error(replace_once(small(), "\"version\": 2,", "\"version\": 0,"))
                .find("unsupported snapshot version 0"),
            std::string::npos);
}

TEST(ReaderErrorTest, MissingRequiredKeys) {
  EXPECT_NE(
      read_error(replace_once(small(), "\"pid\": 4242,", "")).find("missing required key \"pid\""),
      std::string::npos);
  EXPECT_NE(read_error(replace_once(small(), "\"handle\": \"0x1010\", ", ""))
                .find("objects[3]: missing required key \"handle\""),
            std::string::npos);
  EXPECT_NE(read_error(replace_once(small(), ", \"bias\": \"0x7f1000000000\"", ""))
                .find("modules[1]: missing required key \"bias\""),
            std::string::npos);
  EXPECT_NE(read_error(replace_once(small(), "\"VkDevice\": {\"live\": 1, ", "\"VkDevice\": {"))
                .find("counts.\"VkDevice\": missing required key \"live\""),
            std::string::npos);
  EXPECT_NE(read_error("{\"version\": 1, \"objects\": []}").find("not a vkleak snapshot"),
            std::string::npos);
  // Version 2 requires what version 1 did not have.
  EXPECT_NE(
      read_error(replace_once(small(), "\"callsite\": 2, \"last_use\": null,", "\"callsite\": 2,"))
          .find("objects[0]: missing required key \"last_use\""),
      std::string::npos);
  EXPECT_NE(read_error(replace_once(small(), "\"events\": [\n", "\"evnts\": [\n"))
                .find("missing required key \"events\""),
            std::string::npos);
  EXPECT_NE(read_error(replace_once(small(), "\"serial\": 238}", "\"seriall\": 238}"))
                .find("objects[1].last_use: missing required key \"serial\""),
            std::string::npos);
  EXPECT_NE(
      read_error(replace_once(small(), "\"relation\": \"bound in\"}", "\"rel\": \"bound in\"}"))
          .find("events[1].path[1]: missing required key \"relation\""),
      std::string::npos);
}

TEST(ReaderErrorTest, WrongTypes) {
  struct Case {
    std::string from, to, expected;
  };
  const Case cases[] = {
      {"\"pid\": 4242,", "\"pid\": \"4242\",",
       "pid: expected a non-negative integer, got the string \"4242\""},
      {"\"pid\": 4242,", "\"pid\": -1,", "pid: expected a non-negative integer, got -1"},
      {"\"pid\": 4242,", "\"pid\": 4242.5,", "pid: expected a non-negative integer"},
      {"\"pid\": 4242,", "\"pid\": [4242],", "pid: expected a string, number, boolean or null"},
      {"\"objects\": [", "\"objects\": {\"a\": 1}, \"x\": [",
       "objects: expected an array, got an object"},
      {"\"time_ms\": 500, \"size\": 65536,", "\"time_ms\": 500, \"size\": -5,",
       "objects[1].size: expected a non-negative integer, got -5"},
      {"\"origin\": \"allocated\", \"frame\": 10,", "\"origin\": \"stolen\", \"frame\": 10,",
       "objects[2].origin: expected one of created, allocated, retrieved, swapchain_image"},
      {"\"type\": \"VkImageView\"", "\"type\": \"ImageView\"",
       "objects[7].type: expected a Vulkan type name"},
      {"\"degraded\": false,\n  \"instances\"", "\"degraded\": \"no\",\n  \"instances\"",
       "degraded: expected true or false"},
      {"\"scope\": {\"device\": 2},", "\"scope\": 2,", "scope: expected an object or null"},
      {"\"frames\": [\"0x555500003300\", \"0x7fff00000000\"]", "\"frames\": \"0x555500003300\"",
       "callsites[2].frames: expected an array"},
      {"{\"id\": 1, \"frames\"", "{\"id\": 7, \"frames\"",
       "callsites[1]: call site id is 7 but entry i must have id i (1)"},
      {"\"size\": 0, \"callsite\": 2,", "\"size\": 0, \"callsite\": 3,",
       "call site 3 does not exist (3 call sites)"},
      {"\"id\": 2, \"type\": \"VkDevice\"", "\"id\": 0, \"type\": \"VkDevice\"",
       "objects[0].id: ids start at 1"},
      {"\"name\": \"frame.buffer.12\",", "\"name\": \"frame.buffer.12\", \"name\": null,",
       "objects[3]: duplicate key \"name\""},
      {"\"in_flight\": true,", "\"in_flight\": 1,", "objects[1].in_flight: expected true or false"},
      {"\"last_use\": {\"frame\": 119,", "\"last_use\": 7, \"x\": {\"frame\": 119,",
       "objects[1].last_use: expected an object or null, got 7"},
      {"\"serial\": 238}", "\"serial\": -238}",
       "objects[1].last_use.serial: expected a non-negative integer, got -238"},
      {"\"handle\": \"0x2000\", \"slot\": 0,", "\"handle\": \"0x2000\", \"slot\": \"0\",",
       "objects[1].edges[0].slot: expected a non-negative integer"},
      {"\"edges\": [{\"kind\": \"image\"", "\"edges\": {\"a\": 1}, \"x\": [{\"kind\": \"image\"",
       "objects[7].edges: expected an array, got an object"},
      {"\"handle\": \"0x55d0c0a30030\"", "\"handle\": \"queue0\"",
       "devices[0].queues[0].handle: expected a hex string"},
      {"\"path\": [{", "\"path\": 5, \"x\": [{", "events[1].path: expected an array, got 5"},
      {"\"destroyed_frame\": 30, \"size\": 4194304, \"callsite\": 2}",
       "\"destroyed_frame\": 30, \"size\": 4194304, \"callsite\": 5}",
       "destroyed[0] (id 9): call site 5 does not exist (3 call sites)"},
  };
  for (const Case& c : cases) {
    const std::string message = read_error(replace_once(small(), c.from, c.to));
    EXPECT_NE(message.find(c.expected), std::string::npos)
        << "expected: " << c.expected << "\n got: " << message;
  }
}

TEST(ReaderErrorTest, BadHandles) {
  for (const char* bad : {"\"0xZZ\"", "\"1000\"", "\"0x\"", "\"\"", "\"0x10000000000000000\"",
                          "\" 0x1000\"", "\"-0x1\"", "4096", "null"}) {
    const std::string message = read_error(
        replace_once(small(), "\"handle\": \"0x1000\"", std::string("\"handle\": ") + bad));
    EXPECT_NE(message.find("objects[1].handle: expected a hex string like \"0x1f\""),
              std::string::npos)
        << bad << ": " << message;
  }
  const std::string frame = read_error(replace_once(small(), "\"0x555500003300\"", "\"0xg\""));
  EXPECT_NE(frame.find("callsites[2].frames[0]: expected a hex string"), std::string::npos)
      << frame;
  // The largest 64-bit handle is fine.
  TempDir dir;
  write_file(dir.file("s.json"),
             replace_once(small(), "\"handle\": \"0x1000\"", "\"handle\": \"0xffffffffffffffff\""));
  EXPECT_EQ(read_snapshot(dir.file("s.json")).objects[1].handle, UINT64_MAX);
}

TEST(ReaderErrorTest, SyntaxErrorsNameTheByteOffset) {
  const std::string text = replace_once(small(), "\"pid\": 4242,", "\"pid\": 4242,,");
  const std::string message = read_error(text);
  const size_t offset = text.find(",,") + 1;
  EXPECT_NE(message.find("invalid JSON"), std::string::npos) << message;
  EXPECT_NE(message.find("(at byte " + std::to_string(offset) + ")"), std::string::npos) << message;
  EXPECT_NE(read_error(small() + "{}").find("invalid JSON"), std::string::npos);  // trailing data
  EXPECT_NE(read_error("\x7f"
                       "ELF\x02\x01\x01")
                .find("invalid JSON"),
            std::string::npos);
}

TEST(ReaderErrorTest, DeepNestingDoesNotCrash) {
  const size_t depth = 200000;
  const std::string balanced =
      "{\"format\": \"vkleak-snapshot\", \"version\": 1, \"settings\": " + std::string(depth, '[') +
      std::string(depth, ']') + "}";
  EXPECT_NE(read_error(balanced).find("nested deeper than 64 levels"), std::string::npos);
  EXPECT_NE(read_error(std::string(depth, '[')).find("not a vkleak snapshot"), std::string::npos);
  const std::string open_only =
      "{\"format\": \"vkleak-snapshot\", \"x\": " + std::string(depth, '[');
  EXPECT_NE(read_error(open_only).find("nested deeper than"), std::string::npos);
  std::string objects;
  for (size_t i = 0; i < depth; ++i) objects += "{\"a\":";
  EXPECT_NE(read_error(objects).find("nested deeper than"), std::string::npos);
}

TEST(ReaderErrorTest, HugeNumbers) {
  EXPECT_NE(
      read_error(replace_once(small(), "\"pid\": 4242,", "\"pid\": 1e400,")).find("invalid JSON"),
      std::string::npos);
  EXPECT_NE(read_error(
                replace_once(small(), "\"pid\": 4242,", "\"pid\": 123456789012345678901234567890,"))
                .find("pid: expected a non-negative integer"),
            std::string::npos);
  EXPECT_NE(read_error(replace_once(small(), "\"owner\": 2, \"parent\": 1,",
                                    "\"owner\": 18446744073709551615, \"parent\": 1,"))
                .find("objects[0].owner: expected an integer that fits in 64 signed bits"),
            std::string::npos);
  // Numbers past what the model keeps saturate instead of wrapping.
  TempDir dir;
  write_file(dir.file("s.json"), replace_once(small(), "\"frame\": 10, \"time_ms\": 500,",
                                              "\"frame\": 10, \"time_ms\": 99999999999,"));
  EXPECT_EQ(read_snapshot(dir.file("s.json")).objects[1].time_ms, UINT32_MAX);
}

TEST(ReaderErrorTest, NanAndInfinityAreNotJson) {
  for (const char* bad : {"NaN", "nan", "Infinity", "-Infinity"}) {
    EXPECT_NE(read_error(replace_once(small(), "\"time_ms\": 500, \"size\": 65536,",
                                      std::string("\"time_ms\": 500, \"size\": ") + bad + ","))
                  .find("invalid JSON"),
              std::string::npos)
        << bad;
  }
}

TEST(ReaderErrorTest, InvalidUtf8) {
  const std::string message =
      read_error(replace_once(small(), "\"frame.buffer.12\"", "\"frame\xff\xfe.12\""));
  EXPECT_NE(message.find("invalid JSON"), std::string::npos) << message;
  EXPECT_NE(message.find("UTF-8"), std::string::npos) << message;
  // Escaped lone surrogates are invalid too.
  EXPECT_NE(
      read_error(replace_once(small(), "\"frame.buffer.12\"", "\"\\ud800\"")).find("invalid JSON"),
      std::string::npos);
}

TEST(ReaderErrorTest, HugeStringsStopAtTheTokenLimit) {
  ReadOptions options;
  options.max_token_bytes = 1 << 20;
  const std::string huge(5 << 20, 'a');
  const std::string message =
      read_error(replace_once(small(), "\"frame.buffer.12\"", "\"" + huge + "\""), options);
  EXPECT_NE(message.find("a single JSON token is longer than the limit of 1048576 bytes"),
            std::string::npos)
      << message.substr(0, 300);
  // Within the limit it is just a long name.
  TempDir dir;
  write_file(dir.file("s.json"),
             replace_once(small(), "\"frame.buffer.12\"", "\"" + std::string(100000, 'b') + "\""));
  // (The name table is sorted: the long name is looked up by content, not by its file position.)
  const Snapshot s = read_snapshot(dir.file("s.json"), options);
  EXPECT_NE(std::find(s.names.begin(), s.names.end(), std::string(100000, 'b')), s.names.end());
}

TEST(ReaderErrorTest, FileSizeLimit) {
  ReadOptions options;
  options.max_file_bytes = 100;
  const std::string message = read_error(small(), options);
  EXPECT_NE(message.find("more than the limit of 100"), std::string::npos) << message;
}

TEST(ReaderErrorTest, RandomCorruptionNeverCrashes) {
  // Flipped, deleted and inserted bytes anywhere: every outcome is a snapshot or a SnapshotError
  // (run under ASan/UBSan in CI to make "no crash" mean "no memory error" too).
  const std::string original = small();
  std::mt19937 random(20240611);
  TempDir dir;
  size_t rejected = 0;
  const char kInteresting[] = "{}[]\":,0x-1e9\\u\xff\x00 nulltruefalse";
  for (int i = 0; i < 3000; ++i) {
    std::string text = original;
    for (int edits = 1 + static_cast<int>(random() % 3); edits > 0; --edits) {
      const size_t pos = random() % text.size();
      const char c = kInteresting[random() % (sizeof(kInteresting) - 1)];
      switch (random() % 3) {
        case 0:
          text[pos] = c;
          break;
        case 1:
          text.erase(pos, 1 + random() % 8);
          break;
        default:
          text.insert(pos, 1, c);
          break;
      }
    }
    const std::string path = dir.file("m" + std::to_string(i) + ".json");
    write_file(path, text);
    try {
      read_snapshot(path);
    } catch (const SnapshotError& e) {
      ++rejected;
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
    }
    ::unlink(path.c_str());
  }
  EXPECT_GT(rejected, 2000u) << "most corruptions must be caught";
}

TEST(ReaderTest, ReadsALargeSyntheticSnapshot) {
  TempDir dir;
  test::SyntheticSpec spec;
  spec.objects = 100000;
  spec.callsites = 500;
  const test::SyntheticTotals totals = test::write_synthetic_snapshot(dir.file("big.json"), spec);
  const Snapshot s = read_snapshot(dir.file("big.json"));
  ASSERT_EQ(s.objects.size(), totals.objects);
  uint64_t bytes = 0, named = 0;
  for (const Object& o : s.objects) {
    bytes += o.size;
    named += o.name != kNoName;
  }
  EXPECT_EQ(bytes, totals.bytes);
  EXPECT_EQ(named, totals.named);
  EXPECT_EQ(s.names.size(), totals.named);
  EXPECT_EQ(s.counts.at("VkBuffer").live, totals.buffers);
  EXPECT_EQ(s.callsites.size(), 500u);
  EXPECT_EQ(s.callsites[1].size(), spec.frames_per_callsite);
  EXPECT_EQ(s.last_uses.size(), totals.last_used);
  EXPECT_EQ(s.edges.size(), totals.edges);
  EXPECT_EQ(s.memory_bindings.size(), totals.edges);
  // Side tables come out sorted by object index, which the lookups rely on.
  EXPECT_TRUE(std::is_sorted(s.edges.begin(), s.edges.end(),
                             [](const Edge& a, const Edge& b) { return a.from < b.from; }));
  for (size_t i = 0; i < 50; ++i) {
    EXPECT_EQ(last_use_of(s, i) != nullptr, i % 3 == 1) << i;
  }
}

// Issue 26: a call site keeps at most format::kMaxCallsiteFrames frames, the innermost, as the
// layer writes them; the rest are still checked but not kept.
TEST(ReaderTest, CallSiteFramesAreCappedAsTheLayerCapsThem) {
  TempDir dir;
  constexpr uint64_t kFrames = 300000;
  std::vector<uint64_t> offsets(kFrames);
  for (uint64_t i = 0; i < kFrames; ++i) offsets[i] = 0x1000 + 0x10 * i;
  test::SnapshotBuilder b(5, 1, format::Reason::kExit, 1);
  b.callsite_at(offsets);
  b.callsite_at({0x20, 0x30});
  b.write_file(dir.file("s.json"));
  const Snapshot s = read_snapshot(dir.file("s.json"));
  ASSERT_EQ(s.callsites.size(), 2u);
  ASSERT_EQ(s.callsites[0].size(), format::kMaxCallsiteFrames);
  EXPECT_EQ(s.callsites[0][1] - s.callsites[0][0], 0x10u) << "the innermost frames are kept";
  EXPECT_EQ(s.callsites[1].size(), 2u);
  static_assert(kMaxCallstackDepth == format::kMaxCallsiteFrames,
                "the layer's depth range and the reader's cap are one definition");
}

TEST(SnapshotFileNameTest, Parses) {
  SnapshotFile f;
  ASSERT_TRUE(parse_snapshot_file_name("vkleak-1234-17-device_destroy.json", &f));
  EXPECT_EQ(f.pid, 1234u);
  EXPECT_EQ(f.sequence, 17u);
  EXPECT_EQ(f.reason, "device_destroy");
  EXPECT_EQ(f.run_id, "");
  ASSERT_TRUE(parse_snapshot_file_name("vkleak-1234-00000000deadbeef-0017-exit.json", &f));
  EXPECT_EQ(f.pid, 1234u);
  EXPECT_EQ(f.run_id, "00000000deadbeef");
  EXPECT_EQ(f.sequence, 17u);
  EXPECT_EQ(f.reason, "exit");
  for (const char* bad : {"vkleak-1234-17-exit.json.tmp", "vkleak-1234-deadbeef-17-exit.json",
                          "vkleak-1234-exit.json", "vkleak-x-1-exit.json", "vkleak--1-exit.json",
                          "vkleak-1-1-.json", "vkleak-1-1-Exit.json", "other-1-1-exit.json",
                          "vkleak-1-1-exit.jsonx", "vkleak-99999999999999999999-1-exit.json"}) {
    EXPECT_FALSE(parse_snapshot_file_name(bad, &f)) << bad;
  }
}

TEST(SnapshotDirTest, SortsByPidThenSequenceAndIgnoresOtherFiles) {
  TempDir dir;
  for (const char* name :
       {"vkleak-10-10-exit.json", "vkleak-10-2-frame.json", "vkleak-9-5-frame.json",
        "vkleak-10-11-frame.json.tmp", "notes.txt", "vkleak-x-1-frame.json"}) {
    write_file(dir.file(name), "{}");
  }
  const std::vector<SnapshotFile> files = read_snapshot_dir(dir.path());
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].path, dir.file("vkleak-9-5-frame.json"));
  EXPECT_EQ(files[1].path, dir.file("vkleak-10-2-frame.json"));
  EXPECT_EQ(files[2].path, dir.file("vkleak-10-10-exit.json"));
  EXPECT_EQ(files[2].reason, "exit");
}

// Issue 26: a dangling link named like a snapshot was skipped in silence.
TEST(SnapshotDirTest, DanglingSnapshotLinkIsAnError) {
  TempDir dir;
  write_file(dir.file("vkleak-10-1-frame.json"), "{}");
  ASSERT_EQ(::symlink("gone.json", dir.file("vkleak-10-2-exit.json").c_str()), 0);
  ASSERT_EQ(::symlink("gone.txt", dir.file("notes.txt").c_str()), 0);  // not a snapshot's name
  try {
    read_snapshot_dir(dir.path());
    FAIL() << "a dangling snapshot link was skipped";
  } catch (const SnapshotError& e) {
    EXPECT_EQ(std::string(e.what()),
              dir.file("vkleak-10-2-exit.json") +
                  ": is a dangling symbolic link (its target \"gone.json\" does not exist)");
  }
}

TEST(SnapshotDirTest, MissingDirectoryIsAnError) {
  EXPECT_THROW(read_snapshot_dir("/nonexistent/run"), SnapshotError);
  TempDir dir;
  write_file(dir.file("f"), "");
  EXPECT_THROW(read_snapshot_dir(dir.file("f")), SnapshotError);
}

}  // namespace
}  // namespace vkleak
