"""vkleak report / gate on the scenario programs of INCIDENTS.md, run under the layer on lavapipe
with a snapshot every 25 frames: each incident is found with the kinds, debug names and
symbolized creation call sites INCIDENTS.md asks for, and nothing is reported on clean_app (every
mode) or vkcube. Also the gate's exit codes and every output format, checked by its consumer."""

import json
import os
import shutil
import subprocess
import unittest
import xml.etree.ElementTree as ET

from harness import (SOURCE, VKLEAK, TempDirTestCase, explicit_env, run, scenario, snapshot_files,
                     xvfb)
from harness import vkleak_checked as vkleak

FINDINGS_SCHEMA = os.path.join(SOURCE, "src/schema/vkleak-findings.schema.json")
EVERY = "25"
_validator = None


def validate_findings(doc):
    global _validator
    if _validator is None:
        import jsonschema
        with open(FINDINGS_SCHEMA) as f:
            schema = json.load(f)
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        _validator = cls(schema)
    _validator.validate(doc)


def findings_of(doc, kind, object_type=None):
    return [f for f in doc["findings"] if f["kind"] == kind and
            (object_type is None or f["object_type"] == object_type)]


class ReportTest(TempDirTestCase):
    def run_scenario(self, name, args=(), swapchain=False, display=None, tmp=None, out=None):
        env = explicit_env(tmp or self.tmp, out or self.out)
        env["VKLEAK_SNAPSHOT_EVERY"] = EVERY
        if swapchain:
            env["DISPLAY"] = display
            args = list(args) + ["--swapchain"]
        else:
            env["VKLEAK_FRAME_BOUNDARY"] = "submit"  # headless: frames end at submits
        run([scenario(name)] + list(args), env)
        self.assertGreater(len(snapshot_files(out or self.out)), 4)

    def run_wrapper_growth(self):
        """incident1_wrapper_growth for 150 frames, headless: one run, which the gate and format
        tests share (each gets a copy of its snapshots)."""
        self.shared_run("incident1_150", lambda tmp, out: self.run_scenario(
            "incident1_wrapper_growth", ["--frames", "150"], tmp=tmp, out=out))
        self.assertGreater(len(snapshot_files(self.out)), 4)

    def report(self, *extra):
        doc = json.loads(vkleak(["report", self.out, "--format", "json"] + list(extra)).stdout)
        validate_findings(doc)
        return doc

    def only(self, doc, kind, object_type):
        found = findings_of(doc, kind, object_type)
        self.assertEqual(len(found), 1, [(f["kind"], f["object_type"], f["message"])
                                         for f in doc["findings"]])
        return found[0]

    def assert_callsite(self, finding, function, source):
        self.assertEqual(finding["callsite_source"], "object")
        self.assertIn(function, finding["function"] or "", finding["callsite"])
        self.assertIn(function, finding["callsite"][0])
        self.assertTrue(finding["location"]["file"].endswith(source), finding["location"])
        self.assertGreater(finding["location"]["line"], 0)

    # --- The incidents ------------------------------------------------------------------------

    def test_incident1_growth_and_retained_wrapper_buffers(self):
        self.run_scenario("incident1_wrapper_growth")
        doc = self.report()
        growth = self.only(doc, "growth", "VkBuffer")
        retained = self.only(doc, "retained", "VkBuffer")
        for f in (growth, retained):
            self.assertEqual(f["name_pattern"], "wrapper.vertices")
            self.assertIn("wrapper.vertices", f["names"])
            self.assertIn("wrapper.vertices.memory", f["names"])
            self.assert_callsite(f, "GpuBuffer::GpuBuffer", "incident1_wrapper_growth.cpp")
        self.assertEqual(growth["series"]["live"][-1], 300)
        self.assertEqual(growth["series"]["live"], sorted(growth["series"]["live"]))
        # Superseded: all but the newest ~16 of 300, each with its own 64 KiB of memory.
        self.assertGreater(retained["count"], 250)
        self.assertEqual(retained["bytes"], retained["count"] * 65536)
        leak = self.only(doc, "leak_at_exit", "VkBuffer")
        self.assertEqual(leak["count"], 300)
        self.assertEqual([r["count"] for r in leak["related"] if r["relation"] == "memory"], [300])
        self.assertNotIn("mesh.static", json.dumps(doc["findings"]))

    def test_incident2_stale_view_pins_retained_buffer_nothing_at_exit(self):
        self.run_scenario("incident2_resized_view_cache")
        doc = self.report()
        stale = self.only(doc, "stale_view", "VkBufferView")
        self.assertIn("pass.attachment.view", stale["names"])
        self.assertEqual(stale["count"], 14)
        self.assertGreater(stale["bytes"], 0)
        chain = stale["chains"][0]
        self.assertEqual([l["type"] for l in chain["links"]],
                         ["VkBufferView", "VkBuffer", "VkDeviceMemory"])
        self.assertEqual([l["name"] for l in chain["links"]],
                         ["pass.attachment.view", "pass.attachment", "pass.attachment.memory"])
        self.assertEqual(chain["links"][1]["state"], "retained")
        self.assertGreater(chain["bytes"], 0)
        self.assert_callsite(stale, "create_attachment", "incident2_resized_view_cache.cpp")
        retained = self.only(doc, "retained", "VkBuffer")
        self.assertEqual(retained["name_pattern"], "pass.attachment")
        self.assertEqual(retained["count"], 14)
        self.assertEqual(retained["bytes"], stale["bytes"])
        self.assertEqual(findings_of(doc, "leak_at_exit"), [], "the cache is cleared at exit")
        # The series for the HTML report carries the chain.
        self.assertTrue(doc["series"]["chains"])

    def test_incident3_destroyed_in_flight_for_each_object(self):
        expected = {"set": ("VkDescriptorSet", "compute.bindings"),
                    "buffer": ("VkBuffer", "compute.input"),
                    "view": ("VkBufferView", "compute.view"),
                    "pipeline": ("VkPipeline", "compute.pipeline")}
        for obj, (type_, name) in expected.items():
            with self.subTest(object=obj):
                shutil.rmtree(self.out, ignore_errors=True)
                self.run_scenario("incident3_early_free", ["--object", obj])
                doc = self.report()
                [f] = doc["findings"]
                self.assertEqual((f["kind"], f["object_type"]), ("destroyed_in_flight", type_))
                self.assertEqual(f["names"], [name])
                self.assertEqual(f["count"], 1)
                [event] = f["events"]
                self.assertEqual(event["submission"]["frame"], 10)
                self.assertIn("frame.cmd.", " ".join(event["path"]))
                self.assertTrue(f["callsite"], "a call site, from a later object of that name")

    def test_incident3_call_site_of_the_object_itself(self):
        # Destroyed in frame 40, after the snapshot at frame 25 saw it alive.
        self.run_scenario("incident3_early_free", ["--object", "buffer", "--free-frame", "40"])
        doc = self.report()
        [f] = findings_of(doc, "destroyed_in_flight")
        self.assert_callsite(f, "create_buffer", "vk_harness.cpp")

    def test_incident4_orphaned_memory_and_byte_growth_compute_only(self):
        self.run_scenario("incident4_orphaned_memory")
        doc = self.report()
        self.assertEqual(doc["runs"][0]["frame_boundary"], "submit")
        orphaned = self.only(doc, "orphaned_memory", "VkDeviceMemory")
        self.assertEqual(orphaned["names"], ["tensor.memory"])
        self.assertGreater(orphaned["count"], 250)
        self.assert_callsite(orphaned, "import_tensor", "incident4_orphaned_memory.cpp")
        growth = self.only(doc, "growth", "VkDeviceMemory")
        self.assertEqual(growth["name_pattern"], "tensor.memory")
        series = growth["series"]["bytes"]
        self.assertEqual(series, sorted(series))
        self.assertGreater(series[-1], series[0])
        self.assert_callsite(growth, "import_tensor", "incident4_orphaned_memory.cpp")
        self.assertEqual(self.only(doc, "leak_at_exit", "VkDeviceMemory")["count"], 300)

    def test_incident5_stale_sets_leaked_pool_and_free_in_flight(self):
        for free_in_flight in (False, True):
            with self.subTest(free_in_flight=free_in_flight):
                shutil.rmtree(self.out, ignore_errors=True)
                self.run_scenario("incident5_bindgroup_cache",
                                  ["--free-in-flight"] if free_in_flight else [])
                doc = self.report()
                stale = self.only(doc, "stale_view", "VkDescriptorSet")
                self.assertEqual(stale["name_pattern"], "bindgroup.*")
                self.assertEqual(stale["count"], 29)
                link = stale["chains"][0]["links"][1]
                self.assertEqual((link["type"], link["state"]), ("VkImageView", "destroyed"))
                self.assertTrue(link["name"].startswith("texture.view."))
                self.assert_callsite(stale, "BindGroupCache::get", "incident5_bindgroup_cache.cpp")
                pool = self.only(doc, "leak_at_exit", "VkDescriptorPool")
                self.assertEqual(pool["names"][0], "bindgroup.0")
                self.assertIn("bindgroup.pool", pool["names"])
                self.assertEqual([(r["relation"], r["type"], r["count"]) for r in pool["related"]],
                                 [("pool children", "VkDescriptorSet", 33)])
                self.assertEqual(findings_of(doc, "leak_at_exit", "VkDescriptorSet"), [])
                # Why the stale sets are alive: their pool, with all its sets.
                root = stale["retainers"][0]
                self.assertEqual((root["root"]["type"], root["root"]["name"]),
                                 ("VkDescriptorPool", "bindgroup.pool"))
                self.assertEqual(root["path"][0]["name"], "bindgroup.pool")
                # It holds the finding's 29 stale sets (its own objects, not their whole group),
                # among the 33 sets it keeps alive.
                self.assertEqual(root["objects"], stale["count"])
                self.assertIn({"type": "VkDescriptorSet", "count": 33}, root["counts"])
                text = vkleak(["report", self.out]).stdout
                self.assertIn('retained by: VkDescriptorPool "bindgroup.pool"', text)
                in_flight = findings_of(doc, "destroyed_in_flight")
                if free_in_flight:
                    [f] = in_flight
                    self.assertEqual((f["object_type"], f["names"]),
                                     ("VkDescriptorSet", ["bindgroup.4"]))
                    self.assertIn("BindGroupCache::get", f["callsite"][0])
                else:
                    self.assertEqual(in_flight, [])

    def test_leak_named_buffers_and_no_teardown(self):
        self.run_scenario_once("leak_named_buffers", ["--count", "5"])
        doc = self.report()
        [leak] = doc["findings"]
        self.assertEqual((leak["kind"], leak["object_type"], leak["count"]),
                         ("leak_at_exit", "VkBuffer", 5))
        self.assertEqual(leak["names"], [f"leak.{i}" for i in range(5)])
        self.assert_callsite(leak, "leak_buffers", "leak_named_buffers.cpp")
        shutil.rmtree(self.out)
        self.run_scenario_once("no_teardown", ["--frames", "3"])
        doc = self.report()
        # Issue 36: one forgotten teardown is one problem, the instance never destroyed, with
        # what is under it by type and call site (before: a finding per call site).
        [root] = doc["findings"]
        self.assertEqual((root["kind"], root["object_type"]), ("leak_at_exit", "VkInstance"))
        self.assertIn("VkInstance never destroyed", root["message"])
        buffers = [g for g in root["contents"] if g["type"] == "VkBuffer"]  # two statements
        self.assertEqual(sorted((g["name_pattern"], g["count"]) for g in buffers),
                         [("kept.*", 1), ("kept.*", 1)])
        self.assertIn('VkBuffer "kept.*" (made in', root["message"])

    def run_scenario_once(self, name, args):
        env = explicit_env(self.tmp, self.out)
        env["VKLEAK_FRAME_BOUNDARY"] = "submit"
        run([scenario(name)] + list(args), env)

    # --- Nothing to report --------------------------------------------------------------------

    def test_clean_app_reports_nothing_in_any_mode(self):
        variants = [["--frames-in-flight", "2"], ["--frames-in-flight", "3"], ["--timeline"],
                    ["--timeline", "--frames-in-flight", "3"]]
        for swapchain in (False, True):
            for args in variants:
                with self.subTest(args=args, swapchain=swapchain):
                    shutil.rmtree(self.out, ignore_errors=True)
                    if swapchain:
                        with xvfb() as display:
                            self.run_scenario("clean_app", args, True, display)
                    else:
                        self.run_scenario("clean_app", args)
                    doc = self.report()
                    self.assertEqual(doc["findings"], [],
                                     [f["message"] for f in doc["findings"]])
                    self.assertEqual(doc["runs"][0]["notes"], [])
                    vkleak(["gate", self.out])

    def test_vkcube_reports_nothing_and_passes_the_gate(self):
        if not shutil.which("vkcube"):
            self.skipTest("vkcube not installed")
        with xvfb() as display:
            env = explicit_env(self.tmp, self.out)
            env["VKLEAK_SNAPSHOT_EVERY"] = EVERY
            env["DISPLAY"] = display
            run(["vkcube", "--c", "300"], env)
        doc = self.report()
        self.assertEqual(doc["findings"], [], [f["message"] for f in doc["findings"]])
        self.assertGreaterEqual(len(doc["series"]["frames"]), 10)
        gate = vkleak(["gate", self.out, "--color", "never"])
        self.assertIn("Gate: pass", gate.stdout)

    # --- Gate and formats ---------------------------------------------------------------------

    def test_gate_exit_codes_baseline_and_suppression(self):
        self.run_wrapper_growth()
        failed = vkleak(["gate", self.out, "--format", "json"], expect=1)
        doc = json.loads(failed.stdout)
        validate_findings(doc)
        self.assertEqual(doc["gate"]["result"], "fail")
        baseline = os.path.join(self.tmp, "baseline.json")
        vkleak(["report", self.out, "--json", baseline])
        vkleak(["gate", self.out, "--baseline", baseline])
        supp = os.path.join(self.tmp, "vkleak.supp")
        with open(supp, "w") as f:
            f.write("# the wrapper leak is known\nkind=* frame=GpuBuffer::*\n")
        passed = vkleak(["gate", self.out, "--suppressions", supp, "--format", "json"])
        self.assertTrue(all(f["status"] == "suppressed" for f in json.loads(passed.stdout)["findings"]))
        vkleak(["gate", self.out, "--no-such-flag"], expect=2)
        corrupt = sorted(p for p in os.listdir(self.out) if p.endswith(".json"))[2]
        with open(os.path.join(self.out, corrupt), "r+b") as f:
            f.truncate(500)
        result = vkleak(["gate", self.out], expect=2)
        self.assertIn(corrupt, result.stderr)

    def test_every_output_format(self):
        self.run_wrapper_growth()
        files = {fmt: os.path.join(self.tmp, "out." + fmt) for fmt in
                 ("json", "sarif", "junit", "markdown", "html")}
        text = vkleak(["report", self.out, "--color", "never", "--json", files["json"],
                       "--sarif", files["sarif"], "--junit", files["junit"],
                       "--markdown", files["markdown"], "--html", files["html"],
                       "--source-root", SOURCE]).stdout
        self.assertIn("GpuBuffer::GpuBuffer", text)
        with open(files["json"]) as f:
            validate_findings(json.load(f))
        with open(files["sarif"]) as f:
            sarif = json.load(f)
        self.assertEqual(sarif["version"], "2.1.0")
        driver = sarif["runs"][0]["tool"]["driver"]
        self.assertEqual(driver["name"], "vkleak")
        results = sarif["runs"][0]["results"]
        self.assertTrue(results)
        located = [r for r in results if r.get("locations")]
        self.assertEqual(len(located), len(results))
        loc = located[0]["locations"][0]["physicalLocation"]
        self.assertEqual(loc["artifactLocation"]["uri"],
                         "tests/scenarios/incident1_wrapper_growth.cpp")
        self.assertGreater(loc["region"]["startLine"], 0)
        tree = ET.parse(files["junit"])
        cases = tree.getroot().findall("./testsuite/testcase")
        self.assertEqual(len(cases), 2)  # the one problem, and complete_run
        failed = [c.find("failure").get("type") for c in cases if c.find("failure") is not None]
        self.assertEqual(set(failed[0].split(" + ")), {"leak_at_exit", "growth", "retained"})
        with open(files["markdown"]) as f:
            md = f.read()
        self.assertIn("| # | Kind | Type | Count | Bytes | Names | Created at |", md)
        self.assertIn("`growth`", md)
        with open(files["html"]) as f:
            self.assertIn("<html", f.read().lower())


if __name__ == "__main__":
    unittest.main()
