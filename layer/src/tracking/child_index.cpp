#include "tracking/child_index.h"

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

ChildIndex::Shard& ChildIndex::shard_for(uint64_t parent) noexcept {
  return shards_[mix(parent) % kShards];
}

HandleSet* ChildIndex::Shard::find(uint64_t parent) noexcept {
  if (last_set && last_parent == parent) return last_set;
  auto it = children.find(parent);
  if (it == children.end()) return nullptr;
  last_parent = parent;
  last_set = &it->second;
  return last_set;
}

void ChildIndex::add(uint64_t parent, uint64_t child) {
  Shard& s = shard_for(parent);
  std::lock_guard<SpinLock> lock(s.mutex);
  HandleSet* set = s.find(parent);
  if (!set) {
    set = &s.children[parent];
    s.last_parent = parent;
    s.last_set = set;
  }
  set->insert(child);
}

void ChildIndex::remove(uint64_t parent, uint64_t child) noexcept {
  Shard& s = shard_for(parent);
  std::lock_guard<SpinLock> lock(s.mutex);
  if (HandleSet* set = s.find(parent)) set->erase(child);
}

std::vector<uint64_t> ChildIndex::take_all(uint64_t parent) {
  Shard& s = shard_for(parent);
  std::vector<uint64_t> out;
  std::lock_guard<SpinLock> lock(s.mutex);
  auto it = s.children.find(parent);
  if (it == s.children.end()) return out;
  out.reserve(it->second.size());
  it->second.for_each([&](uint64_t v) { out.push_back(v); });
  if (s.last_set == &it->second) s.last_set = nullptr;
  s.children.erase(it);
  return out;
}

}  // namespace vkleak
