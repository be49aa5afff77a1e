"""Small dense matrix-vector products for the kernels, in four-lane blocks (:mod:`.simd`).

Each function computes exactly what its plain loop computes, bit for bit: every output is a sum
taken in the same order, starting from the same value (tests/test_dense.py checks this on random
shapes, including sizes that are not multiples of four). Four outputs at a time are accumulated in
one vector register across the whole reduction; the last size % 4 outputs take the scalar loop.

Matrices are slices ``M[k]`` of a stack of per-client matrices, passed as (M, k) so that no view is
created in the hot loop.
"""
import numba as nb

from fedcomp.engine.simd import load4, madd4, splat4, store4


@nb.njit(cache=True, inline="always", error_model="numpy")
def affine_t(At, k, b, x, out):
    """out[i] = b[k, i] + At[k, 0, i] x[0] + At[k, 1, i] x[1] + ... (At[k]: the transpose of A_k).

    That is out = A_k x + b_k with A_k^T stored contiguously, summed in the order of j.
    """
    d, n = At.shape[1], At.shape[2]
    i = 0
    while i + 4 <= n:
        s = load4(b, (k, i))
        for j in range(d):
            s = madd4(s, load4(At, (k, j, i)), splat4(x[j]))
        store4(out, (i,), s)
        i += 4
    while i < n:
        s = b[k, i]
        for j in range(d):
            s += At[k, j, i] * x[j]
        out[i] = s
        i += 1


@nb.njit(cache=True, inline="always", error_model="numpy")
def affine2_t(At, k, b, x1, x2, out1, out2):
    """:func:`affine_t` at two points x1, x2 at once (each column of At is read once)."""
    d, n = At.shape[1], At.shape[2]
    i = 0
    while i + 4 <= n:
        s1 = load4(b, (k, i))
        s2 = s1
        for j in range(d):
            a = load4(At, (k, j, i))
            s1 = madd4(s1, a, splat4(x1[j]))
            s2 = madd4(s2, a, splat4(x2[j]))
        store4(out1, (i,), s1)
        store4(out2, (i,), s2)
        i += 4
    while i < n:
        s1 = b[k, i]
        s2 = s1
        for j in range(d):
            a = At[k, j, i]
            s1 += a * x1[j]
            s2 += a * x2[j]
        out1[i] = s1
        out2[i] = s2
        i += 1


@nb.njit(cache=True, inline="always", error_model="numpy")
def matvec_t(A, k, v, out):
    """out[j] = 0.0 + A[k, 0, j] v[0] + A[k, 1, j] v[1] + ..., i.e. out = A_k^T v in the order of i.

    (Starting from 0.0 matters for the sign of a zero: 0.0 + (-0.0) is 0.0.)
    """
    n, d = A.shape[1], A.shape[2]
    j = 0
    while j + 4 <= d:
        s = splat4(0.0)
        for i in range(n):
            s = madd4(s, load4(A, (k, i, j)), splat4(v[i]))
        store4(out, (j,), s)
        j += 4
    while j < d:
        s = 0.0
        for i in range(n):
            s += A[k, i, j] * v[i]
        out[j] = s
        j += 1
