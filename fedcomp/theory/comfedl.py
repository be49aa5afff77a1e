"""ComFedL's proof algebra (Huang, Li, Huang, arXiv 2106.11264, Appendix A), derived by sympy.

The checks of Lemmas 2-4 and of the constants of Theorems 1-2 compare the printed statements
with what is derived here from the proof's own steps:

Lemma 2 (local drift)
    w^i_{s,t} - wbar_s = -eta sum_{j<t} u^i_{s,j} with ||u|| <= G_g G_f (Assumption 2), so by the
    triangle inequality ||wbar_{s,t} - wbar_s|| <= t eta G_g G_f <= tau eta G_g G_f: the supremum
    of E||wbar_{s,t} - wbar_s||^2 over the problems satisfying the assumptions is
    tau^2 eta^2 G_g^2 G_f^2, attained by the linear instance of :func:`drift_instance`
    (every step moves by exactly eta G_g G_f in the same direction).

Lemmas 3-4 (estimator error)
    u - U is split into a telescoping sum of differences, each changing one argument of
    grad g_{B~}(f_B(w_{s,t}))^T grad f_B(w_{s,t}) on its way to grad g(f(wbar_s))^T grad f(wbar_s)
    (:func:`decomposition`): the outer sample B~ -> exact (general problem only), the Jacobian's
    point w_{s,t} -> wbar_s and its sample B -> exact, the inner value's point and sample. Each
    difference is bounded by Assumptions 1-3 (:data:`TERM_BOUNDS`) and ||sum_{j<=n} a_j||^2 <=
    n sum ||a_j||^2 (tight: equal aligned a_j) gives the coefficient n, the number of
    differences: 5 for the general problem, 4 for the special one. :func:`telescopes` checks a
    printed display: the conference's Lemma 3 display (30) lists four lines that leave one
    difference out.

Theorems 1-2 (constants)
    The per-step inequality (32): F(wbar_{s,t+1}) <= F(wbar_{s,t}) + eta G_f G_g sqrt(E||u - U||^2)
    + eta L G_f G_g sqrt(E||wbar_{s,t} - wbar_s||^2) - eta ||grad F(wbar_s)||^2
    + (L eta^2 / 2) G_f^2 G_g^2, with sqrt(sum) <= sum sqrt applied to the lemma's terms and
    telescoped over T = S tau steps (:func:`theorem_bound`).
"""
from __future__ import annotations

import functools

import numpy as np
import sympy as sp

from fedcomp import _validate as V

__all__ = ["SYMBOLS", "drift_bound", "drift_instance", "decomposition", "telescopes",
           "PRINTED_DISPLAYS", "TERM_BOUNDS", "lemma_bound", "theorem_bound", "jensen_ratio"]

G_f, G_g, L_f, L_g, L, sigma, tau, eta, b, b_1, T, Delta = sp.symbols(
    "G_f G_g L_f L_g L sigma tau eta b b_1 T Delta", positive=True)
SYMBOLS = {s.name: s for s in (G_f, G_g, L_f, L_g, L, sigma, tau, eta, b, b_1, T, Delta)}


def drift_bound() -> sp.Expr:
    """sup E||wbar_{s,t} - wbar_s||^2 over t <= tau (module docstring): (tau eta G_g G_f)^2."""
    return (tau * eta * G_g * G_f) ** 2


