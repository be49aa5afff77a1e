"""Distributionally robust logistic regression as federated compositional problems.

Khanduri et al. (FedDRO paper), section 2.1: the DRO problem (3)
min_x max_{p in simplex} sum_i p_i loss(x; zeta_i) - lambda D(p, 1/m) with

* KL divergence: value lambda log((1/m) sum_i exp(loss_i / lambda)) (FedDRO (4) prints it without
  the factor lambda, which rescales Phi and leaves its stationary points unchanged; we keep lambda
  so that Phi is the min-max value). Federated: g_k(x) = (1/m_k) sum_{i in client k}
  exp(loss_i/lambda), f(u) = lambda log u, h = 0 (:class:`KLDRO`).
* chi-square divergence, FedDRO (5) as printed: g_k = mean loss, f(u) = u^2/(2 lambda),
  h_k = -(1/(2 lambda m_k)) sum loss^2 (:class:`Chi2DRO`). Whether (5) is exact is checked in
  :mod:`fedcomp.theory.dro`.

Federated weighting: g = (1/K) sum_k g_k weights every client equally whatever its size, so a
sample of client k has weight 1/(K m_k); with equal client sizes this is the plain sample mean.

Loss: logistic regression, labels in {-1, +1}. Stochastic oracles draw a minibatch of
``batch_size`` rows of the client's data, uniformly with replacement, from the sample key; the same
key gives the same minibatch (FedDRO (8) evaluates g_k at two points on one sample). With
``stochastic=False`` the oracles make a full pass.

:func:`make_logistic_clients` generates client data sets with controllable heterogeneity.
"""
from __future__ import annotations

import math

import numpy as np

from fedcomp import _validate as V
from fedcomp.problems.base import Problem


def make_logistic_clients(num_clients: int = 8, samples_per_client: int = 100, dim: int = 10,
                          feature_shift: float = 0.0, label_imbalance: float = 0.0,
                          size_skew: float = 0.0, separation: float = 1.0, seed: int = 0):
    """Synthetic binary classification data split over clients.

    Each client k has a positive-label share p_k, a feature mean mu_k and a size m_k; its samples
    are s ~ +/-1 with P(+1) = p_k and a | s ~ N(mu_k + s * separation * u, I_d) for a fixed unit
    direction u (Gaussian classes: the logistic minimiser is finite).

    Parameters
    ----------
    num_clients, samples_per_client, dim : int >= 1
    feature_shift : float >= 0
        Standard deviation of the client means mu_k ~ N(0, feature_shift^2 I).
    label_imbalance : float >= 0
        p_k = sigmoid(label_imbalance * z_k), z_k ~ N(0, 1): 0 gives balanced clients.
    size_skew : float >= 0
        m_k proportional to exp(size_skew * z_k), z_k ~ N(0, 1), mean samples_per_client, each >= 2.
    separation : float > 0
        Distance of the class means from the client mean along u.
    seed : int >= 0

    Returns
    -------
    features : list of arrays (m_k, d);  labels : list of arrays (m_k,) in {-1, +1}
    """
    K = V.positive_int("num_clients", num_clients)
    m = V.positive_int("samples_per_client", samples_per_client, 2)
    d = V.positive_int("dim", dim)
    fs = V.real_in("feature_shift", feature_shift, 0.0, math.inf, low_open=False)
    li = V.real_in("label_imbalance", label_imbalance, 0.0, math.inf, low_open=False)
    sk = V.real_in("size_skew", size_skew, 0.0, math.inf, low_open=False)
    sep = V.real_in("separation", separation, 0.0)
    rng = np.random.default_rng(V.seed_value("seed", seed))
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    w = np.exp(sk * rng.standard_normal(K))
    sizes = np.maximum(2, np.round(m * K * w / w.sum()).astype(int))
    features, labels = [], []
    for k in range(K):
        p = 1.0 / (1.0 + math.exp(-li * rng.standard_normal()))
        mu = fs * rng.standard_normal(d)
        s = np.where(rng.random(sizes[k]) < p, 1.0, -1.0)
        a = mu + s[:, None] * sep * u + rng.standard_normal((sizes[k], d))
        features.append(a)
        labels.append(s)
    return features, labels


