"""Instance-level debug objects (VkDebugUtilsMessengerEXT, VkDebugReportCallbackEXT) under the
layer: created and destroyed hard by the debug_objects scenario (pNext-chained, several instances,
several threads, around a device), alone and with the validation layer stacked above and below.
The layer must not change what the app sees: same exit code, same vkGetInstanceProcAddr /
vkGetDeviceProcAddr answers, and the app's callbacks receive the same validation messages."""

import shutil
import unittest

from harness import (VALIDATION, VKLEAK, TempDirTestCase, base_env, explicit_env, load, run,
                     scenario, snapshot_files, snapshots, validate)

DEBUG_TYPES = ("VkDebugUtilsMessengerEXT", "VkDebugReportCallbackEXT")
# The full workload alone; a lighter one under the validation layer (slow instance creation).
FULL = ["--rounds", "100", "--threads", "4", "--per-thread", "200", "--instances", "3",
        "--instance-threads", "4", "--solo-instances", "25"]
LIGHT = ["--rounds", "20", "--threads", "4", "--per-thread", "40", "--instances", "3",
         "--instance-threads", "2", "--solo-instances", "3"]


def instance_count(args):
    """Instances the scenario creates: a bare one, the main one, --instances, and 3 plus
    --solo-instances per --instance-threads thread."""
    value = {args[i]: int(args[i + 1]) for i in range(len(args) - 1) if args[i].startswith("--")
             and args[i + 1].isdigit()}
    return 2 + value["--instances"] + (3 + value["--solo-instances"]) * value["--instance-threads"]


def parse(stdout):
    """{"gipa": {query: "set"|"null"}, "callbacks": {counter: n}} from the scenario's stdout."""
    out = {"gipa": {}, "callbacks": {}}
    for line in stdout.splitlines():
        kind, _, rest = line.partition(" ")
        if kind in out and "=" in rest:
            key, _, value = rest.partition("=")
            out[kind][key] = int(value) if kind == "callbacks" else value
    return out


