"""LinearQuadratic's two layouts of the value products, side by side (issue 17, item 1).

The value oracles read either the columns of A_k (a contiguous copy of A_k^T kept beside A) or the
rows of A alone; both give the same numbers bit for bit (fedcomp.engine.dense), so the choice,
``LinearQuadratic.column_layout_max_bytes``, is a pure speed question. This script times exact
FedDRO (K = 16, I = 5, d = d_g) with each layout forced, interleaved repetitions, CPU time of the
process, and asserts first that both layouts give the same final model bit for bit.

Run::

    taskset -c 0 env PYTHONPATH=. .venv/bin/python bench/lq_layout.py [--reps 7]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

import _checkout  # noqa: E402,F401  (this checkout, or PYTHONPATH's: bench/_checkout.py)

import fedcomp  # noqa: E402
from fedcomp.problems import LinearQuadratic  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--dims", default="4,10,24,50,64,100,200")
    args = ap.parse_args(argv)
    import numba
    numba.set_num_threads(1)
    default = LinearQuadratic.column_layout_max_bytes
    default_entries = LinearQuadratic.column_layout_max_entries
    print(f"exact FedDRO, K = 16, d = d_g, I = 5; CPU ns per client step, median of {args.reps} "
          f"interleaved repetitions; the default layout switches to rows above {default} bytes "
          "of the column copy or above its entries per matrix (LinearQuadratic.uses_column_copy)")
    print("| d | bytes of A | columns (A^T copy) | rows (A only) | rows / columns | default |")
    print("|---|---|---|---|---|---|")
    dims = [int(s) for s in args.dims.split(",")]
    default_layout = {d: LinearQuadratic.uses_column_copy(16, d, d) for d in dims}
    try:
        for d in dims:
            runs = {}
            for name, limit in (("columns", 1 << 62), ("rows", -1)):
                LinearQuadratic.column_layout_max_bytes = limit
                LinearQuadratic.column_layout_max_entries = limit
                p = LinearQuadratic.random(16, d, d, heterogeneity=1.0, noise=0.0, seed=1)
                T = max(int(3e7 / (16 * 3 * d * d + 200)), 10)
                kw = dict(algorithm="feddro", problem=p, iterations=T, eta=0.05, local_steps=5,
                          beta=0.2, x0=np.ones(d), seed=0, stochastic=False, record_every=T)
                runs[name] = (kw, fedcomp.simulate(**kw).x_bar)
            assert np.array_equal(runs["columns"][1].view(np.int64),
                                  runs["rows"][1].view(np.int64)), f"d={d}: layouts differ"
            ns = {"columns": [], "rows": []}
            for _ in range(args.reps):
                for name, (kw, _) in runs.items():
                    c0 = time.process_time()
                    fedcomp.simulate(**kw)
                    ns[name].append((time.process_time() - c0) / (kw["iterations"] * 16) * 1e9)
            c, r = statistics.median(ns["columns"]), statistics.median(ns["rows"])
            ratio = statistics.median(b / a for a, b in zip(ns["columns"], ns["rows"]))
            nbytes = 16 * d * d * 8
            print(f"| {d} | {nbytes} | {c:.0f} | {r:.0f} | {ratio:.2f} | "
                  f"{'columns' if default_layout[d] else 'rows'} |", flush=True)
    finally:
        LinearQuadratic.column_layout_max_bytes = default
        LinearQuadratic.column_layout_max_entries = default_entries
    return 0


if __name__ == "__main__":
    sys.exit(main())
