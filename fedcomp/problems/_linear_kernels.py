"""Kernels of :class:`fedcomp.problems.LinearQuadratic` (protocol in :mod:`fedcomp.problems.base`).

data = (A (K, d_g, d), b (K, d_g), params [noise, huber_radius], Abar (d_g, d), bbar (d_g,),
        At: a dense.ColumnCopy (A_k^T, (K, d, d_g rounded up to 4), zero-padded), or an empty
        1-d array for large problems, dense.no_column_copy)

The products run in four-lane blocks (:mod:`fedcomp.engine.dense`, which documents each sum's
order): the value oracles read the columns of A_k (At) while the problem is small, the rows of A_k
beyond (the problem chooses: :attr:`LinearQuadratic.column_layout_max_bytes` and
:attr:`LinearQuadratic.column_layout_max_entries`), with the
same numbers bit for bit either way; g_vjp sums A_k[0, j] v[0] + A_k[1, j] v[1] + ... from 0.0.
The layout is At's type, so a compiled step holds the products of one layout only.

Sampling: a sample zeta of client k is (e, E) with e ~ N(0, s^2 I_{d_g}) added to the value and E
(d_g x d, i.i.d. N(0, s^2)) added to the Jacobian, independent of each other. The value noise is
drawn from substream 0 of the key, so g_value at two points with one key uses the same e;
g_value2 (the protocol's optional two-point oracle) draws that e once for both points. A
Jacobian-transpose product (A_k + E)^T v is drawn as A_k^T v + s ||v|| z with z ~ N(0, I_d) from
substream 1: E^T v has exactly this distribution, and drawing it directly costs d normals instead
of d * d_g. (Two different v with the same key get the same z; no algorithm here applies one
sample's Jacobian to two vectors.)

The oracles are inlined into the generated steps (``inline="always"``): for problems this small,
call overhead is a large share of a client step (bench/engine_bench.py).
"""
import numba as nb
import numpy as np

from fedcomp.engine.dense import affine, affine2, matvec_t_in
from fedcomp.rng import add_normal, add_normal2, substream

HAS_H = False


@nb.njit(cache=True, inline="always", error_model="numpy")
def g_value(data, k, x, key, exact, out):
    A, b, params, At = data[0], data[1], data[2], data[5]
    affine(A, At, k, b, x, out)
    if not exact and params[0] > 0.0:
        add_normal(substream(key, 0), params[0], out)


@nb.njit(cache=True, inline="always", error_model="numpy")
def g_value2(data, k, x1, x2, key, exact, out1, out2):
    """g_value at x1 and x2 with one sample: the value noise e is drawn once and added to both
    (the same numbers, bit for bit, as two g_value calls with this key)."""
    A, b, params, At = data[0], data[1], data[2], data[5]
    affine2(A, At, k, b, x1, x2, out1, out2)
    if not exact and params[0] > 0.0:
        add_normal2(substream(key, 0), params[0], out1, out2)


@nb.njit(cache=True, inline="always", error_model="numpy")
def g_vjp(data, k, x, v, key, exact, out):
    A, params, At = data[0], data[2], data[5]
    dg = A.shape[1]
    matvec_t_in(A, At, k, v, out)
    if not exact and params[0] > 0.0:
        nv = 0.0
        for i in range(dg):
            nv += v[i] * v[i]
        add_normal(substream(key, 1), params[0] * np.sqrt(nv), out)


@nb.njit(cache=True, inline="always", error_model="numpy")
def h_grad(data, k, x, key, exact, out):
    for j in range(out.shape[0]):
        out[j] = 0.0


@nb.njit(cache=True, inline="always", error_model="numpy")
def f_value(data, k, y):
    """f(y): 0.5 ||y||^2, or its Huber version beyond radius R = params[1] (R = inf: none)."""
    R = data[2][1]
    n2 = 0.0
    for i in range(y.shape[0]):
        n2 += y[i] * y[i]
    n = np.sqrt(n2)
    if n <= R:
        return 0.5 * n2
    return R * n - 0.5 * R * R


@nb.njit(cache=True, inline="always", error_model="numpy")
def f_grad(data, k, y, out):
    R = data[2][1]
    n2 = 0.0
    for i in range(y.shape[0]):
        n2 += y[i] * y[i]
    n = np.sqrt(n2)
    c = 1.0 if n <= R else R / n
    for i in range(y.shape[0]):
        out[i] = c * y[i]


@nb.njit(cache=True, inline="always", error_model="numpy")
def g_mean(data, x, out):
    Abar, bbar = data[3], data[4]
    dg, d = Abar.shape
    for i in range(dg):
        s = bbar[i]
        for j in range(d):
            s += Abar[i, j] * x[j]
        out[i] = s


@nb.njit(cache=True, inline="always", error_model="numpy")
def phi_value(data, x):
    y = np.empty(data[4].shape[0])
    g_mean(data, x, y)
    return f_value(data, 0, y)


@nb.njit(cache=True, inline="always", error_model="numpy")
def phi_grad(data, x, out):
    Abar = data[3]
    dg, d = Abar.shape
    y = np.empty(dg)
    v = np.empty(dg)
    g_mean(data, x, y)
    f_grad(data, 0, y, v)
    for j in range(d):
        s = 0.0
        for i in range(dg):
            s += Abar[i, j] * v[i]
        out[j] = s
