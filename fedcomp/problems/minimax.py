"""A compositional min-max problem of the AUC paper's form (Zhang et al., "Federated Compositional
Deep AUC Maximization", NeurIPS 2023, problem (4)) that meets its Assumptions 1-4 *globally*
and whose clients differ in both their inner Jacobians and their outer gradients.

What it is (x in R^d, d_g = d, a scalar dual y; elementwise products)::

    g_k(x) = a_k * x,       f_k(z, y) = sum_i log cosh(z_i - b_{k,i}) - (mu/2) y^2,

    min_x max_y (1/K) sum_k f_k((1/K) sum_k' g_k'(x), y)                         (AUC paper (4))

Closed forms (abar = (1/K) sum_k a_k; the maximiser does not depend on x):

* y*(x) = 0;  Phi(x) = (1/K) sum_k sum_i log cosh(abar_i x_i - b_{k,i});
* grad Phi(x)_i = abar_i (1/K) sum_k tanh(abar_i x_i - b_{k,i})   (Danskin; Jbar^T times the mean
  outer gradient);
* the client-product direction that LocalSCGDAM's (12) averages over clients, with h and y at
  their targets g(x) and y*(x),  D(x)_i = (1/K) sum_k a_{k,i} tanh(abar_i x_i - b_{k,i})
  (:meth:`LogCoshMinimax.client_product_gradient`);
* D - grad Phi = (1/K) sum_k (a_k - abar) * (tanh(abar x - b_k) - mean_k' tanh(abar x - b_k')),
  the covariance of the inner Jacobians and the outer gradients across clients: zero when all
  a_k are equal or all b_k are equal, nonzero in general (for K = 2 whenever a_1 != a_2 and
  b_1 != b_2, away from isolated points; for K >= 3 it can vanish identically, e.g.
  a = (1, 2, 3), b = (0, 1, 0)).

For K = 2 and d = 1 both roots have closed forms: grad Phi = 0 at abar x* = (b_1 + b_2)/2 (tanh
is odd); D = 0 where t = tanh(abar x_D - b_1) solves -a_1 c t^2 + (a_1 + a_2) t - a_2 c = 0 with
c = tanh(b_2 - b_1) (the root in (-1, 1)). In general :meth:`stationary_point` and
:meth:`client_product_root` solve one monotone scalar equation per coordinate (to machine
precision).

Constants of Assumptions 1-4 (:meth:`LogCoshMinimax.zhang_constants`), global, for sigma = 0:
C_f = sqrt(d) (|tanh| <= 1), L_f = max(1, mu) (sech^2 <= 1; the y-gradient -mu y), C_g = max |a_{k,i}|
(spectral norm of diag(a_k)), L_g = 0 (g linear: any L_g > 0 the assumption asks for holds),
mu = mu; with sigma > 0 the second moments grow (C_f = sqrt(d (1 + sigma^2)),
C_g = max |a_{k,i}| + sigma sqrt(d)) and the variances of Assumption 3 are d sigma^2 (sigma^2 for
the y-gradient).

Why: the AUC instance of :mod:`fedcomp.rates.auc` has a flat direction, so the root of D that
LocalSCGDAM's exact dynamics approach is itself stationary there and Theorem 1's rate cannot see
the client-product bias (claim ``fedcomp.localscgdam-bias``). Here, with for instance a = (1, 3),
b = (0, 2), mu = 1 (d = 1, K = 2), x* = 0.5 while x_D = 0.839 with ||grad Phi(x_D)||^2 = 0.387:
a floor under (1/T) sum_t ||grad Phi(xbar_t)||^2 that Theorem 1 + Remark 1 (O(1/sqrt(KT)))
exclude (claim ``zhang.thm1.heterogeneous``, measured by :func:`fedcomp.rates.auc.heterogeneous_sweep`).

Oracles: :mod:`fedcomp.problems._minimax_kernels` (exact, or with Gaussian noise of scale
``noise`` on every sampled value, Jacobian entry and outer gradient).
"""
from __future__ import annotations

