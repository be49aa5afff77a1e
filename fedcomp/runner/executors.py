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
a killed sweep loses only the batches in flight; a rerun skips finished runs. Runs are claimed in
the store before they are computed, so two identical sweeps into one store compute each run once
(the second waits for the first's parts). Process-pool workers die with the sweep that started
them (no orphans after a SIGKILL). A tqdm bar shows runs done / total and the ETA.
"""
from __future__ import annotations

import contextlib
import json
import os
import time
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fedcomp import _validate as V
from fedcomp.runner import EXECUTORS
from fedcomp.runner.spec import RunSpec, _canonical, build_problem

# FEDCOMP_DASK_ADDRESS alone selects the Dask executor (an address given is an address used,
# never silently ignored beside the in-process default); FEDCOMP_EXECUTOR overrides
_ADDRESS = os.environ.get("FEDCOMP_DASK_ADDRESS") or None
DEFAULT_EXECUTOR = {"executor": os.environ.get("FEDCOMP_EXECUTOR",
                                               "dask" if _ADDRESS else "inprocess"),
                    "address": _ADDRESS,
                    "workers": None, "progress": False}


def set_executor(executor: str | None = None, address: str | None = None,
                 workers: int | None = None, progress: bool | None = None) -> None:
    """Executor of every check's simulations (:func:`fedcomp.runner.results.run_results` and the
    rate sweeps; ``fedcomp verify --executor ...`` sets it). Checked here: a bad value used to surface only inside each check, as an inconclusive verdict."""
    if executor is not None and executor not in EXECUTORS:
        raise ValueError(f"executor must be one of {', '.join(EXECUTORS)}, got {executor!r}")
    if workers is not None:
        V.positive_int("workers", workers)
    if address is not None and (executor or DEFAULT_EXECUTOR["executor"]) != "dask":
        raise ValueError("address is only used with executor='dask'")
    if executor is not None:
        DEFAULT_EXECUTOR["executor"] = executor
    if address is not None:
        DEFAULT_EXECUTOR["address"] = address
    if workers is not None:
        DEFAULT_EXECUTOR["workers"] = workers
    if progress is not None:
        DEFAULT_EXECUTOR["progress"] = progress


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
        params["x0"] = np.asarray(params["x0"], dtype=float)
    seeds = [s.seed for s in specs]
    if len(seeds) == 1:
        results = [fedcomp.simulate(problem, spec0.algorithm, seed=seeds[0], **params)]
    else:
        results = list(fedcomp.simulate_many(problem, spec0.algorithm, seeds=seeds, **params))
    return batch_frame([(res, _extra(spec, res)) for spec, res in zip(specs, results)])


def _extra(spec: RunSpec, res) -> dict:
    """The constant columns a run's rows carry beyond :meth:`SimulationResult.constants`."""
    extra = {f"floats_{var}_total": n for var, n in res.floats_by_variable.items()}
    extra.update(result=_result_json(res), run_id=spec.run_id, config_hash=spec.config_hash,
                 problem_ctor=spec.problem, problem_args=_canonical(spec.problem_args),
                 params=_canonical(spec.params), labels=_canonical(spec.labels))
    for key, val in spec.labels.items():
        scalar = not isinstance(val, (list, tuple, dict))
        extra[f"label_{key}"] = val if scalar else json.dumps(val)
    return extra


