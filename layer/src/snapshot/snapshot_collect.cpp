#include "snapshot/snapshot_collect.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <string_view>
#include <unordered_set>

#include "base/clock.h"
#include "format/snapshot_format.h"

#ifndef VKLEAK_VERSION
#define VKLEAK_VERSION "0.0.0"
#endif

namespace vkleak {
namespace {

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
  static const KindId kind_id = intern_kind(format::kEdgeKindSetLayout.data());
  for (const ObjectRecord& r : recs) {
    const uint64_t layout = set_layout(r);
    if (!layout) continue;
    Edge e{};
    e.kind = format::kEdgeKindSetLayout.data();
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
  static const KindId kind_id = intern_kind(format::kEdgeKindMemory.data());
  for (const ObjectRecord& r : recs) {
    if (!r.bound) continue;
    const BoundMemory* m = memories.at(r.memory_slot);
    if (!m) continue;
    Edge e{};
    e.kind = format::kEdgeKindMemory.data();
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

// A view's edge kept in its record (inline_edge_kind) is listed as the EdgeStore listed it:
// first among its edges, slot 0, no offset or size.
void add_inline_edges(const std::vector<ObjectRecord>& recs, Collected* c) {
  for (const ObjectRecord& r : recs) {
    if (!has_inline_edge(r)) continue;
    const InlineEdgeKind k = inline_edge_kind(static_cast<ObjectType>(r.type));
    Edge e{};
    e.kind_id = intern_kind(k.kind);
    e.kind = kind_name(e.kind_id);
    e.dst_type = k.dst_type;
    e.dst_handle = inline_edge_target(r);
    e.dst_id = inline_edge_id(r);
    e.dst_name = inline_edge_name(r);
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
    CreationContext made = context_of(r.context);
    made.frame = reported_creation_frame(scope, made.frame);
    c->objects.push_back({r, scope.object_id, parent, in_flight, made});
    c->objects.back().rec.use_frame = reported_creation_frame(scope, r.use_frame);
  }
  add_layout_edges(recs, copy.graves, c);
  if (device) add_binding_edges(recs, copy.graves, device->memories, c);
  add_inline_edges(recs, c);
  for (const auto& [key, e] : copy.edges) c->edges[key].push_back(e);
  for (const GraveRecord& g : copy.graves) {
    c->destroyed.emplace_back(scope.object_id, g);
    c->destroyed.back().second.made.frame = reported_creation_frame(scope, g.made.frame);
    c->destroyed.back().second.destroyed_frame = reported_creation_frame(scope, g.destroyed_frame);
  }
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
  for (Event& e : scope.events.take(&dropped)) {
    e.created_frame = reported_creation_frame(scope, static_cast<uint32_t>(e.created_frame));
    e.use_frame = reported_creation_frame(scope, static_cast<uint32_t>(e.use_frame));
    c->events.emplace_back(scope.object_id, std::move(e));
  }
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
                  {},
                  d.heap_budget.latest()};
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

// ---- The plain model ----

std::string_view name_view(const std::vector<std::string>& names, uint32_t id) {
  return id && id < names.size() ? std::string_view(names[id]) : std::string_view();
}

format::FrameBoundary boundary_of(FrameBoundary b) {
  return b == FrameBoundary::kSubmit ? format::FrameBoundary::kSubmit
                                     : format::FrameBoundary::kPresent;
}

model::Edge edge_of(const Edge& e, const std::vector<std::string>& names) {
  model::Edge m;
  m.kind = e.kind;
  m.to = e.dst_id;
  m.type = static_cast<uint16_t>(e.dst_type);
  m.handle = e.dst_handle;
  m.name = name_view(names, e.dst_name);
  m.slot = e.slot;
  m.offset = e.offset;
  m.size = e.size;
  return m;
}

model::Event event_of(uint64_t owner, const Event& e) {
  model::Event m;
  m.kind = e.kind;
  m.owner = owner;
  m.type = static_cast<uint16_t>(e.type);
  m.handle = e.handle;
  m.object = e.object_id;
  m.frame = e.frame;
  m.time_ms = e.time_ms;
  m.name = e.name;
  m.has_submission = e.queue >= 0;
  m.submission_queue = static_cast<uint64_t>(e.queue);
  m.submission_serial = e.serial;
  m.submission_frame = e.use_frame;
  for (const EventPathStep& step : e.path)
    m.path.push_back({step.id, static_cast<uint16_t>(step.type), step.name, step.relation});
  m.callsite = e.callsite;
  m.created = {e.has_created, e.created_frame, e.created_callsite};
  if (e.reason) m.reason = e.reason;
  m.first_destroy = {e.has_first_destroy, e.first_destroy_frame, e.first_destroy_callsite};
  m.belongs_to = e.belongs_to;
  m.message = e.message;
  return m;
}

// Object type names, indexed by ObjectType: what model::Object::type and the others index.
const std::array<const char*, kObjectTypeCount>& type_names() {
  static const std::array<const char*, kObjectTypeCount> names = [] {
    std::array<const char*, kObjectTypeCount> a{};
    for (uint32_t t = 0; t < kObjectTypeCount; ++t)
      a[t] = object_type_name(static_cast<ObjectType>(t));
    return a;
  }();
  return names;
}

std::string executable_path() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

}  // namespace

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
  c->final_snapshot = reason == SnapshotReason::kExit;
  c->last_instance = reason == SnapshotReason::kInstanceDestroy && all_instances().size() <= 1;
  return c;
}

// The collected records, one model::Object at a time: a million are not copied again.
class SnapshotData::Objects final : public model::ObjectSource {
 public:
  Objects(const Collected& c, const std::vector<std::string>& names) : c_(c), names_(names) {}

