"""CPU time per client step of ComFedL on RobustFL (the huang.thm2 problem: ``RobustFL.synthetic
(gamma=1, seed=0)``, 10 clients, 5180 rows of 10 features; eta = 0.02, I = 5, outer batch 1), with
metrics recorded every 50 iterations (as the claim records them: each record makes full passes
over the data) and only at the end (the client steps alone), for inner batches 2, 4 and 8; then
the cost of one record alone: 200 iterations recording every iteration, at inner batch 2, less
the same iterations recorded at the end only (minimum and median of the repetitions: on a shared
machine the minimum is the steadier of the two).

Run from the checkout (one numba thread, pinned to a core)::

    taskset -c 1 env NUMBA_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python bench/robustfl_bench.py

To compare two commits, run it alternately in a ``git worktree`` of each and compare the
medians of the same row.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import _checkout  # noqa: E402,F401  (this checkout, or PYTHONPATH's: bench/_checkout.py)

import fedcomp  # noqa: E402
from fedcomp.problems import RobustFL  # noqa: E402

T = 3000


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5, help="timed repetitions per row (median)")
    ap.add_argument("--label", default=os.path.basename(os.getcwd()), help="printed first")
    args = ap.parse_args(argv)
    import numba
    numba.set_num_threads(1)
    p = RobustFL.synthetic(gamma=1.0, seed=0)
    print(f"# {args.label}: ComFedL on RobustFL.synthetic(gamma=1, seed=0), T = {T}, "
          f"CPU ns per client step, median of {args.reps}")
    print("| inner batch | metrics every | ns per client step |")
    print("|---|---|---|")
    for batch in (2, 4, 8):
        kw = dict(batch=batch, outer_batch=1, eta=0.02, local_steps=5)
        fedcomp.simulate(p, "comfedl", iterations=100, record_every=50, **kw)   # compile
        for rec in (50, T):
            times = []
            for _ in range(args.reps):
                t0 = time.process_time()
                fedcomp.simulate(p, "comfedl", iterations=T, record_every=rec, **kw)
                times.append(time.process_time() - t0)
            ns = statistics.median(times) * 1e9 / (T * p.num_clients)
            print(f"| {batch} | {rec if rec < T else 'end only'} | {ns:.0f} |")
    kw = dict(batch=2, outer_batch=1, eta=0.02, local_steps=5)
    every, end = [], []
    for _ in range(2 * args.reps):
        for rec, times in ((1, every), (200, end)):
            t0 = time.process_time()
            fedcomp.simulate(p, "comfedl", iterations=200, record_every=rec, **kw)
            times.append(time.process_time() - t0)
    per = [(a - b) / 200 * 1e6 for a, b in zip(every, end)]
    print(f"one record (phi and grad Phi over all rows, consensus): min {min(per):.0f} us, "
          f"median {statistics.median(per):.0f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
