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
    hooked_commands.txt   one line per hooked name: name<TAB>kind<TAB>handle types (the golden
                          copy lives in tests/golden/). Kind "cmd": a vkCmd* reference hook,
                          listed with the handle types it references.

Which commands exist
    A command exists when a <feature> or a supported <extension> (supported contains "vulkan";
    "disabled" extensions are not in the headers) requires it, honouring `api` attributes
    (vulkansc-only elements are skipped). Its guard is the union of its requirers' guards:
    none if any requirer is unguarded, else the <platforms> "protect" macro of each platform
    extension (provisional extensions: VK_ENABLE_BETA_EXTENSIONS). The same guard wraps the
    dispatch member, its loader line, the hook, the manual declaration and the table entries.

Levels
    instance: first parameter VkInstance or VkPhysicalDevice (includes vkGetInstanceProcAddr).
    device:   first parameter VkDevice, VkQueue or VkCommandBuffer (includes vkGetDeviceProcAddr).
    global:   anything else (vkCreateInstance, vkEnumerateInstance*): no dispatch entry.

Classification by rule (for the non-alias command; aliases share the result)
    create:   named vkCreate*/vkAllocate* (kind "allocate" for vkAllocate*), or listed in
              exceptions.json "retrieve_as_create", and its last parameter other than pAllocator
              is a non-const pointer to a handle (one handle, or an array with `len`).
    retrieve: not named like a create, has a non-const pointer-to-handle parameter. Recorded with
              Origin::kRetrieved, which the tracker treats as idempotent.
    destroy/free: named vkDestroy*/vkRelease* (kind "destroy") or vkFree* (kind "free") and takes
              the handle after the dispatchable parameter (by value, or a const array with `len`).
              vkRelease* only for handle types that a "retrieve_as_create" command makes
              (vkReleasePerformanceConfigurationINTEL): other releases give back a mode, a lock or
              a display and leave objects alive, so they must be listed in exceptions.json.
    Never by rule, so always manual: commands with no dispatchable first parameter, and those
    that create or destroy a dispatch scope (VkInstance, VkDevice): they set up or tear down the
    layer's own state.

Build check
    A command "looks like" it creates or destroys objects when it is named vkCreate*,
    vkAllocate*, vkDestroy*, vkFree* or vkRelease*, or has a non-const pointer parameter to a
    handle or to a struct holding handles (display property queries, physical-device groups).
    Every such command must be classified by rule or listed in exceptions.json ("manual" or
    "excluded", each with a reason); otherwise the generator fails and names the commands.
    exceptions.json is checked too: unknown or alias names, missing reasons, a command in two
    lists, and "sizes" entries for commands without a generated create hook are errors.

Object graph (graph.h)
    Walks visit handles in input structs: a handle member (by value, a pointer, or an array
    through a sibling `len` count), a member struct holding handles (by value, through a
    pointer, an array of them, or an array of pointers to them: "len=count,1"), and the pNext
    chain: a switch over the sType of every struct whose `structextends` names the struct (or,
    the chain being flat, one of those), for the extension structs that hold handles; unknown
    sTypes are skipped. Pointers are null-checked; VK_NULL_HANDLE is skipped by the sinks.
    Returned-only structs, structs the headers lack, and `null-terminated` arrays are not walked.
    Unions are never walked: a union (or `selector` member) holding handles must be listed in
    exceptions.json "graph_excluded". So must any member that cannot be walked mechanically
    (fixed-size or strided arrays, outputs, a `len` that is no sibling count). A member or
    vkCmd* parameter marked noautovalidity (whether it is read depends on other values) must be
    reviewed: "graph_excluded", or "graph_walked" with a reason and optionally "when", a C++
    condition in which {s} is the struct's accessor (basePipelineHandle only with
    VK_PIPELINE_CREATE_DERIVATIVE_BIT). Otherwise the generator fails and names them; so it
    does for graph entries naming no struct, Struct::member or vkCmd*::parameter, and for
    graph_walked entries that match nothing walked.
    graph_excluded also drops members that are no reference (oldSwapchain, validation caches).
    Walker kinds are member paths: "image", "pStages.module", and "<ExtStruct>.<member>" for
    members of pNext structs ("VkSamplerYcbcrConversionInfo.conversion"); the index is the one
    in the outermost array (0 outside arrays).
    walkers: one per walkable struct whose walk visits something, guarded like the struct or
        (unguarded structs) by the union of the guards of what it visits: a struct whose only
        handles are in platform pNext structs (VkBufferCreateInfo: Fuchsia) has no walker
        elsewhere.
    create edges: a generated create/allocate hook whose create-info parameter has a walker
        fills one EdgeSink per created object (pCreateInfos[i] for pPipelines[i]) and records
        the object with on_create_with_edges() (walkers behind a platform guard: on_create(),
        then on_edges() inside the guard). Deferred pipeline creation returns before it: no
        edges.
    vkCmd* hooks (kind "cmd"): every vkCmd* command not otherwise classified, manual or
        excluded, whose parameters after the command buffer hold handles (by value, arrays, or
        input structs walked as above, inlined) calls add_ref() for each (add_secondary() for
        command buffers) when command_refs() gives the command buffer's list, then calls down.

Error results (error_snapshot.h)
    Every generated hook whose command lists VK_ERROR_OUT_OF_DEVICE_MEMORY,
    VK_ERROR_OUT_OF_HOST_MEMORY or VK_ERROR_DEVICE_LOST in its vk.xml `errorcodes` passes a
    result < 0 to on_error_result(). watch: a device-level command returning VkResult, not
    classified otherwise, whose errorcodes hold VK_ERROR_DEVICE_LOST or
    VK_ERROR_OUT_OF_DEVICE_MEMORY (vkMapMemory, vkEndCommandBuffer, vkGetQueryPoolResults...)
    gets a hook that calls down, checks the result and returns it.

