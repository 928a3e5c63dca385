#!/usr/bin/env bash
# The in-process engine against Google Benchmark, on this machine, in one run:
# x += x, a 10 ms sleep and random amounts of work, each tool run as 5
# separate processes, all on the same CPU. Reports the spread of each
# headline across the runs (max/min), the wall time of a whole run, the
# loop's own cost in reference cycles, and the ratio of a 1000-add chain to a
# 100-add chain, with the two rows taking turns (the default) and one after
# the other.
# Needs Google Benchmark: scripts/install-deps --bench.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${RUNS:-5}
scripts/install-deps --bench >/dev/null
cmake -S . -B "$BUILD" >/dev/null
cmake --build "$BUILD" --target bench_workloads bench_gbench >/dev/null
# OUT=DIR keeps every JSON file there (bench/engine_report.py DIR RUNS
# prints the summary again); by default they go with the script.
if [ -n "${OUT:-}" ]; then
    out=$OUT
    mkdir -p "$out"
else
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi

# Every process of both tools runs on one CPU. On a VM the host may give one
# vCPU a busy neighbour for minutes (a loop of one taken branch per cycle
# then takes 1.07 to 1.10 reference cycles on it and 1.00 on the other), and
# where each process happened to land would decide the spread. The CPU is
# CPU=N, or else the one whose empty loop costs the fewest reference cycles
# in a short probe now.
if [ -z "${CPU:-}" ]; then
    best=
    for c in $("$BUILD/venv/bin/python" -c 'import os; print(*sorted(os.sched_getaffinity(0)))'); do
        "$BUILD/bench/bench_workloads" --quiet --cpu "$c" --max-time 0.2 --filter '^x_plus_x$' \
            --json "$out/probe-$c.json" >/dev/null
        cost=$("$BUILD/venv/bin/python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["benchmarks"][0]["overhead"]["cycles"])' "$out/probe-$c.json")
        echo "probe: CPU $c, empty loop $cost reference cycles per iteration"
        if [ -z "$best" ] || awk -v a="$cost" -v b="$bestcost" 'BEGIN{exit !(a<b)}'; then
            best=$c bestcost=$cost
        fi
    done
    CPU=$best
fi
echo "every process runs on CPU $CPU"

three='^(x_plus_x|sleep_10ms|random_work)$'
for i in $(seq "$RUNS"); do
    s=$(date +%s%N)
    taskset -c "$CPU" "$BUILD/bench/bench_workloads" --quiet --filter "$three" --json "$out/vernier-$i.json" >/dev/null
    e=$(date +%s%N)
    echo $(( (e - s) / 1000 )) > "$out/vernier-$i.us"
    s=$(date +%s%N)
    taskset -c "$CPU" "$BUILD/bench/bench_gbench" --benchmark_format=json --benchmark_out="$out/gbench-$i.json" \
        --benchmark_out_format=json >/dev/null 2>&1
    e=$(date +%s%N)
    echo $(( (e - s) / 1000 )) > "$out/gbench-$i.us"
    taskset -c "$CPU" "$BUILD/bench/bench_workloads" --quiet --filter '^chain' --json "$out/chain-$i.json" >/dev/null
    taskset -c "$CPU" "$BUILD/bench/bench_workloads" --quiet --filter '^chain' --no-interleave \
        --json "$out/chain-apart-$i.json" >/dev/null
done
"$BUILD/venv/bin/python" bench/engine_report.py "$out" "$RUNS"
