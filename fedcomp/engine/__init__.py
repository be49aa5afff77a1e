"""The engine: one compiled loop for every algorithm (see :mod:`fedcomp.engine.loop`).

:func:`simulate` validates the inputs, builds (or loads from the disk cache) the compiled module of
the (algorithm, problem) pair, runs it and returns a :class:`SimulationResult`. Compile time is
measured apart (``compile_seconds``) and never counted in ``run_seconds``.
:func:`simulate_many` runs many seeds of one configuration in one call, in parallel threads
(the compiled loop of :func:`simulate`, which releases the GIL: one compilation serves both);
each seed's result is bit-identical to :func:`simulate` with that seed.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numba
import numpy as np

from fedcomp import _validate as V
from fedcomp import rng as _rng
from fedcomp.algorithms import get as _get_algorithm, names as _names
from fedcomp.engine import build as _build
from fedcomp.problems.base import Problem

METRICS = ("grad_norm_sq", "value", "consensus", "inner_error")


@dataclass
class SimulationResult:
    """One run. Arrays are indexed by recorded iteration (``t``); see the README, "Using it".

    ``diverged_at`` is None, or the iteration at which an iterate became non-finite; the recorded
    arrays then stop at the last finite record and ``x_bar`` is the last finite average.
    """
    algorithm: str
    x_bar: np.ndarray
    t: np.ndarray
    grad_norm_sq: np.ndarray
    value: np.ndarray
    consensus: np.ndarray
    inner_error: np.ndarray
    rounds: int
    floats_sent: int
    floats_by_variable: dict
    diverged_at: int | None
    config: dict
    seed: int
    compile_seconds: float = 0.0
    run_seconds: float = 0.0

    @property
    def diverged(self) -> bool:
        return self.diverged_at is not None

    def constants(self) -> dict:
        """The columns every row of :meth:`to_frame` repeats: the configuration (lists and
        dicts as their repr), the seed and the ledger totals."""
        cols = {k: v if not isinstance(v, (list, tuple, dict)) else repr(v)
                for k, v in self.config.items()}
        cols.update(seed=self.seed, rounds_total=self.rounds, floats_sent_total=self.floats_sent)
        return cols

    def to_frame(self, **extra):
        """Tidy table: one row per recorded iteration with the run's configuration (and the
        constant columns `extra`, e.g. a run id), built in one go."""
        import pandas as pd
        cols = {"t": self.t, **{m: getattr(self, m) for m in METRICS}, **self.constants()}
        # nullable: null means "finite", never a sentinel such as -1 a reader could take for an
        # iteration number
        cols["diverged_at"] = pd.array([self.diverged_at] * len(self.t), dtype="Int64")
        return pd.DataFrame({**cols, **extra}, index=pd.RangeIndex(len(self.t)))

    def summary(self) -> str:
        status = f"diverged at t={self.diverged_at}" if self.diverged else "finite"
        last = self.grad_norm_sq[-1] if len(self.grad_norm_sq) else float("nan")
        return (f"{self.algorithm}: T={self.config['iterations']} I={self.config['local_steps']} "
                f"||grad Phi||^2={last:.3e} rounds={self.rounds} floats={self.floats_sent} "
                f"({status})")


@dataclass
class BatchResult:
    """Many seeds of one configuration (from :func:`simulate_many`)."""
    runs: list[SimulationResult]
    compile_seconds: float = 0.0
    run_seconds: float = 0.0
    seeds: list[int] = field(default_factory=list)

    def __len__(self):
        return len(self.runs)

    def __iter__(self):
        return iter(self.runs)

    def __getitem__(self, i):
        return self.runs[i]

    def stacked(self, metric: str = "grad_norm_sq") -> np.ndarray:
        """(n_seeds, n_records) array; raises if any run diverged (records then differ)."""
        div = [r.seed for r in self.runs if r.diverged]
        if div:
            raise ValueError(f"runs with seeds {div} diverged; inspect them one by one")
        return np.stack([getattr(r, metric) for r in self.runs])


def _check_schedule(alg, iterations, eta, local_steps, stochastic, record_every, hyper,
                    allow_no_sync=False):
    """The checks of simulate's arguments that need no problem: (T, I, record_every, eta,
    resolved hyperparameters), or a ValueError naming the parameter and its range. RunSpec
    calls it too, so a bad value fails where the spec is written, not in a worker later."""
    T = V.positive_int("iterations", iterations)
    I = V.positive_int("local_steps", local_steps)
    alg.check_local_steps(I)
    if not isinstance(allow_no_sync, (bool, np.bool_)):
        raise ValueError(f"allow_no_sync must be True or False, got {allow_no_sync!r}")
    if I > T and not allow_no_sync:
        # T // I = 0 rounds: the clients never synchronise, which is almost always a mistaken
        # schedule rather than an experiment; make the caller say so
        raise ValueError(f"local_steps must be <= iterations (got local_steps={I} > "
                         f"iterations={T}: the clients would never synchronise, 0 rounds); "
                         f"pass allow_no_sync=True to run without a round on purpose")
    rec = V.positive_int("record_every", record_every)
    eta_v = V.real_in("eta", eta, 0.0)
    if not isinstance(stochastic, (bool, np.bool_)):
        raise ValueError(f"stochastic must be True or False, got {stochastic!r}")
    return T, I, rec, eta_v, alg.resolve_hyper(eta_v, I, hyper)


def _prepare(problem, algorithm, iterations, eta, local_steps, x0, seed_list, stochastic,
             record_every, hyper, allow_no_sync=False, per_run=False):
    from fedcomp import _interrupt
    _interrupt.check()   # a Ctrl-C that a compilation swallowed still stops the command
    if not isinstance(problem, Problem):
        raise ValueError(f"problem must be a fedcomp.problems.Problem, got {type(problem).__name__}")
    alg = _get_algorithm(algorithm)
    T, I, rec, eta_v, resolved = _check_schedule(alg, iterations, eta, local_steps, stochastic,
                                                 record_every, hyper, allow_no_sync)
    values = [eta_v, *resolved.values()]
    if problem.structure not in alg.structures:
        raise ValueError(f"algorithm {alg.name!r} solves {', '.join(alg.structures)} problems; "
                         f"{type(problem).__name__} is {problem.structure}")
    missing = [n for n in alg.requires if n not in problem.provides()]
    if missing:
        raise ValueError(f"algorithm {alg.name!r} needs oracles {missing} that "
                         f"{type(problem).__name__} does not provide")
    d, dg, K = problem.dim, problem.inner_dim, problem.num_clients
    if x0 is None:
        x0a = np.zeros(d)
    elif per_run:   # simulate_many: one starting point for all runs, or row i for seeds[i]
        n = len(seed_list)
        if np.shape(x0) not in ((d,), (n, d)):
            raise ValueError(f"x0 must have shape ({d},) (one starting point for every run) or "
                             f"({n}, {d}) (row i for seeds[i]), got shape {np.shape(x0)}")
        x0a = np.ascontiguousarray(V.finite_array("x0", x0, shape=np.shape(x0)))
    else:
        x0a = V.finite_array("x0", x0, shape=(d,))
    nz, nw, ns = alg.sizes(d, dg)
    config = {"algorithm": alg.name, "iterations": T, "eta": eta_v, "local_steps": I,
              "stochastic": bool(stochastic), "record_every": rec, **resolved,
              **problem.describe()}
    args_tail = (T, I, not bool(stochastic), rec, x0a, K, dg, max(nz, 1), max(nw, 1),
                 max(ns, 1), len(alg.ledger_slots), alg.n_phases, alg.tracks_inner)
    return alg, np.array(values, dtype=np.float64), args_tail, config


def _result(alg, config, seed, xb, rt, rc, lg, dv, nr, compile_s, run_s):
    nr = int(nr)
    floats = {name: int(lg[1 + i]) for i, name in enumerate(alg.ledger_slots)}
    return SimulationResult(
        algorithm=alg.name, x_bar=np.array(xb), t=np.array(rt[:nr]),
        grad_norm_sq=np.array(rc[:nr, 0]), value=np.array(rc[:nr, 1]),
        consensus=np.array(rc[:nr, 2]), inner_error=np.array(rc[:nr, 3]),
        rounds=int(lg[0]), floats_sent=int(sum(floats.values())), floats_by_variable=floats,
        diverged_at=None if int(dv) < 0 else int(dv), config=dict(config), seed=int(seed),
        compile_seconds=compile_s, run_seconds=run_s)


def simulate(problem, algorithm, iterations=1000, eta=0.01, local_steps=1, x0=None, seed=0,
             stochastic=True, record_every=1, allow_no_sync=False, backend="numba",
             device="auto", **hyper) -> SimulationResult:
    """Run `algorithm` on `problem` (every parameter: README, "Using it").

    Parameters
    ----------
    problem : fedcomp.problems.Problem
    algorithm : str
        A name from :func:`fedcomp.algorithms.names`.
    iterations : int >= 1
        T, local iterations per client.
    eta : float > 0
        Client step size.
    local_steps : int in [1, iterations]
        I: iterations between synchronisations of the model.
    x0 : array (d,), optional
        Initial model (default zeros).
    seed : int >= 0
        Same seed and inputs give bit-identical results.
    stochastic : bool
        False: exact oracles.
    record_every : int >= 1
        Record the exact metrics every this many iterations (and after the last).
    allow_no_sync : bool
        Allow local_steps > iterations (no synchronisation at all: 0 rounds); without it such a
        call is a ValueError, since it usually means a wrong schedule.
    backend : {"numba", "torch"}
        "numba" (default): the compiled engine. "torch": the algorithm's torch steps from the same
        definition, on the problem's torch form (:func:`fedcomp.neural.synthetic.torch_form`),
        float64; the same samples for the same seed, so both backends agree to rounding.
    device : {"auto", "cpu", "cuda"}
        Where the torch backend runs ("auto": cuda when available). The numba backend runs on the
        CPU ("auto" or "cpu").
    **hyper
        The algorithm's hyperparameters (``fedcomp.algorithms.get(name).hyper``).

    Returns
    -------
    SimulationResult
    """
    seed = V.seed_value("seed", seed)
    if backend not in ("numba", "torch"):
        raise ValueError(f"backend must be 'numba' or 'torch', got {backend!r}")
    if device not in ("auto", "cpu", "cuda"):
        raise ValueError(f"device must be one of auto, cpu, cuda, got {device!r}")
    if backend == "numba" and device == "cuda":
        raise ValueError("device='cuda' needs backend='torch' (the numba backend runs on the CPU)")
    alg, hyp, tail, config = _prepare(problem, algorithm, iterations, eta, local_steps, x0,
                                      [seed], stochastic, record_every, hyper, allow_no_sync)
    if backend == "torch":
        return _simulate_torch(problem, alg, hyp, tail, config, seed, device)
    t0 = time.perf_counter()
    mod = _build.kernel_module(alg, problem.kernels)
    args = (problem.data, hyp, _rng.base_key(seed), *tail)
    _build.warm(mod, args)
    compile_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    out = mod.run_one(*args)
    run_s = time.perf_counter() - t1
    return _result(alg, config, seed, *out, compile_s, run_s)


def _simulate_torch(problem, alg, hyp, tail, config, seed, device) -> SimulationResult:
    """:func:`simulate` on the torch backend (inputs already validated by ``_prepare``)."""
    from fedcomp.engine import torch_backend as _tb
    from fedcomp.neural._core import require_torch, resolve_device
    from fedcomp.neural.synthetic import torch_form
    torch = require_torch()
    if alg.torch is None:
        have = [n for n in _names() if _get_algorithm(n).torch is not None]
        raise ValueError(f"algorithm {alg.name!r} has no torch steps yet; backend='torch' "
                         f"runs {', '.join(have)}")
    dev = resolve_device(device)
    P = torch_form(problem, dev)
    T, I, exact, rec, x0a = tail[:5]
    dg = problem.inner_dim
    x0t = torch.as_tensor(x0a, dtype=torch.float64, device=dev)
    y0t = torch.zeros(dg, dtype=torch.float64, device=dev)
    hyper = {h: float(hyp[1 + i]) for i, h in enumerate(alg.hyper_names())}

    def record(t, state, buf, rounds):
        X = state["x"].detach().cpu().numpy()
        Y = state["y"].detach().cpu().numpy()
        xbar = X.mean(0)
        if not (np.isfinite(X).all() and np.isfinite(Y).all()):
            return t, xbar, np.full(len(METRICS), np.nan)
        g = problem.grad(xbar)
        inner = (float(np.linalg.norm(Y.mean(0) - problem.inner(xbar))) if alg.tracks_inner
                 else np.nan)
        return t, xbar, np.array([g @ g, problem.value(xbar),
                                  float(((X - xbar) ** 2).sum(1).mean()), inner])

    t1 = time.perf_counter()
    out = _tb.run(alg, P, T, float(hyp[0]), hyper, I, x0t, y0t, _rng.base_key(seed), exact,
                  record, rec)
    run_s = time.perf_counter() - t1
    rows, diverged, xb = [], out.diverged_at, x0a.copy()
    for t, xbar, m in out.records:
        if not np.isfinite(m[:2]).all():
            diverged = t
            break
        rows.append((t, m))
        xb = xbar
    rt = np.array([t for t, _ in rows], dtype=np.int64)
    rc = np.array([m for _, m in rows]).reshape(len(rows), len(METRICS))
    lg = np.array([out.rounds, *(out.floats[s] for s in alg.ledger_slots)], dtype=np.int64)
    res = _result(alg, config, seed, xb, rt, rc, lg, -1 if diverged is None else diverged,
                  len(rows), 0.0, run_s)
    res.config["backend"] = "torch"
    res.config["device"] = dev
    return res


def simulate_many(problem, algorithm, seeds=range(4), iterations=1000, eta=0.01, local_steps=1,
                  x0=None, stochastic=True, record_every=1, allow_no_sync=False,
                  **hyper) -> BatchResult:
    """Run one configuration for every seed in `seeds`, in parallel threads (as many as
    ``numba.get_num_threads()``; the compiled loop releases the GIL).

    Each run equals ``simulate(..., seed=s)`` bit for bit. `seeds` is an iterable of
    non-negative integers (``range(5)``, not ``5``; repeats allowed). `x0` is one starting point
    for every run (shape (d,)) or one per run (shape (len(seeds), d): run i starts at x0[i] with
    seed seeds[i], e.g. many starting points on the same samples with ``seeds=[0] * n``). The
    other parameters are those of :func:`simulate`.
    """
    if isinstance(seeds, (str, bytes, dict)) or not hasattr(seeds, "__iter__"):
        raise ValueError(f"seeds must be an iterable of non-negative integers (e.g. range(5) "
                         f"or [0, 1, 2]), got {seeds!r}")
    seed_list = [V.seed_value("seeds", s) for s in seeds]
    if not seed_list:
        raise ValueError("seeds must contain at least one non-negative integer")
    alg, hyp, tail, config = _prepare(problem, algorithm, iterations, eta, local_steps, x0,
                                      seed_list, stochastic, record_every, hyper, allow_no_sync,
                                      per_run=True)
    n = len(seed_list)
    X0 = tail[4]
    t0 = time.perf_counter()
    mod = _build.kernel_module(alg, problem.kernels)
    bases = np.array([_rng.base_key(s) for s in seed_list], dtype=np.uint64)

    def args(i):   # run i: exactly simulate's arguments for seeds[i] and x0[i]
        return (problem.data, hyp, bases[i], *tail[:4], X0[i] if X0.ndim == 2 else X0,
                *tail[5:])
    _build.warm(mod, args(0))
    compile_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    # the compiled run_one releases the GIL: runs go in threads, one function for simulate and
    # simulate_many (compiled once); numba.set_num_threads sets how many
    workers = min(n, numba.get_num_threads())
    if workers > 1:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(workers) as pool:
            outs = list(pool.map(lambda i: mod.run_one(*args(i)), range(n)))
    else:
        outs = [mod.run_one(*args(i)) for i in range(n)]
    run_s = time.perf_counter() - t1
    runs = [_result(alg, config, s, *out, 0.0, 0.0) for s, out in zip(seed_list, outs)]
    return BatchResult(runs=runs, compile_seconds=compile_s, run_seconds=run_s, seeds=seed_list)
