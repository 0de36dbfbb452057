// A short lock for the table shards: critical sections are a few dozen instructions, so spinning
// (with a pause, then yielding) beats a futex sleep/wake under contention. Satisfies Lockable.
#pragma once

#include <atomic>
#include <thread>

namespace vkleak {

class SpinLock {
 public:
  // Inline: the uncontended case is one exchange; waiting is out of line.
  __attribute__((always_inline)) void lock() noexcept {
    if (!locked_.exchange(true, std::memory_order_acquire)) return;
    wait_and_lock();
  }
  bool try_lock() noexcept {
    return !locked_.load(std::memory_order_relaxed) &&
           !locked_.exchange(true, std::memory_order_acquire);
  }
  __attribute__((always_inline)) void unlock() noexcept {
    locked_.store(false, std::memory_order_release);
  }

 private:
  __attribute__((noinline)) void wait_and_lock() noexcept {
    for (int spins = 0;; ++spins) {
      if (!locked_.load(std::memory_order_relaxed) &&
          !locked_.exchange(true, std::memory_order_acquire))
        return;
      if (spins < 64) {
        __builtin_ia32_pause();
      } else {
        std::this_thread::yield();
      }
    }
  }

  std::atomic<bool> locked_{false};
};

// std::lock_guard for a SpinLock on the hooks' hot path, always inline (the compiler would
// otherwise keep std::lock_guard's constructor out of line in large hooks).
class SpinGuard {
 public:
  __attribute__((always_inline)) explicit SpinGuard(SpinLock& lock) noexcept : lock_(lock) {
    lock_.lock();
  }
  __attribute__((always_inline)) ~SpinGuard() { lock_.unlock(); }
  SpinGuard(const SpinGuard&) = delete;
  SpinGuard& operator=(const SpinGuard&) = delete;

 private:
  SpinLock& lock_;
};

}  // namespace vkleak
