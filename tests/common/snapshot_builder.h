// The one builder of test snapshots: synthetic snapshots in the layer's own form (JSON, one
// object per line) for the CLI and analysis tests, the generators (vkleak_gen_snapshot,
// vkleak_gen_run) and the scale tests, read back through the real reader, so a test sees exactly
// what vkleak sees.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/snapshot.h"
#include "format/snapshot_fields.h"
#include "format/snapshot_format.h"

namespace vkleak::test {

// Object ids 1 and 2 are the instance and the device (they are not added as objects unless the
// test asks): objects belong to device 2 by default.
inline constexpr uint64_t kInstanceId = 1;
inline constexpr uint64_t kDeviceId = 2;

struct ObjectSpec {
  ObjectSpec(uint64_t id_, std::string type_, std::optional<std::string> name_ = std::nullopt,
             uint64_t frame_ = 0, uint64_t size_ = 0, int callsite_ = -1,
             format::Origin origin_ = format::Origin::kCreated,
             std::optional<uint64_t> last_use_ = std::nullopt)
      : id(id_),
        type(std::move(type_)),
        name(std::move(name_)),
        frame(frame_),
        size(size_),
        callsite(callsite_),
        origin(origin_),
        last_use(last_use_) {}

  uint64_t id = 0;
  std::string type = "VkBuffer";
  std::optional<std::string> name;
  uint64_t frame = 0;  // creation
  uint64_t size = 0;
  int callsite = -1;  // index returned by SnapshotBuilder::callsite(), -1: none
  format::Origin origin = format::Origin::kCreated;
  std::optional<uint64_t> last_use;  // frame
  bool in_flight = false;
  std::optional<uint64_t> parent;
  uint64_t owner = kDeviceId;
  uint64_t handle = 0;  // 0: derived from the id
};

struct EdgeSpec {
  EdgeSpec(uint64_t from_, std::string kind_, std::optional<uint64_t> to_, std::string type_,
           uint64_t size_ = 0)
      : from(from_), kind(std::move(kind_)), to(to_), type(std::move(type_)), size(size_) {}

  uint64_t from = 0;
  std::string kind;
  std::optional<uint64_t> to;
  std::string type;
  uint64_t size = 0;
};

struct DestroyedSpec {
  DestroyedSpec(uint64_t id_, std::string type_, std::optional<std::string> name_, uint64_t frame_,
                uint64_t destroyed_frame_, int callsite_ = -1)
      : id(id_),
        type(std::move(type_)),
        name(std::move(name_)),
        frame(frame_),
        destroyed_frame(destroyed_frame_),
        callsite(callsite_) {}

  uint64_t id = 0;
  std::string type;
  std::optional<std::string> name;
  uint64_t frame = 0;
  uint64_t destroyed_frame = 0;
  int callsite = -1;
};

struct EventSpec {
  format::EventKind kind = format::EventKind::kDestroyedInFlight;
  std::string type = "VkDescriptorSet";
  std::optional<uint64_t> object;
  std::optional<std::string> name;
  uint64_t frame = 0;
  std::optional<uint64_t> submission_frame;  // set: with a submission and a one-step path
  std::string message = "destroyed while in flight";
};

class SnapshotBuilder {
 public:
  SnapshotBuilder(uint64_t pid, uint64_t sequence, format::Reason reason, uint64_t frame);

  // A call site of `depth` frames in the synthetic module "app" (its binary does not exist, so
  // frames read "app+0x...").
  int callsite(uint64_t first_offset, int depth = 3);
  // A call site of these offsets in the module, innermost first.
  int callsite_at(const std::vector<uint64_t>& offsets);
  // The module's file (default "/opt/app/bin/app", which does not exist): a real binary makes
  // the call sites symbolize (the offsets are then its ELF virtual addresses).
  SnapshotBuilder& module_path(std::string path);
  SnapshotBuilder& object(const ObjectSpec& spec);
  // Binds `from` to memory `to` (an edge of kind "memory" and the "memory" member).
  SnapshotBuilder& bind(uint64_t from, uint64_t memory, uint64_t size);
  SnapshotBuilder& edge(const EdgeSpec& spec);
  SnapshotBuilder& destroyed(const DestroyedSpec& spec);
  SnapshotBuilder& event(const EventSpec& spec);
  // `count` more objects, made one at a time while the snapshot is written (never all held in
  // memory: snapshots of millions of objects): make(i, &edges) returns object i and appends its
  // edges. They follow the objects added with object().
  using ObjectMaker = std::function<ObjectSpec(size_t index, std::vector<EdgeSpec>* edges)>;
  SnapshotBuilder& generated_objects(size_t count, ObjectMaker make);
  // The frame of the device (default: the snapshot's frame).
  SnapshotBuilder& device_frame(uint64_t frame);
  // The device's "memory_budget", as raw JSON (default: none, as layers before issue 29 wrote).
  SnapshotBuilder& memory_budget(std::string raw_json);
  // Submit (default) or present.
  SnapshotBuilder& frame_boundary(format::FrameBoundary boundary);
  // The "settings" member, as raw JSON (default "{}").
  SnapshotBuilder& settings(std::string raw_json);
  // Another top-level member, as raw JSON (e.g. top::kFinal, "true"; top::kLabel, "\"SIGSEGV\"").
  SnapshotBuilder& top(format::top::Field key, const std::string& raw_json);

  // The snapshot as the layer would write it.
  std::string json() const;
  void write_json(std::ostream& out) const;
  // Written to dir as vkleak-<pid>-<sequence>-<reason>.json; returns the path.
  std::string write(const std::string& dir) const;
  // Written to `path`.
  void write_file(const std::string& path) const;
  // Written to a temporary file and read back with the real reader.
  Snapshot read() const;

 private:
  uint64_t pid_, sequence_, frame_;
  format::Reason reason_;
  std::optional<uint64_t> device_frame_;
  format::FrameBoundary frame_boundary_ = format::FrameBoundary::kSubmit;
  std::string settings_ = "{}";
  std::string memory_budget_;
  size_t generated_count_ = 0;
  ObjectMaker generated_;
  std::vector<std::pair<format::top::Field, std::string>> top_;
  std::vector<ObjectSpec> objects_;
  std::vector<EdgeSpec> edges_;
  std::vector<DestroyedSpec> destroyed_;
  std::vector<EventSpec> events_;
  std::vector<std::vector<uint64_t>> callsites_;
  std::string module_path_ = "/opt/app/bin/app";
};

// The synthetic module's load address: call-site frames are kModuleBase + offset.
inline constexpr uint64_t kModuleBase = 0x555500000000;

// Large, valid synthetic snapshots for scale tests and for measuring the reader: a builder with
// generated objects of ten types, some named, some with a last use, buffers bound to memory.
struct SyntheticSpec {
  size_t objects = 1000;
  size_t callsites = 100;  // call site 0 is the layer's "none" entry, as the layer writes it
  size_t frames_per_callsite = 12;
  uint32_t named_every = 4;  // every Nth object has a (unique) debug name
};

// What was written, for the test to check the reader against.
struct SyntheticTotals {
  uint64_t objects = 0;
  uint64_t bytes = 0;
  uint64_t named = 0;
  uint64_t buffers = 0;
  uint64_t last_used = 0;  // objects with a last use
  uint64_t edges = 0;
};

SyntheticTotals write_synthetic_snapshot(const std::string& path, const SyntheticSpec& spec);

}  // namespace vkleak::test
