"""The frames a report shows (issue 27, points 10 and 13): the C runtime's start-up frames
(_start, __libc_start_main, __libc_start_call_main) are hidden in every output unless
--startup-frames; every output shows the same symbolization of each frame."""

import html
import json
import os
import re
import subprocess
import unittest

from harness import VKLEAK, TempDirTestCase, base_env, scenario, snapshot_files

STARTUP = re.compile(r"\b(_start|__libc_start_main|__libc_start_call_main)\b")
FORMATS = ("text", "json", "markdown", "junit", "sarif")


class StartupFramesTest(TempDirTestCase):
    def setUp(self):
        super().setUp()
        self.env = base_env(self.tmp)
        subprocess.run([VKLEAK, "run", "--out", self.out, "--", scenario("leak_named_buffers"),
                        "--count", "3"], env=self.env, capture_output=True, check=True,
                       timeout=300)

    def vkleak(self, *args):
        proc = subprocess.run([VKLEAK, *args], env=self.env, capture_output=True, text=True,
                              timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc.stdout

    def outputs(self, *flags):
        out = {fmt: self.vkleak("report", self.out, "--format", fmt, "--color", "never", *flags)
               for fmt in FORMATS}
        page = os.path.join(self.tmp, "report.html")
        self.vkleak("report", self.out, "--html", page, *flags)
        with open(page) as f:
            out["html"] = f.read()
        snapshot = [p for p in snapshot_files(self.out) if "device_destroy" in p][0]
        out["show"] = self.vkleak("show", snapshot, "--color", "never", *flags)
        return out

    def test_hidden_in_every_output(self):
        for fmt, text in self.outputs().items():
            with self.subTest(output=fmt):
                self.assertIsNone(STARTUP.search(text), fmt)
        # main is still the outermost frame.
        doc = json.loads(self.vkleak("report", self.out, "--format", "json"))
        [leak] = [f for f in doc["findings"] if f["kind"] == "leak_at_exit"]
        self.assertEqual(leak["callsite_frames"][-1]["function"], "main", leak["callsite_frames"])

    def test_shown_with_the_flag(self):
        for fmt, text in self.outputs("--startup-frames").items():
            if fmt in ("markdown", "junit", "sarif"):
                continue  # they show the innermost frames only
            with self.subTest(output=fmt):
                self.assertIsNotNone(STARTUP.search(text), fmt)

    def test_one_symbolization_for_every_output(self):
        # Each frame of the JSON reads the same in the text and in the HTML page.
        out = self.outputs("--startup-frames")
        doc = json.loads(out["json"])
        frames = [fr["text"] for f in doc["findings"] for fr in f["callsite_frames"]]
        self.assertTrue(frames)
        for text in frames:
            # The text shows the innermost frames and counts the rest.
            if text not in out["text"]:
                self.assertRegex(out["text"], r"\(\d+ more frames?\)")
            self.assertIn(html.escape(text, quote=False), out["html"])
            # A frame without line info never borrows another function's file:line.
            if STARTUP.match(text) and "libc" not in text:
                self.assertNotRegex(text, r"\.(h|cpp|hpp):\d+\)$", text)


if __name__ == "__main__":
    unittest.main()
