#!/usr/bin/env bash
# The in-process engine against Google Benchmark, on this machine, in one run:
# x += x, a 10 ms sleep and random amounts of work, each tool run as 5
# separate processes. Reports the spread of each headline across the runs
# (max/min), the wall time of a whole run, the loop's own cost in reference
# cycles, and the ratio of a 1000-add chain to a 100-add chain.
# Needs Google Benchmark: scripts/install-deps --bench.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${RUNS:-5}
scripts/install-deps --bench >/dev/null
cmake -S . -B "$BUILD" >/dev/null
cmake --build "$BUILD" --target bench_workloads bench_gbench >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

three='^(x_plus_x|sleep_10ms|random_work)$'
for i in $(seq "$RUNS"); do
    s=$(date +%s%N)
    "$BUILD/bench/bench_workloads" --quiet --filter "$three" --json "$out/vernier-$i.json" >/dev/null
    e=$(date +%s%N)
    echo $(( (e - s) / 1000 )) > "$out/vernier-$i.us"
    s=$(date +%s%N)
    "$BUILD/bench/bench_gbench" --benchmark_format=json --benchmark_out="$out/gbench-$i.json" \
        --benchmark_out_format=json >/dev/null 2>&1
    e=$(date +%s%N)
    echo $(( (e - s) / 1000 )) > "$out/gbench-$i.us"
    "$BUILD/bench/bench_workloads" --quiet --filter '^chain' --json "$out/chain-$i.json" >/dev/null
done
"$BUILD/venv/bin/python" bench/engine_report.py "$out" "$RUNS"
