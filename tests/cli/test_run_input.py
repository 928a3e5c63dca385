"""vernier run --input: standard input, other descriptors and FIFOs, which can
be read only once, are read before the first run and every run gets a copy;
no wait for them outlasts --timeout or a signal, and none leaves a process
behind."""
import json
import os
import signal
import subprocess
import threading
import time

import pytest

from conftest import VERNIER, holds_open, run, stat_fields, validate, wait_until

DATA = "".join(f"line {i}\n" for i in range(2000))  # 2 pipe buffers and more


def session_left(sid):
    """The processes still alive (not zombies) in session sid."""
    left = []
    for d in os.listdir("/proc"):
        fields = stat_fields(d) if d.isdigit() else None
        if fields and int(fields[3]) == sid and fields[0] != "Z":
            left.append((int(d), fields[0]))
    return left


def counts(stdout):
    """The byte counts the runs' 'wc -c' printed."""
    return [int(line) for line in stdout.splitlines() if line.strip().isdigit()]


@pytest.mark.parametrize("name", ["-", "/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"])
def test_standard_input_is_read_once_and_every_run_gets_it(name):
    p = run("run", "--runs", "3", "--quiet", "--show-output", "--input", name, "wc -c", input=DATA)
    assert p.returncode == 0, p.stderr
    assert counts(p.stdout) == [len(DATA)] * 3, p.stdout


def test_standard_input_from_a_file_starts_where_it_stands(tmp_path):
    f = tmp_path / "in.txt"
    f.write_text(DATA)
    with open(f) as inp:
        inp.seek(100)
        p = subprocess.run([VERNIER, "run", "--runs", "2", "--quiet", "--show-output", "--input", "-",
                            "wc -c"], stdin=inp, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert counts(p.stdout) == [len(DATA) - 100] * 2, p.stdout


def test_another_descriptor_is_read_once():
    # What a shell's <(...) gives: /dev/fd/N, a pipe.
    r, w = os.pipe()
    try:
        proc = subprocess.Popen([VERNIER, "run", "--runs", "3", "--quiet", "--show-output", "--input",
                                 f"/dev/fd/{r}", "wc -c"], pass_fds=(r,), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        os.close(r)
        os.write(w, DATA.encode())
        os.close(w)
        w = -1
        out, err = proc.communicate(timeout=60)
    finally:
        if w >= 0:
            os.close(w)
    assert proc.returncode == 0, err
    assert counts(out) == [len(DATA)] * 3, out


def test_a_fifo_with_one_writer_gives_every_run_its_bytes(tmp_path):
    fifo = tmp_path / "f"
    os.mkfifo(fifo)

    def write():
        with open(fifo, "w") as f:  # waits for vernier to open it
            f.write(DATA)
    t = threading.Thread(target=write, daemon=True)
    t.start()
    p = run("run", "--runs", "3", "--quiet", "--show-output", "--timeout", "30", "--input", str(fifo),
            "wc -c")
    t.join(5)
    assert p.returncode == 0, p.stderr
    # Before, the second run waited for ever for a writer.
    assert counts(p.stdout) == [len(DATA)] * 3, p.stdout


def test_a_fifo_without_a_writer_ends_at_the_timeout(tmp_path):
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    out = tmp_path / "r.json"
    start = time.monotonic()
    proc = subprocess.Popen([VERNIER, "run", "--runs", "1", "--timeout", "1", "--json", str(out),
                             "--input", str(fifo), "cat"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    took = time.monotonic() - start
    assert took < 10
    assert proc.returncode == 1, err
    assert err.strip().splitlines() == [
        f"vernier run: --input '{fifo}' did not end within --timeout 1 s; a FIFO or pipe ends when "
        "its last writer closes it"]
    assert not out.exists()
    assert session_left(proc.pid) == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_ends_the_wait_for_a_fifo(tmp_path, sig):
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    out = tmp_path / "r.json"
    proc = subprocess.Popen([VERNIER, "run", "--runs", "2", "--json", str(out), "--input", str(fifo),
                             "cat"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        # Once vernier holds the FIFO open, it waits on it.
        wait_until(lambda: holds_open(proc.pid, fifo) or proc.poll() is not None,
                   what="vernier's wait on the FIFO")
        start = time.monotonic()
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
        took = time.monotonic() - start
    finally:
        proc.kill()
    assert took < 5
    assert proc.returncode == 128 + sig, err
    assert "interrupted" in err
    d = json.loads(out.read_text())
    validate(d, "results-1.json")
    assert d["interrupted"] is True and d["benchmarks"][0]["samples"] == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f", "r.json"]
    assert session_left(proc.pid) == []
