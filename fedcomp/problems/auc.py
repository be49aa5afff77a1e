"""The compositional AUC min-max of Zhang et al., "Federated Compositional Deep AUC Maximization"
(NeurIPS 2023; AUC paper), problems (1)-(4), with a linear scorer on imbalanced client data.

    min_x max_alpha F(g(x), alpha),   g(x) = (1/K) sum_k g_k(x),  F = (1/K) sum_k f^(k)

with x = [w, a, b], g_k(x) = x - rho * [grad_w L_CE,k(w), 0, 0] (one cross-entropy gradient step,
AUC paper (2)), and f^(k) the square-loss AUC min-max (1) of Ying et al. (2016) on client k's data.
The kernels (:mod:`fedcomp.problems._auc_kernels`) give the formulas, the closed-form dual
alpha*(u) and the exact Phi(x) = max_alpha F(g(x), alpha) with its gradient (Danskin).

Structure ``"minimax"``: the dual variable alpha is *not* the engine's y. Algorithms declare it as
the client variable ``dual`` of their state (see :mod:`fedcomp.algorithms.localscgdam`); the
engine's y (K, d_g) is an inner estimate of g (LocalSCGDAM's h), and its recorded inner error is
||mean_k y_k - g(xbar)||. Its torch form (``simulate(..., backend="torch")``) is the neural
AUC min-max with a linear score (:func:`fedcomp.neural.synthetic.torch_form`).

Choices (the paper leaves them open, or has no linear-scorer instance):

* p, the "prior probability of the positive class" of (1), is one number for all clients. The
  default is the positive fraction of the equal-weight mixture of the clients' data,
  p = (1/K) sum_k n_k^+ / n_k: with it F is the expectation of (1) under the very mixture that
  (4) averages, and min_{a,b} max_alpha F equals p (1-p) E[(1 - w^T(z - z'))^2 | l=1, l'=-1]
  - p (1-p), the pairwise square-loss AUC surrogate up to an additive constant (Ying et al.
  2016, Theorem 1; the printed (1) drops the constant p (1-p), which changes no gradient;
  checked in the tests).
* The federated objective (4) pairs every client's outer function with the *global* inner map,
  so grad Phi = Jbar^T (1/K) sum_k grad f^(k); LocalSCGDAM's client-k gradient
  J_k^T grad f^(k) averages to something else under two-level heterogeneity
  (:meth:`AUCMinimax.client_product_gradient`, claim ``fedcomp.localscgdam-bias``).
* The inner map is (3)-(4)'s *expected* cross-entropy step, g_k(x) = E_xi[x - rho Delta(x; xi)],
  with inner and outer samples drawn independently -- the objective Algorithm 1 estimates with h.
  (2) read literally takes the CE step on the same sample as the AUC loss, a different objective
  for rho > 0 (claim ``zhang.eq4``).
* rho = 0 gives g = identity, i.e. the *non-compositional* AUC min-max that CoDA and LocalSGDAM
  solve; the exact measures are then those of their own objective.
* Clients weigh equally in g and F (AUC paper (4)), whatever their sizes.
* Test AUC: the paper scores the network's output; for the compositional model one could score
  either w or the w-part of g(x). :meth:`AUCMinimax.auc` scores w by default (``use_inner=True``
  scores g(x)'s w-part with the exact g).
"""
from __future__ import annotations

import math

import numpy as np

from fedcomp import _validate as V
from fedcomp.problems.base import Problem

_SIGMA2_MAX = 1.0 / (6.0 * math.sqrt(3.0))  # max |sigma''(s)| = sqrt(3)/18


