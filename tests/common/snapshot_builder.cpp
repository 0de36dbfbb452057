#include "snapshot_builder.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "core/hex.h"
#include "core/snapshot_reader.h"

namespace vkleak::test {

namespace {

std::string str(const std::optional<std::string>& s) {
  return s ? nlohmann::json(*s).dump() : "null";
}

template <typename T>
std::string num(const std::optional<T>& v) {
  return v ? std::to_string(*v) : "null";
}

std::string hex(uint64_t v) {
  return "\"" + format_hex(v) + "\"";
}

}  // namespace

SnapshotBuilder::SnapshotBuilder(uint64_t pid, uint64_t sequence, std::string reason,
                                 uint64_t frame)
    : pid_(pid), sequence_(sequence), frame_(frame), reason_(std::move(reason)) {}

int SnapshotBuilder::callsite(uint64_t first_offset, int depth) {
  std::vector<uint64_t> frames;
  for (int i = 0; i < depth; ++i) frames.push_back(kModuleBase + first_offset + 0x100 * i);
  callsites_.push_back(std::move(frames));
  return static_cast<int>(callsites_.size() - 1);
}

int SnapshotBuilder::callsite_at(const std::vector<uint64_t>& offsets) {
  std::vector<uint64_t> frames;
  for (uint64_t offset : offsets) frames.push_back(kModuleBase + offset);
  callsites_.push_back(std::move(frames));
  return static_cast<int>(callsites_.size() - 1);
}

SnapshotBuilder& SnapshotBuilder::module_path(std::string path) {
  module_path_ = std::move(path);
  return *this;
}

SnapshotBuilder& SnapshotBuilder::object(const ObjectSpec& spec) {
  objects_.push_back(spec);
  return *this;
}

SnapshotBuilder& SnapshotBuilder::bind(uint64_t from, uint64_t memory, uint64_t size) {
  edges_.push_back(EdgeSpec{from, "memory", memory, "VkDeviceMemory", size});
  return *this;
}

SnapshotBuilder& SnapshotBuilder::edge(const EdgeSpec& spec) {
  edges_.push_back(spec);
  return *this;
}

SnapshotBuilder& SnapshotBuilder::destroyed(const DestroyedSpec& spec) {
  destroyed_.push_back(spec);
  return *this;
}

SnapshotBuilder& SnapshotBuilder::event(const EventSpec& spec) {
  events_.push_back(spec);
  return *this;
}

SnapshotBuilder& SnapshotBuilder::generated_objects(size_t count, ObjectMaker make) {
  generated_count_ = count;
  generated_ = std::move(make);
  return *this;
}

SnapshotBuilder& SnapshotBuilder::device_frame(uint64_t frame) {
  device_frame_ = frame;
  return *this;
}

SnapshotBuilder& SnapshotBuilder::frame_boundary(std::string boundary) {
  frame_boundary_ = std::move(boundary);
  return *this;
}

SnapshotBuilder& SnapshotBuilder::settings(std::string raw_json) {
  settings_ = std::move(raw_json);
  return *this;
}

SnapshotBuilder& SnapshotBuilder::top(const std::string& key, const std::string& raw_json) {
  top_.emplace_back(key, raw_json);
  return *this;
}

std::string SnapshotBuilder::json() const {
  std::ostringstream out;
  write_json(out);
  return out.str();
}

void SnapshotBuilder::write_json(std::ostream& os) const {
  std::string out;
  const uint64_t dev_frame = device_frame_.value_or(frame_);
  std::string scope = "null";
  if (reason_ == "device_destroy") scope = "{\"device\":" + std::to_string(kDeviceId) + "}";
  if (reason_ == "instance_destroy") scope = "{\"instance\":" + std::to_string(kInstanceId) + "}";
  out +=
      "{\"format\":\"vkleak-snapshot\",\"version\":2,\"producer\":{\"name\":\"vkleak\","
      "\"version\":\"0.1.0\"},\"pid\":" +
      std::to_string(pid_) +
      ",\"executable\":\"/opt/app/bin/app\",\"sequence\":" + std::to_string(sequence_) +
      ",\"reason\":\"" + reason_ + "\",\"scope\":" + scope +
      ",\"frame\":" + std::to_string(frame_) + ",\"frame_boundary\":\"" + frame_boundary_ +
      "\",\"time_ms\":" + std::to_string(frame_ * 16) + ",\"degraded\":false,";
  bool labelled = false;
  for (const auto& [key, value] : top_) {
    out += "\"" + key + "\":" + value + ",";
    labelled |= key == "label";
  }
  if (!labelled) out += "\"label\":null,";
  out += "\n\"settings\":" + settings_ +
         ",\n\"instances\":[{\"id\":1,\"handle\":\"0x1000\","
         "\"application\":\"app\",\"engine\":null,\"api_version\":\"1.3.0\"}],\n"
         "\"devices\":[{\"id\":2,\"handle\":\"0x2000\",\"instance\":1,\"physical_device\":"
         "\"llvmpipe\",\"frame\":" +
         std::to_string(dev_frame) + ",\"submits\":" + std::to_string(dev_frame) +
         ",\"presents\":0,\"degraded\":false,\"queues\":[{\"index\":0,\"handle\":\"0x3000\","
         "\"submitted\":" +
         std::to_string(dev_frame) + ",\"retired\":" + std::to_string(dev_frame) + "}]}]";

  std::map<uint64_t, std::vector<const EdgeSpec*>> edges_of;
  for (const EdgeSpec& e : edges_) edges_of[e.from].push_back(&e);
  std::map<std::string, std::pair<uint64_t, uint64_t>> counts;
  out += ",\n\"objects\":[";
  bool first = true;
  auto write_object = [&](const ObjectSpec& o, const std::vector<const EdgeSpec*>& edges) {
    out += first ? "\n" : ",\n";
    first = false;
    out += "{\"id\":" + std::to_string(o.id) + ",\"type\":\"" + o.type +
           "\",\"handle\":" + hex(o.handle != 0 ? o.handle : 0x7f0000000000 + 0x40 * o.id) +
           ",\"name\":" + str(o.name) + ",\"owner\":" + std::to_string(o.owner) +
           ",\"parent\":" + num(o.parent) + ",\"origin\":\"" + o.origin +
           "\",\"frame\":" + std::to_string(o.frame) +
           ",\"time_ms\":" + std::to_string(o.frame * 16) + ",\"size\":" + std::to_string(o.size) +
           ",\"callsite\":" + (o.callsite < 0 ? std::string("null") : std::to_string(o.callsite)) +
           ",\"last_use\":" +
           (o.last_use ? "{\"frame\":" + std::to_string(*o.last_use) +
                             ",\"queue\":0,\"serial\":" + std::to_string(*o.last_use + 1) + "}"
                       : std::string("null")) +
           ",\"in_flight\":" + (o.in_flight ? "true" : "false");
    if (!edges.empty()) {
      for (const EdgeSpec* e : edges) {
        if (e->kind == "memory" && e->to) {
          out += ",\"memory\":{\"id\":" + std::to_string(*e->to) +
                 ",\"offset\":0,\"size\":" + std::to_string(e->size) + "}";
          break;
        }
      }
      out += ",\"edges\":[";
      for (size_t k = 0; k < edges.size(); ++k) {
        const EdgeSpec* e = edges[k];
        out += std::string(k ? "," : "") + "{\"kind\":\"" + e->kind + "\",\"to\":" + num(e->to) +
               ",\"type\":\"" + e->type +
               "\",\"handle\":" + hex(0x6f0000000000 + e->to.value_or(0)) +
               ",\"slot\":" + std::to_string(k);
        if (e->size != 0) out += ",\"offset\":0,\"size\":" + std::to_string(e->size);
        out += "}";
      }
      out += "]";
    }
    out += "}";
    auto& c = counts[o.type];
    ++c.first;
    c.second += o.size;
    os << out;
    out.clear();
  };
  const std::vector<const EdgeSpec*> no_edges;
  for (const ObjectSpec& o : objects_) {
    auto it = edges_of.find(o.id);
    write_object(o, it != edges_of.end() ? it->second : no_edges);
  }
  std::vector<EdgeSpec> generated_edges;
  std::vector<const EdgeSpec*> generated_edge_ptrs;
  for (size_t i = 0; i < generated_count_; ++i) {
    generated_edges.clear();
    const ObjectSpec o = generated_(i, &generated_edges);
    generated_edge_ptrs.clear();
    for (const EdgeSpec& e : generated_edges) generated_edge_ptrs.push_back(&e);
    write_object(o, generated_edge_ptrs);
  }
  out += "]";

  out += ",\n\"destroyed\":[";
  for (size_t i = 0; i < destroyed_.size(); ++i) {
    const DestroyedSpec& d = destroyed_[i];
    out += std::string(i ? ",\n" : "\n") + "{\"id\":" + std::to_string(d.id) + ",\"type\":\"" +
           d.type + "\",\"handle\":" + hex(0x7e0000000000 + d.id) + ",\"name\":" + str(d.name) +
           ",\"owner\":2,\"frame\":" + std::to_string(d.frame) +
           ",\"destroyed_frame\":" + std::to_string(d.destroyed_frame) +
           ",\"size\":0,\"callsite\":" +
           (d.callsite < 0 ? std::string("null") : std::to_string(d.callsite)) + "}";
  }
  out += "]";

  out += ",\n\"counts\":{";
  first = true;
  for (const auto& [type, c] : counts) {
    out += std::string(first ? "" : ",") + "\"" + type + "\":{\"live\":" + std::to_string(c.first) +
           ",\"bytes\":" + std::to_string(c.second) + "}";
    first = false;
  }
  out += "}";

  out += ",\n\"events\":[";
  for (size_t i = 0; i < events_.size(); ++i) {
    const EventSpec& e = events_[i];
    out += std::string(i ? ",\n" : "\n") + "{\"kind\":\"" + e.kind + "\",\"owner\":2,\"type\":\"" +
           e.type + "\",\"handle\":" + hex(0x7d0000000000 + e.object.value_or(0)) +
           ",\"object\":" + num(e.object) + ",\"frame\":" + std::to_string(e.frame) +
           ",\"time_ms\":" + std::to_string(e.frame * 16) + ",\"name\":" + str(e.name);
    if (e.submission_frame) {
      out += ",\"submission\":{\"queue\":0,\"serial\":" + std::to_string(*e.submission_frame + 1) +
             ",\"frame\":" + std::to_string(*e.submission_frame) +
             "},\"path\":[{\"id\":6,\"type\":\"VkCommandBuffer\",\"name\":\"frame.cmd.0\","
             "\"relation\":\"bound in\"}]";
    }
    out += ",\"message\":" + nlohmann::json(e.message).dump() + "}";
  }
  out += "],\"events_dropped\":0";

  out += ",\n\"callsites\":[";
  for (size_t i = 0; i < callsites_.size(); ++i) {
    out += std::string(i ? ",\n" : "\n") + "{\"id\":" + std::to_string(i) + ",\"frames\":[";
    for (size_t k = 0; k < callsites_[i].size(); ++k) {
      out += std::string(k ? "," : "") + hex(callsites_[i][k]);
    }
    out += "]}";
  }
  out += "]";
  out += ",\n\"modules\":[\n{\"path\":" + nlohmann::json(module_path_).dump() +
         ",\"base\":" + hex(kModuleBase) + ",\"size\":268435456,\"bias\":" + hex(kModuleBase) +
         ",\"build_id\":null}]}\n";
  os << out;
}

std::string SnapshotBuilder::write(const std::string& dir) const {
  char name[96];
  std::snprintf(name, sizeof(name), "/vkleak-%llu-%04llu-%s.json",
                static_cast<unsigned long long>(pid_), static_cast<unsigned long long>(sequence_),
                reason_.c_str());
  const std::string path = dir + name;
  write_file(path);
  return path;
}

void SnapshotBuilder::write_file(const std::string& path) const {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  write_json(out);
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path);
}

