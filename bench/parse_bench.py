#!/usr/bin/env python3
"""The snapshot reader's own tokenizer (src/core/fast_json.h) against simdjson (issue 17, item 4):
generates one snapshot of each size with vkleak_gen_run, then reads each with every mode of
vkleak_parse_bench (bench/parse_bench.cpp), interleaved, each run a fresh process under
/usr/bin/time -v, and prints wall time (min and median), the parse time inside the process
(median) and peak RSS (median) as a markdown table. Every mode must build the same model: the
digests of the model are compared and a mismatch stops the run (simdjson-dom, simdjson's parse
alone into its own DOM, builds no model: a lower bound for any reader built on simdjson).

    bench/parse_bench.py [--build build] [--sizes 1000,100000,1000000] [--repeat 7]
        [--modes reader,simdjson,simdjson-dom,reference] [--keep DIR]

vkleak_parse_bench is built only where libsimdjson-dev is installed (bench/CMakeLists.txt).
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def run_once(bench, mode, path):
    """(wall s, parse s, peak RSS KiB, digest) of one fresh process."""
    # Wall time from here (time -v prints it in 10 ms steps): the process, time's fork included.
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-v", bench, mode, path], capture_output=True,
                          text=True)
    wall_s = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{mode} {path} exited {proc.returncode}:\n{proc.stderr}")
    out = dict(kv.split("=", 1) for kv in proc.stdout.split())
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1))
    return wall_s, float(out["parse_s"]), rss, out["digest"]


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(root, "build"))
    ap.add_argument("--sizes", default="1000,100000,1000000")
    ap.add_argument("--repeat", type=int, default=7, help="runs per mode and size")
    ap.add_argument("--modes", default="reader,simdjson,simdjson-dom,reference")
    ap.add_argument("--keep", help="generate into this directory and keep it")
    args = ap.parse_args()

    bench = os.path.join(args.build, "bench/vkleak_parse_bench")
    gen = os.path.join(args.build, "tests/analysis/vkleak_gen_run")
    for tool in (bench, gen):
        if not os.access(tool, os.X_OK):
            sys.exit(f"{tool} not found: build it in a tree configured with "
                     "-DVKLEAK_BUILD_TESTS=ON -DVKLEAK_BUILD_BENCH=ON (cmake --build "
                     f"{args.build} --target vkleak_parse_bench vkleak_gen_run; the first needs "
                     "libsimdjson-dev)")
    modes = args.modes.split(",")
    out = args.keep or tempfile.mkdtemp(prefix="vkleak-parse-")
    try:
        rows = []
        print(f"machine: {os.cpu_count()} cores, load average at start "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        for size in (int(s) for s in args.sizes.split(",")):
            d = os.path.join(out, str(size))
            os.makedirs(d, exist_ok=True)
            subprocess.run([gen, d, "--objects", str(size), "--snapshots", "1"], check=True,
                           stdout=subprocess.DEVNULL)
            path = os.path.join(d, next(f for f in os.listdir(d) if f.endswith(".json")))
            mib = os.path.getsize(path) / 2**20
            runs = {m: [] for m in modes}
            for i in range(args.repeat):
                # Rotate the order every round so drifts in the machine's load hit every mode.
                for m in modes[i % len(modes):] + modes[:i % len(modes)]:
                    runs[m].append(run_once(bench, m, path))
            # simdjson-dom builds no model: it is only a lower bound.
            digests = {r[3] for m in modes if m != "simdjson-dom" for r in runs[m]}
            if len(digests) != 1:
                sys.exit(f"{size} objects: the modes built different models: {digests}")
            for m in modes:
                walls = [r[0] for r in runs[m]]
                rows.append((f"{size:,}", f"{mib:,.1f}", m, f"{min(walls):.3f}",
                             f"{statistics.median(walls):.3f}",
                             f"{statistics.median(r[1] for r in runs[m]):.3f}",
                             f"{statistics.median(r[2] for r in runs[m]) / 1024:,.1f}"))
        print(f"load average at end {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
              f"{args.repeat} runs per mode and size, interleaved; one model digest per size\n")
        header = ("objects", "file MiB", "mode", "wall s min", "wall s median",
                  "parse s median", "peak RSS MiB median")
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for r in rows:
            print("| " + " | ".join(r) + " |")
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
