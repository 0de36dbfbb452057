"""What `vkleak run` says at the end of a run, and what a newcomer does next (issue 27, points
5, 6 and 8): a one-line verdict over the whole run (not the last snapshot, which is an empty
instance_destroy one), the report command for the run's directory, `vkleak report` on the
default directory of run directories, a layer library that would not load, and
`--destroy-callstacks`."""

import glob
import json
import os
import re
import shutil
import subprocess
import time
import unittest

from harness import BUILD, EXPLICIT_MANIFEST_DIR, VKLEAK, TempDirTestCase, base_env, scenario


def vkleak(args, env, cwd=None, expect=0):
    proc = subprocess.run([VKLEAK] + args, capture_output=True, text=True, timeout=300, env=env,
                          cwd=cwd, errors="replace")
    if expect is not None and proc.returncode != expect:
        raise AssertionError(f"vkleak {args}: exit {proc.returncode}, expected {expect}\n"
                             f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


def last_lines(stderr, n):
    return [l for l in stderr.splitlines() if l.strip()][-n:]


class VerdictTest(TempDirTestCase):
    def test_leaks_give_a_verdict_and_the_report_command(self):
        proc = vkleak(["run", "--out", self.out, "--", scenario("leak_named_buffers"), "--count",
                       "3"], base_env(self.tmp))
        verdict, command = last_lines(proc.stderr, 2)
        # The whole run is judged: the device_destroy snapshot holds the leak, the last
        # (instance_destroy) snapshot nothing.
        # ... and names the first-ranked finding with its call site: where to look.
        self.assertEqual(verdict, "vkleak: 1 problem found (1 leak_at_exit; 3 objects, 12.0 KiB); "
                                  "first: leak_at_exit VkBuffer \"leak.*\" at main > "
                                  "leak_buffers(scenario::Context const&, unsigned int) "
                                  "(leak_named_buffers.cpp:23); growth not judged: too few "
                                  "snapshots during the run (--every N takes more)")
        self.assertEqual(command, "vkleak: see the report: vkleak report " + self.out)
        self.assertNotIn("vkleak show", proc.stderr)
        self.assertNotIn("instance_destroy.json", proc.stderr)
        # The command it prints works, and finds what the verdict says.
        report = vkleak(["report", self.out, "--color", "never"], base_env(self.tmp))
        self.assertIn("leak_at_exit  VkBuffer \"leak.*\"  3 objects", report.stdout)

    def test_a_clean_run_says_so(self):
        proc = vkleak(["run", "--out", self.out, "--", scenario("clean_app")], base_env(self.tmp))
        verdict, command = last_lines(proc.stderr, 2)
        self.assertTrue(verdict.startswith("vkleak: no leaks found at exit; growth not judged"),
                        verdict)
        # Snapshots during the run: growth is judged too.
        shutil.rmtree(self.out)
        proc = vkleak(["run", "--out", self.out, "--every", "10", "--frame-boundary", "submit",
                       "--", scenario("clean_app"), "--frames", "100"], base_env(self.tmp))
        verdict, command = last_lines(proc.stderr, 2)
        self.assertEqual(verdict, "vkleak: no leaks found")
        self.assertEqual(command, "vkleak: see the report: vkleak report " + self.out)

    def test_the_report_command_is_quoted_for_the_shell(self):
        out = os.path.join(self.tmp, "my snaps; rm -rf x")
        proc = vkleak(["run", "--out", out, "--", scenario("leak_named_buffers"), "--count", "1"],
                      base_env(self.tmp))
        self.assertEqual(last_lines(proc.stderr, 1)[0],
                         "vkleak: see the report: vkleak report '" + out + "'")


class DefaultDirectoryTest(TempDirTestCase):
    """Without --out, runs go to ./vkleak-snapshots/run-<date>-<time>-<pid>/; `vkleak report
    vkleak-snapshots` reads the newest run and says which."""

    def test_report_on_the_default_directory_reads_the_newest_run(self):
        env = base_env(self.tmp)
        first = vkleak(["run", "--", scenario("leak_named_buffers"), "--count", "2"], env,
                       cwd=self.tmp)
        time.sleep(0.05)  # distinct modification times, whatever the file system's resolution
        second = vkleak(["run", "--", scenario("leak_named_buffers"), "--count", "4"], env,
                        cwd=self.tmp)
        runs = sorted(glob.glob(os.path.join(self.tmp, "vkleak-snapshots", "run-*")))
        self.assertEqual(len(runs), 2, runs)
        for run_dir in runs:
            self.assertRegex(os.path.basename(run_dir), r"^run-\d{8}-\d{6}-\d+$")
        newest = re.search(r"vkleak report (\S+)", second.stderr).group(1)
        self.assertIn(newest, runs)
        self.assertNotIn(newest, first.stderr)

        report = vkleak(["report", "vkleak-snapshots", "--color", "never"], env, cwd=self.tmp)
        self.assertIn("4 objects", report.stdout)
        self.assertNotIn("2 objects", report.stdout)
        rel = os.path.relpath(newest, self.tmp)
        self.assertIn(f"vkleak: vkleak-snapshots holds 2 runs; reading the newest, {rel}",
                      report.stderr)
        self.assertIn("vkleak-snapshots/*/ to read them all", report.stderr)
        # The hint works: all runs.
        both = vkleak(["report"] + [os.path.relpath(r, self.tmp) for r in runs] +
                      ["--format", "json"], env, cwd=self.tmp)
        self.assertIn('"leak_at_exit"', both.stdout)
        # gate reads the same run.
        gate = vkleak(["gate", "vkleak-snapshots", "--format", "json"], env, cwd=self.tmp,
                      expect=1)
        self.assertIn("reading the newest", gate.stderr)

    def test_one_run_below_is_read_with_a_note(self):
        env = base_env(self.tmp)
        vkleak(["run", "--", scenario("leak_named_buffers"), "--count", "2"], env, cwd=self.tmp)
        report = vkleak(["report", "vkleak-snapshots", "--color", "never"], env, cwd=self.tmp)
        self.assertIn("2 objects", report.stdout)
        self.assertRegex(report.stderr, r"vkleak: reading the run in vkleak-snapshots/run-")

    def test_a_directory_without_runs_is_still_an_error(self):
        empty = os.path.join(self.tmp, "empty")
        os.makedirs(os.path.join(empty, "sub"))
        proc = vkleak(["report", empty], base_env(self.tmp), expect=2)
        self.assertIn("no snapshots", proc.stderr)


class LayerLibraryTest(TempDirTestCase):
    """A manifest whose library is missing (or does not load): the loader would skip the layer
    and the program would run untracked, exit 0, no snapshot. vkleak run says why, up front."""

    def layer_dir(self, library_path):
        d = os.path.join(self.tmp, "layer")
        os.makedirs(d)
        with open(os.path.join(EXPLICIT_MANIFEST_DIR, "VkLayer_vkleak.json")) as f:
            text = f.read()
        text = re.sub(r'"library_path": "[^"]*"', f'"library_path": "{library_path}"', text)
        with open(os.path.join(d, "VkLayer_vkleak.json"), "w") as f:
            f.write(text)
        return d

    def run_with_layer_dir(self, layer_dir):
        env = base_env(self.tmp)
        env["VKLEAK_LAYER_DIR"] = layer_dir
        return vkleak(["run", "--out", self.out, "--", scenario("leak_named_buffers")], env,
                      expect=2)

    def test_missing_library(self):
        missing = os.path.join(self.tmp, "gone", "libVkLayer_vkleak.so")
        proc = self.run_with_layer_dir(self.layer_dir(missing))
        self.assertIn("vkleak: error: the vkleak layer would not load: its library " + missing +
                      " (library_path in ", proc.stderr)
        self.assertIn(") does not exist", proc.stderr)
        self.assertIn("VK_LOADER_DEBUG", proc.stderr)
        self.assertNotIn("writing snapshots", proc.stderr)  # the program never ran untracked

    def test_relative_library_path_is_relative_to_the_manifest(self):
        d = self.layer_dir("./libVkLayer_vkleak.so")
        shutil.copy(os.path.join(BUILD, "lib", "libVkLayer_vkleak.so"), d)
        env = base_env(self.tmp)
        env["VKLEAK_LAYER_DIR"] = d
        proc = vkleak(["run", "--out", self.out, "--", scenario("leak_named_buffers")], env)
        self.assertIn("1 problem found", proc.stderr)

    def test_library_that_does_not_load(self):
        d = self.layer_dir("./libVkLayer_vkleak.so")
        with open(os.path.join(d, "libVkLayer_vkleak.so"), "w") as f:
            f.write("not an ELF file\n")
        proc = self.run_with_layer_dir(d)
        self.assertIn("cannot be loaded: ", proc.stderr)
        self.assertIn("libVkLayer_vkleak.so", proc.stderr)


class LoaderFilterTest(TempDirTestCase):
    """VK_LOADER_LAYERS_DISABLE=~all~ or ~explicit~ in the user's environment made the loader drop
    the layer silently: no snapshot, exit 0. vkleak run enables it through the loader's enable
    filter, which wins, and says so."""

    def test_disabled_by_the_loader_filter(self):
        for disable in ("VK_LAYER_MESA_device_select,~explicit~", "~all~", "VK_LAYER_VKLEAK_*"):
            with self.subTest(disable=disable):
                shutil.rmtree(self.out, ignore_errors=True)
                env = base_env(self.tmp)
                env["VK_LOADER_LAYERS_DISABLE"] = disable
                proc = vkleak(["run", "--out", self.out, "--", scenario("leak_named_buffers")],
                              env)
                self.assertIn("vkleak: VK_LOADER_LAYERS_DISABLE would disable "
                              "VK_LAYER_VKLEAK_tracker: adding it to VK_LOADER_LAYERS_ENABLE",
                              proc.stderr)
                self.assertIn("1 problem found", proc.stderr)

    def test_other_filters_are_left_alone(self):
        proc = vkleak(["run", "--out", self.out, "--", scenario("leak_named_buffers")],
                      base_env(self.tmp))  # disables VK_LAYER_MESA_device_select only
        self.assertNotIn("VK_LOADER_LAYERS_ENABLE", proc.stderr)
        self.assertIn("1 problem found", proc.stderr)


class DestroyCallstacksTest(TempDirTestCase):
    """The line to fix for a stale view is where its target was destroyed."""

    def report(self, *run_flags):
        env = base_env(self.tmp)
        self.run_stderr = vkleak(["run", "--out", self.out, "--every", "10", *run_flags, "--",
                                  scenario("incident5_bindgroup_cache")], env).stderr
        return vkleak(["report", self.out, "--color", "never"], env).stdout

    def test_flag_is_in_help(self):
        help_text = vkleak(["run", "--help"], base_env(self.tmp)).stdout
        self.assertIn("--destroy-callstacks", help_text)
        self.assertIn("--no-destroy-callstacks", help_text)

    def test_destroy_callstacks_by_default(self):
        text = self.report()
        self.assertRegex(text, r"target destroyed here:\n\s+#0 destroy_texture\(")
        # The run's verdict names that line already.
        self.assertRegex(self.run_stderr, r"first: stale_view VkDescriptorSet \"bindgroup\.\*\" at "
                         r"main > BindGroupCache::get\(Texture const&\) "
                         r"\(incident5_bindgroup_cache\.cpp:\d+\), its target destroyed at "
                         r"destroy_texture\(scenario::Context const&, Texture&\) "
                         r"\(incident5_bindgroup_cache\.cpp:\d+\)")
        # Every format carries the stacks: the findings JSON (which the others render) too.
        doc = json.loads(vkleak(["report", self.out, "--format", "json"], base_env(self.tmp))
                         .stdout)
        [stale] = [f for f in doc["findings"] if f["kind"] == "stale_view"]
        [target] = [st for st in stale["stacks"] if st["label"] == "target destroyed here"]
        self.assertTrue(target["frames"][0]["function"].startswith("destroy_texture("), target)
        for fmt in ("markdown", "junit", "sarif"):
            out = vkleak(["report", self.out, "--format", fmt], base_env(self.tmp)).stdout
            self.assertIn("destroy_texture(", out, fmt)

    def test_no_destroy_callstacks(self):
        text = self.report("--no-destroy-callstacks")
        self.assertNotRegex(text, r"target destroyed here:\n\s+#0 destroy_texture\(")
        self.assertIn("stack not recorded", text)
        self.assertNotIn("its target destroyed at", self.run_stderr)


if __name__ == "__main__":
    unittest.main()
