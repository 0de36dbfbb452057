"""Precision on real, correct programs (issue 25, "every finding true"): each program below runs
under `vkleak run --every N` (N = 10, 50, 100: a snapshot cadence changes what the analysis sees
between two snapshots), short and long, and `vkleak report` must find nothing but what the program
is known to leave (glmark2 through zink, mpv's instance, gfxreconstruct's replay: see
/work/shared/REAL_PROGRAMS.md and test_real_apps.py, whose expectations are reused here), and
`vkleak gate` must pass. Every run must be complete (not gate's exit 3) and must have taken several
periodic snapshots, so that the analysis had something to get wrong. Each program's run at its
largest cadence is also re-written in a random order with every handle value remapped
(snapshot_shuffle.py), and must give the same report (issue 36: determinism on real programs).

- Qt 6 Quick on the Vulkan RHI (data/qt6_scene.qml: animation, text changing every frame, a
  scrolling list, a layer.enabled item swapped every TOGGLE_MS): Qt resets descriptor pools once
  they empty and replaces a small working set of buffers every second.
- GStreamer's Vulkan elements (upload, colour conversion, download; no window, no present).
- SDL2's testvulkan with its window resized 16 times (swapchain re-created), ended with SIGINT.
- Qt 5 QVulkanWindow examples (hellovulkancubes, hellovulkantexture, hellovulkanwidget), closed
  with WM_DELETE_WINDOW after a few seconds.
- glmark2 through Mesa's zink over all its default scenes.
- mpv (gpu-next, gpu), ffmpeg's Vulkan filters, vkcube and a gfxreconstruct replay of vkcube.

These tests judge the analysis, not the layer's memory safety: the sanitizer tree (which re-runs
the integration suite) skips this module, as it would only re-run the same programs slower.

A program is skipped only when its package is not installed. Each sub-run prints its wall time
and what it took; one test runs all of a program's sub-runs and fails with every false finding
of all of them (kind, type, count, call site, message). The snapshot directories are deleted
after each sub-run unless VKLEAK_KEEP_TMP=1; VKLEAK_PRECISION_CORPUS=DIR copies each one to
DIR/<program>-<variant>-every<N>/ first, for offline analysis.

Cadences: every program runs at --every 10, 50 and 100, except the two slowest, reduced to stay
well inside ctest's 600 s per module on 2 cores (about 3.5 minutes alone): Qt 6 runs 6 s with
the 300 ms toggle at 10/50/100, 6 s/1000 ms at 50, 15 s/300 ms at 100 and 15 s/1000 ms at 10
and 50; the Qt 5 examples run one cadence each (hellovulkancubes 4 s at 10, hellovulkantexture
5 s at 50, hellovulkanwidget 8 s at 100). VKLEAK_PRECISION_FULL=1 runs those at every cadence
too (Qt 5 for 12 s each). The corpus of these runs, for iterating on the analysis offline, is
made by the same functions (run_variant)."""

import ctypes
import ctypes.util
import json
import os
import shutil
import signal
import subprocess
import time
import unittest

from harness import (SANITIZE, SOURCE, VKLEAK, EXPLICIT_LAYERS, GFXRECON, TempDirTestCase,
                     base_env, run, without_layer_env, xvfb)
import snapshot_shuffle


def setUpModule():
    if SANITIZE:
        raise unittest.SkipTest("analysis-precision tests: not re-run in the sanitizer tree")


FULL = os.environ.get("VKLEAK_PRECISION_FULL") == "1"
CORPUS = os.environ.get("VKLEAK_PRECISION_CORPUS")
CADENCES = (10, 50, 100)
SHUFFLE_SEED = 1
DATA = os.path.join(SOURCE, "tests/integration/data")
QT6_QML = "/usr/lib/qt6/bin/qml"
QT6_SCENE = os.path.join(DATA, "qt6_scene.qml")
QT6_QML_DIR = "/usr/lib/x86_64-linux-gnu/qt6/qml"
QT5_EXAMPLES = "/usr/lib/x86_64-linux-gnu/qt5/examples/vulkan"
SDL2_TESTVULKAN = "/usr/libexec/installed-tests/SDL2/testvulkan"
ZINK = {"LIBGL_ALWAYS_SOFTWARE": "1", "GALLIUM_DRIVER": "zink"}
LLVMPIPE = "llvmpipe (LLVM 15.0.6, 256 bits)"

