"""Mean-variance portfolio (FedDRO paper section 2.1): oracles, closed-form minimiser, and
convergence of FedDRO / FedAvg-modified with exact oracles."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import fedcomp
import fedcomp.rng
from fedcomp.problems.portfolio import MeanVariancePortfolio


@pytest.fixture(scope="module")
def market():
    return MeanVariancePortfolio.synthetic(num_clients=4, assets=6, samples_per_client=60,
                                           lam=2.0, heterogeneity=1.0, batch_size=8, seed=3)


def test_value_is_mean_minus_lam_variance_of_pooled_returns(market):
    # Phi(x) = -E[R] + lam Var(R) for R = r.x, r drawn from a uniformly chosen client
    x = np.linspace(-1.0, 1.0, market.dim)
    means = [r @ x for r in market.returns]
    ER = np.mean([m.mean() for m in means])
    ER2 = np.mean([(m ** 2).mean() for m in means])
    assert market.value(x) == pytest.approx(-ER + market.lam * (ER2 - ER ** 2), rel=1e-12)
    assert np.allclose(market.inner(x), [ER, ER2], rtol=1e-12)


def test_gradient_matches_finite_differences(market):
    x = np.random.default_rng(0).standard_normal(market.dim)
    fd = np.array([(market.value(x + 1e-6 * e) - market.value(x - 1e-6 * e)) / 2e-6
                   for e in np.eye(market.dim)])
    assert np.allclose(market.grad(x), fd, atol=1e-8)


def test_closed_form_minimiser_is_stationary_and_optimal(market):
    xs = market.minimiser()
    assert np.linalg.norm(market.grad(xs)) < 1e-10
    assert market.value(xs) == pytest.approx(market.optimal_value(), rel=1e-12)
    rng = np.random.default_rng(1)
    for _ in range(20):  # convex quadratic: every other point is worse
        assert market.value(xs + 0.1 * rng.standard_normal(market.dim)) > market.value(xs)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(0, 3))
def test_minibatch_oracles_are_unbiased_for_the_client_map(seed, k):
    # E over the with-replacement minibatch of the sampled g_k equals g_k (Monte Carlo, 5 s.e.)
    p = MeanVariancePortfolio.synthetic(num_clients=4, assets=3, samples_per_client=5,
                                        batch_size=1, seed=seed % 1000)
    mod = p.kernel_module
    x = np.random.default_rng(seed).standard_normal(3)
    out = np.zeros(2)
    acc = np.zeros(2)
    n = 4000
    for t in range(n):
        mod.g_value(p.data, k, x, np.uint64(seed + 7919 * t), False, out)
        acc += out
    exact = p.inner_client(k, x)
    rows = p.returns[k] @ x
    se = np.array([rows.std(), (rows ** 2).std()]) / np.sqrt(n)
    assert np.all(np.abs(acc / n - exact) <= 5 * se + 1e-12)


def test_same_key_same_minibatch_at_two_points(market):
    mod = market.kernel_module
    x1, x2 = np.ones(market.dim), np.linspace(0, 1, market.dim)
    key = np.uint64(12345)
    a, b, c = np.zeros(2), np.zeros(2), np.zeros(market.dim)
    mod.g_value(market.data, 1, x1, key, False, a)
    mod.g_value(market.data, 1, x2, key, False, b)
    v = np.array([1.0, 0.5])
    mod.g_vjp(market.data, 1, x1, v, key, False, c)
    rows = market.returns[1]
    idx = [int(fedcomp.rng.randint(key, j, rows.shape[0])) for j in range(market.batch_size)]
    R = rows[idx]
    assert np.allclose(a, [np.mean(R @ x1), np.mean((R @ x1) ** 2)], rtol=1e-12)
    assert np.allclose(b, [np.mean(R @ x2), np.mean((R @ x2) ** 2)], rtol=1e-12)
    assert np.allclose(c, (R * (v[0] + 2 * v[1] * (R @ x1))[:, None]).mean(axis=0), rtol=1e-12)


@pytest.mark.parametrize("algorithm,hyper", [("feddro", {"beta": 0.5}),
                                             ("fedavg-modified", {})])
def test_identical_clients_converge_to_the_closed_form_minimiser(algorithm, hyper):
    # every client holds the same samples: local models never drift, the algorithms reduce to
    # gradient descent on Phi and must reach x* = Sigma^{-1} mubar / (2 lam) to high accuracy
    base = MeanVariancePortfolio.synthetic(num_clients=1, assets=5, samples_per_client=80,
                                           seed=5)
    p = MeanVariancePortfolio([base.returns[0]] * 4, lam=1.0)
    xs = p.minimiser()
    res = fedcomp.simulate(p, algorithm, iterations=6000, eta=1.0 / p.smoothness(),
                           local_steps=3, stochastic=False, record_every=6000, **hyper)
    assert res.diverged_at is None
    assert np.linalg.norm(res.x_bar - xs) <= 1e-8 * np.linalg.norm(xs)


@pytest.mark.parametrize("algorithm,hyper", [("feddro", {"beta": 0.5}),
                                             ("fedavg-modified", {})])
def test_heterogeneous_clients_converge_with_a_step_size_proportional_limit(algorithm, hyper,
                                                                            market):
    # heterogeneous markets: the shared y is the mean of g_k at the clients' local models, which
    # differ from their average by O(eta); g_k is quadratic, so the fixed point is O(eta) away
    # from x*. Halving eta must roughly halve the distance, and the limit must be stationary for
    # small eta.
    xs = market.minimiser()
    L = market.smoothness()
    errs = []
    for eta in (0.2 / L, 0.1 / L, 0.05 / L):
        res = fedcomp.simulate(market, algorithm, iterations=int(4000 * 0.2 / (eta * L)), eta=eta,
                               local_steps=1, stochastic=False, record_every=100_000, **hyper)
        assert res.diverged_at is None
        errs.append(np.linalg.norm(res.x_bar - xs) / np.linalg.norm(xs))
    ratios = np.array(errs[1:]) / np.array(errs[:-1])
    assert np.all((ratios > 0.4) & (ratios < 0.6)), (errs, ratios)
    assert errs[-1] < 0.05


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="lam"):
        MeanVariancePortfolio([np.ones((3, 2))], lam=0.0)
    with pytest.raises(ValueError, match="returns"):
        MeanVariancePortfolio([np.ones((3, 2)), np.ones((3, 3))])
    with pytest.raises(ValueError, match="batch_size"):
        MeanVariancePortfolio([np.ones((3, 2))], batch_size=0)
    with pytest.raises(ValueError, match="singular"):
        MeanVariancePortfolio([np.ones((3, 2))]).minimiser()


def test_registered_in_problems_namespace():
    assert fedcomp.problems.MeanVariancePortfolio is MeanVariancePortfolio
