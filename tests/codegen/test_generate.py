#!/usr/bin/env python3
"""Tests for layer/codegen/generate.py, run against the real registry.

    python3 tests/codegen/test_generate.py --registry /usr/share/vulkan/registry/vk.xml \
        --generator layer/codegen/generate.py --exceptions layer/codegen/exceptions.json

Coverage is checked against vk.xml read independently of the generator: every handle type must
be produced by some hooked command, and every destroyable one consumed by some hooked command;
every vkCmd* command taking a handle must be hooked. The object-graph walkers and hooks are
checked on the members and commands that matter most to the layer.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARGS = argparse.Namespace(
    registry="/usr/share/vulkan/registry/vk.xml",
    generator=os.path.join(REPO, "layer", "codegen", "generate.py"),
    exceptions=os.path.join(REPO, "layer", "codegen", "exceptions.json"),
)
OUTPUTS = ("vk_object_types.h", "vk_dispatch.h", "vk_dispatch.cpp", "manual_hooks.h",
           "generated_hooks.cpp", "graph_walkers.h", "graph_walkers.cpp", "hook_table.h",
           "hook_table.cpp", "hooked_commands.txt", "hook_calls.inc")
CREATE_KINDS = {"create", "allocate", "retrieve", "manual"}
DESTROY_KINDS = {"destroy", "free", "manual"}
DESTROY_PREFIXES = ("vkDestroy", "vkFree", "vkRelease")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def run_generator(out_dir, exceptions=None):
    return subprocess.run(
        [sys.executable, ARGS.generator, "--registry", ARGS.registry,
         "--exceptions", exceptions or ARGS.exceptions, "--out-dir", out_dir],
        capture_output=True, text=True, check=False)


def function_bodies(source, pattern):
    """{name: body} of the top-level functions whose header line matches pattern (one group:
    the name); a body runs to the first line that is exactly "}"."""
    bodies = {}
    for m in re.finditer(pattern + r"[^\n]*\{\n(.*?)\n\}\n", source, re.S | re.M):
        bodies[m.group(1)] = m.group(2)
    return bodies


def unguarded(body):
    """The lines of a function body outside #if blocks."""
    lines, depth = [], 0
    for line in body.splitlines():
        if line.startswith("#if"):
            depth += 1
        elif line.startswith("#endif"):
            depth -= 1
        elif depth == 0:
            lines.append(line)
    return "\n".join(lines)


class Vk:
    """Just enough of vk.xml: handle types and the commands the headers declare."""

    def __init__(self, path):
        root = ET.parse(path).getroot()
        types = root.find("types")
        self.handles = {t.find("name").text for t in types
                        if t.get("category") == "handle" and not t.get("alias")}
        self.handle_alias = {t.get("name"): t.get("alias") for t in types
                             if t.get("category") == "handle" and t.get("alias")}
        self.struct_members = {
            t.get("name"): [m.find("type").text for m in t.findall("member")]
            for t in types if t.get("category") in ("struct", "union")}
        required = set()
        blocks = list(root.findall("feature")) + [
            e for e in root.find("extensions") if "vulkan" in (e.get("supported") or "")]
        for block in blocks:
            for c in block.iter("command"):
                required.add(c.get("name"))
        self.commands = {}  # name -> [(type, is_output, is_input_handle_or_array)]
        for c in root.find("commands"):
            if c.get("alias"):
                continue
            name = c.find("proto/name").text
            if name not in required:
                continue
            params = []
            for p in c.findall("param"):
                text = "".join(p.itertext())
                ptr = "*" in text
                params.append((self.canonical(p.find("type").text), ptr,
                               ptr and not text.strip().startswith("const")))
            self.commands[name] = params
        self.by_value_handles = {}  # command -> handle types it takes by value
        for c in root.find("commands"):
            if not c.get("alias") and c.find("proto/name").text in self.commands:
                self.by_value_handles[c.find("proto/name").text] = {
                    self.canonical(p.find("type").text) for p in c.findall("param")
                    if "*" not in "".join(p.itertext())
                    and self.canonical(p.find("type").text) in self.handles}

    def canonical(self, type_name):
        return self.handle_alias.get(type_name, type_name)

    def struct_handles(self, struct, seen=()):
        found = set()
        for t in self.struct_members.get(struct, []):
            if self.canonical(t) in self.handles:
                found.add(self.canonical(t))
            elif t in self.struct_members and t not in seen:
                found |= self.struct_handles(t, seen + (struct,))
        return found

    def produced(self, command):
        """Handle types a command returns (directly or inside output structs)."""
        found = set()
        for type_name, _, is_output in self.commands[command]:
            if is_output and type_name in self.handles:
                found.add(type_name)
            elif is_output:
                found |= self.struct_handles(type_name)
        return found

    def consumed(self, command):
        """Handle types a destroy-like command takes (vkDestroyInstance: its first parameter)."""
        if not command.startswith(DESTROY_PREFIXES):
            return set()
        params = self.commands[command]
        found = {t for t, _, is_output in params[1:] if t in self.handles and not is_output}
        if not found and params and command.endswith(params[0][0][2:]):
            found.add(params[0][0])
        return found


