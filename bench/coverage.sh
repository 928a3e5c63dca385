#!/usr/bin/env bash
# Does one run's interval keep its promise about the next run? The
# workloads of bench/coverage_workloads.c (chains of adds and of divisions,
# a random table walk, an 8 MiB pointer chase, the demo's two loops, x += x,
# a 1 ms sleep) run RUNS (41) times back to back, each a fresh invocation
# with all defaults, on the machine as it is and again with
# `stress-ng --cpu 1` on another CPU. bench/coverage_report.py then prints
# per workload and condition:
#   - the spread of the headlines across runs (max / min, in the headline's unit),
#   - the mean half-width of one run's 95% interval ("half"), beside the
#     width one fixed interval about every run would need to hold the next
#     run's headline 95% of the time ("needs": the 95th percentile of how
#     far apart the pairs are) and the half-range of the headlines plus the
#     precision asked ("limit"),
#   - coverage: how often run i's interval holds run i+1's headline (and
#     the reverse): about 95% when the printed interval (the next run's)
#     is right; "same", over pairs of runs in one core state; "est", with
#     the estimate's own interval, which holds another estimate of one
#     value about 83% of the time,
#   - false alarms: `vernier compare --fail-on-regression` of run i against
#     run i+1 (RUNS - 1 tries) that calls the workload slower,
#   - power: the same comparison of run i against a run of the same binary
#     with a planted slowdown of 3% and of 10% in the chains
#     (VN_COVERAGE_SLOWER), run as run i was (every workload, so it spans as
#     much of the machine's time as the run it is compared with), the share
#     that finds it (a pair compare
#     declined because the core states differed is a try that found
#     nothing, in false alarms and power alike),
#   - a line for each condition with the goals (mean coverage at least 80%,
#     each workload's at least 65%, no half-width over its limit; false
#     alarms in at most 5% of the tries; on the chains, a planted 10% found
#     in 95% of them and 3% in 50%, their spread at most 1.03 in cycles),
#     and a line for each workload wider than its limit or missing another,
#   - and, a line for each condition (bench/core_state.py), how many runs
#     ran on a shared core throughout, and whether `x += x` read slow with
#     a `shared_core` finding or without one.
# Every process of a condition is pinned (taskset) to CPU (default: the last
# one), stress-ng to STRESS_CPU (default: the first other one).
# BUILD=DIR takes the tool and bench_coverage from DIR (default build);
# CONDITIONS="quiet stress" picks either; ARGS adds options to every run;
# SLOW_ARGS adds options to the slowed runs only (`--filter chain` gives the
# quicker runs of the sets before 2026-12-02: the chains alone, a tenth as
# long as the run they are compared with, and so more often in one state of
# the core throughout);
# OUT=DIR keeps the JSON files (bench/coverage_report.py DIR prints again).
# ALT="OPTIONS" also runs the workloads with OPTIONS after each plain run,
# taking turns with it, and reports them as the condition "COND+alt" (no
# planted slowdowns): an A/B of a rule under one machine's changing state.
# ALT_BUILD=DIR runs that arm with DIR's bench_coverage (a build of another
# version, say), with ALT's options if any: an A/B of two builds.
# ALT_SLOW=1 gives that arm its own planted slowdowns too (a set then takes
# about twice as long): power, A/B.
# Needs stress-ng: scripts/install-deps --bench.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${RUNS:-41}
CONDITIONS=${CONDITIONS:-quiet stress}
ARGS=${ARGS:-}
ALT=${ALT:-}
ALT_BUILD=${ALT_BUILD:-}
ALT_SLOW=${ALT_SLOW:-}
SLOW_ARGS=${SLOW_ARGS:-}
alt_prog="${ALT_BUILD:-$BUILD}/bench/bench_coverage"
scripts/install-deps --bench >/dev/null
if [ -f "$BUILD/build.ninja" ]; then
    cmake --build "$BUILD" --target bench_coverage vernier >/dev/null
fi
PY=${PY:-build/venv/bin/python}
. bench/conditions.sh
bench_cpus "$PY"
bench_out
prog="$BUILD/bench/bench_coverage"
tool="$BUILD/vernier"
echo "$CPU" > "$out/cpu"
"$tool" env 2>/dev/null | grep -m1 "model" > "$out/machine" || true
echo "measuring on CPU $CPU; stress on CPU ${STRESS_CPU:-none}; $RUNS runs per condition"

# One invocation: its JSON, and its wall time in seconds.
run() {
    local f=$1; shift
    local s e
    s=$(date +%s%N)
    # shellcheck disable=SC2086
    taskset -c "$CPU" "$@" --quiet --json "$f.json" $ARGS >/dev/null
    e=$(date +%s%N)
    echo "$(( (e - s) / 1000000 ))" > "$f.ms"
}

for cond in $CONDITIONS; do
    bench_condition "$cond"
    # The slowed runs take turns with the plain ones, so each pair of runs
    # compared was taken back to back.
    for i in $(seq "$RUNS"); do
        run "$out/$cond-base-$i" "$prog"
        if [ -n "$ALT$ALT_BUILD" ]; then
            # shellcheck disable=SC2086
            run "$out/$cond+alt-base-$i" "$alt_prog" $ALT
        fi
        if [ "$i" -lt "$RUNS" ]; then
            # shellcheck disable=SC2086
            VN_COVERAGE_SLOWER=3 run "$out/$cond-slow3-$i" "$prog" $SLOW_ARGS
            # shellcheck disable=SC2086
            VN_COVERAGE_SLOWER=10 run "$out/$cond-slow10-$i" "$prog" $SLOW_ARGS
            if [ -n "$ALT_SLOW" ] && [ -n "$ALT$ALT_BUILD" ]; then
                for pct in 3 10; do
                    # shellcheck disable=SC2086
                    VN_COVERAGE_SLOWER=$pct run "$out/$cond+alt-slow$pct-$i" "$alt_prog" $ALT $SLOW_ARGS
                done
            fi
        fi
        printf '\r%s: %d of %d runs' "$cond" "$i" "$RUNS" >&2
    done
    echo >&2
    # Comparisons: run i against run i+1 (false alarms), and against the
    # slowed runs taken right after it (power).
    for i in $(seq $((RUNS - 1))); do
        for kind in base slow3 slow10; do
            if [ "$kind" = base ]; then new="$out/$cond-base-$((i + 1))"; else new="$out/$cond-$kind-$i"; fi
            "$tool" compare --fail-on-regression --json "$out/$cond-cmp-$kind-$i.json" \
                "$out/$cond-base-$i.json" "$new.json" >/dev/null 2>&1 || true
        done
        if [ -n "$ALT$ALT_BUILD" ]; then
            for kind in base slow3 slow10; do
                if [ "$kind" = base ]; then
                    new="$out/$cond+alt-base-$((i + 1))"
                else
                    new="$out/$cond+alt-$kind-$i"
                    [ -f "$new.json" ] || continue
                fi
                "$tool" compare --fail-on-regression --json "$out/$cond+alt-cmp-$kind-$i.json" \
                    "$out/$cond+alt-base-$i.json" "$new.json" >/dev/null 2>&1 || true
            done
        fi
    done
    bench_quiet
done
"$PY" bench/coverage_report.py "$out"
