"""A run is one process, start to end (issue 26, items 4-6): a probe instance's destroy is not
the run's end; runs that share a pid and a directory never mix, and a file whose content is
another run than its name says is not the run's; a trigger with no instance takes no snapshot
(none in the app's working directory, no hole in the run's sequence, none after its end)."""

import json
import os
import re
import shutil
import subprocess
import threading
import time
import unittest

from harness import (VKLEAK, TempDirTestCase, explicit_env, run, scenario, snapshot_files,
                     snapshots)

NAME_RE = re.compile(r"^vkleak-(\d+)-(?:([0-9a-f]{16})-)?(\d+)-([a-z_]+)\.json$")


def vkleak(args, expect=None):
    proc = subprocess.run([VKLEAK] + args, capture_output=True, text=True, timeout=300)
    if expect is not None and proc.returncode != expect:
        raise AssertionError(f"vkleak {args}: exit {proc.returncode}, expected {expect}\n"
                             f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


def probe(env, *args, check=True, cwd=None):
    cmd = [scenario("probe_instance")] + list(args)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300, cwd=cwd)
    if check and proc.returncode != 0:
        raise AssertionError(f"{cmd} exited {proc.returncode}\n{proc.stderr[-3000:]}")
    return proc


def name_parts(path):
    m = NAME_RE.match(os.path.basename(path))
    assert m, path
    return int(m.group(1)), m.group(2), int(m.group(3)), m.group(4)


def make_name(pid, run_id, sequence, reason):
    middle = f"{run_id}-" if run_id else ""
    return f"vkleak-{pid}-{middle}{sequence:04d}-{reason}.json"


class ProbeInstanceTest(TempDirTestCase):
    """Item 4: "final" is the process's end, never an early vkDestroyInstance."""

    def test_a_killed_run_after_a_probe_instance_fails_the_gate(self):
        for end in ("kill", "_exit"):
            with self.subTest(end=end):
                out = os.path.join(self.tmp, end)
                probe(explicit_env(self.tmp, out), "--probes", "1", "--leak", "5", "--end", end,
                      check=False)
                gate = vkleak(["gate", out, "--color", "never"], expect=3)
                self.assertIn("the run has no end-of-run snapshot", gate.stderr)
                snaps = snapshots(out)
                self.assertEqual([s["reason"] for s in snaps][:1], ["instance_destroy"])
                self.assertFalse(any(s.get("final") for s in snaps),
                                 [(s["reason"], s.get("final")) for s in snaps])

    def test_a_torn_down_run_after_probes_is_complete(self):
        probe(explicit_env(self.tmp, self.out), "--probes", "2", "--end", "teardown")
        snaps = snapshots(self.out)
        reasons = [(s["reason"], s["final"]) for s in snaps]
        # The probes' destroys are not final; the last instance's destroy is, marked at exit.
        self.assertEqual(reasons[:2], [("instance_destroy", False)] * 2)
        self.assertEqual(reasons[-1], ("instance_destroy", True))
        self.assertEqual([f for _, f in reasons].count(True), 1, reasons)
        vkleak(["gate", self.out, "--color", "never"], expect=0)

    def test_an_exit_without_teardown_after_a_probe_is_complete(self):
        probe(explicit_env(self.tmp, self.out), "--probes", "1", "--leak", "5", "--end", "exit")
        snaps = snapshots(self.out)
        self.assertEqual((snaps[-1]["reason"], snaps[-1]["final"]), ("exit", True))
        report = vkleak(["report", self.out, "--color", "never"], expect=0)
        self.assertNotIn("not checked whole", report.stdout)
        self.assertIn("leaked.", report.stdout)


