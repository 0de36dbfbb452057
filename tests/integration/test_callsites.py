"""Creation call sites through one wrapper: each caller chain gets its own call site, also when
the layer finds a walk it remembers (same hook return address at the same stack address, only
the frames above differ), at other stack depths, on other threads, and with another layer
stacked above vkleak. Call sites through a library of the Vulkan stack reach the program's own
frames when the library is marked (layer setting vulkan_stack_modules, --stack-module)."""

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


ENGINE = "libvkleak_test_engine*"
ENGINE_LEVELS = 12  # callsite_through_library.cpp


class CallsiteThroughStackModuleTest(TempDirTestCase):
    """Every buffer is made 12 frames deep inside libvkleak_test_engine.so, called from the
    program's upload_texture(). Depth 3 counts only frames outside the Vulkan stack."""

    def run_engine(self, mark_in_layer):
        env = explicit_env(self.tmp, self.out)
        env["VKLEAK_CALLSTACK_DEPTH"] = "3"
        if mark_in_layer:
            env["VKLEAK_VULKAN_STACK_MODULES"] = "libnothing.so, " + ENGINE
        run([scenario("callsite_through_library"), "--count", "10"], env)
        [snap] = snapshots(self.out, "device_destroy")
        validate(snap)
        self.assertEqual(snap["settings"]["vulkan_stack_modules"],
                         "libnothing.so, " + ENGINE if mark_in_layer else "")
        ids = {o["callsite"] for o in snap["objects"]
               if o["type"] == "VkBuffer" and (o["name"] or "").startswith("engine.")}
        self.assertEqual(len(ids), 1, ids)
        callsite_id = ids.pop()
        [frames] = [c["frames"] for c in snap["callsites"] if c["id"] == callsite_id]
        path = [p for p in snapshot_files(self.out) if "device_destroy" in p][0]
        return frames, path

    def show(self, path, *options):
        shown = json.loads(run([VKLEAK, "show", "--format", "json", "--top", "50", *options,
                                path], base_env(self.tmp)).stdout)
        [cs] = [c for c in shown["callsites"]
                if any(n.startswith("engine.") for n in c["example_names"])]
        return cs

    def report(self, *options):
        doc = json.loads(run([VKLEAK, "report", "--format", "json", *options, self.out],
                             base_env(self.tmp), check=False).stdout)
        found = [f for f in doc["findings"]
                 if f["kind"] == "leak_at_exit" and f["object_type"] == "VkBuffer"
                 and any(n.startswith("engine.") for n in f["names"])]
        self.assertEqual(len(found), 1, found)
        return found[0]

    def test_marked_library_frames_do_not_count_toward_the_depth(self):
        frames, path = self.run_engine(mark_in_layer=True)
        # The library's 13 frames are kept, besides 3 of the program's (upload_texture, main,
        # libc's __libc_start_call_main).
        self.assertGreaterEqual(len(frames), ENGINE_LEVELS + 1 + 3, frames)
        cs = self.show(path, "--stack-module", ENGINE)
        functions = [f["function"] or "" for f in cs["frames"]]
        self.assertIn("upload_texture", functions[0], functions)
        self.assertIn("main", functions[1], functions)
        self.assertFalse(any("engine_create_buffer" in f for f in functions), functions)
        self.assertGreaterEqual(cs["skipped_frames"], ENGINE_LEVELS + 1)
        self.assertFalse(cs["all_in_vulkan_stack"])
        finding = self.report("--stack-module", ENGINE)
        self.assertIn("upload_texture", finding["callsite_frames"][0]["function"], finding)
        self.assertFalse(any("engine_create_buffer" in t for t in finding["callsite"]), finding)
        # Without --stack-module the library is not the Vulkan stack for the CLI: its frame is
        # the innermost one shown.
        finding = self.report()
        self.assertIn("engine_create_buffer", finding["callsite_frames"][0]["function"])

    def test_unmarked_library_uses_up_the_depth(self):
        frames, path = self.run_engine(mark_in_layer=False)
        self.assertEqual(len(frames), 3, frames)
        cs = self.show(path)
        functions = [f["function"] or "" for f in cs["frames"]]
        self.assertEqual(functions, ["engine_create_buffer"] * 3)
        # Marked only in the CLI: every recorded frame is in the stack, shown anyway and marked.
        cs = self.show(path, "--stack-module", ENGINE)
        self.assertTrue(cs["all_in_vulkan_stack"])
        self.assertEqual(len(cs["frames"]), 3)
        finding = self.report("--stack-module", ENGINE)
        self.assertEqual(len(finding["callsite"]), 3, finding)
        self.assertTrue(all(t.endswith("[Vulkan stack]") for t in finding["callsite"]), finding)


if __name__ == "__main__":
    unittest.main()
