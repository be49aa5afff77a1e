"""Four-lane float64 vectors for compiled kernels: explicit SIMD with unchanged arithmetic.

Why: numba's loop vectoriser only vectorises innermost loops, and numba switches LLVM's SLP
vectoriser off (it miscompiled, numba PR #8852). A matrix-vector product with a fixed summation
order (:mod:`.dense` documents it) therefore ran as scalar code, or as a vector loop that passes
its partial sums through memory at every step. With a vector *value* type the partial sums stay in
registers across the whole reduction. bench/engine_bench.py measures the effect.

Arithmetic is unchanged, bit for bit: ``madd4(acc, a, x)`` is a separate IEEE multiply and add on
each lane (no fused multiply-add, no reassociation: the instructions carry no fast-math flags), so
each lane computes exactly what the scalar statement ``acc += a * x`` computes.

``f64x4`` is a numba type whose LLVM representation is ``<4 x double>``. Only what the kernels need
is provided: ``load4``, ``store4``, ``splat4``, ``madd4``, ``add4``, ``hsum4``. Indices are tuples
of integers into an array of any number of dimensions; the four lanes are the elements idx,
idx + 1, ..., idx + 3 along the last axis. Like numba's own indexing with bounds checking off, the
caller must keep the indices in range (no wraparound of negative indices either). A C-contiguous array is read with one vector
load; any other layout element by element (same values).
"""
from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, types
from numba.core.errors import TypingError
from numba.core.datamodel import models
from numba.extending import intrinsic, register_model


class F64x4Type(types.Type):
    """Four float64 lanes held in one SIMD register (LLVM ``<4 x double>``)."""

    def __init__(self):
        super().__init__(name="f64x4")


f64x4 = F64x4Type()
_VEC = ir.VectorType(ir.DoubleType(), 4)


@register_model(F64x4Type)
class _F64x4Model(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, _VEC)


def _check_index(arr, idx, name):
    if not (isinstance(arr, types.Array) and arr.dtype == types.float64):
        raise TypingError(f"{name}: the array must be a float64 array, got {arr}")
    if not (isinstance(idx, types.BaseTuple) and len(idx) == arr.ndim
            and all(isinstance(t, types.Integer) for t in idx)):
        raise TypingError(f"{name}: the index must be a tuple of {arr.ndim} integers, got {idx}")


def _lane_pointers(context, builder, aryty, ary, idxty, idx):
    """Pointers to the four lanes' elements (last index idx[-1] + m, m = 0..3)."""
    inds = [context.cast(builder, builder.extract_value(idx, n), t, types.intp)
            for n, t in enumerate(idxty)]
    arr = context.make_array(aryty)(context, builder, ary)
    ptrs = []
    for m in range(4):
        lane = inds[:-1] + [builder.add(inds[-1], ir.Constant(inds[-1].type, m))]
        ptrs.append(cgutils.get_item_pointer(context, builder, aryty, arr, lane,
                                             wraparound=False, boundscheck=False))
    return ptrs


@intrinsic
def load4(typingctx, arr, idx):
    """The f64x4 (arr[idx], arr[idx + 1], arr[idx + 2], arr[idx + 3]) along the last axis."""
    _check_index(arr, idx, "load4")

    def codegen(context, builder, sig, args):
        ptrs = _lane_pointers(context, builder, sig.args[0], args[0], sig.args[1], args[1])
        if sig.args[0].layout == "C":
            vptr = builder.bitcast(ptrs[0], _VEC.as_pointer())
            return builder.load(vptr, align=8)
        v = ir.Constant(_VEC, ir.Undefined)
        for m, p in enumerate(ptrs):
            v = builder.insert_element(v, builder.load(p), ir.Constant(ir.IntType(32), m))
        return v
    return f64x4(arr, idx), codegen


@intrinsic
def store4(typingctx, arr, idx, vec):
    """arr[idx + m] = vec[m] along the last axis, m = 0..3."""
    _check_index(arr, idx, "store4")
    if vec != f64x4:
        raise TypingError(f"store4: the value must be an f64x4, got {vec}")

    def codegen(context, builder, sig, args):
        ptrs = _lane_pointers(context, builder, sig.args[0], args[0], sig.args[1], args[1])
        if sig.args[0].layout == "C":
            builder.store(args[2], builder.bitcast(ptrs[0], _VEC.as_pointer()), align=8)
        else:
            for m, p in enumerate(ptrs):
                builder.store(builder.extract_element(args[2], ir.Constant(ir.IntType(32), m)), p)
        return context.get_dummy_value()
    return types.none(arr, idx, vec), codegen


@intrinsic
def splat4(typingctx, x):
    """The f64x4 (x, x, x, x)."""
    if not isinstance(x, (types.Float, types.Integer)):
        raise TypingError(f"splat4: x must be a real number, got {x}")

    def codegen(context, builder, sig, args):
        xv = context.cast(builder, args[0], sig.args[0], types.float64)
        v = builder.insert_element(ir.Constant(_VEC, ir.Undefined), xv,
                                   ir.Constant(ir.IntType(32), 0))
        return builder.shuffle_vector(v, ir.Constant(_VEC, ir.Undefined),
                                      ir.Constant(ir.VectorType(ir.IntType(32), 4), [0, 0, 0, 0]))
    return f64x4(x), codegen


@intrinsic
def madd4(typingctx, acc, a, x):
    """acc + a * x on each lane: an IEEE multiply, then an IEEE add (never fused)."""
    for v, nm in ((acc, "acc"), (a, "a"), (x, "x")):
        if v != f64x4:
            raise TypingError(f"madd4: {nm} must be an f64x4, got {v}")

    def codegen(context, builder, sig, args):
        return builder.fadd(args[0], builder.fmul(args[1], args[2]))
    return f64x4(acc, a, x), codegen


@intrinsic
def add4(typingctx, a, b):
    """a + b on each lane (one IEEE add)."""
    for v, nm in ((a, "a"), (b, "b")):
        if v != f64x4:
            raise TypingError(f"add4: {nm} must be an f64x4, got {v}")

    def codegen(context, builder, sig, args):
        return builder.fadd(args[0], args[1])
    return f64x4(a, b), codegen


@intrinsic
def hsum4(typingctx, v):
    """The lanes' sum in the fixed order (v[0] + v[1]) + (v[2] + v[3]), as a float64."""
    if v != f64x4:
        raise TypingError(f"hsum4: v must be an f64x4, got {v}")

    def codegen(context, builder, sig, args):
        e = [builder.extract_element(args[0], ir.Constant(ir.IntType(32), m)) for m in range(4)]
        return builder.fadd(builder.fadd(e[0], e[1]), builder.fadd(e[2], e[3]))
    return types.float64(v), codegen