def drift_instance(tau_: int, eta_: float, gg: float, gf: float, clients: int = 3,
                   batch: int = 4, seed: int = 0) -> dict:
    """Algorithm 1, lines 6-14, replayed exactly on the 1-d linear instance f^i(w; xi) = G_f w + xi
    (xi ~ N(0, 1): value noise, Jacobian G_f exactly) and g(y) = G_g y, for `clients` clients:
    returns the largest ||wbar_{s,t} - wbar_s||^2 over t <= tau (every client's estimator is
    G_g G_f at every step, whatever the samples)."""
    tau_ = V.positive_int("tau", tau_)
    eta_ = V.real_in("eta", eta_, 0.0)
    gg = V.real_in("G_g", gg, 0.0)
    gf = V.real_in("G_f", gf, 0.0)
    rng = np.random.default_rng(V.seed_value("seed", seed))
    w0 = float(rng.normal())
    w = np.full(V.positive_int("clients", clients), w0)
    worst = 0.0
    for _ in range(tau_):
        xi = rng.normal(size=(w.size, V.positive_int("batch", batch)))
        f_b = np.mean(gf * w[:, None] + xi, axis=1)        # line 9: inner value (unused by g')
        jac = np.full(w.size, gf)                            # line 9: Jacobian of the batch
        u = gg * np.ones_like(f_b) * jac                     # line 10: grad g(f_B)^T grad f_B
        w = w - eta_ * u                                     # line 14
        worst = max(worst, float((w.mean() - w0) ** 2))
    return {"tau": tau_, "eta": eta_, "G_g": gg, "G_f": gf, "max_drift_sq": worst,
            "supremum": float((tau_ * eta_ * gg * gf) ** 2)}


# --- Lemmas 3-4: the telescoping decomposition -------------------------------------------------
# A product grad g_?(f_?(w_?))^T grad f_?(w_?) is a key (outer, value point, value sample,
# jacobian point, jacobian sample): outer "Bt" (sampled, B~) or "g"; points "st" (w_{s,t}) or
# "s" (wbar_s); samples "B" or "E" (exact).
ESTIMATOR = {"general": ("Bt", "st", "B", "st", "B"), "special": ("g", "st", "B", "st", "B")}
TARGET = ("g", "s", "E", "s", "E")
_ORDER = (3, 0, 4, 1, 2)   # the order of the paper's display: Jacobian point, outer sample,
#                           Jacobian sample, inner value point, inner value sample

# the bound of each difference by Assumptions 1-3, with D = E||w_{s,t} - wbar_s||^2
_D = sp.Symbol("D", positive=True)
TERM_BOUNDS = {
    0: G_f ** 2 * sigma ** 2 / b_1,        # (grad g_B~ - grad g)^T grad f_B: outer sampling
    1: G_f ** 4 * L_g ** 2 * _D,           # grad g(f_B(w_st)) - grad g(f_B(w_s)): L_g G_f ||dw||
    2: L_g ** 2 * G_f ** 2 * sigma ** 2 / b,   # grad g(f_B(w_s)) - grad g(f(w_s)): value sample
    3: G_g ** 2 * L_f ** 2 * _D,           # grad f_B(w_st) - grad f_B(w_s): Jacobian point
    4: G_g ** 2 * sigma ** 2 / b,          # grad f_B(w_s) - grad f(w_s): Jacobian sample
}


def _key_name(k) -> str:
    outer, vp, vs, jp, js = k
    g = "gBt" if outer == "Bt" else "g"
    return f"{g}_{vs}{vp}__f_{js}{jp}"


def decomposition(problem: str) -> list:
    """The telescoping lines (plus, minus) from the estimator to U, one argument changed per line
    in the paper's order (module docstring)."""
    if problem not in ESTIMATOR:
        raise ValueError(f"problem must be one of {sorted(ESTIMATOR)}, got {problem!r}")
    cur = list(ESTIMATOR[problem])
    lines = []
    for pos in _ORDER:
        if cur[pos] == TARGET[pos]:
            continue
        nxt = list(cur)
        nxt[pos] = TARGET[pos]
        lines.append((tuple(cur), tuple(nxt), pos))
        cur = nxt
    return lines


