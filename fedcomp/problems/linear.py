"""The linear-quadratic family: g_k(x) = A_k x + b_k, f(y) = 0.5 ||y||^2, h = 0.

This is the family of the Theorem 4.1 counterexample of Khanduri et al. (FedDRO paper, section
4.1): with linear g_k and quadratic f, one communication round of FedAvg is an affine map, so its
limits have closed forms (:mod:`fedcomp.counterexamples`).

Phi(x) = 0.5 ||Abar x + bbar||^2 with Abar, bbar the client means (the public API, README "Using it").

``huber_radius=R`` replaces f by the Huber function (0.5 ||y||^2 for ||y|| <= R, R ||y|| - R^2/2
beyond), which is Lipschitz with B_f = R and smooth with L_f = 1, as Assumption 3.2 requires; on
runs whose inner values stay in the ball of radius R the two are identical.
"""
from __future__ import annotations

import math

import numpy as np

from fedcomp import _validate as V
from fedcomp.problems.base import Problem


class LinearQuadratic(Problem):
    """g_k(x) = A_k x + b_k, f(y) = 0.5 ||y||^2 (optionally Huber), h = 0.

    Parameters
    ----------
    A : array (K, d_g, d)
    b : array (K, d_g)
    noise : float >= 0
        sigma: the stochastic oracles add independent N(0, sigma^2) noise to every entry of each
        sampled g_k value and of each sampled Jacobian A_k (unbiased oracles).
    huber_radius : float > 0 or None
        If given, f is the Huber function of that radius (Lipschitz outer function).
    """

    kernels = "fedcomp.problems._linear_kernels"
    #: The oracles read a copy of A_k^T (column form, fastest while the matrices stay in the
    #: caches; fedcomp.engine.dense.column_copy) when that copy takes at most this many bytes and
    #: each A_k has at most column_layout_max_entries entries, the rows of A alone beyond (half the
    #: memory streamed per client step). Same numbers either way (fedcomp.engine.dense).
    #: bench/lq_layout.py (exact FedDRO, K = 16, 27 November 2026, AMD EPYC, two runs): columns
    #: 5-14 % faster at d = 10 and 16; at d = 24 and 32 (128 KiB of A) either within 9 %; rows
    #: 13-36 % faster from d = 40 (200 KiB).
    column_layout_max_bytes = 1 << 17
    #: A_k^T v takes the column strips with a column copy, which are the faster form up to
    #: fedcomp.engine.dense.MATVEC_T_ROWS_MIN entries per matrix (its comment has the timings):
    #: None is that bound; a number overrides it (bench/lq_layout.py forces a layout so)
    column_layout_max_entries = None
    structure = "global-inner"
    name = "linear-quadratic"

    def __init__(self, A, b, noise: float = 0.0, huber_radius: float | None = None):
        A = V.finite_array("A", A, ndim=3)
        K, dg, d = A.shape
        if K < 1 or dg < 1 or d < 1:
            raise ValueError(f"A must have shape (K, d_g, d) with all sizes >= 1, got {A.shape}")
        b = V.finite_array("b", b, shape=(K, dg))
        noise = V.real_in("noise", noise, 0.0, math.inf, low_open=False)
        R = math.inf if huber_radius is None else V.real_in("huber_radius", huber_radius, 0.0)
        self.A, self.b = A, b
        self.num_clients, self.inner_dim, self.dim = K, dg, d
        self.noise = noise
        self.huber_radius = huber_radius
        self.Abar = np.ascontiguousarray(A.mean(axis=0))
        self.bbar = np.ascontiguousarray(b.mean(axis=0))
        # data[5]: a fedcomp.engine.dense.ColumnCopy (A_k^T, zero-padded to a multiple of four
        # outputs) for the oracles' column forms, or an empty 1-d array for the row forms. The two
        # are different numba types, so a compiled step holds the code of one.
        from fedcomp.engine import dense   # numba's simd types: at first use
        At = dense.column_copy(A) if self.uses_column_copy(K, dg, d) else dense.no_column_copy()
        self.data = (A, b, np.array([noise, R]), self.Abar, self.bbar, At)

    @classmethod
    def uses_column_copy(cls, K: int, dg: int, d: int) -> bool:
        """Whether an instance of this size gets a column copy (column_layout_max_bytes,
        column_layout_max_entries)."""
        from fedcomp.engine import dense
        entries = (dense.MATVEC_T_ROWS_MIN if cls.column_layout_max_entries is None
                   else cls.column_layout_max_entries)
        return (dense.column_copy_nbytes(K, dg, d) <= cls.column_layout_max_bytes
                and dg * d <= entries)

    def describe(self) -> dict:
        out = super().describe()
        out["huber_radius"] = self.huber_radius
        return out

    def constructor(self) -> tuple[str, dict]:
        """(constructor path, JSON-able arguments) that rebuild this instance exactly (``repr``
        floats round-trip), the form :class:`fedcomp.runner.RunSpec` names a problem by."""
        return ("fedcomp.problems.linear:LinearQuadratic",
                {"A": self.A.tolist(), "b": self.b.tolist(), "noise": float(self.noise),
                 "huber_radius": None if self.huber_radius is None
                 else float(self.huber_radius)})

    def stationary_points(self) -> np.ndarray:
        """A minimiser of Phi (least squares; unique when Abar has full column rank)."""
        return np.linalg.lstsq(self.Abar, -self.bbar, rcond=None)[0]

    @classmethod
    def random(cls, num_clients: int, dim: int, inner_dim: int, heterogeneity: float = 1.0,
               noise: float = 0.0, seed: int = 0) -> "LinearQuadratic":
        """Random instance: A_k = A0 + heterogeneity * N(0, 1/d), b_k = b0 + heterogeneity * N(0,1)."""
        K = V.positive_int("num_clients", num_clients)
        d = V.positive_int("dim", dim)
        dg = V.positive_int("inner_dim", inner_dim)
        het = V.real_in("heterogeneity", heterogeneity, 0.0, math.inf, low_open=False)
        rng = np.random.default_rng(seed)
        A0 = rng.standard_normal((dg, d)) / math.sqrt(d) + np.eye(dg, d)
        b0 = rng.standard_normal(dg)
        A = A0 + het * rng.standard_normal((K, dg, d)) / math.sqrt(d)
        b = b0 + het * rng.standard_normal((K, dg))
        return cls(A, b, noise=noise)
