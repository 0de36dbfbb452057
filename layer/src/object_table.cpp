#include "object_table.h"

#include <new>

namespace vkleak {

ObjectTable::ObjectTable() : shards_(new Shard[kShards]) {}
ObjectTable::~ObjectTable() = default;

uint32_t* ObjectTable::Shard::find_slot(uint64_t handle, ObjectType type, uint64_t h) {
  if (index.empty()) return nullptr;
  const uint32_t mask = static_cast<uint32_t>(index.size() - 1);
  const uint32_t tag = tag_of_hash(h);
  uint32_t pos = static_cast<uint32_t>(h) & mask;
  for (uint32_t probes = 0; probes <= mask; ++probes, pos = (pos + 1) & mask) {
    const uint32_t v = index[pos];
    if (v == kEmpty) return nullptr;
    if (slot_tag(v) != tag) continue;
    const ObjectRecord& r = record(slot_record(v));
    if (r.handle == handle && r.type == static_cast<uint64_t>(type)) return &index[pos];
  }
  return nullptr;
}

ObjectRecord* ObjectTable::Shard::find(uint64_t handle, ObjectType type, uint64_t h) {
  uint32_t* slot = find_slot(handle, type, h);
  return slot ? &record(slot_record(*slot)) : nullptr;
}

void ObjectTable::Shard::add_chunk() {
  chunks.emplace_back(new Chunk);
}

void ObjectTable::Shard::grow_index() {
  // Doubles until live entries fit under 3/4 of the capacity.
  size_t capacity = index.empty() ? 64 : index.size();
  while (live + 1 > capacity * 3 / 4) capacity *= 2;
  decltype(index) fresh(capacity, kEmpty);
  const uint32_t mask = static_cast<uint32_t>(capacity - 1);
  for (uint32_t v : index) {
    if (v == kEmpty) continue;
    const ObjectRecord& r = record(slot_record(v));
    const uint64_t h = mix(r.handle, static_cast<ObjectType>(r.type));
    uint32_t pos = static_cast<uint32_t>(h) & mask, distance = 0;
    for (; fresh[pos] != kEmpty; pos = (pos + 1) & mask) ++distance;
    fresh[pos] = make_slot(slot_record(v), tag_of_hash(h), distance);
  }
  index.swap(fresh);
  index_used = live;
}

bool ObjectTable::erase(uint64_t handle, ObjectType type, ObjectRecord* removed) noexcept {
  const uint64_t h = mix(handle, type);
  Shard& s = shard_of(h);
  std::lock_guard<SpinLock> lock(s.mutex);
  uint32_t* const slot = s.find_slot(handle, type, h);
  if (!slot) return false;
  uint32_t* const index = s.index.data();
  const uint32_t mask = static_cast<uint32_t>(s.index.size() - 1);
  uint32_t hole = static_cast<uint32_t>(slot - index);
  const uint32_t i = slot_record(*slot);
  ObjectRecord& r = s.record(i);
  if (removed) *removed = r;
  if (r.refs > 1) {
    r.refs--;
    return true;
  }
  // Backward-shift deletion: pull later members of the probe run into the hole, so churn
  // leaves no tombstones to probe through. Their home slot comes from their distance; only
  // entries 15 or more slots from home have their record read.
  for (uint32_t j = (hole + 1) & mask; index[j] != kEmpty; j = (j + 1) & mask) {
    const uint32_t v = index[j];
    uint32_t home;
    if (slot_distance(v) < kFarDistance) {
      home = (j - slot_distance(v)) & mask;
    } else {
      const ObjectRecord& m = s.record(slot_record(v));
      home = static_cast<uint32_t>(mix(m.handle, static_cast<ObjectType>(m.type))) & mask;
    }
    const bool movable = (hole <= j) ? (home <= hole || home > j) : (home <= hole && home > j);
    if (movable) {
      index[hole] = make_slot(slot_record(v), slot_tag(v), (hole - home) & mask);
      hole = j;
    }
  }
  index[hole] = kEmpty;
  s.index_used--;
  s.live--;
  r.type = static_cast<uint64_t>(ObjectType::kUnknown);
  r.handle = s.free_head;
  s.free_head = i;
  return true;
}

bool ObjectTable::lookup(uint64_t handle, ObjectType type, ObjectRecord* out) const noexcept {
  const uint64_t h = mix(handle, type);
  Shard& s = shard_of(h);
  std::lock_guard<SpinLock> lock(s.mutex);
  ObjectRecord* r = s.find(handle, type, h);
  if (!r) return false;
  if (out) *out = *r;
  return true;
}

void ObjectTable::collect(std::vector<ObjectRecord>* out) const {
  // One reservation for all shards (a little slack for objects created meanwhile): growing
  // shard by shard would copy the whole array again for each of them.
  out->reserve(out->size() + live_count() + live_count() / 16 + 64);
  for_each([out](const ObjectRecord& r) { out->push_back(r); });
}

uint64_t ObjectTable::live_count() const noexcept {
  uint64_t n = 0;
  for (uint32_t k = 0; k < kShards; ++k) {
    std::lock_guard<SpinLock> lock(shards_[k].mutex);
    n += shards_[k].live;
  }
  return n;
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
