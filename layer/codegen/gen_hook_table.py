"""hook_table.h / hook_table.cpp: HookEntry and find_hook() (the table is in
generated_hooks.cpp)."""

from typing import Dict

from emit import Plan, banner
from vkxml import Registry


FILES = ("hook_table.h", "hook_table.cpp")


def emit_hook_table_h(reg: Registry) -> str:
    return f"""{banner(reg)}#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>

namespace vkleak {{

struct HookEntry {{
  const char* name;          // "vkCreateBuffer", or an alias such as "vkCreateRenderPass2KHR"
  PFN_vkVoidFunction hook;   // the layer's function (generated or vkleak::manual::*)
  bool device_level;         // first parameter VkDevice, VkQueue or VkCommandBuffer
}};

// The layer's hook for a command name or alias, or nullptr when the layer does not hook it.
//
// In the table: every command hooked by generated code (create/allocate/retrieve/destroy/free,
// and the vkCmd* reference hooks) and every exceptions.json "manual" command (including
// vkCreateInstance, which is not device-level), each under its name and every alias.
// Not in the table: vkGetInstanceProcAddr and vkGetDeviceProcAddr (the layer's entry points
// answer their own names first), excluded and unclassified commands, vkEnumerateInstance*.
// Whether a hook may be returned (the next layer has the command; GDPA gives nullptr for
// instance-level names) is for the caller to decide.
const HookEntry* find_hook(const char* name) noexcept;

// For tests: the table in name order.
std::size_t hook_count() noexcept;
const HookEntry* hook_at(std::size_t index) noexcept;

namespace detail {{
extern const HookEntry kHookTable[];  // defined in generated_hooks.cpp
extern const std::size_t kHookTableSize;
}}  // namespace detail

}}  // namespace vkleak
"""


def emit_hook_table_cpp(reg: Registry) -> str:
    return f"""{banner(reg)}#include "hook_table.h"

#include <algorithm>
#include <cstring>

namespace vkleak {{

const HookEntry* find_hook(const char* name) noexcept {{
  if (name == nullptr) return nullptr;
  const HookEntry* begin = detail::kHookTable;
  const HookEntry* end = begin + detail::kHookTableSize;
  const HookEntry* it = std::lower_bound(begin, end, name, [](const HookEntry& e, const char* n) {{
    return std::strcmp(e.name, n) < 0;
  }});
  return (it != end && std::strcmp(it->name, name) == 0) ? it : nullptr;
}}

std::size_t hook_count() noexcept {{ return detail::kHookTableSize; }}

const HookEntry* hook_at(std::size_t index) noexcept {{
  return index < detail::kHookTableSize ? &detail::kHookTable[index] : nullptr;
}}

}}  // namespace vkleak
"""


def render(plan: Plan) -> Dict[str, str]:
    return {"hook_table.h": emit_hook_table_h(plan.reg), "hook_table.cpp": emit_hook_table_cpp(plan.reg)}
