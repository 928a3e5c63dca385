"""vernier report end to end: pages made from a benchmark program's JSON,
vernier run's, vernier suite's (sweeps) and from two sides compared; one
self-contained file whose every plot is an inline SVG with something drawn,
names escaped, PNGs on request, the error without gnuplot, --report of the
program, run and suite; and the page opened in headless Chromium."""
import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from conftest import BUILD, VERNIER, one_line, run

MEMCPY = BUILD / "examples" / "memcpy_throughput"
SUM_ARRAYS = BUILD / "examples" / "sum_arrays"
ARTIFACTS = BUILD / "test-artifacts"
EVIL = "<script>alert(1)</script>&\"'"

pytestmark = pytest.mark.skipif(shutil.which("gnuplot") is None,
                                reason="needs gnuplot (scripts/install-deps --test installs gnuplot-nox)")


def figures(page):
    """(kind, inner html) of every plot's figure on the page: the figures
    of class plot, their kind in data-plot."""
    found = []
    for attrs, inner in re.findall(r"<figure\b([^>]*)>(.*?)</figure>", page, re.S):
        a = dict(re.findall(r'([\w-]+)="([^"]*)"', attrs))
        if a.get("class") == "plot":
            found.append((a["data-plot"], inner))
    return found


def tables(page):
    """The class names of each table on the page, a set per table."""
    return [set(c.split()) for c in re.findall(r'<table\b[^>]*\bclass="([^"]*)"', page)]


def check_page(page, want):
    """The page stands alone, and has the plots of want ({kind: count}),
    each an inline SVG with drawn paths."""
    # The doctype of HTML5, which is syntax, not wording.
    assert page.startswith("<!DOCTYPE html>")
    # Nothing to fetch: no script, style sheet, frame, font or image from elsewhere.
    assert not re.search(r'(?:src|href)\s*=\s*["\']?\s*(?:https?:|//)', page, re.I)
    assert not re.search(r"<(?:script|link|iframe|img|object|embed)\b", page, re.I)
    assert "@import" not in page and "url(http" not in page
    assert "<?xml" not in page
    figs = figures(page)
    assert Counter(k for k, _ in figs) == Counter(want)
    for kind, inner in figs:
        assert inner.lstrip().startswith("<svg"), kind
        # Paths with coordinates: the frame, the bars, the lines.
        assert len(re.findall(r"<path[^>]*\sd=['\"]M", inner)) >= 3, kind
    # Several SVGs on one page: every id its own, else one plot's markers
    # would draw with another's.
    ids = re.findall(r"\sid=['\"]([^'\"]+)['\"]", page)
    dup = [i for i, n in Counter(ids).items() if n > 1]
    assert not dup, dup[:5]
    for ref in re.findall(r"(?:href=['\"]#|url\(#)([^'\")]+)", page):
        assert ref in ids, ref


def kept(b):
    """Whether row b of a results file has a sample its headline keeps
    (neither its tags nor its process left out), and a headline that is
    not an upper bound (a body lost in the empty loop's noise has no
    values to draw, and its table row says so): the rows the page draws.
    A short run may leave a small copy an upper bound."""
    if b.get("upper_bound"):
        return False
    out = set(b.get("left_out") or [])
    procs = b.get("processes") or []
    for s in b["samples"]:
        k = s.get("process")
        if set(s["tags"]) & out or (k is not None and k < len(procs) and procs[k].get("left_out")):
            continue
        return True
    return False


def drawn(*paths):
    """How many benchmarks of the files (by name) have a histogram and a
    cumulative plot: those with kept samples in any of them. A short run on
    a busy machine may leave every sample of a row out."""
    rows = {}
    for path in paths:
        for b in json.loads(path.read_text())["benchmarks"]:
            rows[b["name"]] = rows.get(b["name"], False) or kept(b)
    return sum(rows.values())


def report(tmp_path, *args, check=0, name="report.html", env=None):
    out = tmp_path / name
    p = run("report", *args, "-o", str(out), check=check, env=env, timeout=120)
    return (out.read_text() if check == 0 else None), p


@pytest.fixture(scope="module")
def code_files(tmp_path_factory):
    """Two runs of memcpy_throughput (a sweep of sizes), one of them with a
    benchmark named with HTML in it."""
    d = tmp_path_factory.mktemp("code")
    files = []
    for side in ("base", "new"):
        path = d / f"{side}.json"
        subprocess.run([str(MEMCPY), "--quiet", "--max-time", "0.05", "--json", str(path)],
                       check=True, capture_output=True, timeout=120)
        files.append(path)
    doc = json.loads(files[0].read_text())
    doc["benchmarks"][0]["name"] = EVIL
    evil = d / "evil.json"
    evil.write_text(json.dumps(doc))
    return files[0], files[1], evil, len(doc["benchmarks"])


