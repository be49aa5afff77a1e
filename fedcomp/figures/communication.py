"""Communication figures: the communication needed to reach eps against eps, log-log, one panel
per setting and cost (rounds, floats per client), one series per reading of "communication
complexity" (model-averaging rounds, Definition 3.7 rounds) or per setting, each with its
fitted line and the claim's predicted slope drawn through the fit (dashed).

Drawn from the fits a complexity check judged (:func:`fedcomp.rates.analysis.cost_exponent`:
the seed-mean eps reached at each point of the T grid against that point's cost, which depends
on T alone); :func:`reading` copies one into plain data. This module computes nothing: the
fitted line is the fit's own, the predicted line has the claim's slope through the fit's middle
over the same range of cost.
"""
from __future__ import annotations

import math
import textwrap

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter

from fedcomp.figures import style as S

#: gid of the fitted line and of the predicted-slope line of each series
FIT_GID = "fitted-slope"
PREDICTED_GID = "predicted-slope"
#: y label of each panel
COSTS = {"rounds": "communication rounds to reach eps",
         "floats": "floats sent per client to reach eps"}
_MARKERS = (None, "s", "^", "D")
_FIT_STYLES = ("-", "-.", ":", (0, (3, 1, 1, 1)))


def reading(label: str, alg: str, fit, predicted: float, judged: bool = False) -> dict:
    """One series as plain data. `fit`: an ExponentFit of log eps against log cost (the slope s
    of :func:`~fedcomp.rates.analysis.cost_exponent`); `predicted`: the claim's exponent of cost
    in eps (cost = O(eps^predicted), e.g. -1.5); `judged`: this series is the one the claim's
    verdict is taken on (the others are other readings, shown beside it)."""
    from fedcomp.rates.analysis import invert
    cost = [float(c) for c in fit.x]
    ends = [min(cost), max(cost)]
    middle = math.exp(float(np.mean(np.log(cost))))
    a, a_lo, a_hi = invert(fit)
    return {"label": label, "alg": alg, "judged": judged, "predicted": float(predicted),
            "cost": cost, "eps": [float(e) for e in fit.y_mean],
            "eps_low": [float(e) for e in fit.y_low], "eps_high": [float(e) for e in fit.y_high],
            # slope of log cost against log eps: -a, interval [-a_hi, -a_lo]
            "slope": -a, "slope_interval": [-a_hi, -a_lo],
            # eps's own slope against the cost: an interval reaching 0 gives no cost exponent
            "eps_slope": [float(fit.slope), float(fit.low), float(fit.high)],
            "no_exponent": not fit.high < 0,
            "fit_cost": ends, "fit_eps": [float(e) for e in fit.predict(ends)],
            "anchor": [float(fit.predict(middle)), middle]}


def _vertical_floor(ax, floor):
    ax.axvline(floor, color="0.6", lw=0.8, ls=":", gid=S.ZERO_GID)
    ax.text(floor, 0.01, " eps = 0 to machine precision", transform=ax.get_xaxis_transform(),
            rotation=90, va="bottom", ha="right", fontsize=7, color="0.4")


