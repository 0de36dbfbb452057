#include "object_table.h"

#include <new>

namespace vkleak {

ObjectTable::ObjectTable() : shards_(new Shard[kShards]) {}
ObjectTable::~ObjectTable() = default;

uint64_t ObjectTable::mix(uint64_t handle, ObjectType type) noexcept {
  // splitmix64 finalizer: heap pointers have zero low bits and shared high bits.
  uint64_t x = handle ^ (static_cast<uint64_t>(type) * 0x9e3779b97f4a7c15ull);
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

uint32_t* ObjectTable::Shard::find_slot(uint64_t handle, ObjectType type) {
  if (index.empty()) return nullptr;
  const uint32_t mask = static_cast<uint32_t>(index.size() - 1);
  uint32_t pos = static_cast<uint32_t>(mix(handle, type)) & mask;
  for (uint32_t probes = 0; probes <= mask; ++probes, pos = (pos + 1) & mask) {
    uint32_t v = index[pos];
    if (v == kEmpty) return nullptr;
    const ObjectRecord& r = record(v);
    if (r.handle == handle && r.type == static_cast<uint64_t>(type)) return &index[pos];
  }
  return nullptr;
}

ObjectRecord* ObjectTable::Shard::find(uint64_t handle, ObjectType type) {
  uint32_t* slot = find_slot(handle, type);
  return slot ? &record(*slot) : nullptr;
}

uint32_t ObjectTable::Shard::allocate_record() {
  if (free_head != kEmpty) {
    uint32_t i = free_head;
    free_head = static_cast<uint32_t>(record(i).handle);  // free records chain through handle
    return i;
  }
  if (slab_used == chunks.size() * kChunkRecords) {
    chunks.emplace_back(new ObjectRecord[kChunkRecords]);
  }
  return ++slab_used;
}

void ObjectTable::Shard::grow_index() {
  // Doubles until live entries fit under 3/4 of the capacity.
  size_t capacity = index.empty() ? 64 : index.size();
  while (live + 1 > capacity * 3 / 4) capacity *= 2;
  std::vector<uint32_t> fresh(capacity, kEmpty);
  const uint32_t mask = static_cast<uint32_t>(capacity - 1);
  for (uint32_t v : index) {
    if (v == kEmpty) continue;
    const ObjectRecord& r = record(v);
    uint32_t pos = static_cast<uint32_t>(mix(r.handle, static_cast<ObjectType>(r.type))) & mask;
    while (fresh[pos] != kEmpty) pos = (pos + 1) & mask;
    fresh[pos] = v;
  }
  index.swap(fresh);
  index_used = live;
}

ObjectTable::InsertResult ObjectTable::insert(const ObjectRecord& rec, bool count_duplicate) {
  const ObjectType type = static_cast<ObjectType>(rec.type);
  const uint64_t h = mix(rec.handle, type);
  Shard& s = shards_[h >> (64 - kShardBits)];
  std::lock_guard<SpinLock> lock(s.mutex);
  if ((s.index_used + 1) * 4 > s.index.size() * 3) s.grow_index();
  // One probe: stop at the key (a duplicate) or at the empty slot that takes it.
  const uint32_t mask = static_cast<uint32_t>(s.index.size() - 1);
  uint32_t pos = static_cast<uint32_t>(h) & mask;
  for (;; pos = (pos + 1) & mask) {
    uint32_t v = s.index[pos];
    if (v == kEmpty) break;
    ObjectRecord& existing = s.record(v);
    if (existing.handle == rec.handle && existing.type == rec.type) {
      if (count_duplicate && existing.refs < 7) existing.refs++;
      return InsertResult::kAlreadyLive;
    }
  }
  uint32_t i = s.allocate_record();
  ObjectRecord& r = s.record(i);
  r = rec;
  r.refs = 1;
  s.index[pos] = i;
  s.index_used++;
  s.live++;
  s.live_by_type[rec.type]++;
  return InsertResult::kInserted;
}

bool ObjectTable::erase(uint64_t handle, ObjectType type, ObjectRecord* removed) noexcept {
  Shard& s = shard_for(handle, type);
  std::lock_guard<SpinLock> lock(s.mutex);
  uint32_t* slot = s.find_slot(handle, type);
  if (!slot) return false;
  uint32_t i = *slot;
  ObjectRecord& r = s.record(i);
  if (removed) *removed = r;
  if (r.refs > 1) {
    r.refs--;
    return true;
  }
  // Backward-shift deletion: pull later members of the probe run into the hole, so churn
  // leaves no tombstones to probe through.
  const uint32_t mask = static_cast<uint32_t>(s.index.size() - 1);
  uint32_t hole = static_cast<uint32_t>(slot - s.index.data());
  for (uint32_t j = (hole + 1) & mask; s.index[j] != kEmpty; j = (j + 1) & mask) {
    const ObjectRecord& m = s.record(s.index[j]);
    uint32_t home = static_cast<uint32_t>(mix(m.handle, static_cast<ObjectType>(m.type))) & mask;
    bool movable = (hole <= j) ? (home <= hole || home > j) : (home <= hole && home > j);
    if (movable) {
      s.index[hole] = s.index[j];
      hole = j;
    }
  }
  s.index[hole] = kEmpty;
  s.index_used--;
  s.live--;
  s.live_by_type[r.type]--;
  r.type = static_cast<uint64_t>(ObjectType::kUnknown);
  r.handle = s.free_head;
  s.free_head = i;
  return true;
}

bool ObjectTable::lookup(uint64_t handle, ObjectType type, ObjectRecord* out) const noexcept {
  Shard& s = shard_for(handle, type);
  std::lock_guard<SpinLock> lock(s.mutex);
  ObjectRecord* r = s.find(handle, type);
  if (!r) return false;
  if (out) *out = *r;
  return true;
}

void ObjectTable::collect(std::vector<ObjectRecord>* out) const {
  // One reservation for all shards (a little slack for objects created meanwhile): growing
  // shard by shard would copy the whole array again for each of them.
  out->reserve(out->size() + live_count() + live_count() / 16 + 64);
  for (uint32_t k = 0; k < kShards; ++k) {
    const Shard& s = shards_[k];
    std::lock_guard<SpinLock> lock(s.mutex);
    for (uint32_t i = 0; i < s.slab_used; ++i) {
      const ObjectRecord& r = s.chunks[i / kChunkRecords][i % kChunkRecords];
      if (r.type != static_cast<uint64_t>(ObjectType::kUnknown)) out->push_back(r);
    }
  }
}

uint64_t ObjectTable::live_count() const noexcept {
  uint64_t n = 0;
  for (uint32_t k = 0; k < kShards; ++k) {
    std::lock_guard<SpinLock> lock(shards_[k].mutex);
    n += shards_[k].live;
  }
  return n;
}

std::array<uint64_t, kObjectTypeCount> ObjectTable::live_by_type() const noexcept {
  std::array<uint64_t, kObjectTypeCount> out{};
  for (uint32_t k = 0; k < kShards; ++k) {
    std::lock_guard<SpinLock> lock(shards_[k].mutex);
    for (uint32_t t = 0; t < kObjectTypeCount; ++t) out[t] += shards_[k].live_by_type[t];
  }
  return out;
}

uint64_t ObjectTable::memory_bytes() const noexcept {
  uint64_t n = sizeof(Shard) * kShards;
  for (uint32_t k = 0; k < kShards; ++k) {
    std::lock_guard<SpinLock> lock(shards_[k].mutex);
    n += shards_[k].chunks.size() * kChunkRecords * sizeof(ObjectRecord);
    n += shards_[k].index.capacity() * sizeof(uint32_t);
  }
  return n;
}

}  // namespace vkleak
