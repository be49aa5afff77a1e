"""Federated conditional stochastic optimisation: the invariant logistic regression of
Wu et al., "Federated Conditional Stochastic Optimization" (NeurIPS 2023; FCSG paper), problem (1)
and section 5.1 (after Hu, Chen and He 2020).

    min_x Phi(x) = (1/K) sum_k E_{xi=(a,b)} [ log(1 + exp(-b E_{eta|xi}[eta . x])) ] + h(x),
    h(x) = lam sum_i gam x_i^2 / (1 + gam x_i^2)      (non-convex regulariser),

with a ~ N(mu_k, sigma1^2 I_d), b = sign(a . w_k) from a teacher w_k, and eta | a ~ N(a,
sigma2^2 I_d). Section 5.1 uses d = 10, 16 clients, sigma1 = 1, sigma2 / sigma1 in {1, 1.5, 2},
inner batch m in {1, 10, 100}, outer batch b = 1, lam = 1e-3 and "alpha" (the regulariser's
gamma) = 10; mu_k = 0 and one teacher for every client (the homogeneous case). The options
``teacher_shift`` and ``feature_shift`` make clients heterogeneous (client-specific teachers
w_k = w_0 + teacher_shift z_k / sqrt(d) and feature means mu_k = feature_shift z'_k / sqrt(d)).

Stochastic oracle: estimator (3), f_xi(mean_j g(x; xi, eta_j)), averaged over b outer samples:
the inner mean is taken *inside* f, so the estimator is biased, with a bias that vanishes as m grows.
Its expectation is known in closed form (up to one-dimensional quadrature): see
:mod:`fedcomp.problems._conditional_kernels`, which also documents the oracles and the derivation of
the exact Phi and grad Phi.

Readings and findings:

* "set b according to the sign of a^T x": the labels come from a fixed teacher vector w (the
  authors' code draws a linear teacher with Xavier-normal weights); we draw w_0 ~ N(0, I) / sqrt(d)
  (only its direction matters).
* The authors' code (github.com/xidongwu/Federated-Minimax-and-Conditional-Stochastic-Optimization,
  "Invariant Logistic Regression/FCSGM.py") averages log(1 + exp(-b eta_j . x)) over the m inner
  samples, i.e. the mean of f(g), which is unbiased for a different objective, not estimator (3);
  its model also has a bias term. We implement problem (1) and estimator (3) as printed, no bias.
* With labels from a teacher and no label noise the data are separable: Phi has no finite
  minimiser (grad Phi -> 0 along the teacher direction, Phi -> inf Phi = lam * d as |x| -> inf).
  The expected estimator Phi_m (inner noise tau^2 = sigma2^2/m in u) does have a finite minimiser;
  the stationarity gap ||grad Phi||^2 there is the bias floor that Theorems 4.1/4.4/4.7 bound by
  O(1/m) (:meth:`InvariantLogistic.biased_grad` gives grad Phi_m exactly).
"""
from __future__ import annotations

import math

import numpy as np

from fedcomp import _validate as V
from fedcomp.problems.base import Problem

_N_HERMITE = 80
_N_PANELS = 40
_NODES_PER_PANEL = 12


def _quadrature_tables():
    t, w = np.polynomial.hermite_e.hermegauss(_N_HERMITE)
    w = w / math.sqrt(2.0 * math.pi)
    x, v = np.polynomial.legendre.leggauss(_NODES_PER_PANEL)
    edges = np.linspace(0.0, 40.0, _N_PANELS + 1)
    z, wz = [], []
    for lo, hi in zip(edges[:-1], edges[1:]):
        z.append(0.5 * (hi - lo) * x + 0.5 * (hi + lo))
        wz.append(0.5 * (hi - lo) * v)
    return (np.ascontiguousarray(t), np.ascontiguousarray(w),
            np.ascontiguousarray(np.concatenate(z)), np.ascontiguousarray(np.concatenate(wz)))


def _data(W, Mu, params) -> tuple:
    """The kernels' data tuple (layout: :mod:`fedcomp.problems._conditional_kernels`)."""
    from fedcomp.problems._conditional_kernels import first_equal_rows, panel_factors
    gh_t, gh_w, pl_z, pl_w = _quadrature_tables()
    return (W, Mu, params, gh_t, gh_w, pl_z, pl_w, panel_factors(pl_z), first_equal_rows(W, Mu))


