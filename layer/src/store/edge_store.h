// Out-edges of the objects of one scope: view -> image, framebuffer -> attachments, descriptor
// set -> what is written in each (binding, element) slot, buffer -> bound memory, ... Only
// objects that reference something have an entry.
//
// Storage: sharded open addressing keyed by (handle, type), 32-bit index slots into a slab of
// 48-byte entries (the style of ObjectTable). An entry holds one compact edge inline: a bound
// buffer, a view or a fresh descriptor set costs one slab entry, no heap block. Sources with
// more edges spill into a pooled list (reused after erase: no allocation in steady state);
// lists past a few edges get a slot index, so descriptor writes replace in O(1) even in large
// bindless arrays.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "base/cache_aligned.h"
#include "base/spin_lock.h"
#include "vk_object_types.h"

namespace vkleak {

// Edge kinds are member paths from generated code and hooks ("image", "memory", "descriptor",
// "pStages.module"); interned into small ids so that edges store 2 bytes and compare without
// strcmp. 0 is never a kind.
using KindId = uint16_t;
// `kind` must have static storage (a string literal): its first spelling is kept as the name.
KindId intern_kind(const char* kind) noexcept;
const char* kind_name(KindId id) noexcept;
// Whether `kind` is `prefix` or a member under it ("descriptor.sampler" is under "descriptor").
bool kind_under(KindId kind, KindId prefix) noexcept;

struct Edge {
  const char* kind;  // member path ("image", "pAttachments", "memory", "descriptor", ...)
  uint64_t dst_id;   // 0 when the target was not live when the edge was made
  uint64_t dst_handle;
  uint64_t offset;  // memory bindings, buffer descriptors (stored in 48 bits, ~0 kept)
  uint64_t size;
  uint32_t slot;      // array index, or the descriptor slot; edges with kSlotKeyed replace by slot
  uint32_t dst_name;  // target's debug name when the edge was made (the store holds a reference)
  ObjectType dst_type;
  bool slot_keyed;  // descriptor writes and memory bindings: a new edge in the slot replaces
  KindId kind_id;   // intern_kind(kind); filled by the store, optional in add()
};

// An edge to (type, handle) whose target is yet to be resolved (dst_id, dst_name: make_edge, or
// the descriptor writes' own inline lookup).
__attribute__((always_inline)) inline Edge unresolved_edge(ObjectType type, uint64_t handle,
                                                           const char* kind, uint32_t slot,
                                                           bool slot_keyed, uint64_t offset,
                                                           uint64_t size) noexcept {
  Edge e{};
  e.kind = kind;
  e.dst_type = type;
  e.dst_handle = handle;
  e.slot = slot;
  e.slot_keyed = slot_keyed;
  e.offset = offset;
  e.size = size;
  return e;
}

class EdgeStore {
 public:
  EdgeStore();
  ~EdgeStore();
  EdgeStore(const EdgeStore&) = delete;
  EdgeStore& operator=(const EdgeStore&) = delete;

