"""Simulations through the runner, returned as the engine's result objects.

Every simulation a check makes goes through :class:`~fedcomp.runner.spec.RunSpec`,
:func:`~fedcomp.runner.executors.run_specs` and, where a store is in scope, the
:class:`~fedcomp.runner.store.ResultStore`: so ``fedcomp verify --executor dask`` runs it on the
cluster, and a rerun of an interrupted verify reads the finished runs back instead of computing
them again. :func:`run` and :func:`run_many` have the shape of :func:`fedcomp.simulate` and
:func:`fedcomp.simulate_many`, except that the problem is named by its constructor
(``"module:qualname"``) and JSON-able arguments, so that any worker can rebuild it:

>>> from fedcomp.runner.results import run
>>> r = run("fedcomp.problems.linear:LinearQuadratic.random",
...         {"num_clients": 4, "dim": 3, "inner_dim": 2}, "feddro",
...         iterations=100, eta=0.05, beta=0.1)                     # doctest: +SKIP

The result is bit-identical to ``fedcomp.simulate`` on the same problem with the same arguments
(the store keeps float64 arrays; ``x_bar``, the ledger and the configuration travel as JSON with
``repr`` floats, which round-trip exactly).

**Where runs are stored.** :func:`store_scope` names the store of the simulations made inside it;
``fedcomp verify`` opens one per check (``<out>/data/<profile>-<claim id>``). Outside any scope,
runs go through the executor and are kept in memory.

**Staleness.** Each run's labels carry a digest of the compiled code (algorithm steps, problem
kernels, engine) and the problem data's fingerprint (:func:`code_and_data`), and the format of
the stored result: a stored run is reused only while none of them changed.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import json
from pathlib import Path

import numpy as np
import pandas as pd

from fedcomp.runner.executors import DEFAULT_EXECUTOR, run_specs
from fedcomp.runner.spec import RunSpec, _build_problem, _canonical

#: version of the JSON a stored run's ``result`` column holds (part of every run's labels)
RESULT_FORMAT = 1

_STORE: contextvars.ContextVar = contextvars.ContextVar("fedcomp_store", default=None)


@contextlib.contextmanager
def store_scope(path):
    """Store the runs of :func:`run_results` (and :func:`run`, :func:`run_many`) made inside the
    ``with`` block in the :class:`ResultStore` at `path` (None: in memory)."""
    token = _STORE.set(None if path is None else Path(path))
    try:
        yield
    finally:
        _STORE.reset(token)


def current_store():
    """The store path of the innermost :func:`store_scope`, or None."""
    return _STORE.get()


@functools.lru_cache(maxsize=256)
def _code_and_data(problem: str, args_json: str, algorithm: str) -> tuple:
    from fedcomp.algorithms import get
    from fedcomp.engine import build
    prob = _build_problem(problem, args_json)
    code = build.source_digest(get(algorithm), prob.kernels)[:12]
    return (("code", code), ("data", prob.fingerprint()))


def code_and_data(problem: str, args: dict, algorithm: str) -> dict:
    """Labels that tie a run to its compiled code and its problem data: ``code``, the digest of
    the generated source of the (algorithm, problem kernels) pair and of every file its compiled
    code comes from (:func:`fedcomp.engine.build.source_digest`), and ``data``, the problem's
    fingerprint."""
    return dict(_code_and_data(problem, _canonical(args), algorithm))


def _plain(value):
    """JSON-able form of a simulate argument (arrays to lists, numpy scalars to Python)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def make_spec(problem: str, problem_args: dict, algorithm: str, seed: int = 0,
              labels: dict | None = None, **params) -> RunSpec:
    """A :class:`RunSpec` with the staleness labels (module docstring); `params` are the keyword
    arguments of :func:`fedcomp.simulate` (arrays allowed)."""
    params = {k: _plain(v) for k, v in params.items()}
    lab = {**(labels or {}), **code_and_data(problem, problem_args, algorithm),
           "result_format": RESULT_FORMAT}
    return RunSpec(problem, dict(problem_args), algorithm, params, int(seed), lab)


def result_inputs() -> tuple:
    """The columns of a run table that :func:`result_from_rows` reads (run_results asks
    run_specs for these only)."""
    from fedcomp.engine import METRICS
    return ("run_id", "t", "result", "diverged_at", *METRICS)


def result_from_rows(rows: pd.DataFrame):
    """The :class:`fedcomp.SimulationResult` of one stored run (its rows, sorted by t)."""
    from fedcomp.engine import METRICS, SimulationResult
    if "result" not in rows.columns or rows["result"].isna().any():
        raise ValueError("these rows hold no stored result (written by an older fedcomp or by a "
                         "sweep): rerun them through fedcomp.runner.results")
    meta = json.loads(rows["result"].iloc[0])
    rec = rows[rows["t"] >= 0].sort_values("t")
    d_at = rows["diverged_at"].iloc[0]
    return SimulationResult(
        algorithm=meta["algorithm"], x_bar=np.array(meta["x_bar"], dtype=float),
        t=rec["t"].to_numpy(dtype=np.int64),
        **{m: rec[m].to_numpy(dtype=float) for m in METRICS},
        rounds=int(meta["rounds"]), floats_sent=int(meta["floats_sent"]),
        floats_by_variable={k: int(v) for k, v in meta["floats_by_variable"].items()},
        diverged_at=None if pd.isna(d_at) else int(d_at), config=meta["config"],
        seed=int(meta["seed"]))


def run_results(specs, store=None, desc: str = "runs") -> list:
    """Run (or read back) `specs` with the session's executor (:func:`set_executor`), in the
    `store` given, else the one in scope (:func:`store_scope`); one
    :class:`fedcomp.SimulationResult` per spec, in order."""
    specs = list(specs)
    store = store if store is not None else current_store()
    table = run_specs(specs, store=store, desc=desc, columns=result_inputs(), **DEFAULT_EXECUTOR)
    groups = {rid: g for rid, g in table.groupby("run_id", sort=False)}
    return [result_from_rows(groups[s.run_id]) for s in specs]


def run(problem: str, problem_args: dict, algorithm: str, seed: int = 0, labels=None,
        store=None, **params):
    """:func:`fedcomp.simulate` through the runner (module docstring): one result."""
    spec = make_spec(problem, problem_args, algorithm, seed, labels, **params)
    return run_results([spec], store, desc=algorithm)[0]


def run_many(problem: str, problem_args: dict, algorithm: str, seeds=range(1), labels=None,
             store=None, **params):
    """:func:`fedcomp.simulate_many` through the runner: a :class:`fedcomp.BatchResult`."""
    from fedcomp.engine import BatchResult
    spec = make_spec(problem, problem_args, algorithm, 0, labels, **params)
    seeds = [int(s) for s in seeds]
    runs = run_results([spec.with_seed(s) for s in seeds], store, desc=algorithm)
    return BatchResult(runs=runs, seeds=seeds)
