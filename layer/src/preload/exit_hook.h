/* The contract between libvkleak_exit_hook.so (preloaded by `vkleak run`) and the layer.
 *
 * A program that ends in _exit() or _Exit() runs no exit handlers, so the layer's exit snapshot
 * is never written and no run of such a program (a browser's GPU process) could be complete. The
 * preloaded library interposes both; before the process ends it calls the hook the layer set.
 * The layer finds the setter with dlsym(RTLD_DEFAULT, VKLEAK_EXIT_HOOK_SETTER): preloaded
 * libraries are in the global scope, the layer itself is not (the loader opens it RTLD_LOCAL).
 * Without the preload, nothing changes: the layer finds no setter.
 */
#ifndef VKLEAK_EXIT_HOOK_H
#define VKLEAK_EXIT_HOOK_H

#define VKLEAK_EXIT_HOOK_SETTER "vkleak_exit_hook_set"

#ifdef __cplusplus
extern "C" {
#endif

/* Called once, on the thread that called _exit()/_Exit(), maybe inside a signal handler: it
 * must be async-signal-safe and bounded. `status` is the exit status about to be returned. */
typedef void (*vkleak_exit_hook)(int status);

/* Sets the hook (NULL: none). The layer is linked -z nodelete, so its hook never dangles. */
typedef void (*vkleak_exit_hook_setter)(vkleak_exit_hook hook);

#ifdef __cplusplus
}
#endif

#endif