  // Adds edges of `src`; slot-keyed ones replace an existing edge of the same kind and slot.
  // Throws std::bad_alloc on exhaustion.
  void add(uint64_t src, ObjectType type, const Edge* edges, size_t count);
  struct PackedEdge;
  // add() for edges the caller packed (pack()): descriptor writes gather a set's edges this
  // way, without an Edge in between. A stored edge takes a reference to its dst_name (under the
  // shard's lock; none when it replaces an edge with the same name): the caller must know the
  // name alive (its target live). Throws std::bad_alloc (the edges from the failing one on are
  // not stored).
  void add_packed(uint64_t src, ObjectType type, const PackedEdge* edges, size_t count);
  // Drops the slot-keyed edges of `kind` (and kinds under it) in `slot` (a descriptor copied
  // from an empty slot).
  void remove_slot(uint64_t src, ObjectType type, const char* kind, uint32_t slot) noexcept;
  // Forgets every out-edge of `src` (at its destroy).
  void erase(uint64_t src, ObjectType type) noexcept;
  // Copies the edges of one source (empty when none).
  void get(uint64_t src, ObjectType type, std::vector<Edge>* out) const;
  // The first edge of exactly `kind`, without copying the list (a set's layout among its
  // descriptors).
  bool find(uint64_t src, ObjectType type, KindId kind, Edge* out) const noexcept;
  // Copies up to `max` slot-keyed edges of `kind` (or kinds under it) in `slot`; returns the
  // count. O(1) for long lists (the slot index).
  size_t get_slot(uint64_t src, ObjectType type, KindId kind, uint32_t slot, Edge* out,
                  size_t max) const noexcept;
  // Calls f(src handle, src type, edge) for every edge (shard by shard, under its lock).
  template <typename F>
  void for_each(F&& f) const {
    for (uint32_t k = 0; k < kShards; ++k) {
      const Shard& s = shards_[k];
      std::lock_guard<SpinLock> lock(s.mutex);
      for (uint32_t i = 1; i <= s.slab_used; ++i) {
        const Entry& en = s.entry(i);
        if (en.mode == kFree) continue;
        const ObjectType type = static_cast<ObjectType>(en.type);
        const uint64_t handle = en.handle();
        uint32_t n = 0;
        const PackedEdge* list = en.list(&n);
        for (uint32_t j = 0; j < n; ++j)
          if (list[j].kind) f(handle, type, unpack(list[j]));
      }
    }
  }
  // Bytes the store holds (entries, indices, spilled lists), for tests and budgets.
  uint64_t memory_bytes() const noexcept;

  // 36 bytes, 4-aligned: dst_id in 40 bits (like ObjectRecord::id), offset and size in 48.
  static constexpr uint16_t kSlotKeyedBit = 0x8000;
  // Offsets and sizes past 2^48 do not occur (memory heaps are smaller); all ones stays all ones
  // (VK_WHOLE_SIZE).
  static constexpr uint64_t k48 = (uint64_t{1} << 48) - 1;
  static uint64_t clamp48(uint64_t v) noexcept { return v >= k48 ? k48 : v; }
  static uint64_t widen48(uint64_t v) noexcept { return v == k48 ? ~uint64_t{0} : v; }
  struct PackedEdge {
    uint32_t handle_lo, handle_hi;
    uint32_t id_lo;
    uint8_t id_hi;
    uint8_t dst_type;
    uint16_t kind;  // KindId in 15 bits, 0 = removed; top bit: slot-keyed
    uint32_t slot;
    uint32_t dst_name;
    uint32_t offset_lo, size_lo;
    uint16_t offset_hi, size_hi;
  };
  static_assert(sizeof(PackedEdge) == 36, "keep edges compact");

  // The stored form of `e` as of kind `kind` (its interned kind; 0: not stored).
  static PackedEdge pack(const Edge& e, KindId kind) noexcept {
    PackedEdge p;
    p.handle_lo = static_cast<uint32_t>(e.dst_handle);
    p.handle_hi = static_cast<uint32_t>(e.dst_handle >> 32);
    p.id_lo = static_cast<uint32_t>(e.dst_id);
    p.id_hi = static_cast<uint8_t>(e.dst_id >> 32);
    p.dst_type = static_cast<uint8_t>(e.dst_type);
    p.kind = static_cast<uint16_t>(kind | (e.slot_keyed ? kSlotKeyedBit : 0));
    p.slot = e.slot;
    p.dst_name = e.dst_name;
    const uint64_t offset = clamp48(e.offset), size = clamp48(e.size);
    p.offset_lo = static_cast<uint32_t>(offset);
    p.offset_hi = static_cast<uint16_t>(offset >> 32);
    p.size_lo = static_cast<uint32_t>(size);
    p.size_hi = static_cast<uint16_t>(size >> 32);
    return p;
  }

