"""The parts of the Vulkan registry (vk.xml) the generators read, and exceptions.json.

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
"""

import json
import re
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
