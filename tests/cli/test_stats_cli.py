"""End-to-end tests of `vernier stats` as a command: where the numbers come
from, how bad input is reported, the exit codes, and the output files."""
import errno
import json
import os
import re
import stat

import pytest

from conftest import SOURCE, check_golden, error_line, run, validate

FIX = SOURCE / "tests" / "fixtures" / "numbers"


def stats_json(*args, **kw):
    p = run("stats", "--json", "-", *args, check=0, **kw)
    doc = json.loads(p.stdout)
    validate(doc, "stats-1.json")
    return doc["stats"]


def test_file_and_stdin_agree():
    from_file = stats_json(str(FIX / "plain.txt"))
    text = (FIX / "plain.txt").read_text()
    assert stats_json(input=text) == from_file
    assert stats_json("-", input=text) == from_file
    # Comments and blank lines are skipped: 10 numbers, one a preemption;
    # the median is the mean of the middle two, 1199 and 1202.
    assert from_file["n"] == 10
    assert from_file["max"] == 48211
    assert from_file["median"] == 1200.5
    assert from_file["outliers"]["high_severe"] == 1


def test_text_report():
    # The golden of the text report, the one test that holds its wording:
    # the same numbers always print the same bytes (an outlier to 3
    # digits, the median's interval from order statistics, the mean's from
    # Student's t), with no color into a pipe.
    p = run("stats", str(FIX / "plain.txt"), "--unit", "ns", check=0)
    assert p.stderr == ""
    check_golden("stats-plain.txt", p.stdout)
    assert "\033[" not in p.stdout


def test_csv_column_with_header():
    s = stats_json("--column", "2", str(FIX / "table.csv"))
    assert s["n"] == 5
    assert s["min"] == 9.75 and s["max"] == 12
    assert s["median"] == 10.5
    assert stats_json("--column", "3", str(FIX / "table.csv"))["max"] == 36


def test_whitespace_columns_and_crlf():
    s = stats_json("--column", "2", str(FIX / "spaces.txt"))
    assert s["n"] == 3 and s["min"] == 2.5 and s["max"] == 3.5


def test_comments_and_blank_lines():
    s = stats_json(input="# header comment\n\n  3\n\t\n1\n   # indented comment\n2\n")
    assert s["n"] == 3 and s["median"] == 2


def test_non_numeric_value_names_the_line():
    p = run("stats", input="1\n2\n3\n\n# note\n4\nabc\n5\n")
    error_line(p, 1, "stats", "line 7", "'abc'")
    assert p.stdout == ""
    p = run("stats", str(FIX / "errors.txt"))
    error_line(p, 1, "stats", str(FIX / "errors.txt"), "line 3", "'nan'")


@pytest.mark.parametrize("bad", ["inf", "-inf", "NaN", "1e400"])
def test_non_finite_values(bad):
    p = run("stats", input=f"1\n{bad}\n")
    error_line(p, 1, "stats", "line 2", f"'{bad}'")
    assert p.stdout == ""


@pytest.mark.parametrize("values", ["-1e308\n1e308\n", "1e308\n1.7e308\n1.7e308\n"])
def test_numbers_whose_spread_or_mean_interval_overflow_are_refused(values):
    # The summary's ERANGE, said as the system says it.
    p = run("stats", input=values)
    error_line(p, 1, "stats", os.strerror(errno.ERANGE))
    assert p.stdout == ""


def test_huge_values_keep_finite_percentages_and_short_lines():
    # Near the largest double the percentages are still computed, not +-inf%.
    p = run("stats", input="1.5e308\n1.55e308\n1.5e308\n1.55e308\n1.52e308\n1.5e308\n1.55e308\n")
    assert p.returncode == 0
    assert "inf" not in p.stdout and "+- -" not in p.stdout
    assert re.search(r"^median .*\(\+-\d+\.\d+%\)$", p.stdout, re.M), p.stdout
    # Durations of 1e40 ns are shown in exponent notation, not 30 digits.
    p = run("stats", "--unit", "ns", input="1e40\n2e40\n3e40\n")
    assert "2e+31 s" in p.stdout
    assert max(len(line) for line in p.stdout.splitlines()) < 120