Snapshot SnapshotBuilder::read() const {
  char pattern[] = "/tmp/vkleak-analysis-test-XXXXXX";
  const int fd = ::mkstemp(pattern);
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  const std::string text = json();
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!ok) throw std::runtime_error("cannot write a temporary snapshot");
  Snapshot s;
  try {
    s = read_snapshot(pattern);
  } catch (...) {
    ::unlink(pattern);
    throw;
  }
  ::unlink(pattern);
  return s;
}

SyntheticTotals write_synthetic_snapshot(const std::string& path, const SyntheticSpec& spec) {
  static constexpr const char* kTypes[] = {
      "VkBuffer",  "VkDeviceMemory",  "VkImage", "VkImageView", "VkDescriptorSet",
      "VkSampler", "VkCommandBuffer", "VkFence", "VkSemaphore", "VkPipeline"};
  constexpr size_t kTypeCount = sizeof(kTypes) / sizeof(kTypes[0]);
  SnapshotBuilder b(31337, 9, "frame", 100000);
  b.frame_boundary("present").settings("{\"callstack_depth\":12}");
  b.device_frame(100000).module_path("/opt/synthetic/bin/app");
  b.callsite_at({});  // the layer's "none" entry
  for (size_t c = 1; c < spec.callsites; ++c) {
    std::vector<uint64_t> offsets;
    for (size_t k = 0; k < spec.frames_per_callsite; ++k) {
      offsets.push_back(0x1000 + 0x10 * (c * spec.frames_per_callsite + k));
    }
    b.callsite_at(offsets);
  }
  SyntheticTotals totals;
  b.generated_objects(spec.objects, [&](size_t i, std::vector<EdgeSpec>* edges) {
    const uint64_t id = 3 + i;
    const std::string type = kTypes[(i * 7 + i / 13) % kTypeCount];
    const uint64_t size = (i % 5 == 0) ? 0 : uint64_t{256} << (i % 12);
    const int callsite =
        spec.callsites > 1 ? static_cast<int>(1 + (i * 31) % (spec.callsites - 1)) : -1;
    std::optional<std::string> name;
    if (spec.named_every != 0 && i % spec.named_every == 0) {
      name = "res." + std::to_string(i);
      ++totals.named;
    }
    ObjectSpec o(id, type, name, i / 10, size, callsite, i % 3 == 0 ? "allocated" : "created");
    o.parent = kDeviceId;
    o.handle = uint64_t{0x7f3a00000000} + 0x40 * i;
    // As the layer writes them: a last use for a third of the objects, and for buffers the
    // bound memory and its edge.
    if (i % 3 == 1) {
      o.last_use = i / 10 + 5;
      o.in_flight = i % 2 != 0;
      ++totals.last_used;
    }
    if (type == "VkBuffer") {
      edges->push_back(EdgeSpec{id, "memory", id + 1, "VkDeviceMemory", size});
      ++totals.edges;
      ++totals.buffers;
    }
    ++totals.objects;
    totals.bytes += size;
    return o;
  });
  b.write_file(path);
  return totals;
}

}  // namespace vkleak::test
