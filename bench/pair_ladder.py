#!/usr/bin/env python3
"""Where a pair's nanoseconds go, in time: one layer build run as a ladder of configurations,
each adding one part of the layer's work, interleaved round-robin under one vkleak_bench (order
rotated each round), with no layer as the reference.

  bench/pair_ladder.py BUILD ROUNDS FILTER [vkleak_bench flags...]

Rungs: none; passthrough (the layer loaded, passing calls through: the physical limit);
tracking (records, tables, graveyard; no call sites: VKLEAK_CALLSTACK_DEPTH=0); creation call
sites (depth 8, destroy stacks off); the default (depth 8 and destroy stacks). EXTRA_BUILD=DIR
adds a last rung: that build at the default settings (e.g. an experiment). Prints per benchmark
the median CPU time per iteration, its ratio to no layer (median and range of per-round ratios),
and what each rung adds over the one before (median of per-round differences). AB_PIN_CPU as in
ab_interleave.py.
"""
import os, statistics, sys
from benchlib.interleave import Interleave

build = os.path.abspath(sys.argv[1])
runner = Interleave(f"{build}/bench/vkleak_bench", "vkleak-ladder-")
layer = runner.layer
rungs = {
    "none": {},
    "passthrough": layer(build, VKLEAK_BENCH_PASSTHROUGH="1"),
    "tracking": layer(build, VKLEAK_CALLSTACK_DEPTH="0"),
    "create-stacks": layer(build, VKLEAK_DESTROY_CALLSTACKS="false"),
    "default": layer(build),
}
if os.environ.get("EXTRA_BUILD"):
    rungs["extra"] = layer(os.path.abspath(os.environ["EXTRA_BUILD"]))
names = list(rungs)
res = runner.run(rungs, int(sys.argv[2]), sys.argv[3], sys.argv[4:])
for n, d in res.items():
    print(n)
    none = d["none"]
    prev = None
    for c in names:
        v = d.get(c)
        if not v: continue
        ratios = [x / y for x, y in zip(v, none)]
        line = f"  {c:14s} {statistics.median(v):8.1f} ns  {statistics.median(ratios):5.2f}x ({min(ratios):.2f}-{max(ratios):.2f})"
        if prev is not None and c != "extra":
            line += f"  +{statistics.median([x - y for x, y in zip(v, d[prev])]):6.1f} ns over {prev}"
        print(line)
        if c != "extra": prev = c
