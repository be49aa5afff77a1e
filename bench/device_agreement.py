"""How far a GPU run is from the CPU run of the same arm and seed, from the stored runs.

    python bench/device_agreement.py [NAME] [--metric M] [--rerun DIR]

For every (arm, seed, t) that runs of both devices evaluated (any budget: a 100-iteration run is
evaluated at t = 20 like a 20-iteration one; the algorithms' steps do not depend on T), prints
the CPU value, the GPU value and their difference, and, for scale, the standard deviation over
seeds of the CPU values at that arm and t. Same seed means the same data split, initial model and
minibatch draws: what differs is only float32 rounding (cuDNN against the CPU's kernels, summation
orders; TensorFloat-32 is off in fedcomp's runs), which training can amplify. Reads
``results/neural/NAME/store`` (default fcsg-maml-omniglot); needs no torch and no GPU.

``--rerun DIR``: instead, the runs of the result store DIR against the stored runs with the same
arm, seed, budget and device (the same command run twice), at every evaluation: how far one
device is from itself (on a GPU, cuDNN's convolutions and atomic additions need not sum in the
same order from one run to the next), beside the standard deviation over seeds at that arm and t.
"""
from __future__ import annotations

import argparse
import sys

import pandas as pd


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("name", nargs="?", default="fcsg-maml-omniglot")
    ap.add_argument("--metric", default="test_accuracy")
    ap.add_argument("--rerun", help="a result store holding the same runs computed again")
    args = ap.parse_args(argv)
    from fedcomp.neural.store import experiment_dir
    from fedcomp.runner.store import ResultStore
    path = experiment_dir(args.name) / "store"
    table = ResultStore(path).table()
    if args.rerun:
        return rerun(args, table, ResultStore(args.rerun).table())
    if table.empty or table["device"].nunique() < 2:
        print(f"{path}: no runs of two devices to compare")
        return 0
    p = table.pivot_table(index=["arm", "seed", "t"], columns="device", values=args.metric,
                          aggfunc="first").dropna()
    if p.empty:
        print(f"{path}: no (arm, seed, t) evaluated on both devices")
        return 0
    spread = (table[table["device"] == "cpu"].groupby(["arm", "t"])[args.metric]
              .std().rename("cpu seed sd"))
    p["gpu - cpu"] = p["cuda"] - p["cpu"]
    p = p.join(spread, on=["arm", "t"])
    p["cpu seed sd"] = p["cpu seed sd"].map(lambda v: "one seed" if pd.isna(v) else f"{v:.4f}")
    with pd.option_context("display.float_format", "{:.4f}".format, "display.width", 120):
        print(f"# {args.name}, {args.metric}: runs of the same arm and seed on the CPU and on "
              "the GPU (from the stored runs)")
        print(p.reset_index().to_string(index=False))
    return 0


def rerun(args, table, again) -> int:
    """The --rerun comparison (module docstring)."""
    key = ["arm", "seed", "iterations", "device", "t"]
    both = table.merge(again, on=key, suffixes=("", " again"))
    if both.empty:
        print(f"{args.rerun}: no run of the same arm, seed, budget and device as the stored ones")
        return 0
    spread = (table.groupby(["arm", "iterations", "device", "t"])[args.metric].std()
              .rename("seed sd"))
    both["again - first"] = both[f"{args.metric} again"] - both[args.metric]
    both = both.join(spread, on=["arm", "iterations", "device", "t"])
    cols = key + [args.metric, f"{args.metric} again", "again - first", "seed sd"]
    with pd.option_context("display.float_format", "{:.4f}".format, "display.width", 140):
        print(f"# {args.name}, {args.metric}: the stored runs against the same runs computed "
              f"again ({args.rerun}), same arm, seed, budget and device")
        print(both[cols].sort_values(key).to_string(index=False))
        d = both.loc[both["t"] > 0, "again - first"].abs()
        print(f"# after t = 0: {len(d)} evaluations, |again - first| median {d.median():.4f}, "
              f"max {d.max():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
