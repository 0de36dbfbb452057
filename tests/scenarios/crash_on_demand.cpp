// Crashes on demand under a live device holding buffers "alive.0".."alive.2" (the tests check
// the layer's crash snapshot and that the process still dies of the same signal), or fails an
// allocation on purpose. --mode:
//   abort        abort() (SIGABRT)
//   segv         a write through a null pointer (SIGSEGV, a fault that re-executes)
//   fpe          raise(SIGFPE)
//   own_handler  installs a SIGSEGV handler before Vulkan starts and uses SIGSEGV for control
//                flow (100 faults recovered with siglongjmp, like a JVM); exits 0
//   chain_after  installs a SIGSEGV handler after the instance exists that calls through to the
//                one it replaced, then faults (a crash reporter installed late)
//   abort_blocked  makes its stderr a pipe that nobody reads and that is full, so that the
//                crash thread blocks on its first log line ("SIGABRT: writing a crash
//                snapshot"), then abort()s: the layer must give up after its bound and let the
//                process die. (A FIFO at the temporary name blocked it once; the layer creates
//                files exclusively and without blocking now: test_hostile_files.py.)
//   fork_abort   fork()s; the child aborts (SIGABRT), the parent waits for it, prints the
//                child's status ("child <pid> signal <n>") and tears down; exits 0
//   fork_exit    fork()s; the child calls exit(0) without touching Vulkan; the parent waits at
//                most 10 s, prints "child <pid> exit <code> in <ms> ms" (or "child <pid> signal
//                <n> in <ms> ms", or "child <pid> hung" after killing it) and tears down; exits 0
//                (4 if the child hung)
//   sigterm      kill(getpid(), SIGTERM) (what a service manager sends); dies of it
//   underscore_exit  destroys the buffers and the device, waits (at most 5 s) for the layer's
//                device_destroy snapshot in $VKLEAK_OUTPUT_DIR, then _exit(0) before destroying
//                the instance (no exit handlers run): exits 0
//   fork_instance  fork()s; the child creates a VkInstance and device of its own, a buffer
//                "child.0" it never destroys, and ends with _exit(0) (lavapipe's exit handler
//                hangs in a forked child that used Vulkan, with or without the layer); the
//                parent waits at most 20 s, prints "child <pid> exit <code>" (or "child <pid>
//                hung" after killing it) and tears down; exits 0 (4 if the child hung)
//   handler_exit installs a SIGSEGV handler before Vulkan starts that calls _exit(3) (a crash
//                reporter's way out), then faults: exits 3 (the layer's snapshot is taken from
//                inside that handler)
//   oom          --count vkAllocateMemory calls of 4x the largest heap (each fails with
//                VK_ERROR_OUT_OF_DEVICE_MEMORY), then a normal teardown; exits 0
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "scenario_common.h"

