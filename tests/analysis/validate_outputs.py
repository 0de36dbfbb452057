#!/usr/bin/env python3
"""Runs vkleak report and gate on generated runs and checks every output format with the tools
that read it: the findings JSON against its JSON Schema (Draft 2020-12), JUnit XML with an XML
parser, SARIF against the OASIS SARIF 2.1.0 schema (which tools/deps.sh test fetches; --sarif-schema)
and for what vkleak puts in it (rules, VUIDs), Markdown for its table."""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import jsonschema


def run(cmd, expect):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != expect:
        sys.exit(f"{cmd} exited {proc.returncode}, expected {expect}\n{proc.stderr}")
    return proc.stdout


def check_sarif(doc, sarif_validator):
    sarif_validator.validate(doc)
    assert doc["version"] == "2.1.0", doc["version"]
    assert doc["$schema"].endswith("sarif-2.1.0.json")
    [run_] = doc["runs"]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "vkleak"
    rule_ids = [r["id"] for r in driver["rules"]]
    assert len(rule_ids) == 7 and len(set(rule_ids)) == 7
    assert run_["results"], "the leaky run has findings"
    for r in run_["results"]:
        assert r["ruleId"] in rule_ids
        assert driver["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
        assert r["level"] in ("error", "warning", "note")
        assert r["message"]["text"]
        for loc in r.get("locations", []):
            phys = loc.get("physicalLocation")
            if phys:
                assert phys["artifactLocation"]["uri"]
                assert phys["region"]["startLine"] >= 1


def check_junit(text, problems):
    root = ET.fromstring(text)
    assert root.tag == "testsuites"
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == problems + 1, len(cases)  # a problem each, and complete_run
    failures = [c for c in cases if c.find("failure") is not None]
    assert int(root.get("failures")) == len(failures) > 0
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vkleak", required=True)
    ap.add_argument("--gen-run", required=True)
    ap.add_argument("--schema", required=True)
    ap.add_argument("--sarif-schema", default=os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "vkleak",
        "sarif-schema", "sarif-2.1.0-rtm.5.json"))
    args = ap.parse_args()
    if not os.path.exists(args.sarif_schema):
        sys.exit(f"no SARIF schema at {args.sarif_schema}: run tools/deps.sh test")
    with open(args.sarif_schema) as f:
        sarif_schema = json.load(f)
    sarif_cls = jsonschema.validators.validator_for(sarif_schema)
    sarif_cls.check_schema(sarif_schema)
    sarif_validator = sarif_cls(sarif_schema)
    with open(args.schema) as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema)

    with tempfile.TemporaryDirectory() as tmp:
        leaky, clean = os.path.join(tmp, "leaky"), os.path.join(tmp, "clean")
        run([args.gen_run, leaky, "--objects", "500", "--teardown"], 0)
        run([args.gen_run, clean, "--objects", "500", "--teardown", "--clean", "--pid", "9"], 0)
        for inputs in ([leaky], [clean], [leaky, clean]):
            doc = json.loads(run([args.vkleak, "report", *inputs, "--format", "json"], 0))
            validator.validate(doc)
        gate = json.loads(run([args.vkleak, "gate", leaky, "--format", "json"], 1))
        validator.validate(gate)
        assert gate["gate"]["result"] == "fail"
        assert all(f["status"] == "new" for f in gate["findings"])
        base = os.path.join(tmp, "base.json")
        run([args.vkleak, "report", leaky, "--json", base], 0)
        validator.validate(json.load(open(base)))
        passed = json.loads(run([args.vkleak, "gate", leaky, "--baseline", base, "--format",
                                 "json"], 0))
        validator.validate(passed)
        assert {f["status"] for f in passed["findings"]} == {"baseline"}
        assert {p["status"] for p in passed["problems"]} == {"baseline"}

        problems = len(json.load(open(base))["problems"])
        sarif = json.loads(run([args.vkleak, "report", leaky, "--format", "sarif"], 0))
        check_sarif(sarif, sarif_validator)
        # The validation layer's words ride along (issue 29, part 3), inside the schema.
        vuids = [v for r in sarif["runs"][0]["results"] for v in r["properties"].get("vuids", [])]
        assert any(v.startswith("VUID-vkDestroyDevice-device-") for v in vuids), vuids
        check_sarif(json.loads(run([args.vkleak, "gate", leaky, "--format", "sarif"], 1)),
                    sarif_validator)
        failures = check_junit(run([args.vkleak, "report", leaky, "--format", "junit"], 0),
                               problems)
        kinds = set()
        for c in failures:
            kinds |= set(c.find("failure").get("type").split(" + "))
        assert kinds >= {"leak_at_exit", "growth", "retained"}, kinds
        md = run([args.vkleak, "report", leaky, "--format", "markdown"], 0)
        assert "| # | Kind | Type | Count | Bytes | Names | Created at |" in md, md
    print("outputs valid")


if __name__ == "__main__":
    main()
