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
from fedcomp._lazy import lazy_exports

#: the executors a sweep can run on (:mod:`fedcomp.runner.executors`); defined here so that the
#: command line's parser lists them without importing pandas
EXECUTORS = ("inprocess", "process", "dask")

# name -> submodule; imported on first use (pandas and the executors load only when a sweep runs:
# `fedcomp --help` and `fedcomp report` need neither)
_NAMES = {"RunSpec": "spec", "build_problem": "spec", "resolve": "spec", "ResultStore": "store",
          "run_specs": "executors", "execute_batch": "executors", "SweepReport": "executors",
          "executor_session": "executors", "set_executor": "executors"}

__all__ = ["RunSpec", "ResultStore", "run_specs", "execute_batch", "build_problem", "resolve",
           "EXECUTORS", "SweepReport", "executor_session", "set_executor"]

__getattr__ = lazy_exports(__name__, _NAMES)
