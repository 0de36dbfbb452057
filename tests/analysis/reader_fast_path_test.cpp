// The reader's fast path (fast_json.h, record_parser.cpp) against nlohmann's parser: the same
// model for every input they accept, the same message for every input they refuse.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/hex.h"
#include "core/snapshot_reader.h"
#include "snapshot_builder.h"
#include "test_support.h"

namespace vkleak {
namespace {

using test::TempDir;
using test::write_file;

// Everything the model holds, with names and types resolved (indices may differ legitimately).
std::string describe(const Snapshot& s) {
  std::string out = std::to_string(s.version) + "|" + s.producer_name + "|" + s.producer_version +
                    "|" + std::to_string(s.pid) + "|" + std::to_string(s.sequence) + "|" +
                    s.executable + "|" + s.reason + "|" +
                    std::to_string(s.scope_device.value_or(-1)) + "|" +
                    std::to_string(s.scope_instance.value_or(-1)) + "|" + std::to_string(s.frame) +
                    "|" + s.frame_boundary + "|" + std::to_string(s.time_ms) + "|" +
                    std::to_string(s.degraded) + "|" + s.label.value_or("-") + "\n";
  for (const Instance& i : s.instances) {
    out += "I" + std::to_string(i.id) + format_hex(i.handle) + i.application.value_or("-") +
           i.engine.value_or("-") + i.api_version + "\n";
  }
  for (const Device& d : s.devices) {
    out += "D" + std::to_string(d.id) + format_hex(d.handle) + std::to_string(d.frame) +
           std::to_string(d.submits) + d.physical_device;
    for (const Queue& q : d.queues)
      out += "q" + std::to_string(q.submitted) + "/" + std::to_string(q.retired);
    out += "\n";
  }
  for (size_t i = 0; i < s.objects.size(); ++i) {
    const Object& o = s.objects[i];
    const std::string* name = s.name(o);
    out += "O" + std::to_string(o.id) + " " + s.type_name(o) + " " + format_hex(o.handle) + " " +
           (name ? *name : "<null>") + " " + std::to_string(o.owner) + " " +
           std::to_string(o.parent) + " " + std::string(format::name(o.origin)) + " " +
           std::to_string(o.frame) + " " + std::to_string(o.time_ms) + " " +
           std::to_string(o.size) + " " + std::to_string(o.callsite) + " " +
           std::to_string(o.refs) + " " + std::to_string(o.in_flight);
    if (const LastUse* u = last_use_of(s, i)) {
      out += " use " + std::to_string(u->frame) + "/" + std::to_string(u->queue) + "/" +
             std::to_string(u->serial);
    }
    if (const MemoryBinding* m = memory_of(s, i)) {
      out += " mem " + std::to_string(m->memory) + "/" + std::to_string(m->offset) + "/" +
             std::to_string(m->size);
    }
    auto [first, last] = edges_of(s, i);
    for (const Edge* e = first; e != last; ++e) {
      out += " edge " + s.edge_kinds[e->kind] + ">" + std::to_string(e->to) + ":" +
             s.type_names[e->type] + ":" + format_hex(e->handle) + ":" +
             (e->name == kNoName ? "-" : s.names[static_cast<size_t>(e->name)]) + ":" +
             std::to_string(e->slot) + ":" + std::to_string(e->offset) + ":" +
             std::to_string(e->size);
    }
    out += "\n";
  }
  for (const DestroyedObject& d : s.destroyed) {
    out += "X" + std::to_string(d.id) + s.type_names[d.type] +
           (d.name == kNoName ? "-" : s.names[static_cast<size_t>(d.name)]) +
           std::to_string(d.destroyed_frame) + std::to_string(d.callsite) + "\n";
  }
  for (const Event& e : s.events) {
    out += "E" + e.kind + e.type + std::to_string(e.object) + e.name.value_or("-") +
           std::to_string(e.frame) + std::to_string(e.submission_serial) + e.message;
    for (const EventPathStep& p : e.path) out += p.relation + p.type + p.name.value_or("-");
    out += "\n";
  }
  for (const auto& c : s.callsites) {
    out += "C";
    for (uint64_t a : c) out += format_hex(a);
    out += "\n";
  }
  for (const Module& m : s.modules) {
    out += "M" + m.path + format_hex(m.base) + std::to_string(m.size) + format_hex(m.bias) +
           m.build_id + "\n";
  }
  for (const auto& [type, c] : s.counts) {
    out += "N" + type + std::to_string(c.live) + "/" + std::to_string(c.bytes) + "\n";
  }
  return out;
}

std::string read_with(const std::string& path, ParserChoice parser) {
  ReadOptions options;
  options.parser = parser;
  try {
    return describe(read_snapshot(path, options));
  } catch (const SnapshotError& e) {
    return std::string("error: ") + e.what();
  }
}

void expect_same(const std::string& path) {
  const std::string fast = read_with(path, ParserChoice::kAuto);
  const std::string reference = read_with(path, ParserChoice::kReference);
  EXPECT_EQ(fast, reference) << path;
}

std::string builder_json() {
  test::SnapshotBuilder s(9, 4, format::Reason::kFrame, 120);
  const int site = s.callsite(0x1000);
  s.object(
      {10, "VkBuffer", "b\xc3\xa9", 1, 4096, site, format::Origin::kCreated, 119});  // UTF-8 name
  s.object({11, "VkDeviceMemory", std::nullopt, 1, 4096, site, format::Origin::kAllocated, 119});
  s.bind(10, 11, 4096);
  s.object({12, "VkDescriptorSet", "set", 2, 0, -1, format::Origin::kAllocated});
  s.edge({12, "descriptor", 5, "VkImageView"});
  s.edge({12, "descriptor.sampler", std::nullopt, "VkSampler"});
  s.destroyed({5, "VkImageView", "gone", 0, 100, site});
  test::EventSpec e;
  e.object = 7;
  e.name = "x";
  e.submission_frame = 3;
  s.event(e);
  return s.json();
}

TEST(ReaderFastPathTest, SameModelAsTheReferenceParser) {
  for (const char* fixture :
       {"small.json", "minimal.json", "v1/small.json", "count_mismatch.json"}) {
    expect_same(test::data_path(fixture));
  }
  TempDir dir;
  write_file(dir.file("built.json"), builder_json());
  expect_same(dir.file("built.json"));
  test::SyntheticSpec spec;
  spec.objects = 5000;
  test::write_synthetic_snapshot(dir.file("synthetic.json"), spec);
  expect_same(dir.file("synthetic.json"));
  // And the fast path really read it (not an error on both sides).
  EXPECT_EQ(read_with(dir.file("synthetic.json"), ParserChoice::kAuto).rfind("error", 0),
            std::string::npos);
}

TEST(ReaderFastPathTest, InputsTheFastPathDeclinesReadTheSame) {
  const std::string base = builder_json();
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string text = base;
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
  };
  const std::vector<std::string> variants = {
      replace("\"name\":\"set\"", "\"name\":\"s\\u00e9t\\n\\\"q\\\"\""),       // escapes
      replace("\"name\":\"set\"", "\"name\":\"\\ud83d\\ude00\""),              // surrogate pair
      replace("\"id\":12,", "\"id\":12,\"future\":{\"a\":[1,2.5,null]},"),     // unknown key
      replace("\"size\":4096,\"callsite\"", "\"size\":4.096e3,\"callsite\""),  // a float
      replace("\"id\":12,", "\"id\":12 , "),                                   // whitespace
      "\xef\xbb\xbf" + base,                                                   // a BOM
      replace("\"frame\":2,", "\"frame\":18446744073709551616,"),              // > 64 bits
      replace("\"id\":12,", "\"id\":-12,"),                                    // negative
      replace("\"id\":12,", "\"id\":012,"),                                    // leading zero
      replace("\"name\":\"set\"", "\"name\":\"\\ud800\""),                     // lone surrogate
      replace("\"name\":\"set\"", "\"name\":\"a\xff\""),                       // invalid UTF-8
      replace("\"in_flight\":false", "\"in_flight\":fals"),                    // bad literal
      replace("\"type\":\"VkDescriptorSet\"", "\"type\":\"Descriptor\""),      // bad type name
      replace("\"origin\":\"allocated\"", "\"origin\":\"borrowed\""),          // bad enum
      replace("\"id\":12,", "\"id\":12,\"id\":13,"),                           // duplicate key
      replace("\"callsite\":null", "\"callsite\":99"),                         // dangling
      base.substr(0, base.size() / 2),                                         // truncated
      base + "{}",                                                             // trailing data
  };
  TempDir dir;
  for (size_t i = 0; i < variants.size(); ++i) {
    const std::string path = dir.file("v" + std::to_string(i) + ".json");
    write_file(path, variants[i]);
    SCOPED_TRACE("variant " + std::to_string(i));
    expect_same(path);
  }
}

TEST(ReaderFastPathTest, RandomCorruptionReadsTheSame) {
  const std::string base = builder_json();
  std::mt19937 random(4242);
  TempDir dir;
  const char kBytes[] = "{}[]\":,0-1e.\\u\xff nulltruefalse \n";
  for (int i = 0; i < 400; ++i) {
    std::string text = base;
    const size_t pos = random() % text.size();
    text[pos] = kBytes[random() % (sizeof(kBytes) - 1)];
    const std::string path = dir.file("c.json");
    write_file(path, text);
    SCOPED_TRACE("byte " + std::to_string(pos));
    expect_same(path);
  }
}

TEST(ReaderFastPathTest, ProgressCountsTheBytesRead) {
  TempDir dir;
  write_file(dir.file("s.json"), builder_json());
  std::atomic<uint64_t> counter{0};
  ReadOptions options;
  options.progress_bytes = &counter;
  read_snapshot(dir.file("s.json"), options);
  EXPECT_EQ(counter.load(), builder_json().size());
}

}  // namespace
}  // namespace vkleak
