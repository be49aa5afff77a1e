"""Local-inner compositional problems of Huang, Li and Huang, "Compositional Federated Learning"
(ComFedL, arXiv 2106.11264; journal version with the same numbering of (1)-(10)).

ComFedL problem (1) is min_w (1/n) sum_i g^i(f^i(w)) with a *local* inner map f^i and outer g^i per
device. In fedcomp's (FedDRO) notation the inner map is g_k and the outer f_k -- the letters are
swapped -- and the problem is

    Phi(x) = (1/K) sum_k f_k(g_k(x))            (structure ``"local-inner"``),

not FedDRO's global-inner Phi = f((1/K) sum_k g_k). Both families below keep ComFedL's uniform
client weights 1/n (even when clients hold very different amounts of data).

:class:`RobustFL` -- KL-regularised distributionally robust FL, ComFedL (4)-(6).
    Minimax (4) with phi(r, 1/n) = sum r_i log(n r_i) equals (5), gamma log((1/n) sum exp(f^i/gamma))
    (Lemma 1, checked by huang.lem1 in :mod:`fedcomp.checks.huang`); since log is increasing,
    (6) (1/n) sum_i exp(f^i(w)/gamma) has the same minimisers and stationary points (grad (5) =
    gamma grad (6) / (6)). We implement (6): inner g_k(x) = client k's loss (a scalar, d_g = 1),
    outer f(y) = exp(y / gamma), deterministic and shared -- ComFedL's "special problem (1)" of
    Theorem 2. Why local-inner and not FedDRO's form: (5) = gamma log(mean_k exp(L_k/gamma)) would
    need g_k = exp(L_k(x)/gamma) with L_k an expectation over client data, whose minibatch
    estimate is biased; (6) keeps the expectation inside the inner map.
    Reading of (6): the journal prints g(.) = exp(./gamma) *and* g(f^i/gamma), which would divide
    by gamma twice; the conference version (g = exp) and the gradient printed after it,
    u = exp(f_B/gamma) grad f_B / gamma, both give exp(f^i/gamma): that is what we implement.
    Loss: binary logistic regression plus (l2/2)||x||^2 (a synthetic stand-in for the paper's MNIST
    multi-class logistic regression; l2 > 0 keeps a finite minimiser on separable data).
    Data: :meth:`RobustFL.synthetic` builds the imbalanced split of ComFedL section 5.1 (10
    clients, one with 5000 samples and the others with 20), each client with its own teacher.

:class:`MAMLQuadratic` -- one-step MAML (7) and its distribution-agnostic form (10) on linear
    regression tasks, where every quantity is closed-form (see :mod:`fedcomp.problems._maml_kernels`):
    inner g_k(w) = w - alpha grad l_k(w) (ComFedL's f^i; its step size "eta" in (7) is our
    ``alpha``, to keep eta for the algorithm's step), outer f_k = l_k for (7) or exp(l_k/gamma) for
    (10). This is ComFedL's general problem (1) (stochastic outer f_k with its own batch b1:
    Theorem 1). (10) follows from the regularised minimax (9) exactly as (6) from (4).

Both provide, besides the protocol oracles, minibatch oracles with an explicit batch size
(``g_value_b``, ``g_vjp_b``, ``f_grad_b``, ...: see the kernel modules) because ComFedL's batch
sizes b and b1 are hyperparameters of Algorithm 1, and the plain client losses ``loss_value_b``,
``loss_grad_b`` that the FL baselines (FedAvg, q-FedAvg, DRFA) minimise.
"""
from __future__ import annotations

import math

import numpy as np

from fedcomp import _validate as V
from fedcomp.problems.base import Problem


