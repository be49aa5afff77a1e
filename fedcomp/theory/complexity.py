"""The complexity table: every algorithm of the five papers in one convention, derived by sympy.

Convention (FedDRO paper, Definition 3.6): x is epsilon-stationary when E||grad Phi(x)||^2 <= eps.
The FCSG paper (Wu et al.) and the AUC paper (Zhang et al.) ask for ||grad||^2 <= eps'^2, so their
eps' is sqrt(eps) here: FCSG's O(eps'^-6) samples become O(eps^-3).

For each algorithm the paper's parameter choices (step size, local steps I, batch sizes as
functions of T, K and the paper's eps) are substituted into the terms of its convergence bound;
the bound must reduce to the rate the paper states (each term checked to be of at most that
order, with the regime where a term could dominate reported). Solving rate = eps for T gives the
iterations per client; then

* per-client samples = T * (samples per local iteration),  total = K * per-client,
* rounds = T / I,  floats per client = rounds * (floats per round) + T * (floats per iteration),
* the batch size, and the conditions the choices need (I >= 1, ...).

Each derived quantity is compared with what the paper states (converted to this convention) and
with the FedDRO paper's Table 1 where the algorithm appears there; disagreements are flagged
with the reason. Algorithms of Table 1 whose papers are not among the five are listed as stated
(marked not derivable here).

Findings (see :func:`findings`):
* FedDRO Table 1 agrees with the ComFedL, FCSG and Acc-FCSG-M papers' own statements once their
  eps is converted; FedDRO's related-work list says Wu et al. (2024) does not guarantee linear
  speed-up, which contradicts its own Table 1 (O(K^-1 eps^-3)) and Wu's Remark 4.3.
* The AUC paper's introduction states communication complexity O(T^{3/4}/K^{3/4}); with
  p = T^{1/4}/K^{3/4} it is T/p = O(K^{3/4} T^{3/4}) (as its Remark 1 says).
* ComFedL Remark 1 (and 2) sets the batch b = 1/T^{alpha_2}, alpha_2 > 0, i.e. b < 1; it must read
  b = T^{alpha_2} for the stated O(1/sqrt(T)) rate.
* Unstated regimes: FedDRO's I = T^{1/4}/K^{3/4} >= 1 needs K <= eps^{-1/2}; DS-FedDRO's
  O(C'/T) term is dominated only when K <= eps^{-1}; FCSG's q = (T/N^3)^{1/4} >= 1 needs
  N <= eps^{-1/2}; Acc-FCSG-M's q >= 1 needs N <= eps^{-1/2}; LocalSCGDAM's p >= 1 needs
  K <= eps^{-1/2}. Outside them the stated linear speed-up or communication saving does not follow.

References
----------
Khanduri et al. (TMLR) Table 1, Theorems 4.3, 5.2, Corollaries 4.4, 5.3, Remark 4.5.
Wu et al. (NeurIPS 2023) Table 1, Theorems 4.1, 4.4, 4.7, Corollaries 4.2, 4.5, 4.8,
Remarks 4.3, 4.6, 4.9. Zhang et al. (NeurIPS 2023) Theorem 1, Remark 1. Huang, Li, Huang
(arXiv 2106.11264) Theorems 1-2, Remarks 1-2.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import sympy as sp

__all__ = ["Scheme", "SCHEMES", "TABLE1", "derive", "parse", "same_order", "derive_all", "complexity_table",
           "table1_comparison", "findings", "format_table", "complexity_json",
           "corollary_constants"]

T, K, eps, ep = sp.symbols("T K epsilon epsilon_p", positive=True)
d, dg, d1, d2 = sp.symbols("d d_g d_1 d_2", positive=True)
eta, I, m, b = sp.symbols("eta I m b", positive=True)


@dataclass(frozen=True)
class Scheme:
    """One algorithm's theorem, as the paper states it.

    rate_terms are the orders of the bound's terms in the paper's symbols (eta, I, m, b, T, K);
    params substitutes the paper's choices (expressions in T, K and ep, the paper's own epsilon);
    samples_per_iter, floats_per_round and floats_per_iter are per client; stated holds the
    paper's own complexity statements in ep (or in eps when eps_sq is False)."""
    key: str
    algorithm: str
    paper: str
    source: str
    eps_sq: bool                 # True: the paper's eps-stationarity is ||grad||^2 <= ep^2
    params: dict
    rate_terms: tuple
    stated_rate: sp.Expr
    local_steps: sp.Expr         # I as a function of T, K
    samples_per_iter: sp.Expr
    floats_per_round: sp.Expr
    floats_per_iter: sp.Expr = sp.Integer(0)
    stated: dict = field(default_factory=dict)
    notes: str = ""
    #: the theorem prints only its result's O-terms (constants in an appendix), so rate_terms
    #: restate the result and the check that they are of the stated rate is not a derivation
    terms_printed: bool = False


def _s(text: str) -> sp.Expr:
    return sp.sympify(text, locals={"T": T, "K": K, "ep": ep, "eps": eps, "d": d, "d_g": dg,
                                    "d_1": d1, "d_2": d2, "eta": eta, "I": I, "m": m, "b": b})


def parse(text: str) -> sp.Expr:
    """An order expression in this module's symbols (T, K, eps, d, d_g, ...; ``^`` as power),
    e.g. a claim's prediction "eps^-2/K"."""
    try:
        return _s(str(text).replace("^", "**"))
    except (sp.SympifyError, SyntaxError, TypeError) as exc:
        raise ValueError(f"{text!r} is not an order expression ({exc})") from None


def _order(algorithm: str, name: str) -> sp.Expr:
    """A theorem parameter's order from the one table of them (fedcomp.theory.schedules)."""
    from fedcomp.theory.schedules import ORDERS
    return _s(ORDERS[algorithm][name])


