"""Figures of the Theorem 4.1 reproduction, drawn from the data that
:func:`fedcomp.counterexamples.thm41.reproduce` computes (this module computes nothing).

* ``gap_figure``: the limiting ||grad Phi(xbar)|| against eta, one panel per I: the closed form
  on a dense grid (line), the simulated limits on top (markers), the eta -> 0 limits of FedAvg
  Case I and II (dashed); exact zeros are drawn on a marked floor, never as data.
* ``trajectory_figure``: ||grad Phi(xbar_t)||^2 at the round boundaries (t a multiple of I), one
  panel per algorithm family, each algorithm's closed-form limit dashed: FedAvg's plateau and
  FedDRO's O(eta) client-drift floor are told apart.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from fedcomp.figures import style as S

FAMILIES = {"vanilla FedAvg (Algorithm 1)": ("fedavg-case1", "fedavg-case2"),
            "y shared every iteration": ("fedavg-modified", "feddro")}
TITLE = "FedDRO paper, Theorem 4.1 (khanduri.thm4.1)"


def gap_figure(data: dict):
    panels = data["panels"]
    fig, axes = plt.subplots(1, len(panels), figsize=(3.4 * len(panels), 3.6), sharey=True,
                             squeeze=False)
    values = [g for p in panels for c in p["curves"].values() for g in c["gap"]
              if g is not None and g >= S.EXACT_ZERO]
    floor = 10 ** np.floor(np.log10(min(values))) / 10 if values else 1e-3
    for ax, panel in zip(axes[0], panels):
        any_zero = False
        for alg, curve in panel["curves"].items():
            (x, y), zeros = S.split_zeros(curve["eta"], curve["gap"])
            ax.loglog(x, y, color=S.colour(alg), lw=3 if alg == "fedavg-modified" else 1.2,
                      alpha=0.5 if alg == "fedavg-modified" else 1, label=S.label(alg))
            (mx, my), mzeros = S.split_zeros(panel["markers"][alg]["eta"],
                                             panel["markers"][alg]["gap"])
            ax.plot(mx, my, S.marker(alg), color=S.colour(alg), mfc="none", ms=6)
            S.zero_floor(ax, sorted(set(zeros[::6] + mzeros)), alg, floor)
            any_zero |= bool(zeros or mzeros)
            lim = panel["limits"].get(alg)
            if lim is not None and lim >= S.EXACT_ZERO:
                ax.axhline(lim, color=S.colour(alg), ls="--", lw=0.9)
        if any_zero:
            S.floor_line(ax, floor)
        ax.set_title(f"I = {panel['I']}")
        ax.set_xlabel(r"step size $\eta$")
    axes[0][0].set_ylabel(r"limit of $\|\nabla\Phi(\bar x)\|$")
    axes[0][0].legend(fontsize=6, loc="lower left")
    fig.suptitle(f"{TITLE}: {data['instance']} instance\nlines: closed form; markers: "
                 f"simulated; dashed: eta -> 0 limit; triangles: exactly 0", fontsize=9)
    S.tight_layout(fig)
    return fig


def trajectory_figure(data: dict):
    fig, axes = plt.subplots(1, len(FAMILIES), figsize=(10, 4), sharey=True, squeeze=False)
    styles = ("-", ":")
    for ax, (family, algs) in zip(axes[0], FAMILIES.items()):
        for alg in algs:
            for s, ls in zip(data["series"][alg], styles):
                (t, g), _ = S.split_zeros(np.asarray(s["t"]) * s["eta"], s["grad_sq"])
                ax.semilogy(t, g, color=S.colour(alg), ls=ls, lw=2.5 if alg ==
                            "fedavg-modified" else 1, alpha=0.5 if alg == "fedavg-modified"
                            else 1, label=f"{S.label(alg)}, eta = {s['eta']:g}")
                if s["limit_sq"] is not None and s["limit_sq"] >= S.EXACT_ZERO:
                    ax.axhline(s["limit_sq"], color=S.colour(alg), ls="--", lw=0.8)
        ax.set_title(family)
        ax.set_xlabel(f"eta t (sampled at the round boundaries, I = {data['local_steps']})")
        ax.legend(fontsize=6)
    axes[0][0].set_ylabel(r"$\|\nabla\Phi(\bar x_t)\|^2$ (dashed: closed-form limit)")
    fig.suptitle(f"{TITLE}: {data['instance']} instance\n{_trajectory_finding(data)}",
                 fontsize=9)
    S.tight_layout(fig)
    return fig


def _trajectory_finding(data: dict) -> str:
    """The figure's finding, from its own closed-form limits: how each algorithm's limit of
    ||grad Phi||^2 moves between the two step sizes drawn (FedAvg's tends to a nonzero limit as
    eta -> 0, Theorem 4.1; FedDRO's vanishes)."""
    out, etas, order = [], None, None
    for alg in ("fedavg-case1", "fedavg-case2", "feddro"):
        runs = data["series"].get(alg) or []
        lims = [(r["eta"], r["limit_sq"]) for r in runs if r.get("limit_sq") is not None]
        if len(lims) < 2:
            continue
        (e0, l0), (e1, l1) = lims[0], lims[-1]
        etas = (e0, e1)
        out.append(f"{S.label(alg)} {l0:.2g} -> {l1:.2g}" if l1 >= S.EXACT_ZERO else
                   f"{S.label(alg)} {l0:.2g} -> 0")
        if alg == "feddro" and min(l0, l1) >= S.EXACT_ZERO and e0 != e1:
            order = np.log(l0 / l1) / np.log(e0 / e1)
    if not out:
        return ""
    tail = ("FedAvg's limits do not vanish as eta -> 0 (Theorem 4.1)"
            + (f"; FedDRO's falls like eta^{order:.2f}" if order is not None else ""))
    return (f"closed-form limits of ||grad Phi||^2, eta = {etas[0]:g} -> {etas[1]:g}: "
            + "; ".join(out) + f"\n{tail}")


def same_run_figure(series: dict, title: str):
    """Two algorithms' ||grad Phi(xbar_t)||^2 on the same samples (series: {alg: {"t", "g"}}),
    and their absolute difference below (drawn only where it is nonzero: all zero is said in
    text, never plotted on the log axis)."""
    fig, (top, bot) = plt.subplots(2, 1, figsize=(7, 5), sharex=True,
                                   gridspec_kw={"height_ratios": [3, 1.4]})
    algs = list(series)
    for i, alg in enumerate(algs):
        t, g = np.asarray(series[alg]["t"]), np.asarray(series[alg]["g"])
        top.semilogy(t, g, color=S.colour(alg), lw=3.5 if i == 0 else 1.2,
                     alpha=0.45 if i == 0 else 1.0, ls="-" if i == 0 else "--",
                     label=S.label(alg))
    top.set_ylabel(r"$\|\nabla\Phi(\bar x_t)\|^2$")
    top.legend(fontsize=7)
    a, b = (np.asarray(series[alg]["g"]) for alg in algs[:2])
    diff = np.abs(a - b)
    t = np.asarray(series[algs[0]]["t"])
    if np.any(diff > 0):
        bot.semilogy(t[diff > 0], diff[diff > 0], "k.", ms=2)
        bot.set_ylabel("|difference|")
    else:
        bot.text(0.5, 0.5, "the two runs are identical at every recorded t (difference 0)",
                 ha="center", va="center", transform=bot.transAxes, fontsize=8)
        bot.set_yticks([])
        bot.set_ylabel("difference")
    bot.set_xlabel("iteration t")
    top.set_title(title, fontsize=9)
    S.tight_layout(fig)
    return fig


def thm41_figures(data: dict) -> list:
    """(file stem, draw function, its data) of every Theorem 4.1 figure."""
    return ([("trajectories", trajectory_figure, data["trajectories"])]
            + [(f"gap_vs_eta_{g['instance']}", gap_figure, g) for g in data["gaps"]])


def plot_thm41(data: dict, out: Path, verdict: str | None = None) -> list[Path]:
    """The figures of ``fedcomp counterexample thm4.1``, with the reproduction's verdict."""
    paths = []
    for stem, draw, arg in thm41_figures(data):
        fig = draw(arg)
        S.verdict_badge(fig, verdict)
        paths.append(S.save(fig, Path(out) / f"thm41_{stem}.png"))
    return paths
