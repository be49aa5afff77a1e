"""One SHA-256 per problem group over many short runs' recorded arrays, for checking that a
kernel change keeps every result bit for bit: run it on both checkouts and compare the lines.

    for R in DIR_A DIR_B; do (cd /tmp && PYTHONPATH=$R python /path/to/bench/trajectory_hash.py); done

Groups (24-30 iterations each, exact and stochastic oracles, the hyperparameters of
tests/backend_cases.HYPER):

* ``linear``: LinearQuadratic at (d, d_g) = (3, 5), (8, 13), (13, 8), (50, 37), (101, 101),
  (203, 66), each with the column layout and the row layout forced
  (``column_layout_max_bytes`` and ``column_layout_max_entries``), under FedDRO, FCSG-M, Local-SCGD, FedAvg Case I, DS-FedDRO,
  Acc-FCSG-M and Local-SCGDM where they apply (600 arrays at 41a7983);
* ``minibatch``: KL-DRO (d = 7 and 50), chi^2-DRO, AUC and the conditional problem under
  FedDRO, DS-FedDRO, LocalSCGDAM, LocalSGDAM, FCSG-M and Local-SCGD where they apply (130 arrays).

Prints ``group arrays sha256`` per group. Compiling every pair takes a few minutes cold.
"""
from __future__ import annotations

import hashlib
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tests"))

import fedcomp  # noqa: E402
from backend_cases import HYPER, accepts  # noqa: E402

P = fedcomp.problems


def _digest(runs) -> tuple[int, str]:
    h, n = hashlib.sha256(), 0
    for problem, alg, iterations, local_steps in runs:
        if not accepts(fedcomp.algorithms.get(alg), problem):
            continue
        for stochastic in (False, True):
            r = fedcomp.simulate(problem, alg, iterations=iterations, eta=0.02,
                                 local_steps=local_steps, seed=1, stochastic=stochastic,
                                 record_every=1, **HYPER[alg])
            for a in vars(r).values():
                if isinstance(a, np.ndarray) and a.dtype.kind == "f":
                    h.update(np.ascontiguousarray(a).tobytes())
                    n += 1
    return n, h.hexdigest()


def linear_runs():
    algs = ("feddro", "fcsg-m", "local-scgd", "fedavg-case1", "ds-feddro", "acc-fcsg-m",
            "local-scgdm")
    LQ = P.LinearQuadratic
    default = LQ.column_layout_max_bytes, LQ.column_layout_max_entries
    try:
        for d, dg in ((3, 5), (8, 13), (13, 8), (50, 37), (101, 101), (203, 66)):
            for columns in (True, False):
                LQ.column_layout_max_bytes = LQ.column_layout_max_entries = (
                    (1 << 40) if columns else 0)
                p = P.LinearQuadratic.random(4, d, dg, heterogeneity=1.0, noise=0.1, seed=d)
                for alg in algs:
                    yield p, alg, 30, 3
    finally:
        LQ.column_layout_max_bytes, LQ.column_layout_max_entries = default


def minibatch_runs():
    probs = (
        P.KLDRO.synthetic(lam=0.7, batch_size=5, num_clients=3, samples_per_client=12, dim=7,
                          seed=3, feature_shift=0.5, size_skew=0.3),
        P.KLDRO.synthetic(dim=50, num_clients=4, batch_size=16, seed=2),
        P.Chi2DRO.synthetic(lam=2.0, batch_size=6, num_clients=3, samples_per_client=12, dim=9,
                            seed=3),
        P.AUCMinimax.synthetic(num_clients=3, dim=9, samples_per_client=20, positive_ratio=0.3,
                               rho=0.3, batch_size=6, seed=2),
        P.InvariantLogistic.synthetic(num_clients=3, dim=9, inner_batch=3, seed=1),
    )
    for p in probs:
        for alg in ("feddro", "ds-feddro", "localscgdam", "localsgdam", "fcsg-m", "local-scgd"):
            yield p, alg, 24, fedcomp.algorithms.get(alg).fixed_local_steps or 3


def main() -> None:
    for name, runs in (("linear", linear_runs()), ("minibatch", minibatch_runs())):
        n, digest = _digest(runs)
        print(name, n, digest, flush=True)


if __name__ == "__main__":
    main()
