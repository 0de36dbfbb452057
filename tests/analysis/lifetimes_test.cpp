// Lifetimes (RunLifetimes, what the HTML explorer draws): exact cells for a small run, teardown
// snapshots left out, the cap, and the diff the explorer computes from the cells against
// `vkleak diff` (diff_snapshots) on the same snapshots.
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "analysis/diff.h"
#include "test_util.h"

namespace vkleak {
namespace {

using analysis::LifetimeCell;
using analysis::RunLifetimes;
using test::ObjectSpec;
using test::SnapshotBuilder;

constexpr uint64_t kPid = 900;

struct Expected {
  uint32_t group, first, last;
  uint64_t count, bytes;
};

std::vector<Expected> cells_of(const RunLifetimes& lt) {
  std::vector<Expected> out;
  for (const LifetimeCell& c : lt.cells)
    out.push_back({c.group, c.first, c.last, c.count, c.bytes});
  return out;
}

bool operator==(const Expected& a, const Expected& b) {
  return std::tie(a.group, a.first, a.last, a.count, a.bytes) ==
         std::tie(b.group, b.first, b.last, b.count, b.bytes);
}
std::ostream& operator<<(std::ostream& os, const Expected& c) {
  return os << "{g" << c.group << " [" << c.first << "," << c.last << "] " << c.count << " "
            << c.bytes << "}";
}

// r0 frame: buffers 10, 11, 20 (site A), image 12 (site B) bound to memory 13 (only it: goes
//           with the image, 4096 bytes)
// r1 device_destroy: buffer 11 only (a teardown snapshot: left out, closes nothing)
// r2 frame: 11, 12 + 13, new buffer 14 (10 and 20 gone)
// r3 frame: 11, 14, and id 20 again (seen anew: a second lifetime)
std::vector<SnapshotBuilder> small_run() {
  std::vector<SnapshotBuilder> out;
  const auto buffer = [](SnapshotBuilder& s, uint64_t id, const char* name, uint64_t bytes) {
    s.object(ObjectSpec{id, "VkBuffer", std::string(name), 1, bytes, s.callsite(0x1000)});
  };
  const auto image = [](SnapshotBuilder& s) {
    s.object(ObjectSpec{12, "VkImage", std::string("atlas"), 1, 1000, s.callsite(0x2000)});
    s.object(ObjectSpec{13, "VkDeviceMemory", std::nullopt, 1, 4096});
    s.bind(12, 13, 4096);
  };
  SnapshotBuilder r0(kPid, 0, format::Reason::kFrame, 10);
  buffer(r0, 10, "mesh.vertex.1", 100);
  buffer(r0, 11, "mesh.vertex.2", 100);
  buffer(r0, 20, "mesh.vertex.3", 200);
  image(r0);
  out.push_back(std::move(r0));
  SnapshotBuilder r1(kPid, 1, format::Reason::kDeviceDestroy, 15);
  buffer(r1, 11, "mesh.vertex.2", 100);
  out.push_back(std::move(r1));
  SnapshotBuilder r2(kPid, 2, format::Reason::kFrame, 20);
  buffer(r2, 11, "mesh.vertex.2", 100);
  image(r2);
  buffer(r2, 14, "mesh.index.1", 100);
  out.push_back(std::move(r2));
  SnapshotBuilder r3(kPid, 3, format::Reason::kTrigger, 30);
  r3.top(format::top::kLabel, "\"level 2\"");
  buffer(r3, 11, "mesh.vertex.2", 100);
  buffer(r3, 14, "mesh.index.1", 100);
  buffer(r3, 20, "mesh.vertex.3", 200);
  out.push_back(std::move(r3));
  return out;
}

TEST(LifetimesTest, SmallRunExactCells) {
  const analysis::RunReport r = test::analyse(small_run());
  const RunLifetimes& lt = r.lifetimes;
  ASSERT_EQ(lt.snapshots.size(), 3u);  // the device_destroy snapshot is not one of them
  EXPECT_EQ(lt.snapshots[0].report_index, 0u);
  EXPECT_EQ(lt.snapshots[1].report_index, 2u);
  EXPECT_EQ(lt.snapshots[2].report_index, 3u);
  EXPECT_EQ(lt.snapshots[1].sequence, 2u);
  EXPECT_EQ(lt.snapshots[1].frame, 20u);
  EXPECT_EQ(lt.snapshots[1].reason, "frame");
  EXPECT_FALSE(lt.snapshots[1].label);
  EXPECT_EQ(lt.snapshots[2].reason, "trigger");
  EXPECT_EQ(lt.snapshots[2].label, std::optional<std::string>("level 2"));

  // Groups in the analysis' order: the buffers, the image, the image's memory (counted as an
  // object, its bytes with the image's).
  ASSERT_EQ(lt.groups.size(), 3u);
  EXPECT_EQ(lt.groups[0].object_type, "VkBuffer");
  EXPECT_EQ(lt.groups[0].name_pattern, "mesh.index.*|mesh.vertex.*");
  EXPECT_FALSE(lt.groups[0].callsite.empty());
  EXPECT_EQ(lt.groups[1].object_type, "VkImage");
  EXPECT_EQ(lt.groups[1].name_pattern, "atlas");
  EXPECT_FALSE(lt.groups[1].attached);
  EXPECT_EQ(lt.groups[2].object_type, "VkDeviceMemory");
  EXPECT_TRUE(lt.groups[2].attached);
  const std::vector<Expected> want = {
      {0, 0, 0, 2, 300},   // 10 and 20, gone after r0
      {0, 0, 2, 1, 100},   // 11, alive at the end
      {0, 1, 2, 1, 100},   // 14
      {0, 2, 2, 1, 200},   // 20 again
      {1, 0, 1, 1, 4096},  // the image with its memory's bytes
      {2, 0, 1, 1, 0},     // the memory itself
  };
  EXPECT_EQ(cells_of(lt), want);
  EXPECT_EQ(lt.cells_omitted, 0u);
  EXPECT_EQ(lt.objects_omitted, 0u);
  EXPECT_EQ(lt.bytes_omitted, 0u);

  // The leak at exit (buffer 11 at the device's destruction) points at its group.
  const analysis::Finding* leak = test::only(r, analysis::FindingKind::kLeakAtExit, "VkBuffer");
  ASSERT_NE(leak, nullptr);
  EXPECT_EQ(leak->lifetime_group, std::optional<uint32_t>(0));
}

TEST(LifetimesTest, CapKeepsWhatIsAliveAtTheEndAndCountsTheRest) {
  analysis::AnalysisOptions options = test::test_options();
  options.max_lifetime_cells = 2;
  const analysis::RunReport r = test::analyse(small_run(), options);
  const RunLifetimes& lt = r.lifetimes;
  // Alive at the end first, then bytes (20 again: 200), then the lower key on a tie.
  const std::vector<Expected> want = {{0, 0, 2, 1, 100}, {0, 2, 2, 1, 200}};
  EXPECT_EQ(cells_of(lt), want);
  EXPECT_EQ(lt.cells_omitted, 4u);
  EXPECT_EQ(lt.objects_omitted, 5u);
  EXPECT_EQ(lt.bytes_omitted, 300u + 100u + 4096u);
  ASSERT_EQ(lt.groups.size(), 1u);  // the image's group has no cell left
}

// Memory bound to one object, then on its own (the image destroyed first): one object over
// the run, in the group of the last snapshot that listed it, with that snapshot's bytes.
TEST(LifetimesTest, MemoryAttachedThenNotIsOneObject) {
  std::vector<SnapshotBuilder> run;
  for (uint32_t k = 0; k < 3; ++k) {
    SnapshotBuilder s(kPid, k, format::Reason::kFrame, 10 * (k + 1));
    if (k == 0) s.object(ObjectSpec{12, "VkImage", std::nullopt, 1, 1000, s.callsite(0x2000)});
    s.object(ObjectSpec{13, "VkDeviceMemory", std::nullopt, 1, 4096, s.callsite(0x3000)});
    if (k == 0) s.bind(12, 13, 4096);
    run.push_back(std::move(s));
  }
  const RunLifetimes lt = test::analyse(run).lifetimes;
  ASSERT_EQ(lt.groups.size(), 2u);
  EXPECT_EQ(lt.groups[0].object_type, "VkImage");
  EXPECT_EQ(lt.groups[1].object_type, "VkDeviceMemory");
  EXPECT_FALSE(lt.groups[1].attached);
  const std::vector<Expected> want = {{0, 0, 0, 1, 4096}, {1, 0, 2, 1, 4096}};
  EXPECT_EQ(cells_of(lt), want);
}

TEST(LifetimesTest, NoSnapshotsDuringTheRun) {
  SnapshotBuilder only(kPid, 0, format::Reason::kDeviceDestroy, 5);
  only.object(ObjectSpec{10, "VkBuffer", std::nullopt, 1, 64, only.callsite(0x1000)});
  const analysis::RunReport r = test::analyse({only});
  EXPECT_TRUE(r.lifetimes.snapshots.empty());
  EXPECT_TRUE(r.lifetimes.cells.empty());
  // The leak's group is listed all the same, for the explorer's link.
  ASSERT_EQ(r.lifetimes.groups.size(), 1u);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].lifetime_group, std::optional<uint32_t>(0));
}

