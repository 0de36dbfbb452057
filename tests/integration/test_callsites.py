"""Creation call sites through one wrapper: each caller chain gets its own call site, also when
the layer finds a walk it remembers (same hook return address at the same stack address, only
the frames above differ), at other stack depths, on other threads, and with another layer
stacked above vkleak."""

import json
import re
import unittest

from harness import (TempDirTestCase, VKLEAK, base_env, explicit_env, run, scenario,
                     snapshot_files, snapshots, validate)

VALIDATION = "VK_LAYER_KHRONOS_validation"
COUNT = 20


class CallsiteChainsTest(TempDirTestCase):
    def run_chains(self, env):
        proc = run([scenario("callsite_chains"), "--count", str(COUNT)], env)
        # The case the test is about: make_buffer's frame at one stack address for both callers.
        m = re.search(r"make_buffer frame: a=(\S+) b=(\S+)", proc.stderr)
        self.assertIsNotNone(m, proc.stderr)
        self.assertEqual(m.group(1), m.group(2), "from_a and from_b must put make_buffer's frame "
                         "at the same stack address, or the test proves nothing")
        [snap] = snapshots(self.out, "device_destroy")
        validate(snap)
        return snap

    def check_chains(self, snap):
        groups = {}
        for o in snap["objects"]:
            if o["type"] == "VkBuffer" and o["name"]:
                groups.setdefault(o["name"].split(".")[0], set()).add(o["callsite"])
        expected_groups = {"a", "b", "thread", "nested0", "nested1", "nested2"}
        self.assertEqual(set(groups), expected_groups)
        for name, ids in groups.items():
            self.assertEqual(len(ids), 1, f"{name}: one chain, one call site: {ids}")
            self.assertIsNotNone(next(iter(ids)), name)
        distinct = {next(iter(ids)) for ids in groups.values()}
        self.assertEqual(len(distinct), len(groups), groups)

        path = [p for p in snapshot_files(self.out) if "device_destroy" in p][0]
        shown = json.loads(run([VKLEAK, "show", "--format", "json", "--top", "50", path],
                               base_env(self.tmp)).stdout)
        by_group = {}
        for cs in shown["callsites"]:
            prefixes = {n.split(".")[0] for n in cs["example_names"]}
            if prefixes & expected_groups:
                self.assertEqual(len(prefixes), 1, cs["example_names"])
                by_group[prefixes.pop()] = cs
        self.assertEqual(set(by_group), expected_groups)
        for name, cs in by_group.items():
            functions = [f["function"] or "" for f in cs["frames"]]
            self.assertIn("make_buffer", functions[0], functions)
            caller = {"a": "from_a", "thread": "from_a", "b": "from_b"}.get(name, "nested")
            self.assertIn(caller, functions[1], (name, functions))
            if name.startswith("nested"):
                depth = int(name[len("nested"):])
                calls = sum(1 for f in functions if "nested" in f)
                self.assertEqual(calls, depth + 1, (name, functions))
                self.assertEqual(cs["count"], len(range(depth, COUNT, 3)))
            else:
                self.assertEqual(cs["count"], COUNT)

    def test_each_chain_has_its_own_call_site(self):
        self.check_chains(self.run_chains(explicit_env(self.tmp, self.out)))

    def test_each_chain_has_its_own_call_site_under_the_validation_layer(self):
        # The hook then returns into the validation layer: its frames are walked and dropped.
        env = explicit_env(self.tmp, self.out, extra_layers_before=[VALIDATION])
        self.check_chains(self.run_chains(env))


if __name__ == "__main__":
    unittest.main()
