"""Analysis precision (issue 25, "every finding true") on the correct programs of
precision_patterns (tests/scenarios/README.md): each pattern runs under the layer on lavapipe,
headless (frames end at submits), for 500 frames, with a snapshot every 10, 50 and 100 frames.

- Without --plant-leak the program is correct: `vkleak report` must find nothing. Every finding
  is printed (kind, type, names, message).
- With --plant-leak the program hides one real leak among the same correct objects, and says on
  stderr which objects it leaked (`plant-leak: <VkType> <name>`). The leak must be found (the
  pattern's kinds, object type, and its name pattern or creation function), be the first finding
  or in the first problem, and every finding must be about planted objects only.
- test_suite_precision prints precision = true findings / all findings over every run of the
  suite (a finding is true when it is about planted objects only, of an expected kind and type),
  with a table of the runs, and requires 1.0.

These test the analysis's precision, not the layer's memory safety: they are skipped under the
sanitizers (VKLEAK_TEST_SANITIZE), whose slower runs add nothing to what is checked here.
VKLEAK_PRECISION_CORPUS=DIR copies each run's snapshots to DIR/scen-<pattern>[-leak]-every<N>/
for offline analysis.
"""

import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from harness import SANITIZE, VKLEAK, explicit_env, run, scenario, snapshot_files

PROGRAM = "precision_patterns"
FRAMES = 500
CADENCES = (10, 50, 100)

# What each planted leak must be reported as. `kinds`: each must be among the findings about the
# planted objects; `also`: kinds that may be too; `type`: the Vulkan type of those findings;
# `patterns`/`function`: their name pattern or the innermost function of their creation call site.
Spec = collections.namedtuple("Spec", "type patterns function kinds also")
SPECS = {
    "resize_targets": Spec("VkImageView", {"rt.depth.*.view"}, "create_render_targets",
                           {"stale_view", "leak_at_exit"}, {"growth", "retained"}),
    "emitters": Spec("VkBuffer", {"emitter.*"}, "spawn_emitter", {"leak_at_exit"},
                     {"growth", "retained"}),
    "texture_cache": Spec("VkImage", {"tex.*"}, "load_texture", {"leak_at_exit"},
                          {"growth", "retained"}),
    "deletion_queue": Spec("VkBuffer", {"transient.instances.*"}, "create_transient",
                           {"leak_at_exit"}, {"growth", "retained"}),
    "buffer_factory": Spec("VkBuffer", {"frame.draws.*"}, "make_buffer", {"leak_at_exit"},
                           {"growth", "retained"}),
    "job_plateau": Spec("VkBuffer", {"job.staging.*"}, "stage_job_input", {"leak_at_exit"},
                        {"growth", "retained"}),
    # Descriptor sets in pools that live until exit (issue 36; test_recall_twins runs these): the
    # leaked sets point at destroyed buffers or views, and pile up. `type` may list several types:
    # webgpu_bindgroups' allocator grows by pools, made only for the kept sets.
    "rare_path_sets": Spec("VkDescriptorSet", {"rare.paused.*.set"}, "draw_paused_overlay",
                           {"stale_view"}, {"growth", "retained"}),
    "webgpu_bindgroups": Spec(("VkDescriptorSet", "VkDescriptorPool"), {"wgpu.set.*",
                                                                        "wgpu.pool.*"},
                              "PreallocatedSets::grow", {"stale_view"}, {"growth", "retained"}),
    "gallery": Spec("VkDescriptorSet", {"gallery.set.*"}, "make_gallery_bind_group",
                    {"stale_view"}, {"growth", "retained"}),
    "job_batches": Spec("VkDescriptorSet", {"batch.*.job.*.set"}, "make_job", {"stale_view"},
                        {"growth", "retained"}),
    "scene_cache": Spec("VkDescriptorSet", {"scene.*.set"}, "SceneCache::get", {"stale_view"},
                        {"growth", "retained"}),
}
# The patterns this module runs (at 500 frames, every 10, 50 and 100).
PATTERNS = ("resize_targets", "emitters", "texture_cache", "deletion_queue", "buffer_factory",
            "job_plateau")


def types_of(spec):
    return spec.type if isinstance(spec.type, tuple) else (spec.type,)

PLANTED_RE = re.compile(r"^plant-leak: (\w+) (\S+)$", re.M)

Run = collections.namedtuple("Run", "pattern leak every doc planted seconds stderr frames")

_tmp = None
_runs = {}


