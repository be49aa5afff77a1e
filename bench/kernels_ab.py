"""Paired A/B timing of LinearQuadratic's kernels: the working tree's against another revision's.

Run::

    PYTHONPATH=. .venv/bin/python bench/kernels_ab.py --rev a7a8fd1~1   # before the SIMD products
    PYTHONPATH=. .venv/bin/python bench/kernels_ab.py --rev HEAD         # A/A: calibrates the harness

Why paired and in one process: on a shared machine the speed changes from minute to minute, more
than the effect of a kernel change, so two runs of bench/engine_bench.py cannot tell a 10 %
change from noise. Here both versions of ``fedcomp/problems/_linear_kernels.py`` are compiled into
one process (the other revision's file is loaded as a separate kernel module, through a subclass of
LinearQuadratic), their FedDRO runs alternate, and each pair gives one time ratio; the script
prints the median ratio and its quartiles. Only the kernel file differs between A and B: both use
the working tree's engine, algorithms and random streams.

Before timing it asserts that both versions give the same final average model bit for bit (the
kernel changes measured with it are meant to keep every iterate).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import _checkout  # noqa: E402,F401  (this checkout, or PYTHONPATH's: bench/_checkout.py)

import fedcomp  # noqa: E402
from fedcomp.problems import LinearQuadratic  # noqa: E402

KERNELS = "fedcomp/problems/_linear_kernels.py"


def other_kernels(rev: str, tmp: str) -> str:
    """Write the kernel file of `rev` into `tmp` as a module; returns its module name."""
    src = subprocess.run(["git", "show", f"{rev}:{KERNELS}"], capture_output=True, text=True,
                         check=True, cwd=os.path.dirname(os.path.dirname(__file__)) or ".").stdout
    name = "fcab_" + "".join(c if c.isalnum() else "_" for c in rev)
    with open(os.path.join(tmp, name + ".py"), "w") as f:
        f.write(src)
    sys.path.insert(0, tmp)
    return name


def cpu_ns_per_client_step(p, T, kw):
    t = time.thread_time()
    fedcomp.simulate(p, "feddro", iterations=T, record_every=T, **kw)
    return (time.thread_time() - t) / (p.num_clients * T) * 1e9


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rev", required=True, help="git revision whose kernel file is compared")
    ap.add_argument("--pairs", type=int, default=21, help="alternating pairs per workload")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        other = other_kernels(args.rev, tmp)

        class Other(LinearQuadratic):
            kernels = other

        workloads = [
            ("lq-d10", LinearQuadratic.random(16, 10, 10, heterogeneity=1.0, noise=0.1, seed=1),
             True, 8000),
            ("ce-d2", LinearQuadratic.random(4, 2, 2, heterogeneity=1.0, noise=0.0, seed=3),
             False, 100_000),
        ]
        print(f"FedDRO, CPU ns per client-step, {args.pairs} alternating pairs; "
              f"'this': the working tree's {KERNELS}, 'other': {args.rev}'s")
        print(f"{'workload':9s} {'this':>8s} {'other':>8s}   other/this: median [quartiles]")
        for name, p, stochastic, T in workloads:
            q = Other(p.A, p.b, noise=p.noise)
            kw = dict(eta=0.05, local_steps=5, seed=0, stochastic=stochastic, beta=0.2)
            a = fedcomp.simulate(p, "feddro", iterations=2000, record_every=2000, **kw)
            b = fedcomp.simulate(q, "feddro", iterations=2000, record_every=2000, **kw)
            if not np.array_equal(a.x_bar, b.x_bar):
                raise SystemExit(f"{name}: the two kernel versions give different iterates "
                                 f"(max difference {np.abs(a.x_bar - b.x_bar).max():.3g})")
            this, oth = [], []
            for _ in range(args.pairs):
                this.append(cpu_ns_per_client_step(p, T, kw))
                oth.append(cpu_ns_per_client_step(q, T, kw))
            r = [o / t for o, t in zip(oth, this)]
            q1, _, q3 = statistics.quantiles(r, n=4)
            print(f"{name:9s} {statistics.median(this):8.1f} {statistics.median(oth):8.1f}   "
                  f"{statistics.median(r):.3f} [{q1:.3f}, {q3:.3f}]")
        print("other/this > 1: the working tree's kernels are faster (identical iterates checked).")


if __name__ == "__main__":
    main()
