"""What is alive at vkDestroyDevice is exactly what the app leaked, with names and call sites; what
alive at exit means follows how the process ended (issue 36): exit() without teardown is one
problem per root never destroyed, _exit() and quick_exit() skip the teardown and are listed, not
judged, with a gate that says teardown was not checked."""

import json
import os
import unittest

from harness import (TempDirTestCase, VKLEAK, app_objects, base_env, explicit_env, run, scenario,
                     snapshot_files, snapshots, validate)


class LeakAtExitTest(TempDirTestCase):
    def test_exactly_the_leaked_named_buffers(self):
        n = 7
        run([scenario("leak_named_buffers"), "--count", str(n)], explicit_env(self.tmp, self.out))
        [snap] = snapshots(self.out, "device_destroy")
        validate(snap)
        leaked = app_objects(snap)
        self.assertEqual(len(leaked), n, [(o["type"], o["name"]) for o in leaked])
        self.assertTrue(all(o["type"] == "VkBuffer" for o in leaked))
        self.assertEqual(sorted(o["name"] for o in leaked), sorted(f"leak.{i}" for i in range(n)))
        self.assertTrue(all(o["size"] == 4096 for o in leaked))
        # The device-destroy snapshot is scoped to the device: no queue, no instance objects.
        self.assertEqual([o for o in snap["objects"] if o not in leaked], [])

    def test_call_sites_are_symbolized(self):
        run([scenario("leak_named_buffers"), "--count", "3"], explicit_env(self.tmp, self.out))
        path = [p for p in snapshot_files(self.out) if "device_destroy" in p][0]
        proc = run([VKLEAK, "show", "--format", "json", path], base_env(self.tmp))
        shown = json.loads(proc.stdout)
        text = json.dumps(shown)
        self.assertIn("leak_buffers", text)
        self.assertIn("leak_named_buffers.cpp", text)

    def test_instance_destroy_snapshot_is_clean(self):
        run([scenario("leak_named_buffers"), "--count", "2"], explicit_env(self.tmp, self.out))
        [snap] = snapshots(self.out, "instance_destroy")
        validate(snap)
        self.assertEqual(app_objects(snap), [])

    def test_no_teardown_leaves_an_exit_snapshot(self):
        run([scenario("no_teardown")], explicit_env(self.tmp, self.out))
        snaps = snapshots(self.out)
        self.assertEqual([s["reason"] for s in snaps], ["exit"])
        validate(snaps[0])
        names = {o["name"] for o in snaps[0]["objects"]}
        self.assertTrue({"kept.0", "kept.1"} <= names, names)
        types = {o["type"] for o in snaps[0]["objects"]}
        self.assertTrue({"VkInstance", "VkDevice", "VkBuffer"} <= types, types)


PROBE = scenario("probe_instance")


