"""CPU ns per client step of the two largest sweeps of ``fedcomp verify --profile full``
(fedcomp.rates.feddro's ``feddro-lq`` and ``dsfeddro-lq51``: LinearQuadratic, d = 10, d_g = 5,
oracle noise 1, 960 runs each), at their own schedules and record spacing, for T = 16384 and
K = 32 and 2, with records as the sweep takes them and with a record at the end only.

    NUMBA_NUM_THREADS=1 taskset -c 0 env PYTHONPATH=. python bench/sweep_step_cost.py

Run it from a checkout (or with PYTHONPATH a worktree) to compare two versions: one process per
version, each compiling or loading its own kernels first.
"""
from __future__ import annotations

import statistics
import time

import fedcomp
from fedcomp.rates import feddro as SWEEPS
from fedcomp.rates.problems import heterogeneous_linear


def main(reps: int = 3) -> None:
    print("| sweep | T | K | I | records | client steps in the sweep | ns per client step |")
    print("|---|---|---|---|---|---|---|")
    for name in ("feddro-lq", "dsfeddro-lq51"):
        specs = SWEEPS.sweep(name, "full").specs()
        total = sum(s.params["iterations"] * s.problem_args["num_clients"] for s in specs)
        for T, K in ((16384, 32), (16384, 2)):
            s = next(s for s in specs if s.params["iterations"] == T
                     and s.problem_args["num_clients"] == K and s.seed == 0)
            p = heterogeneous_linear(**s.problem_args)
            for label, every in (("sweep's", s.params["record_every"]), ("end only", T)):
                kw = {**s.params, "record_every": every}
                fedcomp.simulate(p, s.algorithm, seed=0, **{**kw, "iterations": 256})  # compile
                ns = []
                for _ in range(reps):
                    t0 = time.process_time()
                    fedcomp.simulate(p, s.algorithm, seed=s.seed, **kw)
                    ns.append((time.process_time() - t0) * 1e9 / (T * K))
                print(f"| {name} | {T} | {K} | {kw['local_steps']} | {label} | {total:.3g} | "
                      f"{statistics.median(ns):.0f} |", flush=True)


if __name__ == "__main__":
    main()
