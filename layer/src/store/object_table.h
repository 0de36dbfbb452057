// The live-object table of one scope (an instance or a device).
//
// Keyed by (handle, type): drivers reuse freed handle values, possibly for another type, and two
// devices may return equal values (they have separate tables). Sharded by a 64-bit mix of the
// key; each shard has its own short lock, an open-addressing index of 32-bit slots and a slab of
// fixed-size records in chunks (stable indices, no reallocation of records). No lock is shared
// between shards, and none between tables.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "base/biased_lock.h"
#include "base/cache_aligned.h"
#include "vk_object_types.h"

namespace vkleak {

// 48 bytes: the budget is 64 B per tracked object, index included. Parents are not stored here:
// pool children find theirs through the ChildIndex, the rare others in Scope::parents.
struct ObjectRecord {
  uint64_t handle;
  // Bytes, 0 = unknown. A descriptor set has no size of its own: its record holds its layout's
  // handle here instead (one table operation per set instead of an EdgeStore entry; the
  // snapshot turns it into the set's "pSetLayouts" edge). Read through byte_size() and
  // set_layout().
  uint64_t size;
  union {
    struct {
      uint64_t id : 40;         // run-unique creation sequence number
      uint64_t type : 7;        // ObjectType; kUnknown marks a free slab slot
      uint64_t bound : 1;       // memory_slot/memory_offset hold its memory binding
      uint64_t origin : 3;      // Origin
      uint64_t refs : 3;        // times the driver returned this live handle; saturates at 7
      uint64_t has_edges : 1;   // it has an EdgeStore entry (which must go with it)
      uint64_t referenced : 1;  // something references it (remember it when it is destroyed)
      uint64_t use_queue : 8;   // queue index of the last submission that used it
    };
    // The fields above as one word (GCC's x86-64 layout, checked by a unit test): a new record
    // is written with one store. Written field by field, its byte-sized stores would stall the
    // whole-word loads that follow on store forwarding.
    uint64_t meta;
  };
  uint32_t context;     // ContextId: call site, frame and time of creation (creation_context.h)
  uint32_t name;        // NameTable index, 0 = none
  uint32_t use_frame;   // frame of that last use
  uint32_t use_serial;  // that submission's serial on its queue; 0 = never used
  // A buffer, image or acceleration structure bound with vkBind*Memory (`bound`): the
  // MemoryDirectory slot of its memory and the offset, in its record instead of an EdgeStore
  // entry (the snapshot makes its "memory" edge). A VkDeviceMemory: its own directory slot, 0
  // until something is bound to it. Offsets past 4 GiB go to the EdgeStore.
  // Records never bound use them otherwise: a pool child (descriptor set, command buffer)
  // keeps its slot in its pool's ChildIndex list in memory_offset (child_slot()); a view, its
  // inline edge (inline_edge_kind); a descriptor pool, its VkDescriptorPoolCreateFlags in
  // memory_slot (pool_create_flags()).
  uint32_t memory_slot;
  uint32_t memory_offset;
};
static_assert(sizeof(ObjectRecord) == 48, "keep records small: the budget is 64 B per object");
static_assert(kObjectTypeCount <= 128, "ObjectRecord::type has 7 bits");

// ObjectRecord::meta of a new record (bound = 0, referenced = 0, use_queue = 0).
constexpr uint64_t record_meta(uint64_t id, ObjectType type, uint64_t origin, uint64_t refs,
                               bool has_edges) noexcept {
  return (id & ((uint64_t{1} << 40) - 1)) | static_cast<uint64_t>(type) << 40 | (origin & 7) << 48 |
         (refs & 7) << 51 | static_cast<uint64_t>(has_edges) << 54;
}

// ObjectRecord::meta's has_edges and referenced bits (checked by a unit test).
constexpr uint64_t kMetaHasEdges = uint64_t{1} << 54;
constexpr uint64_t kMetaReferenced = uint64_t{1} << 55;

inline bool is_descriptor_set(const ObjectRecord& r) noexcept {
  return r.type == static_cast<uint64_t>(ObjectType::kDescriptorSet);
}

// The one edge that a view's create info gives (image view -> image, buffer view -> buffer)
// is kept in the view's own record, not in the EdgeStore (issue 28: adding and erasing an
// EdgeStore entry was ~500 instructions of a view's create+destroy): the target's handle in
// `size` (views have no size; 0 = no inline edge), its id (40 bits) and the name it had when
// the edge was made (24 bits, one reference held by the record) in memory_slot/memory_offset
// (views are never bound). graph.cpp makes it, only when the create info has exactly this one
// edge and the name id fits; snapshots, submissions and destroys read it back (kind, target
// type and slot 0 are the type's, below).
struct InlineEdgeKind {
  ObjectType dst_type;
  const char* kind;  // nullptr: the type keeps no edge in its record
};
constexpr InlineEdgeKind inline_edge_kind(ObjectType src) noexcept {
  switch (src) {
    case ObjectType::kImageView:
      return {ObjectType::kImage, "image"};
    case ObjectType::kBufferView:
      return {ObjectType::kBuffer, "buffer"};
    default:
      return {ObjectType::kUnknown, nullptr};
  }
}
constexpr bool keeps_inline_edge(ObjectType src) noexcept {
  return inline_edge_kind(src).kind != nullptr;
}
constexpr uint32_t kInlineEdgeNameLimit = 1u << 24;  // names from here on go to the EdgeStore
// memory_slot | memory_offset << 32 of a record whose inline edge points at `id` named `name`.
constexpr uint64_t inline_edge_link(uint64_t id, uint32_t name) noexcept {
  return (id & ((uint64_t{1} << 40) - 1)) | static_cast<uint64_t>(name) << 40;
}
inline bool has_inline_edge(const ObjectRecord& r) noexcept {
  return keeps_inline_edge(static_cast<ObjectType>(r.type)) && r.size != 0;
}
inline uint64_t inline_edge_target(const ObjectRecord& r) noexcept {
  return has_inline_edge(r) ? r.size : 0;
}
inline uint64_t inline_edge_id(const ObjectRecord& r) noexcept {
  return has_inline_edge(r) ? r.memory_slot | static_cast<uint64_t>(r.memory_offset & 0xff) << 32
                            : 0;
}
inline uint32_t inline_edge_name(const ObjectRecord& r) noexcept {
  return has_inline_edge(r) ? r.memory_offset >> 8 : 0;
}
// The same for a record known to be of a type that keeps_inline_edge (the destroy path, where
// the type is a constant): without an edge the word is 0.
inline uint32_t inline_edge_name_of_view(const ObjectRecord& r) noexcept {
  return r.memory_offset >> 8;
}

// A pool child's slot in its parent's ChildIndex list (0: none known).
inline uint32_t child_slot(const ObjectRecord& r) noexcept {
  return r.memory_offset;
}

// A descriptor pool's create flags (0 for every other type).
inline uint32_t pool_create_flags(const ObjectRecord& r) noexcept {
  return r.type == static_cast<uint64_t>(ObjectType::kDescriptorPool) ? r.memory_slot : 0;
}

inline uint64_t byte_size(const ObjectRecord& r) noexcept {
  const auto t = static_cast<ObjectType>(r.type);
  return t == ObjectType::kDescriptorSet || keeps_inline_edge(t) ? 0 : r.size;
}
inline uint64_t set_layout(const ObjectRecord& r) noexcept {
  return is_descriptor_set(r) ? r.size : 0;
}

class ObjectTable {
 public:
  ObjectTable();
  ~ObjectTable();
  ObjectTable(const ObjectTable&) = delete;
  ObjectTable& operator=(const ObjectTable&) = delete;