class _LogisticDRO(Problem):
    structure = "global-inner"

    def __init__(self, features, labels, lam: float, batch_size: int, shift: float):
        if not isinstance(features, (list, tuple)) or not isinstance(labels, (list, tuple)):
            raise ValueError("features and labels must be lists over clients of arrays")
        if len(features) != len(labels) or len(features) < 1:
            raise ValueError(f"features and labels must list the same number (>= 1) of clients, "
                             f"got {len(features)} and {len(labels)}")
        K = len(features)
        F = [V.finite_array(f"features[{k}]", f, ndim=2) for k, f in enumerate(features)]
        d = F[0].shape[1]
        Ls = []
        for k, (f, lab) in enumerate(zip(F, labels)):
            if f.shape[1] != d or f.shape[0] < 1:
                raise ValueError(f"features[{k}] must have shape (m_k >= 1, {d}), got {f.shape}")
            lab = V.finite_array(f"labels[{k}]", lab, shape=(f.shape[0],))
            if not np.all(np.isin(lab, (-1.0, 1.0))):
                raise ValueError(f"labels[{k}] must contain only -1 and +1")
            Ls.append(lab)
        self.lam = V.real_in("lam", lam, 0.0)
        self.batch_size = V.positive_int("batch_size", batch_size)
        self.shift = V.real_in("shift", shift)
        sizes = np.array([f.shape[0] for f in F])
        off = np.zeros(K + 1, dtype=np.int64)
        off[1:] = np.cumsum(sizes)
        weights = np.concatenate([np.full(s, 1.0 / (K * s)) for s in sizes])
        self.num_clients, self.dim, self.inner_dim = K, d, 1
        self.client_sizes = sizes
        self.data = (np.ascontiguousarray(np.vstack(F)), np.ascontiguousarray(np.concatenate(Ls)),
                     off, np.array([self.lam, self.shift, float(self.batch_size)]), weights)

    def describe(self) -> dict:
        out = super().describe()
        out.update(lam=self.lam, batch_size=self.batch_size, sizes=self.client_sizes.tolist())
        return out

    @classmethod
    def synthetic(cls, lam: float = 1.0, batch_size: int = 16, **kw):
        """An instance on :func:`make_logistic_clients` data.

        Keyword arguments of that function go there; ``shift`` (KLDRO) and ``form`` (Chi2DRO)
        go to the problem.
        """
        problem_kw = {k: kw.pop(k) for k in ("shift", "form") if k in kw}
        f, lab = make_logistic_clients(**kw)
        return cls(f, lab, lam=lam, batch_size=batch_size, **problem_kw)

    def losses(self, x) -> np.ndarray:
        """Per-sample logistic losses at x (all clients, in row order)."""
        x = self._check_x(x)
        F, L = self.data[0], self.data[1]
        return np.logaddexp(0.0, -L * (F @ x))


class KLDRO(_LogisticDRO):
    """KL-regularised DRO logistic regression, FedDRO (4) times lambda (see module docstring).

    Parameters
    ----------
    features, labels : lists over clients of arrays (m_k, d) and (m_k,) with labels in {-1, +1}
    lam : float > 0
        lambda, the regularisation weight of the divergence.
    batch_size : int >= 1
        Minibatch size of the stochastic oracles.
    shift : float, default log(2)
        Constant c of g_k = mean exp((loss - c)/lambda), f = lambda log u + c; any value gives the
        same Phi and the same iterates, it only keeps exp in floating-point range (log 2 is the
        loss at x = 0).
    """

    kernels = "fedcomp.problems._kl_kernels"
    name = "kl-dro"

    def __init__(self, features, labels, lam: float = 1.0, batch_size: int = 16,
                 shift: float = math.log(2.0)):
        super().__init__(features, labels, lam, batch_size, shift)
        # the oracles' memo, empty here: each run of the engine gets its own (_kl_kernels)
        self.data = (*self.data, np.zeros((0, 0)), np.zeros((0, 0), dtype=np.uint64))


class Chi2DRO(_LogisticDRO):
    """Chi-square-regularised DRO logistic regression.

    Parameters as :class:`KLDRO` (no shift), and

    form : {"printed", "corrected"}
        "printed" (default) is FedDRO (5) exactly as printed: g = mean loss, f = g^2/(2 lambda),
        h = -(1/(2 lambda m)) sum loss^2, i.e. Phi = -Var(loss)/(2 lambda). That is *not* the
        value of the min-max (3): it is unbounded below in x (any spread of the losses lowers it),
        and algorithms run on it drift off (a finding, see :mod:`fedcomp.theory.dro`).
        "corrected" is the value of (3) with D_chi2 = (m/2) sum (p_i - 1/m)^2 while its
        unconstrained maximiser stays in the simplex: Phi = mean loss + Var(loss)/(2 lambda), as
        the CO problem g = mean loss, f(u) = -u^2/(2 lambda), h = mean(loss + loss^2/(2 lambda)).
    """

    kernels = "fedcomp.problems._chi2_kernels"
    name = "chi2-dro"

    def __init__(self, features, labels, lam: float = 1.0, batch_size: int = 16,
                 form: str = "printed"):
        if form not in ("printed", "corrected"):
            raise ValueError(f"form must be 'printed' or 'corrected', got {form!r}")
        super().__init__(features, labels, lam, batch_size, 0.0)
        self.form = form
        self.data[3][1] = 0.0 if form == "printed" else 1.0

    def describe(self) -> dict:
        out = super().describe()
        out["form"] = self.form
        return out
