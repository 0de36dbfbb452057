// The in-memory model of one vkleak snapshot (src/format/: the format, its versions and keys).
//
// Compact on purpose: a snapshot may hold a million objects, so an Object is 64 bytes of plain
// data, its strings (type, debug name) are indices into per-snapshot interned tables, and what
// only some objects have (last use, bound memory, edges) lives in side tables sorted by object
// index.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "format/snapshot_format.h"

namespace vkleak {

// "null" for the integer fields that the format allows to be null.
inline constexpr int64_t kNullId = std::numeric_limits<int64_t>::min();
inline constexpr int32_t kNoCallsite = -1;
inline constexpr int32_t kNoName = -1;

// How an object came to be; format::name() gives its string.
using Origin = format::Origin;

struct Object {
  uint64_t id = 0;      // run-unique creation sequence number
  uint64_t handle = 0;  // handle values may be reused; ids never are
  uint64_t size = 0;    // bytes, 0 when unknown
  int64_t owner = 0;    // id of the device or instance whose table holds it
  int64_t parent = kNullId;
  uint32_t frame = 0;              // owner's frame at creation (saturated)
  uint32_t time_ms = 0;            // creation time since the layer was loaded (saturated)
  int32_t callsite = kNoCallsite;  // index into Snapshot::callsites
  int32_t name = kNoName;          // index into Snapshot::names
  uint16_t type = 0;               // index into Snapshot::type_names
  uint16_t refs = 1;               // > 1 when the driver returned the same handle again (saturated)
  Origin origin = Origin::kCreated;
  bool in_flight = false;  // its last use is not proven complete (version 2)
  // A descriptor pool's VkDescriptorPoolCreateFlags (the bits defined so far fit in 16).
  uint16_t create_flags = 0;
};
static_assert(sizeof(Object) == 64, "keep Object compact: snapshots hold up to 1M of them");

struct Instance {
  int64_t id = 0;
  uint64_t handle = 0;
  std::optional<std::string> application;
  std::optional<std::string> engine;
  std::string api_version;
};

struct Queue {
  int64_t index = 0;
  uint64_t handle = 0;
  uint64_t submitted = 0;  // serial of the last submission
  uint64_t retired = 0;    // every submission up to this serial is proven complete
};

// A snapshot the layer could not write (a full disk, a removed directory, out of memory).
struct UnwrittenSnapshot {
  std::optional<uint64_t> sequence;  // none: dropped before it was numbered
  std::string reason;
  std::string error;
};

// One memory heap of a device, as its "memory_budget" lists it.
struct MemoryHeap {
  uint32_t index = 0;
  uint64_t size = 0;
  bool device_local = false;
  std::optional<uint64_t> budget;  // the driver's (VK_EXT_memory_budget): status kSampled only
  std::optional<uint64_t> usage;
};

// A device's "memory_budget": the driver's view of its heaps (absent from older layers' files).
struct MemoryBudget {
  bool present = false;
  format::HeapBudgetStatus status = format::HeapBudgetStatus::kNotSampled;
  std::optional<format::HeapBudgetEnabledBy> enabled_by;
  std::optional<uint64_t> frame;
  std::optional<uint64_t> time_ms;
  std::vector<MemoryHeap> heaps;
};

struct Device {
  int64_t id = 0;
  uint64_t handle = 0;
  int64_t instance = 0;
  std::string physical_device;
  uint64_t frame = 0;
  uint64_t submits = 0;
  uint64_t presents = 0;
  bool degraded = false;
  std::vector<Queue> queues;
  std::string frame_boundary;        // in effect: "present", "submit", or empty (older layers)
  bool frame_boundary_auto = false;  // chosen by frame_boundary=auto
  MemoryBudget memory_budget;
};

// The last submission that used an object (side table: objects never used have none).
struct LastUse {
  uint32_t object = 0;  // index into Snapshot::objects
  uint64_t frame = 0;
  uint64_t queue = 0;
  uint64_t serial = 0;
};

// The memory bound to a buffer or image.
struct MemoryBinding {
  uint32_t object = 0;  // index into Snapshot::objects
  int64_t memory = 0;   // id of the VkDeviceMemory
  uint64_t offset = 0;
  uint64_t size = 0;
};

// An out-edge: what an object references (create-info members, memory, descriptors).
struct Edge {
  uint32_t from = 0;     // index into Snapshot::objects
  uint16_t kind = 0;     // index into Snapshot::edge_kinds ("image", "memory", "descriptor", ...)
  uint16_t type = 0;     // the target's type, index into Snapshot::type_names
  int64_t to = kNullId;  // the target's id; not among the objects when it was destroyed
  uint64_t handle = 0;
  int32_t name = kNoName;  // the target's debug name when the edge was made
  uint32_t slot = 0;       // array index or descriptor slot (saturated)
  uint64_t offset = 0;
  uint64_t size = 0;
};

// A destroyed object that edges still point at.
struct DestroyedObject {
  int64_t id = 0;
  uint16_t type = 0;  // index into Snapshot::type_names
  uint64_t handle = 0;
  int32_t name = kNoName;
  int64_t owner = 0;
  int64_t frame = 0;
  int64_t destroyed_frame = 0;
  int64_t size = 0;
  int32_t callsite = kNoCallsite;
  int32_t destroy_callsite = kNoCallsite;  // the call that destroyed it, when recorded
};

struct EventPathStep {
  int64_t id = 0;
  std::string type;
  std::optional<std::string> name;
  std::string relation;  // e.g. "written in a descriptor set"
};

// Something the layer detected since the previous snapshot (destroyed_in_flight, ...).
struct Event {
  std::string kind;
  int64_t owner = 0;
  std::string type;
  uint64_t handle = 0;
  int64_t object = kNullId;
  std::optional<std::string> name;
  int64_t frame = 0;
  int64_t time_ms = 0;
  bool has_submission = false;  // destroyed_in_flight: the submission that still used it
  int64_t submission_queue = 0;
  int64_t submission_serial = 0;
  int64_t submission_frame = 0;
  std::vector<EventPathStep> path;
  std::string message;
  int32_t callsite = kNoCallsite;  // index into Snapshot::callsites: the call that did it
  // Where the object was made (destroyed_in_flight: itself; invalid_destroy: the earlier object
  // with the handle, or the live one on the device that owns it).
  bool has_created = false;
  int64_t created_frame = 0;
  int32_t created_callsite = kNoCallsite;
  std::string reason;  // invalid_destroy: already_destroyed, unknown_handle, wrong_device
  bool has_first_destroy = false;  // reason already_destroyed: the earlier, valid destroy
  int64_t first_destroy_frame = 0;
  int32_t first_destroy_callsite = kNoCallsite;
  int64_t belongs_to = kNullId;  // reason wrong_device: the owning VkDevice's object id
};

struct Module {
  std::string path;
  uint64_t base = 0;  // lowest mapped address: the module spans [base, base + size)
  uint64_t size = 0;
  uint64_t bias = 0;     // load bias (dlpi_addr): runtime address - ELF virtual address
  std::string build_id;  // lowercase hex, empty when unknown
};

struct TypeCount {
  uint64_t live = 0;
  uint64_t bytes = 0;
};

struct Snapshot {
  std::string path;  // the file it was read from
  int version = 0;
  std::string producer_name;
  std::string producer_version;
  uint64_t pid = 0;
  // The run's identity (format::kRunIdDigits hex digits), also in the file's name; empty in files
  // of layers before run ids.
  std::string run_id;
  uint64_t sequence = 0;
  std::string executable;  // empty when the layer could not read it
  // device_destroy, instance_destroy, exit, frame, signal, trigger, crash (label: the signal),
  // out_of_device_memory, out_of_host_memory, device_lost (label: the command)
  std::string reason;
  std::optional<int64_t> scope_device;    // set for reason device_destroy
  std::optional<int64_t> scope_instance;  // set for reason instance_destroy
  uint64_t frame = 0;
  std::string frame_boundary;  // "present", "submit" or empty when absent
  uint64_t time_ms = 0;
  bool degraded = false;
  std::optional<std::string> label;  // trigger: its text; crash: the signal; errors: the command
  // The run's last snapshot: taken at exit, or the last instance's destroy snapshot, marked at
  // exit when no instance was created after it. Absent in files of layers before it was written.
  std::optional<bool> final_snapshot;
  uint64_t unwritten_count = 0;              // snapshots of this process not written so far
  std::vector<UnwrittenSnapshot> unwritten;  // the most recent of them
  uint64_t coalesced_signals = 0;            // snapshot signals folded into another's snapshot
  // Commands that returned these errors in the process so far (error snapshots are rate
  // limited; these count every one).
  struct ErrorResults {
    uint64_t out_of_device_memory = 0;
    uint64_t out_of_host_memory = 0;
    uint64_t device_lost = 0;
  } error_results;

