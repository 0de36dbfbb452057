// Which children a parent owns implicitly: a descriptor pool's sets, a command pool's command
// buffers, a swapchain's images. Lets implicit frees (pool destroy/reset, swapchain destroy) cost
// O(children) instead of a scan of the whole table. Sharded by parent handle.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "base/spin_lock.h"

namespace vkleak {

// A compact set of non-zero 64-bit values: open addressing, backward-shift deletion.
class HandleSet {
 public:
  bool insert(uint64_t v);
  bool erase(uint64_t v) noexcept;
  size_t size() const noexcept { return size_; }
  bool contains(uint64_t v) const noexcept;
  // Empties the set, keeping its capacity (no allocation when refilled to the same size).
  void clear() noexcept {
    std::fill(slots_.begin(), slots_.end(), 0);
    size_ = 0;
  }
  template <typename F>
  void for_each(F&& f) const {
    for (uint64_t v : slots_)
      if (v) f(v);
  }

 private:
  size_t home(uint64_t v) const noexcept;
  std::vector<uint64_t> slots_;
  size_t size_ = 0;
};

// Each parent's children are a list of slots (a handle, 0 = free) with a stack of free slots:
// adding takes a free slot, and a child that keeps its slot number (pool children keep it in
// their record, ObjectRecord::memory_offset) is removed without hashing or searching it. Slot
// numbers are 1-based; 0 means none. Issue 28: a HandleSet per parent cost a hash probe on
// every allocate and free of a descriptor set.
class ChildIndex {
 public:
  ChildIndex();
  // Adds `child` under `parent`; returns its slot. Throws std::bad_alloc (nothing added).
  uint32_t add(uint64_t parent, uint64_t child);
  // Removes `child` from `parent`: at `slot` when it is there (O(1)), else found by a search.
  void remove(uint64_t parent, uint64_t child, uint32_t slot = 0) noexcept;
  // Calls f(parent, child) for every pair, shard by shard under its lock.
  template <typename F>
  void for_each(F&& f) const {
    for (uint32_t k = 0; k < kShards; ++k) {
      std::lock_guard<SpinLock> lock(shards_[k].mutex);
      for (const auto& [parent, list] : shards_[k].children)
        for (uint64_t child : list.slots)
          if (child) f(parent, child);
    }
  }
  // Removes the parent's entry and returns its children.
  std::vector<uint64_t> take_all(uint64_t parent);
  // The parent's children, left in place (their slots unchanged).
  std::vector<uint64_t> children_of(uint64_t parent) const;

 private:
  static constexpr uint32_t kShards = 16;
  struct Children {
    std::vector<uint64_t> slots;  // slot i + 1 holds slots[i]; 0 = free
    std::vector<uint32_t> free;   // free slot numbers
  };
  struct alignas(64) Shard {
    mutable SpinLock mutex;
    std::unordered_map<uint64_t, Children> children;
    // The parent used last (allocations come from one pool in a row): skips the map's lookup.
    // Map nodes do not move; the entry is cleared when its parent's list is taken.
    uint64_t last_parent = 0;
    Children* last_list = nullptr;
    Children* find(uint64_t parent) noexcept;
  };
  Shard& shard_for(uint64_t parent) const noexcept;
  std::unique_ptr<Shard[]> shards_;
};

}  // namespace vkleak
