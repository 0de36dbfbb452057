// Writer to reader: a snapshot with every field of the plain model set is written by the layer's
// serializer (layer/src/snapshot/snapshot_serialize.cpp, compiled in) and read back by the CLI's
// reader (vkleak_core); every field must come back, and the keys written must be exactly the
// contract's (src/format/snapshot_fields.h), so a field the contract gains but the writer lacks
// fails here (the reader's switches over the contract's fields fail to compile instead).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/snapshot.h"
#include "core/snapshot_reader.h"
#include "format/snapshot_fields.h"
#include "format/snapshot_format.h"
#include "snapshot/json_writer.h"
#include "snapshot/snapshot_model.h"
#include "snapshot/snapshot_serialize.h"

namespace vkleak {
namespace {

namespace f = format;

const char* const kTypes[] = {"VkUnknown",      "VkInstance",  "VkDevice", "VkBuffer",
                              "VkDeviceMemory", "VkImageView", "VkQueue"};

class VectorSource : public model::ObjectSource {
 public:
  std::vector<model::Object> objects;
  size_t size() const override { return objects.size(); }
  void get(size_t index, model::Object* out) const override { *out = objects[index]; }
};

// A device's heaps as the layer samples them where the driver has VK_EXT_memory_budget.
HeapBudgetSample budget_sample() {
  HeapBudgetSample b;
  b.status = f::HeapBudgetStatus::kSampled;
  b.enabled_known = true;
  b.enabled_by = f::HeapBudgetEnabledBy::kLayer;
  b.frame = 1200;
  b.time_ms = 3999;
  b.heap_count = 2;
  b.heaps[0] = {uint64_t{80} << 30, uint64_t{79} << 30, uint64_t{5} << 30, true};
  b.heaps[1] = {uint64_t{64} << 30, uint64_t{60} << 30, 123456, false};
  return b;
}

struct Fixture {
  model::Snapshot s;
  VectorSource objects;
  std::vector<model::Edge> edges;

