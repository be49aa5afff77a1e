"""The engine side of bench/jax_anchor.py's LinearQuadratic and kl-d50 workloads, without JAX, for
an A/B of two checkouts: client-steps per CPU second of FedDRO (K = 16, I = 5, eta = 0.05,
beta = 0.2, the anchor's problems and iterations), the median of 7 runs after a warm-up, as one
JSON line. ``kl-d50 I=1`` and ``kl-d50 I=T`` run kl-d50 with a model average every iteration and
with none before the last: KL-DRO's memo (fedcomp.problems._kl_kernels) then never and always
serves FedDRO's next gradient. ``kl-d50 ds-feddro`` and ``kl-d50 fedavg-modified`` run those
algorithms instead of FedDRO on kl-d50 (I = 5; DS-FedDRO with server steps 1.0). ``d=2 K=4
exact`` and ``d=2 K=4 noise`` run FedDRO at the Theorem 4.1 counterexample's size (K = 4,
d = d_g = 2, T = 200 000), where the engine's lead over JAX is largest.

Run, alternating the checkouts (``git worktree add DIR REV``), pinned to one core::

    for i in 1 2 3; do for R in DIR_A DIR_B; do
      taskset -c 1 env PYTHONPATH=$R .venv/bin/python bench/engine_ab.py; done; done

Workload names as arguments (e.g. ``"d=10 exact" kl-d50``) time only those. Each process compiles
(or loads from the kernel cache) the checkout's kernels before timing. On
a shared machine single runs vary by 20 % or more: read pairs, not one line.
"""
from __future__ import annotations

import json
import statistics
import sys
import time

import fedcomp
from fedcomp.problems import KLDRO, LinearQuadratic

WORKLOADS = ((10, 40_000, 0.0), (100, 2_000, 0.1), (200, 600, 0.1), (200, 600, 0.0),
             (500, 100, 0.0))


def main() -> None:
    out = {}
    feddro = ("feddro", dict(beta=0.2))
    cases = [(f"d={d} {'noise' if noise > 0 else 'exact'}", T, noise > 0,
              LinearQuadratic.random(16, d, d, heterogeneity=1.0, noise=noise, seed=1), 5, feddro)
             for d, T, noise in WORKLOADS]
    # the Theorem 4.1 counterexample's size (K = 4, d = d_g = 2), where a client step is ~50 ns
    cases += [(f"d=2 K=4 {'noise' if noise > 0 else 'exact'}", 200_000, noise > 0,
               LinearQuadratic.random(4, 2, 2, heterogeneity=1.0, noise=noise, seed=1), 5, feddro)
              for noise in (0.0, 0.1)]
    kl = KLDRO.synthetic(dim=50, num_clients=16, batch_size=16, feature_shift=0.5, seed=2)
    cases += [("kl-d50", 4_000, True, kl, 5, feddro), ("kl-d50 I=1", 4_000, True, kl, 1, feddro),
              ("kl-d50 I=T", 4_000, True, kl, 4_000, feddro),
              ("kl-d50 ds-feddro", 4_000, True, kl, 5,
               ("ds-feddro", dict(beta=0.2, server_lr_x=1.0, server_lr_y=1.0))),
              ("kl-d50 fedavg-modified", 4_000, True, kl, 5, ("fedavg-modified", {}))]
    only = sys.argv[1:]
    unknown = sorted(set(only) - {c[0] for c in cases})
    if unknown:
        sys.exit(f"unknown workload(s) {unknown}; the workloads are {[c[0] for c in cases]}")
    for name, T, stochastic, p, I, (alg, hyper) in cases:
        if only and name not in only:
            continue

        def run():
            return fedcomp.simulate(p, alg, iterations=T, eta=0.05, local_steps=I, seed=0,
                                    stochastic=stochastic, record_every=T, **hyper)
        run()
        times = []
        for _ in range(7):
            t0 = time.process_time()
            run()
            times.append(time.process_time() - t0)
        out[name] = round(p.num_clients * T / statistics.median(times))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
