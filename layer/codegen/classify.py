"""What each command is to the layer: created, destroyed, hooked by hand, watched...

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

Error results (error_snapshot.h)
    Every generated hook whose command lists VK_ERROR_OUT_OF_DEVICE_MEMORY,
    VK_ERROR_OUT_OF_HOST_MEMORY or VK_ERROR_DEVICE_LOST in its vk.xml `errorcodes` passes a
    result < 0 to on_error_result(). watch: a device-level command returning VkResult, not
    classified otherwise, whose errorcodes hold VK_ERROR_DEVICE_LOST or
    VK_ERROR_OUT_OF_DEVICE_MEMORY (vkMapMemory, vkEndCommandBuffer, vkGetQueryPoolResults...)
    gets a hook that calls down, checks the result and returns it.
"""

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set

from vkxml import (CREATE_PREFIXES, DESTROY_PREFIXES, EXCEPTION_KEYS, SCOPE_HANDLES, Command,
                   GenerateError, Param, Registry)


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


# Kinds that get a generated hook (the rest: "manual", "excluded", "" get none).
GENERATED_KINDS = ("create", "allocate", "retrieve", "destroy", "free", "cmd", "watch")


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
