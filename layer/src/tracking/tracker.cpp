// The object bookkeeping behind every hook (see tracker.h).
#include "tracking/tracker.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "base/passthrough.h"
#include "callsite/callsite.h"
#include "store/creation_context.h"
#include "store/names.h"
#include "store/recent_destroys.h"
#include "tracking/state.h"
#include "tracking/tracker_hot.h"

namespace vkleak {
namespace {

// Parents other than the scope, a pool or a swapchain go to the scope's ParentMap (rare).
bool needs_parent_entry(Scope& scope, uint64_t parent_handle, ObjectType parent_type) noexcept {
  if (parent_handle == 0 || owns_children(parent_type)) return false;
  return !(parent_handle == scope.handle && parent_type == scope.type);
}

uint64_t parent_id_of(Scope& scope, uint64_t parent_handle, ObjectType parent_type) noexcept {
  ObjectRecord rec;
  return target_scope(scope, parent_type).table.lookup(parent_handle, parent_type, &rec) ? rec.id
                                                                                         : 0;
}

// Destroying these while a pending submission uses them is invalid (VUID-*-in-use kinds).
bool use_matters(ObjectType t) noexcept {
  switch (t) {
    case ObjectType::kBuffer:
    case ObjectType::kBufferView:
    case ObjectType::kImage:
    case ObjectType::kImageView:
    case ObjectType::kSampler:
    case ObjectType::kPipeline:
    case ObjectType::kEvent:
    case ObjectType::kQueryPool:
    case ObjectType::kFramebuffer:
    case ObjectType::kRenderPass:
    case ObjectType::kDescriptorSet:
    case ObjectType::kCommandBuffer:
    case ObjectType::kDeviceMemory:
    case ObjectType::kAccelerationStructureKHR:
    case ObjectType::kAccelerationStructureNV:
      return true;
    default:
      return false;
  }
}

std::string name_of(uint32_t name) {
  return name_string(name);
}

std::string describe(ObjectType type, const std::string& name, uint64_t id) {
  std::string s = object_type_name(type);
  if (!name.empty()) s += " \"" + name + "\"";
  s += " (id " + std::to_string(id) + ")";
  return s;
}

std::atomic<uint32_t> g_in_flight_logged{0};
constexpr uint32_t kInFlightLogLimit = 20;

// The object stops being tracked: its edges go, it is remembered for stale edges and among the
// recent destroys (which take over its context and name references).
void forget(Scope& scope, const ObjectRecord& r, CallsiteId destroyed_at = kNoCallsite) noexcept {
  const auto frame = static_cast<uint32_t>(scope.frame.load(std::memory_order_relaxed));
  if (r.has_edges) scope.edges.erase(r.handle, static_cast<ObjectType>(r.type));
  release_name(inline_edge_name(r));  // the record's own edge (a view's image or buffer)
  if (r.referenced) {
    edge_targets_changed();
    // Stamped as creations are (Scope::creation_frame): before frame_boundary=auto decides, a
    // submit count that snapshots read as the frame it turns out to be.
    scope.graveyard.bury(r, scope.creation_frame.load(std::memory_order_relaxed), destroyed_at);
  }
  const ObjectType type = static_cast<ObjectType>(r.type);
  remember_destroy(scope.object_id, r.handle, type, r.id, r.context, r.name, frame, destroyed_at);
  if (type == ObjectType::kCommandBuffer && scope.type == ObjectType::kDevice)
    static_cast<DeviceState&>(scope).command_refs.destroy(r.handle);
  const ObjectType xml_parent = xml_parent_type(type);
  if (xml_parent != ObjectType::kDevice && xml_parent != ObjectType::kInstance &&
      !owns_children(xml_parent))
    scope.parents.erase(r.id);
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

// A destroy through the wrong device: the other device on which `handle` is a live object of
// `type`. Fills in the event's object, name, creation and owner.
bool find_owner_elsewhere(Scope& scope, ObjectType type, uint64_t handle, Event* e,
                          std::string* owner_name) {
  if (scope.type != ObjectType::kDevice) return false;
  const NamePin names;  // the record's name and context are read after its lock
  const ContextPin contexts;
  for (const auto& device : g_device_registry->all()) {
    if (device.get() == &scope) continue;
    ObjectRecord r;
    if (!device->table.lookup(handle, type, &r)) continue;
    const CreationContext made = context_of(r.context);
    e->object_id = r.id;
    e->name = name_of(r.name);
    e->has_created = true;
    e->created_frame = made.frame;
    e->created_callsite = made.callsite;
    e->belongs_to = device->object_id;
    ObjectRecord owner;
    if (device->instance &&
        device->instance->table.lookup(device->handle, ObjectType::kDevice, &owner))
      *owner_name = name_of(owner.name);
    return true;
  }
  return false;
}

}  // namespace

ObjectType child_type_of(ObjectType parent) noexcept {
  switch (parent) {
    case ObjectType::kDescriptorPool:
      return ObjectType::kDescriptorSet;
    case ObjectType::kCommandPool:
      return ObjectType::kCommandBuffer;
    case ObjectType::kSwapchainKHR:
      return ObjectType::kImage;
    default:
      return ObjectType::kUnknown;
  }
}

std::atomic<uint32_t> g_target_generation{1};

namespace hot {

__thread IdBlock t_ids __attribute__((tls_model("initial-exec"))) = {0, 0};

namespace {
constexpr uint64_t kIdBlock = 256;  // blocks start at 1 + k * kIdBlock

// The id blocks this thread took since its first checkpoint (the C API's vkleak_checkpoint):
// which later ids are its own. Only threads that took a checkpoint keep one; bounded. Kept
// through a pthread key, not TLS: the layer's TLS block is nearly all spent (thread_box.h).
struct BlockLog {
  static constexpr size_t kMax = 4096;  // a million creations
  std::vector<uint64_t> starts;         // a ring once full
  size_t next = 0;
};
pthread_key_t g_block_log_key;
std::atomic<bool> g_block_log_key_made{false};
BlockLog* block_log() noexcept {
  if (!g_block_log_key_made.load(std::memory_order_acquire)) return nullptr;
  return static_cast<BlockLog*>(pthread_getspecific(g_block_log_key));
}
}  // namespace

uint64_t next_id_block() noexcept {
  static std::atomic<uint64_t> next_block{1};
  IdBlock& b = t_ids;
  b.next = next_block.fetch_add(kIdBlock, std::memory_order_relaxed);
  b.end = b.next + kIdBlock;
  if (BlockLog* log = block_log()) {
    if (log->starts.size() < BlockLog::kMax) {
      log->starts.push_back(b.next);  // reserved at the checkpoint: no allocation here
    } else {
      log->starts[log->next] = b.next;
      log->next = (log->next + 1) % BlockLog::kMax;
    }
  }
  return b.next++;
}

uint64_t id_if_live(Scope& scope, ObjectType type, uint64_t handle) noexcept {
  ObjectRecord existing;
  return scope.table.lookup(handle, type, &existing) ? existing.id : 0;
}

void remember_parent(Scope& scope, uint64_t id, uint64_t handle, uint64_t parent_handle,
                     ObjectType parent_type) noexcept {
  try {
    if (owns_children(parent_type))
      scope.children.add(parent_handle, handle);
    else if (needs_parent_entry(scope, parent_handle, parent_type))
      scope.parents.set(id, parent_id_of(scope, parent_handle, parent_type));
  } catch (...) {
    scope.degraded.store(true, std::memory_order_relaxed);
  }
}

void not_inserted(Scope& scope, ObjectType type, uint64_t handle, bool retrieved,
                  ObjectTable::InsertResult result, ContextId context) noexcept {
  release_context(context);  // a live record keeps its own
  if (result == ObjectTable::InsertResult::kNoMemory) {
    scope.degraded.store(true, std::memory_order_relaxed);
    return;
  }
  if (retrieved) return;
  try {
    warn_once(std::string("duplicate:") + object_type_name(type),
              std::string("the driver returned a live ") + object_type_name(type) +
                  " handle again; counting references (logged once per type)");
    note_event(scope, format::name(format::EventKind::kDuplicateHandle).data(), type, handle, 0,
               "handle returned while live");
  } catch (...) {
    scope.degraded.store(true, std::memory_order_relaxed);
  }
}

void note_invalid_destroy(Scope& scope, ObjectType type, uint64_t handle, const char* what,
                          CallsiteId callsite) noexcept {
  try {
    Event e;
    e.kind = format::name(format::EventKind::kInvalidDestroy);
    e.type = type;
    e.handle = handle;
    e.frame = scope.frame.load(std::memory_order_relaxed);
    e.time_ms = now_ms();
    e.callsite = callsite;
    std::string message = std::string(what) + " of ";
    DestroyedInfo earlier;
    const DestroyLookup lookup = find_destroy(scope.object_id, handle, type, &earlier);
    if (lookup == DestroyLookup::kReused) {
      // Destroyed before, but by which object cannot be told: never name the wrong one.
      e.reason = format::name(format::InvalidDestroy::kAlreadyDestroyed).data();
      char hex[32];
      std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(handle));
      message += std::string(object_type_name(type)) + " " + hex +
                 ", already destroyed; the handle belonged to more than one object (destroyed "
                 "by different threads in one frame, or not all remembered: graveyard_size), "
                 "and which of them this was cannot be told";
    } else if (lookup == DestroyLookup::kFound) {
      e.reason = format::name(format::InvalidDestroy::kAlreadyDestroyed).data();
      e.object_id = earlier.id;
      e.name = earlier.name;
      e.has_created = true;
      e.created_frame = earlier.made.frame;
      e.created_callsite = earlier.made.callsite;
      e.has_first_destroy = true;
      e.first_destroy_frame = earlier.destroyed_frame;
      e.first_destroy_callsite = earlier.destroy_callsite;
      message += describe(type, e.name, e.object_id) + ", already destroyed at frame " +
                 std::to_string(earlier.destroyed_frame);
    } else if (std::string owner_name; find_owner_elsewhere(scope, type, handle, &e, &owner_name)) {
      e.reason = format::name(format::InvalidDestroy::kWrongDevice).data();
      message += describe(type, e.name, e.object_id) + " with the wrong device: it belongs to " +
                 describe(ObjectType::kDevice, owner_name, e.belongs_to);
    } else {
      e.reason = format::name(format::InvalidDestroy::kUnknownHandle).data();
      char hex[32];
      std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(handle));
      message += std::string("an unknown ") + object_type_name(type) + " " + hex +
                 " (never created, or destroyed before the last " +
                 std::to_string(graveyard_size()) + " destroys of a thread)";
    }
    e.message = std::move(message);
    scope.events.add(std::move(e));
  } catch (...) {
  }
}

void destroy_whole(Scope& scope, ObjectType type, uint64_t handle, const ObjectRecord& removed,
                   CallsiteId destroy_callsite) noexcept {
  if (removed.use_serial != 0) check_in_flight(scope, removed, "destroyed", destroy_callsite);
  if (owns_children(type)) free_children(scope, type, handle);
  forget(scope, removed, destroy_callsite);
}

}  // namespace hot

