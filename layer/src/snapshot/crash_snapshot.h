// Crash snapshots: on SIGABRT, SIGSEGV, SIGBUS, SIGFPE or SIGILL, a best-effort final snapshot
// (reason "crash", label the signal's name), then the signal's default action, so that the
// process still dies of the same signal with its core dump. SIGTERM (service managers, kill) the
// same way: a final snapshot labelled "SIGTERM", then the program dies of SIGTERM.
//
// A forked child gets no crash thread and no pipes: its inherited handlers perform the default
// action at once, until the child creates a VkInstance of its own.
//
// Installed only for signals the app left at SIG_DFL when the layer starts (runtimes and crash
// reporters that own a signal keep it). The handler collects nothing (no malloc, no locks): it
// wakes a small dedicated thread that collects and writes the snapshot, and waits for it at
// most kCrashWaitMs. A handler the app installs later may call through to ours; ours then
// snapshots and performs the default action.
#pragma once

#include "base/settings.h"

namespace vkleak {

constexpr int kCrashWaitMs = 5000;

// With the writer thread (start_writer/stop_writer); the setting crash_snapshot=false keeps
// them off. stop restores the signals before the loader may unload the layer.
void start_crash_snapshots(const Settings& settings) noexcept;
void stop_crash_snapshots() noexcept;

// Once, with the exit handler: the end of a program in _exit()/_Exit() (where `vkleak run`
// preloads libvkleak_exit_hook.so, preload/exit_hook.h) or quick_exit() gets the snapshot exit()
// would have written, taken the crash snapshot's way (bounded by kCrashWaitMs).
void install_quick_exit_hooks() noexcept;

// Called on the writer thread: a crash there is not waited for (it may hold what the crash
// thread needs).
void note_writer_thread() noexcept;

}  // namespace vkleak
