#include "core/snapshot_builder.h"

#include <algorithm>
#include <limits>

namespace vkleak::reader_detail {

SnapshotBuilder::SnapshotBuilder(Snapshot* snapshot, ContentErrors* errors,
                                 const ReadOptions& options, uint64_t size_hint)
    : snap_(*snapshot), errors_(*errors), options_(options) {
  // Debug names are sparse; this only saves the first rehashes.
  names_.reserve(std::min<uint64_t>(size_hint / 2048, uint64_t{1} << 20));
}

void SnapshotBuilder::begin_child(Ctx ctx) {
  switch (ctx) {
    case Ctx::kLastUse:
      last_use_ = LastUse{};
      last_use_.object = static_cast<uint32_t>(snap_.objects.size());
      break;
    case Ctx::kMemory:
      memory_ = MemoryBinding{};
      memory_.object = static_cast<uint32_t>(snap_.objects.size());
      break;
    case Ctx::kSubmission:
      event_.has_submission = true;
      break;
    case Ctx::kMemoryBudget:
      device_.memory_budget = MemoryBudget{};
      device_.memory_budget.present = true;
      break;
    case Ctx::kEventCreated:
      event_.has_created = true;
      break;
    case Ctx::kEventFirstDestroy:
      event_.has_first_destroy = true;
      break;
    default:
      break;
  }
}

// Starts the record an array element holds.
void SnapshotBuilder::begin_element(Ctx ctx) {
  switch (ctx) {
    case Ctx::kInstance:
      instance_ = Instance{};
      break;
    case Ctx::kDevice:
      device_ = Device{};
      break;
    case Ctx::kQueue:
      queue_ = Queue{};
      break;
    case Ctx::kHeap:
      heap_ = MemoryHeap{};
      break;
    case Ctx::kUnwritten:
      unwritten_ = UnwrittenSnapshot{};
      break;
    case Ctx::kObject:
      object_ = Object{};
      break;
    case Ctx::kEdge:
      edge_ = Edge{};
      edge_.from = static_cast<uint32_t>(snap_.objects.size());
      break;
    case Ctx::kDestroyed:
      destroyed_ = DestroyedObject{};
      break;
    case Ctx::kEvent:
      event_ = Event{};
      break;
    case Ctx::kPathStep:
      step_ = EventPathStep{};
      break;
    case Ctx::kCallsite:
      callsite_id_ = 0;
      frames_.clear();
      break;
    case Ctx::kModule:
      module_ = Module{};
      break;
    default:
      break;
  }
}

// Files a complete record where it belongs; false when it is invalid.
bool SnapshotBuilder::finish_record(Ctx ctx, uint64_t index) {
  switch (ctx) {
    case Ctx::kInstance:
      snap_.instances.push_back(std::move(instance_));
      break;
    case Ctx::kDevice:
      snap_.devices.push_back(std::move(device_));
      break;
    case Ctx::kQueue:
      device_.queues.push_back(queue_);
      break;
    case Ctx::kHeap:
      // A device has at most VK_MAX_MEMORY_HEAPS (16); a hostile file may list millions.
      if (device_.memory_budget.heaps.size() < 64) device_.memory_budget.heaps.push_back(heap_);
      break;
    case Ctx::kUnwritten:
      // The layer keeps the last 32; a hostile file may list millions.
      if (snap_.unwritten.size() < 1024) snap_.unwritten.push_back(std::move(unwritten_));
      break;
    case Ctx::kObject:
      if (snap_.objects.size() >= std::numeric_limits<uint32_t>::max()) {
        errors_.fail("more than 2^32 objects", false);
        return false;
      }
      snap_.objects.push_back(object_);
      break;
    case Ctx::kLastUse:
      snap_.last_uses.push_back(last_use_);
      break;
    case Ctx::kMemory:
      snap_.memory_bindings.push_back(memory_);
      break;
    case Ctx::kEdge:
      snap_.edges.push_back(edge_);
      break;
    case Ctx::kDestroyed:
      snap_.destroyed.push_back(destroyed_);
      break;
    case Ctx::kEvent:
      snap_.events.push_back(std::move(event_));
      break;
    case Ctx::kPathStep:
      event_.path.push_back(std::move(step_));
      break;
    case Ctx::kCallsite: {
      if (callsite_id_ != index) {
        errors_.fail("call site id is " + std::to_string(callsite_id_) +
                         " but entry i must have id i (" + std::to_string(index) + ")",
                     false);
        return false;
      }
      snap_.callsites.push_back(frames_);
      break;
    }
    case Ctx::kModule:
      snap_.modules.push_back(std::move(module_));
      break;
    case Ctx::kCount:
      snap_.counts[count_key_] = count_;
      break;
    default:
      break;
  }
  return true;
}

// strict: the Vk[A-Za-z0-9]+ pattern the schema demands of object types.
bool SnapshotBuilder::intern_type(const std::string& type, bool strict, uint16_t* out) {
  // Objects of one type tend to come in runs: try the last one first.
  if (last_type_ >= 0 && snap_.type_names[static_cast<size_t>(last_type_)] == type) {
    *out = static_cast<uint16_t>(last_type_);
    return true;
  }
  auto it = type_index_.find(type);
  if (it == type_index_.end()) {
    if (strict && !valid_vk_type_name(type)) {
      errors_.fail("expected a Vulkan type name like VkBuffer, got " + quote_printable(type, 40));
      return false;
    }
    if (snap_.type_names.size() > 0xffff) {
      errors_.fail("more than 65536 distinct object types");
      return false;
    }
    it = type_index_.emplace(type, static_cast<uint16_t>(snap_.type_names.size())).first;
    snap_.type_names.push_back(type);
  }
  last_type_ = it->second;
  *out = it->second;
  return true;
}

bool SnapshotBuilder::intern_name(std::string& name, int32_t* out) {
  if (names_.size() >= static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    errors_.fail("too many distinct debug names");
    return false;
  }
  *out = names_.intern(std::move(name));
  return true;
}

bool SnapshotBuilder::intern_opt_name(const Scalar& v, int32_t* out) {
  if (v.kind == Scalar::kNull) {
    *out = kNoName;
    return true;
  }
  if (v.kind != Scalar::kString) return errors_.type_error("a string or null", v);
  intern_name(*v.s, out);
  return true;
}

bool SnapshotBuilder::intern_edge_kind(const std::string& kind, uint16_t* out) {
  for (size_t i = 0; i < snap_.edge_kinds.size(); ++i) {
    if (snap_.edge_kinds[i] == kind) {
      *out = static_cast<uint16_t>(i);
      return true;
    }
  }
  // Kinds are create-info member names: a few dozen at most in a real snapshot.
  if (snap_.edge_kinds.size() >= 4096) return errors_.fail("more than 4096 distinct edge kinds");
  *out = static_cast<uint16_t>(snap_.edge_kinds.size());
  snap_.edge_kinds.push_back(kind);
  return true;
}

// Files a record read by parse_object_record; false, with nothing kept, when it would not be
// filed as is (a limit is reached or a type name is invalid).
bool SnapshotBuilder::commit_record(RawRecord* r) {
  const size_t extra = 1 + r->edges.size();
  if (snap_.objects.size() >= std::numeric_limits<uint32_t>::max() ||
      !valid_vk_type_name(r->type) || snap_.type_names.size() + extra > 0x10000 ||
      snap_.edge_kinds.size() + r->edges.size() > 4096 ||
      names_.size() + extra >= static_cast<size_t>(std::numeric_limits<int32_t>::max()) ||
      r->name.size() > options_.max_token_bytes) {
    return false;
  }
  for (const RawEdge& e : r->edges) {
    if (e.name.size() > options_.max_token_bytes) return false;
  }
  Object& o = r->object;
  const auto index = static_cast<uint32_t>(snap_.objects.size());
  if (last_type_ >= 0 && snap_.type_names[static_cast<size_t>(last_type_)] == r->type) {
    o.type = static_cast<uint16_t>(last_type_);
  } else {
    scratch_.assign(r->type);
    intern_type(scratch_, /*strict=*/true, &o.type);
  }
  if (r->has_name) o.name = names_.intern(r->name);
  if (r->has_last_use) {
    r->last_use.object = index;
    snap_.last_uses.push_back(r->last_use);
  }
  if (r->has_memory) {
    r->memory.object = index;
    snap_.memory_bindings.push_back(r->memory);
  }
  for (RawEdge& e : r->edges) {
    e.edge.from = index;
    scratch_.assign(e.kind);
    intern_edge_kind(scratch_, &e.edge.kind);
    scratch_.assign(e.type);
    intern_type(scratch_, /*strict=*/false, &e.edge.type);
    if (e.has_name) e.edge.name = names_.intern(e.name);
    snap_.edges.push_back(e.edge);
  }
  snap_.objects.push_back(o);
  return true;
}

// Cross-references that the schema cannot express, checked once everything is read.
std::optional<std::string> SnapshotBuilder::validate_references() const {
  const size_t callsites = snap_.callsites.size();
  auto dangling = [&](const char* list, size_t i, int64_t id, int32_t callsite) {
    return std::string(list) + "[" + std::to_string(i) + "] (id " + std::to_string(id) +
           "): call site " + std::to_string(callsite) + " does not exist (" +
           std::to_string(callsites) + " call sites)";
  };
  for (size_t i = 0; i < snap_.objects.size(); ++i) {
    const Object& o = snap_.objects[i];
    if (o.callsite != kNoCallsite && static_cast<size_t>(o.callsite) >= callsites) {
      return dangling("objects", i, static_cast<int64_t>(o.id), o.callsite);
    }
  }
  for (size_t i = 0; i < snap_.destroyed.size(); ++i) {
    const DestroyedObject& d = snap_.destroyed[i];
    for (int32_t callsite : {d.callsite, d.destroy_callsite}) {
      if (callsite != kNoCallsite && static_cast<size_t>(callsite) >= callsites)
        return dangling("destroyed", i, d.id, callsite);
    }
  }
  for (size_t i = 0; i < snap_.events.size(); ++i) {
    const Event& e = snap_.events[i];
    for (int32_t callsite : {e.callsite, e.created_callsite, e.first_destroy_callsite}) {
      if (callsite != kNoCallsite && static_cast<size_t>(callsite) >= callsites)
        return dangling("events", i, e.object, callsite);
    }
  }
  return std::nullopt;
}

}  // namespace vkleak::reader_detail
