"""Rate figures (matplotlib, Agg backend). Every function reads the result table of a sweep
(the tidy table of :mod:`fedcomp.runner.store`, or its per-run summary from
:func:`fedcomp.rates.measure.summarize`); the ``*_plot`` functions return the Figure (what a
check hands ``fedcomp verify`` as a :class:`~fedcomp.figures.Plot`, drawn with its verdict);
:func:`rate_figure` writes one to a PNG (``fedcomp rates --figure``).

* :func:`rate_plot` -- log-log plot of the measured E||grad Phi||^2 (seed means with their 95 %
  bootstrap intervals) against T or K, the fitted line with its 95 % band, and the theory's slope
  drawn through the fitted line at the middle of the grid; final-iterate variant alongside; below
  it, the local slopes between neighbouring grid points against the predicted slope (whether the
  run has reached the regime the bound describes).
* :func:`algorithms_plot` -- the same quantity for several algorithms on one grid (one series
  each, in the algorithm's colour and marker), with their fits and the theory's slope; for two
  algorithms on the same seeds, their ratio paired by seed below.
* :func:`speedup_plot` -- samples per client to reach epsilon against K, with the K^-1 slope.
* :func:`cost_plot` -- communication (rounds or floats per client) against 1/epsilon, with the
  predicted slope.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np


def _plt():
    import matplotlib
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    return plt


def _tight_layout(fig):
    from fedcomp.figures.style import tight_layout
    tight_layout(fig)


def _summary(table):
    if "avg_grad_sq" in table.columns:
        return table
    from fedcomp.rates.measure import summarize
    return summarize(table)


def _wrap(title: str, width: int = 68) -> str:
    from fedcomp.figures.style import wrap
    return wrap(title, width)


def _reference(ax, x, anchor_x, anchor_y, slope, label, style="k--"):
    xs = np.array([min(x), max(x)], dtype=float)
    ax.plot(xs, anchor_y * (xs / anchor_x) ** slope, style, lw=1, label=label)


def rate_figure(table, path, over: str = "T", predicted: float = -0.5,
                quantities=("avg_grad_sq", "final_grad_sq"), title: str = "",
                **fixed) -> Path:
    """:func:`rate_plot` written to `path`."""
    return _save(rate_plot(table, over, predicted, quantities, title, **fixed), path)


def rate_plot(table, over: str = "T", predicted: float = -0.5,
              quantities=("avg_grad_sq", "final_grad_sq"), title: str = "", **fixed):
    """Measured quantity against `over` with fit, band and the theory's slope (module doc)."""
    from fedcomp.rates.analysis import exponent
    plt = _plt()
    summary = _summary(table)
    labels = {"avg_grad_sq": "mean over iterates (a(T) uniform)",
              "final_grad_sq": "final iterate", "tail_grad_sq": "last 10 % of iterates"}
    fig, (ax, axs) = plt.subplots(2, 1, figsize=(6, 5.6), sharex=True,
                                  gridspec_kw={"height_ratios": [3, 1.3]})
    for i, q in enumerate(quantities):
        fit, boot = exponent(summary, over, q, return_boot=True, **fixed)
        x = np.array(fit.x)
        color = f"C{i}"
        xs = _series(ax, fit, "o" if i == 0 else "s", color, i > 0,
                     f"{labels.get(q, q)}: slope {fit.text()}", predicted if i == 0 else None)
        lo, hi = fit.band(xs, boot)
        ax.fill_between(xs, lo, hi, color=color, alpha=0.15, lw=0)
        if i == 0:
            # local slopes between neighbouring grid points: has the run reached the regime?
            ym = np.asarray(fit.y_mean, dtype=float)
            local = np.diff(np.log(ym)) / np.diff(np.log(x))
            mid = np.sqrt(x[1:] * x[:-1])
            axs.plot(mid, local, "o-", color=color, ms=4, label="local slope")
            axs.axhline(predicted, color="k", ls="--", lw=1, label=f"predicted {predicted:+g}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    axs.set_xlabel(over + ("  (K = %s)" % fixed["K"] if "K" in fixed else "")
                   + ("  (T = %s)" % fixed["T"] if "T" in fixed else ""))
    axs.set_ylabel("local slope")
    axs.legend(fontsize=7)
    axs.grid(True, alpha=0.3)
    return _finish(fig, ax, title, "bands")


