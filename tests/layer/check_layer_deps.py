"""The layer's rooms include only downwards: every #include "..." in layer/src names a file of
its own level or a lower one (the order is LEVELS below; layer/CMakeLists.txt says why).

  check_layer_deps.py LAYER_SRC_DIR [GENERATED_DIR]

Exits 1 listing each include that points up, names an unknown room or file, or sits in a file
outside the rooms. Headers shared with the CLI (the repository's src/, e.g. "format/...") are
outside the rooms and allowed.
"""

import os
import re
import sys

# Lowest first. Rooms in one list are one level: tracking owns the state (state.h), whose scopes
# hold the graph's tables, and the graph resolves handles through the tracker.
LEVELS = [
    ["base", "preload"],  # preload: the exit hook library's contract with the layer (C)
    ["callsite"],
    ["tracking", "graph"],
    ["snapshot"],
    ["hooks"],
    ["loader"],
]
# Files generated from vk.xml into the build tree, and the room they belong to.
GENERATED = {
    "vk_object_types.h": "base",
    "vk_dispatch.h": "base",
    "vk_dispatch.cpp": "base",
    "graph_walkers.h": "graph",
    "graph_walkers.cpp": "graph",
    "manual_hooks.h": "hooks",
    "hook_table.h": "hooks",
    "hook_table.cpp": "hooks",
    "generated_hooks.cpp": "hooks",
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def level_of(room):
    for i, rooms in enumerate(LEVELS):
        if room in rooms:
            return i
    return None


def files(src, gen):
    """(path, name to show, room) of every source file; room None when it has none."""
    for dirpath, _, names in os.walk(src):
        for name in sorted(names):
            if name.endswith((".h", ".cpp")):
                rel = os.path.relpath(os.path.join(dirpath, name), src)
                yield os.path.join(src, rel), rel, rel.split(os.sep)[0] if os.sep in rel else None
    if gen:
        for name in sorted(os.listdir(gen)):
            if name.endswith((".h", ".cpp")):
                yield os.path.join(gen, name), "generated/" + name, GENERATED.get(name)


def check(src, gen=None):
    src = os.path.realpath(src)
    shared = os.path.realpath(os.path.join(src, "..", "..", "src"))  # the CLI's: not a room
    errors = []
    checked = 0
    for path, rel, room in files(src, gen):
        if room is None or level_of(room) is None:
            errors.append(f"{rel}: not in a room of LEVELS")
            continue
        mine = level_of(room)
        with open(path, encoding="utf-8") as f:
            lines = list(f)
        for number, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            checked += 1
            inc = m.group(1)
            where = f"{rel}:{number}: #include \"{inc}\""
            if inc in GENERATED:
                target = GENERATED[inc]
            elif inc.startswith("."):
                # Relative: outside layer/src (the CLI's shared headers) is not a room.
                resolved = os.path.realpath(os.path.join(os.path.dirname(path), inc))
                if resolved.startswith(src + os.sep):
                    errors.append(f"{where}: write it relative to layer/src")
                continue
            elif "/" in inc:
                target = os.path.normpath(inc).split(os.sep)[0]
                if not os.path.isfile(os.path.join(src, inc)):
                    if not os.path.isfile(os.path.join(shared, inc)):  # src/: "format/..."
                        errors.append(f"{where}: no such file in layer/src")
                    continue
            else:
                errors.append(f"{where}: not relative to layer/src, nor a generated header")
                continue
            theirs = level_of(target)
            if theirs is None:
                errors.append(f"{where}: room '{target}' is not in LEVELS")
            elif theirs > mine:
                errors.append(f"{where}: '{room}' includes '{target}', a room above it")
    return errors, checked


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    errors, checked = check(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else None)
    for e in errors:
        print(e)
    if checked == 0:
        print("no includes found: wrong directory?")
        return 1
    print(f"{checked} includes checked, {len(errors)} wrong")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