def frames_per_run(runs: list) -> pd.DataFrame:
    """The rows of `runs` ([(SimulationResult, extra columns)]) built one run at a time: the
    definition :func:`batch_frame` must equal (and its fallback)."""
    frames = []
    for res, extra in runs:
        if len(res.t):
            df = res.to_frame(**extra)
        else:  # non-finite from the start: keep one row so the run counts as done
            df = pd.DataFrame({"t": [-1], **res.constants(),
                               "diverged_at": pd.array([res.diverged_at], dtype="Int64"),
                               **extra})
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def batch_frame(runs: list) -> pd.DataFrame:
    """:func:`frames_per_run`'s table, built in one go: the runs' records concatenated, each
    constant column given once when the runs share its value and run by run otherwise.

    Why: a batch's runs share their configuration, and building one small frame per run and
    concatenating them cost about 2.7 ms a run, several times a short run's own time. Where a
    column's values differ in type between the runs, or a run kept no record, the table is
    built run by run (pandas' concatenation then decides the dtypes, as it always did)."""
    from fedcomp.engine import METRICS
    if not runs or any(len(res.t) == 0 for res, _ in runs):
        return frames_per_run(runs)
    consts = [{**res.constants(), "diverged_at": res.diverged_at, **extra}
              for res, extra in runs]
    names = list(consts[0])
    if any(list(c) != names for c in consts):
        return frames_per_run(runs)
    lengths = [len(res.t) for res, _ in runs]
    cols: dict = {"t": np.concatenate([res.t for res, _ in runs])}
    for m in METRICS:
        cols[m] = np.concatenate([getattr(res, m) for res, _ in runs])
    for name in names:
        vals = [c[name] for c in consts]
        v0 = vals[0]
        if name == "diverged_at":   # None (finite) or an iteration: nullable integers
            cols[name] = pd.array(np.repeat(np.array(vals, dtype=object), lengths).tolist(),
                                  dtype="Int64")
        elif any(type(v) is not type(v0) for v in vals):
            return frames_per_run(runs)
        elif all(v == v0 for v in vals) and v0 == v0:   # one value (not NaN): broadcast
            cols[name] = v0
        else:
            cols[name] = [v for v, n in zip(vals, lengths) for _ in range(n)]
    return pd.DataFrame(cols, index=pd.RangeIndex(sum(lengths)))


def _result_json(res) -> str:
    """What the rows alone do not hold, for :func:`fedcomp.runner.results.result_from_rows`:
    the final average ``x_bar``, the ledger and the configuration (``repr`` floats: exact)."""
    def plain(v):
        return v.item() if hasattr(v, "item") else str(v)
    return json.dumps({"algorithm": res.algorithm, "x_bar": [float(v) for v in res.x_bar],
                       "rounds": int(res.rounds), "floats_sent": int(res.floats_sent),
                       "floats_by_variable": {k: int(v) for k, v in
                                              res.floats_by_variable.items()},
                       "config": res.config, "seed": int(res.seed)}, default=plain)


def _batches(specs: list[RunSpec], batch_size: int) -> list[list[RunSpec]]:
    groups: OrderedDict[str, list[RunSpec]] = OrderedDict()
    for s in specs:
        groups.setdefault(s.config_hash, []).append(s)
    out = []
    for group in groups.values():
        for i in range(0, len(group), batch_size):
            out.append(group[i:i + batch_size])
    return out


def _exit_with_parent(parent_pid: int) -> None:
    """Pool-worker initializer: end this worker when the sweep that started it dies.

    A sweep killed with SIGKILL cannot shut its pool down, and its workers would otherwise go on
    computing batches nobody will store (orphans holding cores). On Linux the kernel delivers
    SIGKILL to the worker when its parent dies (``PR_SET_PDEATHSIG``; effective even inside
    compiled code that holds the GIL); elsewhere, and as a fallback, a daemon thread polls the
    parent pid twice a second.
    """
    import signal
    import sys
    import threading
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):  # pragma: no cover - no prctl: the thread suffices
            pass
    if os.getppid() != parent_pid:  # the parent died before the line above
        os._exit(1)

    def watch():
        while True:
            time.sleep(0.5)
            if os.getppid() != parent_pid:
                os._exit(1)

    threading.Thread(target=watch, name="fedcomp-parent-watch", daemon=True).start()


