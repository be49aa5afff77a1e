"""DS-FedDRO's server rates at I = 1 against its client rates rescaled by them (the reason
``khanduri.sec6.ds-i1`` gives for being not checked).

At I = 1 a round of DS-FedDRO moves x by -gamma_x eta mean_k d_k, the client step rescaled by
gamma_x; its y-step differs from that of DS-FedDRO with server rates 1 and client rates
(gamma_x eta, gamma_y beta) only in where g_k is evaluated. This prints, for several instances
(LinearQuadratic.random(K=4, d=3, d_g=2, seed s), exact oracles, eta = beta = 0.1, server rates
1.3) and client heterogeneity h, the relative distance ||x_A - x_B|| / ||x_A - x^0|| of the two
runs' models after T iterations: not zero, and present at h = 0 (identical clients) too.

Run::

    .venv/bin/python bench/ds_rescaling.py [--rounds 10 50] [--seeds 6]
"""
from __future__ import annotations

import argparse
import warnings

import numpy as np


def distance(h: float, seed: int, T: int, rate: float = 1.3, eta: float = 0.1) -> float:
    import fedcomp
    from fedcomp.problems import LinearQuadratic
    p = LinearQuadratic.random(4, 3, 2, heterogeneity=h, seed=seed)
    kw = dict(iterations=T, local_steps=1, stochastic=False)
    a = fedcomp.simulate(p, "ds-feddro", eta=eta, beta=eta, server_lr_x=rate, server_lr_y=rate,
                         **kw)
    b = fedcomp.simulate(p, "ds-feddro", eta=rate * eta, beta=rate * eta, server_lr_x=1.0,
                         server_lr_y=1.0, **kw)
    return float(np.linalg.norm(a.x_bar - b.x_bar) / np.linalg.norm(a.x_bar))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, nargs="+", default=[10, 50])
    ap.add_argument("--seeds", type=int, default=6)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    hs = (0.0, 0.5, 1.0, 2.0)
    print("rounds seed " + " ".join(f"h={h:<6g}" for h in hs))
    for T in args.rounds:
        for s in range(args.seeds):
            print(f"{T:6d} {s:4d} " + " ".join(f"{distance(h, s, T):8.3g}" for h in hs))


if __name__ == "__main__":
    main()
