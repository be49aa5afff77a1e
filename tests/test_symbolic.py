"""SymbolicProblem: sympy expressions compiled into kernel modules (fedcomp.problems.symbolic)."""
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import fedcomp
from fedcomp.problems import LinearQuadratic, SymbolicProblem

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def lq_pair():
    lq = LinearQuadratic.random(4, 3, 2, heterogeneity=0.5, seed=1)
    return lq, SymbolicProblem.from_linear_quadratic(lq.A, lq.b)


def _nonlinear(noise=0.0):
    a, b, u, v = sp.symbols("a b u v")
    g = [[sp.sin(a) + b, a * b], [a**2 / 3, sp.exp(b / 2)]]
    f = u**2 / 2 + v**4 / 4 + sp.Rational(1, 3) * u * v + sp.log(1 + v**2)
    h = [a**2 / 4, sp.cos(b)]
    return SymbolicProblem([a, b], [u, v], g, f, h=h, noise=noise)


@pytest.fixture(scope="module")
def nonlinear():
    return _nonlinear()


points = st.lists(st.floats(-2.0, 2.0, allow_nan=False), min_size=3, max_size=3)


@settings(max_examples=20, deadline=None)
@given(points)
def test_linear_quadratic_written_in_sympy_matches_value_and_grad(lq_pair, x):
    lq, sy = lq_pair
    x = np.array(x)
    assert sy.value(x) == pytest.approx(lq.value(x), rel=1e-13, abs=1e-13)
    np.testing.assert_allclose(sy.grad(x), lq.grad(x), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(sy.inner(x), lq.inner(x), rtol=1e-13, atol=1e-13)
    for k in range(4):
        np.testing.assert_allclose(sy.jacobian(k, x), lq.A[k], rtol=0, atol=0)


def test_feddro_trajectory_matches_linear_quadratic_exact_oracles(lq_pair):
    lq, sy = lq_pair
    kw = dict(iterations=600, eta=0.05, local_steps=5, stochastic=False, beta=0.5)
    r1 = fedcomp.simulate(lq, "feddro", **kw)
    r2 = fedcomp.simulate(sy, "feddro", **kw)
    assert r1.grad_norm_sq[0] > 1e-2  # the run starts away from stationarity
    np.testing.assert_allclose(r2.grad_norm_sq, r1.grad_norm_sq, rtol=0, atol=1e-12)
    np.testing.assert_allclose(r2.value, r1.value, rtol=0, atol=1e-12)
    np.testing.assert_allclose(r2.x_bar, r1.x_bar, rtol=0, atol=1e-12)
    assert (r2.rounds, r2.floats_sent) == (r1.rounds, r1.floats_sent)


def test_stochastic_oracles_draw_the_same_samples_as_linear_quadratic(lq_pair):
    # the same expressions as the fixture (noise lives in data): the compiled module is reused
    lq0, _ = lq_pair
    lq = LinearQuadratic(lq0.A, lq0.b, noise=0.3)
    sy = SymbolicProblem.from_linear_quadratic(lq0.A, lq0.b, noise=0.3)
    assert sy.kernels == lq_pair[1].kernels
    kw = dict(iterations=300, eta=0.02, local_steps=4, stochastic=True, beta=0.3, seed=7)
    r1 = fedcomp.simulate(lq, "feddro", **kw)
    r2 = fedcomp.simulate(sy, "feddro", **kw)
    # same keys, same substreams: only the rounding of the deterministic part differs
    np.testing.assert_allclose(r2.x_bar, r1.x_bar, rtol=0, atol=1e-10)
    np.testing.assert_allclose(r2.grad_norm_sq, r1.grad_norm_sq, rtol=0, atol=1e-10)


def test_noise_is_unbiased_with_the_documented_scale():
    from fedcomp.rng import sample_key
    p = _nonlinear(noise=0.5)
    mod = p.kernel_module
    x = np.array([0.4, -0.3])
    exact = p.inner_client(1, x)
    n = 4000
    vals = np.empty((n, 2))
    vjp = np.empty((n, 2))
    v = np.array([0.6, -0.8])  # ||v|| = 1
    J = p.jacobian(1, x)
    out = np.empty(2)
    base = np.uint64(12345)
    for i in range(n):
        key = np.uint64(sample_key(base, 1, i, 0))
        mod.g_value(p.data, 1, x, key, False, out)
        vals[i] = out
        mod.g_vjp(p.data, 1, x, v, key, False, out)
        vjp[i] = out
    se = 0.5 / np.sqrt(n)
    assert np.all(np.abs(vals.mean(0) - exact) < 5 * se)
    assert np.all(np.abs(vjp.mean(0) - J.T @ v) < 5 * se)
    np.testing.assert_allclose(vals.std(0), 0.5, rtol=0.06)
    np.testing.assert_allclose(vjp.std(0), 0.5, rtol=0.06)
    # one key, two points: the same value noise (FedDRO (8) needs it)
    key = np.uint64(sample_key(base, 1, 0, 0))
    o1, o2 = np.empty(2), np.empty(2)
    mod.g_value(p.data, 1, x, key, False, o1)
    mod.g_value(p.data, 1, x + 0.1, key, False, o2)
    np.testing.assert_allclose(o1 - p.inner_client(1, x), o2 - p.inner_client(1, x + 0.1),
                               atol=1e-14)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-1.5, 1.5, allow_nan=False), min_size=2, max_size=2))
