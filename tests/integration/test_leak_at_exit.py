"""What is alive at vkDestroyDevice is exactly what the app leaked, with names and call sites."""

import json
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


if __name__ == "__main__":
    unittest.main()
