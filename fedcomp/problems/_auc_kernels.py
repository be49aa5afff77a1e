"""Kernels of :class:`fedcomp.problems.AUCMinimax`, the compositional AUC min-max of Zhang et al.,
"Federated Compositional Deep AUC Maximization" (AUC paper), problems (1)-(4), with a linear scorer.

Variables (AUC paper, section 3.1): x = [w (d_w), a, b] in R^d with d = d_w + 2 (the paper's
x = [w^T, w~_1, w~_2]^T), the dual variable y = alpha (the paper's w~_3), a scalar
(``DUAL_DIM = 1``). Scores are h(w; z) = w^T z (a linear scorer; the features z carry a constant
column when the problem has an intercept).

Inner map (AUC paper (2)-(3)): g_k(x; xi) = x - rho * Delta_k(x; xi) with
Delta_k(x; xi) = [grad_w L_CE(w; xi)^T, 0, 0]^T, L_CE the logistic cross-entropy
log(1 + exp(-l w^T z)) with labels l in {+1, -1}: one gradient step of size rho on the
cross-entropy, applied to w only; d_g = d. Its Jacobian is symmetric,
J_g(x; xi) = I - rho * blockdiag(H_CE(w; xi), 0, 0), H_CE = mean sigma'(w^T z) z z^T.

Outer function (AUC paper (1), Ying et al. 2016), for u = [w~, a, b] and one sample (z, l):

    L(u, alpha; z, l) = (1-p) (w~^T z - a)^2 I[l=1] + p (w~^T z - b)^2 I[l=-1]
                        - p (1-p) alpha^2 + 2 (1+alpha) (p w~^T z I[l=-1] - (1-p) w~^T z I[l=1])

f^(k)(u, alpha) is its mean over client k's data; F(u, alpha) = (1/K) sum_k f^(k)(u, alpha) and
g(x) = (1/K) sum_k g_k(x) (clients weigh equally, whatever their sizes; AUC paper (4)).
p is one number shared by all clients (``params[1]``; the problem sets it to the positive
fraction of the equal-weight mixture of the clients' data unless told otherwise).

Closed-form dual (derivation): F is a concave quadratic in alpha with
dF/dalpha = -2 p (1-p) alpha + 2 (p S_- - (1-p) S_+), where S_+ = E[w~^T z I[l=1]] and
S_- = E[w~^T z I[l=-1]] under the equal-weight mixture; so mu = 2 p (1-p) and
alpha*(u) = (p S_- - (1-p) S_+) / (p (1-p)) (= E[score | -] - E[score | +] when p is the true
positive fraction). Phi(x) = max_alpha F(g(x), alpha) = F(g(x), alpha*(g(x))); by Danskin's
theorem grad Phi(x) = J_g(x)^T grad_u F(g(x), alpha*(g(x))) (exact: alpha* is unique).

Data layout: data = (Z (N, d_w) features of all clients stacked, L (N,) labels +-1.0,
offsets (K + 1,) int64 (client k owns rows offsets[k]:offsets[k+1]), params
[rho, p, batch_size]).

Sampling: a sample xi (or zeta) of client k is a minibatch of ``batch_size`` rows of client k
drawn uniformly with replacement, row j of the batch being ``randint(key, j, n_k)``; one key
gives one batch, so g_value and g_vjp with the same key use the same xi (the paper's
g(x; xi) and grad g(x; xi) share xi_t). ``exact=True`` uses all of client k's rows.

The minibatch oracles (ce_grad and g_value, g_vjp, outer_grads; outer_grad_inner and
outer_grad_dual return the halves of outer_grads, computing both) take the samples four at a time
(:func:`fedcomp.problems._logistic.block_rows`, the rows in sample order): the four scores by
:func:`fedcomp.engine.dense.row_dots4` (row_dots4_2 where two products share a row; each lane
in row_dot's documented four-lane order), the sigmoids by fedcomp's vector exp
(:func:`fedcomp.engine.vmath.sigmoid4`, < 1 ulp, the same bits on every machine), and every sum
over the samples in sample order (vectors added into ``out`` row after row, scalars lane after
lane). A sample's numbers do not depend on its position in the batch.
With ``exact=True`` the same oracles run over all of client k's rows in row order (g_mean and
phi_grad use them so); the outer function's exact measures (f_grad, minimax_value, dual_opt) and
ce_value keep scalar left-to-right products and libm.

Oracles (the protocol's names, then the minimax additions):

    HAS_H = False, DUAL_DIM = 1
    g_value(data, k, x, key, exact, out)     out (d,) = g_k(x; xi)
    g_vjp(data, k, x, v, key, exact, out)    out (d,) = J_g_k(x; xi)^T v (the same batch as g_value)
    h_grad(...)                              zeros (no non-compositional part)
    f_grad(data, k, u, out)                  out (d,) = grad of fbar(u) = max_alpha F(u, alpha), exact
                                             and global (k ignored): grad_u F(u, alpha*(u)) (Danskin)
    g_mean(data, x, out)                     out (d,) = g(x) exact. The engine's inner-estimate
                                             error is ||mean_k Y_k - g(xbar)||: for LocalSCGDAM
                                             Y_k is the moving-average estimate h_k of g.
    phi_value(data, x), phi_grad(data, x, out)   Phi(x) and grad Phi(x), exact (see above)
    phi_value_grad(data, x, out) -> float    both, g(x) and alpha*(g(x)) computed once (the
                                             recorded metrics)
    outer_grad_inner(data, k, u, ydual, key, exact, out)
                                             out (d,) = grad_u f^(k)(u, alpha; zeta)
    outer_grad_dual(data, k, u, ydual, key, exact, out)
                                             out (1,) = grad_alpha f^(k)(u, alpha; zeta)
    outer_grads(data, k, u, ydual, key, exact, out_u, out_dual)
                                             both at one sample, the rows drawn once (the
                                             algorithms call this one)
    ce_grad(data, k, x, key, exact, out)     out (d,) = [grad_w L_CE(w; xi), 0, 0] (the LocalSGDM
                                             baseline's loss); Delta_k of the inner map
    minimax_value(data, u, ydual) -> float   F(u, alpha), exact
    dual_opt(data, u, out)                   out (1,) = alpha*(u), exact
    ce_value(data, x) -> float               mean cross-entropy (equal client weights), exact

``ydual`` is an array of length DUAL_DIM = 1 holding alpha.
"""
import numba as nb
import numpy as np

