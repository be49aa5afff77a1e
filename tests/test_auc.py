"""The compositional AUC min-max problem (AUC paper (1)-(4)) and its algorithms: LocalSCGDAM
(Algorithm 1, eqs. (11)-(14)) and the baselines CoDA, LocalSGDAM and LocalSGDM.

The one- and two-step tests recompute the updates with an independent numpy transcription of the
paper's formulas (``Ref`` below), never with the kernels under test.
"""
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fedcomp
from fedcomp.problems import AUCMinimax
from fedcomp.problems import _auc_kernels as kern


# --------------------------------------------------------------------------------------------
# an independent numpy transcription of AUC paper (1)-(2) with full-batch (exact) oracles
# --------------------------------------------------------------------------------------------
class Ref:
    def __init__(self, feats, labels, rho, p):
        self.Z = [np.asarray(z, float) for z in feats]
        self.L = [np.asarray(lab, float) for lab in labels]
        self.rho, self.p = rho, p
        self.K = len(feats)
        self.dw = self.Z[0].shape[1]

    @staticmethod
    def sig(s):
        return 1.0 / (1.0 + np.exp(-s))

    def ce_grad(self, k, x):
        Z, L = self.Z[k], self.L[k]
        s = Z @ x[:self.dw]
        gw = np.mean((-L * self.sig(-L * s))[:, None] * Z, axis=0)
        return np.concatenate([gw, [0.0, 0.0]])

    def g(self, k, x):
        return x - self.rho * self.ce_grad(k, x)

    def jac(self, k, x):
        Z = self.Z[k]
        s = Z @ x[:self.dw]
        sg = self.sig(s)
        H = (Z * (sg * (1 - sg))[:, None]).T @ Z / Z.shape[0]
        J = np.eye(self.dw + 2)
        J[:self.dw, :self.dw] -= self.rho * H
        return J

    def loss(self, k, u, alpha):
        """Mean over client k of AUC paper (1), written term by term."""
        p, Z, L = self.p, self.Z[k], self.L[k]
        h = Z @ u[:self.dw]
        a, b = u[self.dw], u[self.dw + 1]
        pos, neg = (L == 1).astype(float), (L == -1).astype(float)
        val = ((1 - p) * (h - a) ** 2 * pos - p * (1 - p) * alpha ** 2 + p * (h - b) ** 2 * neg
               + 2 * (1 + alpha) * (p * h * neg - (1 - p) * h * pos))
        return float(np.mean(val))

    def grad_u(self, k, u, alpha, eps=1e-6):
        # central differences of the term-by-term transcription (the loss is quadratic, so
        # central differences are exact up to rounding)
        return np.array([(self.loss(k, u + eps * e, alpha) - self.loss(k, u - eps * e, alpha))
                         / (2 * eps) for e in np.eye(len(u))])

    def grad_alpha(self, k, u, alpha, eps=1e-6):
        return (self.loss(k, u, alpha + eps) - self.loss(k, u, alpha - eps)) / (2 * eps)


def tiny():
    feats = [np.array([[1.0, 0.5], [-0.3, 1.2], [0.8, -1.0]]),
             np.array([[0.2, 0.1], [1.5, -0.4], [-0.7, 0.9], [0.4, 0.4]])]
    labels = [np.array([1.0, -1.0, -1.0]), np.array([-1.0, 1.0, -1.0, -1.0])]
    prob = AUCMinimax(feats, labels, rho=0.3, batch_size=2)
    return prob, Ref(feats, labels, 0.3, prob.p)


X0 = np.array([0.3, -0.2, 0.1, -0.05])


@pytest.fixture(scope="module")
def small():
    return AUCMinimax.synthetic(num_clients=3, dim=3, samples_per_client=40,
                                positive_ratio=[0.1, 0.3, 0.5], rho=0.5, batch_size=4, seed=1)


# --------------------------------------------------------------------------------------------
# problem
# --------------------------------------------------------------------------------------------
def test_default_p_is_mixture_positive_fraction():
    prob, _ = tiny()
    assert prob.p == pytest.approx(0.5 * (1 / 3 + 1 / 4))


