"""The layer lives in every process: what is planted where it reads and writes files must not
hang, redirect or delete anything (issue 26, items 3, 8, 9 and 10).

- A FIFO at a snapshot's temporary name, as the log file or as the settings file: the app goes
  on (nothing is opened blocking); /dev/zero as the settings file costs nothing.
- A link at the temporary name is never followed (files are created exclusively); snapshots are
  0600 unless file_mode says otherwise; an output directory writable by other users (unless it
  is sticky and ours) or owned by another user is refused.
- A settings file cannot make the layer delete anything: the trigger file is never deleted (a
  touch takes a snapshot); bad setting values are shown escaped, never raw ESC/OSC.
- A trigger path that is a directory (or "/") is refused once, loudly, instead of a snapshot
  every 250 ms."""

import os
import re
import stat
import subprocess
import time
import unittest

from harness import (SANITIZE, VKLEAK, TempDirTestCase, base_env, explicit_env, load, run,
                     scenario, snapshot_files, wait_bounded)

REASONS = ["device_destroy", "instance_destroy", "exit", "frame", "signal", "trigger", "crash",
           "out_of_device_memory", "out_of_host_memory", "device_lost"]


def temp_names(pid, run_id, sequences=range(1, 16)):
    """Every temporary name the layer would use first for this pid and run."""
    return [f".vkleak-{pid}-{run_id}-{seq:04d}-{reason}.json.tmp" for seq in sequences
            for reason in REASONS]


class WaitingApp:
    """hostile_inputs --mode wait: instance and device made, then it waits for a line on stdin
    (so a test knows its pid and plants files before any snapshot), then tears down."""

    def __init__(self, test, env, cwd=None):
        self.test = test
        self.proc = subprocess.Popen([scenario("hostile_inputs"), "--mode", "wait"], env=env,
                                     cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, errors="replace")
        line = self.proc.stdout.readline().strip()
        if line != "ready":
            self.proc.kill()
            out, err = self.proc.communicate()
            raise AssertionError(f"not ready: {line!r} {out} {err[-3000:]}")

    def run_id(self, out):
        """Takes snapshot #0 (a trigger) and returns the run id its name shows."""
        open(os.path.join(out, "vkleak.trigger"), "w").close()
        end = time.time() + 20
        while time.time() < end:
            for name in os.listdir(out):
                m = re.fullmatch(rf"vkleak-{self.proc.pid}-([0-9a-f]{{16}})-0000-trigger\.json",
                                 name)
                if m:
                    return m.group(1)
            time.sleep(0.05)
        raise AssertionError("no trigger snapshot")

    def finish(self, timeout=60):
        """Lets it tear down; (stdout, stderr). A hang fails the test, never the suite."""
        try:
            out, err = self.proc.communicate("go\n", timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate()
            raise AssertionError(f"the app still runs {timeout} s after its teardown began: "
                                 "the layer hangs it")
        self.test.assertEqual(self.proc.returncode, 0, err[-3000:])
        return out, err


def run_bounded(cmd, env, timeout=60, cwd=None):
    """Runs cmd; (rc, stderr, peak RSS in KiB of that child). A hang fails the test."""
    err_path = os.path.join(env["HOME"], f"stderr-{time.monotonic_ns()}")
    with open(os.devnull, "wb") as null, open(err_path, "wb") as err_file:
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=null,
                                stderr=err_file)
    rc, rss_kb = wait_bounded(proc, timeout, str(cmd))
    with open(err_path, "rb") as f:
        err = f.read().decode("utf-8", "replace")
    return rc, err, rss_kb


