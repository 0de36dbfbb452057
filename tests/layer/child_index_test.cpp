// ChildIndex on its own: each parent's children in numbered slots, removed at their slot in O(1)
// or, when the slot is not theirs, found by a search; slots reused; take_all and children_of.
#include "tracking/child_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <set>
#include <thread>
#include <vector>

namespace vkleak {
namespace {

std::vector<uint64_t> sorted(std::vector<uint64_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::multiset<std::pair<uint64_t, uint64_t>> pairs(const ChildIndex& index) {
  std::multiset<std::pair<uint64_t, uint64_t>> out;
  index.for_each([&](uint64_t parent, uint64_t child) { out.emplace(parent, child); });
  return out;
}

TEST(ChildIndex, SlotsAreNumberedPerParentAndReused) {
  ChildIndex index;
  EXPECT_EQ(index.add(0x100, 0xA), 1u);
  EXPECT_EQ(index.add(0x100, 0xB), 2u);
  EXPECT_EQ(index.add(0x100, 0xC), 3u);
  EXPECT_EQ(index.add(0x200, 0xD), 1u);  // another parent, its own numbering
  index.remove(0x100, 0xA, 1);
  EXPECT_EQ(sorted(index.children_of(0x100)), (std::vector<uint64_t>{0xB, 0xC}));
  EXPECT_EQ(index.add(0x100, 0xE), 1u);  // the freed slot
  EXPECT_EQ(sorted(index.children_of(0x100)), (std::vector<uint64_t>{0xB, 0xC, 0xE}));
  EXPECT_EQ(sorted(index.children_of(0x200)), (std::vector<uint64_t>{0xD}));
}

TEST(ChildIndex, RemoveWithAStaleOrMissingSlotSearches) {
  ChildIndex index;
  const uint32_t a = index.add(0x100, 0xA);
  const uint32_t b = index.add(0x100, 0xB);
  index.add(0x100, 0xC);
  index.remove(0x100, 0xB, a);  // slot a holds 0xA: not 0xB's, so 0xB is searched for
  EXPECT_EQ(sorted(index.children_of(0x100)), (std::vector<uint64_t>{0xA, 0xC}));
  index.remove(0x100, 0xC);  // no slot
  EXPECT_EQ(index.children_of(0x100), (std::vector<uint64_t>{0xA}));
  index.remove(0x100, 0xA, 1000);  // past the end
  EXPECT_TRUE(index.children_of(0x100).empty());
  index.remove(0x100, 0xB, b);  // gone already: nothing happens
  index.remove(0x300, 0xB, b);  // an unknown parent
  EXPECT_TRUE(pairs(index).empty());
}

TEST(ChildIndex, TakeAllEmptiesTheParentAndChildrenOfDoesNot) {
  ChildIndex index;
  for (uint64_t c = 1; c <= 100; ++c) index.add(0x100, c);
  index.add(0x200, 7);
  for (uint64_t c = 2; c <= 100; c += 2) index.remove(0x100, c, static_cast<uint32_t>(c));
  EXPECT_EQ(index.children_of(0x100).size(), 50u);
  EXPECT_EQ(index.children_of(0x100).size(), 50u);  // left in place
  std::vector<uint64_t> taken = sorted(index.take_all(0x100));
  ASSERT_EQ(taken.size(), 50u);
  for (size_t i = 0; i < taken.size(); ++i) EXPECT_EQ(taken[i], 2 * i + 1);
  EXPECT_TRUE(index.take_all(0x100).empty());
  EXPECT_TRUE(index.children_of(0x100).empty());
  // The parent's list starts afresh (the last-parent cache must not point at the old one).
  EXPECT_EQ(index.add(0x100, 9), 1u);
  EXPECT_EQ(pairs(index), (std::multiset<std::pair<uint64_t, uint64_t>>{{0x100, 9}, {0x200, 7}}));
}

TEST(ChildIndex, RandomChurnAgreesWithAReferenceSet) {
  // Children keep the slot that add() gave them, as pool children do in their records; the
  // parents alternate, so the last-parent cache is both hit and missed.
  ChildIndex index;
  std::mt19937_64 rng(28);
  struct Live {
    uint64_t parent, child;
    uint32_t slot;
  };
  std::vector<Live> live;
  uint64_t next_child = 1;
  for (int step = 0; step < 20000; ++step) {
    if (live.empty() || rng() % 3 != 0) {
      const uint64_t parent = 0x1000 + rng() % 4;
      const uint64_t child = next_child++;
      live.push_back({parent, child, index.add(parent, child)});
    } else {
      const size_t k = rng() % live.size();
      index.remove(live[k].parent, live[k].child, live[k].slot);
      live[k] = live.back();
      live.pop_back();
    }
  }
  std::multiset<std::pair<uint64_t, uint64_t>> expected;
  for (const Live& l : live) expected.emplace(l.parent, l.child);
  EXPECT_EQ(pairs(index), expected);
  for (const Live& l : live) {
    const std::vector<uint64_t> of = index.children_of(l.parent);
    EXPECT_NE(std::find(of.begin(), of.end(), l.child), of.end());
  }
}

TEST(ChildIndex, ThreadsWithTheirOwnParentsAndAReader) {
  // Each thread allocates from and frees into its own parent (pools are externally
  // synchronized), parents share shards, and a reader walks everything meanwhile (a snapshot).
  // Run under TSan in the sanitizer build.
  ChildIndex index;
  constexpr int kThreads = 4, kRounds = 2000;
  std::atomic<bool> done{false};
  std::thread reader([&] {
    while (!done.load()) {
      size_t n = 0;
      index.for_each([&](uint64_t, uint64_t) { ++n; });
      EXPECT_LE(n, static_cast<size_t>(kThreads) * 8);
    }
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&index, t] {
      const uint64_t parent = 0x10000 + static_cast<uint64_t>(t) * 16;
      std::vector<std::pair<uint64_t, uint32_t>> mine;
      for (int r = 0; r < kRounds; ++r) {
        const uint64_t child = (static_cast<uint64_t>(t) << 32) | static_cast<uint64_t>(r + 1);
        mine.emplace_back(child, index.add(parent, child));
        if (mine.size() == 8) {
          for (const auto& [c, slot] : mine) index.remove(parent, c, slot);
          mine.clear();
        }
      }
      for (const auto& [c, slot] : mine) index.remove(parent, c, slot);
    });
  }
  for (std::thread& t : threads) t.join();
  done = true;
  reader.join();
  EXPECT_TRUE(pairs(index).empty());
}

}  // namespace
}  // namespace vkleak
