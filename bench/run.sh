#!/usr/bin/env bash
# The benchmarks, side by side: builds what is needed, runs every benchmark and whole program under
# each layer configuration (interleaved, several rounds, medians) and writes bench/RESULTS.md.
#   bench/run.sh [--quick] [--build-dir DIR] [--no-build] [--out FILE] [--rounds N] ...
# All options are compare.py's (bench/compare.py --help).
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 bench/compare.py "$@"
