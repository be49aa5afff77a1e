"""Kernels of :class:`fedcomp.problems.MeanVariancePortfolio` (FedDRO paper, section 2.1).

data = (Rt (N, d) return samples of all clients, row blocks per client; off (K + 1,) int64 block
offsets; params [lam, batch]; mubar (d,), Mbar (d, d): the client-averaged first and second
moments (1/K) sum_k (1/n_k) sum_{i in k} r_i and (1/K) sum_k (1/n_k) sum_{i in k} r_i r_i^T)

Inner map (d_g = 2) of client k with portfolio return R(x) = r . x:
g_k(x) = ((1/n_k) sum_i r_i . x, (1/n_k) sum_i (r_i . x)^2); grad g_k(x) v = (1/n_k) sum_i
r_i (v_0 + 2 v_1 r_i . x). Outer f(u, v) = -u + lam (v - u^2), global; h = 0.
Phi(x) = -mubar . x + lam (x^T Mbar x - (mubar . x)^2) = -mubar . x + lam x^T Sigma x with
Sigma = Mbar - mubar mubar^T, the covariance of the return of a sample drawn from a client chosen
uniformly (the mixture of the clients' markets).

Sampling: a minibatch of ``batch`` rows of client k drawn uniformly with replacement from the key
(``randint(key, j, n_k)``); the same key gives the same rows at every point (FedDRO (8));
``exact=True`` averages over all of client k's rows.
"""
import numba as nb
import numpy as np

from fedcomp.rng import randint

HAS_H = False


@nb.njit(cache=True)
def g_value(data, k, x, key, exact, out):
    Rt, off, params = data[0], data[1], data[2]
    d = x.shape[0]
    lo = off[k]
    n_k = off[k + 1] - lo
    nb_ = n_k if exact else np.int64(params[1])
    s1 = 0.0
    s2 = 0.0
    for j in range(nb_):
        i = lo + (j if exact else randint(key, j, n_k))
        rx = 0.0
        for c in range(d):
            rx += Rt[i, c] * x[c]
        s1 += rx
        s2 += rx * rx
    out[0] = s1 / nb_
    out[1] = s2 / nb_


@nb.njit(cache=True)
def g_vjp(data, k, x, v, key, exact, out):
    Rt, off, params = data[0], data[1], data[2]
    d = x.shape[0]
    lo = off[k]
    n_k = off[k + 1] - lo
    nb_ = n_k if exact else np.int64(params[1])
    for c in range(d):
        out[c] = 0.0
    for j in range(nb_):
        i = lo + (j if exact else randint(key, j, n_k))
        rx = 0.0
        for c in range(d):
            rx += Rt[i, c] * x[c]
        w = (v[0] + 2.0 * v[1] * rx) / nb_
        for c in range(d):
            out[c] += w * Rt[i, c]


@nb.njit(cache=True)
def h_grad(data, k, x, key, exact, out):
    for c in range(out.shape[0]):
        out[c] = 0.0


@nb.njit(cache=True)
def f_value(data, k, y):
    lam = data[2][0]
    return -y[0] + lam * (y[1] - y[0] * y[0])


@nb.njit(cache=True)
def f_grad(data, k, y, out):
    lam = data[2][0]
    out[0] = -1.0 - 2.0 * lam * y[0]
    out[1] = lam


@nb.njit(cache=True)
def g_mean(data, x, out):
    mubar, Mbar = data[3], data[4]
    d = x.shape[0]
    u = 0.0
    v = 0.0
    for a in range(d):
        u += mubar[a] * x[a]
        s = 0.0
        for b in range(d):
            s += Mbar[a, b] * x[b]
        v += x[a] * s
    out[0] = u
    out[1] = v


@nb.njit(cache=True)
def phi_value(data, x):
    y = np.empty(2)
    g_mean(data, x, y)
    return f_value(data, 0, y)


@nb.njit(cache=True)
def phi_grad(data, x, out):
    mubar, Mbar, lam = data[3], data[4], data[2][0]
    d = x.shape[0]
    u = 0.0
    for a in range(d):
        u += mubar[a] * x[a]
    for a in range(d):
        s = 0.0
        for b in range(d):
            s += Mbar[a, b] * x[b]
        out[a] = -mubar[a] + 2.0 * lam * (s - u * mubar[a])
