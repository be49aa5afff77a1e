"""The four-lane products (fedcomp.engine.dense, .simd) equal plain scalar loops written in the
documented summation order, bit for bit, in both layouts of the value products."""
import ast
import os
import subprocess
import sys

import numba as nb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fedcomp.engine import build
from fedcomp.engine.dense import (MATVEC_T_ROWS_MIN, PREFETCH_MIN_COLS, ColumnCopy, affine,
                                  affine2, column_copy, matvec_t, matvec_t_in, matvec_t_rows,
                                  matvec_t_strips, no_column_copy, row_dot, row_dot2, row_dots4,
                                  row_dots4_2)
from fedcomp.engine.simd import add4, hsum4, hsum4x4, load4, madd4, splat4, store4

# The products are numba overloads inlined into the test's compiled functions: numba's pedantic
# scope check warns on their loops (fedcomp.engine.build.ir_scope_warnings_off says why that is
# harmless; this module pins the sums bit for bit)
pytestmark = pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaIRAssumptionWarning")


# The order of fedcomp.engine.dense's docstring, one scalar at a time.
@nb.njit
def plain_affine(A, k, b, x, out):
    n, d = A.shape[1], A.shape[2]
    m = d // 4
    for i in range(n):
        s = b[k, i]
        if m > 0:
            P = np.zeros(4)
            for j in range(4 * m):
                P[j % 4] += A[k, i, j] * x[j]
            s += (P[0] + P[1]) + (P[2] + P[3])
        for j in range(4 * m, d):
            s += A[k, i, j] * x[j]
        out[i] = s


@nb.njit
def plain_matvec_t(A, k, v, out):
    n, d = A.shape[1], A.shape[2]
    for j in range(d):
        out[j] = 0.0
    for i in range(n):
        for j in range(d):
            out[j] += A[k, i, j] * v[i]


@nb.njit
def blocked(A, At, k, b, x1, x2, v, o1, o2, o3, o4):
    affine(A, At, k, b, x1, o1)
    affine2(A, At, k, b, x1, x2, o2, o3)
    matvec_t_in(A, At, k, v, o4)


def _values(rng, shape):
    """Random values with some exact zeros of both signs (the sign of a zero sum is pinned too)."""
    a = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)
    a[rng.random(shape) < 0.1] = 0.0
    a[rng.random(shape) < 0.1] = -0.0
    return a


def _same_bits(a, b):
    return np.array_equal(np.asarray(a).view(np.int64), np.asarray(b).view(np.int64))


@given(K=st.integers(1, 3), n=st.integers(1, 21), d=st.integers(1, 37),
       seed=st.integers(0, 2**32 - 1), contiguous=st.booleans(), columns=st.booleans())
@settings(max_examples=60)
def test_blocked_products_equal_the_documented_order_bit_for_bit(K, n, d, seed, contiguous,
                                                                 columns):
    rng = np.random.default_rng(seed)
    A = _values(rng, (K, n, d))
    b = _values(rng, (K, n))
    x1, x2, v = _values(rng, d), _values(rng, d), _values(rng, n)
    At = column_copy(A) if columns else no_column_copy()
    if not contiguous:  # the element-by-element path of load4/store4 ('A' layout)
        if columns:
            At = ColumnCopy(np.repeat(At.blocks, 2, axis=2)[:, :, ::2])
        b = np.repeat(b, 2, axis=1)[:, ::2]
        A = np.repeat(A, 2, axis=2)[:, :, ::2]
    k = K - 1
    # four guard entries past each output: a block routine must never write beyond n (or d)
    full = [np.full(m + 4, np.nan) for m in (n, n, n, d)]
    outs = [f[:-4] for f in full]
    blocked(A, At, k, b, x1, x2, v, *outs)
    assert all(np.isnan(f[-4:]).all() for f in full), "a product wrote past its output"
    ref1, ref2, ref4 = np.empty(n), np.empty(n), np.empty(d)
    plain_affine(A, k, b, x1, ref1)
    plain_affine(A, k, b, x2, ref2)
    plain_matvec_t(A, k, v, ref4)
    assert _same_bits(outs[0], ref1)
    assert _same_bits(outs[1], ref1)
    assert _same_bits(outs[2], ref2)
    assert _same_bits(outs[3], ref4)


