#!/usr/bin/env bash
# How long vernier compare takes on large files: hyperfine JSON files of N
# runs a side (default 10000, and 2.2 million, about 50 MB each), made with
# a fixed seed, compared RUNS (3) times; the median wall time of each. With
# BEFORE=DIR (an earlier build), its vernier takes turns with this one's on
# the smaller pair (the larger one it may not finish).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${RUNS:-3}
PY=${PY:-build/venv/bin/python}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make_pair() {
    "$PY" - "$1" "$tmp/$2" <<'PYEOF'
import json, random, sys
n, base = int(sys.argv[1]), sys.argv[2]
rng = random.Random(7)
a = [rng.lognormvariate(-6, 0.3) for _ in range(n)]
for side, scale in (("a", 1.0), ("b", 1.01)):
    with open(f"{base}_{side}.json", "w") as f:
        json.dump({"results": [{"command": "x", "times": [t * scale for t in a]}]}, f)
PYEOF
}
secs() {
    local s e
    s=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    e=$(date +%s%N)
    echo $(( (e - s) / 1000000 ))
}
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)] / 1000}'; }
for n in 10000 2200000; do
    make_pair "$n" "p$n"
    size=$(du -m "$tmp/p${n}_a.json" | cut -f1)
    now=() before=()
    for i in $(seq "$RUNS"); do
        now+=("$(secs "$BUILD/vernier" compare "$tmp/p${n}_a.json" "$tmp/p${n}_b.json")")
        if [ -n "${BEFORE:-}" ] && [ "$n" -le 100000 ]; then
            before+=("$(secs "$BEFORE/vernier" compare "$tmp/p${n}_a.json" "$tmp/p${n}_b.json")")
        fi
    done
    line="$n runs a side (${size} MB a file): $(printf '%s\n' "${now[@]}" | median) s"
    if [ ${#before[@]} -gt 0 ]; then
        line="$line (before $(printf '%s\n' "${before[@]}" | median) s)"
    fi
    echo "$line"
done
