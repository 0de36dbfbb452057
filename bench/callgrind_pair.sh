#!/usr/bin/env bash
# Instructions per buffer create+destroy pair at 0 live, under callgrind (deterministic, whatever
# else the machine runs): two runs of exactly 2,000 and 22,000 pairs, counted inside
# BM_BufferPair only, the difference over 20,000 (no set-up). Prints the whole pair's count and
# the layer's own (its source files: hooks, tables, call sites). The whole pair's count moves
# with glibc's malloc inside the driver (heap layout) by up to ~±100 between builds; the layer's
# own count is the one to compare for a hot-path change.
#   bench/callgrind_pair.sh BUILD_DIR [DEPTH]        # DEPTH: VKLEAK_CALLSTACK_DEPTH, default 0
#   bench/callgrind_pair.sh BUILD_DIR none           # no layer
#   bench/callgrind_pair.sh BUILD_DIR passthrough    # the layer passing calls through only
#                                                    # (VKLEAK_BENCH_PASSTHROUGH=1: the limit)
#   PAIR=DescriptorSet bench/callgrind_pair.sh ...   # another pair: Buffer (default), ImageView,
#                                                    # DescriptorSet, Memory; DescriptorUpdate8:
#                                                    # one vkUpdateDescriptorSets of 8 writes;
#                                                    # DescriptorUpdate8Drained: the same, then a
#                                                    # buffer pair whose destroy resolves them;
#                                                    # EmptySubmit: vkQueueSubmit(queue, 0, ...)
# LIVE=N: N other live objects (filler buffers; default 0).
# CALLGRIND_KEEP=DIR keeps the larger run's callgrind file there (for callgrind_annotate).
# BREAKDOWN=1 also prints the pair's instructions by part (bench/callgrind_breakdown.py).
# Other VKLEAK_* settings in the environment are passed on (VKLEAK_GRAVEYARD_SIZE=0).
# The layer comes from BUILD_DIR; the benchmark program from BENCH_BUILD_DIR (default BUILD_DIR),
# so that an older layer runs under the same program.
set -euo pipefail
build=$(cd "$1" && pwd)
depth=${2:-0}
pair=${PAIR:-Buffer}
live=${LIVE:-0}
case "$pair" in
  DescriptorUpdate8 | DescriptorUpdate8Drained | EmptySubmit) bm=BM_$pair ;;  # not a pair: one call a "pair" here
  *) bm=BM_${pair}Pair ;;
esac
bench=$(cd "${BENCH_BUILD_DIR:-$build}" && pwd)/bench/vkleak_bench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
layer_env=()
if [ "$depth" = passthrough ]; then
  layer_env=(VK_LAYER_PATH="$build/manifest/build" VK_INSTANCE_LAYERS=VK_LAYER_VKLEAK_tracker
    VKLEAK_BENCH_PASSTHROUGH=1 VKLEAK_OUTPUT_DIR="$work/out")
elif [ "$depth" != none ]; then
  layer_env=(VK_LAYER_PATH="$build/manifest/build" VK_INSTANCE_LAYERS=VK_LAYER_VKLEAK_tracker
    VKLEAK_CALLSTACK_DEPTH="$depth" VKLEAK_OUTPUT_DIR="$work/out")
  while IFS= read -r setting; do
    case "$setting" in VKLEAK_CALLSTACK_DEPTH=* | VKLEAK_OUTPUT_DIR=*) ;; *) layer_env+=("$setting") ;; esac
  done < <(env | grep '^VKLEAK_' || true)
fi
count() {  # pairs -> "total layer_own"
  local out=$work/$1.cg
  env -i PATH="$PATH" HOME="$work" VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json \
    VK_LOADER_LAYERS_DISABLE=VK_LAYER_MESA_device_select XDG_DATA_HOME="$work/empty" \
    MESA_SHADER_CACHE_DISABLE=true "${layer_env[@]}" \
    valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect="*${bm}*" \
    "$bench" --benchmark_filter="${bm}/live:${live}" --live="$live" --pair-iterations="$1" \
    >/dev/null 2>&1
  local total own
  total=$(awk '/^totals:/ {print $2}' "$out")
  # Inlined layer code is named by its source file (layer/src/..., <build>/layer/generated/...)
  # without the library's name.
  own=$(callgrind_annotate --inclusive=no --auto=no --tree=none --threshold=100 "$out" 2>/dev/null |
        { grep -E "libVkLayer_vkleak|(^|[ /])layer/(src|generated)/|/layer/\.\./" || true; } |
        awk '{gsub(",", "", $1); s += $1} END {print s + 0}')
  if [ -n "${CALLGRIND_KEEP:-}" ]; then cp "$out" "$CALLGRIND_KEEP/"; fi
  echo "$total $own"
}
read -r t1 o1 < <(count 2000)
read -r t2 o2 < <(count 22000)
echo "depth=$depth pair=$(( (t2 - t1) / 20000 )) layer_own=$(( (o2 - o1) / 20000 ))"
if [ -n "${BREAKDOWN:-}" ]; then
  python3 "$(dirname "$0")/callgrind_breakdown.py" "$work/2000.cg" "$work/22000.cg" 20000
fi
