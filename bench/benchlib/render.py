"""RESULTS.md from a run's results: one function per section of the report, each returning its
lines; the budget table is made of one row builder per budget."""

import datetime
import os
import platform
import re
import shlex
import subprocess
import sys

from benchlib.configs import REPO, env_text
from benchlib.model import app_ratio, app_series, machine_busy, median, spread


# ---------------------------------------------------------------------------------------------
# Formatting and verdicts


def fmt_ns(ns):
    if ns is None:
        return "–"
    if ns >= 1e9:
        return f"{ns / 1e9:.2f} s"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e4:
        return f"{ns / 1e3:.1f} µs"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.1f} ns"


def ratio_range(ratios):
    """"(rounds a–b)": the per-round ratios' range, to judge a median against the noise."""
    values = [v for v in ratios if v is not None]
    if len(values) < 2:
        return ""
    return f"(rounds {min(values):.2f}–{max(values):.2f})"


def with_range(r, ratios):
    return " ".join(x for x in (fmt_ratio(r), ratio_range(ratios)) if x)


def fmt_ratio(r):
    return "–" if r is None else f"{r:.2f}x"


def fmt_num(v, digits=1):
    return "–" if v is None else f"{v:,.{digits}f}"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def verdict(ok, basis=""):
    if ok is None:
        return "–"
    return ("**met**" if ok else "**MISSED**") + (f" ({basis})" if basis else "")


INCONCLUSIVE = "inconclusive (noise)"


def threads_verdict(ratios, busy):
    """Other load can only hold scaling back: on a busy machine, rounds that all scale are a
    pass; otherwise the question stays open."""
    values = [v for v in ratios if v is not None]
    if not values:
        return verdict(None)
    if not busy:
        return verdict(median(values) >= 1.0)
    return verdict(True, "every round") if min(values) >= 1.0 else \
        "inconclusive (busy machine)"


def frame_verdict(r, ratios, busy, budget=1.03):
    """A 3% budget judged on a busy machine only when every round agrees."""
    values = [v for v in ratios if v is not None]
    if r is None or not values:
        return verdict(None)
    if not busy:
        return verdict(r <= budget)
    if max(values) <= budget:
        return verdict(True, "every round")
    if min(values) > budget:
        return verdict(False, "every round")
    return INCONCLUSIVE


# ---------------------------------------------------------------------------------------------
# The run's context


def machine_description(probe):
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M)
            cpu = m.group(1).strip() if m else cpu
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            m = re.search(r"^MemTotal:\s*(\d+)", f.read(), re.M)
            mem = f"{int(m.group(1)) / 1024 / 1024:.0f} GiB RAM" if m else ""
    except OSError:
        pass

    def pkg(name):
        p = subprocess.run(["dpkg-query", "-W", "-f=${Version}", name], capture_output=True,
                           text=True)
        return p.stdout.strip() if p.returncode == 0 else "?"

    os_name = ""
    try:
        with open("/etc/os-release") as f:
            m = re.search(r'^PRETTY_NAME="?([^"\n]*)', f.read(), re.M)
            os_name = m.group(1) if m else ""
    except OSError:
        pass
    return [
        f"CPU: {cpu}, {os.cpu_count()} cores, {mem}",
        f"OS: {os_name}, Linux {platform.release()}",
        f"Driver: {probe.get('device', '?')} — {probe.get('driver', '?')}",
        f"Vulkan loader {pkg('libvulkan1')}, validation layers {pkg('vulkan-validationlayers')}, "
        f"Google Benchmark {pkg('libbenchmark-dev')}",
    ]


