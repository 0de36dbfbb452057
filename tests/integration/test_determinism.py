"""Findings are a pure function of what the program did (issue 36): not of the order the layer
wrote objects, edges, events or call sites in (hash order of handle values), nor of handle values.

- Every program of the precision suite (each pattern of precision_patterns, correct and with
  --plant-leak), the compute program of the issue (compute_paused_frames) and vkcube under Xvfb
  run once under `vkleak run --every 25`; each run's snapshots are re-written in several random
  orders (snapshot_shuffle.py: objects, edges, events, call sites, modules, keys, ...; once with
  every handle value remapped too), and `vkleak report --format json` of each must be
  byte-identical to the report of the snapshots as written (the snapshot directory's path aside;
  handle values aside where they were remapped).
- compute_paused_frames is deterministic: run RUNS times, every run gives the same problems (kind,
  type, count, call site, name pattern of each finding of each problem). Before the fix, the
  view-cache bug was reported in some runs only (2, 1, 2, 1 problems).

The runs take about a minute on 2 cores; the reports of the re-written runs most of the rest.
VKLEAK_KEEP_TMP=1 keeps the snapshot directories.
"""

import json
import os
import shutil
import tempfile
import unittest

from harness import SANITIZE, VKLEAK, base_env, run, scenario, snapshot_files, xvfb
import snapshot_shuffle
from test_precision_scenarios import SPECS

EVERY = 25
SEEDS = (1, 2)
PATTERN_FRAMES = 200
# Every pattern of the precision and recall suites, the descriptor-set twins included.
PATTERNS = tuple(SPECS)
COMPUTE = "compute_paused_frames"
COMPUTE_FRAMES = 300
# Its three bugs, one problem each: the names of the objects each problem is about.
COMPUTE_BUGS = ({"paused.staging.memory"}, {"paused.set"}, {"target.view"})
# Long enough for 4 snapshots after the warm-up at --every 100.
COMPUTE_CADENCES = ((25, 300), (100, 600))
RUNS = 10
VKCUBE_FRAMES = 150


def setUpModule():
    if SANITIZE:
        raise unittest.SkipTest("analysis determinism: not re-run in the sanitizer tree")


def vkleak_run(out, cmd, tmp, display=None, every=EVERY):
    env = base_env(tmp)
    if display:
        env["DISPLAY"] = display
    proc = run([VKLEAK, "run", "--out", out, "--every", str(every), "--"] + cmd, env, check=False)
    if proc.returncode != 0:
        raise AssertionError(f"vkleak run {cmd} exited {proc.returncode}: {proc.stderr[-2000:]}")
    if len(snapshot_files(out)) < 3:
        raise AssertionError(f"{cmd}: only {len(snapshot_files(out))} snapshots")


def report(directory):
    return snapshot_shuffle.report(VKLEAK, directory)


def problem_names(doc):
    """Per problem, the names its findings are about (name patterns), sorted by the first."""
    findings = doc["findings"]
    return sorted(({findings[i].get("name_pattern") or "" for i in p["findings"]}
                   for p in doc["problems"]), key=sorted)


def problem_signature(doc):
    """What a run's problems are, without anything a run's identity or handles change."""
    findings = doc["findings"]
    problems = []
    for p in doc["problems"]:
        problems.append(sorted(
            (findings[i]["kind"], findings[i]["object_type"], findings[i]["count"],
             findings[i].get("callsite_summary") or "", findings[i].get("name_pattern") or "")
            for i in p["findings"]))
    return problems


class DeterminismTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="vkleak-determinism-")

    @classmethod
    def tearDownClass(cls):
        if os.environ.get("VKLEAK_KEEP_TMP") != "1":
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def check_orders(self, label, out):
        """The run's report against its report re-written in every seed's order."""
        original = report(out)
        # The report must be about something: the check is vacuous on an empty run.
        self.assertIn('"findings"', original)
        for seed in SEEDS:
            for remap in (False, True) if seed == SEEDS[0] else (False,):
                with self.subTest(program=label, seed=seed, remap_handles=remap):
                    shuffled = os.path.join(self.tmp, f"{label}-seed{seed}{'-h' if remap else ''}")
                    diff = snapshot_shuffle.order_difference(VKLEAK, out, shuffled, seed, remap,
                                                             original)
                    if diff:
                        self.fail(f"{label}: findings differ with the snapshots re-ordered (seed "
                                  f"{seed}{', handles remapped' if remap else ''}): {diff}")

    def test_precision_patterns_any_order(self):
        program = scenario("precision_patterns")
        if not os.path.exists(program):
            self.skipTest(f"{program} not built")
        for pattern in PATTERNS:
            for leak in (False, True):
                label = f"{pattern}{'-leak' if leak else ''}"
                out = os.path.join(self.tmp, label)
                cmd = [program, "--pattern", pattern, "--frames", str(PATTERN_FRAMES)]
                vkleak_run(out, cmd + (["--plant-leak"] if leak else []), self.tmp)
                self.check_orders(label, out)

    def test_compute_program_any_order_and_every_run(self):
        program = scenario(COMPUTE)
        if not os.path.exists(program):
            self.skipTest(f"{program} not built")
        signatures = []
        for k in range(RUNS):
            out = os.path.join(self.tmp, f"{COMPUTE}-{k}")
            vkleak_run(out, [program, "--frames", str(COMPUTE_FRAMES)], self.tmp)
            if k == 0:
                self.check_orders(COMPUTE, out)
            signatures.append(problem_signature(json.loads(report(out))))
        counts = [len(s) for s in signatures]
        print(f"\n  {COMPUTE}: problems per run {counts}")
        # The program's three bugs, in every run.
        self.assertEqual(counts, [len(COMPUTE_BUGS)] * RUNS)
        for k, s in enumerate(signatures[1:], start=1):
            self.assertEqual(signatures[0], s, f"run {k} has other problems than run 0 "
                             f"(problems per run: {counts})")

    def test_compute_program_bugs_at_each_cadence(self):
        """Its three bugs are three problems at --every 25 and 100, the descriptor sets of its
        FREE_DESCRIPTOR_SET_BIT pool included (a pool that never frees a set one by one: its
        create flags say that the sets are their own unit). And the layer stamps each destroy
        with the frame it turns out to be: none before its object's creation (destroys in the
        first submits, before frame_boundary=auto decided, read as frame 0)."""
        program = scenario(COMPUTE)
        if not os.path.exists(program):
            self.skipTest(f"{program} not built")
        for every, frames in COMPUTE_CADENCES:
            with self.subTest(every=every):
                out = os.path.join(self.tmp, f"{COMPUTE}-every{every}")
                vkleak_run(out, [program, "--frames", str(frames)], self.tmp, every=every)
                doc = json.loads(report(out))
                names = problem_names(doc)
                self.assertEqual(len(names), len(COMPUTE_BUGS), names)
                for bug in COMPUTE_BUGS:
                    self.assertTrue(any(bug <= n for n in names), f"{bug} not found: {names}")
                destroyed = []
                for path in snapshot_files(out):
                    with open(path, encoding="utf-8") as f:
                        destroyed += json.load(f)["destroyed"]
                self.assertTrue(destroyed)
                early = [d for d in destroyed if d["destroyed_frame"] < d["frame"]]
                self.assertEqual(early, [], "destroyed before they were made")

    def test_vkcube_any_order(self):
        if not shutil.which("vkcube"):
            self.skipTest("vkcube not installed")
        with xvfb() as display:
            out = os.path.join(self.tmp, "vkcube")
            vkleak_run(out, ["vkcube", "--c", str(VKCUBE_FRAMES)], self.tmp, display)
        self.check_orders("vkcube", out)


if __name__ == "__main__":
    unittest.main()
