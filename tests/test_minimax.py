"""fedcomp.problems.LogCoshMinimax: g_k(x) = a_k x, f_k(z, y) = sum_i log cosh(z_i - b_ki) -
(mu/2) y^2 (AUC paper problem (4)): oracles by hand and by finite differences, the closed forms,
the client-product direction against grad Phi, the sampled oracles, LocalSCGDAM runs, errors."""
import math

import numpy as np
import pytest

import fedcomp
from fedcomp.problems import LogCoshMinimax

KM = "fedcomp.problems._minimax_kernels"


def _instance():
    return LogCoshMinimax([1.0, 3.0], [0.0, 2.0], mu=1.0)


def _random(noise=0.0, K=3, d=3, seed=0):
    rng = np.random.default_rng(seed)
    return LogCoshMinimax(rng.uniform(0.5, 2.0, (K, d)), rng.normal(0, 1, (K, d)), mu=0.7,
                          noise=noise)


def _mod(p):
    return p.kernel_module


# --- by hand: d = 1, K = 2, a = (1, 3), b = (0, 2), mu = 1, x = 0.3 --------------------------

def test_values_by_hand():
    p = _instance()
    x = np.array([0.3])
    # g_1 = 0.3, g_2 = 0.9, gbar = abar x = 2 * 0.3 = 0.6
    assert p.inner_client(0, x) == pytest.approx([0.3])
    assert p.inner_client(1, x) == pytest.approx([0.9])
    assert p.inner(x) == pytest.approx([0.6])
    # Phi = (log cosh(0.6 - 0) + log cosh(0.6 - 2)) / 2 at y* = 0
    phi = 0.5 * (math.log(math.cosh(0.6)) + math.log(math.cosh(1.4)))
    assert p.value(x) == pytest.approx(phi, rel=1e-14)
    assert p.value(x) == pytest.approx(0.468010466253056, rel=1e-12)
    # grad Phi = abar * (tanh(0.6) + tanh(-1.4)) / 2 = tanh(0.6) - tanh(1.4)
    assert p.grad(x) == pytest.approx([math.tanh(0.6) - math.tanh(1.4)], rel=1e-14)
    assert p.grad(x) == pytest.approx([-0.34830208120422723], rel=1e-12)
    # D = (1 * tanh(0.6) + 3 * tanh(-1.4)) / 2
    assert p.client_product_gradient(x) == pytest.approx(
        [0.5 * (math.tanh(0.6) - 3 * math.tanh(1.4))], rel=1e-14)
    assert p.dual_opt(x) == 0.0
    assert p.minimax_value([0.6], 0.5) == pytest.approx(phi - 0.5 * 0.25, rel=1e-14)
    mod = _mod(p)
    out, dual = np.zeros(1), np.zeros(1)
    mod.outer_grads(p.data, 1, np.array([0.6]), np.array([0.5]), np.uint64(7), True, out, dual)
    assert out == pytest.approx([math.tanh(-1.4)]) and dual == pytest.approx([-0.5])
    mod.g_vjp(p.data, 1, x, np.array([2.0]), np.uint64(7), True, out)
    assert out == pytest.approx([6.0])                      # diag(a_2)^T v = 3 * 2
    mod.f_grad(p.data, 0, np.array([0.6]), out)
    assert out == pytest.approx([0.5 * (math.tanh(0.6) + math.tanh(-1.4))])


def test_closed_forms_of_the_counterexample_instance():
    p = _instance()
    # grad Phi = 0 at abar x* = (b_1 + b_2) / 2 = 1; D(x*) = (tanh 1 - 3 tanh 1) / 2 = -tanh 1
    xs = p.stationary_point()
    assert xs == pytest.approx([0.5], abs=1e-14)
    assert p.grad(xs) == pytest.approx([0.0], abs=1e-15)
    assert p.client_product_gradient(xs) == pytest.approx([-math.tanh(1.0)], rel=1e-14)
    # D = 0: t = tanh(2 x_D) solves -c t^2 + 4 t - 3 c = 0, c = tanh(2) (module docstring)
    c = math.tanh(2.0)
    t = (4.0 - math.sqrt(16.0 - 12.0 * c * c)) / (2.0 * c)
    xd = p.client_product_root()
    assert xd == pytest.approx([math.atanh(t) / 2.0], rel=1e-13)
    assert xd == pytest.approx([0.83924], abs=1e-5)
    assert p.client_product_gradient(xd) == pytest.approx([0.0], abs=1e-14)
    assert float(p.grad(xd)[0] ** 2) == pytest.approx(0.3866045775040841, rel=1e-10)