SCHEMES: dict[str, Scheme] = {s.key: s for s in [
    Scheme("feddro", "FedDRO (Algorithm 2)", "khanduri", "Theorem 4.3, Corollary 4.4, Remark 4.5",
           False, {eta: _order("feddro", "eta"), I: _order("feddro", "I")},
           # the theorem states only the result O(1/sqrt(KT)) (constants in Appendix F, not in
           # the text): its terms are C_Sync/sqrt(KT) + C_Drift/sqrt(KT)
           (_s("1/sqrt(K*T)"), _s("1/sqrt(K*T)")), _s("1/sqrt(K*T)"),
           _order("feddro", "I"), _s("2"), _s("d"), _s("d_g"),
           {"per_client_samples": _s("1/(K*eps**2)"), "total_samples": _s("eps**-2"),
            "rounds": _s("eps**(-3/2)"), "batch": _s("1"),
            "floats_per_client": _s("eps**(-3/2)*d + eps**-2*d_g/K")},
           "two samples of g_k per iteration (estimator (8) at x^t and x^{t-1}); y shared every "
           "iteration (d_g floats), x every I iterations (d floats)", terms_printed=True),
    Scheme("ds-feddro", "DS-FedDRO (Algorithm 3)", "khanduri", "Theorem 5.2, Corollary 5.3",
           False, {eta: _order("ds-feddro", "eta"), I: _order("ds-feddro", "I")},
           (_s("1/sqrt(K*T)"), _s("1/T")), _s("1/sqrt(K*T)"),
           _order("ds-feddro", "I"), _s("1"), _s("d + d_g"), _s("0"),
           {"per_client_samples": _s("1/(K*eps**2)"), "total_samples": _s("eps**-2"),
            "rounds": _s("1/eps"), "batch": _s("1")},
           "x and y averaged every I iterations with server step sizes gamma_x = sqrt(K/T)",
           terms_printed=True),
    Scheme("comfedl", "ComFedL (Algorithm 1), general problem", "huang", "Theorem 1, Remark 1",
           False, {eta: _s("T**(-1/2)"), b: _s("T"), I: _s("1")},
           # (12): (F0 - F*)/(T eta) + tau eta (drift) + sigma/sqrt(b) + sigma/sqrt(b1) + eta
           (_s("1/(T*eta)"), _s("I*eta"), _s("1/sqrt(b)"), _s("eta")), _s("T**(-1/2)"),
           _s("1"), _s("2*T"), _s("d"), _s("0"),
           {"rate": _s("T**(-1/2)")},
           "tau = O(1) local steps; batches b = b_1 = T (Remark 1 prints b = 1/T^alpha_2, a typo); "
           "per-client samples T (b + b_1); only m sampled clients work each round; no K in the "
           "bound (no linear speed-up)"),
    Scheme("comfedl-special", "ComFedL, special problem (identical outer g)", "huang",
           "Theorem 2, Remark 2",
           False, {eta: _s("T**(-1/2)"), b: _s("T"), I: _s("1")},
           (_s("1/(T*eta)"), _s("I*eta"), _s("1/sqrt(b)"), _s("eta")), _s("T**(-1/2)"),
           _s("1"), _s("T"), _s("d"), _s("0"),
           {"rate": _s("T**(-1/2)")},
           "only the inner batch b = T is drawn"),
    Scheme("fcsg", "FCSG (Algorithm 1)", "wu", "Theorem 4.1, Corollary 4.2, Remark 4.3",
           True, {eta: _s("sqrt(K/T)"), I: _s("(T/K**3)**(1/4)"), m: _s("ep**-2"), b: _s("1")},
           # 2[F0-F*]/(alpha T) + 2 L^2 S^2 sigma^2/m + 2 alpha S L^2/N + 42 q^2 alpha^2 ...
           (_s("1/(eta*T)"), _s("1/m"), _s("eta/K"), _s("I**2*eta**2")), _s("1/sqrt(K*T)"),
           _s("(T/K**3)**(1/4)"), _s("b*m"), _s("d"), _s("0"),
           {"per_client_samples": _s("ep**-6/K"), "total_samples": _s("ep**-6"),
            "rounds": _s("ep**-3"), "batch": _s("ep**-2"), "iterations": _s("ep**-4/K")},
           "N clients = K; step alpha = sqrt(N/T)/(6 S_F); q local steps; inner batch m = "
           "eps'^-2 removes the 1/m bias term"),
    Scheme("fcsg-m", "FCSG-M (Algorithm 1, momentum)", "wu", "Theorem 4.4, Corollary 4.5, Remark 4.6",
           True, {eta: _s("sqrt(K/T)"), I: _s("(T/K**3)**(1/4)"), m: _s("ep**-2"), b: _s("1")},
           # beta = 5 S_F alpha: terms 1/(alpha T), q^2 alpha^2, 1/m, 1/(beta B T), beta/N
           (_s("1/(eta*T)"), _s("I**2*eta**2"), _s("1/m"), _s("1/(eta*T)"), _s("eta/K")),
           _s("1/sqrt(K*T)"), _s("(T/K**3)**(1/4)"), _s("b*m"), _s("2*d"), _s("0"),
           {"per_client_samples": _s("ep**-6/K"), "total_samples": _s("ep**-6"),
            "rounds": _s("ep**-3"), "batch": _s("ep**-2"), "iterations": _s("ep**-4/K")},
           "x and the momentum u averaged every q iterations (2d floats)"),
    Scheme("acc-fcsg-m", "Acc-FCSG-M (Algorithm 2)", "wu", "Theorem 4.7, Corollary 4.8, Remark 4.9",
           True, {eta: _s("K**(2/3)/T**(1/3)"), I: _s("(T/K**2)**(1/3)"), m: _s("ep**-2"),
                  b: _s("1")},
           # beta = c alpha^2 with c = 30 S_F^2/(b N), B = T^(1/3)/N^(2/3): terms 1/(T alpha),
           # 1/(beta B N T), c^2 alpha^2, 1/m, beta/(N b)
           (_s("1/(T*eta)"), _s("1/((eta**2/K)*(T**(1/3)/K**(2/3))*K*T)"),
            _s("eta**2/K**2"), _s("1/m"), _s("eta**2/K**2")),
           _s("(K*T)**(-2/3)"), _s("(T/K**2)**(1/3)"), _s("b*m"), _s("2*d"), _s("0"),
           {"per_client_samples": _s("ep**-5/K"), "total_samples": _s("ep**-5"),
            "rounds": _s("ep**-2"), "batch": _s("ep**-2"), "iterations": _s("ep**-3/K")},
           "step alpha = N^(2/3)/(12 S_F T^(1/3)), beta = c alpha^2 (Theorem 4.7 prints "
           "beta = 5 S_F alpha, which contradicts its own bound and Corollary 4.8)"),
    Scheme("localscgdam", "LocalSCGDAM (Algorithm 1)", "zhang", "Theorem 1, Remark 1",
           True, {eta: _s("sqrt(K/T)"), I: _s("T**(1/4)/K**(3/4)")},
           # (16): 1/(eta T) + eta/K + p^2 eta^2 + p^4 eta^4 + ... + p^10 eta^10
           (_s("1/(eta*T)"), _s("eta/K"), _s("I**2*eta**2"), _s("I**4*eta**4"),
            _s("I**6*eta**6"), _s("I**8*eta**8"), _s("I**10*eta**10")),
           _s("1/sqrt(K*T)"), _s("T**(1/4)/K**(3/4)"), _s("1"), _s("2*d_1 + 2*d_2 + d_g"),
           _s("0"),
           {"per_client_samples": _s("1/(K*ep**4)"), "rounds": _s("ep**-3"),
            "eta": _s("K*ep**2"), "I": _s("1/(K*ep)"), "rounds_in_T": _s("K**(3/4)*T**(3/4)")},
           "x in R^{d_1}, y in R^{d_2}; x, y, momenta u, v and the inner estimate h averaged "
           "every p = I iterations"),
]}