@pytest.mark.parametrize("batch", [1, 2, 3, 4, 6, 7, 8, 13])
def test_minibatch_oracles_match_transcription_on_the_drawn_rows(batch):
    """The minibatch path (four samples per vector block, the last block partial unless the
    batch is a multiple of 4; d_w = 6: one four-lane block and a tail in each product) equals
    the transcription evaluated on exactly the rows the key draws (row j: randint(key, j, n_k)),
    duplicates included, for both labels."""
    from fedcomp.rng import randint, sample_key
    prob = AUCMinimax.synthetic(num_clients=2, dim=5, samples_per_client=30,
                                positive_ratio=[0.3, 0.6], rho=0.4, batch_size=batch, seed=3)
    rng = np.random.default_rng(0)
    dw, d = prob.Z.shape[1], prob.dim
    x, u, v = rng.normal(size=d), rng.normal(size=d), rng.normal(size=d)
    alpha = 0.35
    out, o1 = np.zeros(d), np.zeros(1)
    for k in range(2):
        lo, hi = prob.offsets[k], prob.offsets[k + 1]
        for t in range(3):
            key = np.uint64(sample_key(np.uint64(7), k, t, 0))
            rows = [lo + randint(key, j, hi - lo) for j in range(batch)]
            ref = Ref([prob.Z[rows]], [prob.L[rows]], prob.rho, prob.p)
            assert ref.dw == dw
            kern.g_value(prob.data, k, x, key, False, out)
            np.testing.assert_allclose(out, ref.g(0, x), rtol=1e-12, atol=1e-14)
            kern.g_vjp(prob.data, k, x, v, key, False, out)
            np.testing.assert_allclose(out, ref.jac(0, x).T @ v, rtol=1e-12, atol=1e-14)
            kern.outer_grad_inner(prob.data, k, u, np.array([alpha]), key, False, out)
            np.testing.assert_allclose(out, ref.grad_u(0, u, alpha), rtol=1e-7, atol=1e-9)
            kern.outer_grad_dual(prob.data, k, u, np.array([alpha]), key, False, o1)
            assert o1[0] == pytest.approx(ref.grad_alpha(0, u, alpha), rel=1e-7, abs=1e-9)
            assert {prob.L[r] for r in rows} == {1.0, -1.0} or batch < 4


@pytest.mark.parametrize("batch,exact", [(2, False), (6, False), (8, False), (13, False),
                                         (0, True)])