  enum class InsertResult { kInserted, kAlreadyLive, kNoMemory };

  // Inserts a record under (handle, type): `fill(ObjectRecord&)` writes every field of it in
  // place, under the shard lock. If the key is live, bumps its refs instead (when
  // `count_duplicate`) and returns kAlreadyLive. kNoMemory: nothing was inserted.
  // Filled in place rather than copied in: a record the caller just built field by field and
  // then copied whole stalls on store forwarding (a fifth of a create's time in the layer).
  template <typename Fill>
  __attribute__((always_inline)) InsertResult insert(uint64_t handle, ObjectType type,
                                                     bool count_duplicate, Fill&& fill) noexcept {
    const uint64_t h = mix(handle, type);
    Shard& s = shard_of(h);
    BiasedGuard lock(s.mutex);
    if (s.live >= s.grow_at && !s.grow_index()) return InsertResult::kNoMemory;
    // One probe: stop at the key (a duplicate) or at the empty slot that takes it. Records are
    // read only where the slot's tag matches.
    uint32_t* const index = s.index.data();
    const uint32_t mask = s.mask, tag = tag_of_hash(h);
    uint32_t pos = home_of_hash(h) & mask, distance = 0;
    for (uint32_t v; (v = index[pos]) != kEmpty; pos = (pos + 1) & mask, ++distance) {
      if (slot_tag(v) != tag) continue;
      ObjectRecord& existing = s.record(slot_record(v));
      if (existing.handle == handle && existing.type == static_cast<uint64_t>(type)) {
        if (count_duplicate && existing.refs < 7) existing.refs++;
        return InsertResult::kAlreadyLive;
      }
    }
    const uint32_t i = s.allocate_record();
    if (i == kEmpty) return InsertResult::kNoMemory;
    fill(s.record(i));
    index[pos] = make_slot(i, tag, distance);
    s.live++;
    return InsertResult::kInserted;
  }
  // Inserts a copy of `rec` (refs = 1 expected), as above.
  InsertResult insert(const ObjectRecord& rec, bool count_duplicate) noexcept {
    return insert(rec.handle, static_cast<ObjectType>(rec.type), count_duplicate,
                  [&rec](ObjectRecord& r) { r = rec; });
  }

