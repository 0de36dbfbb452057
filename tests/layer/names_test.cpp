// Debug names: reference counts, id reuse, pins, and the references edges hold: the table
// follows the live set of named objects, not the history of names.
#include "store/names.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "store/edge_store.h"

namespace vkleak {
namespace {

TEST(Names, FreedWhenLastReferenceGoes) {
  const size_t before = live_name_count();
  const uint32_t a = intern_name("names-test-a");
  ASSERT_NE(a, 0u);
  EXPECT_EQ(intern_name("names-test-a"), a);  // same name, same id, two references
  EXPECT_EQ(live_name_count(), before + 1);
  release_name(a);
  EXPECT_EQ(name_string(a), "names-test-a");
  release_name(a);
  EXPECT_EQ(name_string(a), "");
  EXPECT_EQ(live_name_count(), before);
  EXPECT_EQ(intern_name(nullptr), 0u);
  EXPECT_EQ(intern_name(""), 0u);
  release_name(0);  // no-ops
  retain_name(0);
}

TEST(Names, UniqueNamesChurnKeepsTableBounded) {
  const size_t live = live_name_count();
  const size_t slots = name_slot_count();
  for (int i = 0; i < 200000; ++i) {
    const std::string n = "staging#" + std::to_string(i);
    const uint32_t id = intern_name(n.c_str());
    ASSERT_EQ(name_string(id), n);
    release_name(id);
  }
  EXPECT_EQ(live_name_count(), live);
  EXPECT_LE(name_slot_count(), slots + 1);  // ids reused
}

TEST(Names, BytesKeptAsGiven) {
  // Validity is the JSON writer's job: the name is the app's bytes.
  const char bad[] = "x\xc0\xaf\xed\xa0\x80\xff";
  const uint32_t id = intern_name(bad);
  EXPECT_EQ(name_string(id), std::string(bad));
  release_name(id);
}

TEST(Names, PinKeepsReleasedNamesAndIds) {
  const uint32_t a = intern_name("names-test-pinned");
  uint32_t b = 0;
  {
    const NamePin pin;
    release_name(a);  // last reference, but a snapshot may still read it
    EXPECT_EQ(name_string(a), "names-test-pinned");
    b = intern_name("names-test-other");
    EXPECT_NE(b, a);  // not reused while pinned
    std::vector<std::string> names;
    copy_names(&names);
    ASSERT_GT(names.size(), a);
    EXPECT_EQ(names[a], "names-test-pinned");
  }
  EXPECT_EQ(name_string(a), "");  // freed with the pin
  EXPECT_EQ(name_string(b), "names-test-other");
  release_name(b);
}

TEST(Names, RenamedWhilePinnedSurvives) {
  const uint32_t a = intern_name("names-test-revived");
  {
    const NamePin pin;
    release_name(a);
    EXPECT_EQ(intern_name("names-test-revived"), a);  // named again before the pin goes
  }
  EXPECT_EQ(name_string(a), "names-test-revived");
  release_name(a);
  EXPECT_EQ(name_string(a), "");
}

Edge named_edge(const char* kind, uint64_t handle, uint32_t slot, uint32_t name) {
  Edge e{};
  e.kind = kind;
  e.dst_handle = handle;
  e.dst_id = handle;
  e.dst_type = ObjectType::kImageView;
  e.slot = slot;
  e.slot_keyed = true;
  e.dst_name = name;
  return e;
}

TEST(Names, EdgesHoldTheirTargetsNames) {
  EdgeStore store;
  const uint32_t a = intern_name("names-test-edge-a");
  const uint32_t b = intern_name("names-test-edge-b");
  const uint32_t c = intern_name("names-test-edge-c");
  Edge e = named_edge("descriptor", 1, 0, a);
  store.add(10, ObjectType::kDescriptorSet, &e, 1);
  release_name(a);  // the target renamed or destroyed: the edge still names it
  EXPECT_EQ(name_string(a), "names-test-edge-a");
  e = named_edge("descriptor", 2, 0, b);  // replaces slot 0 (inline)
  store.add(10, ObjectType::kDescriptorSet, &e, 1);
  EXPECT_EQ(name_string(a), "");
  // Spilled lists: replace, remove, erase.
  for (uint32_t slot = 1; slot < 12; ++slot) {
    e = named_edge("descriptor", 100 + slot, slot, c);
    store.add(10, ObjectType::kDescriptorSet, &e, 1);
  }
  release_name(b);
  EXPECT_EQ(name_string(b), "names-test-edge-b");
  store.remove_slot(10, ObjectType::kDescriptorSet, "descriptor", 0);
  EXPECT_EQ(name_string(b), "");
  e = named_edge("descriptor", 200, 5, 0);  // replaces a spilled edge named c
  store.add(10, ObjectType::kDescriptorSet, &e, 1);
  release_name(c);
  EXPECT_EQ(name_string(c), "names-test-edge-c");
  store.erase(10, ObjectType::kDescriptorSet);
  EXPECT_EQ(name_string(c), "");
  // The store's destructor gives back what it still holds.
  const uint32_t d = intern_name("names-test-edge-d");
  {
    EdgeStore other;
    e = named_edge("image", 3, 0, d);
    other.add(11, ObjectType::kImageView, &e, 1);
    release_name(d);
    EXPECT_EQ(name_string(d), "names-test-edge-d");
  }
  EXPECT_EQ(name_string(d), "");
}

// Issue 28: names take no process-wide lock, so two threads name, store edges to and destroy
// named objects at once. Shared names (both threads) and each thread's own unique ones, edges
// replaced in each thread's set, pins coming and going: at the end every name is given back and
// nothing a thread still held was freed under it.
TEST(Names, TwoThreadsNamingWritingDestroying) {
  const size_t live = live_name_count();
  std::atomic<bool> held_name_lost{false};
  auto work = [&](int t) {
    EdgeStore store;
    const uint64_t set = 1000 + static_cast<uint64_t>(t);
    for (int i = 0; i < 20000; ++i) {
      // A view named with a name both threads use, and one of its own.
      const std::string shared = "names-test-shared#" + std::to_string(i % 16);
      const std::string own = "names-test-t" + std::to_string(t) + "#" + std::to_string(i % 300);
      const uint32_t a = intern_name(shared.c_str());  // the records' references
      const uint32_t b = intern_name(own.c_str());
      // Written into the set (edges take their own references, replacing older ones).
      Edge e = named_edge("descriptor", 1 + static_cast<uint64_t>(i), i % 3, a);
      store.add(set, ObjectType::kDescriptorSet, &e, 1);
      e = named_edge("descriptor", 2 + static_cast<uint64_t>(i), 3 + i % 5, b);
      store.add(set, ObjectType::kDescriptorSet, &e, 1);
      if (i % 64 == 0) {
        const NamePin pin;  // a snapshot in progress
        std::vector<std::string> names;
        copy_names(&names);
      }
      // While this thread holds both, they read back.
      if (name_string(a) != shared || name_string(b) != own) held_name_lost = true;
      retain_name(a);   // a graveyard's reference, given back later
      release_name(a);  // the views destroyed
      release_name(b);
      release_name(a);
    }
    store.erase(set, ObjectType::kDescriptorSet);
  };
  std::thread t0(work, 0), t1(work, 1);
  t0.join();
  t1.join();
  EXPECT_FALSE(held_name_lost.load());
  EXPECT_EQ(live_name_count(), live);
}

}  // namespace
}  // namespace vkleak
