// ObjectTable on its own: the packed record word, insert/erase with duplicates and handle
// reuse, backward-shift deletion under many keys of one shard.
#include "store/object_table.h"

#include <gtest/gtest.h>

#include <vector>

namespace vkleak {
namespace {

ObjectRecord record(uint64_t handle, ObjectType type, uint64_t id) {
  ObjectRecord r{};
  r.handle = handle;
  r.type = static_cast<uint64_t>(type);
  r.id = id;
  r.refs = 1;
  return r;
}

TEST(ObjectRecordMeta, MatchesTheBitfields) {
  // record_meta() writes a new record's bitfields with one store: it must lay them out as the
  // compiler does.
  ObjectRecord r{};
  r.id = 0xABCDE12345ull;
  r.type = static_cast<uint64_t>(ObjectType::kDescriptorSet);
  r.origin = 5;
  r.refs = 1;
  r.has_edges = 1;
  EXPECT_EQ(r.meta, record_meta(0xABCDE12345ull, ObjectType::kDescriptorSet, 5, 1, true));
  ObjectRecord w{};
  w.meta = record_meta(0xFFFFFFFFFFull, ObjectType::kImageView, 3, 7, false);
  EXPECT_EQ(w.id, 0xFFFFFFFFFFull);
  EXPECT_EQ(w.type, static_cast<uint64_t>(ObjectType::kImageView));
  EXPECT_EQ(w.origin, 3u);
  EXPECT_EQ(w.refs, 7u);
  EXPECT_EQ(w.has_edges, 0u);
  EXPECT_EQ(w.bound, 0u);
  EXPECT_EQ(w.referenced, 0u);
  EXPECT_EQ(w.use_queue, 0u);
  // `bound` sits between type and origin: setting it leaves both as they were.
  w.bound = 1;
  EXPECT_EQ(w.meta,
            record_meta(0xFFFFFFFFFFull, ObjectType::kImageView, 3, 7, false) | uint64_t{1} << 47);
  EXPECT_EQ(w.type, static_cast<uint64_t>(ObjectType::kImageView));
  EXPECT_EQ(w.origin, 3u);
  // The masks on_destroy tests the word with.
  ObjectRecord m{};
  m.has_edges = 1;
  EXPECT_EQ(m.meta, kMetaHasEdges);
  m = ObjectRecord{};
  m.referenced = 1;
  EXPECT_EQ(m.meta, kMetaReferenced);
}

TEST(ObjectRecordInlineEdge, ViewsKeepTheirTargetAndOthersDoNot) {
  // A view's record holds its image: handle in `size`, id (all 40 bits) and name (24 bits) in
  // the memory words; its byte size stays 0.
  ObjectRecord v = record(0x5000, ObjectType::kImageView, 9);
  v.size = 0x7f00aa001000ull;
  const uint64_t link = inline_edge_link(0xFEDCBA9876ull, kInlineEdgeNameLimit - 1);
  v.memory_slot = static_cast<uint32_t>(link);
  v.memory_offset = static_cast<uint32_t>(link >> 32);
  EXPECT_TRUE(has_inline_edge(v));
  EXPECT_EQ(inline_edge_target(v), 0x7f00aa001000ull);
  EXPECT_EQ(inline_edge_id(v), 0xFEDCBA9876ull);
  EXPECT_EQ(inline_edge_name(v), kInlineEdgeNameLimit - 1);
  EXPECT_EQ(byte_size(v), 0u);
  EXPECT_EQ(inline_edge_kind(ObjectType::kImageView).dst_type, ObjectType::kImage);
  EXPECT_STREQ(inline_edge_kind(ObjectType::kBufferView).kind, "buffer");
  // No target: no edge, whatever the other words hold.
  v.size = 0;
  EXPECT_FALSE(has_inline_edge(v));
  EXPECT_EQ(inline_edge_id(v), 0u);
  EXPECT_EQ(inline_edge_name(v), 0u);
  // A bound buffer's memory words and size are its own.
  ObjectRecord b = record(0x6000, ObjectType::kBuffer, 10);
  b.size = 4096;
  b.bound = 1;
  b.memory_slot = 3;
  b.memory_offset = 0x12345678;
  EXPECT_FALSE(has_inline_edge(b));
  EXPECT_EQ(inline_edge_target(b), 0u);
  EXPECT_EQ(inline_edge_name(b), 0u);
  EXPECT_EQ(byte_size(b), 4096u);
  EXPECT_FALSE(keeps_inline_edge(ObjectType::kBuffer));
  // A descriptor set's size word is its layout, its memory_offset its slot in its pool.
  ObjectRecord d = record(0x7000, ObjectType::kDescriptorSet, 11);
  d.size = 0xABC;
  d.memory_offset = 42;
  EXPECT_EQ(byte_size(d), 0u);
  EXPECT_EQ(set_layout(d), 0xABCu);
  EXPECT_EQ(child_slot(d), 42u);
  EXPECT_FALSE(has_inline_edge(d));
}

TEST(ObjectTable, FilledInPlaceAndFoundAgain) {
  ObjectTable t;
  const auto result = t.insert(0x1000, ObjectType::kBuffer, true, [](ObjectRecord& r) {
    r = ObjectRecord{};
    r.handle = 0x1000;
    r.meta = record_meta(42, ObjectType::kBuffer, 0, 1, false);
    r.size = 256;
  });
  EXPECT_EQ(result, ObjectTable::InsertResult::kInserted);
  ObjectRecord got;
  ASSERT_TRUE(t.lookup(0x1000, ObjectType::kBuffer, &got));
  EXPECT_EQ(got.id, 42u);
  EXPECT_EQ(got.size, 256u);
  EXPECT_FALSE(t.lookup(0x1000, ObjectType::kImage, nullptr));  // same value, other type
  EXPECT_EQ(t.live_count(), 1u);
}

TEST(ObjectTable, DuplicatesAreCountedAndErasedOneByOne) {
  ObjectTable t;
  EXPECT_EQ(t.insert(record(0x2000, ObjectType::kImage, 1), true),
            ObjectTable::InsertResult::kInserted);
  EXPECT_EQ(t.insert(record(0x2000, ObjectType::kImage, 2), true),
            ObjectTable::InsertResult::kAlreadyLive);
  ObjectRecord removed;
  ASSERT_TRUE(t.erase(0x2000, ObjectType::kImage, &removed));
  EXPECT_EQ(removed.refs, 2u);
  EXPECT_EQ(removed.id, 1u);  // the first record stays
  ASSERT_TRUE(t.erase(0x2000, ObjectType::kImage, &removed));
  EXPECT_FALSE(t.erase(0x2000, ObjectType::kImage, &removed));
  EXPECT_EQ(t.live_count(), 0u);
}

TEST(ObjectTable, ManyKeysSurviveChurnAndHandleReuse) {
  ObjectTable t;
  constexpr uint64_t kKeys = 20000;
  for (uint64_t i = 1; i <= kKeys; ++i) t.insert(record(i * 64, ObjectType::kBuffer, i), true);
  // Erase every other key (backward-shift deletion moves the rest), then reuse their values.
  for (uint64_t i = 1; i <= kKeys; i += 2)
    ASSERT_TRUE(t.erase(i * 64, ObjectType::kBuffer, nullptr));
  for (uint64_t i = 1; i <= kKeys; i += 2)
    t.insert(record(i * 64, ObjectType::kBuffer, kKeys + i), true);
  EXPECT_EQ(t.live_count(), kKeys);
  for (uint64_t i = 1; i <= kKeys; ++i) {
    ObjectRecord r;
    ASSERT_TRUE(t.lookup(i * 64, ObjectType::kBuffer, &r)) << i;
    EXPECT_EQ(r.id, i % 2 ? kKeys + i : i);
  }
  std::vector<ObjectRecord> all;
  t.collect(&all);
  EXPECT_EQ(all.size(), kKeys);
  for (const ObjectRecord& r : all) EXPECT_EQ(r.type, static_cast<uint64_t>(ObjectType::kBuffer));
}

TEST(ObjectTable, RandomChurnAgreesWithAReferenceSet) {
  // Long probe runs (entries 15 and more slots from home keep no distance and are re-hashed
  // when moved back) and every erase order: checked against a plain set after each step batch.
  ObjectTable t;
  std::vector<uint64_t> live;
  std::vector<bool> is_live(400001, false);
  uint64_t seed = 12345;
  auto next = [&seed] {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
  };
  for (int step = 0; step < 600000; ++step) {
    const uint64_t key = next() % 400000 + 1;
    const uint64_t handle = key * 16;  // aligned like heap pointers
    if (is_live[key]) {
      ASSERT_TRUE(t.erase(handle, ObjectType::kSampler, nullptr)) << step;
      is_live[key] = false;
    } else {
      ASSERT_EQ(t.insert(record(handle, ObjectType::kSampler, key), true),
                ObjectTable::InsertResult::kInserted)
          << step;
      is_live[key] = true;
    }
    if (step % 100000 == 99999) {
      uint64_t n = 0;
      for (uint64_t k = 1; k <= 400000; ++k) {
        ObjectRecord r;
        const bool found = t.lookup(k * 16, ObjectType::kSampler, &r);
        ASSERT_EQ(found, static_cast<bool>(is_live[k])) << k;
        if (found) {
          ASSERT_EQ(r.id, k);
          ++n;
        }
      }
      ASSERT_EQ(t.live_count(), n);
    }
  }
}

}  // namespace
}  // namespace vkleak