  enum class EraseResult { kNotLive, kDecremented, kRemoved };
  // Removes the key, or only decrements its refs when they are > 1. `seen(const ObjectRecord&)`
  // reads the record as it was, under the shard lock, before anything changes; the caller
  // copies what it needs (often only the context: the whole record is 48 bytes).
  template <typename Seen>
  __attribute__((always_inline)) EraseResult erase_with(uint64_t handle, ObjectType type,
                                                        Seen&& seen) noexcept {
    const uint64_t h = mix(handle, type);
    Shard& s = shard_of(h);
    BiasedGuard lock(s.mutex);
    uint32_t* const slot = s.find_slot(handle, type, h);
    if (!slot) return EraseResult::kNotLive;
    const uint32_t i = slot_record(*slot);
    ObjectRecord& r = s.record(i);
    seen(static_cast<const ObjectRecord&>(r));
    if (r.refs > 1) {
      r.refs--;
      return EraseResult::kDecremented;
    }
    // Usually the next slot is empty: nothing to shift back.
    const uint32_t hole = static_cast<uint32_t>(slot - s.index.data());
    if (s.index[(hole + 1) & s.mask] == kEmpty)
      *slot = kEmpty;
    else
      s.shift_back(hole);
    s.live--;
    r.type = static_cast<uint64_t>(ObjectType::kUnknown);
    r.handle = s.free_head;  // free records chain through handle
    s.free_head = i;
    return EraseResult::kRemoved;
  }
  // As above, copying the whole record to `removed` (when not null); false when not live.
  bool erase(uint64_t handle, ObjectType type, ObjectRecord* removed) noexcept {
    return erase_with(handle, type, [removed](const ObjectRecord& r) {
             if (removed) *removed = r;
           }) != EraseResult::kNotLive;
  }

  // Calls f(ObjectRecord&) under the shard lock if the key is live; returns whether it was.
  template <typename F>
  bool update(uint64_t handle, ObjectType type, F&& f) noexcept {
    const uint64_t h = mix(handle, type);
    Shard& s = shard_of(h);
    BiasedGuard lock(s.mutex);
    ObjectRecord* r = s.find(handle, type, h);
    if (!r) return false;
    f(*r);
    return true;
  }

  bool lookup(uint64_t handle, ObjectType type, ObjectRecord* out) const noexcept;

  // Appends every live record to `out` (each shard copied under its own lock).
  void collect(std::vector<ObjectRecord>* out) const;
  // Calls f(const ObjectRecord&) for every live record, each shard under its lock.
  template <typename F>
  void for_each(F&& f) const {
    for (uint32_t k = 0; k < kShards; ++k) {
      const Shard& s = shards_[k];
      BiasedReadGuard lock(s.mutex);  // a snapshot keeps the app thread's bias
      for (uint32_t i = 0; i < s.slab_used; ++i) {
        const ObjectRecord& r = s.record(i + 1);
        if (r.type != static_cast<uint64_t>(ObjectType::kUnknown)) f(r);
      }
    }
  }

  uint64_t live_count() const noexcept;
  // Bytes the table itself holds (records, index, chunks), for the memory budget.
  uint64_t memory_bytes() const noexcept;

 private:
  static constexpr uint32_t kShardBits = 8;
  static constexpr uint32_t kShards = 1u << kShardBits;
  static constexpr uint32_t kChunkRecords = 1024;
  static constexpr uint32_t kEmpty = 0;

  // An index slot packs the record's 1-based index (20 bits: 1M records a shard, 268M a
  // table), 8 bits of the key's hash, and the slot's distance from the key's home slot (4:
  // that far or farther). With a million objects every record read is a cache miss: a probe
  // reads only the records whose tag matches (1 in 256 of the others), and an erase moves the
  // entries after it back without reading theirs.
  static constexpr uint32_t kRecordBits = 20;
  static constexpr uint32_t kTagBits = 8;
  static constexpr uint32_t kMaxRecords = (1u << kRecordBits) - 1;
  static constexpr uint32_t kFarDistance = 15;
  // What each part of a key's hash (mix) picks: its shard (bits 56-63), its home slot in the
  // shard's index (bits 32-52 at most) and its tag (bits 24-31). A product's bit k depends on
  // the key's bits 0..k only: these high bits depend on the pointer bits that vary.
  static uint32_t tag_of_hash(uint64_t h) noexcept {
    return static_cast<uint32_t>(h >> 24) & ((1u << kTagBits) - 1);
  }
  static uint32_t home_of_hash(uint64_t h) noexcept { return static_cast<uint32_t>(h >> 32); }
  static uint32_t make_slot(uint32_t record, uint32_t tag, uint32_t distance) noexcept {
    return record | tag << kRecordBits |
           (distance < kFarDistance ? distance : kFarDistance) << (kRecordBits + kTagBits);
  }
  static uint32_t slot_record(uint32_t v) noexcept { return v & kMaxRecords; }
  static uint32_t slot_tag(uint32_t v) noexcept {
    return (v >> kRecordBits) & ((1u << kTagBits) - 1);
  }
  static uint32_t slot_distance(uint32_t v) noexcept { return v >> (kRecordBits + kTagBits); }
  static_assert(kRecordBits + kTagBits + 4 == 32, "an index slot is 32 bits");

