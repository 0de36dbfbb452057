// The values of each object of the format into the records being read: one function per
// object kind, each a switch over the contract's fields (a field the contract gains and the
// reader does not read fails to compile, -Wswitch).
#include <algorithm>
#include <cstdint>

#include "core/snapshot_builder.h"

namespace vkleak::reader_detail {

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
    case Ctx::kMemoryBudget:
      return memory_budget_scalar(v);
    case Ctx::kHeap:
      return heap_scalar(v);
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

bool SnapshotBuilder::top_scalar(const Scalar& v) {
  switch (static_cast<top::Field>(field_)) {
    case top::kPid:
      errors_.get_u64(v, &snap_.pid);
      return true;
    case top::kExecutable:
      errors_.get_string(v, &snap_.executable);
      return true;
    case top::kRunId:
      if (errors_.get_string(v, &snap_.run_id) && !format::is_run_id(snap_.run_id)) {
        return errors_.type_error("a run id (16 lowercase hex digits)", v);
      }
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
    case object::kCreateFlags:
      if (errors_.get_u64(v, &u)) object_.create_flags = static_cast<uint16_t>(u);
      return true;
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
    case device::kMemoryBudget:
      return errors_.type_error("an object", v);
    case device::kCount:  // not a field
      return true;
  }
  return true;
}

bool SnapshotBuilder::memory_budget_scalar(const Scalar& v) {
  MemoryBudget& b = device_.memory_budget;
  uint64_t u = 0;
  switch (static_cast<memory_budget::Field>(field_)) {
    case memory_budget::kStatus:
      if (v.kind == Scalar::kString && format::parse(*v.s, &b.status)) return true;
      return errors_.type_error(one_of(format::kHeapBudgetStatusNames).c_str(), v);
    case memory_budget::kEnabledBy: {
      format::HeapBudgetEnabledBy by{};
      if (v.kind == Scalar::kString && format::parse(*v.s, &by)) {
        b.enabled_by = by;
        return true;
      }
      return errors_.type_error(one_of(format::kHeapBudgetEnabledByNames).c_str(), v);
    }
    case memory_budget::kFrame:
      if (errors_.get_u64(v, &u)) b.frame = u;
      return true;
    case memory_budget::kTimeMs:
      if (errors_.get_u64(v, &u)) b.time_ms = u;
      return true;
    case memory_budget::kHeaps:
      return errors_.type_error("an array", v);
    case memory_budget::kCount:  // not a field
      return true;
  }
  return true;
}

bool SnapshotBuilder::heap_scalar(const Scalar& v) {
  uint64_t u = 0;
  switch (static_cast<heap::Field>(field_)) {
    case heap::kIndex:
      if (errors_.get_u64(v, &u))
        heap_.index = static_cast<uint32_t>(std::min<uint64_t>(u, 1u << 31));
      return true;
    case heap::kSize:
      errors_.get_u64(v, &heap_.size);
      return true;
    case heap::kDeviceLocal:
      errors_.get_bool(v, &heap_.device_local);
      return true;
    case heap::kBudget:
      if (errors_.get_u64(v, &u)) heap_.budget = u;
      return true;
    case heap::kUsage:
      if (errors_.get_u64(v, &u)) heap_.usage = u;
      return true;
    case heap::kCount:  // not a field
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

}  // namespace vkleak::reader_detail
