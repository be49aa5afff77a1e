"""ComFedL's client step on MAMLQuadratic (huang.thm1's problem: 10 regression tasks, d = 5),
CPU nanoseconds per client step at inner = outer batch b = 1, 8, 64: what drawing the support
batch once for the inner value and its Jacobian (the protocol's ``comp_grad_b``) saves.

Run (in this checkout, and in a ``git worktree`` of the commit to compare with)::

    taskset -c 1 env NUMBA_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python bench/comfedl_bench.py

T = 4000, tau = 5, one record at the end; medians of 5 repetitions (a first, compiling one left
out). Not a test: nothing is asserted about time.
"""
from __future__ import annotations

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main() -> int:
    import fedcomp
    from fedcomp.problems import MAMLQuadratic
    p = MAMLQuadratic.random(num_clients=10, dim=5, heterogeneity=1.0, alpha=0.1, noise=0.5,
                             seed=0)
    T, res = 4000, {}
    for rep in range(6):
        for b in (1, 8, 64):
            t0 = time.process_time()
            fedcomp.simulate(p, "comfedl", iterations=T, eta=0.02, local_steps=5, record_every=T,
                             seed=1, batch=b, outer_batch=b)
            if rep:
                res.setdefault(b, []).append((time.process_time() - t0) / (T * 10) * 1e9)
    print("| b = b1 | ns per client step |")
    print("|---|---|")
    for b, v in res.items():
        print(f"| {b} | {statistics.median(v):.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
