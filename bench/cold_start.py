"""Cold start: CPU seconds of the first ``simulate`` of an (algorithm, problem) pair in a fresh
process with an empty kernel cache, of ``simulate_many`` of the same pair right after, and of
both again in a second process that finds the disk cache (issue 17, item 3).

Run::

    taskset -c 0 env PYTHONPATH=. .venv/bin/python bench/cold_start.py
    taskset -c 0 .venv/bin/python bench/cold_start.py --fresh-only --reps 3 --root OTHER_CHECKOUT
    taskset -c 0 .venv/bin/python bench/cold_start.py --family lq [--root OTHER_CHECKOUT]

``--root`` measures the fedcomp of another checkout (an older commit: ``git worktree add``) with
this script; ``--fresh-only --reps N`` prints only the fresh-clone rows, the median of N
children each (the machine is shared: single cold compilations vary by 20 %).

Each measurement is a child process (``FEDCOMP_CACHE_DIR`` a new temporary directory), so no
compiled code survives between pairs; CPU seconds of the child (``time.process_time``). Rows:
"fresh clone" has numba's cache of fedcomp's own compiled functions (the problems' oracles, the
dense products...) empty too (``NUMBA_CACHE_DIR`` a new directory), as in a fresh clone or after
an edit of those modules; "empty" has only the kernel cache empty (numba's cache as the
previous runs left it); "warm (disk)" finds both. "of it, LLVM": the first simulate's CPU
seconds while numba held its LLVM lock (numba's ``numba:llvm_lock`` events: LLVM's optimisation
and code generation); the rest of a cold first simulate is numba's own Python passes (inlining
the steps' IR, typing, lowering).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

# the problem of a pair ("lq" or "kl", the child's argument ctor), as p
PROBLEM = r'''
p = (fedcomp.problems.LinearQuadratic.random(4, 2, 2, noise=0.1) if ctor == "lq" else
     fedcomp.problems.KLDRO.synthetic(dim=10, num_clients=4, batch_size=4))
'''

CHILD = r'''
import json, sys, time
t0 = time.process_time()
import fedcomp
from numba.core import event


class LLVM(event.Listener):
    """CPU seconds while numba holds its LLVM lock (LLVM's optimisation and code generation)."""
    depth, start, total = 0, 0.0, 0.0

    def on_start(self, ev):
        if self.depth == 0:
            self.start = time.process_time()
        self.depth += 1

    def on_end(self, ev):
        self.depth -= 1
        if self.depth == 0:
            self.total += time.process_time() - self.start


llvm = LLVM()
event.register("numba:llvm_lock", llvm)
t1 = time.process_time()
alg, ctor = sys.argv[1], sys.argv[2]
''' + PROBLEM + r'''
kw = dict(iterations=100, eta=0.05, beta=0.2)
t2 = time.process_time()
fedcomp.simulate(p, alg, **kw)
t3 = time.process_time()
llvm_first = llvm.total
fedcomp.simulate_many(p, alg, seeds=range(2), **kw)
t4 = time.process_time()
print(json.dumps({"import": t1 - t0, "simulate": t3 - t2, "simulate_many": t4 - t3,
                  "llvm": llvm_first}))
'''

PAIRS = (("feddro", "lq"), ("feddro", "kl"))

# --family: several algorithms on one problem family in one fresh process, the CPU seconds of
# each first simulate (what the pairs after the first share: the problem's compiled oracles,
# numba's own overloads, and since 29 November 2026 the recorded metrics, build.metrics_module)
FAMILY_CHILD = r"""
import json, sys, time
import fedcomp
ctor = sys.argv[1]
""" + PROBLEM + r"""
hyper = {"feddro": {"beta": 0.2}, "fedavg-case2": {}, "feddro-literal": {"beta": 0.2},
         "ds-feddro": {"beta": 0.2, "server_lr_x": 1.0, "server_lr_y": 1.0}}
out = {}
for alg in ("feddro", "fedavg-case2", "ds-feddro", "feddro-literal"):
    t = time.process_time()
    fedcomp.simulate(p, alg, iterations=100, eta=0.05, **hyper[alg])
    out[alg] = time.process_time() - t
print(json.dumps(out))
"""


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def child(script: str, args, cache: str, numba_cache: str | None = None,
          root: str = ROOT) -> dict:
    """Run `script` with `args` in a child process on kernel cache `cache` (and numba cache
    `numba_cache`, else numba's default); its last line of output, as JSON."""
    env = {**os.environ, "FEDCOMP_CACHE_DIR": cache, "PYTHONPATH": root}
    if numba_cache is not None:
        env["NUMBA_CACHE_DIR"] = numba_cache
    out = subprocess.run([sys.executable, "-c", script, *args], env=env, cwd=root,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def fresh(script: str, args, root: str) -> dict:
    """:func:`child` with both caches empty."""
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as nb:
        return child(script, args, cache, nb, root)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=ROOT, help="checkout whose fedcomp is measured")
    ap.add_argument("--fresh-only", action="store_true", help="only the fresh-clone rows")
    ap.add_argument("--reps", type=int, default=1, help="fresh-clone children per pair (median)")
    ap.add_argument("--family", choices=("lq", "kl"),
                    help="instead: four algorithms on this problem family in one fresh process "
                         "(both caches empty), the CPU seconds of each first simulate")
    args = ap.parse_args()
    if args.reps < 1:
        ap.error(f"--reps must be >= 1, got {args.reps}")
    root = os.path.abspath(args.root)
    print(f"fedcomp from {root}")
    if args.family:
        for _ in range(args.reps):
            r = fresh(FAMILY_CHILD, (args.family,), root)
            print(f"{args.family}: " + ", ".join(f"{a} {t:.2f} s" for a, t in r.items())
                  + f"; after the first {sum(list(r.values())[1:]):.2f} s")
        return
    print("| pair | cache | import | first simulate | of it, LLVM | simulate_many after it |")
    print("|---|---|---|---|---|---|")
    for alg, ctor in PAIRS:
        runs = [fresh(CHILD, (alg, ctor), root) for _ in range(args.reps)]
        r = {k: statistics.median(x[k] for x in runs) for k in runs[0]}
        each = ", ".join(f"{x['simulate']:.1f}" for x in runs)
        each = f" ({each})" if args.reps > 1 else ""
        print(f"| {alg} on {ctor} | fresh clone | {r['import']:.2f} s | "
              f"{r['simulate']:.2f} s{each} | {r['llvm']:.2f} s | {r['simulate_many']:.3f} s |")
        if args.fresh_only:
            continue
        with tempfile.TemporaryDirectory() as cache:
            for label in ("empty", "warm (disk)"):
                r = child(CHILD, (alg, ctor), cache, root=root)
                print(f"| {alg} on {ctor} | {label} | {r['import']:.2f} s | {r['simulate']:.2f} s "
                      f"| {r['llvm']:.2f} s | {r['simulate_many']:.3f} s |")


if __name__ == "__main__":
    main()
