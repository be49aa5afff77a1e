"""ns per call of fedcomp.engine.dense's products (affine2 in both layouts, matvec_t and its two
forms, row by row and in column strips, whichever the size would pick) for K = 16
client matrices of size d x d, called from a compiled loop over the clients: the products alone,
without the rest of a client step, for an A/B of two checkouts.

Run, alternating the checkouts (``git worktree add DIR REV``), pinned to one core::

    for R in DIR_A DIR_B DIR_A DIR_B; do
      taskset -c 1 env PYTHONPATH=$R .venv/bin/python bench/dense_micro.py; done

Prints one JSON line: for each d and product, the median over 7 timed repetitions (after a
warm-up) of ns per call. The loops feed a tiny multiple of each output back into an input, so no
call can be hoisted or removed. Dimensions with d % 4 != 0 exercise the remainder rows and
columns. On a shared machine single runs vary by 20 % or more: read pairs, not one line.

``--against DIR`` times the products of DIR's ``fedcomp/engine/dense.py`` (another checkout,
``git worktree add DIR REV``) against this checkout's in the same process, interleaved: it loads
that file as a module of its own (its imports, ``fedcomp.engine.simd`` included, resolve to this
checkout; compiled without numba's disk cache), checks that both give the same bits on the last
client's outputs, and prints a table of ns per call (each product called as a function, where
the engine's steps inline it) and the ratio DIR / this, median of 9, for
affine and affine2 in the row layout, matvec_t as the engine calls it, and its two forms called
directly (rows, strips). Between processes the machine's state moves the numbers by 10-20 %;
within one process, by a few per cent::

    NUMBA_NUM_THREADS=1 taskset -c 1 env PYTHONPATH=. python bench/dense_micro.py --against DIR 50 200
"""
from __future__ import annotations

import json
import statistics
import sys
import time
import warnings

import numba as nb
import numpy as np
from numba.core.errors import NumbaIRAssumptionWarning

from fedcomp.engine.dense import (affine2, column_copy, matvec_t, matvec_t_rows, matvec_t_strips,
                                  no_column_copy)

# dense.py's products are numba overloads inlined into this script's loops; numba's pedantic
# scope warning on their loops is harmless (fedcomp.engine.build.ir_scope_warnings_off)
warnings.filterwarnings("ignore", category=NumbaIRAssumptionWarning)

DIMS = (8, 10, 16, 32, 50, 64, 128, 200, 300, 500)


@nb.njit
def _affine2_loop(A, At, b, x1, x2, o1, o2, reps):
    """affine2 over the clients, `reps` times, inlined into the loop as in the engine's steps (the
    loops below take the product as an argument: a call per product, which matters at small d)."""
    for _ in range(reps):
        for k in range(A.shape[0]):
            affine2(A, At, k, b, x1, x2, o1, o2)
            x1[0] += o1[0] * 1e-30
    return o1[0]


def _interleaved(calls: dict, rounds: int, clock) -> dict:
    """{name: median seconds of call()} over `rounds` rounds, every call once per round (so a
    slow moment of the machine hits every case)."""
    times = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            t0 = clock()
            call()
            times[name].append(clock() - t0)
    return {name: statistics.median(ts) for name, ts in times.items()}


@nb.njit
def _one_point_loop(product, A, b, x1, o1, reps):
    """`product` (affine's row form) over the clients, `reps` times (--against)."""
    for _ in range(reps):
        for k in range(A.shape[0]):
            product(A, k, b, x1, o1)
            x1[0] += o1[0] * 1e-30
    return o1[0]


@nb.njit
def _two_point_loop(product, A, b, x1, x2, o1, o2, reps):
    """`product` (affine2's row form) over the clients, `reps` times (--against)."""
    for _ in range(reps):
        for k in range(A.shape[0]):
            product(A, k, b, x1, x2, o1, o2)
            x1[0] += o1[0] * 1e-30
    return o1[0]


def _row_products(mod):
    """(affine's, affine2's row form) of a dense module: its affine_rows and affine2_rows, or, in
    a checkout before those (28 November 2026), affine and affine2 with an empty (K, 0, 0) At."""
    if hasattr(mod, "affine_rows"):
        return mod.affine_rows, mod.affine2_rows
    old1, old2 = mod.affine, mod.affine2
    empty = np.empty((1, 0, 0))

    @nb.njit
    def one(A, k, b, x, out):
        old1(A, empty, k, b, x, out)

    @nb.njit
    def two(A, k, b, x1, x2, out1, out2):
        old2(A, empty, k, b, x1, x2, out1, out2)
    return one, two


@nb.njit
def _transposed_loop(product, A, v, o, reps):
    """`product` (matvec_t or one of its two forms) over the clients, `reps` times."""
    for _ in range(reps):
        for k in range(A.shape[0]):
            product(A, k, v, o)
            v[0] += o[0] * 1e-30
    return o[0]


