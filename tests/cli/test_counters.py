"""Performance counters end to end: benchmark programs run with --counters,
their JSON checked against the schema and against what the workload does
(a page fault per new page, a context switch per sleep), the usage errors,
`--counters none`, `vernier env`'s counters, and the golden results file of
the reporter test (tests/unit/test_results_counters.c) against the schema
and its CSV views."""
import copy
import csv
import io
import json
import os
import re
from pathlib import Path

import jsonschema
import pytest

from conftest import SOURCE, run, validate

BUILD = Path(os.environ.get("VN_BUILD_DIR", Path(__file__).resolve().parents[2] / "build"))
EX = BUILD / "examples"
GOLDEN = SOURCE / "tests" / "golden"
QUICK = ["--quiet", "--max-time", "0.3", "--warmup", "0.005"]


def run_ex(name, *args, timeout=120):
    import subprocess
    return subprocess.run([str(EX / name), *args], capture_output=True, text=True, timeout=timeout)


def results(name, *args):
    p = run_ex(name, *QUICK, *args, "--json", "-")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    validate(d, "results-1.json")
    return d, p


def software_counters_work():
    d = json.loads(run("env", "--json", "-", check=0).stdout)
    ev = {e["name"]: e for e in (d["counters"] or {}).get("events", [])}
    return ev.get("page-faults", {}).get("works") and ev.get("context-switches", {}).get("works")


needs_software = pytest.mark.skipif(not software_counters_work(),
                                    reason="software perf events cannot be opened here")


@needs_software
def test_faults_and_switches_per_iteration():
    d, p = results("page_faults", "--counters", "page-faults,context-switches,task-clock")
    c = d["counters"]
    assert c["requested"] == "page-faults,context-switches,task-clock"
    assert c["opened"] == ["page-faults", "context-switches", "task-clock"]
    assert c["missing"] == [] and c["split"] is False
    touch, sleep = d["benchmarks"]
    # One new page per iteration: at least one fault each.
    assert touch["counters"]["page-faults"]["value"] >= 1.0
    assert touch["counters"]["page-faults"]["value"] < 1.5
    assert touch["counters"]["page-faults"]["unit"] == "count"
    # One sleep per iteration: at least one context switch each; and the
    # CPU time of a sleep is a small part of its wall time.
    assert sleep["counters"]["context-switches"]["value"] >= 1.0
    assert sleep["counters"]["task-clock"]["unit"] == "ns"
    assert sleep["counters"]["task-clock"]["value"] < 0.5 * sleep["stats"]["median"]
    # The empty loop neither faults nor sleeps.
    assert touch["counters"]["page-faults"]["overhead"] < 0.01
    # Every sample has its counts, in the order of "opened".
    for s in touch["samples"]:
        assert len(s["counters"]) == 3 and s["counters"][0] >= 1.0
    # Ratios need hardware events: none here.
    assert touch["derived"] == {"ipc": None, "branch_miss_pct": None, "cache_miss_pct": None,
                                "insn_per_byte": None}
    # The console shows them as columns.
    header = p.stderr.splitlines()[0].split()
    assert {"faults", "cs", "task-clock"} <= set(header)


@needs_software
def test_default_counters_name_what_is_missing_once():
    d, p = results("x_plus_x")
    c = d["counters"]
    assert c["requested"] == "default"
    assert d["config"]["counters"] is None
    names = set(c["opened"]) | {m["name"] for m in c["missing"]}
    assert names == {"cycles", "instructions", "branches", "branch-misses", "cache-references",
                     "cache-misses"}
    for m in c["missing"]:
        assert m["reason"] and m["errno"] > 0
    # Said once below the table: one line per distinct reason.
    reasons = {(m["reason"], m["fix"]) for m in c["missing"]}
    lines = [l for l in p.stderr.splitlines() if l.startswith("counters:") and " counted: " in l]
    assert len(lines) == len(reasons)
    for m in c["missing"]:
        assert any(m["reason"] in l for l in lines)
        assert m["fix"] not in p.stderr  # the fix is --explain's
    b = d["benchmarks"][0]
    assert set(b["counters"]) == set(c["opened"])


def test_counters_none_turns_them_off():
    d, p = results("x_plus_x", "--counters", "none")
    assert d["counters"] is None
    assert d["config"]["counters"] == "none"
    b = d["benchmarks"][0]
    assert b["counters"] is None and b["derived"] is None
    assert all("counters" not in s for s in b["samples"])
    assert "counters:" not in p.stderr


@pytest.mark.parametrize("value,needle", [
    ("bogus", "unknown counter 'bogus' (counters: default, none, cycles,"),
    ("cycles,,branches", "empty name"),
    ("none,cycles", "'none' cannot be combined"),
    ("", "empty name"),
])
def test_bad_lists_are_usage_errors(value, needle):
    p = run_ex("x_plus_x", "--counters", value)
    assert p.returncode == 2, p.stderr
    assert needle in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    assert "--help" in p.stderr


def test_a_vendor_event_name():
    p = run_ex("x_plus_x", *QUICK, "--counters", "MEM_LOAD_RETIRED.L3_MISS,task-clock", "--json",
               "-")
    if p.returncode == 2:
        # A build without libpfm4 says so and how to get it.
        assert "libpfm4" in p.stderr and "libpfm4-dev" in p.stderr
        assert len(p.stderr.strip().splitlines()) == 1
        return
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    validate(d, "results-1.json")
    c = d["counters"]
    names = c["opened"] + [m["name"] for m in c["missing"]]
    assert names == ["MEM_LOAD_RETIRED.L3_MISS", "task-clock"] or \
        sorted(names) == ["MEM_LOAD_RETIRED.L3_MISS", "task-clock"]
    missing = {m["name"]: m for m in c["missing"]}
    if "MEM_LOAD_RETIRED.L3_MISS" in missing:
        assert missing["MEM_LOAD_RETIRED.L3_MISS"]["reason"]


