#include "tracking/child_index.h"

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

ChildIndex::ChildIndex() : shards_(new Shard[kShards]) {}

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
  last_list = &it->second;
  return last_list;
}

uint32_t ChildIndex::add(uint64_t parent, uint64_t child) {
  Shard& s = shard_for(parent);
  std::lock_guard<SpinLock> lock(s.mutex);
  Children* list = s.find(parent);
  if (!list) {
    list = &s.children[parent];
    s.last_parent = parent;
    s.last_list = list;
  }
  if (!list->free.empty()) {
    const uint32_t slot = list->free.back();
    list->free.pop_back();
    list->slots[slot - 1] = child;
    return slot;
  }
  if (list->slots.size() >= UINT32_MAX) throw std::bad_alloc();
  list->slots.push_back(child);
  return static_cast<uint32_t>(list->slots.size());
}

void ChildIndex::remove(uint64_t parent, uint64_t child, uint32_t slot) noexcept {
  Shard& s = shard_for(parent);
  std::lock_guard<SpinLock> lock(s.mutex);
  Children* list = s.find(parent);
  if (!list) return;
  std::vector<uint64_t>& slots = list->slots;
  if (slot == 0 || slot > slots.size() || slots[slot - 1] != child) {
    // No slot, or not this child's (a child under another parent than the one named).
    auto it = std::find(slots.begin(), slots.end(), child);
    if (it == slots.end()) return;
    slot = static_cast<uint32_t>(it - slots.begin()) + 1;
  }
  if (slot == slots.size()) {
    slots.pop_back();  // the last slot: no free entry to keep
    return;
  }
  try {
    list->free.push_back(slot);  // within its capacity in steady state
    slots[slot - 1] = 0;
  } catch (...) {
    // Out of memory: keep the list dense instead (the moved child's own slot goes stale,
    // which remove() tolerates).
    slots[slot - 1] = slots.back();
    slots.pop_back();
  }
}

std::vector<uint64_t> ChildIndex::take_all(uint64_t parent) {
  Shard& s = shard_for(parent);
  std::vector<uint64_t> out;
  std::lock_guard<SpinLock> lock(s.mutex);
  auto it = s.children.find(parent);
  if (it == s.children.end()) return out;
  out.reserve(it->second.slots.size() - it->second.free.size());
  for (uint64_t v : it->second.slots)
    if (v) out.push_back(v);
  if (s.last_list == &it->second) s.last_list = nullptr;
  s.children.erase(it);
  return out;
}

std::vector<uint64_t> ChildIndex::children_of(uint64_t parent) const {
  Shard& s = shard_for(parent);
  std::vector<uint64_t> out;
  std::lock_guard<SpinLock> lock(s.mutex);
  auto it = s.children.find(parent);
  if (it == s.children.end()) return out;
  for (uint64_t v : it->second.slots)
    if (v) out.push_back(v);
  return out;
}

}  // namespace vkleak
