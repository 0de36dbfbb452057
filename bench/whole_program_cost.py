#!/usr/bin/env python3
"""What the layer costs per frame in whole programs (vkcube, glmark2 through zink), measured in
ways that hold on a small shared machine. Not a timed test: it prints figures, judges nothing.

  bench/whole_program_cost.py instr [--build-dir build] [--apps vkcube,glmark2-zink]
      Instructions per frame under callgrind (deterministic, whatever else the machine runs),
      without and with the layer: two runs of each program, a short and a long one, and the
      difference over the difference in frames, so start-up and shutdown cancel out. Prints the
      whole process's instructions per frame (all threads: app, lavapipe's workers, the layer's),
      the difference with the layer, and the layer's own per frame: its library's instructions
      plus those of its calls into libc, libstdc++ and libunwind (not its calls down the chain).
      vkcube's frames are identical run to run, so the difference and the layer's own agree;
      glmark2 animates by the clock, so its frames (and lavapipe's rasterizing) differ between
      runs by about 1%: read the layer's own there. Slow (valgrind serializes threads): about
      15 minutes for both programs on 2 busy cores.
  bench/whole_program_cost.py share [--build-dir build] [--apps ...]
      One `perf record -e cpu-clock` run of each program without and with the layer: the share
      of samples in libVkLayer_vkleak.so, in the loader (libvulkan.so) and per thread. Sampling
      shares of one run move by about ±1% between runs for the big libraries; read the layer's
      own share, not differences of others'.
  bench/whole_program_cost.py wall [--build-dir build] [--apps ...] [--rounds 20]
      Wall time and CPU time per frame, no layer and the layer interleaved (the order
      alternating every round): the median, quartiles and range of the per-round ratios and of
      the ratios per pair of rounds (one in each order: cancels a bias for a position in the
      sequence), and the machine's load while it ran. On 2 cores shared with other work these
      scatter by several percent from run to run: take it when the machine is quiet, and hold
      a small budget to the instructions and sample shares instead.

Every process runs with the loader isolated as in compare.py (benchlib/configs.py base_env), the
layer from BUILD/manifest/build with its default settings (call sites at depth 8), windows on a
private Xvfb. Frames: vkcube's --c count; glmark2's frames are counted exactly under callgrind
(calls of glXSwapBuffers) and are its own FrameTime otherwise.
"""

import argparse
import collections
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib.configs import VKLEAK_LAYER, ZINK, base_env  # noqa: E402
from benchlib.measure import Xvfb, cpu_busy, run  # noqa: E402

LAYER_LIB = "libVkLayer_vkleak.so"
LOADER_LIB = "libvulkan.so"


class Program:
    def __init__(self, name, cmd, extra_env, frame_fn, short, long, wall_len):
        self.name = name
        self.cmd = cmd  # length -> argv
        self.extra_env = extra_env
        self.frame_fn = frame_fn  # the function called once a frame (counted under callgrind)
        self.short, self.long = short, long  # lengths of the two callgrind runs
        self.wall_len = wall_len  # length of a timed run


PROGRAMS = {
    "vkcube": Program("vkcube", lambda n: ["vkcube", "--c", str(n)], {}, None, 20, 220, 1000),
    # Under callgrind glmark2's first frame takes about 30 s (zink compiling its shaders) and
    # later ones about half a second: 40 s and 160 s are some 300 frames apart.
    "glmark2-zink": Program("glmark2-zink",
                            lambda n: ["glmark2", "-b", f"build:duration={n}"], dict(ZINK),
                            "glXSwapBuffers", 40, 160, 5),
}


def env_for(build, work, layer, extra, display):
    env = base_env(work)
    env.update(extra)
    env["DISPLAY"] = display
    env["XDG_RUNTIME_DIR"] = os.path.join(work, "runtime")  # some programs want one
    if layer:
        env["VK_LAYER_PATH"] = os.path.join(build, "manifest", "build")
        env["VK_INSTANCE_LAYERS"] = VKLEAK_LAYER
        env["VKLEAK_OUTPUT_DIR"] = os.path.join(work, "out")
    return env


# Libraries the layer calls for its own work (allocation, locks, unwinding), whose cost in those
# calls is the layer's. Its calls down the chain (the loader, the driver) are not.
RUNTIME_LIBS = ("libc.so", "libstdc++.so", "libunwind.so", "libgcc_s.so", "libm.so", "ld-linux")