# What these programs are known to leave or do (true findings, the validation layer agrees):
# (kind, object type) -> object count, or None for "at least one".
ZINK_LEFTOVERS = {("leak_at_exit", "VkImage"): 2, ("leak_at_exit", "VkImageView"): 2,
                  ("leak_at_exit", "VkDeviceMemory"): 1}
MPV_INSTANCE = {("leak_at_exit", "VkInstance"): 1}
GFXRECON_REPLAY = {("destroyed_in_flight", "VkCommandBuffer"): None}


def require_file(path, package):
    if not os.path.exists(path):
        raise unittest.SkipTest(f"{path} not installed ({package})")


def require_tool(tool, package):
    if not shutil.which(tool):
        raise unittest.SkipTest(f"{tool} not installed ({package})")


# --- Xlib through ctypes: resize a window, ask it to close (Xvfb has no window manager) ---

class _XClientMessageEvent(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                ("display", ctypes.c_void_p), ("window", ctypes.c_ulong),
                ("message_type", ctypes.c_ulong), ("format", ctypes.c_int),
                ("data", ctypes.c_long * 5)]


class _XEvent(ctypes.Union):
    _fields_ = [("xclient", _XClientMessageEvent), ("pad", ctypes.c_long * 24)]


class _XWindowAttributes(ctypes.Structure):
    _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int), ("width", ctypes.c_int),
                ("height", ctypes.c_int), ("border_width", ctypes.c_int), ("depth", ctypes.c_int),
                ("visual", ctypes.c_void_p), ("root", ctypes.c_ulong), ("c_class", ctypes.c_int),
                ("bit_gravity", ctypes.c_int), ("win_gravity", ctypes.c_int),
                ("backing_store", ctypes.c_int), ("backing_planes", ctypes.c_ulong),
                ("backing_pixel", ctypes.c_ulong), ("save_under", ctypes.c_int),
                ("colormap", ctypes.c_ulong), ("map_installed", ctypes.c_int),
                ("map_state", ctypes.c_int), ("all_event_masks", ctypes.c_long),
                ("your_event_mask", ctypes.c_long), ("do_not_propagate_mask", ctypes.c_long),
                ("override_redirect", ctypes.c_int), ("screen", ctypes.c_void_p)]


class Xlib:
    """The few Xlib calls the tests need, on their own connection to the display."""

    def __init__(self, display):
        name = ctypes.util.find_library("X11") or "libX11.so.6"
        x = ctypes.CDLL(name)
        vp, ul = ctypes.c_void_p, ctypes.c_ulong
        x.XOpenDisplay.restype = vp
        x.XOpenDisplay.argtypes = [ctypes.c_char_p]
        x.XDefaultRootWindow.restype = ul
        x.XDefaultRootWindow.argtypes = [vp]
        x.XQueryTree.argtypes = [vp, ul, ctypes.POINTER(ul), ctypes.POINTER(ul),
                                 ctypes.POINTER(ctypes.POINTER(ul)), ctypes.POINTER(ctypes.c_uint)]
        x.XGetWindowAttributes.argtypes = [vp, ul, ctypes.POINTER(_XWindowAttributes)]
        x.XResizeWindow.argtypes = [vp, ul, ctypes.c_uint, ctypes.c_uint]
        x.XInternAtom.restype = ul
        x.XInternAtom.argtypes = [vp, ctypes.c_char_p, ctypes.c_int]
        x.XSendEvent.argtypes = [vp, ul, ctypes.c_int, ctypes.c_long, ctypes.POINTER(_XEvent)]
        x.XSync.argtypes = [vp, ctypes.c_int]
        x.XFree.argtypes = [vp]
        x.XCloseDisplay.argtypes = [vp]
        self.x = x
        self.dpy = x.XOpenDisplay(display.encode())
        if not self.dpy:
            raise AssertionError(f"cannot open display {display}")

    def close(self):
        self.x.XCloseDisplay(self.dpy)

    def top_level_windows(self):
        """Viewable windows that are children of the root (no window manager reparents them)."""
        root = self.x.XDefaultRootWindow(self.dpy)
        r, p, n = ctypes.c_ulong(), ctypes.c_ulong(), ctypes.c_uint()
        kids = ctypes.POINTER(ctypes.c_ulong)()
        if not self.x.XQueryTree(self.dpy, root, ctypes.byref(r), ctypes.byref(p),
                                 ctypes.byref(kids), ctypes.byref(n)):
            return []
        found = []
        for i in range(n.value):
            attrs = _XWindowAttributes()
            if (self.x.XGetWindowAttributes(self.dpy, kids[i], ctypes.byref(attrs))
                    and attrs.map_state == 2 and not attrs.override_redirect):  # IsViewable
                found.append(kids[i])
        if kids:
            self.x.XFree(kids)
        return found

    def wait_window(self, proc, timeout=60):
        end = time.monotonic() + timeout
        while time.monotonic() < end and proc.poll() is None:
            windows = self.top_level_windows()
            if windows:
                return windows[0]
            time.sleep(0.2)
        raise AssertionError("the program's window never appeared"
                             + (f" (it exited {proc.returncode})" if proc.poll() is not None
                                else ""))

    def resize(self, window, width, height):
        self.x.XResizeWindow(self.dpy, window, width, height)
        self.x.XSync(self.dpy, 0)

    def request_close(self, window):
        """What a window manager's close button sends: WM_PROTOCOLS / WM_DELETE_WINDOW."""
        ev = _XEvent()
        ev.xclient.type = 33  # ClientMessage
        ev.xclient.window = window
        ev.xclient.message_type = self.x.XInternAtom(self.dpy, b"WM_PROTOCOLS", 0)
        ev.xclient.format = 32
        ev.xclient.data[0] = self.x.XInternAtom(self.dpy, b"WM_DELETE_WINDOW", 0)
        self.x.XSendEvent(self.dpy, window, 0, 0, ctypes.byref(ev))
        self.x.XSync(self.dpy, 0)


