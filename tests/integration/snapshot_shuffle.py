"""Re-writes a run's snapshots in another order (issue 36: findings are a pure function of what the
program did, not of the order the layer happened to write things in).

Every array of a snapshot whose order carries no meaning is permuted at random (seeded): instances,
devices, their queues and heaps, objects, each object's edges, destroyed, events, callsites,
modules; so are the keys of every JSON object. Arrays whose order is the content stay as they
are: a call site's frames (innermost first), an event's path (from the object out) and the
unwritten snapshots (the most recent ones, in the order they happened).

References stay right. Objects, devices and instances refer to each other by id, which a
permutation keeps; call sites are referred to by index (entry i has id i), so a permuted call-site
table is renumbered and every reference to it (an object's, a destroyed object's, an event's and
its created/first_destroy) remapped.

Optionally, consistently across every snapshot of the run (so a run stays one run):
- remap_handles: every handle value through one bijection of 64-bit values (0 stays 0);
- remap_ids: every object id through one strictly increasing map (ids are creation order, which
  is what the program did; their values are not).

Usage: snapshot_shuffle.py SRC_DIR DST_DIR [--seed N] [--remap-handles] [--remap-ids]
"""

import argparse
import glob
import json
import os
import random
import re
import shutil
import subprocess
import sys

MASK64 = (1 << 64) - 1


def handle_map(seed):
    """A bijection of 64-bit values keeping 0: multiply by an odd number, add a constant, mod 2^64,
    then xor (each step invertible), with 0 fixed by swapping it with its image."""
    rng = random.Random(f"handles-{seed}")
    mul = rng.getrandbits(64) | 1
    add = rng.getrandbits(64)
    xor = rng.getrandbits(64)

    def raw(h):
        return (((h * mul) + add) & MASK64) ^ xor

    zero_image = raw(0)

    def remap_value(h):
        if h == 0:
            return 0
        # raw is a bijection; the value whose image is 0 takes 0's image instead.
        out = raw(h)
        return zero_image if out == 0 else out

    def remap(h):
        # The format writes handles as "0x..." hex strings.
        if isinstance(h, str):
            return hex(remap_value(int(h, 16)))
        return remap_value(h)

    return remap


def id_map(seed):
    """A strictly increasing map of non-negative ids: id -> id * 8 + r(id), 0 <= r < 8."""
    salt = random.Random(f"ids-{seed}").getrandbits(32)

    def remap(i):
        if i is None or i < 0:
            return i
        return i * 8 + (hash((salt, i)) & 7)

    return remap


def shuffled(rng, items):
    items = list(items)
    rng.shuffle(items)
    return items


def shuffle_keys(rng, value):
    """The same JSON value with the keys of every object in a random order."""
    if isinstance(value, dict):
        keys = shuffled(rng, value.keys())
        return {k: shuffle_keys(rng, value[k]) for k in keys}
    if isinstance(value, list):
        return [shuffle_keys(rng, v) for v in value]
    return value


def remap_field(d, key, f):
    if isinstance(d, dict) and d.get(key) is not None:
        d[key] = f(d[key])


def shuffle_snapshot(snap, rng, remap_handle=None, remap_id=None):
    """Permutes snap in place (and remaps handles / ids when given)."""
    # Call sites: a new order, renumbered; references by index follow.
    callsites = snap.get("callsites") or []
    order = shuffled(rng, range(len(callsites)))
    new_index = {old: new for new, old in enumerate(order)}
    snap["callsites"] = [dict(callsites[old], id=new) for new, old in enumerate(order)]

    def cs(value):
        return new_index.get(value, value)

    for o in snap.get("objects") or []:
        remap_field(o, "callsite", cs)
    for d in snap.get("destroyed") or []:
        remap_field(d, "callsite", cs)
        remap_field(d, "destroy_callsite", cs)
    for e in snap.get("events") or []:
        remap_field(e, "callsite", cs)
        for when in ("created", "first_destroy"):
            if isinstance(e.get(when), dict):
                remap_field(e[when], "callsite", cs)

    if remap_handle:
        for o in snap.get("objects") or []:
            remap_field(o, "handle", remap_handle)
            for edge in o.get("edges") or []:
                remap_field(edge, "handle", remap_handle)
        for table in ("destroyed", "events", "instances", "devices"):
            for x in snap.get(table) or []:
                remap_field(x, "handle", remap_handle)
        for dev in snap.get("devices") or []:
            for q in dev.get("queues") or []:
                remap_field(q, "handle", remap_handle)

    if remap_id:
        scope = snap.get("scope")
        if isinstance(scope, dict):
            remap_field(scope, "device", remap_id)
            remap_field(scope, "instance", remap_id)
        for i in snap.get("instances") or []:
            remap_field(i, "id", remap_id)
        for dev in snap.get("devices") or []:
            remap_field(dev, "id", remap_id)
            remap_field(dev, "instance", remap_id)
        for o in snap.get("objects") or []:
            for key in ("id", "owner", "parent"):
                remap_field(o, key, remap_id)
            if isinstance(o.get("memory"), dict):
                remap_field(o["memory"], "id", remap_id)
            for edge in o.get("edges") or []:
                remap_field(edge, "to", remap_id)
        for d in snap.get("destroyed") or []:
            remap_field(d, "id", remap_id)
            remap_field(d, "owner", remap_id)
        for e in snap.get("events") or []:
            for key in ("owner", "object", "belongs_to"):
                remap_field(e, key, remap_id)
            for step in e.get("path") or []:
                remap_field(step, "id", remap_id)

    # The arrays whose order means nothing.
    for key in ("instances", "devices", "objects", "destroyed", "events", "modules"):
        if isinstance(snap.get(key), list):
            snap[key] = shuffled(rng, snap[key])
    for dev in snap.get("devices") or []:
        if isinstance(dev.get("queues"), list):
            dev["queues"] = shuffled(rng, dev["queues"])
        budget = dev.get("memory_budget")
        if isinstance(budget, dict) and isinstance(budget.get("heaps"), list):
            budget["heaps"] = shuffled(rng, budget["heaps"])
    for o in snap.get("objects") or []:
        if isinstance(o.get("edges"), list):
            o["edges"] = shuffled(rng, o["edges"])
    return snap