import math

import numpy as np

from fedcomp import _validate as V
from fedcomp.problems.base import Problem


def _per_client(name: str, value) -> np.ndarray:
    """(K, d) array from a list of K rows (or a flat list of K scalars, d = 1)."""
    try:
        arr = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be an array of real numbers of shape (K, d) (or (K,) for "
                         f"d = 1): {exc}") from None
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"{name} must have shape (K, d) with K >= 1 and d >= 1 (or (K,) for "
                         f"d = 1), got shape {np.shape(value)}")
    return V.finite_array(name, arr, shape=arr.shape)


def _monotone_root(fn, lo: float, hi: float) -> float:
    """The root of an increasing scalar function on [lo, hi] (fn(lo) <= 0 <= fn(hi))."""
    from scipy.optimize import brentq
    flo, fhi = fn(lo), fn(hi)
    if flo == 0.0:
        return lo
    if fhi == 0.0:
        return hi
    return float(brentq(fn, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500))


class LogCoshMinimax(Problem):
    """g_k(x) = a_k * x, f_k(z, y) = sum_i log cosh(z_i - b_{k,i}) - (mu/2) y^2 (module docstring).

    Parameters
    ----------
    a : array (K, d), or (K,) for d = 1
        The inner maps' slopes a_k (g_k(x) = a_k * x elementwise).
    b : array of the same shape as a
        The outer functions' centres b_k.
    mu : float > 0
        Strong concavity of f_k in y (Assumption 4).
    noise : float >= 0
        sigma: the sampled oracles add independent N(0, sigma^2) noise to each entry of g_k's
        value, of its Jacobian's diagonal and of both outer gradients; 0 = exact samples.
    """

    kernels = "fedcomp.problems._minimax_kernels"
    structure = "minimax"
    name = "logcosh-minimax"

    def __init__(self, a, b, mu: float = 1.0, noise: float = 0.0):
        A = _per_client("a", a)
        B = _per_client("b", b)
        if B.shape != A.shape:
            raise ValueError(f"b must have the shape of a, {A.shape} (one row b_k per client), "
                             f"got {B.shape}")
        self.mu = V.real_in("mu", mu, 0.0)
        self.noise = V.real_in("noise", noise, 0.0, math.inf, low_open=False)
        self.a, self.b = A, B
        self.num_clients, self.dim = A.shape
        self.inner_dim = self.dim
        self.abar = np.ascontiguousarray(A.mean(axis=0))
        self.data = (A, B, np.array([self.mu, self.noise]), self.abar)

    def constructor(self) -> tuple[str, dict]:
        """(constructor path, JSON-able arguments) that rebuild this instance (the form
        :class:`fedcomp.runner.RunSpec` names a problem by)."""
        return ("fedcomp.problems.minimax:LogCoshMinimax",
                {"a": self.a.tolist(), "b": self.b.tolist(), "mu": float(self.mu),
                 "noise": float(self.noise)})

    def describe(self) -> dict:
        out = super().describe()
        out.update({"a": self.a.tolist(), "b": self.b.tolist(), "mu": self.mu})
        return out

    # --- exact measures of the min-max -------------------------------------------------------
    def dual_opt(self, x) -> float:
        """y*(x) = argmax_y F(g(x), y) = 0 for every x."""
        self._check_x(x)
        return 0.0

    def minimax_value(self, u, y: float) -> float:
        """F(u, y) = (1/K) sum_k f_k(u, y) at an inner value u (``problem.inner(x)`` for g(x))."""
        u = V.finite_array("u", u, shape=(self.inner_dim,))
        yv = np.array([V.real_in("y", y)])
        return float(self.kernel_module.minimax_value(self.data, u, yv))

    def client_product_gradient(self, x) -> np.ndarray:
        """D(x) = (1/K) sum_k J_g_k(x)^T grad_z f_k(g(x), y*(x)) = (1/K) sum_k a_k * tanh(abar * x
        - b_k), exact: the mean over clients of LocalSCGDAM's x-direction (12) with its
        estimates at their targets (the method of :class:`fedcomp.problems.AUCMinimax` of the
        same name). grad Phi(x) = abar * (1/K) sum_k tanh(abar * x - b_k) instead; the two
        coincide when all a_k are equal or all b_k are equal."""
        out = np.zeros(self.dim)
        self.kernel_module.client_product(self.data, self._check_x(x), out)
        return out

    def _roots(self, weights, flat_ok: bool) -> np.ndarray:
        """Per coordinate i, the x_i with sum_k weights[k, i] tanh(abar_i x_i - b_{k,i}) = 0, for
        weights of one sign per coordinate (the sum is then monotone in abar_i x_i, its root in
        [min_k b_{k,i}, max_k b_{k,i}]). A coordinate with abar_i = 0 does not move the sum: with
        `flat_ok` (grad Phi, whose coordinate i is then 0 for every x_i) 0 is returned there,
        otherwise ValueError (D_i is then a nonzero constant or identically 0)."""
        x = np.zeros(self.dim)
        for i in range(self.dim):
            w, bi = weights[:, i], self.b[:, i]
            sign = 1.0 if np.all(w >= 0) else -1.0
            if np.any(sign * w < 0) or not np.any(w != 0):
                raise ValueError(f"coordinate {i}: the weights a_k[{i}] must share one sign and "
                                 f"not all vanish for the root to be unique, got {w.tolist()}")
            if self.abar[i] == 0.0:
                if flat_ok:
                    continue
                raise ValueError(f"coordinate {i}: abar_{i} = 0, so this coordinate of the "
                                 f"sum does not depend on x and has no isolated root")
            u = _monotone_root(lambda s: float(np.sum(sign * w * np.tanh(s - bi))),
                               float(bi.min()), float(bi.max()))
            x[i] = u / self.abar[i]
        return x

    def stationary_point(self) -> np.ndarray:
        """x* with grad Phi(x*) = 0 (Phi is convex in each abar_i x_i: the minimiser); for K = 2
        abar x* = (b_1 + b_2) / 2. Coordinates with abar_i = 0 are flat (0 returned)."""
        return self._roots(np.ones_like(self.a), flat_ok=True)

    def client_product_root(self) -> np.ndarray:
        """x_D with D(x_D) = 0, the point LocalSCGDAM's exact dynamics approach (with h, y at
        their targets). Needs the a_{k,i} of each coordinate to share one sign (ValueError
        otherwise: D may then have several roots or none)."""
        return self._roots(self.a, flat_ok=False)

    # --- constants of Assumptions 1-4 --------------------------------------------------------
    def zhang_constants(self) -> dict:
        """Constants of the AUC paper's Assumptions 1-4 for this problem (module docstring),
        global (for all z, y, x); Lemma 2's L_Phi from them is
        :func:`fedcomp.theory.constants.auc_lemma2`.

        Returns
        -------
        dict with C_g, C_f, L_f, L_g, mu and the variances sigma_f, sigma_g, sigma_g_prime of
        Assumption 3 (0 for exact oracles).
        """
        d, s = self.dim, self.noise
        C_g = float(np.max(np.abs(self.a))) + s * math.sqrt(d)
        if C_g == 0.0:
            raise ValueError("a: every a_k is 0 and noise is 0, so C_g = 0, which Assumption 2 "
                             "(C_g > 0) excludes; give some a_k != 0")
        C_f = math.sqrt(d * (1.0 + s * s))
        L_f = max(1.0, self.mu)
        L_g = 0.0
        return {"C_g": C_g, "C_f": C_f, "L_f": L_f, "L_g": L_g, "mu": self.mu,
                "sigma_f": s * math.sqrt(d), "sigma_g": s * math.sqrt(d),
                "sigma_g_prime": s * math.sqrt(d)}
