"""DRO reformulations of the five papers, derived symbolically and checked numerically.

Every reformulation a paper prints ("the min-max problem equals this compositional problem") is
treated as a claim. For each one this module

* derives the inner maximiser with sympy from the Lagrangian / KKT conditions (for a general
  number of weights ``m``, by reducing sums over coordinates to power sums),
* solves the inner maximisation numerically over the simplex, with :func:`scipy.optimize.minimize`
  (SLSQP; chi-square) or entropic mirror ascent in log space (KL, whose optimal weights
  exp(-(l_max - l_i)/lambda) leave the float range of p when l/lambda is spread), and certifies
  the numerical optimum by the Frank-Wolfe duality gap
  ``max_j grad_j - <grad, p>`` (an upper bound on ``value* - value(p)`` for a concave objective
  on the simplex),
* compares values and maximisers with the closed form and with the formula as printed.

Reformulations covered (notation: losses l_1..l_m, regularisation lambda > 0, simplex P_m)

KL (FedDRO (3)-(4); ComFedL (4)-(5), (14)-(15) = Lemma 1)
    max_{p in P_m} sum p_i l_i - lambda sum p_i log(m p_i) = lambda log((1/m) sum exp(l_i/lambda)),
    maximiser p = softmax(l / lambda). FedDRO (4) prints log((1/m) sum exp(l/lambda)) *without*
    the factor lambda: a positive rescaling by 1/lambda for fixed lambda (same minimisers and
    stationary points; gradients, smoothness constants and the epsilon of epsilon-stationarity
    scale by 1/lambda, 1/lambda and 1/lambda^2). ComFedL applies the identity with clients as the
    "samples" (client-level weights r over n clients, client losses f^i(w) = E l_i(w; xi)), so
    there the composition is exp of an expectation (local to each client), whereas FedDRO's g is a
    mean of exp(loss) over samples. ComFedL (6) (and (10) for DAMAML) drops the monotone
    gamma log(.): same minimisers and stationary points, different gradient scale.
    Finding: the derivative printed in ComFedL (conference) (18), ``-gamma/n``, is wrong: the
    derivative of gamma r_i log(n r_i) is gamma (log(n r_i) + 1); the constant is absorbed into
    the multiplier, so Lemma 1's conclusion (24) still holds. The journal version (15) prints the
    correct ``-gamma``. Finding: the journal's (6) defines g(.) = exp(./gamma) and applies it to
    f^i/gamma, i.e. exp(f^i/gamma^2): read literally, that is the KL-DRO with regularisation
    gamma^2, not gamma (:func:`comfedl_journal_eq6_discrepancy`).
    Finding: ComFedL (8) defines the simplex Delta_n with sum p_i = 0 (both versions); it must be 1.

chi-square (FedDRO (3), (5))
    max_{p in P_m} sum p_i l_i - lambda (m/2) sum (p_i - 1/m)^2.
    Stationarity gives p_i = 1/m + (l_i - nu)/(lambda m), and sum p_i = 1 gives nu = mean(l):
    the unconstrained maximiser p_i = 1/m + (l_i - mean l)/(lambda m), value
    mean(l) + Var(l)/(2 lambda) with Var the population variance. This is the simplex maximiser
    only when every p_i >= 0, i.e. min_i l_i >= mean(l) - lambda. Otherwise the maximiser is the
    Euclidean projection of l/(lambda m) onto the simplex (water-filling:
    p_i = max(0, (l_i - tau)/(lambda m)) with tau fixed by sum p_i = 1), and the closed form
    overestimates the value (:func:`chi2_report`).
    Finding: FedDRO (5) as printed, -(1/(2 lambda m)) sum l_i^2 + (1/(2 lambda)) mean(l)^2, equals
    -Var(l)/(2 lambda): it lacks the mean loss and has the wrong sign on the variance. It equals
    mean(l) - value, so minimising it maximises the variance of the losses and is unbounded below
    whenever the losses can be spread. The correct reformulation (where the maximiser is interior)
    is Phi = mean(l) + Var(l)/(2 lambda): g = mean(l), f(y) = -y^2/(2 lambda),
    h = (1/m) sum (l_i + l_i^2/(2 lambda)); the paper's reading g = mean(l), f = g^2/(2 lambda),
    h = -(1/(2 lambda m)) sum l^2 reproduces its (wrong) printed objective exactly.

FL restatement (FedDRO: "(4) and (5) can be restated in the FL setting of (2)")
    With g = (1/K) sum_k g_k and g_k the mean over client k's m_k samples, the CO forms are the
    DRO values for the reference distribution q_i = 1/(K m_k) (KL: lam log sum q_i
    exp(l_i/lam); chi-square w.r.t. q: E_q l + Var_q(l)/(2 lam) while interior), i.e. problem (3)
    only when all clients hold the same number of samples (:func:`federated_restatement`).

AUC min-max (Zhang et al. (1), from Ying et al. 2016)
    For scores h on data with positive fraction p_hat and the prior p of (1):
    min_{a, b} max_alpha E[L_AUC] has the closed-form saddle point a = E[h | +], b = E[h | -],
    alpha = E[h | -] - E[h | +] and value p(1-p) (E[(1 - h+ + h-)^2] - 1) (h+, h- independent
    positive and negative scores), i.e. the square-loss AUC surrogate up to the factor p(1-p) and
    the constant -p(1-p), *provided p equals the positive fraction p_hat of the data*. With
    p != p_hat the closed form changes (the weights no longer cancel) and the equivalence with the
    square AUC loss is lost (:func:`auc_report`). L_AUC is 2p(1-p)-strongly concave in alpha.
    Zhang (2) writes the cross-entropy step w - rho grad L_CE(w; a, b) on the same sample as
    the AUC loss, while the federated problem (4) samples the inner map and the outer loss
    independently (the step uses the expected CE gradient); the two objectives differ when
    rho > 0 (:func:`auc_composition_gap`).

References
----------
Khanduri et al., On Federated Compositional Optimization (TMLR), section 2.1, (3)-(5).
Huang, Li, Huang, Compositional Federated Learning (arXiv 2106.11264), (4)-(6), (8)-(10),
Lemma 1 (appendix A); journal version (4)-(6), Lemma 1 (section 4.1).
Zhang et al., Federated Compositional Deep AUC Maximization (NeurIPS 2023), (1)-(2).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
import sympy as sp
from scipy import optimize, special

from fedcomp import _validate as V

__all__ = [
    "kl_objective", "kl_value", "kl_maximizer", "feddro_eq4_printed",
    "chi2_objective", "chi2_value", "chi2_maximizer", "chi2_unconstrained_maximizer",
    "chi2_unconstrained_value", "chi2_closed_form_exact", "feddro_eq5_printed",
    "feddro_eq5_parts_printed", "chi2_corrected_parts", "solve_simplex_max",
    "mirror_ascent_simplex", "derive_kl", "derive_chi2", "derive_auc", "kl_report", "chi2_report", "auc_report",
    "comfedl_journal_eq6_discrepancy", "auc_composition_gap", "auc_federated_gap",
    "federated_weights",
    "kl_value_ref", "chi2_value_ref", "federated_restatement", "dro_report",
]


# --------------------------------------------------------------------------------------------
# input checking

def _losses(losses) -> np.ndarray:
    arr = V.finite_array("losses", losses, ndim=1)
    if arr.size < 1:
        raise ValueError("losses must contain at least one value")
    return arr


def _lam(lam) -> float:
    return V.real_in("lam", lam, 0.0, math.inf)


def _simplex_point(p, m: int) -> np.ndarray:
    arr = V.finite_array("p", p, shape=(m,))
    if np.any(arr < -1e-12) or abs(arr.sum() - 1.0) > 1e-9:
        raise ValueError("p must lie in the probability simplex (p_i >= 0, sum p_i = 1)")
    return np.clip(arr, 0.0, None)


# --------------------------------------------------------------------------------------------
# KL

def kl_objective(p, losses, lam) -> float:
    """sum p_i l_i - lam * sum p_i log(m p_i) (0 log 0 = 0), the inner objective of (3) with KL."""
    l = _losses(losses)
    lam = _lam(lam)
    p = _simplex_point(p, l.size)
    return float(p @ l - lam * np.sum(special.xlogy(p, l.size * p)))


def kl_value(losses, lam) -> float:
    """lam * log((1/m) sum exp(l_i/lam)), computed stably with logsumexp."""
    l = _losses(losses)
    lam = _lam(lam)
    return float(lam * (special.logsumexp(l / lam) - math.log(l.size)))


def kl_maximizer(losses, lam) -> np.ndarray:
    """softmax(l / lam): the unique maximiser over the simplex (interior, strictly concave)."""
    l = _losses(losses)
    return special.softmax(l / _lam(lam))


def feddro_eq4_printed(losses, lam) -> float:
    """FedDRO (4) exactly as printed: log((1/m) sum exp(l_i/lam)) (no factor lam)."""
    l = _losses(losses)
    lam = _lam(lam)
    return float(special.logsumexp(l / lam) - math.log(l.size))


# --------------------------------------------------------------------------------------------
# chi-square

def chi2_objective(p, losses, lam) -> float:
    """sum p_i l_i - lam * (m/2) sum (p_i - 1/m)^2, the inner objective of (3) with FedDRO's D_chi2."""
    l = _losses(losses)
    lam = _lam(lam)
    m = l.size
    p = _simplex_point(p, m)
    return float(p @ l - lam * 0.5 * m * np.sum((p - 1.0 / m) ** 2))