vkGetInstanceProcAddr / vkGetDeviceProcAddr are deliberately NOT in "manual" nor in the hook
table: the layer's exported entry points answer their own names before consulting find_hook().
They are in the dispatch tables like any other command.
"""

import argparse
import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

INSTANCE_FIRST_PARAMS = ("VkInstance", "VkPhysicalDevice")
DEVICE_FIRST_PARAMS = ("VkDevice", "VkQueue", "VkCommandBuffer")
# Creating or destroying these builds or tears down a dispatch chain and the layer's state.
SCOPE_HANDLES = ("VkInstance", "VkDevice")
CREATE_PREFIXES = ("vkCreate", "vkAllocate")
DESTROY_PREFIXES = ("vkDestroy", "vkFree", "vkRelease")
BETA_MACRO = "VK_ENABLE_BETA_EXTENSIONS"
EXCEPTION_KEYS = ("manual", "excluded", "retrieve_as_create", "sizes")  # keyed by command
GRAPH_KEYS = ("graph_excluded", "graph_walked")  # keyed by struct, Struct::member, vkCmd::param

Guard = Tuple[str, ...]  # macros, any of which enables the code; () = unguarded


class GenerateError(Exception):
    """A problem that must stop the build; the message is shown as is."""


# --------------------------------------------------------------------------------------------
# Registry model
# --------------------------------------------------------------------------------------------


def api_ok(el: ET.Element) -> bool:
    """True when the element applies to Vulkan (no `api`, or a list naming "vulkan")."""
    api = el.get("api")
    return api is None or "vulkan" in api.split(",")


def decl_text(el: ET.Element) -> str:
    """The C declaration of a <param>/<member>/<proto>, without <comment> children."""
    parts = [el.text or ""]
    for child in el:
        if child.tag != "comment":
            parts.append("".join(child.itertext()))
        parts.append(child.tail or "")
    text = " ".join("".join(parts).split())
    return text.replace(" *", "*").strip()


@dataclass
class Param:
    name: str
    type: str  # the base type name, e.g. VkBuffer
    decl: str  # "const VkBufferCreateInfo* pCreateInfo"
    is_pointer: bool
    is_const: bool
    len: Optional[str]  # first element of the `len` attribute, if any
    attrs: Dict[str, str] = field(default_factory=dict)  # the element's XML attributes
    ptr_depth: int = 0  # number of '*' ("const T* const* pp" = 2)
    fixed: Optional[str] = None  # N of a fixed-size array member "T name[N]"


def parse_param(el: ET.Element) -> Param:
    decl = decl_text(el)
    name = el.find("name").text
    before_name = decl[: decl.rfind(name)]
    after_name = decl[decl.rfind(name) + len(name):]
    length = el.get("len")
    fixed = re.match(r"\s*\[([^\]]+)\]", after_name)
    return Param(
        name=name,
        type=el.find("type").text,
        decl=decl,
        is_pointer="*" in before_name or "[" in after_name,
        is_const=before_name.startswith("const"),
        len=length.split(",")[0] if length else None,
        attrs=dict(el.attrib),
        ptr_depth=before_name.count("*"),
        fixed=fixed.group(1) if fixed else None,
    )


@dataclass
class Handle:
    name: str  # VkBuffer
    dispatchable: bool
    objtypeenum: str  # VK_OBJECT_TYPE_BUFFER
    parent: Optional[str]  # first name of vk.xml `parent=`

    @property
    def enumerator(self) -> str:
        return "k" + self.name[2:]


@dataclass
class Command:
    name: str
    ret: str
    params: List[Param]
    successcodes: List[str]
    errorcodes: List[str] = field(default_factory=list)
    aliases: List[str] = field(default_factory=list)
    guard: Guard = ()

    @property
    def short(self) -> str:
        return self.name[2:]

    @property
    def level(self) -> str:
        first = self.params[0].type if self.params else ""
        if first in INSTANCE_FIRST_PARAMS and not self.params[0].is_pointer:
            return "instance"
        if first in DEVICE_FIRST_PARAMS and not self.params[0].is_pointer:
            return "device"
        return "global"

    def signature_params(self) -> str:
        return ", ".join(p.decl for p in self.params)

    def call_args(self) -> str:
        return ", ".join(p.name for p in self.params)


@dataclass
class StructInfo:
    name: str
    is_union: bool
    returnedonly: bool
    extends: List[str]  # `structextends`: the structs whose pNext chain may hold this one
    stype: Optional[str]  # VK_STRUCTURE_TYPE_* of the sType member (`values`)
    available: bool = False  # declared by the headers (required by a feature/extension)
    guard: Guard = ()


class Registry:
    """The parts of vk.xml the generator needs, restricted to what the headers declare."""

    def __init__(self, path: str):
        root = ET.parse(path).getroot()
        self.header_version = self._header_version(root)
        self.platform_macros = {p.get("name"): p.get("protect") for p in root.find("platforms")}
        self.handles: Dict[str, Handle] = {}
        self.handle_aliases: Dict[str, str] = {}
        self.structs: Dict[str, List[Param]] = {}
        self.struct_info: Dict[str, StructInfo] = {}
        self.struct_aliases: Dict[str, str] = {}
        self._parse_types(root)
        self.commands: Dict[str, Command] = {}
        self.all_aliases: Dict[str, str] = {}  # every alias command name -> its target
        self._parse_commands(root, self.all_aliases)
        self.enum_values: Dict[str, Dict[str, int]] = {}  # enum type -> {name: value}
        self.enum_aliases: Dict[str, Dict[str, str]] = {}
        requirers = self._parse_requirements(root)
        self._resolve_availability(requirers)

    @staticmethod
    def _header_version(root: ET.Element) -> str:
        for t in root.find("types"):
            m = re.search(r"#define\s+VK_HEADER_VERSION\s+(\d+)", "".join(t.itertext()))
            if t.get("category") == "define" and m and api_ok(t):
                return m.group(1)
        return "unknown"

    def _parse_types(self, root: ET.Element) -> None:
        for t in root.find("types"):
            if not api_ok(t):
                continue
            category = t.get("category")
            if category == "handle":
                if t.get("alias"):
                    self.handle_aliases[t.get("name")] = t.get("alias")
                    continue
                name = t.find("name").text
                parent = t.get("parent")
                self.handles[name] = Handle(
                    name=name,
                    dispatchable=t.find("type").text == "VK_DEFINE_HANDLE",
                    objtypeenum=t.get("objtypeenum"),
                    parent=parent.split(",")[0] if parent else None,
                )
            elif category in ("struct", "union") and t.get("alias"):
                self.struct_aliases[t.get("name")] = t.get("alias")
            elif category in ("struct", "union"):
                members = [parse_param(m) for m in t.findall("member") if api_ok(m)]
                self.structs[t.get("name")] = members
                stype = [m.attrs.get("values") for m in members if m.name == "sType"]
                self.struct_info[t.get("name")] = StructInfo(
                    name=t.get("name"),
                    is_union=category == "union",
                    returnedonly=t.get("returnedonly") == "true",
                    extends=[e for e in (t.get("structextends") or "").split(",") if e],
                    stype=stype[0] if stype else None,
                )

    def _parse_commands(self, root: ET.Element, aliases: Dict[str, str]) -> None:
        for c in root.find("commands"):
            if not api_ok(c):
                continue
            if c.get("alias"):
                aliases[c.get("name")] = c.get("alias")
                continue
            proto = c.find("proto")
            name = proto.find("name").text
            ret = decl_text(proto)
            ret = ret[: ret.rfind(name)].strip()
            codes = c.get("successcodes")
            errors = c.get("errorcodes")
            self.commands[name] = Command(
                name=name,
                ret=ret,
                params=[parse_param(p) for p in c.findall("param") if api_ok(p)],
                successcodes=codes.split(",") if codes else [],
                errorcodes=errors.split(",") if errors else [],
            )

    def _guard_of(self, ext: ET.Element) -> Optional[str]:
        platform = ext.get("platform")
        if platform:
            if platform not in self.platform_macros:
                raise GenerateError(f"extension {ext.get('name')}: unknown platform {platform}")
            return self.platform_macros[platform]
        if ext.get("provisional") == "true":
            return BETA_MACRO
        return None

    def _parse_requirements(self, root: ET.Element) -> Dict[str, Set[Optional[str]]]:
        """Command name -> guards of every feature/extension that requires it.

        Also collects the VkObjectType / VkDebugReportObjectTypeEXT enumerants the headers have,
        and the guards of the requirers of each struct type (self.type_requirers).
        """
        requirers: Dict[str, Set[Optional[str]]] = {}
        # Command name -> the kinds of what requires it: "core", "instance" or "device" (the
        # extension's type). A device-level command only instance extensions require (debug
        # utils' labels and names) is fetched by the loader with vkGetInstanceProcAddr.
        self.requirer_kinds: Dict[str, Set[str]] = {}
        self.type_requirers: Dict[str, Set[Optional[str]]] = {}
        for enum_type in ("VkObjectType", "VkDebugReportObjectTypeEXT"):
            self.enum_values[enum_type] = {}
            self.enum_aliases[enum_type] = {}
        for enums in root.findall("enums"):
            if enums.get("name") in self.enum_values:
                for e in enums.findall("enum"):
                    self._add_enum(enums.get("name"), e, None)
        blocks = [(f, None, None) for f in root.findall("feature") if api_ok(f)]
        for ext in root.find("extensions"):
            supported = (ext.get("supported") or "").split(",")
            if "vulkan" in supported:
                blocks.append((ext, self._guard_of(ext), ext.get("number")))
        for block, guard, ext_number in blocks:
            kind = (block.get("type") or "core") if block.tag == "extension" else "core"
            for req in block.findall("require"):
                if not api_ok(req):
                    continue
                for c in req.findall("command"):
                    requirers.setdefault(c.get("name"), set()).add(guard)
                    self.requirer_kinds.setdefault(c.get("name"), set()).add(kind)
                for t in req.findall("type"):
                    self.type_requirers.setdefault(t.get("name"), set()).add(guard)
                for e in req.findall("enum"):
                    if e.get("extends") in self.enum_values and api_ok(e):
                        self._add_enum(e.get("extends"), e, ext_number)
        return requirers

    def _add_enum(self, enum_type: str, e: ET.Element, ext_number: Optional[str]) -> None:
        name = e.get("name")
        if e.get("alias"):
            self.enum_aliases[enum_type][name] = e.get("alias")
        elif e.get("value") is not None:
            self.enum_values[enum_type][name] = int(e.get("value"), 0)
        elif e.get("offset") is not None:
            number = int(e.get("extnumber") or ext_number)
            value = 1000000000 + (number - 1) * 1000 + int(e.get("offset"))
            self.enum_values[enum_type][name] = -value if e.get("dir") == "-" else value

    def _resolve_availability(self, requirers: Dict[str, Set[Optional[str]]]) -> None:
        """Drops commands the headers lack, sets guards, attaches the declared aliases."""
        for name in list(self.commands):
            if name not in requirers:
                del self.commands[name]  # only in disabled extensions: not in the headers
                continue
            guards = requirers[name]
            self.commands[name].guard = () if None in guards else tuple(sorted(guards))
        for alias in sorted(self.all_aliases):
            target = self.all_aliases[alias]
            while target in self.all_aliases:
                target = self.all_aliases[target]
            if alias in requirers and target in self.commands:
                self.commands[target].aliases.append(alias)
        self._resolve_struct_availability()

    def _resolve_struct_availability(self) -> None:
        """A struct is declared when a feature/extension requires it or one of its aliases (the
        alias typedef pulls in its target); its guard is the union of its requirers' guards."""
        guards: Dict[str, Set[Optional[str]]] = {}
        for name, reqs in self.type_requirers.items():
            target = self.struct_aliases.get(name, name)
            if target in self.struct_info:
                guards.setdefault(target, set()).update(reqs)
        for name, reqs in guards.items():
            info = self.struct_info[name]
            info.available = True
            info.guard = () if None in reqs else tuple(sorted(reqs))

    # Helpers -----------------------------------------------------------------------------

    def only_instance_extensions(self, cmd: "Command") -> bool:
        """True for a command that only instance extensions require (itself or an alias)."""
        kinds: Set[str] = set()
        for name in [cmd.name] + cmd.aliases:
            kinds |= self.requirer_kinds.get(name, set())
        return kinds == {"instance"}

    def is_handle(self, type_name: str) -> bool:
        return type_name in self.handles or type_name in self.handle_aliases

    def canonical_handle(self, type_name: str) -> str:
        return self.handle_aliases.get(type_name, type_name)

    def canonical_struct(self, type_name: str) -> str:
        return self.struct_aliases.get(type_name, type_name)

    def struct_handle_types(self, struct: str, seen: Tuple[str, ...] = ()) -> Set[str]:
        """Handle types reachable through a struct's members (nested structs included)."""
        found: Set[str] = set()
        for m in self.structs.get(struct, []):
            if self.is_handle(m.type):
                found.add(self.canonical_handle(m.type))
            elif m.type in self.structs and m.type not in seen:
                found |= self.struct_handle_types(m.type, seen + (struct,))
        return found


