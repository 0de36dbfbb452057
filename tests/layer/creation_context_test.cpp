// Creation contexts and the append-only array under them (and under the MemoryDirectory).
#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

#include "base/append_only_array.h"
#include "store/creation_context.h"
#include "store/memory_directory.h"

namespace vkleak {
namespace {

TEST(CreationContext, SameTripleOnOneThreadSharesAnId) {
  const ContextId a = intern_context(7, 100, 5000);
  ASSERT_NE(a, 0u);
  EXPECT_EQ(intern_context(7, 100, 5000), a);
  const CreationContext c = context_of(a);
  EXPECT_EQ(c.callsite, 7u);
  EXPECT_EQ(c.frame, 100u);
  EXPECT_EQ(c.time_ms, 5000u);
}

TEST(CreationContext, AnyChangeMakesANewContext) {
  const ContextId a = intern_context(11, 1, 1);
  EXPECT_NE(intern_context(11, 2, 1), a);  // next frame
  EXPECT_NE(intern_context(11, 2, 2), a);  // clock refreshed
  EXPECT_NE(intern_context(12, 2, 2), a);  // another call site
  const CreationContext c = context_of(intern_context(11, 2, 2));
  EXPECT_EQ(c.callsite, 11u);
  EXPECT_EQ(c.frame, 2u);
  EXPECT_EQ(c.time_ms, 2u);
}

TEST(CreationContext, ZeroReadsAsNothing) {
  const CreationContext c = context_of(0);
  EXPECT_EQ(c.callsite + c.frame + c.time_ms, 0u);
}

TEST(CreationContext, AlternatingCallSitesDoNotMultiplyContexts) {
  // A loop creating from several call sites in one frame: each keeps its own cache entry.
  const uint64_t before = context_count();
  for (int i = 0; i < 1000; ++i)
    for (uint32_t site = 1000; site < 1008; ++site) intern_context(site, 9, 9);
  EXPECT_LE(context_count() - before, 8u + 8u);  // at most a collision's worth more
}

TEST(CreationContext, ThreadsReadBackWhatTheyInterned) {
  std::vector<std::thread> threads;
  std::vector<int> bad(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &bad] {
      for (uint32_t i = 0; i < 20000; ++i) {
        const uint32_t frame = i / 7, site = static_cast<uint32_t>(t) * 100 + i % 5;
        const ContextId id = intern_context(site, frame, i / 3);
        const CreationContext c = context_of(id);
        if (id == 0 || c.callsite != site || c.frame != frame || c.time_ms != i / 3) bad[t]++;
        release_context(id);  // the object is gone: its context may be reused by any thread
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(bad[t], 0) << "thread " << t;
}

TEST(CreationContext, FreedWithItsLastObjectAndReused) {
  // A thread creating from one call site in every frame, each object destroyed within its
  // frame: the contexts of past frames are freed and their ids reused, so the number alive
  // stays flat instead of growing with the frames.
  const uint64_t live_before = live_context_count();
  std::set<ContextId> ids;
  for (uint32_t frame = 0; frame < 1000; ++frame) {
    const ContextId a = intern_context(4242, 100000 + frame, 7);
    const ContextId b = intern_context(4242, 100000 + frame, 7);
    EXPECT_EQ(a, b);
    release_context(a);
    release_context(b);
    ids.insert(a);
  }
  EXPECT_LE(live_context_count(), live_before + 1);  // the cached one of the last frame
  EXPECT_LE(ids.size(), 2u);                         // two ids, alternately freed and reused
  // An object that lives on keeps its context, through later frames and reuse of others.
  const ContextId kept = intern_context(4242, 200000, 8);
  for (uint32_t frame = 1; frame < 100; ++frame)
    release_context(intern_context(4242, 200000 + frame, 8));
  const CreationContext c = context_of(kept);
  EXPECT_EQ(c.callsite, 4242u);
  EXPECT_EQ(c.frame, 200000u);
  EXPECT_EQ(c.time_ms, 8u);
  release_context(kept);
}

TEST(CreationContext, ReferencesTakenInAdvanceAddUp) {
  // A cache entry takes references for the next objects in batches (kContextCredits): many
  // more objects than one batch share the context, it outlives any of them that lives on, and
  // it is freed once the last object and the cache entry have let go (releases wait in their
  // thread until it releases another context).
  // On a thread of its own: no release left waiting by an earlier test moves the count.
  std::thread([] {
    const uint64_t live_before = live_context_count();
    constexpr uint32_t kObjects = 5 * kContextCredits + 3;
    std::vector<ContextId> ids;
    for (uint32_t i = 0; i < kObjects; ++i) ids.push_back(intern_context(6363, 400000, 2));
    for (ContextId id : ids) EXPECT_EQ(id, ids.front());
    for (uint32_t i = 1; i < kObjects; ++i) release_context(ids[i]);  // all but the first go
    release_context(intern_context(6363, 400001, 2));   // the cache moves on to the next frame
    EXPECT_EQ(context_of(ids.front()).frame, 400000u);  // the first object still holds it
    EXPECT_EQ(live_context_count(), live_before + 2);   // it, and the cached next one
    release_context(ids.front());  // the last object: its release waits in this thread
    EXPECT_EQ(live_context_count(), live_before + 2);
    EXPECT_EQ(context_of(ids.front()).frame, 400000u);
    // Releasing another context gives the waiting releases back: the first one is freed.
    release_context(intern_context(6363, 400001, 2));
    EXPECT_EQ(live_context_count(), live_before + 1);
  }).join();
}

TEST(CreationContext, AThreadThatExitsLetsGoOfItsCache) {
  const uint64_t live_before = live_context_count();
  std::thread([] {
    for (uint32_t i = 0; i < 3 * kContextCredits; ++i)
      release_context(intern_context(7000 + i % 3, 500000, 3));
  }).join();
  EXPECT_EQ(live_context_count(), live_before);
}

TEST(CreationContext, NotReusedWhileASnapshotPinsThem) {
  // A snapshot reads contexts after copying records: one freed meanwhile keeps its triple.
  const ContextId a = intern_context(5151, 300000, 1);
  release_context(a);  // only the cache holds it now
  ContextId freed = 0;
  {
    ContextPin pin;
    release_context(intern_context(5151, 300001, 1));  // the cache moves on: `a` is freed
    freed = a;
    for (uint32_t f = 2; f < 50; ++f) {
      const ContextId n = intern_context(5151, 300000 + f, 1);
      EXPECT_NE(n, freed) << "reused while pinned";
      release_context(n);
    }
    EXPECT_EQ(context_of(freed).frame, 300000u);
  }
  // Unpinned: freed ids are reused again. New contexts held (not released) take every free id
  // in turn, `freed` among them.
  bool reused = false;
  std::vector<ContextId> held;
  for (uint32_t f = 100; f < 2000 && !reused; ++f) {
    held.push_back(intern_context(5151, 300000 + f, 1));
    reused = held.back() == freed;
  }
  for (ContextId id : held) release_context(id);
  EXPECT_TRUE(reused);
}

TEST(AppendOnlyArray, GrowsAcrossChunksAndStopsWhenFull) {
  AppendOnlyArray<uint64_t, 2, 3> a;  // 3 chunks of 4
  EXPECT_EQ(a.at(0), nullptr);
  EXPECT_EQ(a.at(1), nullptr);  // never handed out
  for (uint64_t i = 1; i <= 12; ++i) ASSERT_EQ(a.push(i * 10), i);
  for (uint32_t i = 1; i <= 12; ++i) ASSERT_EQ(*a.at(i), i * 10u);
  EXPECT_EQ(a.push(130), 0u);  // full
  EXPECT_EQ(a.at(13), nullptr);
}

TEST(AppendOnlyArray, ConcurrentPushesAreDistinctAndReadable) {
  AppendOnlyArray<uint64_t, 8, 1024> a;
  std::vector<std::vector<uint32_t>> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t, &a, &got] {
      for (uint64_t i = 0; i < 10000; ++i) got[t].push_back(a.push(uint64_t(t) << 32 | i));
    });
  for (auto& th : threads) th.join();
  std::set<uint32_t> all;
  for (int t = 0; t < 4; ++t)
    for (uint64_t i = 0; i < 10000; ++i) {
      const uint32_t index = got[t][i];
      ASSERT_NE(index, 0u);
      ASSERT_EQ(*a.at(index), uint64_t(t) << 32 | i);
      all.insert(index);
    }
  EXPECT_EQ(all.size(), 40000u);
}

TEST(MemoryDirectory, SlotsKeepTheirMemoryForGood) {
  MemoryDirectory d;
  const uint32_t a = d.add(0x1000, 5), b = d.add(0x1000, 9);  // a handle reused after a free
  ASSERT_NE(a, 0u);
  ASSERT_NE(b, a);
  EXPECT_EQ(d.at(a)->handle, 0x1000u);
  EXPECT_EQ(d.at(a)->id, 5u);
  EXPECT_EQ(d.at(b)->handle, 0x1000u);
  EXPECT_EQ(d.at(b)->id, 9u);
  EXPECT_EQ(d.at(0), nullptr);
}

}  // namespace
}  // namespace vkleak
