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
"""
from __future__ import annotations

import json
import statistics
import sys
import time

import numba as nb
import numpy as np

from fedcomp.engine.dense import affine2, matvec_t, matvec_t_rows, matvec_t_strips

DIMS = (8, 10, 16, 32, 50, 64, 128, 200, 300, 500)


@nb.njit
def _affine2_loop(A, At, b, x1, x2, o1, o2, reps):
    for _ in range(reps):
        for k in range(A.shape[0]):
            affine2(A, At, k, b, x1, x2, o1, o2)
            x1[0] += o1[0] * 1e-30
    return o1[0]


@nb.njit
def _transposed_loop(product, A, v, o, reps):
    """`product` (matvec_t or one of its two forms) over the clients, `reps` times."""
    for _ in range(reps):
        for k in range(A.shape[0]):
            product(A, k, v, o)
            v[0] += o[0] * 1e-30
    return o[0]


def main(dims=DIMS) -> None:
    out = {}
    K = 16
    for d in dims:
        rng = np.random.default_rng(d)
        A = rng.standard_normal((K, d, d))
        At = np.ascontiguousarray(A.transpose(0, 2, 1))
        b, x1, x2, v = (rng.standard_normal(s) for s in ((K, d), d, d, d))
        o1, o2, o = np.empty(d), np.empty(d), np.empty(d)
        reps = max(10, int(2e7 / (K * d * d)))
        cases = {"affine2 columns": (_affine2_loop, (A, At, b, x1, x2, o1, o2)),
                 "affine2 rows": (_affine2_loop, (A, np.empty((K, 0, 0)), b, x1, x2, o1, o2)),
                 "matvec_t": (_transposed_loop, (matvec_t, A, v, o)),
                 "matvec_t rows": (_transposed_loop, (matvec_t_rows, A, v, o)),
                 "matvec_t strips": (_transposed_loop, (matvec_t_strips, A, v, o))}
        times = {name: [] for name in cases}
        for f, args in cases.values():
            f(*args, 2)
        for _ in range(7):  # interleaved, so a slow moment of the machine hits every case
            for name, (f, args) in cases.items():
                t0 = time.perf_counter()
                f(*args, reps)
                times[name].append(time.perf_counter() - t0)
        for name, ts in times.items():
            out[f"d={d} {name}"] = round(statistics.median(ts) / (reps * K) * 1e9, 1)
    print(json.dumps(out))


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:]) or DIMS)
