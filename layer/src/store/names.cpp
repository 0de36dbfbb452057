// The name table without a process-wide lock (issue 28). Ids index one append-only array of
// entries whose reference counts are atomics: retain_name and release_name (edges stored and
// replaced, destroys of named objects) touch only their entry, and only a release that drops
// the last reference takes a lock, that of the shard its name is in. Names map to ids in 64
// shards by a hash of the string, each behind its own mutex (intern_name, freeing an id). Free
// ids go back to one lock-free stack, so that churn of unique names reuses them whatever shard
// each name falls in.
#include "store/names.h"

#include <atomic>
#include <functional>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "base/append_only_array.h"
#include "base/cache_aligned.h"

namespace vkleak {
namespace {

constexpr uint32_t kShardBits = 6;
constexpr uint32_t kShards = 1u << kShardBits;
constexpr uint32_t kNoShard = kShards;

struct Entry {
  // Written under the lock of the shard in `shard` while the entry belongs to it; null: free.
  std::atomic<const std::string*> name{nullptr};
  std::atomic<uint32_t> refs{0};
  std::atomic<uint32_t> shard{kNoShard};
  std::atomic<uint32_t> next_free{0};  // the free stack's link (an id, 0: none)
};

struct alignas(kCacheLine) Shard {
  std::mutex mutex;
  std::unordered_map<std::string, uint32_t> ids;
  std::vector<uint32_t> unreferenced;  // refs dropped to 0 while pinned
};

struct NameTable {
  // 4,096 entries a chunk, up to 4,096 chunks (16M names alive at once; then intern gives 0).
  AppendOnlyArray<Entry, 12, 4096> entries;  // id = index (1-based: 0 is "no name")
  std::atomic<uint64_t> free_head{0};        // low 32 bits: an id; high: a tag against ABA
  std::atomic<uint32_t> pins{0};
  Shard shards[kShards];

  Entry& entry(uint32_t id) noexcept { return *entries.slot(id); }
  // The entry of an id handed out, or null (0, never handed out).
  Entry* find(uint32_t id) noexcept {
    if (id == 0 || id > entries.size()) return nullptr;
    return const_cast<Entry*>(entries.at(id));
  }

  uint32_t take_id() noexcept {
    uint64_t head = free_head.load(std::memory_order_acquire);
    while (static_cast<uint32_t>(head) != 0) {
      const uint32_t id = static_cast<uint32_t>(head);
      const uint32_t next = entry(id).next_free.load(std::memory_order_relaxed);
      const uint64_t tag = (head >> 32) + 1;
      if (free_head.compare_exchange_weak(head, tag << 32 | next, std::memory_order_acquire,
                                          std::memory_order_acquire))
        return id;
    }
    return entries.allocate();  // 0 when full or out of memory
  }
  void give_id(uint32_t id) noexcept {
    Entry& e = entry(id);
    uint64_t head = free_head.load(std::memory_order_relaxed);
    for (;;) {
      e.next_free.store(static_cast<uint32_t>(head), std::memory_order_relaxed);
      const uint64_t tag = (head >> 32) + 1;
      if (free_head.compare_exchange_weak(head, tag << 32 | id, std::memory_order_release,
                                          std::memory_order_relaxed))
        return;
    }
  }