def default_sigint():
    """In the child before exec: SIGINT and SIGQUIT back to their defaults. A shell's background
    job starts with them ignored, the ignored disposition survives exec, and a program (SDL)
    installs its own SIGINT handler only over the default one."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


# --- Interactions, run while the program runs (proc is `vkleak run`, which forwards SIGINT) ---

def resize_then_end(resizes, settle=0.4, close=False):
    """Resizes the window `resizes` times (each resize re-creates the swapchain), then ends the
    program with SIGINT, or with WM_DELETE_WINDOW when close is set."""
    def interact(proc, display):
        x = Xlib(display)
        try:
            window = x.wait_window(proc)
            time.sleep(1.0)
            for i in range(resizes):
                if proc.poll() is not None:
                    break
                # Alternating sizes, so every resize changes the swapchain extent.
                x.resize(window, 320 + 48 * (i % 5) + 16 * (i % 2), 240 + 36 * (i % 4))
                time.sleep(settle)
            time.sleep(1.0)
            if close and proc.poll() is None:
                x.request_close(window)
        finally:
            x.close()
        if not close and proc.poll() is None:
            proc.send_signal(signal.SIGINT)
    interact.description = (f"{resizes} XResizeWindow, {settle} s apart, then "
                            + ("WM_DELETE_WINDOW" if close else "SIGINT"))
    return interact


def close_after(secs):
    def interact(proc, display):
        x = Xlib(display)
        try:
            window = x.wait_window(proc)
            time.sleep(secs)
            if proc.poll() is None:
                x.request_close(window)
        finally:
            x.close()
    interact.description = f"WM_DELETE_WINDOW {secs} s after the window appears"
    return interact


# --- The programs ---

class Variant:
    """One way to run one program: cmd(tmp) -> argv, extra env, whether it needs a display, an
    interaction (run while the program runs; it ends the program when the program does not end
    by itself), the findings it is known to have (true ones), the cadences it runs at, and how
    long it may take."""

    def __init__(self, program, name, cmd, env=None, display=False, interact=None,
                 expected=None, cadences=CADENCES, timeout=240):
        self.program, self.name, self.cmd = program, name, cmd
        self.env = env or {}
        self.display = display or interact is not None
        self.interact = interact
        self.expected = expected or {}
        self.cadences = cadences
        self.timeout = timeout

    @property
    def label(self):
        return f"{self.program}-{self.name}"


def make_clip(tmp, secs, rate):
    path = os.path.join(tmp, f"clip-{secs}s-{rate}fps.mkv")
    if not os.path.exists(path):
        run(["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
             f"testsrc=size=320x240:rate={rate}", "-t", str(secs), "-c:v", "libx264", "-preset",
             "ultrafast", path], base_env(tmp))
    return path


def qt6(secs, toggle_ms):
    return Variant("qt6", f"{secs}s-toggle{toggle_ms}",
                   lambda tmp: [QT6_QML, QT6_SCENE, "--", str(secs), str(toggle_ms)],
                   env={"QSG_RHI_BACKEND": "vulkan"}, display=True)


def gstreamer(buffers, middle=None, sink=None):
    """videotestsrc ! vulkanupload ! MIDDLE (vulkancolorconvert to RGBA) ! vulkandownload !
    fakesink, or ! SINK (vulkansink: a window) after MIDDLE."""
    middle = middle or ["vulkancolorconvert", "!", "video/x-raw(memory:VulkanImage),format=RGBA"]
    tail = sink.split() if sink else ["vulkandownload", "!", "fakesink"]
    pipeline = (["videotestsrc", f"num-buffers={buffers}", "!",
                 "video/x-raw,width=320,height=240", "!", "vulkanupload", "!"] + middle + ["!"]
                + tail)
    name = f"buffers{buffers}"
    if middle[0] != "vulkancolorconvert" or sink:
        name = "-".join([middle[0].replace("vulkan", "")] + (sink.split()[:1] if sink else [])
                        ) + "-" + name
    return Variant("gstreamer", name, lambda tmp: ["gst-launch-1.0", "-q"] + pipeline,
                   display=bool(sink))


def sdl2(resizes):
    return Variant("sdl2", f"resize{resizes}", lambda tmp: [SDL2_TESTVULKAN],
                   interact=resize_then_end(resizes))


def qt5(example, secs=None, resizes=0):
    name = f"{example}-{secs}s" if not resizes else f"{example}-resize{resizes}"
    return Variant("qt5", name, lambda tmp: [os.path.join(QT5_EXAMPLES, example, example)],
                   interact=(resize_then_end(resizes, close=True) if resizes
                             else close_after(secs)))


def glmark2(duration):
    return Variant("glmark2", f"default-{duration}s",
                   lambda tmp: ["glmark2", "-b", f":duration={duration}", "--size", "320x240"],
                   env=ZINK, display=True, expected=ZINK_LEFTOVERS)


def mpv(vo, secs, rate):
    return Variant("mpv", f"{vo}-{secs}s{rate}fps",
                   lambda tmp: ["mpv", "--no-config", "--untimed", "--gpu-api=vulkan",
                                "--gpu-context=x11vk", f"--vulkan-device={LLVMPIPE}",
                                "--ao=null", f"--vo={vo}", make_clip(tmp, secs, rate)],
                   display=True, expected=MPV_INSTANCE)


def ffmpeg(vf, secs):
    return Variant("ffmpeg", f"{vf.split('=')[0]}-{secs}s",
                   lambda tmp: ["ffmpeg", "-nostdin", "-loglevel", "error", "-init_hw_device",
                                "vulkan=vk:0", "-filter_hw_device", "vk", "-i",
                                make_clip(tmp, secs, 25), "-vf",
                                f"format=yuv420p,hwupload,{vf},hwdownload,format=yuv420p",
                                "-f", "null", "-"])


def vkcube(frames):
    return Variant("vkcube", f"c{frames}", lambda tmp: ["vkcube", "--c", str(frames)],
                   display=True)


def gfxrecon_replay(frames):
    def cmd(tmp):
        return ["gfxrecon-replay", os.path.join(tmp, f"cube-{frames}.gfxr")]
    v = Variant("gfxrecon", f"replay-vkcube{frames}", cmd, display=True,
                expected=GFXRECON_REPLAY)
    v.capture_frames = frames
    return v


def capture(tmp, display, frames):
    """A gfxreconstruct capture of vkcube, without vkleak."""
    path = os.path.join(tmp, f"cube-{frames}.gfxr")
    if not os.path.exists(path):
        env = without_layer_env(tmp, (GFXRECON,))
        env.update(DISPLAY=display, GFXRECON_CAPTURE_FILE=path,
                   GFXRECON_CAPTURE_FILE_TIMESTAMP="false", XDG_RUNTIME_DIR=runtime_dir(tmp))
        run(["vkcube", "--c", str(frames)], env)
    return path


def runtime_dir(tmp):
    path = os.path.join(tmp, "xdg-runtime")
    os.makedirs(path, mode=0o700, exist_ok=True)
    return path


# --- Running one variant at one cadence, and what the analysis says about it ---

class Result:
    def __init__(self, variant, every, out, returncode, wall, stdout, stderr):
        self.variant, self.every, self.out = variant, every, out
        self.returncode, self.wall = returncode, wall
        self.stdout, self.stderr = stdout, stderr
        self.timed_out = False
        self.report = None
        self.gate = None

    def findings(self):
        return self.report["findings"]

    def counts(self):
        """{(kind, type): objects}: each finding's own objects, and the views folded into it (a
        view of a leaked image is part of that leak, one block: issue 36)."""
        found = {}
        for f in self.findings():
            key = (f["kind"], f["object_type"])
            found[key] = found.get(key, 0) + f["count"]
            for r in f["related"]:
                if r["relation"] == "views":
                    key = (f["kind"], r["type"])
                    found[key] = found.get(key, 0) + r["count"]
        return found

    def unexpected(self):
        """Findings that are not the program's known-true ones (a known kind and type with the
        wrong count is unexpected too)."""
        counts = self.counts()
        wrong = []
        for f in self.findings():
            key = (f["kind"], f["object_type"])
            want = self.variant.expected.get(key, 0)
            if key not in self.variant.expected or (want is not None and counts[key] != want):
                wrong.append(f)
        return wrong

    def missing(self):
        counts = self.counts()
        return [k for k in self.variant.expected if k not in counts]

    def periodic(self):
        return [s for run_ in self.report["runs"] for s in run_["snapshots"]
                if s["reason"] == "frame"]


def describe(findings):
    """One line per finding: kind, type, count, where it was made (the innermost application
    frame, and the innermost frame with a function name when that one has none), message."""
    lines = []
    for f in findings:
        where = f.get("callsite_summary") or "(no call site)"
        named = [fr["function"] for fr in f.get("callsite_frames") or []
                 if fr.get("function") and not fr["function"].startswith(("__libc", "_start"))]
        if named and named[0] not in where:
            where += f" ({named[0].split('(')[0]})"
        names = f.get("name_pattern") or ""
        lines.append(f"  {f['kind']} {f['object_type']} x{f['count']} at {where}"
                     + (f" name {names!r}" if names else "") + f": {f['message']}")
    return "\n".join(lines)


def run_variant(variant, every, out, tmp, display=None, vkleak=VKLEAK, log=print):
    """`vkleak run --out OUT --every N -- PROGRAM` with the loader isolated (lavapipe only);
    returns the Result with the report (JSON) and the gate's exit code. A program still running
    after variant.timeout seconds is killed with its process group (the run then has no final
    snapshot, and the gate says it is incomplete)."""
    shutil.rmtree(out, ignore_errors=True)
    env = base_env(tmp)
    env["XDG_RUNTIME_DIR"] = runtime_dir(tmp)
    if display:
        env["DISPLAY"] = display
    env.update(variant.env)
    cmd = [vkleak, "run", "--out", out, "--every", str(every), "--"] + variant.cmd(tmp)
    logs = os.path.join(tmp, "logs")
    os.makedirs(logs, exist_ok=True)
    stem = os.path.join(logs, f"{variant.label}-every{every}")
    start = time.monotonic()
    with open(stem + ".stdout", "w+") as so, open(stem + ".stderr", "w+") as se:
        proc = subprocess.Popen(cmd, env=env, stdout=so, stderr=se, stdin=subprocess.DEVNULL,
                                preexec_fn=default_sigint, start_new_session=True)
        timed_out = False
        try:
            if variant.interact:
                variant.interact(proc, display)
            proc.wait(timeout=max(1, variant.timeout - (time.monotonic() - start)))
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        wall = time.monotonic() - start
        so.seek(0)
        se.seek(0)
        result = Result(variant, every, out, proc.returncode, wall, so.read(), se.read())
    result.timed_out = timed_out
    log(f"\n  {variant.label} --every {every}: {wall:.1f} s, exit {proc.returncode}"
        + (" (timed out, killed)" if timed_out else ""))
    analyze(result, base_env(tmp), vkleak)
    return result


def analyze(result, env, vkleak=VKLEAK):
    proc = run([vkleak, "report", result.out, "--format", "json"], env, check=False)
    if proc.returncode not in (0, 1):
        raise AssertionError(f"vkleak report exited {proc.returncode}: {proc.stderr[-2000:]}")
    result.report = json.loads(proc.stdout)
    suppressions = os.path.join(result.out + ".suppressions")
    gate = [vkleak, "gate", result.out]
    if result.variant.expected:
        # The known-true findings, by kind and type; their counts are checked on the report.
        with open(suppressions, "w") as f:
            for kind, vk_type in result.variant.expected:
                f.write(f"kind={kind} type={vk_type}\n")
        gate += ["--suppressions", suppressions]
    result.gate = run(gate, env, check=False)
    return result


# --- The tests ---

class PrecisionTestCase(TempDirTestCase):
    """Runs variants at cadences and collects every failure, so one test reports all of its
    programs' false findings at once."""

    MIN_PERIODIC = 4

    def setUp(self):
        super().setUp()
        self.failures = []

    def check(self, variant, cadences=None, display=None, min_periodic=None):
        cadences = cadences or variant.cadences
        for every in cadences:
            out = os.path.join(self.tmp, f"{variant.label}-every{every}")
            try:
                r = run_variant(variant, every, out, self.tmp, display)
            except AssertionError as e:  # no window, a report that failed: the next run still runs
                self.failures.append(f"{variant.label} --every {every}:\n{e}")
                continue
            self.judge(r, min_periodic or self.MIN_PERIODIC)
            if every == max(cadences):  # the fewest snapshots: the cheapest to re-write
                self.check_any_order(r)
            if CORPUS:
                kept = os.path.join(CORPUS, os.path.basename(out))
                shutil.rmtree(kept, ignore_errors=True)
                shutil.copytree(out, kept)
            if os.environ.get("VKLEAK_KEEP_TMP") != "1":
                shutil.rmtree(out, ignore_errors=True)  # glmark2 at --every 10: 170 MB

    def judge(self, r, min_periodic):
        what = f"{r.variant.label} --every {r.every}"
        problems = []
        if r.timed_out:
            problems.append(f"still running after {r.variant.timeout} s: killed")
        if r.returncode != 0:
            problems.append(f"vkleak run exited {r.returncode}\nstderr:\n{r.stderr[-3000:]}")
        if r.gate.returncode == 3:
            problems.append(f"incomplete run (gate exit 3): {r.gate.stderr[-2000:]}")
        incomplete = [i for run_ in r.report["runs"] for i in run_.get("incomplete", [])]
        if incomplete:
            problems.append(f"incomplete: {incomplete}")
        periodic = r.periodic()
        if len(periodic) < min_periodic:
            problems.append(f"only {len(periodic)} periodic snapshots (need {min_periodic}): "
                            "the run could not show a false finding")
        wrong = r.unexpected()
        if wrong:
            problems.append(f"{len(wrong)} false finding(s):\n{describe(wrong)}")
        if r.missing():
            problems.append(f"known-true findings missing: {r.missing()}")
        if r.gate.returncode not in (0, 3):
            problems.append(f"vkleak gate exited {r.gate.returncode} (want 0)")
        elif r.gate.returncode == 0 and wrong:
            problems.append("vkleak gate passed although the report has false findings")
        frames = [s["frame"] for s in periodic]
        print(f"  {what}: {len(periodic)} periodic snapshots (frames {frames[:1]}..{frames[-1:]}),"
              f" {len(r.findings())} finding(s), gate {r.gate.returncode}", flush=True)
        if problems:
            self.failures.append(f"{what}:\n" + "\n".join(problems))

    def check_any_order(self, r):
        """Findings are a pure function of what the program did (issue 36): the run's snapshots
        re-written in a random order, every handle value remapped, give the same report."""
        diff = snapshot_shuffle.order_difference(VKLEAK, r.out, r.out + "-reordered", SHUFFLE_SEED,
                                                 remap_handles=True)
        print(f"  {r.variant.label} --every {r.every}: the same report in another order and "
              f"handles: {'no' if diff else 'yes'}", flush=True)
        if diff:
            self.failures.append(f"{r.variant.label} --every {r.every}: findings differ with the "
                                 f"snapshots re-ordered and handles remapped: {diff}")

    def done(self):
        if self.failures:
            self.fail("\n\n".join(self.failures))


