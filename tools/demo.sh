#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: install what is missing, build vkleak, run a
# scenario program that reproduces a real leak (incident 1: wrapper buffers that are never
# destroyed) under the layer on lavapipe, and show what vkleak found.
#   tools/demo.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}

tools/deps.sh build
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVKLEAK_BUILD_TESTS=OFF \
  -DVKLEAK_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j"$(nproc)"
cmake --build "$build" -j"$(nproc)" --target incident1_wrapper_growth  # not in a user's `all`

# lavapipe, the software Vulkan driver, and nothing else; Mesa's device-select layer off.
export VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
export VK_LOADER_LAYERS_DISABLE=VK_LAYER_MESA_device_select

out="$build/demo-run"
rm -rf "$out"
echo
echo "== vkleak run: incident 1 (wrapper buffers never destroyed), 200 frames, a snapshot every 50"
"$build/bin/vkleak" run --out "$out" --every 50 --frame-boundary submit -- \
  "$build/tests/scenarios/incident1_wrapper_growth" --frames 200
echo
echo "== vkleak show: what was still alive when the device was destroyed"
"$build/bin/vkleak" show "$(ls "$out"/vkleak-*-device_destroy.json | tail -n 1)"
echo
echo "== vkleak report: the findings over the whole run (growth, retained, leaks at exit, ...)"
"$build/bin/vkleak" report "$out"
