"""Executors: run many :class:`RunSpec` in-process, on a local process pool or on Dask.

All three call :func:`execute_batch`, which rebuilds the problem and calls
:func:`fedcomp.simulate_many` (or :func:`fedcomp.simulate` for one seed); the engine's results are
bit-identical per seed whatever the batching, the executor or the order, so the table a sweep
produces does not depend on where it ran.

* ``"inprocess"``: batches one after the other in this process; each batch runs its seeds in
  parallel numba threads.
* ``"process"`` (default): a :class:`concurrent.futures.ProcessPoolExecutor` with one
  single-threaded worker per local core (``spawn`` start method: numba's thread pools are not
  fork-safe).
* ``"dask"``: a :class:`dask.distributed.Client` on ``address`` (``"tcp://host:port"``, an
  existing cluster), else on a :class:`dask.distributed.LocalCluster` with one single-threaded
  worker process per core. The workers need fedcomp importable; results come back to this process,
  which alone writes the store (workers need no shared file system).

Finished batches are written to the :class:`~fedcomp.runner.store.ResultStore` as they arrive, so
a killed sweep loses only the batches in flight; a rerun skips finished runs. A tqdm bar shows
runs done / total and the ETA.
"""
from __future__ import annotations

import json
import os
import time
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

import pandas as pd

from fedcomp import _validate as V
from fedcomp.runner.spec import RunSpec, _canonical, build_problem

EXECUTORS = ("inprocess", "process", "dask")


@dataclass
class SweepReport:
    """What :func:`run_specs` did."""
    total: int
    skipped: int
    executed: int
    seconds: float
    executor: str


def _set_threads(threads):
    if threads is not None:
        import numba
        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))


def execute_batch(specs: list[RunSpec], threads: int | None = None) -> pd.DataFrame:
    """Run specs that share one configuration (different seeds); return their tidy rows.

    Parameters
    ----------
    specs : list of RunSpec
        Same ``config_hash``, distinct seeds.
    threads : int, optional
        numba threads for this call (pool workers use 1: the pool is the parallelism).
    """
    import fedcomp
    if not specs:
        return pd.DataFrame()
    h = specs[0].config_hash
    if any(s.config_hash != h for s in specs):
        raise ValueError("execute_batch needs specs of one configuration (one config_hash)")
    _set_threads(threads)
    spec0 = specs[0]
    problem = build_problem(spec0)
    params = dict(spec0.params)
    if params.get("x0") is not None:
        import numpy as np
        params["x0"] = np.asarray(params["x0"], dtype=float)
    seeds = [s.seed for s in specs]
    if len(seeds) == 1:
        results = [fedcomp.simulate(problem, spec0.algorithm, seed=seeds[0], **params)]
    else:
        results = list(fedcomp.simulate_many(problem, spec0.algorithm, seeds=seeds, **params))
    frames = []
    for spec, res in zip(specs, results):
        df = res.to_frame()
        if df.empty:  # non-finite from the start: keep one row so the run counts as done
            df = pd.DataFrame({"t": [-1]})
            for key, val in {**res.config, "seed": res.seed, "rounds_total": res.rounds,
                             "floats_sent_total": res.floats_sent,
                             "diverged_at": res.diverged_at}.items():
                df[key] = val if not isinstance(val, (list, tuple, dict)) else repr(val)
        for var, n in res.floats_by_variable.items():
            df[f"floats_{var}_total"] = n
        df["run_id"] = spec.run_id
        df["config_hash"] = spec.config_hash
        df["problem_ctor"] = spec.problem
        df["problem_args"] = _canonical(spec.problem_args)
        df["params"] = _canonical(spec.params)
        df["labels"] = _canonical(spec.labels)
        for key, val in spec.labels.items():
            scalar = not isinstance(val, (list, tuple, dict))
            df[f"label_{key}"] = val if scalar else json.dumps(val)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def _batches(specs: list[RunSpec], batch_size: int) -> list[list[RunSpec]]:
    groups: OrderedDict[str, list[RunSpec]] = OrderedDict()
    for s in specs:
        groups.setdefault(s.config_hash, []).append(s)
    out = []
    for group in groups.values():
        for i in range(0, len(group), batch_size):
            out.append(group[i:i + batch_size])
    return out