def test_column_errors():
    table = str(FIX / "table.csv")
    p = run("stats", "--column", "1", table)
    error_line(p, 1, "stats", table, "line 3", "'a'", "--column")  # line 2 was the header
    # Line 2 has 3 fields, and no field 5.
    p = run("stats", "--column", "5", table)
    line = error_line(p, 1, "stats", table, "line 2")
    assert {"3", "5"} <= set(re.findall(r"\d+", line.replace(table, ""))), line
    # Several fields on a line: the option that reads one of them.
    p = run("stats", input="1,2,3\n3\n")
    error_line(p, 1, "stats", "line 1", "'1,2,3'", "--column")
    # Digits, one comma, digits: a decimal comma ('.' is the point), or
    # two columns.
    p = run("stats", input="1,5\n")
    error_line(p, 1, "stats", "line 1", "'1,5'", "'.'", "--column")


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n"])
def test_empty_input(text, tmp_path):
    p = run("stats", input=text)
    error_line(p, 1, "stats")
    assert p.stdout == ""
    # A file with no numbers is named.
    path = tmp_path / "empty.txt"
    path.write_text(text)
    error_line(run("stats", str(path)), 1, "stats", path)


def test_missing_file(tmp_path):
    path = tmp_path / "nope.txt"
    p = run("stats", str(path))
    error_line(p, 1, "stats", path, os.strerror(errno.ENOENT))


def test_binary_input_is_said_to_be_binary(tmp_path):
    # An executable has NUL bytes, and carriage returns but no newline in
    # its first lines: it was told its lines end in a carriage return alone.
    path = tmp_path / "prog"
    path.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\r\x03\x00>\x00\r" * 40)
    # Said on one short line that names the file and the line of the first
    # NUL, and echoes none of the file's bytes.
    p = run("stats", str(path))
    line = error_line(p, 1, "stats", path, "line 1")
    assert line.isprintable() and len(line) - len(str(path)) < 120, line
    p = run("stats", "-", input="1\n2\n3\x00\n")
    line = error_line(p, 1, "stats", "line 3")
    assert line.isprintable() and len(line) < 120, line


def test_directory_is_not_readable(tmp_path):
    p = run("stats", str(tmp_path))
    error_line(p, 1, "stats", tmp_path, os.strerror(errno.EISDIR))


def test_a_wide_spread_prints_no_infinite_share():
    # The mean's interval is computed from ends near the largest double; no
    # '+- -' and no '+-inf%' where the share exceeds what a double holds.
    p = run("stats", input="1e308\n2\n3\n")
    assert p.returncode == 0, p.stderr
    assert "inf" not in p.stdout and "+- -" not in p.stdout
    assert re.search(r"^mean .* \+- 1\.43\d*e\+308 \(\+-430%\)$", p.stdout, re.M), p.stdout


@pytest.mark.parametrize("args, names", [
    (["--bogus"], ["'--bogus'"]), (["-x"], ["'-x'"]), (["a.txt", "b.txt"], ["'b.txt'"]),
    (["--unit", ""], ["--unit"]), (["--unit", "x\ny"], ["--unit"]),
    (["--unit", "\x1b[31mns"], ["--unit"]),
    (["--json"], ["--json"]), (["--json", ""], ["--json"])])
def test_usage_errors(args, names):
    # One line naming what is wrong and where the usage is; no control
    # character of the argument reaches the terminal.
    p = run("stats", *args, input="1\n")
    line = error_line(p, 2, "stats", *names, "--help")
    assert line.isprintable(), line


