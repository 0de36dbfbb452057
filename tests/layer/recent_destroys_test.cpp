// The graveyard of recent destroys: what a later invalid destroy of a handle finds, per scope,
// across threads, bounded per thread, and rings reused by new threads rather than made anew.
#include "store/recent_destroys.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>

namespace vkleak {
namespace {

constexpr ObjectType kSampler = ObjectType::kSampler;

// Each test uses its own scope ids: the rings are process-wide.
TEST(RecentDestroys, FindsTheLatestDestroyOfAHandleInItsScope) {
  set_graveyard_size(16);
  const uint32_t name = intern_name("recent-destroys-sampler");
  remember_destroy(101, 0xabc, kSampler, 7, 0, name, 3, 0);
  remember_destroy(101, 0xabc, kSampler, 9, 0, 0, 5, 0);  // the handle reused, destroyed again
  DestroyedInfo d;
  ASSERT_EQ(find_destroy(101, 0xabc, kSampler, &d), DestroyLookup::kFound);
  EXPECT_EQ(d.id, 9u);
  EXPECT_EQ(d.destroyed_frame, 5u);
  EXPECT_EQ(find_destroy(102, 0xabc, kSampler, &d), DestroyLookup::kNotFound);  // another device
  EXPECT_EQ(find_destroy(101, 0xabc, ObjectType::kBuffer, &d), DestroyLookup::kNotFound);
  EXPECT_EQ(find_destroy(101, 0xabd, kSampler, &d), DestroyLookup::kNotFound);
  // The ring holds the name: it stays readable until the entry is overwritten.
  remember_destroy(103, 0x1, kSampler, 1, 0, 0, 0, 0);
  std::thread([&] {
    DestroyedInfo other;
    ASSERT_EQ(find_destroy(101, 0xabc, kSampler, &other), DestroyLookup::kFound);  // elsewhere
    EXPECT_EQ(other.id, 9u);
  }).join();
}

TEST(RecentDestroys, KeepsTheLastEntriesOfEachThread) {
  set_graveyard_size(8);
  // A new thread gets a ring of the size set now (this thread's may be older and larger).
  std::thread([] {
    for (uint64_t i = 1; i <= 20; ++i) remember_destroy(201, 0x1000 + i, kSampler, i, 0, 0, 0, 0);
    DestroyedInfo d;
    for (uint64_t i = 1; i <= 20; ++i) {
      // A reused ring holds 8 or more entries: the last 8 are always there.
      if (i > 12) {
        EXPECT_EQ(find_destroy(201, 0x1000 + i, kSampler, &d), DestroyLookup::kFound) << i;
      }
    }
  }).join();
}

TEST(RecentDestroys, ThreadsThatExitedHandTheirRingsOn) {
  set_graveyard_size(8);
  std::thread([] { remember_destroy(301, 0x5, kSampler, 1, 0, 0, 0, 0); }).join();
  const size_t rings = destroy_ring_count();
  for (int i = 0; i < 50; ++i)
    std::thread([i] { remember_destroy(302, 0x10 + i, kSampler, 2, 0, 0, 0, 0); }).join();
  EXPECT_EQ(destroy_ring_count(), rings);  // one thread at a time: one ring, reused
  DestroyedInfo d;
  EXPECT_EQ(find_destroy(302, 0x10 + 49, kSampler, &d), DestroyLookup::kFound);
}

// Issue 26, item 11: "loader.A" destroyed on one thread; its handle reused by "frame.B" on
// another thread, destroyed there, and forgotten as that thread goes on destroying. A second
// destroy of the handle was named "loader.A"; it must say it cannot tell.
TEST(RecentDestroys, NeverNamesAnOlderObjectOfAReusedHandle) {
  set_graveyard_size(8);
  const uint64_t scope = 601, handle = 0xbeef0;
  const uint32_t name_a = intern_name("loader.A");
  std::atomic<bool> a_destroyed{false}, frame_done{false};
  // The loader thread stays alive meanwhile: its ring (and A in it) is not handed on.
  std::thread loader([&] {
    remember_destroy(scope, handle, kSampler, 10, 0, name_a, 1, 0);
    a_destroyed = true;
    while (!frame_done) std::this_thread::yield();
  });
  while (!a_destroyed) std::this_thread::yield();
  std::thread([&] {
    const uint32_t name_b = intern_name("frame.B");
    remember_destroy(scope, handle, kSampler, 20, 0, name_b, 3, 0);
    DestroyedInfo d;
    ASSERT_EQ(find_destroy(scope, handle, kSampler, &d), DestroyLookup::kFound);
    EXPECT_EQ(d.name, "frame.B");  // while remembered, the latest object is named
    // B is forgotten (more destroys than any ring of this process holds, whichever this
    // thread got).
    for (uint64_t i = 0; i < 5000; ++i)
      remember_destroy(scope, 0x50000 + i, kSampler, 21 + i, 0, 0, 4, 0);
    EXPECT_EQ(find_destroy(scope, handle, kSampler, &d), DestroyLookup::kReused);
    EXPECT_EQ(d.id, 0u);
    EXPECT_EQ(d.name, "");
    // Other handles are not affected: the latest destroy is still found.
    ASSERT_EQ(find_destroy(scope, 0x50000 + 4999, kSampler, &d), DestroyLookup::kFound);
    EXPECT_EQ(d.id, 21u + 4999);
  }).join();
  frame_done = true;
  loader.join();
  // Without a later object forgotten, an old destroy is still named.
  DestroyedInfo d;
  remember_destroy(scope + 1, handle, kSampler, 9000, 0, name_a, 5, 0);
  ASSERT_EQ(find_destroy(scope + 1, handle, kSampler, &d), DestroyLookup::kFound);
  EXPECT_EQ(d.name, "loader.A");
  set_graveyard_size(4096);
}

// The owner writes its ring without a lock while another thread reads it: a lookup returns an
// entry as one destroy wrote it (its id and name belong to its handle), never a mix of two, and
// a name the ring gave back meanwhile still reads as it was (the reader pins names).
TEST(RecentDestroys, ReadersSeeWholeEntriesWhileTheOwnerWrites) {
  set_graveyard_size(64);
  constexpr uint64_t scope = 501;
  // Fewer handles than the smallest ring this test binary makes (8): the owner may adopt an
  // older thread's ring, and each handle must stay in it.
  constexpr uint64_t kHandles = 4;
  uint32_t names[kHandles];
  for (uint64_t h = 0; h < kHandles; ++h)
    names[h] = intern_name(("concurrent-" + std::to_string(h)).c_str());
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> written{0};
  std::thread owner([&] {
    for (uint64_t i = 0; !stop.load(std::memory_order_relaxed); ++i) {
      const uint64_t h = i % kHandles;
      retain_name(names[h]);  // the ring takes one reference and gives it back when overwritten
      // id = handle * 1000 + 1: a torn entry would break the relation. A later frame than other
      // tests' destroys, whose forgotten entries may share a bucket (a lookup then says kReused).
      remember_destroy(scope, 0x9000 + h, kSampler, h * 1000 + 1, 0, names[h], 1000, 0);
      written.fetch_add(1, std::memory_order_relaxed);
    }
  });
  while (written.load(std::memory_order_relaxed) < 1000) std::this_thread::yield();
  int found = 0;
  for (int round = 0; round < 2000; ++round) {
    const uint64_t h = static_cast<uint64_t>(round) % kHandles;
    DestroyedInfo d;
    const DestroyLookup lookup = find_destroy(scope, 0x9000 + h, kSampler, &d);
    EXPECT_NE(lookup, DestroyLookup::kNotFound);
    if (lookup != DestroyLookup::kFound) continue;
    ++found;
    EXPECT_EQ(d.id, h * 1000 + 1);
    EXPECT_EQ(d.name, "concurrent-" + std::to_string(h));
  }
  stop = true;
  owner.join();
  EXPECT_GT(found, 0);
  for (uint64_t h = 0; h < kHandles; ++h) release_name(names[h]);
  set_graveyard_size(4096);
}

TEST(RecentDestroys, SizeZeroKeepsNothing) {
  set_graveyard_size(0);
  std::thread([] {
    const size_t rings = destroy_ring_count();
    remember_destroy(401, 0x7, kSampler, 1, 0, 0, 0, 0);
    DestroyedInfo d;
    EXPECT_EQ(find_destroy(401, 0x7, kSampler, &d), DestroyLookup::kNotFound);
    EXPECT_EQ(destroy_ring_count(), rings);
  }).join();
  set_graveyard_size(4096);
}

}  // namespace
}  // namespace vkleak