# The displays as printed (keys as above), transcribed from the paper's LaTeX.
PRINTED_DISPLAYS = {
    # conference (30): four lines; the third starts from grad g(f_B(w_st))^T grad f(wbar_s)
    "huang.lem3": [
        (("Bt", "st", "B", "st", "B"), ("Bt", "st", "B", "s", "B")),
        (("Bt", "st", "B", "s", "B"), ("g", "st", "B", "s", "B")),
        (("g", "st", "B", "s", "E"), ("g", "s", "B", "s", "E")),
        (("g", "s", "B", "s", "E"), ("g", "s", "E", "s", "E"))],
    # conference Lemma 4 (37): four lines
    "huang.lem4": [
        (("g", "st", "B", "st", "B"), ("g", "st", "B", "s", "B")),
        (("g", "st", "B", "s", "B"), ("g", "st", "B", "s", "E")),
        (("g", "st", "B", "s", "E"), ("g", "s", "B", "s", "E")),
        (("g", "s", "B", "s", "E"), ("g", "s", "E", "s", "E"))],
    # journal (25): five lines; the second line's subtrahend is grad g(f(w_st))^T grad f(wbar_s)
    # (exact value and Jacobian) where grad g(f_B(w_st))^T grad f_B(wbar_s) is needed
    "huang-journal.lem3": [
        (("Bt", "st", "B", "st", "B"), ("Bt", "st", "B", "s", "B")),
        (("Bt", "st", "B", "s", "B"), ("g", "st", "E", "s", "E")),
        (("g", "st", "B", "s", "B"), ("g", "st", "B", "s", "E")),
        (("g", "st", "B", "s", "E"), ("g", "s", "B", "s", "E")),
        (("g", "s", "B", "s", "E"), ("g", "s", "E", "s", "E"))],
}


def telescopes(lines, problem: str) -> dict:
    """Whether sum(plus - minus) over `lines` equals estimator - U (sympy, each product an
    atom); the left-over terms when it does not."""
    start, end = ESTIMATOR[problem], TARGET
    atom = functools.lru_cache(maxsize=None)(lambda k: sp.Symbol(_key_name(k)))
    total = sum((atom(p) - atom(m) for p, m, *_ in lines), sp.Integer(0))
    rest = sp.expand(total - (atom(start) - atom(end)))
    return {"telescopes": rest == 0, "left_over": str(rest), "lines": len(lines)}


def jensen_ratio(n: int) -> float:
    """||sum_{j<=n} a_j||^2 / sum ||a_j||^2 at equal aligned a_j (random direction): the value n
    that makes the Cauchy-Schwarz step ||sum a_j||^2 <= n sum ||a_j||^2 tight."""
    n = V.positive_int("n", n)
    a = np.random.default_rng(n).normal(size=3)
    vecs = np.tile(a, (n, 1))
    return float(np.sum(vecs.sum(axis=0) ** 2) / np.sum(vecs ** 2))


def lemma_bound(problem: str) -> dict:
    """Lemma 3 (general) / 4 (special) derived: n = number of differences, bound = n * sum of
    the differences' bounds with D = Lemma 2's drift."""
    lines = decomposition(problem)
    n = len(lines)
    terms = [TERM_BOUNDS[pos].subs(_D, drift_bound()) for _, _, pos in lines]
    bound = sp.expand(n * sum(terms))
    return {"coefficient": n, "terms": terms, "bound": bound,
            "telescopes": telescopes(lines, problem)["telescopes"]}


def theorem_bound(problem: str) -> dict:
    """Theorem 1 (general) / 2 (special) derived from the lemmas by the steps (32)-(34): returns
    the bound on (1/S) sum_s E||grad F(wbar_s)||^2 and the H it contains."""
    lem = lemma_bound(problem)
    n = lem["coefficient"]
    # sqrt(sum) <= sum sqrt, term by term (the drift terms first merged, as printed: n (G_g^2
    # L_f^2 + G_f^4 L_g^2) D)
    drift_terms = [t for t in lem["terms"] if t.has(tau)]
    noise_terms = [t for t in lem["terms"] if not t.has(tau)]
    sqrt_sum = sp.sqrt(n * sp.factor(sum(drift_terms))) + sum(sp.sqrt(n * t) for t in noise_terms)
    per_step = (eta * G_f * G_g * sqrt_sum + eta * L * G_f * G_g * sp.sqrt(drift_bound())
                + L * eta ** 2 / 2 * G_f ** 2 * G_g ** 2)
    # telescoping eta ||grad F(wbar_s)||^2 over the T = S tau steps, divided by T eta
    bound = Delta / (T * eta) + sp.simplify(per_step / eta)
    H = sp.sqrt(sp.factor(sum(drift_terms) / drift_bound()))
    return {"bound": sp.expand(bound), "H": H, "coefficient": n}
