"""ComFedL's robust-FL comparison (section 5.1, Figure 3) on a synthetic stand-in.

The paper trains multi-class logistic regression on MNIST split over 10 workers (one with 5000
images, nine with 20) and compares ComFedL (gamma = 0.5; the journal: 0.2) with DRFL (DRFA,
lambda step 8e-2), q-FedAvg (q = 0.2) and FedAvg, all with learning rate 0.01 and tau = 5,
reporting average and worst-worker accuracy. Here the same split and hyperparameters run on
:meth:`fedcomp.problems.RobustFL.synthetic` (binary logistic regression, client-specific
teachers): this is *not* the paper's data, so it cannot confirm or refute Figure 3; it shows what
each algorithm optimises (ComFedL: problem (6); the baselines: their own objectives) in terms of
the average and the worst client loss and accuracy, with the engine's exact measures.

:func:`compare` returns a tidy table (one row per algorithm and seed).
"""
from __future__ import annotations

import numpy as np

import fedcomp

#: the paper's settings (conference section 5.1)
PAPER_SETTINGS = {
    "comfedl": {},
    "drfl": {"lambda_lr": 0.08},
    "q-fedavg": {"q": 0.2},
    "fedavg": {},
}


def client_metrics(problem, x) -> dict:
    """Average and worst client loss and accuracy (on each client's own data) at x."""
    F, L, off = problem.data[0], problem.data[1], problem.data[2]
    losses = problem.client_losses(x)
    acc = []
    for k in range(problem.num_clients):
        a, s = F[off[k]:off[k + 1]], L[off[k]:off[k + 1]]
        acc.append(float(np.mean(np.sign(a @ x + 1e-300) == s)))
    acc = np.array(acc)
    return {"avg_loss": float(losses.mean()), "worst_loss": float(losses.max()),
            "avg_acc": float(acc.mean()), "worst_acc": float(acc.min()),
            "phi": problem.value(x), "minimax_value": problem.minimax_value(x)}


def compare(problem=None, iterations: int = 5000, eta: float = 0.01, tau: int = 5,
            batch: int = 10, seeds=range(3), settings=None):
    """Run every algorithm of `settings` (default :data:`PAPER_SETTINGS`) on `problem` (default
    the 5000 / 20 split with gamma = 0.5) and return a pandas DataFrame of
    :func:`client_metrics` at the final server model, plus ||grad Phi||^2."""
    import pandas as pd
    from fedcomp.problems import RobustFL
    p = problem if problem is not None else RobustFL.synthetic(gamma=0.5, seed=0)
    settings = PAPER_SETTINGS if settings is None else settings
    rows = []
    for name, hyper in settings.items():
        for s in seeds:
            r = fedcomp.simulate(p, name, iterations=iterations, eta=eta, local_steps=tau,
                                 seed=s, batch=batch, record_every=iterations, **hyper)
            row = {"algorithm": name, "seed": s, "diverged": r.diverged,
                   "grad_norm_sq": float(r.grad_norm_sq[-1]), "rounds": r.rounds,
                   "floats_sent": r.floats_sent}
            row.update(client_metrics(p, r.x_bar))
            rows.append(row)
    return pd.DataFrame(rows)
