// The object bookkeeping behind every hook (see tracker.h).
#include "tracker.h"

#include <atomic>

#include "callsite.h"
#include "layer_state.h"
#include "log.h"
#include "names.h"
#include "tracker_internal.h"

namespace vkleak {
namespace {

// Ids are handed out in per-thread blocks so that threads creating concurrently do not bounce
// one cache line; within a thread they follow creation order.
constexpr uint64_t kIdBlock = 256;
std::atomic<uint64_t> g_next_id_block{1};
thread_local uint64_t t_next_id = 0;
thread_local uint64_t t_id_end = 0;

uint64_t next_id() noexcept {
  if (t_next_id == t_id_end) {
    t_next_id = g_next_id_block.fetch_add(kIdBlock, std::memory_order_relaxed);
    t_id_end = t_next_id + kIdBlock;
  }
  return t_next_id++;
}

uint64_t parent_id_of(Scope& scope, uint64_t parent_handle, ObjectType parent_type) noexcept {
  if (parent_handle == 0) return 0;
  if (parent_handle == scope.handle && parent_type == scope.type) return scope.object_id;
  ObjectRecord rec;
  if (scope.table.lookup(parent_handle, parent_type, &rec)) return rec.id;
  if (parent_type == ObjectType::kPhysicalDevice || parent_type == ObjectType::kInstance) {
    // A device-scope object made from the physical device: it lives in the instance's table.
    if (scope.type == ObjectType::kDevice) {
      auto& dev = static_cast<DeviceState&>(scope);
      if (dev.instance && dev.instance->table.lookup(parent_handle, parent_type, &rec)) return rec.id;
    }
  }
  return 0;
}

void note_event(Scope& scope, const char* kind, ObjectType type, uint64_t handle,
                uint64_t object_id, std::string message) noexcept {
  Event e;
  e.kind = kind;
  e.type = type;
  e.handle = handle;
  e.object_id = object_id;
  e.frame = scope.frame.load(std::memory_order_relaxed);
  e.time_ms = now_ms();
  e.message = std::move(message);
  scope.events.add(std::move(e));
}

}  // namespace

bool owns_children(ObjectType parent) noexcept {
  return parent == ObjectType::kDescriptorPool || parent == ObjectType::kCommandPool ||
         parent == ObjectType::kSwapchainKHR;
}

ObjectType child_type_of(ObjectType parent) noexcept {
  switch (parent) {
    case ObjectType::kDescriptorPool: return ObjectType::kDescriptorSet;
    case ObjectType::kCommandPool: return ObjectType::kCommandBuffer;
    case ObjectType::kSwapchainKHR: return ObjectType::kImage;
    default: return ObjectType::kUnknown;
  }
}

CallsiteId capture_callsite() noexcept {
  if (passthrough()) return kNoCallsite;
  return capture_and_intern();
}

uint64_t record_object(Scope& scope, ObjectType type, uint64_t handle, Origin origin,
                       uint64_t parent_handle, ObjectType parent_type, uint64_t size,
                       CallsiteId callsite) noexcept {
  if (handle == 0 || passthrough()) return 0;
  try {
    const bool retrieved = origin == Origin::kRetrieved || origin == Origin::kSwapchainImage;
    ObjectRecord existing;
    if (retrieved && scope.table.lookup(handle, type, &existing)) return existing.id;
    ObjectRecord r{};
    r.handle = handle;
    r.parent_id = parent_id_of(scope, parent_handle, parent_type);
    r.size = size;
    r.id = next_id();
    r.type = static_cast<uint64_t>(type);
    r.origin = static_cast<uint64_t>(origin);
    r.frame = static_cast<uint32_t>(scope.frame.load(std::memory_order_relaxed));
    r.time_ms = now_ms();
    r.callsite = callsite;
    r.name = 0;
    if (scope.table.insert(r, !retrieved) == ObjectTable::InsertResult::kAlreadyLive) {
      if (!retrieved) {
        warn_once(std::string("duplicate:") + object_type_name(type),
                  std::string("the driver returned a live ") + object_type_name(type) +
                      " handle again; counting references (logged once per type)");
        note_event(scope, "duplicate_handle", type, handle, 0, "handle returned while live");
      }
      return 0;
    }
    if (owns_children(parent_type)) scope.children.add(parent_handle, handle);
    return r.id;
  } catch (...) {
    scope.degraded.store(true, std::memory_order_relaxed);
    return 0;
  }
}

void on_create(Scope& scope, ObjectType type, uint64_t handle, Origin origin,
               uint64_t parent_handle, ObjectType parent_type, uint64_t size,
               CallsiteId callsite) noexcept {
  record_object(scope, type, handle, origin, parent_handle, parent_type, size, callsite);
}

void free_children(Scope& scope, ObjectType parent_type, uint64_t parent) noexcept {
  const ObjectType child_type = child_type_of(parent_type);
  try {
    for (uint64_t child : scope.children.take_all(parent)) {
      ObjectRecord removed;
      // A child with a duplicated handle goes entirely with its pool.
      while (scope.table.erase(child, child_type, &removed) && removed.refs > 1) {
      }
    }
  } catch (...) {
    scope.degraded.store(true, std::memory_order_relaxed);
  }
}

void on_destroy(Scope& scope, ObjectType type, uint64_t handle) noexcept {
  if (handle == 0 || passthrough()) return;
  ObjectRecord removed;
  if (!scope.table.erase(handle, type, &removed)) {
    note_event(scope, "invalid_destroy", type, handle, 0,
               std::string("destroy of an unknown or already destroyed ") + object_type_name(type));
    return;
  }
  if (removed.refs > 1) return;  // a duplicate handle: still live once more
  if (owns_children(type)) free_children(scope, type, handle);
}

void on_free_from_pool(Scope& scope, ObjectType pool_type, uint64_t pool, uint64_t child) noexcept {
  if (child == 0 || passthrough()) return;
  const ObjectType child_type = child_type_of(pool_type);
  ObjectRecord removed;
  if (!scope.table.erase(child, child_type, &removed)) {
    note_event(scope, "invalid_destroy", child_type, child, 0,
               std::string("free of an unknown or already freed ") + object_type_name(child_type));
    return;
  }
  if (removed.refs <= 1) scope.children.remove(pool, child);
}

void on_size_known(Scope& scope, ObjectType type, uint64_t handle, uint64_t size) noexcept {
  if (passthrough()) return;
  scope.table.update(handle, type, [size](ObjectRecord& r) { r.size = size; });
}

void on_name(Scope& scope, ObjectType type, uint64_t handle, const char* name) noexcept {
  if (passthrough() || type == ObjectType::kUnknown) return;
  const uint32_t id = intern_name(name);
  scope.table.update(handle, type, [id](ObjectRecord& r) { r.name = id; });
}

}  // namespace vkleak
