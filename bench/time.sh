#!/usr/bin/env bash
# How long a default run takes, whole programs timed from outside: the six
# benchmarks of bench/workloads.c (chains of 100, 1000 and 10000 adds,
# x += x, a 10 ms sleep, random work) and the trio of x += x, the sleep and
# the random work, RUNS (11) times each, on the machine as it is and again
# with `stress-ng --cpu 1` on another CPU (the programs pinned to CPU).
# With BEFORE=DIR (a build of an earlier version, its bench_workloads under
# DIR/bench), that build's programs take turns with this one's, run by run,
# so both meet the same machine, and the ratio of the medians is printed.
# With ALT="OPTIONS" (a policy to try, say), this build run with OPTIONS
# takes turns with it too, and its ratio to the plain run is printed.
# The trio is timed the same way, in the same turns, as Google Benchmark's
# users would write it (bench/gbench_workloads.cc, built where
# libbenchmark-dev is installed) and, with NANOBENCH_H=PATH/nanobench.h
# (nanobench is one header, not packaged by Debian), as nanobench's
# (bench/nanobench_workloads.cc); each at its defaults, with its ratio to
# vernier's trio.
# BUILD=DIR takes this version from DIR (default build); CONDITIONS picks
# "quiet", "stress" or both. Needs stress-ng: scripts/install-deps --bench.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${RUNS:-11}
CONDITIONS=${CONDITIONS:-quiet stress}
ALT=${ALT:-}
scripts/install-deps --bench >/dev/null
if [ -f "$BUILD/build.ninja" ]; then
    cmake --build "$BUILD" --target bench_workloads >/dev/null
    cmake --build "$BUILD" --target bench_gbench >/dev/null 2>&1 || true
fi
PY=${PY:-build/venv/bin/python}
. bench/conditions.sh
bench_cpus "$PY"
bench_out
gbench=$BUILD/bench/bench_gbench
[ -x "$gbench" ] || gbench=
nanobench=
if [ -n "${NANOBENCH_H:-}" ]; then
    nanobench=$out/nanobench_trio
    c++ -O2 -std=c++17 -I "$(dirname "$NANOBENCH_H")" bench/nanobench_workloads.cc \
        -o "$nanobench"
fi

# One run's wall time in ms (vernier's programs quiet; RAW=1: as given).
ms() {
    local s e quiet=--quiet
    [ -n "${RAW:-}" ] && quiet=
    s=$(date +%s%N)
    taskset -c "$CPU" "$@" $quiet >/dev/null 2>&1 || true
    e=$(date +%s%N)
    echo $(( (e - s) / 1000000 ))
}

median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)] / 1000}'; }

trio='x_plus_x|sleep_10ms|random_work'
echo "CPU $CPU, stress on CPU ${STRESS_CPU:-none}, $RUNS runs each; median wall seconds"
for cond in $CONDITIONS; do
    bench_condition "$cond"
    six_now=() six_before=() trio_now=() trio_before=() six_alt=() trio_alt=()
    trio_gb=() trio_nb=()
    for i in $(seq "$RUNS"); do
        six_now+=("$(ms "$BUILD/bench/bench_workloads")")
        trio_now+=("$(ms "$BUILD/bench/bench_workloads" --filter "$trio")")
        if [ -n "${BEFORE:-}" ]; then
            six_before+=("$(ms "$BEFORE/bench/bench_workloads")")
            trio_before+=("$(ms "$BEFORE/bench/bench_workloads" --filter "$trio")")
        fi
        if [ -n "$ALT" ]; then
            # shellcheck disable=SC2086
            six_alt+=("$(ms "$BUILD/bench/bench_workloads" $ALT)")
            # shellcheck disable=SC2086
            trio_alt+=("$(ms "$BUILD/bench/bench_workloads" --filter "$trio" $ALT)")
        fi
        [ -z "$gbench" ] || trio_gb+=("$(RAW=1 ms "$gbench")")
        [ -z "$nanobench" ] || trio_nb+=("$(RAW=1 ms "$nanobench")")
    done
    a=$(printf '%s\n' "${six_now[@]}" | median)
    b=$(printf '%s\n' "${trio_now[@]}" | median)
    if [ -n "${BEFORE:-}" ]; then
        c=$(printf '%s\n' "${six_before[@]}" | median)
        d=$(printf '%s\n' "${trio_before[@]}" | median)
        awk -v cond="$cond" -v a="$a" -v b="$b" -v c="$c" -v d="$d" 'BEGIN {
            printf "%-6s six: %.3f s (before %.3f s, ratio %.2f)   trio: %.3f s (before %.3f s, ratio %.2f)\n",
                   cond, a, c, a / c, b, d, b / d }' 
    else
        printf '%-6s six: %.3f s   trio: %.3f s\n' "$cond" "$a" "$b"
    fi
    if [ -n "$ALT" ]; then
        e=$(printf '%s\n' "${six_alt[@]}" | median)
        f=$(printf '%s\n' "${trio_alt[@]}" | median)
        awk -v cond="$cond" -v a="$a" -v b="$b" -v e="$e" -v f="$f" 'BEGIN {
            printf "%-6s with ALT, six: %.3f s (ratio %.2f)   trio: %.3f s (ratio %.2f)\n",
                   cond, e, e / a, f, f / b }'
    fi
    for tool in "Google Benchmark" nanobench; do
        if [ "$tool" = nanobench ]; then t=("${trio_nb[@]}"); else t=("${trio_gb[@]}"); fi
        [ "${#t[@]}" -gt 0 ] || continue
        g=$(printf '%s\n' "${t[@]}" | median)
        awk -v cond="$cond" -v tool="$tool" -v b="$b" -v g="$g" 'BEGIN {
            printf "%-6s trio in %s: %.3f s (vernier %.2fx it)\n", cond, tool, g, b / g }'
    done
    bench_quiet
done
