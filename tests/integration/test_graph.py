"""The object graph and frame-fenced lifetimes (scenario programs of INCIDENTS.md): edges, last
use frozen at a resize, destroyed_in_flight with its path, and no false alarm where the app
waited properly (2 and 3 frames in flight, timeline semaphores, vkQueueWaitIdle, pool resets)."""

import re
import unittest

from harness import (VALIDATION, TempDirTestCase, explicit_env, run, scenario, snapshots,
                     validate, xvfb)

MODES = (("headless", ()), ("swapchain", ("--swapchain",)))


def events(snaps, kind):
    return [e for s in snaps for e in s["events"] if e["kind"] == kind]


class GraphTest(TempDirTestCase):
    def run_scenario(self, name, args, mode_args=(), extra_env=None, display=None, tmp=None,
                     out=None):
        env = explicit_env(tmp or self.tmp, out or self.out)
        if not mode_args:
            env["VKLEAK_FRAME_BOUNDARY"] = "submit"
        if display:
            env["DISPLAY"] = display
        env.update(extra_env or {})
        return run([scenario(name)] + list(args) + list(mode_args), env)

    def run_edge_targets(self):
        """edge_targets, headless: one run, which the three tests reading it share."""
        return self.shared_run("edge_targets", lambda tmp, out: self.run_scenario(
            "edge_targets", [], tmp=tmp, out=out))

    def in_modes(self, fn):
        for mode, mode_args in MODES:
            with self.subTest(mode=mode):
                import shutil
                shutil.rmtree(self.out, ignore_errors=True)
                if mode_args:
                    with xvfb() as display:
                        fn(mode_args, display)
                else:
                    fn(mode_args, None)

    def test_resized_buffer_chain_with_frozen_last_use(self):
        def check(mode_args, display):
            self.run_scenario("incident2_resized_view_cache", ["--frames", "100"], mode_args,
                              {"VKLEAK_SNAPSHOT_EVERY": "90"}, display)
            [snap] = snapshots(self.out, "frame")
            validate(snap)
            by_id = {o["id"]: o for o in snap["objects"]}
            views = sorted((o for o in snap["objects"] if o["name"] == "pass.attachment.view"),
                           key=lambda o: o["id"])
            self.assertGreaterEqual(len(views), 4, "old views stay in the app's cache")
            oldest = views[0]
            [edge] = [e for e in oldest["edges"] if e["kind"] == "buffer"]
            buffer = by_id[edge["to"]]
            self.assertEqual(buffer["name"], "pass.attachment")
            memory = by_id[buffer["memory"]["id"]]
            self.assertEqual(memory["name"], "pass.attachment.memory")
            self.assertEqual(buffer["memory"]["size"], buffer["size"])
            # The old chain was last used just before the first resize (frame 20), and never
            # again; the newest buffer is used in the current frames.
            for o in (oldest, buffer, memory):
                self.assertIsNotNone(o["last_use"])
                self.assertLess(o["last_use"]["frame"], 21, o["name"])
                self.assertFalse(o["in_flight"])
            newest = by_id[[e for e in views[-1]["edges"] if e["kind"] == "buffer"][0]["to"]]
            self.assertGreaterEqual(newest["last_use"]["frame"], 80)
        self.in_modes(check)

    def test_edges_name_their_target_as_it_was(self):
        # Targets come from a per-thread cache when the same image is referenced again: a
        # rename and a destroy must show in the edges made after them.
        proc = self.run_edge_targets()
        [snap] = snapshots(self.out, "device_destroy")
        validate(snap)
        by_name = {o["name"]: o for o in snap["objects"] if o["name"]}
        images = {o["id"]: o for o in snap["objects"] if o["type"] == "VkImage"}

        def target(view):
            [edge] = [e for e in by_name[view]["edges"] if e["kind"] == "image"]
            return edge

        first = by_name["img.renamed"]["id"]
        self.assertEqual((target("v1")["to"], target("v1")["name"]), (first, "img.first"))
        self.assertEqual((target("v2")["to"], target("v2")["name"]), (first, "img.renamed"))
        self.assertEqual((target("v4")["to"], target("v4")["name"]), (first, "img.renamed"))
        # img.other was destroyed: its view still points at its id, which no live image has.
        self.assertEqual(target("v3")["name"], "img.other")
        self.assertNotIn(target("v3")["to"], images)
        # img.third, made after img.other was destroyed (often at the same handle).
        third = by_name["img.third"]
        self.assertEqual((target("v5")["to"], target("v5")["name"]), (third["id"], "img.third"))
        self.assertEqual(target("v5")["handle"], third["handle"])
        self.assertRegex(proc.stderr, r"img.third (reuses|does not reuse) img.other's handle")

    def test_descriptor_sets_name_their_layout(self):
        # A set keeps its layout in its own record; the snapshot makes its pSetLayouts edge,
        # pointing at the layout it was allocated with even after that layout was destroyed
        # and another one took its handle.
        proc = self.run_edge_targets()
        [snap] = snapshots(self.out, "device_destroy")
        validate(snap)
        by_name = {o["name"]: o for o in snap["objects"] if o["name"]}
        destroyed = {o["name"]: o for o in snap["destroyed"] if o["name"]}
        self.assertNotIn("layout.gone", by_name)
        gone = destroyed["layout.gone"]
        fresh = by_name["layout.new"]
        for set_name, layout in (("set.a", gone), ("set.b", fresh)):
            with self.subTest(set=set_name):
                s = by_name[set_name]
                self.assertEqual(s["size"], 0)
                self.assertEqual(s["parent"], by_name["pool.sets"]["id"])
                [edge] = [e for e in s["edges"] if e["kind"] == "pSetLayouts"]
                self.assertEqual((edge["to"], edge["name"], edge["type"], edge["handle"]),
                                 (layout["id"], layout["name"], "VkDescriptorSetLayout",
                                  layout["handle"]))
        self.assertRegex(proc.stderr, r"layout.new (reuses|does not reuse) layout.gone's handle")
        # Sets count no bytes of their own.
        self.assertEqual(snap["counts"]["VkDescriptorSet"]["bytes"], 0)

    def test_memory_bindings_name_their_memory(self):
        # A binding lives in the bound buffer's record; the snapshot makes its "memory" edge:
        # sub-allocations keep their offsets, and a buffer whose memory was freed still names
        # that memory (by id and handle), also when a new allocation took its handle.
        proc = self.run_edge_targets()
        [snap] = snapshots(self.out, "device_destroy")
        validate(snap)
        by_name = {o["name"]: o for o in snap["objects"] if o["name"]}
        destroyed = {o["name"]: o for o in snap["destroyed"] if o["name"]}
        self.assertNotIn("mem.freed", by_name)
        step = int(re.search(r"buf.sub1 offset (\d+)", proc.stderr).group(1))
        for buf, memory, offset in (("buf.sub0", by_name["mem.shared"], 0),
                                    ("buf.sub1", by_name["mem.shared"], step),
                                    ("buf.stale", destroyed["mem.freed"], 0),
                                    ("buf.after", by_name["mem.after"], 0)):
            with self.subTest(buffer=buf):
                b = by_name[buf]
                [edge] = [e for e in b["edges"] if e["kind"] == "memory"]
                self.assertEqual((edge["to"], edge["name"], edge["type"], edge["handle"]),
                                 (memory["id"], memory["name"], "VkDeviceMemory",
                                  memory["handle"]))
                self.assertEqual(b["memory"], {"id": memory["id"], "offset": offset,
                                               "size": b["size"]})
                self.assertEqual(edge.get("offset", 0), offset)
        self.assertRegex(proc.stderr, r"mem.after (reuses|does not reuse) mem.freed's handle")

    def test_early_free_raises_destroyed_in_flight_with_path(self):
        expected = {
            "set": ("VkDescriptorSet", "compute.bindings", []),
            "buffer": ("VkBuffer", "compute.input", ["VkDescriptorSet"]),
            "view": ("VkBufferView", "compute.view", ["VkDescriptorSet"]),
            "pipeline": ("VkPipeline", "compute.pipeline", []),
        }
        for obj, (type_, name, via) in expected.items():
            with self.subTest(object=obj):
                import shutil
                shutil.rmtree(self.out, ignore_errors=True)
                proc = self.run_scenario("incident3_early_free",
                                         ["--frames", "20", "--object", obj])
                snaps = snapshots(self.out)
                for s in snaps:
                    validate(s)
                [event] = events(snaps, "destroyed_in_flight")
                self.assertEqual((event["type"], event["name"]), (type_, name))
                self.assertEqual(event["submission"]["frame"], 10)
                path_types = [p["type"] for p in event["path"]]
                self.assertEqual(path_types, via + ["VkCommandBuffer"])
                self.assertIn("not proven complete", event["message"])
                self.assertIn(name, proc.stderr)  # logged when it happens

    def test_early_free_under_swapchain(self):
        with xvfb() as display:
            self.run_scenario("incident5_bindgroup_cache", ["--frames", "30", "--free-in-flight"],
                              ("--swapchain",), None, display)
        [event] = events(snapshots(self.out), "destroyed_in_flight")
        self.assertEqual(event["type"], "VkDescriptorSet")
        self.assertTrue(event["name"].startswith("bindgroup."))

    def test_no_false_alarm_when_the_app_waits(self):
        variants = [["--frames-in-flight", "2"], ["--frames-in-flight", "3"], ["--timeline"],
                    ["--timeline", "--frames-in-flight", "3"], ["--queue-wait-idle"]]
        for args in variants:
            def check(mode_args, display, args=args):
                self.run_scenario("clean_app", ["--frames", "120"] + args, mode_args,
                                  {"VKLEAK_SNAPSHOT_EVERY": "50"}, display)
                snaps = snapshots(self.out)
                self.assertGreaterEqual(len(snaps), 3)
                self.assertEqual(events(snaps, "destroyed_in_flight"), [])
                self.assertEqual(events(snaps, "invalid_destroy"), [])
                # Submissions were proven complete as the app waited.
                frame = [s for s in snaps if s["reason"] == "frame"][-1]
                [q] = frame["devices"][0]["queues"]
                self.assertGreater(q["submitted"], 50)
                self.assertGreaterEqual(q["retired"], q["submitted"] - 3)
            with self.subTest(args=args):
                self.in_modes(check)

    def test_every_in_use_error_of_the_validation_layer_is_found(self):
        """Stacked with the validation layer: each VUID-*-in-use error it reports on the
        scenario programs is also a destroyed_in_flight of vkleak, and vice versa."""
        cases = [("incident3_early_free", ["--object", o]) for o in
                 ("set", "buffer", "view", "pipeline")]
        cases.append(("incident5_bindgroup_cache", ["--free-in-flight"]))
        cases.append(("clean_app", ["--timeline"]))
        cases.append(("clean_app", ["--queue-wait-idle"]))
        for name, args in cases:
            with self.subTest(scenario=name, args=args):
                import shutil
                shutil.rmtree(self.out, ignore_errors=True)
                env = explicit_env(self.tmp, self.out, extra_layers_after=(VALIDATION,))
                env["VKLEAK_FRAME_BOUNDARY"] = "submit"
                proc = run([scenario(name), "--frames", "30"] + args, env)
                output = proc.stdout + proc.stderr
                vvl = [v for v in re.findall(
                    r"Validation Error: \[ (VUID-vk(?:Destroy|Free|Reset)\w+-\w+-\d+) \]", output)
                       if not v.startswith(("VUID-vkDestroyDevice", "VUID-vkDestroyInstance"))]
                ours = events(snapshots(self.out), "destroyed_in_flight")
                self.assertEqual(len(ours), len(vvl), (vvl, [e["message"] for e in ours]))


if __name__ == "__main__":
    unittest.main()
