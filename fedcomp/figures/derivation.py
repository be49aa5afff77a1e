"""Derived against printed: the exact comparisons a claim was judged on (a constant, a
coefficient, an expression of the paper against fedcomp's derivation), drawn as the ratio
printed / derived, one row per compared quantity, on one log axis (1 = equal). A number gives a
point; an expression gives the range of the ratio over 64 random positive values of its symbols
(log-uniform in [0.1, 10]; the median as a point), so a constant printed twice too large reads as
a point at 2 and a wrong power of a parameter as a wide bar. A yes/no statement (a boolean) has
no ratio: its row says what was printed and what was found, with a round marker at 1 when they
agree and a cross when they do not. Rows are coloured by their own verdict. Computes only the evaluations it draws (from the rows
:func:`fedcomp.rates.verdict.recording_comparisons` collected)."""
from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np

from fedcomp.figures import style as S

SAMPLES = 64


def ratios(row: dict, samples: int = SAMPLES, seed: int = 0) -> np.ndarray:
    """printed / derived for one comparison row: one value for numbers, `samples` values at
    random positive symbol values for expressions; non-finite ratios (a zero derived value, a
    pole) are dropped, and an expression that is not numeric (an unevaluated derivative) gives
    none."""
    m, p = row["measured"], row["predicted"]
    if _is_boolean(row):
        return np.array([])
    if isinstance(m, (int, float)) and isinstance(p, (int, float)):
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.array([p / m]) if m != 0 else np.array([np.nan])
    else:
        import sympy as sp

        from fedcomp._formulas import parse_expression
        em = parse_expression(str(m), row["name"])
        ep = parse_expression(str(p), row["name"])
        syms = sorted(em.free_symbols | ep.free_symbols, key=str)
        rng = np.random.default_rng(seed)
        vals = np.exp(rng.uniform(np.log(0.1), np.log(10.0), (samples, len(syms))))
        try:
            fm = sp.lambdify(syms, em, "numpy")
            fp = sp.lambdify(syms, ep, "numpy")
            with np.errstate(all="ignore"):
                a = np.broadcast_to(np.asarray(fm(*vals.T), dtype=complex), (samples,))
                b = np.broadcast_to(np.asarray(fp(*vals.T), dtype=complex), (samples,))
                r = (b / a)
        except Exception:   # an unevaluated derivative or function: no number to draw
            return np.array([])
        r = np.where(np.abs(r.imag) <= 1e-12 * np.abs(r.real), r.real, np.nan)
    r = np.asarray(r, dtype=float)
    return r[np.isfinite(r)]


def _is_boolean(row: dict) -> bool:
    return isinstance(row["measured"], bool) or isinstance(row["predicted"], bool)


def _yes(v) -> str:
    return "yes" if v else "no"


def derivation_figure(rows: list[dict], title: str):
    """rows: dicts with name, measured (derived), predicted (printed), verdict."""
    drawn = [(r, ratios(r)) for r in rows]
    fig, ax = plt.subplots(figsize=(7.5, 0.42 * len(drawn) + 2.4))
    y = np.arange(len(drawn))[::-1]
    shown = [v for _, rs in drawn for v in np.abs(rs) if v > 0]
    lo = min(shown + [1.0]) / 3
    hi = max(shown + [1.0]) * 3
    labels = []
    for yi, (r, rs) in zip(y, drawn):
        c = S.VERDICT_COLOURS[r["verdict"]]
        labels.append(textwrap.shorten(r["name"], 48, placeholder="..."))
        if _is_boolean(r):
            agree = bool(r["measured"]) == bool(r["predicted"])
            ax.plot([1.0], [yi], "o" if agree else "X", color=c, ms=8)
            ax.annotate(f"printed {_yes(r['predicted'])}, found {_yes(r['measured'])}",
                        (1.0, yi), xytext=(9, 0), textcoords="offset points", va="center",
                        fontsize=7, color=c)
            continue
        pos = rs[rs > 0]
        if not len(pos):
            # no positive ratio (derived zero, opposite signs, an unevaluated derivative):
            # said in text, never as data
            ax.text(lo * 1.1, yi, "no finite positive ratio (a zero, a sign, or not numeric)",
                    va="center", fontsize=7, color=c)
            continue
        spread = pos.max() / pos.min() - 1 > 1e-9   # not one value up to rounding
        if spread:
            ax.plot([pos.min(), pos.max()], [yi, yi], color=c, lw=4, alpha=0.45,
                    solid_capstyle="butt")
        ax.plot([np.median(pos)], [yi], "o", color=c, ms=6)
        text = (f"{pos.min():.3g} .. {pos.max():.3g}" if spread else f"{np.median(pos):.3g}")
        ax.annotate(text, (np.median(pos), yi), xytext=(0, 7), textcoords="offset points",
                    ha="center", fontsize=7, color=c)
    ax.axvline(1.0, color="k", lw=1, ls="--")
    ax.set_xscale("log")
    ax.set_xlim(lo, hi)
    from matplotlib.ticker import LogLocator, NullFormatter
    ax.xaxis.set_major_locator(LogLocator(base=10))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_ylim(-0.8, len(drawn) - 0.2)
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=7)
    booleans = [_is_boolean(r) for r, _ in drawn]
    if all(booleans):   # no ratio on the figure: the axis carries no scale
        ax.tick_params(axis="x", which="both", bottom=False, labelbottom=False)
        ax.set_xlabel("yes/no statements: o printed and found agree, x they differ")
    else:
        ax.set_xlabel("printed / derived (1 = equal; bar: range over random symbol values)"
                      + ("\nyes/no statements at 1: o agree, x differ" if any(booleans) else ""))
    ax.set_ylabel("compared quantity")
    ax.set_title(textwrap.fill(title, 70), fontsize=9)
    ax.grid(alpha=0.3, axis="x")
    S.tight_layout(fig)
    return fig
