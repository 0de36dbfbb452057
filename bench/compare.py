#!/usr/bin/env python3
"""Side-by-side benchmarks of vkleak against no layer and the validation layer.

Builds the benchmarks (unless --no-build), then, for several rounds, runs every benchmark group
and every whole program once under each layer configuration, round-robin (the order of the
configurations rotates every round), so slow drifts of a shared 2-core machine hit every
configuration alike. Each figure is the median over the rounds; each ratio is the median of the
per-round ratios to "none" (the same round's run without a layer). Writes RESULTS.md with the
budgets met or missed.

    bench/compare.py [--quick] [--build-dir DIR] [--no-build] [--out FILE] [--rounds N]

Standard library only. See bench/README.md. The parts live in bench/benchlib/: configs (the
layer configurations and their environments), measure (running and parsing), model (the
results and their statistics), render (RESULTS.md, one function per section).
"""

import argparse
import datetime
import json
import os
import shlex
import shutil
import sys
import time

from benchlib.configs import HERE, REPO, config_env, make_configs
from benchlib.measure import (QuietGate, Xvfb, bench_args, build, log, make_apps,
                              parse_benchmarks, run)
from benchlib.model import GROUPS, Results
from benchlib.render import layer_source, render


def rerender(args):
    with open(args.from_raw) as f:
        raw = json.load(f)
    args.quick, args.rounds = raw["quick"], raw["rounds"]
    res = Results()
    res.bench, res.apps, res.failures = raw["bench"], raw["apps"], raw["failures"]
    gate = QuietGate(0, 0)
    gate.__dict__.update(raw["gate"])
    res.gate = gate
    configs = [c for c in make_configs(args.build_dir) if c.name in raw["probes"]]
    app_configs = [n for n in ("none", "vkleak", "validation-default") if n in raw["probes"]]
    apps = [a for a in make_apps(args.build_dir, args.quick, app_configs)
            if a.name in raw["apps_list"]]
    sys.argv = [sys.argv[0]] + raw["argv"]  # the report shows the measuring command
    text = render(res, configs, apps, args, raw["probes"], raw["commands"], raw["elapsed_s"],
                  date=datetime.datetime.fromisoformat(raw["date"]), layer=raw["layer"])
    with open(args.out, "w") as f:
        f.write(text)
    log(f"wrote {args.out} from {args.from_raw}")
    return 0


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="smoke mode: tiny sizes and one round (CI), no meaningful figures")
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build"),
                    help="CMake build tree (configured here when it does not exist)")
    ap.add_argument("--no-build", action="store_true", help="use the build tree as it is")
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS.md"), help="report to write")
    ap.add_argument("--rounds", type=int, help="rounds (default 5, --quick 1)")
    ap.add_argument("--configs", help="comma-separated subset of the configurations")
    ap.add_argument("--groups", help="comma-separated subset of: pairs,frame,snapshot,memory,"
                                     "memory-bound,apps")
    ap.add_argument("--work-dir", help="scratch directory (default: <build>/bench/work)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--from-raw", metavar="JSON",
                    help="only re-render the report from the raw data a run saved next to its "
                         "report (<out>.json)")
    ap.add_argument("--max-wait", type=float, default=10.0,
                    help="seconds to wait, before each run, for other processes' load to drop "
                         "below 25%% of the CPUs (0: never wait; --quick never waits)")
    ap.add_argument("--max-total-wait", type=float, default=300.0,
                    help="seconds of such waiting in the whole run, at most")
    args = ap.parse_args()
    args.build_dir = os.path.abspath(args.build_dir)
    args.out = os.path.abspath(args.out)
    if args.rounds is None:
        args.rounds = 1 if args.quick else 5
    return args


class Scratch:
    """The work directory, and a fresh snapshot directory for each process."""

    def __init__(self, work):
        self.work = work

    def output_dir(self):
        d = os.path.join(self.work, "snapshots")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        return d


