// Which children a parent owns implicitly: a descriptor pool's sets, a command pool's command
// buffers, a swapchain's images. Lets implicit frees (pool destroy/reset, swapchain destroy) cost
// O(children) instead of a scan of the whole table. Sharded by parent handle.
#pragma once

#include <algorithm>
#include <atomic>
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

// Each parent's children are numbered slots (a handle, 0 = free) with a stack of free slots:
// adding takes a free slot, and a child that keeps its slot number (pool children keep it in
// their record, ObjectRecord::memory_offset) is removed without hashing or searching it. Slot
// numbers are 1-based; 0 means none. Issue 28: a HandleSet per parent cost a hash probe on
// every allocate and free of a descriptor set.
//
// A pool's list is written without the shard's lock (`synchronized_parent`): Vulkan requires
// the app to synchronize a pool's allocations, frees, resets and destroy externally, so one
// thread at a time writes it, and its slots are atomics in segments that never move, read
// under the shard's lock by snapshots (for_each). The list is found through a small cache of
// (parent, list) entries, each read lock-free under a version word (written, on a miss, under
// the shard's lock after claiming the entry; cleared when the parent's list is taken). The
// shard's lock, a locked exchange of ~5 ns on every allocate and free (bench/RESULTS.md), then
// guards only the map of parents and the misses. Other parents (swapchains) take the lock.
class ChildIndex {
 public:
  ChildIndex();
  ChildIndex(const ChildIndex&) = delete;
  ChildIndex& operator=(const ChildIndex&) = delete;
  // Adds `child` under `parent`; returns its slot. Throws std::bad_alloc (nothing added).
  // Inline, the pool's usual case: its list cached and a free slot to reuse (every allocate
  // and free of a descriptor set comes here; out-of-line calls were a fifth of its cost).
  __attribute__((always_inline)) uint32_t add(uint64_t parent, uint64_t child,
                                              bool synchronized_parent = false) {
    if (synchronized_parent) {
      if (Children* list = cached(parent)) {
        if (const uint32_t slot = list->push_free(child)) return slot;
      }
    }
    return add_slow(parent, child, synchronized_parent);
  }
  // Removes `child` from `parent`: at `slot` when it is there (O(1)), else found by a search.
  __attribute__((always_inline)) void remove(uint64_t parent, uint64_t child, uint32_t slot = 0,
                                             bool synchronized_parent = false) noexcept {
    if (synchronized_parent) {
      if (Children* list = cached(parent)) {
        if (list->take_fast(child, slot)) return;
      }
    }
    remove_slow(parent, child, slot, synchronized_parent);
  }
  // Calls f(parent, child) for every pair, shard by shard under its lock.
  template <typename F>
  void for_each(F&& f) const {
    for (uint32_t k = 0; k < kShards; ++k) {
      std::lock_guard<SpinLock> lock(shards_[k].mutex);
      for (const auto& [parent, list] : shards_[k].children)
        list->for_each([&](uint64_t child) { f(parent, child); });
    }
  }
  // Removes the parent's entry and returns its children.
  std::vector<uint64_t> take_all(uint64_t parent);
  // The parent's children, left in place (their slots unchanged).
  std::vector<uint64_t> children_of(uint64_t parent) const;

  // One parent's slots: segment k holds kFirst << k of them (slot i + 1 at index i); segments
  // are made by the writer and never move, so a reader needs only `used` (acquire).
  class Children {
   public:
    ~Children();
    uint32_t push(uint64_t child);                      // writer; throws std::bad_alloc
    bool take(uint64_t child, uint32_t slot) noexcept;  // writer; false: not at `slot`
    // push() when a freed slot can be reused (0: none, push instead).
    __attribute__((always_inline)) uint32_t push_free(uint64_t child) noexcept {
      if (free_.empty()) return 0;
      const uint32_t slot = free_.back();
      free_.pop_back();
      at(slot - 1).store(child, std::memory_order_relaxed);
      return slot;
    }
    // take() when the freed slot's number fits the free stack's capacity (false: take instead).
    __attribute__((always_inline)) bool take_fast(uint64_t child, uint32_t slot) noexcept {
      if (slot == 0 || slot > used_.load(std::memory_order_relaxed) ||
          free_.size() == free_.capacity())
        return false;
      std::atomic<uint64_t>& at_slot = at(slot - 1);
      if (at_slot.load(std::memory_order_relaxed) != child) return false;
      at_slot.store(0, std::memory_order_relaxed);
      free_.push_back(slot);  // within capacity: no allocation
      return true;
    }
    bool take_by_search(uint64_t child) noexcept;  // writer
    template <typename F>
    void for_each(F&& f) const {
      const uint32_t n = used_.load(std::memory_order_acquire);
      for (uint32_t i = 0; i < n; ++i)
        if (const uint64_t v = at(i).load(std::memory_order_relaxed)) f(v);
    }

