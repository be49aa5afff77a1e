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
is provided: ``load4``, ``store4``, ``splat4``, ``madd4``, ``add4``, ``hsum4``, ``hsum4x4`` (four
horizontal sums at once, for the row-layout products of :mod:`.dense`), ``prefetch`` (a cache
hint that changes no value, for the same products); for the vector
exp / log1p of :mod:`.vmath` also ``sub4``, ``mul4``, ``div4``, ``abs4``, ``neg4``, ``where_gt4``,
``where_lt4`` (lane-wise selection on an ordered comparison), ``make4`` (from four scalars),
``lane4`` (one lane as a scalar) and ``ldexp4`` (scaling by 2^k). Indices are tuples of integers
into an array of any number of dimensions; the four lanes are the elements idx, idx + 1, ...,
idx + 3 along the last axis. Like numba's own indexing with bounds checking off, the caller must
keep the indices in range (no wraparound of negative indices either). A C-contiguous array is
read with one vector load; any other layout element by element (same values).
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


def _lane_pointers(context, builder, aryty, ary, idxty, idx, lanes=4):
    """Pointers to the lanes' elements (last index idx[-1] + m, m = 0..lanes - 1)."""
    inds = [context.cast(builder, builder.extract_value(idx, n), t, types.intp)
            for n, t in enumerate(idxty)]
    arr = context.make_array(aryty)(context, builder, ary)
    ptrs = []
    for m in range(lanes):
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
def prefetch(typingctx, arr, idx):
    """Ask the processor to bring the cache line of ``arr[idx]`` towards the first-level cache
    (LLVM's ``llvm.prefetch``: a read, high temporal locality, data cache). A hint only: it reads
    and writes no value the program sees, so the numbers of a kernel are the same with or without
    it; only the time changes. On a C-contiguous array the last index may run past its axis into
    the rows that follow (the address is the flat position); the caller keeps that position within
    the array. On any other layout it does nothing (no instruction)."""
    _check_index(arr, idx, "prefetch")

    def codegen(context, builder, sig, args):
        if sig.args[0].layout != "C":
            return context.get_dummy_value()
        ptr, = _lane_pointers(context, builder, sig.args[0], args[0], sig.args[1], args[1], 1)
        i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        # the name mangled by llvmlite: llvm.prefetch.p0 (opaque pointers), .p0i8 (typed ones)
        fn = builder.module.declare_intrinsic("llvm.prefetch", [i8p], fnty)
        # (address, 0: read, 3: keep in all cache levels, 1: data)
        builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, 0), ir.Constant(i32, 3),
                          ir.Constant(i32, 1)])
        return context.get_dummy_value()
    return types.none(arr, idx), codegen


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


@intrinsic
def hsum4x4(typingctx, a, b, c, d):
    """The f64x4 (hsum4(a), hsum4(b), hsum4(c), hsum4(d)): lane m is (v[0] + v[1]) + (v[2] + v[3])
    of the m-th argument v, the same two-level order as :func:`hsum4`, computed on whole vectors
    (a 4 x 4 transpose, then three vector adds)."""
    _check_vecs("hsum4x4", a=a, b=b, c=c, d=d)

    def codegen(context, builder, sig, args):
        i32 = ir.IntType(32)
        cols = []
        for lane in range(4):  # column `lane`: (a[lane], b[lane], c[lane], d[lane])
            v = ir.Constant(_VEC, ir.Undefined)
            for m in range(4):
                e = builder.extract_element(args[m], ir.Constant(i32, lane))
                v = builder.insert_element(v, e, ir.Constant(i32, m))
            cols.append(v)
        return builder.fadd(builder.fadd(cols[0], cols[1]), builder.fadd(cols[2], cols[3]))
    return f64x4(a, b, c, d), codegen


# --- Lane-wise arithmetic, selection and lane access (the vector exp / log1p of .vmath) ----------
# Each is one IEEE operation per lane (no fast-math flags, never fused), so a lane computes exactly
# what the same scalar statement computes, whatever the other lanes hold.

def _check_vecs(name, **vecs):
    for nm, v in vecs.items():
        if v != f64x4:
            raise TypingError(f"{name}: {nm} must be an f64x4, got {v}")


def _binary(name, op):
    @intrinsic
    def fn(typingctx, a, b):
        _check_vecs(name, a=a, b=b)

        def codegen(context, builder, sig, args):
            return getattr(builder, op)(args[0], args[1])
        return f64x4(a, b), codegen
    fn.__name__ = fn.__qualname__ = name
    return fn


sub4 = _binary("sub4", "fsub")
sub4.__doc__ = "a - b on each lane (one IEEE subtraction)."
mul4 = _binary("mul4", "fmul")
mul4.__doc__ = "a * b on each lane (one IEEE multiplication)."
div4 = _binary("div4", "fdiv")
div4.__doc__ = "a / b on each lane (one IEEE division)."