  // Under s.mutex, the entry being s's and its last reference gone.
  void free_id(Shard& s, uint32_t id) noexcept {
    Entry& e = entry(id);
    const std::string* name = e.name.load(std::memory_order_relaxed);
    e.name.store(nullptr, std::memory_order_relaxed);
    e.shard.store(kNoShard, std::memory_order_relaxed);
    s.ids.erase(*name);
    give_id(id);
  }
  // Under s.mutex: the last reference of `id` went; free it unless named again since (or
  // keep it for a snapshot in progress).
  void drop(Shard& s, uint32_t shard, uint32_t id) noexcept {
    Entry& e = entry(id);
    if (e.shard.load(std::memory_order_relaxed) != shard ||
        !e.name.load(std::memory_order_relaxed) || e.refs.load(std::memory_order_acquire) != 0)
      return;  // freed by another releaser, or referenced again
    if (pins.load(std::memory_order_acquire) == 0) {
      free_id(s, id);
      return;
    }
    try {
      s.unreferenced.push_back(id);
    } catch (...) {
      free_id(s, id);  // rather than leak it: a snapshot in progress may miss this name
    }
  }
};

std::atomic<NameTable*> g_table{nullptr};  // constant-initialized: no static constructor

__attribute__((noinline)) NameTable& make_table() {
  static auto* t = new NameTable;  // never destroyed: hooks may run while the process exits
  g_table.store(t, std::memory_order_release);
  return *t;
}

// Inline, with its first use out of line: retain and release run for every named edge stored
// or replaced, and the function-static's guard inline made them save four registers (issue 28).
inline NameTable& table() {
  if (NameTable* t = g_table.load(std::memory_order_acquire)) return *t;
  return make_table();
}

uint32_t shard_of(std::string_view name) noexcept {
  return static_cast<uint32_t>((std::hash<std::string_view>{}(name)*0x9E3779B97F4A7C15ull) >>
                               (64 - kShardBits));
}

}  // namespace

uint32_t intern_name(const char* name) noexcept {
  if (!name || !*name) return 0;
  try {
    NameTable& t = table();
    const uint32_t k = shard_of(name);
    Shard& s = t.shards[k];
    std::lock_guard<std::mutex> lock(s.mutex);
    auto [it, inserted] = s.ids.emplace(name, 0);
    if (!inserted) {
      t.entry(it->second).refs.fetch_add(1, std::memory_order_relaxed);
      return it->second;
    }
    const uint32_t id = t.take_id();
    if (id == 0) {
      s.ids.erase(it);
      return 0;
    }
    it->second = id;
    Entry& e = t.entry(id);
    e.refs.store(1, std::memory_order_relaxed);
    e.shard.store(k, std::memory_order_relaxed);
    e.name.store(&it->first, std::memory_order_release);
    return id;
  } catch (...) {
    return 0;
  }
}

void retain_named(uint32_t id) noexcept {
  // The caller holds a reference (a live record's, an edge's): the count is not 0 and the
  // entry cannot be freed meanwhile.
  if (Entry* e = table().find(id)) e->refs.fetch_add(1, std::memory_order_relaxed);
}

namespace {

// release_named's last reference: free the name under its shard's lock, unless named again
// meanwhile. Out of line, so that the common release saves no registers (issue 28).
__attribute__((noinline)) void release_last(NameTable& t, Entry* e, uint32_t id) noexcept {
  const uint32_t k = e->shard.load(std::memory_order_acquire);
  if (k >= kShards) return;
  Shard& s = t.shards[k];
  std::lock_guard<std::mutex> lock(s.mutex);
  t.drop(s, k, id);
}

}  // namespace

void release_named(uint32_t id) noexcept {
  NameTable& t = table();
  Entry* e = t.find(id);
  if (!e) return;
  uint32_t refs = e->refs.load(std::memory_order_relaxed);
  do {
    if (refs == 0) return;  // not held (a stray release): as before, ignored
  } while (!e->refs.compare_exchange_weak(refs, refs - 1, std::memory_order_acq_rel,
                                          std::memory_order_relaxed));
  if (refs == 1) release_last(t, e, id);
}

std::string name_string(uint32_t id) {
  NameTable& t = table();
  Entry* e = t.find(id);
  if (!e) return std::string();
  const uint32_t k = e->shard.load(std::memory_order_acquire);
  if (k >= kShards) return std::string();
  std::lock_guard<std::mutex> lock(t.shards[k].mutex);
  // While the entry is k's with a name, only k's lock can free it.
  const std::string* name = e->name.load(std::memory_order_relaxed);
  return e->shard.load(std::memory_order_relaxed) == k && name ? *name : std::string();
}

void copy_names(std::vector<std::string>* out) {
  NameTable& t = table();
  for (Shard& s : t.shards) s.mutex.lock();  // no name comes or goes meanwhile
  try {
    out->assign(t.entries.size() + 1, std::string());
    for (Shard& s : t.shards)
      for (const auto& [name, id] : s.ids) (*out)[id] = name;
  } catch (...) {
    for (Shard& s : t.shards) s.mutex.unlock();
    throw;
  }
  for (Shard& s : t.shards) s.mutex.unlock();
}

NamePin::NamePin() noexcept {
  table().pins.fetch_add(1, std::memory_order_acq_rel);
}

NamePin::~NamePin() {
  NameTable& t = table();
  if (t.pins.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  for (uint32_t k = 0; k < kShards; ++k) {
    Shard& s = t.shards[k];
    std::lock_guard<std::mutex> lock(s.mutex);
    if (t.pins.load(std::memory_order_acquire) != 0) return;  // a new pin keeps the rest
    for (uint32_t id : s.unreferenced) {
      Entry& e = t.entry(id);
      if (e.shard.load(std::memory_order_relaxed) == k && e.name.load(std::memory_order_relaxed) &&
          e.refs.load(std::memory_order_acquire) == 0)
        t.free_id(s, id);  // not named again since
    }
    std::vector<uint32_t>().swap(s.unreferenced);
  }
}

size_t live_name_count() noexcept {
  NameTable& t = table();
  size_t n = 0;
  for (Shard& s : t.shards) {
    std::lock_guard<std::mutex> lock(s.mutex);
    n += s.ids.size();
  }
  return n;
}

size_t name_slot_count() noexcept {
  return table().entries.size();
}

}  // namespace vkleak
