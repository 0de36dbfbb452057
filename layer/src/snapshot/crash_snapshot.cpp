#include "snapshot/crash_snapshot.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <mutex>
#include <new>
#include <thread>

#include "base/log.h"
#include "preload/exit_hook.h"
#include "snapshot/snapshot.h"

namespace vkleak {
namespace {

// The faults first (kFaultCount of them): the crash thread keeps them deliverable. SIGTERM, how
// service managers and `kill` stop a program, stays blocked there (it goes to an app thread).
constexpr int kSignals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTERM};
constexpr int kSignalCount = sizeof(kSignals) / sizeof(kSignals[0]);
constexpr int kFaultCount = kSignalCount - 1;
// In g_crash_signal: the program called _exit() or _Exit(), or quick_exit(); no signal. The exit
// snapshot's label says which (the CLI lists what they leave alive, unjudged, and names the call).
constexpr int kUnderscoreExit = -1;
constexpr int kQuickExit = -2;

const char* signal_name(int sig) {
  switch (sig) {
    case SIGABRT:
      return "SIGABRT";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGTERM:
      return "SIGTERM";
  }
  return "signal";
}

// What the handler reads: lock-free atomics only.
std::atomic<int> g_wake_fd{-1};       // write end: wakes the crash thread
std::atomic<int> g_done_read_fd{-1};  // readable once the snapshot is written
std::atomic<int> g_done_write_fd{-1};
std::atomic<pid_t> g_thread_pid{0};  // the process whose crash thread runs (0: none)
std::atomic<pid_t> g_crash_tid{0};
std::atomic<pid_t> g_writer_tid{0};
std::atomic<int> g_crash_signal{0};  // the first fatal signal taken, or kUnderscoreExit/kQuickExit
std::atomic<int64_t> g_deadline_ns{0};

struct State {
  std::mutex mutex;
  bool started = false;  // the thread and its pipes
  int wake[2] = {-1, -1};
  int done[2] = {-1, -1};
  std::thread thread;
  bool installed[kSignalCount] = {};
  struct sigaction previous[kSignalCount] = {};
};
State& state() {
  static auto* s = new State;  // never destroyed (see log.cpp)
  return *s;
}

pid_t current_tid() {
  return static_cast<pid_t>(syscall(SYS_gettid));
}

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void wait_until(int64_t deadline) {
  const int fd = g_done_read_fd.load();
  while (true) {
    const int64_t left = deadline - now_ns();
    if (left <= 0) return;
    if (fd < 0) {
      timespec ts{0, 10 * 1000 * 1000};
      nanosleep(&ts, nullptr);
      continue;
    }
    pollfd p{fd, POLLIN, 0};
    const int r = poll(&p, 1, static_cast<int>(left / 1000000) + 1);
    if (r > 0 || (r < 0 && errno != EINTR)) return;
  }
}

// Async-signal-safe: atomics, write(), poll(), sigaction(), raise().
void on_crash(int sig, siginfo_t* info, void*) {
  const int saved_errno = errno;
  const pid_t tid = current_tid();
  const bool thread_here = g_thread_pid.load() == getpid();
  if (thread_here && tid == g_crash_tid.load()) {
    // Writing the snapshot crashed: wake the first crashing thread, which then dies of its own
    // signal; this one only if that did not happen.
    if (g_crash_signal.load() != 0) {
      const char b = 'd';
      const int fd = g_done_write_fd.load();
      if (fd >= 0) (void)!write(fd, &b, 1);
      const int64_t deadline = g_deadline_ns.load() + 1000000000;
      while (now_ns() < deadline) {
        timespec ts{0, 50 * 1000 * 1000};
        nanosleep(&ts, nullptr);
      }
    }
  } else if (thread_here && tid != g_writer_tid.load()) {
    int expected = 0;
    int64_t deadline = 0;
    if (g_crash_signal.compare_exchange_strong(expected, sig)) {
      deadline = now_ns() + int64_t{kCrashWaitMs} * 1000000;
      g_deadline_ns.store(deadline);
      const char b = 'c';
      const int fd = g_wake_fd.load();
      if (fd >= 0) (void)!write(fd, &b, 1);
    } else {
      // Another thread crashed first: wait for the same snapshot, as long.
      deadline = g_deadline_ns.load();
      if (deadline == 0) deadline = now_ns() + int64_t{kCrashWaitMs} * 1000000;
    }
    wait_until(deadline);
  }
  // The default action. A fault re-executes when we return; a signal sent (abort(), raise(),
  // kill()) is sent again, pending until we return (it is blocked in its handler). SIGTERM never
  // re-executes, whoever sent it.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  if (sig == SIGTERM || info == nullptr || info->si_code <= 0) raise(sig);
  errno = saved_errno;
}

void crash_main(int wake_fd, int done_fd) {
  g_crash_tid.store(current_tid());
  while (true) {
    char b = 0;
    const ssize_t n = read(wake_fd, &b, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n != 1 || b == 'q') return;
    const int sig = g_crash_signal.load();
    if (sig == kUnderscoreExit || sig == kQuickExit) {
      snapshot_at_quick_exit(sig == kQuickExit ? "quick_exit" : "_exit");
      const char d = 'd';
      (void)!write(done_fd, &d, 1);
      continue;
    }
    const char* name = signal_name(sig);
    // A stop is no error: the program's stderr stays what it is without the layer.
    if (sig == SIGTERM)
      log().info("{}: writing a final snapshot", name);
    else
      log().error("{}: writing a crash snapshot", name);
    snapshot_sync(SnapshotReason::kCrash, name);
    const char d = 'd';
    (void)!write(done_fd, &d, 1);
  }
}

// The program ends without exit handlers: _exit()/_Exit() through the preloaded hook library
// (preload/exit_hook.h), or quick_exit(). Maybe inside a signal handler, so only what on_crash
// does: the crash thread writes the snapshot, this thread waits at most kCrashWaitMs. Without
// the thread (after the last instance's destroy, or crash_snapshot=false) only the run's end is
// marked (snapshot.h).
void end_without_handlers(int how) {
  const int saved_errno = errno;
  const pid_t tid = current_tid();
  if (g_thread_pid.load() == getpid()) {
    if (tid == g_crash_tid.load() || tid == g_writer_tid.load()) {
      errno = saved_errno;
      return;  // the layer's own threads: they would wait for themselves
    }
    int expected = 0;
    if (g_crash_signal.compare_exchange_strong(expected, how)) {
      const int64_t deadline = now_ns() + int64_t{kCrashWaitMs} * 1000000;
      g_deadline_ns.store(deadline);
      const char b = 'x';
      const int fd = g_wake_fd.load();
      if (fd >= 0) (void)!write(fd, &b, 1);
      wait_until(deadline);
    } else {
      // A crash or another thread's _exit() first: its snapshot, then the process ends.
      int64_t deadline = g_deadline_ns.load();
      if (deadline == 0) deadline = now_ns() + int64_t{kCrashWaitMs} * 1000000;
      wait_until(deadline);
    }
  } else {
    mark_run_end_at_quick_exit();
  }
  errno = saved_errno;
}

void on_quick_exit_hook(int /*status*/) {
  end_without_handlers(kUnderscoreExit);
}

void on_quick_exit_handler() {
  end_without_handlers(kQuickExit);
}

void close_pair(int* fds) {
  for (int i = 0; i < 2; ++i) {
    if (fds[i] >= 0) close(fds[i]);
    fds[i] = -1;
  }
}

// Under s.mutex.
bool start_thread(State& s) {
  if (pipe2(s.wake, O_CLOEXEC) != 0) return false;
  if (pipe2(s.done, O_CLOEXEC | O_NONBLOCK) != 0) {  // the handler's write never blocks
    close_pair(s.wake);
    return false;
  }
  g_wake_fd.store(s.wake[1]);
  g_done_read_fd.store(s.done[0]);
  g_done_write_fd.store(s.done[1]);
  g_crash_signal.store(0);
  g_deadline_ns.store(0);
  // The thread takes no asynchronous signal of the app's; the crash signals stay deliverable
  // (blocked, a fault would kill the process at once with the thread's own signal).
  sigset_t all, old;
  sigfillset(&all);
  for (int i = 0; i < kFaultCount; ++i) sigdelset(&all, kSignals[i]);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  bool ok = true;
  try {
    s.thread = std::thread(crash_main, s.wake[0], s.done[1]);
  } catch (...) {
    ok = false;
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (!ok) {
    g_wake_fd.store(-1);
    g_done_read_fd.store(-1);
    g_done_write_fd.store(-1);
    close_pair(s.wake);
    close_pair(s.done);
    return false;
  }
  g_thread_pid.store(getpid());
  s.started = true;
  return true;
}

// Under s.mutex.
void stop_thread(State& s) {
  if (!s.started) return;
  g_thread_pid.store(0);  // from now on a crash is not waited for
  const char q = 'q';
  (void)!write(s.wake[1], &q, 1);
  if (s.thread.joinable()) s.thread.join();
  g_wake_fd.store(-1);
  g_done_read_fd.store(-1);
  g_done_write_fd.store(-1);
  close_pair(s.wake);
  close_pair(s.done);
  g_crash_tid.store(0);
  s.started = false;
}

// fork() copies only the calling thread, and the pipes are shared with the parent (a crash of
// the child would wake the parent's thread). The child gets no thread and no pipes: it must be
// exactly what it is without the layer (a thread started here hung children whose exit()
// handlers join threads, and delayed every child's exit). The handlers it inherits see no crash
// thread of this process (g_thread_pid is the parent's) and perform the default action at once.
// A child that creates its own VkInstance starts its own thread then (start_crash_snapshots).
void after_fork_in_child() {
  State& s = state();
  new (&s.mutex) std::mutex;
  if (!s.started) return;
  new (&s.thread) std::thread;  // the parent's: never join it
  g_crash_tid.store(0);
  g_writer_tid.store(0);
  g_wake_fd.store(-1);
  g_done_read_fd.store(-1);
  g_done_write_fd.store(-1);
  close_pair(s.wake);
  close_pair(s.done);
  s.started = false;
}

std::once_flag g_fork_once;

}  // namespace

void start_crash_snapshots(const Settings& settings) noexcept {
  if (!settings.crash_snapshot) return;
  State& s = state();
  try {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.started) return;
    std::call_once(g_fork_once, [] { pthread_atfork(nullptr, nullptr, after_fork_in_child); });
    if (!start_thread(s)) {
      log().warn("cannot start the crash snapshot thread; crashes leave no snapshot");
      return;
    }
    for (int i = 0; i < kSignalCount; ++i) {
      // Only where the app left the signal at its default: a runtime (JVM, .NET, wasm), a
      // crash reporter or a sanitizer that handles it keeps it.
      struct sigaction current {};
      if (sigaction(kSignals[i], nullptr, &current) != 0 || (current.sa_flags & SA_SIGINFO) ||
          current.sa_handler != SIG_DFL)
        continue;
      struct sigaction act {};
      act.sa_sigaction = on_crash;
      sigemptyset(&act.sa_mask);
      act.sa_flags = SA_SIGINFO | SA_ONSTACK;
      s.installed[i] = sigaction(kSignals[i], &act, &s.previous[i]) == 0;
    }
  } catch (...) {
  }
}

