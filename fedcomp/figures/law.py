"""The intermittent-sharing law (``fedcomp.intermittent-sharing-law``): heatmaps over (beta, I)
of the measured eta -> 0 gap beside the law's closed form c(beta, I)^2 ||D(x_c)||^2 and their
ratio, one row per heterogeneity h, from the points the check measured
(:func:`fedcomp.experiments.intermittent.law_measurement`, ``points``). Computes nothing."""
from __future__ import annotations

import math
import textwrap

import matplotlib.pyplot as plt
import numpy as np

from fedcomp.figures import style as S


def _grid(points, h, key):
    betas = sorted({p["beta"] for p in points})
    Is = sorted({p["I"] for p in points})
    z = np.full((len(betas), len(Is)), np.nan)
    for p in points:
        if p["heterogeneity"] == h:
            z[betas.index(p["beta"]), Is.index(p["I"])] = p[key]
    return betas, Is, z


def _cells(ax, z, text, light=lambda v: False):
    """Each cell's value written on it, in black where `light(value)` (a bright cell)."""
    for (i, j), v in np.ndenumerate(z):
        ax.text(j, i, text(v), ha="center", va="center", fontsize=7,
                color="k" if light(v) else "w")


def law_heatmap(points: list[dict], eta: float, tolerance: float):
    """points: dicts with beta, I, heterogeneity, gap0 (measured, Richardson-extrapolated to
    eta -> 0 from eta and 4 eta) and predicted (the closed form); non-interpolating points (a
    different problem) are left out. Panels per h: log10 gap_0, log10 closed form (one colour
    scale), gap_0 / closed form (diverging around 1, the judged tolerance marked on its bar).
    Exact zeros (below EXACT_ZERO) are written "0" in an empty cell, never coloured as data."""
    points = [p for p in points if not p.get("non_interpolating")]
    hs = sorted({p["heterogeneity"] for p in points})
    fig, axes = plt.subplots(len(hs), 3, figsize=(12, 2.9 * len(hs) + 0.9), squeeze=False)
    logs = [math.log10(p[k]) for p in points for k in ("gap0", "predicted")
            if p[k] >= S.EXACT_ZERO]
    lo, hi = (min(logs), max(logs)) if logs else (-1.0, 0.0)
    ratios = [p["gap0"] / p["predicted"] for p in points if p["predicted"] >= S.EXACT_ZERO]
    span = max([tolerance * 2] + [abs(r - 1) for r in ratios])
    for row, h in zip(axes, hs):
        for ax, key, name in ((row[0], "gap0", "measured gap_0 (eta -> 0)"),
                              (row[1], "predicted", "law: c(beta, I)^2 ||D(x_c)||^2")):
            betas, Is, z = _grid(points, h, key)
            exact = z >= S.EXACT_ZERO
            im = ax.imshow(np.where(exact, np.log10(np.where(exact, z, 1.0)), np.nan),
                           origin="lower", aspect="auto", cmap="viridis", vmin=lo, vmax=hi)
            _cells(ax, z, lambda v: "" if np.isnan(v) else ("0" if v < S.EXACT_ZERO
                                                             else f"{v:.2e}"),
                   lambda v: v >= S.EXACT_ZERO and math.log10(v) > lo + 0.65 * (hi - lo))
            ax.set_title(f"{name}, h = {h:g}", fontsize=9)
            fig.colorbar(im, ax=ax, label="log10 ||grad Phi(x_inf)||^2")
        betas, Is, g = _grid(points, h, "gap0")
        _, _, p = _grid(points, h, "predicted")
        r = np.where(p >= S.EXACT_ZERO, g / np.where(p >= S.EXACT_ZERO, p, 1.0), np.nan)
        im = row[2].imshow(r, origin="lower", aspect="auto", cmap="coolwarm", vmin=1 - span,
                           vmax=1 + span)
        _cells(row[2], r, lambda v: "" if np.isnan(v) else f"{v:.4f}", lambda v: True)
        row[2].set_title(f"measured / law, h = {h:g}", fontsize=9)
        bar = fig.colorbar(im, ax=row[2], label="ratio (1: the law holds)")
        for edge in (1 - tolerance, 1 + tolerance):
            bar.ax.axhline(edge, color="k", lw=0.8, ls="--")
        for ax in row:
            ax.set_xticks(range(len(Is)), [str(i) for i in Is])
            ax.set_yticks(range(len(betas)), [f"{b:g}" for b in betas])
            ax.set_xlabel("local steps I")
            ax.set_ylabel("inner-estimate weight beta")
    fig.suptitle("fedcomp's intermittent-sharing law (fedcomp.intermittent-sharing-law): "
                 f"DS-FedDRO's gap extrapolated from eta = {eta:g} and {4 * eta:g} beside the "
                 f"closed form\nratio bar: dashed lines at the judged tolerance "
                 f"1 +/- {tolerance:g}", fontsize=9)
    S.tight_layout(fig)
    return fig


