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

from fedcomp.neural._core import FlatModel, require_torch
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
        # local-inner (ComFedL paper)
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
