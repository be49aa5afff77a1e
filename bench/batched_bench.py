"""Batched runs on one core: ``simulate_many`` with one starting point per run against a loop of
``simulate`` (issue 17, item 2).

Run::

    NUMBA_NUM_THREADS=1 taskset -c 0 PYTHONPATH=. .venv/bin/python bench/batched_bench.py

Workload: FedDRO on ``LinearQuadratic.random(4, 2, 2, noise=0.1)`` (K = 4, d = d_g = 2, the size
of the Theorem 4.1 counterexample), I = 5, stochastic oracles, 64 starting points drawn from
N(0, 1), all on seed 0 (the same samples from different starts), metrics recorded only at t = 0
and T. One numba thread, so the ratio is per core. Before timing it asserts that every batched
run equals its ``simulate`` bit for bit. Repetitions alternate (batched, loop, batched, ...);
times are CPU seconds of the process, medians are reported, and the ratio is loop / batched.
"""
from __future__ import annotations

import statistics
import time

import numpy as np

import _checkout  # noqa: E402,F401  (this checkout, or PYTHONPATH's: bench/_checkout.py)

import fedcomp  # noqa: E402

N_RUNS = 64
TS = (100, 1000, 10000)
REPS = 7


def main() -> None:
    import numba
    numba.set_num_threads(1)
    p = fedcomp.problems.LinearQuadratic.random(4, 2, 2, noise=0.1)
    X0 = np.random.default_rng(0).standard_normal((N_RUNS, p.dim))
    kw = dict(eta=0.05, beta=0.2, local_steps=5, stochastic=True)
    seeds = [0] * N_RUNS
    print(f"FedDRO, K=4, d=d_g=2, I=5, stochastic, {N_RUNS} starting points, seed 0, one numba "
          f"thread; CPU seconds, median of {REPS}")
    print("| T | simulate_many | loop of simulate | loop / simulate_many |")
    print("|---|---|---|---|")
    for T in TS:
        kw["record_every"] = T
        batch = fedcomp.simulate_many(p, "feddro", seeds=seeds, x0=X0, iterations=T, **kw)
        for i in range(N_RUNS):
            one = fedcomp.simulate(p, "feddro", x0=X0[i], iterations=T, **kw)
            assert np.array_equal(one.x_bar, batch[i].x_bar), "batched run differs"
        many, loop = [], []
        for _ in range(REPS):
            t0 = time.process_time()
            fedcomp.simulate_many(p, "feddro", seeds=seeds, x0=X0, iterations=T, **kw)
            many.append(time.process_time() - t0)
            t0 = time.process_time()
            for i in range(N_RUNS):
                fedcomp.simulate(p, "feddro", x0=X0[i], iterations=T, **kw)
            loop.append(time.process_time() - t0)
        m, lp = statistics.median(many), statistics.median(loop)
        print(f"| {T} | {m:.4f} s | {lp:.4f} s | {lp / m:.2f} |")


if __name__ == "__main__":
    main()
