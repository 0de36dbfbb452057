#!/usr/bin/env bash
# Runs the scenario programs under the layer and prints one finding of each kind as
# `vkleak report` shows it: the examples of the README's "Reading a finding".
#   tools/finding_examples.sh [BUILD_DIR]     (default: build; build it first: tools/demo.sh,
#                                             then cmake --build build --target vkleak_scenarios)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export VK_LAYER_PATH="$build/manifest/build" VK_INSTANCE_LAYERS=VK_LAYER_VKLEAK_tracker
export VKLEAK_FRAME_BOUNDARY=submit NO_COLOR=1

# scenario KIND PROGRAM [ARGS...]: runs it (a snapshot every 25 frames) and prints the first
# problem with a finding of KIND (one block: its kinds, what each says, the evidence once),
# source paths relative to the repository.
scenario() {
  local kind=$1 program=$2
  shift 2
  local out="$work/$kind"
  VKLEAK_OUTPUT_DIR="$out" VKLEAK_SNAPSHOT_EVERY=25 "$build/tests/scenarios/$program" "$@" \
    >/dev/null 2>&1
  echo "== $kind: $program $*"
  "$build/bin/vkleak" report "$out" 2>/dev/null |
    awk -v kind="$kind" '/^  #[0-9]+  / {
      split($0, parts, "  "); n = split(parts[3], kinds, " [+] "); has = 0
      for (i = 1; i <= n; i++) has = has || kinds[i] == kind
      on = !done && has; done = done || on
    } on' |
    sed -e "s|$root/||g" -e "s|$out/||g"
}

scenario growth incident1_wrapper_growth --frames 150
scenario retained incident2_resized_view_cache --frames 100
scenario stale_view incident5_bindgroup_cache
scenario destroyed_in_flight incident3_early_free
scenario orphaned_memory incident4_orphaned_memory
scenario leak_at_exit leak_named_buffers
scenario invalid_destroy misuse --mode double-destroy
