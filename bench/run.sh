#!/usr/bin/env bash
# `vernier run` against `hyperfine -N`, in one run, taking turns: `true`,
# `sleep 0.05`, `sleep 0` (the start-up that `sleep 0.05` pays on top of its
# 50 ms) and a CPU-bound shell loop. The host's speed swings by 20% within
# seconds here, so both tools run each command the same number of times in
# short rounds (ROUNDS of them), taking turns, the tool that goes first
# alternating from round to round. Reports, per tool, the median of all its
# runs pooled over the rounds, and the median of the per-round ratios; both
# tools met the same swings, so the ratios compare the tools. In each round
# both tools, and so the commands, are pinned to the same CPU, round r to CPU
# (r-1) mod nproc: on a VM one vCPU may run at two thirds of the other's
# speed (a busy neighbour on the host), and unpinned, where the scheduler
# happens to put each tool's child would decide the CPU-bound loop's ratio.
# Needs hyperfine: scripts/install-deps --bench.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
ROUNDS=${ROUNDS:-20}
scripts/install-deps --bench >/dev/null
cmake --build "$BUILD" --target vernier >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
loop="sh -c 'i=0; while [ \$i -lt 100000 ]; do i=\$((i+1)); done'"
# vernier holds /dev/cpu_dma_latency at 0 while it runs (when root); it also
# runs once more with --dma-latency off, so the table shows what that does.
# Each command in its own invocation of each tool, so both run it back to
# back: interleaving, which vernier does with several commands, would put
# each `true` after a sleep or a busy loop, and measure that too.
# Runs per round: about 0.1 s of `true`, 0.5 to 1 s of the others: the host's
# slow spells last seconds, and short rounds put both tools in the same one.
ncpu=$(nproc)
for r in $(seq "$ROUNDS"); do
    i=0
    cpu=$(( (r - 1) % ncpu ))
    for spec in "150 true" "10 sleep 0.05" "150 sleep 0" "10 $loop"; do
        n=${spec%% *} cmd=${spec#* }
        i=$((i + 1))
        v() { taskset -c "$cpu" "$BUILD/vernier" run --warmup 3 --runs "$n" --export-hyperfine "$out/vernier-$r-$i.json" "$cmd" >/dev/null 2>&1; }
        h() { taskset -c "$cpu" hyperfine -N --warmup 3 --runs "$n" --export-json "$out/hyperfine-$r-$i.json" "$cmd" >/dev/null 2>&1; }
        # vernier once more with the idle states left alone, as hyperfine
        # leaves them, to show what holding /dev/cpu_dma_latency changes.
        vi() { taskset -c "$cpu" "$BUILD/vernier" run --dma-latency off --warmup 3 --runs "$n" --export-hyperfine "$out/idle-$r-$i.json" "$cmd" >/dev/null 2>&1; }
        # And without the memory cgroup that measures the tree's peak.
        vt() { taskset -c "$cpu" "$BUILD/vernier" run --no-tree-peak --warmup 3 --runs "$n" --export-hyperfine "$out/notree-$r-$i.json" "$cmd" >/dev/null 2>&1; }
        if [ $((r % 2)) = 1 ]; then v; h; vi; vt; else vt; vi; h; v; fi
    done
done
"$BUILD/venv/bin/python" - "$out" "$ROUNDS" <<'PY'
import json, statistics, sys
from pathlib import Path
out, rounds = Path(sys.argv[1]), int(sys.argv[2])
def load(tool):
    """command -> ([median of each round], [every run of every round])"""
    m = {}
    for r in range(1, rounds + 1):
        for f in sorted(out.glob(f"{tool}-{r}-*.json")):
            for x in json.loads(f.read_text())["results"]:
                med, runs = m.setdefault(x["command"][:20], ([], []))
                med.append(x["median"] * 1e3)
                runs.extend(t * 1e3 for t in x["times"])
    return m
v, h, vi, vt = load("vernier"), load("hyperfine"), load("idle"), load("notree")
print(f"{'command':<22} {'tool':<26} {'median':>9} {'ratio':>7}   {'ratio per round: median (range)'}")
for k in v:
    hm = statistics.median(h[k][1])
    print(f"{k:<22} {'hyperfine -N':<26} {hm:>9.3f}")
    for name, t in (("vernier run", v), ("vernier run, idle allowed", vi),
                    ("vernier run, no tree peak", vt)):
        per = sorted(a / b for a, b in zip(t[k][0], h[k][0]))
        m = statistics.median(t[k][1])
        print(f"{'':<22} {name:<26} {m:>9.3f} {m / hm:>7.3f}   {statistics.median(per):.3f}"
              f" ({per[0]:.3f} .. {per[-1]:.3f})")
print(f"(medians in ms of all runs over {rounds} rounds; ratio = vernier / hyperfine;")
print(" 'idle allowed' is vernier run --dma-latency off: the CPUs' idle states left as they are,")
print(" as hyperfine leaves them; 'no tree peak' is vernier run --no-tree-peak)")
PY
