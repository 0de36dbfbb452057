"""Real third-party Vulkan apps under the layer: vkcube, and glmark2 (OpenGL) through Mesa's
zink on lavapipe; alone, and with the validation layer stacked above and below ours."""

import re
import shutil
import unittest

from harness import (VALIDATION, TempDirTestCase, app_objects, base_env, explicit_env, run,
                     snapshots, validate, xvfb)

VKCUBE = ["vkcube", "--c", "300"]
GLMARK2 = ["glmark2", "-b", "build:duration=1", "-b", "texture:duration=1", "--size", "320x240"]
ZINK = {"LIBGL_ALWAYS_SOFTWARE": "1", "GALLIUM_DRIVER": "zink"}

# "VkImage 0x55d0c3c0f0a0[] has not been destroyed" style messages from the validation layer's
# object lifetime check at vkDestroyDevice.
VVL_LEAK = re.compile(r"OBJ ERROR : For VkDevice 0x[0-9a-f]+\[?[^\]]*\]?, (Vk\w+) (0x[0-9a-f]+)")
VVL_IN_USE = re.compile(r"Validation Error: \[ VUID-vk(?:Destroy|Free|Reset)(?!Device|Instance)\w+-\w+-\d+ \]")
VVL_LEAK_ALT = re.compile(r"(Vk\w+) (0x[0-9a-f]+)\[[^\]]*\] has not been destroyed")


def require(tool):
    if not shutil.which(tool):
        raise unittest.SkipTest(f"{tool} not installed")


class RealAppsTest(TempDirTestCase):
    def run_app(self, cmd, layers_before=(), layers_after=(), extra_env=None, with_layer=True):
        with xvfb() as display:
            if with_layer:
                env = explicit_env(self.tmp, self.out, layers_before, layers_after)
            else:
                env = base_env(self.tmp)
                if layers_before or layers_after:
                    env["VK_INSTANCE_LAYERS"] = ":".join(list(layers_before) + list(layers_after))
            env["DISPLAY"] = display
            env.update(extra_env or {})
            return run(cmd, env, timeout=300, check=False)

    def check_stacking(self, cmd, extra_env=None):
        baseline = self.run_app(cmd, extra_env=extra_env, with_layer=False)
        self.assertEqual(baseline.returncode, 0, baseline.stderr[-2000:])
        in_flight = {}
        vvl_in_use = []
        for before, after in (((), ()), ((VALIDATION,), ()), ((), (VALIDATION,))):
            with self.subTest(above=before, below=after):
                shutil.rmtree(self.out, ignore_errors=True)
                proc = self.run_app(cmd, before, after, extra_env)
                self.assertEqual(proc.returncode, baseline.returncode, proc.stderr[-3000:])
                snaps = snapshots(self.out)
                self.assertIn("device_destroy", [s["reason"] for s in snaps])
                for s in snaps:
                    validate(s)
                in_flight[(before, after)] = [e for s in snaps for e in s["events"]
                                              if e["kind"] == "destroyed_in_flight"]
                if before or after:
                    vvl_in_use.append(len(VVL_IN_USE.findall(proc.stdout + proc.stderr)))
        # No destroyed_in_flight that the validation layer does not also report.
        for config, found in in_flight.items():
            self.assertLessEqual(len(found), min(vvl_in_use), (config, [e["message"] for e in found]))

    def test_vkcube(self):
        require("vkcube")
        self.check_stacking(VKCUBE)
        snaps = snapshots(self.out, "device_destroy")
        self.assertEqual(app_objects(snaps[-1]), [], "vkcube destroys everything")

    def test_glmark2_through_zink(self):
        require("glmark2")
        self.check_stacking(GLMARK2, ZINK)

    def test_zink_leftovers_agree_with_validation_layer(self):
        """zink on lavapipe leaves a few images, views and memory alive at vkDestroyDevice; the
        validation layer's object tracker reports the same objects vkleak does."""
        require("glmark2")
        proc = self.run_app(GLMARK2, layers_after=(VALIDATION,), extra_env=ZINK)
        self.assertEqual(proc.returncode, 0)
        output = proc.stdout + proc.stderr
        reported = {(t, h.lower()) for t, h in VVL_LEAK.findall(output) + VVL_LEAK_ALT.findall(output)}
        ours = set()
        for snap in snapshots(self.out, "device_destroy"):
            ours |= {(o["type"], o["handle"]) for o in app_objects(snap)}
        self.assertTrue(ours, "zink is known to leave objects alive at vkDestroyDevice")
        self.assertEqual(ours, reported)


if __name__ == "__main__":
    unittest.main()
