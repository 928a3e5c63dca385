#!/usr/bin/env bash
# How long vernier history takes on a long series: a store of N (10000)
# results of one benchmark, made by vernier store add for the first and
# by SQL for the rest (the same rows store add writes: a run, a result, 3
# units; 2% noise and a 5% step at the middle), then, each the median of
# 5 runs: `history` (the last 20), `history --last 0 --json`, `history
# --last 0 --report` (the page, drawn by gnuplot), `history check --last
# 0` and `history check --last 0 --report`.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
N=${N:-10000}
tool=$PWD/$BUILD/vernier
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/one.json" <<'JSON'
{"results": [{"command": "x", "mean": 0.001, "stddev": 0, "median": 0.001, "user": 0,
 "system": 0, "min": 0.001, "max": 0.001, "times": [0.001, 0.001, 0.001]}]}
JSON
"$tool" store add --store "$tmp/s.db" --time 1764000000 "$tmp/one.json" > /dev/null
"$BUILD/venv/bin/python" - "$tmp/s.db" "$N" <<'PY'
import random, sqlite3, sys, uuid
db, n = sys.argv[1], int(sys.argv[2])
c = sqlite3.connect(db)
(machine,) = c.execute("SELECT machine FROM runs").fetchone()
rng = random.Random(1)
with c:
    for i in range(1, n):
        v = 1e6 * (1.05 if i >= n // 2 else 1) * (1 + 0.02 * rng.gauss(0, 1))
        run = c.execute("INSERT INTO runs (uuid, time, machine, commit_id, dirty, source) "
                        "VALUES (?, ?, ?, ?, 0, 'bench') RETURNING id",
                        (str(uuid.uuid4()), 1764000000 + 60 * i, machine, f"{i:040x}")).fetchone()[0]
        res = c.execute("INSERT INTO results (run, name, unit, value, lo, hi, nunits, sd) "
                        "VALUES (?, 'x', 'ns', ?, ?, ?, 3, ?) RETURNING id",
                        (run, v, v * 0.99, v * 1.01, v * 0.004)).fetchone()[0]
        c.executemany("INSERT INTO units (result, idx, ns) VALUES (?, ?, ?)",
                      [(res, k, v) for k in range(3)])
PY
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
timed() {
    for _ in 1 2 3 4 5; do
        s=$(date +%s%N)
        "$tool" "$@" > /dev/null || [ $? = 3 ]
        e=$(date +%s%N)
        echo $(( (e - s) / 1000000 ))
    done | median
}
echo "$N results of one benchmark; median of 5 runs, ms:"
echo "  history (last 20):                 $(timed history --store "$tmp/s.db")"
echo "  history --last 0 --json:           $(timed history --store "$tmp/s.db" --last 0 --json "$tmp/h.json")"
echo "  history --last 0 --report:         $(timed history --store "$tmp/s.db" --last 0 --report "$tmp/h.html")"
echo "  history check --last 0:            $(timed history check --store "$tmp/s.db" --last 0)"
echo "  history check --last 0 --report:   $(timed history check --store "$tmp/s.db" --last 0 --report "$tmp/h.html")"