def test_minibatch_oracles_are_sums_in_sample_order(batch, exact):
    """Bit for bit: the vector oracles against scalar loops in sample order written here, with
    the same products (dense.row_dot), the same exp (vmath.exp1, any lane's bits) and the
    sigmoid's two forms (1 / (1 + e) for m > 0, e / (1 + e) otherwise, e = exp(-|m|)). This pins
    the documented order (a sample's numbers do not depend on its lane or block) beyond the
    tolerance of the transcription test."""
    from fedcomp.engine.dense import row_dot
    from fedcomp.engine.vmath import exp1
    from fedcomp.rng import randint, sample_key
    prob = AUCMinimax.synthetic(num_clients=2, dim=5, samples_per_client=30,
                                positive_ratio=[0.3, 0.6], rho=0.4, batch_size=max(batch, 1),
                                seed=4)
    Z, L, rho, p = prob.Z, prob.L, prob.rho, prob.p
    rng = np.random.default_rng(1)
    d, dw = prob.dim, Z.shape[1]
    x, u = rng.normal(size=d), rng.normal(size=d)
    alpha = -0.2

    def sigmoid(m):
        e = exp1(-abs(m))
        return (1.0 if m > 0.0 else e) / (1.0 + e)

    for k in range(2):
        lo, hi = prob.offsets[k], prob.offsets[k + 1]
        key = np.uint64(sample_key(np.uint64(3), k, 5, 0))
        rows = (list(range(lo, hi)) if exact
                else [lo + randint(key, j, hi - lo) for j in range(batch)])
        n = len(rows)
        ce = np.zeros(d)
        gu, acc_a, acc_b, acc = np.zeros(d), 0.0, 0.0, 0.0
        wt = 1.0 / n
        for i in rows:                                   # sample order
            s = row_dot(Z, i, x)
            c = (-L[i] * sigmoid(-L[i] * s)) * (1.0 / n)
            for q in range(dw):
                ce[q] = ce[q] + c * Z[i, q]
            su = row_dot(Z, i, u)
            if L[i] > 0.0:
                r = su - u[dw]
                cw = 2.0 * (1.0 - p) * r - 2.0 * (1.0 + alpha) * (1.0 - p)
                acc_a -= wt * 2.0 * (1.0 - p) * r
                acc += -(1.0 - p) * su
            else:
                r = su - u[dw + 1]
                cw = 2.0 * p * r + 2.0 * (1.0 + alpha) * p
                acc_b -= wt * 2.0 * p * r
                acc += p * su
            for q in range(dw):
                gu[q] = gu[q] + (wt * cw) * Z[i, q]
        gu[dw], gu[dw + 1] = acc_a, acc_b
        out, o_u, o_d = np.empty(d), np.empty(d), np.empty(1)
        kern.g_value(prob.data, k, x, key, exact, out)
        assert np.array_equal(out, x - rho * ce)
        kern.outer_grads(prob.data, k, u, np.array([alpha]), key, exact, o_u, o_d)
        assert np.array_equal(o_u, gu)
        assert o_d[0] == -2.0 * p * (1.0 - p) * alpha + 2.0 * (acc / n)


def test_exact_inner_and_outer_match_transcription():
    prob, ref = tiny()
    x = X0
    u = np.array([0.4, -0.1, 0.2, -0.3])
    alpha = 0.7
    out = np.zeros(4)
    for k in range(2):
        kern.g_value(prob.data, k, x, np.uint64(0), True, out)
        np.testing.assert_allclose(out, ref.g(k, x), rtol=1e-12, atol=1e-14)
        v = np.array([1.0, -2.0, 0.5, 0.25])
        kern.g_vjp(prob.data, k, x, v, np.uint64(0), True, out)
        np.testing.assert_allclose(out, ref.jac(k, x).T @ v, rtol=1e-12, atol=1e-14)
        kern.outer_grad_inner(prob.data, k, u, np.array([alpha]), np.uint64(0), True, out)
        np.testing.assert_allclose(out, ref.grad_u(k, u, alpha), rtol=1e-7, atol=1e-9)
        o1 = np.zeros(1)
        kern.outer_grad_dual(prob.data, k, u, np.array([alpha]), np.uint64(0), True, o1)
        assert o1[0] == pytest.approx(ref.grad_alpha(k, u, alpha), rel=1e-7, abs=1e-9)
    gbar = 0.5 * (ref.g(0, x) + ref.g(1, x))
    np.testing.assert_allclose(prob.inner(x), gbar, rtol=1e-12)
    F = 0.5 * (ref.loss(0, u, alpha) + ref.loss(1, u, alpha))
    assert prob.minimax_value(u, alpha) == pytest.approx(F, rel=1e-12)


def test_phi_is_max_over_dual_and_gradient_is_danskin():
    prob, ref = tiny()
    x = X0
    u = prob.inner(x)
    a_star = prob.dual_opt(x)
    F = lambda a: 0.5 * (ref.loss(0, u, a) + ref.loss(1, u, a))  # noqa: E731
    # the closed form maximises the transcribed F (a concave quadratic in alpha)
    res = [F(a_star + d) for d in np.linspace(-1, 1, 21)]
    assert max(res) == pytest.approx(F(a_star), rel=1e-12)
    assert prob.value(x) == pytest.approx(F(a_star), rel=1e-12)
    fd = np.array([(prob.value(x + 1e-6 * e) - prob.value(x - 1e-6 * e)) / 2e-6
                   for e in np.eye(4)])
    np.testing.assert_allclose(prob.grad(x), fd, rtol=1e-6, atol=1e-9)


