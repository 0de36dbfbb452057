#!/usr/bin/env python3
"""Precision and recall of vkleak's findings over a corpus of runs: precision = true findings /
all findings, recall = planted leaks found / planted leaks.

    bench/precision.py CORPUS_DIR --vkleak build/bin/vkleak [--vkleak OTHER ...] [--json OUT]

CORPUS_DIR holds one snapshot directory per run, named as the precision tests name them
(VKLEAK_PRECISION_CORPUS=DIR python3 -m unittest test_precision_scenarios test_recall_twins
test_precision_real in tests/integration): `scen-<pattern>[-leak][-f<frames>]-every<N>`,
`<program>-<variant>-every<N>`. Each vkleak given reports every run; a finding is true when TRUTH
below says so for that run, and a planted leak (a `scen-...-leak-` run: the buggy twin of a
correct program) is found when one of its findings is true. Prints one row per program
(findings, false ones, planted leaks found), a table per cadence and run length, and the
precision and recall per vkleak, so that two builds (before and after a change) compare on the
same snapshots.
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys

# What is true, by run name. A finding is true when its (kind, object_type) is listed and its
# name pattern or innermost function matches the regex (None: any). Runs matching no entry are
# correct programs: every finding there is false.
Truth = collections.namedtuple("Truth", "kinds types where")
SET_KINDS = {"stale_view", "growth", "retained", "leak_at_exit"}
TRUTH = [
    # Known leaks of third-party programs, confirmed by the validation layer or by their design.
    (r"^glmark2-", Truth({"leak_at_exit"}, {"VkImage", "VkImageView", "VkDeviceMemory"}, None)),
    (r"^mpv-", Truth({"leak_at_exit"}, {"VkInstance"}, None)),
    (r"^gfxrecon-replay-", Truth({"destroyed_in_flight"}, {"VkCommandBuffer"}, None)),
    # Planted leaks of tests/scenarios/precision_patterns.cpp.
    (r"^scen-resize_targets-leak-", Truth({"leak_at_exit", "stale_view", "growth", "retained"},
                                          {"VkImageView"}, r"rt\.depth\.")),
    (r"^scen-emitters-leak-", Truth({"leak_at_exit", "growth", "retained"}, {"VkBuffer"},
                                    r"emitter\.")),
    (r"^scen-texture_cache-leak-", Truth({"leak_at_exit", "growth", "retained"}, {"VkImage"},
                                         r"tex\.")),
    (r"^scen-deletion_queue-leak-", Truth({"leak_at_exit", "growth", "retained"}, {"VkBuffer"},
                                          r"transient\.instances\.")),
    (r"^scen-buffer_factory-leak-", Truth({"leak_at_exit", "growth", "retained"}, {"VkBuffer"},
                                          r"frame\.draws\.")),
    (r"^scen-job_plateau-leak-", Truth({"leak_at_exit", "growth", "retained"}, {"VkBuffer"},
                                       r"job\.staging\.")),
    # Planted descriptor-set leaks (issue 36): sets in pools that live until exit.
    (r"^scen-rare_path_sets-leak-", Truth(SET_KINDS, {"VkDescriptorSet"}, r"rare\.paused\.")),
    (r"^scen-webgpu_bindgroups-leak-", Truth(SET_KINDS, {"VkDescriptorSet", "VkDescriptorPool"},
                                             r"wgpu\.(set|pool)\.")),
    (r"^scen-gallery-leak-", Truth(SET_KINDS, {"VkDescriptorSet"}, r"gallery\.set\.")),
    (r"^scen-job_batches-leak-", Truth(SET_KINDS, {"VkDescriptorSet"}, r"batch\.\*\.job\.")),
    (r"^scen-scene_cache-leak-", Truth(SET_KINDS, {"VkDescriptorSet"}, r"scene\.\*\.set")),
]


def truth_of(run):
    for pattern, truth in TRUTH:
        if re.search(pattern, run):
            return truth
    return None


def is_true(finding, truth):
    if truth is None or finding["kind"] not in truth.kinds:
        return False
    if finding["object_type"] not in truth.types:
        return False
    if truth.where is None:
        return True
    return bool(re.search(truth.where, finding.get("name_pattern") or "") or
                re.search(truth.where, finding.get("function") or ""))


def program_of(run):
    """The run's program: its name without the cadence and the variant's numbers."""
    return re.sub(r"-every\d+$", "", run)


def cadence_of(run):
    """(every, frames) of a run: frames from `-f<frames>`, '-' where the name has none."""
    every = int(re.search(r"-every(\d+)$", run).group(1))
    frames = re.search(r"-f(\d+)-every\d+$", run)
    return every, frames.group(1) if frames else "-"


def ratio(good, total):
    return good / total if total else 1.0


def report(vkleak, path):
    proc = subprocess.run([vkleak, "report", path, "--format", "json"], capture_output=True,
                          text=True, timeout=600, env={**os.environ, "DEBUGINFOD_URLS": ""})
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{vkleak} report {path} exited {proc.returncode}: {proc.stderr[-500:]}")
    return json.loads(proc.stdout)["findings"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--vkleak", action="append", required=True, help="repeatable: compared")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    runs = sorted(d for d in os.listdir(args.corpus)
                  if os.path.isdir(os.path.join(args.corpus, d)) and re.search(r"-every\d+$", d))
    if not runs:
        raise SystemExit(f"no runs (<name>-every<N>/) in {args.corpus}")
    results = {}
    for vk in args.vkleak:
        rows = collections.OrderedDict()
        cadences = {}
        for i, run in enumerate(runs):
            print(f"\r{vk}: {i + 1}/{len(runs)} runs", end="", file=sys.stderr, flush=True)
            truth = truth_of(run)
            row = rows.setdefault(program_of(run), {"runs": 0, "findings": 0, "false": 0,
                                                    "planted_runs": 0, "planted_found": 0})
            row["runs"] += 1
            findings = report(vk, os.path.join(args.corpus, run))
            true = [f for f in findings if is_true(f, truth)]
            row["findings"] += len(findings)
            row["false"] += len(findings) - len(true)
            planted = run.startswith("scen-") and "-leak-" in run
            if planted:
                row["planted_runs"] += 1
                row["planted_found"] += 1 if true else 0
            c = cadences.setdefault("%s/%s" % cadence_of(run), {
                "findings": 0, "false": 0, "planted_runs": 0, "planted_found": 0})
            c["findings"] += len(findings)
            c["false"] += len(findings) - len(true)
            c["planted_runs"] += 1 if planted else 0
            c["planted_found"] += 1 if planted and true else 0
        print(file=sys.stderr)
        total = sum(r["findings"] for r in rows.values())
        false = sum(r["false"] for r in rows.values())
        planted = sum(r["planted_runs"] for r in rows.values())
        found = sum(r["planted_found"] for r in rows.values())
        results[vk] = {"rows": rows, "cadences": cadences, "findings": total, "false": false,
                       "precision": ratio(total - false, total), "planted": planted,
                       "found": found, "recall": ratio(found, planted)}
    width = max(len(p) for p in results[args.vkleak[0]]["rows"])
    header = f"{'program':<{width}}  runs" + "".join(
        f"  | findings  false  planted found ({i + 1})" for i in range(len(args.vkleak)))
    print(header)
    for program in results[args.vkleak[0]]["rows"]:
        line = f"{program:<{width}}  {results[args.vkleak[0]]['rows'][program]['runs']:4}"
        for vk in args.vkleak:
            r = results[vk]["rows"][program]
            planted = (f"{r['planted_found']}/{r['planted_runs']}" if r["planted_runs"] else "-")
            line += f"  | {r['findings']:8}  {r['false']:5}  {planted:>13}"
        print(line)
    print()
    print("every/frames" + "".join(f"  | precision  recall ({i + 1})"
                                   for i in range(len(args.vkleak))))
    keys = sorted(results[args.vkleak[0]]["cadences"],
                  key=lambda k: (int(k.split("/")[0]), k.split("/")[1]))
    for key in keys:
        line = f"{key:<12}"
        for vk in args.vkleak:
            c = results[vk]["cadences"][key]
            recall = (f"{c['planted_found']}/{c['planted_runs']}" if c["planted_runs"] else "-")
            line += (f"  | {ratio(c['findings'] - c['false'], c['findings']):9.3f}  "
                     f"{recall:>6}    ")
        print(line)
    for i, vk in enumerate(args.vkleak):
        r = results[vk]
        print(f"({i + 1}) {vk}: {r['findings']} findings, {r['false']} false, precision "
              f"{r['precision']:.3f}; {r['found']}/{r['planted']} planted leaks found, recall "
              f"{r['recall']:.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
