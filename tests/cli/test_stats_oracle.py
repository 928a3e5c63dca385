"""`vernier stats --json -` checked against numpy and scipy as the oracle, on
samples drawn from generators with fixed seeds: every number of the summary is recomputed
here from its definition by an independent implementation and compared."""
import json
import math
import re
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from conftest import run, validate

PCT = [1, 5, 10, 25, 50, 75, 90, 95, 99]


def vernier_stats(x, *args):
    """Runs vernier stats on x (as shortest round-trip decimal text, so the
    tool reads exactly these doubles) and returns the validated JSON."""
    text = "\n".join(repr(float(v)) for v in x) + "\n"
    p = run("stats", "--json", "-", *args, input=text, check=0, timeout=120)
    doc = json.loads(p.stdout)
    validate(doc, "stats-1.json")
    assert doc["schema"] == "vernier.stats/1"
    return doc


def close(got, want, rel=1e-9, abs_=0.0):
    assert got is not None, want
    assert math.isfinite(want), want
    assert abs(got - want) <= max(rel * abs(want), abs_), (got, want, got - want)


def median_ci_oracle(xs):
    """The narrowest symmetric pair of order statistics whose exact
    Binomial(n, 1/2) coverage is >= 0.95 (the widest pair below n = 6)."""
    n = len(xs)
    ks = np.arange(1, n // 2 + 1)
    cov = stats.binom.cdf(n - ks, n, 0.5) - stats.binom.cdf(ks - 1, n, 0.5)
    ok = np.nonzero(cov >= 0.95)[0]
    i = ok[-1] if len(ok) else 0
    k = int(ks[i])
    return xs[k - 1], xs[n - k], float(cov[i])


def tukey_oracle(x):
    q1, q3 = np.percentile(x, [25, 75])
    iqr = q3 - q1
    lo3, lo15, hi15, hi3 = q1 - 3 * iqr, q1 - 1.5 * iqr, q3 + 1.5 * iqr, q3 + 3 * iqr
    return {
        "low_severe": int(np.sum(x < lo3)),
        "low_mild": int(np.sum((x >= lo3) & (x < lo15))),
        "high_mild": int(np.sum((x > hi15) & (x <= hi3))),
        "high_severe": int(np.sum(x > hi3)),
    }


def mvalue_oracle(x):
    """Brendan Gregg's mvalue with the binning docs/stats.md describes, for
    data that are not on a lattice: ceil(0.8 * cbrt(m)) equal bins over the
    m values inside Tukey's outer fences."""
    xs = np.sort(x)
    q1, q3 = np.percentile(xs, [25, 75])
    iqr = q3 - q1
    inside = xs[(xs >= max(xs[0], q1 - 3 * iqr)) & (xs <= min(xs[-1], q3 + 3 * iqr))]
    k = math.ceil(0.8 * np.cbrt(len(inside)))
    counts, _ = np.histogram(inside, bins=k, range=(inside[0], inside[-1]))
    padded = np.concatenate([[0], counts, [0]])
    return np.abs(np.diff(padded)).sum() / counts.max()


def check(x, doc, exact_moments=False):
    """Compares every field of the stats object with the oracle."""
    x = np.asarray(x, dtype=float)
    s = doc["stats"]
    n = len(x)
    xs = np.sort(x)
    assert s["n"] == n
    assert s["min"] == xs[0] and s["max"] == xs[-1]

    if exact_moments:
        # Exact rational arithmetic: numpy's own float mean is off by an
        # ulp for values near 1e12, which matters for a tiny spread.
        fx = [Fraction(v) for v in x]
        mean = sum(fx) / n
        var = sum((v - mean) ** 2 for v in fx) / (n - 1)
        close(s["mean"], float(mean), rel=1e-15)
        close(s["stddev"], math.sqrt(var), rel=1e-12)
        sd = math.sqrt(var)
    else:
        close(s["mean"], math.fsum(x) / n, rel=1e-14)
        sd = float(np.std(x, ddof=1)) if n > 1 else None
        if n > 1:
            close(s["stddev"], sd, rel=1e-12, abs_=1e-300)
    if n > 1:
        sem = sd / math.sqrt(n)
        close(s["sem"], sem, rel=1e-12, abs_=1e-300)
        if sd > 0:
            lo, hi = stats.t.interval(0.95, n - 1, loc=s["mean"], scale=sem)
            close(s["mean_ci"][0], lo, rel=1e-12, abs_=1e-9 * sem)
            close(s["mean_ci"][1], hi, rel=1e-12, abs_=1e-9 * sem)
            # The half-width is t(0.975, n-1) * sem, to 1e-9 of scipy's t,
            # where the ends are not rounded to a coarser grid than that
            # (near 1e12 they are, to 2^-13).
            half = (s["mean_ci"][1] - s["mean_ci"][0]) / 2
            if abs(s["mean"]) < 1e5 * half:
                close(half / sem, stats.t.ppf(0.975, n - 1), rel=1e-9)
        if s["mean"] != 0:
            close(s["cv"], sd / abs(s["mean"]), rel=1e-12)
    else:
        assert s["stddev"] is None and s["sem"] is None and s["cv"] is None
        assert s["mean_ci"] == [None, None]

    want = np.percentile(x, PCT)
    for p, w in zip(PCT, want):
        close(s["percentiles"][str(p)], w, rel=1e-9, abs_=1e-300)
    close(s["median"], float(np.median(x)), rel=1e-15, abs_=1e-300)
    close(s["iqr"], float(want[5] - want[3]), rel=1e-9, abs_=1e-12 * abs(xs[-1]))

    mad = float(stats.median_abs_deviation(x))
    close(s["mad"], mad, rel=1e-12, abs_=1e-300)
    close(s["mad_scaled"], mad * 1.4826, rel=1e-15, abs_=1e-300)
    # scipy's scale='normal' divides by the normal quartile 0.67449 instead
    # of multiplying by its rounded inverse 1.4826: equal to 2e-6.
    close(s["mad_scaled"], float(stats.median_abs_deviation(x, scale="normal")), rel=2e-6,
          abs_=1e-300)

    if n >= 2:
        lo, hi, cov = median_ci_oracle(xs)
        assert s["median_ci"] == [lo, hi]
        close(s["median_ci_level"], cov, rel=1e-12)
        if n >= 6:
            assert s["median_ci_level"] >= 0.95
    else:
        assert s["median_ci"] == [None, None] and s["median_ci_level"] is None

    assert s["outliers"] == tukey_oracle(x)

    if n >= 3 and xs[0] != xs[-1]:
        r, p = stats.spearmanr(np.arange(n), x)
        close(s["drift"], float(r), rel=1e-9, abs_=1e-12)
        close(s["drift_p"], float(p), rel=1e-9, abs_=1e-300)
    else:
        assert s["drift"] is None and s["drift_p"] is None

    h = doc["histogram"]
    counts = np.array(h["counts"])
    # The bins span the values inside Tukey's outer fences; the rest are
    # counted apart. With an IQR of 0 nothing is set apart.
    q1, q3 = np.percentile(xs, [25, 75])
    iqr = q3 - q1
    if iqr > 0:
        inside = xs[(xs >= q1 - 3 * iqr) & (xs <= q3 + 3 * iqr)]
    else:
        inside = xs
    assert h["below"] == int((xs < inside[0]).sum())
    assert h["above"] == int((xs > inside[-1]).sum())
    assert counts.sum() + h["below"] + h["above"] == n
    assert h["lo"] == inside[0]
    if inside[0] == inside[-1]:
        assert h["width"] == 0 and len(counts) == 1
    else:
        close(h["lo"] + h["width"] * len(counts), inside[-1], rel=1e-12, abs_=1e-12 * abs(inside[-1]))
        want_counts, _ = np.histogram(inside, bins=len(counts), range=(inside[0], inside[-1]))
        assert counts.tolist() == want_counts.tolist()
        iq = np.percentile(inside, [25, 75])
        if iq[1] > iq[0]:
            fd = len(np.histogram_bin_edges(inside, bins="fd")) - 1
            assert len(counts) == min(max(fd, 1), 200)
    return s


def test_normal():
    x = np.random.default_rng(1).normal(50, 5, 1000)
    s = check(x, vernier_stats(x))
    assert s["modality"] < 2.8
    assert s["drift_p"] > 0.001  # independent draws have no trend


def test_lognormal():
    x = np.random.default_rng(2).lognormal(np.log(1200), 0.4, 5000)
    s = check(x, vernier_stats(x, "--unit", "ns"))
    assert s["modality"] < 2.8
    assert s["outliers"]["high_mild"] + s["outliers"]["high_severe"] > 0  # a long right tail


def test_bimodal_mixture():
    rng = np.random.default_rng(3)
    x = np.where(rng.random(4000) < 0.5, rng.normal(100, 3, 4000), rng.normal(160, 3, 4000))
    s = check(x, vernier_stats(x))
    assert s["modality"] >= 2.8
    close(s["modality"], mvalue_oracle(x), rel=1e-12)


def test_unequal_mixture_and_small_samples_of_one_mode():
    rng = np.random.default_rng(4)
    x = np.where(rng.random(3000) < 0.65, rng.normal(10, 1, 3000), rng.normal(25, 1, 3000))
    s = check(x, vernier_stats(x))
    assert s["modality"] >= 2.8
    close(s["modality"], mvalue_oracle(x), rel=1e-12)
    # Unimodal samples of every size stay below the threshold.
    for n in (16, 30, 100, 300, 3000):
        y = rng.normal(0, 1, n)
        s = vernier_stats(y)["stats"]
        assert s["modality"] < 2.8, n
        close(s["modality"], mvalue_oracle(y), rel=1e-12)


def test_two_modes_found_and_placed():
    """300 values around 100 and 100 around 130 (4% spread each): the case
    the mvalue read as one mode. Silverman's test finds both, near where they
    were planted, with the shares numpy counts on either side of the dip."""
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.normal(100, 4, 300), rng.normal(130, 4, 100)])
    rng.shuffle(x)
    m = vernier_stats(x)["stats"]["modes"]
    assert m["test"] == "silverman"
    assert m["count"] == 2
    assert abs(m["at"][0] - 100) < 3 and abs(m["at"][1] - 130) < 4, m["at"]
    below = float(np.mean(x < (m["at"][0] + m["at"][1]) / 2))
    close(m["share"][0], below, abs_=0.02)
    close(m["share"][0] + m["share"][1], 1.0, rel=1e-12)
    assert m["p"] < 0.05 and m["h_crit"] > 4
    # The text report says it in one line.
    text = "\n".join(repr(float(v)) for v in x) + "\n"
    out = run("stats", input=text, check=0).stdout
    line = next(ln for ln in out.splitlines() if ln.startswith("modes"))
    got = re.fullmatch(r"modes +two, near ([0-9.]+) \(7[0-9]%\) and ([0-9.]+) \(2[0-9]%\)"
                       r" \(one mode: p = [0-9.]+\)", line)
    assert got, line
    assert abs(float(got[1]) - 100) < 3 and abs(float(got[2]) - 130) < 4, line
    assert len(line) <= 100, line
    # One normal of the same size: one mode, near its mean.
    m = vernier_stats(rng.normal(100, 4, 400))["stats"]["modes"]
    assert m["count"] == 1 and abs(m["at"][0] - 100) < 3 and m["p"] >= 0.05, m