namespace {

sigjmp_buf g_recover;
volatile sig_atomic_t g_recovered = 0;
struct sigaction g_previous;

void exiting_handler(int) {
  _exit(3);
}

void recovering_handler(int) {
  ++g_recovered;
  siglongjmp(g_recover, 1);
}

void chaining_handler(int sig, siginfo_t* info, void* context) {
  static const char msg[] = "chain_after: app handler calls through\n";
  (void)!write(2, msg, sizeof(msg) - 1);
  if (g_previous.sa_flags & SA_SIGINFO) {
    g_previous.sa_sigaction(sig, info, context);
  } else if (g_previous.sa_handler == SIG_DFL) {
    signal(sig, SIG_DFL);
  } else if (g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(sig);
  }
}

// A real SIGSEGV without undefined behaviour (a store through null is UB, which UBSan stops at in
// the sanitizer runs): a store to a page mapped with no access.
void fault() {
  static void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  *static_cast<volatile int*>(page) = 42;
}

double now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// Each fault jumps back here; the counter lives in the handler's global, not in a clobbered local.
void recover_from_faults(int n) {
  while (g_recovered < n) {
    if (sigsetjmp(g_recover, 1) == 0) fault();
  }
}

// Waits until timeout_ms after start (now_ms() before the fork) for the forked child; a child
// still running then is killed and reported ("child <pid> hung"), and false returned.
bool wait_child(pid_t child, double start, double timeout_ms, int* status, double* ms) {
  pid_t done = 0;
  while ((done = waitpid(child, status, WNOHANG)) == 0 && now_ms() - start < timeout_ms) {
    timespec ts{0, 1000 * 1000};
    nanosleep(&ts, nullptr);
  }
  *ms = now_ms() - start;
  if (done == child) return true;
  kill(child, SIGKILL);
  waitpid(child, status, 0);
  std::printf("child %d hung\n", static_cast<int>(child));
  std::fflush(stdout);
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  scenario::Options options("crash_on_demand", "Crashes on demand under a live device.", 1);
  std::string mode = "abort";
  uint32_t count = 100;
  options.add_string(
      "--mode", &mode, "how to crash",
      {"abort", "segv", "fpe", "own_handler", "chain_after", "fork_abort", "abort_blocked", "oom",
       "fork_exit", "sigterm", "underscore_exit", "handler_exit", "fork_instance"});
  options.add_uint("--count", &count, "failing allocations (--mode oom)");
  options.parse(argc, argv);

  if (mode == "own_handler" || mode == "handler_exit") {
    struct sigaction act {};
    act.sa_handler = mode == "own_handler" ? recovering_handler : exiting_handler;
    sigemptyset(&act.sa_mask);
    sigaction(SIGSEGV, &act, nullptr);
  }

  scenario::Context ctx({"crash_on_demand", false});
  scenario::Buffer alive[3];
  for (int i = 0; i < 3; ++i)
    alive[i] = scenario::create_buffer(ctx, 4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                       "alive." + std::to_string(i));
  std::fflush(stdout);

  if (mode == "abort") std::abort();
  if (mode == "abort_blocked") {
    int p[2];
    if (pipe(p) != 0) return 3;
    const int flags = fcntl(p[1], F_GETFL);
    fcntl(p[1], F_SETFL, flags | O_NONBLOCK);
    static char fill[4096];
    while (write(p[1], fill, sizeof(fill)) > 0) {
    }
    fcntl(p[1], F_SETFL, flags);  // full, and blocking again
    fflush(stderr);
    dup2(p[1], 2);
    std::abort();  // p[0] stays open: writes block rather than fail
  }
  if (mode == "segv" || mode == "handler_exit") fault();
  if (mode == "fpe") raise(SIGFPE);
  if (mode == "chain_after") {
    struct sigaction act {};
    act.sa_sigaction = chaining_handler;
    sigemptyset(&act.sa_mask);
    act.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &act, &g_previous);
    fault();
  }
  if (mode == "fork_abort") {
    const pid_t child = fork();
    if (child == 0) std::abort();
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child) return 3;
    std::printf("child %d signal %d\n", static_cast<int>(child),
                WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  }
  if (mode == "fork_exit") {
    const double start = now_ms();
    const pid_t child = fork();
    if (child == 0) std::exit(0);
    if (child < 0) return 3;
    int status = 0;
    double ms = 0;
    if (!wait_child(child, start, 10000, &status, &ms)) return 4;
    if (WIFSIGNALED(status))
      std::printf("child %d signal %d in %.1f ms\n", static_cast<int>(child), WTERMSIG(status), ms);
    else
      std::printf("child %d exit %d in %.1f ms\n", static_cast<int>(child), WEXITSTATUS(status),
                  ms);
  }
  if (mode == "fork_instance") {
    std::fflush(stdout);
    const double start = now_ms();
    const pid_t child = fork();
    if (child == 0) {
      scenario::Context own({"crash_on_demand.child", false});
      scenario::create_buffer(own, 4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT, "child.0");
      _exit(0);
    }
    if (child < 0) return 3;
    int status = 0;
    double ms = 0;
    if (!wait_child(child, start, 20000, &status, &ms)) return 4;
    std::printf("child %d exit %d\n", static_cast<int>(child),
                WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  }
  if (mode == "sigterm") {
    kill(getpid(), SIGTERM);
    sleep(10);
    return 3;
  }
  if (mode == "underscore_exit") {
    // The device goes (a device_destroy snapshot), the instance stays: no end-of-run snapshot.
    for (scenario::Buffer& b : alive) scenario::destroy_buffer(ctx, b);
    vkDestroyDevice(ctx.device, nullptr);
    // The layer writes that snapshot on its writer thread: wait for it (at most 5 s), so that
    // _exit() does not race it.
    if (const char* dir = std::getenv("VKLEAK_OUTPUT_DIR")) {
      const std::string want = "-" + std::to_string(getpid()) + "-";
      for (int i = 0; i < 500; ++i) {
        bool found = false;
        if (DIR* d = opendir(dir)) {
          while (const dirent* e = readdir(d)) {
            const std::string name = e->d_name;
            if (name.find(want) != std::string::npos && name.size() > 20 &&
                name.compare(name.size() - 20, 20, "-device_destroy.json") == 0)
              found = true;
          }
          closedir(d);
        }
        if (found) break;
        usleep(10 * 1000);
      }
    }
    _exit(0);
  }
  if (mode == "own_handler") {
    recover_from_faults(100);
    std::printf("recovered from %d faults\n", static_cast<int>(g_recovered));
    if (g_recovered != 100) return 3;
  }
  if (mode == "oom") {
    VkPhysicalDeviceMemoryProperties props;
    vkGetPhysicalDeviceMemoryProperties(ctx.physical_device, &props);
    VkDeviceSize largest = 0;
    for (uint32_t i = 0; i < props.memoryHeapCount; ++i)
      if (props.memoryHeaps[i].size > largest) largest = props.memoryHeaps[i].size;
    // 4x the largest heap (lavapipe: host memory, overcommitted), and never under 2^52 bytes:
    // beyond what the address space holds, so that the driver must fail it.
    const VkDeviceSize size = std::max<VkDeviceSize>(largest * 4, VkDeviceSize{1} << 52);
    uint32_t failed = 0;
    for (uint32_t i = 0; i < count; ++i) {
      VkMemoryAllocateInfo info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
      info.allocationSize = size;
      info.memoryTypeIndex = 0;
      VkDeviceMemory memory = VK_NULL_HANDLE;
      VkResult r = vkAllocateMemory(ctx.device, &info, nullptr, &memory);
      if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY) ++failed;
      if (r == VK_SUCCESS) vkFreeMemory(ctx.device, memory, nullptr);
    }
    std::printf("%u allocations failed with VK_ERROR_OUT_OF_DEVICE_MEMORY\n", failed);
    if (failed != count) return 3;
  }
  for (scenario::Buffer& b : alive) scenario::destroy_buffer(ctx, b);
  ctx.destroy();
  return 0;
}