def remedies_figure(data: dict, title: str):
    """The remedies of the FedDRO paper's Section 4.1 against the step size (data:
    :func:`fedcomp.experiments.intermittent.remedies`): each arm's gap ||grad Phi||^2 at its
    limit against eta, log-log (markers and lines: simulated, dash-dotted for the arms whose
    inner weight is tied to eta, dashed with hollow (or x) markers for a second fixed-weight arm
    of the same algorithm; thin dotted horizontals: the arm's closed-form eta -> 0 limit;
    thick dotted: the closed-form gap c^2 ||D||^2 at each eta of a tied arm). A gap that stays
    as eta shrinks is a bias; one that falls with eta is not. Exact zeros (FedDRO) go on the
    marked floor, with their own legend entry."""
    arms = data["arms"]
    values = [g for a in arms.values() for g in a["gaps"] + (a["law"] or [])
              if g >= S.EXACT_ZERO] + [a["limit"] for a in arms.values()
                                        if a["limit"] is not None and a["limit"] >= S.EXACT_ZERO]
    floor = 10 ** np.floor(np.log10(min(values))) / 10 if values else 1e-8
    fig, ax = plt.subplots(figsize=(10.5, 4.8))
    any_zero, fixed_seen = False, set()
    for label, a in arms.items():
        colour, tied = S.colour(a["algorithm"]), a["law"] is not None
        # a second fixed-weight arm of the same algorithm: dashed, hollow markers
        again = not tied and a["algorithm"] in fixed_seen
        if not tied:
            fixed_seen.add(a["algorithm"])
        (x, y), zeros = S.split_zeros(data["etas"], a["gaps"])
        if x:
            # a second fixed arm also gets its own marker: "+" has no face to leave hollow
            ax.loglog(x, y, marker="x" if again else S.marker(a["algorithm"]), ms=5, lw=1.3,
                      color=colour, linestyle="-." if tied else "--" if again else "-",
                      mfc="none" if again else colour, label=label)
        if zeros:
            S.zero_floor(ax, zeros, a["algorithm"], floor)
            ax.plot([], [], linestyle="none", marker="v", color=colour, mfc="none",
                    label=f"{label}: exactly 0")
            any_zero = True
        if a["limit"] is not None and a["limit"] >= S.EXACT_ZERO:
            ax.axhline(a["limit"], color=colour, ls=":", lw=0.9)
        if tied:
            ax.loglog(data["etas"], a["law"], color=colour, ls=":", lw=2.2, alpha=0.6,
                      label=f"{label}: closed form c^2 ||D||^2")
    if any_zero:
        S.floor_line(ax, floor)
    ax.set_xlabel(r"step size $\eta$")
    ax.set_ylabel(r"$\|\nabla\Phi\|^2$ at the run's limit")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    head = "\n".join(textwrap.wrap(title, 110) + textwrap.wrap(data["instance"], 110))
    ax.set_title(f"{head}\nthin dotted lines: each fixed arm's closed-form eta -> 0 limit; "
                 f"dash-dotted: inner weight tied to eta", fontsize=8)
    S.tight_layout(fig)
    return fig
