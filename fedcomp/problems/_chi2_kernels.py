"""Kernels of the chi-square-regularised DRO problem as FedDRO (5) prints it
(:class:`fedcomp.problems.Chi2DRO`).

data = (F (N, d), L (N,), off (K+1,) int64, params [lambda, form, batch], weights (N,))

form 0, FedDRO (5) as printed:
g_k(x; zeta) = (1/B) sum_{i in batch} loss_i(x),  f(u) = u^2 / (2 lambda),
h_k(x; xi) = -(1/(2 lambda B)) sum_{i in batch} loss_i(x)^2,  so Phi = -Var(loss) / (2 lambda).
form 1, corrected (the value of the min-max (3) with D_chi2 when its unconstrained maximiser
p_i = 1/m + (loss_i - mean loss)/(lambda m) lies in the simplex):
g_k as above, f(u) = -u^2 / (2 lambda), h_k = (1/B) sum (loss_i + loss_i^2 / (2 lambda)),
so Phi = mean loss + Var(loss) / (2 lambda).
"""
import numba as nb
import numpy as np

from fedcomp.problems._logistic import batch_len, batch_row, loss_and_slope

HAS_H = True


@nb.njit(cache=True, error_model="numpy")
def g_value(data, k, x, key, exact, out):
    F, L, off, params = data[0], data[1], data[2], data[3]
    n = batch_len(off, k, exact, np.int64(params[2]))
    s = 0.0
    for j in range(n):
        loss, _ = loss_and_slope(F, L, batch_row(off, k, key, exact, j), x)
        s += loss
    out[0] = s / n


@nb.njit(cache=True, error_model="numpy")
def g_vjp(data, k, x, v, key, exact, out):
    F, L, off, params = data[0], data[1], data[2], data[3]
    n = batch_len(off, k, exact, np.int64(params[2]))
    for j in range(out.shape[0]):
        out[j] = 0.0
    for jj in range(n):
        i = batch_row(off, k, key, exact, jj)
        _, slope = loss_and_slope(F, L, i, x)
        w = slope * v[0] / n
        for j in range(out.shape[0]):
            out[j] += w * F[i, j]


@nb.njit(cache=True, error_model="numpy", inline="always")
def _sign(params):
    return 1.0 if params[1] == 0.0 else -1.0


@nb.njit(cache=True, error_model="numpy")
def h_grad(data, k, x, key, exact, out):
    F, L, off, params = data[0], data[1], data[2], data[3]
    lam = params[0]
    corrected = params[1] != 0.0
    n = batch_len(off, k, exact, np.int64(params[2]))
    for j in range(out.shape[0]):
        out[j] = 0.0
    for jj in range(n):
        i = batch_row(off, k, key, exact, jj)
        loss, slope = loss_and_slope(F, L, i, x)
        if corrected:
            w = (1.0 + loss / lam) * slope / n
        else:
            w = -loss * slope / (lam * n)
        for j in range(out.shape[0]):
            out[j] += w * F[i, j]


@nb.njit(cache=True, error_model="numpy")
def f_value(data, k, y):
    return _sign(data[3]) * y[0] * y[0] / (2.0 * data[3][0])


@nb.njit(cache=True, error_model="numpy")
def f_grad(data, k, y, out):
    out[0] = _sign(data[3]) * y[0] / data[3][0]


@nb.njit(cache=True, error_model="numpy")
def g_mean(data, x, out):
    F, L, wts = data[0], data[1], data[4]
    s = 0.0
    for i in range(F.shape[0]):
        loss, _ = loss_and_slope(F, L, i, x)
        s += wts[i] * loss
    out[0] = s


@nb.njit(cache=True, error_model="numpy")
def phi_value(data, x):
    F, L, wts, lam = data[0], data[1], data[4], data[3][0]
    g = 0.0
    h = 0.0
    for i in range(F.shape[0]):
        loss, _ = loss_and_slope(F, L, i, x)
        g += wts[i] * loss
        h += wts[i] * loss * loss
    var = (h - g * g) / (2.0 * lam)
    if data[3][1] == 0.0:
        return -var
    return g + var


@nb.njit(cache=True, error_model="numpy")
def phi_grad(data, x, out):
    F, L, wts, lam = data[0], data[1], data[4], data[3][0]
    g = 0.0
    for i in range(F.shape[0]):
        loss, _ = loss_and_slope(F, L, i, x)
        g += wts[i] * loss
    for j in range(out.shape[0]):
        out[j] = 0.0
    corrected = data[3][1] != 0.0
    for i in range(F.shape[0]):
        loss, slope = loss_and_slope(F, L, i, x)
        if corrected:
            c = wts[i] * slope * (1.0 + (loss - g) / lam)
        else:
            c = wts[i] * slope * (g - loss) / lam
        for j in range(out.shape[0]):
            out[j] += c * F[i, j]
