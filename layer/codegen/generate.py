#!/usr/bin/env python3
"""Generate vkleak's mechanical Vulkan code from the registry (vk.xml).

Usage:
    generate.py --registry vk.xml --exceptions exceptions.json --out-dir DIR

Writes into DIR (a file is rewritten only when its content changed, so an unchanged
regeneration recompiles nothing):
    vk_object_types.h     enum class ObjectType (one enumerator per non-alias handle type) and
                          conversions to/from VkObjectType / VkDebugReportObjectTypeEXT / names.
    vk_dispatch.h/.cpp    InstanceDispatch / DeviceDispatch tables and their alias-aware loaders.
    manual_hooks.h        declarations of the hand-written hooks (namespace vkleak::manual).
    generated_hooks.cpp   the create/allocate/retrieve/destroy/free hooks (creates also record
                          the new object's edges), the vkCmd* reference hooks, plus the sorted
                          table of every hook (generated and manual) under every name and alias.
    graph_walkers.h/.cpp  walk_<Struct>(const <Struct>* s, EdgeSink& sink): the struct walkers
                          of the object graph (graph.h), declared for the hand-written hooks too.
    hook_table.h/.cpp     HookEntry, find_hook(), hook_count(), hook_at().
    hook_calls.inc        one harmless call per hooked command (tests/layer/next_layer_test.cpp).
    hooked_commands.txt   one line per hooked name: name<TAB>kind<TAB>handle types (the golden
                          copy lives in tests/golden/). Kind "cmd": a vkCmd* reference hook,
                          listed with the handle types it references.

Each output has its generator module (gen_*.py: FILES and render(plan) -> {file: text}); they
share the model of vk.xml and exceptions.json (vkxml.py: which commands exist, levels), the
classification (classify.py: rules, build check, error results), the object graph
(object_graph.py: what walkers and vkCmd* hooks visit) and the emission helpers (emit.py). The
rules are in those modules' docstrings.

vkGetInstanceProcAddr / vkGetDeviceProcAddr are deliberately NOT in "manual" nor in the hook
table: the layer's exported entry points answer their own names before consulting find_hook().
They are in the dispatch tables like any other command.
"""

import argparse
import os
import sys
import xml.etree.ElementTree as ET
from typing import List

sys.dont_write_bytecode = True  # the build runs this from the source tree: no __pycache__ there

# pylint: disable=wrong-import-position
import gen_dispatch  # noqa: E402
import gen_graph_walkers  # noqa: E402
import gen_hook_calls  # noqa: E402
import gen_hook_table  # noqa: E402
import gen_hooked_commands  # noqa: E402
import gen_hooks  # noqa: E402
import gen_manual_hooks  # noqa: E402
import gen_object_types  # noqa: E402
from classify import classify  # noqa: E402
from emit import Plan  # noqa: E402
from object_graph import plan_graph  # noqa: E402
from vkxml import GenerateError, Registry, load_exceptions  # noqa: E402

GENERATORS = (gen_object_types, gen_dispatch, gen_manual_hooks, gen_hooks, gen_graph_walkers,
              gen_hook_table, gen_hooked_commands, gen_hook_calls)


def write_if_changed(path: str, content: str) -> None:
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == content:
                return
    except FileNotFoundError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(content)
    os.replace(tmp, path)


def generate(registry: str, exceptions: str, out_dir: str) -> None:
    reg = Registry(registry)
    exc = load_exceptions(exceptions)
    classes = classify(reg, exc)
    plan = Plan(reg, exc, classes, plan_graph(reg, exc, classes))  # marks the vkCmd* hooks
    outputs = {}
    for generator in GENERATORS:  # render all before writing any: an error leaves no files
        rendered = generator.render(plan)
        assert tuple(rendered) == generator.FILES, generator.__name__
        outputs.update(rendered)
    os.makedirs(out_dir, exist_ok=True)
    for name, content in outputs.items():
        write_if_changed(os.path.join(out_dir, name), content)


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--registry", required=True, help="path to vk.xml")
    parser.add_argument("--exceptions", required=True, help="path to exceptions.json")
    parser.add_argument("--out-dir", required=True, help="directory for the generated files")
    args = parser.parse_args(argv)
    try:
        generate(args.registry, args.exceptions, args.out_dir)
    except GenerateError as e:
        print(f"generate.py: error: {e}", file=sys.stderr)
        return 1
    except (OSError, ValueError, ET.ParseError) as e:  # unreadable inputs, bad JSON/XML
        print(f"generate.py: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