def test_a_programs_results(tmp_path, code_files):
    base, _, _, _ = code_files
    page, _ = report(tmp_path, str(base))
    n = drawn(base)
    check_page(page, {"sweep": 1, "hist": n, "cdf": n})
    # The tables of the file: the machine, its warnings, the clock, the config.
    for kind in ("machine", "clock", "config"):
        assert any({"kv", kind} <= t for t in tables(page)), kind
    assert "O(" in page  # the complexity fit of the sweep
    assert 'id="comparison"' not in page  # no section of a comparison


def test_names_are_escaped(tmp_path, code_files):
    _, _, evil, _ = code_files
    n = drawn(evil)
    page, _ = report(tmp_path, str(evil))
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;" in page
    # In the plots too, where gnuplot wrote the name as a title.
    assert len(re.findall(r"&lt;script", page)) >= 3
    check_page(page, {"sweep": 1, "hist": n, "cdf": n})


def test_two_sides_compared(tmp_path, code_files):
    base, new, _, n = code_files
    page, _ = report(tmp_path, str(base), "--", str(new))
    # A bar per benchmark compared, coloured by its verdict, as the table
    # says; a benchmark whose two sides met different core states (one
    # shared with another hardware thread) is not compared, as vernier
    # compare says, and with none compared there is no plot of ratios.
    p = run("compare", str(base), str(new), "--json", "-")
    cmp = json.loads(p.stdout)
    compared = len(cmp["benchmarks"])
    assert p.returncode == (0 if compared else 4), p.stderr  # 4: nothing could be compared
    check_page(page, {"ratios": 1 if compared else 0, "sweep": 1, "hist": drawn(base, new),
                      "cdf": drawn(base, new)})
    # Each benchmark compared, or not comparable with its reason (the core
    # states differed, or a side kept no sample).
    assert compared + len(cmp["not_comparable"]) == n
    verdicts = re.findall(r'<td class="verdict" style="color:(#\w+)">([^<]+)</td>', page)
    assert len(verdicts) == compared
    # Both sides in a benchmark's plots, where both kept samples.
    if drawn(base) + drawn(new) > drawn(base, new):
        hists = [inner for kind, inner in figures(page) if kind == "hist"]
        assert any(">base: " in h and ">new: " in h for h in hists)  # each side's series in its key
    if compared:
        ratios = dict(figures(page))["ratios"]
        for color, _ in verdicts:
            r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
            assert re.search(rf"rgb\(\s*{r},\s*{g},\s*{b}\)", ratios), color


def test_png(tmp_path, code_files):
    base, _, _, _ = code_files
    page, _ = report(tmp_path, str(base), "--png", str(tmp_path / "png"))
    pngs = sorted((tmp_path / "png").iterdir())
    assert len(pngs) == len(figures(page)) == 1 + 2 * drawn(base)
    for p in pngs:
        data = p.read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and data.endswith(b"IEND\xaeB`\x82"), p.name
        assert len(data) > 2000, p.name


def test_run_results(tmp_path):
    """vernier run's JSON of a parameter scan: a sweep of commands."""
    fake = tmp_path / "fake.txt"
    fake.write_text("".join(f"{10 + (i % 7) * 0.1}\n" for i in range(200)))
    out = tmp_path / "run.json"
    run("run", "--fake-exec", str(fake), "--runs", "10", "-P", "n", "1", "4", "--style", "none",
        "--json", str(out), "sleep {n}", check=0)
    page, _ = report(tmp_path, str(out))
    check_page(page, {"sweep": 1, "hist": 4, "cdf": 4})
    assert "sleep {n}" in page


def test_suite_quick_sweeps(tmp_path):
    out = tmp_path / "suite.json"
    run("suite", "--quick", "--quiet", "--json", str(out), "file.write.null", "syscall",
        check=0, timeout=240)
    rows = len(json.loads(out.read_text())["benchmarks"])
    page, _ = report(tmp_path, str(out))
    check_page(page, {"sweep": 1, "hist": rows, "cdf": rows})
    assert "file.write.null/size={size}" in page
    assert any("findings" in t for t in tables(page))


