"""Running things: building, the quiet-machine gate, one process with its rusage, Xvfb, the
micro-benchmark groups' arguments and results, and the whole programs."""

import json
import os
import re
import select
import shutil
import subprocess
import sys
import time

from benchlib.configs import REPO, ZINK


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
    # The benchmarks are off by default (a user's build is the layer and the CLI): turned on
    # here, also in a tree configured without them.
    new = not os.path.exists(os.path.join(build_dir, "CMakeCache.txt"))
    log(f"configuring {build_dir}")
    subprocess.run(["cmake", "-S", REPO, "-B", build_dir, "-DVKLEAK_BUILD_BENCH=ON",
                    *(["-DCMAKE_BUILD_TYPE=RelWithDebInfo"] if new else [])], check=True,
                   stdout=subprocess.DEVNULL)
    log(f"building the benchmarks and the layer in {build_dir}")
    subprocess.run(["cmake", "--build", build_dir, "-j", str(jobs), "--target", "vkleak_bench",
                    "vkleak_bench_probe", "VkLayer_vkleak"], check=True, stdout=subprocess.DEVNULL)
    # Scenario programs are optional (tests/scenarios): build them when the tree has them.
    subprocess.run(["cmake", "--build", build_dir, "-j", str(jobs), "--target", "clean_app",
                    "threads_churn"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


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
