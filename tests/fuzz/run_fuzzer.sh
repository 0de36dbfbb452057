#!/bin/sh
# Runs a libFuzzer target for SECONDS from a temporary copy of the seed corpus (the repository's
# corpus is never modified), and fails on any crash, leak, timeout or out-of-memory.
# Usage: run_fuzzer.sh FUZZER CORPUS_DIR DICT SECONDS
set -eu
fuzzer=$1 corpus=$2 dict=$3 seconds=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/vkleak-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus" "$work/artifacts"
cp "$corpus"/* "$work/corpus/"
status=0
"$fuzzer" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=1024 -max_len=16384 \
  -dict="$dict" -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
  "$work/corpus" || status=$?
for f in "$work"/artifacts/*; do
  [ -e "$f" ] || continue
  # Keep the input that failed where a person can find it, and show it.
  keep=${TMPDIR:-/tmp}/vkleak-fuzz-$(basename "$f")
  cp "$f" "$keep"
  echo "fuzz: failing input kept as $keep ($(wc -c <"$f") bytes):" >&2
  head -c 2048 "$f" | od -c | head -40 >&2
  status=1
done
exit "$status"