def _sign_op(name, clear):
    """fabs (clear the sign bit) or negation (flip it), as integer operations on the bits."""
    @intrinsic
    def fn(typingctx, a):
        _check_vecs(name, a=a)

        def codegen(context, builder, sig, args):
            i64v = ir.VectorType(ir.IntType(64), 4)
            bits = builder.bitcast(args[0], i64v)
            if clear:
                bits = builder.and_(bits, ir.Constant(i64v, [(1 << 63) - 1] * 4))
            else:
                bits = builder.xor(bits, ir.Constant(i64v, [1 << 63] * 4))
            return builder.bitcast(bits, _VEC)
        return f64x4(a), codegen
    fn.__name__ = fn.__qualname__ = name
    return fn


abs4 = _sign_op("abs4", True)
abs4.__doc__ = "|a| on each lane (the sign bit cleared; NaN stays NaN)."
neg4 = _sign_op("neg4", False)
neg4.__doc__ = "-a on each lane (the sign bit flipped: -(0.0) is -0.0, as in scalar code)."


def _where(name, pred):
    @intrinsic
    def fn(typingctx, a, b, x, y):
        _check_vecs(name, a=a, b=b, x=x, y=y)

        def codegen(context, builder, sig, args):
            mask = builder.fcmp_ordered(pred, args[0], args[1])
            return builder.select(mask, args[2], args[3])
        return f64x4(a, b, x, y), codegen
    fn.__name__ = fn.__qualname__ = name
    return fn


where_gt4 = _where("where_gt4", ">")
where_gt4.__doc__ = ("x where a > b, else y, on each lane (an ordered comparison: false when a or "
                     "b is NaN, as the scalar `a > b` is).")
where_lt4 = _where("where_lt4", "<")
where_lt4.__doc__ = "x where a < b, else y, on each lane (ordered: false with a NaN)."


@intrinsic
def make4(typingctx, a, b, c, d):
    """The f64x4 (a, b, c, d) from four real numbers."""
    for v, nm in ((a, "a"), (b, "b"), (c, "c"), (d, "d")):
        if not isinstance(v, (types.Float, types.Integer)):
            raise TypingError(f"make4: {nm} must be a real number, got {v}")

    def codegen(context, builder, sig, args):
        v = ir.Constant(_VEC, ir.Undefined)
        for m in range(4):
            xv = context.cast(builder, args[m], sig.args[m], types.float64)
            v = builder.insert_element(v, xv, ir.Constant(ir.IntType(32), m))
        return v
    return f64x4(a, b, c, d), codegen


@intrinsic
def lane4(typingctx, v, m):
    """Lane m (0..3; not checked) of v, as a float64."""
    _check_vecs("lane4", v=v)
    if not isinstance(m, types.Integer):
        raise TypingError(f"lane4: m must be an integer, got {m}")

    def codegen(context, builder, sig, args):
        idx = context.cast(builder, args[1], sig.args[1], types.int32)
        return builder.extract_element(args[0], idx)
    return types.float64(v, m), codegen


_MAGIC = 6755399441055744.0  # 0x1.8p52: x + _MAGIC - _MAGIC rounds x to an integer, |x| < 2^51


def _pow2(builder, k):
    """2^k for integer-valued float lanes k in [-1022, 1023], built from the bits (exact)."""
    i64v = ir.VectorType(ir.IntType(64), 4)
    t = builder.fadd(k, ir.Constant(_VEC, [_MAGIC + 1023.0] * 4))  # low bits: k + 1023
    bits = builder.shl(builder.bitcast(t, i64v), ir.Constant(i64v, [52] * 4))
    return builder.bitcast(bits, _VEC)


@intrinsic
def ldexp4(typingctx, v, k):
    """v * 2^k on each lane, for integer-valued float lanes k with |k| <= 2040.

    Two exact scalings: v * 2^k1 * 2^k2 with k1 = rint(k / 2), k2 = k - k1 (each within
    [-1021, 1021], so each power of two is a normal number built from its bits). For v in
    [0.5, 2] (exp's use) the first product is exact and the second rounds once, correctly, also
    into the subnormal range and to inf on overflow. A NaN k gives an arbitrary scale (exp's k is
    NaN only when its v is, and NaN times anything is NaN)."""
    _check_vecs("ldexp4", v=v, k=k)

    def codegen(context, builder, sig, args):
        v, k = args
        magic = ir.Constant(_VEC, [_MAGIC] * 4)
        half = builder.fmul(k, ir.Constant(_VEC, [0.5] * 4))
        k1 = builder.fsub(builder.fadd(half, magic), magic)
        k2 = builder.fsub(k, k1)
        return builder.fmul(builder.fmul(v, _pow2(builder, k1)), _pow2(builder, k2))
    return f64x4(v, k), codegen