def probe_configs(configs, probe_bin, scratch):
    """Probes every configuration: a misconfigured comparison is worse than none."""
    work = scratch.work
    probes = {}
    for c in configs:
        r = run([probe_bin], config_env(c, work, scratch.output_dir()), work, 120)
        line = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
        try:
            p = json.loads(line)
        except ValueError:
            sys.exit(f"compare.py: probe failed under {c.name} (exit {r.rc}):\n{r.stderr[-2000:]}")
        flat = dict(p, **p.get("messages", {}))
        wrong = {k: (flat.get(k), v) for k, v in c.expect.items() if flat.get(k) != v}
        if wrong:
            sys.exit(f"compare.py: configuration {c.name} is not what it claims: "
                     f"{ {k: f'got {g}, want {w}' for k, (g, w) in wrong.items()} }")
        probes[c.name] = p
        log(f"probe {c.name}: {line}")
    return probes


def command_lines(groups, apps, common, build_dir):
    """The commands as RESULTS.md shows them."""
    commands = []
    for g in GROUPS:
        if g.name in groups:
            commands.append(" ".join(["<build>/bench/vkleak_bench"] + common +
                                     [f"'--benchmark_filter={g.regex}'"]) +
                            ("   # vkleak configurations only" if g.vkleak_only else ""))
    for app in apps:
        prefix = " ".join(f"{k}={v}" for k, v in app.extra_env.items())
        commands.append(((prefix + " ") if prefix else "") +
                        " ".join(shlex.quote(a) for a in app.cmd).replace(build_dir, "<build>") +
                        ("   # DISPLAY=<Xvfb>" if app.needs_display else ""))
    return commands


def measure_group(res, g, c, rnd, args, bench_bin, common, scratch, gate):
    """One vkleak_bench process: group g under configuration c in round rnd."""
    work = scratch.work
    json_out = os.path.join(work, f"{g.name}-{c.name}-{rnd}.json")
    cmd = [bench_bin] + common + [f"--benchmark_filter={g.regex}",
                                  f"--benchmark_out={json_out}",
                                  "--benchmark_out_format=json",
                                  "--benchmark_format=console"]
    log(f"[round {rnd + 1}/{args.rounds}] {g.name} / {c.name}")
    env = config_env(c, work, scratch.output_dir())
    gate.wait()
    r = run(cmd, env, work, 900)
    parsed = None
    if r.rc == 0 and os.path.exists(json_out):
        parsed, ctx = parse_benchmarks(json_out)
        res.context = res.context or ctx
        # Skips are expected only where a benchmark says so (snapshot without
        # vkleak); an empty or failed result means the harness rotted.
        broken = [f"{n}: {e['error']}" for n, e in parsed.items() if "error" in e]
        if not parsed or broken:
            res.failures.append(f"{g.name} under {c.name}, round {rnd + 1}: "
                                f"{'; '.join(broken) or 'no benchmark ran'}")
            log(res.failures[-1])
    else:
        res.failures.append(f"{g.name} under {c.name}, round {rnd + 1}: exit "
                            f"{r.rc}: {r.stderr.strip()[-500:]}")
        log(res.failures[-1])
    res.bench.setdefault(g.name, {}).setdefault(c.name, []).append(parsed)


def measure_app(res, app, c, rnd, args, scratch, gate, display):
    """One run of a whole program under configuration c in round rnd."""
    work = scratch.work
    env = config_env(c, work, scratch.output_dir())
    env.update(app.extra_env)
    if app.needs_display:
        env["DISPLAY"] = display
    log(f"[round {rnd + 1}/{args.rounds}] {app.name} / {c.name}")
    gate.wait()
    r = run(app.cmd, env, work, 600)
    metric = app.measure(r)
    if metric is None:
        res.failures.append(f"{app.name} under {c.name}, round {rnd + 1}: exit "
                            f"{r.rc}: {(r.stderr or r.stdout).strip()[-500:]}")
        log(res.failures[-1])
    res.apps.setdefault(app.name, {}).setdefault(c.name, []).append(metric)