  size_t size() const override { return c_.objects.size(); }

  void get(size_t index, model::Object* o) const override {
    const OwnedRecord& owned = c_.objects[index];
    const ObjectRecord& r = owned.rec;
    o->id = r.id;
    o->type = static_cast<uint16_t>(r.type);
    o->handle = r.handle;
    o->name = name_view(names_, r.name);
    o->owner = owned.owner;
    o->parent = owned.parent;
    o->origin = static_cast<format::Origin>(r.origin);
    o->frame = owned.made.frame;
    o->time_ms = owned.made.time_ms;
    o->size = byte_size(r);
    o->callsite = owned.made.callsite;
    o->refs = r.refs;
    o->has_last_use = r.use_serial != 0;
    o->last_use_frame = r.use_frame;
    o->last_use_queue = r.use_queue;
    o->last_use_serial = r.use_serial;
    o->in_flight = owned.in_flight;
    o->create_flags = pool_create_flags(r);
    auto edges = c_.edges.find({r.handle, r.type});
    if (edges == c_.edges.end()) return;
    o->has_edges = true;
    edges_.clear();
    for (const Edge& e : edges->second) {
      edges_.push_back(edge_of(e, names_));
      // The bound memory, for the common question "what memory does this hold".
      if (!o->has_memory && e.dst_id && format::kEdgeKindMemory == e.kind) {
        o->has_memory = true;
        o->memory_id = e.dst_id;
        o->memory_offset = e.offset;
        o->memory_size = e.size;
      }
    }
    o->edges = edges_.data();
    o->edge_count = edges_.size();
  }

 private:
  const Collected& c_;
  const std::vector<std::string>& names_;
  mutable std::vector<model::Edge> edges_;  // the last object's
};

SnapshotData::SnapshotData(Collected* c) {
  finish(c);
  copy_names(&names_);
  modules_ = loaded_modules();
  executable_ = executable_path();
  objects_ = std::make_unique<Objects>(*c, names_);

  model::Snapshot& m = model_;
  m.producer_version = VKLEAK_VERSION;
  m.pid = static_cast<uint64_t>(getpid());
  m.executable = executable_;
  m.reason = c->reason;
  m.label = c->label;
  m.scope_device = c->scope_device;
  m.scope_instance = c->scope_instance;
  m.frame = c->frame;
  m.frame_boundary = boundary_of(c->boundary);
  m.time_ms = c->time_ms;
  m.degraded = c->degraded;
  m.final_snapshot = c->final_snapshot;
  m.error_results[0] = c->errors.out_of_device_memory;
  m.error_results[1] = c->errors.out_of_host_memory;
  m.error_results[2] = c->errors.device_lost;
  m.settings = describe(c->settings);
  for (const InstanceInfo& in : c->instances)
    m.instances.push_back({in.id, in.handle, in.application, in.engine, in.api_version});
  for (const DeviceInfo& d : c->devices) {
    model::Device md{
        d.id,      d.handle,     d.instance_id,           d.physical_device, d.frame,
        d.submits, d.presents,   boundary_of(d.boundary), d.boundary_auto,   d.degraded,
        {},        d.heap_budget};
    for (const QueueInfo& q : d.queues)
      md.queues.push_back({q.index, q.handle, q.submitted, q.retired});
    m.devices.push_back(std::move(md));
  }
  m.objects = objects_.get();
  for (const auto& [owner, g] : c->destroyed) {
    const ObjectRecord& r = g.record;
    m.destroyed.push_back({r.id, static_cast<uint16_t>(r.type), r.handle, name_view(names_, r.name),
                           owner, g.made.frame, g.destroyed_frame, byte_size(r), g.made.callsite,
                           g.destroy_callsite});
  }
  for (const auto& [owner, e] : c->events) m.events.push_back(event_of(owner, e));
  m.events_dropped = c->events_dropped;
  m.type_names = type_names().data();
  m.type_count = type_names().size();
  copy_callsites(&m.callsites);
  for (const ModuleInfo& mod : modules_)
    m.modules.push_back({mod.path, mod.start, mod.size, mod.bias, mod.build_id});
}

SnapshotData::~SnapshotData() = default;

}  // namespace vkleak