def run_specs(specs, store=None, executor: str = "process", workers: int | None = None,
              address: str | None = None, batch_size: int | None = None,
              progress: bool = True, desc: str = "runs", return_report: bool = False,
              connect_timeout: float = 10.0, poll_seconds: float = 0.2,
              columns=None):
    """Run every spec not already in `store`; return the table of all of them.

    Parameters
    ----------
    specs : iterable of RunSpec
        Duplicates (same run_id) are run once.
    store : ResultStore, str, Path or None
        Where finished runs are written as they finish; None keeps results in memory only.
        With a store, each run id is claimed before it is computed
        (:meth:`ResultStore.claim`): runs another live sweep has claimed are not computed
        again but waited for and read from the store (taken over if that sweep dies).
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
    connect_timeout : float > 0
        Seconds to wait for the Dask scheduler at `address` before giving up with a ValueError
        (an unreachable address otherwise hangs, then tracebacks).
    poll_seconds : float > 0
        How often to look for runs another sweep is computing.
    columns : list of str, optional
        The returned table's columns (default: all); ``run_id``, ``config_hash``, ``seed`` and
        ``t`` are always among them, and a column no run has is left out. The store still
        receives every column of every run. Why: a run's configuration and result are text on
        each of its rows (about 1.2 kB a row, nine tenths of it), so a sweep of two million
        records held several GB where the measurements it feeds need a few numbers a row.

    Returns
    -------
    pandas.DataFrame (and SweepReport if asked)
    """
    from tqdm.auto import tqdm

    from fedcomp.runner.store import ResultStore, combine
    if executor not in EXECUTORS:
        raise ValueError(f"executor must be one of {', '.join(EXECUTORS)}, got {executor!r}")
    if address is not None and executor != "dask":
        raise ValueError("address is only used with executor='dask'")
    n_workers = V.positive_int("workers", workers) if workers is not None else (os.cpu_count() or 1)
    bs = V.positive_int("batch_size", batch_size) if batch_size is not None else (
        16 if executor == "inprocess" else 4)
    connect_timeout = V.real_in("connect_timeout", connect_timeout, 0.0)
    poll_seconds = V.real_in("poll_seconds", poll_seconds, 0.0)
    if columns is not None:
        iterable = hasattr(columns, "__iter__") and not isinstance(columns, str)
        named = list(columns) if iterable else []   # a generator is read once, here
        if not iterable or not all(isinstance(c, str) for c in named):
            raise ValueError(f"columns must be a list of column names, got {columns!r}")
        columns = list(dict.fromkeys(["run_id", "config_hash", "seed", "t", *named]))
    if isinstance(specs, (RunSpec, str, bytes, dict)) or not hasattr(specs, "__iter__"):
        raise ValueError(f"specs must be an iterable of RunSpec objects (e.g. a list), got "
                         f"{type(specs).__name__}")
    unique: OrderedDict[str, RunSpec] = OrderedDict()
    for s in specs:
        if not isinstance(s, RunSpec):
            raise ValueError(f"specs must be RunSpec objects, got {type(s).__name__}")
        unique.setdefault(s.run_id, s)
    if store is not None and not isinstance(store, ResultStore):
        store = ResultStore(store)
    done = store.finished() if store is not None else set()
    pending = [s for rid, s in unique.items() if rid not in done]
    held: set[str] = set()
    mine, foreign = _claim(store, pending, held)
    kept: list[pd.DataFrame] = []    # the frames computed here (those written, with a store)
    executed = 0
    t0 = time.perf_counter()
    dask = _resource(("dask", address, n_workers),
                     lambda: _dask_client(address, n_workers, connect_timeout), _close_dask) \
        if executor == "dask" and pending else None
    bar = tqdm(total=len(unique), initial=len(unique) - len(pending), unit="run", desc=desc,
               disable=not progress, smoothing=0.1)

    def finish(frame: pd.DataFrame, n: int):
        nonlocal executed
        if store is not None:
            store.write(frame)
            ids = set(frame["run_id"].unique())
            store.release(ids)
            held.difference_update(ids)
        kept.append(frame if columns is None else frame[[c for c in columns if c in frame]])
        executed += n
        bar.update(n)

    def compute(todo: list[RunSpec]):
        batches = _batches(todo, bs)
        if not batches:
            return
        if executor == "inprocess":
            for b in batches:
                finish(execute_batch(b), len(b))
        elif executor == "process":
            n = n_workers if _SESSION is not None else min(n_workers, len(batches))
            pool, owned = _resource(("process", n), lambda: _process_pool(n),
                                    lambda p: p.shutdown())
            try:
                futs = {pool.submit(execute_batch, b, 1): len(b) for b in batches}
                for f in as_completed(futs):
                    finish(f.result(), futs[f])
            except BrokenProcessPool:
                if not owned:   # a dead worker breaks the pool: the next call starts a new one
                    _SESSION.pop(("process", n), None)
                raise
            finally:
                if owned:
                    pool.shutdown()
        else:
            _run_dask(dask[0][0], batches, finish)

    try:
        compute(mine)
        # runs another live sweep claimed: wait for its parts; take over those it abandons.
        # New parts are looked for every poll, the claims (one file read per run) less often.
        next_claim_check = 0.0
        while foreign:
            done = store.finished()
            arrived = [s for s in foreign if s.run_id in done]
            bar.update(len(arrived))
            foreign = [s for s in foreign if s.run_id not in done]
            taken = []
            if foreign and time.monotonic() >= next_claim_check:
                next_claim_check = time.monotonic() + 10 * poll_seconds
                orphaned = [s for s in foreign if not store.claimed_by_other(s.run_id)]
                taken, _ = _claim(store, orphaned, held)
            if taken:
                foreign = [s for s in foreign if s.run_id not in held]
                compute(taken)
            elif foreign:
                time.sleep(poll_seconds)
    finally:
        bar.close()
        if store is not None and held:
            store.release(held)
        if dask is not None and dask[1]:
            _close_dask(dask[0])
    seconds = time.perf_counter() - t0
    # the parts written here are joined from memory; only runs stored before (or by another
    # sweep) are read back
    computed = {rid for f in kept for rid in f["run_id"].unique()}
    rest = [rid for rid in unique if rid not in computed] if store is not None else []
    table = combine([*kept, *(store.frames(run_ids=rest, columns=columns) if rest else [])])
    report = SweepReport(total=len(unique), skipped=len(unique) - executed,
                         executed=executed, seconds=seconds, executor=executor)
    return (table, report) if return_report else table


