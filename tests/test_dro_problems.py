"""KL- and chi-square-DRO problems: exact measures, oracles, overflow guard."""
import numpy as np
import pytest
import scipy.optimize as so
from hypothesis import given, settings
from hypothesis import strategies as st

import fedcomp
from fedcomp.rng import base_key, sample_key

KW = dict(num_clients=3, samples_per_client=20, dim=4, feature_shift=1.0, label_imbalance=1.0,
          size_skew=0.5)


@given(seed=st.integers(0, 1000), lam=st.floats(0.2, 5.0))
@settings(max_examples=10)
def test_kl_value_and_gradient(seed, lam):
    p = fedcomp.problems.KLDRO.synthetic(lam=lam, seed=seed, **KW)
    x = np.random.default_rng(seed).standard_normal(p.dim) * 0.5
    sizes = p.client_sizes
    losses = np.split(p.losses(x), np.cumsum(sizes)[:-1])
    direct = lam * np.log(np.mean([np.mean(np.exp(l / lam)) for l in losses]))
    assert p.value(x) == pytest.approx(direct, rel=1e-12)
    num = so.approx_fprime(x, p.value, 1e-7)
    assert np.allclose(p.grad(x), num, atol=1e-5)


def test_exact_values_do_not_overflow_for_small_lambda():
    p = fedcomp.problems.KLDRO.synthetic(lam=1e-3, seed=0, **KW)
    x = np.full(p.dim, 30.0)
    v, g = p.value(x), p.grad(x)
    assert np.isfinite(v) and np.all(np.isfinite(g))
    assert v == pytest.approx(p.losses(x).max(), rel=1e-2)  # lambda -> 0: the worst loss


def test_shift_leaves_iterates_unchanged():
    f, lab = fedcomp.problems.make_logistic_clients(seed=1, **KW)
    runs = [fedcomp.simulate(fedcomp.problems.KLDRO(f, lab, lam=0.5, batch_size=4, shift=c),
                             "feddro", iterations=200, eta=0.1, local_steps=3, seed=2,
                             beta=0.3) for c in (0.0, 2.0)]
    assert np.allclose(runs[0].x_bar, runs[1].x_bar, rtol=1e-10, atol=1e-12)


def test_minibatch_oracle_is_unbiased_and_reuses_its_sample():
    p = fedcomp.problems.KLDRO.synthetic(lam=1.0, batch_size=5, seed=4, **KW)
    km = p.kernel_module
    x = np.full(p.dim, 0.2)
    exact = p.inner_client(1, x)[0]
    n = 3000
    draws = np.empty(n)
    out = np.zeros(1)
    for i in range(n):
        km.g_value(p.data, 1, x, np.uint64(sample_key(base_key(0), 1, i, 0)), False, out)
        draws[i] = out[0]
    assert abs(draws.mean() - exact) < 5 * draws.std() / np.sqrt(n)
    key = np.uint64(sample_key(base_key(0), 1, 7, 0))
    a, b = np.zeros(1), np.zeros(1)
    km.g_value(p.data, 1, x, key, False, a)
    km.g_value(p.data, 1, x, key, False, b)
    assert a[0] == b[0]


def test_chi2_forms():
    f, lab = fedcomp.problems.make_logistic_clients(seed=2, **KW)
    x = np.full(KW["dim"], 0.1)
    for form, sign in (("printed", -1.0), ("corrected", 1.0)):
        p = fedcomp.problems.Chi2DRO(f, lab, lam=2.0, form=form)
        w = p.data[4]
        l = p.losses(x)
        mean = np.sum(w * l)
        var = np.sum(w * l * l) - mean ** 2
        expect = -var / 4.0 if form == "printed" else mean + var / 4.0
        assert p.value(x) == pytest.approx(expect, rel=1e-12)
        assert np.allclose(p.grad(x), so.approx_fprime(x, p.value, 1e-7), atol=1e-5)
    del sign


def test_a_division_by_zero_is_a_reported_divergence():
    p = fedcomp.problems.KLDRO.synthetic(lam=0.5, batch_size=8, num_clients=4,
                                         samples_per_client=30, dim=2, feature_shift=2.0,
                                         label_imbalance=3.0, seed=3)
    r = fedcomp.simulate(p, "feddro", iterations=2000, eta=0.3, local_steps=5, stochastic=False,
                         beta=0.5)
    assert r.diverged_at is not None


@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 9))
@settings(max_examples=30, deadline=None)
def test_loss_and_slope_shares_one_exp_with_the_same_numbers(seed, d):
    # loss_and_slope computes exp(-|m|) once; its values are those of softplus(m) and
    # -s sigmoid(m), each with its own exp, bit for bit (m = 0, large |m| and NaN included).
    import numba as nb
    from fedcomp.engine.dense import row_dot
    from fedcomp.problems._logistic import loss_and_slope, sigmoid, softplus

    @nb.njit
    def both(F, L, x, out):
        for i in range(F.shape[0]):
            out[i, 0], out[i, 1] = loss_and_slope(F, L, i, x)
            m = -L[i] * row_dot(F, i, x)
            out[i, 2], out[i, 3] = softplus(m), -L[i] * sigmoid(m)

    rng = np.random.default_rng(seed)
    F = rng.standard_normal((8, d)) * 10.0 ** rng.integers(-2, 3, (8, 1))
    F[0] = 0.0
    F[1, 0] = np.nan
    L = rng.choice([-1.0, 1.0], 8)
    out = np.empty((8, 4))
    both(F, L, rng.standard_normal(d) * 30, out)
    assert np.array_equal(out[:, :2].view(np.int64), out[:, 2:].view(np.int64))