def algorithms_plot(tables: dict, over: str = "T", predicted: float = -0.5, title: str = "",
                    quantity: str = "avg_grad_sq", paired: bool = False, **fixed):
    """`quantity` against `over` for each algorithm of `tables` (algorithm name -> its sweep's
    table): seed means with their 95 % bootstrap intervals, the fitted line and its slope in the
    legend, and the theory's slope drawn through the first algorithm's fit. With ``paired`` (two
    algorithms run on the same grid and seeds), a lower panel shows the second's quantity over the
    first's,
    paired by seed (:func:`fedcomp.rates.analysis.paired_ratio_fit`), with its 95 % intervals,
    the fitted slope (the difference of the two exponents) and the line of equal values."""
    from fedcomp.figures import style
    from fedcomp.rates.analysis import exponent, paired_ratio_fit
    plt = _plt()
    names = list(tables)
    if paired:
        if len(names) != 2:
            raise ValueError(f"paired needs exactly two algorithms, got {len(names)}")
        fig, (ax, axr) = plt.subplots(2, 1, figsize=(6, 5.6), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 1.3]})
    else:
        fig, ax = plt.subplots(figsize=(6, 4.2))
        axr = None
    for i, alg in enumerate(names):
        fit = exponent(_summary(tables[alg]), over, quantity, **fixed)
        _series(ax, fit, style.marker(alg), style.colour(alg), i > 0,
                f"{style.label(alg)}: slope {fit.text()}", predicted if i == 0 else None)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    xlabel = over + "".join(f"  ({k} = {v})" for k, v in fixed.items())
    if axr is None:
        ax.set_xlabel(xlabel)
    else:
        r = paired_ratio_fit(_summary(tables[names[1]]), _summary(tables[names[0]]), over,
                             quantity, **fixed)
        _series(axr, r, style.marker(names[1]), style.colour(names[1]), True,
                f"paired by seed: slope {r.text()}")
        axr.axhline(1.0, color="k", ls="--", lw=1, label="equal")
        axr.set_xlabel(xlabel)
        axr.set_ylabel("ratio (second / first)", fontsize=8)
        axr.legend(fontsize=7)
        axr.grid(True, which="both", alpha=0.3)
    return _finish(fig, ax, title, "intervals")


def _series(ax, fit, fmt, color, hollow, label, predicted=None):
    """One fit's seed means with their intervals and its fitted line (and the theory's slope
    through it when `predicted` is given); returns the x values the line is drawn at."""
    x = np.array(fit.x)
    yerr = np.abs(np.array([fit.y_low, fit.y_high]) - np.array(fit.y_mean))
    ax.errorbar(x, fit.y_mean, yerr=yerr, fmt=fmt, color=color, mfc="none" if hollow else color,
                capsize=3, label=label)
    xs = np.geomspace(x.min(), x.max(), 50)
    ax.plot(xs, fit.predict(xs), "-", color=color, lw=1)
    if predicted is not None:
        xm = math.exp(np.log(x).mean())
        _reference(ax, x, xm, float(fit.predict(xm)), predicted, f"theory: slope {predicted:+g}")
    return xs


def _finish(fig, ax, title, spread):
    ax.set_ylabel(r"$\|\nabla\Phi(\bar x)\|^2$ (seed means, 95 % " + spread + ")")
    ax.set_title(_wrap(title), fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)
    _tight_layout(fig)
    return fig


