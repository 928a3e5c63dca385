#!/usr/bin/env bash
# Measures `vernier clocks` itself: how long the whole command takes (goal:
# under 1 s) and how good the TSC calibration is (goal: within 0.05% in well
# under 100 ms). Medians, because this may be a shared, noisy machine.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${RUNS:-11}
cmake --build "$BUILD" --target vernier bench_calibration >/dev/null

times=()
for _ in $(seq "$RUNS"); do
    s=$(date +%s%N)
    "$BUILD/vernier" clocks >/dev/null
    e=$(date +%s%N)
    times+=($(( (e - s) / 1000 )))
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
med=$(echo "$sorted" | sed -n "$(( (RUNS + 1) / 2 ))p")
max=$(echo "$sorted" | tail -n 1)
awk -v n="$RUNS" -v med="$med" -v max="$max" 'BEGIN {
    printf "vernier clocks: %d runs, median %.1f ms, max %.1f ms (goal: under 1000 ms)\n", n, med / 1000, max / 1000 }'

"$BUILD/bench/bench_calibration" || status=$?
exit "${status:-0}"