class GeneratedOutput(unittest.TestCase):
    """Runs the generator once per test class; the tests read its outputs."""

    @classmethod
    def setUpClass(cls):
        cls.vk = Vk(ARGS.registry)
        with open(ARGS.exceptions, encoding="utf-8") as f:
            cls.exceptions = json.load(f)
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = os.path.join(cls.tmp.name, "generated")
        cls.result = run_generator(cls.out)
        cls.lines = []
        cls.walkers, cls.hooks = {}, {}
        if cls.result.returncode == 0:
            listing = read(os.path.join(cls.out, "hooked_commands.txt"))
            cls.lines = [line.split("\t") for line in listing.splitlines()]
            cls.walkers = function_bodies(read(os.path.join(cls.out, "graph_walkers.cpp")),
                                          r"^void walk_(\w+)\(")
            cls.hooks = function_bodies(read(os.path.join(cls.out, "generated_hooks.cpp")),
                                        r"^static VKAPI_ATTR \w+ VKAPI_CALL hook_(\w+)\(")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def setUp(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)

    def hooked(self):
        """(command, kind) for each non-alias line."""
        return [(name, kind) for name, kind, _ in self.lines if not kind.startswith("alias-of")]


class GenerateTest(GeneratedOutput):

    def test_outputs_exist(self):
        for name in OUTPUTS:
            self.assertTrue(os.path.isfile(os.path.join(self.out, name)), name)

    def test_object_types(self):
        header = read(os.path.join(self.out, "vk_object_types.h"))
        body = re.search(r"enum class ObjectType : uint8_t \{(.*?)\};", header, re.S).group(1)
        enumerators = re.findall(r"^\s*(k\w+)", body, re.M)
        self.assertEqual(enumerators[0], "kUnknown")
        expected = sorted("k" + h[2:] for h in self.vk.handles)
        self.assertEqual(sorted(enumerators[1:]), expected)
        if "#define <name>VK_HEADER_VERSION</name> 239" in read(ARGS.registry):
            self.assertEqual(len(enumerators) - 1, 47)
        count = int(re.search(r"kObjectTypeCount = (\d+);", header).group(1))
        self.assertEqual(count, len(self.vk.handles) + 1)

    def test_listing_format(self):
        names = [line[0] for line in self.lines]
        self.assertEqual(names, sorted(names))
        self.assertEqual(len(names), len(set(names)))
        kinds = dict(self.hooked())
        for line in self.lines:
            self.assertEqual(len(line), 3, line)
            name, kind, _ = line
            if kind.startswith("alias-of "):
                self.assertIn(kind[len("alias-of "):], kinds, line)
            else:
                self.assertIn(kind, {"create", "allocate", "retrieve", "destroy", "free",
                                     "manual", "cmd", "watch"}, line)

    def test_every_handle_type_is_created_by_a_hooked_command(self):
        produced = set()
        for name, kind in self.hooked():
            if kind in CREATE_KINDS:
                produced |= self.vk.produced(name)
        self.assertEqual(sorted(self.vk.handles - produced), [])

    def test_every_destroyable_handle_type_is_destroyed_by_a_hooked_command(self):
        # vkDestroy*/vkFree* always destroy; a vkRelease* may be excluded as destroying nothing.
        excluded = set(self.exceptions.get("excluded", {}))
        destroyable = set()
        for name in self.vk.commands:
            if not (name.startswith("vkRelease") and name in excluded):
                destroyable |= self.vk.consumed(name)
        destroyed = set()
        for name, kind in self.hooked():
            if kind in DESTROY_KINDS:
                destroyed |= self.vk.consumed(name)
        self.assertEqual(sorted(destroyable - destroyed), [])
        for must in ("VkInstance", "VkDevice", "VkBuffer", "VkCommandBuffer", "VkDescriptorSet"):
            self.assertIn(must, destroyed)

    def test_manual_commands_are_listed_as_manual(self):
        kinds = dict(self.hooked())
        for name in self.exceptions["manual"]:
            self.assertEqual(kinds.get(name), "manual", name)
        for name in self.exceptions["excluded"]:
            self.assertNotIn(name, kinds)

    def test_regeneration_is_deterministic_and_leaves_files_alone(self):
        before = {n: os.stat(os.path.join(self.out, n)).st_mtime_ns for n in OUTPUTS}
        contents = {n: read(os.path.join(self.out, n)) for n in OUTPUTS}
        again = run_generator(self.out)
        self.assertEqual(again.returncode, 0, again.stderr)
        for n in OUTPUTS:
            self.assertEqual(os.stat(os.path.join(self.out, n)).st_mtime_ns, before[n], n)
        with tempfile.TemporaryDirectory() as other:
            self.assertEqual(run_generator(other).returncode, 0)
            for n in OUTPUTS:
                self.assertEqual(read(os.path.join(other, n)), contents[n], n)

    def test_missing_manual_entry_fails_the_build(self):
        broken = json.loads(json.dumps(self.exceptions))
        del broken["manual"]["vkCreateDevice"]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "exceptions.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(broken, f)
            result = run_generator(os.path.join(tmp, "out"), path)
            self.assertNotEqual(result.returncode, 0)
            self.assertIn("vkCreateDevice", result.stderr)
            self.assertFalse(os.path.exists(os.path.join(tmp, "out", "generated_hooks.cpp")))

    def test_missing_exclusion_fails_the_build(self):
        broken = json.loads(json.dumps(self.exceptions))
        del broken["excluded"]["vkReleaseDisplayEXT"]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "exceptions.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(broken, f)
            result = run_generator(os.path.join(tmp, "out"), path)
            self.assertNotEqual(result.returncode, 0)
            self.assertIn("vkReleaseDisplayEXT", result.stderr)