@pytest.mark.parametrize("col", ["0", "-1", "abc", "", "1.5", "+2"])
def test_bad_column(col):
    p = run("stats", "--column", col, input="1\n")
    error_line(p, 2, "stats", "--column", f"'{col}'", "--help")


def test_help():
    # The layout cli/cli.h fixes and scripts/helpdoc reads: "usage: " and
    # the command's words first.
    p = run("stats", "--help", check=0)
    first = p.stdout.splitlines()[0]
    assert first.startswith("usage: ") and first.split()[1:3] == ["vernier", "stats"], first
    for opt in ("--column", "--unit", "--hist", "--json"):
        assert opt in p.stdout
    assert "stats" in run("--help", check=0).stdout.split()


def test_json_to_file_and_text_to_stdout(tmp_path):
    out = tmp_path / "s.json"
    p = run("stats", "--json", str(out), str(FIX / "integers.txt"), check=0)
    assert p.stdout.startswith("values")  # the text report still goes to stdout
    doc = json.loads(out.read_text())
    validate(doc, "stats-1.json")
    assert doc["unit"] is None and doc["stats"]["n"] == 300
    h = doc["histogram"]
    assert sum(h["counts"]) + h["below"] + h["above"] == 300
    doc = json.loads(run("stats", "--json", "-", "--unit", "cycles", input="1\n2\n", check=0).stdout)
    assert doc["unit"] == "cycles"


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write into a read-only directory")
def test_json_to_unwritable_path(tmp_path):
    d = tmp_path / "ro"
    d.mkdir()
    d.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        p = run("stats", "--json", str(d / "s.json"), input="1\n2\n")
        assert p.returncode == 1
        assert str(d / "s.json") in p.stderr
        assert list(d.iterdir()) == []
    finally:
        d.chmod(stat.S_IRWXU)


def test_json_under_a_file(tmp_path):
    # Unwritable even for root: a file cannot hold a directory entry.
    f = tmp_path / "plain"
    f.write_text("x")
    p = run("stats", "--json", str(f / "s.json"), input="1\n2\n")
    assert p.returncode == 1
    assert str(f / "s.json") in p.stderr
    assert sorted(x.name for x in tmp_path.iterdir()) == ["plain"]


def test_json_into_missing_directory(tmp_path):
    path = tmp_path / "no" / "such" / "dir" / "s.json"
    p = run("stats", "--json", str(path), input="1\n2\n")
    assert p.returncode == 1
    assert str(path) in p.stderr
    assert not (tmp_path / "no").exists()
    assert list(tmp_path.iterdir()) == []