from fedcomp.engine.dense import row_dots4, row_dots4_2
from fedcomp.engine.simd import add4, make4, mul4, neg4, splat4, sub4, where_gt4
from fedcomp.engine.vmath import sigmoid4
from fedcomp.problems._logistic import add_block, add_lanes, block_rows

HAS_H = False
DUAL_DIM = 1


@nb.njit(cache=True, inline="always")
def _batch_len(offsets, params, k, exact):
    if exact:
        return offsets[k + 1] - offsets[k]
    return np.int64(params[2])


@nb.njit(cache=True, inline="always")
def _dot_row(Z, i, w):
    """Z[i] . w[:d_w] left to right (the exact measures' order)."""
    s = 0.0
    for j in range(Z.shape[1]):
        s += Z[i, j] * w[j]
    return s


@nb.njit(cache=True, error_model="numpy", inline="always")
def _scores4(Z, rows, x):
    """The f64x4 of the scores Z[i] . x[:d_w] of the block's rows (dense.row_dot's order)."""
    return row_dots4(Z, rows[0], rows[1], rows[2], rows[3], x)


@nb.njit(cache=True, error_model="numpy", inline="always")
def _labels4(L, rows):
    return make4(L[rows[0]], L[rows[1]], L[rows[2]], L[rows[3]])


@nb.njit(cache=True, error_model="numpy")
def ce_grad(data, k, x, key, exact, out):
    """out = [(1/n) sum_j -l_j sigmoid(-l_j s_j) z_j, 0, 0], s_j = z_j . w, summed in sample
    order."""
    Z, L, offsets, params = data[0], data[1], data[2], data[3]
    for j in range(out.shape[0]):
        out[j] = 0.0
    nb_ = _batch_len(offsets, params, k, exact)
    if nb_ <= 0:
        return
    inv = splat4(1.0 / nb_)
    j = np.int64(0)
    while j < nb_:
        rows = block_rows(offsets, k, key, exact, j, nb_)
        nlab = neg4(_labels4(L, rows))
        sg = sigmoid4(mul4(nlab, _scores4(Z, rows, x)))      # sigmoid(-l s)
        add_block(out, mul4(mul4(nlab, sg), inv), Z, rows, j, nb_)
        j += 4


