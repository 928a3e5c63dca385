"""Functions of libvernier against independent implementations, called
through the shared library with ctypes: the Mann-Whitney U test against
scipy's default method on random, tied, shifted and tiny samples, and the half-sample mode
against numpy on peaks with noise above them, ties and tiny samples."""
import ctypes

import numpy as np
import pytest
from scipy.stats import mannwhitneyu

from conftest import BUILD, sanitized



@pytest.fixture(scope="module")
def lib():
    path = BUILD / "libvernier-all.so"  # every function of the library, not only the public ones
    if not path.exists():
        pytest.skip("no shared library at %s" % path)
    if sanitized():
        # The sanitizers' runtime must be loaded first, which a Python
        # process cannot do for a library it opens; the normal build runs this.
        pytest.skip("a sanitized library cannot be loaded into Python")
    lib = ctypes.CDLL(str(path))
    f = lib.vn_mann_whitney
    dp = ctypes.POINTER(ctypes.c_double)
    f.argtypes = [dp, ctypes.c_size_t, dp, ctypes.c_size_t, dp, dp]
    f.restype = ctypes.c_int
    g = lib.vn_half_sample_mode
    g.argtypes = [dp, ctypes.c_size_t]
    g.restype = ctypes.c_double
    return lib


def mw(lib, a, b):
    a = np.ascontiguousarray(a, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64)
    u, p = ctypes.c_double(), ctypes.c_double()
    dp = ctypes.POINTER(ctypes.c_double)
    rc = lib.vn_mann_whitney(a.ctypes.data_as(dp), len(a), b.ctypes.data_as(dp), len(b),
                             ctypes.byref(u), ctypes.byref(p))
    return rc, u.value, p.value


@pytest.mark.parametrize("seed", range(8))
def test_matches_scipy(lib, seed):
    rng = np.random.default_rng(seed)
    kind = seed % 4
    if kind == 0:
        a, b = rng.normal(10, 1, 40), rng.normal(10.5, 1, 55)
    elif kind == 1:
        a, b = rng.integers(0, 5, 30).astype(float), rng.integers(1, 6, 25).astype(float)  # many ties
    elif kind == 2:
        a, b = rng.lognormal(0, 1, 200), rng.lognormal(0, 1, 200)
    else:
        a, b = rng.normal(0, 1, 3), rng.normal(3, 1, 4)
    rc, u, p = mw(lib, a, b)
    assert rc == 0
    ref = mannwhitneyu(a, b, alternative="two-sided")
    assert u == pytest.approx(ref.statistic, abs=1e-9)
    assert p == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("na,nb", [(1, 1), (2, 5), (3, 3), (8, 8), (8, 9), (5, 40), (1, 300),
                                   (8, 2000), (9, 9)])
def test_small_samples_use_scipy_default(lib, na, nb):
    """scipy's default is the exact distribution of U when one side has at
    most 8 values and there are no ties: the p-values of a few values each
    differ from the normal approximation's by far more than rounding."""
    rng = np.random.default_rng(na * 1000 + nb)
    for shift in (0.0, 0.7, 3.0):
        a, b = rng.normal(0, 1, na), rng.normal(shift, 1, nb)
        rc, u, p = mw(lib, a, b)
        assert rc == 0
        ref = mannwhitneyu(a, b, alternative="two-sided")
        assert u == pytest.approx(ref.statistic, abs=1e-9)
        assert p == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)
    # With a tie, even tiny samples take the approximation, as in scipy.
    a, b = [1.0, 2.0, 3.0], [3.0, 4.0, 5.0, 6.0]
    rc, u, p = mw(lib, a, b)
    assert p == pytest.approx(mannwhitneyu(a, b).pvalue, rel=1e-9)


def test_all_tied_and_bad_input(lib):
    rc, u, p = mw(lib, [1.0, 1.0, 1.0], [1.0, 1.0])
    assert rc == 0 and p == 1.0 and u == 3.0
    rc, _, _ = mw(lib, [], [1.0])
    assert rc != 0
    rc, _, _ = mw(lib, [float("nan")], [1.0])
    assert rc != 0


def hsm_oracle(x):
    """Bickel and Fruehwirth's half-sample mode, vectorized: the widths of
    every run of ceil(n/2) sorted values at once, the first narrowest kept.
    It follows the same definition step by step, so it pins down the edge
    cases (ties, n of 1 to 3); what the estimator is for is checked apart,
    in test_half_sample_mode_finds_the_mode."""
    x = np.sort(np.asarray(x, dtype=np.float64))
    while len(x) > 3:
        h = (len(x) + 1) // 2
        widths = x[h - 1:] - x[: len(x) - h + 1]
        i = int(np.argmin(widths))
        x = x[i : i + h]
    if len(x) == 3:
        a, b = x[1] - x[0], x[2] - x[1]
        return (x[0] + x[1]) / 2 if a < b else (x[1] + x[2]) / 2 if a > b else x[1]
    return x.mean() if len(x) == 2 else x[0]


def hsm(lib, x):
    x = np.ascontiguousarray(np.sort(x), dtype=np.float64)
    return lib.vn_half_sample_mode(x.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), len(x))


@pytest.mark.parametrize("seed", range(10))
def test_half_sample_mode_matches_numpy(lib, seed):
    rng = np.random.default_rng(100 + seed)
    kind = seed % 5
    if kind == 0:  # a peak and noise that only adds: the samples of a shared core
        x = np.concatenate([rng.normal(1000, 1, 30), 1000 + rng.exponential(40, 70)])
    elif kind == 1:
        x = rng.lognormal(0, 0.5, 501)
    elif kind == 2:  # many ties
        x = rng.integers(0, 7, 64).astype(float)
    elif kind == 3:
        x = rng.normal(0, 1, 1 + seed)
    else:
        x = rng.uniform(0, 1, 10000)
    assert hsm(lib, x) == hsm_oracle(x)
    if kind == 0:
        # The peak, where the median is pulled up by the noise.
        assert abs(hsm(lib, x) - 1000) < 3 < np.median(x) - 1000


@pytest.mark.parametrize("seed", range(4))
def test_half_sample_mode_finds_the_mode(lib, seed):
    """What the estimator is for, checked apart from how it is computed: the
    modes of known distributions, and a peak of spared samples under noise
    that only adds and hits most of them."""
    rng = np.random.default_rng(200 + seed)
    # (The tolerances are about 1.5 times the largest error over 40 seeds of
    # an independent run; the mode estimator is not an efficient one.)
    assert abs(hsm(lib, rng.normal(5, 1, 20000)) - 5) < 0.5
    # lognormal(0, s): the mode is exp(-s^2) = 0.78, the median 1.
    assert abs(hsm(lib, rng.lognormal(0, 0.5, 20000)) - np.exp(-0.25)) < 0.15
    # Gamma(k=3, theta=1): the mode is k - 1 = 2, the median 2.67, the mean 3.
    assert abs(hsm(lib, rng.gamma(3, 1, 20000)) - 2) < 0.6
    # 30% spared at 100 (spread 0.1), 70% pushed up by 1 to 20.
    x = np.concatenate([rng.normal(100, 0.1, 300), 100 + rng.uniform(1, 20, 700)])
    assert abs(hsm(lib, x) - 100) < 0.3


def test_half_sample_mode_of_nothing(lib):
    assert np.isnan(lib.vn_half_sample_mode(None, 0))
