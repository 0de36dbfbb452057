#include "base/biased_lock.h"

#include <fcntl.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace vkleak {

namespace {

int membarrier(int command) noexcept {
  return static_cast<int>(syscall(SYS_membarrier, command, 0, 0));
}

// Whether the process runs under no seccomp filter now (filters are never removed, so a filter
// seen stays). A sandbox installed after the layer started (a browser's GPU process) may kill
// the process on a system call it does not expect, membarrier among them: it is called only
// while this says no filter is in place. /proc/self/status is read with plain open/read, which
// sandboxes refuse with an error rather than a kill (a refusal reads as "filtered").
std::atomic<bool> g_seen_filter{false};
bool unfiltered_now() noexcept {
  if (g_seen_filter.load(std::memory_order_relaxed)) return false;
  bool unfiltered = false;
  const int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    char buffer[4096];
    const ssize_t n = read(fd, buffer, sizeof buffer - 1);
    close(fd);
    if (n > 0) {
      buffer[n] = '\0';
      const char* field = std::strstr(buffer, "\nSeccomp:");
      unfiltered = field && std::strtol(field + sizeof "\nSeccomp:" - 1, nullptr, 10) == 0;
    }
  }
  if (!unfiltered) g_seen_filter.store(true, std::memory_order_relaxed);
  return unfiltered;
}

// Registered once per process (a forked child inherits the registration; exec does not carry
// the layer over anyway).
bool register_barrier() noexcept {
#if defined(__SANITIZE_THREAD__)
  return false;  // TSan cannot see the barrier: it would report the owner's fast path
#else
  if (!unfiltered_now()) return false;
  const int supported = membarrier(MEMBARRIER_CMD_QUERY);
  if (supported < 0 || !(supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) ||
      !(supported & MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED))
    return false;
  return membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
#endif
}

bool barrier_registered() noexcept {
  static const bool registered = register_barrier();
  return registered;
}

// Every thread of the process passes a full barrier, or, where a seccomp filter forbids asking
// the kernel, the owner's mark has long left its store buffer: a fence here, then a wait far
// longer than a store takes to drain (a context switch or VM exit drains it too). The expedited
// command does not fail once registered; the global one (slower) stands in should it ever.
void process_barrier() noexcept {
  if (unfiltered_now()) {
    if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) return;
    if (membarrier(MEMBARRIER_CMD_GLOBAL) == 0) return;
  }
#if !defined(__SANITIZE_THREAD__)  // (biasing is off under TSan, which rejects fences)
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
  while (std::chrono::steady_clock::now() < until) __builtin_ia32_pause();
}

}  // namespace

bool biased_locks_enabled() noexcept {
  return barrier_registered();
}

void BiasedLock::lock_shared(uintptr_t me, bool suspend) noexcept {
  spin_.lock();
  const uintptr_t owner = owner_.load(std::memory_order_relaxed);
  if (owner == 0) {
    // Nobody had it: the bias goes to this thread, which takes the fast path from its next lock
    // (not to a reader of the whole table: the app's thread would then have to revoke it).
    if (!suspend && barrier_registered()) owner_.store(me, std::memory_order_relaxed);
    return;
  }
  if (owner == kShared || owner == me) return;
  // Another thread's: revoke it for good (see the header), or until unlock_to_read, then wait
  // for its owner to leave.
  if (suspend) suspended_ = owner;
  owner_.store(kShared, std::memory_order_relaxed);
  process_barrier();
  for (int spins = 0; busy_.load(std::memory_order_acquire) != 0; ++spins) {
    if (spins < 64)
      __builtin_ia32_pause();
    else
      std::this_thread::yield();
  }
}

}  // namespace vkleak
