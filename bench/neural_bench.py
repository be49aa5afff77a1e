"""Batched clients against the per-client loop, per iteration, on the papers' neural experiments.

    python bench/neural_bench.py [--device cpu|cuda|auto] [--iterations N] [--repeats R]
                                 [--data-dir OMNIGLOT] [--only NAME ...] [--arms LABEL ...]
                                 [--flops] [--ulp] [--rerun]

For each experiment (the full configuration of ``fedcomp neural run NAME``: its model, clients,
batch sizes; data from the offline packages) and each benchmarked arm, runs N iterations with the
batched oracles (``torch.func.vmap`` over the clients) and N with ``batched=False`` (one oracle
call per client, the reference), alternating the two R times, without test evaluations, and
prints the median seconds per iteration of each and their ratio (per-client / batched), in one
run, and which of the two ``run(..., batched=None)`` picks (:func:`use_batched`). Before timing it checks that both compute the same thing: the models after the first
iterations agree to float32 rounding (the float64 equivalence to 1e-10 is
tests/test_neural_batched.py). An experiment whose data is not installed is skipped with the
command that installs it. Not a test: nothing is asserted about time.

``--flops`` adds what bounds any batching: the floating-point operations of one iteration
(``torch.utils.flop_counter.FlopCounterMode``: matrix products and convolutions, backward and
double backward included, counted in the per-client mode), the rate each mode reaches
(GFLOP/s), and that rate against the device's own float32 matrix-product rate (a 2048 x 2048
``torch.mm``, measured in the same run). The operations are counted over a run of the timed
length, so that both include the initialisation in the same share. An iteration cannot take less than its counted
operations at that rate, so per-client seconds / that time ("max gain") bounds the gain of any
batched form on this device.

``--ulp`` adds how sensitive one iteration is: the per-client mode run again from the starting
model moved by one unit in the last place (``torch.nextafter`` towards +inf, every entry), and
the largest change of the model after one iteration. Where it is of the size of "max |dx|", the
two modes' difference is that sensitivity (the sums of a convolution in another order are a
perturbation of that size), not a different computation.

``--rerun`` measures, instead of times, whether a run reproduces itself: each arm's default mode
(:func:`use_batched`) run twice for N iterations with one seed, the largest difference of the two
final models, once as ``fedcomp.neural.run`` computes (cuDNN asked for deterministic
convolutions: :func:`fedcomp.neural._core.deterministic_cudnn`) and once with cuDNN's defaults
(``deterministic`` False, ``benchmark`` as PyTorch leaves it). 0 means the same bits. On the
CPU both columns should be 0; on a GPU the second shows what the flags remove.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import statistics
import sys
import time


ARMS = {  # experiment -> arms timed (the paper's method and one baseline of another kind)
    "fcsg-maml-omniglot": ("fcsg", "acc-fcsg-m"),
    "localscgdam-fashionmnist": ("localscgdam/p=4", "coda/p=4"),
    "comfedl-drfl-mnist": ("comfedl/gamma=2", "fedavg"),
}


def _arms(args, dev):
    """(experiment, arm label, arm) of the benchmarked arms that --only and --arms keep, built in
    the experiments' full configuration; an experiment whose data is missing is skipped with
    a line saying why."""
    from fedcomp.neural import experiments as E
    from fedcomp.neural.data import DataNotFound
    for name, labels in ARMS.items():
        if args.only and name not in args.only:
            continue
        try:
            data_dir = args.data_dir if name == "fcsg-maml-omniglot" else None
            arms = {a.label: a for a in E.get(name).build(False, dev, 0, data_dir, 1)}
        except (DataNotFound, TypeError) as exc:
            print(f"{name:<26} skipped: {exc}")
            continue
        for label in labels:
            if not args.arms or label in args.arms:
                yield name, label, arms[label]


def _time(arm, T, batched, seed):
    import torch

    from fedcomp.neural.algorithms import run
    cuda = arm.problem.model.initial_vector().device.type == "cuda"
    if cuda:
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    res = run(arm.problem, arm.algorithm, T, arm.eta, arm.local_steps, x0=arm.x0, seed=seed,
              batched=batched, **arm.hyper)
    if cuda:   # the GPU's queued work is part of the iteration
        torch.cuda.synchronize()
    return (time.perf_counter() - t0) / T, res


def _flops(arm, T: int) -> float:
    """Operations per iteration of the timed run (T iterations, the initialisation included, as
    in the timings; the per-client mode), as FlopCounterMode counts them."""
    from torch.utils.flop_counter import FlopCounterMode
    with FlopCounterMode(display=False) as counter:
        _time(arm, T, False, 0)
    return counter.get_total_flops() / T


def _mm_rate(dev: str) -> float:
    """float32 operations per second of a 2048 x 2048 matrix product on `dev` (median of 5)."""
    import torch
    n = 2048
    a, b = (torch.randn(n, n, device=dev) for _ in range(2))
    rates = []
    for _ in range(6):
        if dev == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        a @ b
        if dev == "cuda":
            torch.cuda.synchronize()
        rates.append(2 * n ** 3 / (time.perf_counter() - t0))
    return statistics.median(rates[1:])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda", "auto"))
    ap.add_argument("--iterations", type=int, default=4, help="iterations per timed run")
    ap.add_argument("--repeats", type=int, default=3, help="alternations of the two modes")
    ap.add_argument("--data-dir", default=os.environ.get("FEDCOMP_OMNIGLOT"),
                    help="Omniglot folder or folder of its zip archives")
    ap.add_argument("--only", nargs="*", default=None, help="experiments to run")
    ap.add_argument("--arms", nargs="*", default=None, help="arms to run (labels)")
    ap.add_argument("--flops", action="store_true",
                    help="count each iteration's operations and bound the gain of batching")
    ap.add_argument("--rerun", action="store_true",
                    help="instead of timing: each arm run twice, with deterministic cuDNN and "
                         "with cuDNN's defaults; the largest difference of the two models")
    ap.add_argument("--ulp", action="store_true",
                    help="also the per-client model's change after one iteration when the "
                         "start moves by one ulp")
    args = ap.parse_args(argv)
    import torch

    from fedcomp.neural._core import resolve_device
    from fedcomp.neural.algorithms import use_batched
    dev = resolve_device(args.device)
    print(f"# device {dev}"
          + (f" ({torch.cuda.get_device_name()})" if dev == "cuda" else
             f" ({platform.processor() or platform.machine()}, torch threads "
             f"{torch.get_num_threads()})")
          + f"; torch {torch.__version__}; "
          + ("each arm run twice with seed 0" if args.rerun else
             f"{args.iterations} iterations x {args.repeats} alternations per mode")
          + "; IEEE float32 (no TF32)")
    if args.rerun:
        return _rerun(args, dev)
    peak = _mm_rate(dev) if args.flops else None
    if peak is not None:
        print(f"# float32 matrix product (2048 x 2048 torch.mm, median of 5): {peak / 1e9:.1f} "
              "GFLOP/s")
    print(f"{'experiment':<26} {'arm':<18} {'per-client s/it':>15} {'batched s/it':>13} "
          f"{'ratio':>6} {'max |dx| after 1 it':>20}  default"
          + ("  GFLOP/it  GFLOP/s per-client, batched  % of mm  max gain" if peak else "")
          + ("  start moved 1 ulp: max |dx|" if args.ulp else ""))
    for name, label, arm in _arms(args, dev):
        # the same computation first: one iteration each way, models compared
        _, a = _time(arm, 1, True, 0)
        _, b = _time(arm, 1, False, 0)
        dx = float((a.state.X - b.state.X).abs().max())
        if args.ulp:
            x0 = arm.x0 if arm.x0 is not None else arm.problem.model.initial_vector()
            moved = dataclasses.replace(arm, x0=torch.nextafter(
                x0, torch.full_like(x0, float("inf"))))
            dxu = float((_time(moved, 1, False, 0)[1].state.X - b.state.X).abs().max())
        per, bat = [], []
        for r in range(args.repeats):
            per.append(_time(arm, args.iterations, False, 1 + r)[0])
            bat.append(_time(arm, args.iterations, True, 1 + r)[0])
        mp, mb = statistics.median(per), statistics.median(bat)
        auto = "batched" if use_batched(arm.problem) else "per-client"
        extra = ""
        if peak is not None:
            flops = _flops(arm, args.iterations)
            extra = (f"  {flops / 1e9:>8.2f}  {flops / mp / 1e9:>9.1f}, "
                     f"{flops / mb / 1e9:<13.1f}  {100 * flops / mp / peak:>7.0f}  "
                     f"{mp / (flops / peak):>8.2f}")
        if args.ulp:
            extra += f"  {dxu:>28.2e}"
        print(f"{name:<26} {label:<18} {mp:>15.4f} {mb:>13.4f} {mp / mb:>6.2f} "
              f"{dx:>20.2e}  {auto}{extra}", flush=True)
    return 0


def _rerun(args, dev) -> int:
    """--rerun: max |x_1 - x_2| of two runs of one seed, with and without deterministic cuDNN."""
    import contextlib
    from unittest import mock

    from fedcomp.neural import algorithms as NA
    print(f"{'experiment':<26} {'arm':<18} {'mode':<10} {'iterations':>10}  "
          "max |x_1 - x_2|: deterministic cuDNN (fedcomp), cuDNN defaults")
    for name, label, arm in _arms(args, dev):
        batched = NA.use_batched(arm.problem)
        diffs = []
        for patch in (contextlib.nullcontext(),
                      mock.patch.object(NA, "deterministic_cudnn", contextlib.nullcontext)):
            with patch:
                a = _time(arm, args.iterations, batched, 0)[1].state.X
                b = _time(arm, args.iterations, batched, 0)[1].state.X
            diffs.append(float((a - b).abs().max()))
        mode = "batched" if batched else "per-client"
        print(f"{name:<26} {label:<18} {mode:<10} {args.iterations:>10}  "
              f"{diffs[0]:.2e}, {diffs[1]:.2e}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
