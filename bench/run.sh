#!/usr/bin/env bash
# `vernier run` against `hyperfine -N`, in one run, taking turns: `true`,
# `sleep 0.05` and a CPU-bound shell loop. Reports each tool's median (the
# median of its medians over ROUNDS rounds) and the ratios.
# Needs hyperfine: scripts/install-deps --bench.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
ROUNDS=${ROUNDS:-3}
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
    for cmd in true 'sleep 0.05' "$loop"; do
        i=$((i + 1))
        "$BUILD/vernier" run --warmup 3 --export-hyperfine "$out/vernier-$r-$i.json" "$cmd" >/dev/null 2>&1
        hyperfine -N --warmup 3 --export-json "$out/hyperfine-$r-$i.json" "$cmd" >/dev/null 2>&1
    done
done
"$BUILD/venv/bin/python" - "$out" "$ROUNDS" <<'PY'
import json, statistics, sys
from pathlib import Path
out, rounds = Path(sys.argv[1]), int(sys.argv[2])
def medians(tool):
    m = {}
    for f in sorted(out.glob(f"{tool}-*.json")):
        for x in json.loads(f.read_text())["results"]:
            m.setdefault(x["command"][:20], []).append(x["median"] * 1e3)
    return {k: statistics.median(v) for k, v in m.items()}
v, h = medians("vernier"), medians("hyperfine")
print(f"{'command':<22} {'vernier run':>12} {'hyperfine -N':>13} {'ratio':>7}   (medians in ms, {rounds} rounds)")
for k in v:
    print(f"{k:<22} {v[k]:>12.3f} {h[k]:>13.3f} {v[k] / h[k]:>7.3f}")
PY
