#!/usr/bin/env bash
# `vernier run` against `hyperfine -N`, in one run, taking turns: `true`,
# `sleep 0.05`, `sleep 0` (the start-up that `sleep 0.05` pays on top of its
# 50 ms) and a CPU-bound shell loop. Each tool with its defaults (at least 10
# runs and 3 s), over ROUNDS rounds; the tool that goes first alternates from
# round to round. Reports each tool's median of its medians, and the median
# of the per-round ratios: both tools measure a command within seconds of
# each other in a round, so the machine's slow swings cancel in that ratio.
# Needs hyperfine: scripts/install-deps --bench.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
ROUNDS=${ROUNDS:-5}
scripts/install-deps --bench >/dev/null
cmake --build "$BUILD" --target vernier >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
loop="sh -c 'i=0; while [ \$i -lt 100000 ]; do i=\$((i+1)); done'"
# Each command in its own invocation of each tool, so both run it back to
# back: interleaving, which vernier does with several commands, would put
# each `true` after a sleep or a busy loop, and measure that too.
for r in $(seq "$ROUNDS"); do
    i=0
    for cmd in true 'sleep 0.05' 'sleep 0' "$loop"; do
        i=$((i + 1))
        v() { "$BUILD/vernier" run --warmup 3 --export-hyperfine "$out/vernier-$r-$i.json" "$cmd" >/dev/null 2>&1; }
        h() { hyperfine -N --warmup 3 --export-json "$out/hyperfine-$r-$i.json" "$cmd" >/dev/null 2>&1; }
        if [ $((r % 2)) = 1 ]; then v; h; else h; v; fi
    done
done
"$BUILD/venv/bin/python" - "$out" "$ROUNDS" <<'PY'
import json, statistics, sys
from pathlib import Path
out, rounds = Path(sys.argv[1]), int(sys.argv[2])
def medians(tool):
    m = {}
    for r in range(1, rounds + 1):
        for f in sorted(out.glob(f"{tool}-{r}-*.json")):
            for x in json.loads(f.read_text())["results"]:
                m.setdefault(x["command"][:20], []).append(x["median"] * 1e3)
    return m
v, h = medians("vernier"), medians("hyperfine")
print(f"{'command':<22} {'vernier run':>12} {'hyperfine -N':>13} {'ratio':>7} {'ratio per round':>16}")
for k in v:
    per = sorted(a / b for a, b in zip(v[k], h[k]))
    vm, hm = statistics.median(v[k]), statistics.median(h[k])
    print(f"{k:<22} {vm:>12.3f} {hm:>13.3f} {vm / hm:>7.3f} {statistics.median(per):>8.3f}"
          f" ({per[0]:.3f} .. {per[-1]:.3f})")
print(f"(medians in ms over {rounds} rounds; ratio = vernier / hyperfine)")
PY
