// A per-thread memo of recent stack walks, so that a call site is unwound once per call chain
// instead of once per object.
//
// Key: where the hook's return address lies on the stack, and its value. A hit must also find,
// at the very stack addresses the unwinder read them from last time, the same return address of
// every frame the call site was made of. Unwinding is a function of those return addresses and
// the stack pointer (frames whose canonical frame address is stack-pointer based, which is what
// optimized code has), so a validated hit is the walk the unwinder would do again. Frames based
// on a frame pointer that moved (alloca) could in theory validate against stale stack words:
// the cost of that is a wrong call site, never a bad read: callers store only walks whose every
// slot lies inside the thread's own stack, above the hook's frame, and the memo is per thread.
#pragma once

#include <climits>
#include <cstdint>

namespace vkleak {

class StackMemo {
 public:
  static constexpr uint32_t kEntries = 32;  // direct-mapped
  // Return addresses checked per entry, at most: a call site's 64 frames (those of the Vulkan
  // stack included, e.g. GL on zink) plus the frames above it, up to the hook's.
  static constexpr uint32_t kFrames = 80;

  // The call-site id remembered for this chain, or 0.
  __attribute__((no_sanitize_address)) uint32_t find(uintptr_t key_slot, uintptr_t key_ret,
                                                     uint32_t depth) const noexcept {
    const Entry& e = entries_[index(key_slot, key_ret)];
    if (e.key_slot != key_slot || e.key_ret != key_ret || e.depth != depth || e.id == 0) return 0;
    for (uint32_t i = 0; i < e.count; ++i)
      if (*reinterpret_cast<const volatile uintptr_t*>(e.frame[i].slot) != e.frame[i].ret) return 0;
    return e.id;
  }

  // Remembers a walk: ret[i] was read from stack address slot[i]; slot[0] is key_slot.
  void store(uintptr_t key_slot, uintptr_t key_ret, uint32_t depth, const uintptr_t* slot,
             const uintptr_t* ret, uint32_t count, uint32_t id) noexcept {
    if (count > kFrames) return;
    Entry& e = entries_[index(key_slot, key_ret)];
    e.key_slot = key_slot;
    e.key_ret = key_ret;
    e.depth = depth;
    e.count = count;
    for (uint32_t i = 0; i < count; ++i) e.frame[i] = {slot[i], ret[i]};
    e.id = id;
  }

 private:
  struct Entry {
    uintptr_t key_slot = 0, key_ret = 0;
    uint32_t depth = 0, count = 0, id = 0;
    // Side by side: a check reads the lines of the frames it checks, not of all kFrames.
    struct Frame {
      uintptr_t slot, ret;
    } frame[kFrames];
  };
  static uint32_t index(uintptr_t key_slot, uintptr_t key_ret) noexcept {
    uint64_t x = (key_slot >> 3) ^ (key_ret * 0x9e3779b97f4a7c15ull);
    return static_cast<uint32_t>(x >> 40) % kEntries;
  }
  Entry entries_[kEntries];
};

// How far above a frame's return-address slot its caller's lies, per return address (learned
// from a full walk that reports stack addresses; constant for a given address unless the frame
// has a variable size, which the memo's check then rejects). Lets a fast walk that gives only
// return addresses find where they lie. Open addressing; cleared when full.
class FrameSizes {
 public:
  static constexpr uint32_t kSlots = 512;
  static constexpr int32_t kUnknown = INT32_MIN;

  int32_t find(uintptr_t ip) const noexcept {
    for (uint32_t i = index(ip), n = 0; n < kSlots; i = (i + 1) % kSlots, ++n) {
      if (ips_[i] == ip) return sizes_[i];
      if (ips_[i] == 0) return kUnknown;
    }
    return kUnknown;
  }
  void set(uintptr_t ip, int32_t size) noexcept {
    if (ip == 0) return;
    if (used_ * 4 >= kSlots * 3) clear();
    uint32_t i = index(ip);
    while (ips_[i] != 0 && ips_[i] != ip) i = (i + 1) % kSlots;
    if (ips_[i] == 0) ++used_;
    ips_[i] = ip;
    sizes_[i] = size;
  }

 private:
  static uint32_t index(uintptr_t ip) noexcept {
    return static_cast<uint32_t>((ip * 0x9e3779b97f4a7c15ull) >> 40) % kSlots;
  }
  void clear() noexcept {
    for (uint32_t i = 0; i < kSlots; ++i) ips_[i] = 0;
    used_ = 0;
  }
  uintptr_t ips_[kSlots] = {};
  int32_t sizes_[kSlots] = {};
  uint32_t used_ = 0;
};

}  // namespace vkleak
