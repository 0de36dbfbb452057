// orphaned_memory: device memory with nothing bound, unused for a while.
#include <gtest/gtest.h>

#include "test_util.h"

namespace vkleak {
namespace {

using analysis::FindingKind;
using test::ObjectSpec;
using test::SnapshotBuilder;

constexpr uint64_t kPid = 400;

// Incident 4: per iteration (frame), memory allocated and bound to a buffer that is destroyed
// later; the memory stays. At frame `now`, iterations 0..now-1 have run.
SnapshotBuilder tensors(uint64_t now) {
  SnapshotBuilder s(kPid, now, format::Reason::kFrame, now);
  const int site = s.callsite(0x1000);
  for (uint64_t i = 0; i < now; ++i) {
    s.object(
        {10 + i, "VkDeviceMemory", "tensor.memory", i, 1024, site, format::Origin::kAllocated, i});
  }
  // The current iteration's buffer is still bound to the newest memory.
  s.object({5000, "VkBuffer", "tensor.buffer", now - 1, 1024, s.callsite(0x2000),
            format::Origin::kCreated, now - 1});
  s.bind(5000, 10 + now - 1, 1024);
  return s;
}

TEST(OrphanedMemoryTest, MemoryWhoseBufferWasDestroyed) {
  std::vector<SnapshotBuilder> run;
  for (uint64_t now = 25; now <= 100; now += 25) run.push_back(tensors(now));
  const analysis::RunReport r = test::analyse(run);
  const analysis::Finding* f = test::only(r, FindingKind::kOrphanedMemory, "VkDeviceMemory");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->count, 85u);  // iterations 0..84: idle for 16+ frames
  EXPECT_EQ(f->bytes, 85u * 1024);
  EXPECT_EQ(f->frames.last_used, 84u);
  EXPECT_TRUE(test::has_name(*f, "tensor.memory"));
  // Not retained as well: memory with nothing bound is this rule's.
  EXPECT_TRUE(test::of_kind(r, FindingKind::kRetained).empty());
}

TEST(OrphanedMemoryTest, BoundSharedRecentAndInFlightMemoryIsNot) {
  SnapshotBuilder s(kPid, 1, format::Reason::kFrame, 100);
  const int site = s.callsite(0x1000);
  s.object({10, "VkDeviceMemory", "bound", 0, 4096, site, format::Origin::kAllocated, 50});
  s.object({11, "VkBuffer", "user", 0, 4096, s.callsite(0x2000), format::Origin::kCreated, 50});
  s.bind(11, 10, 4096);
  s.object({20, "VkDeviceMemory", "block", 0, 65536, site, format::Origin::kAllocated, 90});
  for (uint64_t i = 0; i < 4; ++i) {
    s.object({21 + i, "VkBuffer", "suballoc", 0, 1024, s.callsite(0x3000), format::Origin::kCreated,
              90});
    s.bind(21 + i, 20, 1024);
  }
  // Allocated a few frames ago and not bound yet.
  s.object({30, "VkDeviceMemory", "staging", 95, 4096, site, format::Origin::kAllocated});
  ObjectSpec busy{31, "VkDeviceMemory", "busy", 0, 4096, site, format::Origin::kAllocated, 10};
  busy.in_flight = true;
  s.object(busy);
  const analysis::RunReport r = test::analyse({s});
  EXPECT_TRUE(test::of_kind(r, FindingKind::kOrphanedMemory).empty())
      << test::of_kind(r, FindingKind::kOrphanedMemory).front()->message;
}

TEST(OrphanedMemoryTest, NeverBoundMemoryCountsFromItsAllocation) {
  // One allocation, never bound, still alive when its device is destroyed.
  std::vector<SnapshotBuilder> run;
  for (uint64_t now = 25; now <= 100; now += 25) {
    SnapshotBuilder s(kPid, now, format::Reason::kFrame, now);
    s.object({10, "VkDeviceMemory", "forgotten", 20, 4096, s.callsite(0x1000),
              format::Origin::kAllocated});
    run.push_back(std::move(s));
  }
  const analysis::RunReport running = test::analyse(run);
  EXPECT_TRUE(running.findings.empty()) << "one allocation that does not pile up: not judged";
  SnapshotBuilder end(kPid, 200, format::Reason::kDeviceDestroy, 110);
  end.object({10, "VkDeviceMemory", "forgotten", 20, 4096, end.callsite(0x1000),
              format::Origin::kAllocated});
  run.push_back(std::move(end));
  const analysis::RunReport r = test::analyse(run);
  const analysis::Finding* f = test::only(r, FindingKind::kOrphanedMemory, "VkDeviceMemory");
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(f->frames.last_used.has_value());
  EXPECT_EQ(f->frames.first, 20u);
  EXPECT_NE(test::only(r, FindingKind::kLeakAtExit, "VkDeviceMemory"), nullptr);
}

}  // namespace
}  // namespace vkleak