def test_tied_integers():
    x = np.random.default_rng(5).integers(0, 20, 3000).astype(float)
    s = check(x, vernier_stats(x))
    # On the lattice of whole numbers the bins hold whole numbers: a
    # uniform pmf over 0..19 is one flat mode, not a comb of many.
    assert s["modality"] < 2.8


def test_values_on_bin_edges():
    # Hundredths from 0 to 1: many values fall on or next to the computed
    # bin edges, where the counts agree with numpy only if the edges are
    # computed the same way.
    x = np.round(np.linspace(0, 1, 101), 2)
    x = np.concatenate([x, x[::3], x[::7]])
    check(x, vernier_stats(x))


def test_constant():
    x = np.full(50, 3.25)
    s = check(x, vernier_stats(x))
    assert s["stddev"] == 0 and s["mad"] == 0 and s["iqr"] == 0 and s["cv"] == 0
    assert s["modality"] == 2


@pytest.mark.parametrize("n", [1, 2, 3, 5, 6, 7])
def test_tiny(n):
    x = np.random.default_rng(10 + n).normal(7, 2, n)
    s = check(x, vernier_stats(x))
    if n < 16:
        assert s["modality"] is None or n == 1


def test_huge():
    x = np.random.default_rng(6).normal(1e-3, 1e-5, 200000)
    s = check(x, vernier_stats(x))
    assert s["modality"] < 2.8


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e200, 1e300])
def test_extreme_magnitudes_scale_with_the_values(scale):
    # The oracle's absolute tolerances (1e-300) would hide any error near
    # 1e-300, so the same sample at 1 and at the scale must give the same
    # numbers times the scale: every statistic here is scale-equivariant.
    x = np.random.default_rng(12).lognormal(0, 0.3, 999)
    one = vernier_stats(x)["stats"]
    big = vernier_stats(x * scale)["stats"]
    for k in ("min", "max", "mean", "stddev", "sem", "median", "mad", "mad_scaled", "iqr"):
        close(big[k], one[k] * scale, rel=1e-12)
    for a, b in zip(big["median_ci"] + big["mean_ci"], one["median_ci"] + one["mean_ci"]):
        close(a, b * scale, rel=1e-12)
    for p in PCT:
        close(big["percentiles"][str(p)], one["percentiles"][str(p)] * scale, rel=1e-12)
    for k in ("cv", "median_ci_level", "drift", "drift_p", "modality"):
        close(big[k], one[k], rel=1e-9)
    assert big["outliers"] == one["outliers"]


