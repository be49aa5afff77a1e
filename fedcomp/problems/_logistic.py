"""Compiled logistic-loss helpers shared by the DRO kernels and the AUC kernels.

Client k's samples are rows off[k]:off[k+1] of the features F (N, d) with labels s in {-1, +1}.
loss(x) = log(1 + exp(-s a.x)), computed stably as softplus(-s a.x). The products a.x are
:func:`fedcomp.engine.dense.row_dot` (four-lane partial sums in a documented order), four
samples at a time :func:`fedcomp.engine.dense.row_dots4` (each lane in row_dot's order).

The scalar helpers (softplus, sigmoid, loss_and_slope) use libm's exp / log1p (the chi^2
and other kernels, the exact measures). The block helpers at the end (block_margins, ...,
add_block) are the minibatch path of the KL-DRO and AUC kernels: four samples at a time, with
fedcomp's own vector exp / log1p (:mod:`fedcomp.engine.vmath`), the same formulas otherwise.
"""
import numba as nb
import numpy as np

from fedcomp.engine.dense import row_dot, row_dots4, row_dots4_2
from fedcomp.engine.simd import lane4, load4, madd4, make4, mul4, splat4, store4
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
def batch_row(off, k, key, exact, j):
    """Row of the j-th sample of client k's minibatch (exact: the j-th row of the client)."""
    if exact:
        return off[k] + j
    return off[k] + randint(key, j, off[k + 1] - off[k])


@nb.njit(cache=True, error_model="numpy", inline="always")
def batch_len(off, k, exact, batch):
    return off[k + 1] - off[k] if exact else batch


# --- Four samples at a time (the KL-DRO and AUC kernels): exp / log1p from fedcomp.engine.vmath -
# A block holds the samples j, j + 1, j + 2, j + 3 of a minibatch (rows from batch_row, in order);
# a block at the batch's end with fewer samples repeats its first row in the unused lanes, whose
# values are computed and never read. A lane's value depends on its sample alone. The larger
# helpers are not numba-inlined, for compile time (see fedcomp.engine.vmath). LLVM inlines the
# vector exp / log1p, but keeps block_margins and block_margins2 (with margins4, margins4_2) as a
# call per block of four samples (inspect_asm of the compiled FedDRO step, 27 November 2026): a
# small cost beside the block's four products, which run in one register (dense.row_dots4).
# block_rows and the row accumulations (add_row, add_rows4, add_block) are numba-inlined: LLVM
# kept block_rows as a call per block.


@nb.njit(cache=True, error_model="numpy", inline="always")
def block_rows(off, k, key, exact, j, n):
    """Rows of the samples j..j+3 (j < n); lanes past the batch's end repeat the first row."""
    i0 = batch_row(off, k, key, exact, j)
    i1 = batch_row(off, k, key, exact, j + 1) if j + 1 < n else i0
    i2 = batch_row(off, k, key, exact, j + 2) if j + 2 < n else i0
    i3 = batch_row(off, k, key, exact, j + 3) if j + 3 < n else i0
    return i0, i1, i2, i3


@nb.njit(cache=True, error_model="numpy")
def margins4(F, L, i0, i1, i2, i3, x):
    """The f64x4 of m = -s_i a_i . x for rows i0..i3 (each as loss_and_slope computes it)."""
    return mul4(make4(-L[i0], -L[i1], -L[i2], -L[i3]), row_dots4(F, i0, i1, i2, i3, x))


@nb.njit(cache=True, error_model="numpy")
def margins4_2(F, L, i0, i1, i2, i3, x1, x2):
    """:func:`margins4` at x1 and x2, each row read once (row_dots4_2)."""
    nl = make4(-L[i0], -L[i1], -L[i2], -L[i3])
    a, b = row_dots4_2(F, i0, i1, i2, i3, x1, x2)
    return mul4(nl, a), mul4(nl, b)


