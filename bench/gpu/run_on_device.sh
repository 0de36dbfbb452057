#!/usr/bin/env bash
# Runs vkleak's microbenchmarks and two scenario programs on a machine with a real GPU driver,
# side by side with no layer and the validation layer, interleaved in rounds. Used through the
# workplace's device tool (bench/gpu/README.md). Writes OUT_DIR/gpu-run.md, the compact table of
# every round (bench/gpu/table.py --compact), and OUT_DIR/gpu-results.tgz, the raw files (for the
# scenario programs' snapshots, which `table.py --compact --vkleak` summarizes back here).
#   bench/gpu/run_on_device.sh BUILD_DIR DEB_DIR OUT_DIR [ROUNDS]
# Environment: FILTER (benchmark regex, default: every pair, threads and record+submit),
# MIN_TIME (seconds per benchmark, default 0.3), SCENARIOS=0 to skip the scenario programs,
# PIN=CPU to run the benchmark on one CPU (taskset; for single-threaded benchmarks only).
set -uo pipefail
build=$(realpath "$1"); debs=$(realpath "$2"); final_out=$3; rounds=${4:-2}
# The device tool brings back few files: everything goes into one archive at the end.
out=/tmp/vkleak-gpu-results
rm -rf "$out" && mkdir -p "$out" "$final_out"

. "$(dirname "$0")/device_env.sh"  # loader, private libraries, ICD, manifest

# Fail early, with the loader's account, when the driver does not come up.
if ! "$build/tests/scenarios/clean_app" --frames 2 > /dev/null 2>&1; then
  echo "ICD $icd does not start:" >&2
  VK_LOADER_DEBUG=error,driver "$build/tests/scenarios/clean_app" --frames 2 2>&1 | tail -n 30 >&2
  exit 4
fi

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
nproc >> "$out/gpu.txt"; grep -m1 "model name" /proc/cpuinfo >> "$out/gpu.txt"

config_env() {  # prints env assignments for a configuration
  case $1 in
    none) ;;
    vkleak-nocallsites) echo "VK_LAYER_PATH=$man VK_INSTANCE_LAYERS=VK_LAYER_VKLEAK_tracker VKLEAK_CALLSTACK_DEPTH=0 VKLEAK_OUTPUT_DIR=/tmp/vkleak-gpu-snap" ;;
    vkleak) echo "VK_LAYER_PATH=$man VK_INSTANCE_LAYERS=VK_LAYER_VKLEAK_tracker VKLEAK_OUTPUT_DIR=/tmp/vkleak-gpu-snap" ;;
    validation-lifetimes) echo "VK_LAYER_PATH=$vvl_dir VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation VK_LAYER_DISABLES=VK_VALIDATION_FEATURE_DISABLE_THREAD_SAFETY_EXT:VK_VALIDATION_FEATURE_DISABLE_API_PARAMETERS_EXT:VK_VALIDATION_FEATURE_DISABLE_CORE_CHECKS_EXT:VK_VALIDATION_FEATURE_DISABLE_UNIQUE_HANDLES_EXT:VK_VALIDATION_FEATURE_DISABLE_SHADERS_EXT:VK_VALIDATION_FEATURE_DISABLE_SHADER_VALIDATION_CACHE_EXT" ;;
    validation-default) echo "VK_LAYER_PATH=$vvl_dir VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation" ;;
  esac
}
configs="none vkleak-nocallsites vkleak validation-lifetimes validation-default"
filter=${FILTER:-'BM_(BufferPair|ImageViewPair|DescriptorSetPair|MemoryPair|ThreadChurn|RecordSubmit).*'}
min_time=${MIN_TIME:-0.3}
pin=()
[ -n "${PIN:-}" ] && pin=(taskset -c "$PIN")
for r in $(seq 1 "$rounds"); do
  for c in $configs; do
    rm -rf /tmp/vkleak-gpu-snap
    env $(config_env "$c") timeout 240 "${pin[@]}" "$build/bench/vkleak_bench" --live=0,100000 \
      --submit-live=1000,100000 \
      --max-threads=16 --benchmark_filter="$filter" --benchmark_min_time="$min_time" \
      --benchmark_format=json --benchmark_out="$out/bench-$c-$r.json" \
      > /dev/null 2> "$out/bench-$c-$r.log" || echo "bench $c round $r failed: $?" >> "$out/errors.txt"
  done
done

# Two scenario programs under the layer on the real driver: snapshots come back for
# `vkleak report` here and on lavapipe.
scenarios="incident1_wrapper_growth incident3_early_free clean_app callsite_chains"
[ "${SCENARIOS:-1}" = 0 ] && scenarios=""
for s in $scenarios; do
  env $(config_env vkleak) VKLEAK_OUTPUT_DIR="$out/snap-$s" VKLEAK_FRAME_BOUNDARY=submit \
    VKLEAK_SNAPSHOT_EVERY=50 "$build/tests/scenarios/$s" --frames 200 > "$out/$s.log" 2>&1 ||
    echo "$s failed: $?" >> "$out/errors.txt"
done
ls -la "$out"
# The compact table directly (python3 is on the device's image); the raw files stay out of the tree.
python3 "$(dirname "$0")/table.py" --compact "$out" --title "$(date -u +%Y-%m-%d)" \
  > "$final_out/gpu-run.md" || echo "table.py --compact failed: $?" >> "$out/errors.txt"
tar czf "$final_out/gpu-results.tgz" -C "$out" .
