"""The cost of the recorded metrics against the client step alone, on the conditional (FCSG)
and AUC problems at the quick verify's settings, and on KL-DRO at the full profile's smallest
cell of khanduri.thm4.3 (T = 1024, a record every iteration).

Run::

    taskset -c 1 env NUMBA_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python bench/records_bench.py

For FCSG, FCSG-M, Acc-FCSG-M on ``InvariantLogistic.synthetic()`` (16 clients, d = 10; T =
16000, q = 50) and LocalSCGDAM on :func:`fedcomp.rates.auc.problem` (4 clients; T = 16384,
Remark 1's schedule), CPU nanoseconds per client step with the quick profile's records (200 and
256 per run) and with one record at the end, medians of 5 alternations (the first, compiling,
run left out). Not a test: nothing is asserted about time.
"""
from __future__ import annotations

import statistics
import time

import _checkout  # noqa: E402,F401  (this checkout, or PYTHONPATH's: bench/_checkout.py)


def main() -> int:
    import fedcomp
    from fedcomp.problems.conditional import InvariantLogistic
    from fedcomp.rates.auc import HYPER, problem, schedule
    cond = InvariantLogistic.synthetic()
    auc = problem(4)
    eta_a, q_a = schedule(16384, 4)
    cases = {f"{alg} on InvariantLogistic": (cond, alg, 16000, 16000 // 200, dict(
        eta=0.05, local_steps=50, **({} if alg == "fcsg" else {"beta": 0.3})))
        for alg in ("fcsg", "fcsg-m", "acc-fcsg-m")}
    cases["localscgdam on AUCMinimax"] = (auc, "localscgdam", 16384, 16384 // 256,
                                          dict(eta=eta_a, local_steps=q_a, **HYPER))
    # the full profile's smallest KL-DRO cell of khanduri.thm4.3 (T = 1024: a record every
    # iteration, Phi and grad Phi over all 800 samples each time)
    from fedcomp.rates import feddro
    from fedcomp.runner.spec import build_problem
    kl = next(s for s in feddro.sweep("feddro-kl", "full").specs()
              if s.params["iterations"] == 1024 and s.seed == 0)
    kl_kw = {k: v for k, v in kl.params.items() if k not in ("iterations", "record_every")}
    cases["feddro on KL-DRO (full profile)"] = (build_problem(kl), "feddro", 1024,
                                                kl.params["record_every"], kl_kw)
    times: dict = {}
    for rep in range(6):
        for name, (p, alg, T, rec, kw) in cases.items():
            for every in (rec, T):
                t0 = time.process_time()
                fedcomp.simulate(p, alg, iterations=T, record_every=every, seed=1, **kw)
                ns = (time.process_time() - t0) / (T * p.num_clients) * 1e9
                if rep:
                    times.setdefault((name, every == T), []).append(ns)
    print("| run | ns per client step, the profile's records | at the end only |")
    print("|---|---|---|")
    for name in cases:
        print(f"| {name} | {statistics.median(times[(name, False)]):.0f} | "
              f"{statistics.median(times[(name, True)]):.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