def _project_simplex(v: np.ndarray) -> tuple[np.ndarray, float]:
    """Euclidean projection onto the simplex (sort-based water-filling); returns (p, tau) with
    p = max(v - tau, 0)."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u)
    k = np.arange(1, v.size + 1)
    cond = u - (css - 1.0) / k > 0
    r = k[cond][-1]
    tau = (css[r - 1] - 1.0) / r
    return np.maximum(v - tau, 0.0), float(tau)


def chi2_maximizer(losses, lam) -> np.ndarray:
    """The simplex-constrained maximiser: the projection of l/(lam m) onto the simplex.

    Completing the square, the objective is -(lam m/2) ||p - 1/m - l/(lam m)||^2 + const, and a
    common shift of all coordinates does not change the projection onto {sum p = 1}."""
    l = _losses(losses)
    lam = _lam(lam)
    p, _ = _project_simplex(l / (lam * l.size))
    return p


def chi2_value(losses, lam) -> float:
    """The exact value of the inner maximisation (the min-max objective of (3) for these losses)."""
    return chi2_objective(chi2_maximizer(losses, lam), losses, lam)


def chi2_unconstrained_maximizer(losses, lam) -> np.ndarray:
    """p_i = 1/m + (l_i - mean l)/(lam m): the KKT point of the equality-constrained problem
    (may have negative entries)."""
    l = _losses(losses)
    lam = _lam(lam)
    m = l.size
    return 1.0 / m + (l - l.mean()) / (lam * m)


def chi2_unconstrained_value(losses, lam) -> float:
    """mean(l) + Var(l)/(2 lam) (population variance): the value at the unconstrained maximiser."""
    l = _losses(losses)
    lam = _lam(lam)
    return float(l.mean() + l.var() / (2.0 * lam))


def chi2_closed_form_exact(losses, lam) -> bool:
    """True when the unconstrained maximiser lies in the simplex: min l >= mean l - lam."""
    l = _losses(losses)
    lam = _lam(lam)
    return bool(l.min() >= l.mean() - lam)


def feddro_eq5_printed(losses, lam) -> float:
    """FedDRO (5) exactly as printed: -(1/(2 lam m)) sum l^2 + (1/(2 lam)) (mean l)^2."""
    l = _losses(losses)
    lam = _lam(lam)
    return float(-np.sum(l ** 2) / (2 * lam * l.size) + l.mean() ** 2 / (2 * lam))


def feddro_eq5_parts_printed(losses, lam) -> dict:
    """The g, f(g), h the paper reads off (5): g = mean l, f(g) = g^2/(2 lam),
    h = -(1/(2 lam m)) sum l^2."""
    l = _losses(losses)
    lam = _lam(lam)
    g = float(l.mean())
    return {"g": g, "f_of_g": g * g / (2 * lam), "h": float(-np.sum(l ** 2) / (2 * lam * l.size))}


def chi2_corrected_parts(losses, lam) -> dict:
    """The correct decomposition where the maximiser is interior: g = mean l,
    f(y) = -y^2/(2 lam), h = (1/m) sum (l_i + l_i^2/(2 lam))."""
    l = _losses(losses)
    lam = _lam(lam)
    g = float(l.mean())
    return {"g": g, "f_of_g": -g * g / (2 * lam),
            "h": float(np.mean(l + l ** 2 / (2 * lam)))}


# --------------------------------------------------------------------------------------------
# numerical inner maximisation over the simplex, certified by the Frank-Wolfe gap

@dataclass
class SimplexMax:
    """Result of :func:`solve_simplex_max`: the maximiser found, its value, and the Frank-Wolfe
    gap, a proven upper bound on (true maximum - value) for a concave objective."""
    p: np.ndarray
    value: float
    fw_gap: float
    success: bool
    message: str


def solve_simplex_max(objective, gradient, m: int, x0=None, floor: float = 0.0) -> SimplexMax:
    """Maximise a concave function over the probability simplex with SLSQP.

    Parameters
    ----------
    objective, gradient : callables of p (m,)
    m : int >= 1
    x0 : start point (default uniform)
    floor : lower bound on each coordinate used by the solver (the KL objective's gradient is
        infinite at p_i = 0; its maximiser is interior).

    Returns
    -------
    SimplexMax
    """
    m = V.positive_int("m", m)
    x0 = np.full(m, 1.0 / m) if x0 is None else np.asarray(x0, float)
    res = optimize.minimize(
        lambda p: -objective(p), x0, jac=lambda p: -gradient(p), method="SLSQP",
        bounds=[(floor, 1.0)] * m,
        constraints=[{"type": "eq", "fun": lambda p: np.sum(p) - 1.0,
                      "jac": lambda p: np.ones_like(p)}],
        options={"ftol": 1e-15, "maxiter": 1000})
    p = np.clip(res.x, 0.0, None)
    p = p / p.sum()
    gr = gradient(np.maximum(p, floor) if floor > 0 else p)
    gap = float(np.max(gr) - gr @ p)
    return SimplexMax(p, float(objective(p)), max(gap, 0.0), bool(res.success), str(res.message))


def _logsumexp(v: np.ndarray) -> float:
    """scipy.special.logsumexp of a finite 1-d array, bit for bit (scipy's own algorithm: every
    maximal entry taken out of the sum, log1p of the rest over their count), without the
    array-API dispatch that made it most of the cost of the mirror ascent's iterations."""
    mx = v.max()
    top = v == mx
    n = np.sum(top, dtype=v.dtype)
    s = np.sum(np.exp(np.where(top, -np.inf, v - mx)))
    if s != 0:
        s = s / n
    return np.log1p(s) + np.log(n) + mx


