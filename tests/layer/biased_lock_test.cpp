// The object table's biased lock: the first thread to lock gets the bias, another thread's lock
// revokes it for good, and mutual exclusion holds across the owner's fence-free path and the
// spin lock's, at the handover and after it.
#include "base/biased_lock.h"

#include <gtest/gtest.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace vkleak {
namespace {

TEST(BiasedLock, FirstLockerGetsTheBiasAnotherThreadRevokesIt) {
  if (!biased_locks_enabled()) GTEST_SKIP() << "membarrier(2) unavailable: plain spin lock";
  BiasedLock lock;
  EXPECT_FALSE(lock.lock());  // the first lock takes the spin lock's path and the bias
  lock.unlock(false);
  EXPECT_TRUE(lock.biased_to_this_thread());
  const bool fast = lock.lock();
  EXPECT_TRUE(fast);
  lock.unlock(fast);
  std::thread([&] {
    EXPECT_FALSE(lock.biased_to_this_thread());
    EXPECT_FALSE(lock.lock());  // revokes
    lock.unlock(false);
    EXPECT_FALSE(lock.lock());  // and the lock stays shared
    lock.unlock(false);
    EXPECT_FALSE(lock.biased_to_this_thread());
  }).join();
  EXPECT_FALSE(lock.biased_to_this_thread());
  EXPECT_FALSE(lock.lock());
  lock.unlock(false);
}

// Counters updated with separate load and store inside the lock lose increments unless only
// one thread is inside at a time. The owner runs its fast path while other threads arrive and
// revoke it; then all of them share the spin lock. Repeated with fresh locks so that the
// handover itself is raced many times.
TEST(BiasedLock, ExcludesAcrossTheHandover) {
  constexpr int kLocks = 200, kOwnerRounds = 2000, kOtherRounds = 500, kOthers = 3;
  for (int round = 0; round < kLocks; ++round) {
    BiasedLock lock;
    std::atomic<uint64_t> counter{0};  // relaxed load + store: not an atomic increment
    const auto add = [&] {
      const bool fast = lock.lock();
      counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      lock.unlock(fast);
    };
    std::atomic<bool> go{false};
    std::thread owner([&] {
      add();  // takes the bias
      go = true;
      for (int i = 0; i < kOwnerRounds; ++i) add();
    });
    std::vector<std::thread> others;
    for (int t = 0; t < kOthers; ++t) {
      others.emplace_back([&] {
        while (!go) std::this_thread::yield();
        for (int i = 0; i < kOtherRounds; ++i) add();
      });
    }
    owner.join();
    for (auto& t : others) t.join();
    ASSERT_EQ(counter.load(), 1u + kOwnerRounds + uint64_t{kOthers} * kOtherRounds) << round;
  }
}

// A snapshot's reader on another thread suspends the owner's bias while it reads and hands it
// back: the owner keeps its fast path. Meanwhile the reader never sees the owner halfway.
TEST(BiasedLock, AReaderSuspendsTheBiasAndHandsItBack) {
  if (!biased_locks_enabled()) GTEST_SKIP() << "membarrier(2) unavailable: plain spin lock";
  BiasedLock lock;
  std::atomic<uint64_t> a{0}, b{0};  // equal outside the lock
  lock.unlock(lock.lock());          // the bias is this thread's
  ASSERT_TRUE(lock.biased_to_this_thread());
  std::atomic<int> torn{0}, reads{0};
  std::thread reader([&] {
    for (int r = 0; r < 300; ++r) {  // each read costs a barrier (and a look at seccomp)
      const bool fast = lock.lock_to_read();
      if (a.load(std::memory_order_relaxed) != b.load(std::memory_order_relaxed)) ++torn;
      lock.unlock_to_read(fast);
      ++reads;
    }
  });
  int fast_locks = 0;
  for (int i = 0; i < 2000 || reads < 300; ++i) {
    const bool fast = lock.lock();
    fast_locks += fast;
    a.store(a.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    for (int k = 0; k < 20; ++k) (void)a.load(std::memory_order_relaxed);  // widen the window
    b.store(b.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    lock.unlock(fast);
  }
  reader.join();
  EXPECT_EQ(torn, 0);
  EXPECT_TRUE(lock.biased_to_this_thread());  // handed back
  const bool fast = lock.lock();
  EXPECT_TRUE(fast);
  lock.unlock(fast);
  EXPECT_GT(fast_locks, 0);
}

// A reader of the whole table (a snapshot on the writer thread) that locks a shard first does
// not take its bias: the app's thread, which locks it next, gets it.
TEST(BiasedLock, AReaderDoesNotTakeTheBias) {
  if (!biased_locks_enabled()) GTEST_SKIP() << "membarrier(2) unavailable: plain spin lock";
  BiasedLock lock;
  std::thread([&] {
    lock.unlock_to_read(lock.lock_to_read());
    EXPECT_FALSE(lock.biased_to_this_thread());
  }).join();
  lock.unlock(lock.lock());
  EXPECT_TRUE(lock.biased_to_this_thread());
}

// A sandbox that starts after the bias was taken (a browser's GPU process) and kills the
// process on membarrier: a revocation then must not call it. The child installs such a filter
// and revokes; killed by SIGSYS, it would not exit 0.
TEST(BiasedLock, RevokesWithoutMembarrierUnderASeccompFilter) {
  if (!biased_locks_enabled()) GTEST_SKIP() << "membarrier(2) unavailable: plain spin lock";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    BiasedLock lock;
    lock.unlock(lock.lock());  // biased to this thread
    if (!lock.biased_to_this_thread()) _exit(2);
    sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_membarrier, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    sock_fprog program{static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0)
      _exit(3);
    bool revoked = false;
    std::thread([&] {
      lock.unlock(lock.lock());  // revokes: no membarrier under the filter
      revoked = !lock.biased_to_this_thread();
    }).join();
    _exit(revoked && !lock.biased_to_this_thread() ? 0 : 4);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace vkleak
