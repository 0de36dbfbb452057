// The memory objects resources are bound to, by a 32-bit slot. A bound buffer, image or
// acceleration structure names its memory by slot in its own record (ObjectRecord::memory_slot)
// instead of by handle and id, which would not fit in 48 bytes; the snapshot and the submission
// tracker read the handle and id here.
//
// Slots are never reused: a resource bound to memory freed long ago still names it. A memory
// object gets its slot at the first binding to it, so the directory costs 16 bytes per memory
// object anything was ever bound to (allocations are few: drivers cap them at a few thousand
// live).
#pragma once

#include <cstdint>

#include "base/append_only_array.h"

namespace vkleak {

struct BoundMemory {
  uint64_t handle = 0;
  uint64_t id = 0;
};

class MemoryDirectory {
 public:
  // A new slot for this memory object; 0 when out of memory (the binding then goes to the
  // EdgeStore).
  uint32_t add(uint64_t handle, uint64_t id) noexcept { return slots_.push({handle, id}); }
  // Null for 0. See AppendOnlyArray::at for the synchronization readers need.
  const BoundMemory* at(uint32_t slot) const noexcept { return slots_.at(slot); }

 private:
  AppendOnlyArray<BoundMemory, 10, 4096> slots_;  // up to 4M slots; 32 KiB of chunk pointers
};

}  // namespace vkleak
