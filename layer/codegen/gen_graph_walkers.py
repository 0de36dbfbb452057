"""graph_walkers.h / graph_walkers.cpp: the object graph's struct walkers."""

from typing import Dict

from emit import Plan, WalkEmitter, banner, grouped_by_guard, indent, object_type
from object_graph import Graph, Walker
from vkxml import Registry


FILES = ("graph_walkers.h", "graph_walkers.cpp")


def walker_signature(struct: str) -> str:
    return f"void walk_{struct}(const {struct}* s, EdgeSink& sink) noexcept"


def emit_walker(reg: Registry, w: Walker) -> str:
    def visit(handle_type: str, expr: str, kind: str, index: str) -> str:
        return f'sink.add({object_type(reg, handle_type)}, to_u64({expr}), "{kind}", {index});'

    walk = WalkEmitter(reg, visit).nodes(w.nodes, "s->", "", None, 1, w.guard)
    body = ["if (s == nullptr) return;"] + walk
    return f"{walker_signature(w.struct)} {{\n" + "".join(f"{l}\n" for l in indent(body)) + "}\n"


def emit_walkers_h(reg: Registry, graph: Graph) -> str:
    decls = grouped_by_guard(graph.walkers.values(), lambda w: w.struct,
                             lambda w: walker_signature(w.struct) + ";\n")
    return f"""{banner(reg)}// Struct walkers for the object graph: one per input struct that holds handles, directly, in
// nested structs or arrays of them, or in the extension structs of its pNext chain. Each adds
// every non-null handle to the sink as sink.add(type, handle, kind, index): kind is the member
// path in vk.xml terms ("image", "pStages.module", "VkSamplerYcbcrConversionInfo.conversion"
// for a pNext struct's member), index the index in the outermost array (0 outside arrays).
// Members listed in exceptions.json "graph_excluded" are not walked (descriptor writes, unions,
// members whose validity depends on other values); "graph_walked" conditions apply. Unknown
// pNext structs are skipped. A null struct pointer adds nothing. No allocation beyond EdgeSink's.
#pragma once

#include <vulkan/vulkan.h>

#include "graph/graph.h"

namespace vkleak {{

{decls}
}}  // namespace vkleak
"""


def emit_walkers_cpp(reg: Registry, graph: Graph) -> str:
    body = grouped_by_guard(graph.walkers.values(), lambda w: w.struct,
                            lambda w: "\n" + emit_walker(reg, w))
    return f"""{banner(reg)}#include "graph_walkers.h"

#include <cstdint>

namespace vkleak {{
{body}
}}  // namespace vkleak
"""


def render(plan: Plan) -> Dict[str, str]:
    return {"graph_walkers.h": emit_walkers_h(plan.reg, plan.graph), "graph_walkers.cpp": emit_walkers_cpp(plan.reg, plan.graph)}
