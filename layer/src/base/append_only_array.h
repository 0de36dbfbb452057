// A thread-safe array that only grows: push() from any thread, at() from any thread that got the
// index through something that synchronizes with the push (a lock both took). Chunks are
// allocated on demand and never move or shrink, so readers take no lock. Indices are 1-based:
// 0 means "none" and is what push() returns when memory runs out.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <new>

namespace vkleak {

template <typename T, uint32_t kChunkBits, uint32_t kMaxChunks>
class AppendOnlyArray {
 public:
  static constexpr uint32_t kChunkSize = 1u << kChunkBits;

  AppendOnlyArray() = default;
  ~AppendOnlyArray() {
    for (auto& c : chunks_) delete[] c.load(std::memory_order_relaxed);
  }
  AppendOnlyArray(const AppendOnlyArray&) = delete;
  AppendOnlyArray& operator=(const AppendOnlyArray&) = delete;

  // A new element (default-constructed with its chunk); 0 when full or out of memory.
  uint32_t allocate() noexcept {
    const uint64_t n = next_.fetch_add(1, std::memory_order_relaxed);  // 64 bits: never wraps
    if (n >= uint64_t{kMaxChunks} << kChunkBits) return 0;             // full: like out of memory
    const uint32_t i = static_cast<uint32_t>(n), chunk = i >> kChunkBits;
    if (!chunks_[chunk].load(std::memory_order_acquire)) {
      std::lock_guard<std::mutex> lock(grow_);
      if (!chunks_[chunk].load(std::memory_order_relaxed)) {
        T* c = new (std::nothrow) T[kChunkSize];
        if (!c) return 0;
        chunks_[chunk].store(c, std::memory_order_release);
      }
    }
    return i + 1;
  }

  uint32_t push(const T& value) noexcept {
    const uint32_t index = allocate();
    if (index) *slot(index) = value;
    return index;
  }

  // The element of an index allocate() or push() returned.
  T* slot(uint32_t one_based) noexcept {
    const uint32_t i = one_based - 1;
    return &chunks_[i >> kChunkBits].load(std::memory_order_acquire)[i & (kChunkSize - 1)];
  }

  // Null for 0 and for indices never handed out.
  const T* at(uint32_t one_based) const noexcept {
    if (one_based == 0) return nullptr;
    const uint32_t i = one_based - 1;
    if (i >> kChunkBits >= kMaxChunks) return nullptr;
    const T* c = chunks_[i >> kChunkBits].load(std::memory_order_acquire);
    return c ? &c[i & (kChunkSize - 1)] : nullptr;
  }

  // Indices handed out so far (some may have failed).
  uint64_t size() const noexcept { return next_.load(std::memory_order_relaxed); }

  uint64_t memory_bytes() const noexcept {
    uint64_t n = sizeof(*this);
    for (const auto& c : chunks_)
      if (c.load(std::memory_order_relaxed)) n += sizeof(T) * kChunkSize;
    return n;
  }

 private:
  std::atomic<uint64_t> next_{0};
  std::mutex grow_;
  std::atomic<T*> chunks_[kMaxChunks] = {};
};

}  // namespace vkleak
