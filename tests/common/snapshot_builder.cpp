#include "snapshot_builder.h"

#include <unistd.h>

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

namespace f = format;

std::string json_string(std::string_view s) {
  return nlohmann::json(std::string(s)).dump();
}

std::string str(const std::optional<std::string>& s) {
  return s ? json_string(*s) : "null";
}

template <typename T>
std::string num(const std::optional<T>& v) {
  return v ? std::to_string(*v) : "null";
}

std::string hex(uint64_t v) {
  return "\"" + format_hex(v) + "\"";
}

std::string callsite_id(int callsite) {
  return callsite < 0 ? std::string("null") : std::to_string(callsite);
}

// Appends one JSON object member by member; every key comes from the contract (src/format/).
class Members {
 public:
  explicit Members(std::string* out) : out_(*out) { out_ += '{'; }
  template <typename Field>
  Members& raw(Field field, std::string_view json) {
    return keyed(f::name(field), json);
  }
  // A key that is data, not a name of the format (the type names of "counts").
  Members& keyed(std::string_view key, std::string_view json) {
    out_ += first_ ? "\"" : new_line_ ? ",\n\"" : ",\"";
    first_ = new_line_ = false;
    out_ += key;
    out_ += "\":";
    out_ += json;
    return *this;
  }
  template <typename Field>
  Members& num(Field field, uint64_t value) {
    return raw(field, std::to_string(value));
  }
  template <typename Field>
  Members& str(Field field, std::string_view value) {
    return raw(field, json_string(value));
  }
  template <typename Field>
  Members& boolean(Field field, bool value) {
    return raw(field, value ? "true" : "false");
  }
  // The next member starts a line, as the layer writes the big ones.
  Members& line() {
    new_line_ = true;
    return *this;
  }
  void end() { out_ += '}'; }

 private:
  std::string& out_;
  bool first_ = true;
  bool new_line_ = false;
};

std::string object_of(const std::function<void(Members&)>& fill) {
  std::string out;
  Members m(&out);
  fill(m);
  m.end();
  return out;
}

}  // namespace

SnapshotBuilder::SnapshotBuilder(uint64_t pid, uint64_t sequence, format::Reason reason,
                                 uint64_t frame)
    : pid_(pid), sequence_(sequence), frame_(frame), reason_(reason) {}

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
  edges_.push_back(
      EdgeSpec{from, std::string(format::kEdgeKindMemory), memory, "VkDeviceMemory", size});
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

SnapshotBuilder& SnapshotBuilder::memory_budget(std::string raw_json) {
  memory_budget_ = std::move(raw_json);
  return *this;
}

SnapshotBuilder& SnapshotBuilder::device_frame(uint64_t frame) {
  device_frame_ = frame;
  return *this;
}

SnapshotBuilder& SnapshotBuilder::frame_boundary(format::FrameBoundary boundary) {
  frame_boundary_ = boundary;
  return *this;
}

SnapshotBuilder& SnapshotBuilder::settings(std::string raw_json) {
  settings_ = std::move(raw_json);
  return *this;
}

SnapshotBuilder& SnapshotBuilder::top(format::top::Field key, const std::string& raw_json) {
  top_.emplace_back(key, raw_json);
  return *this;
}

std::string SnapshotBuilder::json() const {
  std::ostringstream out;
  write_json(out);
  return out.str();
}

