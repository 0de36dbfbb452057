#include "base/biased_lock.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <thread>

namespace vkleak {

namespace {

int membarrier(int command) noexcept {
  return static_cast<int>(syscall(SYS_membarrier, command, 0, 0));
}

// Registered once per process (a forked child inherits the registration; exec does not carry
// the layer over anyway).
bool register_barrier() noexcept {
#if defined(__SANITIZE_THREAD__)
  return false;  // TSan cannot see the barrier: it would report the owner's fast path
#else
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

// Every thread of the process passes a full barrier. Registered, the expedited command does not
// fail; the global one (no registration, slower) stands in should it ever.
void process_barrier() noexcept {
  if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) return;
  membarrier(MEMBARRIER_CMD_GLOBAL);
}

}  // namespace

bool biased_locks_enabled() noexcept {
  return barrier_registered();
}

void BiasedLock::lock_shared(uintptr_t me, bool suspend) noexcept {
  spin_.lock();
  const uintptr_t owner = owner_.load(std::memory_order_relaxed);
  if (owner == 0) {
    // Nobody had it: the bias goes to this thread, which takes the fast path from its next lock.
    if (barrier_registered()) owner_.store(me, std::memory_order_relaxed);
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
