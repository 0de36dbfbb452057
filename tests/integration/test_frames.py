"""Frames for every program: frame_boundary=auto (the default) counts frames at submits on a
device that submits without presenting and at presents otherwise; the run's frame survives the
destruction of every device."""

import json
import os
import subprocess
import unittest

from harness import (VKLEAK, TempDirTestCase, explicit_env, run, scenario, snapshots, validate,
                     xvfb)

FRAMES_AT_SUBMITS = "frames counted at submits: this program never presented"


def vkleak(args):
    proc = subprocess.run([VKLEAK] + args, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "DEBUGINFOD_URLS": ""})
    if proc.returncode != 0:
        raise AssertionError(f"vkleak {args} exited {proc.returncode}\n{proc.stderr[-3000:]}")
    return proc.stdout


class FrameBoundaryTest(TempDirTestCase):
    def env(self, every):
        env = explicit_env(self.tmp, self.out)
        env["VKLEAK_SNAPSHOT_EVERY"] = str(every)
        return env  # no VKLEAK_FRAME_BOUNDARY: the default

    def test_never_presenting_program_gets_periodic_snapshots(self):
        run([scenario("clean_app"), "--frames", "200"], self.env(50))
        snaps = snapshots(self.out)
        for s in snaps:
            validate(s)
        frames = snapshots(self.out, "frame")
        # 50 submits without a present (--every 50, fewer than auto's 64) switch the device to
        # submits: the first periodic snapshot is at frame 50 (issue 36, point 7), then one frame
        # per submit.
        self.assertEqual([s["frame"] for s in frames], [50, 100, 150, 200])
        for s in frames:
            self.assertEqual(s["settings"]["frame_boundary"], "auto")
            self.assertEqual(s["frame_boundary"], "submit")
            [dev] = s["devices"]
            self.assertEqual((dev["frame_boundary"], dev["frame_boundary_auto"]), ("submit", True))
            self.assertEqual(dev["presents"], 0)
            self.assertEqual(dev["frame"], dev["submits"])
        # Objects made during the run carry the frame they were made in.
        self.assertTrue(any(o["frame"] > 64 for o in frames[-1]["objects"]))

        report = vkleak(["report", self.out])
        self.assertIn(FRAMES_AT_SUBMITS, report)
        self.assertIn("frames 50-200", report)
        self.assertNotIn("--every", report)
        doc = json.loads(vkleak(["report", self.out, "--format", "json"]))
        [r] = doc["runs"]
        self.assertEqual(r["frame_boundary"], "submit")
        self.assertTrue(any(FRAMES_AT_SUBMITS in n for n in r["notes"]), r["notes"])
        first = snapshot_path(self.out, 0)
        self.assertIn(FRAMES_AT_SUBMITS, vkleak(["show", first]))
        shown = json.loads(vkleak(["show", first, "--format", "json"]))
        self.assertTrue(shown["snapshot"]["frames_at_submits_auto"])

    def test_never_presenting_program_is_numbered_by_submits_from_its_first(self):
        # Issue 27, point 7: objects made during the first 64 submits (before auto decides) read
        # the submit count they were made at, exactly as with frame_boundary=submit, not frame 0.
        def frames(boundary):
            out = os.path.join(self.tmp, boundary)
            env = explicit_env(self.tmp, out)
            env["VKLEAK_FRAME_BOUNDARY"] = boundary
            run([scenario("incident4_orphaned_memory")], env)
            [end] = snapshots(out, "device_destroy")
            return sorted((o["frame"], (o.get("last_use") or {}).get("frame"))
                          for o in end["objects"] if o.get("name") == "tensor.memory")
        auto, submit = frames("auto"), frames("submit")
        self.assertEqual(auto, submit)
        self.assertEqual([f for f, _ in auto[:5]], [0, 1, 2, 3, 4])
        self.assertEqual(len({f for f, _ in auto if f < 64}), 64)

    def test_every_n_takes_its_first_snapshot_at_frame_n(self):
        # Issue 36, point 7: --every 25 on a compute program took its first snapshot at frame 64.
        for every in (25, 10, 1):
            out = os.path.join(self.tmp, f"every{every}")
            env = explicit_env(self.tmp, out)
            env["VKLEAK_SNAPSHOT_EVERY"] = str(every)
            run([scenario("clean_app"), "--frames", "100"], env)
            frames = [s["frame"] for s in snapshots(out, "frame")]
            self.assertEqual(frames[:3], [every, 2 * every, 3 * every], f"--every {every}")
            self.assertEqual(frames, sorted(set(frames)), f"--every {every}")
        # Beyond auto's 64 submits the device decides at 64 and --every counts from there.
        out = os.path.join(self.tmp, "every80")
        env = explicit_env(self.tmp, out)
        env["VKLEAK_SNAPSHOT_EVERY"] = "80"
        run([scenario("clean_app"), "--frames", "200"], env)
        self.assertEqual([s["frame"] for s in snapshots(out, "frame")], [80, 160])

    def test_explicit_present_keeps_frame_zero_and_says_why(self):
        env = self.env(50)
        env["VKLEAK_FRAME_BOUNDARY"] = "present"
        run([scenario("clean_app"), "--frames", "100"], env)
        self.assertEqual(snapshots(self.out, "frame"), [])
        [dev] = snapshots(self.out, "device_destroy")[0]["devices"]
        self.assertEqual((dev["frame"], dev["frame_boundary"], dev["frame_boundary_auto"]),
                         (0, "present", False))
        doc = json.loads(vkleak(["report", self.out, "--format", "json"]))
        notes = " ".join(doc["runs"][0]["notes"])
        self.assertIn("frames never ended: 101 submit(s) and no present", notes)
        self.assertNotIn("vkleak run --every N takes them", notes)
        self.assertNotIn(FRAMES_AT_SUBMITS, notes)

    def test_presenting_program_counts_presents(self):
        with xvfb() as display:
            env = self.env(10)
            env["DISPLAY"] = display
            run([scenario("clean_app"), "--frames", "30", "--swapchain"], env)
        frames = snapshots(self.out, "frame")
        self.assertEqual([s["frame"] for s in frames], [10, 20, 30])
        for s in frames:
            validate(s)
            self.assertEqual(s["frame_boundary"], "present")
            [dev] = s["devices"]
            self.assertEqual((dev["frame_boundary"], dev["frame_boundary_auto"]), ("present", True))
            self.assertEqual(dev["frame"], dev["presents"])
        self.assertNotIn(FRAMES_AT_SUBMITS, vkleak(["report", self.out]))
        shown = json.loads(vkleak(["show", snapshot_path(self.out, 0), "--format", "json"]))
        self.assertFalse(shown["snapshot"]["frames_at_submits_auto"])

    def test_presents_after_a_long_start_up_count_at_presents_again(self):
        # 100 submits before the first present (a loading screen's uploads): frames counted at
        # submits meanwhile, then at presents: one frame per present, never going back.
        with xvfb() as display:
            env = self.env(10)
            env["DISPLAY"] = display
            run([scenario("clean_app"), "--frames", "30", "--swapchain", "--startup-submits",
                 "100"], env)
        [end] = snapshots(self.out, "device_destroy")
        [dev] = end["devices"]
        self.assertEqual((dev["frame_boundary"], dev["frame_boundary_auto"]), ("present", True))
        self.assertEqual(dev["presents"], 30)
        # The submits before the first present (100, and the first frame's), then the presents.
        self.assertIn(dev["frame"] - dev["presents"], (101, 102))
        frames = [s["frame"] for s in snapshots(self.out, "frame")]
        self.assertEqual(frames, sorted(frames))
        self.assertEqual([f - frames[-3] for f in frames[-3:]], [0, 10, 20])
        self.assertGreater(frames[-3], 100)

    def test_exit_snapshot_after_teardown_keeps_the_runs_frame(self):
        # The device and its instance are destroyed; a probe instance lives on, so the exit
        # snapshot is taken with no device left (mpv does this).
        run([scenario("clean_app"), "--frames", "100", "--probe-instance"], self.env(25))
        [dev_end] = snapshots(self.out, "device_destroy")
        [exit_snap] = snapshots(self.out, "exit")
        validate(exit_snap)
        self.assertEqual(exit_snap["devices"], [])
        self.assertGreater(dev_end["frame"], 100)
        self.assertEqual(exit_snap["frame"], dev_end["frame"])
        self.assertEqual(exit_snap["frame_boundary"], "submit")
        report = vkleak(["report", self.out])
        # --every 25: the first periodic snapshot at frame 25 (issue 36, point 7).
        self.assertIn(f"frames 25-{dev_end['frame']})", report)


def snapshot_path(out_dir, sequence):
    for name in sorted(os.listdir(out_dir)):
        if f"-{sequence:04d}-" in name:
            return os.path.join(out_dir, name)
    raise AssertionError(f"no snapshot #{sequence} in {out_dir}")


if __name__ == "__main__":
    unittest.main()
