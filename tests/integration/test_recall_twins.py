"""Recall beside precision (issue 36), on twins: each correct look-alike of precision_patterns
(tests/scenarios/README.md: the six patterns of test_precision_scenarios and five descriptor-set
patterns, whose pools live until exit) and its buggy twin (--plant-leak: one line changed, a set
not freed, a cache not evicted), each at --every 10, 25, 50 and 100 and two run lengths, on
lavapipe, headless (frames end at submits).

- A correct twin must get no finding.
- A buggy twin's planted leak must be found: findings of the pattern's kinds and type about the
  planted objects (test_precision_scenarios.planted_found), and no finding about anything else.
- test_webgpu_two_pool_steps: the same of webgpu_bindgroups sized as the issue's WebGPU case
  (170 sets a pool, a texture replaced every 10 frames, 4000 frames: pools 1 -> 2 -> 3), at
  --every 25 and 100.

test_precision_and_recall prints, per cadence and run length, precision = true findings / all
findings and recall = planted leaks found / planted leaks, with a row per run, and requires 1.0
and 1.0 everywhere (bench/precision.py prints the same figures from a corpus of these runs:
VKLEAK_PRECISION_CORPUS=DIR copies each run's snapshots to
DIR/scen-<pattern>[-leak]-f<frames>-every<N>/). The runs go two at a time.
"""

import concurrent.futures
import sys
import unittest

import test_precision_scenarios as scen
from test_precision_scenarios import SPECS, describe, false_findings, get_run, planted_found

CADENCES = (10, 25, 50, 100)
# Short, and long enough that --every 100 takes 4 snapshots after the warm-up (20 frames).
LENGTHS = (450, 700)
SET_PATTERNS = ("rare_path_sets", "webgpu_bindgroups", "gallery", "job_batches", "scene_cache")
RUNS = [(pattern, leak, every, frames) for pattern in SPECS for leak in (False, True)
        for every in CADENCES for frames in LENGTHS]
# The WebGPU case: 170 sets a pool and a texture replaced every 10 frames, so that the
# kept sets fill only two more pools in 4000 frames (pools 1 -> 2 -> 3): two steps, which alone
# read as a working set finding its size. The cached sets' dangling views are the evidence.
WEBGPU_OPTIONS = ("--sets-per-pool", "170", "--replace-every", "10")
WEBGPU_FRAMES = 4000
WEBGPU_RUNS = [("webgpu_bindgroups", leak, every, WEBGPU_FRAMES, WEBGPU_OPTIONS)
               for leak in (False, True) for every in (25, 100)]


def setUpModule():
    scen.setUpModule()
    # Every run once, two at a time (the machines that run the suite have 2 cores at least).
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for future in [pool.submit(get_run, *key) for key in RUNS + WEBGPU_RUNS]:
            future.result()


def tearDownModule():
    scen.tearDownModule()


def wrong_in(run_):
    """Why the run fails, or None: a finding on a correct twin, a false finding or a planted leak
    not found on a buggy one."""
    if not run_.leak:
        return (f"{len(run_.doc['findings'])} findings on the correct program" if
                run_.doc["findings"] else None)
    found, _, missing = planted_found(run_)
    wrong = false_findings(run_)
    if not found:
        return f"planted leak not found (missing kinds {sorted(missing)})"
    return f"{len(wrong)} false findings" if wrong else None


class RecallTwinsTest(unittest.TestCase):
    def check(self, patterns):
        for pattern, leak, every, frames in RUNS:
            if pattern not in patterns:
                continue
            with self.subTest(pattern=pattern, leak=leak, every=every, frames=frames):
                r = get_run(pattern, leak, every, frames)
                self.assertTrue(r.doc["runs"][0]["complete"], r.doc["runs"][0].get("incomplete"))
                why = wrong_in(r)
                if why:
                    self.fail(f"{pattern}{' --plant-leak' if leak else ''} --every {every} "
                              f"--frames {frames}: {why}\nfindings:\n" +
                              "\n".join(describe(f, scen.verdict(r, f)) for f in r.doc["findings"]))

    def test_descriptor_set_twins(self):
        self.check(SET_PATTERNS)

    def test_webgpu_two_pool_steps(self):
        for key in WEBGPU_RUNS:
            _, leak, every, _, _ = key
            with self.subTest(leak=leak, every=every):
                r = get_run(*key)
                if leak:  # the case itself: the kept sets made two more pools, no more
                    self.assertIn(", 3 pools", r.stderr)
                self.assertTrue(r.doc["runs"][0]["complete"], r.doc["runs"][0].get("incomplete"))
                why = wrong_in(r)
                if why:
                    self.fail(f"{' '.join(WEBGPU_OPTIONS)}{' --plant-leak' if leak else ''} "
                              f"--every {every}: {why}\nfindings:\n" +
                              "\n".join(describe(f, scen.verdict(r, f))
                                        for f in r.doc["findings"]))

    def test_other_twins(self):
        self.check([p for p in SPECS if p not in SET_PATTERNS])

    def test_precision_and_recall(self):
        """The table: precision and recall per cadence and length, and over all runs."""
        lines = []
        totals = {}
        for pattern, leak, every, frames in RUNS:
            r = get_run(pattern, leak, every, frames)
            n = len(r.doc["findings"])
            false = len(false_findings(r))
            found = planted_found(r)[0] if leak else None
            for key in ((every, frames), "all"):
                t = totals.setdefault(key, [0, 0, 0, 0])  # findings, false, planted, found
                t[0] += n
                t[1] += false
                t[2] += 1 if leak else 0
                t[3] += 1 if found else 0
            status = "" if not leak else "found" if found else "NOT FOUND"
            lines.append(f"  {pattern:17} {'leak ' if leak else 'clean'} every {every:3} "
                         f"frames {frames}: {n:2} findings, {false:2} false {status}")
        table = ["  every  frames  findings  false  precision  planted  found  recall"]
        order = sorted(totals.items(), key=lambda kv: (1,) + kv[0] if kv[0] != "all" else (0,))
        for key, (n, false, planted, found) in order:
            precision = (n - false) / n if n else 1.0
            recall = found / planted if planted else 1.0
            every, frames = key if key != "all" else ("all", "")
            table.append(f"  {every:>5}  {frames:>6}  {n:8}  {false:5}  {precision:9.3f}  "
                         f"{planted:7}  {found:5}  {recall:6.3f}")
        print("\nprecision and recall on the twins:\n" + "\n".join(table) + "\n" +
              "\n".join(lines), file=sys.stderr)
        n, false, planted, found = totals["all"]
        self.assertEqual((n - false, found), (n, planted),
                         f"precision {n - false}/{n}, recall {found}/{planted}")


if __name__ == "__main__":
    unittest.main()