@pytest.mark.parametrize("n, d", [(8, 64), (9, 67), (13, 70), (40, 93), (12, 200)])
def test_the_row_products_that_prefetch_are_the_documented_order(n, d):
    """With rows of at least PREFETCH_MIN_COLS entries and a next block of four rows, the
    row-layout products prefetch it (a cache hint): the same bits as the plain loops, nothing
    written past the outputs, in the C layout (where the hint is issued) and in a strided one
    (where it is not)."""
    assert d >= PREFETCH_MIN_COLS and n >= 8
    rng = np.random.default_rng(n * d)
    A = _values(rng, (3, n, d))
    b = _values(rng, (3, n))
    x1, x2, v = _values(rng, d), _values(rng, d), _values(rng, n)
    for A_ in (A, np.repeat(A, 2, axis=2)[:, :, ::2]):
        full = [np.full(m + 4, np.nan) for m in (n, n, n, d)]
        outs = [f[:-4] for f in full]
        blocked(A_, no_column_copy(), 1, b, x1, x2, v, *outs)
        o_rows = np.full(d + 4, np.nan)
        _both_matvec_t(A_, 1, v, o_rows[:-4], np.empty(d), np.empty(d))
        assert all(np.isnan(f[-4:]).all() for f in (*full, o_rows))
        ref1, ref2, ref4 = np.empty(n), np.empty(n), np.empty(d)
        plain_affine(A_, 1, b, x1, ref1)
        plain_affine(A_, 1, b, x2, ref2)
        plain_matvec_t(A_, 1, v, ref4)
        assert _same_bits(outs[0], ref1) and _same_bits(outs[1], ref1)
        assert _same_bits(outs[2], ref2)
        assert _same_bits(outs[3], ref4) and _same_bits(o_rows[:-4], ref4)


_PREFETCHED: list = []


def _record_prefetch(idx):
    _PREFETCHED.append(tuple(map(int, idx)))


@nb.njit
def _recording_prefetch(arr, idx):
    """A stand-in for simd.prefetch that records the (k, row, column) it was given."""
    with nb.objmode():
        _record_prefetch(idx)


def _dense_recording_prefetches():
    """fedcomp/engine/dense.py compiled anew (no disk cache) with prefetch recording its
    positions instead of issuing the hint."""
    import types

    import fedcomp.engine.dense as dense
    mod = types.ModuleType("dense_recording_prefetches")
    mod.__file__ = dense.__file__
    source = open(dense.__file__).read().replace("cache=True", "cache=False")
    exec(compile(source, dense.__file__, "exec"), mod.__dict__)
    mod.prefetch = _recording_prefetch   # looked up when the products compile, below
    return mod


