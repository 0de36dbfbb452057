#!/usr/bin/env bash
# The README's explorer screenshots: runs incident scenarios under the layer (lavapipe), renders
# `vkleak report --html`, and takes one PNG per view with headless Chromium over the DevTools
# protocol (tests/html/cdp.py), into tools/screenshots/.
# Usage: tools/screenshots.sh [BUILD_DIR] [OUT_DIR]   (default build, tools/screenshots)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
out="${2:-$root/tools/screenshots}"
mkdir -p "$out"
for f in bin/vkleak tests/scenarios/incident1_wrapper_growth tests/scenarios/incident5_bindgroup_cache; do
  [ -x "$build/$f" ] || { echo "screenshots: $build/$f is missing (build it first: cmake --build $build --target vkleak vkleak_scenarios)" >&2; exit 2; }
done
chromium="${CHROMIUM:-/usr/bin/chromium}"
[ -x "$chromium" ] || { echo "screenshots: $chromium is missing (tools/deps.sh test)" >&2; exit 2; }

PYTHONDONTWRITEBYTECODE=1 python3 - "$root" "$build" "$out" "$chromium" <<'EOF'
import os, shutil, subprocess, sys, tempfile
root, build, out, chromium = sys.argv[1:5]
sys.path.insert(0, os.path.join(root, 'tests', 'html'))
import cdp, scenario_page

tmp = tempfile.mkdtemp(prefix='vkleak-shots-')
try:
    # Incident 1 (growth) for most views; incident 5 (a pool keeping stale sets) for retainers.
    runs = {name: scenario_page.run_scenario(build, tmp, name)
            for name in ('incident1_wrapper_growth', 'incident5_bindgroup_cache')}
    # (file, view, run): the flame graph twice, plain (the default) and differential.
    shots = [('timeline', 'timeline', 'incident1_wrapper_growth'),
             ('flamegraph', 'flamegraph', 'incident1_wrapper_growth'),
             ('flamegraph-diff', 'flamegraph', 'incident1_wrapper_growth'),
             ('findings', 'findings', 'incident1_wrapper_growth'),
             ('retainers', 'retainers', 'incident5_bindgroup_cache'),
             ('diff', 'diff', 'incident1_wrapper_growth')]
    with cdp.Browser(chromium, 1200, 760) as b:
        for name, view, scenario in shots:
            b.open(runs[scenario].url('#' + view))
            if name == 'flamegraph-diff':  # what grew since the first snapshot
                b.evaluate('(e => { e.value = "0"; e.dispatchEvent(new Event("change", '
                           '{bubbles: true})); })(document.querySelector("#flame-base"))')
            if view == 'findings':  # one finding's full report open
                b.click('tr.vk-finding[data-rank="1"]')
            x, y, w, h = b.element_clip('section#' + view, pad=8)
            path = os.path.join(out, name + '.png')
            b.screenshot(path, clip=(x, y, min(w, 1200), min(h, 720)))
            print('%s: %d bytes' % (path, os.path.getsize(path)))
            if b.messages:
                sys.exit('screenshots: the page logged %s' % b.messages)
        # The driver's view of memory, from the H100 run kept as test data (lavapipe has no
        # VK_EXT_memory_budget): its chart in the timeline.
        page = os.path.join(tmp, 'driver-memory.html')
        subprocess.run([os.path.join(build, 'bin', 'vkleak'), 'report', '--html', page,
                        os.path.join(root, 'tests', 'integration', 'data', 'gpu_driver_memory',
                                     'hidden')], check=True, stdout=subprocess.DEVNULL)
        b.open('file://' + page + '#timeline')
        x, y, w, h = b.element_clip('figure[id^="chart-driver-memory-"]', pad=8)
        path = os.path.join(out, 'driver-memory.png')
        b.screenshot(path, clip=(x, y, min(w, 1200), min(h, 720)))
        print('%s: %d bytes' % (path, os.path.getsize(path)))
        if b.messages:
            sys.exit('screenshots: the page logged %s' % b.messages)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
EOF
