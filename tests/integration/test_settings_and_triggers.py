"""Settings from the environment and vk_layer_settings.txt; snapshots every N frames, on a
signal and on a trigger file; failures to write are warnings, never the app's failure."""

import os
import signal
import subprocess
import time
import unittest

from harness import TempDirTestCase, explicit_env, run, scenario, snapshot_files, snapshots


class SettingsTest(TempDirTestCase):
    def test_settings_file_and_environment_precedence(self):
        file_dir = os.path.join(self.tmp, "from-file")
        settings = os.path.join(self.tmp, "vk_layer_settings.txt")
        with open(settings, "w") as f:
            f.write("# vkleak settings\n")
            f.write(f"vkleak_tracker.output_dir = {file_dir}\n")
            f.write("vkleak_tracker.snapshot_every = 10\n")
            f.write("vkleak_tracker.frame_boundary = submit\n")
            f.write("vkleak_tracker.no_such_key = 1\n")
            f.write("khronos_validation.debug_action = VK_DBG_LAYER_ACTION_LOG_MSG\n")
        env = explicit_env(self.tmp, self.out)
        del env["VKLEAK_OUTPUT_DIR"]
        env["VK_LAYER_SETTINGS_PATH"] = settings
        proc = run([scenario("clean_app"), "--frames", "30"], env)
        frames = snapshots(file_dir, "frame")
        self.assertEqual([s["frame"] for s in frames], [10, 20, 30])
        self.assertEqual(frames[0]["settings"]["frame_boundary"], "submit")
        self.assertIn("unknown setting 'no_such_key'", proc.stderr)
        self.assertNotIn("debug_action", proc.stderr)  # another layer's key: not ours to judge
        # The environment wins over the file.
        env["VKLEAK_OUTPUT_DIR"] = self.out
        env["VKLEAK_SNAPSHOT_EVERY"] = "15"
        run([scenario("clean_app"), "--frames", "30"], env)
        self.assertEqual([s["frame"] for s in snapshots(self.out, "frame")], [15, 30])

    def test_invalid_value_is_warned_and_ignored(self):
        env = explicit_env(self.tmp, self.out)
        env["VKLEAK_FRAME_BOUNDARY"] = "sometimes"
        env["VKLEAK_BOGUS"] = "1"
        proc = run([scenario("leak_named_buffers"), "--count", "1"], env)
        self.assertIn("invalid value 'sometimes' for setting 'frame_boundary'", proc.stderr)
        self.assertIn("unknown setting 'bogus'", proc.stderr)
        self.assertTrue(snapshot_files(self.out))

    def test_variables_that_are_not_settings_are_not_warned_about(self):
        # The benchmarks' pass-through switch is read when the layer is loaded; it is no
        # setting, and no warning says it is unknown. The layer then tracks nothing.
        env = explicit_env(self.tmp, self.out)
        env["VKLEAK_BENCH_PASSTHROUGH"] = "1"
        proc = run([scenario("leak_named_buffers"), "--count", "1"], env)
        self.assertNotIn("unknown setting", proc.stderr)
        self.assertNotIn("leak.0", {o.get("name") for s in snapshots(self.out)
                                    for o in s["objects"]})

    def test_unwritable_output_dir_is_a_warning(self):
        blocker = os.path.join(self.tmp, "a-file")
        open(blocker, "w").close()
        env = explicit_env(self.tmp, os.path.join(blocker, "sub"))
        proc = run([scenario("leak_named_buffers"), "--count", "1"], env)
        self.assertEqual(proc.returncode, 0)
        self.assertIn("snapshot", proc.stderr)
        self.assertEqual(proc.stdout.count("[vkleak]"), 0, "never log on stdout")

    def test_callstack_depth_zero_turns_call_sites_off(self):
        env = explicit_env(self.tmp, self.out)
        env["VKLEAK_CALLSTACK_DEPTH"] = "0"
        run([scenario("leak_named_buffers"), "--count", "2"], env)
        [snap] = snapshots(self.out, "device_destroy")
        self.assertTrue(all(o["callsite"] is None for o in snap["objects"]))


class TriggerTest(TempDirTestCase):
    def start_long_run(self, env):
        return subprocess.Popen([scenario("clean_app"), "--frames", "100000"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def wait_for(self, predicate, timeout=20):
        end = time.time() + timeout
        while time.time() < end:
            if predicate():
                return True
            time.sleep(0.1)
        return False

    def stop(self, proc):
        proc.terminate()
        proc.wait(timeout=30)

    def test_signal_takes_a_snapshot(self):
        proc = self.start_long_run(explicit_env(self.tmp, self.out))
        try:
            time.sleep(1.5)  # let it create its instance and device
            proc.send_signal(signal.SIGUSR1)
            self.assertTrue(self.wait_for(lambda: snapshots(self.out, "signal")))
            self.assertIsNone(proc.poll(), "the signal must not kill the app")
        finally:
            self.stop(proc)
        [snap] = snapshots(self.out, "signal")
        self.assertTrue(any(o["type"] == "VkDevice" for o in snap["objects"]))

    def test_trigger_file_takes_a_snapshot(self):
        os.makedirs(self.out)
        proc = self.start_long_run(explicit_env(self.tmp, self.out))
        try:
            time.sleep(1.5)
            trigger = os.path.join(self.out, "vkleak.trigger")
            open(trigger, "w").close()
            self.assertTrue(self.wait_for(lambda: snapshots(self.out, "trigger")))
            self.assertTrue(os.path.exists(trigger), "never deleted: the layer did not make it")
        finally:
            self.stop(proc)


if __name__ == "__main__":
    unittest.main()