@pytest.mark.parametrize("values", [
    [1e-310, 2e-310, 3e-310],                      # subnormal: bins / range overflows
    list(np.random.default_rng(13).uniform(0, 1e-307, 5000)),
    [5e-324, 1e-323, 1.5e-323, 2e-323] * 5,        # a few of the smallest steps apart
    [5.0, 5.0, 5.0, 5.000000000000001, 5.0],      # one ulp apart
    [1.0 + k * 2.0**-52 for k in range(40)],       # forty ulps: fewer than the rule's bins
])
def test_a_range_of_a_few_ulps_is_binned_as_numpy_bins_it(values):
    # Bins are cut only where their edges rise; numpy.histogram refuses
    # bins between equal edges, and gives these counts for the bins kept.
    doc = vernier_stats(values)
    h = doc["histogram"]
    xs = np.sort(np.asarray(values, dtype=float))
    counts = h["counts"]
    assert sum(counts) + h["below"] + h["above"] == len(xs)
    inside = xs[(xs >= h["lo"]) & (xs <= xs[-1] if h["above"] == 0 else xs < xs[-1])]
    if h["width"] > 0:
        want, edges = np.histogram(inside, bins=len(counts), range=(inside[0], inside[-1]))
        assert counts == want.tolist()
        assert np.all(np.diff(edges) > 0)
    assert doc["stats"]["modality"] is None or doc["stats"]["modality"] >= 2


