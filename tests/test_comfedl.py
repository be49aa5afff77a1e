"""ComFedL (Algorithm 1), its baselines and the local-inner problems, pinned by hand computations."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fedcomp
from fedcomp.algorithms import get as get_alg
from fedcomp.engine import build
from fedcomp.problems import MAMLQuadratic, RobustFL
from fedcomp.rng import base_key


# --- numpy references (independent of the kernels) --------------------------------------------

def logistic_loss_grad(a, s, x, l2):
    z = -s * (a @ x)
    loss = np.mean(np.logaddexp(0.0, z)) + 0.5 * l2 * x @ x
    sig = 1.0 / (1.0 + np.exp(-z))
    grad = (-(s * sig) @ a) / len(s) + l2 * x
    return loss, grad


@pytest.fixture
def tiny_robust():
    feats = [np.array([[1.0, 0.5], [-0.3, 1.2], [0.2, -0.7]]), np.array([[0.4, -1.0]])]
    labs = [np.array([1.0, -1.0, 1.0]), np.array([-1.0])]
    return RobustFL(feats, labs, gamma=0.7, l2=0.1), feats, labs


def comp_grad_ref(feats, labs, x, gamma, l2, k):
    L, gL = logistic_loss_grad(feats[k], labs[k], x, l2)
    return np.exp(L / gamma) / gamma * gL


def test_robust_fl_phi_is_problem_6(tiny_robust):
    p, feats, labs = tiny_robust
    x = np.array([0.3, -0.2])
    Ls = [logistic_loss_grad(f, s, x, 0.1)[0] for f, s in zip(feats, labs)]
    assert p.value(x) == pytest.approx(np.mean(np.exp(np.array(Ls) / 0.7)), rel=1e-13)
    ref = np.mean([comp_grad_ref(feats, labs, x, 0.7, 0.1, k) for k in range(2)], axis=0)
    np.testing.assert_allclose(p.grad(x), ref, rtol=1e-12)
    # Lemma 1: (5) is gamma log of (6)
    assert p.minimax_value(x) == pytest.approx(0.7 * np.log(p.value(x)), rel=1e-12)


def test_comfedl_two_local_steps_then_average(tiny_robust):
    p, feats, labs = tiny_robust
    eta, x0 = 0.3, np.array([0.2, 0.1])
    res = fedcomp.simulate(p, "comfedl", iterations=2, eta=eta, local_steps=2, x0=x0,
                           stochastic=False)
    ends = []
    for k in range(2):
        x = x0.copy()
        for _ in range(2):
            x = x - eta * comp_grad_ref(feats, labs, x, 0.7, 0.1, k)
        ends.append(x)
    np.testing.assert_allclose(res.x_bar, np.mean(ends, axis=0), rtol=1e-12)
    assert res.rounds == 1 and res.floats_sent == 2 * 2


def test_comfedl_minibatch_of_single_row_client_equals_exact(tiny_robust):
    # Client 1 holds one row: any minibatch is that row, so its stochastic step is exact.
    p, feats, labs = tiny_robust
    one = RobustFL([feats[1]], [labs[1]], gamma=0.7, l2=0.1)
    x0 = np.array([0.2, 0.1])
    a = fedcomp.simulate(one, "comfedl", iterations=3, eta=0.2, x0=x0, batch=5, seed=3)
    b = fedcomp.simulate(one, "comfedl", iterations=3, eta=0.2, x0=x0, stochastic=False)
    np.testing.assert_allclose(a.x_bar, b.x_bar, rtol=1e-13)


def test_comfedl_client_sampling_uses_only_participants(tiny_robust):
    p, feats, labs = tiny_robust
    eta, x0 = 0.3, np.array([0.2, 0.1])
    res = fedcomp.simulate(p, "comfedl", iterations=1, eta=eta, x0=x0, stochastic=False,
                           clients_per_round=1, seed=5)
    cands = [x0 - eta * comp_grad_ref(feats, labs, x0, 0.7, 0.1, k) for k in range(2)]
    assert min(np.abs(res.x_bar - c).max() for c in cands) < 1e-13
    assert res.floats_sent == 2  # one participant uploads d = 2 floats
    # over many rounds both clients get picked (uniform sampling)
    res = fedcomp.simulate(p, "comfedl", iterations=40, eta=0.01, x0=x0, stochastic=False,
                           clients_per_round=1, seed=5)
    assert res.floats_sent == 40 * 2 and res.rounds == 40


def test_comfedl_rejects_bad_counts(tiny_robust):
    p = tiny_robust[0]
    with pytest.raises(ValueError, match="clients_per_round"):
        fedcomp.simulate(p, "comfedl", iterations=2, clients_per_round=3)
    with pytest.raises(ValueError, match="clients_per_round"):
        fedcomp.simulate(p, "comfedl", iterations=2, clients_per_round=1.5)
    with pytest.raises(ValueError, match="batch"):
        fedcomp.simulate(p, "comfedl", iterations=2, batch=0)
    with pytest.raises(ValueError, match="local-inner"):
        fedcomp.simulate(fedcomp.problems.LinearQuadratic.random(2, 2, 2), "comfedl",
                         iterations=2)


def test_maml_problem_and_comfedl_step():
    q = MAMLQuadratic.random(3, 2, alpha=0.2, gamma=None, seed=4)
    x0 = np.array([0.5, -1.0])
    S, th = q.sigma, q.theta

    def grad_k(x, k, gamma=None):
        y = x - 0.2 * S[k] @ (x - th[k])
        gl = S[k] @ (y - th[k])
        if gamma is not None:
            gl = gl * np.exp((0.5 * (y - th[k]) @ S[k] @ (y - th[k]) + 0.125) / gamma) / gamma
        return (np.eye(2) - 0.2 * S[k]) @ gl

    np.testing.assert_allclose(q.grad(x0), np.mean([grad_k(x0, k) for k in range(3)], axis=0),
                               rtol=1e-12)
    res = fedcomp.simulate(q, "comfedl", iterations=1, eta=0.1, x0=x0, stochastic=False)
    np.testing.assert_allclose(res.x_bar, x0 - 0.1 * q.grad(x0), rtol=1e-12)
    d = MAMLQuadratic(S, th, alpha=0.2, noise=0.5, gamma=2.0)
    np.testing.assert_allclose(d.grad(x0),
                               np.mean([grad_k(x0, k, 2.0) for k in range(3)], axis=0),
                               rtol=1e-12)


@settings(max_examples=10, deadline=None)
@given(b=st.integers(1, 4), seed=st.integers(0, 50))
def test_maml_minibatch_oracles_are_consistent(b, seed):
    # g_vjp_b is the transposed Jacobian of g_value_b on the same batch (finite differences).
    q = MAMLQuadratic.random(2, 3, alpha=0.3, seed=1)
    km = q.kernel_module
    key = np.uint64(seed * 7919 + 1)
    x = np.array([0.3, -0.1, 0.8])
    v = np.array([1.0, -2.0, 0.5])
    out = np.zeros(3)
    km.g_vjp_b(q.data, 1, x, v, key, False, b, out)
    J = np.zeros((3, 3))
    e = 1e-6
    for j in range(3):
        yp, ym = np.zeros(3), np.zeros(3)
        km.g_value_b(q.data, 1, x + e * np.eye(3)[j], key, False, b, yp)
        km.g_value_b(q.data, 1, x - e * np.eye(3)[j], key, False, b, ym)
        J[:, j] = (yp - ym) / (2 * e)
    np.testing.assert_allclose(out, J.T @ v, atol=1e-6)


@pytest.mark.parametrize("gamma", [None, 2.0])
def test_comp_grad_b_is_the_three_oracle_calls(gamma, without_oracle):
    """MAMLQuadratic's comp_grad_b (the support batch drawn once for the value and the Jacobian)
    gives the numbers of g_value_b, f_grad_b and g_vjp_b called in turn, bit for bit, sampled or
    exact; ComFedL runs through it and through the engine's pasted default (the three calls)
    record the same numbers bit for bit."""
    kw = dict(num_clients=3, dim=4, gamma=gamma, alpha=0.2, noise=0.5, seed=5)
    q = MAMLQuadratic.random(**kw)
    km = q.kernel_module
    rng = np.random.default_rng(1)
    for k in range(3):
        for exact in (False, True):
            for nb_in, nb_out in ((1, 1), (3, 2), (5, 4)):
                x = rng.standard_normal(4)
                ki, ko = np.uint64(101 + k), np.uint64(202 + k)
                y, v, u = np.empty(4), np.empty(4), np.empty(4)
                km.comp_grad_b(q.data, k, x, ki, ko, exact, nb_in, nb_out, y, v, u)
                ry, rv, ru = np.empty(4), np.empty(4), np.empty(4)
                km.g_value_b(q.data, k, x, ki, exact, nb_in, ry)
                km.f_grad_b(q.data, k, ry, ko, exact, nb_out, rv)
                km.g_vjp_b(q.data, k, x, rv, ki, exact, nb_in, ru)
                for a, b in ((y, ry), (v, rv), (u, ru)):
                    np.testing.assert_array_equal(a, b)
    other = without_oracle(MAMLQuadratic, "comp_grad_b").random(**kw)
    assert not hasattr(other.kernel_module, "comp_grad_b")
    runs = [fedcomp.simulate(p, "comfedl", iterations=40, eta=0.002, local_steps=3, seed=2,
                             record_every=5, batch=3, outer_batch=2) for p in (q, other)]
    for m in ("grad_norm_sq", "value", "consensus", "x_bar"):
        np.testing.assert_array_equal(getattr(runs[0], m), getattr(runs[1], m))
    assert runs[0].diverged_at is None and np.ptp(runs[0].grad_norm_sq) > 0.0


def test_robust_fl_comp_grad_b_is_the_three_oracle_calls(without_oracle):
    """RobustFL's comp_grad_b (the rows of B and their sigmoids kept from the value pass for the
    gradient) gives the numbers of g_value_b, f_grad_b and g_vjp_b called in turn, bit for bit,
    for batches below, at and above one four-sample block, sampled or exact; ComFedL runs through
    it and through the pasted default record the same numbers."""
    kw = dict(sizes=(40, 9, 17), dim=5, seed=3)
    q = RobustFL.synthetic(**kw)
    km = q.kernel_module
    rng = np.random.default_rng(2)
    for k in range(3):
        for exact in (False, True):
            for nb_in in (1, 3, 4, 5, 8, 13):
                x = rng.standard_normal(5) * 0.5
                ki, ko = np.uint64(11 + k + 7 * nb_in), np.uint64(23 + k)
                y, v, u = np.empty(1), np.empty(1), np.empty(5)
                km.comp_grad_b(q.data, k, x, ki, ko, exact, nb_in, 2, y, v, u)
                ry, rv, ru = np.empty(1), np.empty(1), np.empty(5)
                km.g_value_b(q.data, k, x, ki, exact, nb_in, ry)
                km.f_grad_b(q.data, k, ry, ko, exact, 2, rv)
                km.g_vjp_b(q.data, k, x, rv, ki, exact, nb_in, ru)
                for a, b in ((y, ry), (v, rv), (u, ru)):
                    np.testing.assert_array_equal(a, b)
    other = without_oracle(RobustFL, "comp_grad_b").synthetic(**kw)
    assert not hasattr(other.kernel_module, "comp_grad_b")
    for b in (2, 6):
        runs = [fedcomp.simulate(p, "comfedl", iterations=40, eta=0.05, local_steps=3, seed=2,
                                 record_every=5, batch=b) for p in (q, other)]
        for m in ("grad_norm_sq", "value", "consensus", "x_bar"):
            np.testing.assert_array_equal(getattr(runs[0], m), getattr(runs[1], m))
        assert runs[0].diverged_at is None and np.ptp(runs[0].grad_norm_sq) > 0.0


def test_fedavg_weights_by_data_size(tiny_robust):
    p, feats, labs = tiny_robust
    eta, x0 = 0.3, np.array([0.2, 0.1])
    res = fedcomp.simulate(p, "fedavg", iterations=2, eta=eta, local_steps=2, x0=x0,
                           stochastic=False)
    ends = []
    for k in range(2):
        x = x0.copy()
        for _ in range(2):
            x = x - eta * logistic_loss_grad(feats[k], labs[k], x, 0.1)[1]
        ends.append(x)
    np.testing.assert_allclose(res.x_bar, 0.75 * ends[0] + 0.25 * ends[1], rtol=1e-12)


def test_qfedavg_one_round(tiny_robust):
    p, feats, labs = tiny_robust
    eta, q, x0 = 0.3, 0.5, np.array([0.2, 0.1])
    res = fedcomp.simulate(p, "q-fedavg", iterations=1, eta=eta, x0=x0, stochastic=False, q=q)
    L = 1.0 / eta
    num, den = np.zeros(2), 0.0
    for k in range(2):
        loss, g = logistic_loss_grad(feats[k], labs[k], x0, 0.1)
        dw = L * (eta * g)
        num += (loss + 1e-10) ** q * dw
        den += q * (loss + 1e-10) ** (q - 1) * dw @ dw + L * (loss + 1e-10) ** q
    np.testing.assert_allclose(res.x_bar, x0 - num / den, rtol=1e-12)
    assert res.floats_by_variable == {"delta": 4, "h": 2}


def test_qfedavg_with_q0_is_fedavg_with_uniform_weights(tiny_robust):
    # q = 0: Delta_k = Delta w_k, h_k = L, so w <- mean_k wbar_k (q-FFL paper, section 4).
    p = tiny_robust[0]
    a = fedcomp.simulate(p, "q-fedavg", iterations=6, eta=0.2, local_steps=3,
                         stochastic=False, q=0.0)
    b = fedcomp.simulate(p, "comfedl", iterations=6, eta=0.2, local_steps=3, stochastic=False)
    c = fedcomp.simulate(p, "fedavg", iterations=6, eta=0.2, local_steps=3, stochastic=False)
    assert np.abs(a.x_bar - b.x_bar).max() > 1e-6  # comfedl follows a different gradient
    assert np.abs(a.x_bar - c.x_bar).max() > 1e-6  # fedavg weights 3:1
    # the uniform average of local GD on the plain losses:
    p1, feats, labs = tiny_robust
    ends = []
    for k in range(2):
        x = np.zeros(2)
        for _ in range(3):
            x = x - 0.2 * logistic_loss_grad(feats[k], labs[k], x, 0.1)[1]
        ends.append(x)
    first = fedcomp.simulate(p, "q-fedavg", iterations=3, eta=0.2, local_steps=3,
                             stochastic=False, q=0.0)
    np.testing.assert_allclose(first.x_bar, np.mean(ends, axis=0), rtol=1e-10)


def _steps(alg_name, problem):
    mod = build.kernel_module(get_alg(alg_name), problem.kernels)
    return mod


def test_drfa_one_round_by_hand(tiny_robust):
    p, feats, labs = tiny_robust
    alg = get_alg("drfl")
    mod = _steps("drfl", p)
    K, d, I = 2, 2, 2
    eta, lam_lr = 0.3, 0.4
    nz, nw, ns = alg.sizes(d, 1)
    X = np.tile(np.array([0.2, 0.1]), (K, 1))
    Y, Z, W, S = np.zeros((K, 1)), np.zeros((K, nz)), np.zeros((K, nw)), np.zeros(ns)
    hyper = np.array([eta, 0.0, 1.0, lam_lr])
    base, ledger = base_key(11), np.zeros(4, dtype=np.int64)
    mod.init_step(p.data, X, Y, Z, W, S, hyper, base, I, True, ledger)
    mult = Z[:, 0].copy()
    tprime = int(S[0])
    assert mult.sum() == K and 1 <= tprime <= I
    np.testing.assert_allclose(Z[:, 1], [0.5, 0.5])
    traj = []
    for k in range(K):
        x = np.array([0.2, 0.1])
        path = []
        for _ in range(I):
            x = x - eta * logistic_loss_grad(feats[k], labs[k], x, 0.1)[1]
            path.append(x)
        traj.append(path)
    for t in range(I):
        for k in range(K):
            mod.client_step(p.data, 0, k, t, X, Y, Z, W, S, hyper, base, I, True)
        mod.sync_step(p.data, 0, t, (t + 1) % I == 0, X, Y, Z, W, S, hyper, base, I, True,
                      ledger)
    w_new = sum(mult[k] * traj[k][-1] for k in range(K)) / K
    w_snap = sum(mult[k] * traj[k][tprime - 1] for k in range(K)) / K
    np.testing.assert_allclose(X[0], w_new, rtol=1e-12)
    v = np.array([logistic_loss_grad(feats[k], labs[k], w_snap, 0.1)[0] for k in range(K)])
    lam = np.array([0.5, 0.5]) + I * lam_lr * v
    # projection onto the simplex of a 2-vector: shift both by the same amount
    lam = np.clip(lam - (lam.sum() - 1.0) / 2, 0.0, None)
    lam /= lam.sum()
    np.testing.assert_allclose(Z[:, 1], lam, rtol=1e-12)
    assert ledger[0] == 1


@settings(max_examples=20, deadline=None)
@given(st.lists(st.floats(-3, 3), min_size=1, max_size=6))
def test_simplex_projection(vals):
    mod = _steps("drfl", RobustFL([np.eye(2)], [np.ones(2)]))
    v = np.array(vals, dtype=float)
    out = v.copy()
    mod.project_simplex(out)
    assert out.min() >= 0 and out.sum() == pytest.approx(1.0)
    # KKT: out = max(v - theta, 0) for one theta
    pos = out > 1e-12
    th = v[pos] - out[pos]
    assert np.ptp(th) < 1e-9
    assert np.all(v[~pos] <= th[0] + 1e-9)


def test_baselines_run_stochastic_and_are_deterministic_per_seed():
    p = RobustFL.synthetic(sizes=(200, 20, 20), dim=3, seed=2)
    for name, kw in [("comfedl", dict(batch=4, clients_per_round=2)),
                     ("fedavg", dict(batch=4, clients_per_round=2)),
                     ("q-fedavg", dict(batch=4, q=0.2)), ("drfl", dict(batch=4))]:
        a = fedcomp.simulate(p, name, iterations=40, eta=0.05, local_steps=4, seed=7, **kw)
        b = fedcomp.simulate(p, name, iterations=40, eta=0.05, local_steps=4, seed=7, **kw)
        assert a.diverged_at is None
        np.testing.assert_array_equal(a.x_bar, b.x_bar)
        assert a.rounds == 10


def test_robust_fl_comparison_table(tiny_robust):
    from fedcomp.experiments import robust_fl as R
    p, feats, labs = tiny_robust
    x = np.array([0.3, -0.2])
    m = R.client_metrics(p, x)
    losses = [logistic_loss_grad(f, s, x, 0.1)[0] for f, s in zip(feats, labs)]
    accs = [np.mean(np.sign(f @ x) == s) for f, s in zip(feats, labs)]
    assert m["worst_loss"] == pytest.approx(max(losses))
    assert m["avg_acc"] == pytest.approx(np.mean(accs)) and m["worst_acc"] == min(accs)
    df = R.compare(p, iterations=10, tau=5, batch=2, seeds=[0])
    assert sorted(df["algorithm"]) == sorted(R.PAPER_SETTINGS)
    assert (df["rounds"] == 2).all() and not df["diverged"].any()


# --- RobustFL's kernels: four samples at a time, sums in sample order -------------------------

def _robust_for_blocks():
    """Two clients (29 and 6 rows) with d = 6: one four-lane block and a tail in each product."""
    rng = np.random.default_rng(5)
    feats = [rng.normal(size=(29, 6)), rng.normal(size=(6, 6))]
    labs = [np.where(rng.random(29) < 0.5, 1.0, -1.0), np.array([1.0, -1.0] * 3)]
    p = RobustFL(feats, labs, gamma=0.8, l2=0.05)
    return p, feats, labs


@pytest.mark.parametrize("batch", [1, 2, 3, 4, 5, 7, 8, 9, 13, 0])
def test_robust_fl_minibatch_oracles_match_numpy_on_the_drawn_rows(batch):
    """g_value_b / g_vjp_b / loss_grad_b on exactly the rows the key draws (row j:
    randint(key, j, n_k), duplicates included; batch 0: exact) against the numpy reference:
    batches below 4 go one sample at a time, the others in vector blocks (the last one partial
    unless the batch is a multiple of 4, two blocks side by side in the loss)."""
    from fedcomp.rng import randint, sample_key
    p, feats, labs = _robust_for_blocks()
    km, x = p.kernel_module, np.random.default_rng(1).normal(size=6)
    out, o1 = np.zeros(6), np.zeros(1)
    for k in range(2):
        n_k = len(labs[k])
        for t in range(3):
            key = np.uint64(sample_key(np.uint64(11), k, t, 0))
            rows = (list(range(n_k)) if batch == 0
                    else [int(randint(key, j, n_k)) for j in range(batch)])
            loss, grad = logistic_loss_grad(feats[k][rows], labs[k][rows], x, 0.05)
            km.g_value_b(p.data, k, x, key, batch == 0, batch, o1)
            assert o1[0] == pytest.approx(loss, rel=1e-13)
            km.g_vjp_b(p.data, k, x, np.array([0.6]), key, batch == 0, batch, out)
            np.testing.assert_allclose(out, 0.6 * grad, rtol=1e-12, atol=1e-15)
            km.loss_grad_b(p.data, k, x, key, batch == 0, batch, out)
            np.testing.assert_allclose(out, grad, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("batch", [2, 3, 4, 6, 9, 13, 0])
def test_robust_fl_oracles_are_sums_in_sample_order(batch):
    """Bit for bit against loops in sample order written here: the products of dense.row_dot,
    softplus(m) = max(m, 0) + log1p(exp(-|m|)) and sigmoid(m) in its two forms, with
    vmath's exp1 / log1p1 (any lane's bits) for the vector blocks (batches of 4 and more, and the
    exact passes) and libm's exp / log1p one sample at a time (batches below 4); each row's
    weight scale * (-s_i sigmoid(m_i)) / n, the ridge term first."""
    import math

    from fedcomp.engine.dense import row_dot
    from fedcomp.engine.vmath import exp1, log1p1
    from fedcomp.rng import randint, sample_key
    p, feats, labs = _robust_for_blocks()
    F, L, off = p.data[0], p.data[1], p.data[2]
    km, x = p.kernel_module, np.random.default_rng(2).normal(size=6)
    vector = batch == 0 or batch >= 4
    exp, log1p = (exp1, log1p1) if vector else (math.exp, math.log1p)
    scale, l2 = 0.6, 0.05
    for k in range(2):
        key = np.uint64(sample_key(np.uint64(3), k, 4, 0))
        lo, n_k = off[k], off[k + 1] - off[k]
        rows = (list(range(lo, lo + n_k)) if batch == 0
                else [lo + int(randint(key, j, n_k)) for j in range(batch)])
        n = len(rows)
        s, grad = 0.0, scale * l2 * x
        for i in rows:
            m = -L[i] * row_dot(F, i, x)
            e = exp(-abs(m))
            s += (m + log1p(e)) if m > 0.0 else log1p(e)
            sig = (1.0 if m > 0.0 else e) / (1.0 + e) if vector else (
                1.0 / (1.0 + math.exp(-m)) if m >= 0.0 else math.exp(m) / (1.0 + math.exp(m)))
            w = -L[i] * sig * scale / n
            for q in range(6):
                grad[q] = grad[q] + w * F[i, q]
        o1, out = np.zeros(1), np.zeros(6)
        km.g_value_b(p.data, k, x, key, batch == 0, batch, o1)
        ridge = 0.0
        for v in x:
            ridge += v * v
        assert o1[0] == s / n + 0.5 * l2 * ridge
        km.g_vjp_b(p.data, k, x, np.array([scale]), key, batch == 0, batch, out)
        assert np.array_equal(out, grad)
