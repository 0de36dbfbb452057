// The plain data a snapshot file holds, between collecting it from the layer's tables
// (snapshot.cpp, on the writer thread) and writing it (snapshot_serialize.cpp). No layer types:
// the serializer and its round-trip test (tests/format) need only this, json_writer.h and the
// contract (src/format/).
//
// Objects are read one at a time through an ObjectSource: a snapshot of a million objects is
// not copied a second time. Strings are views into what the collector keeps alive until the
// snapshot is written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "format/snapshot_format.h"
#include "tracking/heap_budget.h"

namespace vkleak::model {

// Ids, call sites and names use 0 / empty for "none" (written as null), as the layer's tables do.

struct Instance {
  uint64_t id = 0;
  uint64_t handle = 0;
  std::string_view application;  // empty: null
  std::string_view engine;       // empty: null
  uint32_t api_version = 0;      // VK_MAKE_API_VERSION form
};

struct Queue {
  uint32_t index = 0;
  uint64_t handle = 0;
  uint64_t submitted = 0;
  uint64_t retired = 0;
};

struct Device {
  uint64_t id = 0;
  uint64_t handle = 0;
  uint64_t instance = 0;
  std::string_view physical_device;
  uint64_t frame = 0;
  uint64_t submits = 0;
  uint64_t presents = 0;
  format::FrameBoundary frame_boundary = format::FrameBoundary::kPresent;
  bool frame_boundary_auto = false;
  bool degraded = false;
  std::vector<Queue> queues;
  HeapBudgetSample heap_budget;
};

// A snapshot the layer could not write.
struct Unwritten {
  int64_t sequence = -1;  // -1: null
  format::Reason reason = format::Reason::kFrame;
  std::string_view error;
};

struct Edge {
  std::string_view kind;
  uint64_t to = 0;    // 0: null (the target is unknown)
  uint16_t type = 0;  // index into Snapshot::type_names
  uint64_t handle = 0;
  std::string_view name;  // empty: no key
  uint64_t slot = 0;
  uint64_t offset = 0;  // offset and size are written when either is not 0
  uint64_t size = 0;
};

struct Object {
  uint64_t id = 0;
  uint16_t type = 0;  // index into Snapshot::type_names
  uint64_t handle = 0;
  std::string_view name;  // empty: null
  uint64_t owner = 0;
  uint64_t parent = 0;  // 0: null
  format::Origin origin = format::Origin::kCreated;
  uint64_t frame = 0;
  uint64_t time_ms = 0;
  uint64_t size = 0;
  uint64_t callsite = 0;  // 0: null
  uint64_t refs = 1;      // written when > 1
  bool has_last_use = false;
  uint64_t last_use_frame = 0;
  uint64_t last_use_queue = 0;
  uint64_t last_use_serial = 0;
  bool in_flight = false;
  bool has_memory = false;  // "memory": the memory bound to it
  uint64_t memory_id = 0;
  uint64_t memory_offset = 0;
  uint64_t memory_size = 0;
  uint64_t create_flags = 0;  // a descriptor pool's create flags; written when not 0
  bool has_edges = false;     // "edges" is written only for objects with edges
  const Edge* edges = nullptr;
  size_t edge_count = 0;
};

// The objects, one at a time (get fills *out; its edges stay valid until the next call).
class ObjectSource {
 public:
  virtual size_t size() const = 0;
  virtual void get(size_t index, Object* out) const = 0;

 protected:
  ~ObjectSource() = default;
};

struct Destroyed {
  uint64_t id = 0;
  uint16_t type = 0;
  uint64_t handle = 0;
  std::string_view name;  // empty: null
  uint64_t owner = 0;
  uint64_t frame = 0;
  uint64_t destroyed_frame = 0;
  uint64_t size = 0;
  uint64_t callsite = 0;
  uint64_t destroy_callsite = 0;
};

struct PathStep {
  uint64_t id = 0;
  uint16_t type = 0;
  std::string_view name;  // empty: null
  std::string_view relation;
};

// When and where something happened: an event's "created" and "first_destroy".
struct When {
  bool present = false;
  uint64_t frame = 0;
  uint64_t callsite = 0;
};

struct Event {
  std::string_view kind;
  uint64_t owner = 0;
  uint16_t type = 0;
  uint64_t handle = 0;
  uint64_t object = 0;  // 0: null
  uint64_t frame = 0;
  uint64_t time_ms = 0;
  std::string_view name;        // empty: null
  bool has_submission = false;  // "submission" and "path"
  uint64_t submission_queue = 0;
  uint64_t submission_serial = 0;
  uint64_t submission_frame = 0;
  std::vector<PathStep> path;
  uint64_t callsite = 0;
  When created;
  std::string_view reason;  // empty: no key
  When first_destroy;
  uint64_t belongs_to = 0;  // 0: no key
  std::string_view message;
};

struct Module {
  std::string_view path;
  uint64_t base = 0;
  uint64_t size = 0;
  uint64_t bias = 0;
  std::string_view build_id;  // empty: null
};

struct Snapshot {
  std::string_view producer_version;
  uint64_t pid = 0;
  std::string_view executable;
  uint64_t sequence = 0;
  format::Reason reason = format::Reason::kFrame;
  std::string_view label;       // empty: null
  int64_t scope_device = -1;    // >= 0: "scope": {"device": id}
  int64_t scope_instance = -1;  // else >= 0: "scope": {"instance": id}; else null
  uint64_t frame = 0;
  format::FrameBoundary frame_boundary = format::FrameBoundary::kPresent;
  uint64_t time_ms = 0;
  bool degraded = false;
  bool final_snapshot = false;
  // Set: where the value of "final" starts in the file (the layer may mark it final at exit).
  uint64_t* final_at = nullptr;
  std::string_view run_id;  // format::kRunIdDigits hex digits
  uint64_t unwritten_count = 0;
  std::vector<Unwritten> unwritten;
  uint64_t coalesced_signals = 0;
  uint64_t error_results[3] = {};  // in the order of format::kErrorReasons
  std::vector<std::pair<std::string, std::string>> settings;
  std::vector<Instance> instances;
  std::vector<Device> devices;
  const ObjectSource* objects = nullptr;
  std::vector<Destroyed> destroyed;
  std::vector<Event> events;
  uint64_t events_dropped = 0;
  // Type names: Object::type, Edge::type, ... index this; "counts" follow its order.
  const char* const* type_names = nullptr;
  size_t type_count = 0;
  std::vector<std::vector<uintptr_t>> callsites;  // return addresses, innermost first
  std::vector<Module> modules;
};

}  // namespace vkleak::model
