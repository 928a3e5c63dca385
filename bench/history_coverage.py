#!/usr/bin/env python3
"""Intervals that learn from history, measured: the runs bench/coverage.sh
kept in DIR (OUT=DIR) are stored one after the other, as a user's runs
would be (`vernier store add --time`, a minute apart, into a fresh SQLite
store), and `vernier history --json` gives each result's own interval and
the one widened by the results before it. For every condition and
workload: coverage of run i+1's headline by run i's interval (and the
reverse), own and with history, over the pairs where run i had history
(5 results before it or more), the mean half-widths of both, and the
half-range of the headlines plus the precision (1%), which the widened
half-width should not exceed. Then `vernier compare` of run i against
run i+1 (false alarms) and against the runs with a planted 3% and 10%
slowdown taken after it, without and with `--store` (run i and those
before it stored): how often each says slower.

    build/venv/bin/python bench/history_coverage.py DIR [VERNIER]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from coverage_report import conditions, run_count


def main(d, tool):
    files = os.listdir(d)
    conds = conditions(files)
    with tempfile.TemporaryDirectory() as tmp:
        means = {}
        for cond in conds:
            store = os.path.join(tmp, cond + ".db")
            i = 1
            verdicts = {}  # (kind, workload) -> [slower, compared]
            # A minute apart, ending now: `vernier compare --store` learns
            # only from results of the last 30 days before now.
            start = int(time.time()) - 60 * (run_count(files, cond) + 1)
            while f"{cond}-base-{i}.json" in files:
                subprocess.run([tool, "store", "add", "--store", store, "--commit", f"run{i}",
                                "--time", str(start + 60 * i),
                                os.path.join(d, f"{cond}-base-{i}.json")],
                               check=True, capture_output=True)
                # Run i, now stored, against the next run and the slowed
                # ones taken after it, as a gate with --store would.
                base = os.path.join(d, f"{cond}-base-{i}.json")
                for kind, new in (("false", f"{cond}-base-{i + 1}.json"),
                                  ("3%", f"{cond}-slow3-{i}.json"), ("10%", f"{cond}-slow10-{i}.json")):
                    if new not in files:
                        continue
                    for mode, extra in (("own", []), ("history", ["--store", store])):
                        r = subprocess.run([tool, "compare", "--json", "-", *extra, base,
                                            os.path.join(d, new)], capture_output=True, text=True)
                        try:
                            rows = json.loads(r.stdout)["benchmarks"]
                        except (ValueError, KeyError):
                            continue
                        for row in rows:
                            if kind != "false" and "chain" not in row["name"]:
                                continue
                            v = verdicts.setdefault((kind, mode, row["name"]), [0, 0])
                            v[0] += row["verdict"] == "slower"
                            v[1] += 1
                i += 1
            out = subprocess.run([tool, "history", "--store", store, "--last", "0", "--json", "-"],
                                 check=True, capture_output=True, text=True).stdout
            series = json.loads(out)["series"]
            print(f"\n{cond}: {i - 1} runs")
            print(f"{'workload':<15}{'pairs':>6}{'own':>6}{'history':>9}{'half own':>10}{'half hist':>10}"
                  f"{'half-range+p':>13}")
            covs = [[], []]
            for s in series:
                pts = s["results"]
                own = hist = tries = 0
                h_own, h_hist = [], []
                for k in range(len(pts) - 1):
                    a, b = pts[k], pts[k + 1]
                    if a["learned_from"] == 0 or None in a["ci"] or None in a["ci_history"]:
                        continue
                    tries += 1
                    own += a["ci"][0] <= b["value"] <= a["ci"][1]
                    hist += a["ci_history"][0] <= b["value"] <= a["ci_history"][1]
                    h_own.append(max(a["ci"][1] - a["value"], a["value"] - a["ci"][0]) / a["value"])
                    h_hist.append(max(a["ci_history"][1] - a["value"],
                                      a["value"] - a["ci_history"][0]) / a["value"])
                if not tries:
                    continue
                vals = [p["value"] for p in pts]
                mid = statistics.median(vals)
                half_range = (max(vals) - min(vals)) / 2 / mid + 0.01
                covs[0].append(own / tries)
                covs[1].append(hist / tries)
                print(f"{s['name']:<15}{tries:>6}{100 * own / tries:>5.0f}%{100 * hist / tries:>8.0f}%"
                      f"{100 * statistics.mean(h_own):>9.2f}%{100 * statistics.mean(h_hist):>9.2f}%"
                      f"{100 * half_range:>12.2f}%")
            if covs[0]:
                print(f"mean coverage: own {100 * statistics.mean(covs[0]):.0f}%, "
                      f"with history {100 * statistics.mean(covs[1]):.0f}%")
            print("vernier compare, found slower (own / with --store):")
            for name in sorted({k[2] for k in verdicts}):
                cells = []
                for kind in ("false", "3%", "10%"):
                    o, h = verdicts.get((kind, "own", name)), verdicts.get((kind, "history", name))
                    if o and h:
                        cells.append(f"{kind} {o[0]}/{o[1]}, {h[0]}/{h[1]}")
                print(f"  {name:<15}" + "; ".join(cells))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "build", "vernier"))
