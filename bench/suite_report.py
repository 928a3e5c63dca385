"""Runs vernier suite and the tools people use for the same operations, in
turn, ROUNDS times each, and prints one line per operation: both medians, our
figure over theirs, the spread of each across the rounds, our 95% interval,
and the seconds each side took. Then the wall time of the whole default
suite. Raw outputs go to OUT (a temporary directory unless set).

usage: suite_report.py VERNIER"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

VERNIER = sys.argv[1]
ROUNDS = int(os.environ.get("ROUNDS", "5"))
OUT = Path(os.environ.get("OUT") or tempfile.mkdtemp(prefix="vn-suite-bench-"))
OUT.mkdir(parents=True, exist_ok=True)


def run(cmd, name):
    t = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    took = time.monotonic() - t
    (OUT / f"{name}.out").write_text(p.stdout + "\n--- stderr\n" + p.stderr)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[:300]}")
    return p.stdout, took


def vernier(rows, name, *extra):
    """The headline of each row (ns, or bytes/s for rate=True rows), and its
    95% interval as +-% of it, from one `vernier suite` run of those rows."""
    out, took = run([VERNIER, "suite", "--quiet", *extra, "--json", "-", *sorted({r.split("/")[0] for r in rows})],
                    name)
    d = json.loads(out)
    got = {}
    for b in d["benchmarks"]:
        if b["name"] in rows and b["stats"] and not b["error"]:
            s = b["stats"]
            lo, hi = s["median_ci"]
            half = max(s["median"] - lo, hi - s["median"]) / s["median"] * 100 if lo is not None else float("nan")
            got[b["name"]] = (s["median"], b["throughput"]["bytes_per_sec"], half)
    return got, took


def perf_us_per_op(out):
    m = re.search(r"([\d.]+) usecs/op", out)
    return float(m.group(1)) * 1000 if m else float("nan")


def perf_gb_s(out):
    m = re.search(r"([\d.]+) ([GMK]B)/sec", out)
    scale = {"GB": 1e9, "MB": 1e6, "KB": 1e3}
    return float(m.group(1)) * scale[m.group(2)] if m else float("nan")


def cyclictest_median_ns(out):
    """The median latency from cyclictest's histogram (one line per us)."""
    counts = []
    for line in out.splitlines():
        m = re.match(r"^(\d+)\s+(\d+)$", line.strip())
        if m:
            counts.append((int(m.group(1)), int(m.group(2))))
    total = sum(c for _, c in counts)
    acc = 0
    for us, c in counts:
        acc += c
        if acc * 2 >= total:
            return us * 1000.0
    return float("nan")


# Our row (and the placement it runs with), their command, how to read
# theirs, the unit, and what is compared. Both ends of the pipe rows on one
# CPU, as taskset puts perf's threads: the same operation, not a scheduler's
# choice of placement.
CASES = [
    ("syscall.getppid", [], ["perf", "bench", "syscall", "basic", "-l", "2000000"], perf_us_per_op,
     "ns", "getppid by syscall(2): ns per call"),
    ("ipc.pipe/size=4", ["--cpus", "1,1"], ["taskset", "-c", "1", "perf", "bench", "sched", "pipe", "-T", "-l", "100000"],
     perf_us_per_op, "ns", "4 B round trip through two pipes, two threads on CPU 1 (perf: its op)"),
    ("ctxsw.one_cpu", [], ["taskset", "-c", "1", "perf", "bench", "sched", "pipe", "-T", "-l", "100000"],
     perf_us_per_op, "ns", "ping-pong on one CPU: ours is a switch (x2 here), perf's op a round trip"),
    ("memory.bw.copy/size=1048576", [], ["perf", "bench", "mem", "memcpy", "-f", "default", "-s", "1MB", "-l", "2000"],
     perf_gb_s, "B/s", "glibc memcpy of 1 MiB, bytes per second"),
    ("memory.bw.write/size=1048576", [], ["perf", "bench", "mem", "memset", "-f", "default", "-s", "1MB", "-l", "2000"],
     perf_gb_s, "B/s", "glibc memset of 1 MiB, bytes per second"),
    ("timer.abstime/us=1000", [], ["cyclictest", "-t", "1", "-i", "1000", "-l", "2000", "-q", "-h", "2000"],
     cyclictest_median_ns, "ns", "clock_nanosleep(TIMER_ABSTIME) 1 ms: median lateness (cyclictest: -h median)"),
]
# ctxsw rows report a switch, half perf's round trip.
SCALE = {"ctxsw.one_cpu": 2.0}

rows = [c[0] for c in CASES]
ours = {r: [] for r in rows}
theirs = {r: [] for r in rows}
t_ours = t_theirs = 0.0
for i in range(ROUNDS):
    for row, extra, cmd, read, unit, what in CASES:
        got, took = vernier([row], f"vernier-{row.replace('/', '_')}-{i}", *extra, "--filter", f"^{row}$")
        t_ours += took
        if row in got:
            med, rate, half = got[row]
            ours[row].append((rate if unit == "B/s" else med * SCALE.get(row, 1), half))
        out, took = run(cmd, f"{row.replace('/', '_')}-{i}")
        t_theirs += took
        theirs[row].append(read(out))
    print(f"round {i + 1} of {ROUNDS} done", file=sys.stderr)


def spread(xs):
    xs = [x for x in xs if x == x]
    return (max(xs) / min(xs) - 1) * 100 if xs else float("nan")


print(f"{ROUNDS} rounds; medians across rounds; spread = max/min - 1 across rounds; ci = our median 95% interval")
print(f"{'operation':<30} {'vernier':>10} {'theirs':>10} {'ratio':>6} {'spread us':>9} {'them':>7} {'ci':>7}  what")
for row, extra, cmd, read, unit, what in CASES:
    o = [x for x, _ in ours[row]]
    if not o:
        print(f"{row:<30} {'-':>10} (no result: the row is missing, skipped or failed)")
        continue
    mo, mt = statistics.median(o), statistics.median(theirs[row])
    ci = statistics.median(h for _, h in ours[row])
    fmt = (lambda v: f"{v / 1e9:.2f}G") if unit == "B/s" else (lambda v: f"{v:.4g}")
    print(f"{row:<30} {fmt(mo):>10} {fmt(mt):>10} {mo / mt:6.3f} {spread(o):8.1f}% {spread(theirs[row]):6.1f}% "
          f"{ci:6.2f}%  {what} [{unit}]")
print(f"time: vernier {t_ours:.1f} s for {ROUNDS} runs of these rows, the other tools {t_theirs:.1f} s")
t = time.monotonic()
run([VERNIER, "suite", "--quiet"], "vernier-full")
print(f"the whole default suite (every family, every size): {time.monotonic() - t:.1f} s wall")
print(f"raw outputs: {OUT}")