# FedDRO paper, Table 1 (its own convention E||grad||^2 <= eps; COMP. read as per client;
# "update" is its UPDATE column as printed)
TABLE1 = {
    "ComFedL": {"update": "SGD", "scheme": "comfedl", "batch": _s("eps**-2"),
                "comp": _s("eps**-4"), "comm": _s("eps**-2")},
    "Local-SCGDM": {"update": "Momentum SGD", "scheme": None, "batch": _s("1"),
                    "comp": _s("eps**-2"), "comm": _s("eps**(-3/2)"),
                    "source": "Gao, Li, Huang (ICML 2022)"},
    "FCSG": {"update": "SGD", "scheme": "fcsg", "batch": _s("eps**-1"), "comp": _s("eps**-3/K"),
             "comm": _s("eps**(-3/2)")},
    "Acc-FCSG-M": {"update": "VR", "scheme": "acc-fcsg-m", "batch": _s("eps**-1"),
                   "comp": _s("eps**(-5/2)/K"), "comm": _s("eps**-1")},
    "FedNest": {"update": "VR", "scheme": None, "batch": _s("1"), "comp": _s("eps**-2"),
                "comm": _s("eps**-2"), "source": "Tarzanagh et al. (2022)"},
    "FedBiOAcc": {"update": "VR", "scheme": None, "batch": _s("1"), "comp": _s("eps**(-3/2)/K"),
                  "comm": _s("eps**-1"), "source": "Li, Huang, Huang (2024)"},
    "FedMBO": {"update": "SGD", "scheme": None, "batch": _s("log(1/eps)"),
               "comp": _s("eps**-2/K"), "comm": _s("eps**-2"), "source": "Huang, Zhang, Ji (2023)"},
    "SimFBO": {"update": "SGD", "scheme": None, "batch": _s("1"), "comp": _s("eps**-2/K"),
               "comm": _s("eps**-1"), "source": "Yang, Xiao, Ji (2024)"},
    "Fed-DR-SCGD": {"update": "VR", "scheme": None, "batch": _s("1"),
                    "comp": _s("eps**(-3/2)/K"), "comm": _s("eps**-1"), "source": "Gao (2024)"},
    "GCIVR": {"update": "VR", "scheme": None, "batch": None, "comp": _s("eps**(-3/2)"),
              "comm": _s("eps**-1"),
              "source": "Haddadpour et al. (2022); sqrt(m)/m batches, finite-sum"},
    "FedDRO": {"update": "SGD", "scheme": "feddro", "batch": _s("1"), "comp": _s("eps**-2/K"),
               "comm": _s("eps**(-3/2)")},
    "DS-FedDRO": {"update": "SGD", "scheme": "ds-feddro", "batch": _s("1"),
                  "comp": _s("eps**-2/K"), "comm": _s("eps**-1")},
}


def _to_ours(expr, eps_sq: bool):
    """A paper's expression in its own epsilon (ep) converted to E||grad||^2 <= eps."""
    expr = sp.sympify(expr)
    return sp.simplify(expr.subs(ep, sp.sqrt(eps) if eps_sq else eps))


def _exponents(expr, *syms):
    """Exponents of a monomial c * prod s^a_s (returns None if expr is not a monomial in syms)."""
    expr = sp.powsimp(sp.expand_power_base(sp.simplify(expr), force=True), force=True)
    out = []
    for s in syms:
        e = sp.simplify(sp.diff(sp.log(expr), s) * s)
        if e.free_symbols & set(syms):
            return None
        out.append(e)
    return tuple(out)


def same_order(a, b_, syms=(eps, K)) -> bool:
    """True when a/b_ is free of the symbols (equal up to a constant factor)."""
    if a is None or b_ is None:
        return False
    ratio = sp.simplify(sp.sympify(a) / sp.sympify(b_))
    return not (ratio.free_symbols & set(syms))


@dataclass
class Derived:
    key: str
    algorithm: str
    paper: str
    source: str
    rate: sp.Expr
    terms_ok: bool
    regimes: list
    iterations: sp.Expr
    batch: sp.Expr
    per_client_samples: sp.Expr
    total_samples: sp.Expr
    rounds: sp.Expr
    floats_per_round: sp.Expr
    floats_per_client: sp.Expr
    stated_ours: dict
    agreement: dict
    flags: list

    @property
    def terms_printed(self) -> bool:
        """Whether the theorem prints only its result's O-terms (:class:`Scheme`)."""
        return SCHEMES[self.key].terms_printed

    @property
    def consistent(self) -> bool:
        return self.terms_ok and all(self.agreement.values())

    def row(self) -> dict:
        return {"algorithm": self.algorithm, "paper": self.paper, "source": self.source,
                "rate": str(self.rate), "iterations_T": str(self.iterations),
                "batch": str(self.batch), "per_client_samples": str(self.per_client_samples),
                "total_samples": str(self.total_samples), "rounds": str(self.rounds),
                "floats_per_round": str(self.floats_per_round),
                "floats_per_client": str(self.floats_per_client),
                "stated_converted": {k: str(v) for k, v in self.stated_ours.items()},
                "agreement": self.agreement, "consistent": self.consistent,
                "flags": self.flags, "regimes": self.regimes}


