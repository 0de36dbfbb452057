#!/usr/bin/env python3
"""Two builds of the layer and no layer, interleaved round-robin (order rotated each round),
under one vkleak_bench: for a hot-path change, before/after on this noisy shared machine.

  bench/ab_interleave.py BEFORE_BUILD AFTER_BUILD ROUNDS FILTER [vkleak_bench flags...]

AB_PIN_CPU=N runs every process on CPU N alone (taskset): on a many-core machine whose cores
differ in speed from call to call (the GPU host), so that rounds compare like with like.

A build written passthrough:BUILD runs that layer passing calls through only
(VKLEAK_BENCH_PASSTHROUGH=1): the physical limit of a layer, for "where the nanoseconds go".

The benchmark program is AFTER_BUILD's. Prints, per benchmark, the median CPU time per iteration
(thread benchmarks: wall time per item of the aggregate) and the median and range of the
per-round ratios to no layer. Call sites at the layer's default depth. On lavapipe unless
VK_DRIVER_FILES names another driver (bench/gpu/ab_on_device.sh: a real GPU), whose libraries
LD_LIBRARY_PATH may point at.
"""
import os, statistics, sys
from benchlib.interleave import Interleave
def build_of(arg):  # (directory, passthrough?)
    return (os.path.abspath(arg[len("passthrough:"):]), True) if arg.startswith("passthrough:") \
        else (os.path.abspath(arg), False)
(before, before_pt), (after, after_pt) = build_of(sys.argv[1]), build_of(sys.argv[2])
runner = Interleave(f"{after}/bench/vkleak_bench", "vkleak-ab-")
def layer(d, passthrough):
    return runner.layer(d, **({"VKLEAK_BENCH_PASSTHROUGH": "1"} if passthrough else {}))
configs = {"none": {}, "before": layer(before, before_pt), "after": layer(after, after_pt)}
res = runner.run(configs, int(sys.argv[3]), sys.argv[4], sys.argv[5:])
for n, d in res.items():
    none = d.get("none")
    line = f"{n:70s}"
    for c in configs:
        v = d.get(c)
        if not v: continue
        med = statistics.median(v)
        ratios = [x / y for x, y in zip(v, none)] if none else []
        line += f" {c}: {med:8.1f} ns" + (f" ({statistics.median(ratios):.2f}x, {min(ratios):.2f}-{max(ratios):.2f})" if c != "none" else "")
    print(line)