// A token: this thread's next id, and whether its current block is used up (then its next id
// comes from a block not taken yet). Never 0.
constexpr uint64_t kCheckpointExhausted = uint64_t{1} << 63;

uint64_t thread_checkpoint() noexcept {
  static std::once_flag key_once;
  try {
    std::call_once(key_once, [] {
      if (pthread_key_create(&hot::g_block_log_key,
                             [](void* p) { delete static_cast<hot::BlockLog*>(p); }) == 0)
        hot::g_block_log_key_made.store(true, std::memory_order_release);
    });
    if (!hot::g_block_log_key_made.load(std::memory_order_acquire)) return 0;
    if (!hot::block_log()) {
      auto log = std::make_unique<hot::BlockLog>();
      log->starts.reserve(hot::BlockLog::kMax);
      if (pthread_setspecific(hot::g_block_log_key, log.get()) != 0) return 0;
      log.release();  // the key's destructor frees it when this thread exits
    }
  } catch (...) {
    return 0;  // out of memory: no checkpoint
  }
  const hot::IdBlock& b = hot::t_ids;
  return b.next != b.end ? b.next : (b.next | kCheckpointExhausted);
}

std::vector<std::pair<uint64_t, uint64_t>> thread_ids_since(uint64_t checkpoint) {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  const hot::BlockLog* log = hot::block_log();
  if (checkpoint == 0 || !log) return ranges;
  const uint64_t from = checkpoint & ~kCheckpointExhausted;
  uint64_t first_block_end = from;  // the checkpoint's block, from the checkpoint on
  if (!(checkpoint & kCheckpointExhausted) && from != 0) {
    first_block_end = ((from - 1) / hot::kIdBlock + 1) * hot::kIdBlock + 1;
    ranges.emplace_back(from, first_block_end);
  }
  for (uint64_t start : log->starts)
    if (start >= first_block_end && start >= from)
      ranges.emplace_back(start, start + hot::kIdBlock);
  std::sort(ranges.begin(), ranges.end());
  return ranges;
}