# --------------------------------------------------------------------------------------------
# Classification
# --------------------------------------------------------------------------------------------


@dataclass
class Classified:
    command: Command
    kind: str  # create / allocate / retrieve / destroy / free / manual / excluded / ""
    handle_types: List[str]  # what it creates/retrieves/destroys (for hooked_commands.txt)
    target: Optional[Param] = None  # the handle (array) it creates or destroys
    origin: str = ""  # Origin enumerator for creates
    why_not: str = ""  # why the rule did not classify it (for the error message)
    reason: str = ""  # exceptions.json reason for manual/excluded
    walk: list = field(default_factory=list)  # kind "cmd": the WalkNodes its hook references


def non_allocator_params(cmd: Command) -> List[Param]:
    return [p for p in cmd.params if p.type != "VkAllocationCallbacks"]


def handle_outputs(reg: Registry, cmd: Command) -> List[Param]:
    return [p for p in cmd.params if reg.is_handle(p.type) and p.is_pointer and not p.is_const]


def struct_output_handles(reg: Registry, cmd: Command) -> Set[str]:
    found: Set[str] = set()
    for p in cmd.params:
        if p.is_pointer and not p.is_const and p.type in reg.structs:
            found |= reg.struct_handle_types(p.type)
    return found


def destroy_target(reg: Registry, cmd: Command) -> Optional[Param]:
    """The last handle after the dispatchable one, by value or as a const array with `len`."""
    candidates = [
        p for p in cmd.params[1:]
        if reg.is_handle(p.type) and (not p.is_pointer or (p.is_const and p.len))
    ]
    return candidates[-1] if candidates else None


