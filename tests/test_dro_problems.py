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


@given(seed=st.integers(0, 2**32 - 1), batch=st.integers(1, 13), d=st.integers(1, 9))
@settings(max_examples=25, deadline=None)
def test_kl_memo_gives_g_vjps_own_numbers_and_misses_every_other_point(seed, batch, d):
    """KL-DRO's per-run memo (``run_data``; :mod:`fedcomp.problems._kl_kernels`): after
    g_value2 (its second point) or g_value, g_vjp at the same point with the same key takes the
    sample's rows and weights from the memo and must return g_vjp's own numbers bit for bit. A
    poisoned memo shows which calls read it: the hit must change, and every other call (one bit
    of x changed, -0.0 for 0.0, another key, exact oracles, the problem's own data) must not."""
    p = fedcomp.problems.KLDRO.synthetic(lam=0.7, batch_size=batch, seed=seed % 997, dim=d,
                                         num_clients=3, samples_per_client=20,
                                         feature_shift=1.0)
    km = p.kernel_module
    run = km.run_data(p.data)
    assert p.data[5].size == 0 and run[5].shape[0] == p.num_clients
    rng = np.random.default_rng(seed)
    x1, x2 = rng.standard_normal(d), rng.standard_normal(d)
    x2[0] = 0.0
    v = np.array([rng.uniform(0.1, 2.0)])
    k = 1
    key = np.uint64(sample_key(base_key(seed % 1000), k, 5, 0))
    other = np.uint64(sample_key(base_key(seed % 1000), k, 6, 0))

    def vjp(data, x, kk, exact=False):
        out = np.zeros(d)
        km.g_vjp(data, k, x, v, kk, exact, out)
        return out

    o1, o2, a = np.zeros(1), np.zeros(1), np.zeros(1)
    km.g_value2(run, k, x1, x2, key, False, o1, o2)
    km.g_value(p.data, k, x2, key, False, a)
    assert a[0] == o2[0]
    assert np.array_equal(vjp(run, x2, key), vjp(p.data, x2, key))
    d_col = run[0].shape[1]
    saved = run[5][k, d_col].copy()
    run[5][k, d_col] = saved * 2.0 + 1.0      # poison the first sample's weight
    assert not np.array_equal(vjp(run, x2, key), vjp(p.data, x2, key))   # the hit reads it
    neg = x2.copy()
    neg[0] = -0.0
    bumped = x2.copy()
    bumped[-1] = np.nextafter(bumped[-1], np.inf)
    for x, kk in ((neg, key), (bumped, key), (x2, other), (x1, key)):
        assert np.array_equal(vjp(run, x, kk), vjp(p.data, x, kk))
    assert np.array_equal(vjp(run, x2, key, exact=True), vjp(p.data, x2, key, exact=True))
    run[5][k, d_col] = saved
    km.g_value(run, k, x1, other, False, a)    # g_value keeps its point's weights too
    assert np.array_equal(vjp(run, x1, other), vjp(p.data, x1, other))
    assert p.data[5].size == 0 and p.data[6].size == 0


def test_kl_runs_in_threads_each_have_their_own_memo():
    """simulate_many's threads run KL-DRO with a memo each (run_data): every run equals its
    simulate, and the problem's own (empty) memo is never written."""
    import numba
    p = fedcomp.problems.KLDRO.synthetic(lam=0.5, batch_size=6, seed=3, **KW)
    kw = dict(iterations=40, eta=0.2, local_steps=3, beta=0.4, record_every=5)
    old = numba.get_num_threads()
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    try:
        many = fedcomp.simulate_many(p, "feddro", seeds=[0, 1, 2, 3, 0], **kw)
    finally:
        numba.set_num_threads(old)
    for r in many:
        one = fedcomp.simulate(p, "feddro", seed=r.seed, **kw)
        assert np.array_equal(one.x_bar, r.x_bar)
        assert np.array_equal(one.grad_norm_sq, r.grad_norm_sq)
    assert p.data[5].size == 0 and p.data[6].size == 0


def test_a_huge_minibatch_runs_without_a_memo():
    """Beyond MEMO_MAX_ENTRIES a run's memo is empty (not gigabytes): the oracles then compute
    as without one."""
    from fedcomp.problems import _kl_kernels as km
    small = fedcomp.problems.KLDRO.synthetic(lam=0.5, batch_size=16, seed=1, **KW)
    huge = fedcomp.problems.KLDRO.synthetic(lam=0.5, batch_size=km.MEMO_MAX_ENTRIES, seed=1,
                                            **KW)
    assert km.run_data(small.data)[5].shape[0] == small.num_clients
    assert km.run_data(huge.data)[5].shape[0] == 0
    assert km.run_data(huge.data)[6].shape[0] == 0


def test_inner_client_vjp_is_the_exact_jacobian_transposed():
    """Problem.inner_client_vjp(k, x, v) = grad g_k(x) v: on LinearQuadratic A_k^T v exactly, on
    KL-DRO the finite-difference Jacobian of inner_client, and a v of the wrong shape is named."""
    import fedcomp
    lq = fedcomp.problems.LinearQuadratic([[[1.0, 2.0], [0.0, 3.0]]], [[0.5, -1.0]])
    assert np.array_equal(lq.inner_client_vjp(0, [0.3, 0.1], [2.0, -1.0]), [2.0, 1.0])
    kl = fedcomp.problems.KLDRO.synthetic(lam=0.7, batch_size=4, num_clients=2,
                                          samples_per_client=6, dim=3, seed=1)
    x, h = np.array([0.2, -0.4, 0.1]), 1e-6
    fd = [(kl.inner_client(1, x + h * e)[0] - kl.inner_client(1, x - h * e)[0]) / (2 * h)
          for e in np.eye(3)]
    np.testing.assert_allclose(kl.inner_client_vjp(1, x, [1.0]), fd, rtol=1e-7)
    with pytest.raises(ValueError, match="v"):
        kl.inner_client_vjp(1, x, [1.0, 2.0])
