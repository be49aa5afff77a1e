"""Mean-variance portfolio selection as a federated compositional problem: Khanduri et al.
(FedDRO paper), section 2.1, "Portfolio optimization": min_x -E[R(x)] + lam Var(R(x)).

Clients hold samples of asset returns r in R^d (their own markets); the portfolio return is
R(x) = r . x. In the notation of FedDRO problem (2):

    g_k(x) = (E_k[r . x], E_k[(r . x)^2])   (d_g = 2, E_k the mean over client k's samples)
    g(x)   = (1/K) sum_k g_k(x),  f(u, v) = -u + lam (v - u^2),  h = 0,

so Phi(x) = -mubar . x + lam x^T Sigma x with mubar = (1/K) sum_k mu_k and
Sigma = Mbar - mubar mubar^T, Mbar = (1/K) sum_k E_k[r r^T]: the variance of the pooled market
(the mixture of the clients' return distributions, clients weighted equally), which includes the
spread of the clients' means. f(u, v) is not separable over clients (the -lam u^2 term), so the
problem is compositional: the mean of the clients' mean-variance objectives is a different problem.

Closed-form minimiser (unconstrained, the paper's X = R^d): grad Phi(x) = -mubar + 2 lam Sigma x,
so x* = Sigma^{-1} mubar / (2 lam) when Sigma is positive definite (:meth:`minimiser`); Phi is a
convex quadratic with L_Phi = 2 lam lambda_max(Sigma). The paper's f is written
"-E[.] + Var(.)" with lam in the displayed problem; we keep lam.

Observed with exact oracles (tests/test_portfolio.py): FedDRO and FedAvg-modified reach x* to
machine precision when every client holds the same samples; with heterogeneous markets and a fixed
step size eta their limit is O(eta) away from x* even with I = 1, because the shared ybar is the
mean of g_k at the clients' local models before averaging (x_k - xbar = O(eta)), and g_k is
quadratic here, so ybar - g(xbar) = O(eta). Theorems 4.2/4.3 take eta ~ 1/sqrt(T), which removes it.
"""
from __future__ import annotations

import math

import numpy as np

from fedcomp import _validate as V
from fedcomp.problems.base import Problem


class MeanVariancePortfolio(Problem):
    """Federated mean-variance portfolio selection (global inner map, d_g = 2).

    Parameters
    ----------
    returns : list of arrays (n_k, d)
        Client k's return samples (n_k >= 1, the same number of assets d everywhere).
    lam : float > 0
        Risk aversion.
    batch_size : int >= 1
        Rows per stochastic oracle call (drawn with replacement from the client's samples).
    """

    kernels = "fedcomp.problems._portfolio_kernels"
    structure = "global-inner"
    name = "mean-variance-portfolio"

    def __init__(self, returns, lam: float = 1.0, batch_size: int = 16):
        if not isinstance(returns, (list, tuple)) or len(returns) < 1:
            raise ValueError("returns must be a non-empty list of arrays (n_k, d), one per client")
        blocks = [V.finite_array(f"returns[{k}]", r, ndim=2) for k, r in enumerate(returns)]
        d = blocks[0].shape[1]
        for k, r in enumerate(blocks):
            if r.shape[0] < 1 or r.shape[1] != d or d < 1:
                raise ValueError(f"returns[{k}] must have shape (n_k >= 1, {d}), got {r.shape}")
        self.lam = V.real_in("lam", lam, 0.0)
        self.batch_size = V.positive_int("batch_size", batch_size)
        self.returns = blocks
        self.num_clients, self.dim, self.inner_dim = len(blocks), d, 2
        self.noise = 0.0
        Rt = np.ascontiguousarray(np.concatenate(blocks, axis=0))
        off = np.zeros(len(blocks) + 1, dtype=np.int64)
        off[1:] = np.cumsum([r.shape[0] for r in blocks])
        self.mubar = np.ascontiguousarray(np.mean([r.mean(axis=0) for r in blocks], axis=0))
        self.Mbar = np.ascontiguousarray(np.mean([r.T @ r / r.shape[0] for r in blocks], axis=0))
        self.covariance = self.Mbar - np.outer(self.mubar, self.mubar)
        self.data = (Rt, off, np.array([self.lam, float(self.batch_size)]), self.mubar, self.Mbar)

    @classmethod
    def synthetic(cls, num_clients: int = 8, assets: int = 10, samples_per_client: int = 250,
                  lam: float = 1.0, heterogeneity: float = 1.0, batch_size: int = 16,
                  seed: int = 0) -> "MeanVariancePortfolio":
        """Heterogeneous synthetic markets: client k's returns r = m_k + B_k f + e with two
        factors f ~ N(0, I_2), idiosyncratic noise e ~ N(0, 0.1^2 I), m_k = m_0 + 0.05 het z_k and
        B_k = B_0 + 0.1 het Z_k (z_k, Z_k standard normal); m_0 ~ 0.05 + 0.03 N(0, 1),
        B_0 ~ 0.15 N(0, 1). heterogeneity = 0 gives identically distributed clients."""
        K = V.positive_int("num_clients", num_clients)
        d = V.positive_int("assets", assets)
        n = V.positive_int("samples_per_client", samples_per_client, 2)
        het = V.real_in("heterogeneity", heterogeneity, 0.0, math.inf, low_open=False)
        rng = np.random.default_rng(V.seed_value("seed", seed))
        m0 = 0.05 + 0.03 * rng.standard_normal(d)
        B0 = 0.15 * rng.standard_normal((d, 2))
        returns = []
        for _ in range(K):
            mk = m0 + 0.05 * het * rng.standard_normal(d)
            Bk = B0 + 0.1 * het * rng.standard_normal((d, 2))
            returns.append(mk + rng.standard_normal((n, 2)) @ Bk.T
                           + 0.1 * rng.standard_normal((n, d)))
        p = cls(returns, lam=lam, batch_size=batch_size)
        p.heterogeneity = het
        return p

    def describe(self) -> dict:
        out = super().describe()
        out.update(lam=self.lam, batch_size=self.batch_size,
                   sizes=[int(r.shape[0]) for r in self.returns])
        return out

    def minimiser(self) -> np.ndarray:
        """x* = Sigma^{-1} mubar / (2 lam), the unique minimiser when Sigma is positive definite
        (ValueError otherwise: Phi is then unbounded below or has a continuum of minimisers)."""
        w = np.linalg.eigvalsh(self.covariance)
        if w[0] <= 1e-12 * max(w[-1], 1e-300):
            raise ValueError("the pooled covariance Sigma is singular: no unique minimiser")
        return np.linalg.solve(self.covariance, self.mubar) / (2.0 * self.lam)

    def optimal_value(self) -> float:
        """Phi(x*) = -mubar^T Sigma^{-1} mubar / (4 lam)."""
        return float(-self.mubar @ self.minimiser() / 2.0)

    def smoothness(self) -> float:
        """L_Phi = 2 lam lambda_max(Sigma) (Phi is quadratic)."""
        return float(2.0 * self.lam * np.linalg.eigvalsh(self.covariance)[-1])
