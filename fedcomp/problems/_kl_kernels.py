"""Kernels of the KL-regularised DRO problem (:class:`fedcomp.problems.KLDRO`).

data = (F (N, d), L (N,), off (K+1,) int64, params [lambda, shift, batch], weights (N,))

g_k(x; zeta) = (1/B) sum_{i in batch} exp((loss_i(x) - c) / lambda),  f(u) = lambda log(u) + c,
h = 0, with c = params[1] a fixed shift. For every constant c this is exactly FedDRO (4) scaled
by lambda (the value of the min-max (3)): f(g) = lambda log((1/K) sum_k (1/m_k) sum_i
exp(loss_i / lambda)). The shift only keeps exp in range: every algorithm here is equivariant
under g -> e^{-c/lambda} g (gradients use grad g * grad f, estimators are linear in g), so iterates
do not depend on c. The exact measures phi_value / phi_grad use log-sum-exp over all samples and
cannot overflow. weights[i] = 1 / (K m_k), the federated weight of sample i.

The oracles g_value, g_value2 and g_vjp take the minibatch in blocks of four samples (rows from
batch_row in the sample order j = 0, 1, ..., n - 1; the last block may hold fewer samples), four
blocks per loop pass (two blocks at two points in g_value2), evaluated side by side so that the
processor overlaps their long dependency chains: per block the four dot products in one
register (fedcomp.engine.dense.row_dots4 / row_dots4_2, each lane in row_dot's order), then softplus, sigmoid and exp((loss - c) / lambda) on
one f64x4 with fedcomp's vector exp / log1p
(fedcomp.engine.vmath: fdlibm's algorithms, < 1 ulp, the same bits on every machine; a sample's
value does not depend on its position in the batch). The reductions keep the sample order:
g = (0.0 + w_0 + w_1 + ... + w_{n-1}) / n left to right, and g_vjp adds w_j a_{i_j} into out
sample after sample, as the scalar loops did. Against the former libm version the values differ
in the last bits only (tests/test_vmath.py). phi_value / phi_grad (the exact measures) keep libm.
"""
import numba as nb
import numpy as np

from fedcomp.engine.simd import div4, mul4, splat4, sub4
from fedcomp.engine.vmath import exp4, softplus_sigmoid4
from fedcomp.problems._logistic import (add_block, add_lanes, batch_len, block_margins,
                                        block_margins2, loss_and_slope, slopes4)

HAS_H = False


@nb.njit(cache=True, error_model="numpy", inline="always")
def _weights(m, c, lam):
    """exp((softplus(m) - c) / lam) on each lane."""
    sp, _ = softplus_sigmoid4(m)
    return exp4(div4(sub4(sp, splat4(c)), splat4(lam)))


@nb.njit(cache=True, error_model="numpy")
def g_value(data, k, x, key, exact, out):
    F, L, off, params = data[0], data[1], data[2], data[3]
    lam, c = params[0], params[1]
    n = batch_len(off, k, exact, np.int64(params[2]))
    s = 0.0
    j = np.int64(0)
    while j < n:  # sixteen samples: four independent vector evaluations
        _, ma = block_margins(F, L, off, k, key, exact, j, n, x)
        _, mb = block_margins(F, L, off, k, key, exact, j + 4, n, x)
        _, mc = block_margins(F, L, off, k, key, exact, j + 8, n, x)
        _, md = block_margins(F, L, off, k, key, exact, j + 12, n, x)
        wa, wb, wc, wd = _weights(ma, c, lam), _weights(mb, c, lam), _weights(mc, c, lam), \
            _weights(md, c, lam)
        s = add_lanes(s, wa, j, n)
        s = add_lanes(s, wb, j + 4, n)
        s = add_lanes(s, wc, j + 8, n)
        s = add_lanes(s, wd, j + 12, n)
        j += 16
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
    j = np.int64(0)
    while j < n:  # eight samples at two points: four independent vector evaluations
        _, ma1, ma2 = block_margins2(F, L, off, k, key, exact, j, n, x1, x2)
        _, mb1, mb2 = block_margins2(F, L, off, k, key, exact, j + 4, n, x1, x2)
        wa1, wa2 = _weights(ma1, c, lam), _weights(ma2, c, lam)
        wb1, wb2 = _weights(mb1, c, lam), _weights(mb2, c, lam)
        s1 = add_lanes(s1, wa1, j, n)
        s1 = add_lanes(s1, wb1, j + 4, n)
        s2 = add_lanes(s2, wa2, j, n)
        s2 = add_lanes(s2, wb2, j + 4, n)
        j += 8
    out1[0] = s1 / n
    out2[0] = s2 / n


@nb.njit(cache=True, error_model="numpy", inline="always")
def _vjp_weights(L, rows, m, c, lam, v0, n):
    """exp((loss - c) / lam) / lam * slope * v0 / n on each lane, left to right."""
    sp, sg = softplus_sigmoid4(m)
    w = exp4(div4(sub4(sp, splat4(c)), splat4(lam)))
    return div4(mul4(mul4(div4(w, splat4(lam)), slopes4(L, rows, sg)), splat4(v0)), splat4(n))


@nb.njit(cache=True, error_model="numpy")
def g_vjp(data, k, x, v, key, exact, out):
    F, L, off, params = data[0], data[1], data[2], data[3]
    lam, c = params[0], params[1]
    n = batch_len(off, k, exact, np.int64(params[2]))
    for j in range(out.shape[0]):
        out[j] = 0.0
    v0 = v[0]
    j = np.int64(0)
    while j < n:  # four samples (more blocks side by side measured no faster here)
        ra, ma = block_margins(F, L, off, k, key, exact, j, n, x)
        add_block(out, _vjp_weights(L, ra, ma, c, lam, v0, n), F, ra, j, n)
        j += 4


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
def phi_value_grad(data, x, out):
    """out = grad Phi(x); returns Phi(x): the losses and their weights computed once for both
    (the numbers of phi_value, and of phi_grad, bit for bit)."""
    F, L, wts, lam = data[0], data[1], data[4], data[3][0]
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
    return lam * (zmax + np.log(s))


@nb.njit(cache=True, error_model="numpy")
def phi_grad(data, x, out):
    phi_value_grad(data, x, out)


@nb.njit(cache=True, error_model="numpy")
def g_mean(data, x, out):
    """g(x) = (1/K) sum_k g_k(x) in the shifted scale of the oracles."""
    off = data[2]
    K = off.shape[0] - 1
    tmp = np.empty(1)
    s = 0.0
    for k in range(K):
        g_value(data, k, x, np.uint64(0), np.bool_(True), tmp)
        s += tmp[0]
    out[0] = s / K