// Five groups over four snapshots, with churn, growth, memory bound to one object and memory
// shared by two: object i of group g lives in the snapshots where (i * 7 + g * 3 + k) % 5 != 0,
// at most once (from its first to its last such snapshot, consecutively).
std::vector<SnapshotBuilder> churn_run() {
  std::vector<SnapshotBuilder> out;
  const char* types[] = {"VkBuffer", "VkImage", "VkBuffer", "VkDescriptorSet", "VkSampler"};
  for (uint32_t k = 0; k < 4; ++k) {
    SnapshotBuilder s(kPid, k, format::Reason::kFrame, 10 * (k + 1));
    std::vector<int> sites;
    for (uint64_t g = 0; g < 5; ++g) sites.push_back(s.callsite(0x1000 * (g + 1)));
    for (uint64_t g = 0; g < 5; ++g) {
      for (uint64_t i = 0; i < 10 + 4 * k; ++i) {
        const uint64_t first = i < 10 ? 0 : (i - 10) / 4 + 1;  // growth: 4 more per snapshot
        const uint64_t last = first + (i * 7 + g * 3) % 4;     // churn: various ends
        if (k < first || k > last) continue;
        // Ids in creation order, as the layer numbers objects: later snapshots' are larger.
        const uint64_t id = 100000 * first + 1000 * (g + 1) + i;
        s.object(ObjectSpec{id, types[g], "g" + std::to_string(g) + "." + std::to_string(i), 1,
                            64 * (g + 1) + i, sites[g]});
        if (g == 1) {  // images: their own memory
          s.object(ObjectSpec{id + 50000, "VkDeviceMemory", std::nullopt, 1, 4096 + i});
          s.bind(id, id + 50000, 4096 + i);
        }
      }
    }
    // Two buffers on one shared memory: both in group 0's site range, memory on its own.
    s.object(ObjectSpec{90001, "VkDeviceMemory", std::string("shared"), 1, 1 << 20});
    s.object(ObjectSpec{90002, "VkBuffer", std::nullopt, 1, 512, sites[0]});
    s.object(ObjectSpec{90003, "VkBuffer", std::nullopt, 1, 256, sites[0]});
    s.bind(90002, 90001, 512);
    s.bind(90003, 90001, 256);
    out.push_back(std::move(s));
  }
  return out;
}