class RobustFL(Problem):
    """KL-regularised robust FL, ComFedL (6): Phi(x) = (1/K) sum_k exp(L_k(x) / gamma).

    Parameters
    ----------
    features : list over clients of arrays (n_k, d)
    labels : list over clients of arrays (n_k,) with entries in {-1, +1}
    gamma : float > 0
        The KL regularisation weight gamma of (4).
    l2 : float >= 0
        Ridge weight added to every client's logistic loss.
    batch_size : int >= 1
        Default inner minibatch size of the protocol oracles ``g_value``/``g_vjp`` (algorithms
        such as ComFedL pass their own batch size b to the ``*_b`` oracles).
    """

    kernels = "fedcomp.problems._robustfl_kernels"
    structure = "local-inner"
    name = "robust-fl"

    def __init__(self, features, labels, gamma: float = 0.5, l2: float = 1e-2,
                 batch_size: int = 1):
        if not isinstance(features, (list, tuple)) or not isinstance(labels, (list, tuple)):
            raise ValueError("features and labels must be lists over clients of arrays")
        if len(features) != len(labels) or len(features) < 1:
            raise ValueError(f"features and labels must list the same number (>= 1) of clients, "
                             f"got {len(features)} and {len(labels)}")
        F = [V.finite_array(f"features[{k}]", f, ndim=2) for k, f in enumerate(features)]
        d = F[0].shape[1]
        Ls = []
        for k, (f, lab) in enumerate(zip(F, labels)):
            if f.shape[1] != d or f.shape[0] < 1:
                raise ValueError(f"features[{k}] must have shape (n_k >= 1, {d}), got {f.shape}")
            lab = V.finite_array(f"labels[{k}]", lab, shape=(f.shape[0],))
            if not np.all(np.isin(lab, (-1.0, 1.0))):
                raise ValueError(f"labels[{k}] must contain only -1 and +1")
            Ls.append(lab)
        self.gamma = V.real_in("gamma", gamma, 0.0)
        self.l2 = V.real_in("l2", l2, 0.0, math.inf, low_open=False)
        self.batch_size = V.positive_int("batch_size", batch_size)
        K = len(F)
        sizes = np.array([f.shape[0] for f in F], dtype=np.int64)
        off = np.zeros(K + 1, dtype=np.int64)
        off[1:] = np.cumsum(sizes)
        self.num_clients, self.dim, self.inner_dim = K, d, 1
        self.client_sizes = sizes
        self.data = (np.ascontiguousarray(np.vstack(F)), np.ascontiguousarray(np.concatenate(Ls)),
                     off, np.array([self.gamma, self.l2, float(self.batch_size), 1.0]),
                     sizes / sizes.sum())

    def describe(self) -> dict:
        out = super().describe()
        out.update(gamma=self.gamma, l2=self.l2, batch_size=self.batch_size,
                   sizes=self.client_sizes.tolist())
        return out

    def client_losses(self, x) -> np.ndarray:
        """L_k(x) for every client (exact), shape (K,)."""
        return np.array([self.inner_client(k, x)[0] for k in range(self.num_clients)])

    def minimax_value(self, x) -> float:
        """gamma log((1/K) sum_k exp(L_k(x)/gamma)): the value of (4) = (5) at x (Lemma 1)."""
        z = self.client_losses(x) / self.gamma
        m = z.max()
        return float(self.gamma * (m + np.log(np.mean(np.exp(z - m)))))

    @classmethod
    def synthetic(cls, sizes=(5000,) + (20,) * 9, dim: int = 10, heterogeneity: float = 1.0,
                  label_noise: float = 0.1, gamma: float = 0.5, l2: float = 1e-2,
                  batch_size: int = 1, seed: int = 0) -> "RobustFL":
        """The imbalanced split of ComFedL section 5.1 on synthetic logistic data.

        Client k has a teacher theta_k = theta_0 + heterogeneity * N(0, I/d) and a feature mean
        mu_k = heterogeneity * N(0, I/d); a ~ N(mu_k, I), s = sign(a.theta_k), flipped with
        probability ``label_noise`` (non-separable data).

        Parameters
        ----------
        sizes : sequence of int >= 1
            n_k per client; default one client with 5000 samples and nine with 20 (section 5.1).
        dim : int >= 1
        heterogeneity : float >= 0
        label_noise : float in [0, 0.5]
        gamma, l2, batch_size : see the class.
        seed : int >= 0
        """
        sizes = [V.positive_int("sizes", s) for s in sizes]
        if not sizes:
            raise ValueError("sizes must list at least one client size")
        d = V.positive_int("dim", dim)
        het = V.real_in("heterogeneity", heterogeneity, 0.0, math.inf, low_open=False)
        ln = V.real_in("label_noise", label_noise, 0.0, 0.5, low_open=False, high_open=False)
        rng = np.random.default_rng(V.seed_value("seed", seed))
        theta0 = rng.standard_normal(d)
        feats, labs = [], []
        for n in sizes:
            th = theta0 + het * rng.standard_normal(d) / math.sqrt(d)
            mu = het * rng.standard_normal(d) / math.sqrt(d)
            a = mu + rng.standard_normal((n, d))
            s = np.where(a @ th >= 0.0, 1.0, -1.0)
            s = np.where(rng.random(n) < ln, -s, s)
            feats.append(a)
            labs.append(s)
        return cls(feats, labs, gamma=gamma, l2=l2, batch_size=batch_size)


