// ChildIndex on its own: each parent's children in numbered slots, removed at their slot in O(1)
// or, when the slot is not theirs, found by a search; slots reused; take_all and children_of.
#include "store/child_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
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

TEST(ChildIndex, UnlockedListsFollowTheirParentAcrossTakesAndIndexes) {
  // The per-thread cache of the last parent's list must not outlive the list: a taken parent
  // that comes back (a pool destroyed and another made at its handle), another index with the
  // same parent (another device), another thread freeing what this one allocated.
  auto index = std::make_unique<ChildIndex>();
  EXPECT_EQ(index->add(0x100, 0xA, true), 1u);
  EXPECT_EQ(index->add(0x100, 0xB, true), 2u);
  EXPECT_EQ(sorted(index->take_all(0x100)), (std::vector<uint64_t>{0xA, 0xB}));
  EXPECT_EQ(index->add(0x100, 0xC, true), 1u);  // a new list, not the taken one
  EXPECT_EQ(index->children_of(0x100), (std::vector<uint64_t>{0xC}));
  ChildIndex other;
  EXPECT_EQ(other.add(0x100, 0xD, true), 1u);
  EXPECT_EQ(index->add(0x100, 0xE, true), 2u);
  EXPECT_EQ(other.children_of(0x100), (std::vector<uint64_t>{0xD}));
  EXPECT_EQ(sorted(index->children_of(0x100)), (std::vector<uint64_t>{0xC, 0xE}));
  std::thread([&] { index->remove(0x100, 0xC, 1, true); }).join();  // not its cached list
  EXPECT_EQ(index->children_of(0x100), (std::vector<uint64_t>{0xE}));
  EXPECT_EQ(index->add(0x100, 0xF, true), 1u);  // the slot freed by the other thread
  // An index that goes: a later one (perhaps at the same address) starts afresh.
  index.reset();
  index = std::make_unique<ChildIndex>();
  EXPECT_EQ(index->add(0x100, 0x1, true), 1u);
  EXPECT_EQ(index->children_of(0x100), (std::vector<uint64_t>{0x1}));
  // Many children: past the first segments, all found again.
  std::set<uint64_t> many;
  for (uint64_t c = 2; c < 5000; ++c) {
    index->add(0x200, c, true);
    many.insert(c);
  }
  const std::vector<uint64_t> of = index->children_of(0x200);
  EXPECT_EQ(std::set<uint64_t>(of.begin(), of.end()), many);
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
      live.push_back({parent, child, index.add(parent, child, step % 2 == 0)});
    } else {
      const size_t k = rng() % live.size();
      index.remove(live[k].parent, live[k].child, live[k].slot, step % 3 == 0);
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
  // Each thread allocates from and frees into its own parent without the shard's lock (pools
  // are externally synchronized), parents share shards, a reader walks everything meanwhile (a
  // snapshot), and the lists grow past their first segments.
  // Run under TSan in the sanitizer build.
  ChildIndex index;
  constexpr int kThreads = 4, kRounds = 4000;
  std::atomic<bool> done{false};
  std::thread reader([&] {
    while (!done.load()) {
      size_t n = 0;
      index.for_each([&](uint64_t, uint64_t) { ++n; });
      EXPECT_LE(n, static_cast<size_t>(kThreads) * 200);
    }
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&index, t] {
      const uint64_t parent = 0x10000 + static_cast<uint64_t>(t) * 16;
      std::vector<std::pair<uint64_t, uint32_t>> mine;
      for (int r = 0; r < kRounds; ++r) {
        const uint64_t child = (static_cast<uint64_t>(t) << 32) | static_cast<uint64_t>(r + 1);
        mine.emplace_back(child, index.add(parent, child, true));
        if (mine.size() == 200) {
          for (const auto& [c, slot] : mine) index.remove(parent, c, slot, true);
          mine.clear();
        }
      }
      for (const auto& [c, slot] : mine) index.remove(parent, c, slot, true);
    });
  }
  for (std::thread& t : threads) t.join();
  done = true;
  reader.join();
  EXPECT_TRUE(pairs(index).empty());
}

}  // namespace
}  // namespace vkleak
