"""Real third-party programs under the layer, each compared with the same run without it: mpv
(libplacebo, gpu-next and gpu), ffmpeg's Vulkan filters, glmark2 (OpenGL) through Mesa's zink with
periodic snapshots, and a gfxreconstruct capture replayed. Each must exit and print as it does
without the layer, and vkleak must find exactly what these programs are known to leave (see
/work/shared/REAL_PROGRAMS.md and tests/scenarios/README.md), nothing else.

Layer stacks (validation, gfxreconstruct, MangoHud, vkBasalt in both orders) are in
test_layer_stacking.py."""

import json
import os
import re
import shutil
import unittest

from harness import (VALIDATION, VKLEAK, TempDirTestCase, app_objects, base_env, explicit_env, run,
                     snapshots, validate, xvfb)

GLMARK2 = ["glmark2", "-b", "build:duration=1", "-b", "texture:duration=1", "--size", "320x240"]
ZINK = {"LIBGL_ALWAYS_SOFTWARE": "1", "GALLIUM_DRIVER": "zink"}
LLVMPIPE = "llvmpipe (LLVM 15.0.6, 256 bits)"

# "VkImage 0x55d0c3c0f0a0[] has not been destroyed" style messages from the validation layer's
# object lifetime check at vkDestroyDevice.
VVL_LEAK = re.compile(r"OBJ ERROR : For VkDevice 0x[0-9a-f]+\[?[^\]]*\]?, (Vk\w+) (0x[0-9a-f]+)")
VVL_LEAK_ALT = re.compile(r"(Vk\w+) (0x[0-9a-f]+)\[[^\]]*\] has not been destroyed")


def require(tool):
    if not shutil.which(tool):
        raise unittest.SkipTest(f"{tool} not installed")


def findings_of(out_dir, env, folded=None):
    """vkleak report's findings for the run in out_dir, as {(kind, type): object count}. With
    `folded` a dict, the objects folded into them (views of a leaked image: one block, issue 36)
    are added to it the same way, by relation type."""
    proc = run([VKLEAK, "report", out_dir, "--format", "json"], env, check=False)
    if proc.returncode not in (0, 1):
        raise AssertionError(f"vkleak report exited {proc.returncode}: {proc.stderr[-2000:]}")
    found = {}
    for f in json.loads(proc.stdout)["findings"]:
        key = (f["kind"], f["object_type"])
        found[key] = found.get(key, 0) + f["count"]
        for r in f["related"] if folded is not None else []:
            if r["relation"] == "views":
                key = (f["kind"], f["object_type"], r["type"])
                folded[key] = folded.get(key, 0) + r["count"]
    return found


def without_numbers(text):
    """Program output with its timings and rates masked (glmark2's FPS, frame times)."""
    return re.sub(r"\d+(\.\d+)?", "N", text)


