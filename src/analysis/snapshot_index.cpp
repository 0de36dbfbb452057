#include "analysis/snapshot_index.h"

#include <algorithm>
#include <limits>

#include "format/snapshot_format.h"
#include "shared/escape.h"

namespace vkleak::analysis {

bool is_teardown(const Snapshot& snapshot) {
  return snapshot.reason == format::name(format::Reason::kDeviceDestroy) ||
         snapshot.reason == format::name(format::Reason::kInstanceDestroy);
}

namespace {

template <typename T>
uint16_t index_of(const std::vector<std::string>& table, const T& value) {
  for (size_t i = 0; i < table.size(); ++i) {
    if (table[i] == value) return static_cast<uint16_t>(i);
  }
  return UINT16_MAX;
}

uint32_t clamp_frame(uint64_t frame) {
  return static_cast<uint32_t>(std::min<uint64_t>(frame, kNever - 1));
}

}  // namespace

SnapshotIndex::SnapshotIndex(const Snapshot& snapshot, CallsiteTable* callsites, GroupTable* groups)
    : s_(snapshot) {
  const size_t n = s_.objects.size();
  callsite_ids_ = callsites->add_snapshot(s_);
  memory_type_ = index_of(s_.type_names, "VkDeviceMemory");
  memory_kind_ = index_of(s_.edge_kinds, format::kEdgeKindMemory);
  sparse_kind_ = index_of(s_.edge_kinds, "memory.sparse");

  // Ids are unique in a snapshot but come in table order, not id order.
  by_id_.resize(n);
  for (size_t i = 0; i < n; ++i) by_id_[i] = {s_.objects[i].id, static_cast<uint32_t>(i)};
  std::sort(by_id_.begin(), by_id_.end());
  for (size_t i = 0; i < s_.destroyed.size(); ++i) destroyed_.emplace(s_.destroyed[i].id, i);

  // Groups: a cache per (type, call site or name pattern) of this snapshot.
  std::vector<uint32_t> type_ids(s_.type_names.size());
  for (size_t t = 0; t < type_ids.size(); ++t) type_ids[t] = groups->type_id(s_.type_names[t]);
  std::vector<uint32_t> pattern_of_name(s_.names.size(), kNoPattern);
  std::unordered_map<uint64_t, uint32_t> cache;
  group_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const Object& o = s_.objects[i];
    uint64_t key;
    uint32_t pattern = kNoPattern;
    if (o.callsite >= 0) {
      key = uint64_t{o.type} << 32 | static_cast<uint32_t>(o.callsite);
    } else {
      if (o.name != kNoName) {
        uint32_t& p = pattern_of_name[static_cast<size_t>(o.name)];
        if (p == kNoPattern) {
          p = groups->pattern_id(name_pattern(s_.names[static_cast<size_t>(o.name)]));
        }
        pattern = p;
      }
      key = uint64_t{1} << 63 | uint64_t{o.type} << 32 | pattern;
    }
    auto [it, added] = cache.try_emplace(key, 0);
    if (added) it->second = groups->group(type_ids[o.type], callsite(i), pattern);
    group_[i] = it->second;
  }

  // Frames: each device counts its own.
  std::unordered_map<int64_t, uint64_t> device_frame;
  for (const Device& d : s_.devices) device_frame[d.id] = d.frame;
  now_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    auto it = device_frame.find(s_.objects[i].owner);
    now_[i] = it == device_frame.end() ? s_.frame : it->second;
  }
  last_use_.assign(n, kNever);
  for (const LastUse& u : s_.last_uses) {
    if (u.object < n) last_use_[u.object] = clamp_frame(u.frame);
  }

  // Edges are sorted by source (the parser files them in object order).
  edge_begin_.assign(n + 1, 0);
  for (const Edge& e : s_.edges) {
    if (e.from < n) ++edge_begin_[e.from + 1];
  }
  for (size_t i = 0; i < n; ++i) edge_begin_[i + 1] += edge_begin_[i];

  // Memory bindings: who is bound to which memory.
  binders_.assign(n, 0);
  attached_to_.assign(n, kNotFound);
  for (const Edge& e : s_.edges) {
    if (!is_memory_edge(e) || e.to == kNullId) continue;
    const size_t m = find(e.to);
    if (m == kNotFound || !is_memory(m) || m == e.from) continue;
    // One object bound twice to the same memory (sparse ranges) is still one binder.
    if (binders_[m] > 0 && attached_to_[m] == e.from) continue;
    ++binders_[m];
    attached_to_[m] = binders_[m] == 1 ? e.from : kNotFound;
  }
  for (size_t m = 0; m < n; ++m) {
    if (binders_[m] > 1) attached_to_[m] = kNotFound;
  }

  held_.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (is_memory(i)) {
      held_[i] = s_.objects[i].size;
      continue;
    }
    uint64_t bytes = 0;
    bool bound = false;
    auto [first, last] = edges(i);
    for (const Edge* e = first; e != last; ++e) {
      if (!is_memory_edge(*e) || e->to == kNullId) continue;
      const size_t m = find(e->to);
      if (m == kNotFound || !is_memory(m)) continue;
      bound = true;
      // Shared memory: only this object's range of it.
      if (attached_to_[m] != i)
        bytes = saturating_add(bytes, e->size != 0 ? e->size : s_.objects[i].size);
    }
    for (size_t m : attached_memory(i)) bytes = saturating_add(bytes, s_.objects[m].size);
    held_[i] = bound ? bytes : s_.objects[i].size;
  }
}

size_t SnapshotIndex::find(int64_t id) const {
  if (id == kNullId || id <= 0) return kNotFound;
  auto it = std::lower_bound(by_id_.begin(), by_id_.end(),
                             std::make_pair(static_cast<uint64_t>(id), uint32_t{0}));
  if (it == by_id_.end() || it->first != static_cast<uint64_t>(id)) return kNotFound;
  return it->second;
}

const DestroyedObject* SnapshotIndex::destroyed(int64_t id) const {
  auto it = destroyed_.find(id);
  return it == destroyed_.end() ? nullptr : &s_.destroyed[it->second];
}

std::pair<const Edge*, const Edge*> SnapshotIndex::edges(size_t i) const {
  const Edge* base = s_.edges.data();
  return {base + edge_begin_[i], base + edge_begin_[i + 1]};
}

std::vector<size_t> SnapshotIndex::attached_memory(size_t i) const {
  std::vector<size_t> out;
  auto [first, last] = edges(i);
  for (const Edge* e = first; e != last; ++e) {
    if (!is_memory_edge(*e) || e->to == kNullId) continue;
    const size_t m = find(e->to);
    if (m != kNotFound && attached_to_[m] == i &&
        std::find(out.begin(), out.end(), m) == out.end()) {
      out.push_back(m);
    }
  }
  return out;
}

}  // namespace vkleak::analysis