def run_specs(specs, store=None, executor: str = "process", workers: int | None = None,
              address: str | None = None, batch_size: int | None = None,
              progress: bool = True, desc: str = "runs", return_report: bool = False):
    """Run every spec not already in `store`; return the table of all of them.

    Parameters
    ----------
    specs : iterable of RunSpec
        Duplicates (same run_id) are run once.
    store : ResultStore, str, Path or None
        Where finished runs are written as they finish; None keeps results in memory only.
    executor : {"inprocess", "process", "dask"}
    workers : int, optional
        Pool / LocalCluster workers (default: all local cores).
    address : str, optional
        ``tcp://host:port`` of an existing Dask scheduler (executor "dask" only).
    batch_size : int, optional
        Seeds of one configuration per task (default 16 in-process, 4 on pools).
    progress : bool
        Show a tqdm bar (runs done / total, ETA) on stderr.
    return_report : bool
        Also return a :class:`SweepReport`.

    Returns
    -------
    pandas.DataFrame (and SweepReport if asked)
    """
    from tqdm.auto import tqdm

    from fedcomp.runner.store import ResultStore
    if executor not in EXECUTORS:
        raise ValueError(f"executor must be one of {', '.join(EXECUTORS)}, got {executor!r}")
    if address is not None and executor != "dask":
        raise ValueError("address is only used with executor='dask'")
    n_workers = V.positive_int("workers", workers) if workers is not None else (os.cpu_count() or 1)
    bs = V.positive_int("batch_size", batch_size) if batch_size is not None else (
        16 if executor == "inprocess" else 4)
    unique: OrderedDict[str, RunSpec] = OrderedDict()
    for s in specs:
        if not isinstance(s, RunSpec):
            raise ValueError(f"specs must be RunSpec objects, got {type(s).__name__}")
        unique.setdefault(s.run_id, s)
    if store is not None and not isinstance(store, ResultStore):
        store = ResultStore(store)
    done = store.finished() if store is not None else set()
    pending = [s for rid, s in unique.items() if rid not in done]
    batches = _batches(pending, bs)
    kept: list[pd.DataFrame] = []
    t0 = time.perf_counter()
    bar = tqdm(total=len(unique), initial=len(unique) - len(pending), unit="run", desc=desc,
               disable=not progress, smoothing=0.1)

    def finish(frame: pd.DataFrame, n: int):
        if store is not None:
            store.write(frame)
        else:
            kept.append(frame)
        bar.update(n)

    try:
        if not batches:
            pass
        elif executor == "inprocess":
            for b in batches:
                finish(execute_batch(b), len(b))
        elif executor == "process":
            import multiprocessing as mp
            with ProcessPoolExecutor(max_workers=min(n_workers, len(batches)),
                                     mp_context=mp.get_context("spawn")) as pool:
                futs = {pool.submit(execute_batch, b, 1): len(b) for b in batches}
                for f in as_completed(futs):
                    finish(f.result(), futs[f])
        else:
            _run_dask(batches, address, n_workers, finish)
    finally:
        bar.close()
    seconds = time.perf_counter() - t0
    if store is not None:
        table = store.table(run_ids=list(unique))
    else:
        table = pd.concat(kept, ignore_index=True) if kept else pd.DataFrame()
        if not table.empty:
            table = table.sort_values(["config_hash", "seed", "t"], kind="stable")
            table = table.reset_index(drop=True)
    report = SweepReport(total=len(unique), skipped=len(unique) - len(pending),
                         executed=len(pending), seconds=seconds, executor=executor)
    return (table, report) if return_report else table


def _run_dask(batches, address, n_workers, finish):
    try:
        from dask.distributed import Client, LocalCluster, as_completed as das_completed
    except ImportError:  # pragma: no cover - optional dependency
        raise ValueError("executor 'dask' needs dask[distributed]: pip install 'fedcomp[dask]'") \
            from None
    cluster = None
    if address is None:
        cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    else:
        client = Client(address)
    try:
        futs = client.map(execute_batch, batches, threads=1, pure=False)
        sizes = {f.key: len(b) for f, b in zip(futs, batches)}
        for f in das_completed(futs):
            finish(f.result(), sizes[f.key])
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