@pytest.mark.parametrize("n, d", [(8, 64), (11, 66), (16, 70), (13, 97), (12, 63), (7, 200)])
def test_the_prefetched_positions_are_the_next_block_of_rows(n, d):
    """Each row product prefetches, while reading the block of rows i..i+3, exactly the flat
    positions 0, 8, 16, ... < 4 * (d - d % 4) of rows i + 4 .. i + 7 of A_k, and only when that
    block is full and d >= PREFETCH_MIN_COLS: every address inside the next block's rows."""
    mod = _dense_recording_prefetches()
    rng = np.random.default_rng(n + d)
    K, k = 3, 1
    A, b = rng.standard_normal((K, n, d)), rng.standard_normal((K, n))
    x1, x2, v = rng.standard_normal(d), rng.standard_normal(d), rng.standard_normal(n)
    m4 = d - d % 4
    blocks = [i for i in range(0, n - 3, 4) if i + 8 <= n] if d >= PREFETCH_MIN_COLS else []
    expected = sorted((k, i + 4, q) for i in blocks for q in range(0, 4 * m4, 8))
    calls = {"affine": lambda: mod.affine_rows(A, k, b, x1, np.empty(n)),
             "affine2": lambda: mod.affine2_rows(A, k, b, x1, x2, np.empty(n), np.empty(n)),
             "matvec_t_rows": lambda: mod.matvec_t_rows(A, k, v, np.empty(d))}
    for name, call in calls.items():
        _PREFETCHED.clear()
        call()
        assert sorted(_PREFETCHED) == expected, name
        assert all(0 <= row * d + col and row * d + col + 1 <= (row + 4) * d and row + 3 < n
                   for _, row, col in _PREFETCHED), name


def test_the_prefetch_hint_is_issued_only_on_the_c_layout():
    """prefetch compiles to a prefetch instruction on a C-contiguous array, to nothing on a strided
    one (where the flat position it relies on does not exist)."""
    from fedcomp.engine.simd import prefetch

    @nb.njit
    def hint(A):
        prefetch(A, (0, 0, 8))

    A = np.zeros((1, 2, 16))
    hint(A)
    hint(A[:, :, ::2])
    asm = {str(sig): text.lower() for sig, text in hint.inspect_asm().items()}
    assert len(asm) == 2
    # the instruction, not the word: the test's own name is in the symbols
    issued = {sig.split("'")[1]: "prefetcht" in text or "prfm" in text  # x86-64, AArch64
              for sig, text in asm.items()}
    assert issued == {"C": True, "A": False}


@nb.njit
def _both_matvec_t(A, k, v, o_rows, o_strips, o_dispatch):
    matvec_t_rows(A, k, v, o_rows)
    matvec_t_strips(A, k, v, o_strips)
    matvec_t(A, k, v, o_dispatch)


@given(n=st.integers(1, 21), d=st.integers(1, 37), seed=st.integers(0, 2**32 - 1),
       contiguous=st.booleans())
@settings(max_examples=40)
def test_both_forms_of_the_transposed_product_are_the_documented_order(n, d, seed, contiguous):
    """matvec_t's two traversals (row by row for large matrices, column strips for small ones)
    give the documented sums bit for bit, and neither writes past its output."""
    rng = np.random.default_rng(seed)
    A = _values(rng, (2, n, d))
    if not contiguous:
        A = np.repeat(A, 2, axis=2)[:, :, ::2]
    v = _values(rng, n)
    full = [np.full(d + 4, np.nan) for _ in range(3)]
    _both_matvec_t(A, 1, v, *(f[:-4] for f in full))
    assert all(np.isnan(f[-4:]).all() for f in full), "a product wrote past its output"
    ref = np.empty(d)
    plain_matvec_t(A, 1, v, ref)
    assert all(_same_bits(f[:-4], ref) for f in full)


@pytest.mark.parametrize("n, d", [(91, 91), (7, 1200), (1200, 7)])
def test_the_transposed_product_of_a_large_matrix_takes_the_row_form(n, d):
    """Above MATVEC_T_ROWS_MIN entries matvec_t reads the rows in order: the same bits as the
    plain loop (and as the strips)."""
    assert n * d > MATVEC_T_ROWS_MIN
    rng = np.random.default_rng(n + d)
    A = _values(rng, (1, n, d))
    v = _values(rng, n)
    outs = [np.empty(d) for _ in range(3)]
    _both_matvec_t(A, 0, v, *outs)
    ref = np.empty(d)
    plain_matvec_t(A, 0, v, ref)
    assert all(_same_bits(o, ref) for o in outs)


@nb.njit
def _dots(F, x1, x2, o1, o2, o3):
    for i in range(F.shape[0]):
        o1[i] = row_dot(F, i, x1)
        o2[i], o3[i] = row_dot2(F, i, x1, x2)


