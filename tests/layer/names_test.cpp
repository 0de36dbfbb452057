// Debug names: reference counts, id reuse, pins, and the references edges hold: the table
// follows the live set of named objects, not the history of names.
#include "tracking/names.h"

#include <gtest/gtest.h>

#include <string>

#include "graph/edge_store.h"

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

}  // namespace
}  // namespace vkleak
