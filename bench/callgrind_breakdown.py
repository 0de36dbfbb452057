#!/usr/bin/env python3
"""Instructions per pair by part, from callgrind_pair.sh's two runs (2,000 and 22,000 pairs):
where a pair's instructions go, the layer's split by the room of its source (call sites, object
table, recent destroys, ...), inlined code counted where its source lies.

  bench/callgrind_breakdown.py SMALL.cg LARGE.cg PAIRS_DIFFERENCE

callgrind_pair.sh runs it when BREAKDOWN=1. Parts are matched on callgrind_annotate's
file:function lines (exclusive cost); the first pattern that matches names the part.
"""
import re, subprocess, sys

# (part, pattern on "file:function [object]"), first match wins. Layer sources by room.
PARTS = [
    ("layer: call sites (stack walk memo)", r"layer/src/callsite/"),
    ("layer: object table", r"layer/src/store/object_table"),
    ("layer: recent destroys ring", r"layer/src/store/recent_destroys"),
    ("layer: creation contexts", r"layer/src/store/creation_context"),
    ("layer: pool child lists", r"layer/src/store/child_index"),
    ("layer: edges and names", r"layer/src/(store/(edge_store|names)|graph/)"),
    ("layer: other store", r"layer/src/store/"),
    ("layer: tracker (inline create/destroy)", r"layer/src/tracking/"),
    ("layer: hooks and dispatch", r"layer/(src/hooks/|generated/|src/loader/)|/generated/generated_"),
    ("layer: base (clock, settings, locks)", r"layer/src/base/|bits/atomic_base\.h|libVkLayer_vkleak"),
    ("loader (libvulkan trampolines)", r"libvulkan\.so"),
    ("malloc/free (libc)", r"/malloc/|malloc\.c|memset|memcpy"),
    ("driver (lavapipe)", r"libvulkan_lvp|lvp_"),
    ("benchmark loop", r"vkleak_bench|bench/"),
]

def parts(path):
    out = subprocess.run(["callgrind_annotate", "--inclusive=no", "--auto=no", "--threshold=100", path],
                         capture_output=True, text=True, check=True).stdout
    total, sums = 0, {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+(.*)$", line)
        if not m or "PROGRAM TOTALS" in line: continue
        n, what = int(m.group(1).replace(",", "")), m.group(2)
        part = next((p for p, rx in PARTS if re.search(rx, what)), "other")
        sums[part] = sums.get(part, 0) + n
        total += n
    return total, sums

small, large, pairs = sys.argv[1], sys.argv[2], int(sys.argv[3])
(t1, s1), (t2, s2) = parts(small), parts(large)
rows = [(p, (s2.get(p, 0) - s1.get(p, 0)) / pairs) for p in [p for p, _ in PARTS] + ["other"]]
for p, v in rows:
    if abs(v) >= 0.5: print(f"  {v:8.1f}  {p}")
print(f"  {(t2 - t1) / pairs:8.1f}  total")
