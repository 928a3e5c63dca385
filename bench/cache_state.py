#!/usr/bin/env python3
"""Whether a small ring walked in every process tells the state of the
shared cache that moves an 8 MiB pointer chase between runs.

Runs bench_cache_state RUNS (41) times back to back, pinned to CPU (the
last one), and prints for each row the least, the median and the most of
the runs' headlines (cycles where the headline is), and how well the
rings' headlines follow the chase's from run to run (Spearman's rank
correlation), with the three headlines of each run, in thousands.

    bench/cache_state.py [BUILD]        (BUILD: build)
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from coverage_report import headline  # noqa: E402

RUNS = int(os.environ.get("RUNS", "41"))


def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    r = [0] * len(v)
    for k, i in enumerate(order):
        r[i] = k
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.mean(ra), statistics.mean(rb)
    num = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    den = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
    return num / den if den else float("nan")


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    prog = os.path.join(build, "bench", "bench_cache_state")
    cpu = os.environ.get("CPU", str(os.cpu_count() - 1))
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(RUNS):
            out = os.path.join(tmp, f"run-{i}.json")
            subprocess.run(["taskset", "-c", cpu, prog, "--quiet", "--json", out], check=True,
                           stdout=subprocess.DEVNULL)
            with open(out) as f:
                for b in json.load(f)["benchmarks"]:
                    rows.setdefault(b["name"], []).append(headline(b, "cycles")[1])
    for name, v in rows.items():
        print(f"{name:10} least {min(v):8.0f} median {statistics.median(v):8.0f} "
              f"most {max(v):8.0f} spread {max(v) / min(v):.2f}")
    chase = rows["chase_8m"]
    for name, v in rows.items():
        if name != "chase_8m":
            print(f"rank correlation of chase_8m and {name}: {spearman(chase, v):.2f}")
    names = list(rows)
    print("runs (" + "/".join(names) + ", thousands): "
          + " ".join("/".join(f"{rows[n][i] / 1000:.0f}" for n in names) for i in range(RUNS)))


if __name__ == "__main__":
    main()
