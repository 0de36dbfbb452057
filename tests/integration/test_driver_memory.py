"""The driver's view of memory (issue 29, part 2): each device's heaps in every snapshot, with the
driver's budget and usage where it has VK_EXT_memory_budget, and a note when usage grows while
the bytes vkleak tracks do not.

On lavapipe (no VK_EXT_memory_budget) these tests check the path without the extension: heaps
listed with their sizes, the status saying why there is no budget, nothing judged, and the app
unchanged. The sampled path is checked on snapshots an NVIDIA H100 wrote
(data/gpu_driver_memory, from bench/gpu/driver_memory_on_device.sh)."""

import json
import os
import unittest

from harness import (TempDirTestCase, explicit_env, load, run, scenario, snapshot_files,
                     snapshots, validate, vkleak_checked)

NOTE = "driver memory:"


def driver_memory(env, *args):
    return run([scenario("driver_memory"), "--frames", "40"] + list(args), env)


def budget_env(tmp, out, **settings):
    env = explicit_env(tmp, out)
    env["VKLEAK_FRAME_BOUNDARY"] = "submit"
    env["VKLEAK_SNAPSHOT_EVERY"] = "5"
    for key, value in settings.items():
        env["VKLEAK_" + key.upper()] = value
    return env


def budgets(snaps):
    return [d["memory_budget"] for s in snaps for d in s["devices"]]


def report_json(out):
    return json.loads(vkleak_checked(["report", out, "--format", "json"]).stdout)


class DriverMemoryTest(TempDirTestCase):

    def run_hidden(self, **settings):
        out = os.path.join(self.tmp, "out")
        proc = driver_memory(budget_env(self.tmp, out, **settings), "--where", "hidden",
                             "--chunk-mib", os.environ.get("VKLEAK_TEST_CHUNK_MIB", "4"))
        self.assertIn("done:", proc.stdout)
        return out, snapshots(out)

    def test_every_snapshot_lists_the_heaps_and_says_whether_it_has_a_budget(self):
        out, snaps = self.run_hidden()
        self.assertGreaterEqual(len(snaps), 8)
        for s in snaps:
            validate(s)
        # The hidden instance (the loader filtered the layer out of it) is not tracked.
        self.assertTrue(all(len(s["instances"]) <= 1 for s in snaps))
        listed = budgets(snaps)
        self.assertTrue(listed)
        for b in listed:
            self.assertIn(b["status"], ("sampled", "unsupported"))
            self.assertTrue(b["heaps"])
            for h in b["heaps"]:
                self.assertGreater(h["size"], 0)
                self.assertEqual("usage" in h, b["status"] == "sampled")
        if listed[0]["status"] == "unsupported":
            self.assertNotIn("enabled_by", listed[0])
        report = report_json(out)
        self.assertEqual(report["runs"][0]["findings"], 0)
        views = report["runs"][0]["driver_memory"]
        self.assertEqual(len(views), 1)
        self.assertEqual(views[0]["status"], listed[0]["status"])
        notes = [n for n in report["runs"][0]["notes"] if n.startswith(NOTE)]
        if listed[0]["status"] == "unsupported":
            self.assertEqual(views[0]["frames"], [])
            self.assertEqual(notes, [])
            self.assertEqual(views[0]["unavailable"], "the driver lacks VK_EXT_memory_budget")

    def test_setting_off_leaves_the_device_as_the_app_made_it(self):
        out, snaps = self.run_hidden(memory_budget="false")
        self.assertTrue(snaps)
        for b in budgets(snaps):
            self.assertEqual(b["status"], "off")
            self.assertNotIn("enabled_by", b)
            self.assertTrue(b["heaps"])
        self.assertEqual(snaps[0]["settings"]["memory_budget"], "false")


GPU_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "gpu_driver_memory")


class RecordedGpuRunTest(TempDirTestCase):
    """Snapshots of the driver_memory scenario on an NVIDIA H100 (driver 580.159.04), taken with
    bench/gpu/driver_memory_on_device.sh (gpu.txt, hidden.log): the sampled path as a real driver
    writes it, read and judged here."""

    def test_hidden_growth_on_the_h100_is_one_note_and_a_green_gate(self):
        out = os.path.join(GPU_DATA, "hidden")
        for path in snapshot_files(out):
            validate(load(path))
        budgets_seen = budgets(snapshots(out))
        self.assertTrue(all(b["status"] == "sampled" for b in budgets_seen))
        self.assertEqual(budgets_seen[0]["enabled_by"], "vkleak")
        run0 = report_json(out)["runs"][0]
        self.assertEqual(run0["findings"], 0)
        notes = [n for n in run0["notes"] if n.startswith(NOTE)]
        self.assertEqual(len(notes), 1, run0["notes"])
        self.assertIn("2.5 GiB more in use on device", notes[0])
        self.assertIn("NVIDIA H100", notes[0])
        view = run0["driver_memory"][0]
        self.assertEqual(view["frames"], list(range(5, 65, 5)))
        self.assertEqual(view["tracked"], [0] * 12)
        self.assertEqual(view["unexplained"]["bytes"], 2560 << 20)
        text = vkleak_checked(["report", out, "--color", "never"]).stdout
        self.assertIn("driver memory: device 3 (NVIDIA H100 80GB HBM3) at frame 60: heap 0 "
                      "(device local): 3.8 GiB used of a 79.1 GiB budget", text)
        gate = vkleak_checked(["gate", out, "--color", "never"], expect=0)
        self.assertIn("pass", gate.stdout + gate.stderr)
        # The HTML timeline draws the heaps beside the tracked bytes, with the note.
        page = os.path.join(self.tmp, "report.html")
        vkleak_checked(["report", out, "--html", page])
        with open(page, encoding="utf-8") as f:
            html = f.read()
        self.assertIn('id="chart-driver-memory-3-figure"', html)
        self.assertIn("local heap 0, driver", html)
        self.assertIn('id="driver-memory-unexplained"', html)

    def test_tracked_growth_on_the_h100_is_the_apps_not_the_drivers(self):
        out = os.path.join(GPU_DATA, "tracked")
        self.assertEqual(budgets(snapshots(out))[0]["enabled_by"], "app")
        run0 = report_json(out)["runs"][0]
        self.assertEqual([n for n in run0["notes"] if n.startswith(NOTE)], [])
        self.assertIsNone(run0["driver_memory"][0]["unexplained"])
        self.assertEqual(run0["driver_memory"][0]["tracked"][-1], 60 * (64 << 20))

    def test_setting_off_on_the_h100(self):
        listed = budgets(snapshots(os.path.join(GPU_DATA, "off")))
        self.assertTrue(listed)
        self.assertTrue(all(b["status"] == "off" and "usage" not in b["heaps"][0]
                            for b in listed))


if __name__ == "__main__":
    unittest.main()
