"""fedcomp.theory.constants: Assumption 3.2 constants, Lemma 3.5, AUC Lemma 2."""
import itertools
import json
import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from fedcomp.problems import LinearQuadratic, SymbolicProblem
from fedcomp.theory import constants
from fedcomp.theory.constants import (CONSTANT_NAMES, _random_symbolic, auc_lemma2,
                                      auc_lemma2_direct)


@pytest.fixture(scope="module")
def lq():
    return LinearQuadratic.random(4, 3, 2, heterogeneity=0.5, seed=1)


def test_linear_quadratic_closed_forms(lq):
    c = constants(lq, -1.0, 1.0)
    assert c.L_g == 0.0 and c.L_f == 1.0 and c.L_h == 0.0 and c.B_h == 0.0
    assert c.B_g == max(np.linalg.norm(lq.A[k], 2) for k in range(4))
    corners = np.array(list(itertools.product([-1.0, 1.0], repeat=3)))
    ymax = max(np.linalg.norm(corners @ lq.A[k].T + lq.b[k], axis=1).max() for k in range(4))
    assert c.B_f == pytest.approx(ymax, rel=1e-15)
    # f quadratic: Hess Phi = Abar^T Abar everywhere
    assert c.L_phi_observed == pytest.approx(np.linalg.norm(lq.Abar, 2) ** 2, rel=1e-12)
    assert c.L_phi_bound == pytest.approx(c.B_g ** 2, rel=1e-15)
    assert c.certified
    assert c.tightness == pytest.approx(c.L_phi_bound / c.L_phi_observed)


def test_huber_radius_caps_B_f():
    p = LinearQuadratic.random(3, 2, 2, seed=2)
    q = LinearQuadratic(p.A, p.b, huber_radius=0.5)
    c = constants(q, -2.0, 2.0)
    assert c.B_f == 0.5 and c.L_f == 1.0
    assert c.L_phi_observed <= c.L_phi_bound


def test_symbolic_linear_quadratic_agrees_with_closed_forms(lq):
    sy = SymbolicProblem.from_linear_quadratic(lq.A, lq.b)
    c1, c2 = constants(lq, -1.0, 1.0), constants(sy, -1.0, 1.0)
    assert c2.B_g == pytest.approx(c1.B_g, rel=1e-12)
    assert c2.L_g == 0.0 and c2.L_f == 1.0
    # the symbolic path bounds B_f over the hull box of the images: at least the closed form
    assert c2.B_f >= c1.B_f
    assert c2.L_phi_observed == pytest.approx(c1.L_phi_observed, rel=1e-10)
    assert c2.L_phi_certified == pytest.approx(c1.L_phi_observed, rel=1e-10)
    assert c2.certified and c2.details["B_g"].method == "exact"