  std::vector<Instance> instances;
  std::vector<Device> devices;
  std::vector<Object> objects;
  std::vector<std::vector<uint64_t>> callsites;  // return addresses, innermost first
  std::vector<Module> modules;
  std::map<std::string, TypeCount> counts;  // as declared by the producer

  // Version 2; empty for version 1. Side tables are sorted by object index.
  std::vector<LastUse> last_uses;
  std::vector<MemoryBinding> memory_bindings;
  std::vector<Edge> edges;
  std::vector<DestroyedObject> destroyed;
  std::vector<Event> events;
  uint64_t events_dropped = 0;

  std::vector<std::string> type_names;  // Object::type, Edge::type, ... index this
  std::vector<std::string> names;       // Object::name, Edge::name, ... index this
  std::vector<std::string> edge_kinds;  // Edge::kind indexes this

  const std::string& type_name(const Object& o) const { return type_names[o.type]; }
  // Null when the object has no debug name.
  const std::string* name(const Object& o) const {
    return o.name == kNoName ? nullptr : &names[static_cast<size_t>(o.name)];
  }
};

// The side-table entries of the object at objects[index]: null / empty when it has none.
const LastUse* last_use_of(const Snapshot& snapshot, size_t index);
const MemoryBinding* memory_of(const Snapshot& snapshot, size_t index);
std::pair<const Edge*, const Edge*> edges_of(const Snapshot& snapshot, size_t index);

// Any reason a snapshot (or a directory of them) cannot be read. what() is a complete message
// that names the file, and the byte offset when the problem is at a place in the file.
class SnapshotError : public std::runtime_error {
 public:
  SnapshotError(std::string path, const std::string& message,
                std::optional<uint64_t> offset = std::nullopt);

  const std::string& path() const { return path_; }
  const std::optional<uint64_t>& offset() const { return offset_; }

 private:
  std::string path_;
  std::optional<uint64_t> offset_;
};

}  // namespace vkleak