class HowTheProcessEndedTest(TempDirTestCase):
    def vkleak_run(self, out, *args):
        return run([VKLEAK, "run", "--out", out, "--", PROBE, *args], base_env(self.tmp),
                   timeout=120, check=False)

    def report(self, out, *extra):
        proc = run([VKLEAK, "report", out, "--format", "json", *extra], base_env(self.tmp),
                   check=False)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return json.loads(proc.stdout)

    def gate(self, out, *extra):
        return run([VKLEAK, "gate", out, "--color", "never", *extra], base_env(self.tmp),
                   check=False)

    def test_exit_without_teardown_is_one_problem(self):
        # 5 buffers, and exit() with the device and the instance never destroyed: one problem,
        # the instance, with the buffers (and the frame loop's objects) inside, by call site.
        # Before issue 36: one leak_at_exit per call site (buffers, memory, command pool, fences,
        # semaphores, device, instance).
        proc = self.vkleak_run(self.out, "--leak", "5", "--end", "exit")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        doc = self.report(self.out)
        self.assertEqual(len(doc["problems"]), 1, [f["message"] for f in doc["findings"]])
        [f] = doc["findings"]
        self.assertEqual((f["kind"], f["object_type"]), ("leak_at_exit", "VkInstance"))
        buffers = [g for g in f["contents"] if g["type"] == "VkBuffer"]
        self.assertEqual(len(buffers), 1, f["contents"])
        self.assertEqual((buffers[0]["count"], buffers[0]["name_pattern"]), (5, "leaked.*"))
        self.assertTrue(any(fr["function"] and "main" in fr["function"]
                            for fr in buffers[0]["callsite_frames"]), buffers[0])
        self.assertIn("VkDevice", [g["type"] for g in f["contents"]])
        self.assertIsNone(doc["runs"][0]["skipped_teardown"])
        gate = self.gate(self.out)
        self.assertEqual(gate.returncode, 1, gate.stdout + gate.stderr)
        self.assertIn("1 new problem", gate.stdout)
        self.assertIn("VkInstance never destroyed", gate.stdout)

    def test_underscore_exit_after_leaking_nothing_has_no_finding(self):
        # A browser's GPU process: the page leaks nothing, the process ends in _exit() with its
        # device alive. Before issue 36: every live object judged leaked.
        proc = self.vkleak_run(self.out, "--leak", "0", "--end", "_exit")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        # The run's verdict does not claim the exit was checked.
        self.assertNotIn("no leaks found at exit", proc.stderr)
        self.assertIn("leaks at exit not checked: the program ended in _exit() without its "
                      "teardown", proc.stderr)
        doc = self.report(self.out)
        self.assertEqual(doc["findings"], [])
        skipped = doc["runs"][0]["skipped_teardown"]
        self.assertEqual(skipped["ended_by"], "_exit()")
        self.assertIn("VkDevice", [g["type"] for g in skipped["alive"]])
        self.assertTrue(any(n.startswith("teardown not checked: the process ended with _exit()")
                            for n in doc["runs"][0]["notes"]), doc["runs"][0]["notes"])
        gate = self.gate(self.out)
        self.assertEqual(gate.returncode, 3, gate.stdout + gate.stderr)
        self.assertIn("teardown not checked", gate.stderr)
        self.assertIn("TEARDOWN NOT CHECKED", gate.stdout)
        self.assertIn("alive at _exit() (not judged):", gate.stdout)
        accepted = self.gate(self.out, "--accept-skipped-teardown")
        self.assertEqual(accepted.returncode, 0, accepted.stdout + accepted.stderr)
        # Markdown and HTML list what was alive too, and never say "no leaks at exit".
        markdown = run([VKLEAK, "report", self.out, "--format", "markdown"],
                       base_env(self.tmp)).stdout
        self.assertIn("> **Alive at `_exit()`** (pid", markdown)
        self.assertRegex(markdown, r"> - `1 VkDevice[^`]*`")
        html_path = os.path.join(self.tmp, "report.html")
        run([VKLEAK, "report", self.out, "--html", html_path],
            base_env(self.tmp))
        with open(html_path, encoding="utf-8") as f:
            html = f.read()
        self.assertIn('id="skipped-teardown"', html)
        self.assertIn('id="notes"', html)
        self.assertIn("<li>teardown not checked: the process ended with _exit()", html)
        self.assertIn("TEARDOWN NOT CHECKED", html)
        self.assertNotIn("PASS \u00b7 no leaks found", html)
        self.assertIn("Alive at _exit() (not judged: the program skipped its teardown)", html)
        self.assertIn("Leaks at exit not checked", html)
        self.assertNotIn("leaks at exit in this run", html)

    def test_quick_exit_is_told_from_underscore_exit(self):
        # The layer labels the exit snapshot with how the process ended; the leaked buffers are
        # listed, not judged.
        proc = self.vkleak_run(self.out, "--leak", "3", "--end", "quick_exit")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        last = snapshots(self.out)[-1]
        self.assertEqual((last["reason"], last.get("label")), ("exit", "quick_exit"))
        doc = self.report(self.out)
        self.assertEqual(doc["findings"], [])
        skipped = doc["runs"][0]["skipped_teardown"]
        self.assertEqual(skipped["ended_by"], "quick_exit()")
        buffers = [g for g in skipped["alive"] if g["type"] == "VkBuffer"]
        self.assertEqual([(g["count"], g["name_pattern"]) for g in buffers], [(3, "leaked.*")])
        self.assertEqual(self.gate(self.out).returncode, 3)

    def test_growth_is_still_judged_when_the_teardown_is_skipped(self):
        # --leak-every: one more buffer every few frames, then _exit(): the periodic snapshots
        # show the growth; the _exit() itself judges nothing.
        env = base_env(self.tmp)
        proc = run([VKLEAK, "run", "--out", self.out, "--every", "10", "--", PROBE, "--leak", "0",
                    "--grow", "1", "--frames", "200", "--end", "_exit"], env, timeout=180,
                   check=False)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        doc = self.report(self.out)
        kinds = {f["kind"] for f in doc["findings"]}
        self.assertIn("growth", kinds, [f["message"] for f in doc["findings"]])
        self.assertNotIn("leak_at_exit", kinds)
        gate = self.gate(self.out, "--accept-skipped-teardown")
        self.assertEqual(gate.returncode, 1, gate.stdout + gate.stderr)


if __name__ == "__main__":
    unittest.main()
