// What each command buffer references, recorded by the vkCmd* hooks.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "store/child_index.h"
#include "vk_object_types.h"

namespace vkleak {

struct DeviceState;

struct CommandRef {
  uint64_t handle;
  uint64_t id;  // the object's id when recorded: a later object with the reused handle is not it
  ObjectType type;
};

// What a command buffer references while it is being recorded: deduplicated, stored in a
// per-command-buffer list that is reused across recordings (no allocation per command in
// steady state). Cleared by vkBeginCommandBuffer, vkResetCommandBuffer and vkResetCommandPool.
class CommandRefs {
 public:
  CommandRefs(DeviceState* device, bool secondary) : device_(device), secondary_(secondary) {}
  bool secondary() const noexcept { return secondary_; }
  void clear() noexcept {
    refs_.clear();
    seen_.clear();
    secondaries_.clear();
  }
  void add(ObjectType type, uint64_t handle) noexcept;
  void add_secondary(VkCommandBuffer cb) noexcept;
  const std::vector<CommandRef>& refs() const noexcept { return refs_; }
  const std::vector<VkCommandBuffer>& secondaries() const noexcept { return secondaries_; }

 private:
  DeviceState* device_;
  bool secondary_;
  std::vector<CommandRef> refs_;  // unique, in first-use order; capacity kept across recordings
  HandleSet seen_;
  std::vector<VkCommandBuffer> secondaries_;
};

class CommandRefsRegistry {
 public:
  CommandRefsRegistry();
  void create(DeviceState* device, uint64_t cb, bool secondary);
  void destroy(uint64_t cb) noexcept;
  CommandRefs* find(uint64_t cb) const noexcept;

 private:
  static constexpr uint32_t kShards = 16;
  struct alignas(64) Shard {
    mutable std::mutex mutex;
    std::unordered_map<uint64_t, std::unique_ptr<CommandRefs>> map;
  };
  std::unique_ptr<Shard[]> shards_;
  Shard& shard_for(uint64_t cb) const noexcept { return shards_[(cb >> 4) % kShards]; }
};

// Bumped whenever a CommandRefs goes away, so per-thread caches never hand out a stale one.
extern std::atomic<uint64_t> g_command_refs_generation;

// The references list of a command buffer being recorded; null when the command buffer is not
// tracked (the hooks then just call down). Cheap: a per-thread cache of the last one.
CommandRefs* command_refs(DeviceState& device, VkCommandBuffer cb) noexcept;

// Adds one reference (a handle the command uses). VK_NULL_HANDLE is ignored.
void add_ref(CommandRefs* refs, ObjectType type, uint64_t handle) noexcept;

// A secondary command buffer executed by a primary (vkCmdExecuteCommands): its references are
// merged at submit.
void add_secondary(CommandRefs* refs, VkCommandBuffer secondary) noexcept;

}  // namespace vkleak
