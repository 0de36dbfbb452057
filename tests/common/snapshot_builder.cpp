#include "run_builder.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
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

SnapshotBuilder& SnapshotBuilder::device_frame(uint64_t frame) {
  device_frame_ = frame;
  return *this;
}

SnapshotBuilder& SnapshotBuilder::top(const std::string& key, const std::string& raw_json) {
  top_.emplace_back(key, raw_json);
  return *this;
}

std::string SnapshotBuilder::json() const {
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
      ",\"frame\":" + std::to_string(frame_) +
      ",\"frame_boundary\":\"submit\",\"time_ms\":" + std::to_string(frame_ * 16) +
      ",\"degraded\":false,";
  bool labelled = false;
  for (const auto& [key, value] : top_) {
    out += "\"" + key + "\":" + value + ",";
    labelled |= key == "label";
  }
  if (!labelled) out += "\"label\":null,";
  out +=
      "\n\"settings\":{},\n\"instances\":[{\"id\":1,\"handle\":\"0x1000\","
      "\"application\":\"app\",\"engine\":null,\"api_version\":\"1.3.0\"}],\n"
      "\"devices\":[{\"id\":2,\"handle\":\"0x2000\",\"instance\":1,\"physical_device\":"
      "\"llvmpipe\",\"frame\":" +
      std::to_string(dev_frame) + ",\"submits\":" + std::to_string(dev_frame) +
      ",\"presents\":0,\"degraded\":false,\"queues\":[{\"index\":0,\"handle\":\"0x3000\","
      "\"submitted\":" +
      std::to_string(dev_frame) + ",\"retired\":" + std::to_string(dev_frame) + "}]}]";

  std::map<uint64_t, std::vector<const EdgeSpec*>> edges;
  for (const EdgeSpec& e : edges_) edges[e.from].push_back(&e);
  std::map<std::string, std::pair<uint64_t, uint64_t>> counts;
  out += ",\n\"objects\":[";
  bool first = true;
  for (const ObjectSpec& o : objects_) {
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
    auto it = edges.find(o.id);
    if (it != edges.end()) {
      for (const EdgeSpec* e : it->second) {
        if (e->kind == "memory" && e->to) {
          out += ",\"memory\":{\"id\":" + std::to_string(*e->to) +
                 ",\"offset\":0,\"size\":" + std::to_string(e->size) + "}";
          break;
        }
      }
      out += ",\"edges\":[";
      for (size_t k = 0; k < it->second.size(); ++k) {
        const EdgeSpec* e = it->second[k];
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
  return out;
}

std::string SnapshotBuilder::write(const std::string& dir) const {
  char name[96];
  std::snprintf(name, sizeof(name), "/vkleak-%llu-%04llu-%s.json",
                static_cast<unsigned long long>(pid_), static_cast<unsigned long long>(sequence_),
                reason_.c_str());
  const std::string path = dir + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << json();
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path);
  return path;
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

}  // namespace vkleak::test
