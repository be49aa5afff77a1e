"""Kernels of the KL-regularised DRO problem (:class:`fedcomp.problems.KLDRO`).

data = (F (N, d), L (N,), off (K+1,) int64, params [lambda, shift, batch], weights (N,))

g_k(x; zeta) = (1/B) sum_{i in batch} exp((loss_i(x) - c) / lambda),  f(u) = lambda log(u) + c,
h = 0, with c = params[1] a fixed shift. For every constant c this is exactly FedDRO (4) scaled
by lambda (the value of the min-max (3)): f(g) = lambda log((1/K) sum_k (1/m_k) sum_i
exp(loss_i / lambda)). The shift only keeps exp in range: every algorithm here is equivariant
under g -> e^{-c/lambda} g (gradients use grad g * grad f, estimators are linear in g), so iterates
do not depend on c. The exact measures phi_value / phi_grad use log-sum-exp over all samples and
cannot overflow. weights[i] = 1 / (K m_k), the federated weight of sample i.
"""
import numba as nb
import numpy as np

from fedcomp.problems._logistic import batch_len, batch_row, loss2, loss_and_slope

HAS_H = False


@nb.njit(cache=True, error_model="numpy")
def g_value(data, k, x, key, exact, out):
    F, L, off, params = data[0], data[1], data[2], data[3]
    lam, c = params[0], params[1]
    n = batch_len(off, k, exact, np.int64(params[2]))
    s = 0.0
    for j in range(n):
        i = batch_row(off, k, key, exact, j)
        loss, _ = loss_and_slope(F, L, i, x)
        s += np.exp((loss - c) / lam)
    out[0] = s / n


@nb.njit(cache=True, error_model="numpy")
def g_value2(data, k, x1, x2, key, exact, out1, out2):
    """g_value at x1 and x2 with one minibatch (the protocol's two-point oracle): the rows are
    drawn once and each read once for both points; the same numbers, bit for bit, as two
    g_value calls with this key."""
    F, L, off, params = data[0], data[1], data[2], data[3]
    lam, c = params[0], params[1]
    n = batch_len(off, k, exact, np.int64(params[2]))
    s1 = 0.0
    s2 = 0.0
    for j in range(n):
        l1, l2 = loss2(F, L, batch_row(off, k, key, exact, j), x1, x2)
        s1 += np.exp((l1 - c) / lam)
        s2 += np.exp((l2 - c) / lam)
    out1[0] = s1 / n
    out2[0] = s2 / n


@nb.njit(cache=True, error_model="numpy")
def g_vjp(data, k, x, v, key, exact, out):
    F, L, off, params = data[0], data[1], data[2], data[3]
    lam, c = params[0], params[1]
    n = batch_len(off, k, exact, np.int64(params[2]))
    for j in range(out.shape[0]):
        out[j] = 0.0
    for jj in range(n):
        i = batch_row(off, k, key, exact, jj)
        loss, slope = loss_and_slope(F, L, i, x)
        w = np.exp((loss - c) / lam) / lam * slope * v[0] / n
        for j in range(out.shape[0]):
            out[j] += w * F[i, j]


@nb.njit(cache=True, error_model="numpy")
def h_grad(data, k, x, key, exact, out):
    for j in range(out.shape[0]):
        out[j] = 0.0


@nb.njit(cache=True, error_model="numpy")
def f_value(data, k, y):
    return data[3][0] * np.log(y[0]) + data[3][1]


@nb.njit(cache=True, error_model="numpy")
def f_grad(data, k, y, out):
    out[0] = data[3][0] / y[0]


@nb.njit(cache=True, error_model="numpy")
def _scaled_losses(data, x, z):
    """z_i = loss_i(x) / lambda; returns max z."""
    F, L, lam = data[0], data[1], data[3][0]
    zmax = -np.inf
    for i in range(F.shape[0]):
        loss, _ = loss_and_slope(F, L, i, x)
        z[i] = loss / lam
        if z[i] > zmax:
            zmax = z[i]
    return zmax


@nb.njit(cache=True, error_model="numpy")
def phi_value(data, x):
    wts, lam = data[4], data[3][0]
    z = np.empty(wts.shape[0])
    zmax = _scaled_losses(data, x, z)
    s = 0.0
    for i in range(z.shape[0]):
        s += wts[i] * np.exp(z[i] - zmax)
    return lam * (zmax + np.log(s))


@nb.njit(cache=True, error_model="numpy")
def phi_grad(data, x, out):
    F, L, wts = data[0], data[1], data[4]
    z = np.empty(wts.shape[0])
    zmax = _scaled_losses(data, x, z)
    s = 0.0
    for i in range(z.shape[0]):
        z[i] = wts[i] * np.exp(z[i] - zmax)
        s += z[i]
    for j in range(out.shape[0]):
        out[j] = 0.0
    for i in range(z.shape[0]):
        _, slope = loss_and_slope(F, L, i, x)
        c = z[i] / s * slope
        for j in range(out.shape[0]):
            out[j] += c * F[i, j]


@nb.njit(cache=True, error_model="numpy")
def g_mean(data, x, out):
    """g(x) = (1/K) sum_k g_k(x) in the shifted scale of the oracles."""
    off = data[2]
    K = off.shape[0] - 1
    tmp = np.empty(1)
    s = 0.0
    for k in range(K):
        g_value(data, k, x, np.uint64(0), True, tmp)
        s += tmp[0]
    out[0] = s / K