class LayoutTest(unittest.TestCase):
    """The generator's modules: one gen_*.py per output (or .h/.cpp pair), all run by the
    driver, all listed in codegen.cmake's DEPENDS so that editing any regenerates."""

    @classmethod
    def setUpClass(cls):
        cls.dir = os.path.dirname(ARGS.generator)
        cls.modules = sorted(f for f in os.listdir(cls.dir) if f.endswith(".py"))
        sys.dont_write_bytecode = True
        sys.path.insert(0, cls.dir)
        try:
            cls.driver = __import__(os.path.splitext(os.path.basename(ARGS.generator))[0])
        finally:
            sys.path.remove(cls.dir)

    def test_codegen_cmake_depends_on_every_module(self):
        cmake = read(os.path.join(self.dir, "codegen.cmake"))
        listed = re.search(r"set\(_vkleak_codegen_modules\s([^)]*)\)", cmake).group(1).split()
        self.assertEqual(sorted(listed), self.modules)

    def test_every_output_has_one_generator(self):
        generators = sorted(g.__name__ + ".py" for g in self.driver.GENERATORS)
        self.assertEqual(generators, [m for m in self.modules if m.startswith("gen_")])
        files = [f for g in self.driver.GENERATORS for f in g.FILES]
        self.assertEqual(sorted(files), sorted(OUTPUTS))