void SnapshotBuilder::write_json(std::ostream& os) const {
  namespace top = f::top;
  const uint64_t dev_frame = device_frame_.value_or(frame_);
  std::string out;
  Members snapshot(&out);
  snapshot.str(top::kFormat, f::kFormatName)
      .num(top::kVersion, f::kVersion)
      .raw(top::kProducer, object_of([](Members& m) {
             m.str(f::producer::kName, f::kProducerName).str(f::producer::kVersion, "0.1.0");
           }))
      .num(top::kPid, pid_)
      .str(top::kExecutable, "/opt/app/bin/app")
      .num(top::kSequence, sequence_)
      .str(top::kReason, f::name(reason_));
  if (reason_ == f::Reason::kDeviceDestroy) {
    snapshot.raw(top::kScope, object_of([](Members& m) { m.num(f::scope::kDevice, kDeviceId); }));
  } else if (reason_ == f::Reason::kInstanceDestroy) {
    snapshot.raw(top::kScope,
                 object_of([](Members& m) { m.num(f::scope::kInstance, kInstanceId); }));
  } else {
    snapshot.raw(top::kScope, "null");
  }
  snapshot.num(top::kFrame, frame_)
      .str(top::kFrameBoundary, f::name(frame_boundary_))
      .num(top::kTimeMs, frame_ * 16)
      .boolean(top::kDegraded, false);
  bool labelled = false;
  for (const auto& [key, value] : top_) {
    snapshot.raw(key, value);
    labelled |= key == top::kLabel;
  }
  if (!labelled) snapshot.raw(top::kLabel, "null");
  snapshot.line().raw(top::kSettings, settings_);
  snapshot.line().raw(top::kInstances, "[" + object_of([](Members& m) {
                                         m.num(f::instance::kId, kInstanceId)
                                             .str(f::instance::kHandle, "0x1000")
                                             .str(f::instance::kApplication, "app")
                                             .raw(f::instance::kEngine, "null")
                                             .str(f::instance::kApiVersion, "1.3.0");
                                       }) + "]");
  const std::string queue = object_of([&](Members& m) {
    m.num(f::queue::kIndex, 0)
        .str(f::queue::kHandle, "0x3000")
        .num(f::queue::kSubmitted, dev_frame)
        .num(f::queue::kRetired, dev_frame);
  });
  snapshot.line().raw(top::kDevices, "[" + object_of([&](Members& m) {
                                       m.num(f::device::kId, kDeviceId)
                                           .str(f::device::kHandle, "0x2000")
                                           .num(f::device::kInstance, kInstanceId)
                                           .str(f::device::kPhysicalDevice, "llvmpipe")
                                           .num(f::device::kFrame, dev_frame)
                                           .num(f::device::kSubmits, dev_frame)
                                           .num(f::device::kPresents, 0)
                                           .boolean(f::device::kDegraded, false)
                                           .raw(f::device::kQueues, "[" + queue + "]");
                                       if (!memory_budget_.empty())
                                         m.raw(f::device::kMemoryBudget, memory_budget_);
                                     }) + "]");
  os << out;
  out.clear();

  // Objects, one a line, streamed: generated ones are never all in memory.
  std::map<uint64_t, std::vector<const EdgeSpec*>> edges_of;
  for (const EdgeSpec& e : edges_) edges_of[e.from].push_back(&e);
  std::map<std::string, std::pair<uint64_t, uint64_t>> counts;
  out += ",\n\"";
  out += f::name(top::kObjects);
  out += "\":[";
  bool first = true;
  auto write_object = [&](const ObjectSpec& o, const std::vector<const EdgeSpec*>& edges) {
    namespace ob = f::object;
    out += first ? "\n" : ",\n";
    first = false;
    Members m(&out);
    m.num(ob::kId, o.id)
        .str(ob::kType, o.type)
        .raw(ob::kHandle, hex(o.handle != 0 ? o.handle : 0x7f0000000000 + 0x40 * o.id))
        .raw(ob::kName, str(o.name))
        .num(ob::kOwner, o.owner)
        .raw(ob::kParent, num(o.parent))
        .str(ob::kOrigin, f::name(o.origin))
        .num(ob::kFrame, o.frame)
        .num(ob::kTimeMs, o.frame * 16)
        .num(ob::kSize, o.size)
        .raw(ob::kCallsite, callsite_id(o.callsite));
    if (o.last_use) {
      m.raw(ob::kLastUse, object_of([&](Members& u) {
              u.num(f::last_use::kFrame, *o.last_use)
                  .num(f::last_use::kQueue, 0)
                  .num(f::last_use::kSerial, *o.last_use + 1);
            }));
    } else {
      m.raw(ob::kLastUse, "null");
    }
    m.boolean(ob::kInFlight, o.in_flight);
    if (!edges.empty()) {
      for (const EdgeSpec* e : edges) {
        if (e->kind == f::kEdgeKindMemory && e->to) {
          m.raw(ob::kMemory, object_of([&](Members& mem) {
                  mem.num(f::memory::kId, *e->to)
                      .num(f::memory::kOffset, 0)
                      .num(f::memory::kSize, e->size);
                }));
          break;
        }
      }
      std::string list = "[";
      for (size_t k = 0; k < edges.size(); ++k) {
        const EdgeSpec* e = edges[k];
        if (k) list += ",";
        list += object_of([&](Members& em) {
          em.str(f::edge::kKind, e->kind)
              .raw(f::edge::kTo, num(e->to))
              .str(f::edge::kType, e->type)
              .raw(f::edge::kHandle, hex(0x6f0000000000 + e->to.value_or(0)))
              .num(f::edge::kSlot, k);
          if (e->size != 0) em.num(f::edge::kOffset, 0).num(f::edge::kSize, e->size);
        });
      }
      m.raw(ob::kEdges, list + "]");
    }
    m.end();
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

  // The rest: members of the same top-level object, continued.
  auto member = [&](top::Field key, const std::string& json) {
    out += ",\n\"";
    out += f::name(key);
    out += "\":" + json;
  };
  std::string list;
  for (size_t i = 0; i < destroyed_.size(); ++i) {
    const DestroyedSpec& d = destroyed_[i];
    namespace de = f::destroyed;
    list += i ? ",\n" : "\n";
    list += object_of([&](Members& m) {
      m.num(de::kId, d.id)
          .str(de::kType, d.type)
          .raw(de::kHandle, hex(0x7e0000000000 + d.id))
          .raw(de::kName, str(d.name))
          .num(de::kOwner, kDeviceId)
          .num(de::kFrame, d.frame)
          .num(de::kDestroyedFrame, d.destroyed_frame)
          .num(de::kSize, 0)
          .raw(de::kCallsite, callsite_id(d.callsite));
    });
  }
  member(top::kDestroyed, "[" + list + "]");

  member(top::kCounts, object_of([&](Members& m) {
           for (const auto& [type, c] : counts) {
             m.keyed(type, object_of([&](Members& n) {
                       n.num(f::count::kLive, c.first).num(f::count::kBytes, c.second);
                     }));
           }
         }));

  list.clear();
  for (size_t i = 0; i < events_.size(); ++i) {
    const EventSpec& e = events_[i];
    namespace ev = f::event;
    list += i ? ",\n" : "\n";
    list += object_of([&](Members& m) {
      m.str(ev::kKind, f::name(e.kind))
          .num(ev::kOwner, kDeviceId)
          .str(ev::kType, e.type)
          .raw(ev::kHandle, hex(0x7d0000000000 + e.object.value_or(0)))
          .raw(ev::kObject, num(e.object))
          .num(ev::kFrame, e.frame)
          .num(ev::kTimeMs, e.frame * 16)
          .raw(ev::kName, str(e.name));
      if (e.submission_frame) {
        m.raw(ev::kSubmission, object_of([&](Members& sub) {
                sub.num(f::submission::kQueue, 0)
                    .num(f::submission::kSerial, *e.submission_frame + 1)
                    .num(f::submission::kFrame, *e.submission_frame);
              }));
        m.raw(ev::kPath, "[" + object_of([](Members& step) {
                           step.num(f::path_step::kId, 6)
                               .str(f::path_step::kType, "VkCommandBuffer")
                               .str(f::path_step::kName, "frame.cmd.0")
                               .str(f::path_step::kRelation, "bound in");
                         }) + "]");
      }
      m.str(ev::kMessage, e.message);
    });
  }
  member(top::kEvents, "[" + list + "]");
  out += ",\"";
  out += f::name(top::kEventsDropped);
  out += "\":0";

  list.clear();
  for (size_t i = 0; i < callsites_.size(); ++i) {
    std::string frames = "[";
    for (size_t k = 0; k < callsites_[i].size(); ++k) {
      frames += std::string(k ? "," : "") + hex(callsites_[i][k]);
    }
    list += i ? ",\n" : "\n";
    list += object_of(
        [&](Members& m) { m.num(f::callsite::kId, i).raw(f::callsite::kFrames, frames + "]"); });
  }
  member(top::kCallsites, "[" + list + "]");
  member(top::kModules, "[\n" + object_of([&](Members& m) {
                          m.str(f::module::kPath, module_path_)
                              .raw(f::module::kBase, hex(kModuleBase))
                              .num(f::module::kSize, 268435456)
                              .raw(f::module::kBias, hex(kModuleBase))
                              .raw(f::module::kBuildId, "null");
                        }) + "]");
  snapshot.end();
  out += "\n";
  os << out;
}

std::string SnapshotBuilder::write(const std::string& dir) const {
  // With a run id (top(kRunId, "\"<16 hex digits>\"")) the name has it, as the layer writes it;
  // without, the name of layers before run ids.
  char name[format::kMaxFileName];
  std::string run_id;
  for (const auto& [key, raw] : top_) {
    if (key == format::top::kRunId && raw.size() == format::kRunIdDigits + 2) {
      run_id = raw.substr(1, format::kRunIdDigits);
    }
  }
  if (format::is_run_id(run_id)) {
    format::file_name(name, pid_, std::stoull(run_id, nullptr, 16), sequence_, reason_);
  } else {
    format::file_name_without_run_id(name, pid_, sequence_, reason_);
  }
  const std::string path = dir + "/" + name;
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
  SnapshotBuilder b(31337, 9, format::Reason::kFrame, 100000);
  b.frame_boundary(format::FrameBoundary::kPresent).settings("{\"callstack_depth\":12}");
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
    ObjectSpec o(id, type, name, i / 10, size, callsite,
                 i % 3 == 0 ? format::Origin::kAllocated : format::Origin::kCreated);
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
      edges->push_back(
          EdgeSpec{id, std::string(format::kEdgeKindMemory), id + 1, "VkDeviceMemory", size});
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