def _series(ax, i, r, mark_judged):
    c = S.colour(r["alg"])
    m = _MARKERS[i % len(_MARKERS)] or S.marker(r["alg"])
    eps, cost = np.asarray(r["eps"], float), np.asarray(r["cost"], float)
    data = eps >= S.EXACT_ZERO
    lo = np.asarray(r["eps_low"], float)[data]
    hi = np.asarray(r["eps_high"], float)[data]
    marks = None
    if data.any():
        # a lower end of the interval at an exact zero is drawn to the floor, not below it
        lo = np.where(lo >= S.EXACT_ZERO, lo, eps[data])
        judged = " (judged)" if mark_judged and r["judged"] else ""
        marks = ax.errorbar(eps[data], cost[data], xerr=[eps[data] - lo, hi - eps[data]],
                            fmt=m, color=c, mfc=c if i == 0 else "none", capsize=3, ls="none",
                            label=f"{r['label']}{judged}: seed means, 95 % intervals of eps")
    zeros = list(cost[~data])
    lo_s, hi_s = r["slope_interval"]
    if r.get("no_exponent"):
        # eps need not fall with the cost: no exponent to draw (the verdict says the same)
        s_, lo_e, hi_e = r["eps_slope"]
        fitted, = ax.plot([], [], ls="none", label=f"{r['label']}: no exponent (eps against "
                                                    f"the cost: slope {s_:+.3f} [{lo_e:+.3f}, "
                                                    f"{hi_e:+.3f}] reaches 0)")
    else:
        fitted, = ax.plot(r["fit_eps"], r["fit_cost"], ls=_FIT_STYLES[i % len(_FIT_STYLES)],
                          color=c, lw=1.2, gid=FIT_GID,
                          label=f"{r['label']}: fitted slope {r['slope']:+.2f} "
                                f"[{lo_s:+.2f}, {hi_s:+.2f}]")
    # the predicted slope through the fit's middle, over the same range of cost: where eps
    # would be at each cost had the cost grown as predicted (never below EXACT_ZERO)
    e0, c0 = r["anchor"]
    ys = np.geomspace(*r["fit_cost"], 50)
    xs = e0 * (ys / c0) ** (1.0 / r["predicted"])
    keep = xs >= S.EXACT_ZERO
    predicted, = ax.plot(xs[keep], ys[keep], "--", color=c, lw=1,
                         alpha=0.8, gid=PREDICTED_GID,
                         label=f"{r['label']}: predicted slope {r['predicted']:+g}")
    return zeros, [h for h in (marks, fitted, predicted) if h is not None]


def communication_figure(panels: list, title: str):
    """panels: dicts {"cost": "rounds" or "floats" (:data:`COSTS`), "title": the setting,
    "series": [series of :func:`reading`, ...]}, side by side. Each series: markers at (eps
    reached, its cost) with the seed bootstrap interval of eps, the fitted line, and the
    predicted slope through the fit's middle (dashed); colours per algorithm
    (:mod:`~fedcomp.figures.style`), a marker and a line style per series. eps decreases to the
    right. eps below EXACT_ZERO is drawn on a marked floor, never as data."""
    panels = [p for p in panels if p["series"]]
    fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels), 5.6), squeeze=False)
    for ax, panel in zip(axes[0], panels):
        series, cost = panel["series"], panel["cost"]
        eps = [e for r in series for e in r["eps_low"] + r["fit_eps"] if e >= S.EXACT_ZERO]
        floor = min(eps) / 10 if eps else S.EXACT_ZERO
        zeros, lines = [], []
        mark = not all(r["judged"] for r in series)
        for i, r in enumerate(series):
            z, drawn = _series(ax, i, r, mark)
            lines += drawn
            if z:
                ax.plot([floor] * len(z), z, "v", color=S.colour(r["alg"]), mfc="none",
                        ls="none", gid=S.ZERO_GID)
                zeros += z
        if zeros:
            _vertical_floor(ax, floor)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.invert_xaxis()
        if ax.get_xlim()[0] < 10 * ax.get_xlim()[1]:    # less than a decade: label 1, 2, 5
            ax.xaxis.set_minor_locator(LogLocator(10, subs=(1.0, 2.0, 5.0)))
            ax.xaxis.set_minor_formatter(FormatStrFormatter("%.2g"))
        else:
            ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("eps reached (seed mean over iterates of ||grad Phi(xbar)||^2)")
        ax.set_ylabel(COSTS.get(cost, cost))
        ax.set_title("\n".join(textwrap.wrap(panel.get("title", ""), 60)), fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        # below the panel, each series' markers, fitted line and predicted slope together
        ax.legend(lines, [h.get_label() for h in lines], fontsize=7, loc="upper center",
                  bbox_to_anchor=(0.5, -0.13), frameon=False)
    fig.suptitle("\n".join(textwrap.wrap(title, 60 * len(panels) + 20)), fontsize=9)
    S.tight_layout(fig)
    return fig