def test_min_ab_max_alpha_is_pairwise_square_auc_loss(small):
    """Ying et al. (2016), Thm 1: with p the true positive fraction, min_{a,b} max_alpha F equals
    p(1-p) E[(1 - (s - s'))^2 | l=1, l'=-1] minus the constant p(1-p) (the printed (1) omits it)."""
    rng = np.random.default_rng(3)
    for _ in range(3):
        x = rng.standard_normal(small.dim)
        u = small.inner(x)
        a, b = small.optimal_ab(x)
        u[-2], u[-1] = a, b
        alpha = np.zeros(1)
        kern.dual_opt(small.data, u, alpha)
        K = small.num_clients
        wt = np.repeat(1.0 / (K * small.client_sizes), small.client_sizes)
        s = small.Z @ u[:small.feature_dim]
        pos = small.L > 0
        wp, wn = wt[pos] / wt[pos].sum(), wt[~pos] / wt[~pos].sum()
        pair = np.sum(wp[:, None] * wn[None, :] * (1 - (s[pos][:, None] - s[~pos][None, :])) ** 2)
        p = small.p
        assert small.minimax_value(u, alpha[0]) + p * (1 - p) == pytest.approx(p * (1 - p) * pair,
                                                                             rel=1e-10)


@given(st.integers(0, 2 ** 32), st.floats(-2, 2), st.integers(0, 2))
def test_sampled_jacobian_is_the_derivative_of_the_sampled_value(key, scale, k):
    """g_value and g_vjp with one key use one batch: J(x; xi) v = d/de g(x + e v; xi) (J is
    symmetric here)."""
    prob = AUCMinimax.synthetic(num_clients=3, dim=3, samples_per_client=20, rho=0.7,
                                batch_size=3, seed=2)
    rng = np.random.default_rng(key % 1000)
    x = scale * rng.standard_normal(prob.dim)
    v = rng.standard_normal(prob.dim)
    kk = np.uint64(key)
    gp, gm, jv = np.zeros(prob.dim), np.zeros(prob.dim), np.zeros(prob.dim)
    kern.g_value(prob.data, k, x + 1e-6 * v, kk, False, gp)
    kern.g_value(prob.data, k, x - 1e-6 * v, kk, False, gm)
    kern.g_vjp(prob.data, k, x, v, kk, False, jv)
    np.testing.assert_allclose(jv, (gp - gm) / 2e-6, rtol=1e-5, atol=1e-7)


def test_sampled_oracles_are_unbiased(small):
    from fedcomp.rng import sample_key
    x = np.full(small.dim, 0.2)
    u = np.full(small.dim, -0.1)
    yd = np.array([0.3])
    n = 4000
    base = np.uint64(12345)
    for name, args, m in (("g_value", (x,), small.dim),
                          ("outer_grad_inner", (u, yd), small.dim),
                          ("outer_grad_dual", (u, yd), 1),
                          ("ce_grad", (x,), small.dim)):
        fn = getattr(kern, name)
        draws = np.zeros((n, m))
        for i in range(n):
            fn(small.data, 1, *args, np.uint64(sample_key(base, 1, i, 0)), False, draws[i])
        exact = np.zeros(m)
        fn(small.data, 1, *args, np.uint64(0), True, exact)
        # + 1e-12: coordinates a, b of g are x exactly, up to rounding of the mean
        se = draws.std(axis=0, ddof=1) / math.sqrt(n) + 1e-12
        assert np.all(np.abs(draws.mean(axis=0) - exact) < 5 * se), name


def test_auc_metric_counts_pairs():
    prob, _ = tiny()
    x = np.array([1.0, 0.0, 0.0, 0.0])
    s = prob.Z[:, 0]
    pos, neg = s[prob.L > 0], s[prob.L < 0]
    want = np.mean([(a > b) + 0.5 * (a == b) for a in pos for b in neg])
    assert prob.auc(x, split="train") == pytest.approx(want)


