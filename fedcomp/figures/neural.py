"""Neural experiments: a metric against iterations per arm, the mean over seeds with its 95 %
interval as a band (the interval the experiment checks use), from the records of
:meth:`fedcomp.neural.store.StoredExperiment.curves`. Computes nothing."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from fedcomp.figures import style as S


def curves_figure(records: list[dict], metric: str, title: str, x: str = "t",
                  diverged: dict | None = None, compare_at: float | None = None,
                  labels: dict | None = None, note: str = ""):
    """records: dicts with arm, t, round, mean, low, high, n (one per arm and evaluation point;
    n: the seeds with a value there).

    x : "t" (iterations) or "round" (communication rounds: arms with different local steps
        compared after the same number of rounds)
    diverged : {arm: {seed: iteration}}. An arm that diverged is named so in the legend (with
        its iterations and seeds) and marked with a cross where each seed diverged; from the
        first its line is dashed, the mean of the seeds not yet diverged (the legend says how
        many remain at the end), so a mean of survivors is never drawn as the arm's whole
        curve.
    compare_at : where the verdict compares the arms (a dashed vertical line), if at one point
    labels : {arm: legend label} where it differs from the arm (a setting: "ComFedL (gamma=2)")
    note : a second title line (what the verdict could not judge on this panel)
    Each method has one colour and marker in every figure (:func:`style.method_colours`).
    """
    if x not in ("t", "round"):
        raise ValueError(f"x must be 't' or 'round', got {x!r}")
    diverged, labels = diverged or {}, labels or {}
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    arms = list(dict.fromkeys([r["arm"] for r in records] + list(diverged)))
    styles = S.method_colours(arms)
    for arm in arms:
        rs = sorted((r for r in records if r["arm"] == arm), key=lambda r: r["t"])
        c, mk = styles[arm]
        label = labels.get(arm, arm)
        if not rs:
            ax.plot([], [], color=c, lw=1.4, marker="x", label=f"{label} (diverged: no value)")
            continue
        ts = np.array([r["t"] for r in rs], dtype=float)
        xs = np.array([r[x] for r in rs], dtype=float)
        mean = np.array([r["mean"] for r in rs], dtype=float)
        n = np.array([r["n"] for r in rs])
        cut = len(rs)     # the records before the first divergence: all seeds there
        if arm in diverged:
            first = min(diverged[arm].values())
            # solid up to the last evaluation before it, where every seed still counts (one at
            # the divergence iteration itself is already a mean of the others)
            cut = min(int(np.searchsorted(ts, first, side="left")),
                      next((i for i, k in enumerate(n) if k < n.max()), len(rs)))
            its = sorted(set(diverged[arm].values()))
            label += (f" (diverged at t = {', '.join(str(i) for i in its)} in seed"
                      f"{'s' if len(diverged[arm]) > 1 else ''} "
                      f"{', '.join(str(s) for s in sorted(diverged[arm]))}")
            label += (f"; dashed: mean of the seeds not yet diverged, {int(n[-1])} at the end)"
                      if cut < len(rs) else ")")
        ax.plot(xs[:cut], mean[:cut], color=c, lw=1.4, marker=mk, ms=4, label=label)
        if cut < len(rs):
            lo = max(cut - 1, 0)
            ax.plot(xs[lo:], mean[lo:], color=c, lw=1.2, ls="--", marker=mk, ms=3, mfc="none")
        if arm in diverged:     # a cross where each seed diverged
            its = sorted(set(diverged[arm].values()))
            ax.plot(np.interp(its, ts, xs), np.interp(its, ts, mean), color=c, marker="x",
                    ms=10, mew=2, ls="none")
        low = np.array([r["low"] for r in rs], dtype=float)
        high = np.array([r["high"] for r in rs], dtype=float)
        ok = np.isfinite(low) & np.isfinite(high)
        if ok.any():
            ax.fill_between(xs[ok], low[ok], high[ok], color=c, alpha=0.18, lw=0)
    if compare_at is not None:
        ax.axvline(compare_at, color="0.3", ls="--", lw=1,
                   label=f"compared at {'t' if x == 't' else 'round'} = {compare_at:g}")
    return _finish(fig, ax, "iteration t" if x == "t" else "communication round", metric,
                   title + (f"\n{note}" if note else ""))


def parameter_figure(records: list[dict], xlabel: str, metric: str, title: str):
    """A metric against a parameter (log2 axis) per method: records as :func:`curves_figure`'s,
    with the parameter in ``t`` and the method in ``arm``."""
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    arms = list(dict.fromkeys(r["arm"] for r in records))
    styles = S.method_colours(arms)
    for arm in arms:
        rs = sorted((r for r in records if r["arm"] == arm), key=lambda r: r["t"])
        x = np.array([r["t"] for r in rs], dtype=float)
        mean = np.array([r["mean"] for r in rs], dtype=float)
        low = np.array([r["low"] for r in rs], dtype=float)
        high = np.array([r["high"] for r in rs], dtype=float)
        c, mk = styles[arm]
        ax.plot(x, mean, color=c, lw=1.4, marker=mk, label=arm)
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
    ax.set_title(S.wrap(title, 84), fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    S.tight_layout(fig)
    return fig
