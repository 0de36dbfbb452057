"""The driver's view of memory (issue 29, part 2): each device's heaps in every snapshot, with the
driver's budget and usage where it has VK_EXT_memory_budget, and a note when usage grows while
the bytes vkleak tracks do not.

On lavapipe (no VK_EXT_memory_budget) these tests check the path without the extension: heaps
listed with their sizes, the status saying why there is no budget, nothing judged, and the app
unchanged. Where the driver has the extension (an NVIDIA GPU: bench/gpu/run_on_device.sh runs
this module there), the sampled path is checked too."""

import json
import os
import unittest

from harness import (TempDirTestCase, explicit_env, run, scenario, snapshots, validate,
                     vkleak_checked)

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

    @unittest.skipUnless(os.environ.get("VKLEAK_TEST_DRIVER_BUDGET") == "1",
                         "needs a driver with VK_EXT_memory_budget (VKLEAK_TEST_DRIVER_BUDGET=1)")
    def test_on_a_driver_with_the_budget_hidden_growth_is_a_note(self):
        out, snaps = self.run_hidden()
        listed = budgets(snaps)
        self.assertTrue(all(b["status"] == "sampled" for b in listed))
        self.assertEqual(listed[0]["enabled_by"], "vkleak")
        usage = [sum(h["usage"] for h in b["heaps"]) for b in listed
                 if b.get("frame", 0) > 0]
        self.assertGreater(usage[-1], usage[0])
        report = report_json(out)
        run0 = report["runs"][0]
        self.assertEqual(run0["findings"], 0)
        notes = [n for n in run0["notes"] if n.startswith(NOTE)]
        self.assertEqual(len(notes), 1, run0["notes"])
        self.assertTrue(run0["driver_memory"][0]["unexplained"])
        # The gate stays green: a note is not a problem.
        vkleak_checked(["gate", out, "--color", "never"], expect=0)

    @unittest.skipUnless(os.environ.get("VKLEAK_TEST_DRIVER_BUDGET") == "1",
                         "needs a driver with VK_EXT_memory_budget (VKLEAK_TEST_DRIVER_BUDGET=1)")
    def test_on_a_driver_with_the_budget_tracked_growth_is_no_note(self):
        out = os.path.join(self.tmp, "tracked")
        driver_memory(budget_env(self.tmp, out), "--where", "tracked", "--chunk-mib",
                      os.environ.get("VKLEAK_TEST_CHUNK_MIB", "4"), "--app-enables")
        snaps = snapshots(out)
        self.assertEqual(budgets(snaps)[0]["enabled_by"], "app")
        run0 = report_json(out)["runs"][0]
        self.assertEqual([n for n in run0["notes"] if n.startswith(NOTE)], [])
        self.assertFalse(run0["driver_memory"][0]["unexplained"])


if __name__ == "__main__":
    unittest.main()