def test_constants_bound_what_they_claim(small):
    rng = np.random.default_rng(0)
    Ru, Ra = 3.0, 4.0
    c = small.auc_constants(Ru, Ra)
    p = small.p
    assert c["mu"] == pytest.approx(2 * p * (1 - p))
    H = [small.outer_hessian(k) for k in range(small.num_clients)]
    assert c["L_f"] == pytest.approx(max(np.linalg.norm(h, 2) for h in H))
    d = small.dim
    for _ in range(200):
        k = int(rng.integers(small.num_clients))
        u = rng.standard_normal(d)
        u *= Ru * rng.uniform() / np.linalg.norm(u)
        alpha = rng.uniform(-Ra, Ra)
        key = np.uint64(rng.integers(2 ** 62))
        gu = np.zeros(d)
        kern.outer_grad_inner(small.data, k, u, np.array([alpha]), key, False, gu)
        assert np.linalg.norm(gu) <= c["C_f"]
        x = 3 * rng.standard_normal(d)
        J = np.column_stack([_vjp(small, k, x, e, key) for e in np.eye(d)])
        assert np.linalg.norm(J, 2) <= c["C_g"] * (1 + 1e-12)
        x2 = x + 0.1 * rng.standard_normal(d)
        J2 = np.column_stack([_vjp(small, k, x2, e, np.uint64(0), True) for e in np.eye(d)])
        J1 = np.column_stack([_vjp(small, k, x, e, np.uint64(0), True) for e in np.eye(d)])
        assert np.linalg.norm(J1 - J2, 2) <= c["L_g"] * np.linalg.norm(x - x2) * (1 + 1e-9)
    # Lemma 2: L_Phi bounds the Hessian of Phi where g(x) and alpha*(g(x)) stay in the radii
    from fedcomp.theory.constants import auc_lemma2, auc_lemma2_direct
    args = (c["C_g"], c["C_f"], c["L_f"], c["L_g"], c["mu"])
    lemma2, direct = auc_lemma2(*args), auc_lemma2_direct(*args)
    found = 0
    for _ in range(50):
        x = 0.5 * rng.standard_normal(d)
        if np.linalg.norm(small.inner(x)) > Ru or abs(small.dual_opt(x)) > Ra:
            continue
        Hp = np.column_stack([(small.grad(x + 1e-5 * e) - small.grad(x - 1e-5 * e)) / 2e-5
                              for e in np.eye(d)])
        assert np.linalg.norm(Hp, 2) <= direct <= lemma2
        found += 1
    assert found > 10


def _vjp(prob, k, x, v, key, exact=False):
    out = np.zeros(prob.dim)
    kern.g_vjp(prob.data, k, x, v, key, exact, out)
    return out


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="rho"):
        AUCMinimax.synthetic(rho=-1.0)
    with pytest.raises(ValueError, match="positive_ratio"):
        AUCMinimax.synthetic(num_clients=2, positive_ratio=[0.1, 1.5])
    with pytest.raises(ValueError, match="labels"):
        AUCMinimax([np.ones((2, 2))], [np.array([1.0, 2.0])])
    with pytest.raises(ValueError, match="p must"):
        AUCMinimax([np.ones((2, 2))], [np.array([1.0, -1.0])], p=1.0)


