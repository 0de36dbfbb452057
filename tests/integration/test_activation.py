"""The three ways to switch the layer on, and the two ways it must stay off."""

import os
import unittest

from harness import (TempDirTestCase, VKLEAK, base_env, explicit_env, implicit_env, run,
                     scenario, snapshot_files, snapshots, validate)

APP = [scenario("leak_named_buffers"), "--count", "3"]


class ActivationTest(TempDirTestCase):
    def assert_snapshots(self, out_dir):
        files = snapshot_files(out_dir)
        self.assertTrue(files, f"no snapshots in {out_dir}")
        reasons = [s["reason"] for s in snapshots(out_dir)]
        self.assertIn("device_destroy", reasons)
        self.assertIn("instance_destroy", reasons)
        for s in snapshots(out_dir):
            validate(s)

    def test_vkleak_run(self):
        proc = run([VKLEAK, "run", "--out", self.out, "--"] + APP, base_env(self.tmp))
        self.assert_snapshots(self.out)
        self.assertIn(self.out, proc.stderr)  # says where the snapshots went

    def test_explicit_layer_via_vk_instance_layers(self):
        run(APP, explicit_env(self.tmp, self.out))
        self.assert_snapshots(self.out)

    def test_implicit_layer_enabled_by_environment(self):
        run(APP, implicit_env(self.tmp, self.out, enable=True))
        self.assert_snapshots(self.out)

    def test_implicit_layer_off_without_enable(self):
        run(APP, implicit_env(self.tmp, self.out, enable=False))
        self.assertFalse(os.path.exists(self.out) and snapshot_files(self.out))

    def test_implicit_layer_off_when_disabled(self):
        run(APP, implicit_env(self.tmp, self.out, enable=True, disable=True))
        self.assertFalse(os.path.exists(self.out) and snapshot_files(self.out))

    def test_exit_code_passes_through(self):
        bad = [scenario("leak_named_buffers"), "--no-such-option"]
        plain = run(bad, base_env(self.tmp), check=False)
        self.assertNotEqual(plain.returncode, 0)
        under = run([VKLEAK, "run", "--out", self.out, "--"] + bad, base_env(self.tmp), check=False)
        self.assertEqual(under.returncode, plain.returncode)


if __name__ == "__main__":
    unittest.main()
