#!/usr/bin/env python3
"""Runs scenario programs under two layer builds and compares every snapshot they write: for a
hot-path change that must not change what snapshots say (issue 28: "the same snapshots, edges
listed identically").

  bench/snapshot_identity.py BEFORE_BUILD AFTER_BUILD SCENARIO_DIR NAME[:ARG:ARG...] ...

Normalized before comparing: times, pids, run ids, paths, settings, modules, call-site tables and
event messages out; lists of objects sorted by id; every handle replaced by the id of the object
(live or destroyed) that holds it in the same snapshot (handle values themselves differ between
runs: the heap is shared with the driver). Exits 1 when any scenario's snapshots differ."""
import glob, json, os, subprocess, sys, tempfile
before, after, scen_dir = sys.argv[1:4]
scenarios = [s.split(":") for s in sys.argv[4:]]
def run(build, name, args):
    out = tempfile.mkdtemp(prefix="i28v-snap-")
    env = {"PATH": os.environ["PATH"], "HOME": out,
           "VK_DRIVER_FILES": "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json",
           "VK_LOADER_LAYERS_DISABLE": "VK_LAYER_MESA_device_select",
           "XDG_DATA_HOME": out + "/empty", "MESA_SHADER_CACHE_DISABLE": "true",
           "VK_LAYER_PATH": f"{build}/manifest/build", "VK_INSTANCE_LAYERS": "VK_LAYER_VKLEAK_tracker",
           "VKLEAK_OUTPUT_DIR": out + "/snaps"}
    subprocess.run([f"{scen_dir}/{name}"] + args, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    files = sorted(glob.glob(out + "/snaps/*.json"), key=lambda f: f.split("-")[-2:])
    return [json.load(open(f)) for f in files]
def normalize(snaps):
    # Handles: what they name, not their values (the heap is shared with the driver: another
    # allocation pattern in the layer changes which values the driver reuses). Each handle
    # becomes the id of the object (live or destroyed) that holds it in the same snapshot,
    # or "?" when none.
    for s in snaps:
        owner = {}
        for o in s.get("destroyed", []) + s.get("objects", []):
            owner.setdefault(o.get("handle"), set()).add(o["id"])
        def fix(x):
            if isinstance(x, dict):
                for k, v in list(x.items()):
                    if k == "handle":
                        ids = owner.get(v, set())
                        x[k] = ("to" in x and x["to"] in ids and "id:%s" % x["to"]) or \
                               ("id" in x and x["id"] in ids and "self") or \
                               ("ids:%s" % sorted(ids) if ids else "?")
                    else:
                        fix(v)
            elif isinstance(x, list):
                for v in x: fix(v)
        fix(s)
    drop = {"time_ms", "pid", "executable", "modules", "callsites", "producer_version", "run",
            "settings", "time", "started_ms", "message", "run_id"}
    def walk(x):
        if isinstance(x, dict):
            return {k: walk(v) for k, v in x.items() if k not in drop}
        if isinstance(x, list):
            if x and all(isinstance(v, dict) and "id" in v for v in x):
                x = sorted(x, key=lambda v: (v["id"], v.get("type", "")))
            return [walk(v) for v in x]
        return x
    return [walk(s) for s in snaps]
bad = 0
for name, *args in scenarios:
    a, b = normalize(run(before, name, args)), normalize(run(after, name, args))
    edges = sum(len(o.get("edges", [])) for s in b for o in s.get("objects", []))
    same = a == b
    print(f"{name} {' '.join(args)}: {len(a)} / {len(b)} snapshots, {edges} edges in after: "
          f"{'identical' if same else 'DIFFERENT'}")
    if not same:
        bad += 1
        for i, (x, y) in enumerate(zip(a, b)):
            for k in set(x) | set(y):
                if x.get(k) != y.get(k):
                    print("  snapshot", i, "differs in", k)
                    if k == "devices": print("   ", json.dumps(x[k])[:300]); print("   ", json.dumps(y[k])[:300])
                    if k == "objects":
                        for ox, oy in zip(x[k], y[k]):
                            if ox != oy:
                                print("   before", json.dumps(ox)[:400]); print("   after ", json.dumps(oy)[:400]); break
sys.exit(1 if bad else 0)
