"""vk_object_types.h: the ObjectType enum and its conversions."""

from typing import Dict, List

from emit import Plan, banner
from vkxml import GenerateError, Handle, Registry


FILES = ("vk_object_types.h",)


def sorted_handles(reg: Registry) -> List[Handle]:
    """Handles in VkObjectType value order: stable across registry updates."""
    values = reg.enum_values["VkObjectType"]
    missing = [h.name for h in reg.handles.values() if h.objtypeenum not in values]
    if missing:
        raise GenerateError(f"handle types without a VkObjectType value: {', '.join(missing)}")
    return sorted(reg.handles.values(), key=lambda h: values[h.objtypeenum])


def debug_report_map(reg: Registry) -> Dict[str, Handle]:
    """Non-alias VK_DEBUG_REPORT_OBJECT_TYPE_* enumerant -> handle.

    Matched by name: VK_DEBUG_REPORT_OBJECT_TYPE_<X>_EXT <-> VK_OBJECT_TYPE_<X>. Aliases (e.g. the
    misspelt VK_DEBUG_REPORT_OBJECT_TYPE_DEBUG_REPORT_EXT) are matched too and resolved to the
    enumerant they alias, since only non-alias names may label a switch case.
    """
    by_objtype = {h.objtypeenum: h for h in reg.handles.values()}
    by_objtype.update({a: by_objtype[t] for a, t in reg.enum_aliases["VkObjectType"].items()
                       if t in by_objtype})
    values = reg.enum_values["VkDebugReportObjectTypeEXT"]
    aliases = reg.enum_aliases["VkDebugReportObjectTypeEXT"]
    result: Dict[str, Handle] = {}
    prefix = "VK_DEBUG_REPORT_OBJECT_TYPE_"
    for name in sorted(list(values) + list(aliases)):
        stem = name[len(prefix):]
        stem = stem[: -len("_EXT")] if stem.endswith("_EXT") else stem
        handle = by_objtype.get("VK_OBJECT_TYPE_" + stem)
        target = name
        while target in aliases:
            target = aliases[target]
        if handle is not None and target in values:
            result.setdefault(target, handle)
    return result


def emit_object_types(reg: Registry) -> str:
    handles = sorted_handles(reg)
    count = len(handles) + 1
    enumerators = "".join(f"  {h.enumerator},\n" for h in handles)
    infos = ['  {"Unknown", VK_OBJECT_TYPE_UNKNOWN, ObjectType::kUnknown, false},\n']
    for h in handles:
        parent = f"ObjectType::{reg.handles[h.parent].enumerator}" if h.parent else \
            "ObjectType::kUnknown"
        infos.append(f'  {{"{h.name}", {h.objtypeenum}, {parent}, '
                     f'{"true" if h.dispatchable else "false"}}},\n')
    vk_cases = "".join(f"    case {h.objtypeenum}: return ObjectType::{h.enumerator};\n"
                       for h in handles)
    dr = debug_report_map(reg)
    dr_values = reg.enum_values["VkDebugReportObjectTypeEXT"]
    dr_cases = "".join(f"    case {n}: return ObjectType::{dr[n].enumerator};\n"
                       for n in sorted(dr, key=lambda n: dr_values[n]))
    return f"""{banner(reg)}// Object types: one per non-alias handle type of vk.xml, whatever the platform (the enum is
// platform-independent; every VkObjectType value lives in vulkan_core.h).
#pragma once

#include <vulkan/vulkan_core.h>

#include <cstdint>
#include <cstring>

namespace vkleak {{

// In VkObjectType value order: stable when a newer registry adds handle types.
enum class ObjectType : uint8_t {{
  kUnknown = 0,
{enumerators}}};

inline constexpr uint32_t kObjectTypeCount = {count};  // including kUnknown
static_assert(kObjectTypeCount <= 256, "ObjectType is a uint8_t");

namespace detail {{
struct ObjectTypeInfo {{
  const char* name;        // "VkBuffer"
  VkObjectType vk_type;    // VK_OBJECT_TYPE_BUFFER
  ObjectType xml_parent;   // vk.xml parent= (kUnknown if none)
  bool dispatchable;       // VK_DEFINE_HANDLE
}};
inline constexpr ObjectTypeInfo kObjectTypeInfo[kObjectTypeCount] = {{
{"".join(infos)}}};
constexpr const ObjectTypeInfo& object_type_info(ObjectType t) noexcept {{
  const auto i = static_cast<uint32_t>(t);
  return kObjectTypeInfo[i < kObjectTypeCount ? i : 0];
}}
}}  // namespace detail

constexpr const char* object_type_name(ObjectType t) noexcept {{
  return detail::object_type_info(t).name;
}}

constexpr VkObjectType to_vk_object_type(ObjectType t) noexcept {{
  return detail::object_type_info(t).vk_type;
}}

constexpr bool is_dispatchable(ObjectType t) noexcept {{
  return detail::object_type_info(t).dispatchable;
}}

constexpr ObjectType xml_parent_type(ObjectType t) noexcept {{
  return detail::object_type_info(t).xml_parent;
}}

constexpr ObjectType from_vk_object_type(VkObjectType t) noexcept {{
  switch (t) {{
{vk_cases}    default: return ObjectType::kUnknown;
  }}
}}

constexpr ObjectType from_debug_report_object_type(VkDebugReportObjectTypeEXT t) noexcept {{
  switch (t) {{
{dr_cases}    default: return ObjectType::kUnknown;
  }}
}}

// "VkBuffer" -> ObjectType::kBuffer; kUnknown for anything else (tests and tools).
inline ObjectType object_type_from_name(const char* name) noexcept {{
  if (name == nullptr) return ObjectType::kUnknown;
  for (uint32_t i = 1; i < kObjectTypeCount; ++i) {{
    if (std::strcmp(detail::kObjectTypeInfo[i].name, name) == 0) return static_cast<ObjectType>(i);
  }}
  return ObjectType::kUnknown;
}}

}}  // namespace vkleak
"""


def render(plan: Plan) -> Dict[str, str]:
    return {"vk_object_types.h": emit_object_types(plan.reg)}