@functools.lru_cache(maxsize=None)
def derive(key: str) -> Derived:
    """Derive the complexities of one scheme (see the module docstring)."""
    if key not in SCHEMES:
        raise ValueError(f"unknown scheme {key!r}; known: {sorted(SCHEMES)}")
    s = SCHEMES[key]
    flags, regimes = [], []
    sub_params = {k: v for k, v in s.params.items()}
    # the paper's parameters in our eps (for eps-dependent batches)
    conv = {k: _to_ours(v, s.eps_sq) for k, v in sub_params.items()}
    rate = s.stated_rate
    terms_ok = True
    for term in s.rate_terms:
        t = sp.simplify(term.subs(conv))
        if t.has(eps):
            # an eps-dependent term (e.g. the 1/m bias): must be O(eps) itself
            e = _exponents(t, eps, T, K)
            if e is None or e[1] != 0 or e[0] < 1:
                terms_ok = False
                flags.append(f"term {term} -> {t} is not O(eps)")
            continue
        ratio = sp.simplify(t / rate)
        e = _exponents(ratio, T, K)
        if e is None:
            terms_ok = False
            flags.append(f"term {term} -> {t}: not a monomial")
            continue
        eT, eK = e
        if eT > 0 or (eT == 0 and eK > 0):
            terms_ok = False
            flags.append(f"term {term} -> {t} exceeds the stated rate {rate}")
        elif eT < 0 and eK > 0:
            # dominated only for T >= K^(eK/|eT|)
            regimes.append(f"term {term} -> {t} is dominated by {rate} only when "
                           f"T >= K^({sp.nsimplify(eK / -eT)})")
    # iterations per client for rate <= eps
    Tsol = sp.solve(sp.Eq(rate, eps), T)
    if len(Tsol) != 1:
        raise RuntimeError(f"{key}: cannot solve {rate} = eps for T")
    Te = sp.simplify(Tsol[0])
    # a T-dependent term of lower order in K can still dominate for large K: find where
    for term in s.rate_terms:
        t = sp.simplify(term.subs(conv))
        if t.has(eps) or not t.has(T):
            continue
        Tt = sp.solve(sp.Eq(t, eps), T)
        if Tt and not same_order(Tt[0], Te, (eps, K)):
            # which T is larger, as a condition on K
            cond = sp.solve(sp.Eq(Tt[0], Te), K)
            if cond:
                regimes.append(f"term {t} needs T = {sp.simplify(Tt[0])}, not more than "
                               f"{Te} iff K <= {sp.simplify(cond[0])} (else it dominates)")
    Ival = sp.simplify(s.local_steps.subs(T, Te))
    if Ival.has(K) or Ival.has(eps):
        cond = sp.solve(sp.Eq(Ival, 1), K)
        if cond:
            regimes.append(f"I = {Ival} >= 1 requires K <= {sp.simplify(cond[0])}")
    spi = sp.simplify(_to_ours(s.samples_per_iter, s.eps_sq).subs(conv))
    # samples per iteration counts every oracle call; the batch is one mini-batch (ComFedL draws
    # two, b and b_1; FedDRO evaluates one sample at two points)
    batch = sp.simplify((spi / 2 if key in ("comfedl", "feddro") else spi).subs(T, Te))
    per_client = sp.simplify((Te * spi).subs(T, Te))
    total = sp.simplify(K * per_client)
    rounds = sp.simplify(Te / Ival)
    fpc = sp.simplify(rounds * s.floats_per_round + Te * s.floats_per_iter)
    stated_ours = {k: _to_ours(v, s.eps_sq) for k, v in s.stated.items()}
    agreement = {}
    derived_map = {"per_client_samples": per_client, "total_samples": total, "rounds": rounds,
                   "batch": batch, "iterations": Te, "floats_per_client": fpc}
    for k, v in stated_ours.items():
        if k in derived_map:
            agreement[k] = same_order(derived_map[k], v)
            if not agreement[k]:
                flags.append(f"stated {k} = {v} (converted) but derived {derived_map[k]}")
        elif k == "rate":
            agreement[k] = same_order(rate, v, (T, K))
        elif k == "eta":
            agreement[k] = same_order(sp.simplify(conv[eta].subs(T, Te)), v)
        elif k == "I":
            agreement[k] = same_order(Ival, v)
        elif k == "rounds_in_T":
            agreement[k] = same_order(sp.simplify(T / s.local_steps), v, (T, K))
    return Derived(s.key, s.algorithm, s.paper, s.source, rate, terms_ok, regimes, Te, batch,
                   per_client, total, rounds, s.floats_per_round, fpc, stated_ours, agreement,
                   flags)


def derive_all() -> list[Derived]:
    return [derive(k) for k in SCHEMES]


def complexity_table():
    """pandas DataFrame, one row per algorithm, in the common convention."""
    import pandas as pd
    rows = []
    for dv in derive_all():
        r = dv.row()
        rows.append({"algorithm": r["algorithm"], "paper": r["paper"], "source": r["source"],
                     "rate": r["rate"], "T(eps)": r["iterations_T"], "batch": r["batch"],
                     "samples/client": r["per_client_samples"], "samples total": r["total_samples"],
                     "rounds": r["rounds"], "floats/round/client": r["floats_per_round"],
                     "floats/client": r["floats_per_client"],
                     "consistent with paper": r["consistent"],
                     "flags": "; ".join(r["flags"] + r["regimes"])})
    return pd.DataFrame(rows)


def table1_comparison() -> list[dict]:
    """FedDRO Table 1 against the derivation from each algorithm's own paper."""
    out = []
    for name, row in TABLE1.items():
        entry = {"algorithm": name, "table_batch": str(row["batch"]),
                 "table_comp": str(row["comp"]), "table_comm": str(row["comm"])}
        if row["scheme"] is None:
            entry.update({"derivable": False, "consistent": None,
                          "detail": f"source paper ({row['source']}) is not among the five"})
        else:
            dv = derive(row["scheme"])
            agree = {"batch": row["batch"] is None or same_order(dv.batch, row["batch"]),
                     "comp": same_order(dv.per_client_samples, row["comp"]),
                     "comm": same_order(dv.rounds, row["comm"])}
            entry.update({"derivable": True, "consistent": all(agree.values()),
                          "derived_batch": str(dv.batch),
                          "derived_comp": str(dv.per_client_samples),
                          "derived_comm": str(dv.rounds), "agreement": agree,
                          "detail": "; ".join(dv.regimes)})
        out.append(entry)
    return out


