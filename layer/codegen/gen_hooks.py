"""generated_hooks.cpp: the hooks classified by rule and the table of every hook."""

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from classify import ERROR_SNAPSHOT_RESULTS, GENERATED_KINDS, Classified
from emit import Plan, WalkEmitter, banner, guarded, guarded_lines, indent, object_type
from object_graph import Graph
from vkxml import Command, GenerateError, Guard, Param, Registry, len_expr


FILES = ("generated_hooks.cpp",)


def error_check(cmd: Command) -> List[str]:
    """The one compare on the hot path; on_error_result() sorts the errors out."""
    if cmd.ret != "VkResult" or not ERROR_SNAPSHOT_RESULTS & set(cmd.errorcodes):
        return []
    return [f'if (__builtin_expect(result < 0, 0)) on_error_result(result, "{cmd.name}");']


def state_lines(cmd: Command) -> List[str]:
    """Finds the layer state by the dispatchable first parameter; bails out if it is unknown."""
    first = cmd.params[0].name
    if cmd.level == "instance":
        lines = [f"InstanceState* state = get_instance_state({first});"]
    else:
        lines = [f"DeviceState* state = get_device_state({first});"]
    fail = "return VK_ERROR_INITIALIZATION_FAILED;" if cmd.ret == "VkResult" else "return;"
    lines.append(f"if (state == nullptr) {fail}  // a handle the layer never saw")
    return lines


def call_down(cmd: Command) -> str:
    return f"state->dispatch.{cmd.short}({cmd.call_args()})"


def parent_expr(reg: Registry, cmd: Command, target: Param, index: str) -> Tuple[str, str]:
    """(handle expression, ObjectType) of the object a new handle was made from.

    The vk.xml parent when the command names it: as a parameter (vkCreateDisplayModeKHR's
    display) or as a member of the create-info struct (VkVideoSessionParametersCreateInfoKHR::
    videoSession); otherwise the dispatchable first parameter.
    """
    handle_type = reg.canonical_handle(target.type)
    parent = reg.handles[handle_type].parent
    if parent:
        for p in cmd.params:
            if p is not target and not p.is_pointer and reg.canonical_handle(p.type) == parent:
                return p.name, object_type(reg, parent)
        for p in cmd.params:
            if not (p.is_pointer and p.is_const and p.type in reg.structs):
                continue
            for m in reg.structs[p.type]:
                if not m.is_pointer and reg.canonical_handle(m.type) == parent:
                    if p.len is None:
                        return f"{p.name}->{m.name}", object_type(reg, parent)
                    if index and target.len == p.len:
                        return f"{p.name}[{index}].{m.name}", object_type(reg, parent)
    first = cmd.params[0]
    return first.name, object_type(reg, first.type)


def success_condition(cmd: Command, target: Param) -> str:
    if target.len and target.len in {p.name for p in cmd.params if p.is_pointer}:
        return "result == VK_SUCCESS || result == VK_INCOMPLETE"  # count/array enumeration
    if [c for c in cmd.successcodes if c != "VK_SUCCESS"]:
        return "result >= 0"
    return "result == VK_SUCCESS"


def parenthesized(condition: str) -> str:
    return f"({condition})" if "||" in condition else condition


def on_create_call(reg: Registry, c: Classified, exc: dict, handle: str, index: str,
                   cs: str, child_form: bool = True) -> str:
    cmd, target = c.command, c.target
    parent, parent_type = parent_expr(reg, cmd, target, index)
    size = exc["sizes"].get(cmd.name, "0")
    if (child_form and parent == cmd.params[0].name and
            cmd.params[0].type in ("VkDevice", "VkInstance")):
        # Made from the device or instance whose state owns the table: most objects.
        return (f"on_create_child(scope_of(*state), {object_type(reg, target.type)}, "
                f"to_u64({handle}), Origin::{c.origin}, {size}, {cs});")
    return (f"on_create(scope_of(*state), {object_type(reg, target.type)}, to_u64({handle}), "
            f"Origin::{c.origin}, to_u64({parent}), {parent_type}, {size}, {cs});")


def create_info_param(reg: Registry, c: Classified, graph: Graph) -> Optional[Param]:
    """The create-info parameter whose walker gives a new object's edges, if it has one."""
    infos = [p for p in c.command.params
             if p.is_pointer and p.is_const and reg.canonical_struct(p.type) in graph.walkers]
    if len(infos) > 1:
        raise GenerateError(f"{c.command.name}: several create infos hold handles")
    return infos[0] if infos else None