def test_constants_of_assumptions_1_to_4():
    c = _instance().zhang_constants()
    assert (c["C_g"], c["C_f"], c["L_f"], c["L_g"], c["mu"]) == (3.0, 1.0, 1.0, 0.0, 1.0)
    from fedcomp.theory.constants import auc_lemma2
    assert auc_lemma2(c["C_g"], c["C_f"], c["L_f"], c["L_g"], c["mu"]) == 18.0   # Lemma 2
    n = LogCoshMinimax([[1.0, -2.0]], [[0.0, 1.0]], mu=3.0, noise=0.5).zhang_constants()
    assert n["C_g"] == pytest.approx(2.0 + 0.5 * math.sqrt(2))
    assert n["C_f"] == pytest.approx(math.sqrt(2 * 1.25)) and n["L_f"] == 3.0
    assert n["sigma_f"] == pytest.approx(0.5 * math.sqrt(2))


# --- finite differences -----------------------------------------------------------------------

def _fd(fn, x, h=1e-6):
    out = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        out.append((fn(x + e) - fn(x - e)) / (2 * h))
    return np.array(out)


def test_oracles_against_finite_differences():
    p = _random()
    mod = _mod(p)
    rng = np.random.default_rng(1)
    x, v, u = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
    y = np.array([0.4])
    assert p.grad(x) == pytest.approx(_fd(p.value, x), abs=1e-8)
    key = np.uint64(3)
    for k in range(p.num_clients):
        J = np.array([_fd(lambda z: p.inner_client(k, z)[j], x) for j in range(3)])
        out = np.zeros(3)
        mod.g_vjp(p.data, k, x, v, key, True, out)
        assert out == pytest.approx(J.T @ v, abs=1e-8)
    # the clients' outer gradients average to F's (F = minimax_value)
    gu, gy = np.zeros(3), np.zeros(1)
    for k in range(p.num_clients):
        ou, od = np.zeros(3), np.zeros(1)
        mod.outer_grads(p.data, k, u, y, key, True, ou, od)
        gu += ou / p.num_clients
        gy += od / p.num_clients
    assert gu == pytest.approx(_fd(lambda z: p.minimax_value(z, 0.4), u), abs=1e-8)
    assert gy == pytest.approx(_fd(lambda w: p.minimax_value(u, w[0]), y), abs=1e-8)
    # f_grad: the gradient of max_y F(u, y) = F(u, 0)
    out = np.zeros(3)
    mod.f_grad(p.data, 0, u, out)
    assert out == pytest.approx(_fd(lambda z: p.minimax_value(z, 0.0), u), abs=1e-8)
    # phi_value_grad returns Phi and writes grad Phi
    g = np.zeros(3)
    assert mod.phi_value_grad(p.data, x, g) == pytest.approx(p.value(x))
    assert g == pytest.approx(p.grad(x))


def test_large_arguments_stay_finite():
    p = _instance()
    assert math.isfinite(p.value([1e4])) and p.value([1e4]) == pytest.approx(
        0.5 * (2e4 - math.log(2) + 2e4 - 2 - math.log(2)))
    assert p.grad([1e4]) == pytest.approx([2.0])


# --- the client-product direction ----------------------------------------------------------------

