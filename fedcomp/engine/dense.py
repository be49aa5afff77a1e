"""Small dense matrix-vector products for the kernels, in four-lane blocks (:mod:`.simd`).

Matrices are slices ``M[k]`` of a stack of per-client matrices, passed as (M, k) so that no view is
created in the hot loop. Every output is a sum in a fixed, documented order, the same whichever
layout a product reads and on every machine (no fused multiply-add, no reassociation), so a run is
bit-identical across executors, thread counts and the layout choice below. tests/test_dense.py
checks each product against a plain scalar loop written in that order, on random shapes.

**A_k x + b_k** (:func:`affine`, :func:`affine2`), d inputs, M = d // 4 full blocks of four::

    if M == 0:  out[i] = b[i] + A[i, 0] x[0] + A[i, 1] x[1] + ...            (left to right)
    else:       P_l   = 0.0 + A[i, l] x[l] + A[i, 4 + l] x[4 + l] + ...      (l = 0..3, j < 4M)
                out[i] = b[i] + ((P_0 + P_1) + (P_2 + P_3))
                         + A[i, 4M] x[4M] + ... + A[i, d - 1] x[d - 1]     (left to right)

i.e. four interleaved partial sums (the lanes of one vector), combined in a fixed tree. Two
layouts compute exactly these numbers: the rows of A_k (row-major, ``A[k]``; each row's four
partial sums in one register, four rows at a time), or the columns (``At[k]``, A_k^T stored
contiguously; four outputs per register, one register per lane class l). The column form is the
faster one while the matrices stay in the caches (small d); beyond, keeping A_k^T as well doubles
the memory a client step streams through, and the row form reading A alone is 2-6 times faster
(d = 200 to 500, bench/engine_bench.py). The caller picks the layout by passing an empty At
(shape (K, 0, 0)) for the row form.

**a_i . x** (:func:`row_dot`, :func:`row_dot2`, row i of a matrix F (N, d)): the same order with
b[i] = 0.0 (the logistic losses of the DRO problems); :func:`row_dots4`, :func:`row_dots4_2`: four
rows (any four, e.g. a minibatch's samples) in one register, each lane in that order.

**A_k^T v** (:func:`matvec_t`), n rows: out[j] = 0.0 + A[0, j] v[0] + A[1, j] v[1] + ... (left
to right), computed from the rows of A_k, sixteen outputs at a time in four registers (then four,
then one). Starting from 0.0 matters for the sign of a zero: 0.0 + (-0.0) is 0.0.
"""
import numba as nb
import numpy as np

from fedcomp.engine.simd import add4, hsum4, hsum4x4, load4, madd4, make4, splat4, store4


# The private helpers below are not numba-inlined (inline="always"): numba's IR inliner re-types
# every call site, and with them inlined a cold first simulate of FedDRO on LinearQuadratic took
# 34 s instead of 19.5 s (fresh caches, one core, 26 November 2026). LLVM does not inline
# _row_finish either (the compiled step calls it once per row: `inspect_asm`, 27 November), which
# cost about 20 % of a client step at d = 100-200 on an AMD EPYC. So the row products finish four
# rows at a time in one register (_rows_finish, numba-inlined, three call sites: no measurable
# compile cost, bench/cold_start.py), and call _row_finish only for the last n % 4 rows.
@nb.njit(cache=True, error_model="numpy")
def _row_finish(A, k, b, x, i, m4, p):
    """out[i] from the four partial sums p of row i (j < m4) and the tail j >= m4."""
    s = b[k, i]
    if m4 > 0:
        s += hsum4(p)
    for j in range(m4, A.shape[2]):
        s += A[k, i, j] * x[j]
    return s


@nb.njit(cache=True, error_model="numpy")
def _row_partials(A, k, x, i, m4):
    p = splat4(0.0)
    j = 0
    while j < m4:
        p = madd4(p, load4(A, (k, i, j)), load4(x, (j,)))
        j += 4
    return p


