"""Issue 27, "one bug, one block": a missing free judged as several kinds is one problem in every
output (text, Markdown, JUnit, SARIF), the gate counts problems and does not change its mind with
the snapshot cadence or the frame boundary, new problems come first, a passing gate is short,
and one line of an unrolled loop is one problem. Scenario programs under the layer on lavapipe."""

import json
import os
import re
import subprocess
import unittest
import xml.etree.ElementTree as ET

from harness import SOURCE, VKLEAK, TempDirTestCase, explicit_env, run, scenario
from harness import vkleak_checked as vkleak

FINDINGS_SCHEMA = os.path.join(SOURCE, "src/schema/vkleak-findings.schema.json")


def validate(doc):
    import jsonschema
    with open(FINDINGS_SCHEMA) as f:
        schema = json.load(f)
    jsonschema.validators.validator_for(schema)(schema).validate(doc)


class ProblemsTest(TempDirTestCase):
    def run_scenario(self, name, out, every=None, boundary="submit", args=()):
        env = explicit_env(self.tmp, out)
        if every:
            env["VKLEAK_SNAPSHOT_EVERY"] = str(every)
        env["VKLEAK_FRAME_BOUNDARY"] = boundary
        run([scenario(name)] + list(args), env)
        return out

    # --- 1. One problem is one block, in every format ---------------------------------------

    def test_one_missing_free_is_one_block_in_every_format(self):
        # incident 4: one missing vkFreeMemory, judged leak_at_exit, growth and orphaned_memory.
        out = self.run_scenario("incident4_orphaned_memory", self.out, every=25)
        files = {fmt: os.path.join(self.tmp, "out." + fmt) for fmt in
                 ("json", "sarif", "junit", "markdown")}
        text = vkleak(["report", out, "--color", "never", "--json", files["json"],
                       "--sarif", files["sarif"], "--junit", files["junit"],
                       "--markdown", files["markdown"], "--source-root", SOURCE]).stdout
        with open(files["json"]) as f:
            doc = json.load(f)
        validate(doc)
        self.assertEqual(len(doc["findings"]), 3, [f["kind"] for f in doc["findings"]])
        self.assertEqual(len(doc["problems"]), 1)
        kinds = " + ".join(doc["problems"][0]["kinds"])
        self.assertEqual(set(doc["problems"][0]["kinds"]),
                         {"leak_at_exit", "growth", "orphaned_memory"})

        # Text: one numbered block, its kinds in the headline, the evidence once.
        self.assertRegex(text, r"\n  #1  " + re.escape(kinds) +
                         r"  VkDeviceMemory \"tensor\.memory\"  300 objects")
        self.assertNotRegex(text, r"\n  #2  ")
        self.assertEqual(text.count("created at:"), 1, text)
        self.assertEqual(text.count("examples:"), 1, text)
        self.assertEqual(text.count("import_tensor"), 1, text)
        self.assertIn("vkleak: 1 problem, 300 objects", text)

        # Markdown: one row, one item.
        with open(files["markdown"]) as f:
            md = f.read()
        rows = [line for line in md.splitlines() if re.match(r"\| [0-9]+ \|", line)]
        self.assertEqual(len(rows), 1, md)
        self.assertIn("`leak_at_exit` + `growth` + `orphaned_memory`", rows[0])
        self.assertEqual(len(re.findall(r"\n[0-9]+\. \*\*", md)), 1, md)
        self.assertEqual(md.count("created at:"), 1, md)

        # JUnit: one test case for the problem (and the run's completeness).
        cases = ET.parse(files["junit"]).getroot().findall("./testsuite/testcase")
        self.assertEqual(len(cases), 2, [c.get("name") for c in cases])
        failure = cases[0].find("failure")
        self.assertEqual(failure.get("type"), kinds)
        self.assertEqual(failure.text.count("created at"), 1)

        # SARIF: one result, its kinds listed, at the leaking line.
        with open(files["sarif"]) as f:
            results = json.load(f)["runs"][0]["results"]
        self.assertEqual(len(results), 1)
        self.assertEqual(results[0]["properties"]["kinds"], doc["problems"][0]["kinds"])
        loc = results[0]["locations"][0]["physicalLocation"]
        self.assertEqual(loc["artifactLocation"]["uri"],
                         "tests/scenarios/incident4_orphaned_memory.cpp")

    # --- 2. The gate counts problems, whatever the cadence and the frame boundary ------------

    def test_gate_counts_problems_and_keeps_its_verdict_at_any_cadence_and_boundary(self):
        base_dir = self.run_scenario("incident1_wrapper_growth", os.path.join(self.tmp, "base"),
                                     every=100)
        fine_dir = self.run_scenario("incident1_wrapper_growth", os.path.join(self.tmp, "fine"),
                                     every=10)
        present_dir = self.run_scenario("incident1_wrapper_growth",
                                        os.path.join(self.tmp, "present"), boundary="present")
        fine = json.loads(vkleak(["gate", fine_dir, "--format", "json"], expect=1).stdout)
        validate(fine)
        # One missing delete, judged three ways: one new problem.
        self.assertEqual(len(fine["problems"]), 1)
        self.assertGreater(len(fine["findings"]), 1)
        self.assertEqual(fine["gate"]["new"], 1)
        text = vkleak(["gate", fine_dir, "--color", "never"], expect=1).stdout
        self.assertIn("Gate: FAIL: 1 new problem (0 allowed)", text)

        # Baselines taken at --every 100 (too few snapshots to judge growth) and with frames that
        # never end (no snapshot during the run): the finer run's growth verdict is a facet of
        # the known problem, not new.
        fine_kinds = set(fine["problems"][0]["kinds"])
        for baseline_dir in (base_dir, present_dir):
            baseline = os.path.join(self.tmp, os.path.basename(baseline_dir) + ".json")
            vkleak(["report", baseline_dir, "--json", baseline])
            with open(baseline) as f:
                base_kinds = {f["kind"] for f in json.load(f)["findings"]}
            self.assertIn("leak_at_exit", base_kinds)
            self.assertNotIn("growth", base_kinds)
            self.assertLess(base_kinds, fine_kinds)
            passed = json.loads(vkleak(["gate", fine_dir, "--baseline", baseline,
                                        "--format", "json"]).stdout)
            self.assertEqual(passed["gate"]["result"], "pass")
            self.assertEqual(passed["gate"]["baseline"], 1)
            self.assertEqual({f["status"] for f in passed["findings"]}, {"baseline"})
            # And the other way round.
            fine_base = os.path.join(self.tmp, "fine.json")
            vkleak(["report", fine_dir, "--json", fine_base])
            vkleak(["gate", baseline_dir, "--baseline", fine_base])

        # --fail-on works on problems: a problem with a growth facet counts for growth.
        vkleak(["gate", fine_dir, "--fail-on", "growth"], expect=1)
        vkleak(["gate", fine_dir, "--fail-on", "stale_view,invalid_destroy"])

    # --- 9. New problems first; a passing gate is short ---------------------------------------

    def test_new_problems_first_and_a_passing_gate_is_short(self):
        known_dir = self.run_scenario("incident4_orphaned_memory", os.path.join(self.tmp, "k"),
                                      every=25)
        new_dir = self.run_scenario("leak_named_buffers", os.path.join(self.tmp, "n"))
        baseline = os.path.join(self.tmp, "baseline.json")
        vkleak(["report", known_dir, "--json", baseline])

        # A passing gate: a headline, the run, one line per known problem, the verdict.
        passing = vkleak(["gate", known_dir, "--baseline", baseline, "--color", "never"]).stdout
        report = vkleak(["report", known_dir, "--color", "never"]).stdout
        self.assertLess(len(passing.splitlines()), 12, passing)
        self.assertLess(len(passing.splitlines()), len(report.splitlines()) // 2)
        self.assertIn("[baseline]", passing)
        self.assertNotIn("examples:", passing)
        self.assertIn("Gate: pass: 0 new problems", passing)

        # A failing gate over both runs: the new leak is #1 everywhere, though the known
        # problem ranks higher (more bytes) and its run comes first.
        files = {fmt: os.path.join(self.tmp, "gate." + fmt) for fmt in
                 ("sarif", "junit", "markdown", "json")}
        text = vkleak(["gate", known_dir, new_dir, "--baseline", baseline, "--color", "never",
                       "--sarif", files["sarif"], "--junit", files["junit"],
                       "--markdown", files["markdown"], "--json", files["json"],
                       "--source-root", SOURCE], expect=1).stdout
        self.assertRegex(text, r"#1  leak_at_exit  VkBuffer \"leak\.\*\"  5 objects.*\[new\]")
        self.assertRegex(text, r"#2  .*VkDeviceMemory \"tensor\.memory\".*\[baseline\]")
        with open(files["markdown"]) as f:
            md = f.read()
        rows = [line for line in md.splitlines() if re.match(r"\| [0-9]+ \|", line)]
        self.assertTrue(rows[0].startswith("| 1 | **new** |"), rows)
        self.assertIn("VkBuffer", rows[0])
        self.assertLess(md.index("**new**"), md.index("not failing the gate"))
        with open(files["sarif"]) as f:
            results = json.load(f)["runs"][0]["results"]
        self.assertEqual([r["baselineState"] for r in results], ["new", "unchanged"])
        self.assertEqual(results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                         "tests/scenarios/leak_named_buffers.cpp")
        cases = ET.parse(files["junit"]).getroot().findall("./testsuite/testcase")
        self.assertIsNotNone(cases[0].find("failure"))
        self.assertIsNotNone(cases[1].find("skipped"))
        with open(files["json"]) as f:
            doc = json.load(f)
        validate(doc)
        self.assertEqual(sorted(p["status"] for p in doc["problems"]), ["baseline", "new"])

    # --- 3. Identity that survives the compiler -----------------------------------------------

    def test_an_unrolled_loop_is_one_problem(self):
        # One vkCreateBuffer line in a loop unrolled at -O1: five return addresses, one line.
        self.run_scenario("callsite_unrolled", self.out, boundary="present")
        doc = json.loads(vkleak(["report", self.out, "--format", "json"]).stdout)
        validate(doc)
        self.assertEqual(len(doc["findings"]), 1,
                         [(f["kind"], f["count"], f["callsite"][:1]) for f in doc["findings"]])
        f = doc["findings"][0]
        self.assertEqual((f["kind"], f["object_type"], f["count"]), ("leak_at_exit", "VkBuffer", 5))
        self.assertIn("allocate_staging", f["function"])
        self.assertTrue(f["location"]["file"].endswith("tests/scenarios/callsite_unrolled.cpp"))


if __name__ == "__main__":
    unittest.main()