def measure_rounds(res, args, configs, groups, apps, bench_bin, common, scratch, gate):
    """Every round: each group, then each program, under every configuration in turn (the order
    rotated every round). Returns the programs that ran (windowed ones drop out without Xvfb)."""
    work = scratch.work
    with Xvfb() as xvfb:
        if apps and any(a.needs_display for a in apps) and not xvfb.display:
            res.failures.append("Xvfb did not start: windowed programs skipped")
            apps = [a for a in apps if not a.needs_display]
        # One unmeasured run of each program first: the first run after a while pays for cold
        # page cache (LLVM, Mesa) and a fresh X server, whichever configuration it is.
        if not args.quick:
            for app in apps:
                env = config_env(configs[0], work, scratch.output_dir())
                env.update(app.extra_env)
                if app.needs_display:
                    env["DISPLAY"] = xvfb.display
                log(f"warm-up: {app.name}")
                run(app.cmd, env, work, 600)
        for rnd in range(args.rounds):
            order = configs[rnd % len(configs):] + configs[:rnd % len(configs)]
            for g in GROUPS:
                if g.name not in groups:
                    continue
                for c in order:
                    if g.vkleak_only and not c.vkleak:
                        continue
                    measure_group(res, g, c, rnd, args, bench_bin, common, scratch, gate)
            for app in apps:
                for c in order:
                    if c.name not in app.configs:
                        continue
                    measure_app(res, app, c, rnd, args, scratch, gate, xvfb.display)
    return apps


def main():
    args = parse_args()
    t_start = time.monotonic()
    if args.from_raw:
        return rerender(args)

    if not args.no_build:
        build(args.build_dir, args.jobs)
    # Now, not at the end: the source tree may change while the run measures what was built.
    layer = layer_source(args.build_dir)
    bench_bin = os.path.join(args.build_dir, "bench", "vkleak_bench")
    probe_bin = os.path.join(args.build_dir, "bench", "vkleak_bench_probe")
    for b in (bench_bin, probe_bin):
        if not os.access(b, os.X_OK):
            sys.exit(f"compare.py: {b} not built (drop --no-build, or build target "
                     f"{os.path.basename(b)})")

    configs = make_configs(args.build_dir)
    if args.configs:
        wanted = args.configs.split(",")
        configs = [c for c in configs if c.name in wanted or c.name == "none"]
    names = [c.name for c in configs]
    groups = set((args.groups or ",".join([g.name for g in GROUPS] + ["apps"])).split(","))

    work = os.path.abspath(args.work_dir or os.path.join(args.build_dir, "bench", "work"))
    if os.path.commonpath([work, args.out]) == work:
        sys.exit("compare.py: --out must not be inside --work-dir (removed at the end)")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "xdg-empty"))
    scratch = Scratch(work)
    res = Results()

    probes = probe_configs(configs, probe_bin, scratch)
    app_configs = [n for n in ("none", "vkleak", "validation-default") if n in names]
    apps = make_apps(args.build_dir, args.quick, app_configs) if "apps" in groups else []
    common = bench_args(args.quick)
    commands = command_lines(groups, apps, common, args.build_dir)

    gate = QuietGate(0 if args.quick else args.max_wait, args.max_total_wait)
    apps = measure_rounds(res, args, configs, groups, apps, bench_bin, common, scratch, gate)

    res.gate = gate
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    raw = os.path.splitext(args.out)[0] + ".json"
    with open(raw, "w") as f:
        json.dump({"bench": res.bench, "apps": res.apps, "failures": res.failures,
                   "probes": probes, "commands": commands, "apps_list": [a.name for a in apps],
                   "gate": vars(gate), "elapsed_s": time.monotonic() - t_start,
                   "argv": sys.argv[1:], "date": datetime.datetime.now().astimezone().isoformat(),
                   "layer": layer, "quick": args.quick,
                   "rounds": args.rounds}, f, indent=1)
    text = render(res, configs, apps, args, probes, commands, time.monotonic() - t_start,
                  layer=layer)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)
    log(f"wrote {args.out} ({(time.monotonic() - t_start) / 60:.1f} min)")
    shutil.rmtree(work, ignore_errors=True)
    return 1 if res.failures else 0


if __name__ == "__main__":
    sys.exit(main())
