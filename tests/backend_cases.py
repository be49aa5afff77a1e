"""Tiny problems and valid hyperparameters for every registered algorithm: the cases of the
registry-wide backend equivalence test and of the bounds-checked run (tests/test_backends.py).

``HYPER`` must name every algorithm (a new algorithm without an entry fails the tests);
``pairs(name)`` lists the tiny problems the algorithm accepts (structure and oracles).
"""
import numpy as np

import fedcomp

HYPER = {
    "acc-fcsg-m": dict(beta=0.5, init_batch=2.0),
    "coda": dict(prox_coef=0.1, stage_rounds=2.0, stage_decay=3.0),
    "comfedl": dict(clients_per_round=2.0, batch=3.0, outer_batch=2.0),
    "drfl": dict(clients_per_round=2.0, batch=3.0, lambda_lr=0.08),
    "ds-feddro": dict(beta=0.3, server_lr_x=1.3, server_lr_y=1.2),
    "fcsg": dict(init_batch=2.0),
    "fcsg-m": dict(beta=0.5, init_batch=2.0),
    "fedavg": dict(clients_per_round=2.0, batch=3.0),
    "fedavg-case1": {}, "fedavg-case2": {}, "fedavg-modified": {},
    "feddro": dict(beta=0.3), "feddro-literal": dict(beta=0.3),
    "feddro-independent": dict(beta=0.3),
    "local-scgd": dict(beta=0.4), "local-scgdm": dict(beta=0.4, momentum=0.3),
    "localscgdam": dict(gamma_x=1.0, gamma_y=0.5, alpha=2.0, beta_x=3.0, beta_y=2.0),
    "localsgdam": dict(gamma_x=1.0, gamma_y=0.5, beta_x=3.0, beta_y=2.0),
    "localsgdm": dict(momentum=0.9),
    "mbsgd": {},
    "q-fedavg": dict(clients_per_round=2.0, batch=3.0, q=0.2),
}


def problems():
    """One tiny instance of every problem family (name -> problem)."""
    P = fedcomp.problems
    return {
        "linear": P.LinearQuadratic.random(3, 3, 4, noise=0.3, seed=1),
        "kl-dro": P.KLDRO.synthetic(lam=0.7, batch_size=4, num_clients=3, samples_per_client=12,
                                    dim=3, seed=3, feature_shift=0.5, size_skew=0.3),
        "chi2-dro": P.Chi2DRO.synthetic(lam=2.0, batch_size=4, num_clients=3,
                                        samples_per_client=12, dim=3, seed=3),
        "auc": P.AUCMinimax.synthetic(num_clients=3, dim=3, samples_per_client=20,
                                      positive_ratio=0.3, rho=0.3, batch_size=4, seed=2),
        "conditional": P.InvariantLogistic.synthetic(num_clients=3, dim=3, inner_batch=3,
                                                     seed=1),
        "robust-fl": P.RobustFL.synthetic(sizes=(20, 8, 6), dim=3, seed=1),
        "maml": P.MAMLQuadratic.random(num_clients=3, dim=3, seed=1),
        "portfolio": P.MeanVariancePortfolio.synthetic(num_clients=3, assets=3,
                                                       samples_per_client=15, seed=1),
        # numba only (no torch form): in the bounds-checked run, not in the backend comparison
        "logcosh-minimax": P.LogCoshMinimax([[1.0, 0.5], [3.0, 1.5], [2.0, 1.0]],
                                            [[0.0, 0.1], [2.0, -0.3], [1.0, 0.5]], mu=1.0,
                                            noise=0.2),
    }


def accepts(alg, problem) -> bool:
    return problem.structure in alg.structures and set(alg.requires) <= problem.provides()


def pairs(name, cases=None):
    """(problem name, problem) of every tiny problem `name` runs on."""
    alg = fedcomp.algorithms.get(name)
    return [(pn, p) for pn, p in (cases or problems()).items() if accepts(alg, p)]


def local_steps(name) -> int:
    return fedcomp.algorithms.get(name).fixed_local_steps or 2


def x0(problem):
    return np.linspace(-0.3, 0.4, problem.dim)
