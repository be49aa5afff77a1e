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
partial sums in one register, four rows at a time), or the columns (A_k^T stored contiguously
with its rows zero-padded to a multiple of four entries, :func:`column_copy`; four outputs per
register, one register per lane class l, the last block's unused lanes computed and never
stored). The column form is the
faster one while the matrices stay in the caches (small d); beyond, keeping A_k^T as well doubles
the memory a client step streams through, and the row form reading A alone is 2-6 times faster
(d = 200 to 500, bench/engine_bench.py). The caller picks the layout by passing
:func:`no_column_copy`'s empty array as At for the row form.

What is compiled where: the products choose their form by At's type when the caller is compiled
(numba ``overload``s): with a column copy (a :class:`ColumnCopy`) the column forms, numba-inlined into every
oracle that calls them as the engine's steps are (a call costs a large share of a small problem's
step); without one (:func:`no_column_copy`) a call of the row forms (:func:`affine_rows`,
:func:`affine2_rows`, :func:`matvec_t`), numba functions compiled once on their own and cached on
disk for every problem and algorithm, which serve only matrices too large for a column copy, where
a call is nothing beside the product. So a compiled step holds the code of one layout only, and
no call in a small problem's step: inlining both layouts at every oracle call site cost the
compilation of every (algorithm, LinearQuadratic) pair about 40 % of its time (docs/bench.md,
"The row products compiled once").