def setUpModule():
    if SANITIZE:
        raise unittest.SkipTest("analysis-precision tests: not run under sanitizers")
    if not os.path.exists(scenario(PROGRAM)):
        raise unittest.SkipTest(f"{scenario(PROGRAM)} not built")


def tearDownModule():
    if _tmp and os.environ.get("VKLEAK_KEEP_TMP") != "1":
        shutil.rmtree(_tmp, ignore_errors=True)


def vkleak(args):
    proc = subprocess.run([VKLEAK] + args, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "DEBUGINFOD_URLS": ""})
    if proc.returncode != 0:
        raise AssertionError(f"vkleak {args} exited {proc.returncode}\n"
                             f"stderr:\n{proc.stderr[-3000:]}")
    return proc


def get_run(pattern, leak, every, frames=FRAMES, options=()):
    """Runs the pattern once per (leak, cadence, length, options) for the whole module and
    reports it. `options`: more of the program's options (a pattern's sizes)."""
    global _tmp
    key = (pattern, leak, every, frames, tuple(options))
    if key in _runs:
        return _runs[key]
    if _tmp is None:
        _tmp = tempfile.mkdtemp(prefix="vkleak-precision-")
    length = "" if frames == FRAMES else f"-f{frames}"
    length += "".join(f"-{o.lstrip('-')}" for o in options)
    label = f"scen-{pattern}{'-leak' if leak else ''}{length}-every{every}"
    tmp = os.path.join(_tmp, label)
    out = os.path.join(tmp, "snapshots")
    os.makedirs(tmp)
    env = explicit_env(tmp, out)
    env["VKLEAK_SNAPSHOT_EVERY"] = str(every)
    env["VKLEAK_FRAME_BOUNDARY"] = "submit"
    args = [scenario(PROGRAM), "--pattern", pattern, "--frames", str(frames)] + list(options)
    if leak:
        args.append("--plant-leak")
    start = time.monotonic()
    proc = run(args, env)
    seconds = time.monotonic() - start
    if len(snapshot_files(out)) < 3:
        raise AssertionError(f"{label}: only {len(snapshot_files(out))} snapshots")
    corpus = os.environ.get("VKLEAK_PRECISION_CORPUS")
    if corpus:
        dest = os.path.join(corpus, label)
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(out, dest)
    doc = json.loads(vkleak(["report", out, "--format", "json", "--max-names", "1000000",
                             "--max-examples", "10000"]).stdout)
    planted = {name: type_ for type_, name in PLANTED_RE.findall(proc.stderr)}
    if leak and not planted:
        raise AssertionError(f"{label}: the program announced no planted leak\n{proc.stderr}")
    result = Run(pattern, leak, every, doc, planted, seconds, proc.stderr, frames)
    _runs[key] = result
    return result


# Kinds about a group as a whole: their objects may include correct members of the leaking group.
GROUP_KINDS = {"growth"}


def objects_of(finding):
    """The debug names of the finding's own objects (its examples; names also lists the objects
    they reference, such as a stale view's target)."""
    return [e.get("name") or "" for e in finding.get("examples") or []]


def verdict(run_, finding):
    """None when the finding is true (about the planted objects, of an expected kind and type;
    only planted objects unless the kind is about a whole group), else why it is false."""
    if not run_.leak:
        return "the program is correct"
    spec = SPECS[run_.pattern]
    objects = objects_of(finding)
    if not objects or finding.get("examples_omitted"):
        return "objects not listed"
    planted = [n for n in objects if n in run_.planted]
    correct = [n for n in objects if n not in run_.planted]
    if not planted:
        return "about correct objects only"
    if correct and finding["kind"] not in GROUP_KINDS:
        return f"also about correct objects: {', '.join(correct[:5])}"
    if finding["kind"] not in spec.kinds | spec.also:
        return f"planted objects, unexpected kind {finding['kind']}"
    if finding["object_type"] not in types_of(spec):
        return f"planted objects, unexpected type {finding['object_type']}"
    return None


def describe(finding, why=None):
    objects = objects_of(finding)
    shown = ", ".join(objects[:6]) + (f", ... ({len(objects)})" if len(objects) > 6 else "")
    text = (f"{finding['kind']} {finding['object_type']} {finding.get('name_pattern')!r} "
            f"x{finding['count']} [{shown}] from {(finding.get('function') or '?').split('(')[0]}:"
            f" {finding['message'][:300]}")
    return f"{text}  <- {why}" if why else text


def false_findings(run_):
    return [(f, why) for f in run_.doc["findings"] for why in [verdict(run_, f)] if why]