def mirror_ascent_simplex(grad_from_logp, m: int, step: float, iters: int = 400):
    """Entropic mirror ascent (exponentiated gradient) on the simplex, run in log space so that
    weights far below the float range stay exact: log p <- log p + step * grad, renormalised.

    Parameters
    ----------
    grad_from_logp : callable (log p) -> gradient of the objective in p
    m : int >= 1
    step : float > 0
    iters : int >= 1

    Returns
    -------
    log_p : ndarray (m,)
    """
    m = V.positive_int("m", m)
    step = V.real_in("step", step, 0.0, math.inf)
    iters = V.positive_int("iters", iters)
    logp = np.full(m, -math.log(m))
    for _ in range(iters):
        logp = logp + step * grad_from_logp(logp)
        logp -= _logsumexp(logp)
    return logp


def _kl_numeric(l: np.ndarray, lam: float) -> SimplexMax:
    """Maximise the KL objective numerically without its closed form: entropic mirror ascent
    with step 0.5/lam (for this objective the iteration contracts log p by the factor
    1 - step*lam per step whatever the spread of l/lam), certified by the Frank-Wolfe gap.
    SLSQP in p cannot represent the optimal weights exp(-(l_max - l_i)/lam) once l/lam is
    spread, and the KL gradient is unbounded near p_i = 0, so a certificate must be computed
    from log p."""
    m = l.size

    def grad_logp(logp):
        return l - lam * (math.log(m) + logp + 1.0)

    logp = mirror_ascent_simplex(grad_logp, m, 0.5 / lam, iters=200)
    p = np.exp(logp)
    gr = grad_logp(logp)
    gap = max(float(np.max(gr) - gr @ p), 0.0)
    value = float(p @ l - lam * np.sum(p * (math.log(m) + logp)))
    return SimplexMax(p, value, gap, gap < 1e-8, "entropic mirror ascent, 200 iterations")


def _chi2_numeric(l: np.ndarray, lam: float) -> SimplexMax:
    """SLSQP on the chi-square objective, scaled by 1/(lam m) so that its Hessian is the
    identity (SLSQP's stopping test is on absolute changes), certified on the original scale."""
    m = l.size
    scale = 1.0 / (lam * m)

    def obj(p):
        return float(p @ l - lam * 0.5 * m * np.sum((p - 1.0 / m) ** 2))

    def grad(p):
        return l - lam * m * (p - 1.0 / m)

    r = solve_simplex_max(lambda p: scale * obj(p), lambda p: scale * grad(p), m)

    def certified(p):
        gr = grad(p)
        return max(float(np.max(gr) - gr @ p), 0.0)

    best_p, best_gap = r.p, certified(r.p)
    # Active-set polish: SLSQP stops at ~1e-6 accuracy; on the support it found, the KKT
    # conditions are linear (p_i = 1/m + (l_i - nu)/(lam m), sum p = 1). Keep the polished
    # point only if it is feasible and its Frank-Wolfe gap (the certificate) is smaller.
    support = r.p > 1e-9
    n_s = int(support.sum())
    if n_s:
        nu = (l[support].sum() + lam * (n_s - m)) / n_s
        q = np.zeros(m)
        q[support] = 1.0 / m + (l[support] - nu) / (lam * m)
        if np.all(q >= 0.0):
            q_gap = certified(q)
            if q_gap < best_gap:
                best_p, best_gap = q, q_gap
    return SimplexMax(best_p, obj(best_p), best_gap, r.success, r.message)


