"""vernier suite's process family: fork with the parent's memory varied,
fork/vfork + exec and posix_spawn of vernier-noop, vfork, a thread; in
--quick mode, with no child left behind, and the rows that start the
helper skipped or failed, with the reason, when it is missing or broken."""
import json
import re
import shutil
import subprocess

import pytest

from conftest import VERNIER, adopt_orphans, children, sanitized, validate

ROWS = ["process.fork/touched=1M", "process.fork/touched=64M", "process.fork.exec", "process.vfork",
        "process.vfork.exec", "process.spawn", "process.thread"]
STARTERS = ["process.fork.exec", "process.vfork.exec", "process.spawn"]


def suite(*args, vernier=VERNIER, timeout=300):
    """Runs vernier suite --quick; the JSON and the process, once it is
    checked that no child of vernier outlived it."""
    adopt_orphans()
    p = subprocess.run([vernier, "suite", "--quick", "--quiet", *args, "--json", "-"],
                       capture_output=True, text=True, timeout=timeout)
    assert children() == [], "children left behind"
    d = json.loads(p.stdout)
    validate(d, "results-1.json")
    return d, p


def to_ns(text):
    value, unit = text.split()
    return float(value) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[unit]


def test_process_rows_the_cost_of_a_larger_parent_and_the_floor():
    d, p = suite("process")
    assert p.returncode == 0, p.stderr
    rows = {b["name"]: b for b in d["benchmarks"]}
    assert list(rows) == ROWS
    big = rows["process.fork/touched=64M"]
    if big["stop"] == "skipped":
        assert "MiB" in big["error"], big["error"]
    for name, b in rows.items():
        if b is big and b["stop"] == "skipped":
            continue
        assert b["error"] is None and b["stats"]["median"] > 0, (name, b["error"])
        # One child (or thread) a sample, made and reaped.
        assert all(s["iters"] == 1 for s in b["samples"]), name
    med = {n: b["stats"]["median"] for n, b in rows.items() if b["error"] is None}
    # Starting a program is more than a vfork that exits at once; not so
    # under the sanitizers, whose _exit in the child of vfork is slow.
    if not sanitized():
        assert med["process.vfork.exec"] > med["process.vfork"]
    if big["stop"] == "skipped":
        return
    # 64 times the memory to copy the page tables of: not faster.
    assert med["process.fork/touched=64M"] >= med["process.fork/touched=1M"]
    f = [f for f in d["findings"] if f["id"] == "process.fork.touched"]
    assert len(f) == 1 and len(f[0]["brief"]) <= 100 and f[0]["explanation"], f
    m = re.match(r"process\.fork: \+?(-?[\d.]+ [nuµm]?s) per MiB the parent touched "
                 r"\(1M: ([\d.]+ \w+), 64M: ([\d.]+ \w+)\)$", f[0]["brief"])
    assert m, f[0]["brief"]
    per = to_ns(m.group(1))
    want = (med["process.fork/touched=64M"] - med["process.fork/touched=1M"]) / 63
    assert abs(per - want) <= 0.01 * abs(want) + 1, (per, want)
    assert f[0]["brief"] in p.stderr


def copy_of_vernier(tmp_path, noop=None):
    """vernier alone in a directory of its own, with noop (bytes) beside it
    as vernier-noop when given."""
    d = tmp_path / "bin"
    d.mkdir()
    shutil.copy(VERNIER, d / "vernier")
    if noop is not None:
        (d / "vernier-noop").write_bytes(noop)
        (d / "vernier-noop").chmod(0o755)
    return str(d / "vernier")


def test_a_missing_helper_skips_the_rows_that_start_it(tmp_path):
    d, p = suite(*STARTERS, "process.vfork", vernier=copy_of_vernier(tmp_path))
    rows = {b["name"]: b for b in d["benchmarks"]}
    if rows["process.spawn"]["error"] is None:
        pytest.skip("an installed vernier-noop was found")
    assert p.returncode == 0, p.stderr
    for name in STARTERS:
        assert rows[name]["stop"] == "skipped" and "vernier-noop" in rows[name]["error"], rows[name]
    assert rows["process.vfork"]["error"] is None


@pytest.mark.parametrize("noop,words", [
    (b"not a program\n", ["could not exec", "Exec format error"]),
    (b"#!/bin/sh\nexit 3\n", ["exited with status 3"]),
])
def test_a_helper_that_cannot_run_fails_its_rows_with_the_reason(tmp_path, noop, words):
    d, p = suite(*STARTERS, vernier=copy_of_vernier(tmp_path, noop))
    assert p.returncode == 1, p.stderr
    for b in d["benchmarks"]:
        assert b["stop"] == "failed" and any(w in b["error"] for w in words), (b["name"], b["error"])