def planted_found(run_):
    """(found, first, missing kinds): the planted leak's findings and whether one leads."""
    spec = SPECS[run_.pattern]
    findings = run_.doc["findings"]
    true = [i for i, f in enumerate(findings) if verdict(run_, f) is None and
            (f.get("name_pattern") in spec.patterns or spec.function in (f.get("function") or ""))]
    missing = spec.kinds - {findings[i]["kind"] for i in true}
    first = bool(true) and (0 in true or any(
        i in true for i in (run_.doc["problems"][0]["findings"] if run_.doc["problems"] else [])))
    return bool(true) and not missing, first, missing


class PrecisionScenariosTest(unittest.TestCase):
    def check_clean(self, pattern):
        for every in CADENCES:
            with self.subTest(pattern=pattern, every=every):
                r = get_run(pattern, False, every)
                self.assertTrue(r.doc["runs"][0]["complete"], r.doc["runs"][0].get("incomplete"))
                if r.doc["findings"]:
                    self.fail(f"{pattern} --every {every}: {len(r.doc['findings'])} false "
                              "findings:\n" + "\n".join(describe(f) for f in r.doc["findings"]))

    def check_planted(self, pattern):
        spec = SPECS[pattern]
        for every in CADENCES:
            with self.subTest(pattern=pattern, every=every):
                r = get_run(pattern, True, every)
                self.assertTrue(r.doc["runs"][0]["complete"], r.doc["runs"][0].get("incomplete"))
                self.assertTrue(all(t in types_of(spec) + ("VkDeviceMemory",)
                                    for t in r.planted.values()))
                found, first, missing = planted_found(r)
                listing = "\n".join(describe(f, verdict(r, f)) for f in r.doc["findings"])
                self.assertTrue(found, f"{pattern} --plant-leak --every {every}: the planted "
                                f"{spec.type} leak is not found (missing kinds {sorted(missing)})"
                                f"\nfindings:\n{listing}")
                self.assertTrue(first, f"{pattern} --plant-leak --every {every}: the planted leak "
                                f"is not the first finding or problem\nfindings:\n{listing}")
                wrong = false_findings(r)
                if wrong:
                    self.fail(f"{pattern} --plant-leak --every {every}: {len(wrong)} false "
                              "findings:\n" + "\n".join(describe(f, why) for f, why in wrong))

    def test_resize_targets_reports_nothing(self):
        self.check_clean("resize_targets")

    def test_resize_targets_planted_leak(self):
        self.check_planted("resize_targets")

    def test_emitters_reports_nothing(self):
        self.check_clean("emitters")

    def test_emitters_planted_leak(self):
        self.check_planted("emitters")

    def test_texture_cache_reports_nothing(self):
        self.check_clean("texture_cache")

    def test_texture_cache_planted_leak(self):
        self.check_planted("texture_cache")

    def test_deletion_queue_reports_nothing(self):
        self.check_clean("deletion_queue")

    def test_deletion_queue_planted_leak(self):
        self.check_planted("deletion_queue")

    def test_buffer_factory_reports_nothing(self):
        self.check_clean("buffer_factory")

    def test_buffer_factory_planted_leak(self):
        self.check_planted("buffer_factory")

    def test_job_plateau_reports_nothing(self):
        self.check_clean("job_plateau")

    def test_job_plateau_planted_leak(self):
        self.check_planted("job_plateau")

    def test_suite_precision(self):
        true = total = 0
        lines = []
        for pattern in PATTERNS:
            for leak in (False, True):
                for every in CADENCES:
                    r = get_run(pattern, leak, every)
                    wrong = false_findings(r)
                    n = len(r.doc["findings"])
                    true += n - len(wrong)
                    total += n
                    status = ""
                    if leak:
                        found, first, _ = planted_found(r)
                        status = ("found first" if found and first else
                                  "found, not first" if found else "NOT FOUND")
                    lines.append(f"  {pattern:15} {'leak ' if leak else 'clean'} every {every:3}: "
                                 f"{n:2} findings, {len(wrong):2} false {status:16} "
                                 f"({r.seconds:.2f} s)")
        precision = true / total if total else 1.0
        print(f"\nprecision over the suite: {true}/{total} = {precision:.3f}\n" +
              "\n".join(lines), file=sys.stderr)
        self.assertEqual(precision, 1.0, f"precision {true}/{total} = {precision:.3f}")


if __name__ == "__main__":
    unittest.main()