def test_nonlinear_gradient_matches_finite_differences(nonlinear, x):
    x = np.array(x)
    g = nonlinear.grad(x)
    eps = 1e-5
    fd = np.array([(nonlinear.value(x + eps * e) - nonlinear.value(x - eps * e)) / (2 * eps)
                   for e in np.eye(2)])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-6)


def test_nonlinear_value_and_gradient_against_sympy(nonlinear):
    phi = nonlinear.phi_expr()
    xs = nonlinear.symbols_x
    grad = [sp.diff(phi, s) for s in xs]
    rng = np.random.default_rng(0)
    for x in rng.uniform(-1, 1, size=(10, 2)):
        sub = dict(zip(xs, x))
        assert nonlinear.value(x) == pytest.approx(float(phi.subs(sub)), rel=1e-13)
        np.testing.assert_allclose(nonlinear.grad(x), [float(e.subs(sub)) for e in grad],
                                   rtol=1e-12, atol=1e-14)


def _params(alg):
    out = {}
    for h in alg.hyper:
        if h.default is not None:
            continue
        out[h.name] = 0.5 if h.high <= 1.0 else 1.0
    return out


def _run_algorithms(problem, names):
    ran = []
    for name in names:
        alg = fedcomp.algorithms.get(name)
        if problem.structure not in alg.structures:
            continue
        if any(r not in problem.provides() for r in alg.requires):
            continue
        I = alg.fixed_local_steps or 2
        res = fedcomp.simulate(problem, name, iterations=20, eta=0.01, local_steps=I,
                               stochastic=False, **_params(alg))
        assert res.diverged_at is None, name
        assert np.all(np.isfinite(res.grad_norm_sq)), name
        assert res.grad_norm_sq[-1] < res.grad_norm_sq[0], name
        ran.append(name)
    return ran


def test_feddro_and_ds_feddro_run_on_a_symbolic_problem(nonlinear):
    assert _run_algorithms(nonlinear, ["feddro", "ds-feddro"]) == ["feddro", "ds-feddro"]


@pytest.mark.slow  # compiles every (algorithm, problem) pair: minutes on a cold cache
def test_every_applicable_algorithm_runs_on_a_symbolic_problem(nonlinear):
    ran = _run_algorithms(nonlinear, fedcomp.algorithms.names())
    assert "feddro" in ran and "ds-feddro" in ran and "fedavg-case1" in ran


# --- errors ----------------------------------------------------------------------------------
def test_errors_for_undeclared_symbols_and_shapes():
    a, b, u, v, z = sp.symbols("a b u v z")
    with pytest.raises(ValueError, match=r"g\[0\]\[0\] uses symbols \['z'\]"):
        SymbolicProblem([a], [u], [[a + z]], u**2)
    with pytest.raises(ValueError, match=r"f uses symbols \['a'\]"):
        SymbolicProblem([a], [u], [[a]], u**2 + a)
    with pytest.raises(ValueError, match=r"h\[1\] uses symbols"):
        SymbolicProblem([a], [u], [[a], [2 * a]], u**2, h=[a, u])
    with pytest.raises(ValueError, match=r"g\[1\] must have length d_g = len\(y\) = 2"):
        SymbolicProblem([a], [u, v], [[a, a], [a]], u**2)
    with pytest.raises(ValueError, match=r"g\[0\] must be a list"):
        SymbolicProblem([a], [u], [a], u**2)
    with pytest.raises(ValueError, match="h must have one expression per client"):
        SymbolicProblem([a], [u], [[a], [a]], u**2, h=[a])
    with pytest.raises(ValueError, match=r"x\[1\] must be a sympy Symbol"):
        SymbolicProblem([a, 2], [u], [[a]], u**2)
    with pytest.raises(ValueError, match="at least one client"):
        SymbolicProblem([a], [u], [], u**2)
    with pytest.raises(ValueError, match="must not share"):
        SymbolicProblem([a], [a], [[a]], a**2)
    with pytest.raises(ValueError, match="string"):
        SymbolicProblem([a], [u], [["a + 1"]], u**2)
    with pytest.raises(ValueError, match="noise"):
        SymbolicProblem([a], [u], [[a]], u**2, noise=-1.0)
    with pytest.raises(ValueError, match="imaginary"):
        SymbolicProblem([a], [u], [[sp.I * a]], u**2)
    with pytest.raises(ValueError, match="otherwise branch"):
        SymbolicProblem([a], [u], [[sp.Piecewise((a, a > 0))]], u**2)
    with pytest.raises(ValueError, match="cannot compile"):
        SymbolicProblem([a], [u], [[sp.besselj(0, a)]], u**2)


