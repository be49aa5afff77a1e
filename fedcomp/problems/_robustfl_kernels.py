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
    comp_grad_b(data, k, x, key_in, key_out, exact, nb_in, nb_out, y, v, u)
                                                    ComFedL's direction (the protocol's optional
                                                    oracle), B's rows and sigmoids computed once

A minibatch is ``nb`` rows of the client's data drawn uniformly with replacement from the key
(``randint(key, j, n_k)`` for the j-th row); ``exact=True`` makes a full pass over the client's
rows. Both go four samples at a time through the block helpers of
:mod:`fedcomp.problems._logistic` (the KL-DRO and AUC kernels' path: four-lane margins, fedcomp's
vector exp / log1p, every sum over the samples in sample order); minibatches of fewer than
``_BLOCK`` samples go one sample at a time with libm's exp / log1p. The exact passes are what
``phi_value``, ``phi_value_grad`` and ``g_mean`` (the recorded metrics) make over all the data.
``g_value``/``g_vjp`` use the problem's default batch (params[2]).
``g_mean`` returns (1/K) sum_k g_k(x), the mean client loss (no algorithm tracks it as an inner
estimate for this family).
"""
import numba as nb
import numpy as np

from fedcomp.engine.dense import row_dot
from fedcomp.engine.simd import div4, lane4, make4, mul4, splat4
from fedcomp.engine.vmath import sigmoid4, softplus_sigmoid4
from fedcomp.problems._logistic import (add_block, add_lanes, add_row, batch_len, batch_row,
                                        block_margins, sigmoid, slopes4, softplus)

HAS_H = False
LOCAL_INNER = True
#: batches below this many samples go one sample at a time (libm's exp / log1p): measured faster
#: there than a vector block with unused lanes
_BLOCK = 4


@nb.njit(cache=True, error_model="numpy", inline="always")
def _with_ridge(s, n, l2, x):
    """The batch loss from its summed softplus terms: s / n + (l2/2) ||x||^2."""
    r = 0.0
    for i in range(x.shape[0]):
        r += x[i] * x[i]
    return s / n + 0.5 * l2 * r


@nb.njit(cache=True, error_model="numpy", inline="always")
def _ridge_grad_into(out, scale, l2, x):
    """out = scale * l2 * x: the gradient's start, before the samples' rows are added."""
    for i in range(x.shape[0]):
        out[i] = scale * l2 * x[i]


@nb.njit(cache=True, error_model="numpy", inline="always")
def _block_weights(L, rows, sg, scale, n):
    """The weights scale * (-s_i sigmoid(m_i)) / n of a block's rows (sg: their sigmoids)."""
    return div4(mul4(slopes4(L, rows, sg), splat4(scale)), splat4(n))


@nb.njit(cache=True, error_model="numpy")
def _loss(data, k, x, key, exact, nb_):
    """g_k(x; B): the softplus of the margins four samples at a time (_logistic's block helpers,
    fedcomp's vector exp / log1p), summed in sample order, plus the ridge term."""
    F, L, off, l2 = data[0], data[1], data[2], data[3][1]
    n = batch_len(off, k, exact, nb_)
    s = 0.0
    if n < _BLOCK:
        for j in range(n):
            i = batch_row(off, k, key, exact, j)
            s += softplus(-L[i] * row_dot(F, i, x))
    else:
        j = np.int64(0)
        while j < n:  # eight samples: two independent vector evaluations (lanes past n unread)
            _, ma = block_margins(F, L, off, k, key, exact, j, n, x)
            _, mb = block_margins(F, L, off, k, key, exact, j + 4, n, x)
            spa, _ = softplus_sigmoid4(ma)
            spb, _ = softplus_sigmoid4(mb)
            s = add_lanes(s, spa, j, n)
            s = add_lanes(s, spb, j + 4, n)
            j += 8
    return _with_ridge(s, n, l2, x)


@nb.njit(cache=True, error_model="numpy")
def _loss_grad(data, k, x, scale, key, exact, nb_, out):
    """out = scale * grad g_k(x; B): the ridge term, then the samples' rows weighted by
    scale * (-s_i sigmoid(m_i)) / n, added in sample order (four rows at a time)."""
    F, L, off, l2 = data[0], data[1], data[2], data[3][1]
    n = batch_len(off, k, exact, nb_)
    _ridge_grad_into(out, scale, l2, x)
    if n < _BLOCK:
        for j in range(n):
            i = batch_row(off, k, key, exact, j)
            add_row(out, -L[i] * sigmoid(-L[i] * row_dot(F, i, x)) * scale / n, F, i)
        return
    j = np.int64(0)
    while j < n:
        rows, m = block_margins(F, L, off, k, key, exact, j, n, x)
        add_block(out, _block_weights(L, rows, sigmoid4(m), scale, n), F, rows, j, n)
        j += 4


