"""Neural experiments: a metric against iterations per arm, the mean over seeds with its 95 %
interval as a band (the interval the experiment checks use), from the records of
:meth:`fedcomp.neural.store.StoredExperiment.curves`. Computes nothing."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from fedcomp.figures import style as S


def curves_figure(records: list[dict], metric: str, title: str, x: str = "t",
                  diverged: dict | None = None, compare_at: float | None = None):
    """records: dicts with arm, t, round, mean, low, high, n (one per arm and evaluation point).

    x : "t" (iterations) or "round" (communication rounds: arms with different local steps
        compared after the same number of rounds)
    diverged : {arm: {seed: iteration}}; an arm that diverged is named so in the legend (with
        its iterations) and its last finite point is marked with a cross, so a missing curve is
        never mistaken for a run that was not made.
    compare_at : where the verdict compares the arms (a dashed vertical line), if at one point
    """
    if x not in ("t", "round"):
        raise ValueError(f"x must be 't' or 'round', got {x!r}")
    diverged = diverged or {}
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    arms = list(dict.fromkeys([r["arm"] for r in records] + list(diverged)))
    cycle = iter(plt.rcParams["axes.prop_cycle"].by_key()["color"] * 4)
    used = set()
    for arm in arms:
        rs = sorted((r for r in records if r["arm"] == arm), key=lambda r: r["t"])
        c = S.colour(arm.split("/")[0])
        if c in used or c == "#333333":
            c = next(cycle)
        used.add(c)
        label = arm
        if arm in diverged:
            its = sorted(set(diverged[arm].values()))
            label += (f" (diverged at t = {', '.join(str(i) for i in its)} in seeds "
                      f"{', '.join(str(s) for s in sorted(diverged[arm]))})")
        if not rs:
            ax.plot([], [], color=c, lw=1.4, marker="x", label=label)
            continue
        xs = np.array([r[x] for r in rs], dtype=float)
        mean = np.array([r["mean"] for r in rs], dtype=float)
        ax.plot(xs, mean, color=c, lw=1.4, marker=".", label=label)
        if arm in diverged:
            ax.plot(xs[-1:], mean[-1:], color=c, marker="x", ms=10, mew=2, ls="none")
        low = np.array([r["low"] for r in rs], dtype=float)
        high = np.array([r["high"] for r in rs], dtype=float)
        ok = np.isfinite(low) & np.isfinite(high)
        if ok.any():
            ax.fill_between(xs[ok], low[ok], high[ok], color=c, alpha=0.18, lw=0)
    if compare_at is not None:
        ax.axvline(compare_at, color="0.3", ls="--", lw=1,
                   label=f"compared at {'t' if x == 't' else 'round'} = {compare_at:g}")
    return _finish(fig, ax, "iteration t" if x == "t" else "communication round", metric, title)


def parameter_figure(records: list[dict], xlabel: str, metric: str, title: str):
    """A metric against a parameter (log2 axis) per method: records as :func:`curves_figure`'s,
    with the parameter in ``t`` and the method in ``arm``."""
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    cycle = iter(plt.rcParams["axes.prop_cycle"].by_key()["color"] * 4)
    for arm in dict.fromkeys(r["arm"] for r in records):
        rs = sorted((r for r in records if r["arm"] == arm), key=lambda r: r["t"])
        x = np.array([r["t"] for r in rs], dtype=float)
        mean = np.array([r["mean"] for r in rs], dtype=float)
        low = np.array([r["low"] for r in rs], dtype=float)
        high = np.array([r["high"] for r in rs], dtype=float)
        c = S.colour(arm.lower())
        if c == "#333333":
            c = next(cycle)
        ax.plot(x, mean, color=c, lw=1.4, marker="o", label=arm)
        ok = np.isfinite(low) & np.isfinite(high)
        if ok.any():
            ax.fill_between(x[ok], low[ok], high[ok], color=c, alpha=0.18, lw=0)
    ax.set_xscale("log", base=2)
    ticks = sorted({r["t"] for r in records})
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t:g}" for t in ticks])
    ax.minorticks_off()
    return _finish(fig, ax, xlabel, metric, title)


def _finish(fig, ax, xlabel, metric, title):
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"{metric} (mean over seeds, 95 % band)")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    S.tight_layout(fig)
    return fig
