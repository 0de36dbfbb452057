// Out-edges of the objects of one scope: view -> image, framebuffer -> attachments, descriptor
// set -> what is written in each (binding, element) slot, buffer -> bound memory, ... Sharded by
// the source key; only objects that reference something have an entry.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "spin_lock.h"
#include "vk_object_types.h"

namespace vkleak {

struct Edge {
  const char* kind;   // member path ("image", "pAttachments", "memory", "descriptor", ...)
  uint64_t dst_id;    // 0 when the target was not live when the edge was made
  uint64_t dst_handle;
  uint64_t offset;    // memory bindings, buffer descriptors
  uint64_t size;
  uint32_t slot;      // array index, or the descriptor slot; edges with kSlotKeyed replace by slot
  uint32_t dst_name;  // target's debug name when the edge was made
  ObjectType dst_type;
  bool slot_keyed;    // descriptor writes and memory bindings: a new edge in the slot replaces
};

class EdgeStore {
 public:
  EdgeStore();
  // Adds edges of `src`; slot-keyed ones replace an existing edge of the same kind and slot.
  void add(uint64_t src, ObjectType type, const Edge* edges, size_t count);
  // Drops the slot-keyed edges of `kind` in `slot` (a descriptor copied from an empty slot).
  void remove_slot(uint64_t src, ObjectType type, const char* kind, uint32_t slot) noexcept;
  // Forgets every out-edge of `src` (at its destroy).
  void erase(uint64_t src, ObjectType type) noexcept;
  // Copies the edges of one source (empty when none).
  void get(uint64_t src, ObjectType type, std::vector<Edge>* out) const;
  // Calls f(src handle, src type, edge) for every edge (shard by shard, under its lock).
  template <typename F>
  void for_each(F&& f) const {
    for (uint32_t k = 0; k < kShards; ++k) {
      std::lock_guard<SpinLock> lock(shards_[k].mutex);
      for (const auto& [key, list] : shards_[k].edges)
        for (const Edge& e : list) f(key.handle, key.type, e);
    }
  }

 private:
  struct Key {
    uint64_t handle;
    ObjectType type;
    bool operator==(const Key& o) const { return handle == o.handle && type == o.type; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const noexcept {
      uint64_t x = k.handle ^ (static_cast<uint64_t>(k.type) << 56);
      x ^= x >> 33;
      x *= 0xff51afd7ed558ccdull;
      x ^= x >> 33;
      return static_cast<size_t>(x);
    }
  };
  static constexpr uint32_t kShards = 32;
  struct alignas(64) Shard {
    mutable SpinLock mutex;
    std::unordered_map<Key, std::vector<Edge>, KeyHash> edges;
  };
  Shard& shard_for(uint64_t handle, ObjectType type) const noexcept {
    return shards_[KeyHash{}(Key{handle, type}) % kShards];
  }
  std::unique_ptr<Shard[]> shards_;
};

}  // namespace vkleak
