"""Step sizes the theorems prescribe, computed from a problem's constants.

``schedule("feddro", c, T=..., K=...)`` returns the keyword arguments of
:func:`fedcomp.simulate` (``eta``, ``beta``, ``local_steps``, ``server_lr_x``, ...) that a
theorem prescribes for a horizon T and K clients, with the problem constants ``c`` (a
:class:`fedcomp.theory.constants.Constants`, or a dict with the names used below) in place of the
theorem's symbols. :func:`prescribe` returns the same as a :class:`Schedule` with the conditions
checked and the findings (a prescribed value outside its admissible range is reported, never
clipped); :func:`schedule_fn` binds the constants and returns a ``(T, K) -> dict`` callable, the
form :class:`fedcomp.rates.measure.Sweep` takes.

Theorems (FedDRO paper, Khanduri et al.; AUC paper, Zhang et al.)

``"feddro"`` -- Theorem 4.3
    eta = c_eta sqrt(K/T); beta = 4 B_g^4 L_f^2 eta (printed with its constant);
    I = max(1, round(c_I T^(1/4) / K^(3/4))); T >= T_th (T_th is defined in Appendix F, which the
    text we have does not contain). The algorithm needs beta in (0, 1]: beta <= 1 holds iff
    T >= 16 c_eta^2 B_g^8 L_f^4 K, so T_th is at least that (reported as ``T_min_beta``). For
    problems with B_g^4 L_f^2 > 1/(4 c_eta) sqrt(T/K) the printed beta exceeds 1: a finding.
``"ds-feddro"`` -- Theorem 5.2
    eta = c_eta / sqrt(I T); beta = c_beta eta; gamma_x = c_x sqrt(K/T) (``server_lr_x``);
    gamma_y = c_y gamma_x (``server_lr_y``); I = max(1, round(c_I sqrt(T/K))). The theorem says
    "for some constants c_beta, c_gamma_y" and hides the rest in O(.): all five are free.
    Reported: the total effective step sum_t gamma_x eta = T gamma_x eta, which equals
    c_eta c_x K^(3/4) / (sqrt(c_I) T^(1/4)) and so *decreases* with T (the model's total movement
    vanishes as T grows; see :mod:`fedcomp.rates.schedules` for the same observation).
``"fedavg-modified"`` -- Theorem 4.2
    "there exists a choice of eta" and 1 <= I <= O(T^(1/4)): eta = c_eta sqrt(K/T) (our choice,
    as Theorem 4.3) and I = max(1, round(c_I T^(1/4))).
``"localscgdam"`` -- AUC paper, Theorem 1 and Remark 1 (constants C_g, C_f, L_f, L_g, mu of its
    Assumptions 1-4, e.g. from :meth:`fedcomp.problems.AUCMinimax.auc_constants`)
    Every explicit condition of Theorem 1 is computed: gamma_y = its largest admissible value
    min{1/(6 L_f), 3 mu beta_y^2 / (400 L_f^2), 3 beta_x^2 / (16 mu)}, gamma_x = its largest
    admissible value min{alpha mu / (100 C_g^2 L_f sqrt(1 + 6 L_f^2)),
    beta_x / (32 sqrt(C_g^4 L_f^2 + C_f^2 L_g^2)), beta_y mu / (144 C_g^2 L_f^2),
    sqrt(alpha mu) / (24 C_g sqrt(100 C_g^2 L_f^4 + 2 C_g^2 mu^2)),
    gamma_y mu^2 / (20 C_g^2 L_f^2)},
    eta = min(c_eta sqrt(K/T), the cap min{1/(2 gamma_x L_Phi), 1/(10 p^2 gamma_y L_f), 1/alpha,
    1/beta_x, 1/beta_y, 1}) with L_Phi of Lemma 2, and p = max(1, round(c_I T^(1/4)/K^(3/4)))
    (Remark 1). alpha, beta_x, beta_y are free (default 1).

``"fcsg"``, ``"fcsg-m"``, ``"acc-fcsg-m"`` -- FCSG paper (Wu et al.), Corollaries 4.2, 4.5, 4.8
    (constant S_F, the smoothness of F, which the paper does not define; N clients = K), as
    printed: FCSG alpha = sqrt(N/T)/(6 S_F), q = max(1, round((T/N^3)^(1/4))); FCSG-M the same
    with Theorem 4.4's beta = 5 S_F alpha (its eta read as alpha); Acc-FCSG-M
    q = max(1, round((T/N^2)^(1/3))), alpha = N^(2/3)/(12 S_F T^(1/3)), beta = c alpha^2 =
    5 N^(1/3)/(24 b T^(2/3)) (c = 30 S_F^2/(b N), outer batch ``b``), initial batch
    B = max(1, round(T^(1/3)/N^(2/3))). Conditions: beta in (0, 1) (Section 4.2), and the
    unrounded q >= 1 (T >= N^3, resp. T >= N^2), reported.

Free constants (``c_eta``, ``c_I``, ...) default to 1; the O(.) of the theorems fixes only
orders, so these defaults are ours, not the paper's. Also reported for FedDRO, DS-FedDRO and
modified FedAvg: whether eta <= 1 / (c_L L_Phi) with L_Phi = ``L_phi_bound`` of Lemma 3.5, the
usual descent condition of smooth SGD analyses (c_L = 1 by default). The main text does not
print it (Appendix F is not in the text we have), so it is a *reported* condition and never makes
a schedule invalid.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from fedcomp import _validate as V

__all__ = ["Schedule", "ScheduleError", "ALGORITHMS", "ORDERS", "order", "prescribe",
           "schedule", "schedule_fn", "feddro_min_iterations"]

ALGORITHMS = ("feddro", "ds-feddro", "fedavg-modified", "localscgdam", "fcsg", "fcsg-m",
              "acc-fcsg-m")

#: The orders of the theorems' parameters in T and K (free constants left out): the one home of
#: "which schedule a theorem prescribes". The sympy derivations of the corollaries
#: (:mod:`fedcomp.theory.complexity`) substitute these; the measurements
#: (:mod:`fedcomp.rates.schedules`) multiply them by their free constants (a test pins that each
#: numeric schedule is a constant multiple of these orders).
ORDERS = {
    "feddro": {"eta": "sqrt(K/T)", "beta": "eta", "I": "T**(1/4)/K**(3/4)"},
    "ds-feddro": {"eta": "1/sqrt(I*T)", "beta": "eta", "gamma_x": "sqrt(K/T)",
                  "gamma_y": "gamma_x", "I": "sqrt(T/K)"},
    "fedavg-modified": {"eta": "sqrt(K/T)", "I": "T**(1/4)"},
}


def order(algorithm: str, name: str):
    """sympy expression of parameter `name` of `algorithm`'s theorem (see :data:`ORDERS`), in
    the positive symbols T, K (and I, eta where the theorem writes them so)."""
    import sympy as sp
    if algorithm not in ORDERS or name not in ORDERS[algorithm]:
        raise ValueError(f"no order for {algorithm!r} parameter {name!r}; known: "
                         f"{ {a: sorted(v) for a, v in ORDERS.items()} }")
    syms = {n: sp.Symbol(n, positive=True) for n in ("T", "K", "I", "eta", "gamma_x")}
    return sp.sympify(ORDERS[algorithm][name], locals=syms)


class ScheduleError(ValueError):
    """A prescribed value is outside its admissible range (e.g. beta > 1)."""


@dataclass
class Schedule:
    """A theorem's schedule at (T, K).

    Attributes
    ----------
    algorithm, theorem : str
    kwargs : dict
        Keyword arguments of :func:`fedcomp.simulate` (eta, local_steps and hyperparameters).
    valid : bool
        Every condition the theorem states holds (reported conditions excluded).
    conditions : list of dict
        name, value, requirement, holds, source ("theorem" or "reported").
    findings : list of str
        Human-readable statements of violated conditions and notable quantities.
    free : dict
        The free constants used.
    """
    algorithm: str
    theorem: str
    T: int
    K: int
    kwargs: dict
    valid: bool
    conditions: list = field(default_factory=list)
    findings: list = field(default_factory=list)
    free: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"algorithm": self.algorithm, "theorem": self.theorem, "T": self.T, "K": self.K,
                "kwargs": dict(self.kwargs), "valid": self.valid,
                "conditions": [dict(c) for c in self.conditions],
                "findings": list(self.findings), "free": dict(self.free)}

    def __str__(self) -> str:
        lines = [f"{self.algorithm} ({self.theorem}) at T={self.T}, K={self.K}: "
                 f"{'valid' if self.valid else 'INVALID'}"]
        lines += [f"  {k} = {v:.6g}" if isinstance(v, float) else f"  {k} = {v}"
                  for k, v in self.kwargs.items()]
        for c in self.conditions:
            lines.append(f"  [{'ok' if c['holds'] else 'VIOLATED'}] {c['name']}: "
                         f"{c['value']:.6g} {c['requirement']} ({c['source']})")
        lines += [f"  finding: {f}" for f in self.findings]
        return "\n".join(lines)


def _get(c, name: str) -> float:
    if isinstance(c, dict):
        if name not in c:
            raise ValueError(f"constants must provide {name!r} (got keys {sorted(c)})")
        v = c[name]
    else:
        if not hasattr(c, name):
            raise ValueError(f"constants must provide {name!r}")
        v = getattr(c, name)
    v = float(v)
    if not math.isfinite(v) or v < 0:
        raise ValueError(f"constant {name} must be a finite number >= 0, got {v}")
    return v


def _round_I(v: float) -> int:
    return max(1, int(round(v)))


def _cond(name, value, requirement, holds, source="theorem") -> dict:
    return {"name": name, "value": float(value), "requirement": requirement,
            "holds": bool(holds), "source": source}


def _descent(conds, eta, c, c_L):
    L = _get(c, "L_phi_bound")
    cap = math.inf if L == 0 else 1.0 / (c_L * L)
    conds.append(_cond("eta * c_L * L_phi_bound", eta * c_L * L, "<= 1 (descent condition, "
                       "not printed in the main text)", eta <= cap, "reported"))


def feddro_min_iterations(c, K: int, c_eta: float = 1.0) -> int:
    """Smallest T for which Theorem 4.3's beta = 4 B_g^4 L_f^2 c_eta sqrt(K/T) is <= 1:
    T >= 16 c_eta^2 B_g^8 L_f^4 K (a lower bound on the theorem's T_th)."""
    K = V.positive_int("K", K)
    c_eta = V.real_in("c_eta", c_eta, 0.0)
    a = 4.0 * _get(c, "B_g") ** 4 * _get(c, "L_f") ** 2 * c_eta
    return max(1, math.ceil(a * a * K))


def _feddro(c, T, K, c_eta=1.0, c_I=1.0, c_L=1.0) -> Schedule:
    Bg, Lf = _get(c, "B_g"), _get(c, "L_f")
    eta = c_eta * math.sqrt(K / T)
    beta = 4.0 * Bg ** 4 * Lf ** 2 * eta
    I = _round_I(c_I * T ** 0.25 / K ** 0.75)
    conds = [_cond("beta = 4 B_g^4 L_f^2 eta", beta, "in (0, 1]", 0.0 < beta <= 1.0)]
    findings = []
    Tmin = feddro_min_iterations(c, K, c_eta)
    if beta > 1.0:
        findings.append(f"Theorem 4.3's beta = 4 B_g^4 L_f^2 eta = {beta:.4g} > 1 (B_g = "
                        f"{Bg:.4g}, L_f = {Lf:.4g}, eta = {eta:.4g}); it is a valid momentum "
                        f"parameter only for T >= 16 c_eta^2 B_g^8 L_f^4 K = {Tmin}, so "
                        f"T_th >= {Tmin}")
    if beta == 0.0:
        findings.append("beta = 0 (B_g or L_f is 0): the estimator (8) then never forgets")
    _descent(conds, eta, c, c_L)
    return Schedule("feddro", "Khanduri et al., Theorem 4.3", T, K,
                    {"eta": eta, "beta": beta, "local_steps": I},
                    all(x["holds"] for x in conds if x["source"] == "theorem"), conds,
                    findings, {"c_eta": c_eta, "c_I": c_I, "c_L": c_L, "T_min_beta": Tmin})


def _dsfeddro(c, T, K, c_eta=1.0, c_beta=1.0, c_x=1.0, c_y=1.0, c_I=1.0, c_L=1.0) -> Schedule:
    I = _round_I(c_I * math.sqrt(T / K))
    eta = c_eta / math.sqrt(I * T)
    beta = c_beta * eta
    gx = c_x * math.sqrt(K / T)
    gy = c_y * gx
    conds = [_cond("beta = c_beta eta", beta, "in (0, 1]", 0.0 < beta <= 1.0)]
    findings = [f"total effective step T * gamma_x * eta = {T * gx * eta:.4g} "
                f"(= c_eta c_x K^(3/4) / (sqrt(c_I) T^(1/4)) before rounding I: it shrinks "
                f"as T grows)"]
    if beta > 1.0:
        findings.append(f"beta = c_beta eta = {beta:.4g} > 1: choose c_beta <= 1/eta")
    _descent(conds, eta, c, c_L)
    return Schedule("ds-feddro", "Khanduri et al., Theorem 5.2", T, K,
                    {"eta": eta, "beta": beta, "server_lr_x": gx, "server_lr_y": gy,
                     "local_steps": I},
                    all(x["holds"] for x in conds if x["source"] == "theorem"), conds, findings,
                    {"c_eta": c_eta, "c_beta": c_beta, "c_x": c_x, "c_y": c_y, "c_I": c_I,
                     "c_L": c_L})


def _fedavg_modified(c, T, K, c_eta=1.0, c_I=1.0, c_L=1.0) -> Schedule:
    eta = c_eta * math.sqrt(K / T)
    I = _round_I(c_I * T ** 0.25)
    conds = []
    _descent(conds, eta, c, c_L)
    return Schedule("fedavg-modified", "Khanduri et al., Theorem 4.2", T, K,
                    {"eta": eta, "local_steps": I}, True, conds,
                    ["Theorem 4.2 only states that some eta exists; eta = c_eta sqrt(K/T) is "
                     "fedcomp's choice"], {"c_eta": c_eta, "c_I": c_I, "c_L": c_L})


def _localscgdam(c, T, K, c_eta=1.0, c_I=1.0, alpha=1.0, beta_x=1.0, beta_y=1.0) -> Schedule:
    from fedcomp.theory.constants import auc_lemma2
    Cg, Cf, Lf, Lg = _get(c, "C_g"), _get(c, "C_f"), _get(c, "L_f"), _get(c, "L_g")
    mu = _get(c, "mu")
    if mu <= 0 or Cg <= 0 or Lf <= 0:
        raise ValueError("localscgdam needs C_g > 0, L_f > 0 and mu > 0")
    L_phi = auc_lemma2(Cg, Cf, Lf, Lg, mu)
    p = _round_I(c_I * T ** 0.25 / K ** 0.75)
    gy = min(1.0 / (6 * Lf), 3 * mu * beta_y ** 2 / (400 * Lf ** 2), 3 * beta_x ** 2 / (16 * mu))
    gx = min(alpha * mu / (100 * Cg ** 2 * Lf * math.sqrt(1 + 6 * Lf ** 2)),
             beta_x / (32 * math.sqrt(Cg ** 4 * Lf ** 2 + Cf ** 2 * Lg ** 2)),
             beta_y * mu / (144 * Cg ** 2 * Lf ** 2),
             math.sqrt(alpha * mu) / (24 * Cg * math.sqrt(100 * Cg ** 2 * Lf ** 4
                                                           + 2 * Cg ** 2 * mu ** 2)),
             gy * mu ** 2 / (20 * Cg ** 2 * Lf ** 2))
    cap = min(1 / (2 * gx * L_phi), 1 / (10 * p ** 2 * gy * Lf), 1 / alpha, 1 / beta_x,
              1 / beta_y, 1.0)
    eta_remark = c_eta * math.sqrt(K / T)
    eta = min(eta_remark, cap)
    conds = [_cond("eta / cap of Theorem 1", eta / cap, "<= 1", eta <= cap),
             _cond("alpha eta", alpha * eta, "in (0, 1)", 0 < alpha * eta < 1),
             _cond("beta_x eta", beta_x * eta, "in (0, 1)", 0 < beta_x * eta < 1),
             _cond("beta_y eta", beta_y * eta, "in (0, 1)", 0 < beta_y * eta < 1)]
    findings = []
    if eta < eta_remark:
        findings.append(f"Theorem 1's cap {cap:.4g} is below Remark 1's eta = c_eta sqrt(K/T) = "
                        f"{eta_remark:.4g}: eta is capped (Remark 1's rate needs T large enough "
                        f"that sqrt(K/T) <= cap, T >= {math.ceil(K * (c_eta / cap) ** 2)})")
    findings.append(f"gamma_x eta = {gx * eta:.4g} is the effective x step (gamma_x = {gx:.3g}, "
                    f"L_Phi (Lemma 2) = {L_phi:.4g})")
    return Schedule("localscgdam", "Zhang et al., Theorem 1 and Remark 1", T, K,
                    {"eta": eta, "gamma_x": gx, "gamma_y": gy, "alpha": alpha, "beta_x": beta_x,
                     "beta_y": beta_y, "local_steps": p},
                    all(x["holds"] for x in conds), conds, findings,
                    {"c_eta": c_eta, "c_I": c_I, "L_Phi_lemma2": L_phi})


def _fcsg_family(algorithm, c, T, K, b=1.0) -> Schedule:
    SF = _get(c, "S_F")
    if SF <= 0:
        raise ValueError(f"constant S_F must be > 0, got {SF}")
    conds, findings, kw = [], [], {}
    if algorithm in ("fcsg", "fcsg-m"):
        theorem = "Wu et al. Corollary 4.2" if algorithm == "fcsg" else "Wu et al. Corollary 4.5"
        eta = math.sqrt(K / T) / (6.0 * SF)
        q_raw = (T / K ** 3) ** 0.25
        kw = {"eta": eta, "local_steps": _round_I(q_raw)}
        if algorithm == "fcsg-m":
            kw["beta"] = 5.0 * SF * eta
            conds.append(_cond("beta = 5 S_F alpha", kw["beta"], "in (0, 1)",
                               0.0 < kw["beta"] < 1.0))
        conds.append(_cond("q = (T/N^3)^(1/4)", q_raw, ">= 1 (T >= N^3)", q_raw >= 1.0,
                           "reported"))
    else:
        theorem = "Wu et al. Corollary 4.8"
        q_raw = (T / K ** 2) ** (1 / 3)
        kw = {"eta": K ** (2 / 3) / (12.0 * SF * T ** (1 / 3)), "local_steps": _round_I(q_raw),
              "beta": 5.0 * K ** (1 / 3) / (24.0 * b * T ** (2 / 3)),
              "init_batch": float(_round_I(T ** (1 / 3) / K ** (2 / 3)))}
        conds.append(_cond("beta = c alpha^2", kw["beta"], "in (0, 1)", 0.0 < kw["beta"] < 1.0))
        conds.append(_cond("q = (T/N^2)^(1/3)", q_raw, ">= 1 (T >= N^2)", q_raw >= 1.0,
                           "reported"))
    findings += [f"{x['name']} = {x['value']:.6g} violates {x['requirement']}" for x in conds
                 if not x["holds"]]
    return Schedule(algorithm, theorem, T, K, kw,
                    all(x["holds"] for x in conds if x["source"] == "theorem"), conds, findings,
                    {"S_F": SF, "b": b})


def _fcsg(c, T, K) -> Schedule:
    return _fcsg_family("fcsg", c, T, K)


def _fcsg_m(c, T, K) -> Schedule:
    return _fcsg_family("fcsg-m", c, T, K)


def _acc_fcsg_m(c, T, K, b=1.0) -> Schedule:
    return _fcsg_family("acc-fcsg-m", c, T, K, b=b)


_BUILDERS: dict[str, Callable] = {"feddro": _feddro, "ds-feddro": _dsfeddro,
                                  "fedavg-modified": _fedavg_modified,
                                  "localscgdam": _localscgdam, "fcsg": _fcsg, "fcsg-m": _fcsg_m,
                                  "acc-fcsg-m": _acc_fcsg_m}


def prescribe(algorithm: str, constants, T: int, K: int, **free) -> Schedule:
    """The schedule `algorithm`'s theorem prescribes at (T, K), with its conditions checked.

    Parameters
    ----------
    algorithm : {"feddro", "ds-feddro", "fedavg-modified", "localscgdam"}
    constants : Constants or dict
        FedDRO family: needs B_g, L_f and L_phi_bound. localscgdam: C_g, C_f, L_f, L_g, mu.
    T, K : int >= 1
    **free
        The free constants of the theorem (module docstring), e.g. ``c_eta``, ``c_I``.
    """
    if algorithm not in _BUILDERS:
        raise ValueError(f"no theorem schedule for algorithm {algorithm!r}; known: "
                         f"{', '.join(ALGORITHMS)}")
    T = V.positive_int("T", T)
    K = V.positive_int("K", K)
    import inspect
    allowed = [n for n in inspect.signature(_BUILDERS[algorithm]).parameters
               if n not in ("c", "T", "K")]
    unknown = sorted(set(free) - set(allowed))
    if unknown:
        raise ValueError(f"unknown free constant(s) {unknown} for {algorithm!r}; it accepts "
                         f"{allowed}")
    checked = {n: V.real_in(n, v, 0.0) for n, v in free.items()}
    return _BUILDERS[algorithm](constants, T, K, **checked)


def schedule(algorithm: str, constants, T: int, K: int, strict: bool = True, **free) -> dict:
    """Keyword arguments of :func:`fedcomp.simulate` that `algorithm`'s theorem prescribes.

    Raises :class:`ScheduleError` (a ValueError) with the finding when a prescribed value is
    outside its admissible range (e.g. FedDRO's beta = 4 B_g^4 L_f^2 eta > 1) unless
    ``strict=False``, in which case the values are returned as prescribed (and simulate will
    reject them). Never clips.

    Examples
    --------
    >>> schedule("feddro", {"B_g": 1.0, "L_f": 0.5, "L_phi_bound": 1.0}, T=10_000, K=4)
    {'eta': 0.02, 'beta': 0.02, 'local_steps': 4}
    """
    s = prescribe(algorithm, constants, T, K, **free)
    if strict and not s.valid:
        raise ScheduleError("; ".join(s.findings) or f"invalid schedule: {s}")
    return dict(s.kwargs)


def schedule_fn(algorithm: str, constants, strict: bool = True, **free):
    """A ``(T, K) -> dict`` callable (what :class:`fedcomp.rates.measure.Sweep` takes) with the
    constants bound. Deliberately not exported under the algorithm names (``feddro`` ...), which
    :func:`fedcomp.rates.schedules.theory_schedule` would take for constant-free (T, K)
    schedules."""
    if algorithm not in _BUILDERS:
        raise ValueError(f"no theorem schedule for algorithm {algorithm!r}; known: "
                         f"{', '.join(ALGORITHMS)}")

    def fn(T: int, K: int) -> dict:
        return schedule(algorithm, constants, T, K, strict=strict, **free)
    fn.__name__ = f"{algorithm.replace('-', '_')}_theorem_schedule"
    return fn