def _independent_samples(p, lower, upper, n=64, seed=0):
    """Norms at random points computed with sympy.lambdify, independent of the interval code."""
    rng = np.random.default_rng(seed)
    X = lower + (upper - lower) * rng.random((n, p.dim))
    xs, ys = p.symbols_x, p.symbols_y
    out = {"B_g": 0.0, "L_g": 0.0, "B_h": 0.0, "L_h": 0.0, "B_f": 0.0, "L_f": 0.0}
    Ys = []
    for k in range(p.num_clients):
        J = sp.lambdify(xs, p.jacobians[k], "numpy")
        G = sp.lambdify(xs, list(p.g_expr[k]), "numpy")
        Hs = [sp.lambdify(xs, sp.hessian(e, xs), "numpy") for e in p.g_expr[k]]
        for x in X:
            out["B_g"] = max(out["B_g"], np.linalg.norm(np.array(J(*x), dtype=float), 2))
            if p.inner_dim == 1:
                out["L_g"] = max(out["L_g"], np.linalg.norm(np.array(Hs[0](*x), dtype=float), 2))
            Ys.append(np.array(G(*x), dtype=float))
        # Lipschitz ratios of the Jacobian (spectral norm) at random pairs of the box
        X2 = np.clip(X + 0.05 * (upper - lower) * rng.standard_normal(X.shape), lower, upper)
        for x1, x2 in zip(X, X2):
            dx = np.linalg.norm(x1 - x2)
            if dx > 1e-9:
                dJ = np.array(J(*x1), dtype=float) - np.array(J(*x2), dtype=float)
                out["L_g"] = max(out["L_g"], np.linalg.norm(dJ, 2) / dx)
        if p.h_expr is not None:
            gh = sp.lambdify(xs, list(p.h_gradients[k]), "numpy")
            hh = sp.lambdify(xs, sp.hessian(p.h_expr[k], xs), "numpy")
            for x in X:
                out["B_h"] = max(out["B_h"], np.linalg.norm(np.array(gh(*x), dtype=float)))
                out["L_h"] = max(out["L_h"], np.linalg.norm(np.array(hh(*x), dtype=float), 2))
    gf = sp.lambdify(ys, list(p.f_gradient), "numpy")
    hf = sp.lambdify(ys, sp.hessian(p.f_expr, ys), "numpy")
    for y in Ys:
        out["B_f"] = max(out["B_f"], np.linalg.norm(np.array(gf(*y), dtype=float)))
        out["L_f"] = max(out["L_f"], np.linalg.norm(np.array(hf(*y), dtype=float), 2))
    return out


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 2), st.integers(1, 2))
def test_lemma35_bound_is_never_below_the_observed_hessian(seed, d, dg):
    rng = np.random.default_rng(seed)
    p = _random_symbolic(rng, d, dg)
    lower = rng.uniform(-2.0, 0.5, size=d)
    upper = lower + rng.uniform(0.1, 2.5, size=d)
    c = constants(p, lower, upper)
    tol = 1e-9
    assert c.L_phi_observed <= c.L_phi_bound * (1 + tol) + 1e-12
    assert c.certified
    if c.L_phi_certified is not None:
        assert c.L_phi_observed <= c.L_phi_certified * (1 + tol) + 1e-12
    # every certified constant dominates its own samples and independent samples
    indep = _independent_samples(p, lower, upper, seed=seed)
    for n in CONSTANT_NAMES:
        b = c.details[n]
        assert b.proven
        assert b.value >= b.sampled * (1 - tol) - 1e-12, n
        assert b.value >= indep[n] * (1 - tol) - 1e-12, (n, b.value, indep[n])
    # the outer box contains the images
    X = lower + (upper - lower) * rng.random((50, d))
    for k in range(p.num_clients):
        fn = sp.lambdify(p.symbols_x, list(p.g_expr[k]), "numpy")
        Y = np.array([np.array(fn(*x), dtype=float) for x in X])
        assert np.all(Y >= c.outer_lower - 1e-12) and np.all(Y <= c.outer_upper + 1e-12)


def test_function_without_interval_rule_is_sampled_not_certified():
    a, u = sp.symbols("a u")
    p = SymbolicProblem([a], [u], [[sp.tan(a)]], u**2 / 2)
    c = constants(p, -0.5, 0.5)
    assert not c.certified
    assert c.details["B_g"].method == "sampled"
    # tan' = 1 + tan^2 peaks at the box edge
    assert c.B_g == pytest.approx(1 + math.tan(0.5) ** 2, rel=1e-6)


def test_other_problem_families_get_sampled_uncertified_constants(lq):
    class Renamed(LinearQuadratic):
        pass
    r = Renamed(lq.A, lq.b)
    c = constants(r, -1.0, 1.0)
    c0 = constants(lq, -1.0, 1.0)
    assert not c.certified
    assert all(c.details[n].method == "sampled" for n in CONSTANT_NAMES)
    assert c.B_g <= c0.B_g * (1 + 1e-9)
    # sampled over the hull box of the images: below sup ||y|| on that box
    hull = np.linalg.norm(np.maximum(np.abs(c0.outer_lower), np.abs(c0.outer_upper)))
    assert c0.B_f <= hull and c.B_f <= hull * (1 + 1e-9)
    assert c.L_phi_observed == pytest.approx(c0.L_phi_observed, rel=1e-5)