@nb.njit
def _dots4(F, rows, x1, x2, o1, o2, o3):
    """Four rows at a time (rows: any indices, repeats allowed, as a minibatch's samples)."""
    for j in range(0, rows.shape[0], 4):
        store4(o1, (j,), row_dots4(F, rows[j], rows[j + 1], rows[j + 2], rows[j + 3], x1))
        a, b = row_dots4_2(F, rows[j], rows[j + 1], rows[j + 2], rows[j + 3], x1, x2)
        store4(o2, (j,), a)
        store4(o3, (j,), b)


@given(n=st.integers(1, 6), d=st.integers(1, 37), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=30)
def test_row_dots_are_the_affine_order_with_zero_offset(n, d, seed):
    rng = np.random.default_rng(seed)
    F = _values(rng, (n, d))
    x1, x2 = _values(rng, d), _values(rng, d)
    o1, o2, o3 = np.empty(n), np.empty(n), np.empty(n)
    _dots(F, x1, x2, o1, o2, o3)
    ref1, ref2 = np.empty(n), np.empty(n)
    plain_affine(F[None], 0, np.zeros((1, n)), x1, ref1)
    plain_affine(F[None], 0, np.zeros((1, n)), x2, ref2)
    assert _same_bits(o1, ref1) and _same_bits(o2, ref1) and _same_bits(o3, ref2)
    rows = rng.integers(0, n, 8)
    p1, p2, p3 = np.empty(8), np.empty(8), np.empty(8)
    _dots4(F, rows, x1, x2, p1, p2, p3)
    assert _same_bits(p1, ref1[rows]) and _same_bits(p2, ref1[rows]) and _same_bits(p3, ref2[rows])


def test_below_four_inputs_the_value_order_is_the_plain_loop():
    # d < 4: no partial sums, out[i] = b[i] + A[i, 0] x[0] + ... left to right (the Theorem 4.1
    # counterexample's size), whatever the layout.
    rng = np.random.default_rng(3)
    A, b, x = rng.standard_normal((2, 5, 3)), rng.standard_normal((2, 5)), rng.standard_normal(3)
    for At in (column_copy(A), no_column_copy()):
        out = np.empty(5)
        blocked(A, At, 1, b, x, x, np.zeros(5), out, np.empty(5), np.empty(5), np.empty(3))
        for i in range(5):
            assert out[i] == (b[1, i] + A[1, i, 0] * x[0]) + A[1, i, 1] * x[1] + A[1, i, 2] * x[2]


def test_hsum4_and_add4_order():
    @nb.njit
    def f(a, c, out):
        s = add4(load4(a, (0,)), load4(c, (0,)))
        store4(out, (0,), s)
        return hsum4(s)

    a = np.array([1e16, 1.0, -1e16, 1.0])
    c = np.zeros(4)
    out = np.empty(4)
    # (1e16 + 1) + (-1e16 + 1) = 1e16 - 1e16 (each 1 lost to rounding): 0, not 2
    assert f(a, c, out) == (a[0] + a[1]) + (a[2] + a[3]) == 0.0
    assert np.array_equal(out, a)


def test_hsum4x4_is_hsum4_of_each_argument_in_its_lane():
    @nb.njit
    def f(M, out):
        store4(out, (0,), hsum4x4(load4(M, (0, 0)), load4(M, (1, 0)), load4(M, (2, 0)),
                                  load4(M, (3, 0))))

    # four different sums, three of them different in another order ((1e16 + 1) + (-1e16 + 1) is
    # 0, each 1 lost; (1e16 - 1e16) + (1 + 1) is 2), and -0.0 + -0.0 keeping its sign
    M = np.array([[1e16, 1.0, -1e16, 1.0], [1e16, 3.0, -1e16, 3.0], [-0.0, -0.0, -0.0, -0.0],
                  [1e16, 5.0, -1e16, 1.0]])
    want = np.array([(r[0] + r[1]) + (r[2] + r[3]) for r in M])
    other = np.array([(r[0] + r[2]) + (r[1] + r[3]) for r in M])
    assert len(set(want.view(np.int64))) == 4 and (want != other).sum() == 3
    out = np.empty(4)
    f(M, out)
    assert _same_bits(out, want) and np.signbit(out[2])


