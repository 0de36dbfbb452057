"""fork() and SIGTERM (issue 26, items 1, 2 and 7): a forked child is exactly what it is without
the layer (no thread, no pipe, no snapshot of its parent's objects, the same exit time); SIGTERM
leaves a final snapshot and still kills the program with SIGTERM; `vkleak run` says how a run
without an end snapshot ended."""

import os
import re
import signal
import unittest

from harness import (TempDirTestCase, VKLEAK, base_env, explicit_env, run, scenario,
                     snapshot_files, snapshots, validate, without_layer_env)

APP = scenario("crash_on_demand")
CHILD = re.compile(r"child (\d+) (exit|signal) (\d+) in ([0-9.]+) ms")


def child_exit(proc):
    """(pid, "exit"/"signal", code, ms) of the fork_exit child; fails on a hung child."""
    m = CHILD.search(proc.stdout)
    if not m:
        raise AssertionError(f"no child line (rc {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return int(m.group(1)), m.group(2), int(m.group(3)), float(m.group(4))


class ForkTest(TempDirTestCase):
    def fork_exit(self, env):
        return run([APP, "--mode", "fork_exit"], env, timeout=60, check=False)

    def test_child_exits_as_fast_as_without_the_layer(self):
        # Item 1: the layer started its crash thread in the child, whose exit() then hung.
        base = [child_exit(self.fork_exit(without_layer_env(self.tmp)))[3] for _ in range(3)]
        for _ in range(3):
            proc = self.fork_exit(explicit_env(self.tmp, self.out))
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            _, how, code, ms = child_exit(proc)
            self.assertEqual((how, code), ("exit", 0))
            # Close to the time without the layer (a busy 2-core machine: a generous margin; the
            # bug was a hang, and a thread start + join costs well under this).
            self.assertLess(ms, min(base) + 250, (ms, base))

    def test_child_without_vulkan_writes_nothing(self):
        # Item 2: the child wrote an exit snapshot of its parent's objects under its own pid.
        proc = self.fork_exit(explicit_env(self.tmp, self.out))
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        child = child_exit(proc)[0]
        snaps = snapshots(self.out)
        self.assertEqual([s for s in snaps if s["pid"] == child], [], snapshot_files(self.out))
        self.assertEqual(len({s["pid"] for s in snaps}), 1, snapshot_files(self.out))
        self.assertIn("instance_destroy", [s["reason"] for s in snaps])
        # A clean program with a forked helper passes the gate.
        gate = run([VKLEAK, "gate", self.out], base_env(self.tmp), check=False)
        self.assertEqual(gate.returncode, 0, gate.stdout + gate.stderr)

    def test_crash_snapshot_off_is_the_same(self):
        env = explicit_env(self.tmp, self.out)
        env["VKLEAK_CRASH_SNAPSHOT"] = "false"
        proc = self.fork_exit(env)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        child = child_exit(proc)[0]
        self.assertEqual([s for s in snapshots(self.out) if s["pid"] == child], [])

    def test_a_forked_child_dies_of_its_signal_at_once(self):
        # The child inherits the handlers but no crash thread: the default action, no snapshot.
        proc = run([APP, "--mode", "fork_abort"], explicit_env(self.tmp, self.out), check=False)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        child = int(proc.stdout.split("child ")[1].split()[0])
        self.assertIn(f"child {child} signal {int(signal.SIGABRT)}", proc.stdout)
        self.assertEqual([s for s in snapshots(self.out) if s["pid"] == child], [])


class SigtermTest(TempDirTestCase):
    def test_sigterm_final_snapshot_and_same_status(self):
        without = run([APP, "--mode", "sigterm"], without_layer_env(self.tmp), timeout=60,
                      check=False)
        self.assertEqual(without.returncode, -signal.SIGTERM)
        proc = run([APP, "--mode", "sigterm"], explicit_env(self.tmp, self.out), timeout=60,
                   check=False)
        self.assertEqual(proc.returncode, without.returncode, proc.stderr)
        snaps = snapshots(self.out)
        self.assertEqual([(s["reason"], s["label"]) for s in snaps], [("crash", "SIGTERM")],
                         snapshot_files(self.out))
        validate(snaps[0])
        names = {o["name"] for o in snaps[0]["objects"]}
        self.assertTrue({"alive.0", "alive.1", "alive.2"} <= names, names)
        rep = run([VKLEAK, "report", self.out], base_env(self.tmp), check=False)
        self.assertIn("the run was stopped by SIGTERM at frame", rep.stdout + rep.stderr)

    def test_sigterm_untouched_without_crash_snapshots(self):
        env = explicit_env(self.tmp, self.out)
        env["VKLEAK_CRASH_SNAPSHOT"] = "false"
        proc = run([APP, "--mode", "sigterm"], env, timeout=60, check=False)
        self.assertEqual(proc.returncode, -signal.SIGTERM, proc.stderr)
        self.assertEqual(snapshots(self.out), [])

    def test_vkleak_run_sigterm(self):
        env = base_env(self.tmp)
        proc = run([VKLEAK, "run", "--out", self.out, "--", APP, "--mode", "sigterm"], env,
                   timeout=60, check=False)
        self.assertEqual(proc.returncode, 128 + signal.SIGTERM, proc.stderr)
        self.assertNotIn("was the layer loaded", proc.stderr)
        self.assertIn("the run was stopped by SIGTERM", proc.stderr)


class RunMessagesTest(TempDirTestCase):
    def vkleak_run(self, *args, env=None):
        return run([VKLEAK, "run", "--out", self.out, "--", *args], env or base_env(self.tmp),
                   timeout=60, check=False)

    def test_no_vulkan_says_what_may_have_happened(self):
        proc = self.vkleak_run("true")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("this run wrote no snapshot: the program exited with status 0 without one",
                      proc.stderr)
        self.assertIn("_exit()", proc.stderr)

    def test_killed_by_sigkill_says_so(self):
        # A program that kills itself with SIGKILL: nothing can be written.
        proc = self.vkleak_run("sh", "-c", "kill -KILL $$")
        self.assertEqual(proc.returncode, 128 + signal.SIGKILL, proc.stderr)
        self.assertIn("this run wrote no snapshot: the program was killed by SIGKILL", proc.stderr)
        self.assertIn("no program can catch SIGKILL", proc.stderr)
        self.assertNotIn("was the layer loaded", proc.stderr)

    def test_snapshots_but_no_end_one_says_how_it_ended(self):
        # A device_destroy snapshot, then _exit(): the program's pid is named with its exit.
        proc = self.vkleak_run(APP, "--mode", "underscore_exit")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual([s["reason"] for s in snapshots(self.out)], ["device_destroy"])
        self.assertRegex(proc.stderr, r"pid \d+: the program exited with status 0 without an "
                                      r"end-of-run snapshot: the program ended through _exit\(\)")


if __name__ == "__main__":
    unittest.main()
