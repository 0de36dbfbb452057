// Synthetic snapshots for the analysis tests, written in the layer's own form (JSON, one object
// per line) and read back through the real reader, so a test sees exactly what vkleak sees.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/snapshot.h"

namespace vkleak::test {

// Object ids 1 and 2 are the instance and the device (they are not added as objects unless the
// test asks): objects belong to device 2 by default.
inline constexpr uint64_t kInstanceId = 1;
inline constexpr uint64_t kDeviceId = 2;

struct ObjectSpec {
  ObjectSpec(uint64_t id_, std::string type_, std::optional<std::string> name_ = std::nullopt,
             uint64_t frame_ = 0, uint64_t size_ = 0, int callsite_ = -1,
             std::string origin_ = "created", std::optional<uint64_t> last_use_ = std::nullopt)
      : id(id_),
        type(std::move(type_)),
        name(std::move(name_)),
        frame(frame_),
        size(size_),
        callsite(callsite_),
        origin(std::move(origin_)),
        last_use(last_use_) {}

  uint64_t id = 0;
  std::string type = "VkBuffer";
  std::optional<std::string> name;
  uint64_t frame = 0;  // creation
  uint64_t size = 0;
  int callsite = -1;  // index returned by SnapshotBuilder::callsite(), -1: none
  std::string origin = "created";
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
  std::string kind = "destroyed_in_flight";
  std::string type = "VkDescriptorSet";
  std::optional<uint64_t> object;
  std::optional<std::string> name;
  uint64_t frame = 0;
  std::optional<uint64_t> submission_frame;  // set: with a submission and a one-step path
  std::string message = "destroyed while in flight";
};

class SnapshotBuilder {
 public:
  SnapshotBuilder(uint64_t pid, uint64_t sequence, std::string reason, uint64_t frame);

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
  // The frame of the device (default: the snapshot's frame).
  SnapshotBuilder& device_frame(uint64_t frame);
  // Another top-level member, as raw JSON (e.g. "final", "true"; "label", "\"SIGSEGV\"").
  SnapshotBuilder& top(const std::string& key, const std::string& raw_json);

  // The snapshot as the layer would write it.
  std::string json() const;
  // Written to dir as vkleak-<pid>-<sequence>-<reason>.json; returns the path.
  std::string write(const std::string& dir) const;
  // Written to a temporary file and read back with the real reader.
  Snapshot read() const;

 private:
  uint64_t pid_, sequence_, frame_;
  std::string reason_;
  std::optional<uint64_t> device_frame_;
  std::vector<std::pair<std::string, std::string>> top_;
  std::vector<ObjectSpec> objects_;
  std::vector<EdgeSpec> edges_;
  std::vector<DestroyedSpec> destroyed_;
  std::vector<EventSpec> events_;
  std::vector<std::vector<uint64_t>> callsites_;
  std::string module_path_ = "/opt/app/bin/app";
};

// The synthetic module's load address: call-site frames are kModuleBase + offset.
inline constexpr uint64_t kModuleBase = 0x555500000000;

}  // namespace vkleak::test