@pytest.mark.parametrize("form", ["kl", "printed", "corrected"])
def test_dro_constants_bound_the_kernels(form):
    from fedcomp.problems import Chi2DRO, KLDRO
    kw = dict(lam=0.7, num_clients=3, samples_per_client=20, dim=2, seed=4)
    p = KLDRO.synthetic(**kw) if form == "kl" else Chi2DRO.synthetic(form=form, **kw)
    lower, upper = -np.ones(2), np.ones(2)
    c = constants(p, lower, upper)
    assert c.certified
    assert c.L_phi_observed <= c.L_phi_bound
    mod = p.kernel_module
    rng = np.random.default_rng(0)
    out = np.empty(2)
    v = np.empty(1)
    for x in lower + (upper - lower) * rng.random((40, 2)):
        for k in range(3):
            mod.g_vjp(p.data, k, x, np.ones(1), np.uint64(0), True, out)
            assert np.linalg.norm(out) <= c.B_g * (1 + 1e-12)
            y = p.inner_client(k, x)
            assert c.outer_lower[0] - 1e-12 <= y[0] <= c.outer_upper[0] + 1e-12
            mod.f_grad(p.data, 0, y, v)
            assert abs(v[0]) <= c.B_f * (1 + 1e-12)
            mod.h_grad(p.data, k, x, np.uint64(0), True, out)
            assert np.linalg.norm(out) <= c.B_h * (1 + 1e-12) + 1e-15


def test_bad_input():
    lq = LinearQuadratic.random(2, 2, 1, seed=0)
    with pytest.raises(ValueError, match="lower must be <= upper"):
        constants(lq, 1.0, -1.0)
    with pytest.raises(ValueError, match="shape"):
        constants(lq, [0.0, 0.0, 0.0], 1.0)
    with pytest.raises(ValueError, match="finite"):
        constants(lq, -np.inf, 1.0)
    a, u = sp.symbols("a u")
    p = SymbolicProblem([a], [u], [[sp.log(a)]], u**2 / 2)
    with pytest.raises(ValueError, match="undefined"):
        constants(p, -1.0, 1.0)
    with pytest.raises(ValueError, match="Problem"):
        constants("lq", 0.0, 1.0)


def test_table_and_dict(lq):
    c = constants(lq, -1.0, 1.0)
    text = c.table()
    for n in CONSTANT_NAMES + ("L_phi_bound", "L_phi_observed", "tightness", "certified"):
        assert n in text
    d = json.loads(json.dumps(c.as_dict()))
    assert d["B_g"] == c.B_g and d["certified"] is True and d["methods"]["L_g"] == "exact"


def test_auc_lemma2_formula_and_direct_bound():
    assert auc_lemma2(2.0, 3.0, 1.5, 0.5, 0.25) == 2 * 4 * 2.25 / 0.25 + 1.5
    with pytest.raises(ValueError, match="mu"):
        auc_lemma2(1.0, 1.0, 1.0, 1.0, 0.0)


@given(st.floats(0.01, 10), st.floats(0, 10), st.floats(0.01, 10), st.floats(0, 10),
       st.floats(0.01, 1.0))
def test_auc_lemma2_dominates_the_direct_bound_when_mu_le_L_f(Cg, Cf, Lf, Lg, frac):
    mu = frac * Lf
    assert auc_lemma2(Cg, Cf, Lf, Lg, mu) >= auc_lemma2_direct(Cg, Cf, Lf, Lg, mu) * (1 - 1e-12)


