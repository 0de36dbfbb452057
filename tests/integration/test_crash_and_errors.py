"""Crashes and Vulkan errors leave a snapshot (issue 15, items 2 and 3): a fatal signal writes a
"crash" snapshot and the process still dies of that signal (with its core dump); signals the app
handles itself are left alone; VK_ERROR_OUT_OF_DEVICE_MEMORY takes one rate-limited snapshot."""

import json
import os
import resource
import signal
import subprocess
import time
import unittest

from harness import (SANITIZE, TempDirTestCase, VKLEAK, base_env, explicit_env, run, scenario,
                     snapshot_files, snapshots, validate)

APP = scenario("crash_on_demand")
# ASan (preloaded in the sanitizer runs) owns SIGSEGV, SIGBUS and SIGFPE: the layer leaves them.
asan_owns_signal = unittest.skipIf(SANITIZE == "address", "ASan handles this signal")


class CrashSnapshotTest(TempDirTestCase):
    def crash(self, mode, env=None, timeout=60):
        env = env or explicit_env(self.tmp, self.out)
        start = time.monotonic()
        proc = run([APP, "--mode", mode], env, timeout=timeout, check=False)
        return proc, time.monotonic() - start

    def assert_crash_snapshot(self, signame):
        snaps = snapshots(self.out)
        self.assertEqual([s["reason"] for s in snaps], ["crash"], snapshot_files(self.out))
        snap = snaps[0]
        validate(snap)
        self.assertEqual(snap["label"], signame)
        names = {o["name"] for o in snap["objects"]}
        self.assertTrue({"alive.0", "alive.1", "alive.2"} <= names, names)
        # The report reads it, says the run crashed, and finds no leak at exit in it.
        rep = run([VKLEAK, "report", "--format", "json", self.out], base_env(self.tmp),
                  check=False)
        self.assertIn(rep.returncode, (0, 1), rep.stderr)
        report = json.loads(rep.stdout)
        [run_doc] = report["runs"]
        self.assertFalse(run_doc["complete"])
        self.assertEqual(run_doc["crashed"], signame)
        self.assertTrue(run_doc["incomplete"][0].startswith(f"the run crashed ({signame}) at frame "),
                        run_doc["incomplete"])
        # The gate fails it as a run not checked whole.
        gate = run([VKLEAK, "gate", self.out], base_env(self.tmp), check=False)
        self.assertEqual(gate.returncode, 3, gate.stderr)
        self.assertNotIn("leak_at_exit", [f["kind"] for f in report.get("findings", [])])
        return snap

    def test_abort(self):
        proc, _ = self.crash("abort")
        self.assertEqual(proc.returncode, -signal.SIGABRT, proc.stderr)
        self.assert_crash_snapshot("SIGABRT")

    @asan_owns_signal
    def test_null_dereference(self):
        proc, elapsed = self.crash("segv")
        self.assertEqual(proc.returncode, -signal.SIGSEGV, proc.stderr)
        self.assert_crash_snapshot("SIGSEGV")
        self.assertLess(elapsed, 30)

    @asan_owns_signal
    def test_raised_sigfpe(self):
        proc, _ = self.crash("fpe")
        self.assertEqual(proc.returncode, -signal.SIGFPE, proc.stderr)
        self.assert_crash_snapshot("SIGFPE")

    @asan_owns_signal
    def test_the_core_dump_is_kept(self):
        with open("/proc/sys/kernel/core_pattern") as f:
            if f.read().strip() != "core":
                raise unittest.SkipTest("core_pattern is not a plain file name")

        def allow_core():
            resource.setrlimit(resource.RLIMIT_CORE, (1 << 30, 1 << 30))

        cwd = os.path.join(self.tmp, "cwd")
        os.makedirs(cwd)
        child = subprocess.Popen([APP, "--mode", "segv"], env=explicit_env(self.tmp, self.out),
                                 cwd=cwd, preexec_fn=allow_core, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        _, status = os.waitpid(child.pid, 0)
        child.returncode = 0  # reaped here
        self.assertTrue(os.WIFSIGNALED(status))
        self.assertEqual(os.WTERMSIG(status), signal.SIGSEGV)
        self.assertTrue(os.WCOREDUMP(status))
        self.assert_crash_snapshot("SIGSEGV")

    @asan_owns_signal
    def test_setting_off_leaves_no_snapshot(self):
        env = explicit_env(self.tmp, self.out)
        env["VKLEAK_CRASH_SNAPSHOT"] = "false"
        proc, _ = self.crash("segv", env)
        self.assertEqual(proc.returncode, -signal.SIGSEGV, proc.stderr)
        self.assertEqual(snapshot_files(self.out), [])

    def test_app_handler_installed_first_keeps_its_signal(self):
        # A runtime using SIGSEGV for control flow: 100 faults, all recovered by the app.
        proc, _ = self.crash("own_handler")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("recovered from 100 faults", proc.stdout)
        reasons = [s["reason"] for s in snapshots(self.out)]
        self.assertNotIn("crash", reasons)
        self.assertIn("device_destroy", reasons)

    @asan_owns_signal
    def test_app_handler_installed_later_chains_to_ours(self):
        proc, _ = self.crash("chain_after")
        self.assertIn("app handler calls through", proc.stderr)
        self.assertEqual(proc.returncode, -signal.SIGSEGV, proc.stderr)
        self.assert_crash_snapshot("SIGSEGV")


    def test_a_snapshot_that_cannot_be_written_does_not_hang_the_crash(self):
        # The crash thread blocks on its first log line (stderr, a full pipe nobody reads).
        proc, elapsed = self.crash("abort_blocked")
        self.assertEqual(proc.returncode, -signal.SIGABRT, proc.stderr)
        self.assertGreaterEqual(elapsed, 4.5)  # it waited for the snapshot, 5 s at most
        self.assertLess(elapsed, 20)
        self.assertEqual(snapshot_files(self.out), [])

    def test_a_forked_child_crashes_on_its_own(self):
        # The child never used Vulkan itself: no crash thread, no snapshot of its parent's
        # objects (issue 26); it dies of its signal at once, the parent goes on and tears down.
        proc, _ = self.crash("fork_abort")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        child = int(proc.stdout.split("child ")[1].split()[0])
        self.assertIn(f"child {child} signal {int(signal.SIGABRT)}", proc.stdout)
        snaps = snapshots(self.out)
        self.assertEqual([s for s in snaps if s["pid"] == child], [])
        self.assertEqual([s["reason"] for s in snaps if s["reason"] == "crash"], [])
        parent = [s["reason"] for s in snaps if s["pid"] != child]
        self.assertIn("device_destroy", parent)


class ErrorSnapshotTest(TempDirTestCase):
    def test_out_of_device_memory_one_snapshot_for_100_failures(self):
        proc = run([APP, "--mode", "oom", "--count", "100"], explicit_env(self.tmp, self.out))
        self.assertIn("100 allocations failed", proc.stdout)
        oom = snapshots(self.out, "out_of_device_memory")
        self.assertEqual(len(oom), 1, snapshot_files(self.out))
        validate(oom[0])
        self.assertEqual(oom[0]["label"], "vkAllocateMemory")
        names = {o["name"] for o in oom[0]["objects"]}
        self.assertTrue({"alive.0", "alive.1", "alive.2"} <= names, names)
        self.assertEqual(oom[0]["error_results"]["out_of_device_memory"], 1)
        # Later snapshots count every failure, snapshotted or coalesced.
        [last] = snapshots(self.out, "instance_destroy")
        self.assertEqual(last["error_results"],
                         {"out_of_device_memory": 100, "out_of_host_memory": 0,
                          "device_lost": 0})
        self.assertEqual(proc.stderr.count("VK_ERROR_OUT_OF_DEVICE_MEMORY from vkAllocateMemory"),
                         2, proc.stderr)  # the snapshot, and the first coalesced one
        rep = run([VKLEAK, "report", self.out], base_env(self.tmp), check=False)
        self.assertIn("VK_ERROR_OUT_OF_DEVICE_MEMORY from vkAllocateMemory at frame ", rep.stdout)
        self.assertIn("see what was alive then", rep.stdout)
        self.assertIn("100 calls returned VK_ERROR_OUT_OF_DEVICE_MEMORY in this run", rep.stdout)


if __name__ == "__main__":
    unittest.main()
