#include "store/edge_store.h"

#include <atomic>
#include <new>
#include <string>

#include "store/names.h"

namespace vkleak {
namespace {

// --- Kind interning ---
// A lock-free cache by pointer (literals are few and reused), then a locked lookup by content
// (the same literal may have one address per translation unit).
constexpr uint32_t kMaxKinds = 1u << 12;
constexpr uint32_t kCacheSlots = 1u << 12;  // power of two
constexpr uint32_t kCacheProbes = 16;

struct KindTable {
  std::mutex mutex;
  std::atomic<uint32_t> count{1};  // id 0 is no kind
  const char* names[kMaxKinds] = {"?"};
  KindId parent[kMaxKinds] = {};  // the kind this one is under ("descriptor" for
                                  // "descriptor.sampler"), 0 for none
  std::atomic<const char*> cache_key[kCacheSlots] = {};
  std::atomic<KindId> cache_id[kCacheSlots] = {};
  std::vector<std::unique_ptr<char[]>> owned;  // spellings of parents never passed in

  static uint32_t home(const char* p) noexcept {
    return static_cast<uint32_t>((reinterpret_cast<uintptr_t>(p) * 0x9e3779b97f4a7c15ull) >> 40) &
           (kCacheSlots - 1);
  }
  KindId cached(const char* p) const noexcept {
    uint32_t pos = home(p);
    for (uint32_t i = 0; i < kCacheProbes; ++i, pos = (pos + 1) & (kCacheSlots - 1)) {
      const char* k = cache_key[pos].load(std::memory_order_acquire);
      if (k == p) return cache_id[pos].load(std::memory_order_relaxed);
      if (!k) return 0;
    }
    return 0;
  }
  void cache(const char* p, KindId id) noexcept {  // under mutex
    uint32_t pos = home(p);
    for (uint32_t i = 0; i < kCacheProbes; ++i, pos = (pos + 1) & (kCacheSlots - 1)) {
      if (cache_key[pos].load(std::memory_order_relaxed)) continue;
      cache_id[pos].store(id, std::memory_order_relaxed);
      cache_key[pos].store(p, std::memory_order_release);
      return;
    }  // full window: this spelling takes the locked path each time
  }
  // Under mutex: the id of the first `len` characters of `s`, added when new.
  KindId lookup_or_add(const char* s, size_t len, bool static_spelling) noexcept {
    const uint32_t n = count.load(std::memory_order_relaxed);
    for (uint32_t i = 1; i < n; ++i)
      if (std::strncmp(names[i], s, len) == 0 && names[i][len] == '\0')
        return static_cast<KindId>(i);
    if (n >= kMaxKinds) return 0;
    KindId up = 0;
    for (size_t i = len; i-- > 0;)
      if (s[i] == '.') {
        up = lookup_or_add(s, i, false);
        break;
      }
    const char* name = s;
    if (!static_spelling) {
      try {
        owned.emplace_back(new char[len + 1]);
      } catch (...) {
        return 0;
      }
      std::memcpy(owned.back().get(), s, len);
      owned.back()[len] = '\0';
      name = owned.back().get();
    }
    const uint32_t id = count.load(std::memory_order_relaxed);
    if (id >= kMaxKinds) return 0;
    names[id] = name;
    parent[id] = up;
    count.store(id + 1, std::memory_order_release);
    return static_cast<KindId>(id);
  }
};

KindTable& kinds() noexcept {
  static KindTable* table = new KindTable;  // never destroyed: hooks may run during exit
  return *table;
}

}  // namespace

KindId intern_kind(const char* kind) noexcept {
  if (!kind) return 0;
  KindTable& t = kinds();
  if (KindId id = t.cached(kind)) return id;
  std::lock_guard<std::mutex> lock(t.mutex);
  KindId id = t.lookup_or_add(kind, std::strlen(kind), true);
  if (id) t.cache(kind, id);
  return id;
}

const char* kind_name(KindId id) noexcept {
  KindTable& t = kinds();
  return id < t.count.load(std::memory_order_acquire) ? t.names[id] : "?";
}

bool kind_under(KindId kind, KindId prefix) noexcept {
  if (!kind || !prefix) return false;
  const KindTable& t = kinds();
  for (int depth = 0; kind && depth < 16; ++depth, kind = t.parent[kind])
    if (kind == prefix) return true;
  return false;
}

// --- Packing ---
namespace {

constexpr uint32_t kIndexFrom = 8;     // lists longer than this get a slot index
constexpr uint32_t kSpareSpills = 64;  // pooled lists per shard
constexpr uint32_t kSpareCapacity = 16;

uint32_t slot_home(uint32_t slot) noexcept {
  return slot * 0x9e3779b1u;
}

}  // namespace

Edge EdgeStore::unpack(const PackedEdge& p) noexcept {
  Edge e;
  e.kind_id = static_cast<KindId>(p.kind & ~kSlotKeyedBit);
  e.kind = kind_name(e.kind_id);
  e.dst_id = p.id_lo | static_cast<uint64_t>(p.id_hi) << 32;
  e.dst_handle = p.handle_lo | static_cast<uint64_t>(p.handle_hi) << 32;
  e.offset = widen48(p.offset_lo | static_cast<uint64_t>(p.offset_hi) << 32);
  e.size = widen48(p.size_lo | static_cast<uint64_t>(p.size_hi) << 32);
  e.slot = p.slot;
  e.dst_name = p.dst_name;
  e.dst_type = static_cast<ObjectType>(p.dst_type);
  e.slot_keyed = (p.kind & kSlotKeyedBit) != 0;
  return e;
}

// --- Spilled lists ---
namespace {

using PackedEdge = EdgeStore::PackedEdge;

bool keyed(const PackedEdge& e) noexcept {
  return (e.kind & 0x8000) != 0;
}
KindId kind_of(const PackedEdge& e) noexcept {
  return static_cast<KindId>(e.kind & 0x7fff);
}

template <typename Spill>
void rebuild_index(Spill* sp) {
  // Fresh first: on bad_alloc the list is searched linearly until the next try.
  uint32_t keyed_live = 0;
  for (const PackedEdge& e : sp->edges)
    if (keyed(e)) keyed_live++;
  size_t capacity = 16;
  while (capacity * 3 < (keyed_live + 1) * 8) capacity *= 2;  // about 3/8 full after
  std::vector<uint32_t> fresh;
  try {
    fresh.assign(capacity, 0);
  } catch (...) {
    sp->index.clear();
    sp->index_used = 0;
    throw;
  }
  const uint32_t mask = static_cast<uint32_t>(capacity - 1);
  for (uint32_t i = 0; i < sp->edges.size(); ++i) {
    if (!keyed(sp->edges[i])) continue;
    uint32_t pos = slot_home(sp->edges[i].slot) & mask;
    while (fresh[pos]) pos = (pos + 1) & mask;
    fresh[pos] = i + 1;
  }
  sp->index.swap(fresh);
  sp->index_used = keyed_live;
}

template <typename Spill>
void try_rebuild_index(Spill* sp) noexcept {
  try {
    rebuild_index(sp);
  } catch (...) {  // rebuild_index left no index
  }
}

// Calls f(PackedEdge&) for each live slot-keyed edge in `slot` until f returns true.
template <typename Spill, typename F>
void for_slot(Spill* sp, uint32_t slot, F&& f) {
  if (sp->index.empty()) {
    for (auto& e : sp->edges)
      if (keyed(e) && e.slot == slot && f(e)) return;
    return;
  }
  const uint32_t mask = static_cast<uint32_t>(sp->index.size() - 1);
  for (uint32_t pos = slot_home(slot) & mask; sp->index[pos]; pos = (pos + 1) & mask) {
    auto& e = sp->edges[sp->index[pos] - 1];
    if (keyed(e) && e.slot == slot && f(e)) return;
  }
}

}  // namespace

EdgeStore::Spill* EdgeStore::Shard::take_spill() {
  if (!spare.empty()) {
    Spill* sp = spare.back();
    spare.pop_back();
    return sp;
  }
  return new Spill;
}

void EdgeStore::Shard::give_spill(Spill* sp) noexcept {
  if (spare.size() < kSpareSpills && sp->edges.capacity() <= kSpareCapacity) {
    sp->edges.clear();
    std::vector<uint32_t>().swap(sp->index);
    sp->index_used = 0;
    sp->removed = 0;
    try {
      spare.push_back(sp);
      return;
    } catch (...) {
    }
  }
  delete sp;
}

namespace {

// Overwrites a stored edge with `pe`; the names' references follow. A rewrite with the same
// name (often the same target) takes and gives none.
void replace_edge(PackedEdge& old, const PackedEdge& pe) noexcept {
  if (old.dst_name != pe.dst_name) {
    retain_name(pe.dst_name);
    release_name(old.dst_name);
  }
  old = pe;
}

}  // namespace

// Appends or replaces one edge of the entry, taking a reference to its name when stored.
// Throws std::bad_alloc (the entry stays valid, the edge not stored).
uint32_t EdgeStore::add_one(Shard& s, Entry& en, const PackedEdge& pe, uint32_t hint) {
  const KindId kind = kind_of(pe);
  if (en.mode == kInline) {
    if (en.count == 0 ||
        (keyed(pe) && keyed(en.one) && en.one.slot == pe.slot && kind_of(en.one) == kind)) {
      if (en.count) {
        replace_edge(en.one, pe);
      } else {
        retain_name(pe.dst_name);
        en.one = pe;
        en.count = 1;
      }
      return 0;
    }
    Spill* sp = s.take_spill();
    try {
      sp->edges.reserve(4);
    } catch (...) {
      s.give_spill(sp);
      throw;
    }
    sp->edges.push_back(en.one);
    sp->edges.push_back(pe);
    retain_name(pe.dst_name);
    en.mode = kSpilled;
    en.count = 0;
    en.set_spill(sp);
    return 2;
  }
  Spill* sp = en.spill();
  if (keyed(pe)) {
    // A list holds at most one live slot-keyed edge of a kind in a slot (this function
    // replaces it), so the one at the hint is the one for_slot would find. A set rewritten
    // slot by slot in its list's order finds it there, without a search.
    if (hint < sp->edges.size()) {
      PackedEdge& old = sp->edges[hint];
      if (keyed(old) && old.slot == pe.slot && kind_of(old) == kind) {
        replace_edge(old, pe);
        return hint + 1;
      }
    }
    PackedEdge* replaced = nullptr;
    for_slot(sp, pe.slot, [&](PackedEdge& old) {
      if (kind_of(old) != kind) return false;
      replace_edge(old, pe);
      replaced = &old;
      return true;
    });
    if (replaced) return static_cast<uint32_t>(replaced - sp->edges.data()) + 1;
  }
  if (sp->removed > kIndexFrom && sp->removed * 2 > sp->edges.size()) {
    // Mostly removed edges (descriptors cleared by copies): compact, keeping the order.
    size_t out = 0;
    for (const PackedEdge& e : sp->edges)
      if (e.kind) sp->edges[out++] = e;
    sp->edges.resize(out);
    sp->removed = 0;
    if (sp->edges.size() > kIndexFrom)
      rebuild_index(sp);
    else
      std::vector<uint32_t>().swap(sp->index);
  }
  sp->edges.push_back(pe);
  retain_name(pe.dst_name);
  // The edge is stored: from here a failed index rebuild only leaves the list unindexed
  // (searched linearly), so that a throw always means "not stored".
  if (sp->index.empty()) {
    if (sp->edges.size() > kIndexFrom) try_rebuild_index(sp);
  } else if (keyed(pe)) {
    if ((sp->index_used + 1) * 4 > sp->index.size() * 3) {
      try_rebuild_index(sp);
    } else {
      const uint32_t mask = static_cast<uint32_t>(sp->index.size() - 1);
      uint32_t pos = slot_home(pe.slot) & mask;
      while (sp->index[pos]) pos = (pos + 1) & mask;
      sp->index[pos] = static_cast<uint32_t>(sp->edges.size());
      sp->index_used++;
    }
  }
  return static_cast<uint32_t>(sp->edges.size());
}

// --- The table ---

EdgeStore::EdgeStore() : shards_(new Shard[kShards]) {}

EdgeStore::~EdgeStore() {
  for (uint32_t k = 0; k < kShards; ++k) {
    Shard& s = shards_[k];
    for (uint32_t i = 1; i <= s.slab_used; ++i) {
      Entry& en = s.entry(i);
      release_names(en);
      if (en.mode == kSpilled) delete en.spill();
    }
    for (Spill* sp : s.spare) delete sp;
  }
}

uint64_t EdgeStore::mix(uint64_t handle, ObjectType type) noexcept {
  // splitmix64 finalizer, as ObjectTable: heap pointers share their high and low bits.
  uint64_t x = handle ^ (static_cast<uint64_t>(type) * 0x9e3779b97f4a7c15ull);
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

uint32_t* EdgeStore::Shard::find_slot(uint64_t handle, ObjectType type) {
  if (index.empty()) return nullptr;
  const uint32_t mask = static_cast<uint32_t>(index.size() - 1);
  const uint32_t lo = static_cast<uint32_t>(handle), hi = static_cast<uint32_t>(handle >> 32);
  for (uint32_t pos = static_cast<uint32_t>(mix(handle, type)) & mask;; pos = (pos + 1) & mask) {
    const uint32_t v = index[pos];
    if (v == kEmpty) return nullptr;
    const Entry& en = entry(v);
    if (en.handle_lo == lo && en.handle_hi == hi && en.type == static_cast<uint8_t>(type))
      return &index[pos];
  }
}

EdgeStore::Entry* EdgeStore::Shard::find(uint64_t handle, ObjectType type) {
  uint32_t* slot = find_slot(handle, type);
  return slot ? &entry(*slot) : nullptr;
}

void EdgeStore::Shard::grow_index() {
  size_t capacity = index.empty() ? 64 : index.size();
  while ((live + 1) * 4 > capacity * 3) capacity *= 2;
  decltype(index) fresh(capacity, kEmpty);
  const uint32_t mask = static_cast<uint32_t>(capacity - 1);
  for (uint32_t v : index) {
    if (v == kEmpty) continue;
    const Entry& en = entry(v);
    uint32_t pos = static_cast<uint32_t>(mix(en.handle(), static_cast<ObjectType>(en.type))) & mask;
    while (fresh[pos] != kEmpty) pos = (pos + 1) & mask;
    fresh[pos] = v;
  }
  index.swap(fresh);
}

EdgeStore::Entry& EdgeStore::Shard::find_or_insert(uint64_t handle, ObjectType type,
                                                   uint64_t hash) {
  // Everything that may throw first, so that a failure leaves the shard as it was.
  if ((live + 1) * 4 > index.size() * 3) grow_index();
  // One probe: stop at the key or at the empty slot that takes it.
  const uint32_t mask = static_cast<uint32_t>(index.size() - 1);
  const uint32_t lo = static_cast<uint32_t>(handle), hi = static_cast<uint32_t>(handle >> 32);
  uint32_t pos = static_cast<uint32_t>(hash) & mask;
  for (uint32_t v; (v = index[pos]) != kEmpty; pos = (pos + 1) & mask) {
    Entry& en = entry(v);
    if (en.handle_lo == lo && en.handle_hi == hi && en.type == static_cast<uint8_t>(type))
      return en;
  }
  uint32_t i;
  if (free_head != kEmpty) {
    i = free_head;
    free_head = entry(i).handle_lo;  // free entries chain through handle_lo
  } else {
    if (slab_used == chunks.size() * kChunkEntries) chunks.emplace_back(new Entry[kChunkEntries]);
    i = ++slab_used;
  }
  Entry& en = entry(i);
  en.handle_lo = static_cast<uint32_t>(handle);
  en.handle_hi = static_cast<uint32_t>(handle >> 32);
  en.type = static_cast<uint8_t>(type);
  en.mode = kInline;
  en.count = 0;
  index[pos] = i;
  live++;
  return en;
}

void EdgeStore::add(uint64_t src, ObjectType type, const Edge* edges, size_t count) {
  if (count == 0) return;
  // Interned outside the lock (the first sight of a kind takes the kinds' mutex).
  PackedEdge local[8];
  std::vector<PackedEdge> many;
  PackedEdge* packed = local;
  if (count > 8) {
    many.resize(count);
    packed = many.data();
  }
  for (size_t i = 0; i < count; ++i) {
    const KindId kind = edges[i].kind_id ? edges[i].kind_id : intern_kind(edges[i].kind);
    packed[i] = pack(edges[i], kind);  // kind 0 (kinds full): not stored
  }
  add_packed(src, type, packed, count);
}

void EdgeStore::add_packed(uint64_t src, ObjectType type, const PackedEdge* packed, size_t count) {
  if (count == 0) return;
  const uint64_t hash = mix(src, type);
  Shard& s = shards_[hash >> (64 - kShardBits)];
  std::lock_guard<SpinLock> lock(s.mutex);
  Entry& en = s.find_or_insert(src, type, hash);
  uint32_t hint = 0;
  size_t i = 0;
  while (i < count) {
    // add_one's first case inline: a set rewritten in its list's order. The list keeps its
    // place and length while edges are only replaced, so it is read once for the run (the
    // name calls in between would make the compiler reload it for every edge; issue 28).
    if (en.mode == kSpilled) {
      std::vector<PackedEdge>& edges = en.spill()->edges;
      PackedEdge* const list = edges.data();
      const size_t size = edges.size();
      for (; i < count && hint < size; ++i, ++hint) {
        const PackedEdge& pe = packed[i];
        if (!(keyed(pe) && kind_of(pe) && list[hint].kind == pe.kind && list[hint].slot == pe.slot))
          break;
        replace_edge(list[hint], pe);
      }
      if (i == count) break;
    }
    const PackedEdge& pe = packed[i++];
    if (kind_of(pe)) hint = add_one(s, en, pe, hint);  // kind 0 (kinds full): not stored
  }
}

void EdgeStore::release_names(const Entry& en) noexcept {
  uint32_t n = 0;
  const PackedEdge* list = en.list(&n);
  for (uint32_t j = 0; j < n; ++j)
    if (list[j].kind) release_name(list[j].dst_name);
}

void EdgeStore::remove_slot(uint64_t src, ObjectType type, const char* kind,
                            uint32_t slot) noexcept {
  const KindId prefix = intern_kind(kind);
  Shard& s = shard_for(src, type);
  std::lock_guard<SpinLock> lock(s.mutex);
  Entry* en = s.find(src, type);
  if (!en) return;
  if (en->mode == kInline) {
    if (en->count && keyed(en->one) && en->one.slot == slot &&
        kind_under(kind_of(en->one), prefix)) {
      release_name(en->one.dst_name);
      en->count = 0;
    }
    return;
  }
  Spill* sp = en->spill();
  for_slot(sp, slot, [&](PackedEdge& e) {
    if (kind_under(kind_of(e), prefix)) {
      release_name(e.dst_name);
      e.kind = 0;  // removed; the slot index skips it until rebuilt
      sp->removed++;
    }
    return false;
  });
}

void EdgeStore::erase(uint64_t src, ObjectType type) noexcept {
  Shard& s = shard_for(src, type);
  std::lock_guard<SpinLock> lock(s.mutex);
  uint32_t* slot = s.find_slot(src, type);
  if (!slot) return;
  const uint32_t i = *slot;
  Entry& en = s.entry(i);
  release_names(en);
  if (en.mode == kSpilled) s.give_spill(en.spill());
  // Backward-shift deletion (as ObjectTable): no tombstones to probe through under churn.
  const uint32_t mask = static_cast<uint32_t>(s.index.size() - 1);
  uint32_t hole = static_cast<uint32_t>(slot - s.index.data());
  for (uint32_t j = (hole + 1) & mask; s.index[j] != kEmpty; j = (j + 1) & mask) {
    const Entry& m = s.entry(s.index[j]);
    const uint32_t home =
        static_cast<uint32_t>(mix(m.handle(), static_cast<ObjectType>(m.type))) & mask;
    const bool movable = (hole <= j) ? (home <= hole || home > j) : (home <= hole && home > j);
    if (movable) {
      s.index[hole] = s.index[j];
      hole = j;
    }
  }
  s.index[hole] = kEmpty;
  s.live--;
  en.mode = kFree;
  en.count = 0;
  en.handle_lo = s.free_head;
  s.free_head = i;
}

void EdgeStore::get(uint64_t src, ObjectType type, std::vector<Edge>* out) const {
  out->clear();
  Shard& s = shard_for(src, type);
  std::lock_guard<SpinLock> lock(s.mutex);
  const Entry* en = s.find(src, type);
  if (!en) return;
  uint32_t n = 0;
  const PackedEdge* list = en->list(&n);
  out->reserve(n);
  for (uint32_t i = 0; i < n; ++i)
    if (list[i].kind) out->push_back(unpack(list[i]));
}

bool EdgeStore::find(uint64_t src, ObjectType type, KindId kind, Edge* out) const noexcept {
  Shard& s = shard_for(src, type);
  std::lock_guard<SpinLock> lock(s.mutex);
  const Entry* en = s.find(src, type);
  if (!en) return false;
  uint32_t n = 0;
  const PackedEdge* list = en->list(&n);
  for (uint32_t i = 0; i < n; ++i) {
    if (list[i].kind && kind_of(list[i]) == kind) {
      *out = unpack(list[i]);
      return true;
    }
  }
  return false;
}

size_t EdgeStore::get_slot(uint64_t src, ObjectType type, KindId kind, uint32_t slot, Edge* out,
                           size_t max) const noexcept {
  Shard& s = shard_for(src, type);
  std::lock_guard<SpinLock> lock(s.mutex);
  Entry* en = s.find(src, type);
  if (!en || max == 0) return 0;
  size_t n = 0;
  if (en->mode == kInline) {
    if (en->count && keyed(en->one) && en->one.slot == slot && kind_under(kind_of(en->one), kind))
      out[n++] = unpack(en->one);
    return n;
  }
  for_slot(en->spill(), slot, [&](PackedEdge& e) {
    if (kind_under(kind_of(e), kind)) out[n++] = unpack(e);
    return n == max;
  });
  return n;
}

uint64_t EdgeStore::memory_bytes() const noexcept {
  uint64_t n = sizeof(Shard) * kShards;
  for (uint32_t k = 0; k < kShards; ++k) {
    const Shard& s = shards_[k];
    std::lock_guard<SpinLock> lock(s.mutex);
    n += s.chunks.size() * kChunkEntries * sizeof(Entry) + s.index.capacity() * sizeof(uint32_t);
    auto spill_bytes = [](const Spill* sp) {
      return sizeof(Spill) + sp->edges.capacity() * sizeof(PackedEdge) +
             sp->index.capacity() * sizeof(uint32_t);
    };
    for (uint32_t i = 1; i <= s.slab_used; ++i)
      if (s.entry(i).mode == kSpilled) n += spill_bytes(s.entry(i).spill());
    for (const Spill* sp : s.spare) n += spill_bytes(sp);
  }
  return n;
}

}  // namespace vkleak