#: the key of the corollaries' term in [F0 - F*] (:func:`corollary_constants`)
FIRST_TERM = "first (x [F0 - F*])"


@functools.lru_cache(maxsize=None)
def corollary_constants() -> dict:
    """Re-derive the constants of Wu et al. Corollaries 4.2, 4.5 and 4.8 from Theorems 4.1, 4.4
    and 4.7 (as extracted) by substituting the corollaries' parameters; returns derived vs printed
    coefficients of each term (in units of L_f^2 L_g^2 / (NT)^{1/2} resp. / (NT)^{2/3})."""
    N, SF, bb = sp.symbols("N S_F b", positive=True)
    # Corollary 4.2: alpha = sqrt(N/T)/(6 S_F) (forced by the printed first term
    # 12 S_F [F0 - F*]/(NT)^{1/2}), q = (T/N^3)^{1/4}
    alpha = sp.sqrt(N / T) / (6 * SF)
    q = (T / N ** 3) ** sp.Rational(1, 4)
    unit = 1 / sp.sqrt(N * T)
    c42 = {FIRST_TERM: sp.simplify(2 / (alpha * T) / unit),
           "2 alpha S_F L^2/N": sp.simplify(2 * alpha * SF / N / unit),
           "42 q^2 alpha^2 S_F^2 L^2 (upper bound of 42(q-1)q)": sp.simplify(
               42 * q ** 2 * alpha ** 2 * SF ** 2 / unit)}
    p42 = {FIRST_TERM: 12 * SF, "2 alpha S_F L^2/N": sp.Rational(1, 6),
           "42 q^2 alpha^2 S_F^2 L^2 (upper bound of 42(q-1)q)": sp.Rational(19, 9)}
    # Corollary 4.5 (FCSG-M): same alpha and q, beta = 5 S_F alpha (Theorem 4.4, read with
    # alpha for the undefined eta), B = 1
    beta45 = 5 * SF * alpha
    Nn = N
    c45 = {FIRST_TERM: sp.simplify(2 / (alpha * T) / unit),
           "(96 S_F^2/5) q^2 alpha^2 [(1 + 1/N) + 3] L^2 (at N = 1, its largest)": sp.simplify(
               (sp.Rational(96, 5) * SF ** 2 * q ** 2 * alpha ** 2 * (4 + 1 / Nn)).subs(N, 1)
               / unit.subs(N, 1)),
           "8 L^2/(beta B T)": sp.simplify(8 / (beta45 * T) / unit),
           "8 beta L^2/N": sp.simplify(8 * beta45 / N / unit)}
    p45 = {FIRST_TERM: 12 * SF,
           "(96 S_F^2/5) q^2 alpha^2 [(1 + 1/N) + 3] L^2 (at N = 1, its largest)":
               sp.Rational(112, 3),
           "8 L^2/(beta B T)": sp.Rational(48, 5), "8 beta L^2/N": sp.Rational(20, 3)}
    # Corollary 4.8: q = (T/N^2)^{1/3}, alpha = 1/(12 q S_F), c = 30 S_F^2/(b N), beta = c alpha^2,
    # B = T^{1/3}/N^{2/3}
    q8 = (T / N ** 2) ** sp.Rational(1, 3)
    a8 = 1 / (12 * q8 * SF)
    c = 30 * SF ** 2 / (bb * N)
    beta = c * a8 ** 2
    B = T ** sp.Rational(1, 3) / N ** sp.Rational(2, 3)
    u8 = (N * T) ** sp.Rational(-2, 3)
    c48 = {FIRST_TERM: sp.simplify(2 / (T * a8) / u8),
           "3 L^2/(beta B N T)": sp.simplify(3 / (beta * B * N * T) / u8),
           "13 L^2 c^2 alpha^2/(6 S_F^2)": sp.simplify(13 * c ** 2 * a8 ** 2 / (6 * SF ** 2) / u8),
           "6 beta L^2/(N b)": sp.simplify(6 * beta / (N * bb) / u8)}
    p48 = {FIRST_TERM: 24 * SF, "3 L^2/(beta B N T)": sp.Rational(72, 5) * bb,
           "13 L^2 c^2 alpha^2/(6 S_F^2)": sp.Rational(325, 24) / bb ** 2,
           "6 beta L^2/(N b)": sp.Rational(5, 4) / bb ** 2}
    beta_thm = 5 * SF * a8  # Theorem 4.7 as printed
    with_thm_beta = sp.simplify(6 * beta_thm / (N * bb))
    out = {}
    for name, der, pr in (("cor4.2", c42, p42), ("cor4.5", c45, p45), ("cor4.8", c48, p48)):
        rows = {}
        for k in der:
            dv, pv = sp.simplify(der[k]), sp.simplify(pr[k])
            # an upper bound printed larger than derived still follows
            rows[k] = {"derived": str(dv), "printed": str(pv),
                       "follows": bool(sp.simplify(dv - pv) == 0
                                       or (sp.simplify(pv / dv).is_number
                                           and sp.simplify(pv / dv) >= 1))}
        out[name] = rows
    out["thm4.7_beta_as_printed"] = {
        "beta": str(beta_thm), "term 6 beta L^2/(N b)": str(with_thm_beta),
        "order_in_NT": "(NT)^(-1/3)", "consistent_with_cor4.8": False}
    return out


