// A lock biased to the one thread that uses it (issue 28): the object table's shards, whose
// lock's exchange was ~9 ns of every create/destroy pair (a locked instruction waits for the
// store buffer to drain), while most apps create and destroy from one thread.
//
// The first thread to lock a shard becomes its owner, and from then on locks it with plain
// stores and loads: it marks itself busy, then checks that it still owns the lock. The first
// other thread to lock it revokes the bias for good (the lock is then an ordinary spin lock for
// everyone): under the spin lock it clears the owner, makes every thread of the process pass a
// full memory barrier (membarrier(2), private expedited: ~0.4 us), and waits until the owner is
// not busy. The barrier is what makes the owner's fence-free handshake safe: an owner whose
// check ran before it had its busy mark published by it, and one whose check ran after it sees
// the owner cleared. So a shard costs at most one barrier over the run, and a thread that locks
// only its own shards never executes a locked instruction.
//
// Biasing is off where the barrier is not available (a seccomp filter at the start, membarrier
// registration refused: old kernel) and under TSan (which cannot see the barrier): every lock
// is then the spin lock. A sandbox that starts later (a browser's GPU process) may kill a
// process for a system call it does not expect: membarrier is called only while
// /proc/self/status shows no filter; under one, the revoker fences and waits 200 us instead,
// far longer than the owner's mark can stay unpublished. Not for locks taken in signal
// handlers (neither is the spin lock).
#pragma once

#include <atomic>
#include <cstdint>

#include "base/spin_lock.h"

namespace vkleak {

class BiasedLock {
 public:
  // Returns whether the owner's fast path was taken: pass it to unlock().
  __attribute__((always_inline)) bool lock() noexcept {
    const uintptr_t me = this_thread();
    if (owner_.load(std::memory_order_relaxed) == me) {
      busy_.store(1, std::memory_order_relaxed);
      std::atomic_signal_fence(std::memory_order_seq_cst);  // the mark before the check
      if (owner_.load(std::memory_order_acquire) == me) return true;
      busy_.store(0, std::memory_order_release);  // revoked meanwhile
    }
    lock_shared(me);
    return false;
  }
  __attribute__((always_inline)) void unlock(bool fast) noexcept {
    if (fast)
      busy_.store(0, std::memory_order_release);
    else
      spin_.unlock();
  }

  // For a reader of the whole table from another thread (a snapshot collected by the writer
  // thread): the owner's bias is suspended while it reads, and handed back after, rather than
  // revoked for the rest of the run. Costs that reader one barrier per lock.
  bool lock_to_read() noexcept {
    const uintptr_t me = this_thread();
    if (owner_.load(std::memory_order_relaxed) == me) return lock();
    lock_shared(me, /*suspend=*/true);
    return false;
  }
  void unlock_to_read(bool fast) noexcept {
    if (fast) return unlock(true);
    if (suspended_ != 0) {
      // Release: the owner's next fast path (an acquire of owner_) comes after this read.
      owner_.store(suspended_, std::memory_order_release);
      suspended_ = 0;
    }
    spin_.unlock();
  }

  // Tests: whether the calling thread holds the bias (its next lock is the fast path).
  bool biased_to_this_thread() const noexcept {
    return owner_.load(std::memory_order_relaxed) == this_thread();
  }

 private:
  static constexpr uintptr_t kShared = 1;  // revoked: a spin lock for everyone
  // The thread's control block: unique among live threads, read from %fs without any TLS of
  // ours (the layer's static TLS is scarce).
  static uintptr_t this_thread() noexcept {
    return reinterpret_cast<uintptr_t>(__builtin_thread_pointer());
  }
  // The spin lock's path: takes the bias when nobody had it, revokes another thread's (only
  // until unlock_to_read when `suspend`).
  void lock_shared(uintptr_t me, bool suspend = false) noexcept;

  SpinLock spin_;
  std::atomic<uint32_t> busy_{0};    // the owner is inside (or checking)
  std::atomic<uintptr_t> owner_{0};  // 0: nobody yet; kShared; else the owner's this_thread()
  uintptr_t suspended_ = 0;          // the owner a reader suspended (under spin_)
};

// std::lock_guard for a BiasedLock, always inline (the hot paths).
class BiasedGuard {
 public:
  __attribute__((always_inline)) explicit BiasedGuard(BiasedLock& lock) noexcept
      : lock_(lock), fast_(lock.lock()) {}
  __attribute__((always_inline)) ~BiasedGuard() { lock_.unlock(fast_); }
  BiasedGuard(const BiasedGuard&) = delete;
  BiasedGuard& operator=(const BiasedGuard&) = delete;

 private:
  BiasedLock& lock_;
  const bool fast_;
};

// BiasedGuard for a reader of the whole table (BiasedLock::lock_to_read).
class BiasedReadGuard {
 public:
  explicit BiasedReadGuard(BiasedLock& lock) noexcept : lock_(lock), fast_(lock.lock_to_read()) {}
  ~BiasedReadGuard() { lock_.unlock_to_read(fast_); }
  BiasedReadGuard(const BiasedReadGuard&) = delete;
  BiasedReadGuard& operator=(const BiasedReadGuard&) = delete;

 private:
  BiasedLock& lock_;
  const bool fast_;
};

// Whether locks may be biased in this process (the barrier registered). For tests.
bool biased_locks_enabled() noexcept;

}  // namespace vkleak
