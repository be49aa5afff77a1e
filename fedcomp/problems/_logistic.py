"""Compiled logistic-loss helpers shared by the DRO kernels.

Client k's samples are rows off[k]:off[k+1] of the features F (N, d) with labels s in {-1, +1}.
loss(x) = log(1 + exp(-s a.x)), computed stably as softplus(-s a.x).
"""
import numba as nb
import numpy as np

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
    """(loss_i(x), d loss_i / d(a_i . x)) for sample row i."""
    z = 0.0
    for j in range(x.shape[0]):
        z += F[i, j] * x[j]
    m = -L[i] * z
    return softplus(m), -L[i] * sigmoid(m)


@nb.njit(cache=True, error_model="numpy", inline="always")
def batch_row(off, k, key, exact, j):
    """Row of the j-th sample of client k's minibatch (exact: the j-th row of the client)."""
    if exact:
        return off[k] + j
    return off[k] + randint(key, j, off[k + 1] - off[k])


@nb.njit(cache=True, error_model="numpy", inline="always")
def batch_len(off, k, exact, batch):
    return off[k + 1] - off[k] if exact else batch