def speedup_plot(table, predicted: float = -1.0, title: str = "", quantity: str = "avg_grad_sq"):
    """T_eps against K with its fit, band and the K^predicted slope."""
    from fedcomp.rates.analysis import speedup
    plt = _plt()
    summary = _summary(table)
    fit, eps, points, boot = speedup(summary, quantity=quantity, return_boot=True)
    fig, ax = plt.subplots(figsize=(6, 4.2))
    if fit is None:
        # nothing to fit: the per-K curves show why (no level that two K's curves both reach)
        from fedcomp.rates.analysis import mean_curves, no_common_level
        Ks, Ts, m = mean_curves(summary, quantity)
        for i, k in enumerate(Ks):
            ok = np.isfinite(m[i]) & (m[i] > 0)
            ax.plot(Ts[ok], m[i][ok], "o-", color=f"C{i}", ms=3, lw=1, label=f"K = {k}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("T (samples per client)")
        ax.set_ylabel(f"{quantity} (mean over seeds)")
        why = (no_common_level(summary, quantity) if not math.isfinite(eps) else
               f"eps = {eps:.3g} is reached by fewer than two K")
        title = f"{title} -- {why}: the speed-up is not measured (this part is inconclusive)"
    else:
        x = np.array(fit.x)
        yerr = np.abs(np.array([fit.y_low, fit.y_high]) - np.array(fit.y_mean))
        ax.errorbar(x, fit.y_mean, yerr=yerr, fmt="o", color="C0", capsize=3,
                    label=f"T to reach eps={eps:.3g}: slope {fit.text()}")
        xs = np.geomspace(x.min(), x.max(), 50)
        ax.plot(xs, fit.predict(xs), "-", color="C0", lw=1)
        lo, hi = fit.band(xs, boot)
        ax.fill_between(xs, lo, hi, color="C0", alpha=0.15, lw=0)
        xm = math.exp(np.log(x).mean())
        _reference(ax, x, xm, float(fit.predict(xm)), predicted,
                   f"linear speed-up: slope {predicted:+g}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("K (clients)")
        ax.set_ylabel("samples per client to reach eps")
    ax.set_title(_wrap(title), fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)
    _tight_layout(fig)
    return fig


def cost_plot(tables: dict, cost: str = "rounds", predicted: dict | None = None,
              title: str = "", quantity: str = "avg_grad_sq", **fixed):
    """Cost (rounds or floats per client) against 1/eps, one series per table in `tables`
    (label -> table); `predicted` maps a label to the predicted exponent a (cost ~ eps^-a)."""
    from fedcomp.rates.analysis import cost_exponent, invert
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 4.2))
    for i, (label, table) in enumerate(tables.items()):
        summary = _summary(table)
        fit = cost_exponent(summary, cost, quantity, **fixed)
        a, a_lo, a_hi = invert(fit)
        inv = 1.0 / np.array(fit.y_mean)
        xerr = np.abs(1.0 / np.array([fit.y_high, fit.y_low]) - inv)
        color = f"C{i}"
        text = (f"{cost} ~ eps^-{a:.2f} [{a_lo:.2f}, {a_hi:.2f}]" if fit.high < 0 else
                f"no exponent (eps against {cost}: slope {fit.slope:+.3f} [{fit.low:+.3f}, "
                f"{fit.high:+.3f}] reaches 0)")
        ax.errorbar(inv, fit.x, xerr=xerr, fmt="o", color=color, capsize=3,
                    label=f"{label}: {text}")
        if predicted and label in predicted:
            im = math.exp(np.log(inv).mean())
            cm = math.exp(np.log(np.array(fit.x)).mean())
            _reference(ax, inv, im, cm, predicted[label],
                       f"{label}: theory eps^-{predicted[label]:g}", style=f"{color}--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("1 / eps  (eps = measured mean over iterates of ||grad Phi||^2)")
    ax.legend(fontsize=7, loc="best")    # placed after the data: it never hides a point
    ax.set_ylabel({"rounds": "communication rounds",
                   "floats_per_client": "floats sent per client"}.get(cost, cost))
    ax.set_title(_wrap(title), fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    _tight_layout(fig)
    return fig


def _save(fig, path) -> Path:
    from fedcomp.figures.style import save
    return save(fig, path)