def pick(full, ci):
    return full if FULL else ci


class Qt6QuickTest(PrecisionTestCase):
    def test_qt6_quick_vulkan(self):
        """The item with layer.enabled swapped every 300 ms and every second, for 6 s and 15 s:
        the short run with the 300 ms toggle at every cadence, the others at one or two (all
        of them with VKLEAK_PRECISION_FULL=1)."""
        require_file(QT6_QML, "qml-qt6")
        require_file(os.path.join(QT6_QML_DIR, "QtQuick/Window/qmldir"),
                     "qml6-module-qtquick-window")
        require_file(os.path.join(QT6_QML_DIR, "QtQml/WorkerScript/qmldir"),
                     "qml6-module-qtqml-workerscript")
        plan = pick([(qt6(6, 300), CADENCES), (qt6(6, 1000), CADENCES),
                     (qt6(15, 300), CADENCES), (qt6(15, 1000), CADENCES)],
                    [(qt6(6, 300), CADENCES), (qt6(6, 1000), (50,)),
                     (qt6(15, 300), (100,)), (qt6(15, 1000), (10, 50))])
        with xvfb() as display:
            for variant, cadences in plan:
                self.check(variant, cadences, display)
        self.done()


class GStreamerTest(PrecisionTestCase):
    def test_gstreamer_vulkan_elements(self):
        require_tool("gst-launch-1.0", "gstreamer1.0-tools")
        env = base_env(self.tmp)
        if run(["gst-inspect-1.0", "vulkancolorconvert"], env, check=False).returncode != 0:
            raise unittest.SkipTest("GStreamer's Vulkan elements not installed "
                                    "(gstreamer1.0-plugins-bad)")
        for variant in (gstreamer(300), gstreamer(3000)):
            self.check(variant, CADENCES)
        self.done()


