"""Statistical and structural tests of the counter-based streams of :mod:`fedcomp.rng`.

Distribution: Kolmogorov-Smirnov against N(0, 1) on 10^6 normals, moments, tail masses (including
beyond the ziggurat's base-strip edge r = 3.4426, where the rare path draws from the tail), uniform
integers by chi-square, uniforms by KS. Structure: every draw is a pure function of (key, counter)
(repeatable, order-independent, a prefix of a longer stream), distinct keys and substreams are
uncorrelated, and the compiled mixer equals a plain-Python SplitMix64 finaliser.

The seeds are fixed, so the statistical tests are deterministic; their thresholds are ordinary
significance levels (p > 1e-4), not tuned to pass.
"""
import math

import numba as nb
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from fedcomp import rng

P_MIN = 1e-4
BASE = rng.base_key(20240501)


@nb.njit(cache=True)
def _normals_from_keys(base, n_keys, per_key):
    """n_keys * per_key normals: per_key of them from each key sample_key(base, k, 0, 0)."""
    out = np.zeros((n_keys, per_key))
    for k in range(n_keys):
        rng.add_normal(rng.sample_key(base, k, 0, 0), 1.0, out[k])
    return out


@nb.njit(cache=True)
def _normal_fn(key, n):
    out = np.empty(n)
    for i in range(n):
        out[i] = rng.normal(key, i)
    return out


@nb.njit(cache=True)
def _add_normal(key, scale, n):
    out = np.zeros(n)
    rng.add_normal(key, scale, out)
    return out


@nb.njit(cache=True)
def _first_normal_of_substream(base, m, s):
    """The first normal of substream s of sample_key(base, 0, t, 0), t < m."""
    out = np.zeros(m)
    for t in range(m):
        rng.add_normal(rng.substream(rng.sample_key(base, 0, t, 0), s), 1.0, out[t:t + 1])
    return out


@nb.njit(cache=True)
def _randints(key, n_draws, n):
    out = np.empty(n_draws, dtype=np.int64)
    for i in range(n_draws):
        out[i] = rng.randint(key, i, n)
    return out


@nb.njit(cache=True)
def _uniforms(key, n_draws):
    out = np.empty(n_draws)
    for i in range(n_draws):
        out[i] = rng.uniform01(key, i)
    return out


@nb.njit(cache=True)
def _keys(base, k, t, j, s):
    return rng.sample_key(base, k, t, j), rng.substream(rng.sample_key(base, k, t, j), s)


@nb.njit(cache=True)
def _mix(z):
    return rng.mix64(z)


@pytest.fixture(scope="module")
def normals():
    return _normals_from_keys(BASE, 10_000, 100)  # 10^6 draws over 10^4 keys


def test_normal_ks_and_moments(normals):
    z = normals.ravel()
    assert z.size == 10**6 and np.all(np.isfinite(z))
    assert stats.kstest(z, "norm").pvalue > P_MIN
    n = z.size
    # mean, variance, skewness, excess kurtosis within 5 standard errors of N(0, 1)'s
    assert abs(z.mean()) < 5 / math.sqrt(n)
    assert abs(z.var() - 1.0) < 5 * math.sqrt(2.0 / n)
    assert abs(stats.skew(z)) < 5 * math.sqrt(6.0 / n)
    assert abs(stats.kurtosis(z)) < 5 * math.sqrt(24.0 / n)


@pytest.mark.parametrize("c", [1.0, 2.0, 3.0, rng._ZR, 4.0])
def test_normal_tail_mass(normals, c):
    z = normals.ravel()
    hits = int(np.sum(np.abs(z) > c))
    p = 2.0 * stats.norm.sf(c)
    assert stats.binomtest(hits, z.size, p).pvalue > P_MIN, (c, hits, p * z.size)


def test_normal_sign_symmetry(normals):
    z = normals.ravel()
    assert stats.binomtest(int(np.sum(z > 0)), z.size, 0.5).pvalue > P_MIN


def test_normal_function_distribution():
    z = _normal_fn(np.uint64(rng.sample_key(BASE, 3, 5, 0)), 200_000)
    assert stats.kstest(z, "norm").pvalue > P_MIN


def test_distinct_keys_and_substreams_uncorrelated(normals):
    n = normals.shape[0]
    # the first normal of consecutive keys (clients k and k+1)
    a, b = normals[:-1, 0], normals[1:, 0]
    assert abs(np.corrcoef(a, b)[0, 1]) < 5 / math.sqrt(n)
    # adjacent counters of one key
    x = normals[:, :-1].ravel()
    y = normals[:, 1:].ravel()
    assert abs(np.corrcoef(x, y)[0, 1]) < 5 / math.sqrt(x.size)
    # substreams 0 and 1 of the same keys, and the same sample index at consecutive iterations
    m = 20_000
    s0 = _first_normal_of_substream(BASE, m, 0)
    s1 = _first_normal_of_substream(BASE, m, 1)
    assert abs(np.corrcoef(s0, s1)[0, 1]) < 5 / math.sqrt(m)
    assert abs(np.corrcoef(s0[:-1], s0[1:])[0, 1]) < 5 / math.sqrt(m)
    # joint independence of consecutive keys: 10 x 10 contingency table of deciles
    q = stats.norm.ppf(np.linspace(0, 1, 11)[1:-1])
    table = np.zeros((10, 10))
    np.add.at(table, (np.searchsorted(q, normals[:-1, 1]), np.searchsorted(q, normals[1:, 1])), 1)
    assert stats.chi2_contingency(table).pvalue > P_MIN


@pytest.mark.parametrize("n", [2, 7, 100, 1000])
def test_randint_uniform_chi_square(n):
    draws = _randints(np.uint64(rng.sample_key(BASE, 1, 2, 3)), 10**6, n)
    assert draws.min() >= 0 and draws.max() < n
    counts = np.bincount(draws, minlength=n)
    assert stats.chisquare(counts).pvalue > P_MIN