@nb.njit(cache=True, error_model="numpy")
def g_value(data, k, x, key, exact, out):
    rho = data[3][0]
    ce_grad(data, k, x, key, exact, out)
    for j in range(out.shape[0]):
        out[j] = x[j] - rho * out[j]


@nb.njit(cache=True, error_model="numpy")
def g_vjp(data, k, x, v, key, exact, out):
    """out = v - (rho/n) sum_j sigmoid'(s_j) (z_j . v) [z_j, 0, 0], subtracted in sample order."""
    Z, offsets, params = data[0], data[2], data[3]
    for j in range(out.shape[0]):
        out[j] = v[j]
    nb_ = _batch_len(offsets, params, k, exact)
    if nb_ <= 0:
        return
    c0 = splat4(params[0] / nb_)
    one = splat4(1.0)
    j = np.int64(0)
    while j < nb_:
        rows = block_rows(offsets, k, key, exact, j, nb_)
        s4, v4 = row_dots4_2(Z, rows[0], rows[1], rows[2], rows[3], x, v)
        sg = sigmoid4(s4)
        c = mul4(mul4(mul4(c0, sg), sub4(one, sg)), v4)
        add_block(out, neg4(c), Z, rows, j, nb_)          # out - c z = out + (-c) z, exactly
        j += 4


@nb.njit(cache=True)
def h_grad(data, k, x, key, exact, out):
    for j in range(out.shape[0]):
        out[j] = 0.0


@nb.njit(cache=True, inline="always")
def _sample_grad_u(Z, i, lab, u, ua, ub, alpha, p, wt, out):
    """out[:dw] += wt * the w~ part of grad_u L(u, alpha; z_i, l_i); returns (da, db), minus wt
    times its a and b parts (one of them 0.0). ua, ub = u[dw], u[dw + 1]. The caller (the exact
_minimax_grad_u; the minibatch oracles use outer_grads' vector form of it) sums da
    and db in registers and store them once: storing into out[dw], out[dw + 1] per row made LLVM
    reload u after every store (2.5 times slower per minibatch)."""
    dw = Z.shape[1]
    s = _dot_row(Z, i, u)
    if lab > 0.0:
        r = s - ua
        cw = 2.0 * (1.0 - p) * r - 2.0 * (1.0 + alpha) * (1.0 - p)
        da, db = wt * 2.0 * (1.0 - p) * r, 0.0
    else:
        r = s - ub
        cw = 2.0 * p * r + 2.0 * (1.0 + alpha) * p
        da, db = 0.0, wt * 2.0 * p * r
    for q in range(dw):
        out[q] += wt * cw * Z[i, q]
    return da, db


@nb.njit(cache=True, inline="always")
def _sample_loss(Z, i, lab, u, alpha, p):
    dw = Z.shape[1]
    s = _dot_row(Z, i, u)
    v = -p * (1.0 - p) * alpha * alpha
    if lab > 0.0:
        r = s - u[dw]
        v += (1.0 - p) * r * r - 2.0 * (1.0 + alpha) * (1.0 - p) * s
    else:
        r = s - u[dw + 1]
        v += p * r * r + 2.0 * (1.0 + alpha) * p * s
    return v


