"""The four-lane products (fedcomp.engine.dense, .simd) equal the plain loops bit for bit."""
import numba as nb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fedcomp.engine import build
from fedcomp.engine.dense import affine2_t, affine_t, matvec_t
from fedcomp.engine.simd import load4, madd4, splat4, store4


# The loops the blocked products replace (the LinearQuadratic oracles before the change).
@nb.njit
def plain_affine_t(At, k, b, x, out):
    d, n = At.shape[1], At.shape[2]
    for i in range(n):
        s = b[k, i]
        for j in range(d):
            s += At[k, j, i] * x[j]
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
def blocked(At, A, k, b, x1, x2, v, o1, o2, o3, o4):
    affine_t(At, k, b, x1, o1)
    affine2_t(At, k, b, x1, x2, o2, o3)
    matvec_t(A, k, v, o4)


def _values(rng, shape):
    """Random values with some exact zeros of both signs (the sign of a zero sum is pinned too)."""
    a = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)
    a[rng.random(shape) < 0.1] = 0.0
    a[rng.random(shape) < 0.1] = -0.0
    return a


def _same_bits(a, b):
    return np.array_equal(np.asarray(a).view(np.int64), np.asarray(b).view(np.int64))


@given(K=st.integers(1, 3), n=st.integers(1, 13), d=st.integers(1, 13),
       seed=st.integers(0, 2**32 - 1), contiguous=st.booleans())
@settings(max_examples=40)
def test_blocked_products_equal_the_plain_loops_bit_for_bit(K, n, d, seed, contiguous):
    rng = np.random.default_rng(seed)
    A = _values(rng, (K, n, d))
    b = _values(rng, (K, n))
    x1, x2, v = _values(rng, d), _values(rng, d), _values(rng, n)
    At = np.ascontiguousarray(A.transpose(0, 2, 1))
    if not contiguous:  # the element-by-element path of load4/store4 ('A' layout)
        At = np.repeat(At, 2, axis=2)[:, :, ::2]
        b = np.repeat(b, 2, axis=1)[:, ::2]
        A = np.repeat(A, 2, axis=2)[:, :, ::2]
    k = K - 1
    outs = [np.full(n, np.nan), np.full(n, np.nan), np.full(n, np.nan), np.full(d, np.nan)]
    blocked(At, A, k, b, x1, x2, v, *outs)
    ref1, ref2, ref4 = np.empty(n), np.empty(n), np.empty(d)
    plain_affine_t(At, k, b, x1, ref1)
    plain_affine_t(At, k, b, x2, ref2)
    plain_matvec_t(A, k, v, ref4)
    assert _same_bits(outs[0], ref1)
    assert _same_bits(outs[1], ref1)
    assert _same_bits(outs[2], ref2)
    assert _same_bits(outs[3], ref4)


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
