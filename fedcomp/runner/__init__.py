"""Sweeps that scale out: run specifications, executors and the resumable result store.

>>> from fedcomp.runner import RunSpec, run_specs
>>> specs = [RunSpec("fedcomp.problems.linear:LinearQuadratic.random",
...                  {"num_clients": 4, "dim": 3, "inner_dim": 2, "noise": 0.5},
...                  "feddro", {"iterations": 200, "eta": 0.05, "local_steps": 2, "beta": 0.1},
...                  seed=s) for s in range(8)]
>>> table = run_specs(specs, store="results/", executor="process")   # doctest: +SKIP

See :mod:`fedcomp.runner.spec` (what a run is), :mod:`fedcomp.runner.executors` (in-process,
process pool, Dask), :mod:`fedcomp.runner.results` (one simulation through the runner, returned
as the engine's result: what the checks use) and :mod:`fedcomp.runner.store` (Parquet parts,
atomic writes, resume).
"""
from fedcomp.runner.executors import (EXECUTORS, SweepReport, execute_batch, executor_session,
                                      run_specs, set_executor)
from fedcomp.runner.spec import RunSpec, build_problem, resolve
from fedcomp.runner.store import ResultStore

__all__ = ["RunSpec", "ResultStore", "run_specs", "execute_batch", "build_problem", "resolve",
           "EXECUTORS", "SweepReport", "executor_session", "set_executor"]
