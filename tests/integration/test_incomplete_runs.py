"""A gate is green only on a run it checked whole (issue 15, item 1): snapshots the layer could
not write (a full disk), a run killed before its end, leftovers of a killed writer, and the
settings a user gets wrong are all said plainly, and the gate exits 3 on them."""

import glob
import json
import os
import resource
import signal
import subprocess
import tempfile
import time
import unittest

from harness import (VKLEAK, TempDirTestCase, explicit_env, run, scenario, snapshot_files,
                     snapshots)


def vkleak(args, env=None, expect=None):
    proc = subprocess.run([VKLEAK] + args, capture_output=True, text=True, timeout=300,
                          env=env)
    if expect is not None and proc.returncode != expect:
        raise AssertionError(f"vkleak {args}: exit {proc.returncode}, expected {expect}\n"
                             f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


def small_tmpfs(size):
    """A tmpfs of `size` bytes, or None where this machine cannot mount one."""
    path = tempfile.mkdtemp(prefix="vkleak-full-")
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", path],
                          capture_output=True)
    if proc.returncode != 0:
        os.rmdir(path)
        return None
    return path


def limit_file_size(limit):
    """For preexec_fn: files past `limit` bytes cannot be written (EFBIG), like a full disk; the
    signal the kernel sends with it is ignored, as the layer's host may well do."""
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


class FullDiskTest(TempDirTestCase):
    """The incident of the issue: 1,005 leaked buffers, the device_destroy snapshot lost to a
    full disk, the small instance_destroy one written: the gate must not pass."""

    def check_lost_snapshot(self, out, env, preexec_fn=None):
        proc = subprocess.run([VKLEAK, "run", "--out", out, "--",
                               scenario("leak_named_buffers"), "--count", "1005"],
                              env=env, capture_output=True, text=True, timeout=300,
                              preexec_fn=preexec_fn)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        # The layer logs the failure; vkleak run names it after the app is done.
        self.assertRegex(proc.stderr, r"snapshot \S+device_destroy\.json not written")
        self.assertIn("the layer could not write 1 snapshot: #0 (device_destroy)", proc.stderr)
        [written] = snapshot_files(out)
        self.assertTrue(written.endswith("instance_destroy.json"), written)
        with open(written) as f:
            snap = json.load(f)
        self.assertTrue(snap["final"])
        self.assertEqual(snap["unwritten_count"], 1)
        self.assertEqual(snap["unwritten"][0]["sequence"], 0)
        self.assertEqual(snap["unwritten"][0]["reason"], "device_destroy")

        gate = vkleak(["gate", out, "--color", "never"], expect=3)
        self.assertIn("Gate: INCOMPLETE", gate.stdout)
        self.assertIn("was not checked whole: the layer could not write 1 snapshot: #0 "
                      "(device_destroy)", gate.stderr)
        doc = json.loads(vkleak(["gate", out, "--format", "json"], expect=3).stdout)
        self.assertEqual(doc["gate"]["result"], "incomplete")
        self.assertFalse(doc["runs"][0]["complete"])
        # Accepting an incomplete run is a choice the user makes, and it is said.
        allowed = vkleak(["gate", out, "--allow-incomplete"], expect=0)
        self.assertIn("allowed by --allow-incomplete", allowed.stderr)
        return gate

    def test_full_tmpfs(self):
        mount = small_tmpfs(64 * 1024)
        if mount is None:
            self.skipTest("cannot mount a tmpfs here (test_injected_write_failure covers it)")
        try:
            env = explicit_env(self.tmp, self.out)
            gate = self.check_lost_snapshot(os.path.join(mount, "snaps"), env)
            self.assertIn("No space left on device", gate.stderr)
        finally:
            subprocess.run(["umount", mount])
            os.rmdir(mount)

    def test_injected_write_failure(self):
        # Everywhere (no mount needed): files past 16 KiB fail with EFBIG, as a full disk would.
        env = explicit_env(self.tmp, self.out)
        gate = self.check_lost_snapshot(self.out, env, limit_file_size(16 * 1024))
        self.assertIn("File too large", gate.stderr)

    def test_every_failure_is_logged(self):
        # An output directory that cannot be made: every snapshot fails, each one is logged.
        blocker = os.path.join(self.tmp, "file")
        open(blocker, "w").close()
        env = explicit_env(self.tmp, os.path.join(blocker, "snaps"))
        proc = run([scenario("leak_named_buffers"), "--count", "2"], env)
        self.assertIn("device_destroy.json not written", proc.stderr)
        self.assertIn("instance_destroy.json not written", proc.stderr)
        self.assertIn("(2 snapshots not written so far)", proc.stderr)


