"""What the struct walkers and the vkCmd* hooks visit: planned once, rendered by two generators.

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
"""

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set

from classify import Classified
from vkxml import GRAPH_KEYS, Command, GenerateError, Guard, Param, Registry, len_expr


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
