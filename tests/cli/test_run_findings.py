"""vernier run's warnings fit a screen: below the summaries, one line per
finding of at most 100 columns naming the commands it touched, the messages
left to --explain, which prints each warning's explanation and every
message in full; the JSON carries the message, the brief and the
explanation of each. The fake executor makes seven kinds of warning fire
on three commands, the same every time: their console is also the one
test of `vernier run`'s console that keeps its words (a golden file)."""
import json
import re

from conftest import check_golden, run, validate

COMMANDS = ["alpha --quick", "beta --with-flags", "gamma"]


def runs_file(tmp_path):
    """Three commands' runs, taken in turn: alpha starts slow, has two modes
    and fails now and then; beta grows run by run; gamma has a few far
    outliers. All are short."""
    a = [200.0] + [1.0 + 0.6 * ((i * 7) % 2) + 0.01 * (i % 5) for i in range(29)]
    a_exit = [1 if i % 9 == 4 else 0 for i in range(30)]
    b = [1.0 + 0.1 * i for i in range(30)]
    c = [2.0 + 0.01 * (i % 7) if i % 10 != 3 else 30.0 for i in range(30)]
    lines = []
    for i in range(30):
        lines += ["%g 0.5 0.2 1500 %d" % (a[i], a_exit[i]), "%g 0.5 0.2 1500 0" % b[i],
                  "%g 0.5 0.2 1500 0" % c[i]]
    p = tmp_path / "runs.txt"
    p.write_text("\n".join(lines) + "\n")
    return str(p)


def vernier_run(tmp_path, *extra):
    out = tmp_path / "r.json"
    p = run("run", "--fake-exec", runs_file(tmp_path), "-i", "--runs", "30", "--json", str(out),
            *extra, *COMMANDS, check=0)
    d = json.loads(out.read_text())
    validate(d, "results-1.json")
    return d, p.stdout


def below_summaries(console):
    """The lines after the comparison, which the findings follow."""
    lines = console.splitlines()
    start = lines.index("Comparison")
    while lines[start]:
        start += 1
    return lines[start + 1:]


def words(s):
    return re.sub(r"\s+", " ", s).strip()


def warnings(d):
    return [(b["name"], w) for b in d["benchmarks"] for w in b["warnings"]]


def test_the_warnings_fire(tmp_path):
    d, _ = vernier_run(tmp_path)
    ids = {w["id"] for _, w in warnings(d)}
    assert ids == {"too_short", "slow_first_run", "outliers", "high_variance", "multimodal",
                   "failed_runs", "drift"}


def test_each_finding_is_a_line_of_at_most_100_columns(tmp_path):
    d, console = vernier_run(tmp_path)
    assert all(len(l) <= 100 for l in console.splitlines()), console
    rest = below_summaries(console)
    text = "\n".join(rest)
    # Each id said once: on a line of its own that names the commands it
    # touched (between quotes, as the comparison names them), or on the
    # line that gathers the rest, or counted there.
    also = [l for l in rest if l.startswith("also: ")]
    assert len(also) <= 1
    for wid in {w["id"] for _, w in warnings(d)}:
        names = [n for n, w in warnings(d) if w["id"] == wid]
        own = [l for l in rest if re.match(r"^. " + re.escape(wid) + ": ", l)]
        if own:
            assert len(own) == 1, (wid, rest)
            assert all(f"'{n}'" in own[0] for n in names), (own[0], names)
        elif also and f" {wid} (" in also[0]:
            assert all(f"'{n}'" in also[0] for n in names), (also[0], names)
        else:
            assert also and re.search(r"\d+ more \(--explain\)$", also[0]), (wid, rest)
    # The messages are long: none of them is printed, and the explanations
    # are --explain's.
    for _, w in warnings(d):
        assert w["message"] not in console
        assert w["explanation"] not in console
    # A finding per line, not a paragraph per warning.
    assert len(rest) <= 8, text
    assert "--explain" in rest[-1]


def test_explain_prints_every_warning_in_full(tmp_path):
    d, console = vernier_run(tmp_path, "--explain")
    assert all(len(l) <= 100 for l in console.splitlines()), console
    text = words(console)
    assert "more: --explain" not in text
    for name, w in warnings(d):
        # The id's explanation once, each command's message in full.
        assert text.count(words(f"{w['id']}: {w['explanation']}")) == 1, w["id"]
        assert words(f"'{name}': {w['message']}") in text, (name, w)


def test_json_carries_message_brief_and_explanation(tmp_path):
    d, console = vernier_run(tmp_path)
    for name, w in warnings(d):
        assert w["message"] and w["explanation"], (name, w)
        # The brief is the console's few words, not the message again.
        assert w["brief"] and len(w["brief"]) < len(w["message"]) and "\n" not in w["brief"]
    # Numbers first, so what differs between commands leads their line.
    briefs = {w["id"]: w["brief"] for name, w in warnings(d) if name == "alpha --quick"}
    assert re.match(r"200 ms\b.*\b1\.32 ms\b", briefs["slow_first_run"]), briefs
    assert briefs["outliers"].startswith("1/30 "), briefs
    assert briefs["failed_runs"].startswith("3/30 ") and "--ignore-failure" in briefs["failed_runs"], briefs
    # The line of an id that touched several commands gives each its own
    # number, after its name, and what they share once.
    (line,) = [l for l in below_summaries(console) if re.match(r"^. outliers: ", l)]
    assert "'alpha --quick' 1/30, 'gamma' 3/30 " in line, line


def test_the_console_is_the_golden_one(tmp_path):
    """The summaries, the comparison and the findings below them, word for
    word: the fake executor makes them the same on every machine."""
    _, console = vernier_run(tmp_path)
    check_golden("run-console.txt", console)
