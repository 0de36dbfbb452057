#!/usr/bin/env bash
# The tests, from a fresh Debian 12 machine: install what is missing, build with warnings as
# errors, run the whole suite on lavapipe (scenarios, vkcube and glmark2 under Xvfb, the
# validation layer stacked with ours), the sanitizer builds included.
#   tools/test.sh [BUILD_DIR]
# In phases, each timed into BUILD_DIR/ci/phases.txt: deps, configure, build, ctest (the main
# tree's tests, longest first), sanitizers (the ASan/UBSan and TSan trees, each building only
# what it runs, then running it). Then the table of phase times and the 10 slowest tests, a
# WARNING line for each phase over its budget in tools/ci_budgets.txt (never a failure: a slow
# machine must not fail the suite; VKLEAK_ENFORCE_CI_BUDGETS=1 makes it one), and last the test
# ci.phase_budgets, alone: it fails when a phase failed. Ends with ctest's summary (of that last
# run; a failing phase fails it).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-test}
jobs=$(nproc)
ci="$PWD/$build/ci"
if [[ $build = /* ]]; then ci="$build/ci"; fi
rm -rf "$ci"
mkdir -p "$ci"

# phase NAME COMMAND...: runs COMMAND and appends "NAME SECONDS EXIT-STATUS" to phases.txt.
phase() {
  local name=$1 start end status=0
  shift
  start=$(date +%s.%N)
  "$@" || status=$?
  end=$(date +%s.%N)
  awk -v n="$name" -v s="$start" -v e="$end" -v r="$status" \
    'BEGIN { printf "%s %.1f %d\n", n, e - s, r }' >>"$ci/phases.txt"
  echo "vkleak: phase $name: $(tail -n1 "$ci/phases.txt" | cut -d' ' -f2) s" >&2
  return "$status"
}

# The tests and benchmarks are off in a user's build; the suite turns them on.
configure() {
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVKLEAK_WERROR=ON \
    -DVKLEAK_BUILD_TESTS=ON -DVKLEAK_BUILD_BENCH=ON -DVKLEAK_SANITIZER_BUILDS=ON >/dev/null
}

phase deps tools/deps.sh test
phase configure configure
phase build cmake --build "$build" -j"$jobs"
# A failing test phase does not stop the others (all failures show); ci.phase_budgets fails then.
# Each ctest run's full log is kept beside its JUnit file (the next run replaces LastTest.log).
phase ctest ctest --test-dir "$build" -LE '^(sanitizer|ci)$' --output-on-failure -j"$jobs" \
  --output-junit "$ci/junit-main.xml" || true
cp "$build/Testing/Temporary/LastTest.log" "$ci/LastTest-main.log"
phase sanitizers ctest --test-dir "$build" -L '^sanitizer$' --output-on-failure -j"$jobs" \
  --output-junit "$ci/junit-sanitizers.xml" || true
cp "$build/Testing/Temporary/LastTest.log" "$ci/LastTest-sanitizers.log"
echo
python3 tools/ci_phases.py report --dir "$ci" --budgets tools/ci_budgets.txt
echo
ctest --test-dir "$build" -L '^ci$' --output-on-failure