def create_lines(reg: Registry, c: Classified, exc: dict, graph: Graph, handle: str, index: str,
                 cs: str) -> List[str]:
    """Records one created object. When its create info holds handles (pCreateInfos[i] for
    pPipelines[i]), the info is walked first so that the record is inserted knowing it has
    edges (one table lookup less per object); a walker behind a platform guard keeps the
    record-then-edges shape, the guard around the edges only."""
    info = create_info_param(reg, c, graph)
    walker = (graph.walkers[reg.canonical_struct(info.type)]
              if c.kind in ("create", "allocate") and info is not None else None)
    # on_create_with_edges takes the parent in full; a guarded walker keeps the plain record.
    record = on_create_call(reg, c, exc, handle, index, cs,
                            child_form=walker is None or bool(walker.guard))
    if walker is None:
        return [record]
    if not index or not info.len:
        arg = info.name
    elif info.len == c.target.len:
        arg = f"&{info.name}[{index}]"
    else:
        raise GenerateError(f"{c.command.name}: {info.name} and {c.target.name} differ in len")
    walk = ["EdgeSink edges;", f"walk_{walker.struct}({arg}, edges);"]
    if walker.guard:
        return [record] + guarded_lines(walker.guard, walk + [
            f"on_edges(scope_of(*state), {object_type(reg, c.target.type)}, to_u64({handle}), "
            "edges);"])
    assert record.startswith("on_create(") and record.endswith(");")
    return walk + ["on_create_with_edges(" + record[len("on_create("):-2] + ", edges);"]


def create_body(reg: Registry, c: Classified, exc: dict, graph: Graph) -> List[str]:
    cmd, target = c.command, c.target
    lines = state_lines(cmd)
    is_void = cmd.ret == "void"
    lines.append(f"{call_down(cmd)};" if is_void else f"VkResult result = {call_down(cmd)};")
    lines += error_check(cmd)
    if not target.len:
        cond = f"*{target.name} != VK_NULL_HANDLE"
        if not is_void:
            cond = f"{parenthesized(success_condition(cmd, target))} && {cond}"
        lines.append(f"if ({cond}) {{")
        lines += indent(create_lines(reg, c, exc, graph, f"*{target.name}", "",
                                     "capture_callsite()"))
        lines.append("}")
    else:
        lines += array_create_lines(reg, c, exc, graph)
    if not is_void:
        lines.append("return result;")
    return lines


def array_create_lines(reg: Registry, c: Classified, exc: dict, graph: Graph) -> List[str]:
    cmd, target = c.command, c.target
    count = len_expr(cmd, target.len)
    loop = [f"  for (uint32_t i = 0; i < {count}; ++i) {{",
            f"    if ({target.name}[i] != VK_NULL_HANDLE) {{"]
    loop += indent(create_lines(reg, c, exc, graph, f"{target.name}[i]", "i", "cs"), 3)
    loop += ["    }",
             "  }"]
    if reg.canonical_handle(target.type) == "VkPipeline":
        # Failed slots hold VK_NULL_HANDLE whatever the result, so the rest are real pipelines;
        # a deferred operation writes the array later (recorded when it completes).
        deferred = [p for p in cmd.params if p.type == "VkDeferredOperationKHR"]
        lines = [f"if ({target.name} != nullptr) {{", "  const CallsiteId cs = capture_callsite();"]
        if deferred:
            lines += ["  if (result == VK_OPERATION_DEFERRED_KHR) {",
                      f"    on_deferred_pipelines(*state, to_u64({deferred[0].name}), "
                      f"{target.name}, {count}, cs);",
                      "    return result;",
                      "  }"]
        return lines + loop + ["}"]
    cond = f"{target.name} != nullptr"
    if cmd.ret != "void":
        cond = f"{parenthesized(success_condition(cmd, target))} && {cond}"
    return [f"if ({cond}) {{", "  const CallsiteId cs = capture_callsite();"] + loop + ["}"]


def destroy_body(reg: Registry, c: Classified) -> List[str]:
    cmd, target = c.command, c.target
    lines = state_lines(cmd)
    otype = object_type(reg, target.type)
    if target.len:
        count = len_expr(cmd, target.len)
        lines += [f"if ({target.name} != nullptr) {{",
                  f"  for (uint32_t i = 0; i < {count}; ++i) {{",
                  f"    if ({target.name}[i] != VK_NULL_HANDLE) {{",
                  f"      on_destroy(scope_of(*state), {otype}, to_u64({target.name}[i]));",
                  "    }",
                  "  }",
                  "}"]
    else:
        lines += [f"if ({target.name} != VK_NULL_HANDLE) {{",
                  f"  on_destroy(scope_of(*state), {otype}, to_u64({target.name}));",
                  "}"]
    if cmd.ret == "void":
        lines.append(f"{call_down(cmd)};")
    elif error_check(cmd):
        lines += [f"VkResult result = {call_down(cmd)};"] + error_check(cmd) + ["return result;"]
    else:
        lines.append(f"return {call_down(cmd)};")
    return lines


