"""Test problems for rate measurements whose global objective does not depend on K.

To measure an exponent in K the objective Phi must be the same for every K; only the split over
clients may change. :func:`heterogeneous_linear` draws a base pair (A0, b0) from ``seed`` alone,
then K client deviations (D_k, e_k) and centres them (subtracting their client mean), so that
Abar = A0 and bbar = b0 for every K: Phi(x) = f(A0 x + b0) is fixed, the clients are heterogeneous
(Assumption 3.4 with Delta_g of order ``heterogeneity``) and the oracles are noisy (Assumption 3.3
with sigma = ``noise``). f is the Huber function of radius ``huber_radius`` (Lipschitz, as
Assumption 3.2 requires; equal to 0.5 ||y||^2 inside the radius).
"""
from __future__ import annotations

import math

import numpy as np

from fedcomp import _validate as V
from fedcomp.problems import LinearQuadratic


def heterogeneous_linear(num_clients: int, dim: int = 10, inner_dim: int = 5,
                         heterogeneity: float = 1.0, noise: float = 1.0, seed: int = 0,
                         huber_radius: float | None = 20.0,
                         jacobian_heterogeneity: bool = True) -> LinearQuadratic:
    """LinearQuadratic with Abar = A0, bbar = b0 independent of K (module docstring).

    Parameters
    ----------
    num_clients : int >= 1
    dim, inner_dim : int >= 1
    heterogeneity : float >= 0
        Scale of the centred client deviations.
    noise : float >= 0
        Oracle noise sigma.
    seed : int >= 0
    huber_radius : float > 0 or None
    jacobian_heterogeneity : bool
        False: every client has the Jacobian A0 and only b_k differs, so that
        sup_x ||g_k(x) - g(x)|| = heterogeneity ||e_k|| is finite (Assumption 5.1 of the FedDRO
        paper, which DS-FedDRO's Theorem 5.2 needs; with differing A_k it is infinite on R^d).
        The same random draws are made either way.
    """
    K = V.positive_int("num_clients", num_clients)
    d = V.positive_int("dim", dim)
    dg = V.positive_int("inner_dim", inner_dim)
    het = V.real_in("heterogeneity", heterogeneity, 0.0, math.inf, low_open=False)
    seed = V.seed_value("seed", seed)
    base = np.random.default_rng([seed, 0])
    A0 = base.standard_normal((dg, d)) / math.sqrt(d) + np.eye(dg, d)
    b0 = base.standard_normal(dg)
    dev = np.random.default_rng([seed, 1, K])
    D = dev.standard_normal((K, dg, d)) / math.sqrt(d)
    e = dev.standard_normal((K, dg))
    D -= D.mean(axis=0)
    e -= e.mean(axis=0)
    if not jacobian_heterogeneity:
        D[:] = 0.0
    return LinearQuadratic(A0 + het * D, b0 + het * e, noise=noise, huber_radius=huber_radius)