**a_i . x** (:func:`row_dot`, :func:`row_dot2`, row i of a matrix F (N, d)): the same order with
b[i] = 0.0 (the logistic losses of the DRO problems, the exact measures); :func:`row_dots4`,
:func:`row_dots4_2`: four rows (any four, e.g. a minibatch's samples) in one register, each lane
in that order (the minibatch blocks of the KL-DRO, chi^2 and AUC kernels). row_dot2 has no caller
in fedcomp now; it stays as the two-point form of row_dot.

**A_k^T v** (:func:`matvec_t`), n rows: out[j] = 0.0 + A[0, j] v[0] + A[1, j] v[1] + ... (left
to right), computed from the rows of A_k: for small matrices in column strips, sixteen outputs at
a time in four registers (then eight, four, and the last d % 4 one at a time); for large ones
row by row, four rows at a time into the outputs (:data:`MATVEC_T_ROWS_MIN`). Starting from 0.0
matters for the sign of a zero: 0.0 + (-0.0) is 0.0.

The row forms read A_k block of four rows after block; while they read one block they ask the
processor to prefetch the next (:func:`.simd.prefetch`, rows of at least
:data:`PREFETCH_MIN_COLS` entries): a cache hint that changes no number.
"""
from typing import NamedTuple

import numba as nb
import numpy as np
from numba.core import types
from numba.extending import overload

from fedcomp.engine.simd import (add4, hsum4, hsum4x4, lane4, load4, madd4, make4, prefetch, splat4,
                                 store4)


# Why four rows (or outputs) at a time everywhere, remainders included: numba compiles a helper
# that is not numba-inlined as a function of its own, and LLVM did not inline such helpers here: a
# call per row or per remainder output (inspect_asm of the compiled FedDRO step, 27 November 2026)
# cost about 20 % of a client step at d = 100-200, and more than half of affine2 at d = 10
# (bench/dense_micro.py). Numba-inlining five small helpers into each product, on the other
# hand, doubled the cold compilation (26 November: 34 s instead of 19.5 s), since a product is
# itself inlined at every oracle call site. So each row product has one block routine (rows4,
# rows4_2: numba-inlined, one call site per product) and the last n % 4 rows go through it too,
# with their unused lanes repeating the last row (computed, never stored); the column forms
# likewise take the last n % 4 outputs as a block of four (the padding of column_copy).


@nb.njit(cache=True, inline="always", error_model="numpy")
def rows4(A, pre, i0, i1, i2, i3, x, s, ahead):
    """s plus the products of rows i0..i3 of A[pre] (pre: the leading indices, () or (k,)) with x:
    lane l is ``s_l + ((P_0 + P_1) + (P_2 + P_3)) + tail`` for row i_l, the module's order (P_l
    the four partial sums of the full blocks, the tail j >= 4M left to right). `ahead` >= 0: the
    first of four rows of A[pre] (A C-contiguous) to prefetch while these are read (the comment
    above PREFETCH_MIN_COLS); negative: none."""
    d = A.shape[-1]
    m4 = d - d % 4
    if m4 > 0:
        p0 = splat4(0.0)
        p1 = p0
        p2 = p0
        p3 = p0
        j = 0
        while j < m4:
            if ahead >= 0:
                prefetch(A, pre + (ahead, 4 * j))
                prefetch(A, pre + (ahead, 4 * j + 8))
            xv = load4(x, (j,))
            p0 = madd4(p0, load4(A, pre + (i0, j)), xv)
            p1 = madd4(p1, load4(A, pre + (i1, j)), xv)
            p2 = madd4(p2, load4(A, pre + (i2, j)), xv)
            p3 = madd4(p3, load4(A, pre + (i3, j)), xv)
            j += 4
        s = add4(s, hsum4x4(p0, p1, p2, p3))
    for j in range(m4, d):
        s = madd4(s, make4(A[pre + (i0, j)], A[pre + (i1, j)], A[pre + (i2, j)],
                           A[pre + (i3, j)]), splat4(x[j]))
    return s


@nb.njit(cache=True, inline="always", error_model="numpy")
def rows4_2(A, pre, i0, i1, i2, i3, x1, x2, s1, s2, ahead):
    """(:func:`rows4` at x1 from s1, at x2 from s2), each element of the four rows read once."""
    d = A.shape[-1]
    m4 = d - d % 4
    if m4 > 0:
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
            if ahead >= 0:
                prefetch(A, pre + (ahead, 4 * j))
                prefetch(A, pre + (ahead, 4 * j + 8))
            x1v = load4(x1, (j,))
            x2v = load4(x2, (j,))
            a0 = load4(A, pre + (i0, j))
            a1 = load4(A, pre + (i1, j))
            a2 = load4(A, pre + (i2, j))
            a3 = load4(A, pre + (i3, j))
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
        a = make4(A[pre + (i0, j)], A[pre + (i1, j)], A[pre + (i2, j)], A[pre + (i3, j)])
        s1 = madd4(s1, a, splat4(x1[j]))
        s2 = madd4(s2, a, splat4(x2[j]))
    return s1, s2


#: The row-layout products (:func:`affine_rows`, :func:`affine2_rows`, :func:`matvec_t_rows`) prefetch the
#: next block of four rows (the comment below) when rows have at least this many entries: the
#: smallest size at which every in-process A/B measured a gain (``bench/dense_micro.py --against``;
#: docs/bench.md, "Prefetching the next block of rows", has the runs: 1.00-1.26 times faster
#: at d = 64-500, break-even at 48-56). Below it the test of `ahead` in the inner loop remains: up
#: to 15 % on matvec_t rows at d = 10-44 (a form matvec_t picks for such short rows only above 8192
#: entries, i.e. more than 170 rows), within a few per cent on affine2 rows.
PREFETCH_MIN_COLS = 64


# How the row forms prefetch (written out at each of their three loops rather than as numba-inlined
# helpers: every numba-inlined call site costs the cold compilation a translation of its callee):
# while reading the block of rows i..i+3 they prefetch the next block, rows ahead = i + 4 ..
# i + 7, when it is a full one and d >= PREFETCH_MIN_COLS (else ahead = -1: none). Those four
# rows are 4d contiguous elements; step j of the block's loop (j = 0, 4, ..., m4 - 4) prefetches
# the flat positions 4j and 4j + 8 from the start of row `ahead`, 64 bytes apart, so the loop's
# m4 / 4 steps reach the first 4 m4 of the 4d elements (all but at most the last 12) and stay
# below 4d (they cover those elements' cache lines but the last one or two). A cache hint only: the
# numbers are the same without it. Read block after block, each block's four rows are new streams
# to the processor's own prefetchers. (Prefetching the whole next block at the start of a block,
# instead of spread over its loop, measured 0.83-0.93 of the time without any hint at d = 100-500.)


@nb.njit(cache=True, inline="always", error_model="numpy")
def _block_rows(i, n):
    """Rows i, i + 1, i + 2, i + 3 of a block, those past the last row n - 1 repeating it."""
    return i, min(i + 1, n - 1), min(i + 2, n - 1), min(i + 3, n - 1)


@nb.njit(cache=True, inline="always", error_model="numpy")
def _store_block(out, i, n, s):
    """out[i + l] = s[l] for the lanes of rows below n (all four: one vector store)."""
    if i + 4 <= n:
        store4(out, (i,), s)
        return
    out[i] = lane4(s, 0)
    if i + 1 < n:
        out[i + 1] = lane4(s, 1)
    if i + 2 < n:
        out[i + 2] = lane4(s, 2)


@nb.njit(cache=True, inline="always", error_model="numpy")
def _offsets(b, k, i, n):
    """b[k, i..i+3] as one vector, the lanes past row n - 1 repeating it (never stored)."""
    if i + 4 <= n:
        return load4(b, (k, i))
    i0, i1, i2, i3 = _block_rows(i, n)
    return make4(b[k, i0], b[k, i1], b[k, i2], b[k, i3])


class ColumnCopy(NamedTuple):
    """The column form's copy of a stack of matrices A (K, n, d), made by :func:`column_copy`:
    ``blocks`` = A_k^T, C-contiguous, its rows zero-padded to a multiple of four entries
    (K, d, 4 ceil(n / 4)), so that every block of four outputs, the last one included, is one
    vector load per column (the padded lanes are computed and never stored). A type of its own,
    so that an unpadded transposed array cannot be taken for one: any At that is not a
    ColumnCopy selects the row forms."""
    blocks: np.ndarray


def _padded(n: int) -> int:
    """n rounded up to a multiple of four (the rows of a column copy)."""
    return -(-n // 4) * 4


def column_copy_nbytes(K: int, n: int, d: int) -> int:
    """Bytes of the :class:`ColumnCopy` of K matrices of n rows and d columns."""
    return K * d * _padded(n) * 8


def column_copy(A) -> ColumnCopy:
    """The :class:`ColumnCopy` of A (K, n, d)."""
    K, n, d = A.shape
    At = np.zeros((K, d, _padded(n)))
    At[:, :, :n] = A.transpose(0, 2, 1)
    return ColumnCopy(At)


def no_column_copy():
    """The ``At`` of the row form (no column copy): an empty 1-d array. The products choose their
    form by At's type when the caller is compiled: a :class:`ColumnCopy` the column form,
    anything else the row form."""
    return np.empty(0)


def _is_column_copy(At) -> bool:
    """At compile time: does an At of numba type `At` select the column form?"""
    return isinstance(At, types.BaseNamedTuple) and At.instance_class is ColumnCopy


def affine(A, At, k, b, x, out):
    """out = A_k x + b_k in the module's order: from At's columns (:func:`column_copy`: every
    output, four at a time, numba-inlined), or, when At is :func:`no_column_copy`'s, from A's
    rows (:func:`affine_rows`, compiled on its own: one call per product). The form is chosen by
    At's type when the caller compiles, so a compiled step holds the code of one form only.
    Compiled code only (numba's ``overload``)."""
    raise TypeError("fedcomp.engine.dense.affine is callable from numba-compiled code only")


def affine2(A, At, k, b, x1, x2, out1, out2):
    """:func:`affine` at two points x1, x2 at once (each element of A_k is read once): the column
    form numba-inlined, or :func:`affine2_rows`. Compiled code only."""
    raise TypeError("fedcomp.engine.dense.affine2 is callable from numba-compiled code only")


def matvec_t_in(A, At, k, v, out):
    """out = A_k^T v (:func:`matvec_t`'s sums) for a problem in At's layout: with a column copy
    the column strips numba-inlined (:func:`matvec_t_strips`, whatever the size: a problem makes
    a column copy only of matrices of at most :data:`MATVEC_T_ROWS_MIN` entries, where the strips
    are the faster form), else a call of :func:`matvec_t`, compiled on its own. Compiled code
    only."""
    raise TypeError("fedcomp.engine.dense.matvec_t_in is callable from numba-compiled code only")


# The overloads' implementations, one per layout (numba inlines the chosen one at the call site).
def _affine_columns(A, At, k, b, x, out):
    """:func:`affine` from the columns of the :class:`ColumnCopy` At, four outputs at a time."""
    C = At.blocks
    d, n = A.shape[2], A.shape[1]
    m4 = d - d % 4
    i = np.int64(0)
    while i < n:
        s = _offsets(b, k, i, n)
        if m4 > 0:
            c0 = splat4(0.0)
            c1 = c0
            c2 = c0
            c3 = c0
            j = 0
            while j < m4:
                c0 = madd4(c0, load4(C, (k, j, i)), splat4(x[j]))
                c1 = madd4(c1, load4(C, (k, j + 1, i)), splat4(x[j + 1]))
                c2 = madd4(c2, load4(C, (k, j + 2, i)), splat4(x[j + 2]))
                c3 = madd4(c3, load4(C, (k, j + 3, i)), splat4(x[j + 3]))
                j += 4
            s = add4(s, add4(add4(c0, c1), add4(c2, c3)))
        for j in range(m4, d):
            s = madd4(s, load4(C, (k, j, i)), splat4(x[j]))
        _store_block(out, i, n, s)
        i += 4


def _affine2_columns(A, At, k, b, x1, x2, out1, out2):
    """:func:`affine2` from the columns of the :class:`ColumnCopy` At, four outputs at a time."""
    C = At.blocks
    d, n = A.shape[2], A.shape[1]
    m4 = d - d % 4
    i = np.int64(0)
    while i < n:
        s1 = _offsets(b, k, i, n)
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
                a0 = load4(C, (k, j, i))
                a1 = load4(C, (k, j + 1, i))
                a2 = load4(C, (k, j + 2, i))
                a3 = load4(C, (k, j + 3, i))
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
            a = load4(C, (k, j, i))
            s1 = madd4(s1, a, splat4(x1[j]))
            s2 = madd4(s2, a, splat4(x2[j]))
        _store_block(out1, i, n, s1)
        _store_block(out2, i, n, s2)
        i += 4


def _affine_by_rows(A, At, k, b, x, out):
    affine_rows(A, k, b, x, out)


def _affine2_by_rows(A, At, k, b, x1, x2, out1, out2):
    affine2_rows(A, k, b, x1, x2, out1, out2)


def _matvec_t_strips_in(A, At, k, v, out):
    matvec_t_strips(A, k, v, out)


def _matvec_t_call(A, At, k, v, out):
    matvec_t(A, k, v, out)


_TYPED = dict(inline="always", jit_options={"error_model": "numpy"})


@overload(affine, **_TYPED)
def _affine_typed(A, At, k, b, x, out):
    return _affine_columns if _is_column_copy(At) else _affine_by_rows


@overload(affine2, **_TYPED)
def _affine2_typed(A, At, k, b, x1, x2, out1, out2):
    return _affine2_columns if _is_column_copy(At) else _affine2_by_rows


@overload(matvec_t_in, **_TYPED)
def _matvec_t_in_typed(A, At, k, v, out):
    return _matvec_t_strips_in if _is_column_copy(At) else _matvec_t_call


@nb.njit(cache=True, error_model="numpy")
def affine_rows(A, k, b, x, out):
    """:func:`affine` from the rows of A_k, four rows at a time (:func:`rows4`), prefetching the
    next block. Compiled once on its own, not inlined (the module docstring)."""
    d, n = A.shape[2], A.shape[1]
    i = np.int64(0)
    while i < n:
        i0, i1, i2, i3 = _block_rows(i, n)
        ahead = i + 4 if i + 8 <= n and d >= PREFETCH_MIN_COLS else np.int64(-1)
        s = rows4(A, (k,), i0, i1, i2, i3, x, make4(b[k, i0], b[k, i1], b[k, i2], b[k, i3]),
                  ahead)
        _store_block(out, i, n, s)
        i += 4


@nb.njit(cache=True, error_model="numpy")
def affine2_rows(A, k, b, x1, x2, out1, out2):
    """:func:`affine2` from the rows of A_k (:func:`rows4_2`), compiled on its own as
    :func:`affine_rows` is."""
    d, n = A.shape[2], A.shape[1]
    i = np.int64(0)
    while i < n:
        i0, i1, i2, i3 = _block_rows(i, n)
        bv = make4(b[k, i0], b[k, i1], b[k, i2], b[k, i3])
        ahead = i + 4 if i + 8 <= n and d >= PREFETCH_MIN_COLS else np.int64(-1)
        s1, s2 = rows4_2(A, (k,), i0, i1, i2, i3, x1, x2, bv, bv, ahead)
        _store_block(out1, i, n, s1)
        _store_block(out2, i, n, s2)
        i += 4


#: A_k^T v from the rows in order (:func:`matvec_t_rows`) when A_k has more entries than this
#: (64 KiB of float64), in column strips (:func:`matvec_t_strips`) otherwise: the same numbers
#: either way. ``NUMBA_NUM_THREADS=1 taskset -c 1 env PYTHONPATH=. python bench/dense_micro.py``
#: (K = 16 square matrices, 28 November 2026 03:52 UTC, AMD EPYC, the machine otherwise idle),
#: ns per call strips / rows: d = 10: 24 / 35; 32: 111 / 135; 64: 585 / 609; 128: 3420 / 2526;
#: 200: 8403 / 7215; 300: 23450 / 17589; 500: 163246 / 90235.
MATVEC_T_ROWS_MIN = 8192


@nb.njit(cache=True, error_model="numpy")
def matvec_t(A, k, v, out):
    """out[j] = 0.0 + A[k, 0, j] v[0] + A[k, 1, j] v[1] + ..., i.e. out = A_k^T v in the order of i,
    read from the rows of A_k: :func:`matvec_t_rows` for matrices of more than
    :data:`MATVEC_T_ROWS_MIN` entries, :func:`matvec_t_strips` for smaller ones (the same sums in
    the same order). Compiled on its own (the products of problems without a column copy call
    it: :func:`matvec_t_in`)."""
    if A.shape[1] * A.shape[2] > MATVEC_T_ROWS_MIN:
        matvec_t_rows(A, k, v, out)
    else:
        matvec_t_strips(A, k, v, out)


@nb.njit(cache=True, inline="always", error_model="numpy")
def matvec_t_rows(A, k, v, out):
    """:func:`matvec_t` row by row, reading A_k once front to back: out starts at 0.0 and each
    block of four rows i..i+3 adds A[k, i, j] v[i], then row i + 1's term, ... into the four
    outputs of one register (loaded and stored once per block), so every out[j] sums its terms
    in the order of i; the last n % 4 rows one at a time, the last d % 4 outputs as scalars."""
    n, d = A.shape[1], A.shape[2]
    m4 = d - d % 4
    for j in range(d):
        out[j] = 0.0
    i = 0
    while i + 4 <= n:
        w0 = splat4(v[i])
        w1 = splat4(v[i + 1])
        w2 = splat4(v[i + 2])
        w3 = splat4(v[i + 3])
        ahead = i + 4 if i + 8 <= n and d >= PREFETCH_MIN_COLS else np.int64(-1)
        j = 0
        while j < m4:
            if ahead >= 0:
                prefetch(A, (k, ahead, 4 * j))
                prefetch(A, (k, ahead, 4 * j + 8))
            o = load4(out, (j,))
            o = madd4(o, load4(A, (k, i, j)), w0)
            o = madd4(o, load4(A, (k, i + 1, j)), w1)
            o = madd4(o, load4(A, (k, i + 2, j)), w2)
            o = madd4(o, load4(A, (k, i + 3, j)), w3)
            store4(out, (j,), o)
            j += 4
        for j in range(m4, d):
            out[j] = (((out[j] + A[k, i, j] * v[i]) + A[k, i + 1, j] * v[i + 1])
                      + A[k, i + 2, j] * v[i + 2]) + A[k, i + 3, j] * v[i + 3]
        i += 4
    while i < n:
        w = splat4(v[i])
        j = 0
        while j < m4:
            store4(out, (j,), madd4(load4(out, (j,)), load4(A, (k, i, j)), w))
            j += 4
        for j in range(m4, d):
            out[j] = out[j] + A[k, i, j] * v[i]
        i += 1


@nb.njit(cache=True, inline="always", error_model="numpy")
def matvec_t_strips(A, k, v, out):
    """:func:`matvec_t` in column strips: sixteen outputs at a time (four independent registers,
    every row of the strip read in turn), then eight, then four, then the last d % 4 one at a
    time (as scalars: a vector of them, its unused lanes repeating the last column, was slower,
    bench/dense_micro.py). Fastest while A_k stays in the first-level cache; beyond, each strip
    reads a few bytes from every row (a page apart once rows are 4 KiB long)."""
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
    if j + 8 <= d:
        s0 = splat4(0.0)
        s1 = s0
        for i in range(n):
            w = splat4(v[i])
            s0 = madd4(s0, load4(A, (k, i, j)), w)
            s1 = madd4(s1, load4(A, (k, i, j + 4)), w)
        store4(out, (j,), s0)
        store4(out, (j + 4,), s1)
        j += 8
    if j + 4 <= d:
        s = splat4(0.0)
        for i in range(n):
            s = madd4(s, load4(A, (k, i, j)), splat4(v[i]))
        store4(out, (j,), s)
        j += 4
    while j < d:
        t = 0.0
        for i in range(n):
            t += A[k, i, j] * v[i]
        out[j] = t
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
    """The f64x4 (F[i0] . x, F[i1] . x, F[i2] . x, F[i3] . x), each in :func:`row_dot`'s order."""
    return rows4(F, (), i0, i1, i2, i3, x, splat4(0.0), np.int64(-1))


@nb.njit(cache=True, inline="always", error_model="numpy")
def row_dots4_2(F, i0, i1, i2, i3, x1, x2):
    """(:func:`row_dots4` at x1, at x2), each row read once."""
    z = splat4(0.0)
    return rows4_2(F, (), i0, i1, i2, i3, x1, x2, z, z, np.int64(-1))