@nb.njit(cache=True, inline="always", error_model="numpy")
def _rows_finish(A, k, b, x, i, m4, d, p0, p1, p2, p3):
    """out[i..i+3] from the partial sums p0..p3 of rows i..i+3 (j < m4) and the tail j >= m4, in
    one register: the numbers of _row_finish on each row, with no call per row."""
    s = load4(b, (k, i))
    if m4 > 0:
        s = add4(s, hsum4x4(p0, p1, p2, p3))
    for j in range(m4, d):
        s = madd4(s, make4(A[k, i, j], A[k, i + 1, j], A[k, i + 2, j], A[k, i + 3, j]),
                  splat4(x[j]))
    return s


@nb.njit(cache=True, error_model="numpy")
def _col_scalar(At, k, b, x, i, m4):
    """out[i] read from the columns (At), for the last n % 4 outputs."""
    c0 = 0.0
    c1 = 0.0
    c2 = 0.0
    c3 = 0.0
    j = 0
    while j < m4:
        c0 += At[k, j, i] * x[j]
        c1 += At[k, j + 1, i] * x[j + 1]
        c2 += At[k, j + 2, i] * x[j + 2]
        c3 += At[k, j + 3, i] * x[j + 3]
        j += 4
    s = b[k, i]
    if m4 > 0:
        s += (c0 + c1) + (c2 + c3)
    for j in range(m4, At.shape[1]):
        s += At[k, j, i] * x[j]
    return s


@nb.njit(cache=True, error_model="numpy")
def _col_block(At, k, x, i, m4):
    """The combined partial sums (P_0 + P_1) + (P_2 + P_3) of outputs i..i+3, from the columns."""
    c0 = splat4(0.0)
    c1 = c0
    c2 = c0
    c3 = c0
    j = 0
    while j < m4:
        c0 = madd4(c0, load4(At, (k, j, i)), splat4(x[j]))
        c1 = madd4(c1, load4(At, (k, j + 1, i)), splat4(x[j + 1]))
        c2 = madd4(c2, load4(At, (k, j + 2, i)), splat4(x[j + 2]))
        c3 = madd4(c3, load4(At, (k, j + 3, i)), splat4(x[j + 3]))
        j += 4
    return add4(add4(c0, c1), add4(c2, c3))


@nb.njit(cache=True, error_model="numpy")
def _col_tail(At, k, x, i, m4, s):
    for j in range(m4, At.shape[1]):
        s = madd4(s, load4(At, (k, j, i)), splat4(x[j]))
    return s


@nb.njit(cache=True, inline="always", error_model="numpy")
def affine(A, At, k, b, x, out):
    """out = A_k x + b_k in the module's order; from At's columns when At is not empty."""
    d, n = A.shape[2], A.shape[1]
    m4 = d - d % 4
    i = np.int64(0)  # not the literal 0: a literal argument compiles the helpers twice
    if At.shape[1] > 0:
        while i + 4 <= n:
            s = load4(b, (k, i))
            if m4 > 0:
                s = add4(s, _col_block(At, k, x, i, m4))
            store4(out, (i,), _col_tail(At, k, x, i, m4, s))
            i += 4
        while i < n:
            out[i] = _col_scalar(At, k, b, x, i, m4)
            i += 1
        return
    while i + 4 <= n:
        p0 = splat4(0.0)
        p1 = p0
        p2 = p0
        p3 = p0
        j = 0
        while j < m4:
            xv = load4(x, (j,))
            p0 = madd4(p0, load4(A, (k, i, j)), xv)
            p1 = madd4(p1, load4(A, (k, i + 1, j)), xv)
            p2 = madd4(p2, load4(A, (k, i + 2, j)), xv)
            p3 = madd4(p3, load4(A, (k, i + 3, j)), xv)
            j += 4
        store4(out, (i,), _rows_finish(A, k, b, x, i, m4, d, p0, p1, p2, p3))
        i += 4
    while i < n:
        out[i] = _row_finish(A, k, b, x, i, m4, _row_partials(A, k, x, i, m4))
        i += 1


