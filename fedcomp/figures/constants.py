"""Constants figure: per constant, the claimed bound against the exact (or certified) supremum
and the largest value observed, on one log axis (``fedcomp verify`` adds the verdict). Drawn
from the rows a constant check measured (this module computes nothing)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from fedcomp.figures import style as S


def constants_figure(rows: list[dict], title: str):
    """rows: dicts with "name", "claimed", "supremum", "supremum_exact" (bool) and optionally
    "observed_max". A claimed bound left of the supremum is refuted; far right of it, loose."""
    fig, ax = plt.subplots(figsize=(7, 0.55 * len(rows) + 1.6))
    y = np.arange(len(rows))[::-1]
    for yi, r in zip(y, rows):
        sup = r["supremum"]
        ax.plot([sup], [yi], "s", color="k", mfc="k" if r["supremum_exact"] else "none",
                label="exact / certified supremum" if yi == y[0] else None)
        if r.get("observed_max") is not None:
            ax.plot([r["observed_max"]], [yi], "x", color="0.4",
                    label="largest value found" if yi == y[0] else None)
        ok = r["claimed"] >= sup * (1 - 1e-9)
        ax.plot([r["claimed"]], [yi], "D", color=S.VERDICT_COLOURS["pass" if ok else "fail"],
                label="claimed bound" if yi == y[0] else None)
        ax.annotate(f"x{r['claimed'] / sup:.3g}" if sup > 0 else "", (r["claimed"], yi),
                    textcoords="offset points", xytext=(6, 4), fontsize=7)
    ax.set_yticks(y, [r["name"] for r in rows], fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("value (claimed bound / supremum ratio annotated)")
    ax.set_ylabel("constant")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    return fig
