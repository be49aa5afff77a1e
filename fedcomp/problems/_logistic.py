"""Compiled logistic-loss helpers shared by the DRO kernels.

Client k's samples are rows off[k]:off[k+1] of the features F (N, d) with labels s in {-1, +1}.
loss(x) = log(1 + exp(-s a.x)), computed stably as softplus(-s a.x). The products a.x are
:func:`fedcomp.engine.dense.row_dot` (four-lane partial sums in a documented order).
"""
import numba as nb
import numpy as np

from fedcomp.engine.dense import row_dot, row_dot2
from fedcomp.rng import randint


@nb.njit(cache=True, error_model="numpy", inline="always")
def softplus(z):
    if z > 0.0:
        return z + np.log1p(np.exp(-z))
    return np.log1p(np.exp(z))


@nb.njit(cache=True, error_model="numpy", inline="always")
def sigmoid(z):
    if z >= 0.0:
        return 1.0 / (1.0 + np.exp(-z))
    e = np.exp(z)
    return e / (1.0 + e)


@nb.njit(cache=True, error_model="numpy", inline="always")
def loss_and_slope(F, L, i, x):
    """(loss_i(x), d loss_i / d(a_i . x)) for sample row i: softplus(m) and -s_i sigmoid(m) at
    m = -s_i a_i . x, from one exp(-|m|) (the value each of the two functions computes itself)."""
    m = -L[i] * row_dot(F, i, x)
    if m > 0.0:
        e = np.exp(-m)
        return m + np.log1p(e), -L[i] * (1.0 / (1.0 + e))
    e = np.exp(m)
    if m == 0.0:  # softplus takes exp(0.0), sigmoid exp(-0.0): both 1.0
        return np.log1p(e), -L[i] * (1.0 / (1.0 + e))
    return np.log1p(e), -L[i] * (e / (1.0 + e))


@nb.njit(cache=True, error_model="numpy", inline="always")
def loss2(F, L, i, x1, x2):
    """(loss_i(x1), loss_i(x2)), the row read once (the numbers of two loss_and_slope calls)."""
    z1, z2 = row_dot2(F, i, x1, x2)
    return softplus(-L[i] * z1), softplus(-L[i] * z2)


@nb.njit(cache=True, error_model="numpy", inline="always")
def batch_row(off, k, key, exact, j):
    """Row of the j-th sample of client k's minibatch (exact: the j-th row of the client)."""
    if exact:
        return off[k] + j
    return off[k] + randint(key, j, off[k + 1] - off[k])


@nb.njit(cache=True, error_model="numpy", inline="always")
def batch_len(off, k, exact, batch):
    return off[k + 1] - off[k] if exact else batch
