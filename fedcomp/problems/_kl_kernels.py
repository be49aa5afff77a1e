"""Kernels of the KL-regularised DRO problem (:class:`fedcomp.problems.KLDRO`).

data = (F (N, d), L (N,), off (K+1,) int64, params [lambda, shift, batch], weights (N,),
        memo (0, 0), memo tags (0, 0) uint64: empty, see "The memo" below)

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

The memo (data[5], data[6]): g_value and g_value2 (its second point) keep, per client, the point
x, the key and each sample's row, exp((loss - c) / lambda) and sigmoid; g_vjp with the same key at
the same point (every bit of x) takes them from there instead of computing the margins and the
exps again. FedDRO's and DS-FedDRO's steps ask exactly that (the gradient (7) at t + 1 uses
x_k^{t+1} and the sample zeta_k^{t+1} of the inner update (8) at t) except after a model
average, where x changes and the memo misses. The values are those g_vjp computes itself, so the
results are the same bit for bit (tests/test_dro_problems.py). Only stochastic calls use it,
only inside a run: the problem's data holds empty memo buffers (no memo), and the engine's loop
gives every run its own (:func:`run_data`, the kernel protocol's per-run data), so runs in
parallel threads never share one; a run whose memo would exceed MEMO_MAX_ENTRIES keeps none.
"""
import math

import numba as nb
import numpy as np

from fedcomp.engine.simd import div4, load4, mul4, splat4, store4, sub4
from fedcomp.engine.vmath import exp4, softplus_sigmoid4
from fedcomp.problems._logistic import (add_block, add_lanes, batch_len, block_margins,
                                        block_margins2, loss_and_slope, slopes4)

HAS_H = False


@nb.njit(cache=True, error_model="numpy", inline="always")
def _weights(m, c, lam):
    """(exp((softplus(m) - c) / lam), sigmoid(m)) on each lane."""
    sp, sg = softplus_sigmoid4(m)
    return exp4(div4(sub4(sp, splat4(c)), splat4(lam))), sg


#: A run keeps no memo when it would exceed this many entries (K (d + 3 B) for minibatches of B
#: samples; 2**22 entries, 32 MiB): a huge minibatch runs as without the memo.
MEMO_MAX_ENTRIES = 1 << 22


@nb.njit(cache=True, error_model="numpy")
def run_data(data):
    """The data of one run: the problem's, with memo buffers of its own (kernel protocol), empty
    beyond MEMO_MAX_ENTRIES."""
    off, params = data[2], data[3]
    K = off.shape[0] - 1
    d = data[0].shape[1]
    cap = (np.int64(params[2]) + 3) // 4 * 4
    rows = K if K * (d + 3 * cap) <= MEMO_MAX_ENTRIES else 0
    return (data[0], data[1], data[2], data[3], data[4],
            np.zeros((rows, d + 2 * cap)), np.zeros((rows, 2 + cap), dtype=np.uint64))


@nb.njit(cache=True, error_model="numpy", inline="always")
def _memo_on(data, exact):
    return (not exact) and data[5].shape[0] > 0


@nb.njit(cache=True, error_model="numpy", inline="always")
def _memo_begin(data, k, x):
    """Client k's memo invalid, and x in it."""
    mf = data[5]
    data[6][k, 0] = np.uint64(0)
    for j in range(x.shape[0]):
        mf[k, j] = x[j]


@nb.njit(cache=True, error_model="numpy", inline="always")
def _memo_cols(data):
    """(d, cap): a memo row of data[5] is the point (d), the weights (cap), the sigmoids (cap);
    of data[6], the flag, the key and the rows (cap) (run_data's layout)."""
    d = data[0].shape[1]
    return d, (data[5].shape[1] - d) // 2