# --------------------------------------------------------------------------------------------
# algorithms: two exact steps recomputed by hand
# --------------------------------------------------------------------------------------------
def test_localscgdam_two_steps():
    prob, ref = tiny()
    eta, gx, gy, al, bx, by = 0.2, 1.5, 2.0, 3.0, 2.5, 4.0
    res = fedcomp.simulate(prob, "localscgdam", iterations=2, eta=eta, local_steps=2, x0=X0,
                           stochastic=False, gamma_x=gx, gamma_y=gy, alpha=al, beta_x=bx,
                           beta_y=by)
    xs, hs, ys = [], [], []
    for k in range(2):
        x, y = X0.copy(), 0.0
        h = ref.g(k, x)                                     # h_0 = g(x_0; xi_0)
        u = ref.jac(k, x).T @ ref.grad_u(k, h, y)           # u_0
        v = ref.grad_alpha(k, h, y)                         # v_0
        for _ in range(2):
            x, y = x - gx * eta * u, y + gy * eta * v       # (13)
            h = (1 - al * eta) * h + al * eta * ref.g(k, x)  # (11)
            u = (1 - bx * eta) * u + bx * eta * ref.jac(k, x).T @ ref.grad_u(k, h, y)  # (12)
            v = (1 - by * eta) * v + by * eta * ref.grad_alpha(k, h, y)
        xs.append(x), hs.append(h), ys.append(y)
    xbar = np.mean(xs, axis=0)
    np.testing.assert_allclose(res.x_bar, xbar, rtol=1e-6, atol=1e-9)
    gbar = 0.5 * (ref.g(0, xbar) + ref.g(1, xbar))
    assert res.inner_error[-1] == pytest.approx(np.linalg.norm(np.mean(hs, axis=0) - gbar),
                                                rel=1e-5, abs=1e-9)
    assert res.rounds == 1
    d = 4
    assert res.floats_by_variable == {"x": 2 * d, "y": 2, "u": 2 * d, "v": 2, "h": 2 * d}


def test_localscgdam_one_step_without_sync_keeps_clients_apart():
    prob, ref = tiny()
    eta = 0.1
    res = fedcomp.simulate(prob, "localscgdam", iterations=1, eta=eta, local_steps=3, x0=X0,
                           stochastic=False, allow_no_sync=True)  # no round is the point here
    xs = [X0 - eta * ref.jac(k, X0).T @ ref.grad_u(k, ref.g(k, X0), 0.0) for k in range(2)]
    np.testing.assert_allclose(res.x_bar, np.mean(xs, axis=0), rtol=1e-6, atol=1e-9)
    assert res.consensus[-1] == pytest.approx(np.mean([np.sum((x - np.mean(xs, axis=0)) ** 2)
                                                       for x in xs]), rel=1e-5)
    assert res.rounds == 0 and res.floats_sent == 0


def test_localscgdam_rejects_mixing_weights_above_one():
    prob, _ = tiny()
    with pytest.raises(ValueError, match="alpha\\*eta"):
        fedcomp.simulate(prob, "localscgdam", iterations=1, eta=0.5, alpha=3.0)


def test_localsgdam_two_steps():
    prob, ref = tiny()
    eta, gx, gy, bx, by = 0.2, 1.5, 2.0, 2.5, 4.0
    res = fedcomp.simulate(prob, "localsgdam", iterations=2, eta=eta, local_steps=2, x0=X0,
                           stochastic=False, gamma_x=gx, gamma_y=gy, beta_x=bx, beta_y=by)
    xs = []
    for k in range(2):
        x, y = X0.copy(), 0.0
        dx, dy = ref.grad_u(k, x, y), ref.grad_alpha(k, x, y)
        for _ in range(2):
            x, y = x - gx * eta * dx, y + gy * eta * dy
            dx = (1 - bx * eta) * dx + bx * eta * ref.grad_u(k, x, y)
            dy = (1 - by * eta) * dy + by * eta * ref.grad_alpha(k, x, y)
        xs.append(x)
    np.testing.assert_allclose(res.x_bar, np.mean(xs, axis=0), rtol=1e-6, atol=1e-9)
    assert res.floats_by_variable == {"x": 8, "y": 2, "u": 8, "v": 2}
    assert np.isnan(res.inner_error[-1])