def test_simd_lanes_never_fuse_multiply_and_add():
    # 1 + 2^-30 squared minus its rounded square: exact with a fused multiply-add, 0 without.
    @nb.njit
    def f(a, c, out):
        store4(out, (0,), madd4(load4(c, (0,)), load4(a, (0,)), splat4(a[0])))

    e = 1.0 + 2.0 ** -30
    a = np.full(4, e)
    c = np.full(4, -(e * e))
    out = np.empty(4)
    f(a, c, out)
    assert np.all(out == a[0] * a[0] + c[0]) and np.all(out == 0.0)


def test_simd_rejects_wrong_argument_types():
    @nb.njit
    def bad_dtype(a):
        return load4(a, (0,))

    @nb.njit
    def bad_index(a):
        return load4(a, (0, 0))

    with pytest.raises(nb.core.errors.TypingError, match="float64 array"):
        bad_dtype(np.zeros(4, dtype=np.float32))
    with pytest.raises(nb.core.errors.TypingError, match="tuple of 1 integers"):
        bad_index(np.zeros(4))


def test_generated_modules_hash_every_module_they_inline_from():
    # numba's disk cache checks only a function's own file; the generated module's name must
    # change when any source it inlines changes (the dense products, the logistic loss, ...).
    lq = build._fedcomp_deps(("fedcomp.problems._linear_kernels", *build._DEP_MODULES))
    kl = build._fedcomp_deps(("fedcomp.problems._kl_kernels", *build._DEP_MODULES))
    assert {"fedcomp.engine.dense", "fedcomp.engine.simd", "fedcomp.rng"} <= set(lq)
    assert "fedcomp.problems._logistic" in kl


STEP_ASM = r'''
import re, sys, fedcomp
from fedcomp.engine import dense
from fedcomp.problems import LinearQuadratic


def named(asm):
    """The dense.py functions machine code names (Itanium mangling: the name's length, the name)."""
    return sorted({asm[m.end():m.end() + int(m.group(1))]
                   for m in re.finditer(r"_ZN7fedcomp6engine5dense(\d+)", asm)})


def step_asm():
    mods = [m for n, m in sys.modules.items() if n.startswith("fcgen_feddro_")]
    return "".join(m.run_one.inspect_asm(s) for m in mods for s in m.run_one.signatures)


p = LinearQuadratic.random(2, 7, 6, noise=0.1, seed=1)   # n % 4 and d % 4 both nonzero
fedcomp.simulate(p, "feddro", iterations=2, eta=0.05, local_steps=1, beta=0.2)
asm = step_asm()
print(len(asm), named(asm))
LinearQuadratic.column_layout_max_bytes = 0               # the row forms, rows of 70 entries
q = LinearQuadratic.random(2, 70, 9, noise=0.1, seed=1)  # (they prefetch)
fedcomp.simulate(q, "feddro", iterations=2, eta=0.05, local_steps=1, beta=0.2)
asm = step_asm()
print(len(asm), named(asm))
for f in (dense.affine_rows, dense.affine2_rows, dense.matvec_t):
    own = "".join(f.inspect_asm(s) for s in f.signatures)
    print(len(own), [n for n in named(own) if n != f.__name__])
'''