class SDL2Test(PrecisionTestCase):
    def test_sdl2_testvulkan_resized(self):
        require_file(SDL2_TESTVULKAN, "libsdl2-tests")
        with xvfb() as display:
            self.check(sdl2(16), CADENCES, display)
        self.done()


class Qt5VulkanWindowTest(PrecisionTestCase):
    def test_qt5_vulkan_examples(self):
        require_file(os.path.join(QT5_EXAMPLES, "hellovulkancubes/hellovulkancubes"),
                     "qtbase5-examples")
        # (example, seconds, cadence): hellovulkancubes draws ~50 frames a second here, the
        # others ~110; every cadence over the three examples, each at every cadence with FULL.
        plan = (("hellovulkancubes", 4, 10), ("hellovulkantexture", 5, 50),
                ("hellovulkanwidget", 8, 100))
        with xvfb() as display:
            for example, secs, every in plan:
                if FULL:
                    self.check(qt5(example, 12), CADENCES, display)
                else:
                    self.check(qt5(example, secs), (every,), display)
        self.done()


class Glmark2ZinkTest(PrecisionTestCase):
    def test_glmark2_default_scenes_through_zink(self):
        """Every default scene, briefly; only zink's known leftovers at vkDestroyDevice."""
        require_tool("glmark2", "glmark2-x11")
        with xvfb() as display:
            self.check(glmark2(0.3), CADENCES, display)
        self.done()


