#!/usr/bin/env python3
"""Side-by-side benchmarks of vkleak against no layer and the validation layer.

Builds the benchmarks (unless --no-build), then, for several rounds, runs every benchmark group
and every whole program once under each layer configuration, round-robin (the order of the
configurations rotates every round), so slow drifts of a shared 2-core machine hit every
configuration alike. Each figure is the median over the rounds; each ratio is the median of the
per-round ratios to "none" (the same round's run without a layer). Writes RESULTS.md with the
budgets met or missed.

    bench/compare.py [--quick] [--build-dir DIR] [--no-build] [--out FILE] [--rounds N]

Standard library only. See bench/README.md.
"""

import argparse
import datetime
import glob
import json
import os
import platform
import re
import select
import shlex
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
LAVAPIPE_ICD = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
VKLEAK_LAYER = "VK_LAYER_VKLEAK_tracker"
VALIDATION_LAYER = "VK_LAYER_KHRONOS_validation"
# Everything but the object lifetime tracker. The 1.3.239 layer reads this colon-separated list
# from VK_LAYER_DISABLES (a comma-separated one is silently ignored); the probe proves it.
LIFETIMES_ONLY_DISABLES = ":".join([
    "VK_VALIDATION_FEATURE_DISABLE_THREAD_SAFETY_EXT",
    "VK_VALIDATION_FEATURE_DISABLE_API_PARAMETERS_EXT",
    "VK_VALIDATION_FEATURE_DISABLE_CORE_CHECKS_EXT",
    "VK_VALIDATION_FEATURE_DISABLE_UNIQUE_HANDLES_EXT",
    "VK_VALIDATION_FEATURE_DISABLE_SHADERS_EXT",
    "VK_VALIDATION_FEATURE_DISABLE_SHADER_VALIDATION_CACHE_EXT",
])
ZINK = {"LIBGL_ALWAYS_SOFTWARE": "1", "GALLIUM_DRIVER": "zink"}


# ---------------------------------------------------------------------------------------------
# Configurations


class Config:
    def __init__(self, name, env, vkleak=False, validation=False, expect=None):
        self.name = name
        self.env = env  # added to the isolated base environment ({output} = snapshot dir)
        self.vkleak = vkleak
        self.validation = validation
        self.expect = expect or {}  # what the probe must find


def make_configs(build):
    manifest = os.path.join(build, "manifest", "build")
    vkleak = {"VK_LAYER_PATH": manifest, "VK_INSTANCE_LAYERS": VKLEAK_LAYER,
              "VKLEAK_OUTPUT_DIR": "{output}"}
    probe_vkleak = {"vkleak_loaded": True, "validation_loaded": False}
    return [
        Config("none", {}, expect={"vkleak_loaded": False, "validation_loaded": False}),
        Config("vkleak-nocallsites", dict(vkleak, VKLEAK_CALLSTACK_DEPTH="0"), vkleak=True,
               expect=probe_vkleak),
        Config("vkleak", dict(vkleak), vkleak=True, expect=probe_vkleak),
        # Call sites of one frame (the app's call site, taken without unwinding): the cheap
        # setting, against the default depth's unwinding.
        Config("vkleak-depth1", dict(vkleak, VKLEAK_CALLSTACK_DEPTH="1"), vkleak=True,
               expect=probe_vkleak),
        Config("validation-lifetimes",
               {"VK_INSTANCE_LAYERS": VALIDATION_LAYER,
                "VK_LAYER_DISABLES": LIFETIMES_ONLY_DISABLES},
               validation=True,
               expect={"validation_loaded": True, "handles_wrapped": False,
                       "api_parameters": 0, "core": 0, "object_lifetimes": 1}),
        Config("validation-default", {"VK_INSTANCE_LAYERS": VALIDATION_LAYER}, validation=True,
               expect={"validation_loaded": True, "handles_wrapped": True,
                       "api_parameters": 1, "core": 1, "object_lifetimes": 1}),
    ]


