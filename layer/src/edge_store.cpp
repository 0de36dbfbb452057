#include "edge_store.h"

#include <algorithm>
#include <cstring>

namespace vkleak {

EdgeStore::EdgeStore() : shards_(new Shard[kShards]) {}

void EdgeStore::add(uint64_t src, ObjectType type, const Edge* edges, size_t count) {
  Shard& s = shard_for(src, type);
  std::lock_guard<SpinLock> lock(s.mutex);
  std::vector<Edge>& list = s.edges[Key{src, type}];
  for (size_t i = 0; i < count; ++i) {
    const Edge& e = edges[i];
    bool replaced = false;
    if (e.slot_keyed) {
      // Overwrite semantics: one edge per (kind, slot). Lists are short except for large
      // descriptor arrays, where writes are rare compared with binds.
      for (Edge& old : list) {
        if (old.slot_keyed && old.slot == e.slot && std::strcmp(old.kind, e.kind) == 0) {
          old = e;
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) list.push_back(e);
  }
}

void EdgeStore::remove_slot(uint64_t src, ObjectType type, const char* kind,
                            uint32_t slot) noexcept {
  Shard& s = shard_for(src, type);
  std::lock_guard<SpinLock> lock(s.mutex);
  auto it = s.edges.find(Key{src, type});
  if (it == s.edges.end()) return;
  auto& list = it->second;
  list.erase(std::remove_if(list.begin(), list.end(),
                            [&](const Edge& e) {
                              return e.slot_keyed && e.slot == slot &&
                                     std::strncmp(e.kind, kind, std::strlen(kind)) == 0;
                            }),
             list.end());
}

void EdgeStore::erase(uint64_t src, ObjectType type) noexcept {
  Shard& s = shard_for(src, type);
  std::lock_guard<SpinLock> lock(s.mutex);
  s.edges.erase(Key{src, type});
}

void EdgeStore::get(uint64_t src, ObjectType type, std::vector<Edge>* out) const {
  out->clear();
  Shard& s = shard_for(src, type);
  std::lock_guard<SpinLock> lock(s.mutex);
  auto it = s.edges.find(Key{src, type});
  if (it != s.edges.end()) *out = it->second;
}

}  // namespace vkleak
