#include "snapshot/snapshot.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/log.h"
#include "callsite/callsite.h"
#include "snapshot/crash_snapshot.h"
#include "snapshot/error_snapshot.h"
#include "snapshot/json_writer.h"
#include "tracking/creation_context.h"
#include "tracking/names.h"
#include "tracking/state.h"
#include "tracking/tracker_internal.h"

#ifndef VKLEAK_VERSION
#define VKLEAK_VERSION "0.0.0"
#endif

namespace vkleak {
namespace {

constexpr int kFormatVersion = 2;

const char* origin_name(uint64_t o) {
  switch (static_cast<Origin>(o)) {
    case Origin::kCreated:
      return "created";
    case Origin::kAllocated:
      return "allocated";
    case Origin::kRetrieved:
      return "retrieved";
    case Origin::kSwapchainImage:
      return "swapchain_image";
  }
  return "created";
}

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
  // The run's last snapshot: at exit, or as its last instance is destroyed. A run whose last
  // snapshot is not final ended early (killed, crashed, _exit()) or is still running.
  bool final_snapshot = false;
  ErrorCounts errors;  // error_results, as of the copy
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

void collect_table(const std::shared_ptr<Scope>& scope, Collected* c, ObjectType skip_a,
                   ObjectType skip_b, uint64_t skip_id) {
  Collected::ScopeCopy copy{scope, {}, {}, {}, {}, {}, skip_a, skip_b, skip_id};
  scope->table.collect(&copy.records);
  // Ownership changes with every pool reset: copy it with the records.
  scope->children.for_each(
      [&](uint64_t parent, uint64_t child) { copy.children.emplace_back(parent, child); });
  copy.parents = scope->parents.copy();
  scope->edges.for_each([&](uint64_t handle, ObjectType type, const Edge& e) {
    copy.edges.push_back({EdgeKey{handle, static_cast<uint64_t>(type)}, e});
  });
  scope->graveyard.for_each([&](const GraveRecord& g) { copy.graves.push_back(g); });
  c->copies.push_back(std::move(copy));
}

// A descriptor set keeps its layout's handle in its record (set_layout()): its "pSetLayouts"
// edge is made here. The target is the layout of that handle made last before the set (handle
// values get reused), live or remembered in the graveyard; unknown (destroyed long ago), the
// edge names the handle only.
void add_layout_edges(const std::vector<ObjectRecord>& recs, const std::vector<GraveRecord>& graves,
                      Collected* c) {
  struct Layout {
    uint64_t id;
    uint32_t name;
  };
  std::unordered_map<uint64_t, std::vector<Layout>> layouts;  // handle -> layouts (few)
  const auto layout_type = static_cast<uint64_t>(ObjectType::kDescriptorSetLayout);
  for (const ObjectRecord& r : recs)
    if (r.type == layout_type) layouts[r.handle].push_back({r.id, r.name});
  for (const GraveRecord& g : graves)
    if (g.record.type == layout_type)
      layouts[g.record.handle].push_back({g.record.id, g.record.name});
  static const KindId kind_id = intern_kind("pSetLayouts");
  for (const ObjectRecord& r : recs) {
    const uint64_t layout = set_layout(r);
    if (!layout) continue;
    Edge e{};
    e.kind = "pSetLayouts";
    e.kind_id = kind_id;
    e.dst_type = ObjectType::kDescriptorSetLayout;
    e.dst_handle = layout;
    e.slot_keyed = true;
    auto it = layouts.find(layout);
    if (it != layouts.end()) {
      for (const Layout& l : it->second) {
        if (l.id < r.id && l.id > e.dst_id) {
          e.dst_id = l.id;
          e.dst_name = l.name;
        }
      }
    }
    c->edges[{r.handle, r.type}].push_back(e);  // first: the set's writes come after it
  }
}

// A resource bound in its record (ObjectRecord::bound) gets its "memory" edge here, first among
// its edges. The memory's handle and id come from the directory (kept for good); its name is
// the live memory object's, or the one it had when freed if the graveyard remembers it.
void add_binding_edges(const std::vector<ObjectRecord>& recs,
                       const std::vector<GraveRecord>& graves, const MemoryDirectory& memories,
                       Collected* c) {
  if (std::none_of(recs.begin(), recs.end(), [](const ObjectRecord& r) { return r.bound; })) return;
  const auto memory_type = static_cast<uint64_t>(ObjectType::kDeviceMemory);
  std::unordered_map<uint64_t, uint32_t> names;  // memory id -> name (few)
  for (const ObjectRecord& r : recs)
    if (r.type == memory_type) names[r.id] = r.name;
  for (const GraveRecord& g : graves)
    if (g.record.type == memory_type) names.emplace(g.record.id, g.record.name);
  static const KindId kind_id = intern_kind("memory");
  for (const ObjectRecord& r : recs) {
    if (!r.bound) continue;
    const BoundMemory* m = memories.at(r.memory_slot);
    if (!m) continue;
    Edge e{};
    e.kind = "memory";
    e.kind_id = kind_id;
    e.dst_type = ObjectType::kDeviceMemory;
    e.dst_handle = m->handle;
    e.dst_id = m->id;
    e.slot_keyed = true;
    e.offset = r.memory_offset;
    e.size = byte_size(r);
    auto it = names.find(m->id);
    if (it != names.end()) e.dst_name = it->second;
    c->edges[{r.handle, r.type}].push_back(e);
  }
}

void finish_table(Collected::ScopeCopy& copy, Collected* c) {
  Scope& scope = *copy.scope;
  const ObjectType skip_a = copy.skip_a, skip_b = copy.skip_b;
  const uint64_t skip_id = copy.skip_id;
  std::vector<ObjectRecord> recs = std::move(copy.records);
  // Parents: pools and swapchains own their children; a few objects have an explicit parent;
  // everything else was made from its scope.
  std::unordered_map<EdgeKey, uint64_t, EdgeKeyHash> owner_ids;
  for (const ObjectRecord& r : recs) {
    ObjectType t = static_cast<ObjectType>(r.type);
    if (t == ObjectType::kDescriptorPool || t == ObjectType::kCommandPool ||
        t == ObjectType::kSwapchainKHR)
      owner_ids[{r.handle, r.type}] = r.id;
  }
  std::unordered_map<EdgeKey, uint64_t, EdgeKeyHash> child_parent;
  for (auto [parent, child] : copy.children) {
    for (ObjectType pt :
         {ObjectType::kDescriptorPool, ObjectType::kCommandPool, ObjectType::kSwapchainKHR}) {
      auto it = owner_ids.find({parent, static_cast<uint64_t>(pt)});
      if (it != owner_ids.end())
        child_parent[{child, static_cast<uint64_t>(child_type_of(pt))}] = it->second;
    }
  }
  const auto& explicit_parents = copy.parents;
  auto* device = scope.type == ObjectType::kDevice ? static_cast<DeviceState*>(&scope) : nullptr;

  c->objects.reserve(c->objects.size() + recs.size());
  for (size_t i = 0; i < recs.size(); ++i) {
    const ObjectRecord& r = recs[i];
    ObjectType t = static_cast<ObjectType>(r.type);
    if (t == skip_a || t == skip_b || r.id == skip_id) continue;
    uint64_t parent = r.id == scope.object_id ? 0 : scope.object_id;
    auto cp = child_parent.find({r.handle, r.type});
    if (cp != child_parent.end()) {
      parent = cp->second;
    } else {
      auto ep = explicit_parents.find(r.id);
      if (ep != explicit_parents.end()) parent = ep->second;
    }
    bool in_flight = device && device->submissions.in_flight(r);
    c->objects.push_back({r, scope.object_id, parent, in_flight, context_of(r.context)});
  }
  add_layout_edges(recs, copy.graves, c);
  if (device) add_binding_edges(recs, copy.graves, device->memories, c);
  for (const auto& [key, e] : copy.edges) c->edges[key].push_back(e);
  for (const GraveRecord& g : copy.graves) c->destroyed.emplace_back(scope.object_id, g);
  if (scope.degraded.load(std::memory_order_relaxed)) c->degraded = true;
}

// Keeps only the destroyed objects that some collected edge still points at.
void prune_destroyed(Collected* c);

// The part of a snapshot that may run off the app's thread: everything but the records.
void finish(Collected* c) {
  for (auto& copy : c->copies) finish_table(copy, c);
  c->copies.clear();
  prune_destroyed(c);
}

void prune_destroyed(Collected* c) {
  // The edge targets first (few); then strike out those that are alive: no set of a million
  // live ids to build.
  std::unordered_set<uint64_t> wanted;
  for (const auto& [key, list] : c->edges)
    for (const Edge& e : list)
      if (e.dst_id) wanted.insert(e.dst_id);
  if (!wanted.empty())
    for (const OwnedRecord& o : c->objects) wanted.erase(o.rec.id);
  std::vector<std::pair<uint64_t, GraveRecord>> kept;
  for (auto& d : c->destroyed)
    if (wanted.erase(d.second.record.id)) kept.push_back(d);
  c->destroyed.swap(kept);
}

void take_events(Scope& scope, Collected* c) {
  uint64_t dropped = 0;
  for (Event& e : scope.events.take(&dropped))
    c->events.emplace_back(scope.object_id, std::move(e));
  c->events_dropped += dropped;
}

DeviceInfo device_info(DeviceState& d) {
  DeviceInfo info{d.object_id,
                  d.handle,
                  d.instance ? d.instance->object_id : 0,
                  d.frame.load(std::memory_order_relaxed),
                  d.submits.load(std::memory_order_relaxed),
                  d.presents.load(std::memory_order_relaxed),
                  d.physical_device_name,
                  d.degraded.load(std::memory_order_relaxed),
                  boundary_in_effect(d),
                  d.frame_boundary == FrameBoundary::kAuto,
                  {}};
  for (uint32_t i = 0; i < d.submissions.queue_count(); ++i) {
    if (QueueState* q = d.submissions.queue_at(i))
      info.queues.push_back({i, to_u64(q->handle), q->submitted.load(std::memory_order_acquire),
                             q->retired.load(std::memory_order_acquire)});
  }
  return info;
}
InstanceInfo instance_info(const InstanceState& i) {
  return {i.object_id, i.handle, i.application_name, i.engine_name, i.api_version};
}

// The run's frame and frame boundary as of the last snapshot: a snapshot taken after every
// device (or instance) is gone keeps them instead of falling back to frame 0.
std::atomic<uint64_t> g_run_frame{0};
std::atomic<uint8_t> g_run_boundary{0};  // 0: no device seen yet, else 1 + FrameBoundary

std::unique_ptr<Collected> collect_tables(SnapshotReason reason, DeviceState* device,
                                          InstanceState* instance, const std::string& label);

std::unique_ptr<Collected> collect(SnapshotReason reason, DeviceState* device,
                                   InstanceState* instance, const std::string& label) {
  auto c = collect_tables(reason, device, instance, label);
  // Frames end at submits when any device in the snapshot counts them.
  bool any_submit = false;
  for (const DeviceInfo& d : c->devices) any_submit |= d.boundary == FrameBoundary::kSubmit;
  if (!c->devices.empty()) {
    c->boundary = any_submit ? FrameBoundary::kSubmit : FrameBoundary::kPresent;
    g_run_boundary.store(static_cast<uint8_t>(1 + static_cast<uint8_t>(c->boundary)),
                         std::memory_order_relaxed);
  } else if (const uint8_t b = g_run_boundary.load(std::memory_order_relaxed)) {
    c->boundary = static_cast<FrameBoundary>(b - 1);
  } else {
    c->boundary = c->settings.frame_boundary == FrameBoundary::kSubmit ? FrameBoundary::kSubmit
                                                                       : FrameBoundary::kPresent;
  }
  uint64_t run = g_run_frame.load(std::memory_order_relaxed);
  while (run < c->frame && !g_run_frame.compare_exchange_weak(run, c->frame)) {
  }
  // Destroy snapshots keep their scope's frame; the others are the run's.
  if (!device && !instance) c->frame = std::max(c->frame, run);
  c->final_snapshot = reason == SnapshotReason::kExit ||
                      (reason == SnapshotReason::kInstanceDestroy && all_instances().size() <= 1);
  return c;
}

std::unique_ptr<Collected> collect_tables(SnapshotReason reason, DeviceState* device,
                                          InstanceState* instance, const std::string& label) {
  auto c = std::make_unique<Collected>();
  c->reason = reason;
  c->label = label;
  c->errors = error_counts();
  c->time_ms = refresh_clock();
  auto instances = all_instances();
  auto devices = all_devices();
  if (device) {
    // What the device still owns, as it is destroyed: its queues die with it.
    c->scope_device = static_cast<int64_t>(device->object_id);
    c->frame = device->frame.load(std::memory_order_relaxed);
    if (device->instance) {
      c->settings = device->instance->settings;
      c->instances.push_back(instance_info(*device->instance));
    }
    c->devices.push_back(device_info(*device));
    for (auto& d : devices)
      if (d.get() == device) collect_table(d, c.get(), ObjectType::kQueue, ObjectType::kQueue, 0);
    take_events(*device, c.get());
    return c;
  }
  if (instance) {
    // What the instance still owns, as it is destroyed: physical devices die with it, the
    // instance record itself is not a leak; devices never destroyed are.
    c->scope_instance = static_cast<int64_t>(instance->object_id);
    c->frame = instance->frame.load(std::memory_order_relaxed);
    c->settings = instance->settings;
    c->instances.push_back(instance_info(*instance));
    for (auto& i : instances)
      if (i.get() == instance)
        collect_table(i, c.get(), ObjectType::kPhysicalDevice, ObjectType::kPhysicalDevice,
                      instance->object_id);
    take_events(*instance, c.get());
    for (auto& d : devices) {
      if (d->instance != instance) continue;
      c->devices.push_back(device_info(*d));
      c->frame = std::max(c->frame, d->frame.load(std::memory_order_relaxed));
      collect_table(d, c.get(), ObjectType::kUnknown, ObjectType::kUnknown, 0);
      take_events(*d, c.get());
    }
    return c;
  }
  if (!instances.empty()) c->settings = instances.front()->settings;
  for (auto& i : instances) {
    c->instances.push_back(instance_info(*i));
    c->frame = std::max(c->frame, i->frame.load(std::memory_order_relaxed));  // devices gone
    collect_table(i, c.get(), ObjectType::kUnknown, ObjectType::kUnknown, 0);
    take_events(*i, c.get());
  }
  for (auto& d : devices) {
    c->devices.push_back(device_info(*d));
    c->frame = std::max(c->frame, d->frame.load(std::memory_order_relaxed));
    collect_table(d, c.get(), ObjectType::kUnknown, ObjectType::kUnknown, 0);
    take_events(*d, c.get());
  }
  return c;
}

// A call site id (index into "callsites"), or null for none.
void write_callsite(JsonWriter& w, uint32_t id) {
  if (id)
    w.u64(id);
  else
    w.raw("null");
}

// `key` then {"frame":..., "callsite":...}: when and where something happened.
void write_when(JsonWriter& w, const char* key, uint32_t frame, uint32_t callsite) {
  w.raw(key);
  w.raw("{\"frame\":");
  w.u64(frame);
  w.raw(",\"callsite\":");
  write_callsite(w, callsite);
  w.raw("}");
}

void write_edges(JsonWriter& w, const std::vector<Edge>& edges,
                 const std::vector<std::string>& names) {
  // The bound memory, for the common question "what memory does this hold".
  for (const Edge& e : edges) {
    if (std::strcmp(e.kind, "memory") != 0 || !e.dst_id) continue;
    w.raw(",\"memory\":{\"id\":");
    w.u64(e.dst_id);
    w.raw(",\"offset\":");
    w.u64(e.offset);
    w.raw(",\"size\":");
    w.u64(e.size);
    w.raw("}");
    break;
  }
  w.raw(",\"edges\":[");
  bool first = true;
  for (const Edge& e : edges) {
    if (!first) w.raw(",");
    first = false;
    w.raw("{\"kind\":");
    w.str(e.kind, std::strlen(e.kind));
    w.raw(",\"to\":");
    if (e.dst_id)
      w.u64(e.dst_id);
    else
      w.raw("null");
    w.raw(",\"type\":\"");
    w.raw(object_type_name(e.dst_type));
    w.raw("\",\"handle\":");
    w.hex(e.dst_handle);
    if (e.dst_name && e.dst_name < names.size()) {
      w.raw(",\"name\":");
      w.str(names[e.dst_name]);
    }
    w.raw(",\"slot\":");
    w.u64(e.slot);
    if (e.offset || e.size) {
      w.raw(",\"offset\":");
      w.u64(e.offset);
      w.raw(",\"size\":");
      w.u64(e.size);
    }
    w.raw("}");
  }
  w.raw("]");
}

// Snapshots the layer could not write (full disk, directory gone, out of memory). Every later
// snapshot lists them, so the CLI tells a complete run from one with holes; every failure is
// logged (the first few in full, then one line in every kLogEvery).
struct Unwritten {
  int64_t sequence;  // -1: dropped before it had one
  SnapshotReason reason;
  std::string error;
};
struct WriteFailures {
  std::mutex mutex;
  uint64_t count = 0;
  std::deque<Unwritten> recent;  // the last kKeep
};
constexpr size_t kKeepUnwritten = 32;
constexpr uint64_t kLogFailuresInFull = 8;
constexpr uint64_t kLogEvery = 100;
WriteFailures& write_failures() {
  static auto* f = new WriteFailures;  // never destroyed: written at exit
  return *f;
}

void record_unwritten(int64_t sequence, SnapshotReason reason, const std::string& path,
                      const std::string& error) noexcept {
  uint64_t count = 0;
  try {
    WriteFailures& f = write_failures();
    std::lock_guard<std::mutex> lock(f.mutex);
    count = ++f.count;
    f.recent.push_back(Unwritten{sequence, reason, error});
    if (f.recent.size() > kKeepUnwritten) f.recent.pop_front();
  } catch (...) {
    // Out of memory: the count above still tells.
  }
  if (count <= kLogFailuresInFull || count % kLogEvery == 0) {
    log().warn("snapshot {} not written: {} ({} snapshot{} not written so far)", path, error, count,
               count == 1 ? "" : "s");
  }
}

void write_unwritten(JsonWriter& w) {
  WriteFailures& f = write_failures();
  std::lock_guard<std::mutex> lock(f.mutex);
  w.raw(",\"unwritten_count\":");
  w.u64(f.count);
  w.raw(",\"unwritten\":[");
  for (size_t i = 0; i < f.recent.size(); ++i) {
    const Unwritten& u = f.recent[i];
    w.raw(i ? ",{\"sequence\":" : "{\"sequence\":");
    if (u.sequence < 0)
      w.raw("null");
    else
      w.u64(static_cast<uint64_t>(u.sequence));
    w.raw(",\"reason\":\"");
    w.raw(to_string(u.reason));
    w.raw("\",\"error\":");
    w.str(u.error);
    w.raw("}");
  }
  w.raw("]");
}

// Signals that arrive while one is pending are folded into its snapshot; they are counted.
std::atomic<uint64_t> g_coalesced_signals{0};

std::string executable_path() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

void write_body(JsonWriter& w, Collected& c, uint32_t sequence) {
  finish(&c);
  std::vector<std::string> names;
  copy_names(&names);
  std::vector<std::vector<uintptr_t>> callsites;
  copy_callsites(&callsites);
  std::vector<ModuleInfo> modules = loaded_modules();

  w.raw("{\"format\":\"vkleak-snapshot\",\"version\":");
  w.u64(kFormatVersion);
  w.raw(",\"producer\":{\"name\":\"vkleak\",\"version\":\"" VKLEAK_VERSION "\"},\"pid\":");
  w.u64(static_cast<uint64_t>(getpid()));
  w.raw(",\"executable\":");
  w.str(executable_path());
  w.raw(",\"sequence\":");
  w.u64(sequence);
  w.raw(",\"reason\":\"");
  w.raw(to_string(c.reason));
  w.raw("\",\"label\":");
  if (c.label.empty())
    w.raw("null");
  else
    w.str(c.label);
  w.raw(",\"scope\":");
  if (c.scope_device >= 0) {
    w.raw("{\"device\":");
    w.i64(c.scope_device);
    w.raw("}");
  } else if (c.scope_instance >= 0) {
    w.raw("{\"instance\":");
    w.i64(c.scope_instance);
    w.raw("}");
  } else {
    w.raw("null");
  }
  w.raw(",\"frame\":");
  w.u64(c.frame);
  w.raw(",\"frame_boundary\":\"");
  w.raw(to_string(c.boundary));
  w.raw("\",\"time_ms\":");
  w.u64(c.time_ms);
  w.raw(",\"degraded\":");
  w.raw(c.degraded ? "true" : "false");
  w.raw(",\"final\":");
  w.raw(c.final_snapshot ? "true" : "false");
  write_unwritten(w);
  w.raw(",\"coalesced_signals\":");
  w.u64(g_coalesced_signals.load(std::memory_order_relaxed));
  write_error_results(w, c.errors);

  w.raw(",\n\"settings\":{");
  bool first = true;
  for (auto& [k, v] : describe(c.settings)) {
    if (!first) w.raw(",");
    first = false;
    w.str(k);
    w.raw(":");
    w.str(v);
  }
  w.raw("}");

  w.raw(",\n\"instances\":[");
  for (size_t i = 0; i < c.instances.size(); ++i) {
    const InstanceInfo& in = c.instances[i];
    if (i) w.raw(",");
    w.raw("{\"id\":");
    w.u64(in.id);
    w.raw(",\"handle\":");
    w.hex(in.handle);
    w.raw(",\"application\":");
    if (in.application.empty())
      w.raw("null");
    else
      w.str(in.application);
    w.raw(",\"engine\":");
    if (in.engine.empty())
      w.raw("null");
    else
      w.str(in.engine);
    w.raw(",\"api_version\":\"");
    w.u64(VK_API_VERSION_MAJOR(in.api_version));
    w.raw(".");
    w.u64(VK_API_VERSION_MINOR(in.api_version));
    w.raw(".");
    w.u64(VK_API_VERSION_PATCH(in.api_version));
    w.raw("\"}");
  }
  w.raw("]");

  w.raw(",\n\"devices\":[");
  for (size_t i = 0; i < c.devices.size(); ++i) {
    const DeviceInfo& d = c.devices[i];
    if (i) w.raw(",");
    w.raw("{\"id\":");
    w.u64(d.id);
    w.raw(",\"handle\":");
    w.hex(d.handle);
    w.raw(",\"instance\":");
    w.u64(d.instance_id);
    w.raw(",\"physical_device\":");
    w.str(d.physical_device);
    w.raw(",\"frame\":");
    w.u64(d.frame);
    w.raw(",\"submits\":");
    w.u64(d.submits);
    w.raw(",\"presents\":");
    w.u64(d.presents);
    w.raw(",\"frame_boundary\":\"");
    w.raw(to_string(d.boundary));
    w.raw(d.boundary_auto ? "\",\"frame_boundary_auto\":true" : "\",\"frame_boundary_auto\":false");
    w.raw(",\"degraded\":");
    w.raw(d.degraded ? "true" : "false");
    w.raw(",\"queues\":[");
    for (size_t k = 0; k < d.queues.size(); ++k) {
      if (k) w.raw(",");
      w.raw("{\"index\":");
      w.u64(d.queues[k].index);
      w.raw(",\"handle\":");
      w.hex(d.queues[k].handle);
      w.raw(",\"submitted\":");
      w.u64(d.queues[k].submitted);
      w.raw(",\"retired\":");
      w.u64(d.queues[k].retired);
      w.raw("}");
    }
    w.raw("]}");
  }
  w.raw("]");

  std::array<uint64_t, kObjectTypeCount> live{}, bytes{};
  w.raw(",\n\"objects\":[");
  for (size_t i = 0; i < c.objects.size(); ++i) {
    const ObjectRecord& r = c.objects[i].rec;
    const CreationContext& made = c.objects[i].made;
    live[r.type]++;
    bytes[r.type] += byte_size(r);
    w.raw(i ? ",\n{\"id\":" : "\n{\"id\":");
    w.u64(r.id);
    w.raw(",\"type\":\"");
    w.raw(object_type_name(static_cast<ObjectType>(r.type)));
    w.raw("\",\"handle\":");
    w.hex(r.handle);
    w.raw(",\"name\":");
    if (r.name && r.name < names.size())
      w.str(names[r.name]);
    else
      w.raw("null");
    w.raw(",\"owner\":");
    w.u64(c.objects[i].owner);
    w.raw(",\"parent\":");
    if (c.objects[i].parent)
      w.u64(c.objects[i].parent);
    else
      w.raw("null");
    w.raw(",\"origin\":\"");
    w.raw(origin_name(r.origin));
    w.raw("\",\"frame\":");
    w.u64(made.frame);
    w.raw(",\"time_ms\":");
    w.u64(made.time_ms);
    w.raw(",\"size\":");
    w.u64(byte_size(r));
    w.raw(",\"callsite\":");
    write_callsite(w, made.callsite);
    if (r.refs > 1) {
      w.raw(",\"refs\":");
      w.u64(r.refs);
    }
    w.raw(",\"last_use\":");
    if (r.use_serial) {
      w.raw("{\"frame\":");
      w.u64(r.use_frame);
      w.raw(",\"queue\":");
      w.u64(r.use_queue);
      w.raw(",\"serial\":");
      w.u64(r.use_serial);
      w.raw("}");
    } else {
      w.raw("null");
    }
    w.raw(",\"in_flight\":");
    w.raw(c.objects[i].in_flight ? "true" : "false");
    auto edges = c.edges.find({r.handle, r.type});
    if (edges != c.edges.end()) write_edges(w, edges->second, names);
    w.raw("}");
  }
  w.raw("]");

  w.raw(",\n\"destroyed\":[");
  for (size_t i = 0; i < c.destroyed.size(); ++i) {
    const ObjectRecord& r = c.destroyed[i].second.record;
    w.raw(i ? ",\n{\"id\":" : "\n{\"id\":");
    w.u64(r.id);
    w.raw(",\"type\":\"");
    w.raw(object_type_name(static_cast<ObjectType>(r.type)));
    w.raw("\",\"handle\":");
    w.hex(r.handle);
    w.raw(",\"name\":");
    if (r.name && r.name < names.size())
      w.str(names[r.name]);
    else
      w.raw("null");
    w.raw(",\"owner\":");
    w.u64(c.destroyed[i].first);
    const CreationContext& made = c.destroyed[i].second.made;
    w.raw(",\"frame\":");
    w.u64(made.frame);
    w.raw(",\"destroyed_frame\":");
    w.u64(c.destroyed[i].second.destroyed_frame);
    w.raw(",\"size\":");
    w.u64(byte_size(r));
    w.raw(",\"callsite\":");
    write_callsite(w, made.callsite);
    w.raw(",\"destroy_callsite\":");
    write_callsite(w, c.destroyed[i].second.destroy_callsite);
    w.raw("}");
  }
  w.raw("]");

  w.raw(",\n\"counts\":{");
  first = true;
  for (uint32_t t = 1; t < kObjectTypeCount; ++t) {
    if (!live[t]) continue;
    if (!first) w.raw(",");
    first = false;
    w.raw("\"");
    w.raw(object_type_name(static_cast<ObjectType>(t)));
    w.raw("\":{\"live\":");
    w.u64(live[t]);
    w.raw(",\"bytes\":");
    w.u64(bytes[t]);
    w.raw("}");
  }
  w.raw("}");

  w.raw(",\n\"events\":[");
  for (size_t i = 0; i < c.events.size(); ++i) {
    const Event& e = c.events[i].second;
    if (i) w.raw(",");
    w.raw("\n{\"kind\":");
    w.str(e.kind);
    w.raw(",\"owner\":");
    w.u64(c.events[i].first);
    w.raw(",\"type\":\"");
    w.raw(object_type_name(e.type));
    w.raw("\",\"handle\":");
    w.hex(e.handle);
    w.raw(",\"object\":");
    if (e.object_id)
      w.u64(e.object_id);
    else
      w.raw("null");
    w.raw(",\"frame\":");
    w.u64(e.frame);
    w.raw(",\"time_ms\":");
    w.u64(e.time_ms);
    w.raw(",\"name\":");
    if (e.name.empty())
      w.raw("null");
    else
      w.str(e.name);
    if (e.queue >= 0) {
      w.raw(",\"submission\":{\"queue\":");
      w.u64(static_cast<uint64_t>(e.queue));
      w.raw(",\"serial\":");
      w.u64(e.serial);
      w.raw(",\"frame\":");
      w.u64(e.use_frame);
      w.raw("},\"path\":[");
      for (size_t k = 0; k < e.path.size(); ++k) {
        if (k) w.raw(",");
        w.raw("{\"id\":");
        w.u64(e.path[k].id);
        w.raw(",\"type\":\"");
        w.raw(object_type_name(e.path[k].type));
        w.raw("\",\"name\":");
        if (e.path[k].name.empty())
          w.raw("null");
        else
          w.str(e.path[k].name);
        w.raw(",\"relation\":\"");
        w.raw(e.path[k].relation);
        w.raw("\"}");
      }
      w.raw("]");
    }
    w.raw(",\"callsite\":");
    write_callsite(w, e.callsite);
    if (e.has_created) write_when(w, ",\"created\":", e.created_frame, e.created_callsite);
    if (e.reason) {
      w.raw(",\"reason\":\"");
      w.raw(e.reason);
      w.raw("\"");
    }
    if (e.has_first_destroy) {
      write_when(w, ",\"first_destroy\":", e.first_destroy_frame, e.first_destroy_callsite);
    }
    if (e.belongs_to) {
      w.raw(",\"belongs_to\":");
      w.u64(e.belongs_to);
    }
    w.raw(",\"message\":");
    w.str(e.message);
    w.raw("}");
  }
  w.raw("],\"events_dropped\":");
  w.u64(c.events_dropped);

  w.raw(",\n\"callsites\":[");
  for (size_t i = 0; i < callsites.size(); ++i) {
    if (i) w.raw(",");
    w.raw("\n{\"id\":");
    w.u64(i);
    w.raw(",\"frames\":[");
    for (size_t k = 0; k < callsites[i].size(); ++k) {
      if (k) w.raw(",");
      w.hex(callsites[i][k]);
    }
    w.raw("]}");
  }
  w.raw("]");

  w.raw(",\n\"modules\":[");
  for (size_t i = 0; i < modules.size(); ++i) {
    const ModuleInfo& m = modules[i];
    if (i) w.raw(",");
    w.raw("\n{\"path\":");
    w.str(m.path);
    w.raw(",\"base\":");
    w.hex(m.start);
    w.raw(",\"size\":");
    w.u64(m.size);
    w.raw(",\"bias\":");
    w.hex(m.bias);
    w.raw(",\"build_id\":");
    if (m.build_id.empty())
      w.raw("null");
    else
      w.str(m.build_id);
    w.raw("}");
  }
  w.raw("]}\n");
}

bool make_dirs(const std::string& dir) {
  std::string cur;
  for (size_t i = 0; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') {
      if (!cur.empty() && mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) return false;
    }
    if (i < dir.size()) cur += dir[i];
  }
  struct stat st;
  return stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::atomic<uint32_t> g_sequence{0};

// Writes one snapshot atomically. Failures (unwritable directory, full disk) are recorded and
// logged, never fatal.
void write_snapshot(Collected& c) noexcept {
  const uint32_t seq = g_sequence.fetch_add(1, std::memory_order_relaxed);
  std::string final_path = "#" + std::to_string(seq);
  try {
    const std::string& dir = c.settings.output_dir;
    char name[128];
    snprintf(name, sizeof(name), "vkleak-%d-%04u-%s.json", static_cast<int>(getpid()), seq,
             to_string(c.reason));
    final_path = dir + "/" + name;
    const std::string tmp_path = dir + "/." + name + ".tmp";
    if (!make_dirs(dir)) {
      record_unwritten(seq, c.reason, final_path,
                       std::string("cannot create its directory: ") + std::strerror(errno));
      return;
    }
    int fd = open(tmp_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
      record_unwritten(seq, c.reason, final_path, std::strerror(errno));
      return;
    }
    JsonWriter w(fd);
    write_body(w, c, seq);
    bool ok = w.flush();
    int err = w.error();
    if (close(fd) != 0 && ok) {
      ok = false;
      err = errno;
    }
    if (!ok || rename(tmp_path.c_str(), final_path.c_str()) != 0) {
      if (ok) err = errno;
      unlink(tmp_path.c_str());
      record_unwritten(seq, c.reason, final_path, std::strerror(err));
      return;
    }
    log().info("snapshot written: {} ({} objects)", final_path, c.objects.size());
  } catch (...) {
    record_unwritten(seq, c.reason, final_path, "out of memory");
  }
}

// ---- The writer thread ----

struct Job {
  std::unique_ptr<Collected> collected;  // null: collect on the writer thread
  SnapshotReason reason = SnapshotReason::kFrame;
  std::string label;
};

// Lock-free, so the handler may touch it.
std::atomic<uint64_t> g_signals_pending{0};
static_assert(std::atomic<uint64_t>::is_always_lock_free);
void on_snapshot_signal(int) {
  g_signals_pending.fetch_add(1, std::memory_order_relaxed);
}

struct Writer {
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<Job> queue;
  std::thread thread;
  bool running = false;
  bool stop = false;
  int signal_number = 0;
  struct sigaction previous_action {};
  std::vector<std::string> trigger_files;
};
Writer& writer() {
  static auto* w = new Writer;  // never destroyed (see log.cpp)
  return *w;
}

void run_job(Job& job) {
  if (!job.collected) job.collected = collect(job.reason, nullptr, nullptr, job.label);
  write_snapshot(*job.collected);
}

void poll_triggers(Writer& w) {
  if (const uint64_t signals = g_signals_pending.exchange(0, std::memory_order_relaxed)) {
    g_coalesced_signals.fetch_add(signals - 1, std::memory_order_relaxed);
    Job job;
    job.reason = SnapshotReason::kSignal;
    run_job(job);
  }
  std::vector<std::string> files;
  {
    std::lock_guard<std::mutex> lock(w.mutex);
    files = w.trigger_files;
  }
  for (const std::string& f : files) {
    if (access(f.c_str(), F_OK) != 0) continue;
    unlink(f.c_str());
    Job job;
    job.reason = SnapshotReason::kTrigger;
    job.label = "file";
    run_job(job);
  }
}

void writer_main() {
  note_writer_thread();
  Writer& w = writer();
  std::unique_lock<std::mutex> lock(w.mutex);
  while (true) {
    w.cv.wait_for(lock, std::chrono::milliseconds(250), [&] { return w.stop || !w.queue.empty(); });
    while (!w.queue.empty()) {
      Job job = std::move(w.queue.front());
      w.queue.pop_front();
      lock.unlock();
      run_job(job);
      lock.lock();
    }
    if (w.stop) break;
    lock.unlock();
    refresh_clock();  // bounds how stale creation times can be for apps without frames
    poll_triggers(w);
    lock.lock();
  }
}

void enqueue(Job job) noexcept {
  Writer& w = writer();
  try {
    std::unique_lock<std::mutex> lock(w.mutex);
    if (!w.running) {
      // No writer (exit in progress): write on this thread.
      lock.unlock();
      run_job(job);
      return;
    }
    w.queue.push_back(std::move(job));
    w.cv.notify_one();
  } catch (...) {
    record_unwritten(-1, job.reason, "(queued)", "out of memory");
  }
}

int signal_from_name(const std::string& name) {
  std::string n;
  for (char ch : name) n += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (n == "SIGUSR1") return SIGUSR1;
  if (n == "SIGUSR2") return SIGUSR2;
  return 0;
}

// fork() copies only the calling thread: in the child there is no writer thread, and the
// writer's mutex may be held by a thread that no longer exists. Start afresh (snapshots of the
// child carry its own pid in their names).
void after_fork_in_child() {
  Writer& w = writer();
  new (&w.mutex) std::mutex;
  new (&w.cv) std::condition_variable;
  new (&w.thread) std::thread;  // the parent's writer does not exist here: never join it
  new (&w.queue) std::deque<Job>;
  w.running = false;
  w.stop = false;
}

std::once_flag g_exit_once;
std::once_flag g_fork_once;
void on_exit() {
  // Runs at exit(), or at dlclose() after the last vkDestroyInstance (nothing left then).
  auto instances = all_instances();
  bool want = false;
  for (auto& i : instances) want = want || i->settings.snapshot_at_exit;
  if (want) {
    auto c = collect(SnapshotReason::kExit, nullptr, nullptr, "");
    stop_writer();
    write_snapshot(*c);
  } else {
    stop_writer();
  }
  if (!instances.empty()) set_passthrough();
}

}  // namespace

const char* to_string(SnapshotReason r) noexcept {
  switch (r) {
    case SnapshotReason::kDeviceDestroy:
      return "device_destroy";
    case SnapshotReason::kInstanceDestroy:
      return "instance_destroy";
    case SnapshotReason::kExit:
      return "exit";
    case SnapshotReason::kFrame:
      return "frame";
    case SnapshotReason::kSignal:
      return "signal";
    case SnapshotReason::kTrigger:
      return "trigger";
    case SnapshotReason::kCrash:
      return "crash";
    case SnapshotReason::kOutOfDeviceMemory:
      return "out_of_device_memory";
    case SnapshotReason::kOutOfHostMemory:
      return "out_of_host_memory";
    case SnapshotReason::kDeviceLost:
      return "device_lost";
  }
  return "frame";
}

void snapshot_now(SnapshotReason reason, DeviceState* device, InstanceState* instance,
                  const std::string& label) noexcept {
  try {
    Job job;
    job.collected = collect(reason, device, instance, label);
    job.reason = reason;
    enqueue(std::move(job));
  } catch (...) {
    record_unwritten(-1, reason, "(collecting)", "out of memory");
  }
}

void snapshot_sync(SnapshotReason reason, const std::string& label) noexcept {
  try {
    auto c = collect(reason, nullptr, nullptr, label);
    write_snapshot(*c);
  } catch (...) {
    log().warn("snapshot not written: out of memory");
  }
}

void start_writer(const Settings& settings) noexcept {
  Writer& w = writer();
  try {
    std::lock_guard<std::mutex> lock(w.mutex);
    if (std::find(w.trigger_files.begin(), w.trigger_files.end(), settings.trigger_file) ==
        w.trigger_files.end())
      w.trigger_files.push_back(settings.trigger_file);
    if (w.running) return;
    std::call_once(g_fork_once, [] { pthread_atfork(nullptr, nullptr, after_fork_in_child); });
    w.stop = false;
    w.thread = std::thread(writer_main);
    w.running = true;
    start_crash_snapshots(settings);
    // The snapshot signal, only where the app left it at its default.
    int sig = signal_from_name(settings.snapshot_signal);
    if (sig) {
      struct sigaction current {};
      if (sigaction(sig, nullptr, &current) == 0 && current.sa_handler == SIG_DFL &&
          !(current.sa_flags & SA_SIGINFO)) {
        struct sigaction act {};
        act.sa_handler = on_snapshot_signal;
        sigemptyset(&act.sa_mask);
        act.sa_flags = SA_RESTART;
        if (sigaction(sig, &act, &w.previous_action) == 0) w.signal_number = sig;
      }
    }
  } catch (...) {
    log().warn("cannot start the snapshot writer thread; snapshots are written inline");
  }
}

void stop_writer() noexcept {
  stop_crash_snapshots();  // also in a forked child, which has no writer
  Writer& w = writer();
  std::thread t;
  {
    std::lock_guard<std::mutex> lock(w.mutex);
    if (!w.running) return;
    w.stop = true;
    w.running = false;
    t = std::move(w.thread);
    // Restore the signal before the loader may unload the layer's code.
    if (w.signal_number) {
      sigaction(w.signal_number, &w.previous_action, nullptr);
      w.signal_number = 0;
    }
    w.trigger_files.clear();
    w.cv.notify_all();
  }
  if (t.joinable()) t.join();
}

void install_exit_handler() noexcept {
  std::call_once(g_exit_once, [] { std::atexit(on_exit); });
}

}  // namespace vkleak