def watch_body(c: Classified) -> List[str]:
    """A command hooked only to see its errors: call down, check, return."""
    cmd = c.command
    return (state_lines(cmd) + [f"VkResult result = {call_down(cmd)};"] + error_check(cmd)
            + ["return result;"])


def cmd_body(reg: Registry, c: Classified) -> List[str]:
    """A vkCmd* hook: add what the command references to the command buffer's list (when the
    command buffer is tracked), then call down."""
    cmd = c.command

    def visit(handle_type: str, expr: str, kind: str, index: str) -> str:
        if handle_type == "VkCommandBuffer":
            return f"add_secondary(refs, {expr});"
        return f"add_ref(refs, {object_type(reg, handle_type)}, to_u64({expr}));"

    lines = state_lines(cmd)
    lines.append(f"if (CommandRefs* refs = command_refs(*state, {cmd.params[0].name})) {{")
    lines += indent(WalkEmitter(reg, visit).nodes(c.walk, "", "", None, 0, cmd.guard))
    lines.append("}")
    lines.append(f"{call_down(cmd)};" if cmd.ret == "void" else f"return {call_down(cmd)};")
    return lines


def emit_hook(reg: Registry, c: Classified, exc: dict, graph: Graph) -> str:
    cmd = c.command
    if c.kind in ("destroy", "free"):
        body = destroy_body(reg, c)
    elif c.kind == "cmd":
        body = cmd_body(reg, c)
    elif c.kind == "watch":
        body = watch_body(c)
    else:
        body = create_body(reg, c, exc, graph)
    head = (f"static VKAPI_ATTR {cmd.ret} VKAPI_CALL hook_{cmd.short}({cmd.signature_params()}) "
            "noexcept {\n")
    return head + "".join(f"{line}\n" for line in indent(body)) + "}\n"


@dataclass
class TableEntry:
    name: str
    hook: str
    device_level: bool
    guard: Guard


def table_entries(classes: Dict[str, Classified]) -> List[TableEntry]:
    entries = []
    for c in classes.values():
        if c.kind == "manual":
            hook = f"&manual::{c.command.short}"
        elif c.kind in GENERATED_KINDS:
            hook = f"&hook_{c.command.short}"
        else:
            continue
        for name in [c.command.name] + c.command.aliases:
            entries.append(TableEntry(name, hook, c.command.level == "device", c.command.guard))
    return sorted(entries, key=lambda e: e.name)


def emit_hooks_cpp(reg: Registry, classes: Dict[str, Classified], exc: dict,
                   graph: Graph) -> str:
    generated = [c for c in classes.values() if c.kind in GENERATED_KINDS]
    hooks = "\n".join(guarded(c.command.guard, emit_hook(reg, c, exc, graph))
                      for c in sorted(generated, key=lambda c: c.command.name))
    rows = "".join(
        guarded(e.guard, f'    {{"{e.name}", reinterpret_cast<PFN_vkVoidFunction>({e.hook}), '
                         f'{"true" if e.device_level else "false"}}},\n')
        for e in table_entries(classes))
    return f"""{banner(reg)}// Hooks for the commands classified by rule (see generate.py): call down, then record
// (create-like, with the new object's edges when its create info holds handles), or forget,
// then call down (destroy-like); vkCmd* hooks add what the command references to the command
// buffer's list, then call down; "watch" hooks only check the result. Hooks whose command can
// return VK_ERROR_OUT_OF_DEVICE_MEMORY, _HOST_MEMORY or VK_ERROR_DEVICE_LOST pass errors to
// on_error_result().
#include <cstddef>
#include <cstdint>

#include "snapshot/error_snapshot.h"
#include "graph/graph.h"
#include "graph_walkers.h"
#include "hook_table.h"
#include "tracking/command_refs.h"
#include "tracking/state.h"
#include "manual_hooks.h"
#include "tracking/tracker.h"
#include "tracking/tracker_hot.h"
#include "vk_dispatch.h"

namespace vkleak {{
namespace {{

{hooks}
}}  // namespace

namespace detail {{

// Every hook under its command name and each alias, sorted by name (strcmp order) for
// find_hook(). Defined here because the generated hooks have internal linkage. Entries under a
// platform guard drop out together with their hook; the rest stay sorted.
const HookEntry kHookTable[] = {{
{rows}}};
const std::size_t kHookTableSize = sizeof(kHookTable) / sizeof(kHookTable[0]);

}}  // namespace detail
}}  // namespace vkleak
"""


def render(plan: Plan) -> Dict[str, str]:
    return {"generated_hooks.cpp": emit_hooks_cpp(plan.reg, plan.classes, plan.exc, plan.graph)}
