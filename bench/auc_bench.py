"""CPU time per client step of LocalSCGDAM on the zhang.thm1 problem (the AUC min-max of
:mod:`fedcomp.rates.auc`, Remark 1's schedule at T = 32768, 8 seeds, K = 4 and K = 32: the runs
that make most of the claim's measurement in ``fedcomp verify``).

Run from the checkout to measure (one numba thread, pinned to a core)::

    taskset -c 1 env NUMBA_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python bench/auc_bench.py

To compare two commits, run it alternately in a ``git worktree`` of each (the other commit's
kernels compile into their own cache entries) and compare the medians of the same K.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import _checkout  # noqa: E402,F401  (this checkout, or PYTHONPATH's: bench/_checkout.py)

from fedcomp.rates import auc  # noqa: E402
from fedcomp.runner.results import run_many  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=3, help="timed repetitions per K (median)")
    ap.add_argument("--label", default=os.path.basename(os.getcwd()), help="printed first")
    args = ap.parse_args(argv)
    T, seeds = 32768, 8
    for K in (4, 32):
        eta, p = auc.schedule(T, K)

        def runs(n):
            return run_many(auc.PROBLEM, {"num_clients": K}, "localscgdam", seeds=range(seeds),
                            iterations=n, eta=eta, local_steps=p, record_every=128, **auc.HYPER)
        runs(256)                                   # compile or load from the cache
        ts = []
        for _ in range(args.reps):
            t = time.process_time()
            runs(T)
            ts.append(time.process_time() - t)
        ns = statistics.median(ts) / (T * seeds * K) * 1e9
        print(f"{args.label}  K={K}  p={p}  CPU ns per client step: {ns:.0f} "
              f"(median of {args.reps})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
