#include "tracking/command_refs.h"

#include "base/passthrough.h"
#include "base/thread_box.h"
#include "tracking/state.h"
#include "tracking/tracker.h"

namespace vkleak {

std::atomic<uint64_t> g_command_refs_generation{1};

namespace {

uint64_t ref_key(ObjectType type, uint64_t handle) noexcept {
  uint64_t x = handle ^ (static_cast<uint64_t>(type) * 0x9e3779b97f4a7c15ull);
  x ^= x >> 31;
  return x ? x : 1;
}

// Types whose destruction while a submission uses them is legal (only the recording state
// matters to them): not worth a reference.
bool worth_referencing(ObjectType t) noexcept {
  switch (t) {
    case ObjectType::kPipelineLayout:
    case ObjectType::kDescriptorSetLayout:
    case ObjectType::kShaderModule:
    case ObjectType::kDescriptorUpdateTemplate:
    case ObjectType::kPipelineCache:
      return false;
    default:
      return true;
  }
}

struct RefsCache {
  const DeviceState* device = nullptr;
  uint64_t cb = 0;
  uint64_t generation = 0;
  CommandRefs* refs = nullptr;
};
using RefsCacheBox = ThreadBox<RefsCache>;  // on the heap (thread_box.h)

}  // namespace

void CommandRefs::add(ObjectType type, uint64_t handle) noexcept {
  if (handle == 0 || !worth_referencing(type)) return;
  try {
    if (!seen_.insert(ref_key(type, handle))) return;  // already referenced in this recording
    ObjectRecord rec;
    uint64_t id = device_->table.lookup(handle, type, &rec) ? rec.id : 0;
    refs_.push_back({handle, id, type});
  } catch (...) {
    device_->degraded.store(true, std::memory_order_relaxed);
  }
}

void CommandRefs::add_secondary(VkCommandBuffer cb) noexcept {
  try {
    secondaries_.push_back(cb);
  } catch (...) {
    device_->degraded.store(true, std::memory_order_relaxed);
  }
}

CommandRefsRegistry::CommandRefsRegistry() : shards_(new Shard[kShards]) {}

void CommandRefsRegistry::create(DeviceState* device, uint64_t cb, bool secondary) {
  Shard& s = shard_for(cb);
  std::lock_guard<std::mutex> lock(s.mutex);
  s.map[cb] = std::make_unique<CommandRefs>(device, secondary);
  g_command_refs_generation.fetch_add(1, std::memory_order_relaxed);
}

void CommandRefsRegistry::destroy(uint64_t cb) noexcept {
  std::unique_ptr<CommandRefs> dead;
  {
    Shard& s = shard_for(cb);
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.map.find(cb);
    if (it == s.map.end()) return;
    dead = std::move(it->second);
    s.map.erase(it);
  }
  g_command_refs_generation.fetch_add(1, std::memory_order_release);
}

CommandRefs* CommandRefsRegistry::find(uint64_t cb) const noexcept {
  Shard& s = shard_for(cb);
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.map.find(cb);
  return it == s.map.end() ? nullptr : it->second.get();
}

CommandRefs* command_refs(DeviceState& device, VkCommandBuffer cb) noexcept {
  if (passthrough()) return nullptr;
  const uint64_t handle = to_u64(cb);
  const uint64_t gen = g_command_refs_generation.load(std::memory_order_acquire);
  RefsCache* c = RefsCacheBox::get();
  if (c && c->device == &device && c->cb == handle && c->generation == gen) return c->refs;
  CommandRefs* refs = device.command_refs.find(handle);
  if (c) *c = {&device, handle, gen, refs};
  return refs;
}

void add_ref(CommandRefs* refs, ObjectType type, uint64_t handle) noexcept {
  if (refs) refs->add(type, handle);
}

void add_secondary(CommandRefs* refs, VkCommandBuffer secondary) noexcept {
  if (refs && secondary) refs->add_secondary(secondary);
}

}  // namespace vkleak