uint64_t record_object(Scope& scope, ObjectType type, uint64_t handle, Origin origin,
                       uint64_t parent_handle, ObjectType parent_type, uint64_t size,
                       CallsiteId callsite, bool has_edges) noexcept {
  return hot::record(scope, type, handle, origin, parent_handle, parent_type, size, callsite,
                     has_edges);
}

void on_create(Scope& scope, ObjectType type, uint64_t handle, Origin origin,
               uint64_t parent_handle, ObjectType parent_type, uint64_t size,
               CallsiteId callsite) noexcept {
  hot::record(scope, type, handle, origin, parent_handle, parent_type, size, callsite, false);
}

void check_in_flight(Scope& scope, const ObjectRecord& r, const char* action,
                     CallsiteId callsite) noexcept {
  if (scope.type != ObjectType::kDevice || r.use_serial == 0) return;  // never submitted
  const ObjectType type = static_cast<ObjectType>(r.type);
  if (!use_matters(type)) return;
  auto& device = static_cast<DeviceState&>(scope);
  if (!device.submissions.in_flight(r)) return;
  try {
    const NamePin pin;  // the path's name ids are read after their records' locks
    Event e;
    e.kind = format::name(format::EventKind::kDestroyedInFlight);
    e.type = type;
    e.handle = r.handle;
    e.object_id = r.id;
    e.frame = device.frame.load(std::memory_order_relaxed);
    e.time_ms = now_ms();
    e.name = name_of(r.name);
    e.queue = r.use_queue;
    e.serial = r.use_serial;
    e.use_frame = r.use_frame;
    e.callsite = callsite != kNoCallsite ? callsite : capture_stack_here();
    const CreationContext made = context_of(r.context);  // the record still holds it
    e.has_created = true;
    e.created_frame = made.frame;
    e.created_callsite = made.callsite;
    std::string msg = describe(type, e.name, r.id) + " " + action + " while in flight";
    for (const auto& step : device.submissions.explain(device, r)) {
      std::string step_name = name_of(step.name);
      e.path.push_back({step.id, step.type, step_name, step.relation});
      msg += std::string(", ") + step.relation + " " + describe(step.type, step_name, step.id);
    }
    msg += ", submitted at frame " + std::to_string(reported_creation_frame(device, r.use_frame)) +
           " (queue " + std::to_string(r.use_queue) + ", submission " +
           std::to_string(r.use_serial) + "), not proven complete";
    e.message = msg;
    if (g_in_flight_logged.fetch_add(1, std::memory_order_relaxed) < kInFlightLogLimit)
      log().warn("{}", msg);
    else if (g_in_flight_logged.load(std::memory_order_relaxed) == kInFlightLogLimit + 1)
      log().warn("more objects destroyed in flight: see the snapshots' events");
    scope.events.add(std::move(e));
  } catch (...) {
  }
}

