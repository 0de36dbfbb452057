"""Whatever the app hands the layer, its output stays valid and its memory follows the live set:
invalid UTF-8 in debug names, application/engine names, a snapshot label, the executable's path
and the output directory (Latin-1 bytes); uniquely named create/destroy churn; a second
vkDestroyDevice of one device; a trigger file before the first snapshot; names that would
disguise a report, escaped in every format (hostile_inputs.cpp).

Whatever files the CLI is handed, it never hangs or floods: named FIFOs, devices and directories
as snapshots, baselines, suppression files or a snapshot's module paths; oversized baselines and
suppression files (CliHostileInputsTest, no Vulkan needed)."""

import json
import os
import shutil
import signal
import subprocess
import threading
import time
import unittest
import xml.etree.ElementTree as ET

from harness import (SANITIZE, SOURCE, VKLEAK, TempDirTestCase, explicit_env, load, run,
                     scenario, snapshot_files, validate, wait_bounded)

# The scenario's bytes (hostile_inputs.cpp), and what the snapshot must show: each maximal
# invalid subpart one U+FFFD, as Python's errors="replace".
BAD_NAMES = [b"overlong-\xc0\xaf-end", b"surrogate-\xed\xa0\x80-end", b"truncated-\xe2\x82",
             b"ff-\xff\xfe-end", b"ctrl-\x01\x1f\"\\-end", b"past-max-\xf4\x90\x80\x80-end"]
BAD_APP = b"app-\xc3\x28-\xe9t\xe9"
BAD_ENGINE = b"engine-\xf0\x9f\x98"
BAD_LABEL = b"label-\xc0\x80-\xed\xbf\xbf"


def shown(raw):
    return raw.decode("utf-8", "replace")


def report_rc(out_dir):
    proc = subprocess.run([os.fsencode(VKLEAK), b"report", os.fsencode(out_dir)],
                          capture_output=True, timeout=300,
                          env={**os.environ, "DEBUGINFOD_URLS": ""})
    return proc.returncode, proc.stderr.decode("utf-8", "replace")