# --------------------------------------------------------------------------------------------
# symbolic derivations

@dataclass
class Derivation:
    """A symbolic derivation: the steps (as strings), whether the printed formula agrees, and
    the sympy expressions involved."""
    name: str
    steps: list
    holds: bool
    printed_matches: bool | None = None
    exprs: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"name": self.name, "steps": self.steps, "holds": self.holds,
                "printed_matches": self.printed_matches,
                "exprs": {k: str(v) for k, v in self.exprs.items()}}


def _power_sum(expr, li, m, sums):
    """Sum over i = 1..m of a polynomial in li: coefficient c_k of li^k contributes c_k S_k
    (S_0 = m). sums maps k -> symbol S_k."""
    poly = sp.Poly(sp.expand(expr), li)
    total = 0
    for (k,), c in poly.terms():
        total += c * (m if k == 0 else sums[k])
    return sp.simplify(total)


@functools.lru_cache(maxsize=None)
def derive_kl() -> Derivation:
    """KKT derivation of the KL inner maximiser for general m, plus a check of ComFedL's
    printed derivative (18)."""
    li, lam, nu, pi, m, S = sp.symbols("l_i lambda nu p_i m S", positive=True)
    steps = []
    lagr_i = pi * li - lam * pi * sp.log(m * pi) + nu * pi
    dL = sp.diff(lagr_i, pi)
    steps.append(f"d/dp_i [p_i l_i - lam p_i log(m p_i) + nu p_i] = {dL}")
    sol = sp.solve(sp.Eq(dL, 0), pi)
    assert len(sol) == 1
    p_star = sol[0]
    steps.append(f"stationary point p_i = {p_star}")
    # p_i = C exp(l_i/lam) with C independent of i; normalising gives C = 1/S, S = sum exp(l_j/lam)
    C = sp.simplify(p_star / sp.exp(li / lam))
    assert li not in C.free_symbols
    p_norm = sp.exp(li / lam) / S
    steps.append(f"p_i = {C} * exp(l_i/lam); sum_i p_i = 1 gives p_i = exp(l_i/lam)/S, "
                 "S = sum_j exp(l_j/lam)")
    hess = sp.diff(lagr_i, pi, 2)
    steps.append(f"d^2/dp_i^2 = {hess} < 0: strictly concave, the KKT point is the maximiser; "
                 "p_i > 0 so the constraints p_i >= 0 are inactive")
    # value: sum_i p_i (l_i - lam log(m p_i)); the bracket does not depend on i
    bracket = sp.simplify(sp.expand_log(li - lam * sp.log(m * p_norm), force=True))
    independent = li not in bracket.free_symbols
    steps.append(f"l_i - lam log(m p_i) = {bracket} (independent of i: {independent}); "
                 "times sum p_i = 1")
    closed = lam * sp.log(S / m)
    holds = independent and sp.simplify(sp.expand_log(bracket - closed, force=True)) == 0
    steps.append(f"value = {closed} = lam * log((1/m) sum exp(l_i/lam))")
    # ComFedL conference (18): d/dr_i [r_i f_i - gamma r_i log(n r_i)] printed as
    # f_i - gamma log(n r_i) - gamma/n (+ multiplier)
    g, n, ri, fi = sp.symbols("gamma n r_i f_i", positive=True)
    true_d = sp.diff(ri * fi - g * ri * sp.log(n * ri), ri)
    printed_conf = fi - g * sp.log(n * ri) - g / n
    printed_journal = fi - g * sp.log(n * ri) - g
    conf_ok = sp.simplify(true_d - printed_conf) == 0
    journal_ok = sp.simplify(true_d - printed_journal) == 0
    steps.append(f"ComFedL conference (18) prints {printed_conf}; the derivative is {true_d}: "
                 f"{'match' if conf_ok else 'MISMATCH (-gamma/n should be -gamma)'}; the "
                 "journal's (15) prints " + str(printed_journal) + f": {'match' if journal_ok else 'mismatch'}")
    steps.append("the constant is absorbed by the multiplier, so Lemma 1's value (24) holds either way")
    return Derivation("KL inner maximisation (FedDRO (4), ComFedL Lemma 1)", steps, bool(holds),
                      printed_matches=None,
                      exprs={"stationary_p": p_star, "maximiser": p_norm, "value": closed,
                             "comfedl_conf_eq18_correct": conf_ok,
                             "comfedl_journal_eq15_correct": journal_ok})