class InvariantLogistic(Problem):
    """FCSG paper section 5.1: invariant logistic regression, a conditional stochastic problem.

    Parameters
    ----------
    teachers : array (K, d)
        w_k, client k's labelling vector (nonzero rows).
    feature_means : array (K, d), optional
        mu_k (default zeros: a ~ N(0, sigma1^2 I)).
    inner_batch : int >= 1
        m, inner samples per outer sample in estimator (3).
    outer_batch : int >= 1
        b, outer samples per stochastic gradient.
    sigma1, sigma2 : float > 0
        Standard deviations of a and of eta | a.
    lam : float >= 0
        Weight of the non-convex regulariser (paper: 1e-3).
    gamma : float > 0
        Its shape parameter (paper: 10, called alpha there).
    """

    kernels = "fedcomp.problems._conditional_kernels"
    structure = "local-inner"
    name = "invariant-logistic"

    def __init__(self, teachers, feature_means=None, inner_batch: int = 10, outer_batch: int = 1,
                 sigma1: float = 1.0, sigma2: float = 1.0, lam: float = 1e-3,
                 gamma: float = 10.0):
        W = V.finite_array("teachers", teachers, ndim=2)
        K, d = W.shape
        if K < 1 or d < 1:
            raise ValueError(f"teachers must have shape (K, d) with K, d >= 1, got {W.shape}")
        if np.any(np.linalg.norm(W, axis=1) == 0.0):
            raise ValueError("teachers must have nonzero rows (a zero teacher defines no labels)")
        Mu = (np.zeros((K, d)) if feature_means is None
              else V.finite_array("feature_means", feature_means, shape=(K, d)))
        self.inner_batch = V.positive_int("inner_batch", inner_batch)
        self.outer_batch = V.positive_int("outer_batch", outer_batch)
        self.sigma1 = V.real_in("sigma1", sigma1, 0.0)
        self.sigma2 = V.real_in("sigma2", sigma2, 0.0)
        self.lam = V.real_in("lam", lam, 0.0, math.inf, low_open=False)
        self.gamma = V.real_in("gamma", gamma, 0.0)
        self.teachers, self.feature_means = W, Mu
        self.num_clients, self.dim, self.inner_dim = K, d, 1
        self.noise = self.sigma2
        params = np.array([self.sigma1, self.sigma2, self.lam, self.gamma,
                           float(self.inner_batch), float(self.outer_batch)])
        self.data = _data(W, Mu, params)

    @classmethod
    def synthetic(cls, num_clients: int = 16, dim: int = 10, inner_batch: int = 10,
                  outer_batch: int = 1, sigma1: float = 1.0, sigma2: float = 1.0,
                  lam: float = 1e-3, gamma: float = 10.0, teacher_shift: float = 0.0,
                  feature_shift: float = 0.0, seed: int = 0) -> "InvariantLogistic":
        """Section 5.1's instance (defaults), optionally with heterogeneous clients.

        teacher_shift, feature_shift >= 0: w_k = w_0 + teacher_shift z_k / sqrt(d) and
        mu_k = feature_shift z'_k / sqrt(d), z_k, z'_k ~ N(0, I_d); 0 and 0 give the paper's
        homogeneous setting.
        """
        K = V.positive_int("num_clients", num_clients)
        d = V.positive_int("dim", dim)
        ts = V.real_in("teacher_shift", teacher_shift, 0.0, math.inf, low_open=False)
        fs = V.real_in("feature_shift", feature_shift, 0.0, math.inf, low_open=False)
        rng = np.random.default_rng(V.seed_value("seed", seed))
        w0 = rng.standard_normal(d) / math.sqrt(d)
        W = w0 + ts * rng.standard_normal((K, d)) / math.sqrt(d)
        Mu = fs * rng.standard_normal((K, d)) / math.sqrt(d)
        p = cls(W, Mu, inner_batch=inner_batch, outer_batch=outer_batch, sigma1=sigma1,
                sigma2=sigma2, lam=lam, gamma=gamma)
        p.heterogeneity = {"teacher_shift": ts, "feature_shift": fs, "seed": int(seed)}
        return p

    def with_batches(self, inner_batch: int | None = None,
                     outer_batch: int | None = None) -> "InvariantLogistic":
        """The same clients with other batch sizes (m, b)."""
        p = InvariantLogistic(self.teachers, self.feature_means,
                              self.inner_batch if inner_batch is None else inner_batch,
                              self.outer_batch if outer_batch is None else outer_batch,
                              self.sigma1, self.sigma2, self.lam, self.gamma)
        if hasattr(self, "heterogeneity"):
            p.heterogeneity = dict(self.heterogeneity)
        return p

    def describe(self) -> dict:
        out = super().describe()
        out.update(inner_batch=self.inner_batch, outer_batch=self.outer_batch,
                   sigma1=self.sigma1, sigma2=self.sigma2, lam=self.lam, gamma=self.gamma)
        return out

    # --- exact quantities beyond the protocol ------------------------------------------------
    def _biased(self, x, inner_batch):
        x = self._check_x(x)
        m = self.inner_batch if inner_batch is None else V.positive_int("inner_batch", inner_batch)
        tau2 = self.sigma2 ** 2 / m
        mod = self.kernel_module
        val, grad, g = 0.0, np.zeros(self.dim), np.zeros(self.dim)
        for k in range(self.num_clients):
            val += mod.client_value_grad(self.data, k, x, tau2, g)
            grad += g
        hg = np.zeros(self.dim)
        mod.h_grad(self.data, 0, x, np.uint64(0), True, hg)
        return (val / self.num_clients + mod.h_value(self.data, x),
                grad / self.num_clients + hg)

    def biased_value(self, x, inner_batch: int | None = None) -> float:
        """Phi_m(x) = E[estimator (3)]: the objective the biased estimator is unbiased for."""
        return float(self._biased(x, inner_batch)[0])

    def biased_grad(self, x, inner_batch: int | None = None) -> np.ndarray:
        """grad Phi_m(x) = E[grad of estimator (3)] (exact); grad Phi_m - grad Phi is its bias."""
        return self._biased(x, inner_batch)[1]

    def client_value(self, k: int, x) -> float:
        """Phi_k(x), exact."""
        x = self._check_x(x)
        g = np.zeros(self.dim)
        mod = self.kernel_module
        return float(mod.client_value_grad(self.data, int(k), x, 0.0, g) + mod.h_value(self.data, x))

    def biased_stationary_point(self, inner_batch: int | None = None, x0=None,
                                tol: float = 1e-12) -> np.ndarray:
        """A stationary point of Phi_m found by L-BFGS with the exact gradient (scipy)."""
        from scipy.optimize import minimize
        x0 = np.zeros(self.dim) if x0 is None else self._check_x(x0)
        res = minimize(lambda z: self._biased(z, inner_batch), x0, jac=True, method="L-BFGS-B",
                       options={"gtol": tol, "ftol": 1e-15, "maxiter": 10_000})
        return res.x

    def accuracy(self, x) -> float:
        """Exact test accuracy of sign(a . x), clients pooled (the paper tests on 50000 fresh
        outer samples): P(sign(a . x) = sign(a . w_k)) = 1 - angle(x, w_k) / pi when mu_k = 0,
        else the two orthants of the bivariate normal (a . x, a . w_k) (scipy). x = 0 scores 1/2.
        """
        x = self._check_x(x)
        nx = np.linalg.norm(x)
        if nx == 0.0:
            return 0.5
        from scipy import stats
        accs = []
        for w, mu in zip(self.teachers, self.feature_means):
            if not np.any(mu):
                c = float(w @ x) / (np.linalg.norm(w) * nx)
                accs.append(1.0 - math.acos(min(1.0, max(-1.0, c))) / math.pi)
                continue
            cov = self.sigma1 ** 2 * np.array([[x @ x, x @ w], [x @ w, w @ w]])
            mean = np.array([mu @ x, mu @ w])
            both_neg = stats.multivariate_normal(mean, cov, allow_singular=True).cdf([0.0, 0.0])
            both_pos = stats.multivariate_normal(-mean, cov, allow_singular=True).cdf([0.0, 0.0])
            accs.append(float(both_neg + both_pos))
        return float(np.mean(accs))

    def test_accuracy(self, x, n: int = 50_000, seed: int = 0) -> float:
        """Accuracy of sign(a . x) against the labels on n fresh outer samples per the paper's
        evaluation (clients pooled)."""
        x = self._check_x(x)
        rng = np.random.default_rng(seed)
        k = rng.integers(0, self.num_clients, n)
        a = self.feature_means[k] + self.sigma1 * rng.standard_normal((n, self.dim))
        b = np.where(np.einsum("ij,ij->i", a, self.teachers[k]) >= 0, 1.0, -1.0)
        return float(np.mean(np.where(a @ x >= 0, 1.0, -1.0) == b))
