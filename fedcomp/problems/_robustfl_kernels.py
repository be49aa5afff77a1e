"""Kernels of :class:`fedcomp.problems.RobustFL` (KL-regularised robust FL, ComFedL problem (6)).

data = (F (N, d), L (N,) labels in {-1, +1}, off (K+1,) int64, params [gamma, l2, batch,
outer_batch], weights (K,) = n_k / N)

In fedcomp's notation (ComFedL's names in brackets):

* inner g_k(x) [f^i(w)] = client k's regularised logistic loss, a scalar (d_g = 1):
  g_k(x) = (1/n_k) sum_{i in client k} log(1 + exp(-s_i a_i.x)) + (l2/2) ||x||^2;
* outer f_k(y) = f(y) [g(y)] = exp(y / gamma), deterministic and identical for every client (the
  "special problem (1)" of ComFedL Theorem 2);
* Phi(x) = (1/K) sum_k exp(g_k(x) / gamma)  (ComFedL (6): uniform client weights 1/n, whatever
  the client's data size).

Protocol oracles (see :mod:`fedcomp.problems.base`) plus the local-inner family's oracles, each
with an explicit minibatch size ``nb`` (ComFedL's b for the inner map, b1 for the outer)::

    g_value_b(data, k, x, key, exact, nb, out)      out (1,) = g_k(x; B), |B| = nb
    g_vjp_b(data, k, x, v, key, exact, nb, out)     out (d,) = grad g_k(x; B) v   (same B as
                                                    g_value_b with the same key)
    f_value_b(data, k, y, key, exact, nb) -> float  f_k(y; B~) (exact here: f is deterministic)
    f_grad_b(data, k, y, key, exact, nb, out)       grad f_k(y; B~)
    loss_value_b(data, k, x, key, exact, nb)        the plain client loss l_k(x; B) that the FL
    loss_grad_b(data, k, x, key, exact, nb, out)    baselines (FedAvg, q-FedAvg, DRFA) minimise:
                                                    here l_k = g_k, the client's logistic loss
    client_weight(data, k) -> float                 n_k / N (FedAvg's aggregation weight)

A minibatch is ``nb`` rows of the client's data drawn uniformly with replacement from the key
(``randint(key, j, n_k)`` for the j-th row); ``exact=True`` makes a full pass over the client's
rows. ``g_value``/``g_vjp`` use the problem's default batch (params[2]).
``g_mean`` returns (1/K) sum_k g_k(x), the mean client loss (no algorithm tracks it as an inner
estimate for this family).
"""
import numba as nb
import numpy as np

from fedcomp.problems._logistic import sigmoid as _sigmoid
from fedcomp.problems._logistic import softplus as _softplus
from fedcomp.rng import randint

HAS_H = False
LOCAL_INNER = True


@nb.njit(cache=True, inline="always")
def _row(off, k, key, exact, j):
    if exact:
        return off[k] + j
    return off[k] + randint(key, j, off[k + 1] - off[k])


@nb.njit(cache=True, inline="always")
def _count(off, k, exact, nb_):
    return off[k + 1] - off[k] if exact else nb_


@nb.njit(cache=True)
def _loss(data, k, x, key, exact, nb_):
    F, L, off, l2 = data[0], data[1], data[2], data[3][1]
    n = _count(off, k, exact, nb_)
    s = 0.0
    for jj in range(n):
        i = _row(off, k, key, exact, jj)
        z = 0.0
        for j in range(x.shape[0]):
            z += F[i, j] * x[j]
        s += _softplus(-L[i] * z)
    r = 0.0
    for j in range(x.shape[0]):
        r += x[j] * x[j]
    return s / n + 0.5 * l2 * r


@nb.njit(cache=True)
def _loss_grad(data, k, x, scale, key, exact, nb_, out):
    """out = scale * grad l_k(x; B)."""
    F, L, off, l2 = data[0], data[1], data[2], data[3][1]
    n = _count(off, k, exact, nb_)
    d = x.shape[0]
    for j in range(d):
        out[j] = scale * l2 * x[j]
    for jj in range(n):
        i = _row(off, k, key, exact, jj)
        z = 0.0
        for j in range(d):
            z += F[i, j] * x[j]
        m = -L[i] * z
        c = -scale * L[i] * _sigmoid(m) / n
        for j in range(d):
            out[j] += c * F[i, j]


@nb.njit(cache=True)
def g_value_b(data, k, x, key, exact, nb_, out):
    out[0] = _loss(data, k, x, key, exact, nb_)


@nb.njit(cache=True)
def g_vjp_b(data, k, x, v, key, exact, nb_, out):
    _loss_grad(data, k, x, v[0], key, exact, nb_, out)


@nb.njit(cache=True)
def g_value(data, k, x, key, exact, out):
    g_value_b(data, k, x, key, exact, np.int64(data[3][2]), out)


@nb.njit(cache=True)
def g_vjp(data, k, x, v, key, exact, out):
    g_vjp_b(data, k, x, v, key, exact, np.int64(data[3][2]), out)


@nb.njit(cache=True)
def h_grad(data, k, x, key, exact, out):
    for j in range(out.shape[0]):
        out[j] = 0.0


@nb.njit(cache=True)
def f_value(data, k, y):
    return np.exp(y[0] / data[3][0])


@nb.njit(cache=True)
def f_grad(data, k, y, out):
    gam = data[3][0]
    out[0] = np.exp(y[0] / gam) / gam


@nb.njit(cache=True)
def f_value_b(data, k, y, key, exact, nb_):
    return f_value(data, k, y)


@nb.njit(cache=True)
def f_grad_b(data, k, y, key, exact, nb_, out):
    f_grad(data, k, y, out)


@nb.njit(cache=True)
def loss_value_b(data, k, x, key, exact, nb_):
    return _loss(data, k, x, key, exact, nb_)


@nb.njit(cache=True)
def loss_grad_b(data, k, x, key, exact, nb_, out):
    _loss_grad(data, k, x, 1.0, key, exact, nb_, out)


@nb.njit(cache=True)
def client_weight(data, k):
    return data[4][k]


@nb.njit(cache=True)
def g_mean(data, x, out):
    K = data[2].shape[0] - 1
    s = 0.0
    for k in range(K):
        s += _loss(data, k, x, np.uint64(0), np.bool_(True), np.int64(0))
    out[0] = s / K


@nb.njit(cache=True)
def phi_value(data, x):
    K = data[2].shape[0] - 1
    gam = data[3][0]
    s = 0.0
    for k in range(K):
        s += np.exp(_loss(data, k, x, np.uint64(0), np.bool_(True), np.int64(0)) / gam)
    return s / K


@nb.njit(cache=True)
def phi_grad(data, x, out):
    K = data[2].shape[0] - 1
    gam = data[3][0]
    d = x.shape[0]
    tmp = np.empty(d)
    for j in range(d):
        out[j] = 0.0
    for k in range(K):
        w = np.exp(_loss(data, k, x, np.uint64(0), np.bool_(True), np.int64(0)) / gam) / gam / K
        _loss_grad(data, k, x, w, np.uint64(0), np.bool_(True), np.int64(0), tmp)
        for j in range(d):
            out[j] += tmp[j]