@functools.lru_cache(maxsize=None)
def derive_chi2() -> Derivation:
    """KKT derivation of the chi-square inner maximiser for general m (sums reduced to the power
    sums S1 = sum l_i, S2 = sum l_i^2), and comparison with FedDRO (5) as printed."""
    li, nu, pi = sp.symbols("l_i nu p_i", real=True)
    lam, m, S1, S2 = sp.symbols("lambda m S1 S2", positive=True)
    sums = {1: S1, 2: S2}
    steps = []
    lagr_i = pi * li - lam * m / 2 * (pi - 1 / m) ** 2 + nu * pi
    dL = sp.diff(lagr_i, pi)
    steps.append(f"d/dp_i [p_i l_i - lam (m/2)(p_i - 1/m)^2 + nu p_i] = {sp.expand(dL)}")
    p_nu = sp.solve(sp.Eq(dL, 0), pi)[0]
    steps.append(f"stationary point p_i = {sp.simplify(p_nu)}")
    nu_sol = sp.solve(sp.Eq(_power_sum(p_nu, li, m, sums), 1), nu)[0]
    steps.append(f"sum_i p_i = 1 gives nu = {sp.simplify(nu_sol)} (= -mean(l))")
    p_star = sp.simplify(p_nu.subs(nu, nu_sol))
    mean = S1 / m
    expected_p = 1 / m + (li - mean) / (lam * m)
    p_ok = sp.simplify(p_star - expected_p) == 0
    steps.append(f"p_i = {p_star} = 1/m + (l_i - mean l)/(lam m): {p_ok}")
    hess = sp.diff(lagr_i, pi, 2)
    steps.append(f"d^2/dp_i^2 = {hess} < 0: concave; the KKT point of the equality-constrained "
                 "problem is the simplex maximiser iff all p_i >= 0, i.e. l_i >= mean(l) - lam "
                 "for every i. Otherwise the maximiser is the projection of l/(lam m) onto the "
                 "simplex (water-filling).")
    obj_i = p_star * li - lam * m / 2 * (p_star - 1 / m) ** 2
    value = sp.simplify(_power_sum(obj_i, li, m, sums))
    var = S2 / m - mean ** 2
    expected_value = mean + var / (2 * lam)
    value_ok = sp.simplify(value - expected_value) == 0
    steps.append(f"value = {value} = mean(l) + Var(l)/(2 lam): {value_ok}")
    printed = -S2 / (2 * lam * m) + mean ** 2 / (2 * lam)
    printed_matches = sp.simplify(value - printed) == 0
    diff = sp.simplify(value - printed)
    steps.append(f"FedDRO (5) as printed = {sp.simplify(printed)} = -Var(l)/(2 lam): "
                 f"{sp.simplify(printed + var / (2 * lam)) == 0}")
    steps.append(f"value - printed (5) = {sp.factor(diff)} = mean(l) + Var(l)/lam; "
                 f"value + printed (5) = {sp.simplify(value + printed)} (= mean(l))")
    steps.append("printed (5) is NOT the min-max value: it lacks mean(l) and the variance term "
                 "has the wrong sign; correct: Phi = mean(l) + Var(l)/(2 lam), "
                 "g = mean l, f(y) = -y^2/(2 lam), h = (1/m) sum (l_i + l_i^2/(2 lam))")
    g_sym = sp.Symbol("g")
    corrected = (S1 / m + S2 / (2 * lam * m)) + (-(g_sym ** 2) / (2 * lam))
    corrected_ok = sp.simplify(corrected.subs(g_sym, mean) - expected_value) == 0
    steps.append(f"corrected h + f(g) equals the value: {corrected_ok}")
    return Derivation("chi-square inner maximisation (FedDRO (5))", steps,
                      bool(p_ok and value_ok and corrected_ok), bool(printed_matches),
                      exprs={"maximiser": p_star, "value": value, "printed_eq5": printed,
                             "value_minus_printed": diff})


@functools.lru_cache(maxsize=None)
def derive_auc() -> Derivation:
    """Closed-form saddle point of the expected AUC min-max loss (Zhang et al. (1)).

    With E[I+] = p_hat, E[h I+] = p_hat m+, E[h^2 I+] = p_hat s+ (and the same for the negative
    class with 1 - p_hat), E[L_AUC] is a quadratic in (a, b, alpha); solve the first-order
    conditions and compare with p(1-p)(E(1 - h+ + h-)^2 - 1)."""
    a, b, al = sp.symbols("a b alpha", real=True)
    p, ph = sp.symbols("p p_hat", positive=True)
    mp, mn = sp.symbols("m_pos m_neg", real=True)
    sp_, sn = sp.symbols("s_pos s_neg", positive=True)  # second moments E[h^2 | class]
    # E[(h - a)^2 I+] = p_hat (s+ - 2 a m+ + a^2)
    EL = ((1 - p) * ph * (sp_ - 2 * a * mp + a ** 2) - p * (1 - p) * al ** 2
          + p * (1 - ph) * (sn - 2 * b * mn + b ** 2)
          + 2 * (1 + al) * (p * (1 - ph) * mn - (1 - p) * ph * mp))
    steps = ["E[L_AUC] = (1-p) p_hat E+[(h-a)^2] + p (1-p_hat) E-[(h-b)^2] "
             "+ 2(1+alpha)(p (1-p_hat) m- - (1-p) p_hat m+) - p(1-p) alpha^2"]
    sol = sp.solve([sp.diff(EL, v) for v in (a, b, al)], [a, b, al], dict=True)[0]
    steps.append(f"first-order conditions: a = {sol[a]}, b = {sol[b]}, alpha = {sp.simplify(sol[al])}")
    steps.append(f"d2/da2 = {sp.diff(EL, a, 2)} > 0, d2/db2 = {sp.diff(EL, b, 2)} > 0, "
                 f"d2/dalpha2 = {sp.diff(EL, al, 2)} < 0: convex-concave and separable, so "
                 "min-max = max-min = the stationary value; strong concavity modulus 2p(1-p)")
    val = sp.simplify(EL.subs(sol))
    sq_auc = (sp_ - mp ** 2) + (sn - mn ** 2) + (1 - mp + mn) ** 2  # E(1 - h+ + h-)^2, indep.
    target = p * (1 - p) * (sq_auc - 1)
    matched = sp.simplify((val - target).subs(ph, p)) == 0
    steps.append(f"with p_hat = p: value - p(1-p)(E(1-h+ +h-)^2 - 1) = "
                 f"{sp.simplify((val - target).subs(ph, p))}")
    gap_general = sp.factor(sp.simplify(val - target))
    steps.append(f"general p_hat: value - p(1-p)(E(1-h+ +h-)^2 - 1) = {gap_general} "
                 "(nonzero for p_hat != p: the equivalence needs p = the positive fraction)")
    return Derivation("AUC min-max (Zhang (1)) = square-loss AUC", steps, bool(matched), None,
                      exprs={"a": sol[a], "b": sol[b], "alpha": sol[al], "value": val,
                             "target": target, "gap_general": gap_general})


# --------------------------------------------------------------------------------------------
# numerical reports

def kl_report(losses, lam) -> dict:
    """Compare the KL closed form, FedDRO (4) as printed and a certified numerical maximum."""
    l = _losses(losses)
    lam = _lam(lam)
    num = _kl_numeric(l, lam)
    closed = kl_value(l, lam)
    p_closed = kl_maximizer(l, lam)
    printed = feddro_eq4_printed(l, lam)
    m = l.size
    # SLSQP in p as a second, independent solver (reliable while l/lam is not spread far
    # enough for the optimal weights to drop below ~1e-14)
    slsqp = solve_simplex_max(
        lambda p: float(p @ l - lam * np.sum(special.xlogy(p, m * p))),
        lambda p: l - lam * (np.log(m * np.maximum(p, 1e-300)) + 1.0), m, floor=1e-14)
    return {
        "m": int(l.size), "lam": lam,
        "value_closed_form": closed,
        "value_at_closed_form_maximizer": kl_objective(p_closed, l, lam),
        "value_numerical": num.value,
        "fw_gap_numerical": num.fw_gap,
        "value_gap": closed - num.value,
        "value_slsqp": slsqp.value,
        "value_gap_slsqp": closed - slsqp.value,
        "maximizer_max_abs_diff": float(np.max(np.abs(num.p - p_closed))),
        "eq4_printed": printed,
        "eq4_printed_times_lam_minus_value": lam * printed - closed,
        "solver_success": num.success,
    }


