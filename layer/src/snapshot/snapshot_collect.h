// Collecting a snapshot: the records are copied under each shard's lock on the requesting
// thread (collect(): exact at that point of the app's calls); parents, in-flight state, edges
// and destroyed targets are derived on the writer thread (SnapshotData), which then presents it
// all as the plain model the serializer writes (snapshot_model.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/settings.h"
#include "callsite/callsite.h"
#include "snapshot/error_snapshot.h"
#include "snapshot/snapshot.h"
#include "snapshot/snapshot_model.h"
#include "store/creation_context.h"
#include "store/names.h"
#include "tracking/state.h"
#include "tracking/tracker.h"

namespace vkleak {

struct InstanceInfo {
  uint64_t id, handle;
  std::string application, engine;
  uint32_t api_version;
};
struct QueueInfo {
  uint32_t index;
  uint64_t handle, submitted, retired;
};
struct DeviceInfo {
  uint64_t id, handle, instance_id, frame, submits, presents;
  std::string physical_device;
  bool degraded;
  FrameBoundary boundary;  // in effect now
  bool boundary_auto;      // chosen by frame_boundary=auto
  std::vector<QueueInfo> queues;
  HeapBudgetSample heap_budget;  // the device's latest sample
};
struct OwnedRecord {
  ObjectRecord rec;
  uint64_t owner;
  uint64_t parent;  // 0 = none
  bool in_flight;
  CreationContext made;  // rec.context's triple (Collected::pin keeps it)
};
struct EdgeKey {
  uint64_t handle;
  uint64_t type;
  bool operator==(const EdgeKey& o) const { return handle == o.handle && type == o.type; }
};
struct EdgeKeyHash {
  size_t operator()(const EdgeKey& k) const noexcept {
    return static_cast<size_t>((k.handle * 0x9e3779b97f4a7c15ull) ^ k.type);
  }
};

// Everything copied out of the tables; names, call sites and modules are read at write time
// (their tables are append-only, or pinned, so a later copy is a superset).
struct Collected {
  // First: freed creation contexts wait until this snapshot is written (records are copied now,
  // their contexts read off the app's thread).
  ContextPin pin;
  NamePin name_pin;  // likewise names: the records' name ids stay valid until written
  SnapshotReason reason = SnapshotReason::kFrame;
  std::string label;
  Settings settings;
  int64_t scope_device = -1, scope_instance = -1;
  uint64_t frame = 0;
  FrameBoundary boundary = FrameBoundary::kPresent;  // in effect (see collect)
  uint32_t time_ms = 0;
  bool degraded = false;
  // The run's last snapshot: at exit. A run whose last snapshot is not final ended early (killed,
  // crashed, _exit()) or is still running. A destroy of the last instance is not final when
  // written (the process may create another instance: a probe instance, then the real one); the
  // writer marks it final at exit when no instance and no snapshot came after it.
  bool final_snapshot = false;
  bool last_instance = false;  // an instance_destroy snapshot of the only instance left
  ErrorCounts errors;          // error_results, as of the copy
  std::vector<InstanceInfo> instances;
  std::vector<DeviceInfo> devices;
  // Copied on the requesting thread (exact at that point of the app's calls): the records.
  struct ScopeCopy {
    std::shared_ptr<Scope> scope;
    std::vector<ObjectRecord> records;
    std::vector<std::pair<uint64_t, uint64_t>> children;  // (parent handle, child handle)
    std::unordered_map<uint64_t, uint64_t> parents;       // explicit: id -> parent id
    std::vector<std::pair<EdgeKey, Edge>> edges;          // (source, edge)
    std::vector<GraveRecord> graves;
    ObjectType skip_a, skip_b;
    uint64_t skip_id;
  };
  std::vector<ScopeCopy> copies;
  // Derived on the writer thread (finish()): parents, in-flight state, edges, destroyed targets.
  std::vector<OwnedRecord> objects;
  std::unordered_map<EdgeKey, std::vector<Edge>, EdgeKeyHash> edges;  // by source
  std::vector<std::pair<uint64_t, GraveRecord>> destroyed;  // (owner, record) edges point at
  std::vector<std::pair<uint64_t, Event>> events;           // (owner id, event)
  uint64_t events_dropped = 0;
};

// Copies the tables a snapshot of `reason` holds (see snapshot_now()).
std::unique_ptr<Collected> collect(SnapshotReason reason, DeviceState* device,
                                   InstanceState* instance, const std::string& label);

// A collected snapshot as the plain model (on the writer thread): finishes *c (parents, edges,
// destroyed targets), copies names, call sites and modules, and keeps alive what the model views.
// The writer adds what it owns: sequence, unwritten snapshots, coalesced signals.
class SnapshotData {
 public:
  explicit SnapshotData(Collected* c);
  ~SnapshotData();
  SnapshotData(const SnapshotData&) = delete;
  SnapshotData& operator=(const SnapshotData&) = delete;

  model::Snapshot& model() { return model_; }

 private:
  class Objects;
  std::vector<std::string> names_;
  std::vector<ModuleInfo> modules_;
  std::string executable_;
  std::unique_ptr<Objects> objects_;
  model::Snapshot model_;
};

}  // namespace vkleak