def corollary_implied(name: str) -> dict:
    """Whether Wu et al.'s Corollary `name` ("cor4.2", "cor4.5", "cor4.8") follows from its
    theorem as an inequality (what the corollary's "we have" asserts), from
    :func:`corollary_constants`: its printed right-hand side must be at least the one the
    substitution gives for every value of the problem's constants. The term in [F0 - F*] is
    compared on its own; the other terms all multiply L_f^2 L_g^2 over the same power of NT, so
    they are compared summed (a coefficient printed below its own term's substitution is
    covered when another is printed above it by at least as much). ``follows`` is None when
    sympy cannot settle the sign of a difference (a coefficient in b of undetermined sign)."""
    rows = corollary_constants()[name]
    groups = {FIRST_TERM: [FIRST_TERM],
              "the L_f^2 L_g^2 terms, summed": [k for k in rows if k != FIRST_TERM]}
    out = {}
    for label, keys in groups.items():
        der = sp.simplify(sum(sp.sympify(rows[k]["derived"]) for k in keys))
        pr = sp.simplify(sum(sp.sympify(rows[k]["printed"]) for k in keys))
        # the symbols (S_F, b) are positive: read them back as positive before the sign test
        diff = sp.simplify(pr - der)
        diff = diff.subs({s_: sp.Symbol(s_.name, positive=True) for s_ in diff.free_symbols})
        ok = diff.is_nonnegative
        out[label] = {"derived": str(der), "printed": str(pr), "printed - derived": str(diff),
                      "follows": None if ok is None else bool(ok)}
    parts = [g["follows"] for g in out.values()]
    out["follows"] = (False if False in parts else None if None in parts else True)
    return out


@functools.lru_cache(maxsize=None)
def wu_implied_momentum() -> dict:
    """The momentum beta that Wu et al.'s corollaries imply, solved from their printed
    coefficients (the mathematics behind ``wu.thm4.4.beta`` and ``wu.thm4.7.beta``).

    * Theorem 4.4 -> Corollary 4.5 (alpha = sqrt(N/T)/(6 S_F), B = 1): the terms
      8 L^2/(beta B T) and 8 beta L^2/N are printed as 48/5 and 20/3 over (NT)^(1/2);
    * Theorem 4.7 -> Corollary 4.8 (alpha = N^(2/3)/(12 S_F T^(1/3)), B = T^(1/3)/N^(2/3)): the
      terms 3 L^2/(beta B N T) and 6 beta L^2/(N b) are printed as 72 b/5 and 5/(4 b^2) over
      (NT)^(2/3).

    Each term is solved for beta separately; the solution is written as C alpha^k with k the
    power that removes T (C may hold S_F, N, b). Returns, per theorem, the solutions from each
    term, whether they agree, and beta in terms of the symbol ``alpha`` (as a string)."""
    N, SF, bb, beta, alpha = sp.symbols("N S_F b beta alpha", positive=True)
    cases = {
        "thm4.4": (sp.sqrt(N / T) / (6 * SF), 1 / sp.sqrt(N * T),
                   {"8 L^2/(beta B T)": (8 / (beta * T), sp.Rational(48, 5)),
                    "8 beta L^2/N": (8 * beta / N, sp.Rational(20, 3))}),
        "thm4.7": (N ** sp.Rational(2, 3) / (12 * SF * T ** sp.Rational(1, 3)),
                   (N * T) ** sp.Rational(-2, 3),
                   {"3 L^2/(beta B N T)": (3 / (beta * T ** sp.Rational(1, 3)
                                                / N ** sp.Rational(2, 3) * N * T),
                                           sp.Rational(72, 5) * bb),
                    "6 beta L^2/(N b)": (6 * beta / (N * bb), sp.Rational(5, 4) / bb ** 2)}),
    }
    out = {}
    for name, (a, unit, terms) in cases.items():
        sols = {}
        for term, (expr, printed) in terms.items():
            sol = sp.solve(sp.Eq(expr / unit, printed), beta)
            if len(sol) != 1:
                raise RuntimeError(f"{name}: cannot solve {term} = {printed} for beta")
            sols[term] = sp.simplify(sol[0])
        first = next(iter(sols.values()))
        agree = all(sp.simplify(v - first) == 0 for v in sols.values())
        eT = _exponents(first, T)[0] / _exponents(a, T)[0]
        coef = sp.simplify(first / a ** eT)
        in_alpha = sp.simplify(coef * alpha ** eT) if not coef.has(T) else None
        out[name] = {"solutions": {k: str(v) for k, v in sols.items()}, "agree": bool(agree),
                     "beta": str(in_alpha) if in_alpha is not None else None}
    return out


def wu_thm47_beta_orders() -> dict:
    """The orders k of a momentum beta = c alpha^k (c free of T) under which every term of
    Theorem 4.7's bound (Wu et al.), at Corollary 4.8's alpha = N^(2/3)/(12 S_F T^(1/3)) and
    B = T^(1/3)/N^(2/3), is O(T^(-2/3)), the corollary's rate in T: from the theorem's own terms,
    not from the corollary's printed coefficients. The terms' T orders: 2[F0 - F*]/(T alpha),
    3 L^2/(beta B N T), 13 L^2 c^2 alpha^2/(6 S_F^2) (c free of T) and 6 beta L^2/(N b).
    Returns the T exponent of each term as a function of k (strings), the set of k solving
    all the inequalities (a sympy set, as a string) and that k when the set is one point."""
    N, SF = sp.symbols("N S_F", positive=True)
    k = sp.Symbol("k", real=True)
    a = N ** sp.Rational(2, 3) / (12 * SF * T ** sp.Rational(1, 3))
    B = T ** sp.Rational(1, 3) / N ** sp.Rational(2, 3)
    beta = a ** k
    terms = {"2[F0 - F*]/(T alpha)": 1 / (T * a), "3 L^2/(beta B N T)": 1 / (beta * B * N * T),
             "13 L^2 c^2 alpha^2/(6 S_F^2)": a ** 2, "6 beta L^2/(N b)": beta / N}
    exps, sols = {}, sp.S.Reals
    for name, term in terms.items():
        e = sp.simplify(sp.expand_log(sp.log(term), force=True).diff(T) * T)  # d log / d log T
        exps[name] = str(e)
        sols = sols.intersect(sp.solveset(sp.Le(e, sp.Rational(-2, 3)), k, sp.S.Reals))
    point = next(iter(sols)) if isinstance(sols, sp.FiniteSet) and len(sols) == 1 else None
    return {"T exponents": exps, "orders": str(sols),
            "order": float(point) if point is not None else None}


