"""Every #include "..." of the repository points down or sideways, never up, and never through
a relative path ("../" or "./"):

  layer/src   its rooms include only rooms of their level or below (LAYER_LEVELS; layer/
              CMakeLists.txt says why), and of src/ only the floors shared with the CLI
              (SHARED_WITH_LAYER: the snapshot contract and the shared helpers);
  src         the CLI's floors, lowest first (SRC_LEVELS): cli > report > analysis > core >
              shared > format;
  elsewhere   (tests, bench, layer/include, layer/codegen, tools): no relative include.

  check_include_order.py REPO_DIR [BUILD_DIR]

BUILD_DIR holds the generated files (layer/generated/, src/...): their rooms are in GENERATED.
Exits 1 listing each include that points up, names an unknown room or file, sits in a file
outside the rooms, or is relative.
"""

import os
import re
import sys

# Lowest first. Rooms in one list are one level; the layer's rooms are one a level, so no two
# of them include each other.
LAYER_LEVELS = [
    ["preload"],  # the exit hook library's contract with the layer (C)
    ["base"],
    ["callsite"],
    ["store"],  # the containers a scope holds; none knows the state
    ["tracking"],  # the state, what works on it (submissions, command refs), the tracker API
    ["graph"],  # edges, resolved through the state and the tracker
    ["snapshot"],
    ["hooks"],
    ["loader"],
]
SRC_LEVELS = [["format"], ["shared"], ["core"], ["analysis"], ["report"], ["cli"]]
# What the layer may include of src/: nothing that reads snapshots or judges them.
SHARED_WITH_LAYER = {"format", "shared"}
# Files generated into the build tree, and the room each belongs to.
GENERATED = {
    "vk_object_types.h": ("layer", "base"),
    "vk_dispatch.h": ("layer", "base"),
    "vk_dispatch.cpp": ("layer", "base"),
    "graph_walkers.h": ("layer", "graph"),
    "graph_walkers.cpp": ("layer", "graph"),
    "manual_hooks.h": ("layer", "hooks"),
    "hook_table.h": ("layer", "hooks"),
    "hook_table.cpp": ("layer", "hooks"),
    "generated_hooks.cpp": ("layer", "hooks"),
    "vuids_generated.h": ("src", "analysis"),
    "report/explorer_assets.h": ("src", "report"),
}
SOURCES = (".h", ".hpp", ".cpp", ".c", ".cc", ".inc")
SKIP_DIRS = {".git", "node_modules", "__pycache__"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def level(levels, room):
    for i, rooms in enumerate(levels):
        if room in rooms:
            return i
    return None


def sources(repo):
    for top in sorted(os.listdir(repo)):
        path = os.path.join(repo, top)
        if not os.path.isdir(path) or top in SKIP_DIRS or top.startswith((".", "build")):
            continue
        for dirpath, dirnames, names in os.walk(path):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            for name in sorted(names):
                if name.endswith(SOURCES):
                    yield os.path.relpath(os.path.join(dirpath, name), repo)


def tree_and_room(rel):
    """("layer", room), ("src", room) or (None, None) for a file elsewhere."""
    parts = rel.split(os.sep)
    if parts[:2] == ["layer", "src"] and len(parts) > 3:
        return "layer", parts[2]
    if parts[0] == "src" and len(parts) > 2:
        return "src", parts[1]
    return None, None


def check_one(repo, rel, inc):
    """An error for one include, or None."""
    if inc.startswith(("../", "./")) or "/../" in inc:
        return "a relative include: name it from its tree's root"
    tree, room = tree_and_room(rel)
    if tree is None:
        return None
    levels = LAYER_LEVELS if tree == "layer" else SRC_LEVELS
    mine = level(levels, room)
    if mine is None:
        return f"'{room}' is not a room of {tree}"
    if inc in GENERATED:
        their_tree, target = GENERATED[inc]
        if their_tree != tree:
            return f"a generated file of {their_tree}"
    elif "/" not in inc:
        return "not named from its tree's root, nor a generated file"
    else:
        target = inc.split("/")[0]
        if tree == "layer" and os.path.isfile(os.path.join(repo, "layer", "src", inc)):
            pass
        elif os.path.isfile(os.path.join(repo, "src", inc)):
            if tree == "layer":
                if target not in SHARED_WITH_LAYER:
                    return f"the layer includes src/{target}, which it does not share with the CLI"
                return None  # the shared floors are below every room of the layer
        else:
            return "no such file"
    theirs = level(levels, target)
    if theirs is None:
        return f"'{target}' is not a room of {tree}"
    if theirs > mine:
        return f"'{room}' includes '{target}', a room above it"
    return None


def includes(path):
    """(line number, included name) of each #include "..." of a file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield number, m.group(1)


def check(repo):
    errors, checked = [], 0
    for rel in sources(repo):
        tree, room = tree_and_room(rel)
        if tree == "layer" and level(LAYER_LEVELS, room) is None:
            errors.append(f"{rel}: not in a room of LAYER_LEVELS")
            continue
        for number, inc in includes(os.path.join(repo, rel)):
            checked += 1
            error = check_one(repo, rel, inc)
            if error:
                errors.append(f"{rel}:{number}: #include \"{inc}\": {error}")
    return errors, checked


def check_generated(build):
    """The generated layer sources, as files of their rooms."""
    errors, checked = [], 0
    gen = os.path.join(build, "layer", "generated")
    if not os.path.isdir(gen):
        return errors, checked
    for name in sorted(os.listdir(gen)):
        if not name.endswith(SOURCES) or name not in GENERATED:
            continue
        _, room = GENERATED[name]
        for number, inc in includes(os.path.join(gen, name)):
            checked += 1
            target = GENERATED[inc][1] if inc in GENERATED else inc.split("/")[0]
            if "/" in inc and target in SHARED_WITH_LAYER:
                continue
            theirs = level(LAYER_LEVELS, target)
            if theirs is None or theirs > level(LAYER_LEVELS, room):
                errors.append(f"generated/{name}:{number}: #include \"{inc}\": "
                              f"'{room}' includes '{target}'")
    return errors, checked


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    errors, checked = check(os.path.realpath(sys.argv[1]))
    if len(sys.argv) == 3:
        more, n = check_generated(sys.argv[2])
        errors += more
        checked += n
    for e in errors:
        print(e)
    if checked == 0:
        print("no includes found: wrong directory?")
        return 1
    print(f"{checked} includes checked, {len(errors)} wrong")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