def layer_source(build):
    """Which layer source was measured: the build's source tree, its commit, and whether the
    layer had uncommitted changes."""
    src = REPO
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            cache = f.read()
        m = re.search(r"^VKLEAK_LAYER_SRC:\w+=(.*)$", cache, re.M) or \
            re.search(r"^CMAKE_HOME_DIRECTORY:\w+=(.*)$", cache, re.M)
        if m:
            src = m.group(1).strip()
    except OSError:
        pass
    p = subprocess.run(["git", "-C", src, "describe", "--always", "--dirty"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return f"`{src}` (not a git checkout)"
    changed = subprocess.run(["git", "-C", src, "status", "--porcelain", "--", "layer"],
                             capture_output=True, text=True).stdout.strip()
    state = "uncommitted changes in layer/" if changed else "layer/ as committed"
    return f"`{src}` at {p.stdout.strip()} ({state}, when the run started)"


NOTES_BEGIN = "<!-- notes: kept by compare.py when it rewrites this file -->"
NOTES_END = "<!-- end of notes -->"


def kept_notes(path):
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None
    i, j = text.find(NOTES_BEGIN), text.find(NOTES_END)
    return text[i:j + len(NOTES_END)] if i >= 0 and j > i else None


def live_of(name):
    """The `live:N` argument of a benchmark name, or None."""
    m = re.search(r"/live:(\d+)", name)
    return int(m.group(1)) if m else None


def live_label(n):
    return f"{n // 1000000}M" if n >= 1000000 and n % 1000000 == 0 else (
        f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else str(n))


# ---------------------------------------------------------------------------------------------
# The report


def render(res, configs, apps, args, probes, commands, elapsed_s, date=None, layer=None):
    names = [c.name for c in configs]
    vk = [c.name for c in configs if c.vkleak]
    busy = machine_busy(res)
    out = []
    out += header_section(res, args, probes, elapsed_s, date, layer)
    out += budgets_section(res, names, vk, apps, args.quick, busy)
    out += configurations_section(configs, probes, args.build_dir)
    out += micro_section(res, names, vk)
    out += programs_section(res, apps)
    out += commands_section(commands)
    out += failures_section(res)
    notes = kept_notes(args.out)
    out.append(notes if notes else
               f"{NOTES_BEGIN}\n## Notes\n\n(Profile findings and remarks go here.)\n{NOTES_END}")
    out.append("")
    return "\n".join(out)


def header_section(res, args, probes, elapsed_s, date, layer):
    out = []
    mode = "quick (smoke: tiny sizes, not meaningful figures)" if args.quick else "full"
    out.append("# vkleak benchmark results\n")
    out.append("Generated by `bench/compare.py` (see `bench/README.md`); do not edit by hand "
               "except between the notes markers.\n")
    date = date or datetime.datetime.now().astimezone()
    out.append(f"- Date: {date.strftime('%Y-%m-%d %H:%M %Z')}")
    for line in machine_description(probes.get("none", {})):
        out.append(f"- {line}")
    out.append(f"- Layer measured: {layer or layer_source(args.build_dir)}")
    out.append(f"- Mode: {mode}; {args.rounds} rounds, configurations round-robin (order rotated "
               f"each round); figures are medians over rounds, ratios are medians of per-round "
               f"ratios to `none`; \"spread\" is (max − min) / median over rounds. "
               f"Run took {elapsed_s / 60:.1f} min.")
    gate = getattr(res, "gate", None)
    if gate and gate.runs:
        out.append(f"- Shared machine: before each run, up to {gate.max_wait_s:g} s of waiting "
                   f"(at most {gate.total_s:g} s in all) for other processes to leave ≥ 75% of "
                   f"the CPUs idle; {gate.busy_runs} of "
                   f"{gate.runs} runs started while they did not ({gate.waited_s / 60:.1f} min "
                   f"spent waiting).")
    out.append("")
    return out


# --- Budgets


def budgets_section(res, names, vk, apps, quick, busy):
    out = ["## Budgets\n"]
    out.append("Ratios to `none` (no layer) on lavapipe. `nocallsites` = vkleak with "
               "`VKLEAK_CALLSTACK_DEPTH=0`, `vkleak` = call sites on (the default depth, 8), "
               "`vkleak-depth1` = one frame, the app's call site, taken without unwinding (no "
               "budget of its own).\n")
    if quick:
        out.append("**Quick mode: tiny sizes, one round; the verdicts below check that the "
                   "harness works, not the layer.**\n")
    if busy:
        out.append("Most runs started while other processes kept the CPUs busy, so wall-time "
                   "budgets are judged as follows: record+submit and its flatness are met when the "
                   "recording thread's CPU time is within them (all of the layer's work runs "
                   "there, and the frame's wall time also holds lavapipe's execution, which the "
                   "layer does not change, so the wall ratio is smaller); the estimate adds the "
                   "layer's extra CPU to the least-disturbed frame without it. Thread scaling and "
                   "the 3% frame-time budgets are judged only when every round agrees (other load "
                   "can only hold scaling back; see also the CPU per pair).\n")
    rows = []
    rows += pair_budget_rows(res, names, "Buffer", 1.5, 2.5)
    rows += pair_budget_rows(res, names, "ImageView", 1.5, 2.5)
    rows += pair_budget_rows(res, names, "Memory", 1.5, 2.5)
    rows += pair_budget_rows(res, names, "DescriptorSet", 2.5, 4.0)
    rows += pair_budget_rows(res, names, "vkUpdateDescriptorSets, 8 writes", 1.5, 1.5,
                             bench="BM_DescriptorUpdate8")
    rows += pair_budget_rows(res, names, "empty vkQueueSubmit", 1.2, 1.2, bench="BM_EmptySubmit")
    rows += pair_flat_rows(res, names, vk)
    rs_names = sorted((n for n in res.names("frame") if n.startswith("BM_RecordSubmit/")),
                      key=lambda n: live_of(n) or 0)
    rows += record_submit_rows(res, names, vk, rs_names, busy)
    rows += record_submit_flat_rows(res, names, vk, rs_names, busy)
    rows += thread_budget_rows(res, vk, busy)
    rows += memory_budget_rows(res, vk)
    rows += snapshot_budget_rows(res, vk)
    rows += app_budget_rows(res, vk, apps, busy)
    out.append(table(["budget", "target", "measured", "verdict"], rows))
    out.append("")
    return out


def pair_budget_rows(res, names, workload, off_budget, on_budget, bench=None):
    """`bench`: the benchmark's name when it is not BM_<workload>Pair (DescriptorUpdate8)."""
    rows = []
    bench = bench or f"BM_{workload}Pair"
    for cfg, budget in (("vkleak-nocallsites", off_budget), ("vkleak", on_budget)):
        if cfg not in names:
            continue
        figures, ok = [], True
        for n in res.names("pairs"):
            if not n.startswith(f"{bench}/"):
                continue
            r = median(res.ratio_series("pairs", cfg, n))
            live = n.split("live:")[-1]
            figures.append(f"{fmt_ratio(r)} ({live_label(int(live))} live)")
            ok = ok and r is not None and r <= budget
        label = f"{workload} pair" if bench == f"BM_{workload}Pair" else workload
        rows.append([f"{label}, {cfg}", f"≤ {budget}x", ", ".join(figures) or "–",
                     verdict(ok if figures else None)])
    return rows


def pair_flat_rows(res, names, vk):
    """A pair's time at the largest live count over its time at 0 live, under the same
    configuration (what the app sees). In parentheses the layer's own share (its time minus the
    same round's time without it), for information only: the driver's own times move with the
    live count and with the heap around them (the `none` row), so the difference is noisy."""
    rows = []
    pair_names = res.names("pairs")
    lives = sorted({int(n.split("live:")[-1]) for n in pair_names})
    if len(lives) < 2:
        return rows
    top = lives[-1]
    for cfg in vk + ["none"]:
        if cfg not in names:
            continue
        figures, ok = [], True
        for w in ("Buffer", "ImageView", "DescriptorSet", "Memory"):
            hi, lo = f"BM_{w}Pair/live:{top}", f"BM_{w}Pair/live:0"
            a, b = res.series("pairs", cfg, hi), res.series("pairs", cfg, lo)
            whole = median([x / y if x and y else None for x, y in zip(a, b)])
            if cfg == "none":
                figures.append(f"{w} {fmt_ratio(whole)}")
                continue
            na, nb = res.series("pairs", "none", hi), res.series("pairs", "none", lo)
            own = median([(x - nx) / (y - ny) if None not in (x, nx, y, ny) and y > ny
                           else None for x, nx, y, ny in zip(a, na, b, nb)])
            figures.append(f"{w} {fmt_ratio(whole)} (own {fmt_ratio(own)})")
            ok = ok and whole is not None and whole <= 1.2
        what = "driver alone" if cfg == "none" else "whole pairs (layer's own share)"
        rows.append([f"flat: {live_label(top)}-live / 0-live, {cfg}: {what}", "≤ 1.2x",
                     ", ".join(figures), verdict(ok) if cfg != "none" else "(reference)"])
    return rows


def record_submit_rows(res, names, vk, rs_names, busy):
    """Record+submit at each live count (ascending; a run from before the live argument has one
    name without it)."""
    rows = []
    for rs_name in rs_names:
        live = live_of(rs_name)
        at = "" if live is None else f" ({live_label(live)} live)"
        vd = median(res.ratio_series("frame", "validation-default", rs_name)) \
            if "validation-default" in names else None
        for cfg in vk:
            ratios = res.ratio_series("frame", cfg, rs_name)
            r = median(ratios)
            cpu = median(res.ratio_series("frame", cfg, rs_name, "cpu_ns"))
            vd_cpu = median(res.ratio_series("frame", "validation-default", rs_name, "cpu_ns")) \
                if "validation-default" in names else None
            # What the layer adds runs on the recording thread: its extra CPU time over the
            # least-disturbed frame without the layer estimates the ratio on an idle machine.
            extra = median([a - b if a is not None and b is not None else None for a, b in zip(
                res.series("frame", cfg, rs_name, "cpu_ns"),
                res.series("frame", "none", rs_name, "cpu_ns"))])
            walls = [v for v in res.series("frame", "none", rs_name) if v]
            estimate = 1 + extra / min(walls) if extra is not None and walls else None
            if not busy:
                v = verdict(r is not None and r <= 1.3 and (vd is None or r < vd))
            elif cpu is not None and cpu <= 1.3 and (vd_cpu is None or cpu < vd_cpu):
                # The wall ratio cannot exceed the recording thread's CPU ratio: the frame's
                # wall time also holds lavapipe's execution, which the layer does not change.
                v = verdict(True, "recording thread's CPU")
            else:
                v = "inconclusive (busy machine)"
            rows.append([f"record+submit{at}, {cfg}", "≤ 1.3x and < validation-default",
                         f"wall {with_range(r, ratios)} (validation-default {fmt_ratio(vd)}); "
                         f"recording thread's CPU {fmt_ratio(cpu)} (validation-default "
                         f"{fmt_ratio(vd_cpu)}); estimate for an idle machine "
                         f"{fmt_ratio(estimate)}", v])
    return rows


def record_submit_flat_rows(res, names, vk, rs_names, busy):
    """The time per submit at the largest live count over that at the smallest, under the same
    configuration, each round's pair from one process (what the app sees). Judged like the pair
    flat rows (whole frames; the layer's own share, its time minus the same round's time without
    it, for information), and like record+submit on a busy machine: the recording thread's CPU
    ratio bounds the wall ratio from above (the frame's wall time also holds lavapipe's execution
    of the draws, which other live objects do not change), so it can pass the budget; otherwise
    the question stays open."""
    rows = []
    rs_lives = [n for n in rs_names if live_of(n) is not None]
    if len(rs_lives) < 2:
        return rows
    lo_name, hi_name = rs_lives[0], rs_lives[-1]
    lo, hi = live_of(lo_name), live_of(hi_name)
    for cfg in vk + ["none"]:
        if cfg not in names:
            continue
        cells, whole = [], {}
        for key, label in (("real_ns", "wall"), ("cpu_ns", "recording thread's CPU")):
            a = res.series("frame", cfg, hi_name, key)
            b = res.series("frame", cfg, lo_name, key)
            ratios = [x / y if x and y else None for x, y in zip(a, b)]
            whole[key] = median(ratios)
            cell = f"{label} {with_range(whole[key], ratios)}"
            if cfg != "none":
                na = res.series("frame", "none", hi_name, key)
                nb = res.series("frame", "none", lo_name, key)
                own = median([(x - nx) / (y - ny) if None not in (x, nx, y, ny) and y > ny
                              else None for x, nx, y, ny in zip(a, na, b, nb)])
                cell += f" (own {fmt_ratio(own)})"
            cells.append(cell)
        r, cpu = whole["real_ns"], whole["cpu_ns"]
        if cfg == "none":
            v = "(reference)"
        elif not busy:
            v = verdict(None if r is None else r <= 1.2)
        elif cpu is not None and cpu <= 1.2:
            v = verdict(True, "recording thread's CPU")
        else:
            v = "inconclusive (busy machine)"
        what = "driver alone" if cfg == "none" else "whole frames (layer's own share)"
        rows.append([f"record+submit flat: {live_label(hi)}-live / {live_label(lo)}-live per "
                     f"submit, {cfg}: {what}", "≤ 1.2x", "; ".join(cells), v])
    return rows


def thread_budget_rows(res, vk, busy):
    rows = []
    for cfg in vk:
        one = res.series("frame", cfg, "BM_ThreadChurn/real_time/threads:1", "items_per_second")
        two = res.series("frame", cfg, "BM_ThreadChurn/real_time/threads:2", "items_per_second")
        ratios = [b / a if a and b else None for a, b in zip(one, two)]
        r = median(ratios)
        # Load-independent view: CPU per pair with 2 threads over 1 (1.0 = no contention).
        c1 = res.series("frame", cfg, "BM_ThreadChurn/real_time/threads:1", "cpu_ns")
        c2 = res.series("frame", cfg, "BM_ThreadChurn/real_time/threads:2", "cpu_ns")
        growth = median([b / a if a and b else None for a, b in zip(c1, c2)])
        rows.append([f"2 threads vs 1 (aggregate), {cfg}", "≥ 1.0x",
                     f"{with_range(r, ratios)}; CPU per pair ×{fmt_num(growth, 2)} "
                     "with 2 threads",
                     threads_verdict(ratios, busy)])
    return rows


def memory_budget_rows(res, vk):
    rows = []
    for group, what in (("memory", "memory per tracked object (layer's own)"),
                        ("memory-bound", "the same, buffers bound to memory")):
        mem_name = next((n for n in res.names(group)), None)
        if not mem_name:
            continue
        for cfg in vk:
            d = median([a - b if a is not None and b is not None else None for a, b in zip(
                res.series(group, cfg, mem_name, "bytes_per_object"),
                res.series(group, "none", mem_name, "bytes_per_object"))])
            rows.append([f"{what}, {cfg}", "≤ 64 B", "–" if d is None else f"{d:.1f} B",
                         verdict(None if d is None else d <= 64)])
    return rows


def snapshot_budget_rows(res, vk):
    rows = []
    snap_name = next((n for n in res.names("snapshot")), None)
    if not snap_name:
        return rows
    objs = live_label(int(snap_name.split("live:")[-1].split("/")[0]))
    for cfg in vk:
        stall = median(res.series("snapshot", cfg, snap_name, "stall_ms"))
        written = median(res.series("snapshot", cfg, snap_name, "written_ms"))
        rows.append([f"snapshot of {objs} objects: app-thread stall, {cfg}", "≤ 50 ms",
                     f"{fmt_num(stall)} ms", verdict(None if stall is None else stall <= 50)])
        rows.append([f"snapshot of {objs} objects: file written, {cfg}", "≤ 1 s",
                     f"{fmt_num(written)} ms",
                     verdict(None if written is None else written <= 1000)])
    return rows


def app_budget_rows(res, vk, apps, busy):
    rows = []
    for app in apps:
        if app.name not in ("vkcube", "glmark2-zink"):
            continue
        for cfg in [c for c in app.configs if c in vk]:
            ratios = app_ratio(res, app.name, cfg)
            r = median(ratios)
            cpu_ratios = app_ratio(res, app.name, cfg, "cpu_ms")
            cpu = median(cpu_ratios)
            rows.append([f"{app.name} frame time, {cfg}", "≤ 1.03x",
                         f"wall {with_range(r, ratios)}; CPU time per frame "
                         f"{with_range(cpu, cpu_ratios)}", frame_verdict(r, ratios, busy)])
    return rows


# --- Configurations


def configurations_section(configs, probes, build_dir):
    out = ["## Configurations\n"]
    out.append("Every process runs with the loader isolated (only lavapipe, no implicit layers, "
               "no settings files, Mesa's shader disk cache off). The probe "
               "(`vkleak_bench_probe`) proves each configuration: which layer libraries the "
               "loader put in the process, whether handles come back wrapped (unique handles), "
               "and how many validation messages three deliberate errors drew — usage 0 "
               "(parameter validation), a bind into too-small memory (core checks), a buffer "
               "alive at vkDestroyDevice (object lifetimes).\n")
    rows = []
    for c in configs:
        p = probes.get(c.name, {})
        msgs = p.get("messages", {})
        rows.append([f"`{c.name}`", f"`{env_text(c, build_dir)}`",
                     "yes" if p.get("vkleak_loaded") else "no",
                     "yes" if p.get("validation_loaded") else "no",
                     "yes" if p.get("handles_wrapped") else "no",
                     f"{msgs.get('api_parameters', '?')} / {msgs.get('core', '?')} / "
                     f"{msgs.get('object_lifetimes', '?')}"])
    out.append(table(["config", "environment", "vkleak", "validation", "wrapped handles",
                      "messages: params / core / lifetimes"], rows))
    out.append("")
    return out


# --- Micro-benchmarks


def micro_section(res, names, vk):
    out = ["## Micro-benchmarks (`vkleak_bench`)\n"]
    out.append("Time per iteration (one create+destroy pair, one frame); in parentheses the "
               "ratio to `none`; ± half the spread over rounds. Pairs: CPU time of the calling "
               "thread (all their work, the layer's and lavapipe's, runs there; less disturbed "
               "by other load than wall time). Record+submit and threads: wall time.\n")
    out += group_table(res, names, "pairs",
                       "Create+destroy pairs with N other live objects (filler buffers)")
    if res.names("frame"):
        out += group_table(res, names, "frame",
                           "Record + submit + fence wait (1,000 draws) and thread churn",
                           note="`BM_ThreadChurn/threads:N`: time per pair of the aggregate "
                                "(wall time / all threads' pairs).")
        out += thread_scaling_table(res, names)
    out += snapshot_table(res, vk)
    out += memory_table(res, names)
    return out


def group_table(res, names, group, title, key=None, fmt=fmt_ns, note=""):
    bnames = res.names(group)
    if not bnames:
        return []
    out = [f"### {title}\n"]
    if note:
        out.append(note + "\n")
    cfgs = [c for c in names if res.bench.get(group, {}).get(c)]
    rows = []
    for n in bnames:
        row = [f"`{n}`"]
        for c in cfgs:
            series = res.series(group, c, n, key)
            errors = {r.get(n, {}).get("error") for r in res.bench[group][c] if r}
            errors.discard(None)
            if all(v is None for v in series):
                row.append("skipped" if errors else "–")
                continue
            m = median(series)
            cell = fmt(m)
            if c != "none" and res.bench.get(group, {}).get("none"):
                cell += f" ({fmt_ratio(median(res.ratio_series(group, c, n, key)))})"
            s = spread(series)
            if s is not None:
                cell += f" ±{s / 2:.0f}%"
            row.append(cell)
        rows.append(row)
    out.append(table(["benchmark"] + [f"`{c}`" for c in cfgs], rows))
    out.append("")
    return out


def thread_scaling_table(res, names):
    rows = []
    bnames = res.names("frame")
    threads = sorted({int(n.split("threads:")[-1]) for n in bnames if "threads:" in n})
    for c in names:
        if not res.bench.get("frame", {}).get(c):
            continue
        one = res.series("frame", c, "BM_ThreadChurn/real_time/threads:1", "items_per_second")
        cpu1 = res.series("frame", c, "BM_ThreadChurn/real_time/threads:1", "cpu_ns")
        row = [f"`{c}`"]
        for t in threads:
            name = f"BM_ThreadChurn/real_time/threads:{t}"
            s = res.series("frame", c, name, "items_per_second")
            m = median(s)
            sp = median([b / a if a and b else None for a, b in zip(one, s)])
            cpu = res.series("frame", c, name, "cpu_ns")
            growth = median([b / a if a and b else None for a, b in zip(cpu1, cpu)])
            row.append(f"{fmt_num(m / 1e6 if m else None, 2)} M/s ({fmt_ratio(sp)}); "
                       f"{fmt_ns(median(cpu))} CPU (×{fmt_num(growth, 2)})")
        rows.append(row)
    out = ["### Thread scaling: buffer create+destroy on one device\n"]
    out.append("Aggregate pairs per second over all threads, and in parentheses the speed-up "
               f"over 1 thread of the same configuration ({os.cpu_count()} cores); then the "
               "CPU time per pair summed over the threads, and in parentheses its growth over "
               "1 thread. Throughput needs idle cores; the CPU per pair does not: ×1.0 means "
               "threads do not slow each other down, ×2 means each pair costs twice the CPU "
               "(cache lines bouncing between cores, lock hand-offs).\n")
    out.append(table(["config"] + [f"{t} thread{'s' if t > 1 else ''}" for t in threads], rows))
    out.append("")
    return out


def snapshot_table(res, vk):
    if not res.names("snapshot"):
        return []
    out = ["### Snapshot (vkleak only)\n"]
    out.append("`vkQueueInsertDebugUtilsLabelEXT(queue, \"vkleak.snapshot:bench\")` with N "
               "live buffers: the app-thread stall (time inside the call: the layer "
               "collects synchronously), the time until `vkleak-*-trigger.json` appears "
               "under its final name, and its size. Medians of the per-process medians.\n")
    rows = []
    for n in res.names("snapshot"):
        for c in vk:
            st = res.series("snapshot", c, n, "stall_ms")
            wr = res.series("snapshot", c, n, "written_ms")
            mb = res.series("snapshot", c, n, "file_MB")
            rows.append([f"`{n}`", f"`{c}`", f"{fmt_num(median(st))} ms",
                         f"{fmt_num(median(wr))} ms", f"{fmt_num(median(mb))} MB"])
    out.append(table(["benchmark", "config", "stall", "written", "file size"], rows))
    out.append("")
    return out


def memory_table(res, names):
    mem_rows = []
    for group in ("memory", "memory-bound"):
        mem_name = next((n for n in res.names(group)), None)
        if not mem_name:
            continue
        for c in names:
            s = res.series(group, c, mem_name, "bytes_per_object")
            if not any(v is not None for v in s):
                continue
            d = median([a - b if a is not None and b is not None else None for a, b in
                        zip(s, res.series(group, "none", mem_name, "bytes_per_object"))])
            after = median(res.series(group, c, mem_name, "rss_after_MB"))
            mem_rows.append([f"`{mem_name}`", f"`{c}`", f"{fmt_num(median(s))} B",
                             "–" if c == "none" else f"{fmt_num(d)} B", f"{fmt_num(after)} MB"])
    if not mem_rows:
        return []
    out = ["### Resident memory per object\n"]
    out.append("VmRSS after creating the buffers minus before, per buffer, each benchmark in "
               "a process of its own; `bound:1`: every buffer also bound to one shared "
               "VkDeviceMemory. The driver's own cost is the `none` row; a layer's cost is "
               "its row minus `none`.\n")
    out.append(table(["benchmark", "config", "RSS per buffer", "layer's own cost per object",
                      "RSS after"], mem_rows))
    out.append("")
    return out


# --- Whole programs, commands, failures


def programs_section(res, apps):
    if not apps:
        return []
    out = ["## Whole programs\n"]
    out.append("Each run is a fresh process; Xvfb for the windowed ones. CPU time is the "
               "child's user + system time over all its threads (lavapipe renders on worker "
               "threads), per frame, start-up included: less disturbed than wall time by "
               "other load on a shared machine. Peak RSS is the child's `ru_maxrss` "
               "(wait4).\n")
    for app in apps:
        out.append(f"- **{app.name}**: {app.what}")
    out.append("")
    rows = []
    for app in apps:
        for c in app.configs:
            cells = [app.name, f"`{c}`"]
            for key in ("ms", "cpu_ms"):
                series = app_series(res, app.name, c, key)
                cell = f"{fmt_num(median(series), 3)} ms"
                if c != "none":
                    cell += f" ({fmt_ratio(median(app_ratio(res, app.name, c, key)))})"
                sp = spread(series)
                cells.append(cell + (f" ±{sp / 2:.0f}%" if sp is not None else ""))
            rss = median(app_series(res, app.name, c, "rss_mb"))
            base_rss = median(app_series(res, app.name, "none", "rss_mb"))
            rss_cell = f"{fmt_num(rss)} MB"
            if c != "none" and rss is not None and base_rss is not None:
                rss_cell += f" ({rss - base_rss:+.1f} MB)"
            rows.append(cells + [rss_cell])
    out.append(table(["program", "config", "wall time per frame", "CPU time per frame",
                      "peak RSS"], rows))
    out.append("")
    return out


def commands_section(commands):
    out = ["## Exact commands\n"]
    out.append("```sh")
    out.append(" ".join(shlex.quote(a) for a in [os.path.relpath(sys.argv[0], REPO)] + sys.argv[1:]))
    out.append("```\n")
    out.append("Per round, for each group and each configuration (environment above), with "
               "`--benchmark_format=json --benchmark_out=<file>`:\n")
    out.append("```sh")
    out.extend(commands)
    out.append("```\n")
    return out


def failures_section(res):
    if not res.failures:
        return []
    out = ["## Failures\n"]
    for f in res.failures:
        out.append(f"- {f}")
    out.append("")
    return out
