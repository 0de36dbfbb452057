"""manual_hooks.h: declarations of the hand-written hooks."""

from typing import Dict

from classify import Classified
from emit import Plan, banner, grouped_by_guard
from vkxml import Command, Registry


FILES = ("manual_hooks.h",)


def emit_manual_h(reg: Registry, classes: Dict[str, Classified]) -> str:
    manual = [c.command for c in classes.values() if c.kind == "manual"]

    def decl(c: Command) -> str:
        reason = classes[c.name].reason
        return (f"// {c.name}: {reason}\n"
                f"VKAPI_ATTR {c.ret} VKAPI_CALL {c.short}({c.signature_params()}) noexcept;\n")

    body = grouped_by_guard(manual, lambda c: c.name, decl)
    return f"""{banner(reg)}// Hooks written by hand (exceptions.json "manual"). Each is listed in the hook table under its
// name and aliases. vkGetInstanceProcAddr / vkGetDeviceProcAddr are not here: the layer's
// entry points declare and answer them.
#pragma once

#include <vulkan/vulkan.h>

namespace vkleak::manual {{

{body}
}}  // namespace vkleak::manual
"""


def render(plan: Plan) -> Dict[str, str]:
    return {"manual_hooks.h": emit_manual_h(plan.reg, plan.classes)}
