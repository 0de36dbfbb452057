#!/usr/bin/env bash
# The tests, from a fresh Debian 12 machine: install what is missing, build with warnings as
# errors, run the whole suite on lavapipe (scenarios, vkcube and glmark2 under Xvfb, the
# validation layer stacked with ours), the sanitizer builds included. Ends with ctest's summary.
#   tools/test.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-test}
jobs=$(nproc)

tools/deps.sh test
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVKLEAK_WERROR=ON \
  -DVKLEAK_SANITIZER_BUILDS=ON >/dev/null
cmake --build "$build" -j"$jobs"
ctest --test-dir "$build" --output-on-failure -j"$jobs"