def test_client_product_differs_from_grad_phi_only_under_two_level_heterogeneity():
    rng = np.random.default_rng(2)
    xs = rng.normal(size=(5, 3))
    het = _random()
    assert max(np.max(np.abs(het.client_product_gradient(x) - het.grad(x))) for x in xs) > 1e-2
    a = rng.uniform(0.5, 2.0, (3, 3))
    b = rng.normal(size=(3, 3))
    same_a = LogCoshMinimax(np.tile(a[0], (3, 1)), b)       # identical inner maps
    same_b = LogCoshMinimax(a, np.tile(b[0], (3, 1)))       # identical outer functions
    same = LogCoshMinimax(np.tile(a[0], (3, 1)), np.tile(b[0], (3, 1)))
    for p in (same_a, same_b, same):
        for x in xs:
            assert p.client_product_gradient(x) == pytest.approx(p.grad(x), rel=1e-13,
                                                                 abs=1e-15)
    # then the root of D is the stationary point
    assert same_b.client_product_root() == pytest.approx(same_b.stationary_point(), abs=1e-12)


def test_roots_need_one_sign_per_coordinate():
    p = LogCoshMinimax([1.0, -0.5], [0.0, 1.0])
    with pytest.raises(ValueError, match="share one sign"):
        p.client_product_root()
    assert p.stationary_point() == pytest.approx([1.0 / 0.25 * 0.5])   # abar x* = 0.5
    flat = LogCoshMinimax([1.0, -1.0], [0.0, 1.0])                      # abar = 0: flat
    assert flat.stationary_point() == [0.0] and flat.grad([3.0]) == [0.0]


# --- sampled oracles -----------------------------------------------------------------------

def test_sampled_oracles_reuse_the_key_and_are_unbiased():
    p = _random(noise=0.3)
    mod = _mod(p)
    x, v, u = np.array([0.2, -0.4, 1.0]), np.array([1.0, 2.0, -1.0]), np.array([0.1, 0.5, -0.3])
    y = np.array([0.25])
    a1, a2, ex = np.zeros(3), np.zeros(3), np.zeros(3)
    mod.g_value(p.data, 1, x, np.uint64(11), False, a1)
    mod.g_value(p.data, 1, x, np.uint64(11), False, a2)
    mod.g_value(p.data, 1, x, np.uint64(11), True, ex)
    assert np.array_equal(a1, a2) and not np.allclose(a1, ex)
    n = 20000
    acc = {"g": np.zeros(3), "vjp": np.zeros(3), "u": np.zeros(3), "y": np.zeros(1)}
    buf, bd = np.zeros(3), np.zeros(1)
    for s in range(n):
        key = np.uint64(1000 + s)
        mod.g_value(p.data, 1, x, key, False, buf)
        acc["g"] += buf / n
        mod.g_vjp(p.data, 1, x, v, key, False, buf)
        acc["vjp"] += buf / n
        mod.outer_grads(p.data, 1, u, y, key, False, buf, bd)
        acc["u"] += buf / n
        acc["y"] += bd / n
    exact = {}
    for name, call in (("g", lambda o: mod.g_value(p.data, 1, x, np.uint64(0), True, o)),
                       ("vjp", lambda o: mod.g_vjp(p.data, 1, x, v, np.uint64(0), True, o)),
                       ("u", lambda o: mod.outer_grad_inner(p.data, 1, u, y, np.uint64(0), True,
                                                            o))):
        exact[name] = np.zeros(3)
        call(exact[name])
    se = 0.3 * 2.5 / math.sqrt(n) * 5        # 5 standard errors (|v_i| <= 2)
    for name in ("g", "vjp", "u"):
        assert acc[name] == pytest.approx(exact[name], abs=se), name
    assert acc["y"] == pytest.approx([-0.7 * 0.25], abs=se)
    # outer_grads is the two single oracles at one sample
    o1, o2, d1 = np.zeros(3), np.zeros(3), np.zeros(1)
    mod.outer_grads(p.data, 2, u, y, np.uint64(5), False, o1, d1)
    mod.outer_grad_inner(p.data, 2, u, y, np.uint64(5), False, o2)
    d2 = np.zeros(1)
    mod.outer_grad_dual(p.data, 2, u, y, np.uint64(5), False, d2)
    assert np.array_equal(o1, o2) and np.array_equal(d1, d2)