def looks_like_lifetime(reg: Registry, cmd: Command) -> bool:
    return (cmd.name.startswith(CREATE_PREFIXES + DESTROY_PREFIXES)
            or bool(handle_outputs(reg, cmd)) or bool(struct_output_handles(reg, cmd)))


def involved_types(reg: Registry, cmd: Command) -> List[str]:
    """Handle types a command creates, returns or destroys, for the listing."""
    types = {reg.canonical_handle(p.type) for p in handle_outputs(reg, cmd)}
    types |= struct_output_handles(reg, cmd)
    if cmd.name.startswith(DESTROY_PREFIXES):
        target = destroy_target(reg, cmd)
        if target is not None:
            types.add(reg.canonical_handle(target.type))
        elif cmd.params and any(cmd.name == pre + cmd.params[0].type[2:]
                                for pre in DESTROY_PREFIXES):
            types.add(cmd.params[0].type)  # vkDestroyInstance, vkDestroyDevice
    return sorted(types)


def classify_by_rule(reg: Registry, cmd: Command, as_create: Set[str],
                     acquired_types: Set[str]) -> Classified:
    types = involved_types(reg, cmd)
    result = Classified(cmd, "", types)
    if cmd.level == "global":
        result.why_not = "has no dispatchable first parameter"
        return result
    outs = handle_outputs(reg, cmd)
    last = non_allocator_params(cmd)[-1]
    if cmd.name.startswith(CREATE_PREFIXES) or cmd.name in as_create:
        if outs and outs[-1] is last:
            result.kind = "allocate" if cmd.name.startswith("vkAllocate") else "create"
            result.origin = "kAllocated" if result.kind == "allocate" else "kCreated"
            result.target = last
        else:
            result.why_not = "named like a create but its last parameter is no handle output"
    elif len(outs) == 1:
        result.kind, result.origin, result.target = "retrieve", "kRetrieved", outs[0]
    elif outs:
        result.why_not = "has several handle outputs"
    elif struct_output_handles(reg, cmd):
        result.why_not = "returns handles inside an output struct"
    elif cmd.name.startswith(DESTROY_PREFIXES):
        target = destroy_target(reg, cmd)
        if target is None:
            result.why_not = "named like a destroy but takes no handle after the dispatchable one"
        elif cmd.name.startswith("vkRelease") and \
                reg.canonical_handle(target.type) not in acquired_types:
            # Most vkRelease* commands give back a mode, a lock or control of a display and
            # leave the object alive; only the counterpart of an acquire-like create destroys.
            result.why_not = f"releases a {target.type} that no retrieve_as_create command creates"
        else:
            result.kind = "free" if cmd.name.startswith("vkFree") else "destroy"
            result.target = target
    for scope in SCOPE_HANDLES:
        if scope in types:
            result.kind, result.target = "", None
            result.why_not = f"creates or destroys {scope}, a dispatch scope"
    if result.kind and cmd.ret not in ("VkResult", "void"):
        result.kind, result.target = "", None
        result.why_not = f"returns {cmd.ret}"
    return result


