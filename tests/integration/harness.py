"""Shared helpers for the integration tests: an isolated Vulkan loader environment on lavapipe,
the three ways to activate the layer, Xvfb, and snapshot loading + schema validation."""

import contextlib
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest

BUILD = os.environ.get("VKLEAK_TEST_BUILD_DIR", os.path.join(os.path.dirname(__file__), "../../build"))
SOURCE = os.environ.get("VKLEAK_TEST_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "../.."))
# "address", "thread", or "" for the main tree (CMake's option may pass OFF: no sanitizer).
SANITIZE = os.environ.get("VKLEAK_TEST_SANITIZE", "")
if SANITIZE.upper() in ("OFF", "FALSE", "NO", "0"):
    SANITIZE = ""
LAVAPIPE_ICD = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
LAYER_NAME = "VK_LAYER_VKLEAK_tracker"
VALIDATION = "VK_LAYER_KHRONOS_validation"
SCHEMA_PATH = os.path.join(SOURCE, "src/schema/vkleak-snapshot.schema.json")
VKLEAK = os.path.join(BUILD, "bin/vkleak")
EXPLICIT_MANIFEST_DIR = os.path.join(BUILD, "manifest/build")
IMPLICIT_DATA_HOME = os.path.join(BUILD, "manifest/build-implicit")


def scenario(name):
    return os.path.join(BUILD, "tests/scenarios", name)


def base_env(tmp):
    """The loader isolated from the machine: lavapipe only, Mesa's implicit device-select layer
    off, no user/vendor layer paths, an empty XDG data home, no vkleak settings leaking in."""
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("VK_") or k.startswith("VKLEAK_") or k.startswith("XDG_"))}
    env["VK_DRIVER_FILES"] = LAVAPIPE_ICD
    env["VK_LOADER_LAYERS_DISABLE"] = "VK_LAYER_MESA_device_select"
    env["XDG_DATA_HOME"] = os.path.join(tmp, "xdg-empty")
    env["XDG_CONFIG_HOME"] = os.path.join(tmp, "xdg-config-empty")
    env["HOME"] = tmp
    env["VK_LAYER_SETTINGS_PATH"] = os.path.join(tmp, "no-settings")
    env.pop("DISPLAY", None)
    if SANITIZE == "address":
        # The layer is ASan-instrumented but the apps (vkcube, glmark2) may not be.
        libasan = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True,
                                 text=True).stdout.strip()
        env["LD_PRELOAD"] = libasan
        # allocator_may_return_null: a driver's malloc of a huge size fails as it would
        # without ASan (the OOM scenarios), instead of ASan aborting the process.
        env["ASAN_OPTIONS"] = ("detect_leaks=0:abort_on_error=0:exitcode=86:"
                               "allocator_may_return_null=1")
        env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1:exitcode=87"
    return env


# Third-party layers the stacking tests put above and below ours. Explicit ones by manifest;
# implicit ones (always above explicit layers) by the variable that switches them on.
GFXRECON = "VK_LAYER_LUNARG_gfxreconstruct"
MANGOHUD = "VK_LAYER_MANGOHUD_overlay"
VKBASALT = "VK_LAYER_VKBASALT_post_processing"
EXPLICIT_LAYERS = {
    VALIDATION: "/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json",
    GFXRECON: "/usr/share/vulkan/explicit_layer.d/VkLayer_gfxreconstruct.json",
}
IMPLICIT_LAYERS = {
    MANGOHUD: ("/usr/share/vulkan/implicit_layer.d/MangoHud.json", "MANGOHUD"),
    VKBASALT: ("/usr/share/vulkan/implicit_layer.d/vkBasalt.json", "ENABLE_VKBASALT"),
}
# run() checks every layer chain the loader reports against this (app side first).
EXPECTED_CHAIN_VAR = "TEST_EXPECTED_LAYER_CHAIN"


def require_layers(*names):
    for name in names:
        manifest = EXPLICIT_LAYERS.get(name) or IMPLICIT_LAYERS.get(name, (None,))[0]
        if not manifest or not os.path.exists(manifest):
            raise unittest.SkipTest(f"layer {name} not installed")