 private:
  static constexpr uint32_t kShardBits = 6;
  static constexpr uint32_t kShards = 1u << kShardBits;
  static constexpr uint32_t kChunkEntries = 512;
  static constexpr uint32_t kEmpty = 0;
  enum : uint8_t { kFree = 0, kInline = 1, kSpilled = 2 };

  // More than one edge: insertion order, removed edges (kind 0) until compaction, and past a
  // few edges an open-addressing index of the slot-keyed ones by slot (1-based positions).
  struct Spill {
    std::vector<PackedEdge> edges;
    std::vector<uint32_t> index;
    uint32_t index_used = 0;  // occupied index slots, stale ones (removed edges) included
    uint32_t removed = 0;
  };

  // 48 bytes: the source key, then one inline edge or the spilled list's pointer.
  struct Entry {
    uint32_t handle_lo, handle_hi;
    uint8_t type;    // source ObjectType
    uint8_t mode;    // kFree, kInline, kSpilled
    uint16_t count;  // kInline: 0 or 1
    PackedEdge one;  // kInline: the edge; kSpilled: the Spill*; kFree: next free entry
    uint64_t handle() const noexcept { return handle_lo | static_cast<uint64_t>(handle_hi) << 32; }
    Spill* spill() const noexcept {
      Spill* p;
      std::memcpy(&p, &one, sizeof p);
      return p;
    }
    void set_spill(Spill* p) noexcept { std::memcpy(&one, &p, sizeof p); }
    const PackedEdge* list(uint32_t* n) const noexcept {
      if (mode == kSpilled) {
        const Spill* sp = spill();
        *n = static_cast<uint32_t>(sp->edges.size());
        return sp->edges.data();
      }
      *n = count;
      return &one;
    }
  };
  static_assert(sizeof(Entry) == 48, "an entry with one edge costs one 48-byte slab slot");

  struct alignas(64) Shard {
    mutable SpinLock mutex;
    std::vector<std::unique_ptr<Entry[]>> chunks;
    uint32_t slab_used = 0;       // entries handed out from chunks so far
    uint32_t free_head = kEmpty;  // 1-based index of the first free entry
    std::vector<uint32_t, CacheAlignedAllocator<uint32_t>> index;  // 1-based entry indices
    uint32_t live = 0;
    std::vector<Spill*> spare;  // erased sources' lists, kept for reuse

    Entry& entry(uint32_t one_based) {
      const uint32_t i = one_based - 1;
      return chunks[i / kChunkEntries][i % kChunkEntries];
    }
    const Entry& entry(uint32_t one_based) const {
      const uint32_t i = one_based - 1;
      return chunks[i / kChunkEntries][i % kChunkEntries];
    }
    uint32_t* find_slot(uint64_t handle, ObjectType type);
    Entry* find(uint64_t handle, ObjectType type);
    // The entry of (handle, type), a new empty one if it has none; `hash` = mix(handle, type).
    Entry& find_or_insert(uint64_t handle, ObjectType type, uint64_t hash);
    void grow_index();
    Spill* take_spill();
    void give_spill(Spill* sp) noexcept;
  };

  static uint64_t mix(uint64_t handle, ObjectType type) noexcept;
  Shard& shard_for(uint64_t handle, ObjectType type) const noexcept {
    return shards_[mix(handle, type) >> (64 - kShardBits)];
  }
  static Edge unpack(const PackedEdge& p) noexcept;
  // Stores one edge; `hint`: where the edge of its slot probably is (a run of writes into
  // consecutive slots). Returns the hint for the next edge.
  static uint32_t add_one(Shard& s, Entry& en, const PackedEdge& pe, uint32_t hint);
  static void release_names(const Entry& en) noexcept;  // of its live edges

  std::unique_ptr<Shard[]> shards_;
};

}  // namespace vkleak
