"""One style for every figure: a colour and marker per algorithm, labelled axes, the paper and
claim in the title, the verdict in the corner, exact zeros drawn as a marked floor.

Figures are built from data passed in (tables or dicts); no module here computes a result.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

#: one colour and marker per algorithm, the same in every figure
ALGORITHMS = {
    "fedavg-case1": ("#d62728", "o", "FedAvg Case I"),
    "fedavg-case2": ("#ff7f0e", "s", "FedAvg Case II"),
    "fedavg-modified": ("#1f77b4", "^", "modified FedAvg (y every iteration)"),
    "feddro": ("#2ca02c", "D", "FedDRO"),
    "feddro-literal": ("#98df8a", "d", "FedDRO, (8) read literally"),
    "ds-feddro": ("#9467bd", "v", "DS-FedDRO"),
    "fcsg": ("#8c564b", "o", "FCSG"),
    "fcsg-m": ("#e377c2", "s", "FCSG-M"),
    "acc-fcsg-m": ("#7f7f7f", "^", "Acc-FCSG-M"),
    "localscgdam": ("#bcbd22", "D", "LocalSCGDAM"),
    "comfedl": ("#17becf", "o", "ComFedL"),
}
VERDICT_COLOURS = {"pass": "#2ca02c", "fail": "#d62728", "inconclusive": "#b8860b",
                   "reproduced": "#2ca02c", "not-reproduced": "#d62728"}
#: values below this are zero to machine precision: never plotted as data on a log axis
EXACT_ZERO = 1e-13


def colour(alg: str) -> str:
    return ALGORITHMS.get(alg, ("#333333", "o", alg))[0]


def marker(alg: str) -> str:
    return ALGORITHMS.get(alg, ("#333333", "o", alg))[1]


def label(alg: str) -> str:
    return ALGORITHMS.get(alg, ("#333333", "o", alg))[2]


def verdict_badge(ax, verdict: str | None) -> None:
    """The verdict in the top-right corner of an axes."""
    if not verdict:
        return
    ax.text(0.98, 0.98, verdict, transform=ax.transAxes, ha="right", va="top", fontsize=9,
            fontweight="bold", color="white",
            bbox={"boxstyle": "round", "fc": VERDICT_COLOURS.get(verdict, "#555555"),
                  "ec": "none"})


def split_zeros(xs, ys):
    """(x, y) pairs with y a number >= EXACT_ZERO, and the x where y is an exact zero."""
    data, zeros = ([], []), []
    for x, y in zip(xs, ys):
        if y is None:
            continue
        if y < EXACT_ZERO:
            zeros.append(x)
        else:
            data[0].append(x)
            data[1].append(y)
    return data, zeros


def zero_floor(ax, xs, alg: str, floor: float) -> None:
    """Exact zeros of `alg` at `xs`, drawn on the floor line with a downward marker."""
    if xs:
        ax.plot(xs, [floor] * len(xs), linestyle="none", marker="v", color=colour(alg),
                mfc="none", ms=6)


def floor_line(ax, floor: float) -> None:
    ax.axhline(floor, color="0.6", lw=0.8, ls=":")
    ax.text(0.01, floor, " 0 to machine precision", transform=ax.get_yaxis_transform(),
            va="bottom", ha="left", fontsize=7, color="0.4")


def save(fig, path) -> Path:
    """Write a figure atomically (temporary file, then rename) and close it."""
    import os
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.tmp-{os.getpid()}{path.suffix}")
    fig.savefig(tmp, dpi=120)
    os.replace(tmp, path)
    plt.close(fig)
    return path