class RunIdentityTest(TempDirTestCase):
    """Item 5: every run has an identity; runs never mix."""

    def run_into(self, out, *args, check=True):
        env = explicit_env(self.tmp, out)
        env["VKLEAK_SNAPSHOT_EVERY"] = "1"
        env["VKLEAK_FRAME_BOUNDARY"] = "submit"
        return probe(env, "--probes", "0", "--frames", "3", *args, check=check)

    def test_names_and_contents_carry_the_run_id(self):
        self.run_into(self.out)
        files = snapshot_files(self.out)
        self.assertGreaterEqual(len(files), 3)
        ids = set()
        for path in files:
            pid, run_id, sequence, reason = name_parts(path)
            self.assertIsNotNone(run_id, path)
            with open(path) as f:
                content = json.load(f)
            self.assertEqual((content["pid"], content["run_id"], content["sequence"],
                              content["reason"]), (pid, run_id, sequence, reason))
            ids.add(run_id)
        self.assertEqual(len(ids), 1)
        other = os.path.join(self.tmp, "other")
        self.run_into(other)
        self.assertNotEqual(name_parts(snapshot_files(other)[0])[1], ids.pop())

    def test_a_killed_leaking_run_with_the_same_pid_does_not_pass(self):
        # A clean run, then a killed leaking run with the same pid in the same directory (a
        # rerun in a container): made here by moving the second run's files under the first's pid.
        self.run_into(self.out)
        clean_pid = name_parts(snapshot_files(self.out)[0])[0]
        vkleak(["gate", self.out, "--color", "never"], expect=0)
        killed = os.path.join(self.tmp, "killed")
        self.run_into(killed, "--leak", "5", "--end", "kill", check=False)
        moved = snapshot_files(killed)
        self.assertTrue(moved)
        for path in moved:
            pid, run_id, sequence, reason = name_parts(path)
            with open(path) as f:
                content = json.load(f)
            content["pid"] = clean_pid
            with open(os.path.join(self.out, make_name(clean_pid, run_id, sequence, reason)),
                      "w") as f:
                json.dump(content, f)
        gate = vkleak(["gate", self.out, "--color", "never"], expect=3)
        self.assertIn("no end-of-run snapshot", gate.stderr)
        # Two runs of one pid: every text names which run it means (pid and run id).
        killed_id = name_parts(moved[0])[1]
        self.assertIn(f"run pid {clean_pid}, run {killed_id[:8]} was not checked whole",
                      gate.stderr)
        self.assertIn(f"Run pid {clean_pid}, run {killed_id[:8]}", gate.stdout)
        runs = json.loads(vkleak(["report", self.out, "--format", "json"]).stdout)["runs"]
        self.assertEqual(sorted(r["run_id"] for r in runs),
                         sorted({name_parts(p)[1] for p in snapshot_files(self.out)}))

    def test_another_processes_final_snapshot_renamed_into_a_killed_run(self):
        killed = self.out
        self.run_into(killed, "--leak", "5", "--end", "kill", check=False)
        files = snapshot_files(killed)
        self.assertTrue(files)
        pid, run_id, last, _ = name_parts(files[-1])
        clean = os.path.join(self.tmp, "clean")
        self.run_into(clean)
        final = [p for p in snapshot_files(clean) if p.endswith("instance_destroy.json")][-1]
        with open(final) as f:
            content = json.load(f)
        self.assertTrue(content["final"])
        content["sequence"] = last + 1  # it fills the killed run's sequence
        with open(os.path.join(killed, make_name(pid, run_id, last + 1, "instance_destroy")),
                  "w") as f:
            json.dump(content, f)
        gate = vkleak(["gate", killed, "--color", "never"], expect=3)
        self.assertIn("is not the run its name says", gate.stderr)


class TriggerWithoutInstanceTest(TempDirTestCase):
    """Item 6: a trigger while no instance exists takes no snapshot."""

    def test_triggers_around_probe_instances(self):
        for attempt in range(4):
            out = os.path.join(self.tmp, f"out{attempt}")
            cwd = os.path.join(self.tmp, f"cwd{attempt}")
            os.makedirs(out)
            os.makedirs(cwd)
            trigger = os.path.join(out, "vkleak.trigger")
            stop = threading.Event()

            def touch():
                while not stop.is_set():
                    try:
                        open(trigger, "w").close()
                    except OSError:
                        pass
                    time.sleep(0.002)

            toucher = threading.Thread(target=touch)
            toucher.start()
            try:
                probe(explicit_env(self.tmp, out), "--probes", "12", "--pause-ms", "30",
                      "--end", "teardown", cwd=cwd)
            finally:
                stop.set()
                toucher.join()
            self.assertEqual(os.listdir(cwd), [], "a snapshot went to the working directory")
            snaps = snapshots(out)
            self.assertTrue(snaps[-1]["final"], [(s["reason"], s["final"]) for s in snaps])
            self.assertEqual([s["sequence"] for s in snaps], list(range(len(snaps))))
            vkleak(["gate", out, "--color", "never"], expect=0)


if __name__ == "__main__":
    unittest.main()
