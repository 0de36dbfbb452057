/* libvkleak_exit_hook.so: interposes _exit() and _Exit() so that the layer can write its exit
 * snapshot before a process ends without exit handlers (exit_hook.h). It does nothing else: with
 * no hook set (the layer not loaded, or a forked child that never used Vulkan) the call goes
 * straight on. glibc's own exit() and its internal calls do not come through here. */
#define _GNU_SOURCE
#include "preload/exit_hook.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXPORTED __attribute__((visibility("default")))

typedef void (*end_fn)(int);

static _Atomic(vkleak_exit_hook) g_hook;
/* The next definitions (libc's, or a sanitizer's interceptor), found once at load time: dlsym
 * may allocate, which _exit() inside a signal handler must not. */
static end_fn g_next_exit;
static end_fn g_next_Exit;

__attribute__((constructor)) static void find_next(void) {
  g_next_exit = (end_fn)dlsym(RTLD_NEXT, "_exit");
  g_next_Exit = (end_fn)dlsym(RTLD_NEXT, "_Exit");
}

EXPORTED void vkleak_exit_hook_set(vkleak_exit_hook hook) {
  atomic_store(&g_hook, hook);
}

static _Noreturn void end_process(int status, end_fn next) {
  /* Never cleared here: a vfork() child shares this memory with its parent. The layer's hook
   * tells its own process from a child and runs once. */
  vkleak_exit_hook hook = atomic_load(&g_hook);
  if (hook != NULL) hook(status);
  if (next != NULL) next(status);
  for (;;) syscall(SYS_exit_group, status);
}

EXPORTED void _exit(int status) {
  end_process(status, g_next_exit);
}

EXPORTED void _Exit(int status) {
  end_process(status, g_next_Exit);
}