def test_report_option_of_run_suite_and_program(tmp_path):
    fake = tmp_path / "fake.txt"
    fake.write_text("5\n6\n5.5\n" * 10)
    page = tmp_path / "run.html"
    run("run", "--fake-exec", str(fake), "--runs", "10", "--style", "none", "--report", str(page),
        "a", "b", check=0)
    check_page(page.read_text(), {"hist": 2, "cdf": 2})

    page = tmp_path / "suite.html"
    run("suite", "--quick", "--quiet", "--report", str(page), "syscall.getpid", check=0, timeout=240)
    check_page(page.read_text(), {"hist": 1, "cdf": 1})

    # A program finds the tool along PATH, and leaves no file but the page.
    page = tmp_path / "prog.html"
    env = {"PATH": f"{Path(VERNIER).parent}:/usr/bin:/bin"}
    p = subprocess.run([str(SUM_ARRAYS), "--quiet", "--max-time", "0.05", "--report", str(page)],
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    check_page(page.read_text(), {"hist": 2, "cdf": 2})
    assert sorted(f.name for f in tmp_path.iterdir()) == ["fake.txt", "prog.html", "run.html", "suite.html"]


def test_program_without_the_tool(tmp_path):
    """Refused before anything is measured, with what to do."""
    p = subprocess.run([str(SUM_ARRAYS), "--report", str(tmp_path / "r.html")], capture_output=True,
                       text=True, env={"PATH": str(tmp_path)}, timeout=60)
    assert p.returncode == 1
    line = one_line(p.stderr)
    assert "--report" in line and "vernier" in line and "PATH" in line, line
    assert p.stdout == "" and not (tmp_path / "r.html").exists()


def test_without_gnuplot(tmp_path, code_files):
    base = code_files[0]
    _, p = report(tmp_path, str(base), check=1, env={"PATH": str(tmp_path)})
    assert "gnuplot-nox" in one_line(p.stderr)  # the package to install
    assert not (tmp_path / "report.html").exists()


def test_gnuplot_failure_is_one_line(tmp_path, code_files):
    fake = tmp_path / "gnuplot"
    fake.write_text("#!/bin/sh\ncat >/dev/null\necho 'line 3: all wrong' >&2\nexit 1\n")
    fake.chmod(0o755)
    _, p = report(tmp_path, str(code_files[0]), check=1, env={"PATH": f"{tmp_path}:/usr/bin:/bin"})
    line = one_line(p.stderr)
    assert "gnuplot" in line and re.search(r"\b1\b", line), line  # its exit status
    # gnuplot's own last line, passed through unchanged: its words are the subject.
    assert line.endswith(": line 3: all wrong"), line


@pytest.mark.parametrize("args, names", [
    ([], []),
    (["x.json", "--"], ["'--'"]),
    (["--threshold", "200", "x.json"], ["--threshold", "'200'"]),
])
def test_usage_errors(tmp_path, args, names):
    p = run("report", *args, "-o", str(tmp_path / "r.html"), check=2)
    line = one_line(p.stderr)
    assert all(n in line for n in names) and "--help" in line, line
    p = run("report", "x.json", check=2)
    assert "-o" in one_line(p.stderr)


def test_bad_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "vernier.results/1", ')
    _, p = report(tmp_path, str(bad), check=1)
    line = one_line(p.stderr)
    assert f"'{bad}'" in line and re.search(r"\b1\b", line.split(f"'{bad}'", 1)[1]), line  # line 1


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def test_page_in_headless_chromium(tmp_path, code_files):
    """The page loads in a browser without a console error, every plot is in
    its DOM, and a screenshot is kept in build/test-artifacts/."""
    browser = chromium()
    if not browser:
        pytest.skip("needs Chromium (scripts/install-deps --test installs it)")
    base, new, evil, _ = code_files
    page, _ = report(tmp_path, str(evil), "--", str(new))
    url = (tmp_path / "report.html").as_uri()
    common = [browser, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
              "--user-data-dir=" + str(tmp_path / "profile"), "--enable-logging=stderr", "--v=0"]
    try:
        dom = subprocess.run([*common, "--dump-dom", url], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        pytest.skip(f"Chromium cannot start: {e}")
    if dom.returncode != 0 or "<html" not in dom.stdout:
        pytest.skip(f"Chromium cannot start: {dom.stderr.strip().splitlines()[-1:]}")
    # Console messages and failed loads are logged as CONSOLE lines (Chromium's
    # words, not vernier's: they are how its log says so).
    console = [line for line in dom.stderr.splitlines() if "CONSOLE" in line or "Failed to load" in line]
    assert not console, console
    assert "<script" not in dom.stdout.replace("&lt;script", "")
    # The renamed benchmark is on one side only, and the one it was on the other.
    cmp = json.loads(run("compare", str(evil), str(new), "--json", "-").stdout)
    ratios = 1 if cmp["benchmarks"] else 0
    assert len(re.findall(r"<svg\b", dom.stdout)) == len(figures(page)) == ratios + 1 + 2 * drawn(evil, new)
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "report.png"
    shot.unlink(missing_ok=True)
    p = subprocess.run([*common, f"--screenshot={shot}", "--window-size=1280,2000",
                        "--hide-scrollbars", url], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG") and len(data) > 50000  # plots drawn, not a blank page