@nb.njit(cache=True, inline="always", error_model="numpy")
def affine2(A, At, k, b, x1, x2, out1, out2):
    """:func:`affine` at two points x1, x2 at once (each element of A_k is read once)."""
    d, n = A.shape[2], A.shape[1]
    m4 = d - d % 4
    i = np.int64(0)
    if At.shape[1] > 0:
        while i + 4 <= n:
            s1 = load4(b, (k, i))
            s2 = s1
            if m4 > 0:
                c0 = splat4(0.0)
                c1 = c0
                c2 = c0
                c3 = c0
                e0 = c0
                e1 = c0
                e2 = c0
                e3 = c0
                j = 0
                while j < m4:
                    a0 = load4(At, (k, j, i))
                    a1 = load4(At, (k, j + 1, i))
                    a2 = load4(At, (k, j + 2, i))
                    a3 = load4(At, (k, j + 3, i))
                    c0 = madd4(c0, a0, splat4(x1[j]))
                    c1 = madd4(c1, a1, splat4(x1[j + 1]))
                    c2 = madd4(c2, a2, splat4(x1[j + 2]))
                    c3 = madd4(c3, a3, splat4(x1[j + 3]))
                    e0 = madd4(e0, a0, splat4(x2[j]))
                    e1 = madd4(e1, a1, splat4(x2[j + 1]))
                    e2 = madd4(e2, a2, splat4(x2[j + 2]))
                    e3 = madd4(e3, a3, splat4(x2[j + 3]))
                    j += 4
                s1 = add4(s1, add4(add4(c0, c1), add4(c2, c3)))
                s2 = add4(s2, add4(add4(e0, e1), add4(e2, e3)))
            for j in range(m4, d):
                a = load4(At, (k, j, i))
                s1 = madd4(s1, a, splat4(x1[j]))
                s2 = madd4(s2, a, splat4(x2[j]))
            store4(out1, (i,), s1)
            store4(out2, (i,), s2)
            i += 4
        while i < n:
            out1[i] = _col_scalar(At, k, b, x1, i, m4)
            out2[i] = _col_scalar(At, k, b, x2, i, m4)
            i += 1
        return
    while i + 4 <= n:
        p0 = splat4(0.0)
        p1 = p0
        p2 = p0
        p3 = p0
        q0 = p0
        q1 = p0
        q2 = p0
        q3 = p0
        j = 0
        while j < m4:
            x1v = load4(x1, (j,))
            x2v = load4(x2, (j,))
            a0 = load4(A, (k, i, j))
            a1 = load4(A, (k, i + 1, j))
            a2 = load4(A, (k, i + 2, j))
            a3 = load4(A, (k, i + 3, j))
            p0 = madd4(p0, a0, x1v)
            p1 = madd4(p1, a1, x1v)
            p2 = madd4(p2, a2, x1v)
            p3 = madd4(p3, a3, x1v)
            q0 = madd4(q0, a0, x2v)
            q1 = madd4(q1, a1, x2v)
            q2 = madd4(q2, a2, x2v)
            q3 = madd4(q3, a3, x2v)
            j += 4
        store4(out1, (i,), _rows_finish(A, k, b, x1, i, m4, d, p0, p1, p2, p3))
        store4(out2, (i,), _rows_finish(A, k, b, x2, i, m4, d, q0, q1, q2, q3))
        i += 4
    while i < n:
        out1[i] = _row_finish(A, k, b, x1, i, m4, _row_partials(A, k, x1, i, m4))
        out2[i] = _row_finish(A, k, b, x2, i, m4, _row_partials(A, k, x2, i, m4))
        i += 1


@nb.njit(cache=True, inline="always", error_model="numpy")
def matvec_t(A, k, v, out):
    """out[j] = 0.0 + A[k, 0, j] v[0] + A[k, 1, j] v[1] + ..., i.e. out = A_k^T v in the order of i,
    read from the rows of A_k, sixteen outputs at a time (four independent registers)."""
    n, d = A.shape[1], A.shape[2]
    j = 0
    while j + 16 <= d:
        s0 = splat4(0.0)
        s1 = s0
        s2 = s0
        s3 = s0
        for i in range(n):
            w = splat4(v[i])
            s0 = madd4(s0, load4(A, (k, i, j)), w)
            s1 = madd4(s1, load4(A, (k, i, j + 4)), w)
            s2 = madd4(s2, load4(A, (k, i, j + 8)), w)
            s3 = madd4(s3, load4(A, (k, i, j + 12)), w)
        store4(out, (j,), s0)
        store4(out, (j + 4,), s1)
        store4(out, (j + 8,), s2)
        store4(out, (j + 12,), s3)
        j += 16
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