def chi2_report(losses, lam) -> dict:
    """Compare, for given losses and lambda: the exact simplex value, the unconstrained closed
    form, FedDRO (5) as printed (and its g, f, h) and a certified numerical maximum."""
    l = _losses(losses)
    lam = _lam(lam)
    num = _chi2_numeric(l, lam)
    exact = chi2_value(l, lam)
    p_exact = chi2_maximizer(l, lam)
    unc = chi2_unconstrained_value(l, lam)
    printed = feddro_eq5_printed(l, lam)
    parts = feddro_eq5_parts_printed(l, lam)
    corr = chi2_corrected_parts(l, lam)
    p_unc = chi2_unconstrained_maximizer(l, lam)
    return {
        "m": int(l.size), "lam": lam,
        "closed_form_exact": chi2_closed_form_exact(l, lam),
        "min_unconstrained_p": float(p_unc.min()),
        "value_exact": exact,
        "value_numerical": num.value,
        "fw_gap_numerical": num.fw_gap,
        "value_gap_numerical": exact - num.value,
        "maximizer_max_abs_diff": float(np.max(np.abs(num.p - p_exact))),
        "support_size": int(np.count_nonzero(p_exact > 0)),
        "value_unconstrained_closed_form": unc,
        "closed_form_overestimate": unc - exact,
        "eq5_printed": printed,
        "eq5_printed_parts_sum": parts["h"] + parts["f_of_g"],
        "eq5_printed_minus_value": printed - exact,
        "corrected_parts_sum": corr["h"] + corr["f_of_g"],
        "solver_success": num.success,
    }


def _auc_closed(pos: np.ndarray, neg: np.ndarray, p: float) -> dict:
    n = pos.size + neg.size
    ph = pos.size / n
    a, b = pos.mean(), neg.mean()
    num = p * (1 - ph) * b - (1 - p) * ph * a
    alpha = num / (p * (1 - p))

    def EL(a_, b_, al_):
        return float((1 - p) * np.sum((pos - a_) ** 2) / n + p * np.sum((neg - b_) ** 2) / n
                     + 2 * (1 + al_) * (p * np.sum(neg) - (1 - p) * np.sum(pos)) / n
                     - p * (1 - p) * al_ ** 2)
    return {"a": a, "b": b, "alpha": alpha, "value": EL(a, b, alpha), "EL": EL, "p_hat": ph}


def auc_report(scores_pos, scores_neg, p=None) -> dict:
    """Empirical check of Zhang (1): min over (a, b), max over alpha of the sample-average
    L_AUC, solved numerically (scipy), against the closed form and the square-loss AUC
    surrogate p(1-p)(mean over pairs (1 - h+ + h-)^2 - 1). ``p`` defaults to the positive
    fraction of the sample."""
    pos = V.finite_array("scores_pos", scores_pos, ndim=1)
    neg = V.finite_array("scores_neg", scores_neg, ndim=1)
    if pos.size < 1 or neg.size < 1:
        raise ValueError("scores_pos and scores_neg must each contain at least one score")
    ph = pos.size / (pos.size + neg.size)
    p = ph if p is None else V.real_in("p", p, 0.0, 1.0)
    cf = _auc_closed(pos, neg, p)
    EL = cf["EL"]

    # max over alpha of a concave quadratic for each (a, b), then min over (a, b): solve the
    # inner problem with a scalar solver so that the check does not reuse the closed form
    def inner(ab):
        r = optimize.minimize_scalar(lambda al: -EL(ab[0], ab[1], al))
        return -r.fun

    res = optimize.minimize(inner, x0=np.array([0.0, 0.0]), method="BFGS",
                            options={"gtol": 1e-10})
    pairs = (1.0 - pos[:, None] + neg[None, :]) ** 2
    surrogate = p * (1 - p) * (pairs.mean() - 1.0)
    return {"p": p, "p_hat": ph,
            "value_closed_form": cf["value"], "value_numerical": float(res.fun),
            "a_closed": cf["a"], "b_closed": cf["b"], "alpha_closed": cf["alpha"],
            "a_numerical": float(res.x[0]), "b_numerical": float(res.x[1]),
            "square_auc_surrogate": float(surrogate),
            "closed_minus_surrogate": cf["value"] - float(surrogate)}


def comfedl_journal_eq6_discrepancy(centers=(0.0, 1.0, 4.0), gamma: float = 2.0) -> dict:
    """ComFedL journal (6) read literally: g(.) = exp(./gamma) applied to f^i/gamma, i.e.
    (1/n) sum exp(f^i/gamma^2). On f^i(w) = (w - c_i)^2 compare its minimiser with that of the
    KL-DRO value gamma log((1/n) sum exp(f^i/gamma)) (= the minimiser of (1/n) sum exp(f^i/gamma),
    the conference's (6))."""
    c = V.finite_array("centers", centers, ndim=1)
    gamma = V.real_in("gamma", gamma, 0.0, math.inf)

    def kl(w, reg):
        return reg * (special.logsumexp((w - c) ** 2 / reg) - math.log(c.size))

    lo, hi = float(c.min()), float(c.max())
    w_kl = optimize.minimize_scalar(lambda w: kl(w, gamma), bounds=(lo, hi), method="bounded",
                                    options={"xatol": 1e-12}).x
    w_conf6 = optimize.minimize_scalar(lambda w: np.mean(np.exp((w - c) ** 2 / gamma)),
                                       bounds=(lo, hi), method="bounded",
                                       options={"xatol": 1e-12}).x
    w_journal6 = optimize.minimize_scalar(lambda w: np.mean(np.exp((w - c) ** 2 / gamma ** 2)),
                                          bounds=(lo, hi), method="bounded",
                                          options={"xatol": 1e-12}).x
    return {"gamma": gamma, "argmin_kl_dro": float(w_kl), "argmin_conference_eq6": float(w_conf6),
            "argmin_journal_eq6_literal": float(w_journal6),
            "conference_matches": abs(w_kl - w_conf6) < 1e-6,
            "journal_matches": abs(w_kl - w_journal6) < 1e-6}


