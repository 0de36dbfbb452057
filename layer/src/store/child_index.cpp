#include "store/child_index.h"

#include <algorithm>
#include <new>

namespace vkleak {

namespace {
uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}
}  // namespace

size_t HandleSet::home(uint64_t v) const noexcept {
  return mix(v) & (slots_.size() - 1);
}

bool HandleSet::insert(uint64_t v) {
  if ((size_ + 1) * 4 > slots_.size() * 3) {
    std::vector<uint64_t> old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 8 : old.size() * 2, 0);
    size_ = 0;
    for (uint64_t o : old)
      if (o) insert(o);
  }
  const size_t mask = slots_.size() - 1;
  for (size_t i = home(v);; i = (i + 1) & mask) {
    if (slots_[i] == v) return false;
    if (slots_[i] == 0) {
      slots_[i] = v;
      size_++;
      return true;
    }
  }
}

bool HandleSet::contains(uint64_t v) const noexcept {
  if (slots_.empty()) return false;
  const size_t mask = slots_.size() - 1;
  for (size_t i = home(v); slots_[i] != 0; i = (i + 1) & mask)
    if (slots_[i] == v) return true;
  return false;
}

bool HandleSet::erase(uint64_t v) noexcept {
  if (slots_.empty()) return false;
  const size_t mask = slots_.size() - 1;
  size_t i = home(v);
  while (slots_[i] != v) {
    if (slots_[i] == 0) return false;
    i = (i + 1) & mask;
  }
  // Backward-shift: pull later members of the probe run into the hole.
  size_t hole = i;
  for (size_t j = (hole + 1) & mask; slots_[j] != 0; j = (j + 1) & mask) {
    size_t h = home(slots_[j]);
    bool movable = (hole <= j) ? (h <= hole || h > j) : (h <= hole && h > j);
    if (movable) {
      slots_[hole] = slots_[j];
      hole = j;
    }
  }
  slots_[hole] = 0;
  size_--;
  return true;
}

// --- Children ---

ChildIndex::Children::~Children() {
  for (auto& segment : segments_) delete[] segment.load(std::memory_order_relaxed);
}

uint32_t ChildIndex::Children::push(uint64_t child) {
  if (!free_.empty()) {
    const uint32_t slot = free_.back();
    free_.pop_back();
    at(slot - 1).store(child, std::memory_order_relaxed);
    return slot;
  }
  const uint32_t i = used_.load(std::memory_order_relaxed);
  if (i == UINT32_MAX) throw std::bad_alloc();
  int k;
  uint32_t off;
  locate(i, &k, &off);
  if (k >= kSegments) throw std::bad_alloc();
  if (off == 0 && !segments_[k].load(std::memory_order_relaxed)) {
    auto* made = new std::atomic<uint64_t>[kFirst << k];  // throws std::bad_alloc
    for (uint32_t j = 0; j < (kFirst << k); ++j) made[j].store(0, std::memory_order_relaxed);
    segments_[k].store(made, std::memory_order_release);
  }
  segments_[k].load(std::memory_order_relaxed)[off].store(child, std::memory_order_relaxed);
  used_.store(i + 1, std::memory_order_release);  // a reader sees the slot with the count
  return i + 1;
}

void ChildIndex::Children::release(std::atomic<uint64_t>& at_slot, uint32_t slot) noexcept {
  at_slot.store(0, std::memory_order_relaxed);
  try {
    free_.push_back(slot);  // within its capacity in steady state
  } catch (...) {
    // Out of memory: the slot stays empty, never reused.
  }
}

bool ChildIndex::Children::take(uint64_t child, uint32_t slot) noexcept {
  if (slot == 0 || slot > used_.load(std::memory_order_relaxed)) return false;
  std::atomic<uint64_t>& at_slot = at(slot - 1);
  if (at_slot.load(std::memory_order_relaxed) != child) return false;
  release(at_slot, slot);
  return true;
}

bool ChildIndex::Children::take_by_search(uint64_t child) noexcept {
  const uint32_t n = used_.load(std::memory_order_relaxed);
  for (uint32_t i = 0; i < n; ++i) {
    std::atomic<uint64_t>& at_slot = at(i);
    if (at_slot.load(std::memory_order_relaxed) == child) {
      release(at_slot, i + 1);
      return true;
    }
  }
  return false;
}