# --- LocalSCGDAM through the engine ------------------------------------------------------

@pytest.mark.parametrize("noise,stochastic", [(0.0, False), (0.2, True)])
def test_localscgdam_runs(noise, stochastic):
    p = LogCoshMinimax([1.0, 3.0], [0.0, 2.0], mu=1.0, noise=noise)
    kw = dict(iterations=10000, eta=0.002, local_steps=2, stochastic=stochastic,
              record_every=500, gamma_x=1.0, gamma_y=0.5, alpha=20.0, beta_x=20.0, beta_y=20.0)
    r = fedcomp.simulate(p, "localscgdam", seed=3, **kw)
    assert r.diverged_at is None and np.all(np.isfinite(r.grad_norm_sq))
    assert np.all(np.isfinite(r.inner_error))
    assert r.rounds == 10000 // 2
    # floats per round: x (1) + dual (1) + u (1) + v (1) + h (1) per client
    assert r.floats_sent == r.rounds * 2 * 5
    again = fedcomp.simulate(p, "localscgdam", seed=3, **kw)
    assert np.array_equal(r.x_bar, again.x_bar)
    if not stochastic:
        # exact oracles: the iterates settle near x_D = 0.839 (the root of D; the offset left is
        # of order alpha eta, the clients' own h before (14) averages it), far from x* = 0.5
        assert r.x_bar == pytest.approx(p.client_product_root(), abs=0.05)
        assert r.grad_norm_sq[-1] > 0.25


# --- errors ------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs,match", [
    (dict(a=[[1.0], [2.0]], b=[[0.0]]), "b must have the shape of a"),
    (dict(a=[[1.0, np.nan]], b=[[0.0, 0.0]]), "a must contain only finite"),
    (dict(a=[[[1.0]]], b=[[[0.0]]]), r"a must have shape \(K, d\)"),
    (dict(a=[], b=[]), r"a must have shape \(K, d\)"),
    (dict(a="x", b=[0.0]), "a must be an array of real numbers"),
    (dict(a=[1.0], b=[0.0], mu=0.0), r"mu must be in \(0, inf\)"),
    (dict(a=[1.0], b=[0.0], mu=-1.0), "mu must be"),
    (dict(a=[1.0], b=[0.0], noise=-0.1), r"noise must be in \[0, inf\)"),
    (dict(a=[1.0], b=[0.0], noise=math.inf), "noise must be a finite"),
])
def test_bad_input_names_the_parameter(kwargs, match):
    with pytest.raises(ValueError, match=match):
        LogCoshMinimax(**kwargs)


def test_bad_points_and_constructor_round_trip():
    p = _instance()
    with pytest.raises(ValueError, match="x must have shape"):
        p.value([0.0, 1.0])
    with pytest.raises(ValueError, match="u must have shape"):
        p.minimax_value([0.0, 1.0], 0.0)
    path, args = p.constructor()
    from fedcomp.runner.spec import resolve
    q = resolve(path)(**args)
    assert q.fingerprint() == p.fingerprint()
    assert q.structure == "minimax" and KM == q.kernels


def test_roots_and_constants_refuse_degenerate_clients():
    # a_k of opposite signs: abar = 0 and D = (1/2)(tanh(-0) - tanh(-1)) = 0.3808 is constant,
    # with no root; grad Phi's coordinate is 0 everywhere (flat: 0 is returned)
    p = LogCoshMinimax([1.0, -1.0], [0.0, 1.0])
    with pytest.raises(ValueError, match="share one sign"):
        p.client_product_root()
    assert p.stationary_point() == pytest.approx([0.0])
    assert p.client_product_gradient(np.array([0.7])) == pytest.approx([0.5 * math.tanh(1.0)])
    with pytest.raises(ValueError, match="C_g = 0"):
        LogCoshMinimax([0.0, 0.0], [0.0, 1.0]).zhang_constants()
