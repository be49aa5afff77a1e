"""Step sizes, momentum, server step sizes and local steps as functions of (T, K), straight from
the theorems of Khanduri et al. (FedDRO paper). The theorems fix only the *orders*; the free
constants (``c``, ``c_b``, ``c_I``, ...) are ours and documented here
(:mod:`fedcomp.theory.schedules` computes the printed constants from certified problem
constants).

* FedDRO, Theorem 4.3: eta = c sqrt(K/T), beta = c_b eta (the theorem: beta = 4 B_g^4 L_f^2 eta),
  I = c_I T^(1/4) / K^(3/4).
* DS-FedDRO, Theorem 5.2: eta = c / sqrt(I T), beta = c_b eta, server_lr_x = gamma_x =
  c_x sqrt(K/T), server_lr_y = gamma_y = c_y gamma_x, I = c_I sqrt(T/K).
* Modified FedAvg, Theorem 4.2 ("there exists eta", 1 <= I <= O(T^(1/4))): eta = c sqrt(K/T),
  I = c_I T^(1/4).

Rounding: I = max(1, round(.)) (an integer number of local steps); beta = min(1, c_b eta) (the
algorithms accept beta in (0, 1]). The rounding of I is visible as steps in rounds-versus-T plots.

Observation recorded for the report (see :mod:`fedcomp.rates.checks`): with Theorem 5.2's
schedule, the sum over iterations of the effective step gamma_x * eta is
T * c_x sqrt(K/T) * c / sqrt(I T) = c c_x K^(3/4) / (sqrt(c_I) T^(1/4)), which tends to 0 as T
grows:
the model moves less and less in total, so E||grad Phi(xbar)||^2 cannot tend to 0 from an
x^0 with grad Phi(x^0) != 0. The check measures the schedule as printed.
"""
from __future__ import annotations

import math

from fedcomp import _validate as V


def _TK(T, K):
    return V.positive_int("T", T), V.positive_int("K", K)


def _round_I(v: float) -> int:
    return max(1, int(round(v)))


def feddro(T, K, c: float = 0.5, c_b: float = 1.0, c_I: float = 2.0) -> dict:
    """Theorem 4.3's schedule: simulate keyword arguments for FedDRO at (T, K)."""
    T, K = _TK(T, K)
    eta = c * math.sqrt(K / T)
    return {"eta": eta, "beta": min(1.0, c_b * eta),
            "local_steps": _round_I(c_I * T ** 0.25 / K ** 0.75)}


def ds_feddro(T, K, c: float = 1.0, c_b: float = 1.0, c_x: float = 1.0, c_y: float = 1.0,
              c_I: float = 1.0) -> dict:
    """Theorem 5.2's schedule: simulate keyword arguments for DS-FedDRO at (T, K)."""
    T, K = _TK(T, K)
    I = _round_I(c_I * math.sqrt(T / K))
    eta = c / math.sqrt(I * T)
    gx = c_x * math.sqrt(K / T)
    return {"eta": eta, "beta": min(1.0, c_b * eta), "server_lr_x": gx,
            "server_lr_y": c_y * gx, "local_steps": I}


def fedavg_modified(T, K, c: float = 0.5, c_I: float = 1.0) -> dict:
    """Theorem 4.2's setting: eta = c sqrt(K/T), I = c_I T^(1/4)."""
    T, K = _TK(T, K)
    return {"eta": c * math.sqrt(K / T), "local_steps": _round_I(c_I * T ** 0.25)}


SCHEDULES = {"feddro": feddro, "ds-feddro": ds_feddro, "fedavg-modified": fedavg_modified}


def theory_schedule(algorithm: str):
    """The schedule function of `algorithm` defined here (free constants at their defaults).

    :func:`fedcomp.theory.schedules.schedule_fn` computes the same orders with the printed
    constants from a problem's certified constants (e.g. FedDRO's beta = 4 B_g^4 L_f^2 eta);
    the rate checks use the free-constant form so that one schedule serves every problem.
    """
    if algorithm not in SCHEDULES:
        raise ValueError(f"no schedule for algorithm {algorithm!r}; known: {sorted(SCHEDULES)}")
    return SCHEDULES[algorithm]