class PlantedFilesTest(TempDirTestCase):
    def setUp(self):
        super().setUp()
        os.makedirs(self.out, mode=0o700)
        self.env = explicit_env(self.tmp, self.out)

    def test_fifo_at_the_temporary_name_does_not_hang_the_app(self):
        app = WaitingApp(self, self.env)
        run_id = app.run_id(self.out)
        fifos = [os.path.join(self.out, n) for n in temp_names(app.proc.pid, run_id)]
        for path in fifos:
            os.mkfifo(path)
        app.finish(timeout=60)
        # Written under other temporary names; the FIFOs are not the layer's to delete.
        reasons = [load(p)["reason"] for p in snapshot_files(self.out)]
        self.assertIn("instance_destroy", reasons)
        self.assertTrue(all(stat.S_ISFIFO(os.lstat(p).st_mode) for p in fifos))

    def test_link_at_the_temporary_name_is_not_followed(self):
        victim = os.path.join(self.tmp, "victim")
        with open(victim, "w") as f:
            f.write("secret\n")
        os.chmod(victim, 0o600)
        app = WaitingApp(self, self.env)
        run_id = app.run_id(self.out)
        links = [os.path.join(self.out, n) for n in temp_names(app.proc.pid, run_id)]
        for path in links:
            os.symlink(victim, path)
        app.finish()
        with open(victim) as f:
            self.assertEqual(f.read(), "secret\n")
        self.assertEqual(stat.S_IMODE(os.stat(victim).st_mode), 0o600)
        self.assertTrue(all(os.path.islink(p) for p in links), "not the layer's to delete")
        files = snapshot_files(self.out)
        self.assertIn("instance_destroy", [load(p)["reason"] for p in files])

    def test_snapshots_are_0600_unless_told_otherwise(self):
        made = os.path.join(self.tmp, "made", "by-layer")
        env = explicit_env(self.tmp, made)
        old = os.umask(0o022)
        try:
            run([scenario("leak_named_buffers"), "--count", "1"], env)
            files = snapshot_files(made)
            self.assertTrue(files)
            for path in files:
                self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600, path)
            for d in (made, os.path.dirname(made)):
                self.assertEqual(stat.S_IMODE(os.stat(d).st_mode), 0o700, d)
            self.assertEqual(load(files[0])["settings"]["file_mode"], "0600")
            shared = os.path.join(self.tmp, "shared")
            env = explicit_env(self.tmp, shared)
            env["VKLEAK_FILE_MODE"] = "0644"
            run([scenario("leak_named_buffers"), "--count", "1"], env)
            for path in snapshot_files(shared):
                self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o644, path)
            self.assertEqual(stat.S_IMODE(os.stat(shared).st_mode), 0o755)
            env["VKLEAK_FILE_MODE"] = "0666"  # writable by others: never
            proc = run([scenario("leak_named_buffers"), "--count", "1"], env)
            self.assertIn("invalid value '0666' for setting 'file_mode'", proc.stderr)
        finally:
            os.umask(old)

    def test_directory_writable_by_others_is_refused(self):
        for mode, refused in [(0o777, True), (0o775, True), (0o1777, False), (0o755, False)]:
            with self.subTest(mode=oct(mode)):
                out = os.path.join(self.tmp, "dir-" + oct(mode))
                os.makedirs(out)
                os.chmod(out, mode)
                proc = run([scenario("leak_named_buffers"), "--count", "1"],
                           explicit_env(self.tmp, out))
                if refused:
                    self.assertEqual(snapshot_files(out), [])
                    self.assertEqual(os.listdir(out), [])
                    self.assertIn("the directory is writable by other users (" +
                                  ("everyone" if mode & 0o002 else "its group") + ")",
                                  proc.stderr)
                    # What to do about it (a umask of 002 makes such directories).
                    self.assertIn("make it private (chmod go-w)", proc.stderr)
                else:
                    self.assertTrue(snapshot_files(out))
        if os.geteuid() == 0:
            theirs = os.path.join(self.tmp, "theirs")
            os.makedirs(theirs)
            os.chown(theirs, 65534, 65534)
            proc = run([scenario("leak_named_buffers"), "--count", "1"],
                       explicit_env(self.tmp, theirs))
            self.assertEqual(os.listdir(theirs), [])
            self.assertIn("the directory belongs to another user", proc.stderr)

    def test_vkleak_run_makes_a_directory_the_layer_accepts(self):
        # With umask 002 a new directory is group-writable, which the layer refuses: the one
        # vkleak run makes is the user's alone.
        out = os.path.join(self.tmp, "run-out")
        proc = subprocess.run([VKLEAK, "run", "--out", out, "--", scenario("leak_named_buffers"),
                               "--count", "1"], env=base_env(self.tmp), capture_output=True,
                              text=True, timeout=300, preexec_fn=lambda: os.umask(0o002))
        self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
        self.assertEqual(stat.S_IMODE(os.stat(out).st_mode), 0o700)
        self.assertTrue(snapshot_files(out), proc.stderr[-3000:])

    def test_fifo_or_link_as_the_log_file(self):
        fifo = os.path.join(self.tmp, "log.fifo")
        os.mkfifo(fifo)
        env = dict(self.env, VKLEAK_LOG_FILE=fifo)
        rc, err, _ = run_bounded([scenario("leak_named_buffers"), "--count", "1"], env)
        self.assertEqual(rc, 0, err)
        self.assertIn(f"cannot use log file '{fifo}': refused: it is a named pipe (FIFO)", err)
        self.assertTrue(snapshot_files(self.out), "tracking goes on, logging to stderr")
        victim = os.path.join(self.tmp, "victim")
        with open(victim, "w") as f:
            f.write("secret\n")
        link = os.path.join(self.tmp, "log.link")
        os.symlink(victim, link)
        env = dict(self.env, VKLEAK_LOG_FILE=link, VKLEAK_LOG_LEVEL="info")
        rc, err, _ = run_bounded([scenario("leak_named_buffers"), "--count", "1"], env)
        self.assertEqual(rc, 0, err)
        with open(victim) as f:
            self.assertEqual(f.read(), "secret\n")
        self.assertIn(f"cannot use log file '{link}': refused", err)
        # A plain log file is appended to, 0600.
        plain = os.path.join(self.tmp, "vkleak.log")
        env = dict(self.env, VKLEAK_LOG_FILE=plain, VKLEAK_LOG_LEVEL="info")
        rc, err, _ = run_bounded([scenario("leak_named_buffers"), "--count", "1"], env)
        self.assertEqual(rc, 0, err)
        with open(plain) as f:
            self.assertIn("snapshot written", f.read())
        self.assertEqual(stat.S_IMODE(os.stat(plain).st_mode), 0o600)

    def test_fifo_or_device_as_the_settings_file(self):
        fifo = os.path.join(self.tmp, "settings.fifo")
        os.mkfifo(fifo)
        for path, kind in [(fifo, "is a named pipe (FIFO)"), ("/dev/zero", "is a character device")]:
            with self.subTest(path=path):
                env = dict(self.env, VK_LAYER_SETTINGS_PATH=path)
                rc, err, rss_kb = run_bounded([scenario("leak_named_buffers"), "--count", "1"],
                                              env)
                self.assertEqual(rc, 0, err)
                self.assertIn(f"settings file '{path}' ignored: refused: it {kind}", err)
                if not SANITIZE:
                    self.assertLess(rss_kb, 400 * 1024, "read /dev/zero?")
        big = os.path.join(self.tmp, "vk_layer_settings.txt")
        with open(big, "wb") as f:
            f.truncate(300 << 20)  # sparse
        env = dict(self.env, VK_LAYER_SETTINGS_PATH=big)
        rc, err, _ = run_bounded([scenario("leak_named_buffers"), "--count", "1"], env)
        self.assertEqual(rc, 0, err)
        self.assertIn("more than the limit of 1048576 bytes", err)


