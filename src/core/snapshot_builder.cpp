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

bool SnapshotBuilder::scalar(Ctx ctx, int field, const Scalar& v) {
  field_ = field;
  switch (ctx) {
    case Ctx::kObject:
      return object_scalar(v);
    case Ctx::kEdge:
      return edge_scalar(v);
    case Ctx::kLastUse:
      errors_.get_u64(v, field_ == last_use::kFrame   ? &last_use_.frame
                         : field_ == last_use::kQueue ? &last_use_.queue
                                                      : &last_use_.serial);
      return true;
    case Ctx::kMemory:
      if (field_ == memory::kId) {
        errors_.get_i64(v, &memory_.memory);
      } else {
        errors_.get_u64(v, field_ == memory::kOffset ? &memory_.offset : &memory_.size);
      }
      return true;
    case Ctx::kTop:
      return top_scalar(v);
    case Ctx::kProducer:
      errors_.get_string(
          v, field_ == producer::kName ? &snap_.producer_name : &snap_.producer_version);
      return true;
    case Ctx::kScope: {
      int64_t id;
      if (errors_.get_i64(v, &id)) {
        (field_ == scope::kDevice ? snap_.scope_device : snap_.scope_instance) = id;
      }
      return true;
    }
    case Ctx::kInstance:
      return instance_scalar(v);
    case Ctx::kDevice:
      return device_scalar(v);
    case Ctx::kQueue:
      return queue_scalar(v);
    case Ctx::kUnwritten:
      return unwritten_scalar(v);
    case Ctx::kDestroyed:
      return destroyed_scalar(v);
    case Ctx::kEvent:
      return event_scalar(v);
    case Ctx::kSubmission:
      errors_.get_i64(v, field_ == submission::kQueue    ? &event_.submission_queue
                         : field_ == submission::kSerial ? &event_.submission_serial
                                                         : &event_.submission_frame);
      return true;
    case Ctx::kPathStep:
      return path_step_scalar(v);
    case Ctx::kEventCreated:
      if (field_ == when::kFrame) return errors_.get_i64(v, &event_.created_frame), true;
      return errors_.get_callsite(v, &event_.created_callsite), true;
    case Ctx::kEventFirstDestroy:
      if (field_ == when::kFrame) return errors_.get_i64(v, &event_.first_destroy_frame), true;
      return errors_.get_callsite(v, &event_.first_destroy_callsite), true;
    case Ctx::kCallsite:
      if (field_ == callsite::kId) {
        errors_.get_u64(v, &callsite_id_);
        return true;
      }
      return errors_.type_error("an array", v);
    case Ctx::kModule:
      return module_scalar(v);
    case Ctx::kCount:
      errors_.get_u64(v, field_ == count::kLive ? &count_.live : &count_.bytes);
      return true;
    case Ctx::kErrorResults:
      errors_.get_u64(
          v, field_ == error_results::kOutOfDeviceMemory ? &snap_.error_results.out_of_device_memory
             : field_ == error_results::kOutOfHostMemory ? &snap_.error_results.out_of_host_memory
                                                         : &snap_.error_results.device_lost);
      return true;
    default:
      return true;
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

bool SnapshotBuilder::top_scalar(const Scalar& v) {
  switch (static_cast<top::Field>(field_)) {
    case top::kPid:
      errors_.get_u64(v, &snap_.pid);
      return true;
    case top::kExecutable:
      errors_.get_string(v, &snap_.executable);
      return true;
    case top::kSequence:
      errors_.get_u64(v, &snap_.sequence);
      return true;
    case top::kReason:
      errors_.get_string(v, &snap_.reason);
      return true;
    case top::kScope:
      if (v.kind != Scalar::kNull) return errors_.type_error("an object or null", v);
      return true;
    case top::kFrame:
      errors_.get_u64(v, &snap_.frame);
      return true;
    case top::kFrameBoundary:
      errors_.get_string(v, &snap_.frame_boundary);
      return true;
    case top::kTimeMs:
      errors_.get_u64(v, &snap_.time_ms);
      return true;
    case top::kDegraded:
      errors_.get_bool(v, &snap_.degraded);
      return true;
    case top::kLabel:
      errors_.get_opt_string(v, &snap_.label);
      return true;
    case top::kEventsDropped:
      errors_.get_u64(v, &snap_.events_dropped);
      return true;
    case top::kFinal: {
      bool b = false;
      if (errors_.get_bool(v, &b)) snap_.final_snapshot = b;
      return true;
    }
    case top::kUnwrittenCount:
      errors_.get_u64(v, &snap_.unwritten_count);
      return true;
    case top::kCoalescedSignals:
      errors_.get_u64(v, &snap_.coalesced_signals);
      return true;
    case top::kProducer:
    case top::kCounts:
    case top::kErrorResults:
      return errors_.type_error("an object", v);
    case top::kInstances:
    case top::kDevices:
    case top::kObjects:
    case top::kCallsites:
    case top::kModules:
    case top::kDestroyed:
    case top::kEvents:
    case top::kUnwritten:
      return errors_.type_error("an array", v);
    case top::kFormat:    // read by the handler
    case top::kVersion:   // likewise
    case top::kSettings:  // opaque: never looked up
    case top::kCount:     // not a field
      return true;
  }
  return true;
}

bool SnapshotBuilder::object_scalar(const Scalar& v) {
  uint64_t u;
  switch (static_cast<object::Field>(field_)) {
    case object::kId:
      if (errors_.get_u64(v, &object_.id) && object_.id == 0)
        return errors_.fail("ids start at 1, got 0");
      return true;
    case object::kType:
      if (v.kind != Scalar::kString) return errors_.type_error("a Vulkan type name", v);
      intern_type(*v.s, /*strict=*/true, &object_.type);
      return true;
    case object::kHandle:
      errors_.get_handle(v, &object_.handle);
      return true;
    case object::kName:
      return intern_opt_name(v, &object_.name);
    case object::kOwner:
      errors_.get_i64(v, &object_.owner);
      return true;
    case object::kParent:
      errors_.get_opt_i64(v, &object_.parent);
      return true;
    case object::kOrigin:
      return set_origin(v);
    case object::kFrame:
      if (errors_.get_u64(v, &u)) object_.frame = saturate<uint32_t>(u);
      return true;
    case object::kTimeMs:
      if (errors_.get_u64(v, &u)) object_.time_ms = saturate<uint32_t>(u);
      return true;
    case object::kSize:
      errors_.get_u64(v, &object_.size);
      return true;
    case object::kCallsite:
      errors_.get_callsite(v, &object_.callsite);
      return true;
    case object::kRefs:
      if (errors_.get_u64(v, &u)) object_.refs = saturate<uint16_t>(u);
      return true;
    case object::kLastUse:
      if (v.kind != Scalar::kNull) return errors_.type_error("an object or null", v);
      return true;
    case object::kInFlight:
      errors_.get_bool(v, &object_.in_flight);
      return true;
    case object::kMemory:
      return errors_.type_error("an object", v);
    case object::kEdges:
      return errors_.type_error("an array", v);
    case object::kCount:  // not a field
      return true;
  }
  return true;
}

bool SnapshotBuilder::set_origin(const Scalar& v) {
  if (v.kind == Scalar::kString && format::parse(*v.s, &object_.origin)) return true;
  return errors_.type_error(one_of(format::kOriginNames).c_str(), v);
}

bool SnapshotBuilder::edge_scalar(const Scalar& v) {
  uint64_t u;
  switch (static_cast<edge::Field>(field_)) {
    case edge::kKind:
      if (v.kind != Scalar::kString) return errors_.type_error("a string", v);
      return intern_edge_kind(*v.s, &edge_.kind);
    case edge::kTo:
      errors_.get_opt_i64(v, &edge_.to);
      return true;
    case edge::kType:
      if (v.kind != Scalar::kString) return errors_.type_error("a string", v);
      intern_type(*v.s, /*strict=*/false, &edge_.type);
      return true;
    case edge::kHandle:
      errors_.get_handle(v, &edge_.handle);
      return true;
    case edge::kName:
      if (v.kind != Scalar::kString) return errors_.type_error("a string", v);
      intern_name(*v.s, &edge_.name);
      return true;
    case edge::kSlot:
      if (errors_.get_u64(v, &u)) edge_.slot = saturate<uint32_t>(u);
      return true;
    case edge::kOffset:
      errors_.get_u64(v, &edge_.offset);
      return true;
    case edge::kSize:
      errors_.get_u64(v, &edge_.size);
      return true;
    case edge::kCount:  // not a field
      return true;
  }
  return true;
}

bool SnapshotBuilder::instance_scalar(const Scalar& v) {
  switch (static_cast<instance::Field>(field_)) {
    case instance::kId:
      errors_.get_i64(v, &instance_.id);
      return true;
    case instance::kHandle:
      errors_.get_handle(v, &instance_.handle);
      return true;
    case instance::kApplication:
      errors_.get_opt_string(v, &instance_.application);
      return true;
    case instance::kEngine:
      errors_.get_opt_string(v, &instance_.engine);
      return true;
    case instance::kApiVersion:
      errors_.get_string(v, &instance_.api_version);
      return true;
    case instance::kCount:  // not a field
      return true;
  }
  return true;
}

bool SnapshotBuilder::device_scalar(const Scalar& v) {
  switch (static_cast<device::Field>(field_)) {
    case device::kId:
      errors_.get_i64(v, &device_.id);
      return true;
    case device::kHandle:
      errors_.get_handle(v, &device_.handle);
      return true;
    case device::kInstance:
      errors_.get_i64(v, &device_.instance);
      return true;
    case device::kPhysicalDevice:
      errors_.get_string(v, &device_.physical_device);
      return true;
    case device::kFrame:
      errors_.get_u64(v, &device_.frame);
      return true;
    case device::kSubmits:
      errors_.get_u64(v, &device_.submits);
      return true;
    case device::kPresents:
      errors_.get_u64(v, &device_.presents);
      return true;
    case device::kDegraded:
      errors_.get_bool(v, &device_.degraded);
      return true;
    case device::kFrameBoundary:
      errors_.get_string(v, &device_.frame_boundary);
      return true;
    case device::kFrameBoundaryAuto:
      errors_.get_bool(v, &device_.frame_boundary_auto);
      return true;
    case device::kQueues:
      return errors_.type_error("an array", v);
    case device::kCount:  // not a field
      return true;
  }
  return true;
}

bool SnapshotBuilder::queue_scalar(const Scalar& v) {
  switch (static_cast<queue::Field>(field_)) {
    case queue::kIndex:
      errors_.get_i64(v, &queue_.index);
      return true;
    case queue::kHandle:
      errors_.get_handle(v, &queue_.handle);
      return true;
    case queue::kSubmitted:
      errors_.get_u64(v, &queue_.submitted);
      return true;
    case queue::kRetired:
      errors_.get_u64(v, &queue_.retired);
      return true;
    case queue::kCount:  // not a field
      return true;
  }
  return true;
}

bool SnapshotBuilder::unwritten_scalar(const Scalar& v) {
  switch (static_cast<unwritten::Field>(field_)) {
    case unwritten::kSequence:
      if (v.kind != Scalar::kNull) {
        uint64_t u;
        if (errors_.get_u64(v, &u)) unwritten_.sequence = u;
      }
      return true;
    case unwritten::kReason:
      errors_.get_string(v, &unwritten_.reason);
      return true;
    case unwritten::kError:
      errors_.get_string(v, &unwritten_.error);
      return true;
    case unwritten::kCount:  // not a field
      return true;
  }
  return true;
}

bool SnapshotBuilder::destroyed_scalar(const Scalar& v) {
  switch (static_cast<destroyed::Field>(field_)) {
    case destroyed::kId:
      errors_.get_i64(v, &destroyed_.id);
      return true;
    case destroyed::kType:
      if (v.kind != Scalar::kString) return errors_.type_error("a string", v);
      intern_type(*v.s, /*strict=*/false, &destroyed_.type);
      return true;
    case destroyed::kHandle:
      errors_.get_handle(v, &destroyed_.handle);
      return true;
    case destroyed::kName:
      return intern_opt_name(v, &destroyed_.name);
    case destroyed::kOwner:
      errors_.get_i64(v, &destroyed_.owner);
      return true;
    case destroyed::kFrame:
      errors_.get_i64(v, &destroyed_.frame);
      return true;
    case destroyed::kDestroyedFrame:
      errors_.get_i64(v, &destroyed_.destroyed_frame);
      return true;
    case destroyed::kSize:
      errors_.get_i64(v, &destroyed_.size);
      return true;
    case destroyed::kCallsite:
      errors_.get_callsite(v, &destroyed_.callsite);
      return true;
    case destroyed::kDestroyCallsite:
      errors_.get_callsite(v, &destroyed_.destroy_callsite);
      return true;
    case destroyed::kCount:  // not a field
      return true;
  }
  return true;
}

bool SnapshotBuilder::event_scalar(const Scalar& v) {
  switch (static_cast<event::Field>(field_)) {
    case event::kKind:
      errors_.get_string(v, &event_.kind);
      return true;
    case event::kOwner:
      errors_.get_i64(v, &event_.owner);
      return true;
    case event::kType:
      errors_.get_string(v, &event_.type);
      return true;
    case event::kHandle:
      errors_.get_handle(v, &event_.handle);
      return true;
    case event::kObject:
      errors_.get_opt_i64(v, &event_.object);
      return true;
    case event::kName:
      errors_.get_opt_string(v, &event_.name);
      return true;
    case event::kFrame:
      errors_.get_i64(v, &event_.frame);
      return true;
    case event::kTimeMs:
      errors_.get_i64(v, &event_.time_ms);
      return true;
    case event::kMessage:
      errors_.get_string(v, &event_.message);
      return true;
    case event::kCallsite:
      errors_.get_callsite(v, &event_.callsite);
      return true;
    case event::kReason:
      errors_.get_string(v, &event_.reason);
      return true;
    case event::kBelongsTo:
      errors_.get_i64(v, &event_.belongs_to);
      return true;
    case event::kSubmission:
    case event::kCreated:
    case event::kFirstDestroy:
      return errors_.type_error("an object", v);
    case event::kPath:
      return errors_.type_error("an array", v);
    case event::kCount:  // not a field
      return true;
  }
  return true;
}

bool SnapshotBuilder::path_step_scalar(const Scalar& v) {
  switch (static_cast<path_step::Field>(field_)) {
    case path_step::kId:
      errors_.get_i64(v, &step_.id);
      return true;
    case path_step::kType:
      errors_.get_string(v, &step_.type);
      return true;
    case path_step::kName:
      errors_.get_opt_string(v, &step_.name);
      return true;
    case path_step::kRelation:
      errors_.get_string(v, &step_.relation);
      return true;
    case path_step::kCount:  // not a field
      return true;
  }
  return true;
}

bool SnapshotBuilder::module_scalar(const Scalar& v) {
  switch (static_cast<module::Field>(field_)) {
    case module::kPath:
      errors_.get_string(v, &module_.path);
      return true;
    case module::kBase:
      errors_.get_handle(v, &module_.base);
      return true;
    case module::kSize:
      errors_.get_u64(v, &module_.size);
      return true;
    case module::kBias:
      errors_.get_handle(v, &module_.bias);
      return true;
    case module::kBuildId: {
      std::optional<std::string> id;
      if (!errors_.get_opt_string(v, &id)) return true;
      module_.build_id = id.value_or("");
      std::transform(module_.build_id.begin(), module_.build_id.end(), module_.build_id.begin(),
                     [](char c) { return c >= 'A' && c <= 'F' ? char(c - 'A' + 'a') : c; });
      return true;
    }
    case module::kCount:  // not a field
      return true;
  }
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
