#!/usr/bin/env python3
"""Two builds of `vernier compare` on the same kept runs: which finds more
and cries wolf less. For every set bench/coverage.sh kept (OUT=DIR) and
condition, each tool compares
  - run i against run i+1 (false alarms: both are the same binary),
  - run i against the chains' planted 3% and 10% slowdowns run after it,
  - run i against run i+1 with every workload's values scaled by 1.03,
    1.05 and 1.10 (processes, samples and headline alike): a slowdown of
    known size planted in the memory-bound workloads too, on the
    machine's own spread,
and the script prints, per workload, how often each tool said slower, and
per tool the set-conditions where a workload's false alarms passed 2 of
40 (the goal of bench/coverage.sh).

With --as-shared base (or new), that side of every pair is first
rewritten as a run on a core shared with a busy second hardware thread
throughout (its headline's core "shared", its kept processes' probes 1.6,
its values as measured): what a tool says of sides in different core
states, with the sibling's own cost left out. Every verdict of a change
then counts on "same" (false verdicts either way), not only slower.

With --at-clock, NEW_VERNIER (which may be OLD_VERNIER itself) reads
every file rewritten as bench/clock_replay.py rewrites it: each row's
cycles beside an ns headline at the clock's rate, as ns_at_clock gives
them, in runs made before it.

With --reach-within R, NEW_VERNIER reads every file with each headline's
interval as the engine's policy reach_within=R leaves it
(bench/reach_replay.py), in runs made with the full reach.

    bench/compare_replay.py [--as-shared base|new] [--at-clock] [--reach-within R]
                            OLD_VERNIER NEW_VERNIER DIR...
"""
import collections
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

from clock_replay import at_clock
from reach_replay import variant, within
from coverage_report import verdicts_of

SCALES = (1.03, 1.05, 1.10)


def rewrite(src, dst, change):
    """src's results written to dst with each benchmark b as change(b) gives it."""
    with open(src, encoding="utf-8") as fh:
        d = json.load(fh)
    d["benchmarks"] = [change(b) for b in d["benchmarks"]]
    with open(dst, "w", encoding="utf-8") as fh:
        json.dump(d, fh)


def scaled(f):
    """A change for rewrite: every value of a benchmark in ns or cycles times f."""
    def times(v):
        return [x * f if isinstance(x, (int, float)) else x for x in v]

    def change(b):
        for s in b.get("samples") or []:
            if isinstance(s.get("value"), (int, float)):
                s["value"] *= f
        for p in b.get("processes") or []:
            for k in ("value", "cycles"):
                if isinstance(p.get(k), (int, float)):
                    p[k] *= f
        h = b.get("headline") or {}
        if isinstance(h.get("value"), (int, float)):
            h["value"] *= f
        for k in ("ci", "est_ci"):
            if h.get(k):
                h[k] = times(h[k])
        for u in (h.get("units") or {}).values():
            if u and isinstance(u.get("value"), (int, float)):
                u["value"] *= f
            for k in ("ci", "est_ci"):
                if u and u.get(k):
                    u[k] = times(u[k])
        if isinstance(b.get("cycles"), (int, float)):
            b["cycles"] *= f
        if isinstance((b.get("stats") or {}).get("median"), (int, float)):
            b["stats"]["median"] *= f
        return b
    return change


def as_shared(b):
    """A change for rewrite: the benchmark as run on a shared core throughout,
    values unchanged: the processes its headline left out (another state)
    dropped."""
    if b.get("headline"):
        b["headline"]["core"] = "shared"
    for p in b.get("processes") or []:
        if p.get("left_out"):
            p["shared"] = True
        else:
            p["probe"] = 1.6
    return b


def pairs(d, tmp):
    """(kind, set-condition, base file, new file) of one kept set."""
    out = []
    for cond in ("quiet", "stress"):
        i = 1
        while os.path.exists(f"{d}/{cond}-base-{i + 1}.json"):
            base, nxt = f"{d}/{cond}-base-{i}.json", f"{d}/{cond}-base-{i + 1}.json"
            where = f"{os.path.basename(d)} {cond}"
            out.append(("same", where, base, nxt))
            for k in ("slow3", "slow10"):
                if os.path.exists(f"{d}/{cond}-{k}-{i}.json"):
                    out.append((k, where, base, f"{d}/{cond}-{k}-{i}.json"))
            for f in SCALES:
                dst = os.path.join(tmp, f"{os.path.basename(d)}-{cond}-{i}-x{f:.2f}.json")
                rewrite(nxt, dst, scaled(f))
                out.append((f"x{f:.2f}", where, base, dst))
            i += 1
    return out