def base_env(work):
    """The loader isolated from the machine: lavapipe only, Mesa's implicit device-select layer
    off, no user layers, no settings files, no inherited vkleak settings, no shader disk cache
    (a cache warmed by one configuration would speed up the next)."""
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith(("VK_", "VKLEAK_", "XDG_")) or k == "DISPLAY")}
    env["VK_DRIVER_FILES"] = LAVAPIPE_ICD
    env["VK_LOADER_LAYERS_DISABLE"] = "VK_LAYER_MESA_device_select"
    env["XDG_DATA_HOME"] = os.path.join(work, "xdg-empty")
    env["XDG_CONFIG_HOME"] = os.path.join(work, "xdg-empty")
    env["VK_LAYER_SETTINGS_PATH"] = os.path.join(work, "no-settings")
    env["MESA_SHADER_CACHE_DISABLE"] = "true"
    return env


def config_env(config, work, output):
    env = base_env(work)
    for k, v in config.env.items():
        env[k] = v.replace("{output}", output)
    return env


def env_text(config, build):
    """The configuration's environment as written in RESULTS.md."""
    common = (f"VK_DRIVER_FILES={LAVAPIPE_ICD} "
              "VK_LOADER_LAYERS_DISABLE=VK_LAYER_MESA_device_select")
    extra = " ".join(f"{k}={v.replace('{output}', '<tmp>')}" for k, v in config.env.items())
    return (common + " " + extra).strip().replace(build, "<build>")


# ---------------------------------------------------------------------------------------------
# Running things


class Run:
    def __init__(self, rc, wall_s, cpu_s, maxrss_kb, stdout, stderr):
        self.rc = rc
        self.wall_s = wall_s
        self.cpu_s = cpu_s  # user + system, all the child's threads
        self.maxrss_kb = maxrss_kb
        self.stdout = stdout
        self.stderr = stderr


def run(cmd, env, cwd, timeout):
    """Runs cmd; returns its exit status, wall time, CPU time and peak RSS (the child's rusage,
    from wait4). Output goes to files, so a chatty child cannot block on a full pipe."""
    out_path = os.path.join(cwd, ".stdout")
    err_path = os.path.join(cwd, ".stderr")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL)
        deadline = t0 + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.002)
        wall = time.monotonic() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
    with open(out_path, errors="replace") as f:
        stdout = f.read()
    with open(err_path, errors="replace") as f:
        stderr = f.read()
    return Run(proc.returncode, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, stdout,
               stderr)


class Xvfb:
    """A private X server for the whole programs (-displayfd picks a free display)."""

    def __init__(self):
        self.proc = None
        self.display = None

    def __enter__(self):
        if not shutil.which("Xvfb"):
            return self
        r, w = os.pipe()
        self.proc = subprocess.Popen(
            ["Xvfb", "-displayfd", str(w), "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
            pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(w)
        data = b""
        deadline = time.monotonic() + 20
        while not data.endswith(b"\n") and time.monotonic() < deadline:
            ready, _, _ = select.select([r], [], [], 1)
            if ready:
                chunk = os.read(r, 64)
                if not chunk:
                    break
                data += chunk
        os.close(r)
        if data.strip():
            self.display = ":" + data.decode().strip()
        return self

    def __exit__(self, *exc):
        if self.proc:
            self.proc.terminate()
            self.proc.wait()


def cpu_busy(interval=0.1):
    """Fraction of all CPUs busy over `interval`. Called between our runs, when nothing of ours
    is running: it is other processes' load."""
    def sample():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:9]]
        return sum(v), v[3] + v[4]  # total, idle + iowait

    t0, i0 = sample()
    time.sleep(interval)
    t1, i1 = sample()
    return 1.0 - (i1 - i0) / max(1, t1 - t0)


class QuietGate:
    """Waits (a bounded time) for other processes' load to drop before each measured run: the
    machine is shared and 2 cores are easily taken by someone else's build."""

    def __init__(self, max_wait_s, total_s, threshold=0.25):
        self.max_wait_s = max_wait_s
        self.total_s = total_s  # the whole run never waits longer than this
        self.threshold = threshold
        self.runs = 0
        self.busy_runs = 0
        self.waited_s = 0.0

    def wait(self):
        if self.max_wait_s <= 0:
            return
        self.runs += 1
        t0 = time.monotonic()
        limit = min(self.max_wait_s, max(0.0, self.total_s - self.waited_s))
        while cpu_busy() > self.threshold:
            if time.monotonic() - t0 > limit:
                self.busy_runs += 1
                break
            time.sleep(0.2)
        self.waited_s += time.monotonic() - t0


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Build