@nb.njit(cache=True)
def g_value_b(data, k, x, key, exact, nb_, out):
    out[0] = _loss(data, k, x, key, exact, nb_)


@nb.njit(cache=True)
def g_vjp_b(data, k, x, v, key, exact, nb_, out):
    _loss_grad(data, k, x, v[0], key, exact, nb_, out)


@nb.njit(cache=True, error_model="numpy")
def comp_grad_b(data, k, x, key_in, key_out, exact, nb_in, nb_out, y, v, u):
    """y = g_k(x; B), v = grad f_k(y; B~), u = grad g_k(x; B)^T v (ComFedL's direction) with B's
    rows drawn and their margins computed once: the rows and the sigmoids of the value pass are
    kept for the gradient, which needs the scale v = f'(y) before it can weight them. The numbers
    of g_value_b, f_grad_b and g_vjp_b called in turn, bit for bit (the same blocks, the same
    sigmoid: softplus_sigmoid4's is sigmoid4's; tests/test_comfedl.py)."""
    if exact:
        g_value_b(data, k, x, key_in, exact, nb_in, y)
        f_grad_b(data, k, y, key_out, exact, nb_out, v)
        g_vjp_b(data, k, x, v, key_in, exact, nb_in, u)
        return
    F, L, off, l2 = data[0], data[1], data[2], data[3][1]
    n = batch_len(off, k, exact, nb_in)
    s = 0.0
    if n < _BLOCK:
        rows1 = np.empty(n, dtype=np.int64)
        ms = np.empty(n)
        for j in range(n):
            i = batch_row(off, k, key_in, exact, j)
            rows1[j] = i
            ms[j] = -L[i] * row_dot(F, i, x)
            s += softplus(ms[j])
    else:
        nblk = (n + 3) // 4
        R = np.empty((nblk, 4), dtype=np.int64)
        SG = np.empty((nblk, 4))
        j = np.int64(0)
        b = 0
        while j < n:
            rows, m = block_margins(F, L, off, k, key_in, exact, j, n, x)
            sp, sg = softplus_sigmoid4(m)
            s = add_lanes(s, sp, j, n)
            R[b, 0], R[b, 1], R[b, 2], R[b, 3] = rows[0], rows[1], rows[2], rows[3]
            SG[b, 0], SG[b, 1] = lane4(sg, 0), lane4(sg, 1)
            SG[b, 2], SG[b, 3] = lane4(sg, 2), lane4(sg, 3)
            j += 4
            b += 1
    y[0] = _with_ridge(s, n, l2, x)
    f_grad_b(data, k, y, key_out, exact, nb_out, v)
    scale = v[0]
    _ridge_grad_into(u, scale, l2, x)
    if n < _BLOCK:
        for j in range(n):
            i = rows1[j]
            add_row(u, -L[i] * sigmoid(ms[j]) * scale / n, F, i)
        return
    j = np.int64(0)
    b = 0
    while j < n:
        rows = (R[b, 0], R[b, 1], R[b, 2], R[b, 3])
        sg = make4(SG[b, 0], SG[b, 1], SG[b, 2], SG[b, 3])
        add_block(u, _block_weights(L, rows, sg, scale, n), F, rows, j, n)
        j += 4
        b += 1


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
def phi_value_grad(data, x, out):
    """out = grad Phi(x); returns Phi(x): each client's loss computed once for both (the numbers
    of phi_value, and of phi_grad, bit for bit)."""
    K = data[2].shape[0] - 1
    gam = data[3][0]
    d = x.shape[0]
    tmp = np.empty(d)
    for j in range(d):
        out[j] = 0.0
    s = 0.0
    for k in range(K):
        e = np.exp(_loss(data, k, x, np.uint64(0), np.bool_(True), np.int64(0)) / gam)
        s += e
        _loss_grad(data, k, x, e / gam / K, np.uint64(0), np.bool_(True), np.int64(0), tmp)
        for j in range(d):
            out[j] += tmp[j]
    return s / K


@nb.njit(cache=True)
def phi_grad(data, x, out):
    phi_value_grad(data, x, out)
