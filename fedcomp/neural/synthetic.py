"""Torch forms of the simulator's synthetic problems, for ``fedcomp.simulate(..., backend="torch")``.

Each form has the per-client oracles of :mod:`fedcomp.neural.problems` and draws exactly the
samples of the compiled kernels for the same key (minibatch rows from :func:`draw_rows`, normal
noise from the same counter-based streams), so the two backends can be compared iterate by
iterate. :func:`torch_form` maps a problem to its form, or raises a ValueError naming the
problems that have one.
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

from fedcomp.neural._core import FlatModel, draw_rows, require_torch
from fedcomp.problems._conditional_kernels import cond_draw
from fedcomp.rng import add_normal, substream

torch = require_torch()


@nb.njit(cache=True)
def normals(key, stream, n):
    """The n normals ``add_normal(substream(key, stream), 1, out)`` adds, as an array."""
    out = np.zeros(n)
    add_normal(substream(np.uint64(key), stream), 1.0, out)
    return out


class LinearQuadraticTorch:
    """:class:`fedcomp.problems.LinearQuadratic` on tensors, with its kernels' sampling: value
    noise s e (e from substream 0 of the key), Jacobian-transpose product A_k^T v + s ||v|| z (z
    from substream 1); f is 0.5 ||y||^2, or Huber of radius R."""

    structure = "global-inner"
    has_h = False

    def __init__(self, problem, device="cpu", dtype=None):
        dtype = dtype or torch.float64
        self.A = torch.as_tensor(problem.A, dtype=dtype, device=device)
        self.b = torch.as_tensor(problem.b, dtype=dtype, device=device)
        self.noise = float(problem.noise)
        self.R = problem.huber_radius
        self.num_clients, self.dim, self.inner_dim = problem.num_clients, problem.dim, \
            problem.inner_dim

    def _noise(self, key, stream, n, like):
        return torch.as_tensor(normals(np.uint64(key), stream, n), dtype=like.dtype,
                               device=like.device)

    def g_value(self, k, x, key, exact, buf=None):
        out = self.A[k] @ x + self.b[k]
        if not exact and self.noise > 0:
            out = out + self.noise * self._noise(key, 0, self.inner_dim, x)
        return out

    def g_vjp(self, k, x, v, key, exact, buf=None):
        out = self.A[k].T @ v
        if not exact and self.noise > 0:
            out = out + self.noise * torch.linalg.vector_norm(v) * self._noise(key, 1, self.dim, x)
        return out

    def h_grad(self, k, x, key, exact, buf=None):
        return torch.zeros_like(x)

    def f_grad(self, y):
        if self.R is None:
            return y.clone()
        n = torch.linalg.vector_norm(y)
        return y if n <= self.R else (self.R / n) * y



@nb.njit(cache=True)
def conditional_draws(data, k, key, n):
    """The first n outer samples of `key` for client k of an InvariantLogistic, exactly as its
    kernels draw them (``cond_draw``): the means etabar of their inner samples (n, d) and the
    labels b (n,)."""
    E = np.empty((n, data[0].shape[1]))
    b = np.empty(n)
    a = np.empty(data[0].shape[1])
    for i in range(n):
        b[i] = cond_draw(data, k, np.uint64(key), i, a, E[i])
    return E, b


class InvariantLogisticTorch:
    """:class:`fedcomp.problems.InvariantLogistic` (FCSG paper (1)) on tensors, with its kernels'
    sampling (outer samples i of a key from :func:`conditional_draws`) and arithmetic
    (:mod:`fedcomp.problems._conditional_kernels`):

    * ``cond_grad_b(k, x, key, exact, nb)``: the gradient of estimator (3) with nb outer samples,
      (1/nb) sum_i f'_{b_i}(etabar_i . x) etabar_i + grad h(x); exact: grad Phi_k(x) in closed
      form up to the one-dimensional logistic-normal integrals, by the kernels' quadrature
      (Gauss-Hermite for sd <= 1, else the piecewise-linear limits plus composite Gauss-Legendre
      on [0, 40]); ``cond_grad``: the same with the problem's outer batch b;
    * the compositional reformulation of the Local-SCGD(M) baselines: ``g_value`` (mu_k . x, or
      etabar . x of outer sample 0), ``g_vjp``, ``h_grad`` and ``f_grad_batch`` (f_k depends on the
      client through the label share p_k, so only the batch form exists)."""

    structure = "local-inner"
    has_h = True

    def __init__(self, problem, device="cpu", dtype=None):
        dtype = dtype or torch.float64
        self.data = problem.data

        def as_t(a):
            return torch.as_tensor(a, dtype=dtype, device=device)

        Wt, Mu, _, gh_t, gh_w, pl_z, pl_w, pl_f = problem.data[:8]
        self.W, self.Mu = as_t(Wt), as_t(Mu)
        self.gh_t, self.gh_w, self.pl_z, self.pl_w, self.pl_f = map(
            as_t, (gh_t, gh_w, pl_z, pl_w, pl_f))
        self.s1, self.lam, self.gam = problem.sigma1, problem.lam, problem.gamma
        self.outer_batch = problem.outer_batch
        self.num_clients, self.dim, self.inner_dim = problem.num_clients, problem.dim, 1
        # p_k = P(b = +1) = Phi_N(mu_k . w_k / (sigma1 |w_k|)), the reformulation's label share
        self.share = self._cdf((self.Mu * self.W).sum(1) / (self.s1 * self.W.norm(dim=1)))

    @staticmethod
    def _cdf(r):
        return 0.5 * torch.special.erfc(-r / math.sqrt(2.0))

    def _draws(self, k, key, n, like):
        E, b = conditional_draws(self.data, k, np.uint64(key), n)
        return (torch.as_tensor(E, dtype=like.dtype, device=like.device),
                torch.as_tensor(b, dtype=like.dtype, device=like.device))

    def _sigmoid_moments(self, mean, sd):
        """(E sigmoid(Z), E sigmoid'(Z)), Z ~ N(mean, sd^2): the B and C of the kernels'
        logistic_normal, by the same quadrature."""
        if sd <= 0.0:
            s = torch.sigmoid(mean)
            return s, s * (1.0 - s)
        if sd <= 1.0:
            s = torch.sigmoid(mean + sd * self.gh_t)
            return (self.gh_w * s).sum(), (self.gh_w * s * (1.0 - s)).sum()
        z, w = self.pl_z, self.pl_w
        c = 1.0 / (math.sqrt(2.0 * math.pi) * sd)
        gp = c * torch.exp(-0.5 * ((z - mean) / sd) ** 2)
        gm = c * torch.exp(-0.5 * ((z + mean) / sd) ** 2)
        B = self._cdf(mean / sd) + (w * (gm - gp) * self.pl_f[1]).sum()
        C = (w * (gp + gm) * self.pl_f[2]).sum()
        return B, C

    def _exact_grad(self, k, x):
        """grad (Phi_k - h)(x) (the kernels' client_value_grad with tau2 = 0)."""
        mu, w, s1 = self.Mu[k], self.W[k], self.s1
        sd_v = s1 * torch.sqrt(w @ w)
        r = (mu @ w) / sd_v
        pr = torch.exp(-0.5 * r * r) / math.sqrt(2.0 * math.pi)
        B, C = self._sigmoid_moments(mu @ x, float(torch.sqrt(s1 * s1 * (x @ x))))
        return (B - self._cdf(r)) * mu + s1 * s1 * C * x - (s1 * s1 * pr / sd_v) * w

    def h_grad(self, k, x, key, exact, buf=None):
        q = 1.0 + self.gam * x * x
        return self.lam * 2.0 * self.gam * x / (q * q)

    def cond_grad_b(self, k, x, key, exact, nb, buf=None):
        if exact:
            g = self._exact_grad(k, x)
        else:
            E, b = self._draws(k, key, nb, x)
            g = (-b * torch.sigmoid(-b * (E @ x)) / nb) @ E
        return g + self.h_grad(k, x, key, exact)

    def cond_grad(self, k, x, key, exact, buf=None):
        return self.cond_grad_b(k, x, key, exact, self.outer_batch, buf)

    # the compositional reformulation (Local-SCGD(M) baselines)
    def g_value(self, k, x, key, exact, buf=None):
        e = self.Mu[k] if exact else self._draws(k, key, 1, x)[0][0]
        return (e @ x).reshape(1)

    def g_vjp(self, k, x, v, key, exact, buf=None):
        e = self.Mu[k] if exact else self._draws(k, key, 1, x)[0][0]
        return e * v[0]

    def f_grad_batch(self, y):
        p = self.share[:, None]
        return -p * torch.sigmoid(-y) + (1.0 - p) * torch.sigmoid(y)


@nb.njit(cache=True)
def normal_rows(key, n, m):
    """(n, m): row j holds the m normals ``add_normal(substream(key, j), 1, out)`` adds (the j-th
    sample of a batch of :mod:`fedcomp.problems._maml_kernels`)."""
    out = np.zeros((n, m))
    for j in range(n):
        add_normal(substream(np.uint64(key), j), 1.0, out[j])
    return out


def _softplus(z):
    """The kernels' softplus (:mod:`fedcomp.problems._logistic`), branch for branch."""
    return torch.clamp(z, min=0.0) + torch.log1p(torch.exp(-torch.abs(z)))


def _sigmoid(z):
    """The kernels' sigmoid: 1 / (1 + e^-z) for z >= 0, e^z / (1 + e^z) otherwise."""
    e = torch.exp(-torch.abs(z))
    return torch.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


class _LocalInnerForm:
    """What the two local-inner forms share: the protocol oracles (the problem's default batch
    ``self.batch``) from the ``*_b`` ones, no h, and the weights n_k / N."""

    structure = "local-inner"
    has_h = False

    def client_weight(self, k):
        return float(self.weights[k])

    def g_value(self, k, x, key, exact, buf=None):
        return self.g_value_b(k, x, key, exact, self.batch)

    def g_vjp(self, k, x, v, key, exact, buf=None):
        return self.g_vjp_b(k, x, v, key, exact, self.batch)

    def h_grad(self, k, x, key, exact, buf=None):
        return torch.zeros_like(x)


class RobustFLTorch(_LocalInnerForm):
    """:class:`fedcomp.problems.RobustFL` on tensors: inner g_k = client k's regularised
    logistic loss on a minibatch (rows ``randint(key, j, n_k)``, :func:`draw_rows`), outer
    f(y) = exp(y / gamma); the local-inner oracles of :mod:`fedcomp.problems._robustfl_kernels`
    (``*_b`` with an explicit batch size) and the protocol ones (the problem's default batch)."""

    def __init__(self, problem, device="cpu", dtype=None):
        dtype = dtype or torch.float64
        F, L, off, params, weights = problem.data
        self.F = torch.as_tensor(F, dtype=dtype, device=device)
        self.L = torch.as_tensor(L, dtype=dtype, device=device)
        self.off = np.asarray(off)
        self.gamma, self.l2, self.batch = float(params[0]), float(params[1]), int(params[2])
        self.weights = np.asarray(weights)
        self.num_clients, self.dim, self.inner_dim = problem.num_clients, problem.dim, 1

    def _batch(self, k, key, exact, nb_):
        lo, hi = int(self.off[k]), int(self.off[k + 1])
        if exact:
            return self.F[lo:hi], self.L[lo:hi]
        rows = torch.as_tensor(lo + draw_rows(np.uint64(key), np.int64(nb_), np.int64(hi - lo)),
                               device=self.F.device)
        return self.F[rows], self.L[rows]

    def _loss(self, k, x, key, exact, nb_):
        A, s = self._batch(k, key, exact, nb_)
        return _softplus(-s * (A @ x)).sum() / A.shape[0] + 0.5 * self.l2 * (x @ x)

    def _loss_grad(self, k, x, scale, key, exact, nb_):
        A, s = self._batch(k, key, exact, nb_)
        c = -scale * s * _sigmoid(-s * (A @ x)) / A.shape[0]
        return scale * self.l2 * x + A.T @ c

    def g_value_b(self, k, x, key, exact, nb_, buf=None):
        return self._loss(k, x, key, exact, nb_)[None]

    def g_vjp_b(self, k, x, v, key, exact, nb_, buf=None):
        return self._loss_grad(k, x, v[0], key, exact, nb_)

    def f_grad_b(self, k, y, key, exact, nb_, buf=None):
        return self.f_grad(y)

    def loss_value_b(self, k, x, key, exact, nb_, buf=None):
        return self._loss(k, x, key, exact, nb_)

    def loss_grad_b(self, k, x, key, exact, nb_, buf=None):
        return self._loss_grad(k, x, 1.0, key, exact, nb_)

    def f_grad(self, y):
        return torch.exp(y / self.gamma) / self.gamma


class MAMLQuadraticTorch(_LocalInnerForm):
    """:class:`fedcomp.problems.MAMLQuadratic` on tensors: task k's samples a = L_k e[:d],
    s = a.theta_k + noise e[d] with e the normals of ``substream(key, j)`` (:func:`normal_rows`),
    as :mod:`fedcomp.problems._maml_kernels` draws them; inner g_k(w; B) = w - alpha grad
    l_k(w; B), outer f_k = l_k (MAML (7)) or exp(l_k / gamma) (problem (10)) on the query batch.
    The outer function differs per client, so the protocol's f_grad is ``f_grad_batch``."""

    def __init__(self, problem, device="cpu", dtype=None):
        dtype = dtype or torch.float64
        Lc, theta, params, sigma, weights = problem.data
        self.Lc = torch.as_tensor(Lc, dtype=dtype, device=device)
        self.theta = torch.as_tensor(theta, dtype=dtype, device=device)
        self.sigma = torch.as_tensor(sigma, dtype=dtype, device=device)
        self.alpha, self.noise, self.gamma = float(params[0]), float(params[1]), float(params[2])
        self.batch = int(params[3])
        self.weights = np.asarray(weights)
        self.num_clients, self.dim, self.inner_dim = problem.num_clients, problem.dim, problem.dim

    def _samples(self, k, key, nb_):
        e = torch.as_tensor(normal_rows(np.uint64(key), nb_, self.dim + 1),
                            dtype=self.Lc.dtype, device=self.Lc.device)
        A = e[:, :self.dim] @ self.Lc[k].T
        return A, A @ self.theta[k] + self.noise * e[:, self.dim]

    def _task_grad(self, k, w, key, exact, nb_):
        """(l_k(w; B), grad l_k(w; B))."""
        if exact:
            r = w - self.theta[k]
            g = self.sigma[k] @ r
            return 0.5 * (r @ g) + 0.5 * self.noise * self.noise, g
        A, s = self._samples(k, key, nb_)
        r = A @ w - s
        return 0.5 * (r @ r) / nb_, (A.T @ r) / nb_

    def g_value_b(self, k, x, key, exact, nb_, buf=None):
        return x - self.alpha * self._task_grad(k, x, key, exact, nb_)[1]

    def g_vjp_b(self, k, x, v, key, exact, nb_, buf=None):
        if exact:
            return v - self.alpha * (self.sigma[k] @ v)
        A, _ = self._samples(k, key, nb_)
        return v - self.alpha * (A.T @ (A @ v)) / nb_

    def f_grad_b(self, k, y, key, exact, nb_, buf=None):
        val, g = self._task_grad(k, y, key, exact, nb_)
        if self.gamma > 0.0:
            return g * (torch.exp(val / self.gamma) / self.gamma)
        return g

    def loss_value_b(self, k, x, key, exact, nb_, buf=None):
        return self._task_grad(k, x, key, exact, nb_)[0]

    def loss_grad_b(self, k, x, key, exact, nb_, buf=None):
        return self._task_grad(k, x, key, exact, nb_)[1]

    def f_grad_batch(self, y):
        """grad f_k(y_k) (exact) for every row of y, (K, d_g)."""
        return torch.stack([self.f_grad_b(k, y[k], 0, True, 0) for k in range(y.shape[0])])


def _kl_form(problem, device, dtype):
    from fedcomp.neural.models import LogisticRegression
    from fedcomp.neural.problems import ClientData, kl_dro
    off = problem.data[2]
    F, L = problem.data[0], problem.data[1]
    K = problem.num_clients
    with torch.no_grad():
        model = FlatModel(LogisticRegression(problem.dim, 1, bias=False)).to(device, dtype)
    data = ClientData([F[off[k]:off[k + 1]] for k in range(K)],
                      [L[off[k]:off[k + 1]] for k in range(K)], device=device, dtype=dtype)
    return kl_dro(model, data, lam=problem.lam, batch_size=problem.batch_size,
                  shift=problem.shift)


def _auc_form(problem, device, dtype):
    """:class:`fedcomp.problems.AUCMinimax` as the neural AUC min-max with a linear score: the
    model x = [w, a, b] (w^T z, no bias: an intercept is a column of z), labels +1 -> 1 and
    -1 -> 0, the problem's p, rho and batch size; minibatches drawn as the kernels draw them
    (``randint(key, j, n_k)``), the dual unconstrained (no ``dual_floor``), as in the kernels."""
    from fedcomp.neural.models import AUCModel, LogisticRegression
    from fedcomp.neural.problems import AUCMinimax, ClientData
    off = problem.offsets
    K = problem.num_clients
    with torch.no_grad():
        model = FlatModel(AUCModel(LogisticRegression(problem.feature_dim, 1, bias=False)))
        model = model.to(device, dtype)
    data = ClientData([problem.Z[off[k]:off[k + 1]] for k in range(K)],
                      [(problem.L[off[k]:off[k + 1]] > 0).astype(np.int64) for k in range(K)],
                      device=device, dtype=dtype)
    return AUCMinimax(model, data, prior=problem.p, rho=problem.rho,
                      batch_size=problem.batch_size, score="linear", dual_floor=None)


def _forms():
    from fedcomp import problems as P
    return {
        P.LinearQuadratic: LinearQuadraticTorch,
        P.KLDRO: _kl_form,
        # minimax (AUC paper)
        P.AUCMinimax: _auc_form,
        # conditional (FCSG paper)
        P.InvariantLogistic: InvariantLogisticTorch,
        # local-inner (ComFedL paper)
        P.RobustFL: RobustFLTorch, P.MAMLQuadratic: MAMLQuadraticTorch,
    }


def supported() -> list[str]:
    """Names of the synthetic problem classes that have a torch form."""
    return sorted(c.__name__ for c in _forms())


def torch_form(problem, device="cpu", dtype=None):
    """The torch form of a synthetic problem (float64 unless `dtype` says otherwise)."""
    dtype = dtype or torch.float64
    for cls, make in _forms().items():
        if type(problem) is cls:
            return make(problem, device, dtype)
    raise ValueError(f"backend='torch' supports the problems {', '.join(supported())} (and the "
                     f"neural problems of fedcomp.neural); {type(problem).__name__} has no "
                     f"torch form")
