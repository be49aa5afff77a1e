"""Neural experiments: a metric against iterations per arm, the mean over seeds with its 95 %
interval as a band (the interval the experiment checks use), from the records of
:meth:`fedcomp.neural.store.StoredExperiment.curves`. Computes nothing."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from fedcomp.figures import style as S


def curves_figure(records: list[dict], metric: str, title: str):
    """records: dicts with arm, t, mean, low, high, n (one per arm and evaluation point)."""
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    arms = list(dict.fromkeys(r["arm"] for r in records))
    cycle = iter(plt.rcParams["axes.prop_cycle"].by_key()["color"] * 4)
    used = set()
    for arm in arms:
        rs = sorted((r for r in records if r["arm"] == arm), key=lambda r: r["t"])
        t = np.array([r["t"] for r in rs], dtype=float)
        mean = np.array([r["mean"] for r in rs], dtype=float)
        c = S.colour(arm.split("/")[0])
        if c in used or c == "#333333":
            c = next(cycle)
        used.add(c)
        ax.plot(t, mean, color=c, lw=1.4, marker=".", label=arm)
        low = np.array([r["low"] for r in rs], dtype=float)
        high = np.array([r["high"] for r in rs], dtype=float)
        ok = np.isfinite(low) & np.isfinite(high)
        if ok.any():
            ax.fill_between(t[ok], low[ok], high[ok], color=c, alpha=0.18, lw=0)
    ax.set_xlabel("iteration t")
    ax.set_ylabel(f"{metric} (mean over seeds, 95 % band)")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


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
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"{metric} (mean over seeds, 95 % band)")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