  Fixture() {
    s.producer_version = "9.8.7";
    s.pid = 4242;
    s.run_id = "0123456789abcdef";
    s.executable = "/usr/bin/app";
    s.sequence = 17;
    s.reason = f::Reason::kDeviceDestroy;
    s.label = "a label";
    s.scope_device = 2;
    s.frame = 1234;
    s.frame_boundary = f::FrameBoundary::kSubmit;
    s.time_ms = 5678;
    s.degraded = true;
    s.final_snapshot = true;
    s.unwritten_count = 40;
    s.unwritten = {{7, f::Reason::kFrame, "No space left on device"},
                   {-1, f::Reason::kCrash, "out of memory"}};
    s.coalesced_signals = 3;
    s.error_results[0] = 11;
    s.error_results[1] = 12;
    s.error_results[2] = 13;
    s.settings = {{"output_dir", "/tmp/out"}, {"snapshot_every", "100"}};
    s.instances = {{1, 0xa1, "app", "engine", (1u << 22) | (3u << 12) | 239u}};
    s.devices = {{2,
                  0xd2,
                  1,
                  "llvmpipe",
                  1234,
                  99,
                  98,
                  f::FrameBoundary::kSubmit,
                  true,
                  true,
                  {{0, 0x51, 41, 40}, {1, 0x52, 7, 7}},
                  budget_sample()}};
    edges = {{"memory", 5, 4, 0xe5, "the memory", 0, 256, 1024},
             {"pCreateInfo.buffer", 0, 3, 0xdead, "", 3, 0, 0}};
    model::Object buffer;
    buffer.id = 3;
    buffer.type = 3;
    buffer.handle = 0xb3;
    buffer.name = "vertex buffer";
    buffer.owner = 2;
    buffer.parent = 2;
    buffer.origin = f::Origin::kAllocated;
    buffer.frame = 120;
    buffer.time_ms = 4000;
    buffer.size = 1024;
    buffer.callsite = 1;
    buffer.refs = 2;
    buffer.has_last_use = true;
    buffer.last_use_frame = 1200;
    buffer.last_use_queue = 1;
    buffer.last_use_serial = 6;
    buffer.in_flight = true;
    buffer.create_flags = 3;  // the format reads it on any type; the layer writes it on pools
    buffer.has_memory = true;
    buffer.memory_id = 5;
    buffer.memory_offset = 256;
    buffer.memory_size = 1024;
    buffer.has_edges = true;
    buffer.edges = edges.data();
    buffer.edge_count = edges.size();
    model::Object device;  // the nulls
    device.id = 2;
    device.type = 2;
    device.handle = 0xd2;
    device.owner = 1;
    device.origin = f::Origin::kSwapchainImage;
    objects.objects = {device, buffer};
    s.objects = &objects;
    s.destroyed = {{6, 5, 0xf6, "old view", 2, 100, 110, 64, 1, 2}};
    model::Event in_flight;
    in_flight.kind = f::name(f::EventKind::kDestroyedInFlight);
    in_flight.owner = 2;
    in_flight.type = 3;
    in_flight.handle = 0xb7;
    in_flight.object = 7;
    in_flight.frame = 1210;
    in_flight.time_ms = 4500;
    in_flight.name = "staging";
    in_flight.has_submission = true;
    in_flight.submission_queue = 1;
    in_flight.submission_serial = 6;
    in_flight.submission_frame = 1209;
    in_flight.path = {{8, 5, "a view", "viewed by"}};
    in_flight.callsite = 2;
    in_flight.created = {true, 1100, 1};
    in_flight.message = "destroyed while in flight";
    model::Event invalid;
    invalid.kind = f::name(f::EventKind::kInvalidDestroy);
    invalid.owner = 2;
    invalid.type = 3;
    invalid.handle = 0xb9;
    invalid.frame = 1211;
    invalid.time_ms = 4501;
    invalid.callsite = 2;
    invalid.created = {true, 1000, 1};
    invalid.reason = f::name(f::InvalidDestroy::kWrongDevice);
    invalid.first_destroy = {true, 1005, 2};
    invalid.belongs_to = 9;
    invalid.message = "destroy of a handle of another device";
    s.events = {in_flight, invalid};
    s.events_dropped = 5;
    s.type_names = kTypes;
    s.type_count = std::size(kTypes);
    s.callsites = {{0x1000, 0x2000}, {0x3000}, {0x4000, 0x5000, 0x6000}};
    s.modules = {{"/usr/bin/app", 0x400000, 0x10000, 0x400000, "abcdef0123"},
                 {"/lib/libc.so.6", 0x7f0000, 0x2000, 0x7f0000, ""}};
  }
};

std::string write_file(const model::Snapshot& s) {
  char path[] = "/tmp/vkleak-roundtrip-XXXXXX";
  const int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  JsonWriter w(fd);
  serialize_snapshot(w, s);
  EXPECT_TRUE(w.flush());
  close(fd);
  return path;
}

TEST(RoundTrip, EveryFieldFromWriterToReader) {
  Fixture fx;
  const std::string path = write_file(fx.s);
  Snapshot r;
  ASSERT_NO_THROW(r = read_snapshot(path)) << path;
  std::remove(path.c_str());

  EXPECT_EQ(r.version, f::kVersion);
  EXPECT_EQ(r.producer_name, f::kProducerName);
  EXPECT_EQ(r.producer_version, "9.8.7");
  EXPECT_EQ(r.pid, 4242u);
  EXPECT_EQ(r.run_id, "0123456789abcdef");
  EXPECT_EQ(r.executable, "/usr/bin/app");
  EXPECT_EQ(r.sequence, 17u);
  EXPECT_EQ(r.reason, "device_destroy");
  EXPECT_EQ(r.label, "a label");
  EXPECT_EQ(r.scope_device, 2);
  EXPECT_FALSE(r.scope_instance);
  EXPECT_EQ(r.frame, 1234u);
  EXPECT_EQ(r.frame_boundary, "submit");
  EXPECT_EQ(r.time_ms, 5678u);
  EXPECT_TRUE(r.degraded);
  EXPECT_EQ(r.final_snapshot, true);
  EXPECT_EQ(r.unwritten_count, 40u);
  ASSERT_EQ(r.unwritten.size(), 2u);
  EXPECT_EQ(r.unwritten[0].sequence, 7u);
  EXPECT_EQ(r.unwritten[0].reason, "frame");
  EXPECT_EQ(r.unwritten[0].error, "No space left on device");
  EXPECT_FALSE(r.unwritten[1].sequence);
  EXPECT_EQ(r.unwritten[1].reason, "crash");
  EXPECT_EQ(r.coalesced_signals, 3u);
  EXPECT_EQ(r.error_results.out_of_device_memory, 11u);
  EXPECT_EQ(r.error_results.out_of_host_memory, 12u);
  EXPECT_EQ(r.error_results.device_lost, 13u);

  ASSERT_EQ(r.instances.size(), 1u);
  EXPECT_EQ(r.instances[0].id, 1);
  EXPECT_EQ(r.instances[0].handle, 0xa1u);
  EXPECT_EQ(r.instances[0].application, "app");
  EXPECT_EQ(r.instances[0].engine, "engine");
  EXPECT_EQ(r.instances[0].api_version, "1.3.239");

  ASSERT_EQ(r.devices.size(), 1u);
  const Device& d = r.devices[0];
  EXPECT_EQ(d.id, 2);
  EXPECT_EQ(d.handle, 0xd2u);
  EXPECT_EQ(d.instance, 1);
  EXPECT_EQ(d.physical_device, "llvmpipe");
  EXPECT_EQ(d.frame, 1234u);
  EXPECT_EQ(d.submits, 99u);
  EXPECT_EQ(d.presents, 98u);
  EXPECT_EQ(d.frame_boundary, "submit");
  EXPECT_TRUE(d.frame_boundary_auto);
  EXPECT_TRUE(d.degraded);
  ASSERT_EQ(d.queues.size(), 2u);
  EXPECT_EQ(d.queues[0].index, 0);
  EXPECT_EQ(d.queues[0].handle, 0x51u);
  EXPECT_EQ(d.queues[0].submitted, 41u);
  EXPECT_EQ(d.queues[0].retired, 40u);
  EXPECT_EQ(d.queues[1].index, 1);
  const MemoryBudget& mb = d.memory_budget;
  EXPECT_TRUE(mb.present);
  EXPECT_EQ(mb.status, f::HeapBudgetStatus::kSampled);
  EXPECT_EQ(mb.enabled_by, f::HeapBudgetEnabledBy::kLayer);
  EXPECT_EQ(mb.frame, 1200u);
  EXPECT_EQ(mb.time_ms, 3999u);
  ASSERT_EQ(mb.heaps.size(), 2u);
  EXPECT_EQ(mb.heaps[0].index, 0u);
  EXPECT_EQ(mb.heaps[0].size, uint64_t{80} << 30);
  EXPECT_TRUE(mb.heaps[0].device_local);
  EXPECT_EQ(mb.heaps[0].budget, uint64_t{79} << 30);
  EXPECT_EQ(mb.heaps[0].usage, uint64_t{5} << 30);
  EXPECT_EQ(mb.heaps[1].index, 1u);
  EXPECT_FALSE(mb.heaps[1].device_local);
  EXPECT_EQ(mb.heaps[1].usage, 123456u);

  ASSERT_EQ(r.objects.size(), 2u);
  const Object& dev = r.objects[0];
  EXPECT_EQ(dev.id, 2u);
  EXPECT_EQ(r.type_name(dev), "VkDevice");
  EXPECT_EQ(r.name(dev), nullptr);
  EXPECT_EQ(dev.parent, kNullId);
  EXPECT_EQ(dev.callsite, kNoCallsite);
  EXPECT_EQ(dev.origin, f::Origin::kSwapchainImage);
  EXPECT_EQ(dev.refs, 1);
  EXPECT_FALSE(dev.in_flight);
  EXPECT_EQ(dev.create_flags, 0);
  EXPECT_EQ(last_use_of(r, 0), nullptr);
  EXPECT_EQ(memory_of(r, 0), nullptr);
  EXPECT_EQ(edges_of(r, 0).first, edges_of(r, 0).second);
  const Object& o = r.objects[1];
  EXPECT_EQ(o.id, 3u);
  EXPECT_EQ(r.type_name(o), "VkBuffer");
  EXPECT_EQ(o.handle, 0xb3u);
  ASSERT_NE(r.name(o), nullptr);
  EXPECT_EQ(*r.name(o), "vertex buffer");
  EXPECT_EQ(o.owner, 2);
  EXPECT_EQ(o.parent, 2);
  EXPECT_EQ(o.origin, f::Origin::kAllocated);
  EXPECT_EQ(o.frame, 120u);
  EXPECT_EQ(o.time_ms, 4000u);
  EXPECT_EQ(o.size, 1024u);
  EXPECT_EQ(o.callsite, 1);
  EXPECT_EQ(o.refs, 2);
  EXPECT_TRUE(o.in_flight);
  EXPECT_EQ(o.create_flags, 3);
  const LastUse* use = last_use_of(r, 1);
  ASSERT_NE(use, nullptr);
  EXPECT_EQ(use->frame, 1200u);
  EXPECT_EQ(use->queue, 1u);
  EXPECT_EQ(use->serial, 6u);
  const MemoryBinding* mem = memory_of(r, 1);
  ASSERT_NE(mem, nullptr);
  EXPECT_EQ(mem->memory, 5);
  EXPECT_EQ(mem->offset, 256u);
  EXPECT_EQ(mem->size, 1024u);
  auto [e, e_end] = edges_of(r, 1);
  ASSERT_EQ(e_end - e, 2);
  EXPECT_EQ(r.edge_kinds[e[0].kind], "memory");
  EXPECT_EQ(e[0].to, 5);
  EXPECT_EQ(r.type_names[e[0].type], "VkDeviceMemory");
  EXPECT_EQ(e[0].handle, 0xe5u);
  ASSERT_NE(e[0].name, kNoName);
  EXPECT_EQ(r.names[static_cast<size_t>(e[0].name)], "the memory");
  EXPECT_EQ(e[0].slot, 0u);
  EXPECT_EQ(e[0].offset, 256u);
  EXPECT_EQ(e[0].size, 1024u);
  EXPECT_EQ(r.edge_kinds[e[1].kind], "pCreateInfo.buffer");
  EXPECT_EQ(e[1].to, kNullId);
  EXPECT_EQ(e[1].name, kNoName);
  EXPECT_EQ(e[1].slot, 3u);
  EXPECT_EQ(e[1].offset, 0u);

  ASSERT_EQ(r.destroyed.size(), 1u);
  const DestroyedObject& gone = r.destroyed[0];
  EXPECT_EQ(gone.id, 6);
  EXPECT_EQ(r.type_names[gone.type], "VkImageView");
  EXPECT_EQ(gone.handle, 0xf6u);
  EXPECT_EQ(r.names[static_cast<size_t>(gone.name)], "old view");
  EXPECT_EQ(gone.owner, 2);
  EXPECT_EQ(gone.frame, 100);
  EXPECT_EQ(gone.destroyed_frame, 110);
  EXPECT_EQ(gone.size, 64);
  EXPECT_EQ(gone.callsite, 1);
  EXPECT_EQ(gone.destroy_callsite, 2);

  ASSERT_EQ(r.events.size(), 2u);
  const Event& a = r.events[0];
  EXPECT_EQ(a.kind, "destroyed_in_flight");
  EXPECT_EQ(a.owner, 2);
  EXPECT_EQ(a.type, "VkBuffer");
  EXPECT_EQ(a.handle, 0xb7u);
  EXPECT_EQ(a.object, 7);
  EXPECT_EQ(a.name, "staging");
  EXPECT_EQ(a.frame, 1210);
  EXPECT_EQ(a.time_ms, 4500);
  EXPECT_TRUE(a.has_submission);
  EXPECT_EQ(a.submission_queue, 1);
  EXPECT_EQ(a.submission_serial, 6);
  EXPECT_EQ(a.submission_frame, 1209);
  ASSERT_EQ(a.path.size(), 1u);
  EXPECT_EQ(a.path[0].id, 8);
  EXPECT_EQ(a.path[0].type, "VkImageView");
  EXPECT_EQ(a.path[0].name, "a view");
  EXPECT_EQ(a.path[0].relation, "viewed by");
  EXPECT_EQ(a.callsite, 2);
  EXPECT_TRUE(a.has_created);
  EXPECT_EQ(a.created_frame, 1100);
  EXPECT_EQ(a.created_callsite, 1);
  EXPECT_EQ(a.message, "destroyed while in flight");
  EXPECT_FALSE(a.has_first_destroy);
  EXPECT_EQ(a.belongs_to, kNullId);
  const Event& b = r.events[1];
  EXPECT_EQ(b.kind, "invalid_destroy");
  EXPECT_EQ(b.object, kNullId);
  EXPECT_FALSE(b.name);
  EXPECT_FALSE(b.has_submission);
  EXPECT_EQ(b.reason, "wrong_device");
  EXPECT_TRUE(b.has_first_destroy);
  EXPECT_EQ(b.first_destroy_frame, 1005);
  EXPECT_EQ(b.first_destroy_callsite, 2);
  EXPECT_EQ(b.belongs_to, 9);
  EXPECT_EQ(r.events_dropped, 5u);

  ASSERT_EQ(r.callsites.size(), 3u);
  EXPECT_EQ(r.callsites[0], (std::vector<uint64_t>{0x1000, 0x2000}));
  EXPECT_EQ(r.callsites[2], (std::vector<uint64_t>{0x4000, 0x5000, 0x6000}));
  ASSERT_EQ(r.modules.size(), 2u);
  EXPECT_EQ(r.modules[0].path, "/usr/bin/app");
  EXPECT_EQ(r.modules[0].base, 0x400000u);
  EXPECT_EQ(r.modules[0].size, 0x10000u);
  EXPECT_EQ(r.modules[0].bias, 0x400000u);
  EXPECT_EQ(r.modules[0].build_id, "abcdef0123");
  EXPECT_EQ(r.modules[1].build_id, "");

  ASSERT_EQ(r.counts.size(), 2u);
  EXPECT_EQ(r.counts["VkBuffer"].live, 1u);
  EXPECT_EQ(r.counts["VkBuffer"].bytes, 1024u);
  EXPECT_EQ(r.counts["VkDevice"].live, 1u);
}

// The keys under each place of the document ("objects/*/edges/*"), over all its instances.
void collect_keys(const nlohmann::json& node, const std::string& path,
                  std::map<std::string, std::set<std::string>>* out) {
  const std::string prefix = path.empty() ? "" : path + "/";
  if (node.is_object()) {
    auto& keys = (*out)[path];
    for (const auto& [k, v] : node.items()) {
      keys.insert(k);
      if (path.empty() && k == "settings") continue;  // free-form: not part of the contract
      collect_keys(v, path == "counts" ? prefix + "*" : prefix + k, out);
    }
  } else if (node.is_array()) {
    for (const auto& v : node) collect_keys(v, prefix + "*", out);
  }
}

TEST(RoundTrip, KeysWrittenAreTheContractsKeys) {
  Fixture fx;
  const std::string path = write_file(fx.s);
  std::ifstream in(path);
  const nlohmann::json doc = nlohmann::json::parse(in);
  std::remove(path.c_str());
  std::map<std::string, std::set<std::string>> written;
  collect_keys(doc, "", &written);
  written.erase("counts");              // its keys are type names
  written.erase("callsites/*/frames");  // an array of addresses
  std::set<std::string> places;
  for (const f::Place& place : f::kPlaces) {
    places.insert(std::string(place.path));
    std::set<std::string> contract;
    for (int i = 0; i < place.fields->count; ++i)
      contract.insert(std::string(place.fields->names[i]));
    if (place.path == "scope") contract.erase("instance");  // one of the two; see below
    EXPECT_EQ(written[std::string(place.path)], contract) << "at \"" << place.path << "\"";
  }
  for (const auto& [where, keys] : written)
    EXPECT_TRUE(places.count(where)) << "written but not in the contract: " << where;

  // "scope" holds "instance" for instance_destroy snapshots.
  fx.s.scope_device = -1;
  fx.s.scope_instance = 1;
  const std::string path2 = write_file(fx.s);
  std::ifstream in2(path2);
  const nlohmann::json doc2 = nlohmann::json::parse(in2);
  EXPECT_EQ(doc2["scope"], nlohmann::json({{"instance", 1}}));
  const Snapshot r2 = read_snapshot(path2);
  std::remove(path2.c_str());
  EXPECT_EQ(r2.scope_instance, 1);
  EXPECT_FALSE(r2.scope_device);
}

// Without VK_EXT_memory_budget (lavapipe) a device lists its heaps' sizes only: no budget, no
// usage, no sample time, and the status says why.
TEST(RoundTrip, HeapsWithoutTheDriversBudget) {
  Fixture fx;
  HeapBudgetSample& b = fx.s.devices[0].heap_budget;
  b.status = f::HeapBudgetStatus::kUnsupported;
  b.enabled_known = false;
  const std::string path = write_file(fx.s);
  std::ifstream in(path);
  const nlohmann::json doc = nlohmann::json::parse(in);
  const Snapshot r = read_snapshot(path);
  std::remove(path.c_str());
  const nlohmann::json& written = doc["devices"][0]["memory_budget"];
  EXPECT_EQ(written["status"], "unsupported");
  EXPECT_FALSE(written.contains("enabled_by"));
  EXPECT_FALSE(written.contains("time_ms"));
  EXPECT_FALSE(written["heaps"][0].contains("usage"));
  const MemoryBudget& rb = r.devices[0].memory_budget;
  EXPECT_TRUE(rb.present);
  EXPECT_EQ(rb.status, f::HeapBudgetStatus::kUnsupported);
  EXPECT_FALSE(rb.enabled_by);
  EXPECT_FALSE(rb.frame);
  ASSERT_EQ(rb.heaps.size(), 2u);
  EXPECT_EQ(rb.heaps[0].size, uint64_t{80} << 30);
  EXPECT_FALSE(rb.heaps[0].budget);
  EXPECT_FALSE(rb.heaps[0].usage);
}

}  // namespace
}  // namespace vkleak