   private:
    static constexpr uint32_t kFirst = 64;
    static constexpr int kSegments = 26;  // 64 * (2^26 - 1) slots: every uint32_t slot number
    static void locate(uint32_t i, int* segment, uint32_t* offset) noexcept {
      const uint32_t j = i / kFirst + 1;
      *segment = 31 - __builtin_clz(j);
      *offset = i - kFirst * ((1u << *segment) - 1);
    }
    std::atomic<uint64_t>& at(uint32_t i) const noexcept {
      // Most pools hold fewer than kFirst children at once: their slots are all in segment 0.
      if (__builtin_expect(i < kFirst, 1)) return segments_[0].load(std::memory_order_acquire)[i];
      int k;
      uint32_t off;
      locate(i, &k, &off);
      return segments_[k].load(std::memory_order_acquire)[off];
    }
    void release(std::atomic<uint64_t>& at_slot, uint32_t slot) noexcept;
    mutable std::atomic<std::atomic<uint64_t>*> segments_[kSegments] = {};
    std::atomic<uint32_t> used_{0};
    std::vector<uint32_t> free_;  // free slot numbers; the writer's only
  };

 private:
  static constexpr uint32_t kShards = 16;
  struct alignas(64) Shard {
    mutable SpinLock mutex;
    std::unordered_map<uint64_t, std::unique_ptr<Children>> children;  // nodes do not move
    // The parent used last on the locked path: skips the map's lookup.
    uint64_t last_parent = 0;
    Children* last_list = nullptr;
    Children* find(uint64_t parent) noexcept;
    Children* find_or_make(uint64_t parent);
  };
  // One cache entry: `version` odd while it is rewritten.
  struct alignas(32) CacheEntry {
    std::atomic<uint64_t> version{0};
    std::atomic<uint64_t> parent{0};
    std::atomic<Children*> list{nullptr};
  };
  static constexpr uint32_t kCacheEntries = 64;
  static uint32_t cache_index(uint64_t parent) noexcept {
    return static_cast<uint32_t>((parent * 0x9e3779b97f4a7c15ull) >> 40) & (kCacheEntries - 1);
  }
  Shard& shard_for(uint64_t parent) const noexcept;
  uint32_t add_slow(uint64_t parent, uint64_t child, bool synchronized_parent);
  void remove_slow(uint64_t parent, uint64_t child, uint32_t slot,
                   bool synchronized_parent) noexcept;
  // `parent`'s list, or null (a miss). A seqlock's read without fences (TSan has none): the
  // data loads are acquires, so the second version load cannot move before them, and a pair
  // written by a writer that had made the version odd (its stores are releases) shows that
  // version.
  __attribute__((always_inline)) Children* cached(uint64_t parent) const noexcept {
    const CacheEntry& e = cache_[cache_index(parent)];
    const uint64_t v = e.version.load(std::memory_order_acquire);
    if (e.parent.load(std::memory_order_acquire) != parent) return nullptr;
    Children* list = e.list.load(std::memory_order_acquire);
    // Unchanged and not being rewritten: the pair was read whole. A list in the cache is freed
    // only by take_all of its parent, which the app does not run while it uses the parent.
    return (v & 1) == 0 && e.version.load(std::memory_order_relaxed) == v ? list : nullptr;
  }
  void cache(uint64_t parent, Children* list) noexcept;  // list null: forget `parent`
  std::unique_ptr<Shard[]> shards_;
  std::unique_ptr<CacheEntry[]> cache_;
};

}  // namespace vkleak