class DebugUtilsTest(TempDirTestCase):
    def run_scenario(self, args, before=(), after=(), with_layer=True):
        shutil.rmtree(self.out, ignore_errors=True)
        if with_layer:
            env = explicit_env(self.tmp, self.out, before, after)
        else:
            env = base_env(self.tmp)
            if before or after:
                env["VK_INSTANCE_LAYERS"] = ":".join(list(before) + list(after))
        return run([scenario("debug_objects")] + args, env, timeout=300, check=False)

    def main_instance_snapshot(self, snaps, instances):
        """The instance_destroy snapshot of the scenario's main instance (application
        "debug_objects"); checks every other instance_destroy snapshot has no debug objects."""
        destroyed = [s for s in snaps if s["reason"] == "instance_destroy"]
        self.assertEqual(len(destroyed), instances, [s["instances"] for s in destroyed])
        main = []
        for s in destroyed:
            [inst] = [i for i in s["instances"] if i["id"] == s["scope"]["instance"]]
            if inst.get("application") == "debug_objects":
                main.append(s)
            else:
                self.assertEqual([o for o in s["objects"] if o["type"] in DEBUG_TYPES], [],
                                 f"debug objects left on instance {inst}")
        self.assertEqual(len(main), 1)
        return main[0]

    def check_run(self, proc, args, leak):
        """Exit 0, no crash, every snapshot valid, exactly the leaked messenger (or nothing) at
        the main instance's destruction."""
        self.assertEqual(proc.returncode, 0, proc.stderr[-4000:])
        self.assertIn(f"done: {1 if leak else 0} messenger leaked", proc.stdout)
        snaps = snapshots(self.out)
        for s in snaps:
            validate(s)
        main = self.main_instance_snapshot(snaps, instance_count(args))
        debug = [o for o in main["objects"] if o["type"] in DEBUG_TYPES]
        if not leak:
            self.assertEqual(debug, [])
            return None
        self.assertEqual(len(debug), 1, debug)
        [leaked] = debug
        self.assertEqual(leaked["type"], "VkDebugUtilsMessengerEXT")
        self.assertEqual(leaked["origin"], "created")
        self.assertEqual(leaked["parent"], main["scope"]["instance"])
        # Nothing else leaked on that instance either.
        self.assertEqual([o for o in main["objects"] if o["origin"] in ("created", "allocated")],
                         [leaked])
        return leaked

    def check_leak_call_site(self):
        """Instance-level objects cannot be named on lavapipe (Mesa crashes naming them through
        a device): the leaked messenger is known by its call site, leak_debug_messenger."""
        [path] = [p for p in snapshot_files(self.out) if "instance_destroy" in p
                  and any(i.get("application") == "debug_objects"
                          for i in load(p)["instances"])]
        shown = run([VKLEAK, "show", "--format", "json", path], base_env(self.tmp))
        text = shown.stdout
        self.assertIn("leak_debug_messenger", text)
        self.assertIn("debug_objects.cpp", text)

    def test_alone_nothing_leaked(self):
        proc = self.run_scenario(FULL)
        self.check_run(proc, FULL, leak=False)
        counts = parse(proc.stdout)["callbacks"]
        # No validation layer: no validation message reaches the app's callbacks. (The
        # create-info messengers get the loader's own warnings, e.g. about VK_INSTANCE_LAYERS,
        # which depend on how layers are activated: compared in the stacked test only.)
        del counts["create_info_messages"]
        self.assertEqual(set(counts.values()), {0}, counts)

    def test_alone_leaked_messenger(self):
        proc = self.run_scenario(FULL + ["--leak"])
        self.check_run(proc, FULL, leak=True)
        self.check_leak_call_site()

    def test_proc_addresses_unchanged(self):
        """vkGetInstanceProcAddr / vkGetDeviceProcAddr answer as without the layer: nothing for
        extensions not enabled, NULL for instance-level commands at device level."""
        small = ["--rounds", "1", "--threads", "1", "--per-thread", "4", "--instances", "1",
                 "--instance-threads", "0", "--solo-instances", "0"]
        baseline = self.run_scenario(small, with_layer=False)
        self.assertEqual(baseline.returncode, 0, baseline.stderr[-2000:])
        expected = parse(baseline.stdout)["gipa"]
        self.assertEqual(expected["bare:vkCreateDebugUtilsMessengerEXT"], "null")
        self.assertEqual(expected["device:vkCreateDebugUtilsMessengerEXT"], "null")
        layered = self.run_scenario(small)
        self.assertEqual(layered.returncode, 0, layered.stderr[-2000:])
        self.assertEqual(parse(layered.stdout)["gipa"], expected)

    def test_destroy_null_handle(self):
        """vkDestroyDebugUtilsMessengerEXT / vkDestroyDebugReportCallbackEXT with VK_NULL_HANDLE:
        the same outcome with the layer as without. (Vulkan-Loader 1.3.239's terminator of
        vkDestroyDebugReportCallbackEXT dereferences the null handle and crashes: the layer must
        neither add a crash nor hide that one.)"""
        small = ["--rounds", "2", "--threads", "2", "--per-thread", "8", "--instances", "2",
                 "--instance-threads", "1", "--solo-instances", "2"]
        for which in ("messenger", "report", "both"):
            with self.subTest(destroy_null=which):
                args = small + ["--destroy-null", which]
                baseline = self.run_scenario(args, with_layer=False)
                proc = self.run_scenario(args)
                self.assertEqual(proc.returncode, baseline.returncode,
                                 (baseline.stderr[-2000:], proc.stderr[-2000:]))
                if baseline.returncode == 0:
                    self.check_run(proc, args, leak=False)
                    self.assertEqual(parse(proc.stdout)["gipa"], parse(baseline.stdout)["gipa"])

    def test_stacked_with_validation_layer(self):
        """The app's callbacks get the same messages with vkleak above or below the validation
        layer as with the validation layer alone, the deliberate error included."""
        for leak in (False, True):
            args = LIGHT + (["--leak"] if leak else [])
            baseline = self.run_scenario(args, after=(VALIDATION,), with_layer=False)
            self.assertEqual(baseline.returncode, 0, baseline.stderr[-3000:])
            expected = parse(baseline.stdout)
            counts = expected["callbacks"]
            # Both persistent messengers got the deliberate error (the validation layer may
            # report it more than once); the report callback too when VK_EXT_debug_report is
            # offered.
            self.assertGreaterEqual(counts["messenger_deliberate"], 2, baseline.stdout)
            self.assertEqual(counts["messenger_deliberate"] % 2, 0, baseline.stdout)
            if expected["gipa"].get("main:vkCreateDebugReportCallbackEXT") == "set":
                self.assertGreaterEqual(counts["report_deliberate"], 1, baseline.stdout)
            for before, after in (((VALIDATION,), ()), ((), (VALIDATION,))):
                with self.subTest(leak=leak, above=before, below=after):
                    proc = self.run_scenario(args, before, after)
                    self.check_run(proc, args, leak)
                    self.assertEqual(parse(proc.stdout), expected,
                                     proc.stdout + proc.stderr[-3000:])
                    if leak:
                        self.check_leak_call_site()


if __name__ == "__main__":
    unittest.main()
