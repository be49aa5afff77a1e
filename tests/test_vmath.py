"""fedcomp.engine.vmath (vector exp / log1p) and the KL-DRO oracles built on it.

Accuracy against mpmath (200 bits) in ulps of the exact value, on random samples over the range
the kernels use and on special values; the KL oracles against plain scalar loops using the scalar
forms exp1 / log1p1 in the same order (bit for bit, batch sizes 1..9 and the exact path), and
against the former libm version (relative 1e-13).
"""
import numba as nb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fedcomp
from fedcomp.engine.dense import row_dot
from fedcomp.engine.simd import (abs4, div4, lane4, ldexp4, load4, make4, mul4, neg4,
                                 store4, sub4, where_gt4, where_lt4)
from fedcomp.engine.vmath import exp1, exp4, log1p1, log1p4
from fedcomp.problems._logistic import batch_len, batch_row

mpmath = pytest.importorskip("mpmath")
TINY = 2.2250738585072014e-308


@nb.njit
def _vexp(x):
    out = np.empty_like(x)
    i = 0
    while i + 4 <= x.shape[0]:
        store4(out, (i,), exp4(load4(x, (i,))))
        i += 4
    return out


@nb.njit
def _vlog1p(x):
    out = np.empty_like(x)
    i = 0
    while i + 4 <= x.shape[0]:
        store4(out, (i,), log1p4(load4(x, (i,))))
        i += 4
    return out


def _pad4(x):
    return np.concatenate([x, np.zeros((-len(x)) % 4)])


def _ulps(got, xs, f):
    """|got - f(x)| in ulps of the exact value f(x) (mpmath, 200 bits); subnormal-aware."""
    with mpmath.workprec(200):
        out = np.empty(len(xs))
        for j, (g, x) in enumerate(zip(got, xs)):
            ex = f(mpmath.mpf(float(x)))
            e = float(ex)
            if not np.isfinite(e) or not np.isfinite(g):
                out[j] = 0.0 if e == g else np.inf
                continue
            u = np.spacing(abs(e)) if abs(e) >= TINY else 5e-324
            out[j] = float(abs(mpmath.mpf(float(g)) - ex) / u)
    return out


def _bits_apart(a, b):
    """The largest distance in units in the last place between non-negative a and b."""
    return int(np.abs(a.view(np.int64) - b.view(np.int64)).max())


