"""The largest client norm of every state variable, iteration by iteration, of one arm of a
neural experiment: which quantity blows up first when a run diverges, and whether a smaller step
keeps it finite (a diagnosis, not a benchmark).

Run::

    OMP_NUM_THREADS=1 PYTHONPATH=. python bench/neural_state_norms.py \\
        localscgdam-fashionmnist localscgdam/p=16 --seed 5 --iterations 12 [--eta-scale 0.5]

Prints ``t=..: x ||.||, y ||.||, ...`` (the maximum over clients of each state row's norm, after
t iterations) and the iteration at which the run diverged, if it did. ``--eta-scale`` multiplies
the arm's step eta (every other hyperparameter as the experiment defines it).
"""
from __future__ import annotations

import argparse
import sys

import _checkout  # noqa: E402,F401  (this checkout, or PYTHONPATH's: bench/_checkout.py)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("experiment")
    ap.add_argument("arm")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--iterations", type=int, default=12)
    ap.add_argument("--eta-scale", type=float, default=1.0)
    ap.add_argument("--data-dir", default=None)
    a = ap.parse_args()
    from fedcomp.engine import torch_backend as TB
    from fedcomp.neural import algorithms as NA
    from fedcomp.neural import experiments as E
    arms = E.get(a.experiment).build(False, "cpu", a.seed, a.data_dir, a.iterations)
    arm = next((x for x in arms if x.label == a.arm), None)
    if arm is None:
        sys.exit(f"no arm {a.arm!r}; the arms are {[x.label for x in arms]}")
    eta = arm.eta * a.eta_scale
    print(f"{a.experiment} {a.arm} seed {a.seed}: {arm.algorithm}, eta {eta:g}, "
          f"p {arm.local_steps}, {arm.hyper}")
    inner = TB.run

    def traced(alg, problem, T, eta_, hyper, I, x0, y, base, exact, record, every, **kw):
        def norms(t, state, buf, rounds):
            print(f"t={t}: " + ", ".join(f"{n} {float(v.norm(dim=1).max()):.3g}"
                                         for n, v in state.items()), flush=True)
        return inner(alg, problem, T, eta_, hyper, I, x0, y, base, exact, norms, 1, **kw)

    TB.run = traced
    try:
        res = NA.run(arm.problem, arm.algorithm, a.iterations, eta, arm.local_steps, x0=arm.x0,
                     seed=a.seed, evaluate=None, eval_every=1, progress=False, **arm.hyper)
    finally:
        TB.run = inner
    print("diverged at iteration", res.diverged_at if res.diverged_at is not None else "never")


if __name__ == "__main__":
    main()