void stop_crash_snapshots() noexcept {
  State& s = state();
  try {
    std::lock_guard<std::mutex> lock(s.mutex);
    for (int i = 0; i < kSignalCount; ++i) {
      if (!s.installed[i]) continue;
      s.installed[i] = false;
      // A handler the app installed after ours may still call through to ours: leave it (the
      // layer is linked -z nodelete, so on_crash stays mapped; with no thread it only performs
      // the default action).
      struct sigaction current {};
      if (sigaction(kSignals[i], nullptr, &current) == 0 && (current.sa_flags & SA_SIGINFO) &&
          current.sa_sigaction == on_crash)
        sigaction(kSignals[i], &s.previous[i], nullptr);
    }
    stop_thread(s);
  } catch (...) {
  }
}

void install_quick_exit_hooks() noexcept {
  // quick_exit() runs at_quick_exit handlers on the calling thread, then _Exit() inside libc
  // (which the preloaded library does not see).
  at_quick_exit(on_quick_exit_handler);
  if (void* setter = dlsym(RTLD_DEFAULT, VKLEAK_EXIT_HOOK_SETTER)) {
    reinterpret_cast<vkleak_exit_hook_setter>(setter)(on_quick_exit_hook);
    log().info("_exit() and _Exit() are watched (the exit hook library is preloaded)");
  }
}

void note_writer_thread() noexcept {
  g_writer_tid.store(current_tid());
}

}  // namespace vkleak
