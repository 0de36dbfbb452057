"""vk_dispatch.h / vk_dispatch.cpp: the next-layer dispatch tables and their loaders."""

from typing import Dict, List

from emit import Plan, banner, grouped_by_guard
from vkxml import Command, Registry


FILES = ("vk_dispatch.h", "vk_dispatch.cpp")


def dispatch_commands(reg: Registry, level: str) -> List[Command]:
    return [c for c in reg.commands.values() if c.level == level]


def emit_dispatch_h(reg: Registry) -> str:
    def member(c: Command) -> str:
        return f"  PFN_{c.name} {c.short} = nullptr;\n"

    def table(struct: str, level: str) -> str:
        body = grouped_by_guard(dispatch_commands(reg, level), lambda c: c.name, member)
        return f"struct {struct} {{\n{body}}};\n"

    return f"""{banner(reg)}// Next-layer dispatch tables. Members are named after the non-alias command; loaders try the
// command name, then each alias. Platform members exist only under their macros: every
// translation unit of the layer must be compiled with the same VK_USE_PLATFORM_* defines.
//
// No member is ever null after loading: a command the next layer does not provide gets a stub
// that does what the loader does for a command that is not there (logs once, returns
// VK_ERROR_EXTENSION_NOT_PRESENT, or nothing / zero), so no hook can call a null pointer,
// however it was handed out.
#pragma once

#include <vulkan/vulkan.h>

namespace vkleak {{

// Commands whose first parameter is VkInstance or VkPhysicalDevice.
{table("InstanceDispatch", "instance")}
// Commands whose first parameter is VkDevice, VkQueue or VkCommandBuffer.
{table("DeviceDispatch", "device")}
void load_instance_dispatch(InstanceDispatch* d, PFN_vkGetInstanceProcAddr gipa, VkInstance instance);
// Device commands come from gdpa; those only instance extensions define (VK_EXT_debug_utils'
// names and labels) fall back to gipa with the instance, as the loader fetches them: it puts the
// answer of our vkGetInstanceProcAddr for them into the device's dispatch table.
void load_device_dispatch(DeviceDispatch* d, PFN_vkGetDeviceProcAddr gdpa, VkDevice device,
                          PFN_vkGetInstanceProcAddr gipa, VkInstance instance);

// Called once per command by a stub, the first time a hook calls down a command the next layer
// does not have (defined by the layer: it logs).
void note_absent_command(const char* name) noexcept;

}}  // namespace vkleak
"""


def fetch_expr(c: Command, getter: str, handle: str) -> str:
    names = [c.name] + sorted(c.aliases)
    if len(names) == 1:
        return f'{getter}({handle}, "{c.name}")'
    quoted = ", ".join(f'"{n}"' for n in names)
    return f"first_proc({getter}, {handle}, {{{quoted}}})"


def loader_line(reg: Registry, c: Command, getter: str, handle: str) -> str:
    fetch = fetch_expr(c, getter, handle)
    if c.level == "device" and reg.only_instance_extensions(c):
        fetch = f"either({fetch}, {fetch_expr(c, 'gipa', 'instance')})"
    return f"  d->{c.short} = or_absent<PFN_{c.name}>(reinterpret_cast<PFN_{c.name}>({fetch}), &absent_{c.short});\n"


def absent_value(c: Command) -> str:
    """What a command that is not there returns: the loader's answer for an extension command
    that is not enabled, or nothing."""
    if c.ret == "void":
        return ""
    if c.ret == "VkResult":
        return " VK_ERROR_EXTENSION_NOT_PRESENT"
    return " {}"


def absent_stub(c: Command) -> str:
    unused = "".join(f"  (void){p.name};\n" for p in c.params)
    return (f"VKAPI_ATTR {c.ret} VKAPI_CALL absent_{c.short}({c.signature_params()}) noexcept {{\n"
            f"{unused}"
            f"  static std::atomic<bool> noted{{false}};\n"
            f'  if (!noted.exchange(true, std::memory_order_relaxed)) note_absent_command("{c.name}");\n'
            f"  return{absent_value(c)};\n}}\n")


def emit_dispatch_cpp(reg: Registry) -> str:
    commands = dispatch_commands(reg, "instance") + dispatch_commands(reg, "device")
    stubs = grouped_by_guard(commands, lambda c: c.name, absent_stub)
    inst = grouped_by_guard(dispatch_commands(reg, "instance"), lambda c: c.name,
                            lambda c: loader_line(reg, c, "gipa", "instance"))
    dev = grouped_by_guard(dispatch_commands(reg, "device"), lambda c: c.name,
                           lambda c: loader_line(reg, c, "gdpa", "device"))
    return f"""{banner(reg)}#include "vk_dispatch.h"

#include <atomic>
#include <initializer_list>

namespace vkleak {{
namespace {{

// The first non-null of the command's names (core name first, then its aliases): a command
// promoted to core may only be exposed under its extension name, and vice versa.
template <typename GetProcAddr, typename Handle>
PFN_vkVoidFunction first_proc(GetProcAddr get, Handle handle,
                              std::initializer_list<const char*> names) {{
  for (const char* name : names) {{
    if (PFN_vkVoidFunction f = get(handle, name)) return f;
  }}
  return nullptr;
}}

PFN_vkVoidFunction either(PFN_vkVoidFunction first, PFN_vkVoidFunction second) {{
  return first ? first : second;
}}

template <typename Pfn>
Pfn or_absent(Pfn next, Pfn absent) {{
  return next ? next : absent;
}}

// Stubs for commands the next layer does not provide.
{stubs}
}}  // namespace

void load_instance_dispatch(InstanceDispatch* d, PFN_vkGetInstanceProcAddr gipa, VkInstance instance) {{
  *d = InstanceDispatch{{}};
{inst}}}

void load_device_dispatch(DeviceDispatch* d, PFN_vkGetDeviceProcAddr gdpa, VkDevice device,
                          PFN_vkGetInstanceProcAddr gipa, VkInstance instance) {{
  *d = DeviceDispatch{{}};
  (void)gipa;
  (void)instance;
{dev}}}

}}  // namespace vkleak
"""


def render(plan: Plan) -> Dict[str, str]:
    return {"vk_dispatch.h": emit_dispatch_h(plan.reg), "vk_dispatch.cpp": emit_dispatch_cpp(plan.reg)}