def test_errors_at_points_outside_the_domain_or_on_kinks():
    a, b, u = sp.symbols("a b u")
    p = SymbolicProblem([a, b], [u], [[sp.log(a) + b]], u**2 / 2)
    assert np.isfinite(p.value([1.0, 0.0]))
    with pytest.raises(ValueError, match="not finite"):
        p.value([-1.0, 0.0])
    with pytest.raises(ValueError, match="not finite"):
        p.grad([0.0, 0.0])
    q = SymbolicProblem([a, b], [u], [[sp.Abs(a - 1) + b]], u**2 / 2)
    q.grad([0.5, 0.0])
    with pytest.raises(ValueError, match="not differentiable"):
        q.grad([1.0, 0.3])
    c = 0.12345678901234567  # more digits than sympy prints by default
    q2 = SymbolicProblem([a, b], [u], [[sp.Abs(a - c) + b]], u**2 / 2)
    with pytest.raises(ValueError, match="not differentiable"):
        q2.grad([c, 0.3])
    r = SymbolicProblem([a], [u], [[a]], sp.Abs(u))
    r.grad([0.5])
    with pytest.raises(ValueError, match="f has a kink"):
        r.grad([0.0])
    s = SymbolicProblem([a], [u], [[sp.sqrt(a)]], u)
    with pytest.raises(ValueError, match="not finite"):
        s.grad([0.0])
    with pytest.raises(ValueError, match="x must have shape"):
        s.value([1.0, 2.0])


# --- module by name in other processes -------------------------------------------------------
def test_kernel_module_imports_by_name_in_a_fresh_process(nonlinear):
    x = [0.2, -0.4]
    code = textwrap.dedent(f"""
        import importlib, numpy as np
        mod = importlib.import_module({nonlinear.kernels!r})
        print(repr(mod.phi_value((np.array([0.0]),), np.array({x!r}))))
    """)
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    assert float(out.stdout.strip()) == nonlinear.value(np.array(x))


def _simulate_pickled(blob):
    p = pickle.loads(blob)
    r = fedcomp.simulate(p, "feddro", iterations=50, eta=0.02, local_steps=5, beta=0.5, seed=3)
    return r.x_bar.tolist()


def test_pickled_problem_runs_in_a_spawned_worker(nonlinear):
    import multiprocessing as mp
    noisy = _nonlinear(noise=0.1)
    blob = pickle.dumps(noisy)
    here = fedcomp.simulate(noisy, "feddro", iterations=50, eta=0.02, local_steps=5, beta=0.5,
                            seed=3).x_bar
    ctx = mp.get_context("spawn")
    with ctx.Pool(1) as pool:
        there = pool.apply(_simulate_pickled, (blob,))
    assert there == here.tolist()  # bit-identical in another process


def test_unpickling_rewrites_a_missing_module_file(tmp_path, monkeypatch):
    p = _nonlinear()
    blob = pickle.dumps(p)
    monkeypatch.setenv("FEDCOMP_CACHE_DIR", str(tmp_path))
    q = pickle.loads(blob)
    from fedcomp.engine.build import cache_dir
    assert (cache_dir() / (q.kernels.rsplit(".", 1)[-1] + ".py")).exists()
    assert q.kernels == p.kernels


def test_from_strings_matches_the_sympy_construction_and_runs_through_the_runner(nonlinear):
    from fedcomp.runner import RunSpec, build_problem
    args = {"x": ["a", "b"], "y": ["u", "v"],
            "g": [["sin(a) + b", "a*b"], ["a**2/3", "exp(b/2)"]],
            "f": "u**2/2 + v**4/4 + u*v/3 + log(1 + v**2)", "h": ["a**2/4", "cos(b)"]}
    spec = RunSpec("fedcomp.problems.symbolic:SymbolicProblem.from_strings", args, "feddro",
                   {"iterations": 50, "eta": 0.02, "local_steps": 5, "beta": 0.5}, seed=3)
    p = build_problem(spec)
    assert p.kernels == nonlinear.kernels  # the same expressions: the same compiled module
    x = np.array([0.3, -0.2])
    assert p.value(x) == nonlinear.value(x)
    with pytest.raises(ValueError, match=r"uses symbols \['z'\]"):
        SymbolicProblem.from_strings(["a"], ["u"], [["a + z"]], "u**2")
    with pytest.raises(ValueError, match="cannot parse"):
        SymbolicProblem.from_strings(["a"], ["u"], [["a +"]], "u**2")