def stack_env(tmp, out_dir, above=(), below=()):
    """The layer with others above it (closer to the application) and below it (closer to the
    driver), in exactly that order.

    Loader 1.3.239 chains explicit layers in manifest-discovery order (VK_LAYER_PATH's order),
    not VK_INSTANCE_LAYERS' order, so each explicit layer gets a manifest directory of its own,
    listed in chain order. Implicit layers sit above every explicit one: with one below ours,
    ours is made implicit too and found first (XDG_DATA_HOME is searched before XDG_DATA_DIRS).
    The loader's own report of the chain (VK_LOADER_DEBUG=layer) is checked by run()."""
    env = base_env(tmp)
    implicit_below = [n for n in below if n in IMPLICIT_LAYERS]
    for name in list(above) + list(below):
        if name in IMPLICIT_LAYERS:
            env[IMPLICIT_LAYERS[name][1]] = "1"
        elif name not in EXPLICIT_LAYERS:
            raise ValueError(f"unknown layer {name}")
    if implicit_below and any(n in EXPLICIT_LAYERS for n in above):
        raise ValueError("an explicit layer cannot sit above an implicit one")
    paths = []
    for name in list(above) + [LAYER_NAME] + list(below):
        if name == LAYER_NAME:
            if not implicit_below:
                paths.append(EXPLICIT_MANIFEST_DIR)
        elif name in EXPLICIT_LAYERS:
            d = os.path.join(tmp, "layers", name)
            os.makedirs(d, exist_ok=True)
            shutil.copy(EXPLICIT_LAYERS[name], d)
            paths.append(d)
    explicit = [n for n in list(above) + [LAYER_NAME] + list(below)
                if n in EXPLICIT_LAYERS or (n == LAYER_NAME and not implicit_below)]
    if implicit_below:
        env["XDG_DATA_HOME"] = IMPLICIT_DATA_HOME
        env["VKLEAK_ENABLE"] = "1"
    if paths:
        env["VK_LAYER_PATH"] = ":".join(paths)
    if explicit:
        env["VK_INSTANCE_LAYERS"] = ":".join(explicit)
    env["VKLEAK_OUTPUT_DIR"] = out_dir
    if above or below:
        env["VK_LOADER_DEBUG"] = "layer"
        env[EXPECTED_CHAIN_VAR] = ":".join(list(above) + [LAYER_NAME] + list(below))
    return env


def explicit_env(tmp, out_dir, extra_layers_before=(), extra_layers_after=()):
    """VK_INSTANCE_LAYERS + VK_LAYER_PATH: the explicit activation. Layers in
    extra_layers_before sit above ours (closer to the application), those in
    extra_layers_after below it; the chain is checked (see stack_env)."""
    return stack_env(tmp, out_dir, extra_layers_before, extra_layers_after)


def without_layer_env(tmp, layers=()):
    """The same programs and third-party layers, without ours (for baselines)."""
    env = base_env(tmp)
    explicit = [n for n in layers if n in EXPLICIT_LAYERS]
    for name in layers:
        if name in IMPLICIT_LAYERS:
            env[IMPLICIT_LAYERS[name][1]] = "1"
    if explicit:
        env["VK_LAYER_PATH"] = ":".join(os.path.dirname(EXPLICIT_LAYERS[n]) for n in explicit)
        env["VK_INSTANCE_LAYERS"] = ":".join(explicit)
    return env


CHAIN_START = re.compile(r"vk(Create(?:Instance|Device)) layer callstack setup to:")
CHAIN_LAYER = re.compile(r"LAYER:\s+(VK_LAYER_\w+)\s*$")


def layer_chains(stderr):
    """Each layer chain the loader reported (VK_LOADER_DEBUG=layer): [(what, [layers, app side
    first])], one per vkCreateInstance and vkCreateDevice."""
    chains = []
    current = None
    for line in stderr.splitlines():
        m = CHAIN_START.search(line)
        if m:
            current = (m.group(1), [])
            chains.append(current)
            continue
        if current is None:
            continue
        if "<Drivers>" in line or "<Device>" in line:
            current = None
            continue
        m = CHAIN_LAYER.search(line)
        if m:
            current[1].append(m.group(1))
    return chains


def check_chain(proc, env):
    """Every chain the loader built is the one the test asked for (and there was one)."""
    expected = env.get(EXPECTED_CHAIN_VAR)
    if not expected:
        return
    expected = expected.split(":")
    chains = layer_chains(proc.stderr)
    if not chains:
        raise AssertionError(f"the loader reported no layer chain (VK_LOADER_DEBUG=layer)\n"
                             f"stderr:\n{proc.stderr[-3000:]}")
    for what, layers in chains:
        if layers != expected:
            raise AssertionError(f"vk{what}: layer chain {layers}, expected {expected}")


def implicit_env(tmp, out_dir, enable=True, disable=False):
    env = base_env(tmp)
    env["XDG_DATA_HOME"] = IMPLICIT_DATA_HOME
    env["VKLEAK_OUTPUT_DIR"] = out_dir
    if enable:
        env["VKLEAK_ENABLE"] = "1"
    if disable:
        env["VKLEAK_DISABLE"] = "1"
    return env


def vkleak_checked(args, expect=0):
    """The CLI with the test's environment (no debuginfod lookups); fails unless it exits
    `expect`, showing the end of its output."""
    proc = subprocess.run([VKLEAK] + args, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "DEBUGINFOD_URLS": ""})
    if proc.returncode != expect:
        raise AssertionError(f"vkleak {args} exited {proc.returncode}, expected {expect}\n"
                             f"stdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}")
    return proc