@nb.njit(cache=True, error_model="numpy")
def outer_grads(data, k, u, ydual, key, exact, out_u, out_dual):
    """Both outer gradients of the minibatch mean of L(u, alpha; z, l) at one sample, each row
    drawn and each score z . w~ computed once for both (the protocol's optional two-gradient
    oracle; outer_grad_inner and outer_grad_dual return its two halves).

    out_u: per sample, with r = s - a (l = +1) or s - b (l = -1), the w~ part wt c_w z
    (c_w = 2 (1-p) r - 2 (1+alpha) (1-p), or 2 p r + 2 (1+alpha) p) added in sample order, and the
    a, b parts -wt 2 (1-p) r and -wt 2 p r, each summed in sample order; wt = 1/n.
    out_dual: -2 p (1-p) alpha + 2 acc / n, acc the sum in sample order of -(1-p) s (l = +1) and
    +p s (l = -1)."""
    Z, L, offsets, params = data[0], data[1], data[2], data[3]
    p = params[1]
    alpha = ydual[0]
    for j in range(out_u.shape[0]):
        out_u[j] = 0.0
    nb_ = _batch_len(offsets, params, k, exact)
    acc = 0.0
    if nb_ > 0:
        wt = 1.0 / nb_
        dw = Z.shape[1]
        zero = splat4(0.0)
        ua, ub = splat4(u[dw]), splat4(u[dw + 1])
        # the scalar constants, grouped as _sample_grad_u groups them
        q_pos, q_neg = splat4(2.0 * (1.0 - p)), splat4(2.0 * p)
        c_pos, c_neg = splat4(2.0 * (1.0 + alpha) * (1.0 - p)), splat4(2.0 * (1.0 + alpha) * p)
        a_pos, a_neg = splat4(wt * 2.0 * (1.0 - p)), splat4(wt * 2.0 * p)
        wp, wn = splat4(-(1.0 - p)), splat4(p)
        w4 = splat4(wt)
        acc_a = 0.0
        acc_b = 0.0
        j = np.int64(0)
        while j < nb_:
            rows = block_rows(offsets, k, key, exact, j, nb_)
            lab = _labels4(L, rows)
            s = _scores4(Z, rows, u)
            rp, rn = sub4(s, ua), sub4(s, ub)
            cw = where_gt4(lab, zero, sub4(mul4(q_pos, rp), c_pos), add4(mul4(q_neg, rn), c_neg))
            add_block(out_u, mul4(w4, cw), Z, rows, j, nb_)
            # acc - d = acc + (-d) exactly: the a and b parts subtracted in sample order
            acc_a = add_lanes(acc_a, neg4(where_gt4(lab, zero, mul4(a_pos, rp), zero)), j, nb_)
            acc_b = add_lanes(acc_b, neg4(where_gt4(lab, zero, zero, mul4(a_neg, rn))), j, nb_)
            acc = add_lanes(acc, mul4(where_gt4(lab, zero, wp, wn), s), j, nb_)
            j += 4
        out_u[dw] = acc_a
        out_u[dw + 1] = acc_b
        acc /= nb_
    out_dual[0] = -2.0 * p * (1.0 - p) * alpha + 2.0 * acc


@nb.njit(cache=True, error_model="numpy")
def outer_grad_inner(data, k, u, ydual, key, exact, out):
    """grad_u of the minibatch mean of L: the first half of :func:`outer_grads` (which computes
    both, into a scratch array for the other: the algorithms call outer_grads itself)."""
    outer_grads(data, k, u, ydual, key, exact, out, np.empty(1))


@nb.njit(cache=True, error_model="numpy")
def outer_grad_dual(data, k, u, ydual, key, exact, out):
    """grad_alpha of the minibatch mean of L: the second half of :func:`outer_grads` (which
    computes both, into a scratch array for the other)."""
    outer_grads(data, k, u, ydual, key, exact, np.empty(u.shape[0]), out)


@nb.njit(cache=True)
def _class_sums(data, u):
    """(S_+, S_-): equal-client-weight means of score * I[l = +1] and score * I[l = -1]."""
    Z, L, offsets = data[0], data[1], data[2]
    K = offsets.shape[0] - 1
    sp = 0.0
    sm = 0.0
    for k in range(K):
        n = offsets[k + 1] - offsets[k]
        if n == 0:
            continue
        wt = 1.0 / (K * n)
        for i in range(offsets[k], offsets[k + 1]):
            s = _dot_row(Z, i, u)
            if L[i] > 0.0:
                sp += wt * s
            else:
                sm += wt * s
    return sp, sm


