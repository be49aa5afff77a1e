"""Kernels of :class:`fedcomp.problems.LogCoshMinimax` (protocol in :mod:`fedcomp.problems.base`,
structure ``"minimax"`` as in :mod:`fedcomp.problems._auc_kernels`).

Problem (AUC paper (4), Zhang et al.), with x in R^d, d_g = d and a scalar dual y
(``DUAL_DIM = 1``):

    g_k(x) = a_k * x                      (elementwise; the Jacobian is diag(a_k))
    f_k(z, y) = sum_i log cosh(z_i - b_{k,i}) - (mu/2) y^2
    Phi(x) = max_y (1/K) sum_k f_k(abar * x, y) = (1/K) sum_k sum_i log cosh(abar_i x_i - b_{k,i})

with abar = (1/K) sum_k a_k; y*(x) = 0 for every x, so Phi is F at y = 0 and, by Danskin,
grad Phi(x)_i = abar_i (1/K) sum_k tanh(abar_i x_i - b_{k,i}).

Data layout: data = (A (K, d) the a_k, B (K, d) the b_k, params [mu, sigma], abar (d,)).

Sampling (``exact`` False and sigma > 0; exact oracles otherwise): a sample xi of g_k is (e, eps)
with e, eps ~ N(0, sigma^2 I_d) independent: g_k(x; xi) = a_k * x + e (e from substream 0 of
the key) and the sampled Jacobian diag(a_k + eps) (eps_i the i-th normal of substream 1), so
g_value and g_vjp with one key use one sample xi, as (11) and (12) do. A sample zeta of f_k adds
N(0, sigma^2 I_d) to grad_z f_k (substream 0) and N(0, sigma^2) to grad_y f_k (substream 1); both
outer oracles with one key use one zeta. All draws are fedcomp's counter-based normals
(:mod:`fedcomp.rng`). The oracles are unbiased.

Oracles (the protocol's names, then the minimax additions, as in the AUC kernels):

    HAS_H = False, DUAL_DIM = 1
    g_value(data, k, x, key, exact, out)     out (d,) = g_k(x; xi)
    g_vjp(data, k, x, v, key, exact, out)    out (d,) = diag(a_k + eps) v (the same xi as g_value)
    h_grad(...)                              zeros (no non-compositional part)
    f_grad(data, k, u, out)                  out (d,) = grad of max_y F(u, y) = (1/K) sum_k
                                             tanh(u - b_k), exact and global (k ignored)
    g_mean(data, x, out)                     out (d,) = abar * x, exact
    phi_value(data, x), phi_grad(data, x, out), phi_value_grad(data, x, out)   exact
    outer_grad_inner(data, k, u, ydual, key, exact, out)    out (d,) = grad_z f_k(u, y; zeta)
    outer_grad_dual(data, k, u, ydual, key, exact, out)     out (1,) = grad_y f_k(u, y; zeta)
    outer_grads(data, k, u, ydual, key, exact, out_u, out_dual)   both, one zeta
    minimax_value(data, u, ydual) -> float   F(u, y) = (1/K) sum_k f_k(u, y), exact
    dual_opt(data, u, out)                   out (1,) = y*(u) = 0, exact
    client_product(data, x, out)             out (d,) = (1/K) sum_k a_k * tanh(abar * x - b_k):
                                             the mean of (12)'s client direction J_k^T grad f_k
                                             with h and y at their targets g(x), y*(x)

``ydual`` is an array of length DUAL_DIM = 1 holding y.
"""
import numba as nb
import numpy as np

from fedcomp.rng import add_normal, normal, substream

HAS_H = False
DUAL_DIM = 1


@nb.njit(cache=True, inline="always", error_model="numpy")
def _log_cosh(s):
    """log cosh(s) without overflow: |s| + log1p(exp(-2|s|)) - log 2."""
    a = abs(s)
    return a + np.log1p(np.exp(-2.0 * a)) - np.log(2.0)


@nb.njit(cache=True, inline="always", error_model="numpy")
def g_value(data, k, x, key, exact, out):
    A, params = data[0], data[2]
    for i in range(out.shape[0]):
        out[i] = A[k, i] * x[i]
    if not exact and params[1] > 0.0:
        add_normal(substream(key, 0), params[1], out)