class EarlierProgramsTest(PrecisionTestCase):
    def test_mpv(self):
        require_tool("mpv", "mpv")
        require_tool("ffmpeg", "ffmpeg")
        with xvfb() as display:
            for vo in ("gpu-next", "gpu"):
                self.check(mpv(vo, 5, 100), CADENCES, display)
        self.done()

    def test_ffmpeg_vulkan_filters(self):
        require_tool("ffmpeg", "ffmpeg")
        for vf in ("scale_vulkan=w=160:h=120", "hflip_vulkan", "libplacebo=w=160:h=120"):
            self.check(ffmpeg(vf, 10), CADENCES)
        self.done()

    def test_vkcube(self):
        require_tool("vkcube", "vulkan-tools")
        with xvfb() as display:
            self.check(vkcube(500), CADENCES, display)
        self.done()

    def test_gfxreconstruct_replay(self):
        require_tool("vkcube", "vulkan-tools")
        require_tool("gfxrecon-replay", "gfxreconstruct")
        if not os.path.exists(EXPLICIT_LAYERS[GFXRECON]):
            raise unittest.SkipTest("gfxreconstruct's capture layer not installed")
        variant = gfxrecon_replay(500)
        with xvfb() as display:
            capture(self.tmp, display, variant.capture_frames)
            self.check(variant, CADENCES, display)
        self.done()


if __name__ == "__main__":
    unittest.main()