// --- ChildIndex ---

ChildIndex::ChildIndex() : shards_(new Shard[kShards]), cache_(new CacheEntry[kCacheEntries]) {}

ChildIndex::Shard& ChildIndex::shard_for(uint64_t parent) const noexcept {
  // One multiply (Fibonacci hashing, as ObjectTable): its top bits mix all the handle's bits.
  static_assert(kShards == 1u << 4, "the product's top 4 bits pick the shard");
  return shards_[(parent * 0x9e3779b97f4a7c15ull) >> 60];
}

ChildIndex::Children* ChildIndex::Shard::find(uint64_t parent) noexcept {
  if (last_list && last_parent == parent) return last_list;
  auto it = children.find(parent);
  if (it == children.end()) return nullptr;
  last_parent = parent;
  last_list = it->second.get();
  return last_list;
}

ChildIndex::Children* ChildIndex::Shard::find_or_make(uint64_t parent) {
  if (Children* list = find(parent)) return list;
  auto made = std::make_unique<Children>();
  Children* list = made.get();
  children.emplace(parent, std::move(made));
  last_parent = parent;
  last_list = list;
  return list;
}

void ChildIndex::cache(uint64_t parent, Children* list) noexcept {
  CacheEntry& e = cache_[cache_index(parent)];
  uint64_t v = e.version.load(std::memory_order_relaxed);
  if (list == nullptr && e.parent.load(std::memory_order_relaxed) != parent) return;
  // Claimed by one writer at a time (writers of other shards share entries); a busy entry is
  // left alone when caching, waited for when forgetting (a taken list must not stay cached).
  for (;;) {
    if ((v & 1) == 0 && e.version.compare_exchange_weak(v, v + 1, std::memory_order_acquire,
                                                        std::memory_order_relaxed))
      break;
    if (list != nullptr) return;
    v = e.version.load(std::memory_order_relaxed);
  }
  if (list != nullptr || e.parent.load(std::memory_order_relaxed) == parent) {
    e.parent.store(list ? parent : 0, std::memory_order_release);  // after the odd version
    e.list.store(list, std::memory_order_release);
  }
  e.version.store(v + 2, std::memory_order_release);
}

uint32_t ChildIndex::add_slow(uint64_t parent, uint64_t child, bool synchronized_parent) {
  Shard& s = shard_for(parent);
  if (synchronized_parent) {
    if (Children* list = cached(parent)) return list->push(child);  // no lock
    Children* list;
    {
      std::lock_guard<SpinLock> lock(s.mutex);
      list = s.find_or_make(parent);
      cache(parent, list);
    }
    return list->push(child);  // the app's pool: written without the lock
  }
  std::lock_guard<SpinLock> lock(s.mutex);
  return s.find_or_make(parent)->push(child);
}

void ChildIndex::remove_slow(uint64_t parent, uint64_t child, uint32_t slot,
                             bool synchronized_parent) noexcept {
  if (synchronized_parent) {
    if (Children* list = cached(parent)) {
      if (list->take(child, slot)) return;
    }
  }
  // No slot, or not this child's (a child under another parent than the one named), or not
  // this thread's cached list.
  Shard& s = shard_for(parent);
  std::lock_guard<SpinLock> lock(s.mutex);
  Children* list = s.find(parent);
  if (list && !list->take(child, slot)) list->take_by_search(child);
}

std::vector<uint64_t> ChildIndex::take_all(uint64_t parent) {
  Shard& s = shard_for(parent);
  std::vector<uint64_t> out;
  std::lock_guard<SpinLock> lock(s.mutex);
  auto it = s.children.find(parent);
  if (it == s.children.end()) return out;
  it->second->for_each([&](uint64_t v) { out.push_back(v); });  // may throw: nothing changed
  if (s.last_list == it->second.get()) s.last_list = nullptr;
  cache(parent, nullptr);  // before the list goes
  s.children.erase(it);
  return out;
}

std::vector<uint64_t> ChildIndex::children_of(uint64_t parent) const {
  Shard& s = shard_for(parent);
  std::vector<uint64_t> out;
  std::lock_guard<SpinLock> lock(s.mutex);
  auto it = s.children.find(parent);
  if (it != s.children.end()) it->second->for_each([&](uint64_t v) { out.push_back(v); });
  return out;
}

}  // namespace vkleak