def test_coda_stages_prox_and_decay():
    prob, ref = tiny()
    eta, prox, decay = 0.1, 0.5, 3.0
    # I = 1 and one round per stage: the step is eta / 3^t at iteration t and the reference
    # point is the averaged model of the previous iteration
    res = fedcomp.simulate(prob, "coda", iterations=3, eta=eta, local_steps=1, x0=X0,
                           stochastic=False, prox_coef=prox, stage_rounds=1, stage_decay=decay)
    x, y, vref = X0.copy(), 0.0, X0.copy()
    for t in range(3):
        step = eta / decay ** t
        nx, ny = [], []
        for k in range(2):
            nx.append(x - step * (ref.grad_u(k, x, y) + prox * (x - vref)))
            ny.append(y + step * ref.grad_alpha(k, x, y))
        x, y = np.mean(nx, axis=0), float(np.mean(ny))
        vref = x.copy()
    np.testing.assert_allclose(res.x_bar, x, rtol=1e-6, atol=1e-9)
    assert res.rounds == 3 and res.floats_by_variable == {"x": 3 * 8, "y": 3 * 2}


def test_coda_single_stage_is_local_sgda():
    prob, ref = tiny()
    eta = 0.1
    res = fedcomp.simulate(prob, "coda", iterations=2, eta=eta, local_steps=2, x0=X0,
                           stochastic=False)
    xs = []
    for k in range(2):
        x, y = X0.copy(), 0.0
        for _ in range(2):
            x, y = x - eta * ref.grad_u(k, x, y), y + eta * ref.grad_alpha(k, x, y)
        xs.append(x)
    np.testing.assert_allclose(res.x_bar, np.mean(xs, axis=0), rtol=1e-6, atol=1e-9)


def test_localsgdm_two_steps_on_cross_entropy():
    prob, ref = tiny()
    eta, beta = 0.3, 0.5
    res = fedcomp.simulate(prob, "localsgdm", iterations=3, eta=eta, local_steps=2, x0=X0,
                           stochastic=False, momentum=beta)
    xs, us = [], []
    for k in range(2):
        x, u = X0.copy(), np.zeros(4)
        for _ in range(2):
            u = beta * u + ref.ce_grad(k, x)
            x = x - eta * u
        xs.append(x), us.append(u)
    x_avg, u_avg = np.mean(xs, axis=0), np.mean(us, axis=0)   # the round after t = 1
    xs = []
    for k in range(2):
        u = beta * u_avg + ref.ce_grad(k, x_avg)
        xs.append(x_avg - eta * u)
    np.testing.assert_allclose(res.x_bar, np.mean(xs, axis=0), rtol=1e-9, atol=1e-12)
    assert res.rounds == 1 and res.floats_by_variable == {"x": 8, "u": 8}


def test_stochastic_runs_are_reproducible_and_localscgdam_decreases_the_gap(small):
    # overdamped momenta (beta eta = 0.4 against a dual step 4 eta): the regime of Theorem 1's
    # conditions (gamma_y <= 3 mu beta_y^2 / (400 L_f^2)); with beta = 1 the dynamics can cycle
    kw = dict(iterations=2000, eta=0.05, local_steps=4, record_every=100, gamma_y=4.0,
              alpha=8.0, beta_x=8.0, beta_y=8.0)
    r1 = fedcomp.simulate(small, "localscgdam", seed=3, **kw)
    r2 = fedcomp.simulate(small, "localscgdam", seed=3, **kw)
    np.testing.assert_array_equal(r1.x_bar, r2.x_bar)
    np.testing.assert_array_equal(r1.grad_norm_sq, r2.grad_norm_sq)
    assert r1.diverged_at is None
    assert np.mean(r1.grad_norm_sq[10:]) < 0.2 * r1.grad_norm_sq[0]


def test_algorithms_refuse_problems_without_the_minimax_structure():
    lq = fedcomp.problems.LinearQuadratic.random(2, 3, 2, seed=0)
    for name in ("localscgdam", "coda", "localsgdam", "localsgdm"):
        with pytest.raises(ValueError, match="minimax"):
            fedcomp.simulate(lq, name, iterations=1)


