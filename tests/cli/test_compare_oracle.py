"""The Mann-Whitney U test of libvernier against scipy, called through the
shared library with ctypes on random, tied, shifted and tiny samples."""
import ctypes
import os
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import mannwhitneyu

BUILD = Path(os.environ.get("VN_BUILD_DIR", Path(__file__).resolve().parents[2] / "build"))


@pytest.fixture(scope="module")
def lib():
    path = BUILD / "libvernier.so"
    if not path.exists():
        pytest.skip("no shared library at %s" % path)
    cache = BUILD / "CMakeCache.txt"
    if cache.exists() and "VN_SANITIZE:BOOL=ON" in cache.read_text():
        # The sanitizers' runtime must be loaded first, which a Python
        # process cannot do for a library it opens; the normal build runs this.
        pytest.skip("a sanitized library cannot be loaded into Python")
    lib = ctypes.CDLL(str(path))
    f = lib.vn_mann_whitney
    dp = ctypes.POINTER(ctypes.c_double)
    f.argtypes = [dp, ctypes.c_size_t, dp, ctypes.c_size_t, dp, dp]
    f.restype = ctypes.c_int
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
    ref = mannwhitneyu(a, b, alternative="two-sided", method="asymptotic", use_continuity=True)
    assert u == pytest.approx(ref.statistic, abs=1e-9)
    assert p == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)


def test_all_tied_and_bad_input(lib):
    rc, u, p = mw(lib, [1.0, 1.0, 1.0], [1.0, 1.0])
    assert rc == 0 and p == 1.0 and u == 3.0
    rc, _, _ = mw(lib, [], [1.0])
    assert rc != 0
    rc, _, _ = mw(lib, [float("nan")], [1.0])
    assert rc != 0