# Results that take an error snapshot (error_snapshot.h). Every hook whose command can return
# one checks its result; device-level commands hooked for nothing else that can return
# VK_ERROR_DEVICE_LOST or VK_ERROR_OUT_OF_DEVICE_MEMORY get a "watch" hook (call down, check,
# return). Instance-level ones are physical-device queries: the driver's state, not the app's.
ERROR_SNAPSHOT_RESULTS = {"VK_ERROR_OUT_OF_DEVICE_MEMORY", "VK_ERROR_OUT_OF_HOST_MEMORY",
                          "VK_ERROR_DEVICE_LOST"}
WATCH_RESULTS = {"VK_ERROR_OUT_OF_DEVICE_MEMORY", "VK_ERROR_DEVICE_LOST"}


def is_watched(cmd: Command) -> bool:
    return (cmd.level == "device" and cmd.ret == "VkResult"
            and bool(WATCH_RESULTS & set(cmd.errorcodes)))


def error_check(cmd: Command) -> List[str]:
    """The one compare on the hot path; on_error_result() sorts the errors out."""
    if cmd.ret != "VkResult" or not ERROR_SNAPSHOT_RESULTS & set(cmd.errorcodes):
        return []
    return [f'if (__builtin_expect(result < 0, 0)) on_error_result(result, "{cmd.name}");']


