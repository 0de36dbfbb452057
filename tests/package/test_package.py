"""What a user installs: `cmake --install` into a fresh prefix (then moved: every path in the
package is relative), a consumer project (consumer/) built with find_package(vkleak) and with
pkg-config, run under the installed `vkleak run`; and the .deb of `cpack -G DEB`, its control
fields, its contents, and the CLI and layer run from where it is extracted.

Environment (set by tests/package/CMakeLists.txt): VKLEAK_TEST_BUILD_DIR, the configured and
built tree; VKLEAK_TEST_SOURCE_DIR. Needs cmake and cc; the pkg-config and .deb tests skip, saying
so, when pkg-config, or cpack and dpkg-deb, are missing."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../integration"))
from harness import BUILD, base_env, run  # noqa: E402

CONSUMER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "consumer")


def cache_value(name):
    with open(os.path.join(BUILD, "CMakeCache.txt")) as f:
        for line in f:
            m = re.match(rf"{name}:[A-Z]+=(.*)$", line.rstrip("\n"))
            if m:
                return m.group(1)
    raise AssertionError(f"{name} is not in {BUILD}/CMakeCache.txt")


def project_version():
    return cache_value("CMAKE_PROJECT_VERSION")


def layout():
    """What the package holds, relative to its prefix (the build's GNUInstallDirs)."""
    lib, inc, bin_ = (cache_value(f"CMAKE_INSTALL_{d}") for d in ("LIBDIR", "INCLUDEDIR", "BINDIR"))
    # GNUInstallDirs: an empty DATADIR is DATAROOTDIR.
    data = cache_value("CMAKE_INSTALL_DATADIR") or cache_value("CMAKE_INSTALL_DATAROOTDIR")
    return {
        "layer": f"{lib}/libVkLayer_vkleak.so",
        "exit hook": f"{lib}/libvkleak_exit_hook.so",
        "explicit manifest": f"{data}/vulkan/explicit_layer.d/VkLayer_vkleak.json",
        "implicit manifest": f"{data}/vulkan/implicit_layer.d/VkLayer_vkleak.json",
        "CLI": f"{bin_}/vkleak",
        "vkleak.h": f"{inc}/vkleak/vkleak.h",
        "vkleak_gtest.h": f"{inc}/vkleak/vkleak_gtest.h",
        "CMake package": f"{lib}/cmake/vkleak/vkleakConfig.cmake",
        "CMake package version": f"{lib}/cmake/vkleak/vkleakConfigVersion.cmake",
        "CMake targets": f"{lib}/cmake/vkleak/vkleakTargets.cmake",
        "pkg-config file": f"{lib}/pkgconfig/vkleak.pc",
    }


def leaked_buffers(vkleak, out, env):
    """The names of the VkBuffers `vkleak report --format json` finds leaked at exit, one per
    object, and the functions that created them."""
    proc = run([vkleak, "report", out, "--format", "json"], env, check=False)
    if proc.returncode not in (0, 1):
        raise AssertionError(f"vkleak report exited {proc.returncode}: {proc.stderr}")
    doc = json.loads(proc.stdout)
    leaked = []
    for finding in doc["findings"]:
        if finding["kind"] == "leak_at_exit" and finding["object_type"] == "VkBuffer":
            leaked += [(e["name"], finding["function"]) for e in finding["examples"]]
    return sorted(leaked)


class PackageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="vkleak-package-")
        # Installed in one place, used from another: nothing may hold the install-time prefix.
        staging = os.path.join(cls.tmp, "staging")
        subprocess.run(["cmake", "--install", BUILD, "--prefix", staging], check=True,
                       capture_output=True)
        cls.prefix = os.path.join(cls.tmp, "prefix")
        os.rename(staging, cls.prefix)

    @classmethod
    def tearDownClass(cls):
        if os.environ.get("VKLEAK_KEEP_TMP") != "1":
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def check_consumer(self, consumer, env_extra, vkleak, name):
        """consumer sees its leak through the installed layer, under the installed `vkleak run`
        and with the manifest directory the package names; and nothing without the layer."""
        env = base_env(self.tmp)
        env.update(env_extra)
        out = self.path(f"out-{name}")
        proc = run([vkleak, "run", "--out", out, "--", consumer, "1"], env, check=False)
        self.assertEqual(proc.returncode, 0, f"{proc.stdout}\n{proc.stderr}")
        self.assertIn("consumer: 1 object(s) live since the checkpoint", proc.stdout)
        self.assertEqual(leaked_buffers(vkleak, out, env), [("consumer.leaked", "main")])
        # Without the layer every call is a no-op: the consumer's count comes from the layer.
        proc = run([consumer, "0"], base_env(self.tmp), check=False)
        self.assertEqual(proc.returncode, 0, f"{proc.stdout}\n{proc.stderr}")

    def test_prefix_has_the_package(self):
        for what, rel in layout().items():
            self.assertTrue(os.path.isfile(os.path.join(self.prefix, rel)), f"{what}: {rel}")
        # The manifests point at the installed library, relative to themselves.
        for what in ("explicit manifest", "implicit manifest"):
            manifest = os.path.join(self.prefix, layout()[what])
            with open(manifest) as f:
                library_path = json.load(f)["layer"]["library_path"]
            self.assertFalse(os.path.isabs(library_path), f"{what}: {library_path}")
            self.assertTrue(os.path.samefile(
                os.path.join(os.path.dirname(manifest), library_path),
                os.path.join(self.prefix, layout()["layer"])), f"{what}: {library_path}")

    def test_find_package(self):
        build = self.path("consumer-cmake")
        proc = subprocess.run(["cmake", "-S", CONSUMER, "-B", build,
                               f"-DCMAKE_PREFIX_PATH={self.prefix}", "-DCMAKE_C_FLAGS=-Wall -Werror"],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        proc = subprocess.run(["cmake", "--build", build], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        with open(os.path.join(build, "vkleak_paths.txt")) as f:
            paths = dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)
        self.assertEqual(paths["version"], project_version())
        expected = {
            "include_dir": os.path.dirname(os.path.dirname(layout()["vkleak.h"])),
            "layer_library": layout()["layer"],
            "layer_manifest_dir": os.path.dirname(layout()["explicit manifest"]),
            "implicit_layer_manifest_dir": os.path.dirname(layout()["implicit manifest"]),
            "vkleak_executable": layout()["CLI"],
        }
        for key, rel in expected.items():
            self.assertTrue(os.path.exists(paths[key]), f"{key}={paths[key]}")
            self.assertTrue(os.path.samefile(paths[key], os.path.join(self.prefix, rel)),
                            f"{key}={paths[key]}, not {rel} in {self.prefix}")
        # The loader finds the layer where the package says: VK_ADD_LAYER_PATH, as a user's CI
        # would set it (`vkleak run` adds the manifest next to itself, the same directory).
        self.check_consumer(os.path.join(build, "consumer"),
                            {"VK_ADD_LAYER_PATH": paths["layer_manifest_dir"]},
                            paths["vkleak_executable"], "cmake")

    def test_pkg_config(self):
        if not shutil.which("pkg-config"):
            self.skipTest("pkg-config is not installed: vkleak.pc not tested")
        env = dict(os.environ)
        env["PKG_CONFIG_PATH"] = os.path.join(self.prefix,
                                              os.path.dirname(layout()["pkg-config file"]))

        def pkg_config(*args):
            proc = subprocess.run(["pkg-config", *args, "vkleak"], env=env, capture_output=True,
                                  text=True)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            return proc.stdout.strip()

        self.assertEqual(pkg_config("--modversion"), project_version())
        for var, what in (("layer_library", "layer"), ("vkleak_executable", "CLI")):
            self.assertTrue(os.path.samefile(pkg_config(f"--variable={var}"),
                                             os.path.join(self.prefix, layout()[what])), var)
        for var, what in (("layer_manifest_dir", "explicit manifest"),
                          ("implicit_layer_manifest_dir", "implicit manifest")):
            self.assertTrue(os.path.samefile(pkg_config(f"--variable={var}"),
                                             os.path.dirname(os.path.join(self.prefix,
                                                                          layout()[what]))), var)
        consumer = self.path("consumer-pkg-config")
        cmd = ["cc", "-std=c99", "-Wall", "-Werror", os.path.join(CONSUMER, "consumer.c"), "-o",
               consumer, *pkg_config("--cflags").split(), *pkg_config("--libs").split()]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, f"{cmd}\n{proc.stderr}")
        self.check_consumer(consumer,
                            {"VK_ADD_LAYER_PATH": pkg_config("--variable=layer_manifest_dir")},
                            pkg_config("--variable=vkleak_executable"), "pkg-config")

    def test_deb(self):
        missing = [t for t in ("cpack", "dpkg-deb") if not shutil.which(t)]
        if missing:
            self.skipTest(f"{' and '.join(missing)} not installed: the .deb is not tested")
        debs = self.path("deb")
        proc = subprocess.run(["cpack", "-G", "DEB", "-B", debs, "--config",
                               os.path.join(BUILD, "CPackConfig.cmake")],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        [deb] = [os.path.join(debs, f) for f in os.listdir(debs) if f.endswith(".deb")]

        def field(name):
            return subprocess.run(["dpkg-deb", "-f", deb, name], check=True, capture_output=True,
                                  text=True).stdout.strip()

        self.assertEqual(field("Package"), "vkleak")
        self.assertEqual(field("Version"), project_version())
        self.assertRegex(field("Maintainer"), r"\S+ <[^@>\s]+@[^>\s]+>")
        depends = [d.strip().split(" ")[0] for d in field("Depends").split(",")]
        # The loader by hand; the CLI's libraries (libdw for symbols, libstdc++, libc) from
        # dpkg-shlibdeps.
        for package in ("libvulkan1", "libdw1", "libstdc++6", "libc6"):
            self.assertIn(package, depends, field("Depends"))

        listing = subprocess.run(["dpkg-deb", "-c", deb], check=True, capture_output=True,
                                 text=True).stdout
        files = {line.split()[-1].removeprefix("./") for line in listing.splitlines()}
        for what, rel in layout().items():
            self.assertIn(f"usr/{rel}", files, f"{what} is not in the .deb")
        self.assertFalse([f for f in files if "scenario" in f or "/tests/" in f], files)

        root = self.path("root")
        subprocess.run(["dpkg-deb", "-x", deb, root], check=True)
        vkleak = os.path.join(root, "usr", layout()["CLI"])
        proc = run([vkleak, "--version"], base_env(self.tmp))
        self.assertEqual(proc.stdout.strip(), f"vkleak {project_version()}")
        # The manifest's library_path is relative (../../../<libdir>/...), so the extracted tree
        # works where it lies: the CLI finds usr/share/vulkan/explicit_layer.d beside itself and
        # the loader the extracted library. (Installed by dpkg, the same paths are under /usr.)
        consumer = self.path("consumer-deb")
        usr = os.path.join(root, "usr")
        cmd = ["cc", "-std=c99", "-Wall", "-Werror", f"-I{os.path.join(usr, 'include')}",
               os.path.join(CONSUMER, "consumer.c"), "-o", consumer, "-lvulkan"]
        subprocess.run(cmd, check=True)
        manifest_dir = os.path.dirname(os.path.join(usr, layout()["explicit manifest"]))
        self.check_consumer(consumer, {"VK_LAYER_PATH": manifest_dir}, vkleak, "deb")


if __name__ == "__main__":
    unittest.main()