class MAMLQuadratic(Problem):
    """One-step MAML (7) (``gamma=None``) or distribution-agnostic MAML (10) on regression tasks.

    Parameters
    ----------
    sigma : array (K, d, d)
        Task feature covariances Sigma_k (symmetric positive definite).
    theta : array (K, d)
        Task regression targets theta_k.
    alpha : float > 0
        Inner (adaptation) step size: ComFedL's eta in (7) and (10).
    noise : float >= 0
        Label noise standard deviation of the regression samples.
    gamma : float > 0 or None
        None: MAML (7), outer f_k = l_k. A number: problem (10), outer f_k = exp(l_k / gamma).
    batch_size, outer_batch : int >= 1
        Default support (b) and query (b1) batch sizes of the protocol oracles.
    """

    kernels = "fedcomp.problems._maml_kernels"
    structure = "local-inner"

    def __init__(self, sigma, theta, alpha: float = 0.1, noise: float = 0.5,
                 gamma: float | None = None, batch_size: int = 1, outer_batch: int = 1):
        S = V.finite_array("sigma", sigma, ndim=3)
        K, d, d2 = S.shape
        if K < 1 or d < 1 or d != d2:
            raise ValueError(f"sigma must have shape (K, d, d) with K, d >= 1, got {S.shape}")
        if not np.allclose(S, np.transpose(S, (0, 2, 1))):
            raise ValueError("sigma must hold symmetric matrices")
        try:
            Lc = np.linalg.cholesky(S)
        except np.linalg.LinAlgError:
            raise ValueError("sigma must hold positive definite matrices") from None
        th = V.finite_array("theta", theta, shape=(K, d))
        self.alpha = V.real_in("alpha", alpha, 0.0)
        self.noise = V.real_in("noise", noise, 0.0, math.inf, low_open=False)
        self.gamma = None if gamma is None else V.real_in("gamma", gamma, 0.0)
        self.batch_size = V.positive_int("batch_size", batch_size)
        self.outer_batch = V.positive_int("outer_batch", outer_batch)
        self.num_clients, self.dim, self.inner_dim = K, d, d
        self.sigma, self.theta = S, th
        self.name = "maml-quadratic" if gamma is None else "damaml-quadratic"
        self.data = (np.ascontiguousarray(Lc), th,
                     np.array([self.alpha, self.noise, 0.0 if gamma is None else self.gamma,
                               float(self.batch_size), float(self.outer_batch)]),
                     S, np.full(K, 1.0 / K))

    def describe(self) -> dict:
        out = super().describe()
        out.update(alpha=self.alpha, gamma=self.gamma, batch_size=self.batch_size,
                   outer_batch=self.outer_batch)
        return out

    def task_losses(self, x) -> np.ndarray:
        """l_k(x) (no adaptation) for every task, shape (K,)."""
        x = self._check_x(x)
        r = x[None, :] - self.theta
        return 0.5 * np.einsum("ki,kij,kj->k", r, self.sigma, r) + 0.5 * self.noise ** 2

    def adapted_losses(self, x) -> np.ndarray:
        """l_k(g_k(x)): each task's loss after one adaptation step, shape (K,)."""
        x = self._check_x(x)
        y = x[None, :] - self.alpha * np.einsum("kij,kj->ki", self.sigma, x[None, :] - self.theta)
        r = y - self.theta
        return 0.5 * np.einsum("ki,kij,kj->k", r, self.sigma, r) + 0.5 * self.noise ** 2

    @classmethod
    def random(cls, num_clients: int = 10, dim: int = 5, heterogeneity: float = 1.0,
               alpha: float = 0.1, noise: float = 0.5, gamma: float | None = None,
               batch_size: int = 1, outer_batch: int = 1, seed: int = 0) -> "MAMLQuadratic":
        """Random tasks: Sigma_k = Q_k diag(eigenvalues in [0.5, 2]) Q_k^T,
        theta_k = theta_0 + heterogeneity * N(0, I)."""
        K = V.positive_int("num_clients", num_clients)
        d = V.positive_int("dim", dim)
        het = V.real_in("heterogeneity", heterogeneity, 0.0, math.inf, low_open=False)
        rng = np.random.default_rng(V.seed_value("seed", seed))
        S = np.empty((K, d, d))
        for k in range(K):
            Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
            ev = rng.uniform(0.5, 2.0, d)
            M = (Q * ev) @ Q.T
            S[k] = 0.5 * (M + M.T)
        theta = rng.standard_normal(d) + het * rng.standard_normal((K, d))
        return cls(S, theta, alpha=alpha, noise=noise, gamma=gamma, batch_size=batch_size,
                   outer_batch=outer_batch)
