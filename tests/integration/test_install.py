"""`cmake --install` lays out a prefix the Vulkan loader and `vkleak run` find on their own."""

import os
import subprocess
import unittest

from harness import BUILD, TempDirTestCase, base_env, run, scenario, snapshots


class InstallTest(TempDirTestCase):
    def test_install_layout_and_use(self):
        prefix = os.path.join(self.tmp, "prefix")
        subprocess.run(["cmake", "--install", BUILD, "--prefix", prefix], check=True,
                       capture_output=True)
        lib = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(prefix, "lib"))
               for f in fs if f == "libVkLayer_vkleak.so"]
        self.assertEqual(len(lib), 1)
        # The exit hook library beside it, where `vkleak run` looks (the manifest's library).
        self.assertTrue(os.path.isfile(os.path.join(os.path.dirname(lib[0]),
                                                    "libvkleak_exit_hook.so")))
        explicit = os.path.join(prefix, "share/vulkan/explicit_layer.d/VkLayer_vkleak.json")
        implicit = os.path.join(prefix, "share/vulkan/implicit_layer.d/VkLayer_vkleak.json")
        self.assertTrue(os.path.isfile(explicit) and os.path.isfile(implicit))
        # The C API's headers, usable from C99 with nothing but the installed include dir.
        header = os.path.join(prefix, "include/vkleak/vkleak.h")
        self.assertTrue(os.path.isfile(header))
        self.assertTrue(os.path.isfile(os.path.join(prefix, "include/vkleak/vkleak_gtest.h")))
        user = os.path.join(self.tmp, "user.c")
        with open(user, "w") as f:
            f.write("#include <vkleak/vkleak.h>\n"
                    "int main(void) { return (int)vkleak_checkpoint(VK_NULL_HANDLE); }\n")
        subprocess.run(["cc", "-std=c99", "-Wall", "-Werror", "-I", os.path.join(prefix, "include"),
                        "-c", user, "-o", os.path.join(self.tmp, "user.o")], check=True)
        vkleak = os.path.join(prefix, "bin/vkleak")
        self.assertTrue(os.access(vkleak, os.X_OK))

        # The installed CLI finds the installed manifest (relative library path) by itself.
        out = os.path.join(self.tmp, "via-cli")
        proc = run([vkleak, "run", "--out", out, "--", scenario("leak_named_buffers"), "--count",
                    "2"], base_env(self.tmp))
        self.assertNotIn("exit hook library", proc.stderr)
        [snap] = snapshots(out, "device_destroy")
        self.assertEqual(sorted(o["name"] for o in snap["objects"]), ["leak.0", "leak.1"])
        # ... and preloads the installed exit hook: _exit() gets its exit snapshot.
        out = os.path.join(self.tmp, "via-cli-exit")
        run([vkleak, "run", "--out", out, "--", scenario("probe_instance"), "--leak", "1",
             "--end", "_exit"], base_env(self.tmp))
        self.assertEqual([s["final"] for s in snapshots(out, "exit")], [True])

        # The standard explicit activation against the installed manifest.
        env = base_env(self.tmp)
        env["VK_ADD_LAYER_PATH"] = os.path.dirname(explicit)
        env["VK_INSTANCE_LAYERS"] = "VK_LAYER_VKLEAK_tracker"
        env["VKLEAK_OUTPUT_DIR"] = os.path.join(self.tmp, "explicit")
        run([scenario("leak_named_buffers"), "--count", "1"], env)
        self.assertTrue(snapshots(env["VKLEAK_OUTPUT_DIR"], "device_destroy"))

        # The implicit manifest, found through XDG_DATA_HOME, switched on by VKLEAK_ENABLE.
        env = base_env(self.tmp)
        env["XDG_DATA_HOME"] = os.path.join(prefix, "share")
        env["VKLEAK_ENABLE"] = "1"
        env["VKLEAK_OUTPUT_DIR"] = os.path.join(self.tmp, "implicit")
        run([scenario("leak_named_buffers"), "--count", "1"], env)
        self.assertTrue(snapshots(env["VKLEAK_OUTPUT_DIR"], "device_destroy"))


if __name__ == "__main__":
    unittest.main()
