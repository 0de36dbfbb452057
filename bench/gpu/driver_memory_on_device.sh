#!/usr/bin/env bash
# The driver's view of memory on a real GPU (issue 29, part 2): runs the driver_memory scenario
# under the layer where the driver has VK_EXT_memory_budget, and brings the snapshots back for
# tests/integration/data/gpu_driver_memory/ (what test_driver_memory.py checks here).
#   bench/gpu/driver_memory_on_device.sh BUILD_DIR DEB_DIR OUT_DIR
# BUILD_DIR holds lib/libVkLayer_vkleak.so, manifest/build/VkLayer_vkleak.json and
# tests/scenarios/driver_memory (bench/gpu/README.md says how to stage them).
set -uo pipefail
build=$(realpath "$1"); debs=$(realpath "$2"); out=$3
mkdir -p "$out"
. "$(dirname "$0")/device_env.sh"  # loader, private libraries, ICD, manifest

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
layer_env=(VK_LAYER_PATH="$man" VK_INSTANCE_LAYERS=VK_LAYER_VKLEAK_tracker
           VKLEAK_FRAME_BOUNDARY=submit VKLEAK_SNAPSHOT_EVERY=5 VKLEAK_LOG_LEVEL=info)
app="$build/tests/scenarios/driver_memory"
# name, arguments
runs=(
  "hidden|--where hidden --chunk-mib 64 --frames 60 --print-extensions"
  "tracked|--where tracked --chunk-mib 64 --frames 60 --app-enables"
  "off|--where hidden --chunk-mib 64 --frames 20"
)
for r in "${runs[@]}"; do
  name=${r%%|*}; args=${r#*|}
  extra=()
  [ "$name" = off ] && extra=(VKLEAK_MEMORY_BUDGET=false)
  env "${layer_env[@]}" "${extra[@]}" VKLEAK_OUTPUT_DIR="$out/$name" timeout 120 $app $args \
    > "$out/$name.log" 2>&1
  echo "$name: exit $?" >> "$out/exits.txt"
done
# Without the layer: the same program, to show the layer changed nothing it can see.
timeout 120 $app --where hidden --chunk-mib 64 --frames 10 --print-extensions > "$out/none.log" 2>&1
echo "none: exit $?" >> "$out/exits.txt"
cat "$out/gpu.txt" "$out/exits.txt" "$out/hidden.log" | head -40
ls -R "$out" | head -60