class AUCMinimax(Problem):
    """Compositional AUC min-max (AUC paper (1)-(4)) with a linear scorer.

    Parameters
    ----------
    features : list of K arrays (n_k, d_w)
        Client k's feature rows (include a constant column yourself for an intercept).
    labels : list of K arrays (n_k,)
        Labels in {+1, -1} (0 is read as -1).
    rho : float >= 0
        Step of the inner cross-entropy gradient step (AUC paper (2)); 0 = non-compositional.
    p : float in (0, 1), optional
        The positive-class prior of (1); default: the positive fraction of the equal-weight
        client mixture.
    batch_size : int >= 1
        Rows per sampled minibatch (xi for g, zeta for f).
    test_features, test_labels : arrays, optional
        A held-out set for :meth:`auc` (``split="test"``).
    """

    kernels = "fedcomp.problems._auc_kernels"
    structure = "minimax"
    name = "auc-minimax"

    def __init__(self, features, labels, rho: float = 0.1, p: float | None = None,
                 batch_size: int = 16, test_features=None, test_labels=None):
        if not isinstance(features, (list, tuple)) or not isinstance(labels, (list, tuple)):
            raise ValueError("features and labels must be lists with one array per client")
        K = len(features)
        if K < 1 or len(labels) != K:
            raise ValueError(f"features and labels must list the same number (>= 1) of clients, "
                             f"got {len(features)} and {len(labels)}")
        Zs, Ls = [], []
        dw = None
        for k in range(K):
            Zk = V.finite_array(f"features[{k}]", features[k], ndim=2)
            if dw is None:
                dw = Zk.shape[1]
            if Zk.shape[1] != dw or dw < 1:
                raise ValueError(f"features[{k}] must have shape (n_k, {dw}) with n_k >= 1, "
                                 f"got {Zk.shape}")
            if Zk.shape[0] < 1:
                raise ValueError(f"features[{k}] must have at least one row")
            Lk = V.finite_array(f"labels[{k}]", labels[k], shape=(Zk.shape[0],))
            if not np.all(np.isin(Lk, (-1.0, 0.0, 1.0))):
                raise ValueError(f"labels[{k}] must contain only +1 and -1 (or 0 for -1)")
            Zs.append(Zk)
            Ls.append(np.where(Lk > 0, 1.0, -1.0))
        self.rho = V.real_in("rho", rho, 0.0, math.inf, low_open=False)
        self.batch_size = V.positive_int("batch_size", batch_size)
        n = np.array([z.shape[0] for z in Zs])
        self.client_sizes = n
        self.client_positive_ratio = np.array([float(np.mean(lk > 0)) for lk in Ls])
        p_mix = float(np.mean(self.client_positive_ratio))
        if p is None:
            if not 0.0 < p_mix < 1.0:
                raise ValueError("the clients' data must contain both classes (the positive "
                                 f"fraction of the mixture is {p_mix})")
            p = p_mix
        self.p = V.real_in("p", p, 0.0, 1.0)
        self.mixture_positive_ratio = p_mix
        self.Z = np.ascontiguousarray(np.concatenate(Zs))
        self.L = np.ascontiguousarray(np.concatenate(Ls))
        self.offsets = np.concatenate([[0], np.cumsum(n)]).astype(np.int64)
        self.num_clients = K
        self.feature_dim = dw
        self.dim = dw + 2
        self.inner_dim = dw + 2
        self.noise = 0.0
        self.data = (self.Z, self.L, self.offsets,
                     np.array([self.rho, self.p, float(self.batch_size)]))
        if test_features is not None:
            tz = V.finite_array("test_features", test_features, ndim=2)
            if tz.shape[1] != dw:
                raise ValueError(f"test_features must have {dw} columns, got {tz.shape[1]}")
            tl = V.finite_array("test_labels", test_labels, shape=(tz.shape[0],))
            self.test_features, self.test_labels = tz, np.where(tl > 0, 1.0, -1.0)
        else:
            self.test_features = self.test_labels = None
        self.generator: dict = {}

    # --- construction ------------------------------------------------------------------------
    @classmethod
    def synthetic(cls, num_clients: int = 4, dim: int = 10, samples_per_client: int = 200,
                  positive_ratio=0.1, feature_shift: float = 0.5, separation: float = 1.5,
                  rho: float = 0.1, batch_size: int = 16, p: float | None = None,
                  intercept: bool = True, test_samples: int = 2000,
                  seed: int = 0) -> "AUCMinimax":
        """Imbalanced Gaussian clients with feature shift.

        Client k draws n = ``samples_per_client`` rows, round(r_k n) positive (r_k =
        ``positive_ratio``, a scalar or one value per client, so local and global imbalance can
        differ). A row of label l is z = (separation / 2) l e + s_k + N(0, I_dim), with e a random
        unit vector shared by all clients and the client shift s_k ~ N(0, feature_shift^2 I / dim)
        (feature-shift heterogeneity). With ``intercept`` a constant 1 is appended to z. The test
        set is balanced (as in the AUC paper, section 6.1): ``test_samples`` rows, half of each
        class, each from a uniformly drawn client's distribution.
        """
        K = V.positive_int("num_clients", num_clients)
        dim = V.positive_int("dim", dim)
        n = V.positive_int("samples_per_client", samples_per_client, minimum=2)
        shift = V.real_in("feature_shift", feature_shift, 0.0, math.inf, low_open=False)
        sep = V.real_in("separation", separation, 0.0, math.inf, low_open=False)
        nt = V.positive_int("test_samples", test_samples, minimum=2)
        seed = V.seed_value("seed", seed)
        if np.ndim(positive_ratio) == 0:
            r = np.full(K, V.real_in("positive_ratio", positive_ratio, 0.0, 1.0, False, False))
        else:
            r = V.finite_array("positive_ratio", positive_ratio, shape=(K,))
        if np.any(r < 0.0) or np.any(r > 1.0):
            raise ValueError(f"positive_ratio must be in [0, 1] (per client), got {r}")
        rng = np.random.default_rng(seed)
        e = rng.standard_normal(dim)
        e /= np.linalg.norm(e)
        shifts = shift * rng.standard_normal((K, dim)) / math.sqrt(dim)

        def draw(labels, s):
            z = 0.5 * sep * labels[:, None] * e[None, :] + s + rng.standard_normal((len(labels), dim))
            if intercept:
                z = np.hstack([z, np.ones((len(labels), 1))])
            return z

        feats, labs = [], []
        for k in range(K):
            npos = int(round(r[k] * n))
            lk = np.concatenate([np.ones(npos), -np.ones(n - npos)])
            lk = lk[rng.permutation(n)]
            feats.append(draw(lk, shifts[k]))
            labs.append(lk)
        tl = np.concatenate([np.ones(nt // 2), -np.ones(nt - nt // 2)])
        tk = rng.integers(0, K, size=nt)
        tz = draw(tl, shifts[tk])
        prob = cls(feats, labs, rho=rho, p=p, batch_size=batch_size, test_features=tz,
                   test_labels=tl)
        prob.generator = {"generator": "synthetic", "positive_ratio": [float(v) for v in r],
                          "feature_shift": shift, "separation": sep, "intercept": bool(intercept),
                          "seed": seed}
        return prob

    def describe(self) -> dict:
        out = super().describe()
        out.update({"rho": self.rho, "p": self.p, "batch_size": self.batch_size,
                    "n_per_client": [int(v) for v in self.client_sizes],
                    "client_positive_ratio": [round(float(v), 6)
                                              for v in self.client_positive_ratio]})
        out.update(self.generator)
        return out

    # --- exact measures of the min-max -------------------------------------------------------
    def _u(self, u) -> np.ndarray:
        return V.finite_array("u", u, shape=(self.inner_dim,))

    def dual_opt(self, x) -> float:
        """alpha*(g(x)), the maximiser of F(g(x), .) (closed form)."""
        out = np.zeros(1)
        self.kernel_module.dual_opt(self.data, self.inner(x), out)
        return float(out[0])

    def minimax_value(self, u, alpha: float) -> float:
        """F(u, alpha) at an inner value u (pass ``problem.inner(x)`` for F(g(x), alpha))."""
        a = np.array([V.real_in("alpha", alpha)])
        return float(self.kernel_module.minimax_value(self.data, self._u(u), a))

    def optimal_ab(self, x) -> tuple[float, float]:
        """(a*, b*) minimising F(g(x), alpha) over (a, b) for any alpha: the class means of the
        scores of g(x)'s w-part, a* = S_+/P_+, b* = S_-/P_- (equal-weight client mixture)."""
        u = self.inner(x)
        s = self.Z @ u[:self.feature_dim]
        wt = np.repeat(1.0 / (self.num_clients * self.client_sizes), self.client_sizes)
        pos = self.L > 0
        a = float(np.sum(wt[pos] * s[pos]) / np.sum(wt[pos]))
        b = float(np.sum(wt[~pos] * s[~pos]) / np.sum(wt[~pos]))
        return a, b

    def client_product_gradient(self, x) -> np.ndarray:
        """(1/K) sum_k J_g_k(x)^T grad_u f^(k)(g(x), alpha*(g(x))), exact.

        This is the mean over clients of what LocalSCGDAM's x-momentum (12) averages, with its
        estimates at their targets (h = g(x), y = y*(x)). The gradient of Phi is instead
        ((1/K) sum_k J_g_k)^T ((1/K) sum_k grad_u f^(k)) (problem (4), Danskin): the two differ by
        (1/K) sum_k (J_k - Jbar)^T (grad f^(k) - grad F), nonzero when both the inner Jacobians
        and the outer gradients differ across clients. With identical clients they coincide.
        """
        x = self._check_x(x)
        mod = self.kernel_module
        u = self.inner(x)
        a = np.array([self.dual_opt(x)])
        out = np.zeros(self.dim)
        fu = np.zeros(self.dim)
        tmp = np.zeros(self.dim)
        for k in range(self.num_clients):
            mod.outer_grad_inner(self.data, k, u, a, np.uint64(0), True, fu)
            mod.g_vjp(self.data, k, x, fu, np.uint64(0), True, tmp)
            out += tmp
        return out / self.num_clients

    def cross_entropy(self, x) -> float:
        """Mean logistic cross-entropy of w (equal client weights), exact."""
        return float(self.kernel_module.ce_value(self.data, self._check_x(x)))

    def auc(self, x, split: str = "test", use_inner: bool = False) -> float:
        """Empirical AUC of the linear scorer (Mann-Whitney statistic, ties count 1/2).

        split: ``"test"`` (the balanced held-out set) or ``"train"`` (all clients' rows).
        use_inner: score with the w-part of g(x) instead of w.
        """
        from scipy.stats import rankdata
        x = self._check_x(x)
        w = (self.inner(x) if use_inner else x)[:self.feature_dim]
        if split == "test":
            if self.test_features is None:
                raise ValueError("split='test' needs a problem built with test_features")
            Zs, Ls = self.test_features, self.test_labels
        elif split == "train":
            Zs, Ls = self.Z, self.L
        else:
            raise ValueError(f"split must be 'test' or 'train', got {split!r}")
        s = Zs @ w
        pos = Ls > 0
        npos, nneg = int(pos.sum()), int((~pos).sum())
        if npos == 0 or nneg == 0:
            raise ValueError("AUC needs both classes in the evaluated split")
        ranks = rankdata(s)
        return float((ranks[pos].sum() - npos * (npos + 1) / 2.0) / (npos * nneg))

    # --- constants of Assumptions 1-4 and Lemma 2 ----------------------------------------------
    def auc_constants(self, radius_u: float, radius_alpha: float) -> dict:
        """Constants of Assumptions 1-4 of the AUC paper for this problem, and Lemma 2's L_Phi.

        C_f is bounded on the set ||u|| <= radius_u, |alpha| <= radius_alpha (the outer
        function is quadratic, so no global bound exists: Assumption 2 holds only on bounded
        sets); the others are global. Norms: Euclidean for vectors, spectral for matrices.

        Derivations (Zmax = max_i ||z_i|| over all rows, sigma the logistic function):

        * mu = 2 p (1-p): d^2 F / d alpha^2 = -2 p (1-p) exactly (Assumption 4).
        * C_g = max(1, rho Zmax^2 / 4 - 1): a sampled Jacobian is I - rho blockdiag(H, 0, 0)
          with 0 <= H = mean sigma'(s) z z^T <= (Zmax^2 / 4) I, so its eigenvalues lie in
          [1 - rho Zmax^2/4, 1] (Assumption 2, for every sample, hence in second moment).
        * L_g = rho max_k mean_{i in k} ||z_i||^3 / (6 sqrt 3): ||H(w1) - H(w2)|| <=
          mean |sigma'(w1^T z) - sigma'(w2^T z)| ||z||^2 <= max|sigma''| mean ||z||^3 ||w1 - w2||
          and max|sigma''| = sqrt(3)/18 (Assumption 1 on the clients' g_k).
        * L_f = max_k ||Hess f^(k)||: f^(k) is quadratic in (u, alpha), its Hessian constant
          (assembled from the data); it bounds both rows of Assumption 1.
        * C_f = 2 max(p, 1-p) (radius_u (Zmax^2 + 1) + (1 + radius_alpha) Zmax): for one row
          with l = +1, grad_u L = [(2(1-p)(s-a) - 2(1+alpha)(1-p)) z, -2(1-p)(s-a), 0] and
          |s - a| = |(w~, a).(z, -1)| <= radius_u sqrt(||z||^2 + 1); l = -1 likewise with p.
        Lemma 2's L_Phi from these constants, and the direct bound beside it, are
        :func:`fedcomp.theory.constants.auc_lemma2` and ``auc_lemma2_direct`` (Lemma 2's value
        dominates the direct one since mu <= L_f: the alpha-block of the Hessian is -mu).

        Returns
        -------
        dict with C_g, L_g, C_f, L_f, mu, radius_u and radius_alpha.
        """
        Ru = V.real_in("radius_u", radius_u, 0.0, math.inf, low_open=False)
        Ra = V.real_in("radius_alpha", radius_alpha, 0.0, math.inf, low_open=False)
        p, rho = self.p, self.rho
        norms = np.linalg.norm(self.Z, axis=1)
        zmax = float(norms.max())
        mu = 2.0 * p * (1.0 - p)
        C_g = max(1.0, rho * zmax ** 2 / 4.0 - 1.0)
        L_g = rho * _SIGMA2_MAX * max(float(np.mean(norms[self.offsets[k]:self.offsets[k + 1]]
                                                     ** 3)) for k in range(self.num_clients))
        L_f = max(float(np.linalg.norm(self.outer_hessian(k), 2))
                  for k in range(self.num_clients))
        C_f = 2.0 * max(p, 1.0 - p) * (Ru * (zmax ** 2 + 1.0) + (1.0 + Ra) * zmax)
        return {"C_g": C_g, "L_g": L_g, "C_f": C_f, "L_f": L_f, "mu": mu,
                "radius_u": Ru, "radius_alpha": Ra}

    def outer_hessian(self, k: int) -> np.ndarray:
        """The constant Hessian of f^(k) in (u, alpha), shape (d + 1, d + 1)."""
        k = V.positive_int("k", k, minimum=0)
        if k >= self.num_clients:
            raise ValueError(f"k must be in [0, {self.num_clients - 1}], got {k}")
        dw, p = self.feature_dim, self.p
        Zk = self.Z[self.offsets[k]:self.offsets[k + 1]]
        Lk = self.L[self.offsets[k]:self.offsets[k + 1]]
        n = Zk.shape[0]
        H = np.zeros((dw + 3, dw + 3))
        ia, ib, ial = dw, dw + 1, dw + 2
        for z, lab in zip(Zk, Lk):
            c = (1.0 - p) if lab > 0 else p
            H[:dw, :dw] += 2.0 * c * np.outer(z, z)
            j = ia if lab > 0 else ib
            H[:dw, j] -= 2.0 * c * z
            H[j, :dw] -= 2.0 * c * z
            H[j, j] += 2.0 * c
            sgn = -1.0 if lab > 0 else 1.0
            H[:dw, ial] += 2.0 * c * sgn * z
            H[ial, :dw] += 2.0 * c * sgn * z
        H /= n
        H[ial, ial] = -2.0 * p * (1.0 - p)
        return H