@nb.njit(cache=True)
def dual_opt(data, u, out):
    p = data[3][1]
    sp, sm = _class_sums(data, u)
    out[0] = (p * sm - (1.0 - p) * sp) / (p * (1.0 - p))


@nb.njit(cache=True)
def minimax_value(data, u, ydual):
    Z, L, offsets, params = data[0], data[1], data[2], data[3]
    p = params[1]
    K = offsets.shape[0] - 1
    val = 0.0
    for k in range(K):
        n = offsets[k + 1] - offsets[k]
        if n == 0:
            continue
        wt = 1.0 / (K * n)
        for i in range(offsets[k], offsets[k + 1]):
            val += wt * _sample_loss(Z, i, L[i], u, ydual[0], p)
    return val


@nb.njit(cache=True)
def _minimax_grad_u(data, u, alpha, out):
    Z, L, offsets, params = data[0], data[1], data[2], data[3]
    p = params[1]
    K = offsets.shape[0] - 1
    for j in range(out.shape[0]):
        out[j] = 0.0
    dw = Z.shape[1]
    ua, ub = u[dw], u[dw + 1]
    acc_a = 0.0
    acc_b = 0.0
    for k in range(K):
        n = offsets[k + 1] - offsets[k]
        if n == 0:
            continue
        wt = 1.0 / (K * n)
        for i in range(offsets[k], offsets[k + 1]):
            da, db = _sample_grad_u(Z, i, L[i], u, ua, ub, alpha, p, wt, out)
            acc_a -= da
            acc_b -= db
    out[dw] = acc_a
    out[dw + 1] = acc_b


@nb.njit(cache=True)
def f_grad(data, k, u, out):
    a = np.empty(1)
    dual_opt(data, u, a)
    _minimax_grad_u(data, u, a[0], out)


@nb.njit(cache=True)
def g_mean(data, x, out):
    K = data[2].shape[0] - 1
    tmp = np.empty(out.shape[0])
    for j in range(out.shape[0]):
        out[j] = 0.0
    for k in range(K):
        if data[2][k + 1] == data[2][k]:
            continue
        g_value(data, k, x, np.uint64(0), np.bool_(True), tmp)
        for j in range(out.shape[0]):
            out[j] += tmp[j]
    for j in range(out.shape[0]):
        out[j] /= K


@nb.njit(cache=True)
def ce_value(data, x):
    Z, L, offsets = data[0], data[1], data[2]
    K = offsets.shape[0] - 1
    val = 0.0
    for k in range(K):
        n = offsets[k + 1] - offsets[k]
        if n == 0:
            continue
        wt = 1.0 / (K * n)
        for i in range(offsets[k], offsets[k + 1]):
            m = -L[i] * _dot_row(Z, i, x)
            # log(1 + exp(m)) without overflow
            val += wt * (max(m, 0.0) + np.log1p(np.exp(-abs(m))))
    return val


@nb.njit(cache=True)
def phi_value(data, x):
    u = np.empty(x.shape[0])
    a = np.empty(1)
    g_mean(data, x, u)
    dual_opt(data, u, a)
    return minimax_value(data, u, a)


@nb.njit(cache=True)
def phi_value_grad(data, x, out):
    """out = grad Phi(x) = J_g(x)^T grad_u F(g(x), alpha*(g(x))), J_g the mean of the clients';
    returns Phi(x). g(x) and alpha*(g(x)) are computed once for both."""
    d = x.shape[0]
    K = data[2].shape[0] - 1
    u = np.empty(d)
    v = np.empty(d)
    tmp = np.empty(d)
    a = np.empty(1)
    g_mean(data, x, u)
    dual_opt(data, u, a)
    _minimax_grad_u(data, u, a[0], v)
    for j in range(d):
        out[j] = 0.0
    for k in range(K):
        if data[2][k + 1] == data[2][k]:
            continue
        g_vjp(data, k, x, v, np.uint64(0), np.bool_(True), tmp)
        for j in range(d):
            out[j] += tmp[j]
    for j in range(d):
        out[j] /= K
    return minimax_value(data, u, a)


@nb.njit(cache=True)
def phi_grad(data, x, out):
    """out = grad Phi(x) (phi_value_grad's vector)."""
    phi_value_grad(data, x, out)
