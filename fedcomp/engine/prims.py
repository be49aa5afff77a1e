"""Compiled primitives shared by algorithm steps (problem-independent, cached on disk).

The communication helpers (``avg_rows``, ``mean_rows``, ``server_step_rows``) live with the
algorithms (:mod:`fedcomp.algorithms.comm`, which documents the ledger) and are re-exported here,
where the generated modules import the primitives from.

Speed: the primitives are inlined into the generated steps (``inline="always"``), and the engine's
loop hands every step reference-count-free views of its buffers (:func:`borrow`), because the
atomic reference-count updates at each view and call boundary cost more than the arithmetic of
small problems (see bench/engine_bench.py and docs/bench.md).
"""
import numba as nb
from numba.core import cgutils as _cgutils, types as _types
from numba.extending import intrinsic as _intrinsic
import numpy as np

from fedcomp.algorithms.comm import avg_rows, mean_rows, server_step_rows  # noqa: F401


@nb.njit(cache=True, inline="always", error_model="numpy")
def all_finite(M):
    """True when every entry of M is finite (the engine's divergence test)."""
    for v in M.flat:
        if not np.isfinite(v):
            return False
    return True


def _borrowed_value(context, builder, ty, val):
    """A copy of `val` in which every array is a view without a reference count (see borrow)."""
    if isinstance(ty, _types.Array):
        src = context.make_array(ty)(context, builder, value=val)
        out = context.make_array(ty)(context, builder)
        out.meminfo = _cgutils.get_null_value(out.meminfo.type)
        out.parent = _cgutils.get_null_value(out.parent.type)
        out.nitems = src.nitems
        out.itemsize = src.itemsize
        out.data = src.data
        out.shape = src.shape
        out.strides = src.strides
        return out._getvalue()
    if isinstance(ty, _types.BaseTuple):
        items = [_borrowed_value(context, builder, t, builder.extract_value(val, i))
                 for i, t in enumerate(ty)]
        return context.make_tuple(builder, ty, items)
    context.nrt.incref(builder, ty, val)
    return val


@_intrinsic
def borrow(typingctx, value):
    """`value` (an array, or a tuple of arrays and scalars) with its arrays as untracked views.

    Why: every numba array carries a reference-counted memory handle, and each view creation,
    tuple unpacking or call boundary in the hot loop adds an atomic increment and decrement; in
    the engine's loop those atomics cost more than the arithmetic of small problems. A borrowed
    view shares the data but has no handle, so reference counting on it is a null test. The
    caller must keep the owner alive while the view is in use (see ``keep_alive``).
    """
    def codegen(context, builder, signature, args):
        return _borrowed_value(context, builder, signature.args[0], args[0])
    return value(value), codegen


@_intrinsic
def keep_alive(typingctx, value):
    """No-op use of `value`: the owner of borrowed views stays referenced up to this point."""
    def codegen(context, builder, signature, args):
        return context.get_dummy_value()
    return _types.none(value), codegen