def callgrind_costs(path, frame_fn, caller=None):
    """From a callgrind file: self instructions per object (library); the instructions the layer
    library spends in runtime libraries it calls (inclusive cost of those calls); and the calls
    of frame_fn made from the object named `caller` (the program: glXSwapBuffers has a second,
    inner function of the same name in Mesa)."""
    obs, fns = {}, {}
    ob = cob = cfn = None
    per_ob = collections.Counter()
    layer_runtime = 0
    calls = 0
    call_cost = None  # the cost line after calls= is that call's inclusive cost, not self cost
    with open(path, errors="replace") as f:
        for line in f:
            c = line[0]
            if c.isdigit() or c in "+-*":
                parts = line.split()
                if call_cost is not None:
                    if call_cost and len(parts) >= 2:
                        layer_runtime += int(parts[1])
                    call_cost = None
                    cob = None  # a call without cob= is into the caller's own object
                elif len(parts) >= 2:
                    per_ob[ob] += int(parts[1])
                continue
            m = re.match(r"(c?ob|c?fn)=\((\d+)\)(?: (.*))?", line.rstrip("\n"))
            if m:
                table = obs if m.group(1).endswith("ob") else fns
                if m.group(3):
                    table[m.group(2)] = m.group(3)
                name = table[m.group(2)]
                if m.group(1) == "ob":
                    ob = name
                elif m.group(1) == "cob":
                    cob = name
                elif m.group(1) == "cfn":
                    cfn = name
            elif line.startswith("calls="):
                callee = os.path.basename(cob) if cob else ""
                call_cost = bool(ob and os.path.basename(ob).startswith(LAYER_LIB) and
                                 callee.startswith(RUNTIME_LIBS))
                if frame_fn and cfn == frame_fn and (
                        caller is None or (ob and os.path.basename(ob) == caller)):
                    calls += int(line[6:].split()[0])
    return per_ob, layer_runtime, calls


def lib_share(per_ob, lib):
    return sum(v for k, v in per_ob.items() if k and os.path.basename(k).startswith(lib))


def cmd_instr(args, build, work, display):
    for name in args.apps:
        p = PROGRAMS[name]
        res = {}
        for layer in (False, True):
            for length in (p.short, p.long):
                out = os.path.join(work, f"{name}-{layer}-{length}.cg")
                env = env_for(build, work, layer, p.extra_env, display)
                r = run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] +
                        p.cmd(length), env, work, timeout=1800)
                if r.rc != 0:
                    sys.exit(f"{name} failed under callgrind:\n{r.stderr[-2000:]}")
                per_ob, runtime, calls = callgrind_costs(out, p.frame_fn, p.cmd(1)[0])
                frames = calls if p.frame_fn else length
                res[layer, length] = (sum(per_ob.values()), lib_share(per_ob, LAYER_LIB),
                                      lib_share(per_ob, LOADER_LIB), frames, runtime)
                os.remove(out)
                print(f"  {name} layer={layer} length={length}: frames {frames}, "
                      f"instructions {res[layer, length][0]:,}", file=sys.stderr, flush=True)

        def per_frame(layer, i):
            a, b = res[layer, p.short], res[layer, p.long]
            return (b[i] - a[i]) / (b[3] - a[3])

        base, with_layer = per_frame(False, 0), per_frame(True, 0)
        own = per_frame(True, 1) + per_frame(True, 4)
        print(f"{name}: instructions per frame (all threads), frames "
              f"{res[False, p.short][3]}/{res[False, p.long][3]} without the layer, "
              f"{res[True, p.short][3]}/{res[True, p.long][3]} with it")
        print(f"  no layer        {base:14,.0f}")
        varies = "; its frames follow the clock and differ between runs" if p.frame_fn else ""
        print(f"  vkleak          {with_layer:14,.0f}  ({100 * (with_layer / base - 1):+.2f}%"
              f"{varies})")
        print(f"  layer's own     {own:14,.0f}  ({100 * own / base:.2f}% of the no-layer frame: "
              f"library {per_frame(True, 1):,.0f}, its calls into libc/libstdc++/libunwind "
              f"{per_frame(True, 4):,.0f})")
        print(f"  loader          {per_frame(False, 2):14,.0f} -> {per_frame(True, 2):,.0f}")
        print(f"  start+shutdown  {res[False, p.short][0]:14,} -> {res[True, p.short][0]:,} "
              f"(the whole short run)")


def perf_shares(data, key):
    rep = subprocess.run(["perf", "report", "-i", data, "--sort", key, "--stdio"],
                         capture_output=True, text=True).stdout
    rows = []
    for line in rep.splitlines():
        m = re.match(r"\s*([0-9.]+)%\s+(.*\S)", line)
        if m:
            rows.append((float(m.group(1)), m.group(2)))
    return rows