def test_near_1e12_with_small_spread():
    # Values 1e12 + N(0, 1): one unit is 2^13 ulps, so the spread is carried
    # by the last 13 bits; sums of squares of the raw values keep none of it.
    x = 1e12 + np.random.default_rng(7).normal(0, 1, 5000)
    s = check(x, vernier_stats(x), exact_moments=True)
    close(s["stddev"], 1.0, rel=0.05)


def test_many_far_outliers():
    # So many values beyond the fences that the bin rule must count only
    # those binned: Freedman-Diaconis on the 800 inside, as numpy's 'fd'.
    r = np.random.default_rng(0)
    x = np.concatenate([r.normal(100, 1, 800), r.uniform(1e5, 1e6, 150)])
    s = check(x, vernier_stats(x))
    assert s["outliers"]["high_severe"] == 150


def test_preemption_outliers():
    rng = np.random.default_rng(8)
    x = rng.exponential(20, 2000) + 1000
    x[rng.integers(0, 2000, 20)] = rng.uniform(1e5, 1e6, 20)
    s = check(x, vernier_stats(x, "--unit", "ns"))
    assert s["outliers"]["high_severe"] >= 20
    # The mean moves with the outliers, the median hardly.
    assert s["mean"] > 1.5 * s["median"]


def test_trend():
    rng = np.random.default_rng(9)
    x = 100 + np.arange(3000) * 0.01 + rng.normal(0, 3, 3000)
    s = check(x, vernier_stats(x))
    assert s["drift"] > 0.2 and s["drift_p"] < 1e-30


def test_text_report_agrees_with_json():
    x = np.random.default_rng(11).lognormal(np.log(800), 0.3, 500)
    text = "\n".join(repr(float(v)) for v in x) + "\n"
    s = vernier_stats(x)["stats"]
    out = run("stats", input=text, check=0).stdout
    assert f"values      {len(x)}" in out
    assert f"{s['median_ci_level'] * 100:.4g}%" in out
    assert f"{s['drift']:+.3f}" in out


def test_cdf_is_the_cumulative_histogram():
    rng = np.random.default_rng(11)
    # A lognormal body and three preemption-like outliers far above it.
    x = np.concatenate([rng.lognormal(3, 0.4, 1500), [5e3, 8e3, 1e6]])
    p = run("stats", "--json", "-", input="\n".join(repr(float(v)) for v in x), check=0)
    d = json.loads(p.stdout)
    validate(d, "stats-1.json")
    h = d["histogram"]
    counts = np.array(h["counts"])
    # The outliers are set apart, not given the axis: with min..max bins the
    # whole body would share the first bin.
    q1, q3 = np.percentile(x, [25, 75])
    above = int((x > q3 + 3 * (q3 - q1)).sum())
    assert above >= 3 and h["above"] == above and h["below"] == 0
    assert counts.sum() == len(x) - above
    assert counts.max() < 0.2 * len(x)
    assert h["cdf"] == pytest.approx(list(np.cumsum(counts) / len(x)), rel=1e-12)
    assert h["cdf"][-1] == pytest.approx(1 - above / len(x), rel=1e-12)
    # And it is the empirical CDF: the share of all values below each upper
    # edge (the last edge holds the largest binned value, so it is inclusive).
    edges = h["lo"] + h["width"] * np.arange(1, len(counts) + 1)
    want = [(x < e).mean() for e in edges[:-1]] + [(x <= edges[-1]).mean()]
    assert h["cdf"] == pytest.approx(want, abs=1.0 / len(x) + 1e-12)