class HostileInputsTest(TempDirTestCase):
    def test_invalid_utf8_everywhere_stays_valid_json(self):
        # The output directory and the executable's directory are Latin-1 bytes.
        out = os.path.join(self.tmp, os.fsdecode(b"snap-\xe9t\xe9"))
        bindir = os.path.join(self.tmp, os.fsdecode(b"bin-\xe0-\xff"))
        os.makedirs(bindir)
        exe = os.path.join(bindir, "hostile_inputs")
        shutil.copy(scenario("hostile_inputs"), exe)
        run([exe, "--mode", "names"], explicit_env(self.tmp, out))
        files = snapshot_files(out)
        self.assertEqual(len(files), 3, files)  # label trigger, device, instance (exit: none left)
        for path in files:
            with open(path, "rb") as f:
                f.read().decode("utf-8")  # strict: raises on any invalid byte
            snap = load(path)
            validate(snap)
            self.assertIn("\ufffd", snap["executable"])
            self.assertTrue(snap["executable"].endswith("-\ufffd/hostile_inputs"))
            self.assertEqual(snap["settings"]["output_dir"], shown(os.fsencode(out)))
            self.assertIn("\ufffd", snap["settings"]["trigger_file"])
            [inst] = snap["instances"]
            self.assertEqual(inst["application"], shown(BAD_APP))
            self.assertEqual(inst["engine"], shown(BAD_ENGINE))
        [labelled] = [load(p) for p in files if load(p)["reason"] == "trigger"]
        self.assertEqual(labelled["label"], shown(BAD_LABEL))
        names = sorted(o["name"] for o in labelled["objects"]
                       if o["type"] == "VkBuffer" and o.get("name"))
        self.assertEqual(names, sorted(shown(n) for n in BAD_NAMES))
        rc, err = report_rc(out)
        self.assertIn(rc, (0, 1), err)

    def test_unique_names_do_not_grow_memory(self):
        if SANITIZE:
            self.skipTest("a sanitizer's allocator keeps freed memory (quarantine): RSS is not "
                          "the live set there; names_test.cpp counts live names instead")
        env = explicit_env(self.tmp, self.out)
        env["VKLEAK_SNAPSHOT_AT_EXIT"] = "false"

        def rss(iterations):
            proc = run([scenario("hostile_inputs"), "--mode", "churn", "--iterations",
                        str(iterations)], env)
            return [int(line.split()[1]) for line in proc.stdout.splitlines()
                    if line.startswith("rss_kb")]

        small = rss(50000)[-1]
        series = rss(400000)
        # 245 B per name before the fix: 350000 more names were ~85 MB more.
        self.assertLess(series[-1] - series[0], 8 * 1024, series)
        self.assertLess(series[-1] - small, 16 * 1024, (small, series))

    def test_second_destroy_device_is_reported_and_passed_down(self):
        env = explicit_env(self.tmp, self.out)
        env["VK_LOADER_DEBUG"] = "error"  # the loader says so when it stops the call itself
        env["LIBC_FATAL_STDERR_"] = "1"
        proc = run([scenario("hostile_inputs"), "--mode", "double-destroy"], env, check=False)
        # Logged after the event is recorded, before the driver sees the call.
        logged = "already destroyed (event invalid_destroy); passed down" in proc.stderr
        if not logged and "nvalid device" in proc.stderr:
            # The loader's trampoline reads the freed device's dispatch table first; when that
            # memory no longer holds it, the loader aborts before any layer is called.
            self.skipTest("the loader rejected the second vkDestroyDevice before the layer")
        # lavapipe crashes on the freed device: the log line is what is left.
        self.assertTrue(logged, (proc.returncode, proc.stdout, proc.stderr[-2000:]))
        if proc.returncode != 0:
            self.assertNotIn("survived", proc.stdout)
            return
        self.assertIn("survived", proc.stdout)
        snaps = [load(p) for p in snapshot_files(self.out)]
        [inst] = [s for s in snaps if s["reason"] == "instance_destroy"]
        events = [e for e in inst["events"] if e["kind"] == "invalid_destroy"]
        self.assertEqual([e["type"] for e in events], ["VkDevice"], inst["events"])

    def test_trigger_file_before_the_first_snapshot(self):
        env = explicit_env(self.tmp, self.out)
        proc = subprocess.Popen([scenario("hostile_inputs"), "--mode", "wait"], env=env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            self.assertEqual(proc.stdout.readline().strip(), "ready")
            self.assertTrue(os.path.isdir(self.out), "made when the instance is created")
            self.assertEqual(snapshot_files(self.out), [])
            trigger = os.path.join(self.out, "vkleak.trigger")
            open(trigger, "w").close()
            end = time.time() + 20
            while time.time() < end and not any("-trigger" in p for p in
                                                snapshot_files(self.out)):
                time.sleep(0.1)
            self.assertTrue(any("-trigger" in p for p in snapshot_files(self.out)))
            self.assertTrue(os.path.exists(trigger), "never deleted: the layer did not make it")
        finally:
            proc.communicate("go\n", timeout=60)
        self.assertEqual(proc.returncode, 0)

    def test_no_empty_output_dir_left_behind(self):
        # no_teardown exits without destroying anything: with the exit snapshot off, nothing is
        # written, and the directories the layer made at vkCreateInstance go at exit.
        nested = os.path.join(self.out, "nested", "deeper")
        env = explicit_env(self.tmp, nested)
        env["VKLEAK_SNAPSHOT_AT_EXIT"] = "false"
        run([scenario("no_teardown")], env)
        self.assertFalse(os.path.exists(self.out))
        # A directory the layer did not make stays, empty or not.
        os.makedirs(nested)
        run([scenario("no_teardown")], env)
        self.assertTrue(os.path.isdir(nested))
        # With the exit snapshot on, the directory keeps it.
        shutil.rmtree(self.out)
        del env["VKLEAK_SNAPSHOT_AT_EXIT"]
        run([scenario("no_teardown")], env)
        self.assertEqual(len(snapshot_files(nested)), 1)

    def test_disguised_names_are_escaped_in_every_format(self):
        # Names that would be links, images, HTML or reordered text (hostile_inputs --mode
        # disguise): each report shows them as text, cut when long; the JSON keeps them whole.
        run([scenario("hostile_inputs"), "--mode", "disguise"], explicit_env(self.tmp, self.out))

        def report(fmt):
            proc = subprocess.run([VKLEAK, "report", self.out, "--format", fmt, "--color",
                                   "never"], capture_output=True, timeout=300,
                                  env={**os.environ, "DEBUGINFOD_URLS": ""})
            self.assertEqual(proc.returncode, 0, proc.stderr)
            return proc.stdout.decode("utf-8")

        cut = "n" * 200 + "\u2026 (100,000 bytes)"
        bidi = "ok<U+202E><U+2066>gnp.exe<U+2069><U+2028>"
        text = report("text")
        for raw in ("\x1b", "\u202e", "\u2066", "\u2028"):
            self.assertNotIn(raw, text)
        self.assertIn('"%s"' % bidi, text)
        self.assertIn('"red\\x1b[31m"', text)
        self.assertIn("\u2026 (100,000 bytes)", text)
        self.assertLess(len(text), 20000)

        md = report("markdown")
        self.assertIn("| `![i](x.png)`, `<img src=x onerror=alert(1)>`, "
                      "`[click](https://evil.example/p)` +4 |", md)
        self.assertIn("`%s`" % cut, md)
        self.assertNotIn("\u202e", md)
        self.assertNotIn("&lt;", md)
        if shutil.which("cmark-gfm"):
            html = subprocess.run(["cmark-gfm", "-e", "table", "-e", "autolink", "-e",
                                   "tagfilter"], input=md.encode(), capture_output=True,
                                  check=True).stdout.decode()
            self.assertNotIn("<a ", html)
            self.assertNotIn("<img", html)
            self.assertIn("<code>[click](https://evil.example/p)</code>", html)
            self.assertIn("<code>&lt;img src=x onerror=alert(1)&gt;</code>", html)

        junit = report("junit")
        ET.fromstring(junit.encode())  # well-formed
        self.assertNotIn("\u202e", junit)
        self.assertLess(len(junit), 20000)

        sarif = json.loads(report("sarif"))
        names = [n for r in sarif["runs"][0]["results"] for n in r["properties"]["names"]]
        self.assertIn(bidi, names)
        self.assertIn(cut, names)

        doc = json.loads(report("json"))
        dumped = json.dumps(doc, ensure_ascii=False)
        self.assertEqual(dumped.count("n" * 100000), 3,
                         "whole in names, name_pattern and fingerprint; cut elsewhere")
        self.assertIn("ok\u202e\u2066gnp.exe\u2069\u2028",
                      [n for f in doc["findings"] for n in f["names"]])


SMALL = os.path.join(SOURCE, "tests/cli/data/small.json")


def run_cli(args, timeout=20, pass_fds=()):
    """vkleak ARGS: (rc, stderr, peak RSS in KiB of that child alone). A hang fails the test after
    timeout seconds instead of hanging the suite."""
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen([VKLEAK] + list(args), stdout=null, stderr=subprocess.PIPE,
                                pass_fds=pass_fds, env={**os.environ, "DEBUGINFOD_URLS": ""})
    err = []
    reader = threading.Thread(target=lambda: err.append(proc.stderr.read()))
    reader.start()
    try:
        rc, rss_kb = wait_bounded(proc, timeout, f"vkleak {args}")
    finally:
        reader.join()  # the pipe closes when the process ends or is killed
    proc.stderr.close()
    return rc, err[0].decode("utf-8", "replace"), rss_kb


class CliHostileInputsTest(TempDirTestCase):
    def setUp(self):
        super().setUp()
        self.fifo = os.path.join(self.tmp, "fifo.json")
        os.mkfifo(self.fifo)  # nobody ever writes: open() for reading would block forever
        self.dir = os.path.join(self.tmp, "dir.json")
        os.mkdir(self.dir)

    def assert_refused(self, args, path, what, reason):
        rc, err, _ = run_cli(args)
        self.assertEqual(rc, 2, err)
        self.assertIn(f"vkleak: error: {path}: {what}{reason}, not a regular file", err)

    def test_snapshot_inputs_that_are_not_files(self):
        for path, reason in [(self.fifo, "is a named pipe (FIFO)"),
                             ("/dev/zero", "is a character device")]:
            for command in ("show", "report", "gate"):
                with self.subTest(path=path, command=command):
                    self.assert_refused([command, path], path, "", reason)
        self.assert_refused(["show", self.dir], self.dir, "", "is a directory")

    def test_run_dir_with_a_fifo_and_a_device_for_snapshots(self):
        # Named like snapshots, in a run directory: skipped, never opened.
        os.mkfifo(os.path.join(self.dir, "vkleak-1-1-frame.json"))
        os.symlink("/dev/zero", os.path.join(self.dir, "vkleak-1-2-exit.json"))
        for command in ("report", "gate"):
            with self.subTest(command=command):
                rc, err, _ = run_cli([command, self.dir])
                self.assertEqual(rc, 2, err)
                self.assertIn(f"vkleak: error: {self.dir}: no snapshots", err)

    def test_policy_files_that_are_not_files(self):
        for flag, what in [("--baseline", "baseline"), ("--suppressions", "suppression")]:
            for path, reason in [(self.fifo, "is a named pipe (FIFO)"),
                                 ("/dev/zero", "is a character device"),
                                 (self.dir, "is a directory")]:
                with self.subTest(flag=flag, path=path):
                    self.assert_refused(["gate", SMALL, flag, path], path,
                                        f"cannot read the {what} file: ", reason)

    def test_oversized_policy_files(self):
        for flag, what, limit in [("--baseline", "baseline", 64), ("--suppressions",
                                                                   "suppression", 16)]:
            with self.subTest(flag=flag):
                # Sparse: 300 MB of zeros on no disk; read in full, it took 1.4 GB.
                big = os.path.join(self.tmp, what)
                with open(big, "wb") as f:
                    f.truncate(300 << 20)
                rc, err, rss_kb = run_cli(["gate", SMALL, flag, big])
                self.assertEqual(rc, 2, err)
                self.assertIn(f"vkleak: error: {big}: cannot read the {what} file: is "
                              f"{300 << 20} bytes, more than the limit of {limit} MiB", err)
                if not SANITIZE:
                    self.assertLess(rss_kb, 64 * 1024, err)

    def test_pipes_are_read_and_bounded(self):
        # An anonymous pipe (what <(cmd) gives) is read; one that streams more than the limit is
        # cut off there, not buffered.
        def pipe_of(data, repeat=1):
            r, w = os.pipe()

            def write():
                try:
                    for _ in range(repeat):
                        os.write(w, data)
                except BrokenPipeError:
                    pass
                finally:
                    os.close(w)
            writer = threading.Thread(target=write)
            writer.start()
            return r, writer

        rc_without, err_without, _ = run_cli(["gate", SMALL])
        r, writer = pipe_of(b"# nothing suppressed\n")
        rc, err, _ = run_cli(["gate", SMALL, "--suppressions", f"/dev/fd/{r}"], pass_fds=(r,))
        os.close(r)
        writer.join()
        self.assertEqual((rc, err), (rc_without, err_without))
        r, writer = pipe_of(b" " * (1 << 20), repeat=20)
        rc, err, rss_kb = run_cli(["gate", SMALL, "--suppressions", f"/dev/fd/{r}"],
                                  pass_fds=(r,))
        os.close(r)
        writer.join()
        self.assertEqual(rc, 2, err)
        self.assertIn(f"/dev/fd/{r}: cannot read the suppression file: is larger than the limit "
                      "of 16 MiB", err)
        if not SANITIZE:
            self.assertLess(rss_kb, 64 * 1024, err)

    def test_module_paths_that_are_not_elf_files(self):
        # Module paths come from the snapshot: a FIFO, a device, a directory or a large non-ELF
        # file there costs that module its symbols, nothing else.
        big = os.path.join(self.tmp, "big.so")
        with open(big, "wb") as f:
            f.truncate(1 << 30)
        with open(SMALL) as f:
            snap = json.load(f)
        with open(os.path.join(self.tmp, "plain.json"), "w") as f:
            json.dump(snap, f)
        rc_plain, err_plain, _ = run_cli(["report", os.path.join(self.tmp, "plain.json")])
        for paths in [(self.fifo, "/dev/zero", self.dir), (big, self.fifo, "/dev/urandom")]:
            with self.subTest(paths=paths):
                for module, path in zip(snap["modules"], paths):
                    module["path"] = path
                hostile = os.path.join(self.tmp, "hostile.json")
                with open(hostile, "w") as f:
                    json.dump(snap, f)
                rc, err, _ = run_cli(["report", hostile])
                self.assertEqual(rc, rc_plain, (err, err_plain))
                rc, err, _ = run_cli(["report", "--format", "json", hostile])
                self.assertEqual(rc, rc_plain, (err, err_plain))

    def test_cannot_write_says_why(self):
        rc, err, _ = run_cli(["report", SMALL, "--json", "/dev/full"])
        self.assertEqual(rc, 2, err)
        self.assertIn("vkleak: error: /dev/full: cannot write: No space left on device", err)
        rc, err, _ = run_cli(["report", SMALL, "--markdown", self.dir])
        self.assertEqual(rc, 2, err)
        self.assertIn(f"vkleak: error: {self.dir}: cannot write: Is a directory", err)
        with open("/dev/full", "wb") as full:
            proc = subprocess.run([VKLEAK, "report", SMALL], stdout=full, stderr=subprocess.PIPE,
                                  timeout=20, env={**os.environ, "DEBUGINFOD_URLS": ""})
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn(b"vkleak: error: cannot write to stdout: No space left on device",
                      proc.stderr)


if __name__ == "__main__":
    unittest.main()
