// Storage that starts on a cache line and fills whole lines: per-shard arrays written by
// different threads must not share a line (false sharing showed as two threads running
// slower than one, depending on where malloc had put two shards' arrays).
#pragma once

#include <cstddef>
#include <new>

namespace vkleak {

constexpr size_t kCacheLine = 64;

template <typename T>
struct CacheAlignedAllocator {
  using value_type = T;
  CacheAlignedAllocator() noexcept = default;
  template <typename U>
  CacheAlignedAllocator(const CacheAlignedAllocator<U>&) noexcept {}
  static size_t bytes(size_t n) noexcept {
    return (n * sizeof(T) + kCacheLine - 1) / kCacheLine * kCacheLine;
  }
  T* allocate(size_t n) {
    return static_cast<T*>(::operator new(bytes(n), std::align_val_t(kCacheLine)));
  }
  void deallocate(T* p, size_t) noexcept { ::operator delete(p, std::align_val_t(kCacheLine)); }
  template <typename U>
  bool operator==(const CacheAlignedAllocator<U>&) const noexcept {
    return true;
  }
  template <typename U>
  bool operator!=(const CacheAlignedAllocator<U>&) const noexcept {
    return false;
  }
};

}  // namespace vkleak