def wu_parameter_conditions() -> dict:
    """Wu et al.'s corollary parameters as printed: Corollary 4.8's alpha = 1/(12 q S_F) with
    q = (T/N^2)^(1/3) and beta = c alpha^2 with c = 30 S_F^2/(b N) (simplified, as strings), and
    whether each corollary's alpha satisfies its theorem's condition alpha <= 1/(6 q S_F) for all
    N, T >= 1 (the ratio (1/(6 q S_F))/alpha is a monomial in N, T: it is >= 1 there iff its
    exponents are >= 0 and its coefficient >= 1)."""
    N, SF, bb = sp.symbols("N S_F b", positive=True)

    def at_least_one(ratio):
        ratio = sp.simplify(ratio)
        e = _exponents(ratio, N, T)
        if e is None:
            return False, str(ratio)
        coef = sp.simplify(ratio / (N ** e[0] * T ** e[1]))
        return bool(all(x >= 0 for x in e) and coef.is_number and coef >= 1), str(ratio)

    q42 = (T / N ** 3) ** sp.Rational(1, 4)
    a42 = sp.sqrt(N / T) / (6 * SF)
    q48 = (T / N ** 2) ** sp.Rational(1, 3)
    a48 = sp.simplify(1 / (12 * q48 * SF))
    beta48 = sp.simplify(30 * SF ** 2 / (bb * N) * a48 ** 2)
    ok42, r42 = at_least_one(1 / (6 * q42 * SF) / a42)
    ok48, r48 = at_least_one(1 / (6 * q48 * SF) / a48)
    beta45_lt_1 = sp.solve(sp.Lt(5 * SF * a42, 1), T)
    return {"alpha (4.8)": str(a48), "beta (4.8)": str(beta48),
            "alpha <= 1/(6 q S_F) (4.2, 4.5)": ok42, "alpha <= 1/(6 q S_F) (4.8)": ok48,
            "notes": f"(1/(6 q S_F))/alpha = {r42} (4.2, 4.5) and {r48} (4.8); FCSG-M's "
                     f"beta = 5 S_F alpha < 1 iff {beta45_lt_1}; q = (T/N^3)^(1/4) >= 1 needs "
                     f"T >= N^3 and q = (T/N^2)^(1/3) >= 1 (and B >= 1) T >= N^2"}


def complexity_exponents(key: str) -> dict:
    """Exponents of the derived complexities of one scheme (:func:`derive`) in the paper's own
    epsilon and in K (= N): iterations T, rounds, per-client and total samples. For a paper whose
    eps-stationarity is ||grad||^2 <= eps'^2 (``eps_sq``) the exponent in eps' is twice the one in
    eps. Returns {quantity: {"eps'" or "eps": e, "K": e}} (floats; None where the derived
    quantity is not a monomial)."""
    dv = derive(key)
    s = SCHEMES[key]
    name, scale = ("eps'", 2) if s.eps_sq else ("eps", 1)
    out = {}
    for q, expr in (("T", dv.iterations), ("rounds", dv.rounds),
                    ("samples per client", dv.per_client_samples),
                    ("samples total", dv.total_samples)):
        e = _exponents(expr, eps, K)
        out[q] = None if e is None else {name: float(e[0] * scale), "K": float(e[1])}
    return out


def _f_related():
    fcsg = derive("fcsg")
    speedup = fcsg.per_client_samples.has(K)
    return {"what": "FedDRO section 2 lists Wu et al. (2024) among works that 'do not guarantee "
                    "linear speedup with the number of clients', but its own Table 1 gives FCSG "
                    "O(K^-1 eps^-3) and Acc-FCSG-M O(K^-1 eps^-2.5) per client, and from Wu's "
                    "Corollary 4.2 / Remark 4.3 the per-client samples are "
                    f"{fcsg.per_client_samples}", "consistent": not speedup,
            "measured": str(fcsg.per_client_samples)}


def _f_zhang_intro():
    z = SCHEMES["localscgdam"]
    rounds_T = sp.simplify(T / z.local_steps)
    intro = T ** sp.Rational(3, 4) / K ** sp.Rational(3, 4)
    return {"what": f"AUC paper introduction: communication complexity O(T^(3/4)/K^(3/4)); with "
                    f"p = {z.local_steps} the rounds are T/p = {rounds_T} (Remark 1 has it right)",
            "consistent": same_order(rounds_T, intro, (T, K)), "measured": str(rounds_T)}


def _f_comfedl_batch():
    # Remark 1 as printed: eta = T^-1/2, b = b_1 = 1/T^alpha_2 with alpha_2 = 1
    printed_b = 1 / T
    term = sp.simplify(1 / sp.sqrt(printed_b))
    follows = same_order(term, T ** sp.Rational(-1, 2), (T,)) or \
        sp.limit(term * sp.sqrt(T), T, sp.oo).is_finite
    return {"what": "ComFedL Remarks 1-2 set b = 1/T^alpha_2 with alpha_2 > 0 (a batch below 1); "
                    f"with alpha_2 = 1 the bound's sigma/sqrt(b) term is {term}, which does not "
                    "vanish; b = T^alpha_2 gives the stated O(1/sqrt(T))",
            "consistent": bool(follows), "measured": str(term)}


def _f_wu_thm47():
    cc = corollary_constants()
    N = sp.Symbol("N", positive=True)
    term = sp.sympify(cc["thm4.7_beta_as_printed"]["term 6 beta L^2/(N b)"],
                      locals={"N": N, "T": T, "b": sp.Symbol("b", positive=True)})
    ratio = sp.simplify(term / (N * T) ** sp.Rational(-2, 3))
    bounded = sp.limit(ratio.subs(N, 1), T, sp.oo).is_finite
    return {"what": "Theorem 4.7 prints beta = 5 S_F alpha; with it the term 6 beta L^2/(N b) is "
                    f"{term}, not O((NT)^(-2/3)); Corollary 4.8 uses beta = c alpha^2 "
                    "(c = 30 S_F^2/(b N)), which gives its constants exactly",
            "consistent": bool(bounded), "measured": str(term)}


def _f_wu_cor42():
    cc = corollary_constants()
    bad = [k for k, v in cc["cor4.2"].items() if not v["follows"]]
    return {"what": f"Corollary 4.2 constants from Theorem 4.1: {cc['cor4.2']}; not following: "
                    f"{bad}", "consistent": not bad, "measured": cc["cor4.2"]}


