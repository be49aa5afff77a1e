"""Constants figure: per constant, the claimed bound against the exact (or certified) supremum
and the largest value observed, on one log axis (``fedcomp verify`` adds the verdict). Drawn
from the rows a constant check judged (``Verdict.bound`` of
:func:`fedcomp.rates.verdict.bound_constant_verdict`; this module computes nothing)."""
from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np

from fedcomp.figures import style as S


def constants_figure(rows: list[dict], title: str):
    """rows: dicts with "name", "claimed", "supremum", "supremum_exact" (bool) and optionally
    "observed_max" and "verdict" (the row's own, which colours the claimed bound; without it, a
    bound below the supremum is drawn as refuted). A claimed bound left of the supremum is
    refuted; far right of it, loose. Values below :data:`~fedcomp.figures.style.EXACT_ZERO` (a
    zero or negative bound) go on a marked floor, never on the log axis as data."""
    fig, ax = plt.subplots(figsize=(7.5, 0.5 * len(rows) + 2.6))
    y = np.arange(len(rows))[::-1]
    values = [r[k] for r in rows for k in ("claimed", "supremum", "observed_max")
              if r.get(k) is not None and r[k] >= S.EXACT_ZERO]
    floor = min(values) / 10 if values else 1.0
    zeros = []
    for yi, r in zip(y, rows):
        first = yi == y[0]
        sup = r["supremum"]
        ok = r["claimed"] >= sup * (1 - 1e-9)
        colour = S.VERDICT_COLOURS[r.get("verdict") or ("pass" if ok else "fail")]
        for key, style, kw, label in (
                ("supremum", "s", {"color": "k", "mfc": "k" if r["supremum_exact"] else "none"},
                 "supremum (filled: exact or certified; open: largest value found)"),
                ("observed_max", "x", {"color": "0.4"}, "largest value found"),
                ("claimed", "D", {"color": colour}, "claimed bound (coloured by its verdict)")):
            v = r.get(key)
            if v is None:
                continue
            if v < S.EXACT_ZERO:
                zeros.append(yi)
                continue
            ax.plot([v], [yi], style, label=label if first else None, **kw)
        if sup >= S.EXACT_ZERO and r["claimed"] >= S.EXACT_ZERO:
            ax.annotate(f"x{r['claimed'] / sup:.3g}", (r["claimed"], yi),
                        textcoords="offset points", xytext=(6, 4), fontsize=7)
    if zeros:
        ax.plot([floor] * len(zeros), zeros, "v", color="0.3", mfc="none", ls="none",
                label="0 or below (marked floor)", gid=S.ZERO_GID)
    ax.set_yticks(y, ["\n".join(textwrap.wrap(r["name"], 38)) for r in rows], fontsize=7)
    ax.set_ylim(y.min() - 0.7, y.max() + 0.7)
    ax.set_xscale("log")
    ax.margins(x=0.12)                   # room for the ratio annotated right of a bound
    ax.set_xlabel("value of the constant (claimed bound / supremum annotated)")
    ax.set_ylabel("case")
    ax.set_title("\n".join(textwrap.wrap(title, 80)), fontsize=9)
    ax.grid(True, axis="x", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", fontsize=7, frameon=False)
    S.tight_layout(fig, rect=(0, 0.17 * len(labels) / fig.get_size_inches()[1], 1, 1))
    return fig