@nb.njit(cache=True, error_model="numpy", inline="always")
def _memo_block(data, k, j, n, rows, w, sg):
    """The rows, weights and sigmoids of the block of samples j..j+3 (if j < n) into client k's
    memo."""
    if j < n:
        mf, mt = data[5], data[6]
        d, cap = _memo_cols(data)
        store4(mf, (k, d + j), w)
        store4(mf, (k, d + cap + j), sg)
        mt[k, 2 + j] = np.uint64(rows[0])
        mt[k, 3 + j] = np.uint64(rows[1])
        mt[k, 4 + j] = np.uint64(rows[2])
        mt[k, 5 + j] = np.uint64(rows[3])


@nb.njit(cache=True, error_model="numpy", inline="always")
def _memo_read(data, k, j):
    """The rows, weights and sigmoids of the block of samples j..j+3 from client k's memo (what
    _memo_block stored)."""
    mf, mt = data[5], data[6]
    d, cap = _memo_cols(data)
    rows = (np.int64(mt[k, 2 + j]), np.int64(mt[k, 3 + j]), np.int64(mt[k, 4 + j]),
            np.int64(mt[k, 5 + j]))
    return rows, load4(mf, (k, d + j)), load4(mf, (k, d + cap + j))


@nb.njit(cache=True, error_model="numpy", inline="always")
def _memo_end(data, k, key):
    """Client k's memo valid for `key`."""
    data[6][k, 1] = key
    data[6][k, 0] = np.uint64(1)


@nb.njit(cache=True, error_model="numpy", inline="always")
def _memo_hit(data, k, key, exact, x):
    """Whether client k's memo holds the sample of `key` at x (every bit: -0.0 is not 0.0)."""
    if not _memo_on(data, exact):
        return False
    mf, mt = data[5], data[6]
    if mt[k, 0] != np.uint64(1) or mt[k, 1] != key:
        return False
    for j in range(x.shape[0]):
        a, b = x[j], mf[k, j]
        if a != b or math.copysign(1.0, a) != math.copysign(1.0, b):
            return False
    return True


@nb.njit(cache=True, error_model="numpy")
def g_value(data, k, x, key, exact, out):
    F, L, off, params = data[0], data[1], data[2], data[3]
    lam, c = params[0], params[1]
    n = batch_len(off, k, exact, np.int64(params[2]))
    memo = _memo_on(data, exact)
    if memo:
        _memo_begin(data, k, x)
    s = 0.0
    j = np.int64(0)
    while j < n:  # sixteen samples: four independent vector evaluations
        ra, ma = block_margins(F, L, off, k, key, exact, j, n, x)
        rb, mb = block_margins(F, L, off, k, key, exact, j + 4, n, x)
        rc, mc = block_margins(F, L, off, k, key, exact, j + 8, n, x)
        rd, md = block_margins(F, L, off, k, key, exact, j + 12, n, x)
        wa, sa = _weights(ma, c, lam)
        wb, sb = _weights(mb, c, lam)
        wc, sc = _weights(mc, c, lam)
        wd, sd = _weights(md, c, lam)
        s = add_lanes(s, wa, j, n)
        s = add_lanes(s, wb, j + 4, n)
        s = add_lanes(s, wc, j + 8, n)
        s = add_lanes(s, wd, j + 12, n)
        if memo:
            _memo_block(data, k, j, n, ra, wa, sa)
            _memo_block(data, k, j + 4, n, rb, wb, sb)
            _memo_block(data, k, j + 8, n, rc, wc, sc)
            _memo_block(data, k, j + 12, n, rd, wd, sd)
        j += 16
    if memo:
        _memo_end(data, k, key)
    out[0] = s / n