def federated_weights(client_sizes, reweighted: bool = False) -> np.ndarray:
    """Per-sample weights q_i = 1/(K m_k) that g = (1/K) sum_k g_k, g_k a client mean, puts on
    the samples of client k (sizes m_1..m_K); with `reweighted`, client k's terms are scaled by
    K m_k / m (m = sum m_k), which makes every weight 1/m."""
    sizes = V.finite_array("client_sizes", client_sizes, ndim=1)
    if np.any(sizes < 1) or np.any(sizes != np.round(sizes)):
        raise ValueError("client_sizes must be positive integers")
    K, m = sizes.size, float(sizes.sum())
    return np.concatenate([np.full(int(s), (1.0 / (K * s)) * (K * s / m if reweighted else 1.0))
                           for s in sizes])


def kl_value_ref(losses, lam, q) -> float:
    """max_p sum p_i l_i - lam KL(p || q) = lam log sum q_i exp(l_i/lam) (reference weights q)."""
    l = _losses(losses)
    q = _simplex_point(q, l.size)
    return float(_lam(lam) * special.logsumexp(l / lam, b=q))


def chi2_value_ref(losses, lam, q) -> float:
    """max_p sum p_i l_i - (lam/2) sum (p_i - q_i)^2/q_i over the simplex (chi-square w.r.t. q;
    q uniform gives FedDRO's D_chi2). Maximiser p_i = q_i max(0, 1 + (l_i - nu)/lam), nu by
    bisection so that sum p_i = 1."""
    l = _losses(losses)
    lam = _lam(lam)
    q = _simplex_point(q, l.size)

    def mass(nu):
        return float(np.sum(q * np.maximum(0.0, 1.0 + (l - nu) / lam)))

    lo, hi = l.min() - lam, l.max() + lam  # mass(lo) >= 1 >= mass(hi) = 0
    nu = optimize.brentq(lambda v: mass(v) - 1.0, lo, hi, xtol=1e-14, rtol=1e-15)
    p = q * np.maximum(0.0, 1.0 + (l - nu) / lam)
    p /= p.sum()
    return float(p @ l - 0.5 * lam * np.sum((p - q) ** 2 / q))


def federated_restatement(client_sizes=(5, 20, 75), lam: float = 4.0, seed: int = 0,
                          reweighted: bool = False) -> dict:
    """FedDRO: "(4) and (5) can be restated in the FL setting of (2)". With g = (1/K) sum_k g_k
    and g_k the mean over client k's m_k samples, the CO objectives are the DRO values with the
    reference distribution q_i = 1/(K m_k) instead of 1/m: equal to (3) iff all m_k are equal.
    Computes, on random losses in [0, 3], the FL CO forms, the q-reference DRO values and the
    uniform (problem (3)) values; the default lam = 4 keeps the chi-square maximisers interior
    (where the corrected closed form is exact). With `reweighted`, client k's g_k (and h_k)
    terms are scaled by K m_k / m (:func:`federated_weights`)."""
    sizes = np.asarray(client_sizes)
    q = federated_weights(sizes, reweighted)
    lam = _lam(lam)
    rng = np.random.default_rng(V.seed_value("seed", seed))
    l = rng.uniform(0.0, 2.0, q.size) + np.repeat(rng.uniform(0, 1, sizes.size), sizes)
    kl_fl = float(lam * np.log(np.sum(q * np.exp(l / lam))))       # f(g) with f = lam log
    chi_fl = float(np.sum(q * (l + l ** 2 / (2 * lam))) - (q @ l) ** 2 / (2 * lam))
    return {"client_sizes": sizes.tolist(), "lam": lam,
            "kl_fl_form": kl_fl, "kl_dro_reference_q": kl_value_ref(l, lam, q),
            "kl_dro_uniform": kl_value(l, lam),
            "chi2_fl_corrected_form": chi_fl, "chi2_dro_reference_q": chi2_value_ref(l, lam, q),
            "chi2_dro_uniform": chi2_value(l, lam)}


def _auc_composition_data(num_samples, dim, rho, positive_fraction, seed):
    n = V.positive_int("num_samples", num_samples, 4)
    d_ = V.positive_int("dim", dim)
    rho = V.real_in("rho", rho, 0.0, math.inf, low_open=False)
    pf = V.real_in("positive_fraction", positive_fraction, 0.0, 1.0)
    rng = np.random.default_rng(V.seed_value("seed", seed))
    n_pos = max(1, min(n - 1, int(round(pf * n))))
    y = np.r_[np.ones(n_pos), -np.ones(n - n_pos)]
    A = rng.standard_normal((n, d_)) + 0.8 * y[:, None] * rng.standard_normal(d_)[None, :]
    w = rng.standard_normal(d_)
    # per-sample logistic CE gradient: -y a sigmoid(-y w.a)
    grad_i = -(y * special.expit(-y * (A @ w)))[:, None] * A
    return rho, y, A, w, grad_i


def auc_composition_gap(num_samples: int = 200, dim: int = 5, rho: float = 0.5,
                        positive_fraction: float = 0.2, seed: int = 0) -> dict:
    """Zhang (2) ties the cross-entropy step w - rho grad L_CE(w; a, b) to the same sample
    (a, b) as the AUC loss; the federated problem (4) has g^(k) = E_xi[x - rho Delta(x; xi)] and
    f^(k) = E_zeta[L_AUC(.; zeta)] with independent samples, i.e. the step uses the *expected*
    CE gradient. For a linear scorer h(w; a) = w.a with logistic CE, compare the min-max AUC
    value (closed form in a, b, alpha) of the coupled per-sample reading of (2) with that of the
    decoupled reading of (3)-(4), at a random w."""
    rho, y, A, w, grad_i = _auc_composition_data(num_samples, dim, rho, positive_fraction, seed)
    coupled = np.einsum("ij,ij->i", A, w[None, :] - rho * grad_i)
    decoupled = A @ (w - rho * grad_i.mean(axis=0))
    ph = float(np.mean(y > 0))
    v_c = _auc_closed(coupled[y > 0], coupled[y < 0], ph)["value"]
    v_d = _auc_closed(decoupled[y > 0], decoupled[y < 0], ph)["value"]
    return {"rho": rho, "value_coupled_per_sample": float(v_c),
            "value_decoupled_expected_step": float(v_d), "difference": float(v_c - v_d)}