def _f_wu_thm44():
    # derived: Corollary 4.5's printed 48/5 and 20/3 imply beta in terms of the step alpha;
    # the theorem prints 5 S_F eta, and eta is not the step size in this paper (it is the
    # inner random variable eta^n | xi^n; the step is alpha)
    implied = wu_implied_momentum()["thm4.4"]
    printed = sp.sympify("5*S_F*eta")
    same = implied["beta"] is not None and sp.simplify(sp.sympify(implied["beta"]) - printed) == 0
    return {"what": "Theorem 4.4 sets beta = 5 S_F eta, but the FCSG paper's step size is alpha "
                    "(eta denotes the inner samples there); Corollary 4.5's printed constants "
                    f"imply beta = {implied['beta']} (both terms agree: {implied['agree']})",
            "consistent": bool(same), "measured": implied["beta"]}


_FINDINGS = {"khanduri.sec2.related": _f_related, "zhang.sec1": _f_zhang_intro,
             "huang.rem1": _f_comfedl_batch, "wu.thm4.7": _f_wu_thm47, "wu.cor4.2": _f_wu_cor42,
             "wu.thm4.4": _f_wu_thm44}


@functools.lru_cache(maxsize=None)
def _finding(fid: str) -> dict:
    return {"id": fid, **_FINDINGS[fid]()}


def findings() -> list[dict]:
    """Disagreements between and within papers found by the derivations, then the unstated
    regimes the stated complexities need."""
    out = [dict(_finding(fid)) for fid in _FINDINGS]
    for dv in derive_all():
        for r in dv.regimes:
            out.append({"id": f"{dv.paper}.{dv.key}.regime", "what": f"{dv.algorithm}: {r}",
                        "consistent": None, "measured": None})
    return out


def format_table() -> str:
    """Text rendering: the complexity table, the Table-1 comparison and the findings."""
    import pandas as pd
    df = complexity_table()
    with pd.option_context("display.max_colwidth", 60, "display.width", 250):
        lines = ["Complexities in the convention E||grad Phi||^2 <= eps (K clients, d = model "
                 "dimension, d_g = inner dimension)", "",
                 df.drop(columns=["flags"]).to_string(index=False), ""]
    lines.append("Flags and regimes:")
    for _, r in df.iterrows():
        if r["flags"]:
            lines.append(f"  {r['algorithm']}: {r['flags']}")
    lines.append("")
    lines.append("FedDRO Table 1 versus the algorithms' own papers (COMP. read as per client):")
    for e in table1_comparison():
        if e["derivable"]:
            lines.append(f"  {e['algorithm']:12s} table: batch {e['table_batch']}, comp "
                         f"{e['table_comp']}, comm {e['table_comm']} | derived: batch "
                         f"{e['derived_batch']}, comp {e['derived_comp']}, comm "
                         f"{e['derived_comm']} -> {'consistent' if e['consistent'] else 'MISMATCH'}")
        else:
            lines.append(f"  {e['algorithm']:12s} table: batch {e['table_batch']}, comp "
                         f"{e['table_comp']}, comm {e['table_comm']} | not derivable here "
                         f"({e['detail']})")
    lines.append("")
    lines.append("Findings:")
    for f in findings():
        tag = {True: "ok", False: "INCONSISTENT", None: "regime"}[f["consistent"]]
        lines.append(f"  [{tag}] {f['id']}: {f['what']}")
    return "\n".join(lines)


def complexity_json() -> dict:
    return {"convention": "E||grad Phi||^2 <= eps",
            "rows": [dv.row() for dv in derive_all()],
            "table1": table1_comparison(),
            "findings": [{**f, "consistent": f["consistent"]} for f in findings()],
            "corollary_constants": corollary_constants()}


# --------------------------------------------------------------------------------------------
# claim checks (signature check(profile, out_dir) -> CheckResult)

def bound_rate_exponents(key: str, params: dict | None = None) -> dict:
    """Exponent in T of every term of a scheme's bound under its parameter choices (or `params`,
    a mapping of the scheme's symbols to expressions in T replacing them), and the slowest one:
    the rate the bound gives. Terms are taken with K fixed (a scheme with K in its terms reports
    only the T exponent)."""
    if key not in SCHEMES:
        raise ValueError(f"unknown scheme {key!r}; known: {sorted(SCHEMES)}")
    s = SCHEMES[key]
    sub = dict(s.params)
    for k, v in (params or {}).items():
        sym = {str(x): x for x in sub}.get(str(k), k)
        sub[sym] = _s(v) if isinstance(v, str) else sp.sympify(v)
    out = {}
    for term in s.rate_terms:
        t = sp.simplify(term.subs(sub))
        e = _exponents(t, T)
        out[str(term)] = None if e is None else float(e[0])
    finite = [v for v in out.values() if v is not None]
    return {"terms": out, "rate": max(finite) if finite else None,
            "params": {str(k): str(v) for k, v in sub.items()}}


def complexities_from_rate(key: str, rate_exponent: float) -> dict:
    """Exponents in eps of the iterations T, the batch, the per-client samples and the rounds
    for E||grad||^2 <= eps when the bound is O(T^rate_exponent), with the scheme's batch and
    local-step choices. A rate exponent >= 0 never reaches eps: every quantity is None and
    `reason` says so (no division by zero)."""
    if key not in SCHEMES:
        raise ValueError(f"unknown scheme {key!r}; known: {sorted(SCHEMES)}")
    if isinstance(rate_exponent, bool) or not isinstance(rate_exponent, (int, float)):
        raise ValueError(f"rate_exponent must be a number, got {rate_exponent!r}")
    s = SCHEMES[key]
    r = sp.nsimplify(rate_exponent)
    if r >= 0:
        return {"iterations": None, "batch": None, "samples per client": None, "rounds": None,
                "reason": f"a bound O(T^{float(r):g}) does not vanish as T grows: no number of "
                          f"iterations reaches E||grad||^2 <= eps < 1"}
    spi = _exponents(sp.simplify(s.samples_per_iter.subs(s.params)), T)
    loc = _exponents(sp.simplify(s.local_steps.subs(s.params)), T)
    if spi is None or loc is None:
        raise ValueError(f"scheme {key!r}: samples per iteration or local steps not a power of T")
    t_exp = 1 / r                       # T = eps^(1/r)
    return {"iterations": float(t_exp), "batch": float(spi[0] * t_exp),
            "samples per client": float((1 + spi[0]) * t_exp),
            "rounds": float((1 - loc[0]) * t_exp), "reason": ""}
