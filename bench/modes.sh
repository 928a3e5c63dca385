#!/usr/bin/env bash
# Measures the mode test (vn_modes_sorted, Silverman's critical-bandwidth
# test): its detection rate on planted two-normal mixtures and its false
# alarm rate on normal and lognormal samples, as Markdown tables for
# bench/RESULTS.md. Usage: bench/modes.sh [TRIALS [CV]] (defaults 200, 0.04).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
cmake --build "$BUILD" --target bench_modes >/dev/null
echo "# $(date -u +%Y-%m-%d), $(uname -m), $(nproc) CPUs"
"$BUILD/bench/bench_modes" "${1:-200}" "${2:-0.04}"