def _claim(store, specs: list[RunSpec], held: set) -> tuple[list[RunSpec], list[RunSpec]]:
    """Split `specs` into those this process now holds a claim on and those a live other sweep
    holds (everything is ours without a store). A run finished between the caller's look at the
    store and the claim is dropped, so it is never computed twice."""
    if store is None:
        return list(specs), []
    mine, foreign = [], []
    for s in specs:
        if store.claim(s.run_id):
            held.add(s.run_id)
            mine.append(s)
        else:
            foreign.append(s)
    if mine:
        done = store.finished()
        late = {s.run_id for s in mine if s.run_id in done}
        if late:
            store.release(late)
            held.difference_update(late)
            mine = [s for s in mine if s.run_id not in late]
    return mine, foreign


# --- pools and clusters shared by the sweeps of one session -----------------------------------
_SESSION: dict | None = None


@contextlib.contextmanager
def executor_session():
    """Share the process pool or Dask cluster between every :func:`run_specs` call made inside
    the block (a verify's checks make hundreds of small ones): it is started by the first call
    that needs it and shut down when the block ends. Outside a session each call starts and
    stops its own. Nested sessions join the outermost one."""
    global _SESSION
    if _SESSION is not None:
        yield
        return
    _SESSION = {}
    try:
        yield
    finally:
        held, _SESSION = _SESSION, None
        for value, close in held.values():
            try:
                close(value)
            except Exception:  # noqa: BLE001 -- best effort at shutdown, never mask the result
                pass


def _resource(key, start, close):
    """(resource, owned): the session's resource under `key` (started on first use), or a new
    one the caller owns and must close."""
    if _SESSION is None:
        return start(), True
    if key not in _SESSION:
        _SESSION[key] = (start(), close)
    return _SESSION[key][0], False


def _process_pool(n: int) -> ProcessPoolExecutor:
    import multiprocessing as mp
    return ProcessPoolExecutor(max_workers=n, mp_context=mp.get_context("spawn"),
                               initializer=_exit_with_parent, initargs=(os.getpid(),))


def _close_dask(pair) -> None:
    client, cluster = pair
    client.close()
    if cluster is not None:
        cluster.close()


def _dask_client(address, n_workers, connect_timeout):
    """(client, cluster or None): a client of the scheduler at `address`, or of a new
    LocalCluster. An unreachable address gives a one-line ValueError after `connect_timeout`
    seconds."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:  # pragma: no cover - optional dependency
        raise ValueError("executor 'dask' needs dask[distributed]: pip install 'fedcomp[dask]'") \
            from None
    if address is None:
        cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        return Client(cluster), cluster
    try:
        return Client(address, timeout=connect_timeout), None
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        why = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ValueError(f"cannot reach the Dask scheduler at address {address!r} within "
                         f"connect_timeout={connect_timeout:g} s ({why}); check the address "
                         f"(tcp://host:port) or raise --connect-timeout") from None


def _run_dask(client, batches, finish):
    from dask.distributed import as_completed as das_completed
    futs = client.map(execute_batch, batches, threads=1, pure=False)
    sizes = {f.key: len(b) for f, b in zip(futs, batches)}
    for f in das_completed(futs):
        finish(f.result(), sizes[f.key])
