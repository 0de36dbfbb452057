"""The layer's rooms include only downwards: every #include "..." in layer/src names a file of
its own level or a lower one (the order is LEVELS below; layer/CMakeLists.txt says why).

  check_layer_deps.py LAYER_SRC_DIR

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
    ["base"],
    ["callsite"],
    ["tracking", "graph"],
    ["snapshot"],
    ["hooks"],
    ["loader"],
]
# Headers generated from vk.xml into the build tree, and the level they belong to.
GENERATED = {
    "vk_object_types.h": "base",
    "vk_dispatch.h": "base",
    "graph_walkers.h": "graph",
    "manual_hooks.h": "hooks",
    "hook_table.h": "hooks",
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def level_of(room):
    for i, rooms in enumerate(LEVELS):
        if room in rooms:
            return i
    return None


def check(src):
    src = os.path.realpath(src)
    shared = os.path.realpath(os.path.join(src, "..", "..", "src"))  # the CLI's: not a room
    errors = []
    checked = 0
    for dirpath, _, names in os.walk(src):
        for name in sorted(names):
            if not name.endswith((".h", ".cpp")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, src)
            room = rel.split(os.sep)[0] if os.sep in rel else None
            if room is None or level_of(room) is None:
                errors.append(f"{rel}: not in a room of LEVELS")
                continue
            mine = level_of(room)
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
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
                        resolved = os.path.realpath(os.path.join(dirpath, inc))
                        if not resolved.startswith(src + os.sep):
                            continue
                        errors.append(f"{where}: write it relative to layer/src")
                        continue
                    elif "/" in inc:
                        target = os.path.normpath(inc).split(os.sep)[0]
                        if not os.path.isfile(os.path.join(src, inc)):
                            if os.path.isfile(os.path.join(shared, inc)):
                                continue  # src/ on the include path ("format/...")
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
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    errors, checked = check(sys.argv[1])
    for e in errors:
        print(e)
    if checked == 0:
        print("no includes found: wrong directory?")
        return 1
    print(f"{checked} includes checked, {len(errors)} wrong")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