def rewritten(work, tmp, change, sides):
    """work with the files on sides (0 base, 1 new) of each pair rewritten
    by change, each file once."""
    done, out = {}, []
    for kind, where, *files in work:
        for i in sides:
            if files[i] not in done:
                dst = os.path.join(tmp, f"{change.__name__}-{len(done)}.json")
                rewrite(files[i], dst, change)
                done[files[i]] = dst
            files[i] = done[files[i]]
        out.append((kind, where, *files))
    return out


def slower(tool, base, new, changed=("slower",)):
    """The workloads tool calls slower in new than in base (True; any verdict
    in changed), the others it compared (False), and those it declined to
    compare (None)."""
    r = subprocess.run([tool, "compare", "--json", "-", base, new], capture_output=True,
                       text=True, check=False)
    try:
        got = verdicts_of(json.loads(r.stdout))
    except (ValueError, KeyError, TypeError):
        return None
    return {name: None if v == "declined" else v in changed for name, v in got.items()}


def main(argv):
    side = None
    if argv[:1] == ["--as-shared"] and len(argv) > 1 and argv[1] in ("base", "new"):
        side, argv = argv[1], argv[2:]
    clock = argv[:1] == ["--at-clock"]
    argv = argv[clock:]
    reach = None
    if argv[:1] == ["--reach-within"] and len(argv) > 1:
        reach, argv = float(argv[1]), argv[2:]
    if len(argv) < 3:
        sys.exit(__doc__)
    tools, dirs = argv[:2], argv[2:]
    with tempfile.TemporaryDirectory() as tmp:
        work = [p for d in dirs for p in pairs(d, tmp)]
        if side:
            work = rewritten(work, tmp, as_shared, (0,) if side == "base" else (1,))
        works = [work, rewritten(work, tmp, at_clock, (0, 1)) if clock else work]
        if reach is not None:
            def reach_within(b):
                return variant(b, within(reach))
            works[1] = rewritten(works[1], tmp, reach_within, (0, 1))
        # (kind, workload) -> [said slower, tries, compared]: a pair a tool
        # declined to compare (the core states apart) is a try that did
        # not find the slowdown.
        count = [collections.defaultdict(lambda: [0, 0, 0]) for _ in tools]
        alarms = [collections.Counter() for _ in tools]
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
            for t, tool in enumerate(tools):
                said = ("slower", "faster") if side else ("slower",)
                for (kind, where, _, _), got in zip(
                        works[t], ex.map(lambda p, tool=tool: slower(
                            tool, p[2], p[3], said if p[0] == "same" else ("slower",)),
                            works[t])):
                    for name, s in (got or {}).items():
                        if kind.startswith("slow") and "chain" not in name:
                            continue
                        count[t][(kind, name)][0] += bool(s)
                        count[t][(kind, name)][1] += 1
                        count[t][(kind, name)][2] += s is not None
                        if kind == "same":
                            alarms[t][(where, name)] += bool(s)
    print(f"{'kind':6} {'workload':16} " + "  ".join(f"{'tool ' + str(i + 1):>10}"
                                                  for i in range(len(tools)))
          + "   tries  compared by each")
    for kind, name in sorted(count[0]):
        cells = [count[t][(kind, name)] for t in range(len(tools))]
        print(f"{kind:6} {name:16} " + "  ".join(f"{c[0] / c[1] if c[1] else 0:10.3f}"
                                                for c in cells)
              + f"   {cells[0][1]:5}  " + " ".join(str(c[2]) for c in cells))
    for i, t in enumerate(tools):
        over = sorted(f"{w} {n} {v}" for (w, n), v in alarms[i].items() if v > 2)
        print(f"tool {i + 1} ({t}): {len(over)} set-condition workloads with more than 2 "
              f"false alarms: {', '.join(over) or 'none'}")


if __name__ == "__main__":
    main(sys.argv[1:])