def auc_federated_gap(num_clients: int = 4, num_samples: int = 200, dim: int = 5,
                      rho: float = 0.5, positive_fraction: float = 0.2, seed: int = 0) -> dict:
    """Zhang (2) read with the expected CE step (Yuan et al.'s compositional AUC) against its
    federated form (4): the samples of :func:`auc_composition_gap` dealt round-robin to
    `num_clients` clients of equal size, g^(k)(x) = x - rho grad L_CE^(k)(x) on client k's rows,
    f^(k) the AUC loss (1) on client k's rows with the global positive fraction p; the value
    min_{a,b} max_alpha (1/K) sum_k f^(k)(gbar(x), (a, b, alpha)) is solved numerically (scipy,
    not the closed form) and compared with the closed-form value of (2) with the expected step."""
    Kc = V.positive_int("num_clients", num_clients)
    rho, y, A, w, grad_i = _auc_composition_data(num_samples, dim, rho, positive_fraction, seed)
    if y.size % Kc:
        raise ValueError(f"num_samples ({y.size}) must be a multiple of num_clients ({Kc}) so "
                         "that the clients hold equal shares")
    ph = float(np.mean(y > 0))
    decoupled = A @ (w - rho * grad_i.mean(axis=0))
    v_d = _auc_closed(decoupled[y > 0], decoupled[y < 0], ph)["value"]
    clients = [np.arange(k, y.size, Kc) for k in range(Kc)]
    gbar = w - rho * np.mean([grad_i[idx].mean(axis=0) for idx in clients], axis=0)
    scores = A @ gbar
    ELs = [_auc_closed(scores[idx][y[idx] > 0], scores[idx][y[idx] < 0], ph)["EL"]
           for idx in clients]

    def fed(a_, b_, al_):
        return float(np.mean([EL(a_, b_, al_) for EL in ELs]))

    def inner(ab):
        return -optimize.minimize_scalar(lambda al: -fed(ab[0], ab[1], al)).fun

    res = optimize.minimize(inner, x0=np.array([0.0, 0.0]), method="BFGS",
                            options={"gtol": 1e-10})
    return {"rho": rho, "num_clients": Kc, "value_expected_step": float(v_d),
            "value_federated_numerical": float(res.fun),
            "difference": float(res.fun - v_d)}


# --------------------------------------------------------------------------------------------
# the full report (CLI) and the claim checks

def _examples():
    rng = np.random.default_rng(20240601)
    return {
        "random_small_spread": (rng.uniform(0.0, 1.0, 8), 2.0),
        "random_large_spread": (rng.uniform(0.0, 5.0, 8), 0.5),
        "one_outlier": (np.array([0.1, 0.2, 0.15, 0.3, 3.0]), 1.0),
    }


def dro_report(losses=None, lam=None) -> dict:
    """Everything `fedcomp theory dro` prints: the symbolic derivations and the numerical
    comparisons (on the given losses, or on three built-in examples)."""
    if losses is None:
        cases = _examples()
    else:
        cases = {"given": (_losses(losses), 1.0 if lam is None else _lam(lam))}
    out = {"derivations": [derive_kl().to_dict(), derive_chi2().to_dict(),
                           derive_auc().to_dict()],
           "kl": {}, "chi2": {}}
    for name, (l, lm) in cases.items():
        out["kl"][name] = kl_report(l, lm)
        out["chi2"][name] = chi2_report(l, lm)
    rng = np.random.default_rng(7)
    pos, neg = rng.normal(1.0, 1.0, 30), rng.normal(0.0, 1.0, 70)
    out["auc"] = {"p_equals_fraction": auc_report(pos, neg),
                  "p_differs": auc_report(pos, neg, p=0.5)}
    out["comfedl_journal_eq6"] = comfedl_journal_eq6_discrepancy()
    out["auc_composition"] = auc_composition_gap()
    return out


def _random_cases(profile: str, seed: int, spread: float, lam_low: float = 0.1):
    """Random (losses, lambda): m in [2, 12), losses uniform in [-spread, spread], lambda
    log-uniform in [lam_low, 10]."""
    rng = np.random.default_rng(seed)
    n = 20 if profile == "quick" else 200
    for _ in range(n):
        m = int(rng.integers(2, 12))
        lam = float(np.exp(rng.uniform(np.log(lam_low), np.log(10))))
        yield rng.uniform(-spread, spread, m), lam




def format_report(rep: dict) -> str:
    """Plain-text rendering of :func:`dro_report`."""
    lines = []
    for d in rep["derivations"]:
        lines.append(f"== {d['name']}: holds={d['holds']} printed_matches={d['printed_matches']}")
        lines += [f"   - {s}" for s in d["steps"]]
    for kind in ("kl", "chi2"):
        lines.append(f"== numerical {kind}")
        for name, r in rep[kind].items():
            lines.append(f"   [{name}] " + ", ".join(
                f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items()))
    lines.append("== AUC (Zhang (1))")
    for name, r in rep["auc"].items():
        lines.append(f"   [{name}] " + ", ".join(f"{k}={v:.6g}" for k, v in r.items()))
    lines.append("== AUC (2) per-sample CE step vs (4) expected CE step")
    lines.append("   " + ", ".join(f"{k}={v:.6g}" for k, v in rep["auc_composition"].items()))
    lines.append("== ComFedL journal (6) read literally")
    lines.append("   " + ", ".join(f"{k}={v}" for k, v in rep["comfedl_journal_eq6"].items()))
    return "\n".join(lines)


def _jsonable(obj):
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, (np.floating, np.integer, np.bool_)):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return obj


def report_json(rep: dict) -> dict:
    return _jsonable(rep)

