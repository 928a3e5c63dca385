"""The vernier.results/1 schema against the golden results file the reporter
test writes (tests/unit/test_results_report.c), so the schema and the reporter
cannot drift apart; and the CSV views against the JSON they are views of."""
import copy
import csv
import io
import json

import jsonschema
import pytest

from conftest import SOURCE, validate

GOLDEN = SOURCE / "tests" / "golden"


@pytest.fixture(scope="module")
def doc():
    return json.loads((GOLDEN / "results-main.json").read_text())


def bench(doc, name):
    return next(b for b in doc["benchmarks"] if b["name"] == name)


def test_golden_file_is_valid(doc):
    validate(doc, "results-1.json")
    names = [b["name"] for b in doc["benchmarks"]]
    assert names == ["sum/n=1024", "empty", "broken", "contended/threads=4", "noisy",
                     'parse,"quoted"|pipe/long_name_for_alignment']


def invalid(doc, change):
    d = copy.deepcopy(doc)
    change(d)
    with pytest.raises(jsonschema.ValidationError):
        validate(d, "results-1.json")


def test_references_are_followed(doc):
    # A wrong type deep inside the embedded snapshot and inside a stats
    # object is caught only if both sibling schemas were loaded.
    invalid(doc, lambda d: d["env"].__setitem__("hostname", 5))
    invalid(doc, lambda d: d["env"]["cpu"].__setitem__("smt", "yes"))
    invalid(doc, lambda d: bench(d, "sum/n=1024")["stats"].__setitem__("median", "1.2 us"))
    invalid(doc, lambda d: bench(d, "sum/n=1024")["stats"].__setitem__("surprise", 1))


def test_benchmark_objects_are_strict(doc):
    invalid(doc, lambda d: bench(d, "noisy").__setitem__("surprise", 1))
    invalid(doc, lambda d: bench(d, "noisy").pop("warnings"))
    invalid(doc, lambda d: bench(d, "noisy")["samples"][0].__setitem__("tags", ["slow"]))
    invalid(doc, lambda d: bench(d, "noisy")["samples"][0].__setitem__("iters", 0))
    invalid(doc, lambda d: bench(d, "noisy").__setitem__("stop", "bored"))
    invalid(doc, lambda d: bench(d, "noisy")["warnings"][0].__setitem__("id", "High Variance"))
    invalid(doc, lambda d: bench(d, "sum/n=1024")["params"].__setitem__("n", "1024"))
    invalid(doc, lambda d: bench(d, "sum/n=1024")["throughput"].__setitem__("bytes_per_sec", -1))
    invalid(doc, lambda d: bench(d, "contended/threads=4")["threads"].__setitem__("count", 1))
    invalid(doc, lambda d: d["config"].__setitem__("cpu", -1))
    invalid(doc, lambda d: d["clock"].__setitem__("name", "sundial"))
    invalid(doc, lambda d: d.__setitem__("schema", "vernier.results/2"))


def test_bound_only_with_upper_bound(doc):
    empty = bench(doc, "empty")
    assert empty["upper_bound"] is True and empty["bound_ns"] == 0.31
    invalid(doc, lambda d: bench(d, "empty").__setitem__("bound_ns", None))
    invalid(doc, lambda d: bench(d, "sum/n=1024").__setitem__("bound_ns", 0.5))


def test_unknown_is_null(doc):
    broken = bench(doc, "broken")
    assert broken["stats"] is None and broken["samples"] == []
    # Its error is the one the reporter's other goldens of the same results
    # carry, the CSV's error column and Google Benchmark's error_message.
    assert broken["stop"] == "failed" and broken["error"]
    row = next(r for r in csv.DictReader(io.StringIO((GOLDEN / "results-main.csv").read_text()))
               if r["name"] == "broken")
    assert row["stop"] == "failed" and row["error"] == broken["error"]
    gb = json.loads((GOLDEN / "results-gbench.json").read_text())
    assert [b["error_message"] for b in gb["benchmarks"] if b["name"] == "broken"] == [broken["error"]]
    tricky = bench(doc, 'parse,"quoted"|pipe/long_name_for_alignment')
    assert tricky["cycles"] is None and tricky["ref"]["ns_per_cycle"] is None
    assert tricky["throughput"]["bytes_per_sec"] is None
    assert tricky["throughput"]["items_per_sec"] > 0
    assert bench(doc, "sum/n=1024")["threads"] is None
    assert doc["config"]["cpu"] is None and doc["config"]["filter"] is None


def test_stats_are_of_untagged_net_samples(doc):
    noisy = bench(doc, "noisy")
    net = sorted(s["value"] - noisy["overhead"]["ns"] for s in noisy["samples"] if not s["tags"])
    assert noisy["tagged"] == sum(1 for s in noisy["samples"] if s["tags"]) == 7
    assert noisy["shared_core"] == sum("shared_core" in s["tags"] for s in noisy["samples"]) == 5
    assert set(noisy["left_out"]) == {"preempted", "migrated", "shared_core"}
    assert noisy["stats"]["n"] == len(net)
    assert noisy["stats"]["min"] == pytest.approx(net[0])
    assert noisy["stats"]["max"] == pytest.approx(net[-1])


def number(field):
    return float(field) if field else None


def test_csv_summary_agrees_with_json(doc):
    rows = list(csv.DictReader(io.StringIO((GOLDEN / "results-main.csv").read_text())))
    assert [r["name"] for r in rows] == [b["name"] for b in doc["benchmarks"]]
    for row, b in zip(rows, doc["benchmarks"]):
        st = b["stats"]
        assert row["stop"] == b["stop"]
        assert row["warnings"] == ";".join(w["id"] for w in b["warnings"])
        assert int(row["n"]) == (st["n"] if st else 0)
        assert number(row["overhead"]) == b["overhead"]["ns"]
        if b["upper_bound"]:
            # Only the bound and the spread: the location of noise is left out.
            assert row["median"] == row["mean"] == row["min"] == row["p50"] == ""
            assert number(row["bound"]) == b["bound_ns"]
            assert number(row["mad"]) == st["mad"]
        elif st:
            # The same digits as the JSON: nothing is lost on the way.
            assert number(row["median"]) == st["median"]
            assert number(row["mean"]) == st["mean"]
            assert number(row["median_ci_lo"]) == st["median_ci"][0]
            for p in ("1", "50", "99"):
                assert number(row["p" + p]) == st["percentiles"][p]
            assert number(row["cycles"]) == b["cycles"]
            assert number(row["bytes_per_sec"]) == b["throughput"]["bytes_per_sec"]


def test_csv_raw_agrees_with_json(doc):
    rows = list(csv.DictReader(io.StringIO((GOLDEN / "results-raw.csv").read_text())))
    want = [(b["name"], i, s) for b in doc["benchmarks"] for i, s in enumerate(b["samples"])]
    assert len(rows) == len(want)
    for row, (name, i, s) in zip(rows, want):
        assert row["name"] == name and int(row["sample"]) == i
        assert float(row["value"]) == s["value"]
        assert int(row["iters"]) == s["iters"]
        assert row["tags"] == ";".join(s["tags"])
        assert number(row["ref_ns"]) == s["ref_ns"]
        assert int(row["thread"]) == s["thread"]


def test_no_nan_anywhere():
    text = (GOLDEN / "results-main.json").read_text()
    json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in JSON"))
    for name in ("results-main.csv", "results-raw.csv"):
        body = (GOLDEN / name).read_text().lower()
        assert "nan" not in body and "inf" not in body.replace("interference", "")