def cmd_share(args, build, work, display):
    for name in args.apps:
        p = PROGRAMS[name]
        for layer in (False, True):
            data = os.path.join(work, f"{name}-{layer}.perf")
            env = env_for(build, work, layer, p.extra_env, display)
            r = run(["perf", "record", "-e", "cpu-clock", "-F", "10000", "-o", data] +
                    p.cmd(p.wall_len), env, work, timeout=600)
            if r.rc != 0:
                sys.exit(f"{name} failed under perf:\n{r.stderr[-2000:]}")
            print(f"{name} {'vkleak' if layer else 'no layer'}: share of cpu-clock samples")
            dsos = perf_shares(data, "dso")
            for lib in (LAYER_LIB, LOADER_LIB):
                share = sum(s for s, d in dsos if d.startswith(lib))
                print(f"  {lib:24} {share:6.2f}%")
            print("  per thread:        " +
                  ", ".join(f"{c} {s:.1f}%" for s, c in perf_shares(data, "comm")))
            if layer:
                rows = [(s, k) for s, k in perf_shares(data, "comm,dso") if LAYER_LIB in k]
                print("  layer per thread:  " + ", ".join(f"{k.split()[0]} {s:.2f}%"
                                                         for s, k in rows))
            os.remove(data)


def cmd_wall(args, build, work, display):
    glmark_re = re.compile(r"FrameTime:\s*([0-9.]+)\s*ms")
    for name in args.apps:
        p = PROGRAMS[name]
        ratios = {"wall": [], "cpu": []}
        busy = []
        loads = []
        for rnd in range(args.rounds):
            per = {}
            order = (False, True) if rnd % 2 == 0 else (True, False)
            for layer in order:
                env = env_for(build, work, layer, p.extra_env, display)
                busy.append(cpu_busy(0.5))  # other processes' load just before the run
                with open("/proc/loadavg") as f:
                    loads.append(float(f.read().split()[0]))
                r = run(p.cmd(p.wall_len), env, work, timeout=600)
                if r.rc != 0:
                    sys.exit(f"{name} failed:\n{r.stderr[-2000:]}")
                if p.frame_fn:  # glmark2: its own frame time; CPU over its frames
                    ms = float(glmark_re.search(r.stdout).group(1))
                    frames = p.wall_len * 1e3 / ms
                else:
                    frames = p.wall_len
                    ms = 1e3 * r.wall_s / frames
                per[layer] = (ms, 1e3 * r.cpu_s / frames)
            ratios["wall"].append(per[True][0] / per[False][0])
            ratios["cpu"].append(per[True][1] / per[False][1])
            print(f"  {name} round {rnd}: ms/frame {per[False][0]:.3f} -> {per[True][0]:.3f}, "
                  f"CPU ms/frame {per[False][1]:.3f} -> {per[True][1]:.3f}", file=sys.stderr,
                  flush=True)
        print(f"{name}: {args.rounds} rounds, vkleak / no layer")

        def summary(label, v):
            q = statistics.quantiles(v, n=4) if len(v) > 1 else [v[0]] * 3
            print(f"  {label:22} median {statistics.median(v):.3f}x  quartiles "
                  f"{q[0]:.3f}-{q[2]:.3f}  range {min(v):.3f}-{max(v):.3f}")

        for k, v in ratios.items():
            summary(f"{k} per round", v)
            # Two consecutive rounds ran the two configurations in both orders: their geometric
            # mean cancels whatever favours a position in the sequence (in one run here every
            # other vkcube process ran ~20% slower, whichever configuration it was).
            pairs = [(v[i] * v[i + 1]) ** 0.5 for i in range(0, len(v) - 1, 2)]
            if pairs:
                summary(f"{k} per pair of rounds", pairs)
        print(f"  other load before runs: CPU busy median {100 * statistics.median(busy):.0f}% "
              f"(max {100 * max(busy):.0f}%), loadavg {min(loads):.2f}-{max(loads):.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=["instr", "share", "wall"])
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--apps", default="vkcube,glmark2-zink")
    ap.add_argument("--rounds", type=int, default=20)
    args = ap.parse_args()
    args.apps = args.apps.split(",")
    build = os.path.abspath(args.build_dir)
    if not os.path.exists(os.path.join(build, "manifest", "build")):
        sys.exit(f"no layer manifest in {build}/manifest/build: build the layer first")
    with tempfile.TemporaryDirectory() as work, Xvfb() as xvfb:
        if not xvfb.display:
            sys.exit("Xvfb did not start")
        for d in ("runtime", "out", "xdg-empty"):
            os.makedirs(os.path.join(work, d), mode=0o700)
        {"instr": cmd_instr, "share": cmd_share, "wall": cmd_wall}[args.mode](
            args, build, work, xvfb.display)


if __name__ == "__main__":
    main()