class KilledRunTest(TempDirTestCase):
    def test_a_killed_run_fails_the_gate(self):
        env = explicit_env(self.tmp, self.out)
        env["VKLEAK_SNAPSHOT_EVERY"] = "20"
        proc = subprocess.Popen([scenario("clean_app"), "--frames", "100000"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            end = time.time() + 60
            while len(snapshots(self.out, "frame")) < 2 and time.time() < end:
                time.sleep(0.2)
        finally:
            proc.kill()
            proc.wait(timeout=30)
        self.assertGreaterEqual(len(snapshots(self.out, "frame")), 2)
        gate = vkleak(["gate", self.out, "--color", "never"], expect=3)
        self.assertIn("the run has no end-of-run snapshot", gate.stderr)
        # report is no gate: it exits 0, and its headline says the run was not checked whole.
        report = vkleak(["report", self.out, "--color", "never"], expect=0)
        self.assertIn("not checked whole", report.stdout)

    def test_stale_temporaries_of_killed_writers_are_removed(self):
        os.makedirs(self.out)
        dead_pid = 4_000_000  # above any pid_max: no such process
        stale = os.path.join(self.out, f".vkleak-{dead_pid}-0003-frame.json.tmp")
        fresh = os.path.join(self.out, f".vkleak-{dead_pid}-0004-frame.json.tmp")
        alive = os.path.join(self.out, f".vkleak-{os.getpid()}-0001-frame.json.tmp")
        other = os.path.join(self.out, "notes.tmp")
        for path in (stale, fresh, alive, other):
            with open(path, "w") as f:
                f.write("{")
        hour_ago = time.time() - 3600
        for path in (stale, alive, other):
            os.utime(path, (hour_ago, hour_ago))
        run([scenario("leak_named_buffers"), "--count", "1"], explicit_env(self.tmp, self.out))
        self.assertFalse(os.path.exists(stale), "a dead writer's old temporary is removed")
        self.assertTrue(os.path.exists(fresh), "a recent one may be another namespace's")
        self.assertTrue(os.path.exists(alive), "a live process's temporary is its own")
        self.assertTrue(os.path.exists(other), "other files are left alone")


class SettingsTest(TempDirTestCase):
    def test_a_bad_value_names_the_variable_as_spelled(self):
        env = explicit_env(self.tmp, self.out)
        env["VKLEAK_SNAPSHOT_EVERY"] = "often"
        env["VK_VKLEAK_TRACKER_CALLSTACK_DEPTH"] = "65"
        proc = run([scenario("leak_named_buffers"), "--count", "1"], env)
        self.assertIn("VKLEAK_SNAPSHOT_EVERY: invalid value 'often'", proc.stderr)
        self.assertIn("VK_VKLEAK_TRACKER_CALLSTACK_DEPTH: invalid value '65' for setting "
                      "'callstack_depth': expected 0..64", proc.stderr)

    def test_the_cli_takes_the_layers_range(self):
        for depth, expect in (("64", 0), ("65", 2), ("256", 2)):
            proc = vkleak(["run", "--out", self.out, "--callstack-depth", depth, "--",
                           scenario("leak_named_buffers"), "--count", "1"],
                          env=explicit_env(self.tmp, self.out))
            self.assertEqual(proc.returncode, expect, depth + proc.stderr[-2000:])
            if expect == 0:
                [snap] = snapshots(self.out, "device_destroy")
                self.assertEqual(snap["settings"]["callstack_depth"], depth)

    def test_view_hint_quotes_its_path(self):
        out = os.path.join(self.tmp, "my snaps; rm -rf x")
        proc = vkleak(["run", "--out", out, "--", scenario("leak_named_buffers"), "--count", "1"],
                      env=explicit_env(self.tmp, self.out), expect=0)
        [hint] = [l for l in proc.stderr.splitlines() if "see the report" in l]
        self.assertEqual("vkleak: see the report: vkleak report '" + out + "'", hint)


if __name__ == "__main__":
    unittest.main()