class GraphTest(GeneratedOutput):
    """The object graph: struct walkers, create edges, vkCmd* reference hooks."""

    # (struct, kinds its walker must add)
    WALKED = {
        "VkImageViewCreateInfo": {"image"},
        "VkFramebufferCreateInfo": {"renderPass", "pAttachments"},
        "VkGraphicsPipelineCreateInfo": {"layout", "renderPass", "pStages.module",
                                         "basePipelineHandle"},
        "VkComputePipelineCreateInfo": {"stage.module", "layout", "basePipelineHandle"},
        "VkBufferViewCreateInfo": {"buffer"},
        "VkDescriptorSetAllocateInfo": {"descriptorPool", "pSetLayouts"},
        "VkCommandBufferAllocateInfo": {"commandPool"},
        "VkAccelerationStructureCreateInfoKHR": {"buffer"},
        "VkSwapchainCreateInfoKHR": {"surface"},
        "VkPipelineLayoutCreateInfo": {"pSetLayouts"},
        "VkRenderPassBeginInfo": {"renderPass", "framebuffer",
                                  "VkRenderPassAttachmentBeginInfo.pAttachments"},
        "VkRenderingInfo": {"pColorAttachments.imageView", "pColorAttachments.resolveImageView",
                            "pDepthAttachment.imageView", "pStencilAttachment.imageView",
                            "VkRenderingFragmentShadingRateAttachmentInfoKHR.imageView",
                            "VkRenderingFragmentDensityMapAttachmentInfoEXT.imageView"},
        "VkMemoryAllocateInfo": {"VkMemoryDedicatedAllocateInfo.image",
                                 "VkMemoryDedicatedAllocateInfo.buffer"},
    }
    # (command, ObjectType enumerators its hook must reference)
    REFERENCED = {
        "vkCmdBindDescriptorSets": {"kPipelineLayout", "kDescriptorSet"},
        "vkCmdBindVertexBuffers": {"kBuffer"},
        "vkCmdBindIndexBuffer": {"kBuffer"},
        "vkCmdBindPipeline": {"kPipeline"},
        "vkCmdDrawIndirect": {"kBuffer"},
        "vkCmdDispatchIndirect": {"kBuffer"},
        "vkCmdCopyBuffer": {"kBuffer"},
        "vkCmdCopyImage2": {"kImage"},
        "vkCmdBlitImage": {"kImage"},
        "vkCmdBeginRenderPass": {"kRenderPass", "kFramebuffer", "kImageView"},
        "vkCmdBeginRenderPass2": {"kRenderPass", "kFramebuffer", "kImageView"},
        "vkCmdBeginRendering": {"kImageView"},
        "vkCmdPipelineBarrier": {"kBuffer", "kImage"},
        "vkCmdPipelineBarrier2": {"kBuffer", "kImage"},
        "vkCmdBeginQuery": {"kQueryPool"},
        "vkCmdWriteTimestamp": {"kQueryPool"},
        "vkCmdBeginTransformFeedbackEXT": {"kBuffer"},
        "vkCmdBuildAccelerationStructuresKHR": {"kAccelerationStructureKHR"},
    }

    def walker_kinds(self, struct):
        self.assertIn(struct, self.walkers, f"no walk_{struct}")
        return set(re.findall(r'sink\.add\([^;]*"([^"]+)", \w+\);', self.walkers[struct]))

    def test_walkers_visit_their_handle_members(self):
        for struct, kinds in self.WALKED.items():
            self.assertLessEqual(kinds, self.walker_kinds(struct), struct)

    def test_walkers_are_declared(self):
        header = read(os.path.join(self.out, "graph_walkers.h"))
        declared = set(re.findall(r"^void walk_(\w+)\(const (\w+)\* s, EdgeSink& sink\) "
                                  r"noexcept;$", header, re.M))
        self.assertEqual({s for s, t in declared if s == t}, set(self.walkers))
        self.assertGreater(len(self.walkers), 100)

    def test_excluded_members_are_not_walked(self):
        graph_excluded = self.exceptions["graph_excluded"]
        for name in ("VkWriteDescriptorSet", "VkDescriptorDataEXT",
                     "VkSwapchainCreateInfoKHR::oldSwapchain"):
            self.assertIn(name, graph_excluded)
        self.assertNotIn("VkWriteDescriptorSet", self.walkers)
        self.assertNotIn("oldSwapchain", self.walker_kinds("VkSwapchainCreateInfoKHR"))
        # Conditional members are read only under their condition.
        self.assertIn("VK_PIPELINE_CREATE_DERIVATIVE_BIT",
                      self.walkers["VkGraphicsPipelineCreateInfo"])
        self.assertIn("VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT",
                      self.walkers["VkFramebufferCreateInfo"])

    def test_walkers_skip_unknown_pnext_structs(self):
        body = self.walkers["VkRenderPassBeginInfo"]
        self.assertIn("switch (p1->sType)", body)
        self.assertIn("default:", body)
        self.assertIn("if (s == nullptr) return;", body)

    def test_create_hooks_record_edges(self):
        view = self.hooks["CreateImageView"]
        self.assertIn("walk_VkImageViewCreateInfo(pCreateInfo, edges);", view)
        # The walk comes first, so that the record is inserted knowing it has edges.
        self.assertIn("on_create_with_edges(scope_of(*state), ObjectType::kImageView, "
                      "to_u64(*pView), Origin::kCreated, to_u64(device), ObjectType::kDevice, 0, "
                      "capture_callsite(), edges);", view)
        self.assertLess(view.index("walk_VkImageViewCreateInfo("),
                        view.index("on_create_with_edges("))
        self.assertNotIn("on_create(", view)
        pipelines = self.hooks["CreateGraphicsPipelines"]
        self.assertIn("walk_VkGraphicsPipelineCreateInfo(&pCreateInfos[i], edges);", pipelines)
        self.assertIn("on_create_with_edges(scope_of(*state), ObjectType::kPipeline, "
                      "to_u64(pPipelines[i]), ", pipelines)
        self.assertIn(", cs, edges);", pipelines)
        # No handles in the create info: nothing on the hot path (Fuchsia's buffer collections
        # aside, which are guarded).
        self.assertNotIn("EdgeSink", self.hooks["CreateEvent"])
        self.assertNotIn("EdgeSink", unguarded(self.hooks["CreateBuffer"]))

    def test_graph_manual_commands_have_no_generated_hook(self):
        kinds = dict(self.hooked())
        for name in ("vkCreateDescriptorSetLayout", "vkCreateDescriptorUpdateTemplate",
                     "vkCmdPushDescriptorSetKHR", "vkCmdPushDescriptorSetWithTemplateKHR",
                     "vkUpdateDescriptorSets", "vkBindImageMemory2", "vkBeginCommandBuffer",
                     "vkWaitForFences", "vkAcquireNextImageKHR"):
            self.assertEqual(kinds.get(name), "manual", name)
            self.assertNotIn(name[2:], self.hooks, name)

    def test_cmd_hooks_reference_their_handles(self):
        kinds = dict(self.hooked())
        for name, types in self.REFERENCED.items():
            self.assertEqual(kinds.get(name), "cmd", name)
            body = self.hooks[name[2:]]
            self.assertIn("command_refs(*state, commandBuffer)", body)
            referenced = set(re.findall(r"add_ref\(refs, ObjectType::(\w+),", body))
            self.assertLessEqual(types, referenced, name)
        self.assertIn("add_secondary(refs, pCommandBuffers[i0]);", self.hooks["CmdExecuteCommands"])
        self.assertEqual(kinds.get("vkCmdExecuteCommands"), "cmd")
        for name in ("vkCmdDraw", "vkCmdDispatch", "vkCmdSetViewport", "vkCmdEndRenderPass"):
            self.assertNotIn(name, kinds)
            self.assertNotIn(name[2:], self.hooks)

    def test_cmd_hooks_are_in_the_table_under_their_aliases(self):
        source = read(os.path.join(self.out, "generated_hooks.cpp"))
        for name, hook in (("vkCmdBeginRenderPass2", "CmdBeginRenderPass2"),
                           ("vkCmdBeginRenderPass2KHR", "CmdBeginRenderPass2"),
                           ("vkCmdBeginRenderingKHR", "CmdBeginRendering"),
                           ("vkCmdPipelineBarrier2KHR", "CmdPipelineBarrier2")):
            self.assertIn(f'{{"{name}", reinterpret_cast<PFN_vkVoidFunction>(&hook_{hook}), '
                          "true},", source)

    def test_every_vkcmd_taking_a_handle_is_hooked(self):
        kinds = dict(self.hooked())
        excluded = set(self.exceptions["excluded"])
        for name, types in self.vk.by_value_handles.items():
            if name.startswith("vkCmd") and types - {"VkCommandBuffer"}:
                if name not in excluded:
                    self.assertIn(kinds.get(name), {"cmd", "manual"}, name)

    def test_every_device_command_that_can_lose_the_device_is_hooked(self):
        # Read from vk.xml independently: a device-level command returning VkResult whose
        # errorcodes hold VK_ERROR_DEVICE_LOST or VK_ERROR_OUT_OF_DEVICE_MEMORY.
        root = ET.parse(ARGS.registry).getroot()
        kinds = dict(self.hooked())
        excluded = set(self.exceptions["excluded"])
        watched = 0
        for c in root.find("commands"):
            if c.get("alias") or c.find("proto/name").text not in self.vk.commands:
                continue
            name = c.find("proto/name").text
            errors = set((c.get("errorcodes") or "").split(","))
            first = c.find("param/type").text
            if (c.find("proto/type").text != "VkResult" or name in excluded
                    or first not in ("VkDevice", "VkQueue", "VkCommandBuffer")
                    or not errors & {"VK_ERROR_DEVICE_LOST", "VK_ERROR_OUT_OF_DEVICE_MEMORY"}):
                continue
            self.assertIn(name, kinds, name)
            if kinds[name] != "manual":
                self.assertIn("on_error_result(result, \"%s\")" % name, self.hooks[name[2:]])
            watched += kinds[name] == "watch"
        self.assertGreater(watched, 10)
        for name in ("vkMapMemory", "vkEndCommandBuffer", "vkGetQueryPoolResults",
                     "vkGetEventStatus"):
            self.assertEqual(kinds.get(name), "watch", name)
            body = self.hooks[name[2:]]
            self.assertIn(f"state->dispatch.{name[2:]}(", body)
            self.assertIn("return result;", body)

    def test_create_hooks_check_their_result(self):
        for hook in ("AllocateMemory", "CreateBuffer", "CreateGraphicsPipelines"):
            self.assertIn(
                f'if (__builtin_expect(result < 0, 0)) on_error_result(result, "vk{hook}");',
                self.hooks[hook])
        # vkGetDeviceMemoryCommitment and the like return void: no check.
        self.assertNotIn("on_error_result", self.hooks["DestroyBuffer"])

    def broken_run(self, edit):
        broken = json.loads(json.dumps(self.exceptions))
        edit(broken)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "exceptions.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(broken, f)
            return run_generator(os.path.join(tmp, "out"), path)

    def test_unreviewed_noautovalidity_member_fails_the_build(self):
        result = self.broken_run(
            lambda e: e["graph_walked"].pop("VkFramebufferCreateInfo::pAttachments"))
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("VkFramebufferCreateInfo::pAttachments", result.stderr)

    def test_union_with_handles_fails_the_build(self):
        result = self.broken_run(lambda e: e["graph_excluded"].pop("VkDescriptorDataEXT"))
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("VkDescriptorGetInfoEXT::data", result.stderr)

    def test_stale_graph_entries_fail_the_build(self):
        def edit(e):
            e["graph_walked"]["VkBufferCreateInfo::size"] = "not a handle"
            e["graph_excluded"]["VkBufferCreateInfo::noSuchMember"] = "typo"
        result = self.broken_run(edit)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("VkBufferCreateInfo::size", result.stderr)
        self.assertIn("VkBufferCreateInfo::noSuchMember", result.stderr)


def main():
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--registry", default=ARGS.registry)
    parser.add_argument("--generator", default=ARGS.generator)
    parser.add_argument("--exceptions", default=ARGS.exceptions)
    known, rest = parser.parse_known_args()
    for key, value in vars(known).items():
        setattr(ARGS, key, os.path.abspath(value))
    unittest.main(argv=[sys.argv[0]] + rest)


if __name__ == "__main__":
    main()