@nb.njit(cache=True, error_model="numpy")
def add_lanes(s, v, j, n):
    """s + v[0] + v[1] + ... (left to right) over the lanes of samples j, j + 1, ... below n."""
    if j < n:
        s += lane4(v, 0)
    if j + 1 < n:
        s += lane4(v, 1)
    if j + 2 < n:
        s += lane4(v, 2)
    if j + 3 < n:
        s += lane4(v, 3)
    return s


@nb.njit(cache=True, error_model="numpy")
def block_margins(F, L, off, k, key, exact, j, n, x):
    """(rows, margins4) of the block of samples j..j+3; a block wholly past the batch's end
    (j >= n) gives client k's first row and zero margins, computed and never read."""
    if j < n:
        i0, i1, i2, i3 = block_rows(off, k, key, exact, j, n)
        return (i0, i1, i2, i3), margins4(F, L, i0, i1, i2, i3, x)
    i = off[k]
    return (i, i, i, i), splat4(0.0)


@nb.njit(cache=True, error_model="numpy")
def block_margins2(F, L, off, k, key, exact, j, n, x1, x2):
    """:func:`block_margins` at x1 and x2 (margins4_2)."""
    if j < n:
        i0, i1, i2, i3 = block_rows(off, k, key, exact, j, n)
        m1, m2 = margins4_2(F, L, i0, i1, i2, i3, x1, x2)
        return (i0, i1, i2, i3), m1, m2
    i = off[k]
    return (i, i, i, i), splat4(0.0), splat4(0.0)


@nb.njit(cache=True, error_model="numpy")
def slopes4(L, rows, sg):
    """-s_i sigmoid(m_i) on the lanes of the rows (with the sigmoid of softplus_sigmoid4)."""
    return mul4(make4(-L[rows[0]], -L[rows[1]], -L[rows[2]], -L[rows[3]]), sg)


@nb.njit(cache=True, error_model="numpy", inline="always")
def add_row(out, w, F, i):
    """out[:d] += w F[i] (d = F.shape[1]), element by element."""
    for j in range(F.shape[1]):
        out[j] += w * F[i, j]


@nb.njit(cache=True, error_model="numpy", inline="always")
def add_rows4(out, w, F, i0, i1, i2, i3):
    """out[j] = (((out[j] + w0 F[i0, j]) + w1 F[i1, j]) + w2 F[i2, j]) + w3 F[i3, j]: the numbers
    of four add_row calls in this order, out read and written once (four elements per vector);
    d = F.shape[1] (a longer out keeps its tail)."""
    d = F.shape[1]
    w0, w1 = splat4(lane4(w, 0)), splat4(lane4(w, 1))
    w2, w3 = splat4(lane4(w, 2)), splat4(lane4(w, 3))
    j = np.int64(0)
    while j + 4 <= d:
        o = load4(out, (j,))
        o = madd4(o, w0, load4(F, (i0, j)))
        o = madd4(o, w1, load4(F, (i1, j)))
        o = madd4(o, w2, load4(F, (i2, j)))
        o = madd4(o, w3, load4(F, (i3, j)))
        store4(out, (j,), o)
        j += 4
    while j < d:
        out[j] = (((out[j] + lane4(w, 0) * F[i0, j]) + lane4(w, 1) * F[i1, j])
                  + lane4(w, 2) * F[i2, j]) + lane4(w, 3) * F[i3, j]
        j += 1


@nb.njit(cache=True, error_model="numpy", inline="always")
def add_block(out, w, F, rows, j, n):
    """out[:d] += w_l F[rows[l]] for the block's samples j + l < n, in sample order."""
    if j + 4 <= n:
        add_rows4(out, w, F, rows[0], rows[1], rows[2], rows[3])
        return
    if j < n:
        add_row(out, lane4(w, 0), F, rows[0])
    if j + 1 < n:
        add_row(out, lane4(w, 1), F, rows[1])
    if j + 2 < n:
        add_row(out, lane4(w, 2), F, rows[2])