  struct alignas(64) Shard {
    // Biased to the thread that uses the shard (base/biased_lock.h): one locked exchange less
    // on every insert and erase of an app that creates and destroys from one thread.
    mutable BiasedLock mutex;
    // Chunks and index on cache lines of their own (cache_aligned.h).
    struct alignas(kCacheLine) Chunk {
      ObjectRecord records[kChunkRecords];
    };
    std::vector<std::unique_ptr<Chunk>> chunks;
    uint32_t slab_used = 0;       // records handed out from chunks so far
    uint32_t free_head = kEmpty;  // 1-based record index of the first free record
    // Slots (make_slot); a power of two in size, never more than 3/4 full (while memory lasts;
    // never full: a probe always ends at an empty slot).
    std::vector<uint32_t, CacheAlignedAllocator<uint32_t>> index;
    uint32_t mask = 0;     // index.size() - 1
    uint32_t grow_at = 0;  // live count at which the index doubles (0: no index yet)
    uint32_t live = 0;     // live records == occupied slots

    __attribute__((always_inline)) ObjectRecord& record(uint32_t one_based) {
      uint32_t i = one_based - 1;
      return chunks[i / kChunkRecords]->records[i % kChunkRecords];
    }
    const ObjectRecord& record(uint32_t one_based) const {
      uint32_t i = one_based - 1;
      return chunks[i / kChunkRecords]->records[i % kChunkRecords];
    }
    // The index slot / record of (handle, type), or nullptr; `h` = mix(handle, type).
    __attribute__((always_inline)) uint32_t* find_slot(uint64_t handle, ObjectType type,
                                                       uint64_t h) {
      if (index.empty()) return nullptr;
      uint32_t* const slots = index.data();
      const uint32_t tag = tag_of_hash(h);
      for (uint32_t pos = home_of_hash(h) & mask;; pos = (pos + 1) & mask) {
        const uint32_t v = slots[pos];
        if (v == kEmpty) return nullptr;
        if (slot_tag(v) != tag) continue;
        const ObjectRecord& r = record(slot_record(v));
        if (r.handle == handle && r.type == static_cast<uint64_t>(type)) return &slots[pos];
      }
    }
    ObjectRecord* find(uint64_t handle, ObjectType type, uint64_t h) {
      uint32_t* slot = find_slot(handle, type, h);
      return slot ? &record(slot_record(*slot)) : nullptr;
    }
    // A free record's 1-based index, or kEmpty when memory (or the index's 20 bits) ran out.
    __attribute__((always_inline)) uint32_t allocate_record() noexcept {
      if (free_head != kEmpty) {
        const uint32_t i = free_head;
        free_head = static_cast<uint32_t>(record(i).handle);  // free records chain through handle
        return i;
      }
      if (slab_used == kMaxRecords) return kEmpty;
      if (slab_used == chunks.size() * kChunkRecords && !add_chunk()) return kEmpty;
      return ++slab_used;
    }
    // Empties index slot `hole`, moving back the entries after it in its probe run.
    void shift_back(uint32_t hole) noexcept;
    bool add_chunk() noexcept;   // false when out of memory
    bool grow_index() noexcept;  // false when out of memory and the index is full
  };

  // Fibonacci hashing: one multiply by 2^64/phi. Heap pointers have zero low bits and shared
  // high bits; only the product's high bits are used, and they mix all the bits below them.
  // The type goes into the top bits: the same value as another type lands in another shard.
  // (A full 64-bit finalizer cost 8 instructions more per table operation, on the critical
  // path to the shard's lock.)
  static uint64_t mix(uint64_t handle, ObjectType type) noexcept {
    return (handle ^ static_cast<uint64_t>(type) << 57) * 0x9e3779b97f4a7c15ull;
  }
  Shard& shard_of(uint64_t h) const noexcept { return shards_[h >> (64 - kShardBits)]; }

  std::unique_ptr<Shard[]> shards_;
};

}  // namespace vkleak