using GroupKey = std::pair<std::string, std::string>;  // type, innermost frame text

GroupKey key_of(const std::string& type, const std::vector<analysis::Frame>& callsite) {
  return {type, callsite.empty() ? "" : callsite.front().text};
}

struct Numbers {
  uint64_t live_a = 0, live_b = 0, bytes_a = 0, bytes_b = 0, born = 0, born_bytes = 0;
  bool operator==(const Numbers& o) const {
    return std::tie(live_a, live_b, bytes_a, bytes_b, born, born_bytes) ==
           std::tie(o.live_a, o.live_b, o.bytes_a, o.bytes_b, o.born, o.born_bytes);
  }
};
std::ostream& operator<<(std::ostream& os, const Numbers& n) {
  return os << "live " << n.live_a << "->" << n.live_b << " bytes " << n.bytes_a << "->"
            << n.bytes_b << " born " << n.born << " (" << n.born_bytes << " bytes)";
}

TEST(LifetimesTest, DiffFromCellsEqualsVkleakDiff) {
  const std::vector<SnapshotBuilder> run = churn_run();
  const analysis::RunReport r = test::analyse(run);
  const RunLifetimes& lt = r.lifetimes;
  ASSERT_EQ(lt.snapshots.size(), 4u);
  std::vector<Snapshot> snaps;
  for (const SnapshotBuilder& b : run) snaps.push_back(b.read());
  for (uint32_t a = 0; a < 4; ++a) {
    for (uint32_t b = a + 1; b < 4; ++b) {
      SCOPED_TRACE("snapshots " + std::to_string(a) + " and " + std::to_string(b));
      // What the explorer computes: alive at a, at b; new = alive at b and not at a.
      std::map<GroupKey, Numbers> from_cells;
      std::map<std::string, Numbers> by_type;  // live counts: memory's bytes are its object's
      for (const LifetimeCell& c : lt.cells) {
        const analysis::LifetimeGroup& g = lt.groups[c.group];
        const bool at_a = c.first <= a && a <= c.last;
        const bool at_b = c.first <= b && b <= c.last;
        Numbers& t = by_type[g.object_type];
        if (at_a) t.live_a += c.count;
        if (at_b) t.live_b += c.count;
        if (g.attached) {  // `vkleak diff` lists no group for memory bound to one object
          EXPECT_EQ(c.bytes, 0u);
          continue;
        }
        Numbers& n = from_cells[key_of(g.object_type, g.callsite)];
        if (at_a) n.live_a += c.count, n.bytes_a += c.bytes;
        if (at_b) n.live_b += c.count, n.bytes_b += c.bytes;
        if (at_b && !at_a) n.born += c.count, n.born_bytes += c.bytes;
      }
      const analysis::DiffResult d =
          analysis::diff_snapshots(snaps[a], snaps[b], nullptr, test::test_options());
      // Every object counted once: per type, the counts of `vkleak diff`'s types table (which
      // are the snapshots' own), VkDeviceMemory included.
      std::map<std::string, Numbers> want_types;
      for (const analysis::DiffRow& row : d.types) {
        if (row.live[0] == 0 && row.live[1] == 0) continue;
        want_types[row.object_type] = Numbers{row.live[0], row.live[1], 0, 0, 0, 0};
      }
      EXPECT_EQ(by_type, want_types);
      EXPECT_GT(by_type["VkDeviceMemory"].live_b, 10u);
      size_t changed = 0;
      for (const analysis::DiffRow& row : d.groups) {
        const GroupKey key = key_of(row.object_type, row.callsite);
        const Numbers want{row.live[0],  row.live[1], row.bytes[0],
                           row.bytes[1], row.born,    row.born_bytes};
        SCOPED_TRACE(row.object_type + " " + key.second);
        EXPECT_EQ(from_cells[key], want);
        ++changed;
      }
      // And the groups the diff leaves out (unchanged) are unchanged in the cells too.
      size_t changed_in_cells = 0;
      for (const auto& [key, n] : from_cells) {
        if (n.born != 0 || n.live_a != n.live_b || n.bytes_a != n.bytes_b) ++changed_in_cells;
      }
      EXPECT_EQ(changed_in_cells, changed);
      EXPECT_GT(changed, 3u);
    }
  }
}

}  // namespace
}  // namespace vkleak
