#!/usr/bin/env bash
# vernier suite beside the tools people use for the same operations: `perf
# bench syscall basic`, `perf bench sched pipe` (pipe round trips, on one CPU
# and free), `perf bench mem memcpy/memset` and cyclictest (wake-up latency of
# clock_nanosleep(TIMER_ABSTIME), 1 ms). Each side runs ROUNDS (5) times in
# turn; bench/suite_report.py prints the medians, our figure over theirs, the
# spread of each across the rounds, our 95% interval, and the time each took;
# then the whole default suite's wall time. OUT=DIR keeps the raw outputs.
# Needs linux-perf and rt-tests: scripts/install-deps --bench.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
scripts/install-deps --bench >/dev/null
cmake -S . -B "$BUILD" >/dev/null
cmake --build "$BUILD" --target vernier >/dev/null
exec "$BUILD/venv/bin/python" bench/suite_report.py "$BUILD/vernier"
