#!/usr/bin/env bash
# An old and a new layer build and no layer, interleaved (bench/ab_interleave.py), on a real GPU
# through the workplace's device tool: the machine's own speed varies by 30% between calls, so
# before and after are only compared within one run.
#   bench/gpu/ab_on_device.sh BEFORE_BUILD AFTER_BUILD DEB_DIR ROUNDS FILTER [vkleak_bench flags]
# Each build holds lib/libVkLayer_vkleak.so and manifest/build/VkLayer_vkleak.json; AFTER_BUILD
# also bench/vkleak_bench (the one program both layers run under). BEFORE_BUILD written
# passthrough:DIR runs that layer passing calls through only (the physical limit).
set -uo pipefail
prefix=""
case "$1" in passthrough:*) prefix=passthrough: ;; esac
before=$(realpath "${1#passthrough:}"); after=$(realpath "$2"); debs=$(realpath "$3"); rounds=$4
filter=$5
shift 5
build=$after
. "$(dirname "$0")/device_env.sh"  # loader, private libraries, ICD (VK_DRIVER_FILES)
for b in "$before" "$after"; do  # each manifest names its own library, wherever the tree landed
  sed -i "s|\"library_path\": \"[^\"]*\"|\"library_path\": \"$b/lib/libVkLayer_vkleak.so\"|" \
    "$b/manifest/build/VkLayer_vkleak.json"
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 "$(dirname "$0")/../ab_interleave.py" "$prefix$before" "$after" "$rounds" "$filter" "$@"
