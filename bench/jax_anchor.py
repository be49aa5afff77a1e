"""An independent JAX FedDRO: the anchor the engine is measured against (issue 17, item 5).

``jax.jit`` of a ``lax.scan`` over the iterations, the clients as a batch dimension (the
products are ``einsum`` over (K, d_g, d)), float64, one CPU thread (XLA flags set below before
jax is imported). Same algorithm as the NumPy references of :mod:`engine_bench` (FedDRO,
Algorithm 2 of the FedDRO paper, estimator (8) anchored at the client's own previous iterate,
y averaged every iteration, x every I), same distributions, JAX's own random stream: runs are
compared on exact oracles (to 1e-10) and timed on stochastic ones.

Run (needs ``pip install jax==0.10.2``; absent, the script says so and stops)::

    taskset -c 0 env PYTHONPATH=. .venv/bin/python bench/jax_anchor.py [--quick]

Prints, per workload, client-steps per CPU second of engine and JAX (median of interleaved
repetitions) and their ratio; compile times apart.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                      "intra_op_parallelism_threads=1")
os.environ.setdefault("JAX_ENABLE_X64", "1")
import _checkout  # noqa: E402,F401  (this checkout, or PYTHONPATH's: bench/_checkout.py)

import numpy as np  # noqa: E402

import fedcomp  # noqa: E402
from fedcomp.problems import KLDRO, LinearQuadratic  # noqa: E402

try:
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
except ImportError:  # pragma: no cover - optional
    jax = None


def lq_runner(A, b, noise, R, x0, T, I, eta, beta, exact):
    """A jitted function key -> final average model of FedDRO on LinearQuadratic."""
    A = jnp.asarray(A)
    b = jnp.asarray(b)
    K, dg, d = A.shape
    stoch = (not exact) and noise > 0.0

    def g(X):
        return jnp.einsum("kij,kj->ki", A, X) + b

    def step(carry, t):
        X, Y, Xa, key = carry
        key, k1, k2 = jax.random.split(key, 3)
        n = jnp.sqrt(jnp.sum(Y * Y, axis=1))
        c = jnp.where(n <= R, 1.0, R / jnp.maximum(n, 1e-300))
        V = c[:, None] * Y
        GX = jnp.einsum("kij,ki->kj", A, V)
        if stoch:
            GX = GX + (noise * jnp.linalg.norm(V, axis=1))[:, None] * \
                jax.random.normal(k1, (K, d))
        X = X - eta * GX
        GA, GB = g(Xa), g(X)
        if stoch:
            E = noise * jax.random.normal(k2, (K, dg))
            GA, GB = GA + E, GB + E
        Y = (1.0 - beta) * (Y - GA) + GB
        Y = jnp.broadcast_to(Y.mean(axis=0), Y.shape)
        Xa = X
        X = jnp.where((t + 1) % I == 0, jnp.broadcast_to(X.mean(axis=0), X.shape), X)
        return (X, Y, Xa, key), None

    @jax.jit
    def run(key):
        X = jnp.tile(jnp.asarray(x0), (K, 1))
        key, k0 = jax.random.split(key)
        Y = g(X)
        if stoch:
            Y = Y + noise * jax.random.normal(k0, (K, dg))
        Y = jnp.broadcast_to(Y.mean(axis=0), Y.shape)
        (X, Y, Xa, key), _ = jax.lax.scan(step, (X, Y, X, key), jnp.arange(T))
        return X.mean(axis=0)
    return run


def kl_runner(F, L, off, lam, shift, batch, x0, T, I, eta, beta, exact):
    """A jitted function key -> final average model of FedDRO on KL-DRO logistic regression
    (minibatches of `batch` rows drawn uniformly from each client's rows; exact: all rows)."""
    F, L = jnp.asarray(F), jnp.asarray(L)
    off = np.asarray(off)
    K = off.shape[0] - 1
    sizes = np.diff(off)
    client_of_row = jnp.asarray(np.repeat(np.arange(K), sizes))
    start, size = jnp.asarray(off[:K]), jnp.asarray(sizes)

    def g_and_vjp(Xs, idx, v=None):
        if idx is None:
            m = -L * jnp.einsum("nd,nd->n", F, Xs[client_of_row])
            loss = jnp.logaddexp(0.0, m)
            ex = jnp.exp((loss - shift) / lam)
            gk = jax.ops.segment_sum(ex, client_of_row, K) / size
            if v is None:
                return gk, None
            w = ex / lam * (-L / (1.0 + jnp.exp(-m))) * (v / size)[client_of_row]
            return gk, jax.ops.segment_sum(w[:, None] * F, client_of_row, K)
        Fb = F[idx]
        Lb = L[idx]
        m = -Lb * jnp.einsum("kbd,kd->kb", Fb, Xs)
        loss = jnp.logaddexp(0.0, m)
        ex = jnp.exp((loss - shift) / lam)
        gk = ex.mean(axis=1)
        if v is None:
            return gk, None
        w = ex / lam * (-Lb / (1.0 + jnp.exp(-m))) * (v / batch)[:, None]
        return gk, jnp.einsum("kb,kbd->kd", w, Fb)

    def rows(key):
        if exact:
            return None
        u = jax.random.uniform(key, (K, batch))
        return start[:, None] + jnp.minimum((u * size[:, None]).astype(jnp.int64),
                                            size[:, None] - 1)

    def step(carry, t):
        X, Xa, ybar, idx, key = carry
        key, k1 = jax.random.split(key)
        v = jnp.full(K, lam / ybar)
        _, GX = g_and_vjp(X, idx, v)
        X = X - eta * GX
        idx = rows(k1)
        ga = g_and_vjp(Xa, idx)[0]
        gb = g_and_vjp(X, idx)[0]
        ybar = ((1.0 - beta) * (ybar - ga) + gb).mean()
        Xa = X
        X = jnp.where((t + 1) % I == 0, jnp.broadcast_to(X.mean(axis=0), X.shape), X)
        return (X, Xa, ybar, idx, key), None

    @jax.jit
    def run(key):
        X = jnp.tile(jnp.asarray(x0), (K, 1))
        key, k0 = jax.random.split(key)
        idx = rows(k0)
        ybar = g_and_vjp(X, idx)[0].mean()
        carry, _ = jax.lax.scan(step, (X, X, ybar, idx, key), jnp.arange(T))
        return carry[0].mean(axis=0)
    return run


# --------------------------------------------------------------------------------------------
# Workloads, correctness, timing
# --------------------------------------------------------------------------------------------

class Case:
    """One workload: the problem, FedDRO's settings, the iterations timed."""

    def __init__(self, name, problem, stochastic, T, eta=0.05, I=5, beta=0.2):
        self.name, self.problem, self.stochastic, self.T = name, problem, stochastic, T
        self.eta, self.I, self.beta = eta, I, beta
        self.K = problem.num_clients
        self.x0 = np.zeros(problem.dim)

    def engine(self, T, stochastic=None, seed=0):
        st = self.stochastic if stochastic is None else stochastic
        return fedcomp.simulate(self.problem, "feddro", iterations=T, eta=self.eta,
                                local_steps=self.I, seed=seed, stochastic=st, record_every=T,
                                beta=self.beta, allow_no_sync=T < self.I)

    def jax(self, T, stochastic=None):
        st = self.stochastic if stochastic is None else stochastic
        p = self.problem
        if isinstance(p, LinearQuadratic):
            R = np.inf if p.huber_radius is None else float(p.huber_radius)
            return lq_runner(p.A, p.b, p.noise, R, self.x0, T, self.I, self.eta, self.beta,
                             not st)
        F, L, off, params = p.data[0], p.data[1], p.data[2], p.data[3]
        return kl_runner(F, L, off, float(params[0]), float(params[1]), int(params[2]),
                         self.x0, T, self.I, self.eta, self.beta, not st)


def cases(quick: bool) -> list:
    s = 0.25 if quick else 1.0

    def lq(d, noise):
        return LinearQuadratic.random(16, d, d, heterogeneity=1.0, noise=noise, seed=1)
    out = []
    for d, T in ((2, 200_000), (10, 40_000), (50, 6_000), (100, 2_000), (200, 600), (500, 100)):
        out.append(Case(f"lq d={d}, noise 0.1", lq(d, 0.1), True, max(int(T * s), 10)))
    for d, T in ((10, 40_000), (50, 6_000), (200, 600), (500, 100)):
        out.append(Case(f"lq d={d}, exact", lq(d, 0.0), False, max(int(T * s), 10)))
    kl = KLDRO.synthetic(dim=50, num_clients=16, batch_size=16, feature_shift=0.5, seed=2)
    out.append(Case("kl-d50 (minibatch 16)", kl, True, max(int(4_000 * s), 10)))
    return out


def check(c: Case, T: int = 50) -> float:
    """Engine and JAX on exact oracles: the final average models agree to 1e-10."""
    r = c.engine(T, stochastic=False)
    xj = np.asarray(c.jax(T, stochastic=False)(jax.random.PRNGKey(0)))
    err = float(np.max(np.abs(xj - r.x_bar)))
    assert err <= 1e-10, f"{c.name}: JAX differs from the engine by {err:.3e}"
    assert np.max(np.abs(r.x_bar)) > 1e-6, f"{c.name}: the exact run does not move"
    return err


def timed(c: Case, reps: int) -> dict:
    """Interleaved repetitions: client-steps per CPU second of the process (engine, JAX), the
    median ratio engine / JAX, and the seconds of the first call of each (compilation)."""
    t0 = time.perf_counter()
    c.engine(1)
    comp_e = time.perf_counter() - t0
    fn = c.jax(c.T)
    key = jax.random.PRNGKey(1)
    t0 = time.perf_counter()
    fn(key).block_until_ready()
    comp_j = time.perf_counter() - t0
    rates = {"engine": [], "jax": []}
    for _ in range(reps):
        c0 = time.process_time()
        c.engine(c.T)
        c1 = time.process_time()
        fn(key).block_until_ready()
        c2 = time.process_time()
        rates["engine"].append(c.K * c.T / (c1 - c0))
        rates["jax"].append(c.K * c.T / (c2 - c1))
    ratio = statistics.median(e / j for e, j in zip(rates["engine"], rates["jax"]))
    return {"engine": statistics.median(rates["engine"]), "jax": statistics.median(rates["jax"]),
            "ratio": ratio, "compile_engine": comp_e, "compile_jax": comp_j}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="shorter runs, 3 repetitions")
    ap.add_argument("--reps", type=int, default=None)
    ap.add_argument("--only", default=None,
                    help="comma-separated substrings: run only the workloads whose name has one")
    args = ap.parse_args(argv)
    if jax is None:
        print("jax is not installed: the JAX anchor is skipped (pip install jax==0.10.2)")
        return 0
    import numba
    numba.set_num_threads(1)
    reps = args.reps or (3 if args.quick else 7)
    print(f"FedDRO, K = 16, I = 5; engine (numba {numba.__version__}) against JAX "
          f"{jax.__version__} (jit, lax.scan, float64, one thread); client-steps per CPU second, "
          f"median of {reps} interleaved repetitions")
    print("| workload | T | exact-oracle difference | engine | JAX | engine / JAX | "
          "first call (engine, JAX) |")
    print("|---|---|---|---|---|---|---|")
    only = [o for o in args.only.split(",") if o] if args.only else None
    for c in cases(args.quick):
        if only and not any(o in c.name for o in only):
            continue
        err = check(c)
        r = timed(c, reps)
        print(f"| {c.name} | {c.T} | {err:.1e} | {r['engine']:.3g} | {r['jax']:.3g} | "
              f"{r['ratio']:.2f} | {r['compile_engine']:.1f} s, {r['compile_jax']:.1f} s |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
