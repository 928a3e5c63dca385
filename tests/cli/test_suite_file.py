"""vernier suite's file family: write() to /dev/null, a pipe, a file and a
file with fsync; open+close by size with its finding; stat; pread of a
cached file. Run in --quick mode with TMPDIR in a directory of the test's
own, which must be empty again afterwards."""
import json
import re
import signal
import subprocess
import time

from conftest import VERNIER, adopt_orphans, children, run, validate

QUICK = [12, 8240, 1048576]


def suite(tmp_path, *args, timeout=300):
    """Runs vernier suite --quick with TMPDIR in tmp_path; the JSON, and the
    process. Checks what every run must leave: no file, no child."""
    tmp = tmp_path / "tmp"
    tmp.mkdir(exist_ok=True)
    adopt_orphans()
    p = run("suite", "--quick", "--quiet", *args, "--json", "-", timeout=timeout, env={"TMPDIR": str(tmp)})
    assert list(tmp.iterdir()) == [], "files left in TMPDIR"
    assert children() == [], "children left behind"
    d = json.loads(p.stdout)
    validate(d, "results-1.json")
    return d, p


def on_tmpfs(path):
    """Is path on a file system in memory, where fsync reaches no disk?"""
    best, fs = "", ""
    for line in open("/proc/mounts"):
        _, mnt, kind = line.split()[:3]
        if str(path).startswith(mnt) and len(mnt) > len(best):
            best, fs = mnt, kind
    return fs in ("tmpfs", "ramfs")


def test_file_rows_their_sizes_and_what_must_hold_between_them(tmp_path):
    d, p = suite(tmp_path, "file")
    assert p.returncode == 0, p.stderr
    rows = {b["name"]: b for b in d["benchmarks"]}
    want = [f"file.write.{t}/size={n}" for t in ("null", "pipe", "file") for n in QUICK]
    want += ["file.write.fsync/size=8240", "file.open/size=12", "file.open/size=1048576", "file.stat"]
    want += [f"file.read/size={n}" for n in QUICK]
    assert list(rows) == want
    fsync_skipped = on_tmpfs(tmp_path)
    for name, b in rows.items():
        if name.startswith("file.write.fsync") and fsync_skipped:
            assert b["stop"] == "skipped" and "tmpfs" in b["error"], b["error"]
            continue
        assert b["error"] is None and b["stats"]["median"] > 0, (name, b["error"])
        if "/size=" in name:
            size = int(name.split("=")[1])
            assert b["params"] == {"size": size}
            # Writes and reads say their bytes, so the throughput is theirs.
            if not name.startswith("file.open"):
                assert b["throughput"]["bytes_per_iter"] == size, name
    med = {n: b["stats"]["median"] for n, b in rows.items() if b["error"] is None}
    # A MiB costs more than 12 bytes wherever it is copied to or from.
    for kind in ("write.pipe", "write.file", "read"):
        assert med[f"file.{kind}/size=1048576"] > 2 * med[f"file.{kind}/size=12"], kind
    # Going to the disk costs more than going to the page cache.
    if not fsync_skipped:
        assert med["file.write.fsync/size=8240"] > med["file.write.file/size=8240"]
    f = [f for f in d["findings"] if f["id"] == "file.open.size"]
    assert len(f) == 1 and len(f[0]["brief"]) <= 100 and f[0]["explanation"], f
    m = re.match(r"file\.open: open\+close (independent of size within \d+% \(12\.\.1M B: ([\d.]+)x\)"
                 r"|of 1M B takes ([\d.]+)x \([\d.]+\.\.[\d.]+\) that of 12 B)$", f[0]["brief"])
    assert m, f[0]["brief"]
    ratio = float(m.group(2) or m.group(3))
    big, small = med["file.open/size=1048576"], med["file.open/size=12"]
    assert abs(ratio - big / small) < 0.01
    assert f[0]["brief"] in p.stderr


def test_sizes_override_the_sweeps(tmp_path):
    d, p = suite(tmp_path, "file.read", "file.write.pipe", "--sizes", "100,3K")
    assert p.returncode == 0, p.stderr
    names = [b["name"] for b in d["benchmarks"]]
    assert names == ["file.write.pipe/size=100", "file.write.pipe/size=3072",
                     "file.read/size=100", "file.read/size=3072"]
    assert all(b["error"] is None and b["stats"]["median"] > 0 for b in d["benchmarks"])


def test_an_interrupted_run_leaves_no_file_and_no_thread_blocked(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    adopt_orphans()
    proc = subprocess.Popen([VERNIER, "suite", "--quiet", "file"], env={"TMPDIR": str(tmp), "PATH": "/usr/bin:/bin"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # Once the run's files exist, every kind of row has begun.
    end = time.time() + 60
    while time.time() < end and not any(p.is_file() for p in tmp.rglob("read-*")):
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert list(tmp.iterdir()) == []
    assert children() == []
