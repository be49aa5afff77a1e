"""Torch forms of the simulator's synthetic problems, for ``fedcomp.simulate(..., backend="torch")``.

Each form has the per-client oracles of :mod:`fedcomp.neural.problems` and draws exactly the
samples of the compiled kernels for the same key (minibatch rows from :func:`draw_rows`, normal
noise from the same counter-based streams), so the two backends can be compared iterate by
iterate. :func:`torch_form` maps a problem to its form, or raises a ValueError naming the
problems that have one.
"""
from __future__ import annotations

import numba as nb
import numpy as np

from fedcomp.neural._core import FlatModel, draw_rows, require_torch
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


def _forms():
    from fedcomp import problems as P
    return {
        P.LinearQuadratic: LinearQuadraticTorch,
        P.KLDRO: _kl_form,
        # minimax (AUC paper)
        # conditional (FCSG paper)
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
