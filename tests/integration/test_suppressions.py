"""Suppression files as a LeakSanitizer user expects them (issue 27, point 11): an unknown kind
(LSan's `leak:`) lists the valid kinds, and the gate says what each rule matched and which rules
matched nothing, in every output format."""

import json
import os
import subprocess
import unittest

from harness import VKLEAK, TempDirTestCase, base_env, scenario

FORMATS = ("text", "json", "markdown", "junit", "sarif")


def vkleak(args, env, expect):
    proc = subprocess.run([VKLEAK] + args, capture_output=True, text=True, timeout=300, env=env)
    if proc.returncode != expect:
        raise AssertionError(f"vkleak {args}: exit {proc.returncode}, expected {expect}\n"
                             f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


class SuppressionsTest(TempDirTestCase):
    def setUp(self):
        super().setUp()
        self.env = base_env(self.tmp)
        vkleak(["run", "--out", self.out, "--", scenario("leak_named_buffers"), "--count", "3"],
               self.env, 0)
        self.supp = os.path.join(self.tmp, "vkleak.supp")

    def write(self, text):
        with open(self.supp, "w") as f:
            f.write(text)

    def test_lsan_leak_kind_lists_the_kinds(self):
        self.write("leak:leak_buffers\n")
        proc = vkleak(["gate", self.out, "--suppressions", self.supp], self.env, 2)
        self.assertIn(f"vkleak: error: {self.supp}:1: 'leak' matches no finding kind; the kinds "
                      "are leak_at_exit, growth, retained, stale_view, orphaned_memory, "
                      "destroyed_in_flight, invalid_destroy, and * matches any (LeakSanitizer's "
                      "leak: is leak_at_exit: here)", proc.stderr)

    def test_used_and_unused_rules_in_every_format(self):
        self.write("# ours\nleak_at_exit:leak_buffers\ngrowth:ImGui_ImplVulkan_CreateFontsTexture\n")
        for fmt in FORMATS:
            with self.subTest(format=fmt):
                proc = vkleak(["gate", self.out, "--suppressions", self.supp, "--format", fmt,
                               "--color", "never"], self.env, 0)
                lines = proc.stderr.splitlines()
                start = lines.index("Suppressions used:")
                self.assertRegex(lines[start + 1], r"^\s+findings\s+objects\s+bytes\s+rule$")
                self.assertRegex(lines[start + 2], r"^\s+1\s+3\s+12\.0 KiB\s+"
                                 r"leak_at_exit:leak_buffers  \(" + self.supp + r":2\)$")
                self.assertRegex(lines[start + 3], r"^\s+0\s+0\s+0 B\s+growth:ImGui_ImplVulkan_"
                                 r"CreateFontsTexture  \(" + self.supp + r":3, unused\)$")
                self.assertIn(f"vkleak: warning: {self.supp}:3: suppression rule "
                              "'growth:ImGui_ImplVulkan_CreateFontsTexture' matched no finding",
                              proc.stderr)
                if fmt == "json":
                    uses = json.loads(proc.stdout)["gate"]["suppressions"]
                    self.assertEqual([(u["rule"], u["line"], u["findings"], u["objects"])
                                      for u in uses],
                                     [("leak_at_exit:leak_buffers", 2, 1, 3),
                                      ("growth:ImGui_ImplVulkan_CreateFontsTexture", 3, 0, 0)])

    def test_no_table_without_a_suppression_file(self):
        proc = vkleak(["gate", self.out], self.env, 1)
        self.assertNotIn("Suppressions used", proc.stderr)


if __name__ == "__main__":
    unittest.main()