def _exp_sample(n, rng):
    return np.concatenate([rng.uniform(-745.2, 709.8, n), rng.uniform(-1.0, 1.0, n),
                           rng.uniform(-60.0, 0.0, n), rng.uniform(-745.2, -707.0, n // 4),
                           np.sign(rng.uniform(-1, 1, n)) * 10.0 ** rng.uniform(-25, 0, n)])


def _log1p_sample(n, rng):
    return np.concatenate([rng.uniform(0.0, 1.0, n), 10.0 ** rng.uniform(-30, 0, n),
                           rng.uniform(0.40, 0.43, n), 1.0 - 10.0 ** rng.uniform(-16, 0, n),
                           np.exp(-rng.uniform(0.0, 40.0, n))])


def test_exp_within_one_ulp():
    x = _pad4(_exp_sample(4000, np.random.default_rng(0)))
    err = _ulps(_vexp(x), x, mpmath.exp)
    assert err.max() < 1.0, err.max()
    assert _bits_apart(_vexp(x), np.exp(x)) <= 1     # numpy (glibc): at most one ulp apart


def test_log1p_within_one_ulp_on_0_1():
    x = _pad4(_log1p_sample(4000, np.random.default_rng(1)))
    err = _ulps(_vlog1p(x), x, mpmath.log1p)
    assert err.max() < 1.0, err.max()
    assert _bits_apart(_vlog1p(x), np.log1p(x)) <= 1


def test_exp_special_values():
    big = 709.782712893384      # largest finite exp
    small = -745.1332191019411  # smallest x with exp(x) > 0
    cases = [(0.0, 1.0), (-0.0, 1.0), (5e-324, 1.0), (-5e-324, 1.0), (1e-300, 1.0),
             (np.inf, np.inf), (-np.inf, 0.0), (1000.0, np.inf), (-1000.0, 0.0),
             (np.nextafter(big, np.inf), np.inf), (710.0, np.inf),
             (np.nextafter(small, -np.inf), 0.0), (-746.0, 0.0)]
    x = _pad4(np.array([c[0] for c in cases] + [big, small, -720.0, -708.5]))
    got = _vexp(x)
    for j, (_, want) in enumerate(cases):
        assert got[j] == want, (x[j], got[j], want)
    assert np.isfinite(got[len(cases)]) and got[len(cases)] == np.exp(big)
    assert got[len(cases) + 1] == 5e-324
    sub = got[len(cases) + 2:len(cases) + 4]   # subnormal and near-subnormal results
    assert np.array_equal(sub, np.exp(x[len(cases) + 2:len(cases) + 4]))
    n = _vexp(np.array([np.nan, -np.nan, 0.0, 1.0]))
    assert np.isnan(n[0]) and np.isnan(n[1])
    assert exp1(np.nan) != exp1(np.nan)
    assert abs(exp1(1.0) - np.e) <= np.spacing(np.e)   # exp(1) is not correctly rounded here


def test_log1p_special_values():
    x = np.array([0.0, -0.0, 5e-324, 1e-310, 1e-300, 1e-20, 1.0, 1.0 - 2.0 ** -53,
                  0.4142135381698608, np.nextafter(0.4142135381698608, 0.0), 0.5, np.nan])
    got = _vlog1p(x)
    assert got[0] == 0.0 and not np.signbit(got[0])
    assert got[1] == 0.0 and np.signbit(got[1])
    assert np.array_equal(got[2:6], x[2:6])     # log1p(x) = x for tiny x, subnormals included
    assert np.isnan(got[-1])
    assert _ulps(got[6:11], x[6:11], mpmath.log1p).max() < 1.0


@given(x=st.floats(allow_nan=True, allow_infinity=True), y=st.floats(0.0, 1.0))
@settings(max_examples=200, deadline=None)
def test_scalar_forms_equal_every_lane(x, y):
    # exp1 / log1p1 (lane 0 of a splat) give the bits of each lane, whatever the other lanes hold.
    v = _vexp(np.array([x, 1.0, x, -3.0, 7.0, x, np.nan, x]))
    w = _vlog1p(np.array([y, 0.25, y, 1.0, 0.0, y, np.nan, y]))
    for j in (0, 2, 5, 7):
        assert np.array_equal(v[j:j + 1], [exp1(x)], equal_nan=True)
        assert np.array_equal(w[j:j + 1].view(np.int64), np.array([log1p1(y)]).view(np.int64))


@nb.njit
def _ops(a, b, out):
    va, vb = load4(a, (0,)), load4(b, (0,))
    store4(out, (0, 0), sub4(va, vb))
    store4(out, (1, 0), mul4(va, vb))
    store4(out, (2, 0), div4(va, vb))
    store4(out, (3, 0), abs4(va))
    store4(out, (4, 0), neg4(va))
    store4(out, (5, 0), where_gt4(va, vb, va, vb))
    store4(out, (6, 0), where_lt4(va, vb, va, vb))
    store4(out, (7, 0), make4(a[3], a[2], b[1], 4))
    store4(out, (8, 0), ldexp4(va, make4(-1074.0, 1023.0, 3.0, -1022.0)))
    for m in range(4):
        out[9, m] = lane4(vb, m)


def test_lane_intrinsics():
    a = np.array([1.5, -0.0, np.nan, 3.0])
    b = np.array([2.0, 0.0, 1.0, np.nan])
    out = np.empty((10, 4))
    _ops(a, b, out)
    with np.errstate(all="ignore"):
        assert np.array_equal(out[0], a - b, equal_nan=True)
        assert np.array_equal(out[1], a * b, equal_nan=True)
        assert np.array_equal(out[2], a / b, equal_nan=True)
    assert np.array_equal(out[3].view(np.int64), np.abs(a).view(np.int64))
    assert np.array_equal(out[4].view(np.int64), (-a).view(np.int64))
    assert np.array_equal(out[5], np.where(a > b, a, b), equal_nan=True)  # NaN compares false
    assert np.array_equal(out[6], np.where(a < b, a, b), equal_nan=True)
    assert np.array_equal(out[7], [3.0, np.nan, 0.0, 4.0], equal_nan=True)
    assert np.array_equal(out[8], [np.ldexp(1.5, -1074), -0.0, np.nan, np.ldexp(3.0, -1022)],
                          equal_nan=True)
    assert np.array_equal(out[9], b, equal_nan=True)


# --- The KL-DRO oracles -------------------------------------------------------------------------

@nb.njit
def _ref_loss_slope(F, L, i, x):
    """Plain scalar loss_and_slope with exp1 / log1p1 (the block helpers' formulas)."""
    m = -L[i] * row_dot(F, i, x)
    e = exp1(-abs(m))
    lp = log1p1(e)
    sp = m + lp if m > 0.0 else lp
    sg = (1.0 if m > 0.0 else e) / (1.0 + e)
    return sp, -L[i] * sg


@nb.njit
def _ref_g(F, L, off, params, k, x, key, exact, libm):
    lam, c = params[0], params[1]
    n = batch_len(off, k, exact, np.int64(params[2]))
    s = 0.0
    for j in range(n):
        i = batch_row(off, k, key, exact, j)
        if libm:
            m = -L[i] * row_dot(F, i, x)
            loss = m + np.log1p(np.exp(-m)) if m > 0.0 else np.log1p(np.exp(m))
            s += np.exp((loss - c) / lam)
        else:
            loss, _ = _ref_loss_slope(F, L, i, x)
            s += exp1((loss - c) / lam)
    return s / n


@nb.njit
def _ref_vjp(F, L, off, params, k, x, v, key, exact, libm, out):
    lam, c = params[0], params[1]
    n = batch_len(off, k, exact, np.int64(params[2]))
    out[:] = 0.0
    for jj in range(n):
        i = batch_row(off, k, key, exact, jj)
        if libm:
            m = -L[i] * row_dot(F, i, x)
            e = np.exp(-abs(m))
            loss = m + np.log1p(e) if m > 0.0 else np.log1p(e)
            slope = -L[i] * ((1.0 if m > 0.0 else e) / (1.0 + e))
            w = np.exp((loss - c) / lam) / lam * slope * v[0] / n
        else:
            loss, slope = _ref_loss_slope(F, L, i, x)
            w = exp1((loss - c) / lam) / lam * slope * v[0] / n
        for j in range(out.shape[0]):
            out[j] += w * F[i, j]


def _kl(batch, dim, seed):
    return fedcomp.problems.KLDRO.synthetic(dim=dim, num_clients=3, batch_size=batch,
                                            samples_per_client=11, seed=seed, feature_shift=0.5)


@pytest.mark.parametrize("batch", range(1, 10))
def test_kl_oracles_match_scalar_loops(batch):
    from fedcomp.rng import base_key, sample_key
    rng = np.random.default_rng(batch)
    for dim in (1, 6, 9):
        p = _kl(batch, dim, batch + dim)
        F, L, off, params = p.data[0], p.data[1], p.data[2], p.data[3]
        km = p.kernel_module
        for trial in range(4):
            k = int(rng.integers(0, 3))
            key = np.uint64(sample_key(base_key(trial), k, 5, 0))
            x1 = rng.normal(size=dim) * 10.0 ** rng.uniform(-1, 1.5)
            x2 = rng.normal(size=dim)
            v = np.array([rng.normal()])
            for exact in (False, True):
                a, b, c = np.empty(1), np.empty(1), np.empty(1)
                km.g_value(p.data, k, x1, key, exact, a)
                km.g_value2(p.data, k, x1, x2, key, exact, b, c)
                ref1 = _ref_g(F, L, off, params, k, x1, key, exact, False)
                ref2 = _ref_g(F, L, off, params, k, x2, key, exact, False)
                assert a[0] == ref1 and b[0] == ref1 and c[0] == ref2
                assert abs(a[0] / _ref_g(F, L, off, params, k, x1, key, exact, True) - 1) < 1e-13
                g, rg, lg = np.empty(dim), np.empty(dim), np.empty(dim)
                km.g_vjp(p.data, k, x1, v, key, exact, g)
                _ref_vjp(F, L, off, params, k, x1, v, key, exact, False, rg)
                _ref_vjp(F, L, off, params, k, x1, v, key, exact, True, lg)
                assert np.array_equal(g.view(np.int64), rg.view(np.int64))
                assert np.allclose(g, lg, rtol=1e-13, atol=1e-13 * np.abs(lg).max())


def test_kl_extreme_margins_match_scalar_loop():
    # margins far beyond exp's range (e = 0, softplus = m) and exactly zero (x = 0).
    p = _kl(7, 4, 0)
    F, L, off, params = p.data[0], p.data[1], p.data[2], p.data[3]
    for x in (np.zeros(4), np.full(4, 1e3), np.full(4, -1e3)):
        for exact in (False, True):
            a = np.empty(1)
            p.kernel_module.g_value(p.data, 1, x, np.uint64(9), exact, a)
            assert a[0] == _ref_g(F, L, off, params, 1, x, np.uint64(9), exact, False)


def test_generated_module_hashes_vmath():
    from fedcomp.engine import build
    kl = build._fedcomp_deps(("fedcomp.problems._kl_kernels", *build._DEP_MODULES))
    assert {"fedcomp.engine.vmath", "fedcomp.engine.simd"} <= set(kl)