def run(cmd, env, timeout=300, check=True):
    """Runs cmd; with check, a non-zero exit fails. A stacked run's layer chain is always
    checked (stack_env)."""
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout,
                          errors="replace")
    check_chain(proc, env)
    if check and proc.returncode != 0:
        raise AssertionError(f"{cmd} exited {proc.returncode}\nstdout:\n{proc.stdout[-4000:]}\n"
                             f"stderr:\n{proc.stderr[-4000:]}")
    return proc


# vkleak-<pid>-<runid>-<seq>-<reason>.json; layers before run ids wrote no run id.
SNAPSHOT_RE = re.compile(r"vkleak-(\d+)-(?:([0-9a-f]{16})-)?(\d+)-([a-z_]+)\.json$")


def snapshot_files(out_dir):
    """The snapshot files in out_dir, by (pid, run id, sequence)."""
    files = []
    for path in glob.glob(os.path.join(out_dir, "vkleak-*.json")):
        m = SNAPSHOT_RE.search(path)
        if m:
            files.append((int(m.group(1)), m.group(2) or "", int(m.group(3)), path))
    return [p for _, _, _, p in sorted(files)]


def load(path):
    with open(path) as f:
        return json.load(f)


def snapshots(out_dir, reason=None):
    snaps = [load(p) for p in snapshot_files(out_dir)]
    return [s for s in snaps if reason is None or s["reason"] == reason]


_validator = None


def validate(snapshot):
    """Validates against the JSON Schema in the repo (jsonschema, Draft 2020-12)."""
    global _validator
    if _validator is None:
        import jsonschema
        with open(SCHEMA_PATH) as f:
            schema = json.load(f)
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        _validator = cls(schema)
    _validator.validate(snapshot)


def app_objects(snapshot):
    """Objects the application made: not the loader's retrieved handles (physical devices,
    queues) and not swapchain images (owned by their swapchain)."""
    return [o for o in snapshot["objects"] if o["origin"] in ("created", "allocated")]


def live_counts(snapshot):
    counts = {}
    for o in snapshot["objects"]:
        counts[o["type"]] = counts.get(o["type"], 0) + 1
    return counts


@contextlib.contextmanager
def xvfb():
    """Starts Xvfb on a free display number; yields the DISPLAY value."""
    if not shutil.which("Xvfb"):
        raise unittest.SkipTest("Xvfb not installed")
    r, w = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "1280x1024x24",
                             "-nolisten", "tcp"], pass_fds=(w,), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    os.close(w)
    try:
        with os.fdopen(r) as f:
            display = f.readline().strip()
        if not display:
            raise AssertionError("Xvfb did not start")
        yield ":" + display
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


class TempDirTestCase(unittest.TestCase):
    """Gives each test a fresh temporary directory (kept on failure when VKLEAK_KEEP_TMP=1), and
    the tests of a class runs they share (shared_run)."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls._shared_runs = {}

    @classmethod
    def tearDownClass(cls):
        if os.environ.get("VKLEAK_KEEP_TMP") != "1":
            for tmp, _ in cls._shared_runs.values():
                shutil.rmtree(tmp, ignore_errors=True)
        super().tearDownClass()

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="vkleak-test-")
        self.out = os.path.join(self.tmp, "snapshots")

    def tearDown(self):
        if os.environ.get("VKLEAK_KEEP_TMP") != "1":
            shutil.rmtree(self.tmp, ignore_errors=True)

    def shared_run(self, key, start):
        """A run the tests of this class share: only for tests that would each run the same
        program with the same arguments and environment, and then only read what it wrote.
        start(tmp, out) runs it once, given a temporary directory and snapshot directory of its
        own (as setUp's), and returns its result (a process, a path); each call copies the
        snapshots it wrote to self.out (which must not exist yet) and returns that result. A
        run that fails is not kept: the next test runs it again."""
        if key not in self._shared_runs:
            tmp = tempfile.mkdtemp(prefix="vkleak-shared-")
            try:
                result = start(tmp, os.path.join(tmp, "snapshots"))
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise
            self._shared_runs[key] = (tmp, result)
        tmp, result = self._shared_runs[key]
        out = os.path.join(tmp, "snapshots")
        if os.path.isdir(out):
            shutil.copytree(out, self.out, symlinks=True)
        return result


def wait_bounded(proc, timeout, what):
    """Waits for proc at most timeout seconds: (exit code, peak RSS in KiB of that child alone).
    A process still running then is killed and fails the test (a hang, not a hung suite)."""
    end = time.time() + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return proc.returncode, usage.ru_maxrss
        if time.time() > end:
            proc.kill()
            os.wait4(proc.pid, 0)
            raise AssertionError(f"{what} still running after {timeout} s: it hangs")
        time.sleep(0.02)