@nb.njit(cache=True, error_model="numpy")
def g_value2(data, k, x1, x2, key, exact, out1, out2):
    """g_value at x1 and x2 with one minibatch (the protocol's two-point oracle): the rows are
    drawn once and each read once for both points; the same numbers, bit for bit, as two
    g_value calls with this key."""
    F, L, off, params = data[0], data[1], data[2], data[3]
    lam, c = params[0], params[1]
    n = batch_len(off, k, exact, np.int64(params[2]))
    memo = _memo_on(data, exact)   # of the second point (the next gradient's, in FedDRO)
    if memo:
        _memo_begin(data, k, x2)
    s1 = 0.0
    s2 = 0.0
    j = np.int64(0)
    while j < n:  # eight samples at two points: four independent vector evaluations
        ra, ma1, ma2 = block_margins2(F, L, off, k, key, exact, j, n, x1, x2)
        rb, mb1, mb2 = block_margins2(F, L, off, k, key, exact, j + 4, n, x1, x2)
        wa1, _ = _weights(ma1, c, lam)
        wa2, sa2 = _weights(ma2, c, lam)
        wb1, _ = _weights(mb1, c, lam)
        wb2, sb2 = _weights(mb2, c, lam)
        s1 = add_lanes(s1, wa1, j, n)
        s1 = add_lanes(s1, wb1, j + 4, n)
        s2 = add_lanes(s2, wa2, j, n)
        s2 = add_lanes(s2, wb2, j + 4, n)
        if memo:
            _memo_block(data, k, j, n, ra, wa2, sa2)
            _memo_block(data, k, j + 4, n, rb, wb2, sb2)
        j += 8
    if memo:
        _memo_end(data, k, key)
    out1[0] = s1 / n
    out2[0] = s2 / n


@nb.njit(cache=True, error_model="numpy", inline="always")
def _vjp_scale(L, rows, w, sg, lam, v0, n):
    """w / lam * slope * v0 / n on each lane, left to right (w = exp((loss - c) / lam), sg the
    sigmoid of the margin)."""
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
    hit = _memo_hit(data, k, key, exact, x)  # this sample's weights at x, kept by g_value(2)
    while j < n:  # four samples (more blocks side by side measured no faster here)
        if hit:
            ra, w, sg = _memo_read(data, k, j)
        else:
            ra, ma = block_margins(F, L, off, k, key, exact, j, n, x)
            w, sg = _weights(ma, c, lam)
        add_block(out, _vjp_scale(L, ra, w, sg, lam, v0, n), F, ra, j, n)
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
def _scaled_losses(data, x, z, slopes):
    """z_i = loss_i(x) / lambda and slopes_i = d loss_i / d(a_i . x); returns max z."""
    F, L, lam = data[0], data[1], data[3][0]
    zmax = -np.inf
    for i in range(F.shape[0]):
        loss, slope = loss_and_slope(F, L, i, x)
        z[i] = loss / lam
        slopes[i] = slope
        if z[i] > zmax:
            zmax = z[i]
    return zmax


@nb.njit(cache=True, error_model="numpy")
def phi_value(data, x):
    wts, lam = data[4], data[3][0]
    z = np.empty(wts.shape[0])
    zmax = _scaled_losses(data, x, z, np.empty(wts.shape[0]))
    s = 0.0
    for i in range(z.shape[0]):
        s += wts[i] * np.exp(z[i] - zmax)
    return lam * (zmax + np.log(s))


@nb.njit(cache=True, error_model="numpy")
def phi_value_grad(data, x, out):
    """out = grad Phi(x); returns Phi(x): the losses and their weights computed once for both
    (the numbers of phi_value, and of phi_grad, bit for bit). Each sample's slope is kept from
    the first pass (recomputing it in the second took a third of the time: the engine calls this
    at every record, 800 samples on the checks' KL-DRO problem)."""
    F, wts, lam = data[0], data[4], data[3][0]
    z = np.empty(wts.shape[0])
    slopes = np.empty(wts.shape[0])
    zmax = _scaled_losses(data, x, z, slopes)
    s = 0.0
    for i in range(z.shape[0]):
        z[i] = wts[i] * np.exp(z[i] - zmax)
        s += z[i]
    for j in range(out.shape[0]):
        out[j] = 0.0
    for i in range(z.shape[0]):
        c = z[i] / s * slopes[i]
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