def load_exceptions(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    unknown = sorted(k for k in data
                     if k not in EXCEPTION_KEYS + GRAPH_KEYS and not k.startswith("_"))
    if unknown:
        raise GenerateError(f"{path}: unknown keys {', '.join(unknown)}")
    return {
        "manual": data.get("manual", {}),
        "excluded": data.get("excluded", {}),
        "retrieve_as_create": data.get("retrieve_as_create", []),
        "sizes": data.get("sizes", {}),
        "graph_excluded": data.get("graph_excluded", {}),
        "graph_walked": data.get("graph_walked", {}),
    }


def check_exception_names(reg: Registry, exc: dict) -> List[str]:
    problems = []
    for key in EXCEPTION_KEYS:
        for name in sorted(exc[key]):
            if name in reg.all_aliases:
                problems.append(f'"{key}": {name} is an alias; list {reg.all_aliases[name]}')
            elif name not in reg.commands:
                problems.append(f'"{key}": {name} is not a command of this vk.xml')
    for key in ("manual", "excluded"):
        for name, reason in sorted(exc[key].items()):
            if not isinstance(reason, str) or not reason.strip():
                problems.append(f'"{key}": {name} needs a reason')
    for name in sorted(set(exc["manual"]) & set(exc["excluded"])):
        problems.append(f"{name} is both manual and excluded")
    return problems


def classify(reg: Registry, exc: dict) -> Dict[str, Classified]:
    problems = check_exception_names(reg, exc)
    as_create = set(exc["retrieve_as_create"])
    # Handle types made by acquire-like creates (vkAcquirePerformanceConfigurationINTEL): the
    # only ones a vkRelease* command may destroy by rule.
    acquired_types = {reg.canonical_handle(p.type) for name in as_create if name in reg.commands
                      for p in handle_outputs(reg, reg.commands[name])}
    result: Dict[str, Classified] = {}
    unclassified = []
    for name in sorted(reg.commands):
        cmd = reg.commands[name]
        c = classify_by_rule(reg, cmd, as_create, acquired_types)
        if name in exc["manual"]:
            c.kind, c.reason, c.target = "manual", exc["manual"][name], None
        elif name in exc["excluded"]:
            c.kind, c.reason, c.target = "excluded", exc["excluded"][name], None
        elif name in as_create and c.kind != "create":
            problems.append(f'"retrieve_as_create": {name}: {c.why_not or "not a create"}')
        elif not c.kind and looks_like_lifetime(reg, cmd):
            unclassified.append(f"  {name}: {c.why_not or 'not classified by rule'}")
        elif not c.kind and is_watched(cmd):
            c.kind = "watch"
        result[name] = c
    for name in sorted(exc["sizes"]):
        if name in result and result[name].kind not in ("create", "allocate"):
            problems.append(f'"sizes": {name} has no generated create hook')
    message = []
    if unclassified:
        message.append(
            f"{len(unclassified)} command(s) in vk.xml look like they create, retrieve or "
            "destroy objects but are neither classified by rule nor listed in the exceptions:")
        message += unclassified
        message.append('Add each to "manual" or "excluded" (with a reason) in exceptions.json.')
    if problems:
        message.append("exceptions.json problems:")
        message += [f"  {p}" for p in problems]
    if message:
        raise GenerateError("\n".join(message))
    return result


# --------------------------------------------------------------------------------------------
# Object graph: what the struct walkers and the vkCmd* hooks visit
# --------------------------------------------------------------------------------------------


@dataclass
class WalkNode:
    """One step of a walk. Planned once from vk.xml, rendered twice: into the EdgeSink walkers
    (graph_walkers.cpp) and into the add_ref() code of the vkCmd* hooks.

    what:   "handle" (a handle member or parameter), "struct" (a struct holding handles), "chain"
            (a pNext chain; its children are "case" nodes, one per extension struct).
    access: "value"; "pointer" (null-checked); "array" (null-checked, `count` elements);
            "pointer_array" (`count` pointers, each null-checked).
    count, when: C++ expressions; "{s}" stands for the enclosing struct's accessor ("s->",
            "e1.") and is empty for command parameters. `when` comes from graph_walked.
    guard:  the platform guard under which the node exists (() = always).
    """
    what: str
    name: str = ""
    type: str = ""
    access: str = "value"
    count: str = ""
    when: str = ""
    children: List["WalkNode"] = field(default_factory=list)
    guard: Guard = ()


@dataclass
class Walker:
    struct: str
    nodes: List[WalkNode]
    guard: Guard


@dataclass
class Graph:
    walkers: Dict[str, Walker]  # struct name -> its walker
    commands: Dict[str, List[WalkNode]]  # vkCmd* name -> what its hook references


def plan_guard(nodes: List[WalkNode]) -> Guard:
    """The guard under which any of the nodes exists: () as soon as one always does."""
    guards = [n.guard for n in nodes]
    if not guards or () in guards:
        return ()
    return tuple(sorted(set().union(*guards)))


def walk_types(nodes: List[WalkNode]) -> Set[str]:
    """Handle types a walk may visit."""
    found: Set[str] = set()
    for n in nodes:
        if n.what == "handle":
            found.add(n.type)
        found |= walk_types(n.children)
    return found


class GraphPlanner:
    """Decides what each walk visits (rules in the module docstring). Problems (members that
    need a decision in exceptions.json) are collected, not raised, so that all show at once."""

    def __init__(self, reg: Registry, exc: dict):
        self.reg = reg
        self.excluded: Dict[str, str] = exc["graph_excluded"]
        self.walked: Dict[str, object] = exc["graph_walked"]
        self.problems: Set[str] = set()
        self.used: Set[str] = set()  # graph_walked entries that matched something
        self._members: Dict[str, List[WalkNode]] = {}
        self._busy: Set[str] = set()
        self._extenders: Dict[str, List[str]] = {}
        for name, info in sorted(reg.struct_info.items()):
            if info.available and not info.returnedonly:
                for base in info.extends:
                    self._extenders.setdefault(reg.canonical_struct(base), []).append(name)

    def walkable(self, struct: str) -> bool:
        """Input structs the headers declare, not unions, not excluded."""
        info = self.reg.struct_info.get(struct)
        return (info is not None and info.available and not info.is_union
                and not info.returnedonly and struct not in self.excluded)

    def struct_nodes(self, struct: str) -> List[WalkNode]:
        """A struct's walk: its members, then its pNext chain."""
        chain = self.chain_node(struct)
        return self.member_nodes(struct) + ([chain] if chain else [])

    def member_nodes(self, struct: str) -> List[WalkNode]:
        if struct in self._members:
            return self._members[struct]
        if struct in self._busy:
            return []  # reached through itself: no such struct in vk.xml today
        self._busy.add(struct)
        members = self.reg.structs[struct]
        siblings = {m.name for m in members}

        def count_of(length: str) -> Optional[str]:
            return "{s}" + length if length in siblings else None

        nodes = []
        for m in members:
            if m.name not in ("sType", "pNext"):
                node = self.node(f"{struct}::{m.name}", m, count_of)
                if node is not None:
                    nodes.append(node)
        self._busy.discard(struct)
        self._members[struct] = nodes
        return nodes

    def extenders(self, struct: str) -> List[str]:
        """Structs that may sit in the struct's pNext chain: those that extend it and, the chain
        being flat, those that extend them."""
        found: List[str] = []
        todo = list(self._extenders.get(struct, []))
        while todo:
            ext = todo.pop(0)
            if ext != struct and ext not in found:
                found.append(ext)
                todo += self._extenders.get(ext, [])
        return sorted(found)

    def chain_node(self, struct: str) -> Optional[WalkNode]:
        cases = []
        for ext in self.extenders(struct):
            kids = self.member_nodes(ext) if self.walkable(ext) else []
            if kids:
                if not self.reg.struct_info[ext].stype:
                    self.problem(f"{ext}", "extends a struct but has no sType value")
                    continue
                guard = self.reg.struct_info[ext].guard or plan_guard(kids)
                cases.append(WalkNode("case", type=ext, children=kids, guard=guard))
        if not cases:
            return None
        return WalkNode("chain", name="pNext", children=cases, guard=plan_guard(cases))

    def command_nodes(self, cmd: Command) -> List[WalkNode]:
        """What a vkCmd* hook references: its input parameters after the command buffer."""
        def count_of(length: str) -> Optional[str]:
            try:
                return len_expr(cmd, length)
            except GenerateError:
                return None

        nodes = []
        for p in cmd.params[1:]:
            if p.is_pointer and not p.is_const:
                continue  # outputs
            node = self.node(f"{cmd.name}::{p.name}", p, count_of)
            if node is not None:
                nodes.append(node)
        return nodes

    def node(self, key: str, p: Param, count_of) -> Optional[WalkNode]:
        """The walk of one member or parameter; None when it holds no handle or is excluded."""
        if key in self.excluded:
            return None
        if self.reg.is_handle(p.type):
            node = WalkNode("handle", p.name, self.reg.canonical_handle(p.type))
        else:
            node = self.struct_node(key, p)
        if node is None or not self.set_access(key, p, node, count_of):
            return None
        return node if self.reviewed(key, p, node) else None

    def struct_node(self, key: str, p: Param) -> Optional[WalkNode]:
        struct = self.reg.canonical_struct(p.type)
        info = self.reg.struct_info.get(struct)
        if info is None or struct in self.excluded:
            return None
        if info.is_union or "selector" in p.attrs:
            if self.reg.struct_handle_types(struct):
                self.problem(key, f"{struct} is a union holding handles (the valid member "
                                  "depends on another value)")
            return None
        kids = self.struct_nodes(struct) if self.walkable(struct) else []
        if not kids:
            return None
        return WalkNode("struct", p.name, struct, children=kids, guard=plan_guard(kids))

    def set_access(self, key: str, p: Param, node: WalkNode, count_of) -> bool:
        length = p.attrs.get("len", "")
        first, rest = (length.split(",")[0], length.split(",")[1:]) if length else ("", [])
        if p.fixed:
            return self.problem(key, f"fixed-size array [{p.fixed}]")
        if "stride" in p.attrs:
            return self.problem(key, "array with a stride")
        if p.ptr_depth and not p.is_const:
            return self.problem(key, "non-const pointer (an output)")
        if p.ptr_depth == 0:
            return True
        if first == "null-terminated":
            return False
        if p.ptr_depth == 1 and not first:
            node.access = "pointer"
            return True
        count = count_of(first)
        if count is None:
            return self.problem(key, f"len={length!r} names no sibling count")
        if p.ptr_depth == 1 and not rest:
            node.access, node.count = "array", count
            return True
        if p.ptr_depth == 2 and rest == ["1"]:
            node.access, node.count = "pointer_array", count
            return True
        return self.problem(key, f"cannot walk {p.decl!r} (len={length!r})")

    def reviewed(self, key: str, p: Param, node: WalkNode) -> bool:
        """noautovalidity members (validity depends on other values) are walked only when
        graph_walked says so, optionally under a condition."""
        entry = self.walked.get(key)
        if entry is not None:
            self.used.add(key)
            if isinstance(entry, dict):
                node.when = entry.get("when", "")
            return True
        if p.attrs.get("noautovalidity") == "true":
            return self.problem(key, "noautovalidity (whether it is read depends on other "
                                     "values)", 'graph_walked (optionally with a "when") or '
                                                "graph_excluded")
        return True

    def problem(self, key: str, what: str, where: str = "graph_excluded") -> bool:
        self.problems.add(f"{key}: {what}; add it to {where} with a reason")
        return False


def graph_name_ok(reg: Registry, name: str) -> bool:
    """"VkStruct", "VkStruct::member" or "vkCmd...::parameter"."""
    owner, _, member = name.partition("::")
    if not member:
        return owner in reg.structs
    if owner in reg.structs:
        return member in {m.name for m in reg.structs[owner]}
    if owner in reg.commands:
        return member in {p.name for p in reg.commands[owner].params}
    return False


def check_graph_exceptions(reg: Registry, exc: dict) -> List[str]:
    problems = []
    for key in GRAPH_KEYS:
        for name, value in sorted(exc[key].items()):
            reason = value.get("reason") if isinstance(value, dict) else value
            if not graph_name_ok(reg, name):
                problems.append(f'"{key}": {name} is no struct, struct member or command '
                                'parameter of this vk.xml')
            if not isinstance(reason, str) or not reason.strip():
                problems.append(f'"{key}": {name} needs a reason')
            if isinstance(value, dict) and set(value) - {"reason", "when"}:
                problems.append(f'"{key}": {name}: only "reason" and "when" are allowed')
    for name in sorted(set(exc["graph_excluded"]) & set(exc["graph_walked"])):
        problems.append(f"{name} is both in graph_excluded and graph_walked")
    return problems


def plan_graph(reg: Registry, exc: dict, classes: Dict[str, "Classified"]) -> Graph:
    """Walkers for every input struct holding handles; vkCmd* hooks (kind "cmd") for every
    command that references handles and is not otherwise hooked, excluded or manual."""
    problems = check_graph_exceptions(reg, exc)
    planner = GraphPlanner(reg, exc)
    walkers: Dict[str, Walker] = {}
    for name in sorted(reg.struct_info):
        if planner.walkable(name):
            nodes = planner.struct_nodes(name)
            if nodes:
                guard = reg.struct_info[name].guard or plan_guard(nodes)
                walkers[name] = Walker(name, nodes, guard)
    commands: Dict[str, List[WalkNode]] = {}
    for name, c in sorted(classes.items()):
        if name.startswith("vkCmd") and c.command.level == "device" and not c.kind:
            nodes = planner.command_nodes(c.command)
            if nodes:
                c.kind, c.handle_types, c.walk = "cmd", sorted(walk_types(nodes)), nodes
                commands[name] = nodes
    problems += sorted(planner.problems)
    problems += [f'"graph_walked": {name} matches no walked member or parameter'
                 for name in sorted(set(exc["graph_walked"]) - planner.used)]
    if problems:
        raise GenerateError(
            f"{len(problems)} object-graph problem(s) (struct members and vkCmd* parameters "
            "that cannot be walked mechanically, or stale exceptions.json entries):\n"
            + "\n".join(f"  {p}" for p in problems))
    return Graph(walkers, commands)


# --------------------------------------------------------------------------------------------
# Emission helpers
# --------------------------------------------------------------------------------------------


def banner(reg: Registry, comment: str = "//") -> str:
    return (f"{comment} Generated by layer/codegen/generate.py from vk.xml "
            f"(VK_HEADER_VERSION {reg.header_version}). Do not edit.\n")


def guard_open(guard: Guard) -> str:
    return "#if " + " || ".join(f"defined({m})" for m in guard) + "\n"


def guarded(guard: Guard, text: str) -> str:
    """Wraps text in #if/#endif for its platform guard (nothing when unguarded)."""
    if not guard:
        return text
    return guard_open(guard) + text + "#endif  // " + " || ".join(guard) + "\n"


def grouped_by_guard(items, key, render) -> str:
    """Renders items sorted by (guard, key), one #if block per guard."""
    out = []
    by_guard: Dict[Guard, list] = {}
    for item in items:
        by_guard.setdefault(item.guard, []).append(item)
    for guard in sorted(by_guard):
        body = "".join(render(i) for i in sorted(by_guard[guard], key=key))
        out.append(guarded(guard, body))
    return "".join(out)


def indent(lines: List[str], levels: int = 1) -> List[str]:
    """Indents C++ lines by two spaces per level; preprocessor lines stay in column 0."""
    return [line if line.startswith("#") or not line else "  " * levels + line for line in lines]


def guarded_lines(guard: Guard, lines: List[str]) -> List[str]:
    if not guard or not lines:
        return lines
    return [guard_open(guard).rstrip("\n")] + lines + ["#endif  // " + " || ".join(guard)]


def object_type(reg: Registry, handle_type: str) -> str:
    return "ObjectType::" + reg.handles[reg.canonical_handle(handle_type)].enumerator


# --------------------------------------------------------------------------------------------
# vk_object_types.h
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# vk_dispatch.h / vk_dispatch.cpp
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# manual_hooks.h
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# generated_hooks.cpp
# --------------------------------------------------------------------------------------------


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


def len_expr(cmd: Command, length: str) -> str:
    """A `len` attribute as a C++ expression: a count parameter (dereferenced when it is an
    in/out pointer) or a member path such as pAllocateInfo->descriptorSetCount."""
    length = length.replace("::", "->")
    for p in cmd.params:
        if p.name == length:
            return f"*{p.name}" if p.is_pointer else p.name
    if "->" in length and length.split("->")[0] in {p.name for p in cmd.params}:
        return length
    raise GenerateError(f"{cmd.name}: cannot resolve len={length!r}")


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


GENERATED_KINDS = ("create", "allocate", "retrieve", "destroy", "free", "cmd", "watch")


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


# --------------------------------------------------------------------------------------------
# graph_walkers.h / graph_walkers.cpp (and the walks inlined in the vkCmd* hooks)
# --------------------------------------------------------------------------------------------


class WalkEmitter:
    """Renders WalkNodes as C++ statements. `visit(handle_type, expr, kind, index)` renders one
    handle: sink.add(...) in the walkers, add_ref(...) in the vkCmd* hooks.

    acc is the accessor of the enclosing struct ("s->", "e1.", or "" for command parameters),
    prefix the member path so far ("pStages."), index the C++ index of the outermost array
    (None outside arrays), depth a counter that keeps loop variables distinct, guard the
    platform guard already open around the code.
    """

    def __init__(self, reg: Registry, visit):
        self.reg, self.visit = reg, visit

    def nodes(self, nodes: List[WalkNode], acc: str, prefix: str, index: Optional[str],
              depth: int, guard: Guard) -> List[str]:
        lines: List[str] = []
        for n in nodes:
            inner = n.guard or guard
            body = self.node(n, acc, prefix, index, depth, inner)
            if n.when:
                body = [f"if ({n.when.replace('{s}', acc)}) {{"] + indent(body) + ["}"]
            lines += guarded_lines(n.guard if n.guard != guard else (), body)
        return lines

    def node(self, n: WalkNode, acc: str, prefix: str, index: Optional[str], depth: int,
             guard: Guard) -> List[str]:
        if n.what == "chain":
            return self.chain(n, acc, prefix, index, depth, guard)
        ref, kind = f"{acc}{n.name}", prefix + n.name
        if n.access == "value":
            return self.target(n, ref, f"{ref}.", kind, index, depth, guard)
        if n.access == "pointer":
            return ([f"if ({ref} != nullptr) {{"]
                    + indent(self.target(n, f"*{ref}", f"{ref}->", kind, index, depth, guard))
                    + ["}"])
        i = f"i{depth}"
        element = f"{ref}[{i}]"
        body: List[str] = []
        if n.access == "pointer_array":
            body.append(f"if ({element} == nullptr) continue;")
            element = f"*{element}"
        if n.what == "struct":
            body.append(f"const {n.type}& e{depth} = {element};")
            body += self.nodes(n.children, f"e{depth}.", kind + ".", index or i, depth + 1,
                               guard)
        else:
            body.append(self.visit(n.type, element, kind, index or i))
        count = n.count.replace("{s}", acc)
        return ([f"if ({ref} != nullptr) {{",
                 f"  for (uint32_t {i} = 0; {i} < {count}; ++{i}) {{"]
                + indent(body, 2) + ["  }", "}"])

    def target(self, n: WalkNode, handle_expr: str, struct_acc: str, kind: str,
               index: Optional[str], depth: int, guard: Guard) -> List[str]:
        """A handle, or the members of a struct reached through struct_acc."""
        if n.what == "handle":
            return [self.visit(n.type, handle_expr, kind, index or "0")]
        return self.nodes(n.children, struct_acc, kind + ".", index, depth, guard)

    def chain(self, n: WalkNode, acc: str, prefix: str, index: Optional[str], depth: int,
              guard: Guard) -> List[str]:
        """The pNext chain: a switch over the sTypes of the extension structs holding handles;
        other structs are skipped (nothing beyond sType/pNext is read)."""
        p, x = f"p{depth}", f"x{depth}"
        cases: List[str] = []
        for case in n.children:
            ext = case.type
            stype = self.reg.struct_info[ext].stype
            body = [f"case {stype}: {{",
                    f"  const {ext}& {x} = *reinterpret_cast<const {ext}*>({p});"]
            body += indent(self.nodes(case.children, f"{x}.", f"{prefix}{ext}.", index,
                                      depth + 1, case.guard or guard))
            body += ["  break;", "}"]
            cases += guarded_lines(case.guard if case.guard != guard else (), body)
        return ([f"for (const VkBaseInStructure* {p} = static_cast<const VkBaseInStructure*>("
                 f"{acc}pNext); {p} != nullptr; {p} = {p}->pNext) {{",
                 f"  switch ({p}->sType) {{"]
                + indent(cases, 2)
                + ["    default:", "      break;", "  }", "}"])


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


# --------------------------------------------------------------------------------------------
# hook_table.h / hook_table.cpp
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# hook_calls.inc (for tests/layer/next_layer_test.cpp)
# --------------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------------
# hooked_commands.txt
# --------------------------------------------------------------------------------------------


def emit_hooked_txt(classes: Dict[str, Classified]) -> str:
    lines = []
    for c in classes.values():
        if c.kind not in GENERATED_KINDS + ("manual",):
            continue
        types = ",".join(c.handle_types) or "-"
        lines.append(f"{c.command.name}\t{c.kind}\t{types}")
        lines += [f"{a}\talias-of {c.command.name}\t{types}" for a in c.command.aliases]
    return "\n".join(sorted(lines)) + "\n"


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------


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
    graph = plan_graph(reg, exc, classes)
    outputs = {
        "vk_object_types.h": emit_object_types(reg),
        "vk_dispatch.h": emit_dispatch_h(reg),
        "vk_dispatch.cpp": emit_dispatch_cpp(reg),
        "manual_hooks.h": emit_manual_h(reg, classes),
        "generated_hooks.cpp": emit_hooks_cpp(reg, classes, exc, graph),
        "graph_walkers.h": emit_walkers_h(reg, graph),
        "graph_walkers.cpp": emit_walkers_cpp(reg, graph),
        "hook_table.h": emit_hook_table_h(reg),
        "hook_table.cpp": emit_hook_table_cpp(reg),
        "hooked_commands.txt": emit_hooked_txt(classes),
        "hook_calls.inc": emit_hook_calls(reg, classes),
    }
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