def test_client_product_direction_is_the_gradient_only_for_identical_clients():
    """LocalSCGDAM's x-momentum averages (1/K) sum_k J_k^T grad f^(k); grad Phi is
    Jbar^T mean_k grad f^(k). Equal for identical clients, different under two-level
    heterogeneity (claim fedcomp.localscgdam-bias in fedcomp.checks.own)."""
    rng = np.random.default_rng(5)
    Z = rng.standard_normal((30, 3))
    L = np.where(rng.uniform(size=30) < 0.3, 1.0, -1.0)
    L[:2] = [1.0, -1.0]
    same = AUCMinimax([Z, Z.copy(), Z.copy()], [L, L.copy(), L.copy()], rho=0.4)
    het = AUCMinimax.synthetic(num_clients=3, dim=3, samples_per_client=30,
                               positive_ratio=[0.1, 0.3, 0.6], feature_shift=1.0, rho=0.4, seed=5)
    for _ in range(3):
        x = rng.standard_normal(same.dim)
        np.testing.assert_allclose(same.client_product_gradient(x), same.grad(x), rtol=1e-12,
                                   atol=1e-14)
        x = rng.standard_normal(het.dim)
        diff = np.linalg.norm(het.client_product_gradient(x) - het.grad(x))
        assert diff > 1e-6 * np.linalg.norm(het.grad(x))


# the claims zhang.thm1 and fedcomp.localscgdam-bias (their schedule, sweep and bias
# measurement) are tested in tests/test_checks_zhang.py


@given(st.lists(st.floats(-3, 3), min_size=6, max_size=6), st.floats(-2, 2))
def test_closed_form_dual_maximises_F(u, delta):
    prob = AUCMinimax.synthetic(num_clients=2, dim=3, samples_per_client=15,
                                positive_ratio=[0.2, 0.5], rho=0.3, seed=4)
    u = np.array(u)
    a = np.zeros(1)
    kern.dual_opt(prob.data, u, a)
    # F is concave quadratic in alpha with curvature -2 p (1-p) (Assumption 4, mu = 2p(1-p))
    gap = prob.minimax_value(u, a[0]) - prob.minimax_value(u, a[0] + delta)
    assert gap == pytest.approx(prob.p * (1 - prob.p) * delta ** 2, rel=1e-8, abs=1e-10)


def test_noncompositional_limit_has_identity_inner_map():
    prob = AUCMinimax.synthetic(num_clients=2, dim=3, samples_per_client=15, rho=0.0, seed=4)
    x = np.linspace(-1, 1, prob.dim)
    np.testing.assert_array_equal(prob.inner(x), x)
    c = prob.auc_constants(1.0, 1.0)
    assert c["C_g"] == 1.0 and c["L_g"] == 0.0


@pytest.mark.parametrize("alg,hyper", [
    ("localscgdam", {"gamma_x": 1.0, "gamma_y": 2.0, "alpha": 4.0, "beta_x": 4.0, "beta_y": 4.0}),
    ("localsgdam", {"beta_x": 4.0, "beta_y": 4.0}),
    ("coda", {"prox_coef": 0.5, "stage_rounds": 4.0}),
])
def test_outer_grads_default_gives_the_same_iterates(alg, hyper, without_oracle):
    """The optional oracle outer_grads (both outer gradients at one sample): AUCMinimax's own
    (each row drawn and scored once) and the engine's pasted default (outer_grad_inner, then
    outer_grad_dual, fedcomp.engine.defaults), here through a kernel module that lacks it, give
    the same iterates bit for bit."""
    Without = without_oracle(AUCMinimax, "outer_grads")
    kw = dict(num_clients=3, dim=5, samples_per_client=30, positive_ratio=[0.2, 0.4, 0.6],
              rho=0.4, batch_size=7, seed=2)
    own, other = AUCMinimax.synthetic(**kw), Without.synthetic(**kw)
    assert not hasattr(other.kernel_module, "outer_grads")
    runs = [fedcomp.simulate(p, alg, iterations=40, eta=0.05, local_steps=3, seed=5,
                             record_every=10, **hyper) for p in (own, other)]
    np.testing.assert_array_equal(runs[0].x_bar, runs[1].x_bar)
    np.testing.assert_array_equal(runs[0].grad_norm_sq, runs[1].grad_norm_sq)
    assert np.abs(runs[0].x_bar).max() > 1e-3