def snapshot_paths(directory):
    return sorted(glob.glob(os.path.join(directory, "vkleak-*.json")))


def shuffle_run(src, dst, seed, remap_handles=False, remap_ids=False):
    """Writes every snapshot of src to dst (same file names), permuted with seed; returns the paths
    written. Each snapshot gets its own permutation; the remaps are shared by the whole run."""
    os.makedirs(dst, exist_ok=True)
    remap_handle = handle_map(seed) if remap_handles else None
    remap_id = id_map(seed) if remap_ids else None
    written = []
    for path in snapshot_paths(src):
        with open(path, encoding="utf-8") as f:
            snap = json.load(f)
        rng = random.Random(f"{seed}-{os.path.basename(path)}")
        shuffle_snapshot(snap, rng, remap_handle, remap_id)
        snap = shuffle_keys(rng, snap)
        out = os.path.join(dst, os.path.basename(path))
        with open(out, "w", encoding="utf-8") as f:
            json.dump(snap, f, separators=(",", ":"))
        written.append(out)
    return written


def report(vkleak, directory):
    """`vkleak report --format json` of a snapshot directory, the directory's path replaced."""
    proc = subprocess.run([vkleak, "report", directory, "--format", "json"], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "DEBUGINFOD_URLS": ""})
    if proc.returncode not in (0, 1):
        raise AssertionError(f"vkleak report {directory} exited {proc.returncode}: "
                             f"{proc.stderr[-2000:]}")
    return proc.stdout.replace(os.path.abspath(directory), "<DIR>").replace(directory, "<DIR>")


def without_handles(text):
    """A JSON report with every handle value blanked: the "handle" keys and hex handles in text."""
    def strip(value):
        if isinstance(value, dict):
            return {k: ("<HANDLE>" if k == "handle" else strip(v)) for k, v in value.items()}
        if isinstance(value, list):
            return [strip(v) for v in value]
        if isinstance(value, str):
            return re.sub(r"0x[0-9a-f]{6,16}", "<HEX>", value)
        return value
    return json.dumps(strip(json.loads(text)), indent=1, sort_keys=True)


def first_difference(a, b):
    a_lines, b_lines = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(a_lines, b_lines)):
        if x != y:
            return f"line {i + 1}:\n  as written: {x[:400]}\n  re-ordered: {y[:400]}"
    return f"lengths differ: {len(a_lines)} vs {len(b_lines)} lines"


def order_difference(vkleak, src, dst, seed, remap_handles=False, original=None):
    """None when the report of src re-written into dst (shuffle_run) is the report of src (handle
    values aside where they were remapped), else where they first differ. dst is removed."""
    if original is None:
        original = report(vkleak, src)
    shuffle_run(src, dst, seed, remap_handles=remap_handles)
    try:
        got, want = report(vkleak, dst), original
    finally:
        shutil.rmtree(dst, ignore_errors=True)
    if remap_handles:
        got, want = without_handles(got), without_handles(want)
    return None if got == want else first_difference(want, got)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src")
    parser.add_argument("dst")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--remap-handles", action="store_true")
    parser.add_argument("--remap-ids", action="store_true")
    args = parser.parse_args(argv)
    written = shuffle_run(args.src, args.dst, args.seed, args.remap_handles, args.remap_ids)
    print(f"{len(written)} snapshots written to {args.dst}")
    return 0 if written else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
