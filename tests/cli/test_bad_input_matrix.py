"""Every command's input readers against every class of bad input: a file
that is missing, a folder, empty, blank, binary, cut short, malformed,
nested past the parser's limit, holding a number out of range, a time
below 0, a name twice, unreadable. Each case must end with one line on
stderr that names the file, exit 1 (2 for a usage error), no signal, and
no output file: results are complete or absent."""
import json
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import VERNIER

GOOD = {"results": [{"command": "a", "times": [0.1, 0.2, 0.3]}]}

# The classes of bad input, as (name, bytes of the file) or a special kind.
JSON_CLASSES = {
    "missing": None,
    "folder": "DIR",
    "empty": b"",
    "blank": b" \n\t\n",
    "binary": b"\x00\x01\x02{\xff\xfe",
    "cut_short": json.dumps(GOOD).encode()[:25],
    "malformed": b'{"results": [1, 2,, 3]}',
    "not_results": b'{"hello": "world"}',
    "deep": b"[" * 1500 + b"]" * 1500,
    "out_of_range": b'{"results":[{"command":"a","times":[1e999]}]}',
    "negative": b'{"results":[{"command":"a","times":[0.1,-0.2]}]}',
    "twice": b'{"results":[{"command":"a","times":[0.1]},{"command":"a","times":[0.2]}]}',
    "not_utf8": b'{"results":[{"command":"\xff\xfe","times":[0.1,\xff]}]}',
    "unreadable": "NOREAD",
}
NUMBER_CLASSES = {
    "missing": None,
    "folder": "DIR",
    "empty": b"",
    "binary": b"1\n2\x00\n3\n",
    "garbage": b"1\nabc\n2\n",
    "nan": b"1\nnan\n2\n",
    "out_of_range": b"1\n1e999\n2\n",
    "too_small": b"1\n1e-999\n2\n",
    "lone_cr": b"1\r2\r3\r",
    "unreadable": "NOREAD",
}
INPUT_CLASSES = {"missing": None, "folder": "DIR", "unreadable": "NOREAD"}

# command templates: IN is the bad file, OUT an output that must not appear.
READERS = [
    ("compare_base", ["compare", "--json", "OUT", "IN", "GOOD"], JSON_CLASSES),
    ("compare_new", ["compare", "--json", "OUT", "GOOD", "IN"], JSON_CLASSES),
    ("compare_sides", ["compare", "--json", "OUT", "GOOD", "--", "IN"], JSON_CLASSES),
    ("report", ["report", "IN", "-o", "OUT"], JSON_CLASSES),
    ("stats", ["stats", "--json", "OUT", "IN"], NUMBER_CLASSES),
    ("run_input", ["run", "--runs", "1", "--json", "OUT", "--input", "IN", "cat"], INPUT_CLASSES),
]
CASES = [(r, c) for r, _, classes in READERS for c in classes]


def test_the_matrix_counts_its_cases():
    assert len(CASES) == 4 * len(JSON_CLASSES) + len(NUMBER_CLASSES) + len(INPUT_CLASSES)


def make(tmp_path, kind):
    f = tmp_path / "bad.in"
    if kind is None:
        return f
    if kind == "DIR":
        f.mkdir()
        return f
    if kind == "NOREAD":
        f.write_text(json.dumps(GOOD))
        f.chmod(0)
        return f
    f.write_bytes(kind)
    return f


def as_user(cmd, cwd):
    """Root reads any file: an unreadable one is tried as nobody."""
    if os.geteuid() != 0:
        return cmd
    os.chmod(cwd, 0o777)
    return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", *cmd]


@pytest.mark.parametrize("reader, cls", CASES, ids=[f"{r}-{c}" for r, c in CASES])
def test_bad_input_is_one_line_and_no_output(tmp_path, reader, cls):
    template, classes = next((t, c) for r, t, c in READERS if r == reader)
    if classes[cls] == "NOREAD" and os.geteuid() == 0:
        # A folder the user nobody can reach: pytest's own are root's alone.
        tmp_path = Path(tempfile.mkdtemp(dir="/tmp"))
        tmp_path.chmod(0o777)
    bad = make(tmp_path, classes[cls])
    good = tmp_path / "good.json"
    good.write_text(json.dumps(GOOD))
    out = tmp_path / "out.file"
    args = [str(bad) if w == "IN" else str(good) if w == "GOOD" else str(out) if w == "OUT" else w
            for w in template]
    cmd = [VERNIER, *args]
    if classes[cls] == "NOREAD":
        cmd = as_user(cmd, tmp_path)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path,
                       errors="replace")
    assert p.returncode in (1, 2), (p.returncode, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("vernier ") and "bad.in" in lines[0], lines[0]
    assert "Traceback" not in p.stderr and "Sanitizer" not in p.stderr
    assert not out.exists()
    assert not list(tmp_path.glob("out.file.tmp.*"))
    if classes[cls] == "NOREAD":
        bad.chmod(stat.S_IRUSR | stat.S_IWUSR)
        if os.geteuid() == 0:
            shutil.rmtree(tmp_path)
