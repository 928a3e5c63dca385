"""vernier history check against Apache Otava (apache-otava, installed by
scripts/install-deps --test into the test venv) on planted series: a
benchmark's headline in 2% noise, 40 results, with a shift of 3% or 10% at
result 20, a 10% shift with two outliers, a change in variance only, and
flat series. Each series is stored as vernier would keep it (one results
file a result, a commit and a time each) and checked by both tools."""
import concurrent.futures
import json
import os
import subprocess

import numpy as np
import otava.analysis as otava
import pytest

from conftest import sanitized

VERNIER = os.environ.get("VERNIER", "build/vernier")
N = 40
AT = 20


def hyperfine_file(path, ns):
    """A hyperfine results file whose runs all took ns: its headline."""
    s = ns * 1e-9
    with open(path, "w") as f:
        json.dump({"results": [{"command": "x", "mean": s, "stddev": 0.0, "median": s, "user": 0.0,
                                "system": 0.0, "min": s, "max": s, "times": [s, s, s]}]}, f)


def vernier_changes(tmp_path, series, tag):
    """The change points vernier history check finds in series."""
    store = tmp_path / f"{tag}.db"
    for i, v in enumerate(series):
        f = tmp_path / f"{tag}-{i:03d}.json"
        hyperfine_file(f, v)
        subprocess.run([VERNIER, "store", "add", "--store", str(store), "--commit", f"c{i:03d}",
                        "--time", str(1_700_000_000 + 60 * i), str(f)], check=True, capture_output=True)
    p = subprocess.run([VERNIER, "history", "check", "--store", str(store), "--last", "0",
                        "--json", "-"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    (s,) = json.loads(p.stdout)["series"]
    assert [r["value"] for r in s["results"]] == pytest.approx(list(series), rel=1e-9)
    return s["changes"]


def otava_changes(series):
    """Otava's change points, with its defaults (a window of 50, p <= 0.001)."""
    return [int(c.index) for c in otava.compute_change_points(list(series))[0]]


def planted(rng, shift, outliers=False, variance=False):
    x = 1000 * (1 + 0.02 * rng.standard_normal(N))
    if variance:
        x[AT:] = 1000 * (1 + 0.06 * rng.standard_normal(N - AT))
    x[AT:] *= shift
    if outliers:
        x[8] *= 1.5
        x[31] *= 0.7
    return x


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("shift", [1.03, 1.10])
def test_a_shift_is_found_where_otava_finds_it(tmp_path, seed, shift):
    x = planted(np.random.default_rng(seed), shift)
    mine = vernier_changes(tmp_path, x, "s")
    theirs = otava_changes(x)
    assert [c["index"] for c in mine] and theirs
    # The same change, within one position, as Otava's.
    assert any(abs(c["index"] - AT) <= 1 for c in mine), mine
    assert any(abs(t - AT) <= 1 for t in theirs), theirs
    (c,) = [c for c in mine if abs(c["index"] - AT) <= 1]
    assert c["before"] == f"c{c['index'] - 1:03d}" and c["after"] == f"c{c['index']:03d}"
    assert c["ci"][0] < shift < c["ci"][1]
    assert c["verdict"] == "slower" and c["p"] <= 0.001


def test_a_shift_behind_outliers_is_still_found(tmp_path):
    """Two results far off (1.5x, 0.7x) hide a 10% shift from E-Divisive on
    the values, Otava's included; on ranks it is found."""
    found = 0
    for seed in (1, 2, 3):
        x = planted(np.random.default_rng(seed), 1.10, outliers=True)
        mine = vernier_changes(tmp_path, x, f"o{seed}")
        found += any(abs(c["index"] - AT) <= 1 for c in mine)
        print(f"seed {seed}: vernier {[c['index'] for c in mine]}, otava {otava_changes(x)}")
    assert found == 3


def test_a_change_in_variance_only_is_no_change_of_level(tmp_path):
    for seed in (1, 2, 3):
        x = planted(np.random.default_rng(seed), 1.0, variance=True)
        assert vernier_changes(tmp_path, x, f"v{seed}") == []


def test_flat_series_have_no_change_points(tmp_path):
    # 50 series of 40 results are 2000 processes of vernier store add; a
    # sanitized build (several times slower a process, and the same
    # arithmetic) checks the first 10 of them.
    # Each series has a store of its own, so they are stored side by side.
    rng = np.random.default_rng(7)
    series = [1000 * (1 + 0.02 * rng.standard_normal(N)) for _ in range(10 if sanitized() else 50)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        found = list(ex.map(lambda kx: vernier_changes(tmp_path, kx[1], f"f{kx[0]}"),
                            enumerate(series)))
    mine = sum(len(c) > 0 for c in found)
    theirs = sum(len(otava_changes(x)) > 0 for x in series)
    print(f"flat series with a change point: vernier {mine}, otava {theirs}")
    # At p <= 0.001 a flat series shows a change by chance once in a
    # thousand; the 50 here hold one whose last 14 results sit 2.2% above
    # the rest (p = 0.0002), where Otava finds a change too (and one more
    # in another series).
    assert mine <= 1 and mine <= theirs