def test_the_compiled_step_calls_no_dense_function(tmp_path):
    """dense.py's products end up whole inside a small problem's compiled step: LLVM does not
    inline a numba function compiled on its own, and a call per row or per remainder output cost
    20 % of a client step at d = 100-200 and most of affine2 at d = 10 (docs/bench.md, "The
    products without a call per row"); and the row forms, which large problems call (one call
    per product), are not even compiled into it (their layout is another type; docs/bench.md,
    "The row products compiled once"). A large problem's step calls exactly the three row forms,
    and those call nothing of dense.py. Fresh caches, so that numba compiles (and can show) the
    code."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
           "FEDCOMP_CACHE_DIR": str(tmp_path / "fc")}
    r = subprocess.run([sys.executable, "-c", STEP_ASM], env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    lines = [line.split(" ", 1) for line in r.stdout.strip().splitlines()[-5:]]
    (size, called), (size_rows, called_rows), *row_forms = lines
    assert int(size) > 10_000  # the step's machine code was there to search
    assert called == "[]", f"the compiled FedDRO step calls dense.py functions: {called}"
    # without a column copy the step calls the row forms, each a whole product without calls
    assert int(size_rows) > int(size)
    assert set(ast.literal_eval(called_rows)) == {"affine_rows", "affine2_rows", "matvec_t"}, (
        called_rows)
    for own_size, calls in row_forms:
        assert int(own_size) > 1_000 and calls == "[]", f"a row form calls dense.py: {calls}"


def test_both_layouts_of_a_problem_run_the_same_iterates(monkeypatch):
    """LinearQuadratic's two layouts (a zero-padded column copy; none, the row forms called) are
    a speed choice only: the same FedDRO run bit for bit, exact and stochastic, with n % 4 and
    d % 4 both nonzero (the padded last block of outputs)."""
    import fedcomp
    from fedcomp.problems import LinearQuadratic
    small = LinearQuadratic.random(3, 7, 6, noise=0.1, seed=2)
    K, n, d = small.A.shape
    At = small.data[5].blocks
    assert At.shape == (K, d, 8) and not At[:, :, n:].any()
    monkeypatch.setattr(LinearQuadratic, "column_layout_max_bytes", 0)
    rows = LinearQuadratic.random(3, 7, 6, noise=0.1, seed=2)
    assert rows.data[5].ndim == 1 and np.array_equal(rows.A, small.A)
    for stochastic in (False, True):
        kw = dict(iterations=12, eta=0.05, beta=0.2, local_steps=3, stochastic=stochastic,
                  record_every=4)
        a, b = fedcomp.simulate(small, "feddro", **kw), fedcomp.simulate(rows, "feddro", **kw)
        assert _same_bits(a.x_bar, b.x_bar)
        for m in ("grad_norm_sq", "value", "inner_error", "consensus"):
            assert _same_bits(getattr(a, m), getattr(b, m)), m


def test_an_array_is_not_taken_for_a_column_copy():
    """Only a ColumnCopy selects the column forms: a plain array (the unpadded transposed copy, or
    the empty (K, 0, 0) that marked the row form before 28 November 2026) selects the row forms,
    which read A alone and give the documented sums (the column forms would read an unpadded
    copy past its end)."""
    rng = np.random.default_rng(5)
    A, b = _values(rng, (2, 7, 6)), _values(rng, (2, 7))
    x1, x2, v = _values(rng, 6), _values(rng, 6), _values(rng, 7)
    ref1, ref2, ref4 = np.empty(7), np.empty(7), np.empty(6)
    plain_affine(A, 1, b, x1, ref1)
    plain_affine(A, 1, b, x2, ref2)
    plain_matvec_t(A, 1, v, ref4)
    for At in (np.ascontiguousarray(A.transpose(0, 2, 1)), np.empty((2, 0, 0))):
        outs = [np.empty(7), np.empty(7), np.empty(7), np.empty(6)]
        blocked(A, At, 1, b, x1, x2, v, *outs)
        assert _same_bits(outs[0], ref1) and _same_bits(outs[1], ref1)
        assert _same_bits(outs[2], ref2) and _same_bits(outs[3], ref4)
