"""vkleak stacked with the layers people run beside it, in both orders: the validation layer and
gfxreconstruct's capture layer (explicit), MangoHud and vkBasalt (implicit; they fetch the next
vkCreateDevice with vkGetInstanceProcAddr(NULL, ...)). Every run checks the chain the loader
built (harness.stack_env / run), exits and prints as the same stack without vkleak, and vkcube,
which destroys everything, gives no finding."""

import json
import os
import shutil
import unittest

from harness import (GFXRECON, MANGOHUD, VALIDATION, VKBASALT, VKLEAK, TempDirTestCase, base_env,
                     require_layers, run, snapshots, stack_env, validate, without_layer_env, xvfb)

VKCUBE = ["vkcube", "--c", "60"]
LAYERS = (VALIDATION, GFXRECON, MANGOHUD, VKBASALT)


class LayerStackingTest(TempDirTestCase):
    def check_vkcube(self, layer):
        if not shutil.which("vkcube"):
            raise unittest.SkipTest("vkcube not installed")
        require_layers(layer)
        runtime = os.path.join(self.tmp, "xdg-runtime")
        os.makedirs(runtime, mode=0o700, exist_ok=True)
        capture = os.path.join(self.tmp, "capture.gfxr")
        extra = {"XDG_RUNTIME_DIR": runtime, "GFXRECON_CAPTURE_FILE": capture,
                 "GFXRECON_CAPTURE_FILE_TIMESTAMP": "false"}
        with xvfb() as display:
            env = without_layer_env(self.tmp, (layer,))
            env.update(extra, DISPLAY=display)
            baseline = run(VKCUBE, env, check=False)
            self.assertEqual(baseline.returncode, 0, baseline.stderr[-3000:])
            for above, below in (((layer,), ()), ((), (layer,))):
                with self.subTest(above=above, below=below):
                    shutil.rmtree(self.out, ignore_errors=True)
                    if os.path.exists(capture):
                        os.remove(capture)
                    env = stack_env(self.tmp, self.out, above, below)
                    env.update(extra, DISPLAY=display)
                    proc = run(VKCUBE, env, check=False)  # run() checks the chain
                    self.assertEqual(proc.returncode, baseline.returncode, proc.stderr[-3000:])
                    self.assertEqual(proc.stdout, baseline.stdout)
                    snaps = snapshots(self.out)
                    self.assertIn("device_destroy", [s["reason"] for s in snaps])
                    for s in snaps:
                        validate(s)
                    report = run([VKLEAK, "report", self.out, "--format", "json"],
                                 base_env(self.tmp), check=False)
                    self.assertEqual(report.returncode, 0, report.stdout[-3000:])
                    self.assertEqual(json.loads(report.stdout)["findings"], [])
                    if layer == GFXRECON:
                        self.assertGreater(os.path.getsize(capture), 1000, "nothing captured")

    def test_validation_layer(self):
        self.check_vkcube(VALIDATION)

    def test_gfxreconstruct_capture_layer(self):
        self.check_vkcube(GFXRECON)

    def test_mangohud(self):
        self.check_vkcube(MANGOHUD)

    def test_vkbasalt(self):
        self.check_vkcube(VKBASALT)


if __name__ == "__main__":
    unittest.main()