def test_uniform01_range_and_ks():
    u = _uniforms(np.uint64(rng.sample_key(BASE, 4, 0, 0)), 10**6)
    assert u.min() > 0.0 and u.max() <= 1.0
    assert stats.kstest(u, "uniform").pvalue > P_MIN


def test_draws_are_pure_functions_of_key_and_counter():
    key = np.uint64(rng.sample_key(BASE, 2, 9, 0))
    a = _add_normal(key, 1.0, 50)
    assert np.array_equal(a, _add_normal(key, 1.0, 50))          # repeatable
    assert np.array_equal(a[:17], _add_normal(key, 1.0, 17))     # a prefix of the same stream
    assert np.array_equal(2.5 * a, _add_normal(key, 2.5, 50))    # out += scale * z
    fwd = _normal_fn(key, 30)
    rev = np.array([_normal_fn(key, i + 1)[i] for i in reversed(range(30))])[::-1]
    assert np.array_equal(fwd, rev)                              # order-independent
    other = _add_normal(np.uint64(rng.sample_key(BASE, 2, 9, 1)), 1.0, 50)
    assert not np.array_equal(a, other)


def _mix64_py(z):
    mask = (1 << 64) - 1
    z ^= z >> 30
    z = (z * 0xBF58476D1CE4E5B9) & mask
    z ^= z >> 27
    z = (z * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


def _sample_key_py(base, k, t, j):
    mask = (1 << 64) - 1
    g = 0x9E3779B97F4A7C15
    z = _mix64_py(base ^ ((k * g + 0x632BE59BD9B4E019) & mask))
    z = _mix64_py(z ^ ((t * g + 0x85157AF5) & mask))
    return _mix64_py(z ^ ((j * g + 0x2545F4914F6CDD1D) & mask))


@given(st.integers(0, 2**64 - 1), st.integers(0, 10**6), st.integers(0, 10**7),
       st.integers(0, 3), st.integers(0, 5))
def test_compiled_mixer_matches_reference(base, k, t, j, s):
    assert int(_mix(np.uint64(base))) == _mix64_py(base)
    key, sub = _keys(np.uint64(base), k, t, j, s)
    assert int(key) == _sample_key_py(base, k, t, j)
    assert int(sub) == _mix64_py(_sample_key_py(base, k, t, j) ^ (((s + 1) * 0x94D049BB133111EB)
                                                                  & ((1 << 64) - 1)))


@given(st.integers(0, 2**64 - 1), st.integers(0, 10**9), st.integers(1, 10**9))
def test_randint_and_uniform_range_property(key, i, n):
    assert 0 <= rng.randint(np.uint64(key), i, n) < n
    assert 0.0 < rng.uniform01(np.uint64(key), i) <= 1.0


def test_signed_keys_give_the_uint64_stream():
    """A key typed as a signed integer (Python int < 2**63) draws the uint64 key's stream."""
    key = int(rng.sample_key(BASE, 1, 2, 3))
    assert key < 2**63
    assert np.array_equal(_randints(key, 1000, 7), _randints(np.uint64(key), 1000, 7))
    assert np.array_equal(_uniforms(key, 1000), _uniforms(np.uint64(key), 1000))
    assert np.array_equal(_add_normal(key, 1.0, 100), _add_normal(np.uint64(key), 1.0, 100))


def test_base_key_deterministic_and_distinct():
    assert rng.base_key(0) == rng.base_key(0)
    assert len({int(rng.base_key(s)) for s in range(1000)}) == 1000


def _zig_stream_py(key, n):
    """n standard normals of `key` by the ziggurat as fedcomp.rng documents it, in plain Python
    (Python ints for the words, math.log / math.exp): the stream the compiled add_normal must
    give bit for bit, whatever form its code takes (a branch or a multiplication for the sign)."""
    mask, g = (1 << 64) - 1, 0x9E3779B97F4A7C15

    def word(c):  # the 64-bit word of counter c
        return _mix64_py((key + (c + 1) * g) & mask)

    def unif(c):  # rng.uniform01
        return ((word(c) >> 11) + 1.0) * 2.0 ** -53

    out, c, rare = [], 0, [0, 0]  # draws outside their rectangle: in a wedge, in the tail
    while len(out) < n:
        w = word(c)
        c += 1
        i, neg, u = w & 127, (w >> 7) & 1, (w >> 11) * 2.0 ** -53
        x = u * float(rng._ZX[i])
        if x >= rng._ZX[i + 1]:
            rare[i == 0] += 1
            if i == 0:  # the tail beyond r
                while True:
                    a = -math.log(unif(c)) / rng._ZR
                    b = -math.log(unif(c + 1))
                    c += 2
                    if b + b > a * a:
                        x = rng._ZR + a
                        break
            else:
                ok = (rng._ZF[i + 1] + unif(c) * (rng._ZF[i] - rng._ZF[i + 1])
                      < math.exp(-0.5 * x * x))
                c += 1
                if not ok:
                    continue
        out.append(-x if neg else x)
    return np.array(out), rare


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_normals_equal_a_plain_python_ziggurat_bit_for_bit(seed):
    keys = np.random.SeedSequence(seed).generate_state(100, dtype=np.uint64)
    rare = np.zeros(2, dtype=int)
    for key in keys:
        want, r = _zig_stream_py(int(key), 500)
        rare += r
        got = _add_normal(key, 1.0, 500)
        assert np.array_equal(got.view(np.uint64), (0.0 + want).view(np.uint64))
    assert rare.min() >= 3, rare  # both rare paths were exercised (wedges, tail)