def build(build_dir, jobs):
    if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
        log(f"configuring {build_dir}")
        subprocess.run(["cmake", "-S", REPO, "-B", build_dir, "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                        "-DVKLEAK_BUILD_BENCH=ON"], check=True, stdout=subprocess.DEVNULL)
    log(f"building the benchmarks and the layer in {build_dir}")
    subprocess.run(["cmake", "--build", build_dir, "-j", str(jobs), "--target", "vkleak_bench",
                    "vkleak_bench_probe", "VkLayer_vkleak"], check=True, stdout=subprocess.DEVNULL)
    # Scenario programs are optional (tests/scenarios): build them when the tree has them.
    subprocess.run(["cmake", "--build", build_dir, "-j", str(jobs), "--target", "clean_app",
                    "threads_churn"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


# ---------------------------------------------------------------------------------------------
# Micro-benchmarks (vkleak_bench)


class Group:
    """One vkleak_bench process per configuration and round, restricted by a filter. Groups run
    in processes of their own so that one cannot disturb another's memory (RSS, allocator)."""

    def __init__(self, name, regex, vkleak_only=False, key="real_ns"):
        self.name = name
        self.regex = regex
        self.vkleak_only = vkleak_only
        self.key = key  # which time the tables use


GROUPS = [
    # Single-threaded, all work on the calling thread (the layer's and lavapipe's): its CPU time
    # is what the layer adds, and is less disturbed by other load on a shared machine than wall
    # time.
    Group("pairs", "^BM_(Buffer|ImageView|DescriptorSet|Memory)Pair/", key="cpu_ns"),
    Group("frame", "^BM_(RecordSubmit|ThreadChurn)/"),
    Group("snapshot", "^BM_Snapshot/", vkleak_only=True),
    Group("memory", "^BM_MemoryPerObject/.*/bound:0/"),
    Group("memory-bound", "^BM_MemoryPerObject/.*/bound:1/"),
]
GROUP_KEY = {g.name: g.key for g in GROUPS}


def bench_args(quick):
    if quick:
        return ["--live=0,1000", "--submit-live=100,1000", "--draws=1000", "--max-threads=2",
                "--snapshot-objects=1000", "--snapshot-repeats=1", "--memory-objects=1000",
                "--warmup=0", "--benchmark_min_time=0.01"]
    return ["--live=0,100000,1000000", "--submit-live=1000,1000000", "--draws=1000",
            "--snapshot-objects=1000000", "--snapshot-repeats=3", "--memory-objects=1000000",
            "--warmup=0.1", "--benchmark_min_time=0.3"]


def to_ns(value, unit):
    return value * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[unit]


def parse_benchmarks(path):
    with open(path) as f:
        data = json.load(f)
    out = {}
    for b in data.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration":
            continue
        entry = {"real_ns": to_ns(b["real_time"], b["time_unit"]),
                 "cpu_ns": to_ns(b["cpu_time"], b["time_unit"])}
        if b.get("error_occurred"):
            entry["error"] = b.get("error_message", "error")
        for k, v in b.items():
            if isinstance(v, (int, float)) and k not in (
                    "real_time", "cpu_time", "iterations", "family_index", "repetitions",
                    "repetition_index", "per_family_instance_index", "threads"):
                entry[k] = v
        # The warm-up time is a run parameter, not part of what is measured.
        out[re.sub(r"/min_warmup_time:[0-9.]+", "", b["name"])] = entry
    return out, data.get("context", {})


# ---------------------------------------------------------------------------------------------
# Whole programs


class App:
    def __init__(self, name, cmd, configs, unit_count=None, extra_env=None, needs_display=False,
                 parse=None, what=""):
        self.name = name
        self.cmd = cmd
        self.configs = configs
        self.unit_count = unit_count  # frames: the metric is wall time / frames
        self.extra_env = extra_env or {}
        self.needs_display = needs_display
        self.parse = parse  # stdout -> (ms per frame, frames); overrides wall / unit_count
        self.what = what

    def measure(self, r):
        """{"ms": wall ms per frame, "cpu_ms": CPU ms per frame (all threads, startup
        included), "rss_mb": peak RSS} of a successful run, or None."""
        if r.rc != 0:
            return None
        if self.parse:
            parsed = self.parse(r.stdout)
            if not parsed:
                return None
            ms, frames = parsed
        else:
            frames = self.unit_count
            ms = 1e3 * r.wall_s / frames
        return {"ms": ms, "cpu_ms": 1e3 * r.cpu_s / frames if frames else None,
                "rss_mb": r.maxrss_kb / 1024 if r.maxrss_kb else None}


def glmark2_parser(duration):
    def parse(text):
        m = re.search(r"FPS:\s*([0-9.]+)\s*FrameTime:\s*([0-9.]+)\s*ms", text)
        return (float(m.group(2)), float(m.group(1)) * duration) if m else None
    return parse


def make_apps(build, quick, app_configs):
    frames = 30 if quick else 1000
    duration = 1 if quick else 5
    scen_frames = 300 if quick else 20000
    churn = 1000 if quick else 20000
    apps = []
    if shutil.which("vkcube"):
        apps.append(App("vkcube", ["vkcube", "--c", str(frames)], app_configs, unit_count=frames,
                        needs_display=True,
                        what=f"`vkcube --c {frames}`: ms per frame = wall time / {frames}"))
    if shutil.which("glmark2"):
        apps.append(App("glmark2-zink", ["glmark2", "-b", f"build:duration={duration}"],
                        app_configs, extra_env=ZINK, needs_display=True,
                        parse=glmark2_parser(duration),
                        what=f"`glmark2 -b build:duration={duration}` through zink: its "
                             "FrameTime (ms); CPU per frame = CPU time / (FPS × duration)"))
    scen = os.path.join(build, "tests", "scenarios")
    if os.access(os.path.join(scen, "clean_app"), os.X_OK):
        apps.append(App("clean_app", [os.path.join(scen, "clean_app"), "--frames",
                                      str(scen_frames)], app_configs, unit_count=scen_frames,
                        what=f"`clean_app --frames {scen_frames}` (headless): ms per frame"))
    if os.access(os.path.join(scen, "threads_churn"), os.X_OK):
        apps.append(App("threads_churn", [os.path.join(scen, "threads_churn"), "--iterations",
                                          str(churn)], app_configs, unit_count=churn,
                        what=f"`threads_churn --iterations {churn}` (4 threads): ms per "
                             "iteration"))
    return apps


# ---------------------------------------------------------------------------------------------
# Statistics and formatting


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def spread(values):
    """(max - min) / median, as a percentage: how noisy the rounds were."""
    values = [v for v in values if v is not None]
    if len(values) < 2:
        return None
    m = statistics.median(values)
    return 100.0 * (max(values) - min(values)) / m if m else None


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


def machine_busy(res):
    """Whether most runs started while other processes kept the CPUs busy: wall times then
    measure the neighbours as much as the layer."""
    gate = getattr(res, "gate", None)
    return bool(gate and gate.runs and gate.busy_runs > gate.runs / 2)


class Results:
    """Per-round measurements: bench[group][config] is a list (one per round) of
    {benchmark name: entry}; apps[app][config] a list of (metric, wall, maxrss_kb)."""

    def __init__(self):
        self.bench = {}
        self.apps = {}
        self.failures = []
        self.context = {}

    def series(self, group, config, name, key=None):
        key = key or GROUP_KEY.get(group, "real_ns")
        return [r.get(name, {}).get(key) if r is not None else None
                for r in self.bench.get(group, {}).get(config, [])]

    def ratio_series(self, group, config, name, key=None, base="none"):
        a = self.series(group, config, name, key)
        b = self.series(group, base, name, key)
        return [x / y if x is not None and y else None for x, y in zip(a, b)]

    def names(self, group):
        seen = []
        for runs in self.bench.get(group, {}).values():
            for r in runs:
                for n in (r or {}):
                    if n not in seen:
                        seen.append(n)
        return seen


# ---------------------------------------------------------------------------------------------
# Report


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


def render(res, configs, apps, args, probes, commands, elapsed_s, date=None, layer=None):
    names = [c.name for c in configs]
    vk = [c.name for c in configs if c.vkleak]
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

    # --- Budgets
    out.append("## Budgets\n")
    out.append("Ratios to `none` (no layer) on lavapipe. `nocallsites` = vkleak with "
               "`VKLEAK_CALLSTACK_DEPTH=0`, `vkleak` = call sites on (the default depth, 8), "
               "`vkleak-depth1` = one frame, the app's call site, taken without unwinding (no "
               "budget of its own).\n")
    if args.quick:
        out.append("**Quick mode: tiny sizes, one round; the verdicts below check that the "
                   "harness works, not the layer.**\n")
    busy = machine_busy(res)
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

    def pair_rows(workload, off_budget, on_budget):
        for cfg, budget in (("vkleak-nocallsites", off_budget), ("vkleak", on_budget)):
            if cfg not in names:
                continue
            figures, ok = [], True
            for n in res.names("pairs"):
                if not n.startswith(f"BM_{workload}Pair/"):
                    continue
                r = median(res.ratio_series("pairs", cfg, n))
                live = n.split("live:")[-1]
                figures.append(f"{fmt_ratio(r)} ({live_label(int(live))} live)")
                ok = ok and r is not None and r <= budget
            rows.append([f"{workload} pair, {cfg}", f"≤ {budget}x", ", ".join(figures) or "–",
                         verdict(ok if figures else None)])

    pair_rows("Buffer", 1.5, 2.5)
    pair_rows("ImageView", 1.5, 2.5)
    pair_rows("Memory", 1.5, 2.5)
    pair_rows("DescriptorSet", 2.5, 4.0)

    # Flat: a pair's time at the largest live count over its time at 0 live, under the same
    # configuration (what the app sees). In parentheses the layer's own share (its time minus the
    # same round's time without it), for information only: the driver's own times move with the
    # live count and with the heap around them (the `none` row), so the difference is noisy.
    pair_names = res.names("pairs")
    lives = sorted({int(n.split("live:")[-1]) for n in pair_names})
    if len(lives) >= 2:
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

    # Record+submit at each live count (ascending; a run from before the live argument has one
    # name without it).
    rs_names = sorted((n for n in res.names("frame") if n.startswith("BM_RecordSubmit/")),
                      key=lambda n: live_of(n) or 0)
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

    # Record+submit flat: the time per submit at the largest live count over that at the
    # smallest, under the same configuration, each round's pair from one process (what the app
    # sees). Judged like the pair flat rows (whole frames; the layer's own share, its time minus
    # the same round's time without it, for information), and like record+submit on a busy
    # machine: the recording thread's CPU ratio bounds the wall ratio from above (the frame's
    # wall time also holds lavapipe's execution of the draws, which other live objects do not
    # change), so it can pass the budget; otherwise the question stays open.
    rs_lives = [n for n in rs_names if live_of(n) is not None]
    if len(rs_lives) >= 2:
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

    snap_name = next((n for n in res.names("snapshot")), None)
    if snap_name:
        objs = live_label(int(snap_name.split("live:")[-1].split("/")[0]))
        for cfg in vk:
            stall = median(res.series("snapshot", cfg, snap_name, "stall_ms"))
            written = median(res.series("snapshot", cfg, snap_name, "written_ms"))
            rows.append([f"snapshot of {objs} objects: app-thread stall, {cfg}", "≤ 50 ms",
                         f"{fmt_num(stall)} ms", verdict(None if stall is None else stall <= 50)])
            rows.append([f"snapshot of {objs} objects: file written, {cfg}", "≤ 1 s",
                         f"{fmt_num(written)} ms",
                         verdict(None if written is None else written <= 1000)])

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
    out.append(table(["budget", "target", "measured", "verdict"], rows))
    out.append("")

    # --- Configurations
    out.append("## Configurations\n")
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
        rows.append([f"`{c.name}`", f"`{env_text(c, args.build_dir)}`",
                     "yes" if p.get("vkleak_loaded") else "no",
                     "yes" if p.get("validation_loaded") else "no",
                     "yes" if p.get("handles_wrapped") else "no",
                     f"{msgs.get('api_parameters', '?')} / {msgs.get('core', '?')} / "
                     f"{msgs.get('object_lifetimes', '?')}"])
    out.append(table(["config", "environment", "vkleak", "validation", "wrapped handles",
                      "messages: params / core / lifetimes"], rows))
    out.append("")

    # --- Micro-benchmark tables
    def group_table(group, title, key=None, fmt=fmt_ns, note=""):
        bnames = res.names(group)
        if not bnames:
            return
        out.append(f"### {title}\n")
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

    out.append("## Micro-benchmarks (`vkleak_bench`)\n")
    out.append("Time per iteration (one create+destroy pair, one frame); in parentheses the "
               "ratio to `none`; ± half the spread over rounds. Pairs: CPU time of the calling "
               "thread (all their work, the layer's and lavapipe's, runs there; less disturbed "
               "by other load than wall time). Record+submit and threads: wall time.\n")
    group_table("pairs", "Create+destroy pairs with N other live objects (filler buffers)")
    bnames = res.names("frame")
    if bnames:
        group_table("frame", "Record + submit + fence wait (1,000 draws) and thread churn",
                    note="`BM_ThreadChurn/threads:N`: time per pair of the aggregate (wall "
                         "time / all threads' pairs).")
        rows = []
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
        out.append("### Thread scaling: buffer create+destroy on one device\n")
        out.append("Aggregate pairs per second over all threads, and in parentheses the speed-up "
                   f"over 1 thread of the same configuration ({os.cpu_count()} cores); then the "
                   "CPU time per pair summed over the threads, and in parentheses its growth over "
                   "1 thread. Throughput needs idle cores; the CPU per pair does not: ×1.0 means "
                   "threads do not slow each other down, ×2 means each pair costs twice the CPU "
                   "(cache lines bouncing between cores, lock hand-offs).\n")
        out.append(table(["config"] + [f"{t} thread{'s' if t > 1 else ''}" for t in threads],
                         rows))
        out.append("")

    if res.names("snapshot"):
        out.append("### Snapshot (vkleak only)\n")
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

    mem_rows = []
    mem_names = []
    for group in ("memory", "memory-bound"):
        mem_name = next((n for n in res.names(group)), None)
        if not mem_name:
            continue
        mem_names.append(mem_name)
        for c in names:
            s = res.series(group, c, mem_name, "bytes_per_object")
            if not any(v is not None for v in s):
                continue
            d = median([a - b if a is not None and b is not None else None for a, b in
                        zip(s, res.series(group, "none", mem_name, "bytes_per_object"))])
            after = median(res.series(group, c, mem_name, "rss_after_MB"))
            mem_rows.append([f"`{mem_name}`", f"`{c}`", f"{fmt_num(median(s))} B",
                             "–" if c == "none" else f"{fmt_num(d)} B", f"{fmt_num(after)} MB"])
    if mem_rows:
        out.append("### Resident memory per object\n")
        out.append("VmRSS after creating the buffers minus before, per buffer, each benchmark in "
                   "a process of its own; `bound:1`: every buffer also bound to one shared "
                   "VkDeviceMemory. The driver's own cost is the `none` row; a layer's cost is "
                   "its row minus `none`.\n")
        out.append(table(["benchmark", "config", "RSS per buffer", "layer's own cost per object",
                          "RSS after"], mem_rows))
        out.append("")

    # --- Whole programs
    if apps:
        out.append("## Whole programs\n")
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

    # --- Commands
    out.append("## Exact commands\n")
    out.append("```sh")
    out.append(" ".join(shlex.quote(a) for a in [os.path.relpath(sys.argv[0], REPO)] + sys.argv[1:]))
    out.append("```\n")
    out.append("Per round, for each group and each configuration (environment above), with "
               "`--benchmark_format=json --benchmark_out=<file>`:\n")
    out.append("```sh")
    out.extend(commands)
    out.append("```\n")

    if res.failures:
        out.append("## Failures\n")
        for f in res.failures:
            out.append(f"- {f}")
        out.append("")

    notes = kept_notes(args.out)
    out.append(notes if notes else
               f"{NOTES_BEGIN}\n## Notes\n\n(Profile findings and remarks go here.)\n{NOTES_END}")
    out.append("")
    return "\n".join(out)


def app_series(res, app, cfg, key="ms"):
    return [m.get(key) if m else None for m in res.apps.get(app, {}).get(cfg, [])]


def app_ratio(res, app, cfg, key="ms"):
    a = app_series(res, app, cfg, key)
    b = app_series(res, app, "none", key)
    return [x / y if x is not None and y else None for x, y in zip(a, b)]


# ---------------------------------------------------------------------------------------------
# Main


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


def main():
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
    res = Results()

    def output_dir():
        d = os.path.join(work, "snapshots")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        return d

    # Probe every configuration: a misconfigured comparison is worse than none.
    probes = {}
    for c in configs:
        r = run([probe_bin], config_env(c, work, output_dir()), work, 120)
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

    app_configs = [n for n in ("none", "vkleak", "validation-default") if n in names]
    apps = make_apps(args.build_dir, args.quick, app_configs) if "apps" in groups else []
    commands = []
    common = bench_args(args.quick)
    for g in GROUPS:
        if g.name in groups:
            commands.append(" ".join(["<build>/bench/vkleak_bench"] + common +
                                     [f"'--benchmark_filter={g.regex}'"]) +
                            ("   # vkleak configurations only" if g.vkleak_only else ""))
    for app in apps:
        prefix = " ".join(f"{k}={v}" for k, v in app.extra_env.items())
        commands.append(((prefix + " ") if prefix else "") +
                        " ".join(shlex.quote(a) for a in app.cmd).replace(args.build_dir, "<build>") +
                        ("   # DISPLAY=<Xvfb>" if app.needs_display else ""))

    gate = QuietGate(0 if args.quick else args.max_wait, args.max_total_wait)
    with Xvfb() as xvfb:
        if apps and any(a.needs_display for a in apps) and not xvfb.display:
            res.failures.append("Xvfb did not start: windowed programs skipped")
            apps = [a for a in apps if not a.needs_display]
        # One unmeasured run of each program first: the first run after a while pays for cold
        # page cache (LLVM, Mesa) and a fresh X server, whichever configuration it is.
        if not args.quick:
            for app in apps:
                env = config_env(configs[0], work, output_dir())
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
                    json_out = os.path.join(work, f"{g.name}-{c.name}-{rnd}.json")
                    cmd = [bench_bin] + common + [f"--benchmark_filter={g.regex}",
                                                  f"--benchmark_out={json_out}",
                                                  "--benchmark_out_format=json",
                                                  "--benchmark_format=console"]
                    log(f"[round {rnd + 1}/{args.rounds}] {g.name} / {c.name}")
                    env = config_env(c, work, output_dir())
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
            for app in apps:
                for c in order:
                    if c.name not in app.configs:
                        continue
                    env = config_env(c, work, output_dir())
                    env.update(app.extra_env)
                    if app.needs_display:
                        env["DISPLAY"] = xvfb.display
                    log(f"[round {rnd + 1}/{args.rounds}] {app.name} / {c.name}")
                    gate.wait()
                    r = run(app.cmd, env, work, 600)
                    metric = app.measure(r)
                    if metric is None:
                        res.failures.append(f"{app.name} under {c.name}, round {rnd + 1}: exit "
                                            f"{r.rc}: {(r.stderr or r.stdout).strip()[-500:]}")
                        log(res.failures[-1])
                    res.apps.setdefault(app.name, {}).setdefault(c.name, []).append(metric)

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
