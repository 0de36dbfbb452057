"""hook_calls.inc: one call per hooked command, for tests/layer/next_layer_test.cpp."""

from typing import Dict

from classify import GENERATED_KINDS, Classified
from emit import Plan, banner, guarded
from vkxml import Param, Registry


FILES = ("hook_calls.inc",)


DISPATCHABLE_ARGS = {"VkInstance": "a.instance", "VkPhysicalDevice": "a.physical_device",
                     "VkDevice": "a.device", "VkQueue": "a.queue",
                     "VkCommandBuffer": "a.command_buffer"}


def call_arg(reg: Registry, p: Param) -> str:
    """An argument a hook can take without valid objects: dispatchable handles the test made,
    zeroed memory for every pointer (counts read as 0, pNext as null), an unknown handle for
    other handles, zero for the rest."""
    if p.is_pointer or p.fixed:
        return "a.memory()"
    if p.type in DISPATCHABLE_ARGS:
        return DISPATCHABLE_ARGS[p.type]
    if reg.is_handle(p.type):
        return "a.unknown_handle()"
    return "{}"


def emit_hook_calls(reg: Registry, classes: Dict[str, Classified]) -> str:
    """One entry per hooked command (not per alias): its name, level, whether the layer fetches
    it with vkGetInstanceProcAddr when the device chain lacks it, what it returns, and a call
    through a function pointer with harmless arguments. Every hooked command is in it, so the
    test that calls them all misses none."""
    rows = []
    for c in sorted(classes.values(), key=lambda c: c.command.name):
        if c.kind not in GENERATED_KINDS + ("manual",):
            continue
        cmd = c.command
        args = ", ".join(call_arg(reg, p) for p in cmd.params)
        call = f"reinterpret_cast<PFN_{cmd.name}>(f)({args})"
        body = (f"return static_cast<int64_t>({call});" if cmd.ret == "VkResult"
                else f"{call};\n     return kNoResult;")
        fallback = "true" if cmd.level == "device" and reg.only_instance_extensions(cmd) else "false"
        level = {"device": "kDevice", "instance": "kInstance"}.get(cmd.level, "kGlobal")
        rows.append(guarded(cmd.guard,
                            f'    {{"{cmd.name}", Level::{level}, {fallback},\n'
                            f"     [](PFN_vkVoidFunction f, const HookArgs& a) -> int64_t {{\n"
                            f"       (void)a;\n       {body}\n     }}}},\n"))
    return f"""{banner(reg)}// Included by tests/layer/next_layer_test.cpp, which defines Level, HookArgs, kNoResult and
// HookCall {{name, level, instance_extension_fallback, call}} before including it.
static const HookCall kHookCalls[] = {{
{"".join(rows)}}};
"""


def render(plan: Plan) -> Dict[str, str]:
    return {"hook_calls.inc": emit_hook_calls(plan.reg, plan.classes)}