@nb.njit(cache=True, inline="always", error_model="numpy")
def row_dot(F, i, x):
    """F[i] . x in the module's order (that of :func:`affine` with b[i] = 0.0)."""
    d = F.shape[1]
    m4 = d - d % 4
    s = 0.0
    if m4 > 0:
        p = splat4(0.0)
        j = 0
        while j < m4:
            p = madd4(p, load4(F, (i, j)), load4(x, (j,)))
            j += 4
        s += hsum4(p)
    for j in range(m4, d):
        s += F[i, j] * x[j]
    return s


@nb.njit(cache=True, inline="always", error_model="numpy")
def row_dot2(F, i, x1, x2):
    """(F[i] . x1, F[i] . x2), each as :func:`row_dot` computes it, the row read once."""
    d = F.shape[1]
    m4 = d - d % 4
    s1 = 0.0
    s2 = 0.0
    if m4 > 0:
        p = splat4(0.0)
        q = p
        j = 0
        while j < m4:
            a = load4(F, (i, j))
            p = madd4(p, a, load4(x1, (j,)))
            q = madd4(q, a, load4(x2, (j,)))
            j += 4
        s1 += hsum4(p)
        s2 += hsum4(q)
    for j in range(m4, d):
        s1 += F[i, j] * x1[j]
        s2 += F[i, j] * x2[j]
    return s1, s2


@nb.njit(cache=True, inline="always", error_model="numpy")
def row_dots4(F, i0, i1, i2, i3, x):
    """The f64x4 (F[i0] . x, F[i1] . x, F[i2] . x, F[i3] . x), each in :func:`row_dot`'s order,
    the four rows' partial sums summed together (:func:`~fedcomp.engine.simd.hsum4x4`)."""
    d = F.shape[1]
    m4 = d - d % 4
    s = splat4(0.0)
    if m4 > 0:
        p0 = s
        p1 = s
        p2 = s
        p3 = s
        j = 0
        while j < m4:
            xv = load4(x, (j,))
            p0 = madd4(p0, load4(F, (i0, j)), xv)
            p1 = madd4(p1, load4(F, (i1, j)), xv)
            p2 = madd4(p2, load4(F, (i2, j)), xv)
            p3 = madd4(p3, load4(F, (i3, j)), xv)
            j += 4
        s = add4(s, hsum4x4(p0, p1, p2, p3))
    for j in range(m4, d):
        s = madd4(s, make4(F[i0, j], F[i1, j], F[i2, j], F[i3, j]), splat4(x[j]))
    return s


@nb.njit(cache=True, inline="always", error_model="numpy")
def row_dots4_2(F, i0, i1, i2, i3, x1, x2):
    """(:func:`row_dots4` at x1, at x2), each row read once."""
    d = F.shape[1]
    m4 = d - d % 4
    s1 = splat4(0.0)
    s2 = s1
    if m4 > 0:
        p0 = s1
        p1 = s1
        p2 = s1
        p3 = s1
        q0 = s1
        q1 = s1
        q2 = s1
        q3 = s1
        j = 0
        while j < m4:
            x1v = load4(x1, (j,))
            x2v = load4(x2, (j,))
            a0 = load4(F, (i0, j))
            a1 = load4(F, (i1, j))
            a2 = load4(F, (i2, j))
            a3 = load4(F, (i3, j))
            p0 = madd4(p0, a0, x1v)
            p1 = madd4(p1, a1, x1v)
            p2 = madd4(p2, a2, x1v)
            p3 = madd4(p3, a3, x1v)
            q0 = madd4(q0, a0, x2v)
            q1 = madd4(q1, a1, x2v)
            q2 = madd4(q2, a2, x2v)
            q3 = madd4(q3, a3, x2v)
            j += 4
        s1 = add4(s1, hsum4x4(p0, p1, p2, p3))
        s2 = add4(s2, hsum4x4(q0, q1, q2, q3))
    for j in range(m4, d):
        a = make4(F[i0, j], F[i1, j], F[i2, j], F[i3, j])
        s1 = madd4(s1, a, splat4(x1[j]))
        s2 = madd4(s2, a, splat4(x2[j]))
    return s1, s2
