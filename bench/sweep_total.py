"""One whole sweep of :mod:`fedcomp.rates.feddro` as ``fedcomp verify`` runs it (in-process
executor, threads over the machine's cores, a new result store in a temporary folder): client
steps, wall and CPU seconds, CPU ns per client step and the process's peak resident memory, so
that the runner's own costs (building, storing and joining the run tables) show beside the
simulation's.

    taskset -c 0 env PYTHONPATH=CHECKOUT python bench/sweep_total.py full feddro-lq

Arguments: the profile, then sweep names (``fedcomp.rates.feddro.sweep``). For an A/B, run two
checkouts at the same time, one per core, and again with the cores swapped. Not a test: nothing
is asserted about time.
"""
from __future__ import annotations

import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path


def main(argv: list[str]) -> None:
    from fedcomp.rates import feddro
    if len(argv) < 2:
        sys.exit("usage: sweep_total.py PROFILE SWEEP [SWEEP ...]")
    profile, names = argv[0], argv[1:]
    for name in names:
        sw = feddro.sweep(name, profile)
        steps = sum(T * K for T, K in sw.points) * sw.seeds
        d = Path(tempfile.mkdtemp(prefix="fedcomp-sweep-"))
        try:
            t0, c0 = time.perf_counter(), time.process_time()
            sw.run(d)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        finally:
            shutil.rmtree(d, ignore_errors=True)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20   # kB on Linux
        print(f"{name} ({profile}): {len(sw.points)} points x {sw.seeds} seeds, "
              f"{steps / 1e6:.1f} M client steps; wall {wall:.1f} s, CPU {cpu:.1f} s, "
              f"{1e9 * cpu / steps:.1f} ns per client step; peak memory so far {peak:.2f} GB",
              flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
