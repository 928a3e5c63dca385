"""The console report of a benchmark program fits a screen: below the table,
one line per finding of at most 100 columns, each warning id once whatever
the number of rows it touched; --explain adds what each id means and what
to do, and the JSON keeps every warning in full. Run for real on
bench/workloads.c (six benchmarks)."""
import json
import os
import re
import subprocess

import pytest

from conftest import BUILD, stdout_on_a_terminal, validate

PROG = BUILD / "bench" / "bench_workloads"
THREE = "^(x_plus_x|sleep_10ms|random_work)$"


def run(tmp_path, *args):
    out = tmp_path / "r.json"
    p = subprocess.run([str(PROG), "--quiet", *args, "--json", str(out)], capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    d = json.loads(out.read_text())
    validate(d, "results-1.json")
    return d, p.stdout


def below_table(d, console):
    """The lines after the table's last row (blank ones counted)."""
    lines = console.splitlines()
    assert lines[0].startswith("benchmark ")
    n = len(d["benchmarks"])
    for b in d["benchmarks"]:
        assert lines[1 + d["benchmarks"].index(b)].startswith(b["name"] + " ")
    return lines[1 + n:]


def words(s):
    return re.sub(r"\s+", " ", s).strip()


def check_findings(d, rest):
    assert all(len(l) <= 100 for l in rest), [l for l in rest if len(l) > 100]
    # Each warning id once, on a line of its own naming the rows it touched.
    ids = {}
    for b in d["benchmarks"]:
        for w in b["warnings"]:
            ids.setdefault(w["id"], []).append(b["name"])
    also = [l for l in rest if l.startswith("also: ")]
    assert len(also) <= 1
    for wid, names in ids.items():
        found = [l for l in rest if re.match(r"^. " + re.escape(wid) + ": ", l)]
        if not found and also and f" {wid} (" in also[0]:
            part = re.search(r". " + re.escape(wid) + r" \(([^)]*)\)", also[0]).group(1)
            assert part.split(", ") == names
            continue
        if not found:  # counted in the also line's "N more"
            assert also and re.search(r"\d+ more \(--explain\)$", also[0]), (wid, rest)
            continue
        assert len(found) == 1, (wid, rest)
        more = re.search(r" and (\d+) more", found[0])
        named = sum(re.search(r"[ ,]" + re.escape(n) + r"\b", found[0]) is not None for n in names)
        assert named + (int(more.group(1)) if more else 0) == len(names), (found[0], names)
    # The machine's warnings in few lines, their fixes left to --explain.
    machine = [l for l in rest if l.startswith("machine: ")]
    assert len(machine) <= 2 and bool(machine) == bool(d["env"]["warnings"])
    for w in d["env"]["warnings"]:
        assert w["fix"] not in "\n".join(rest)
    assert sum(l.startswith("timer: ") for l in rest) == 1
    assert sum(l.startswith("variation between runs not measured: ") for l in rest) == 1
    for b in d["benchmarks"]:
        for w in b["warnings"]:
            assert w["message"] and w["brief"] and "\n" not in w["brief"]
            assert w["explanation"], w["id"]  # every id the engine gives is explained


def test_six_benchmarks_fit_in_eight_lines_below_the_table(tmp_path):
    d, console = run(tmp_path)
    assert len(d["benchmarks"]) == 6
    rest = below_table(d, console)
    assert len(rest) <= 9, console
    check_findings(d, rest)


def test_three_benchmarks_take_a_handful_of_lines(tmp_path):
    d, console = run(tmp_path, "--filter", THREE)
    assert [b["name"] for b in d["benchmarks"]] == ["x_plus_x", "sleep_10ms", "random_work"]
    rest = below_table(d, console)
    # A blank line, at most four lines of warnings (the fourth says "also:"),
    # the machine's, the counters' and the timer's, and what no run sees
    # (the variation between runs): nine at most, however many warnings a
    # loaded machine brings.
    assert len(rest) <= 9, console
    check_findings(d, rest)


def test_explain_says_what_each_warning_means_and_what_to_do(tmp_path):
    d, console = run(tmp_path, "--filter", THREE, "--explain")
    lines = console.splitlines()
    assert all(len(l) <= 100 for l in lines[1 + len(d["benchmarks"]):])
    text = words(console)
    assert "more: --explain" not in text
    for b in d["benchmarks"]:
        for w in b["warnings"]:
            # The id's explanation once, each row's message in full.
            assert text.count(words(f"{w['id']}: {w['explanation']}")) == 1, w["id"]
            assert words(f"{b['name']}: {w['message']}") in text, w
    for w in d["env"]["warnings"]:
        assert words(f"machine {w['id']}: {w['message']}") in text
        assert words(f"fix: {w['fix']}") in text
    for m in (d["counters"] or {}).get("missing", []):
        assert words(m["reason"]) in text and (not m["fix"] or words(m["fix"]) in text)
    assert re.search(r"\ntimer: \S+, .*\(", console)  # and why that timer


def test_without_explain_a_warning_says_where_more_is(tmp_path):
    d, console = run(tmp_path, "--filter", "^x_plus_x$")
    has = any(b["warnings"] for b in d["benchmarks"]) or d["env"]["warnings"]
    last = below_table(d, console)[-1]
    assert below_table(d, console)[-2].startswith("timer: ")
    # The run's own span, and that it cannot see the variation between runs.
    assert re.fullmatch(r"variation between runs not measured: \d+ processes within [0-9.e+-]+ s"
                        r"(; more: --explain)?", last), last
    assert f" {d['processes']['count']} processes " in last
    assert last.endswith("; more: --explain") == bool(has or (d["counters"] or {}).get("missing"))


def on_terminal(args, cols):
    """The program's standard output on a terminal cols wide, as text."""
    out, proc = stdout_on_a_terminal([str(PROG), *args], cols,
                                     env={**os.environ, "NO_COLOR": "1"}, timeout=300)
    assert proc.returncode == 0
    return out


def test_the_table_fits_the_terminal(tmp_path):
    # A file or a pipe gets every column; a terminal of 80 columns a table
    # of at most 80, the columns a reader needs least left out and named.
    d, piped = run(tmp_path, "--filter", THREE)
    header = piped.splitlines()[0].split()
    assert {"mean", "MAD", "min", "p99", "overhead"} <= set(header), header
    assert max(len(l) for l in piped.splitlines()[:1 + len(d["benchmarks"])]) > 80
    assert "left out to fit" not in piped
    console = on_terminal(["--filter", THREE], 80)
    lines = console.splitlines()
    assert lines[0].startswith("benchmark "), console
    n = len(d["benchmarks"])
    assert all(len(l) <= 80 for l in lines[:1 + n]), console
    note = lines[1 + n]
    assert note.startswith("left out to fit 80 columns: "), console
    left = note.split(": ", 1)[1].split(", ")
    assert left[0] == "overhead" and not set(left) & set(lines[0].split()), console
    assert set(lines[0].split()) | set(left) <= set(header) | {"warn"}, (header, console)
    # Wide enough for all of it: the same columns as the pipe.
    wide = on_terminal(["--filter", THREE], 250).splitlines()
    assert set(wide[0].split()) - {"warn"} == set(header) - {"warn"}, (header, wide[0])
    assert "left out to fit" not in "\n".join(wide)
