"""vernier suite memory in --quick mode: latency rows by pointer chasing
(random, sequential, huge pages, cold), bandwidth rows, and the finding
that names the levels of the latency curve."""
from conftest import run, sanitized, suite_quick as quick

K, M = 1024, 1024 * 1024
LAT = [4 * K, 16 * K, 64 * K, 256 * K, 1 * M, 4 * M, 16 * M]
COLD = [4 * K, 16 * M]
BW = [16 * K, 1 * M, 16 * M]


def measured(b):
    return b["stop"] != "skipped" and b["error"] is None and b["stats"]["median"] > 0


def test_memory_rows_levels_and_bandwidth():
    d, p = quick("memory")
    rows = {b["name"]: b for b in d["benchmarks"]}
    want = ([f"memory.latency.{k}/size={s}" for k in ("random", "seq", "huge") for s in LAT]
            + [f"memory.latency.cold/size={s}" for s in COLD]
            + [f"memory.bw.{k}/size={s}" for k in ("read", "write", "copy") for s in BW])
    assert sorted(rows) == sorted(want)
    for name, b in rows.items():
        assert b["params"] == {"size": int(name.split("=")[1])}
        # Huge pages may be missing here; then the row says why. Everything
        # else this machine can do.
        if name.startswith("memory.latency.huge/") and b["stop"] == "skipped":
            assert b["error"] and "huge" in b["error"], b
            continue
        assert measured(b), (name, b["stop"], b["error"])

    def med(name):
        return rows[name]["stats"]["median"]

    # A load that misses every cache is slower than one from L1, whatever
    # the machine: 16 MiB in a random order against 4 KiB.
    assert med(f"memory.latency.random/size={16 * M}") >= med(f"memory.latency.random/size={4 * K}")
    # The same 4 KiB buffer after the caches were written over costs more
    # a load than when it stays in L1.
    assert med(f"memory.latency.cold/size={4 * K}") > med(f"memory.latency.random/size={4 * K}")
    # Cold rows are a fixed, small number of loads a sample.
    assert all(s["iters"] == 64 for s in rows[f"memory.latency.cold/size={4 * K}"]["samples"])
    # Latency rows: one load an iteration, so the headline is per load.
    assert all(s["iters"] > 1000 for s in rows[f"memory.latency.random/size={4 * K}"]["samples"])
    # Bandwidth: bytes per iteration are the size, so there is a throughput.
    for k in ("read", "write", "copy"):
        for s in BW:
            t = rows[f"memory.bw.{k}/size={s}"]["throughput"]
            assert t["bytes_per_iter"] == s and t["bytes_per_sec"] > 0
            # bytes / s over the median's ns / iteration: the same row.
            assert abs(t["bytes_per_sec"] * med(f"memory.bw.{k}/size={s}") * 1e-9 / s - 1) < 0.01

    f = [f for f in d["findings"] if f["id"] == "memory.levels"]
    assert len(f) == 1, d["findings"]
    brief = f[0]["brief"]
    assert len(brief) <= 100, brief
    # A sanitized build's shadow check on every load can blur the step from
    # L1 to L2 (4 KiB to 1 MiB read as one plateau, "L2 8 ns to 1M", once in
    # a CI run under load): there the ladder must still be named from some
    # level; the plain build must find L1.
    first = "memory: L" if sanitized() else "memory: L1 "
    assert brief.startswith(first), brief
    assert f[0]["explanation"] and brief.split()[1] in f[0]["explanation"]
    assert brief in p.stderr


def test_rows_the_machine_cannot_run_are_skipped_with_a_reason():
    # A pass over less than a cache line (64 B) times the loop, not the
    # memory: skipped with a reason, exit 0; a line and more is measured.
    d, _ = quick("memory.bw.read", "memory.latency.random", "--sizes", "4,63,64,4K")
    rows = {b["name"]: b for b in d["benchmarks"]}
    assert set(rows) == {f"memory.{k}/size={n}" for k in ("bw.read", "latency.random")
                         for n in (4, 63, 64, 4096)}
    for n in (4, 63):
        assert rows[f"memory.bw.read/size={n}"]["stop"] == "skipped"
        assert rows[f"memory.bw.read/size={n}"]["error"]
    assert measured(rows["memory.bw.read/size=64"])
    assert measured(rows["memory.bw.read/size=4096"])
    # A buffer smaller than a line is still a walk: one line, chased.
    assert measured(rows["memory.latency.random/size=4"])


def test_console_shows_the_finding_and_lines_fit():
    p = run("suite", "--quick", "memory.latency.random", check=0, timeout=120)
    lines = (p.stdout + p.stderr).splitlines()
    found = [line for line in lines if line.startswith("memory: L1 ")]
    # The finding needs the ladder's steps told apart; a sanitized build's
    # shadow checks on every load blurred them once in four CI runs, so
    # there it may be missing, and when it is there it still fits a line.
    assert len(found) == 1 or (sanitized() and not found), lines
    assert all(len(line) <= 100 for line in found)
