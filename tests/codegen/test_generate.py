#!/usr/bin/env python3
"""Tests for layer/codegen/generate.py, run against the real registry.

    python3 tests/codegen/test_generate.py --registry /usr/share/vulkan/registry/vk.xml \
        --generator layer/codegen/generate.py --exceptions layer/codegen/exceptions.json

Coverage is checked against vk.xml read independently of the generator: every handle type must
be produced by some hooked command, and every destroyable one consumed by some hooked command.
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
           "generated_hooks.cpp", "hook_table.h", "hook_table.cpp", "hooked_commands.txt")
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


class GenerateTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.vk = Vk(ARGS.registry)
        with open(ARGS.exceptions, encoding="utf-8") as f:
            cls.exceptions = json.load(f)
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = os.path.join(cls.tmp.name, "generated")
        cls.result = run_generator(cls.out)
        cls.lines = []
        if cls.result.returncode == 0:
            listing = read(os.path.join(cls.out, "hooked_commands.txt"))
            cls.lines = [line.split("\t") for line in listing.splitlines()]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def setUp(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)

    def hooked(self):
        """(command, kind) for each non-alias line."""
        return [(name, kind) for name, kind, _ in self.lines if not kind.startswith("alias-of")]

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
                                     "manual"}, line)

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
