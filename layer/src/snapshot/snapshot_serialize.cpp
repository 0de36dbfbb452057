#include "snapshot/snapshot_serialize.h"

#include <vulkan/vulkan_core.h>

#include <cstring>
#include <string_view>

#include "format/snapshot_fields.h"
#include "format/snapshot_format.h"

namespace vkleak {
namespace {

namespace f = format;

// ,"key": as one piece of text per key, made at compile time from the contract's names: a
// million objects of 16 keys each are written with one append per key.
struct KeyText {
  char text[40] = {};
  size_t size = 0;
};
constexpr KeyText make_key(std::string_view name) {
  KeyText k;
  k.text[k.size++] = ',';
  k.text[k.size++] = '"';
  for (char c : name) k.text[k.size++] = c;
  k.text[k.size++] = '"';
  k.text[k.size++] = ':';
  return k;
}
template <size_t N>
struct KeyTable {
  KeyText keys[N];
  constexpr explicit KeyTable(const std::string_view (&names)[N]) : keys() {
    for (size_t i = 0; i < N; ++i) keys[i] = make_key(names[i]);
  }
};

#define VKLEAK_KEYS(ns)                            \
  constexpr KeyTable k_##ns##_keys(f::ns::kNames); \
  const KeyText& key_text(f::ns::Field field) {    \
    return k_##ns##_keys.keys[field];              \
  }
VKLEAK_KEYS(top)
VKLEAK_KEYS(producer)
VKLEAK_KEYS(scope)
VKLEAK_KEYS(error_results)
VKLEAK_KEYS(instance)
VKLEAK_KEYS(device)
VKLEAK_KEYS(queue)
VKLEAK_KEYS(memory_budget)
VKLEAK_KEYS(heap)
VKLEAK_KEYS(unwritten)
VKLEAK_KEYS(object)
VKLEAK_KEYS(last_use)
VKLEAK_KEYS(memory)
VKLEAK_KEYS(edge)
VKLEAK_KEYS(destroyed)
VKLEAK_KEYS(event)
VKLEAK_KEYS(submission)
VKLEAK_KEYS(when)
VKLEAK_KEYS(path_step)
VKLEAK_KEYS(callsite)
VKLEAK_KEYS(module)
VKLEAK_KEYS(count)
#undef VKLEAK_KEYS

// ,"key": (first: "key": without the comma).
template <typename Field>
void key(JsonWriter& w, Field field, bool first = false) {
  const KeyText& k = key_text(field);
  w.raw(k.text + (first ? 1 : 0), k.size - (first ? 1 : 0));
}

// A string the layer knows to need no escaping (an enum string, a type name), quoted.
void quoted(JsonWriter& w, std::string_view s) {
  w.raw("\"", 1);
  w.raw(s.data(), s.size());
  w.raw("\"", 1);
}
void boolean(JsonWriter& w, bool b) {
  w.raw(b ? "true" : "false");
}
void null_or_u64(JsonWriter& w, uint64_t v) {
  if (v)
    w.u64(v);
  else
    w.raw("null", 4);
}
void null_or_str(JsonWriter& w, std::string_view s) {
  if (s.empty())
    w.raw("null", 4);
  else
    w.str(s.data(), s.size());
}
void type(JsonWriter& w, const model::Snapshot& s, uint16_t t) {
  quoted(w, t < s.type_count ? s.type_names[t] : "");
}

// `key` then {"frame":..., "callsite":...}: when and where something happened.
template <typename Field>
void write_when(JsonWriter& w, Field field, const model::When& when) {
  key(w, field);
  w.raw("{", 1);
  key(w, f::when::kFrame, true);
  w.u64(when.frame);
  key(w, f::when::kCallsite);
  null_or_u64(w, when.callsite);
  w.raw("}", 1);
}

void write_header(JsonWriter& w, const model::Snapshot& s) {
  w.raw("{", 1);
  key(w, f::top::kFormat, true);
  quoted(w, f::kFormatName);
  key(w, f::top::kVersion);
  w.u64(f::kVersion);
  key(w, f::top::kProducer);
  w.raw("{", 1);
  key(w, f::producer::kName, true);
  quoted(w, f::kProducerName);
  key(w, f::producer::kVersion);
  quoted(w, s.producer_version);
  w.raw("}", 1);
  key(w, f::top::kPid);
  w.u64(s.pid);
  key(w, f::top::kRunId);
  quoted(w, s.run_id);
  key(w, f::top::kExecutable);
  w.str(s.executable.data(), s.executable.size());
  key(w, f::top::kSequence);
  w.u64(s.sequence);
  key(w, f::top::kReason);
  quoted(w, f::name(s.reason));
  key(w, f::top::kLabel);
  null_or_str(w, s.label);
  key(w, f::top::kScope);
  if (s.scope_device >= 0) {
    w.raw("{", 1);
    key(w, f::scope::kDevice, true);
    w.i64(s.scope_device);
    w.raw("}", 1);
  } else if (s.scope_instance >= 0) {
    w.raw("{", 1);
    key(w, f::scope::kInstance, true);
    w.i64(s.scope_instance);
    w.raw("}", 1);
  } else {
    w.raw("null", 4);
  }
  key(w, f::top::kFrame);
  w.u64(s.frame);
  key(w, f::top::kFrameBoundary);
  quoted(w, f::name(s.frame_boundary));
  key(w, f::top::kTimeMs);
  w.u64(s.time_ms);
  key(w, f::top::kDegraded);
  boolean(w, s.degraded);
  key(w, f::top::kFinal);
  if (s.final_at) *s.final_at = w.position();
  boolean(w, s.final_snapshot);
}

void write_unwritten(JsonWriter& w, const model::Snapshot& s) {
  key(w, f::top::kUnwrittenCount);
  w.u64(s.unwritten_count);
  key(w, f::top::kUnwritten);
  w.raw("[", 1);
  for (size_t i = 0; i < s.unwritten.size(); ++i) {
    const model::Unwritten& u = s.unwritten[i];
    w.raw(i ? ",{" : "{");
    key(w, f::unwritten::kSequence, true);
    if (u.sequence < 0)
      w.raw("null", 4);
    else
      w.u64(static_cast<uint64_t>(u.sequence));
    key(w, f::unwritten::kReason);
    quoted(w, f::name(u.reason));
    key(w, f::unwritten::kError);
    w.str(u.error.data(), u.error.size());
    w.raw("}", 1);
  }
  w.raw("]", 1);
}

void write_error_results(JsonWriter& w, const model::Snapshot& s) {
  key(w, f::top::kErrorResults);
  w.raw("{", 1);
  for (int k = 0; k < f::error_results::kCount; ++k) {
    key(w, static_cast<f::error_results::Field>(k), k == 0);
    w.u64(s.error_results[k]);
  }
  w.raw("}", 1);
}

void write_settings(JsonWriter& w, const model::Snapshot& s) {
  w.raw(",\n", 2);
  key(w, f::top::kSettings, true);
  w.raw("{", 1);
  bool first = true;
  for (const auto& [k, v] : s.settings) {
    if (!first) w.raw(",", 1);
    first = false;
    w.str(k);
    w.raw(":", 1);
    w.str(v);
  }
  w.raw("}", 1);
}

void write_instance(JsonWriter& w, const model::Instance& in) {
  w.raw("{", 1);
  key(w, f::instance::kId, true);
  w.u64(in.id);
  key(w, f::instance::kHandle);
  w.hex(in.handle);
  key(w, f::instance::kApplication);
  null_or_str(w, in.application);
  key(w, f::instance::kEngine);
  null_or_str(w, in.engine);
  key(w, f::instance::kApiVersion);
  w.raw("\"", 1);
  w.u64(VK_API_VERSION_MAJOR(in.api_version));
  w.raw(".", 1);
  w.u64(VK_API_VERSION_MINOR(in.api_version));
  w.raw(".", 1);
  w.u64(VK_API_VERSION_PATCH(in.api_version));
  w.raw("\"}", 2);
}

void write_queue(JsonWriter& w, const model::Queue& q) {
  w.raw("{", 1);
  key(w, f::queue::kIndex, true);
  w.u64(q.index);
  key(w, f::queue::kHandle);
  w.hex(q.handle);
  key(w, f::queue::kSubmitted);
  w.u64(q.submitted);
  key(w, f::queue::kRetired);
  w.u64(q.retired);
  w.raw("}", 1);
}

void write_memory_budget(JsonWriter& w, const HeapBudgetSample& b) {
  const bool sampled = b.status == format::HeapBudgetStatus::kSampled;
  w.raw("{", 1);
  key(w, f::memory_budget::kStatus, true);
  quoted(w, f::name(b.status));
  if (b.enabled_known) {
    key(w, f::memory_budget::kEnabledBy);
    quoted(w, f::name(b.enabled_by));
  }
  if (sampled) {
    key(w, f::memory_budget::kFrame);
    w.u64(b.frame);
    key(w, f::memory_budget::kTimeMs);
    w.u64(b.time_ms);
  }
  key(w, f::memory_budget::kHeaps);
  w.raw("[", 1);
  for (uint32_t i = 0; i < b.heap_count && i < VK_MAX_MEMORY_HEAPS; ++i) {
    const HeapSample& h = b.heaps[i];
    if (i) w.raw(",", 1);
    w.raw("{", 1);
    key(w, f::heap::kIndex, true);
    w.u64(i);
    key(w, f::heap::kSize);
    w.u64(h.size);
    key(w, f::heap::kDeviceLocal);
    boolean(w, h.device_local);
    if (sampled) {
      key(w, f::heap::kBudget);
      w.u64(h.budget);
      key(w, f::heap::kUsage);
      w.u64(h.usage);
    }
    w.raw("}", 1);
  }
  w.raw("]}", 2);
}

void write_device(JsonWriter& w, const model::Device& d) {
  w.raw("{", 1);
  key(w, f::device::kId, true);
  w.u64(d.id);
  key(w, f::device::kHandle);
  w.hex(d.handle);
  key(w, f::device::kInstance);
  w.u64(d.instance);
  key(w, f::device::kPhysicalDevice);
  w.str(d.physical_device.data(), d.physical_device.size());
  key(w, f::device::kFrame);
  w.u64(d.frame);
  key(w, f::device::kSubmits);
  w.u64(d.submits);
  key(w, f::device::kPresents);
  w.u64(d.presents);
  key(w, f::device::kFrameBoundary);
  quoted(w, f::name(d.frame_boundary));
  key(w, f::device::kFrameBoundaryAuto);
  boolean(w, d.frame_boundary_auto);
  key(w, f::device::kDegraded);
  boolean(w, d.degraded);
  key(w, f::device::kQueues);
  w.raw("[", 1);
  for (size_t k = 0; k < d.queues.size(); ++k) {
    if (k) w.raw(",", 1);
    write_queue(w, d.queues[k]);
  }
  w.raw("]", 1);
  key(w, f::device::kMemoryBudget);
  write_memory_budget(w, d.heap_budget);
  w.raw("}", 1);
}

void write_edges(JsonWriter& w, const model::Snapshot& s, const model::Object& o) {
  key(w, f::object::kEdges);
  w.raw("[", 1);
  for (size_t i = 0; i < o.edge_count; ++i) {
    const model::Edge& e = o.edges[i];
    w.raw(i ? ",{" : "{");
    key(w, f::edge::kKind, true);
    w.str(e.kind.data(), e.kind.size());
    key(w, f::edge::kTo);
    null_or_u64(w, e.to);
    key(w, f::edge::kType);
    type(w, s, e.type);
    key(w, f::edge::kHandle);
    w.hex(e.handle);
    if (!e.name.empty()) {
      key(w, f::edge::kName);
      w.str(e.name.data(), e.name.size());
    }
    key(w, f::edge::kSlot);
    w.u64(e.slot);
    if (e.offset || e.size) {
      key(w, f::edge::kOffset);
      w.u64(e.offset);
      key(w, f::edge::kSize);
      w.u64(e.size);
    }
    w.raw("}", 1);
  }
  w.raw("]", 1);
}

void write_object(JsonWriter& w, const model::Snapshot& s, const model::Object& o) {
  key(w, f::object::kId, true);
  w.u64(o.id);
  key(w, f::object::kType);
  type(w, s, o.type);
  key(w, f::object::kHandle);
  w.hex(o.handle);
  key(w, f::object::kName);
  null_or_str(w, o.name);
  key(w, f::object::kOwner);
  w.u64(o.owner);
  key(w, f::object::kParent);
  null_or_u64(w, o.parent);
  key(w, f::object::kOrigin);
  quoted(w, f::name(o.origin));
  key(w, f::object::kFrame);
  w.u64(o.frame);
  key(w, f::object::kTimeMs);
  w.u64(o.time_ms);
  key(w, f::object::kSize);
  w.u64(o.size);
  key(w, f::object::kCallsite);
  null_or_u64(w, o.callsite);
  if (o.refs > 1) {
    key(w, f::object::kRefs);
    w.u64(o.refs);
  }
  key(w, f::object::kLastUse);
  if (o.has_last_use) {
    w.raw("{", 1);
    key(w, f::last_use::kFrame, true);
    w.u64(o.last_use_frame);
    key(w, f::last_use::kQueue);
    w.u64(o.last_use_queue);
    key(w, f::last_use::kSerial);
    w.u64(o.last_use_serial);
    w.raw("}", 1);
  } else {
    w.raw("null", 4);
  }
  key(w, f::object::kInFlight);
  boolean(w, o.in_flight);
  if (o.has_memory) {
    key(w, f::object::kMemory);
    w.raw("{", 1);
    key(w, f::memory::kId, true);
    w.u64(o.memory_id);
    key(w, f::memory::kOffset);
    w.u64(o.memory_offset);
    key(w, f::memory::kSize);
    w.u64(o.memory_size);
    w.raw("}", 1);
  }
  if (o.create_flags != 0) {
    key(w, f::object::kCreateFlags);
    w.u64(o.create_flags);
  }
  if (o.has_edges) write_edges(w, s, o);
}

void write_objects(JsonWriter& w, const model::Snapshot& s, std::vector<uint64_t>* live,
                   std::vector<uint64_t>* bytes) {
  w.raw(",\n", 2);
  key(w, f::top::kObjects, true);
  w.raw("[", 1);
  model::Object o;
  const size_t n = s.objects ? s.objects->size() : 0;
  for (size_t i = 0; i < n; ++i) {
    o = model::Object{};
    s.objects->get(i, &o);
    if (o.type < live->size()) {
      (*live)[o.type]++;
      (*bytes)[o.type] += o.size;
    }
    w.raw(i ? ",\n{" : "\n{");
    write_object(w, s, o);
    w.raw("}", 1);
  }
  w.raw("]", 1);
}

void write_destroyed(JsonWriter& w, const model::Snapshot& s) {
  w.raw(",\n", 2);
  key(w, f::top::kDestroyed, true);
  w.raw("[", 1);
  for (size_t i = 0; i < s.destroyed.size(); ++i) {
    const model::Destroyed& d = s.destroyed[i];
    w.raw(i ? ",\n{" : "\n{");
    key(w, f::destroyed::kId, true);
    w.u64(d.id);
    key(w, f::destroyed::kType);
    type(w, s, d.type);
    key(w, f::destroyed::kHandle);
    w.hex(d.handle);
    key(w, f::destroyed::kName);
    null_or_str(w, d.name);
    key(w, f::destroyed::kOwner);
    w.u64(d.owner);
    key(w, f::destroyed::kFrame);
    w.u64(d.frame);
    key(w, f::destroyed::kDestroyedFrame);
    w.u64(d.destroyed_frame);
    key(w, f::destroyed::kSize);
    w.u64(d.size);
    key(w, f::destroyed::kCallsite);
    null_or_u64(w, d.callsite);
    key(w, f::destroyed::kDestroyCallsite);
    null_or_u64(w, d.destroy_callsite);
    w.raw("}", 1);
  }
  w.raw("]", 1);
}

void write_counts(JsonWriter& w, const model::Snapshot& s, const std::vector<uint64_t>& live,
                  const std::vector<uint64_t>& bytes) {
  w.raw(",\n", 2);
  key(w, f::top::kCounts, true);
  w.raw("{", 1);
  bool first = true;
  for (size_t t = 0; t < live.size(); ++t) {
    if (!live[t]) continue;
    if (!first) w.raw(",", 1);
    first = false;
    type(w, s, static_cast<uint16_t>(t));
    w.raw(":{", 2);
    key(w, f::count::kLive, true);
    w.u64(live[t]);
    key(w, f::count::kBytes);
    w.u64(bytes[t]);
    w.raw("}", 1);
  }
  w.raw("}", 1);
}

void write_event(JsonWriter& w, const model::Snapshot& s, const model::Event& e) {
  w.raw("\n{", 2);
  key(w, f::event::kKind, true);
  w.str(e.kind.data(), e.kind.size());
  key(w, f::event::kOwner);
  w.u64(e.owner);
  key(w, f::event::kType);
  type(w, s, e.type);
  key(w, f::event::kHandle);
  w.hex(e.handle);
  key(w, f::event::kObject);
  null_or_u64(w, e.object);
  key(w, f::event::kFrame);
  w.u64(e.frame);
  key(w, f::event::kTimeMs);
  w.u64(e.time_ms);
  key(w, f::event::kName);
  null_or_str(w, e.name);
  if (e.has_submission) {
    key(w, f::event::kSubmission);
    w.raw("{", 1);
    key(w, f::submission::kQueue, true);
    w.u64(e.submission_queue);
    key(w, f::submission::kSerial);
    w.u64(e.submission_serial);
    key(w, f::submission::kFrame);
    w.u64(e.submission_frame);
    w.raw("}", 1);
    key(w, f::event::kPath);
    w.raw("[", 1);
    for (size_t k = 0; k < e.path.size(); ++k) {
      const model::PathStep& step = e.path[k];
      w.raw(k ? ",{" : "{");
      key(w, f::path_step::kId, true);
      w.u64(step.id);
      key(w, f::path_step::kType);
      type(w, s, step.type);
      key(w, f::path_step::kName);
      null_or_str(w, step.name);
      key(w, f::path_step::kRelation);
      quoted(w, step.relation);
      w.raw("}", 1);
    }
    w.raw("]", 1);
  }
  key(w, f::event::kCallsite);
  null_or_u64(w, e.callsite);
  if (e.created.present) write_when(w, f::event::kCreated, e.created);
  if (!e.reason.empty()) {
    key(w, f::event::kReason);
    quoted(w, e.reason);
  }
  if (e.first_destroy.present) write_when(w, f::event::kFirstDestroy, e.first_destroy);
  if (e.belongs_to) {
    key(w, f::event::kBelongsTo);
    w.u64(e.belongs_to);
  }
  key(w, f::event::kMessage);
  w.str(e.message.data(), e.message.size());
  w.raw("}", 1);
}

void write_events(JsonWriter& w, const model::Snapshot& s) {
  w.raw(",\n", 2);
  key(w, f::top::kEvents, true);
  w.raw("[", 1);
  for (size_t i = 0; i < s.events.size(); ++i) {
    if (i) w.raw(",", 1);
    write_event(w, s, s.events[i]);
  }
  w.raw("]", 1);
  key(w, f::top::kEventsDropped);
  w.u64(s.events_dropped);
}

void write_callsites(JsonWriter& w, const model::Snapshot& s) {
  w.raw(",\n", 2);
  key(w, f::top::kCallsites, true);
  w.raw("[", 1);
  for (size_t i = 0; i < s.callsites.size(); ++i) {
    w.raw(i ? ",\n{" : "\n{");
    key(w, f::callsite::kId, true);
    w.u64(i);
    key(w, f::callsite::kFrames);
    w.raw("[", 1);
    for (size_t k = 0; k < s.callsites[i].size(); ++k) {
      if (k) w.raw(",", 1);
      w.hex(s.callsites[i][k]);
    }
    w.raw("]}", 2);
  }
  w.raw("]", 1);
}

void write_modules(JsonWriter& w, const model::Snapshot& s) {
  w.raw(",\n", 2);
  key(w, f::top::kModules, true);
  w.raw("[", 1);
  for (size_t i = 0; i < s.modules.size(); ++i) {
    const model::Module& m = s.modules[i];
    w.raw(i ? ",\n{" : "\n{");
    key(w, f::module::kPath, true);
    w.str(m.path.data(), m.path.size());
    key(w, f::module::kBase);
    w.hex(m.base);
    key(w, f::module::kSize);
    w.u64(m.size);
    key(w, f::module::kBias);
    w.hex(m.bias);
    key(w, f::module::kBuildId);
    null_or_str(w, m.build_id);
    w.raw("}", 1);
  }
  w.raw("]", 1);
}

}  // namespace

void serialize_snapshot(JsonWriter& w, const model::Snapshot& s) {
  write_header(w, s);
  write_unwritten(w, s);
  key(w, f::top::kCoalescedSignals);
  w.u64(s.coalesced_signals);
  write_error_results(w, s);
  write_settings(w, s);

  w.raw(",\n", 2);
  key(w, f::top::kInstances, true);
  w.raw("[", 1);
  for (size_t i = 0; i < s.instances.size(); ++i) {
    if (i) w.raw(",", 1);
    write_instance(w, s.instances[i]);
  }
  w.raw("]", 1);

  w.raw(",\n", 2);
  key(w, f::top::kDevices, true);
  w.raw("[", 1);
  for (size_t i = 0; i < s.devices.size(); ++i) {
    if (i) w.raw(",", 1);
    write_device(w, s.devices[i]);
  }
  w.raw("]", 1);

  std::vector<uint64_t> live(s.type_count), bytes(s.type_count);
  write_objects(w, s, &live, &bytes);
  write_destroyed(w, s);
  write_counts(w, s, live, bytes);
  write_events(w, s);
  write_callsites(w, s);
  write_modules(w, s);
  w.raw("}\n", 2);
}

}  // namespace vkleak
