"""Speed of the fedcomp engine against a NumPy reference and a hand-specialised numba loop.

Run::

    PYTHONPATH=. .venv/bin/python bench/engine_bench.py           # full (a few minutes)
    PYTHONPATH=. .venv/bin/python bench/engine_bench.py --quick   # about a minute

What is compared (issue 2, "Benchmark"), on three workloads, all FedDRO (Algorithm 2 of the FedDRO
paper: gradient (7), hybrid inner estimator (8) with the same sample at both points, y averaged
every iteration, x every I iterations):

* ``lq-d10``: LinearQuadratic, K = 16, d = d_g = 10, noise 0.1, stochastic oracles;
* ``kl-d50``: KL-DRO logistic, ``KLDRO.synthetic(dim=50, num_clients=16, batch_size=16)``,
  stochastic minibatch oracles;
* ``ce-d2``: the size of the Theorem 4.1 counterexample, LinearQuadratic K = 4, d = d_g = 2, exact
  oracles (``stochastic=False``), as the counterexample is run.

Implementations:

* ``engine``: ``fedcomp.simulate`` (one thread);
* ``numpy``: a straightforward NumPy implementation of the same algorithm, vectorised over the
  clients (one Python iteration per t), as a researcher would write it. Its noise comes from
  ``numpy.random.Generator``: the same distributions, another stream. Cheaper sampling of the same
  distribution, used by the engine's kernels and therefore here too: the noisy Jacobian-transpose
  product (A_k + E)^T v of LinearQuadratic is drawn as A_k^T v + sigma ||v|| z, z ~ N(0, I_d)
  (d normals instead of d * d_g), exactly as :mod:`fedcomp.problems._linear_kernels` does.
* ``hand``: one numba function per problem written for exactly FedDRO on that problem, no
  abstraction (no kernel protocol, no step functions; it calls only the same helpers for row
  averages, LinearQuadratic's matrix-vector products (:mod:`fedcomp.engine.dense`) and KL-DRO's
  minibatch oracles (:mod:`fedcomp.problems._kl_kernels`, vector exp / log1p)). It draws its
  randomness from :mod:`fedcomp.rng` with the engine's keys, so it produces the engine's iterates bit for bit;
  the bench asserts it. FedDRO (8) evaluates g_k at two points on one sample; for
  LinearQuadratic the loop draws that sample's value noise once and adds it to both values, as the
  engine's LinearQuadratic kernels do through the protocol's optional two-point oracle
  ``g_value2`` (before it existed, the engine drew the noise twice). It checks every new iterate
  for finiteness, as the engine's divergence stop does.

Correctness (asserted before timing, so the comparison is apples to apples): the hand loop's final
average model equals the engine's to 1e-12 (stochastic runs), and the NumPy reference with exact
oracles equals the engine's exact run to 1e-10.

Measurement: every implementation runs the same configuration; the metrics are recorded only at
t = 0 and t = T (``record_every = T``), so the exact-metric passes are not what is measured.
Compile time is measured apart (first call; for the engine ``compile_seconds``, which is a load
from the disk cache when the pair was compiled before). Repetitions are interleaved (engine, hand,
numpy, engine, ...) and the table reports medians. Rates are client-steps (K * T) per CPU second
of the running thread (``time.thread_time``): the machine is shared, and wall time mostly measures
the other tenants; the wall-clock ratios are printed beside them. Read the ratios. A last section
compares ``fedcomp.simulate_many`` (4 seeds in numba threads) with ``simulate`` on the same
number of client-steps: per process-CPU second (the threaded runner's per-core efficiency) and in
wall time. For the stochastic LinearQuadratic workload, a section "Cost of the noise" times the
engine and the NumPy reference on the same problem with noise 0 (no normals drawn), interleaved,
and prints what sampling costs each of them per client-step. The last section runs
:mod:`jax_anchor` (an independent JAX FedDRO at d = 2 to 500 and on KL-DRO minibatches, checked
against the engine on exact oracles first) when jax is installed, and says it skipped it when not.

Since commit eb9aec6 the engine compiles the algorithm's steps and helpers with
``inline="always"`` (:mod:`fedcomp.engine.build`), the change this bench motivated: one client
step is one block of code without call boundaries. LinearQuadratic's products are those of
:mod:`fedcomp.engine.dense` (four-lane SIMD blocks, a documented summation order, the column or row
layout chosen by the problem's size); the hand loop uses the same products on the problem's own
data, so eng/hand still measures only the abstraction.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
import warnings

import numba as nb
import numpy as np
from numba.core.errors import NumbaIRAssumptionWarning

import _checkout  # noqa: E402,F401  (this checkout, or PYTHONPATH's: bench/_checkout.py)

import fedcomp  # noqa: E402
from fedcomp import rng as frng  # noqa: E402
from fedcomp.problems import KLDRO, LinearQuadratic  # noqa: E402
from fedcomp.engine.dense import affine, affine2, matvec_t_in  # noqa: E402
from fedcomp.engine.prims import avg_rows, mean_rows  # noqa: E402
from fedcomp.problems._kl_kernels import g_value as kl_g_value  # noqa: E402
from fedcomp.problems._kl_kernels import g_value2 as kl_g_value2  # noqa: E402
from fedcomp.problems._kl_kernels import g_vjp as kl_g_vjp  # noqa: E402
from fedcomp.rng import add_normal, sample_key, substream  # noqa: E402

# dense.py's products are numba overloads inlined into this script's loops; numba's pedantic
# scope warning on their loops is harmless (fedcomp.engine.build.ir_scope_warnings_off)
warnings.filterwarnings("ignore", category=NumbaIRAssumptionWarning)

# --------------------------------------------------------------------------------------------
# Hand-specialised numba loops (FedDRO only). Same floating-point operations in the same order as
# the engine's kernels (numba does not reassociate without fastmath), hence the same iterates.
# --------------------------------------------------------------------------------------------


@nb.njit(cache=False)
def hand_feddro_lq(A, At, b, noise, R, x0, base, T, I, eta, beta, exact):
    """FedDRO on LinearQuadratic; returns (final average model, diverged_at or -1)."""
    K, dg, d = A.shape
    ga = np.empty(dg)
    gb = np.empty(dg)
    stoch = (not exact) and noise > 0.0
    X = np.empty((K, d))
    led = np.zeros(2, dtype=np.int64)
    Y = np.empty((K, dg))
    XA = np.empty((K, d))  # (8)'s anchor: each client's own previous iterate (before averaging)
    v = np.empty(dg)
    gx = np.empty(d)
    e = np.zeros(dg)
    for k in range(K):
        for j in range(d):
            X[k, j] = x0[j]
            XA[k, j] = x0[j]
        affine(A, At, k, b, x0, Y[k])
        if stoch:
            add_normal(substream(sample_key(base, k, 0, 0), 0), noise, Y[k])
    for i in range(dg):
        s = 0.0
        for k in range(K):
            s += Y[k, i]
        s /= K
        for k in range(K):
            Y[k, i] = s
    diverged = -1
    for t in range(T):
        finite = True
        for k in range(K):
            # gradient (7): v = grad f(y_k) (Huber-aware), gx = A_k^T v (+ sigma ||v|| z)
            n2 = 0.0
            for i in range(dg):
                n2 += Y[k, i] * Y[k, i]
            n = np.sqrt(n2)
            c = 1.0 if n <= R else R / n
            for i in range(dg):
                v[i] = c * Y[k, i]
            matvec_t_in(A, At, k, v, gx)  # the problem's layout, as the kernels
            if stoch:
                nv = 0.0
                for i in range(dg):
                    nv += v[i] * v[i]
                add_normal(substream(sample_key(base, k, t, 0), 1), noise * np.sqrt(nv), gx)
            for j in range(d):
                X[k, j] -= eta * gx[j]
                if not np.isfinite(X[k, j]):
                    finite = False
            # estimator (8): one sample (one value noise e) at x_k^t and x_k^{t+1}
            if stoch:
                for i in range(dg):
                    e[i] = 0.0
                add_normal(substream(sample_key(base, k, t + 1, 0), 0), 1.0, e)
            affine2(A, At, k, b, XA[k], X[k], ga, gb)  # the problem's layout, as the kernels
            for i in range(dg):
                sa = ga[i]
                sb = gb[i]
                if stoch:
                    sa += noise * e[i]
                    sb += noise * e[i]
                Y[k, i] = (1.0 - beta) * (Y[k, i] - sa) + sb
            for j in range(d):
                XA[k, j] = X[k, j]
        for i in range(dg):
            s = 0.0
            for k in range(K):
                s += Y[k, i]
            s /= K
            if not np.isfinite(s):
                finite = False
            for k in range(K):
                Y[k, i] = s
        if (t + 1) % I == 0:
            avg_rows(X, led, 0)  # led: a ledger the loop ignores
        if not finite:
            diverged = t + 1
            break
    xbar = np.empty(X.shape[1])
    mean_rows(X, xbar)
    return xbar, diverged


@nb.njit(cache=False)
def hand_feddro_kl(data, x0, base, T, I, eta, beta, exact):
    """FedDRO on KL-DRO logistic regression (`data`: the KLDRO problem's kernel data); returns
    (final average model, diverged_at or -1).

    The minibatch oracles are the problem's own (fedcomp.problems._kl_kernels: four samples at a
    time with fedcomp's vector exp / log1p), called directly, as the LinearQuadratic loop calls
    the dense products: the loop around them is what differs from the engine."""
    K = data[2].shape[0] - 1
    lam = data[3][0]
    d = x0.shape[0]
    X = np.empty((K, d))
    led = np.zeros(2, dtype=np.int64)
    Y = np.empty(K)
    XA = np.empty((K, d))  # (8)'s anchor: each client's own previous iterate (before averaging)
    gx = np.empty(d)
    ga = np.empty(1)
    gb = np.empty(1)
    vg = np.empty(1)
    for k in range(K):
        for j in range(d):
            X[k, j] = x0[j]
            XA[k, j] = x0[j]
        kl_g_value(data, k, x0, sample_key(base, k, 0, 0), exact, ga)
        Y[k] = ga[0]
    s = 0.0
    for k in range(K):
        s += Y[k]
    ybar = s / K
    diverged = -1
    for t in range(T):
        finite = True
        for k in range(K):
            vg[0] = lam / ybar  # grad f(ybar) of f = lam log + shift
            kl_g_vjp(data, k, X[k], vg, sample_key(base, k, t, 0), exact, gx)
            for j in range(d):
                X[k, j] -= eta * gx[j]
                if not np.isfinite(X[k, j]):
                    finite = False
            kl_g_value2(data, k, XA[k], X[k], sample_key(base, k, t + 1, 0), exact, ga, gb)
            Y[k] = (1.0 - beta) * (ybar - ga[0]) + gb[0]
            for j in range(d):
                XA[k, j] = X[k, j]
        s = 0.0
        for k in range(K):
            s += Y[k]
        ybar = s / K
        if not np.isfinite(ybar):
            finite = False
        if (t + 1) % I == 0:
            avg_rows(X, led, 0)  # led: a ledger the loop ignores
        if not finite:
            diverged = t + 1
            break
    xbar = np.empty(X.shape[1])
    mean_rows(X, xbar)
    return xbar, diverged


# --------------------------------------------------------------------------------------------
# NumPy references: vectorised over clients, one Python iteration per t.
# --------------------------------------------------------------------------------------------


def numpy_feddro_lq(A, b, noise, R, x0, T, I, eta, beta, exact, gen):
    """FedDRO on LinearQuadratic in NumPy; returns (final average model, diverged_at or -1)."""
    K, dg, d = A.shape
    stoch = (not exact) and noise > 0.0
    X = np.tile(x0, (K, 1))
    Y = np.matmul(A, x0) + b
    if stoch:
        Y += noise * gen.standard_normal((K, dg))
    Y[:] = Y.mean(axis=0)
    At = A.transpose(0, 2, 1)
    Xa = X.copy()
    for t in range(T):
        n = np.sqrt(np.einsum("ki,ki->k", Y, Y))
        c = np.where(n <= R, 1.0, R / np.maximum(n, 1e-300))
        V = c[:, None] * Y                                   # grad f(y_k)
        GX = np.matmul(At, V[:, :, None])[:, :, 0]           # A_k^T v_k
        if stoch:
            GX += (noise * np.linalg.norm(V, axis=1))[:, None] * gen.standard_normal((K, d))
        X = X - eta * GX
        GA = np.matmul(A, Xa[:, :, None])[:, :, 0] + b
        GB = np.matmul(A, X[:, :, None])[:, :, 0] + b
        if stoch:                                            # one sample, two points
            E = noise * gen.standard_normal((K, dg))
            GA += E
            GB += E
        Y = (1.0 - beta) * (Y - GA) + GB
        Y[:] = Y.mean(axis=0)
        Xa = X.copy()  # (8)'s anchor: the clients' own iterates, before averaging
        if (t + 1) % I == 0:
            X[:] = X.mean(axis=0)
        if not (np.isfinite(X).all() and np.isfinite(Y).all()):
            return X.mean(axis=0), t + 1
    return X.mean(axis=0), -1


def numpy_feddro_kl(F, L, off, lam, shift, batch, x0, T, I, eta, beta, exact, gen):
    """FedDRO on KL-DRO logistic regression in NumPy; returns (final average model, diverged)."""
    K = off.shape[0] - 1
    sizes = np.diff(off)
    X = np.tile(x0, (K, 1))
    client_of_row = np.repeat(np.arange(K), sizes)

    def rows():
        if exact:
            return None
        return off[:K, None] + np.minimum((gen.random((K, batch)) * sizes[:, None]).astype(
            np.int64), sizes[:, None] - 1)

    def g_and_vjp(Xs, idx, v=None):
        """Per-client g_k(x_k; batch) (K,) and, given v (K,), grad g_k(x_k; batch) v (K, d)."""
        if idx is None:                                       # full pass, clients of unequal size
            m = -L * np.einsum("nd,nd->n", F, Xs[client_of_row])
            loss = np.logaddexp(0.0, m)
            ex = np.exp((loss - shift) / lam)
            g = np.add.reduceat(ex, off[:-1]) / sizes
            if v is None:
                return g, None
            w = ex / lam * (-L / (1.0 + np.exp(-m))) * (v / sizes)[client_of_row]
            return g, np.add.reduceat(w[:, None] * F, off[:-1], axis=0)
        Fb = F[idx]                                           # (K, B, d)
        m = -L[idx] * np.einsum("kbd,kd->kb", Fb, Xs)
        loss = np.logaddexp(0.0, m)
        ex = np.exp((loss - shift) / lam)
        g = ex.mean(axis=1)
        if v is None:
            return g, None
        w = ex / lam * (-L[idx] / (1.0 + np.exp(-m))) * (v / batch)[:, None]
        return g, np.einsum("kb,kbd->kd", w, Fb)

    idx = rows()
    ybar = g_and_vjp(X, idx)[0].mean()
    Xa = X.copy()
    for t in range(T):
        v = np.full(K, lam / ybar)                            # grad f(ybar), f = lam log + shift
        _, GX = g_and_vjp(X, idx, v)
        X = X - eta * GX
        idx = rows()                                          # zeta^{t+1}: used by (8) and (7)
        ga = g_and_vjp(Xa, idx)[0]
        gb = g_and_vjp(X, idx)[0]
        ybar = ((1.0 - beta) * (ybar - ga) + gb).mean()
        Xa = X.copy()  # (8)'s anchor: the clients' own iterates, before averaging
        if (t + 1) % I == 0:
            X[:] = X.mean(axis=0)
        if not (np.isfinite(X).all() and np.isfinite(ybar)):
            return X.mean(axis=0), t + 1
    return X.mean(axis=0), -1


# --------------------------------------------------------------------------------------------
# Workloads
# --------------------------------------------------------------------------------------------


class Workload:
    def __init__(self, name, title, problem, stochastic, eta, I, beta, T_engine, T_numpy):
        self.name, self.title, self.problem = name, title, problem
        self.stochastic, self.eta, self.I, self.beta = stochastic, eta, I, beta
        self.T_engine, self.T_numpy = T_engine, T_numpy
        self.K = problem.num_clients
        self.x0 = np.zeros(problem.dim)

    def engine(self, T, seed=0, stochastic=None):
        st = self.stochastic if stochastic is None else stochastic
        return fedcomp.simulate(self.problem, "feddro", iterations=T, eta=self.eta,
                                local_steps=self.I, seed=seed, stochastic=st, record_every=T,
                                beta=self.beta, allow_no_sync=T < self.I)

    def engine_many(self, T, n_seeds):
        return fedcomp.simulate_many(self.problem, "feddro", seeds=range(n_seeds), iterations=T,
                                     eta=self.eta, local_steps=self.I,
                                     stochastic=self.stochastic, record_every=T, beta=self.beta,
                                     allow_no_sync=T < self.I)

    def hand(self, T, seed=0, stochastic=None):
        st = self.stochastic if stochastic is None else stochastic
        p, base = self.problem, frng.base_key(seed)
        if isinstance(p, LinearQuadratic):
            R = p.data[2][1]
            return hand_feddro_lq(p.A, p.data[5], p.b, p.noise, R, self.x0, base, T, self.I,
                                  self.eta, self.beta, not st)
        return hand_feddro_kl(p.data, self.x0, base, T, self.I, self.eta, self.beta, not st)

    def numpy(self, T, seed=0, stochastic=None):
        st = self.stochastic if stochastic is None else stochastic
        p, gen = self.problem, np.random.default_rng(seed)
        if isinstance(p, LinearQuadratic):
            return numpy_feddro_lq(p.A, p.b, p.noise, p.data[2][1], self.x0, T, self.I, self.eta,
                                   self.beta, not st, gen)
        F, L, off, params = p.data[0], p.data[1], p.data[2], p.data[3]
        return numpy_feddro_kl(F, L, off, params[0], params[1], int(params[2]), self.x0, T,
                               self.I, self.eta, self.beta, not st, gen)


def workloads(quick: bool):
    s = 1 if quick else 4
    lq10 = LinearQuadratic.random(16, 10, 10, heterogeneity=1.0, noise=0.1, seed=1)
    kl = KLDRO.synthetic(dim=50, num_clients=16, batch_size=16, feature_shift=0.5, seed=2)
    ce = LinearQuadratic.random(4, 2, 2, heterogeneity=1.0, noise=0.0, seed=3)
    return [
        Workload("lq-d10", "LinearQuadratic K=16 d=d_g=10, stochastic FedDRO", lq10, True,
                 eta=0.05, I=5, beta=0.2, T_engine=20_000 * s, T_numpy=500 * s),
        Workload("kl-d50", "KL-DRO logistic K=16 d=50 batch 16, stochastic FedDRO", kl, True,
                 eta=0.05, I=5, beta=0.2, T_engine=2_000 * s, T_numpy=200 * s),
        Workload("ce-d2", "LinearQuadratic K=4 d=d_g=2 (Thm 4.1 size), exact FedDRO", ce, False,
                 eta=0.05, I=5, beta=0.2, T_engine=200_000 * s, T_numpy=1_000 * s),
    ]


def check_correctness(w: Workload):
    """Hand loop == engine bit for bit (stochastic); NumPy == engine (exact) to 1e-10."""
    T = 200
    for seed in (0, 7):
        r = w.engine(T, seed=seed, stochastic=True)
        xh, dh = w.hand(T, seed=seed, stochastic=True)
        assert r.diverged_at is None and dh < 0, (w.name, r.diverged_at, dh)
        err = np.max(np.abs(xh - r.x_bar))
        assert err <= 1e-12, f"{w.name}: hand loop differs from the engine by {err:.3e}"
    r = w.engine(T, stochastic=False)
    xn, dn = w.numpy(T, stochastic=False)
    assert r.diverged_at is None and dn < 0
    err = np.max(np.abs(xn - r.x_bar))
    assert err <= 1e-10, f"{w.name}: NumPy reference differs from the engine by {err:.3e}"
    # the stochastic runs move (the runs are not trivially equal at x0)
    assert np.max(np.abs(r.x_bar - w.x0)) > 1e-6
    return err


def _timed(fn):
    """(CPU seconds of this thread, wall seconds) of one call."""
    c0, w0 = time.thread_time(), time.perf_counter()
    fn()
    return time.thread_time() - c0, time.perf_counter() - w0


def compile_times(w: Workload):
    """Seconds of the first call (compilation; for the engine possibly a disk-cache load)."""
    comp = {"engine": w.engine(1).compile_seconds}
    t0 = time.perf_counter()
    w.hand(1)
    comp["hand"] = time.perf_counter() - t0
    return comp


def measure(w: Workload, reps: int):
    """Interleaved repetitions; client-steps per CPU second and per wall second."""
    w.numpy(2)
    runs = {"engine": (w.T_engine, lambda: w.engine(w.T_engine)),
            "hand": (w.T_engine, lambda: w.hand(w.T_engine)),
            "numpy": (w.T_numpy, lambda: w.numpy(w.T_numpy))}
    cpu = {k: [] for k in runs}
    wall = {k: [] for k in runs}
    for _ in range(reps):
        for name, (T, fn) in runs.items():
            c, wl = _timed(fn)
            cpu[name].append(w.K * T / c)
            wall[name].append(w.K * T / wl)

    def ratios(rates):
        return {
            "engine/numpy": statistics.median(
                e / n for e, n in zip(rates["engine"], rates["numpy"])),
            "engine/hand": statistics.median(
                e / h for e, h in zip(rates["engine"], rates["hand"])),
            "hand/numpy": statistics.median(
                h / n for h, n in zip(rates["hand"], rates["numpy"])),
        }
    med = {k: statistics.median(v) for k, v in cpu.items()}
    return med, ratios(cpu), ratios(wall)


def measure_many(w: Workload, reps: int, n_seeds: int = 4):
    """simulate_many (n_seeds seeds, T/n_seeds iterations each) against simulate (one seed, T).

    Same client-steps in both. Returns (per-CPU-second ratio, wall-clock ratio): CPU time of the
    whole process (``time.process_time``, all threads), so the first ratio is the per-core
    efficiency of the threaded runner; the second is its speed-up in wall time on this machine.
    """
    T_each = max(w.T_engine // n_seeds, 1)
    w.engine_many(1, n_seeds)
    cpu_r, wall_r = [], []
    for _ in range(reps):
        c0, w0 = time.process_time(), time.perf_counter()
        w.engine(T_each * n_seeds)
        c1, w1 = time.process_time(), time.perf_counter()
        w.engine_many(T_each, n_seeds)
        c2, w2 = time.process_time(), time.perf_counter()
        cpu_r.append((c1 - c0) / (c2 - c1))
        wall_r.append((w1 - w0) / (w2 - w1))
    return statistics.median(cpu_r), statistics.median(wall_r)


def measure_noise(w: Workload, reps: int):
    """Nanoseconds (CPU) per client-step of engine and NumPy reference on w's problem with its
    noise and on a copy with noise 0 (same A, b; the oracles then draw no normals), interleaved:
    what the sampling costs each implementation. Returns {(impl, noisy): median ns}."""
    p = w.problem
    R = float(p.data[2][1])
    quiet = LinearQuadratic(p.A, p.b, noise=0.0, huber_radius=None if np.isinf(R) else R)
    w0 = Workload(w.name, w.title, quiet, w.stochastic, w.eta, w.I, w.beta, w.T_engine,
                  w.T_numpy)
    runs = {}
    for noisy, wl in ((True, w), (False, w0)):
        wl.engine(1)
        runs[("engine", noisy)] = (wl.T_engine, (lambda wl=wl: wl.engine(wl.T_engine)))
        runs[("numpy", noisy)] = (wl.T_numpy, (lambda wl=wl: wl.numpy(wl.T_numpy)))
    ns = {k: [] for k in runs}
    for _ in range(reps):
        for key, (T, fn) in runs.items():
            ns[key].append(_timed(fn)[0] / (w.K * T) * 1e9)
    return {k: statistics.median(v) for k, v in ns.items()}


TARGETS = {"lq-d10": 10.0, "ce-d2": 50.0}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="shorter runs, fewer repetitions")
    ap.add_argument("--reps", type=int, default=None, help="interleaved repetitions")
    ap.add_argument("--only", default=None, help="comma-separated workload names")
    args = ap.parse_args(argv)
    reps = args.reps or (3 if args.quick else 7)
    wls = workloads(args.quick)
    if args.only:
        keep = set(args.only.split(","))
        wls = [w for w in wls if w.name in keep]
    print(f"fedcomp engine benchmark: python {platform.python_version()}, numpy {np.__version__}, "
          f"numba {nb.__version__}, {os.cpu_count()} cores, "
          f"{'quick' if args.quick else 'full'}, {reps} interleaved repetitions, medians")
    print("FedDRO, metrics recorded only at t=0 and t=T (record_every=T); "
          "client-steps/s = K*T/CPU seconds of the run\n")
    rows = []
    for w in wls:
        comp = compile_times(w)
        err = check_correctness(w)
        med, ratio, ratio_wall = measure(w, reps)
        many = measure_many(w, reps)
        rows.append((w, med, ratio, ratio_wall, comp, many))
        print(f"[{w.name}] {w.title}: T engine/hand {w.T_engine}, numpy {w.T_numpy}; "
              f"checks passed (hand == engine to 1e-12, numpy exact - engine exact = {err:.1e})")
    print()
    hdr = (f"{'workload':8} {'engine':>10} {'hand':>10} {'numpy':>10} {'eng/numpy':>10} "
           f"{'eng/hand':>9} {'hand/numpy':>10}  {'wall: eng/numpy eng/hand':>24}  "
           f"{'compile s (engine, hand)':>24}")
    print(hdr)
    print("-" * len(hdr))
    for w, med, ratio, rw, comp, _ in rows:
        print(f"{w.name:8} {med['engine']:10.3g} {med['hand']:10.3g} {med['numpy']:10.3g} "
              f"{ratio['engine/numpy']:10.1f} {ratio['engine/hand']:9.2f} "
              f"{ratio['hand/numpy']:10.1f}  {rw['engine/numpy']:15.1f} {rw['engine/hand']:8.2f}"
              f"  {comp['engine']:17.2f}, {comp['hand']:.2f}")
    print("\nengine, hand, numpy: client-steps per CPU second of the running thread (medians);"
          "\n"
          "ratios: medians of the per-repetition ratios (CPU time; wall-clock ones beside them).\n"
          "eng/hand < 1: the engine is slower than the hand loop. Compile 0.00 for the hand\n"
          "loop: compiled already for an earlier workload (same types).")
    print("\nsimulate_many (4 seeds, T/4 iterations each) against simulate (1 seed, T), same "
          "client-steps:")
    for w, med, ratio, rw, comp, many in rows:
        print(f"  {w.name}: per process-CPU second {many[0]:.2f}x, wall clock {many[1]:.2f}x "
              f"({os.cpu_count()} cores, shared)")
    for w, *_ in rows:
        if isinstance(w.problem, LinearQuadratic) and w.stochastic and w.problem.noise > 0:
            ns = measure_noise(w, reps)
            print(f"\nCost of the noise, {w.name}: CPU ns per client-step with noise "
                  f"{w.problem.noise:g} / with noise 0 (same A, b; no normals drawn):")
            for impl in ("engine", "numpy"):
                a, b = ns[(impl, True)], ns[(impl, False)]
                print(f"  {impl:6}: {a:8.0f} / {b:8.0f}  (sampling {a - b:.0f} ns, "
                      f"{100 * (a - b) / a:.0f}%)")
    print("Targets of issue 2:")
    for w, med, ratio, rw, comp, _ in rows:
        if w.name in TARGETS:
            tgt = TARGETS[w.name]
            ok = ratio["engine/numpy"] >= tgt
            print(f"  {w.name}: engine >= {tgt:g}x NumPy: {'met' if ok else 'NOT met'} "
                  f"({ratio['engine/numpy']:.1f}x)")
    for w, med, ratio, rw, comp, _ in rows:
        ok = ratio["engine/hand"] >= 1 / 1.5
        print(f"  {w.name}: engine within 1.5x of the hand loop: {'met' if ok else 'NOT met'} "
              f"(hand/engine = {1 / ratio['engine/hand']:.2f})")
    print("\nThe JAX anchor (bench/jax_anchor.py; issue 17):")
    import importlib.util
    if importlib.util.find_spec("jax") is None:
        print("  skipped: jax is not installed (pip install jax==0.10.2 to run it)")
    else:
        import jax_anchor   # sets XLA's one-thread flags before jax starts
        jax_anchor.main(["--quick"] if args.quick else [])


if __name__ == "__main__":
    main()
