#include "store/object_table.h"

#include <new>

namespace vkleak {

ObjectTable::ObjectTable() : shards_(new Shard[kShards]) {}
ObjectTable::~ObjectTable() = default;

bool ObjectTable::Shard::add_chunk() noexcept {
  std::unique_ptr<Chunk> chunk(new (std::nothrow) Chunk);
  if (!chunk) return false;
  try {
    chunks.push_back(std::move(chunk));
    return true;
  } catch (...) {
    return false;  // std::bad_alloc growing the vector (the chunk is freed)
  }
}

bool ObjectTable::Shard::grow_index() noexcept {
  // Doubles until live entries fit under 3/4 of the capacity.
  size_t capacity = index.empty() ? 64 : index.size();
  while (live + 1 > capacity * 3 / 4) capacity *= 2;
  decltype(index) fresh;
  try {
    fresh.assign(capacity, kEmpty);
  } catch (...) {
    // Out of memory: go on filling the index as it is, short of its last empty slot (probes
    // end at an empty slot).
    return !index.empty() && live + 2 <= index.size();
  }
  const uint32_t fresh_mask = static_cast<uint32_t>(capacity - 1);
  for (uint32_t v : index) {
    if (v == kEmpty) continue;
    const ObjectRecord& r = record(slot_record(v));
    const uint64_t h = mix(r.handle, static_cast<ObjectType>(r.type));
    uint32_t pos = home_of_hash(h) & fresh_mask, distance = 0;
    for (; fresh[pos] != kEmpty; pos = (pos + 1) & fresh_mask) ++distance;
    fresh[pos] = make_slot(slot_record(v), tag_of_hash(h), distance);
  }
  index.swap(fresh);
  mask = fresh_mask;
  grow_at = static_cast<uint32_t>(capacity / 4 * 3);
  return true;
}

void ObjectTable::Shard::shift_back(uint32_t hole) noexcept {
  // Backward-shift deletion: pull later members of the probe run into the hole, so churn
  // leaves no tombstones to probe through. Their home slot comes from their distance; only
  // entries 15 or more slots from home have their record read.
  uint32_t* const slots = index.data();
  for (uint32_t j = (hole + 1) & mask; slots[j] != kEmpty; j = (j + 1) & mask) {
    const uint32_t v = slots[j];
    uint32_t home;
    if (slot_distance(v) < kFarDistance) {
      home = (j - slot_distance(v)) & mask;
    } else {
      const ObjectRecord& m = record(slot_record(v));
      home = home_of_hash(mix(m.handle, static_cast<ObjectType>(m.type))) & mask;
    }
    const bool movable = (hole <= j) ? (home <= hole || home > j) : (home <= hole && home > j);
    if (movable) {
      slots[hole] = make_slot(slot_record(v), slot_tag(v), (hole - home) & mask);
      hole = j;
    }
  }
  slots[hole] = kEmpty;
}

bool ObjectTable::lookup(uint64_t handle, ObjectType type, ObjectRecord* out) const noexcept {
  const uint64_t h = mix(handle, type);
  Shard& s = shard_of(h);
  BiasedGuard lock(s.mutex);
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
    BiasedReadGuard lock(shards_[k].mutex);
    n += shards_[k].live;
  }
  return n;
}

uint64_t ObjectTable::memory_bytes() const noexcept {
  uint64_t n = sizeof(Shard) * kShards;
  for (uint32_t k = 0; k < kShards; ++k) {
    BiasedReadGuard lock(shards_[k].mutex);
    n += shards_[k].chunks.size() * kChunkRecords * sizeof(ObjectRecord);
    n += shards_[k].index.capacity() * sizeof(uint32_t);
  }
  return n;
}

}  // namespace vkleak
