// The graveyard of recent destroys: what a later invalid destroy of a handle finds, per scope,
// across threads, bounded per thread, and rings reused by new threads rather than made anew.
#include "tracking/recent_destroys.h"

#include <gtest/gtest.h>

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
  ASSERT_TRUE(find_destroy(101, 0xabc, kSampler, &d));
  EXPECT_EQ(d.id, 9u);
  EXPECT_EQ(d.destroyed_frame, 5u);
  EXPECT_FALSE(find_destroy(102, 0xabc, kSampler, &d));  // another device
  EXPECT_FALSE(find_destroy(101, 0xabc, ObjectType::kBuffer, &d));
  EXPECT_FALSE(find_destroy(101, 0xabd, kSampler, &d));
  // The ring holds the name: it stays readable until the entry is overwritten.
  remember_destroy(103, 0x1, kSampler, 1, 0, 0, 0, 0);
  std::thread([&] {
    DestroyedInfo other;
    ASSERT_TRUE(find_destroy(101, 0xabc, kSampler, &other));  // from another thread
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
        EXPECT_TRUE(find_destroy(201, 0x1000 + i, kSampler, &d)) << i;
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
  EXPECT_TRUE(find_destroy(302, 0x10 + 49, kSampler, &d));
}

TEST(RecentDestroys, SizeZeroKeepsNothing) {
  set_graveyard_size(0);
  std::thread([] {
    const size_t rings = destroy_ring_count();
    remember_destroy(401, 0x7, kSampler, 1, 0, 0, 0, 0);
    DestroyedInfo d;
    EXPECT_FALSE(find_destroy(401, 0x7, kSampler, &d));
    EXPECT_EQ(destroy_ring_count(), rings);
  }).join();
  set_graveyard_size(4096);
}

}  // namespace
}  // namespace vkleak