void free_children(Scope& scope, ObjectType parent_type, uint64_t parent) noexcept {
  const ObjectType child_type = child_type_of(parent_type);
  const char* action = parent_type == ObjectType::kSwapchainKHR ? "released with its swapchain"
                                                                : "freed with its pool";
  try {
    for (uint64_t child : scope.children.take_all(parent)) {
      ObjectRecord removed;
      // A child with a duplicated handle goes entirely with its pool.
      bool any = false;
      while (scope.table.erase(child, child_type, &removed)) {
        any = true;
        if (removed.refs <= 1) break;
      }
      if (!any) continue;
      if (parent_type != ObjectType::kSwapchainKHR) check_in_flight(scope, removed, action);
      forget(scope, removed);
    }
  } catch (...) {
    scope.degraded.store(true, std::memory_order_relaxed);
  }
}

void on_free_from_pool(Scope& scope, ObjectType pool_type, uint64_t pool, uint64_t child) noexcept {
  if (pool_type == ObjectType::kDescriptorPool)
    hot::free_from_pool(scope, ObjectType::kDescriptorPool, pool, child);
  else
    hot::free_from_pool(scope, ObjectType::kCommandPool, pool, child);
}

namespace hot {

void free_whole(Scope& scope, const ObjectRecord& removed) noexcept {
  if (removed.use_serial != 0) check_in_flight(scope, removed, "freed");
  forget(scope, removed);
}

}  // namespace hot

void on_size_known(Scope& scope, ObjectType type, uint64_t handle, uint64_t size) noexcept {
  if (passthrough()) return;
  scope.table.update(handle, type, [size](ObjectRecord& r) { r.size = size; });
}

void on_pool_create_flags(Scope& scope, uint64_t pool, uint32_t flags) noexcept {
  if (passthrough() || flags == 0) return;
  scope.table.update(pool, ObjectType::kDescriptorPool,
                     [flags](ObjectRecord& r) { r.memory_slot = flags; });
}

void on_name(Scope& scope, ObjectType type, uint64_t handle, const char* name) noexcept {
  if (passthrough() || type == ObjectType::kUnknown) return;
  const uint32_t id = intern_name(name);  // the record's reference
  uint32_t old = 0;
  bool referenced = false;
  const bool live = scope.table.update(handle, type, [&](ObjectRecord& r) {
    old = r.name;
    r.name = id;
    referenced = r.referenced;
  });
  release_name(live ? old : id);
  if (referenced) edge_targets_changed();  // edges made from now on carry the new name
}

}  // namespace vkleak