class SettingsCannotDeleteTest(TempDirTestCase):
    def test_trigger_file_from_a_settings_file_is_never_deleted(self):
        # A vk_layer_settings.txt in the working directory points trigger_file at a file.
        victim = os.path.join(self.tmp, "precious.txt")
        with open(victim, "w") as f:
            f.write("keep me\n")
        with open(os.path.join(self.tmp, "vk_layer_settings.txt"), "w") as f:
            f.write(f"vkleak_tracker.trigger_file = {victim}\n")
        env = explicit_env(self.tmp, self.out)
        del env["VK_LAYER_SETTINGS_PATH"]  # ./vk_layer_settings.txt
        app = WaitingApp(self, env, cwd=self.tmp)
        try:
            time.sleep(1.5)  # several looks at the trigger
            self.assertTrue(os.path.exists(victim), "the layer deleted a file it did not create")
        finally:
            app.finish()
        with open(victim) as f:
            self.assertEqual(f.read(), "keep me\n")
        self.assertEqual([p for p in snapshot_files(self.out) if "-trigger" in p], [],
                         "a file already there is no request")

    def test_bad_values_are_shown_escaped(self):
        env = explicit_env(self.tmp, self.out)
        env["VKLEAK_FRAME_BOUNDARY"] = "\x1b]0;owned\x07\x1b[2J"
        env["VKLEAK_X\x1b[31m"] = "1"
        proc = run([scenario("leak_named_buffers"), "--count", "1"], env)
        self.assertNotIn("\x1b", proc.stderr)
        self.assertNotIn("\x07", proc.stderr)
        self.assertIn("invalid value '\\x1b]0;owned\\x07\\x1b[2J' for setting 'frame_boundary'",
                      proc.stderr)
        self.assertIn("unknown setting 'x\\x1b[31m' ignored", proc.stderr)


class TriggerPathTest(TempDirTestCase):
    def test_trigger_path_that_is_not_a_file_is_refused_once(self):
        a_dir = os.path.join(self.tmp, "a-dir")
        os.makedirs(a_dir)
        for path in ("/", a_dir):
            with self.subTest(path=path):
                out = os.path.join(self.tmp, "out" + str(len(path)))
                env = explicit_env(self.tmp, out)
                env["VKLEAK_TRIGGER_FILE"] = path
                app = WaitingApp(self, env)
                time.sleep(2.0)  # 8 looks at 250 ms
                _, err = app.finish()
                triggered = [p for p in snapshot_files(out) if "-trigger" in p]
                self.assertEqual(triggered, [])
                self.assertEqual(err.count(f"trigger_file '{path}' refused: it is a directory"),
                                 1, err[-3000:])
                self.assertTrue(os.path.isdir(path))

    def test_touching_the_trigger_takes_a_snapshot_each_time(self):
        env = explicit_env(self.tmp, self.out)
        app = WaitingApp(self, env)
        trigger = os.path.join(self.out, "vkleak.trigger")

        def triggered(n):
            end = time.time() + 20
            while time.time() < end:
                if len([p for p in snapshot_files(self.out) if "-trigger" in p]) >= n:
                    return True
                time.sleep(0.1)
            return False
        try:
            open(trigger, "w").close()
            self.assertTrue(triggered(1))
            self.assertTrue(os.path.exists(trigger), "the layer deletes nothing it did not make")
            time.sleep(0.3)
            os.utime(trigger)
            self.assertTrue(triggered(2))
        finally:
            app.finish()


if __name__ == "__main__":
    unittest.main()