def test_json_through_symlinks(tmp_path):
    # A link to a file, and a link whose target does not exist yet: the
    # links stay, and their targets get the results.
    (tmp_path / "sub").mkdir()
    (tmp_path / "old.json").write_text("old")
    (tmp_path / "to-old.json").symlink_to("old.json")
    (tmp_path / "to-new.json").symlink_to("sub/new.json")
    for link in ("to-old.json", "to-new.json"):
        run("stats", "--json", str(tmp_path / link), input="1\n2\n", check=0)
        assert (tmp_path / link).is_symlink()
    assert json.loads((tmp_path / "old.json").read_text())["stats"]["n"] == 2
    assert json.loads((tmp_path / "sub" / "new.json").read_text())["stats"]["n"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.json", "sub", "to-new.json", "to-old.json"]
    # A chain of links to a file not there yet: every link stays.
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("sub/c.json")
    run("stats", "--json", str(tmp_path / "a"), input="1\n2\n3\n", check=0)
    assert (tmp_path / "a").is_symlink() and (tmp_path / "b").is_symlink()
    assert json.loads((tmp_path / "sub" / "c.json").read_text())["stats"]["n"] == 3
    # Links that go round: an error, and the links stay.
    (tmp_path / "l1").symlink_to("l2")
    (tmp_path / "l2").symlink_to("l1")
    p = run("stats", "--json", str(tmp_path / "l1"), input="1\n2\n")
    error_line(p, 1, "stats", tmp_path / "l1", os.strerror(errno.ELOOP))
    assert (tmp_path / "l1").is_symlink() and (tmp_path / "l2").is_symlink()


def test_hist_graph():
    p = run("stats", "--hist", "--unit", "ns", str(FIX / "integers.txt"), check=0)
    out = p.stdout
    summary = [l for l in out.splitlines() if l.startswith("min=")]
    assert len(summary) == 1
    for key in ("min=", "max=", "count=300", "p50=", "p90=", "p95=", "p99=", "mad="):
        assert key in summary[0]
    lines = out.splitlines()
    head = next(i for i, l in enumerate(lines) if re.match(r"^\s*value │", l))
    assert lines[head].rstrip().endswith("count")
    rows = [l for l in lines[head + 1:] if "│" in l]
    counts = [int(l.split()[-1]) for l in rows if re.search(r"\d+$", l) and "values" not in l]
    assert 8 <= len(counts) <= 24
    # The four preemptions (60x the median) are beyond the upper fence: they
    # get their own row instead of stretching the axis.
    tail = [l for l in rows if l.lstrip().startswith(">")]
    # Its row says how many (4) and the largest (75.0 us).
    assert len(tail) == 1 and re.search(r"\b4\b.*\b75\.0 us$", tail[0]), tail
    assert sum(counts) == 296
    # The cumulative bar (both glyphs) only grows, and ends near full width.
    bars = [len(re.findall("[▒░]", l)) for l in rows if "values" not in l]
    assert bars == sorted(bars) and bars[-1] >= 46


def test_outliers_a_few_ppm_away_print_on_their_side_of_the_median():
    # Values a few parts in a million apart with a severe outlier on each
    # side: shown to 3 significant digits, both would read 3.08 ns, below
    # the median of 3.0825910 ns. Every printed number keeps its order.
    body = [3.082591 + 1e-6 * ((k * 37) % 101 - 50) / 50 for k in range(200)]
    text = "\n".join(repr(v) for v in body + [3.0826010, 3.082563]) + "\n"
    out = run("stats", "--hist", "--unit", "ns", input=text, check=0).stdout

    def ns(word):
        m = re.match(r"([\d.]+)\s*(ns|us)$", word)
        return float(m.group(1)) * (1e3 if m.group(2) == "us" else 1)
    summary = dict(w.split("=", 1) for w in next(l for l in out.splitlines() if l.startswith("min=")).split())
    order = [ns(summary[k]) for k in ("min", "p50", "p90", "p95", "p99", "max")]
    assert order == sorted(order) and order[0] < order[1] < order[-1], summary
    line = {l.split()[0]: l.split(None, 1)[1] for l in out.splitlines() if l[:1].isalpha()}
    assert ns(line["min"]) < ns(summary["p50"]) < ns(line["max"])
    assert "<0.01%" in line["median"] and "0.00%" not in out
    low = next(l for l in out.splitlines() if l.lstrip().startswith("<"))
    high = next(l for l in out.splitlines() if l.lstrip().startswith(">"))
    edge = lambda l: ns(re.search(r"[<>] ([\d.]+ ns)", l).group(1))
    far = lambda l: ns(re.search(r"(?:down|up) to ([\d.]+ ns)", l).group(1))
    assert far(low) < edge(low) and far(high) > edge(high)


def test_hist_with_json_to_stdout_prints_only_json():
    p = run("stats", "--hist", "--json", "-", input="1\n2\n3\n", check=0)
    json.loads(p.stdout)
    assert "│" not in p.stdout


def test_colors_only_when_asked():
    # A pipe gets no color; NO_COLOR is honoured on a terminal (see
    # vn_cli_report_flags), which the pty test of `vernier env` covers.
    p = run("stats", "--hist", input="1\n2\n3\n4\n5\n100000\n", check=0)
    assert "\033[" not in p.stdout