@nb.njit(cache=True, inline="always", error_model="numpy")
def g_vjp(data, k, x, v, key, exact, out):
    A, params = data[0], data[2]
    sigma = params[1]
    noisy = not exact and sigma > 0.0
    kj = substream(key, 1)
    for i in range(out.shape[0]):
        a = A[k, i]
        if noisy:
            a += sigma * normal(kj, i)
        out[i] = a * v[i]


@nb.njit(cache=True, inline="always", error_model="numpy")
def h_grad(data, k, x, key, exact, out):
    for i in range(out.shape[0]):
        out[i] = 0.0


@nb.njit(cache=True, inline="always", error_model="numpy")
def outer_grad_inner(data, k, u, ydual, key, exact, out):
    B, params = data[1], data[2]
    for i in range(out.shape[0]):
        out[i] = np.tanh(u[i] - B[k, i])
    if not exact and params[1] > 0.0:
        add_normal(substream(key, 0), params[1], out)


@nb.njit(cache=True, inline="always", error_model="numpy")
def outer_grad_dual(data, k, u, ydual, key, exact, out):
    params = data[2]
    out[0] = -params[0] * ydual[0]
    if not exact and params[1] > 0.0:
        add_normal(substream(key, 1), params[1], out)


@nb.njit(cache=True, inline="always", error_model="numpy")
def outer_grads(data, k, u, ydual, key, exact, out_u, out_dual):
    """Both outer gradients at one sample zeta (the same numbers as the two oracles above)."""
    outer_grad_inner(data, k, u, ydual, key, exact, out_u)
    outer_grad_dual(data, k, u, ydual, key, exact, out_dual)


@nb.njit(cache=True, inline="always", error_model="numpy")
def g_mean(data, x, out):
    abar = data[3]
    for i in range(out.shape[0]):
        out[i] = abar[i] * x[i]


@nb.njit(cache=True, inline="always", error_model="numpy")
def f_grad(data, k, u, out):
    B = data[1]
    K = B.shape[0]
    for i in range(out.shape[0]):
        s = 0.0
        for kk in range(K):
            s += np.tanh(u[i] - B[kk, i])
        out[i] = s / K


@nb.njit(cache=True, inline="always", error_model="numpy")
def minimax_value(data, u, ydual):
    B, params = data[1], data[2]
    K = B.shape[0]
    s = 0.0
    for kk in range(K):
        for i in range(u.shape[0]):
            s += _log_cosh(u[i] - B[kk, i])
    return s / K - 0.5 * params[0] * ydual[0] * ydual[0]


@nb.njit(cache=True, inline="always", error_model="numpy")
def dual_opt(data, u, out):
    out[0] = 0.0


@nb.njit(cache=True, inline="always", error_model="numpy")
def phi_value_grad(data, x, out):
    """out = grad Phi(x) = abar * (1/K) sum_k tanh(abar * x - b_k); returns Phi(x)."""
    B, abar = data[1], data[3]
    K = B.shape[0]
    val = 0.0
    for i in range(x.shape[0]):
        u = abar[i] * x[i]
        s = 0.0
        for kk in range(K):
            s += np.tanh(u - B[kk, i])
            val += _log_cosh(u - B[kk, i])
        out[i] = abar[i] * s / K
    return val / K


@nb.njit(cache=True, inline="always", error_model="numpy")
def phi_value(data, x):
    out = np.empty(x.shape[0])
    return phi_value_grad(data, x, out)


@nb.njit(cache=True, inline="always", error_model="numpy")
def phi_grad(data, x, out):
    phi_value_grad(data, x, out)


@nb.njit(cache=True, error_model="numpy")
def client_product(data, x, out):
    A, B, abar = data[0], data[1], data[3]
    K = A.shape[0]
    for i in range(x.shape[0]):
        u = abar[i] * x[i]
        s = 0.0
        for kk in range(K):
            s += A[kk, i] * np.tanh(u - B[kk, i])
        out[i] = s / K
