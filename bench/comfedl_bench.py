"""ComFedL's client step on MAMLQuadratic (huang.thm1's problem: 10 regression tasks, d = 5) and
on RobustFL (huang.thm2's: ``RobustFL.synthetic()``, 10 clients, d = 10), CPU nanoseconds per
client step at inner = outer batch b = 1, 8, 64 (RobustFL: 8, 64): what drawing the support
batch once for the inner value and its Jacobian (the protocol's ``comp_grad_b``) saves.

Run (in this checkout, and in a ``git worktree`` of the commit to compare with)::

    taskset -c 1 env NUMBA_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python bench/comfedl_bench.py

T = 4000, tau = 5, one record at the end; medians of 5 repetitions (a first, compiling one left
out). A run that diverges stops the bench (its time would not be a step's). Not a test: nothing
is asserted about time.
"""
from __future__ import annotations

import statistics
import time

import _checkout  # noqa: E402,F401  (this checkout, or PYTHONPATH's: bench/_checkout.py)


def main() -> int:
    import fedcomp
    from fedcomp.problems import MAMLQuadratic, RobustFL
    # (problem, batches): RobustFL's exp(loss / gamma) diverges at b = 1 with this step size
    problems = {"MAMLQuadratic": (MAMLQuadratic.random(num_clients=10, dim=5, heterogeneity=1.0,
                                                       alpha=0.1, noise=0.5, seed=0), (1, 8, 64)),
                "RobustFL": (RobustFL.synthetic(), (8, 64))}
    T, res = 4000, {}
    for rep in range(6):
        for name, (p, batches) in problems.items():
            for b in batches:
                t0 = time.process_time()
                r = fedcomp.simulate(p, "comfedl", iterations=T, eta=0.02, local_steps=5,
                                     record_every=T, seed=1, batch=b, outer_batch=b)
                if r.diverged_at is not None:
                    raise SystemExit(f"{name}, b = {b}: the run diverged at iteration "
                                     f"{r.diverged_at}; its time would not be a step's")
                if rep:
                    res.setdefault((name, b), []).append(
                        (time.process_time() - t0) / (T * p.num_clients) * 1e9)
    print("| problem | b = b1 | ns per client step |")
    print("|---|---|---|")
    for (name, b), v in res.items():
        print(f"| {name} | {b} | {statistics.median(v):.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
