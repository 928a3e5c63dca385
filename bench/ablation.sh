#!/usr/bin/env bash
# What each rule of the engine buys: the workloads of bench/ablation.c
# (x += x, chains of 100 and 1000 dependent adds, a qsort of 1000 ints, a pointer
# chase over 256 KiB, a 1 ms sleep) as RUNS (5) separate processes pinned to
# one CPU, with all defaults and then with each rule switched off in turn
# (--policy), on the machine as it is and again with `stress-ng --cpu 1`
# pinned to another CPU; and the same workloads through Google Benchmark run
# the same way. Prints, per rule and condition, each workload's spread
# across the processes (max/min of the headline, in ns and in reference
# cycles), the wall time per process, the samples behind the headline and
# the chain ratio, against the goals: spread <= 1.03x in cycles and <= 1.05x
# in ns, chain ratio 10.0 +-2%, headline on >= 20 samples. Then the time
# goal: bench/workloads' x += x, 10 ms sleep and random work (all defaults)
# take under 1 s of wall time together, median of RUNS processes.
# MAX_TIME (0.5 s) is each workload's budget, shorter than the default 1 s
# so that a whole run of both conditions stays within about 10 minutes.
# CPU=N measures on CPU N (default: the last CPU), STRESS_CPU=M stresses M
# (default: the first other one); CONDITIONS="quiet stress" picks either;
# OUT=DIR keeps the JSON files (bench/ablation_report.py DIR prints again).
# Needs Google Benchmark and stress-ng: scripts/install-deps --bench.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${RUNS:-5}
MAX_TIME=${MAX_TIME:-0.5}
CONDITIONS=${CONDITIONS:-quiet stress}
scripts/install-deps --bench >/dev/null
cmake -S . -B "$BUILD" >/dev/null
cmake --build "$BUILD" --target bench_ablation bench_gbench_ablation bench_workloads >/dev/null
. bench/conditions.sh
bench_cpus "$BUILD/venv/bin/python"
bench_out

# name and --policy value of each variant: all defaults, then one rule off.
variants=(
    "defaults="
    "shared_ratio=inf"
    "shared_slower=inf"
    "shared_evidence=inf"
    "empty_matched=0"
    "indistinct_share=0"
    "fastest_agree=1"
    "min_untagged=inf"
)
printf '%s\n' "${variants[@]}" > "$out/variants"
echo "$CPU" > "$out/cpu"
"$BUILD/vernier" env 2>/dev/null | grep -m1 "model" > "$out/machine" || true
echo "measuring on CPU $CPU; stress on CPU ${STRESS_CPU:-none}; --max-time $MAX_TIME; $RUNS processes each"

for cond in $CONDITIONS; do
    bench_condition "$cond"
    # The variants take turns within each round, so a change of the
    # machine's mood over minutes falls on all of them alike.
    for i in $(seq "$RUNS"); do
        for v in "${variants[@]}"; do
            name=${v%%=*}
            pol=$v
            [ "$name" = defaults ] && pol=
            f="$out/$cond-$name-$i"
            s=$(date +%s%N)
            taskset -c "$CPU" "$BUILD/bench/bench_ablation" --quiet --max-time "$MAX_TIME" \
                ${pol:+--policy "$pol"} --json "$f.json" >/dev/null
            e=$(date +%s%N)
            echo $(( (e - s) / 1000 )) > "$f.us"
        done
        f="$out/$cond-gbench-$i"
        s=$(date +%s%N)
        taskset -c "$CPU" "$BUILD/bench/bench_gbench_ablation" --benchmark_out="$f.json" \
            --benchmark_out_format=json >/dev/null 2>&1
        e=$(date +%s%N)
        echo $(( (e - s) / 1000 )) > "$f.us"
        echo "$cond: round $i of $RUNS done" >&2
    done
    # The time goal: bench/workloads' three (x += x, a 10 ms sleep, random
    # work) with every default, the budget included, under 1 s together.
    for i in $(seq "$RUNS"); do
        s=$(date +%s%N)
        taskset -c "$CPU" "$BUILD/bench/bench_workloads" --quiet --filter '^(x_plus_x|sleep_10ms|random_work)$' \
            --json "$out/$cond-three-$i.json" >/dev/null
        e=$(date +%s%N)
        echo $(( (e - s) / 1000 )) > "$out/$cond-three-$i.us"
    done
    bench_quiet
done
"$BUILD/venv/bin/python" bench/ablation_report.py "$out" "$RUNS" $CONDITIONS