def test_cli_prints_the_table_and_json(capsys):
    from fedcomp.cli import main
    assert main(["theory", "constants", "thm4.1"]) == 0
    out = capsys.readouterr().out
    assert "L_phi_bound" in out and "tightness" in out and "certified: True" in out
    assert main(["theory", "constants", "linear-quadratic", "--lower", "-2", "--upper", "2",
                 "--json", "--schedule", "feddro", "--T", "1000"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["problem"] == "linear-quadratic" and d["lower"] == [-2.0] * 3
    assert d["L_phi_bound"] >= d["L_phi_observed"] and d["certified"]
    assert d["schedule"]["algorithm"] == "feddro"
    assert main(["theory", "constants", "no-such-problem"]) == 2
    assert main(["theory", "constants", "auc-minimax", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["L_phi_observed"] <= d["L_phi_direct"] <= d["L_phi_lemma2"]


def test_exact_supremum_for_univariate_polynomials():
    a, u = sp.symbols("a u")
    # g = a^3/3 - 2a + 1 on [-1, 2.5]: g' = a^2 - 2 peaks at the end 2.5 (4.25); g'' = 2a -> 5
    p = SymbolicProblem([a], [u], [[a**3 / 3 - 2 * a + 1]], u**2 / 2)
    c = constants(p, -1.0, 2.5)
    assert c.details["B_g"].method == "exact" and c.B_g == 4.25
    assert c.details["L_g"].method == "exact" and c.L_g == 5.0
    # image: min at a = sqrt(2): 1 - 4 sqrt(2)/3; max at a = -1 (8/3) vs 2.5 (1.2083..)
    assert c.outer_lower[0] == pytest.approx(1 - 4 * math.sqrt(2) / 3, rel=1e-15)
    assert c.outer_lower[0] <= 1 - 4 * math.sqrt(2) / 3 + 1e-16
    assert c.outer_upper[0] == pytest.approx(8 / 3, rel=1e-15)
    assert c.certified


@pytest.mark.parametrize("lam", [2.0, 0.7])
def test_kl_formulas_bound_the_data_constants_and_the_direct_bound_is_tighter(lam):
    from fedcomp.problems import KLDRO
    from fedcomp.theory.constants import _logistic_data_bounds, dro_formulas
    p = KLDRO.synthetic(lam=lam, num_clients=3, samples_per_client=20, dim=2, seed=6)
    lower, upper = -np.ones(2), np.ones(2)
    c = constants(p, lower, upper)
    lmin, lmax, G, an, q = _logistic_data_bounds(p, lower, upper)
    f = dro_formulas("kl")
    sub = {s: v for s, v in zip(sp.symbols("lam l_lo l_hi G H", positive=True),
                                (lam, lmin.min(), lmax.max(), G.max(), (an ** 2 * q).max()))}
    assert c.L_phi_bound <= float(f["L_phi_bound"].subs(sub)) * (1 + 1e-12)
    direct = float(f["L_phi_direct"].subs(sub))
    # Phi's Hessian obeys the direct bound H + G^2/lambda, far below Lemma 3.5's value
    assert c.L_phi_observed <= direct * (1 + 1e-4)
    assert direct < c.L_phi_bound


# --- the interval arithmetic behind the certified constants ----------------------------------
_X, _Y = sp.symbols("x y", real=True)
_UNARY = [sp.sin, sp.cos, sp.exp, sp.tanh, sp.atan, sp.Abs, sp.cosh,
          lambda e: sp.log(1 + e**2), lambda e: sp.sqrt(1 + e**2), lambda e: 1 / (1 + e**2),
          lambda e: e**2, lambda e: e**3, lambda e: sp.Rational(3, 7) * e]
_BINARY = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - 2 * b,
           lambda a, b: sp.Max(a, b)]


def _tree(draw, depth):
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        # rationals, not Floats: lambdify prints Floats with 15 digits, which is not the value
        # the interval code encloses (the float nearest the Float)
        return draw(st.sampled_from([_X, _Y, sp.Rational(3, 10), sp.Rational(-5, 3)]))
    if draw(st.booleans()):
        return draw(st.sampled_from(_UNARY))(_tree(draw, depth - 1))
    return draw(st.sampled_from(_BINARY))(_tree(draw, depth - 1), _tree(draw, depth - 1))


@st.composite
def _expressions(draw):
    return _tree(draw, 4)


@settings(max_examples=30, deadline=None)
@given(_expressions(), st.floats(-3, 3), st.floats(-3, 3), st.floats(0, 2), st.floats(0, 2))
def test_interval_enclosure_contains_every_point_value(expr, x0, y0, wx, wy):
    from fedcomp.theory.constants import ieval
    expr = sp.sympify(expr)
    lo = np.array([[x0, y0]])
    hi = lo + np.array([[wx, wy]])
    env = {_X: (lo[:, 0], hi[:, 0]), _Y: (lo[:, 1], hi[:, 1])}
    elo, ehi = (np.broadcast_to(v, (1,)) for v in ieval(expr, env, 1))
    fn = sp.lambdify([_X, _Y], expr, "numpy")
    rng = np.random.default_rng(0)
    P = lo + (hi - lo) * rng.random((100, 2))
    P = np.vstack([P, lo, hi, [[lo[0, 0], hi[0, 1]], [hi[0, 0], lo[0, 1]]]])
    with np.errstate(all="ignore"):
        vals = np.broadcast_to(np.asarray(fn(P[:, 0], P[:, 1]), dtype=float), (P.shape[0],))
    ok = np.isfinite(vals)
    assert np.all(vals[ok] >= elo[0]) and np.all(vals[ok] <= ehi[0]), (expr, elo, ehi)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.booleans(), st.integers(0, 10_000))
def test_spectral_norm_bound_of_interval_matrices(rows, cols, symmetric, seed):
    from fedcomp.theory.constants import spectral_upper
    if symmetric:
        cols = rows
    rng = np.random.default_rng(seed)
    C = rng.standard_normal((rows, cols))
    W = rng.uniform(0, 1, (rows, cols))
    if symmetric:
        C, W = (C + C.T) / 2, (W + W.T) / 2
    ent = [[(np.array([C[i, j] - W[i, j]]), np.array([C[i, j] + W[i, j]]))
            for j in range(cols)] for i in range(rows)]
    ub = spectral_upper(ent, symmetric)[0]
    for _ in range(200):
        M = C + W * rng.uniform(-1, 1, (rows, cols))
        if symmetric:
            M = np.triu(M) + np.triu(M, 1).T
        assert np.linalg.norm(M, 2) <= ub * (1 + 1e-12)


def test_contract_spelling_works_after_the_submodule_is_imported(lq):
    import fedcomp
    import fedcomp.theory.constants  # noqa: F401  (binds the package attribute to the module)
    c = fedcomp.theory.constants(lq, -1.0, 1.0)
    assert c.certified and c.L_phi_bound >= c.L_phi_observed


def test_mpmath_reverification_agrees_with_the_vectorised_bounds():
    rng = np.random.default_rng(11)
    p = _random_symbolic(rng, 2, 2)
    c0 = constants(p, -1.0, 0.5, direct=False)
    c1 = constants(p, -1.0, 0.5, direct=False, verify="mpmath")
    for n in CONSTANT_NAMES:
        a, b = c0.details[n], c1.details[n]
        # mpmath (correctly rounded elementary functions) confirms the numpy/libm bound
        assert b.value >= a.value and b.value <= a.value * (1 + 1e-12) + 1e-300, n
        if a.method == "interval" and n not in ("L_g",):
            assert "mpmath-verified" in b.note, (n, b.note)
    assert np.all(c1.outer_lower <= c0.outer_lower) and np.all(c1.outer_upper >= c0.outer_upper)
    with pytest.raises(ValueError, match="verify"):
        constants(p, -1.0, 0.5, verify="yes")