def _load_dense(root):
    """DIR/fedcomp/engine/dense.py as a module of its own name, its functions compiled without
    numba's disk cache (whose entries name the module they come from)."""
    import types
    from pathlib import Path
    path = Path(root) / "fedcomp" / "engine" / "dense.py"
    if not path.is_file():
        sys.exit(f"--against: no {path}")
    mod = types.ModuleType("dense_against")
    mod.__file__ = str(path)
    sys.modules[mod.__name__] = mod
    source = path.read_text().replace("cache=True", "cache=False")
    exec(compile(source, str(path), "exec"), mod.__dict__)
    return mod


def against(root, dims) -> None:
    """The in-process A/B of the module docstring."""
    import fedcomp.engine.dense as here
    there = _load_dense(root)
    K = 16
    # each product a dispatcher of its own module: the loops compile once per product
    rows = {tag: _row_products(mod) for tag, mod in (("there", there), ("here", here))}
    loops = {tag: {"affine rows": (_one_point_loop, rows[tag][0]),
                   "affine2 rows": (_two_point_loop, rows[tag][1]),
                   "matvec_t": (_transposed_loop, mod.matvec_t),
                   "matvec_t rows": (_transposed_loop, mod.matvec_t_rows),
                   "matvec_t strips": (_transposed_loop, mod.matvec_t_strips)}
             for tag, mod in (("there", there), ("here", here))}
    print(f"dense.py of {root} (A) against {here.__file__} (B), K = {K}, ns per call, median of 9 "
          "interleaved repetitions in one process")
    print("| d | product | A | B | A / B |\n|---|---|---|---|---|")
    for d in dims:
        rng = np.random.default_rng(d)
        A = rng.standard_normal((K, d, d))
        b, x1, x2, v = (rng.standard_normal(s) for s in ((K, d), d, d, d))
        reps = max(10, int(2e7 / (K * d * d)))
        for name in loops["here"]:
            runs = {}
            for tag in ("there", "here"):
                loop, product = loops[tag][name]
                if name.startswith("affine2"):
                    outs = (np.empty(d), np.empty(d))
                    args = (product, A, b, x1.copy(), x2, *outs)
                elif name.startswith("affine"):
                    outs = (np.empty(d),)
                    args = (product, A, b, x1.copy(), outs[0])
                else:
                    outs = (np.empty(d),)
                    args = (product, A, v.copy(), outs[0])
                runs[tag] = (lambda n, loop=loop, args=args: loop(*args, n), outs)
                runs[tag][0](1)
            if not all(np.array_equal(p.view(np.int64), q.view(np.int64))
                       for p, q in zip(runs["there"][1], runs["here"][1])):
                sys.exit(f"d={d} {name}: the two checkouts' products differ")
            med = _interleaved({tag: (lambda run=run: run(reps)) for tag, (run, _) in runs.items()},
                               9, time.process_time)
            ns = {tag: m / (reps * K) * 1e9 for tag, m in med.items()}
            print(f"| {d} | {name} | {ns['there']:.0f} | {ns['here']:.0f} | "
                  f"{ns['there'] / ns['here']:.2f} |")


def main(dims=DIMS) -> None:
    out = {}
    K = 16
    for d in dims:
        rng = np.random.default_rng(d)
        A = rng.standard_normal((K, d, d))
        At = column_copy(A)
        b, x1, x2, v = (rng.standard_normal(s) for s in ((K, d), d, d, d))
        o1, o2, o = np.empty(d), np.empty(d), np.empty(d)
        reps = max(10, int(2e7 / (K * d * d)))
        cases = {"affine2 columns": (_affine2_loop, (A, At, b, x1, x2, o1, o2)),
                 "affine2 rows": (_affine2_loop, (A, no_column_copy(), b, x1, x2, o1, o2)),
                 "matvec_t": (_transposed_loop, (matvec_t, A, v, o)),
                 "matvec_t rows": (_transposed_loop, (matvec_t_rows, A, v, o)),
                 "matvec_t strips": (_transposed_loop, (matvec_t_strips, A, v, o))}
        for f, args in cases.values():
            f(*args, 2)
        med = _interleaved({name: (lambda f=f, args=args: f(*args, reps))
                            for name, (f, args) in cases.items()}, 7, time.perf_counter)
        for name, m in med.items():
            out[f"d={d} {name}"] = round(m / (reps * K) * 1e9, 1)
    print(json.dumps(out))


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--against"]:
        if len(args) < 2:
            sys.exit("--against needs a checkout's directory")
        against(args[1], tuple(int(a) for a in args[2:]) or DIMS)
    else:
        main(tuple(int(a) for a in args) or DIMS)