def test_help_names_the_option():
    p = run_ex("x_plus_x", "--help")
    assert re.search(r"^  --counters\b", p.stdout, re.M)  # an entry of the options


def test_env_reports_which_counters_work():
    p = run("env", "--json", "-", check=0)
    d = json.loads(p.stdout)
    validate(d, "env-1.json")
    c = d["counters"]
    assert [e["name"] for e in c["events"]][:6] == ["cycles", "instructions", "branches",
                                                   "branch-misses", "cache-references",
                                                   "cache-misses"]
    assert len(c["events"]) == 16
    for e in c["events"]:
        if not e["works"]:
            assert e["reason"] and e["errno"] > 0
    text = run("env", check=0).stdout
    assert "\nCounters\n" in text
    assert all(len(l) <= 100 for l in text.splitlines()), text
    # Rows wrapped at 100 columns joined again: a line indented 5 or more
    # continues the one before, but a reason's or a fix's own line.
    rows = []
    for line in text.split("\nCounters\n", 1)[1].split("\n\n", 1)[0].splitlines():
        body = line.lstrip(" ")
        if rows and len(line) - len(body) >= 5 and not body.startswith(("why: ", "fix: ")):
            rows[-1] += " " + body
        else:
            rows.append(line)

    def names(row):
        """The events a row lists, after its label (without a note in brackets)."""
        return [n.split(" (")[0] for n in re.split(r"\s{2,}", row.strip(), maxsplit=1)[1].split(", ")]
    # The working events on the first row; then, for each reason the others
    # failed, a row of the events it keeps out, its reason and its fix (as
    # the JSON gives them); the row of named PMU events last.
    working = [e["name"] for e in c["events"] if e["works"]]
    assert names(rows[0]) == (working or ["none"]), rows[0]
    groups = {}
    for e in c["events"]:
        if not e["works"]:
            groups.setdefault((e["reason"], e["fix"]), []).append(e["name"])
    at = 1
    for (reason, fix), group in groups.items():
        assert names(rows[at]) == group, rows[at]
        assert rows[at + 1].endswith(reason or "unknown"), rows[at + 1]
        at += 2
        if fix:
            assert rows[at].endswith(fix), rows[at]
            at += 1
    assert len(rows) == at + 1, rows


# ---- The golden file of the reporter test ------------------------------------------

@pytest.fixture(scope="module")
def golden():
    return json.loads((GOLDEN / "results-counters.json").read_text())


def invalid(doc, change):
    d = copy.deepcopy(doc)
    change(d)
    with pytest.raises(jsonschema.ValidationError):
        validate(d, "results-1.json")


def bench(doc, name):
    return next(b for b in doc["benchmarks"] if b["name"] == name)


def test_golden_counters_file_is_valid_and_strict(golden):
    validate(golden, "results-1.json")
    invalid(golden, lambda d: d["counters"].__setitem__("surprise", 1))
    invalid(golden, lambda d: d["counters"]["missing"][0].pop("fix"))
    invalid(golden, lambda d: d["counters"]["opened"].append("has space"))
    invalid(golden, lambda d: bench(d, "sum/n=1024")["counters"]["instructions"]
            .__setitem__("unit", "bananas"))
    invalid(golden, lambda d: bench(d, "sum/n=1024")["counters"]["instructions"].pop("scaled"))
    invalid(golden, lambda d: bench(d, "sum/n=1024")["counters"]["instructions"]
            .__setitem__("value", -1))
    invalid(golden, lambda d: bench(d, "sum/n=1024")["derived"].__setitem__("ipc", "high"))
    invalid(golden, lambda d: bench(d, "sum/n=1024").pop("derived"))
    invalid(golden, lambda d: bench(d, "sum/n=1024")["samples"][0].__setitem__("counters", "x"))


def test_golden_counters_agree_with_csv(golden):
    rows = list(csv.DictReader(io.StringIO((GOLDEN / "results-counters.csv").read_text())))
    assert [r["name"] for r in rows] == [b["name"] for b in golden["benchmarks"]]
    for row, b in zip(rows, golden["benchmarks"]):
        for name, c in b["counters"].items():
            field = row["counter." + name]
            assert (float(field) if field else None) == c["value"]
        scaled = sorted(n for n, c in b["counters"].items() if c["scaled"])
        assert sorted(filter(None, row["counters_scaled"].split(";"))) == scaled
        for key in ("ipc", "branch_miss_pct", "cache_miss_pct", "insn_per_byte"):
            field = row[key]
            assert (float(field) if field else None) == b["derived"][key]
    raw = list(csv.DictReader(io.StringIO((GOLDEN / "results-counters-raw.csv").read_text())))
    want = [(b["name"], s) for b in golden["benchmarks"] for s in b["samples"]]
    assert len(raw) == len(want)
    opened = golden["counters"]["opened"]
    for row, (name, s) in zip(raw, want):
        for i, ev in enumerate(opened):
            field = row["counter." + ev]
            assert (float(field) if field else None) == s["counters"][i]
