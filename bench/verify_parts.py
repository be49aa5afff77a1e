"""Where the CPU time of ``fedcomp verify`` goes, by part (issue 17, item 4).

Runs the whole verify in this process (``jobs=1``: every part's CPU time is this process's) into a
new folder, with a CPU-time counter around each part of the pipeline, and prints one line per part:
CPU seconds (of every thread of the process) and the number of calls. Parts nest: ``run_specs``
contains ``execute_batch``, which contains ``simulate`` / ``simulate_many`` (the compiled runs)
and ``batch_frame`` (the batch's rows; ``to_frame`` where they are built run by run);
``draw_file`` (the figures) contains ``mathtext``. Kernels should be compiled before (run a
verify once): a first run measures compilation too.

Run from the checkout::

    PYTHONPATH=. .venv/bin/python bench/verify_parts.py --out NEW_DIR [--profile quick] [--by-pair]

``--by-pair`` also prints the compiled runs' CPU seconds per (entry point, algorithm, problem
class), with their client steps (iterations x clients, all seeds) and nanoseconds per client
step: which pairs a faster kernel would pay off on.

The counters wrap the functions this script names (module attributes), so the run's results are
those of ``fedcomp verify --jobs 1``; the wrapping itself costs well under a millisecond per call.
"""
from __future__ import annotations

import argparse
import collections
import functools
import os
import time

import _checkout  # noqa: E402,F401  (this checkout, or PYTHONPATH's: bench/_checkout.py)

CPU = collections.Counter()
CALLS = collections.Counter()
PAIRS = collections.defaultdict(lambda: [0.0, 0, 0])   # (entry, alg, problem) -> cpu, calls, steps


def _count(owner, name: str, label: str) -> None:
    fn = getattr(owner, name)

    @functools.wraps(fn)
    def counted(*args, **kwargs):
        t0 = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            CPU[label] += time.process_time() - t0
            CALLS[label] += 1

    setattr(owner, name, counted)


def _count_pairs(engine, name: str) -> None:
    """Wrap engine.`name` (simulate / simulate_many) to add its CPU time to PAIRS."""
    fn = getattr(engine, name)

    @functools.wraps(fn)
    def counted(problem, algorithm, *args, **kwargs):
        t0 = time.process_time()
        res = fn(problem, algorithm, *args, **kwargs)
        runs = res.runs if name == "simulate_many" else [res]
        alg = algorithm if isinstance(algorithm, str) else getattr(algorithm, "name", "?")
        row = PAIRS[(name, alg, type(problem).__name__)]
        row[0] += time.process_time() - t0
        row[1] += 1
        row[2] += sum(int(r.config["iterations"]) for r in runs) * problem.num_clients
        return res

    setattr(engine, name, counted)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="report folder (a new one: nothing reused)")
    ap.add_argument("--profile", default="quick", choices=("quick", "full"))
    ap.add_argument("--by-pair", action="store_true",
                    help="also the compiled runs' CPU per (entry point, algorithm, problem)")
    args = ap.parse_args(argv)

    import matplotlib.mathtext as mathtext

    import fedcomp
    import fedcomp.engine as engine
    import fedcomp.engine.build as build
    import fedcomp.report as report
    import fedcomp.runner.executors as executors
    import fedcomp.runner.results as results
    import fedcomp.runner.store as store
    _count(executors, "run_specs", "run_specs")
    import fedcomp.rates.measure as measure
    import fedcomp.runner as runner
    for mod in (results, measure, runner):            # the names the callers imported
        mod.run_specs = executors.run_specs
    _count(executors, "execute_batch", "execute_batch")
    if args.by_pair:
        _count_pairs(engine, "simulate")
        _count_pairs(engine, "simulate_many")
    _count(engine, "simulate", "simulate")
    _count(engine, "simulate_many", "simulate_many")
    fedcomp.simulate, fedcomp.simulate_many = engine.simulate, engine.simulate_many
    _count(engine.SimulationResult, "to_frame", "to_frame")
    if hasattr(executors, "batch_frame"):
        _count(executors, "batch_frame", "batch_frame")
    _count(measure, "summarize", "rates summarize")
    _count(store.ResultStore, "write", "store.write")
    # the parts read back (ResultStore.frames since run_specs joins new parts from memory)
    _count(store.ResultStore, "frames" if hasattr(store.ResultStore, "frames") else "table",
           "store reads")
    _count(build, "generate_source", "generate_source")
    _count(build, "source_digest", "source_digest")
    _count(report, "_draw_file", "draw_file")
    _count(mathtext.MathTextParser, "parse", "mathtext")
    t0 = time.process_time()
    w0 = time.perf_counter()
    report.verify(None, profile=args.profile, out=args.out, jobs=1, log=open(os.devnull, "w"))
    print(f"# fedcomp verify --profile {args.profile} --jobs 1, in one process: "
          f"{time.process_time() - t0:.1f} s CPU, {time.perf_counter() - w0:.1f} s wall")
    print("| part | CPU s | calls |")
    print("|---|---|---|")
    for label, sec in CPU.most_common():
        print(f"| {label} | {sec:.2f} | {CALLS[label]} |")
    if args.by_pair:
        print("\n| entry point | algorithm | problem | CPU s | calls | client steps | ns per step |")
        print("|---|---|---|---|---|---|---|")
        for (entry, alg, prob), (sec, n, steps) in sorted(PAIRS.items(), key=lambda kv: -kv[1][0]):
            if sec >= 0.5:
                print(f"| {entry} | {alg} | {prob} | {sec:.2f} | {n} | {steps} | "
                      f"{1e9 * sec / max(steps, 1):.0f} |")
        rest = sum(v[0] for v in PAIRS.values() if v[0] < 0.5)
        print(f"| (pairs under 0.5 s) | | | {rest:.2f} | | | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
