"""Neural experiments: a metric against iterations per arm, the mean over seeds with its 95 %
interval as a band (the interval the experiment checks use), and beside it each arm's value
where the arms are compared, on an axis of its own; from the records of
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
    fig, (ax, az) = plt.subplots(1, 2, figsize=(9.0, 4.2), gridspec_kw={"width_ratios": [3, 1]})
    arms = list(dict.fromkeys([r["arm"] for r in records] + list(diverged)))
    styles = S.method_colours(arms)
    series = {arm: sorted((r for r in records if r["arm"] == arm), key=lambda r: r["t"])
              for arm in arms}
    _compared_panel(az, series, styles, x, compare_at, diverged, metric, labels)
    for arm, rs in series.items():
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
        ax.plot(xs[:cut], mean[:cut], color=c, lw=1.4, marker=mk, ms=4,
                label=S.wrap(label, 56))
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


def _compared_panel(az, series, styles, x, compare_at, diverged, metric, labels) -> None:
    """Beside the curves, on an axis of their own: each arm's value where the verdict compares
    them (the last evaluation, or `compare_at`) with its 95 % interval, so that differences of
    a thousandth, invisible on the curves' axis, can be read. An arm that diverged in some seeds
    is drawn hollow (the mean of the others); one without a value there is left out."""
    arms = list(series)
    for i, (arm, rs) in enumerate(series.items()):
        if compare_at is not None:
            rs = [r for r in rs if r[x] == compare_at]
        if not rs:
            continue
        r = rs[-1]
        c, mk = styles[arm]
        lo, hi = r["low"], r["high"]
        err = ([[max(r["mean"] - lo, 0.0)], [max(hi - r["mean"], 0.0)]]
               if np.isfinite(lo) and np.isfinite(hi) else None)
        az.errorbar([i], [r["mean"]], yerr=err, color=c, marker=mk, capsize=3, ms=6,
                    mfc="none" if arm in diverged else c)
    az.set_xticks(range(len(arms)), [labels.get(a, a) for a in arms], rotation=60, ha="right",
                  fontsize=7)
    az.set_xlim(-0.7, len(arms) - 0.3)
    az.set_xlabel("compared " + ("at the last evaluation" if compare_at is None else
                                 f"at {'t' if x == 't' else 'round'} {compare_at:g}"), fontsize=8)
    az.set_ylabel(f"{metric} (zoomed: per-arm mean, 95 % interval;\nthe verdict pairs them by "
                  f"seed)", fontsize=7)
    az.tick_params(axis="y", labelsize=7)
    az.grid(alpha=0.3)


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