class RealProgramsTest(TempDirTestCase):
    def setUp(self):
        super().setUp()
        self.runtime = os.path.join(self.tmp, "xdg-runtime")
        os.makedirs(self.runtime, mode=0o700)

    def env(self, with_layer, extra=None, display=None):
        env = explicit_env(self.tmp, self.out) if with_layer else base_env(self.tmp)
        env["XDG_RUNTIME_DIR"] = self.runtime
        if display:
            env["DISPLAY"] = display
        env.update(extra or {})
        return env

    def compare(self, cmd, extra=None, display=None, normalize=lambda s: s, timeout=300):
        """Runs cmd without and with the layer: same exit code and same output. Returns the
        run with the layer."""
        shutil.rmtree(self.out, ignore_errors=True)
        without = run(cmd, self.env(False, extra, display), timeout=timeout, check=False)
        self.assertEqual(without.returncode, 0, without.stderr[-3000:])
        with_layer = run(cmd, self.env(True, extra, display), timeout=timeout, check=False)
        self.assertEqual(with_layer.returncode, without.returncode, with_layer.stderr[-3000:])
        self.assertEqual(normalize(with_layer.stdout), normalize(without.stdout))
        snaps = snapshots(self.out)
        self.assertTrue(snaps, "no snapshot written")
        for s in snaps:
            validate(s)
        return with_layer

    def clip(self):
        """A 2 s test clip, made once for the tests that play or filter it (only read)."""
        def make(tmp, _):
            path = os.path.join(tmp, "clip.mkv")
            run(["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
                 "testsrc=size=320x240:rate=25", "-t", "2", "-c:v", "libx264", "-preset",
                 "ultrafast", path], base_env(tmp))
            return path
        return self.shared_run("clip", make)

    def test_mpv(self):
        """libplacebo calls debug-utils functions it never enabled (the layer crashed there);
        mpv's --vulkan-device check makes a VkInstance it never destroys: that is the one
        finding."""
        require("mpv")
        require("ffmpeg")
        clip = self.clip()
        with xvfb() as display:
            for vo in ("gpu-next", "gpu"):
                with self.subTest(vo=vo):
                    self.compare(["mpv", "--no-config", "--gpu-api=vulkan", "--gpu-context=x11vk",
                                  f"--vulkan-device={LLVMPIPE}", "--ao=null", f"--vo={vo}", clip],
                                 display=display)
                    reasons = [s["reason"] for s in snapshots(self.out)]
                    self.assertIn("device_destroy", reasons)
                    self.assertEqual(findings_of(self.out, base_env(self.tmp)),
                                     {("leak_at_exit", "VkInstance"): 1})

    def test_ffmpeg_vulkan_filters(self):
        """scale_vulkan, and libplacebo (which names objects without debug utils enabled): the
        same frames out (md5), nothing leaked."""
        require("ffmpeg")
        clip = self.clip()
        for vf in ("scale_vulkan=w=160:h=120", "libplacebo=w=160:h=120"):
            with self.subTest(filter=vf):
                proc = self.compare(
                    ["ffmpeg", "-nostdin", "-loglevel", "error", "-init_hw_device", "vulkan=vk:0",
                     "-filter_hw_device", "vk", "-i", clip, "-vf",
                     f"format=yuv420p,hwupload,{vf},hwdownload,format=yuv420p", "-f", "md5", "-"])
                self.assertIn("MD5=", proc.stdout)
                self.assertIn("device_destroy", [s["reason"] for s in snapshots(self.out)])
                self.assertEqual(findings_of(self.out, base_env(self.tmp)), {})

    def test_glmark2_through_zink_with_periodic_snapshots(self):
        """zink never presents: frames are counted at its submits, so --every takes snapshots;
        its batch states recycle command buffers and pools (not leaks). What it leaves at
        vkDestroyDevice: 2 VkImage (their 2 VkImageView folded into them), 1 VkDeviceMemory."""
        require("glmark2")
        with xvfb() as display:
            self.compare(GLMARK2, ZINK, display, normalize=without_numbers)
            shutil.rmtree(self.out, ignore_errors=True)
            env = self.env(False, ZINK, display)
            # One scene long enough for zink's batch states to level off (they grow with the
            # lag of lavapipe behind it, ever more slowly, and are freed at teardown).
            # --every 25: 4 periodic snapshots need 100 of zink's submits, which the 4 s scene
            # makes even under ASan on a busy machine (at 50 it made 2 there).
            proc = run([VKLEAK, "run", "--out", self.out, "--every", "25", "--", "glmark2", "-b",
                        "build:duration=4", "--size", "320x240"], env, check=False)
            self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
        snaps = snapshots(self.out)
        for s in snaps:
            validate(s)
        periodic = [s for s in snaps if s["reason"] == "frame"]
        self.assertGreaterEqual(len(periodic), 4, [s["reason"] for s in snaps])
        frames = [s["frame"] for s in snaps]
        self.assertEqual(frames, sorted(frames), "frames never go back")
        folded = {}
        self.assertEqual(findings_of(self.out, base_env(self.tmp), folded),
                         {("leak_at_exit", "VkImage"): 2, ("leak_at_exit", "VkDeviceMemory"): 1})
        self.assertEqual(folded, {("leak_at_exit", "VkImage", "VkImageView"): 2})

    def test_zink_leftovers_agree_with_validation_layer(self):
        """The validation layer's object tracker reports the same objects vkleak does, with it
        below ours and above."""
        require("glmark2")
        for before, after in (((), (VALIDATION,)), ((VALIDATION,), ())):
            with self.subTest(above=before, below=after), xvfb() as display:
                shutil.rmtree(self.out, ignore_errors=True)
                env = explicit_env(self.tmp, self.out, before, after)
                env.update(ZINK, DISPLAY=display, XDG_RUNTIME_DIR=self.runtime)
                proc = run(GLMARK2, env, check=False)
                self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
                output = proc.stdout + proc.stderr
                reported = {(t, h.lower())
                            for t, h in VVL_LEAK.findall(output) + VVL_LEAK_ALT.findall(output)}
                ours = set()
                for snap in snapshots(self.out, "device_destroy"):
                    ours |= {(o["type"], o["handle"]) for o in app_objects(snap)}
                self.assertTrue(ours, "zink is known to leave objects alive at vkDestroyDevice")
                if before:
                    # Above us, the validation layer wraps handles: it names what the app saw,
                    # we what the driver returned. The objects are the same kinds and count.
                    self.assertEqual(sorted(t for t, _ in ours), sorted(t for t, _ in reported))
                else:
                    self.assertEqual(ours, reported)

    def test_gfxreconstruct_replay(self):
        """A capture of vkcube (taken with vkleak below the capture layer) replayed under vkleak:
        the replay resets command buffers while their submissions are in flight, and that is
        the only finding."""
        require("vkcube")
        require("gfxrecon-replay")
        capture = os.path.join(self.tmp, "cube.gfxr")
        with xvfb() as display:
            env = explicit_env(self.tmp, os.path.join(self.tmp, "capture-snapshots"),
                               ("VK_LAYER_LUNARG_gfxreconstruct",))
            env.update(DISPLAY=display, GFXRECON_CAPTURE_FILE=capture,
                       GFXRECON_CAPTURE_FILE_TIMESTAMP="false", XDG_RUNTIME_DIR=self.runtime)
            run(["vkcube", "--c", "60"], env)
            self.assertGreater(os.path.getsize(capture), 1000)
            self.compare(["gfxrecon-replay", capture], display=display,
                         normalize=without_numbers)
        found = findings_of(self.out, base_env(self.tmp))
        self.assertEqual(list(found), [("destroyed_in_flight", "VkCommandBuffer")], found)
        self.assertGreater(found[("destroyed_in_flight", "VkCommandBuffer")], 0)


if __name__ == "__main__":
    unittest.main()
