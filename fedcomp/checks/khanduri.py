"""Claims of Khanduri et al., On Federated Compositional Optimization (FedDRO / DS-FedDRO, TMLR),
each declared with its check (see :mod:`fedcomp.checks` and docs/checks.md).

This module holds the counterexample (Theorem 4.1), the DRO reformulations of section 2.1, Lemma
3.5, Table 1 and its related-work paragraph, Definitions 3.6-3.7, the computation remark after
Algorithm 3 and the experiments of section 6. The rate group (Theorems 4.2, 4.3, 5.2, Corollaries
4.4, 5.3, Remark 4.5 and their derivations) is at the end of the module (``RATE_CLAIMS``).

The mathematics lives elsewhere: :mod:`fedcomp.counterexamples.thm41` (the reproduction),
:mod:`fedcomp.theory.dro` (inner maximisations, certified numerically), :mod:`fedcomp.theory.
constants` (Assumption 3.2's constants with interval arithmetic), :mod:`fedcomp.theory.complexity`
(the complexity derivations and the printed Table 1). Here: the measure/judge split and the
verdicts, with the rules of :mod:`fedcomp.rates.verdict`.

Rates and complexities measured (Theorems 4.2, 4.3, 5.2; Corollaries 4.4, 5.3; Remark 4.5)
-------------------------------------------------------------------------------------------
Measurements: :mod:`fedcomp.rates.feddro` (sweeps under the theorems' schedules, stored and
resumable under ``out_dir/data``; fits with 95 % intervals). Verdict rules:
:mod:`fedcomp.rates.verdict`.

* Exponents are upper bounds (:func:`fedcomp.rates.verdict.upper_bound_verdict`): fail when the
  measured decay is slower than predicted; an interval reaching more than the margin
  (``RATE_MARGIN``) beyond -1/2 in T or K (``SGD_FLOOR``) is inconclusive: under the theorems'
  schedules the noise floor of an SGD-type iteration is of order eta sigma^2 / K = (KT)^(-1/2),
  the lower bound of stochastic first-order methods with KT samples (Arjevani et al., 2023) is
  of the same order, so a steeper decay means the noise does not dominate on that run: outside
  the regime the bound describes. The detail reports tightness and whether the local slopes
  have settled.
* Complexities ``cost = O(eps^a)`` are read as ``eps <= C cost^(1/a)`` along the schedule: an
  upper bound on the slope of eps against the cost (samples per client T, model rounds,
  Definition 3.7 exchanges, or floats), with the floor -1/2 in T carried into the cost by how
  the cost grows with T along the grid (``cost_floor``). Linear speed-up: samples per client to
  reach a fixed eps against K, predicted K^-1; reaching more than the margin beyond K^-1
  (super-linear, ``SPEEDUP_FLOOR``) is inconclusive.

Readings (issue 13): the printed (8) has two readings, judged separately --
``khanduri.thm4.3`` the anchored estimator (fedcomp's ``feddro``: (8) subtracts g_k at the
client's own previous iterate) and ``khanduri.thm4.3.literal`` the box read literally
(``feddro-literal``). "Communication complexity" has two readings: Definition 3.7 (every
client-server exchange is a round; FedDRO uploads y every iteration), ``khanduri.cor4.4``, and
model-averaging rounds (the paper's Remark 4.5 books the y uploads as floats),
``khanduri.cor4.4.model-rounds``. For DS-FedDRO both readings coincide (x and y travel only at
the I-th iterations).
"""
from __future__ import annotations

import copy
import math
from pathlib import Path

import numpy as np

from fedcomp.checks.stored import AT, experiment_check, local_steps_check
from fedcomp.neural.experiments import LOCAL_STEPS
from fedcomp.checks.core import (PAPERS, Check, CheckResult, Claim, Measure, Measurement,
                                 deciding_interval)
from fedcomp.checks.predict import combine as combine_wrong
from fedcomp.checks.predict import (cheaper, each, flipped, itself, parse_expression, scaled,
                                    shifted, steeper, times)
from fedcomp.runner.results import run
from fedcomp.rates.parts import SPEEDUP_PART, communication_part, rate_part
from fedcomp.rates.verdict import (SGD_FLOOR, SGD_FLOOR_REASON, SPEEDUP_FLOOR,
                                   SPEEDUP_FLOOR_REASON, bound_constant_verdict, combine,
                                   cost_floor, equal_verdict, exponent_verdict,
                                   local_slopes, record_comparison, upper_bound_verdict,
                                   vanishing_order_verdict)

PAPER = "khanduri"


def _result(parts, predicted, measured, head: str) -> CheckResult:
    """CheckResult of several verdict parts (fail if any fails, pass if all pass)."""
    verdict = combine([v.verdict for v in parts])
    detail = head + "; ".join(f"[{v.verdict}] {v.reason}" for v in parts)
    return CheckResult(verdict, predicted, measured, detail)


# =============================================================================================
# Theorem 4.1: vanilla FedAvg (Case I and II) does not converge for I > 1
# =============================================================================================
THM41_KEYS = {"fedavg-case1": "Case I: limit gap > 0 for every I > 1 as eta -> 0",
              "fedavg-case2": "Case II: limit gap > 0 for every I > 1 as eta -> 0"}


def measure_thm41(profile, out_dir) -> Measurement:
    """The reproduction of :mod:`fedcomp.counterexamples.thm41`: exact eta -> 0 limits (sympy) on
    the scalar instance, simulated limits against the closed forms, the overdetermined and the
    nonlinear KL-DRO instances, and the contrast (modified FedAvg / FedDRO reach the stationary
    point on the same instances)."""
    from fedcomp.counterexamples import thm41
    from fedcomp.figures import plot
    from fedcomp.figures.counterexample import thm41_figures
    rep = thm41.reproduce(profile, None)
    by_alg = {alg: [c for c in rep.checks if alg in c["name"] and not c.get("informational")]
              for alg in THM41_KEYS}
    evidence = {THM41_KEYS[a]: bool(cs) and all(c["passed"] for c in cs)
                for a, cs in by_alg.items()}
    setup = [c for c in rep.checks if not any(a in c["name"] for a in THM41_KEYS)]
    i1 = {c["name"]: c["measured"] for c in rep.checks if c.get("informational")}
    limits = {}
    for c in rep.checks:
        if c["name"].startswith("scalar: fedavg-case") and "eta->0 limit" in c["name"]:
            limits[c["name"]] = c["measured"]
    return Measurement(
        values={"gap bounded away from 0": evidence,
                "evidence": {a: [{"name": c["name"], "passed": c["passed"],
                                  "measured": c["measured"]} for c in cs]
                             for a, cs in by_alg.items()},
                "setup": [{"name": c["name"], "passed": c["passed"], "measured": c["measured"]}
                          for c in setup],
                "eta_to_0_grad_norms_scalar": limits, "I=1 (informational)": i1},
        figures=[plot(f"figures/khanduri.thm4.1-{stem.replace('_', '-')}.png", draw, arg)
                 for stem, draw, arg in thm41_figures(rep.figure_data)],
        detail=f"thm41.reproduce({profile!r}): {len(rep.rows)} runs, {rep.seconds:.0f} s")


def judge_thm41(predicted, m: Measurement) -> CheckResult:
    v = m.values
    bad_setup = [c["name"] for c in v["setup"] if not c["passed"]]
    measured = {"gap bounded away from 0": v["gap bounded away from 0"],
                "eta_to_0_grad_norms_scalar": v["eta_to_0_grad_norms_scalar"]}
    case1_i1 = [x for k, x in v["I=1 (informational)"].items() if "case1" in k]
    note = ("; finding: Case I also fails at I = 1 (||grad Phi|| at the eta -> 0 limit "
            + ", ".join(f"{x:.3g}" for x in case1_i1) + "), Case II at I = 1 is gradient descent "
            "on Phi" if case1_i1 else "")
    if bad_setup:
        return CheckResult("inconclusive", predicted, measured,
                           f"the reproduction's own checks failed ({bad_setup}): the simulated "
                           "limits do not match the closed forms, leave the Huber ball, or the "
                           "algorithms that share y do not reach the stationary point, so the "
                           "gaps are not evidence" + note)
    parts = [equal_verdict(k, v["gap bounded away from 0"][k], predicted[k]) for k in predicted]
    res = _result(parts, predicted, measured,
                  "exact eta -> 0 limits (scalar instance), the smallest-eta gap on the "
                  "overdetermined instance and the nonlinear KL-DRO limits; setup checks passed "
                  f"({len(v['setup'])}): ")
    res.detail += note
    return res


# =============================================================================================
# Section 2.1: (4) and (5) as CO reformulations of the DRO problem (3)
# =============================================================================================
def _loss_groups(profile: str, seed: int, spread: float):
    """Groups of loss vectors sharing (lambda, m): equivalence is for fixed lambda and m, as x
    (hence the losses) varies."""
    rng = np.random.default_rng(seed)
    n_groups, n_vec = (4, 6) if profile in ("quick", "smoke") else (12, 12)
    out = []
    for _ in range(n_groups):
        m = int(rng.integers(3, 10))
        lam = float(np.exp(rng.uniform(np.log(0.3), np.log(5.0))))
        out.append((lam, [rng.uniform(-spread, spread, m) for _ in range(n_vec)]))
    return out


def _dro_measure(kind: str, profile: str) -> Measurement:
    from fedcomp.theory import dro
    derivation = dro.derive_kl() if kind == "kl" else dro.derive_chi2()
    groups, worst_cert = [], 0.0
    for lam, vecs in _loss_groups(profile, 1 if kind == "kl" else 2, 4.0 if kind == "kl" else 3.0):
        vals = []
        for l in vecs:
            r = dro.kl_report(l, lam) if kind == "kl" else dro.chi2_report(l, lam)
            # value: the certified numerical maximum of the inner problem of (3) (mirror ascent /
            # SLSQP, Frank-Wolfe gap as certificate), not the closed form being judged
            vals.append(r["value_numerical"])
            worst_cert = max(worst_cert, r["fw_gap_numerical"])
        groups.append({"lam": lam, "losses": [v.tolist() for v in vecs], "values": vals})
    return Measurement(values={"groups": groups, "max_fw_gap": worst_cert,
                               "derivation_holds": bool(derivation.holds)},
                       detail=f"{len(groups)} (lambda, m) groups of {len(groups[0]['values'])} "
                              "loss vectors; inner max of (3) solved numerically and certified "
                              f"(max Frank-Wolfe gap {worst_cert:.1e}); sympy KKT derivation "
                              f"holds: {derivation.holds}")


def measure_eq4(profile, out_dir) -> Measurement:
    return _dro_measure("kl", profile)


def measure_eq5(profile, out_dir) -> Measurement:
    return _dro_measure("chi2", profile)


def _co_objective(predicted):
    """Phi(l) = f(g(l)) + h(l) from the predicted g, f, h (sympy in the loss vector l, lam, m,
    the inner value u of f; ``mean`` the mean over the samples)."""
    import sympy as sp
    l, lam, m, u = sp.symbols("l lam m u")
    mods = [{"mean": np.mean, "Sum": np.sum}, "numpy"]
    g = sp.lambdify((l, lam, m), parse_expression(predicted["g"], "g"), mods)
    f = sp.lambdify((u, lam), parse_expression(predicted["f"], "f"), mods)
    h = sp.lambdify((l, lam, m), parse_expression(predicted["h"], "h"), mods)

    def phi(losses, lam_value):
        arr = np.asarray(losses, dtype=float)
        gv = g(arr, lam_value, arr.size)
        return float(np.squeeze(f(gv, lam_value))) + float(np.squeeze(
            np.broadcast_to(h(arr, lam_value, arr.size), ())))
    return phi


def judge_reformulation(predicted, m: Measurement) -> CheckResult:
    """Reading: the CO objective f(g) + h is the min-max value of (3) up to a positive factor and
    an additive constant for fixed lambda and m (so the same minimisers and stationary points).
    Per (lambda, m) group: least-squares fit Phi = a V + c over the loss vectors; fail when the
    residual exceeds the certified accuracy or a <= 0."""
    v = m.values
    phi = _co_objective(predicted)
    parts, fits = [], []
    tol = 1e-6
    for grp in v["groups"]:
        V = np.asarray(grp["values"])
        P = np.asarray([phi(l, grp["lam"]) for l in grp["losses"]])
        if not np.all(np.isfinite(P)):
            parts.append(equal_verdict(f"lambda={grp['lam']:.3g}: f(g)+h finite", False, True))
            continue
        A = np.c_[V, np.ones_like(V)]
        (a, c), *_ = np.linalg.lstsq(A, P, rcond=None)
        resid = float(np.max(np.abs(A @ np.array([a, c]) - P)) / (1.0 + np.max(np.abs(P))))
        fits.append({"lam": grp["lam"], "m": len(grp["losses"][0]), "factor": float(a),
                     "offset": float(c), "max_rel_residual": resid})
        parts.append(equal_verdict(f"lambda={grp['lam']:.3g}, m={len(grp['losses'][0])}: "
                                   "residual of f(g)+h = a*V + c (relative)", resid, 0.0, atol=tol))
        parts.append(equal_verdict(f"lambda={grp['lam']:.3g}: factor a={a:.4g} > 0", bool(a > 0),
                                   True))
    if not v["derivation_holds"]:
        parts.append(equal_verdict("sympy KKT derivation of the inner maximiser", False, True))
    bad = [p for p in parts if p.verdict == "fail"]
    shown = bad[:3] if bad else parts[:2]
    res = CheckResult(combine([p.verdict for p in parts]), predicted, {"fits": fits},
                      f"{len(fits)} groups, tolerance {tol:g} relative; "
                      + "; ".join(f"[{p.verdict}] {p.reason}" for p in shown)
                      + (f" (+{len(bad) - len(shown)} more failing parts)" if bad else ""))
    return res


def _negate(path):
    return each([path], lambda s: f"-({s})")


def _shift_g(s):
    return f"({s}) + 1"


# =============================================================================================
# Section 2.1: "(4) and (5) can be restated in the FL setting of (2)"
# =============================================================================================
def measure_fl_restatement(profile, out_dir) -> Measurement:
    """g = (1/K) sum_k g_k with g_k the mean over client k's m_k samples puts the weight
    1/(K m_k) on each sample of client k (definition (2)); the FL forms of (4)/(5) are then the
    DRO values with that reference distribution. Both verified numerically (equal and unequal
    client sizes); the weight is returned as a sympy expression for the judge."""
    from fedcomp.theory import dro
    import sympy as sp
    out = {}
    for name, sizes, rw in (("equal sizes (20, 20, 20)", (20, 20, 20), False),
                            ("sizes (5, 20, 75)", (5, 20, 75), False),
                            ("sizes (5, 20, 75), g_k weighted by K m_k/m", (5, 20, 75), True)):
        r = dro.federated_restatement(client_sizes=sizes, reweighted=rw)
        q = dro.federated_weights(sizes, reweighted=rw)
        K, msum = len(sizes), sum(sizes)
        expected = np.concatenate([np.full(s, 1.0 / (K * s) * (K * s / msum if rw else 1.0))
                                   for s in sizes])
        out[name] = {
            "weights_match_the_construction": bool(np.allclose(q, expected, rtol=1e-14,
                                                               atol=0)),
            "fl_form_equals_dro_with_construction_weights": bool(
                abs(r["kl_fl_form"] - r["kl_dro_reference_q"]) < 1e-9
                and abs(r["chi2_fl_corrected_form"] - r["chi2_dro_reference_q"]) < 1e-9),
            "kl_fl_minus_uniform_dro": r["kl_fl_form"] - r["kl_dro_uniform"],
            "chi2_fl_minus_uniform_dro": r["chi2_fl_corrected_form"] - r["chi2_dro_uniform"],
            "m": msum, "K": K}
    K, mk, mm = sp.symbols("K m_k m", positive=True)
    plain = 1 / K * (1 / mk)                       # (1/K) x client k's mean
    return Measurement(values={"instances": out, "derived_weight": sp.sstr(plain),
                               "derived_weight_reweighted": sp.sstr(sp.simplify(
                                   plain * K * mk / mm))},
                       detail="federated_restatement (lambda = 4, losses in [0, 3]) with client "
                              "sizes (20, 20, 20) and (5, 20, 75), the latter also with g_k "
                              "weighted by K m_k/m")


def _judge_fl(equal_sizes: bool, reweighted: bool = False):
    def judge(predicted, m: Measurement) -> CheckResult:
        import sympy as sp
        v = m.values
        K, mk, mm = sp.symbols("K m_k m")
        derived = parse_expression(v["derived_weight_reweighted" if reweighted
                                     else "derived_weight"])
        if equal_sizes:
            derived = derived.subs(mk, mm / K)
        key = "weight of a sample of client k"
        inst = v["instances"]["equal sizes (20, 20, 20)" if equal_sizes else
                              "sizes (5, 20, 75), g_k weighted by K m_k/m" if reweighted else
                              "sizes (5, 20, 75)"]
        ok = (inst["weights_match_the_construction"]
              and inst["fl_form_equals_dro_with_construction_weights"])
        if not ok:
            return CheckResult("inconclusive", predicted, inst, "the numerical confirmation of "
                               "the derived weight failed (the FL form is not the DRO with the "
                               "construction's reference weights)")
        # the statement itself: the FL objectives equal the DRO (3) values (uniform reference),
        # which a per-sample weight of 1/m implies
        same = bool(abs(inst["kl_fl_minus_uniform_dro"]) < 1e-9
                    and abs(inst["chi2_fl_minus_uniform_dro"]) < 1e-9)
        claimed = sp.simplify(parse_expression(str(predicted[key]), key) - 1 / mm) == 0
        parts = [equal_verdict(key, sp.sstr(sp.simplify(derived)), predicted[key]),
                 equal_verdict("FL form of (4) and (5) = the DRO (3) values (within 1e-9)",
                               same, bool(claimed))]
        return _result(parts, predicted, {"derived weight": sp.sstr(derived), **inst},
                       f"FL form of (4)/(5) on client sizes "
                       f"{'(20, 20, 20)' if equal_sizes else '(5, 20, 75)'}"
                       f"{' with g_k weighted by K m_k/m' if reweighted else ''}: KL value minus "
                       f"DRO (3) value {inst['kl_fl_minus_uniform_dro']:+.4f}, chi-square (corrected "
                       f"form) {inst['chi2_fl_minus_uniform_dro']:+.4f}; ")
    return judge


# =============================================================================================
# Lemma 3.5: L_Phi = L_h + B_f L_g + B_g^2 L_f
# =============================================================================================
LEM35_SYMBOLS = ("L_h", "B_f", "L_g", "B_g", "L_f", "B_h")


def measure_lem35(profile, out_dir) -> Measurement:
    """Assumption 3.2's constants (proven bounds) and the supremum of ||Hess Phi||_2 on the box:
    certified upper bound (interval branch and bound on Phi's Hessian for symbolic problems,
    exact for the affine-quadratic ones) and the largest value found (a lower bound)."""
    from fedcomp.theory.constants import constants, lemma35_cases
    rows = []
    for name, p, lo, hi in lemma35_cases(profile):
        c = constants(p, lo, hi, direct=True, verify="mpmath" if profile == "full" else None)
        rows.append({"case": name, **{k: float(getattr(c, k)) for k in LEM35_SYMBOLS},
                     "constants_certified": bool(c.certified),
                     "sup_certified_upper": (None if c.L_phi_certified is None
                                             else float(c.L_phi_certified)),
                     "sup_observed": float(c.L_phi_observed),
                     "L_phi_bound": float(c.L_phi_bound), "L_phi_observed": float(c.L_phi_observed)})
    return Measurement(values={"cases": rows},
                       detail=f"{len(rows)} problems on boxes (lemma35_cases({profile!r}))")


def judge_lem35(predicted, m: Measurement) -> CheckResult:
    """Per case, the predicted expression at the certified constants against sup ||Hess Phi||:
    fail when a point exceeds it; pass (with the looseness factor) when it is at least a
    certified upper bound of the supremum; otherwise no decision from that case. The claim
    passes when every case with a certified supremum passes and no case fails."""
    import sympy as sp
    expr = parse_expression(predicted["L_Phi"], "L_Phi")
    syms = {s: sp.Symbol(s) for s in LEM35_SYMBOLS}
    unknown = {str(s) for s in expr.free_symbols} - set(LEM35_SYMBOLS)
    if unknown:
        raise ValueError(f"L_Phi may use only {LEM35_SYMBOLS}, got {sorted(unknown)}")
    parts, rows = [], []
    for r in m.values["cases"]:
        pv = float(expr.subs({syms[k]: r[k] for k in LEM35_SYMBOLS}))
        obs, cert = r["sup_observed"], r["sup_certified_upper"]
        name = f"{r['case']}"
        if not r["constants_certified"]:
            v = bound_constant_verdict(name, pv, obs, False, obs)
        elif obs > pv * (1 + 1e-9) + 1e-300:
            v = bound_constant_verdict(name, pv, obs, False, obs)          # a point exceeds
        elif cert is not None and cert <= pv * (1 + 1e-9):
            v = bound_constant_verdict(name, pv, cert, True, obs)          # certified pass
        else:
            v = bound_constant_verdict(name, pv, obs, False, obs)          # undecided
        parts.append((cert is not None and r["constants_certified"], v))
        rows.append({"case": r["case"], "predicted_L_Phi": pv, "sup_observed": obs,
                     "sup_certified_upper": cert, "verdict": v.verdict,
                     "tightness_vs_observed": pv / obs if obs > 0 else math.inf})
    decisive = [v.verdict for c, v in parts if c]
    fails = [v for _, v in parts if v.verdict == "fail"]
    if fails:
        verdict = "fail"
    elif decisive and all(x == "pass" for x in decisive):
        verdict = "pass"
    else:
        verdict = "inconclusive"
    ratios = [x["tightness_vs_observed"] for x in rows if math.isfinite(x["tightness_vs_observed"])]
    undecided = [x["case"] for x, (c, _) in zip(rows, parts) if not c and x["verdict"] != "fail"]
    shown = fails[:3] if fails else [v for c, v in parts if c][:3]
    detail = (f"{len(rows)} cases, {len(decisive)} with a certified supremum of ||Hess Phi||; "
              f"tightness (predicted / observed sup) {min(ratios):.4g} .. {max(ratios):.4g}; "
              + "; ".join(f"[{v.verdict}] {v.reason}" for v in shown)
              + (f"; no certified supremum (can only fail, none did): {undecided}"
                 if undecided else ""))
    return CheckResult(verdict, predicted, {"cases": rows, "min_tightness": min(ratios),
                                            "max_tightness": max(ratios)}, detail,
                       bounds=[v.bound for _, v in parts])


# =============================================================================================
# Table 1 and the related-work paragraph
# =============================================================================================
TABLE1_IDS = {"ComFedL": "comfedl", "Local-SCGDM": "local-scgdm", "FCSG": "fcsg",
              "Acc-FCSG-M": "acc-fcsg-m", "FedNest": "fednest", "FedBiOAcc": "fedbioacc",
              "FedMBO": "fedmbo", "SimFBO": "simfbo", "Fed-DR-SCGD": "fed-dr-scgd",
              "GCIVR": "gcivr", "FedDRO": "feddro", "DS-FedDRO": "ds-feddro"}
QUANTITIES = ("batch", "comp", "comm")


def _exps(expr) -> dict | str:
    """{"eps": a, "K": b} of a monomial eps^a K^b (numbers), else the expression as a string."""
    from fedcomp.theory import complexity as C
    e = C._exponents(expr, C.eps, C.K)
    if e is None:
        return str(expr)
    return {"eps": float(e[0]), "K": float(e[1])}


def _printed_row(name: str) -> dict:
    """The printed Table 1 row (one home: fedcomp.theory.complexity.TABLE1) as exponents."""
    from fedcomp.theory import complexity as C
    row = C.TABLE1[name]
    if name == "GCIVR":   # the table prints batches sqrt(m) (inner), m (outer) and a minimum
        return {"batch": {"inner": "sqrt(m)", "outer": "m"},
                "comp": "Min(sqrt(m)/epsilon, epsilon**(-3/2))", "comm": _exps(row["comm"])}
    return {q: _exps(row[q]) for q in QUANTITIES}


def measure_table1(profile, out_dir) -> Measurement:
    """Each derivable row from its own paper's theorem (fedcomp.theory.complexity.derive):
    batch, per-client samples and rounds as exponents of eps and K."""
    from fedcomp.theory import complexity as C
    out = {}
    for e in C.table1_comparison():
        if not e["derivable"]:
            continue
        dv = C.derive(C.TABLE1[e["algorithm"]]["scheme"])
        out[e["algorithm"]] = {"batch": _exps(dv.batch), "comp": _exps(dv.per_client_samples),
                               "comm": _exps(dv.rounds), "source": dv.source,
                               "expressions": {"batch": str(dv.batch),
                                               "comp": str(dv.per_client_samples),
                                               "comm": str(dv.rounds)},
                               # Definition 3.7 for an algorithm that uploads at every
                               # iteration (FedDRO's y): its rounds are its iterations
                               "iterations": _exps(dv.iterations),
                               "iterations_expression": str(dv.iterations),
                               "regimes": list(dv.regimes)}
    return Measurement(values=out, detail="sympy derivations of fedcomp.theory.complexity "
                                          "(each algorithm's own theorem and parameters)")


#: FedDRO's rounds under Definition 3.7 (its T(eps) iterations, K^-1 eps^-2) against a printed
#: K-free O(eps^-1.5): the orders differ in eps and in K; the K difference alone would be
#: favourable, the eps one is what no K on the admissible range repairs
_DEF37_K = ("under Definition 3.7 FedDRO's rounds are K^-1 eps^-2: the K exponent differs in "
            "the favourable direction (rounds fall with K), which alone would refute no upper "
            "bound, but on the row's own admissible range (I = K^-3/4 T^1/4 >= 1, i.e. "
            "K <= eps^-1/2) they are at least eps^-1.5, equal only at I = 1: the eps exponent "
            "is the refutation")


def _as_definition_37(row: dict) -> dict:
    """A derived row (measure_table1) with COMM. as Definition 3.7 counts it for an algorithm
    uploading at every iteration: its rounds are its T(eps) iterations (:data:`_DEF37_K`)."""
    return {**row, "comm": row["iterations"],
            "expressions": {**row["expressions"], "comm": row["iterations_expression"]}}


def _row_parts(name, pred_row, meas_row):
    """The row's exponents against the derivation's (the same order: each exponent equal)."""
    parts = []
    for q in QUANTITIES:
        for var in ("eps", "K"):
            dv = meas_row[q]
            if isinstance(dv, str):
                parts.append(equal_verdict(f"{name} {q}", dv, str(pred_row[q])))
                continue
            parts.append(equal_verdict(f"{name} {q} exponent of {var}", dv[var],
                                       pred_row[q][var], atol=1e-12))
    return parts


def _judge_row(name, every_iteration: bool = False):
    """The judge of Table 1's row `name`; `every_iteration`: COMM. as Definition 3.7 counts it
    for an algorithm that uploads at every iteration (its rounds are its T(eps) iterations)."""
    def judge(predicted, m: Measurement) -> CheckResult:
        row = m.values[name]
        if every_iteration:
            row = {**_as_definition_37(row),
                   "source": row["source"] + ", COMM. as Definition 3.7 counts it (FedDRO "
                                             "uploads y at every iteration: rounds = T(eps))"}
        parts = _row_parts(name, predicted, row)
        bad = [p for p in parts if p.verdict == "fail"]
        return CheckResult(combine([p.verdict for p in parts]), predicted,
                           {q: row[q] for q in QUANTITIES} | {"derived": row["expressions"]},
                           f"Table 1 row {name} vs the derivation from {row['source']} "
                           f"(batch, per-client samples, rounds; E||grad||^2 <= eps): "
                           + ("; ".join(f"[fail] {p.reason}" for p in bad) if bad else
                              "every exponent agrees")
                           + (f"; {_DEF37_K}" if every_iteration else "")
                           + (f"; regimes: {'; '.join(row['regimes'])}" if row["regimes"] else ""))
    return judge


#: the rows whose COMM. Table 1 counts as Definition 3.7 does, an upload at every iteration
#: (FedDRO's y): the whole table reads the paper's own definition
_EVERY_ITERATION = ("FedDRO",)


def judge_table1(predicted, m: Measurement) -> CheckResult:
    rows = {n: _as_definition_37(m.values[n]) if n in _EVERY_ITERATION else m.values[n]
            for n in predicted}
    parts = [p for name, row in predicted.items() for p in _row_parts(name, row, rows[name])]
    bad = [p for p in parts if p.verdict == "fail"]
    return CheckResult(combine([p.verdict for p in parts]), predicted,
                       {n: {q: rows[n][q] for q in QUANTITIES} for n in predicted},
                       f"{len(predicted)} rows derivable from the five papers, "
                       f"{len(parts)} exponents, COMM. as Definition 3.7 counts it (FedDRO's "
                       f"rounds its T(eps) iterations; {_DEF37_K}): "
                       + ("; ".join(f"[fail] {p.reason}" for p in bad) if bad else
                          "every exponent agrees with its paper's derivation"))


RELATED = {"Huang et al. (2021)": ("ComFedL", "derived from ComFedL Theorem 1 / Remark 1"),
           "Haddadpour et al. (2022)": ("GCIVR", "Table 1's own row (paper not among the five)"),
           "Tarzanagh et al. (2022)": ("FedNest", "Table 1's own row (paper not among the five)"),
           "Gao et al. (2022)": ("Local-SCGDM", "Table 1's own row (paper not among the five)"),
           "Wu et al. (2024)": ("FCSG", "derived from Wu et al. Corollary 4.2 / Remark 4.3")}


def measure_related(profile, out_dir) -> Measurement:
    """Whether each cited work's per-client sample complexity decreases with K (linear speed-up):
    derived from the work's own theorem where it is among the five papers, otherwise read from
    Table 1's row for it."""
    from fedcomp.theory import complexity as C
    out = {}
    for who, (alg, how) in RELATED.items():
        row = C.TABLE1[alg]
        comp = C.derive(row["scheme"]).per_client_samples if row["scheme"] else row["comp"]
        out[who] = {"algorithm": alg, "per-client samples": str(comp), "how": how,
                    "linear speed-up": bool(C._exponents(comp, C.eps, C.K)[1] < 0)}
    acc = C.derive("acc-fcsg-m").per_client_samples
    out["Wu et al. (2024)"]["also Acc-FCSG-M"] = str(acc)
    return Measurement(values=out, detail="per-client samples per cited work (K exponent < 0 "
                                          "means linear speed-up)")


def judge_related(predicted, m: Measurement) -> CheckResult:
    key = "guarantees linear speed-up"
    parts = [equal_verdict(f"{who} ({m.values[who]['algorithm']}: per-client samples "
                           f"{m.values[who]['per-client samples']}, {m.values[who]['how']})",
                           m.values[who]["linear speed-up"], p)
             for who, p in predicted[key].items()]
    return _result(parts, predicted, m.values, "")


def _related_wrong(predicted):
    """Flip each correct entry while setting Wu et al. to what its paper gives (linear speed-up),
    so that each mutant has exactly one wrong entry."""
    out = []
    for who in predicted["guarantees linear speed-up"]:
        if who == "Wu et al. (2024)":
            continue
        w = copy.deepcopy(predicted)
        w["guarantees linear speed-up"]["Wu et al. (2024)"] = True
        w["guarantees linear speed-up"][who] = not w["guarantees linear speed-up"][who]
        out.append(w)
    return out


# =============================================================================================
# declarations
# =============================================================================================
REM21_KEY = ("an algorithm for (1/K) sum_k f(g_k) reaches a stationary point of (2)")


def judge_rem21(predicted, m: Measurement) -> CheckResult:
    """Remark 2.1 on Theorem 4.1's scalar instance: vanilla FedAvg Case I at I = 1 (each client
    composes its own g_k, x averaged every step) is gradient descent on (1/K) sum_k f(g_k), the
    objective of Huang et al. (2021) and Gao et al. (2022); its eta -> 0 limit (exact, sympy)
    is a stationary point of (2) iff ||grad Phi|| there is 0. Case II at I = 1 (y shared every
    step) is the control: gradient descent on (2) itself."""
    v = m.values["I=1 (informational)"]
    case1 = [x for k, x in v.items() if "case1" in k]
    case2 = [x for k, x in v.items() if "case2" in k]
    if not case1 or not case2 or not all(x < 1e-12 for x in case2):
        return CheckResult("inconclusive", predicted, v,
                           f"the I = 1 limits are missing or the control (Case II, gradient "
                           f"descent on (2)) does not reach a stationary point: {v}")
    reaches = all(x < 1e-12 for x in case1)
    r = equal_verdict(REM21_KEY, reaches, predicted[REM21_KEY])
    return CheckResult(r.verdict, predicted, v,
                       f"{r.reason}: on Theorem 4.1's scalar instance the eta -> 0 limit of "
                       f"gradient descent on (1/K) sum_k f(g_k) (Case I, I = 1) has ||grad Phi|| "
                       f"= {', '.join(f'{x:.3g}' for x in case1)}, where gradient descent on (2) "
                       f"(Case II, I = 1) reaches {', '.join(f'{x:.3g}' for x in case2)}")


#: Remark 2.1 for Gao et al.'s algorithm, which averages its inner state
_REM21_GAO_STATEMENT = ("Gao et al. (2022) consider the objective 1/K sum_k f_k(g_k(.)); this "
                        "implies that the algorithm developed there (Local-SCGDM) cannot solve "
                        "problem (2).")
REM21_GAO_KEY = ("Local-SCGDM (Gao et al.), inner state averaged every I iterations, reaches a "
                 "stationary point of (2) as eta -> 0")


def _rem21_judge(arm: str, other: str):
    """The judge of Remark 2.1 for Gao et al.'s Local-SCGDM on the remedies instance (a (2)
    instance), read with the remedies arm `arm`: its inner state h and momentum u are averaged
    with x every I iterations, so its fixed points are not those of (1/K) sum_k f(g_k) in
    general. Measured True when the arm's gap vanishes with eta (step_limit), False when it
    stays; after the controls of the remedies claims. The arm `other` (the other reading of its
    inner weight) is reported beside it, not judged."""
    def judge(predicted, m: Measurement) -> CheckResult:
        return _judge_arms(predicted, m, [(arm, REM21_GAO_KEY)], when="vanishes",
                           report=[(other, "the other reading of Local-SCGDM's inner weight")])
    judge.__name__ = judge.__qualname__ = (
        "judge_rem21_" + arm.lower().replace(" ", "_").replace(",", "").replace("=", "eq"))
    return judge


# --- Section 4.1's remedies and the necessity of sharing y every iteration ------------------

#: the prediction keys of the remedies claims: does the arm leave a gap as eta -> 0?
REMEDY_KEYS = {"gradient momentum": "momentum on the gradient leaves a gap as eta -> 0",
               "inner momentum, fixed beta": "a fixed-weight inner-estimate momentum leaves a "
                                             "gap as eta -> 0"}
TIED_KEY = "an inner-estimate momentum with weight tied to eta leaves a gap as eta -> 0"
#: the arms whose inner weight is tied to the step size (beta = eta)
_TIED = ("inner momentum, beta = eta", "Local-SCGDM, beta = eta")
SHARING_KEY = "Algorithm 1 converges with y shared only every I iterations"
SHARING_MA_KEY = ("a method keeping a moving-average inner estimate converges with it shared "
                  "only every I iterations")
#: the two sentences of Section 4.1 judged below, each under two readings
REMEDIES_QUOTE = ("Moreover, regarding commonly used remedies, reducing the number of local steps "
                  "or using techniques such as momentum, control variates, or variance reduction "
                  "can mitigate client drift upto some extent, but do not eliminate the "
                  "structural bias arising from the distributed inner compositional objective. "
                  "As a result, the issue will still persist.")
SHARING_QUOTE = ("Clearly, Theorem 4.1 suggests that sharing y_k's in each iteration is "
                 "required to ensure convergence of FedAvg since sharing the iterates y_k's "
                 "only intermittently leads to non-convergence of FedAvg.")
#: the note of a claim whose printed prediction is false on the measurement (the mutation
#: tests' rule: it is then its own wrong prediction)
_FALSE_AS_PRINTED = ("The printed prediction is false on this measurement, so its only wrong "
                     "prediction is itself; a user's opposite prediction passes.")
_ONE_OBSERVATION = ("khanduri.sec4.1.remedies.coupled and khanduri.sec4.1.sharing-required."
                    "moving-average fail on one observation (the tied arms' gaps vanish with "
                    "eta), not on two.")
_THM52_NOTE = ("khanduri.thm5.2's diagnostic with heterogeneous Jacobians (Assumption 5.1 fails "
               "on R^d, not on a bounded orbit; a problem fedcomp builds must meet the "
               "hypotheses as printed, so it is not judged) does not converge, but under "
               "Theorem 5.2's schedule, whose total model movement sum_t gamma_x eta vanishes "
               "as T grows (its detail); here I is fixed and every run reaches its limit, so the "
               "two do not conflict.")


def measure_remedies(profile, out_dir) -> Measurement:
    """:func:`fedcomp.experiments.intermittent.remedies` on the quick or full eta grid, with its
    figure (the judges classify each arm with :func:`fedcomp.rates.verdict.step_limit`)."""
    from fedcomp.experiments.intermittent import remedies
    from fedcomp.figures import plot
    from fedcomp.figures.law import remedies_figure
    etas = (0.04, 0.02, 0.01, 0.005) + ((0.0025,) if profile == "full" else ())
    data = remedies(etas)
    fig = plot("figures/khanduri.sec4.1.remedies-gap-vs-eta.png", remedies_figure, data,
               "FedDRO paper, Section 4.1's remedies (khanduri.sec4.1.remedies, .coupled; "
               "khanduri.sec4.1.sharing-required.moving-average; khanduri.abstract.bias-control)")
    return Measurement(values=data, figures=[fig],
                       detail=f"{data['instance']}; eta = {', '.join(f'{e:g}' for e in etas)}; "
                              f"each run until its round map settles (fedcomp.experiments."
                              f"intermittent.measure)")


def _limits(v) -> dict:
    """Each arm's :func:`~fedcomp.rates.verdict.step_limit`, guarded by its closed form."""
    from fedcomp.rates.verdict import step_limit
    return {label: step_limit(v["etas"], a["gaps"], limit=a["limit"], law=a["law"],
                              converged=a["converged"]) for label, a in v["arms"].items()}


def _arm_text(v, limits, label) -> str:
    return f"{label} ({v['arms'][label]['setting']}): {limits[label]['text']}"


def _arm_part(predicted, v, limits, label, key, when="stays", undecided_if=None, why=""):
    """One arm's part: `key` measured True when its gap does `when` ("stays": it leaves a gap;
    "vanishes": it reaches a stationary point), False when it does the other; inconclusive when
    step_limit cannot tell, and when the measured value is `undecided_if`: the value one
    instance cannot decide for the claim's reading (`why`: an existential statement is not
    refuted by one instance where it does not show, a universal one not confirmed by one where
    it holds; docs/checks.md, "A counterexample attempt that does not work is no pass")."""
    from fedcomp.rates.verdict import Verdict
    kind = limits[label]["kind"]
    if kind == "undecided":
        return Verdict("inconclusive", f"{key}: undecided: {_arm_text(v, limits, label)}")
    if undecided_if is not None and (kind == when) == undecided_if:
        return Verdict("inconclusive", f"{key}: measured {undecided_if} on this instance, which "
                                       f"does not decide it ({why}): "
                                       f"{_arm_text(v, limits, label)}")
    r = equal_verdict(key, kind == when, predicted[key])
    return Verdict(r.verdict, f"{r.reason}: {_arm_text(v, limits, label)}")


def _controls(v, limits):
    """The controls every verdict here needs: FedAvg Case II keeps Theorem 4.1's gap and FedDRO
    (y every iteration) reaches 0. (ok, detail head)."""
    ok = (limits["FedAvg Case II"]["kind"] == "stays"
          and limits["FedDRO"]["kind"] == "vanishes")
    head = (f"controls: {_arm_text(v, limits, 'FedAvg Case II')}; "
            f"{_arm_text(v, limits, 'FedDRO')}")
    return ok, head + ("" if ok else " -- the controls do not separate, so no verdict")


def _judge_arms(predicted, m, arms_keys, when="stays", report=(), undecided_if=None, why=""):
    """The parts of (arm label, prediction key) pairs (:func:`_arm_part`, measured True when
    the arm's gap does `when`; `undecided_if`, `why` as there), after the controls; `report`:
    (arm label, why) pairs whose limits are reported beside the verdict, not judged."""
    v = m.values
    limits = _limits(v)
    ok, controls = _controls(v, limits)
    measured = {"limits": limits}
    if not ok:
        return CheckResult("inconclusive", predicted, measured, controls)
    parts = [_arm_part(predicted, v, limits, label, key, when, undecided_if, why)
             for label, key in arms_keys]
    res = _result(parts, predicted, measured, f"{controls}; ")
    for label, why in report:
        if label in limits:
            res.detail += f"; reported, not judged ({why}): {_arm_text(v, limits, label)}"
    return res


def judge_remedies(predicted, m: Measurement) -> CheckResult:
    """Momentum with a fixed weight, on the gradient and on the inner estimate: does each leave
    Theorem 4.1's gap as eta -> 0? One instance where it stays shows the remedy does not
    eliminate the bias (an existential statement: an exhibit decides it; a prediction that the
    remedy eliminates it, a universal one, fails on the same exhibit). An arm whose gap
    vanished here would decide neither: no general argument says a fixed weight removes the
    bias on every instance (fedcomp.intermittent-sharing-law says its gap stays, c(beta, I) > 0)."""
    return _judge_arms(predicted, m, [(lb, REMEDY_KEYS[lb]) for lb in REMEDY_KEYS],
                       undecided_if=False,
                       why="one instance where a fixed-weight remedy removes the gap does not "
                           "show that it eliminates the bias on every instance, and no general "
                           "argument does")


#: khanduri.abstract.bias-control's prediction key
BIAS_CONTROL_KEY = ("the bias is controlled with FedAvg Case II's communication and without "
                    "Assumption 5.1")


def judge_bias_control(predicted, m: Measurement) -> CheckResult:
    """The abstract's 'controlling this bias necessarily requires either additional
    communication or additional structural assumptions': measured True (controlled without
    either) when the inner-estimate momentum with weight tied to eta, on Case II's exchanges,
    reaches a stationary point as eta -> 0 on this instance (outside Assumption 5.1)."""
    return _judge_arms(predicted, m, [("inner momentum, beta = eta", BIAS_CONTROL_KEY)],
                       when="vanishes", undecided_if=False,
                       why="'necessarily requires' is universal: a counterexample attempt that "
                           "keeps its gap confirms nothing")


def judge_remedies_coupled(predicted, m: Measurement) -> CheckResult:
    """The inner-estimate momentum with its weight tied to eta (DS-FedDRO's y-update and
    Local-SCGDM as published): does it leave a gap as eta -> 0?"""
    return _judge_arms(predicted, m, [(lb, TIED_KEY) for lb in _TIED])


def judge_sharing_moving_average(predicted, m: Measurement) -> CheckResult:
    """The tied arms keep a local inner estimate and exchange it only every I iterations: they
    converge (measured True) when their gaps vanish with eta. A tied arm that keeps a gap here
    does not show that sharing every iteration is required: inconclusive, never a pass."""
    from fedcomp.rates.verdict import Verdict
    v = m.values
    limits = _limits(v)
    ok, controls = _controls(v, limits)
    vanish = [lb for lb in _TIED if limits[lb]["kind"] == "vanishes"]
    texts = "; ".join(_arm_text(v, limits, lb) for lb in _TIED)
    if not ok or not vanish:
        part = Verdict("inconclusive", f"{SHARING_MA_KEY}: no counterexample on this instance: "
                                       f"{texts}")
    else:
        r = equal_verdict(SHARING_MA_KEY, True, predicted[SHARING_MA_KEY])
        part = Verdict(r.verdict, f"{r.reason}: {texts}; the inner estimate is averaged every "
                                  f"I = {v['I']} iterations and nowhere else (ledgers over "
                                  f"{v['ledger_rounds']} rounds: "
                                  f"{ {lb: v['ledgers'][lb] for lb in _TIED} }, FedAvg Case II "
                                  f"{v['ledgers']['FedAvg Case II']})")
    return _result([part], predicted, {"limits": limits, "ledgers": v["ledgers"]},
                   f"{controls}; ")


_REMEDIES = Measure(measure_remedies)


_THM41 = Check(measure_thm41, judge_thm41,
               wrong=flipped(*[(k,) for k in THM41_KEYS.values()]))
_EQ4 = Check(measure_eq4, judge_reformulation,
             wrong=combine_wrong(_negate(("f",)), each([("g",)], _shift_g)))
_EQ5 = Check(measure_eq5, judge_reformulation,
             wrong=combine_wrong(_negate(("f",)), each([("g",)], _shift_g)))
_FL_KEY = "weight of a sample of client k"

CLAIMS: list = [
    Claim(id="khanduri.thm4.1", paper=PAPER, location="Theorem 4.1",
          statement="There exist f and g_k satisfying Assumptions 3.2-3.4 and an initialization "
                    "such that, for a fixed number of local updates I > 1 and for any "
                    "0 < eta^t < C_eta, t = 0..T-1, vanilla FedAvg (Algorithm 1, Case I and "
                    "Case II, h = 0) does not converge to a stationary point of Phi.",
          kind="counterexample",
          predicted={THM41_KEYS["fedavg-case1"]: True, THM41_KEYS["fedavg-case2"]: True},
          reading="constant steps eta^t = eta (the limit point as eta -> 0 is also where "
                  "steps decreasing to 0 lead); 'does not converge for every small eta' read "
                  "as: the limit of ||grad Phi|| "
                  "at the algorithm's fixed point stays bounded away from 0 as eta -> 0, for "
                  "each I > 1 tested (exact sympy limits on a scalar instance; simulations on an "
                  "overdetermined and a nonlinear KL-DRO instance)",
          check=_THM41,
          notes="finding: Case I fails even at I = 1 (its eta -> 0 limit minimises "
                "mean_k f(g_k), not f(mean_k g_k)); 'I > 1' is needed only for Case II"),
    Claim(id="khanduri.sec4.1.others-fail", paper=PAPER,
          location="Section 4.1, after Theorem 4.1",
          statement="An important consequence of Theorem 4.1 is that under Assumptions 3.2-3.4 "
                    "the algorithms proposed in Huang et al. (2023), Gao (2024), Yang et al. "
                    "(2024) and Li et al. (2024) for solving federated CO (or bilevel) problems "
                    "would fail to converge.",
          kind="counterexample",
          predicted={"FedMBO, Fed-DR-SCGD, SimFBO, FedBiOAcc converge under 3.2-3.4": False},
          not_checked="needs the four algorithms (FedMBO, Fed-DR-SCGD, SimFBO, FedBiOAcc), whose "
                      "papers are not in shared/papers, so their updates cannot be transcribed "
                      "faithfully here, and a run of each on Theorem 4.1's instance; the paper's "
                      "own Table 1 lists convergence complexities for the same four (under their "
                      "own assumptions: khanduri.table1.fedmbo, .fed-dr-scgd, .simfbo, "
                      ".fedbioacc, not checked), so the two statements differ in assumptions, "
                      "which the text does not say"),
    Claim(id="khanduri.sec4.1.remedies", paper=PAPER,
          location="Section 4.1, discussion after Theorem 4.1",
          statement=REMEDIES_QUOTE,
          kind="counterexample",
          predicted={REMEDY_KEYS["gradient momentum"]: True,
                     REMEDY_KEYS["inner momentum, fixed beta"]: True},
          reading="the commonly used remedies for FedAvg, momentum with a fixed weight, two ways, "
                  "exact oracles, on an instance satisfying Assumptions 3.2-3.4 (f Huber) with "
                  "heterogeneous client Jacobians: (i) momentum on the compositional gradient: "
                  "Local-SCGDM with fresh inner values (inner weight 1), whose directions all use "
                  "the client's own inner value, as FedAvg Case I's (c = 1); it exchanges x, h "
                  "and u every I iterations; (ii) a moving-average inner estimate y_k <- (1 - "
                  "beta) y_k + beta g_k(x_k) with beta fixed (DS-FedDRO's y-update, server step "
                  "sizes 1: exactly FedAvg Case II's exchanges). 'Eliminate' is judged in Theorem "
                  "4.1's sense, as khanduri.thm4.1 is: whether ||grad Phi||^2 at the run's limit "
                  "vanishes as eta -> 0 (fedcomp.rates.verdict.step_limit, guarded by each arm's "
                  "closed-form limit). 'Does not eliminate' is existential: one instance "
                  "where the gap stays shows it (and refutes a prediction that the remedy "
                  "eliminates the bias); an instance where it vanished would decide nothing "
                  "without a general argument, and the one fedcomp has, the sharing law, says "
                  "a fixed weight keeps a gap. Control variates and variance reduction are not "
                  "run (no such variant of FedAvg for CO is implemented); reducing I is Theorem "
                  "4.1's own 'for any I > 1' (at I = 1 Case II is Theorem 4.2's modified FedAvg "
                  "and converges: khanduri.sec6.fedavg-i1). The weight tied to the step size is "
                  "khanduri.sec4.1.remedies.coupled",
          check=Check(_REMEDIES, judge_remedies,
                      flipped((REMEDY_KEYS["gradient momentum"],),
                              (REMEDY_KEYS["inner momentum, fixed beta"],))),
          notes="Both fixed-weight momenta keep a gap: the inner-estimate momentum shrinks it "
                "from c = 1 - 1/I to c(beta, I) (fedcomp.intermittent-sharing-law); the gradient "
                "momentum leaves Case I's c = 1, since every direction of a round, the one at "
                "the round too, uses the client's own inner value (the momentum weight drops "
                "out of the limit)"),
    Claim(id="khanduri.sec4.1.remedies.coupled", paper=PAPER,
          location="Section 4.1, discussion after Theorem 4.1",
          statement=REMEDIES_QUOTE,
          kind="counterexample",
          predicted={TIED_KEY: True},
          reading="momentum on the inner estimate whose weight is tied to the step size: DS-"
                  "FedDRO's y-update with beta = c_beta eta, c_beta = 1 (Theorem 5.2's coupling; "
                  "server step sizes 1, so Case II's exchanges), and Local-SCGDM as published "
                  "(inner weight beta = eta, gradient momentum 0.1), on the instance of "
                  "khanduri.sec4.1.remedies; 'eliminate' as there. Read over every instance of "
                  "Assumptions 3.2-3.4, the sentence under this reading conflicts with what the "
                  "paper's own Theorem 5.2 claims on the instances that also satisfy Assumption "
                  "5.1 (DS-FedDRO converging there with beta = c_beta eta; its printed schedule "
                  "does not converge on fedcomp's instance, khanduri.thm5.2, but the tied "
                  "weight's mechanism is what these runs show), so the authors' reading is the "
                  "fixed-weight one, khanduri.sec4.1.remedies",
          check=Check(_REMEDIES, judge_remedies_coupled, itself),
          notes="fedcomp.intermittent-sharing-law gives the gap c^2 ||D(x_c)||^2 with c -> 0 as "
                "the weight does, on any instance to first order (the law's derivation), "
                "measured here along the closed form (c(eta, I) for DS-FedDRO's update, c'(eta, "
                "I) for Local-SCGDM's, which updates h before each direction). The instance "
                "fails Assumption 5.1 as printed (khanduri.abstract.bias-control reads the same "
                "arm); beyond this instance the finding rests on the law's first-order "
                "derivation, measured on linear-quadratic problems. " + _THM52_NOTE
                + " " + _ONE_OBSERVATION + " " + _FALSE_AS_PRINTED),
    Claim(id="khanduri.sec4.1.sharing-required", paper=PAPER,
          location="Section 4.1, before Algorithm 2",
          statement=SHARING_QUOTE,
          kind="counterexample",
          predicted={SHARING_KEY: False},
          reading="the authors' reading: FedAvg as Algorithm 1 (y_k = g_k(x_k)); 'sharing only "
                  "intermittently leads to non-convergence' as Theorem 4.1 shows it, on some "
                  "instance: Theorem 4.1's Case II conclusion restated. The broad reading (any "
                  "method keeping a local inner estimate) is "
                  "khanduri.sec4.1.sharing-required.moving-average",
          depends_on=("khanduri.thm4.1",),
          not_checked="read as the authors do, the sentence is Theorem 4.1's Case II restated (on "
                      "some instance, intermittent sharing does not converge): khanduri.thm4.1 "
                      "checks it, and no run could refute an existential statement, so a "
                      "separate verdict could only repeat that one. Read over every instance of "
                      "Theorem 4.1's setting it is false (heterogeneous A_k with b_k = c - A_k x* "
                      "give every client the same inner value at x*, so the drift D(x*) = 0 and "
                      "Case II converges); read for every method keeping a local inner estimate "
                      "it fails (khanduri.sec4.1.sharing-required.moving-average)"),
    Claim(id="khanduri.sec4.1.sharing-required.moving-average", paper=PAPER,
          location="Section 4.1, before Algorithm 2",
          statement=SHARING_QUOTE,
          kind="counterexample",
          predicted={SHARING_MA_KEY: False},
          reading="'FedAvg' read as any FedAvg-type method whose clients keep a local inner "
                  "estimate between exchanges: the tied arms of khanduri.sec4.1.remedies.coupled "
                  "average it only every I iterations (DS-FedDRO's update exchanging exactly "
                  "what FedAvg Case II does); 'convergence' in Theorem 4.1's sense. The paper's "
                  "own Section 5 contradicts this reading too (DS-FedDRO averages y only at the "
                  "rounds, and Theorem 5.2 claims it converges under Assumption 5.1; the printed "
                  "schedule fails on fedcomp's instance, khanduri.thm5.2, the tied weight's "
                  "mechanism is what these runs show). A tied arm "
                  "that kept a gap would show nothing (inconclusive, never a pass)",
          check=Check(_REMEDIES, judge_sharing_moving_average, itself),
          notes=_THM52_NOTE + " " + _ONE_OBSERVATION + " " + _FALSE_AS_PRINTED),
    Claim(id="khanduri.abstract.bias-control", paper=PAPER, location="Abstract",
          statement="We first theoretically establish that standard FedAvg fails in solving the "
                    "federated CO problems due to data heterogeneity, which amplifies bias in "
                    "local gradient estimates. Our analysis shows that controlling this bias "
                    "necessarily requires either additional communication or additional "
                    "structural assumptions.",
          kind="counterexample",
          predicted={BIAS_CONTROL_KEY: False},
          reading="'necessarily requires': refuted by one algorithm on one instance meeting the "
                  "paper's other assumptions. The algorithm: FedAvg with an inner-estimate "
                  "momentum whose weight is tied to eta (DS-FedDRO's y-update with beta = eta "
                  "and server steps 1, which exchanges x and y every I iterations as Case II "
                  "does: no additional communication); the instance: khanduri.sec4.1.remedies' "
                  "linear g_k with heterogeneous Jacobians, which meets Assumptions 3.2-3.4 and "
                  "fails Assumption 5.1 as printed (sup over R^d), as a problem fedcomp builds "
                  "is read (README, 'Verdict rules'); 'controlled' as there: the gap vanishes "
                  "as eta -> 0. The first sentence (FedAvg fails) is khanduri.thm4.1",
          check=Check(_REMEDIES, judge_bias_control, itself),
          notes="The same arm and measurement as khanduri.sec4.1.remedies.coupled. "
                + _FALSE_AS_PRINTED),
    Claim(id="khanduri.rem2.1", paper=PAPER, location="Remark 2.1 (Huang et al.'s half)",
          statement="Huang et al. (2021) consider the objective 1/K sum_k f_k(g_k(.)), with the "
                    "compositional function local to each agent; this implies that the "
                    "algorithm developed there cannot solve problem (2). (Remark 2.1 says the "
                    "same of Gao et al. (2022): that half is khanduri.rem2.1.local-scgdm and "
                    "its .fixed-beta reading.)",
          kind="counterexample",
          predicted={REM21_KEY: False},
          reading="'cannot solve (2)' read as: an algorithm whose fixed points are the stationary "
                  "points of (1/K) sum_k f(g_k) stops where grad Phi of (2) is not 0, measured "
                  "with exact gradient descent on (1/K) sum_k f(g_k) (vanilla FedAvg Case I at "
                  "I = 1) on Theorem 4.1's scalar instance. That is Huang et al.'s ComFedL, "
                  "which averages only x and keeps each client's inner value its own (fedcomp "
                  "runs ComFedL on its own problems). Judged: the Huang et al. half only; Gao "
                  "et al.'s Local-SCGDM averages its inner state as well, so its fixed points "
                  "are not those: its half is khanduri.rem2.1.local-scgdm (inner weight tied to "
                  "eta) and khanduri.rem2.1.local-scgdm.fixed-beta (a fixed weight)",
          depends_on=(),
          check=Check(measure_thm41, judge_rem21, wrong=flipped((REM21_KEY,)))),
    Claim(id="khanduri.rem2.1.local-scgdm", paper=PAPER, location="Remark 2.1",
          statement=_REM21_GAO_STATEMENT, kind="counterexample",
          predicted={REM21_GAO_KEY: False},
          reading="Local-SCGDM as fedcomp reconstructs it from the FCSG paper's description "
                  "(fedcomp.algorithms.local_scgd: x, the inner state h and the momentum u "
                  "averaged every I iterations), with its inner weight tied to the step size "
                  "as Gao et al. are said to write it (beta = eta; the gradient momentum a fixed "
                  "0.1), on the (2) instance of Section 4.1's remedies (the arm 'Local-SCGDM, "
                  "beta = eta' of khanduri.sec4.1.remedies.coupled); 'cannot solve (2)' read in "
                  "Theorem 4.1's fixed-point sense: the gap to a stationary point of (2) stays "
                  "as eta -> 0. Read as 'their guarantees do not cover (2)', the remark is not "
                  "judged",
          notes="The fail hinges on the tied inner weight: on the same instance Local-SCGDM with "
                "inner weight 1 (khanduri.sec4.1.remedies' 'gradient momentum' arm) keeps a gap "
                "of about 0.18, and with a fixed weight (the FCSG paper tunes Local-SCGDM's "
                "inner coefficient over the fixed grid 0.1, 0.5, 0.9) the gap stays too "
                "(khanduri.rem2.1.local-scgdm.fixed-beta, the second reading: weight 0.1), so "
                "for Local-SCGDM as Wu et al. run it the remark holds. Gao et al.'s paper is not "
                "among the five: the averaging of h rests on one sentence of the FCSG paper "
                "('the server needs to average the inner state as in Local-SCGDM'), and "
                "averaging h on an objective with local g_k would mix the clients' inner values "
                "on Gao et al.'s own problem, so either that account or the remark's premise is "
                "off, which the five papers cannot settle. One instance refutes the fixed-point "
                "reading; fedcomp.intermittent-sharing-law's first-order derivation (the gap "
                "of a tied weight falls with eta on any instance) is why it generalises.",
          check=Check(_REMEDIES, _rem21_judge("Local-SCGDM, beta = eta",
                                              "Local-SCGDM, fixed beta"), itself)),
    Claim(id="khanduri.rem2.1.local-scgdm.fixed-beta", paper=PAPER, location="Remark 2.1",
          statement=_REM21_GAO_STATEMENT, kind="counterexample",
          predicted={REM21_GAO_KEY: False},
          reading="second reading of khanduri.rem2.1.local-scgdm: Local-SCGDM with its inner "
                  "weight fixed, as the FCSG paper runs it (tuned over 0.1, 0.5, 0.9; the arm "
                  "'Local-SCGDM, fixed beta' of the remedies, weight 0.1, gradient momentum "
                  "0.1), on the same (2) instance; 'cannot solve (2)' in Theorem 4.1's "
                  "fixed-point sense (the gap stays as eta -> 0)",
          notes="one instance where the gap stays confirms 'cannot' for this reading only as an "
                "existence statement (an algorithm that fails on some (2) instance); the sharing "
                "law (fedcomp.intermittent-sharing-law) gives c(beta, I) > 0 at a fixed weight, "
                "so the gap stays wherever the clients' Jacobians differ",
          check=Check(_REMEDIES, _rem21_judge("Local-SCGDM, fixed beta",
                                              "Local-SCGDM, beta = eta"),
                      flipped((REM21_GAO_KEY,)))),
    Claim(id="khanduri.eq4", paper=PAPER, location="Section 2.1, (3)-(4)",
          statement="The KL-regularised DRO (3), max over the simplex of sum p_i l_i - lambda "
                    "sum p_i log(m p_i), has the equivalent CO reformulation (4) "
                    "min_x log((1/m) sum exp(l_i/lambda)): g = (1/m) sum exp(l_i/lambda), "
                    "f = log, h = 0.",
          kind="equivalence",
          predicted={"g": "mean(exp(l/lam))", "f": "log(u)", "h": "0"},
          reading="'equivalent' = f(g) + h equals the min-max inner value of (3) up to a "
                  "positive factor and an additive constant for fixed lambda and m (same "
                  "minimisers and stationary points); judged against the certified numerical "
                  "maximum of (3)'s inner problem. Symbols: l the loss vector, lam, m, u the "
                  "argument of f, mean() over samples",
          check=_EQ4,
          notes="(4) is printed without the factor lambda: it is the min-max value divided by "
                "lambda (the fitted factor is 1/lambda). g overflows float64 once "
                "l/lambda > ~709."),
    Claim(id="khanduri.eq5", paper=PAPER, location="Section 2.1, (3) and (5)",
          statement="The chi-square-regularised DRO (3) with D = (m/2) sum (p_i - 1/m)^2 has the "
                    "equivalent CO reformulation (5) min_x -(1/(2 lambda m)) sum l_i^2 + "
                    "(1/(2 lambda)) ((1/m) sum l_i)^2: g = mean l, f(g) = g^2/(2 lambda), "
                    "h = -(1/(2 lambda m)) sum l_i^2.",
          kind="equivalence",
          predicted={"g": "mean(l)", "f": "u**2/(2*lam)", "h": "-mean(l**2)/(2*lam)"},
          reading="as khanduri.eq4: f(g) + h equals the min-max inner value of (3) up to a "
                  "positive factor and an additive constant for fixed lambda and m",
          check=_EQ5,
          notes="fedcomp finding: printed (5) = -Var(l)/(2 lambda) = mean(l) - (min-max value) "
                "while the maximiser is interior (min l >= mean l - lambda); the min-max value is "
                "mean(l) + Var(l)/(2 lambda) there (g = mean l, f = -u^2/(2 lambda), "
                "h = mean(l + l^2/(2 lambda))), otherwise the water-filling value"),
    Claim(id="khanduri.sec2.fl", paper=PAPER, location="Section 2.1, after (5)",
          statement="Both (4) and (5) can be restated in the FL setting of (2).",
          kind="equivalence", predicted={_FL_KEY: "1/m"},
          reading="with g_k the plain mean over client k's samples (g = (1/K) sum_k g_k), for any "
                  "client sizes m_1..m_K (m = sum m_k): the FL form is the DRO (3) with the "
                  "uniform reference 1/m, i.e. every sample gets weight 1/m in g; the other "
                  "readings are khanduri.sec2.fl.equal-sizes and khanduri.sec2.fl.weighted; (5) is"
                  " read as the chi-square DRO's CO reformulation it stands for: the corrected "
                  "form of khanduri.eq5's notes, since the printed (5) is not that DRO "
                  "(khanduri.eq5 fails it); the restatement of the DRO does not rest on the "
                  "misprint",
          check=Check(measure_fl_restatement, _judge_fl(False),
                      wrong=scaled((_FL_KEY,), factors=(0.5, 2.0))),
          notes="the weight is 1/(K m_k): the restatement holds with equal client sizes "
                "(khanduri.sec2.fl.equal-sizes) or with g_k weighted by K m_k/m; the KL value "
                "differs by 0.291 on sizes (5, 20, 75), lambda = 4"),
    Claim(id="khanduri.sec2.fl.equal-sizes", paper=PAPER, location="Section 2.1, after (5)",
          statement="Both (4) and (5) can be restated in the FL setting of (2), read for clients "
                    "holding equal numbers of samples (as in the paper's experiments, which split "
                    "the data equally).",
          kind="equivalence", predicted={_FL_KEY: "1/m"},
          reading="equal client sizes m_k = m/K: the FL form is the DRO (3) with the uniform "
                  "reference 1/m; (5) is read as the chi-square DRO's CO reformulation it stands "
                  "for: the corrected form of khanduri.eq5's notes, since the printed (5) is not "
                  "that DRO (khanduri.eq5 fails it); the restatement of the DRO does not rest on "
                  "the misprint",
          check=Check(measure_fl_restatement, _judge_fl(True),
                      wrong=scaled((_FL_KEY,), factors=(0.5, 2.0)))),
    Claim(id="khanduri.sec2.fl.weighted", paper=PAPER, location="Section 2.1, after (5)",
          statement="fedcomp's reading of 'Both (4) and (5) can be restated in the FL setting "
                    "of (2)': with client k's local functions scaled by K m_k/m, (4) and (5) "
                    "are instances of (2) for any client sizes.",
          kind="equivalence", predicted={_FL_KEY: "1/m"},
          reading="as an existence claim, for any client sizes: client k's local functions g_k(x; "
                  "zeta) (and h_k) scaled by K m_k/m, a choice (2) allows since its g_k are any "
                  "expectations; then every sample gets weight 1/m and the FL form is the DRO (3) "
                  "with the uniform reference (khanduri.sec2.fl reads g_k as the plain client "
                  "mean); (5) is read as the chi-square DRO's CO reformulation it stands for: the "
                  "corrected form of khanduri.eq5's notes, since the printed (5) is not that DRO "
                  "(khanduri.eq5 fails it); the restatement of the DRO does not rest on the "
                  "misprint; fedcomp's inference: the paper states no reweighting, so a pass "
                  "shows that fedcomp's construction makes the sentence true, not that the paper "
                  "meant it (the paper's own reading is khanduri.sec2.fl)",
          subject="inference",
          check=Check(measure_fl_restatement, _judge_fl(False, reweighted=True),
                      wrong=scaled((_FL_KEY,), factors=(0.5, 2.0)))),
    Claim(id="khanduri.lem3.5", paper=PAPER, location="Lemma 3.5",
          statement="Under Assumption 3.2, Phi = h + f(g) defined in (2) is Lipschitz smooth "
                    "with constant L_Phi := L_h + B_f L_g + B_g^2 L_f.",
          kind="constant", predicted={"L_Phi": "L_h + B_f*L_g + B_g**2*L_f"},
          reading="an upper bound of sup ||Hess Phi||_2 on each test box, with the constants of "
                  "Assumption 3.2 proven on that box (outer constants over the hull of the "
                  "images of g_k); judged against the certified supremum",
          check=Check(measure_lem35, judge_lem35, wrong=scaled(("L_Phi",), factors=(0.5,))),
          notes="tight (ratio 1) for affine g_k identical across clients and quadratic f; loose "
                "by e^(2D/lambda) on the KL-DRO (fedcomp.theory.constants.dro_formulas)"),
]


#: what a claim resting on Theorem 4.3 reads FedDRO as
_ANCHORED = ("; FedDRO with (8) anchored at the client's own previous iterate (fedcomp's feddro, "
             "khanduri.thm4.3): Algorithm 2 read literally does not converge "
             "(khanduri.thm4.3.literal)")


def _row_claim(name: str, statement: str, depends_on=(), derivable: bool = True,
               not_checked: str = "", notes: str = "", reading: str = "",
               entails=(), suffix: str = "", every_iteration: bool = False) -> Claim:
    pred = _printed_row(name)
    kw = {}
    if derivable:
        paths = [(q, v) for q in QUANTITIES for v in ("eps", "K")]
        kw["check"] = Check(measure_table1, _judge_row(name, every_iteration),
                            wrong=shifted(*paths))
        kw["reading"] = ("the printed batch, per-client sample (COMP.) and round (COMM.) orders "
                         "as exponents of eps and K under E||grad||^2 <= eps, against the "
                         "derivation from the algorithm's own paper" + reading)
    else:
        kw["not_checked"] = not_checked
    where = f"Table 1, row {name}" + (", COMM. as Definition 3.7 counts it"
                                      if every_iteration else "")
    return Claim(id=f"khanduri.table1.{TABLE1_IDS[name]}{suffix}", paper=PAPER,
                 location=where, statement=statement, kind="complexity",
                 predicted=pred, depends_on=tuple(depends_on), notes=notes,
                 entails=tuple(entails), **kw)


def _not_in_five(src: str, what: str) -> str:
    return (f"the source paper ({src}) is not in shared/papers: checking this row needs that "
            f"paper's convergence theorem and parameter choices ({what}) to derive batch, "
            "per-client samples and rounds with fedcomp.theory.complexity; the FedDRO paper's "
            "own text states no more about it than the row")


_FEDDRO_ROW = "FedDRO: CO + non-CO, SGD, batch O(1), comp. O(K^-1 eps^-2), comm. O(eps^-1.5)."

CLAIMS += [
    _row_claim("ComFedL", "ComFedL (Huang et al. 2021): CO-ND, SGD, batch O(eps^-2), comp. "
               "O(eps^-4), comm. O(eps^-2).", depends_on=("huang.rem1",)),
    _row_claim("Local-SCGDM", "Local-SCGDM (Gao et al. 2022): CO-ND, momentum SGD, batch O(1), "
               "comp. O(eps^-2), comm. O(eps^-1.5).", derivable=False,
               not_checked=_not_in_five("Gao, Li, Huang, ICML 2022", "momentum SCGD with local "
                                        "steps"),
               notes="consistent with the AUC paper's remark that Gao et al. lack linear "
                     "speed-up (no K^-1)"),
    _row_claim("FCSG", "FCSG (Wu et al. 2024): CO-ND, SGD, batch O(eps^-1), comp. "
               "O(K^-1 eps^-3), comm. O(eps^-1.5).", depends_on=("wu.rem4.3",),
               entails=("wu.rem4.3",)),
    _row_claim("Acc-FCSG-M", "Acc-FCSG-M (Wu et al. 2024): CO-ND, VR, batch O(eps^-1), comp. "
               "O(K^-1 eps^-2.5), comm. O(eps^-1).", depends_on=("wu.rem4.9",),
               entails=("wu.rem4.9",)),
    _row_claim("FedNest", "FedNest (Tarzanagh et al. 2022): bilevel, VR, batch O(1), comp. "
               "O(eps^-2), comm. O(eps^-2).", derivable=False,
               not_checked=_not_in_five("Tarzanagh et al., ICML 2022", "FedNest's bilevel "
                                        "theorem")),
    _row_claim("FedBiOAcc", "FedBiOAcc (Li et al. 2024): bilevel, VR, batch O(1), comp. "
               "O(K^-1 eps^-1.5), comm. O(eps^-1).", derivable=False,
               not_checked=_not_in_five("Li, Huang, Huang 2024", "FedBiOAcc's theorem")),
    _row_claim("FedMBO", "FedMBO (Huang et al. 2023): bilevel, SGD, batch O(ln(1/eps)), comp. "
               "O(K^-1 eps^-2), comm. O(eps^-2).", derivable=False,
               not_checked=_not_in_five("Huang, Zhang, Ji 2023", "FedMBO's theorem")),
    _row_claim("SimFBO", "SimFBO (Yang et al. 2024): bilevel, SGD, batch O(1), comp. "
               "O(K^-1 eps^-2), comm. O(eps^-1).", derivable=False,
               not_checked=_not_in_five("Yang, Xiao, Ji 2024", "SimFBO's theorem")),
    _row_claim("Fed-DR-SCGD", "Fed-DR-SCGD (Gao 2024): multi-level CO, VR, batch O(1), comp. "
               "O(K^-1 eps^-1.5), comm. O(eps^-1).", derivable=False,
               not_checked=_not_in_five("Gao 2024", "Fed-DR-SCGD's multi-level theorem")),
    _row_claim("GCIVR", "GCIVR (Haddadpour et al. 2022): CO + non-CO, VR, batches sqrt(m) "
               "(inner) and m (outer), comp. O(sqrt(m) eps^-1 ^ eps^-1.5), comm. O(eps^-1) "
               "(finite sum of m samples).", derivable=False,
               not_checked=_not_in_five("Haddadpour et al. 2022", "GCIVR's finite-sum theorem "
                                        "with m samples")),
    _row_claim("FedDRO", _FEDDRO_ROW, depends_on=("khanduri.thm4.3", "khanduri.cor4.4"),
               entails=("khanduri.cor4.4",), suffix=".definition-3.7", every_iteration=True,
               reading=_ANCHORED + "; COMM. as Definition 3.7 counts it (the paper's only "
                       "definition of communication complexity): every client-server round, "
                       "and FedDRO uploads y at every iteration, so its rounds are its T(eps) "
                       "iterations, as khanduri.cor4.4 reads Corollary 4.4; the model-averaging "
                       "reading is khanduri.table1.feddro"),
    _row_claim("FedDRO", _FEDDRO_ROW,
               depends_on=("khanduri.thm4.3", "khanduri.cor4.4.model-rounds"),
               entails=("khanduri.cor4.4.model-rounds",),
               reading=_ANCHORED + "; COMM. as model-averaging rounds, as the derivation counts "
                       "them (the id keeps this reading; Definition 3.7's is "
                       "khanduri.table1.feddro.definition-3.7)"),
    _row_claim("DS-FedDRO", "DS-FedDRO: CO + non-CO, SGD, batch O(1), comp. O(K^-1 eps^-2), "
               "comm. O(eps^-1).", depends_on=("khanduri.thm5.2", "khanduri.cor5.3"),
               entails=("khanduri.cor5.3",)),
]

def table1_rows(names) -> tuple:
    """The claim ids of Table 1's rows `names` (khanduri.table1.<row>)."""
    return tuple(f"khanduri.table1.{TABLE1_IDS[n]}" for n in names)


def _table1_names(updates=None) -> list:
    """The rows of the printed Table 1 (those whose UPDATE column is in `updates`, all when
    None)."""
    from fedcomp.theory.complexity import TABLE1
    return [n for n, row in TABLE1.items() if updates is None or row["update"] in updates]


def _derivable() -> tuple:
    """The rows whose source paper is among the five: fedcomp derives them (TABLE1's
    "scheme")."""
    from fedcomp.theory.complexity import TABLE1
    return tuple(n for n, row in TABLE1.items() if row["scheme"])


_DERIVABLE = _derivable()
_TABLE1_PRED = {n: _printed_row(n) for n in _DERIVABLE}

CLAIMS += [
    Claim(id="khanduri.table1", paper=PAPER, location="Table 1",
          statement="Batch, per-client sample (COMP.) and communication complexities of "
                    "ComFedL, Local-SCGDM, FCSG, Acc-FCSG-M, FedNest, FedBiOAcc, FedMBO, SimFBO, "
                    "Fed-DR-SCGD, GCIVR, FedDRO and DS-FedDRO in the convention "
                    "E||grad||^2 <= eps.",
          kind="complexity", predicted=_TABLE1_PRED,
          reading="the rows whose source paper is among the five (ComFedL, FCSG, Acc-FCSG-M, "
                  "FedDRO, DS-FedDRO), exponents of eps and K against each paper's derivation, "
                  "COMM. as the paper's Definition 3.7 counts it (FedDRO's rounds are its "
                  "iterations: khanduri.table1.feddro.definition-3.7); the other seven rows are "
                  "khanduri.table1.<algorithm>, not checked",
          depends_on=table1_rows(_DERIVABLE) + ("khanduri.table1.feddro.definition-3.7",),
          # the table's COMM. column in the paper's own Definition 3.7: FedDRO's row in that
          # reading (its model-averaging reading, khanduri.table1.feddro, is not this claim's)
          entails=tuple(r for r in table1_rows(_DERIVABLE) if r != "khanduri.table1.feddro")
          + ("khanduri.table1.feddro.definition-3.7",),
          check=Check(measure_table1, judge_table1,
                      wrong=shifted(*[(n, q, "eps") for n in _DERIVABLE
                                      for q in ("comp", "comm")]))),
    Claim(id="khanduri.sec2.related", paper=PAPER, location="Section 2.1, related work",
          statement="Huang et al. (2021), Haddadpour et al. (2022), Tarzanagh et al. (2022), "
                    "Gao et al. (2022) and Wu et al. (2024) do not guarantee linear speed-up with "
                    "the number of clients.",
          kind="complexity",
          predicted={"guarantees linear speed-up": {w: False for w in RELATED}},
          reading="linear speed-up = the per-client sample complexity decreases as K^-1; from "
                  "the cited work's own theorem where it is among the five papers (Huang et al. "
                  "2021, Wu et al. 2024), otherwise from Table 1's row for it",
          # the derivations and the printed rows it reads
          depends_on=("huang.rem1", "wu.rem4.3", "khanduri.table1.gcivr",
                      "khanduri.table1.fednest", "khanduri.table1.local-scgdm"),
          check=Check(measure_related, judge_related, wrong=_related_wrong),
          notes="contradicted for Wu et al. by Wu's Corollary 4.2 / Remark 4.3 and by the "
                "paper's own Table 1 (FCSG O(K^-1 eps^-3), Acc-FCSG-M O(K^-1 eps^-2.5))"),
]


# =============================================================================================
# Section 6: experiments
# =============================================================================================

CLAIMS += [
    Claim(id="khanduri.fig1", paper=PAPER, location="Section 6, Figure 1",
          statement="On CIFAR10-ST and CIFAR100-ST (ResNet20, K = 8 clients, batch 16 per client, "
                    "I = 1, learning rate tuned in {0.001, 0.01, 0.05, 0.1} and dropped 10x after "
                    "90 rounds, DS-FedDRO server rates 1.3/1.4, 3 seeds) FedDRO and DS-FedDRO "
                    "reach higher training accuracy and comparable or better test accuracy than "
                    "FastDRO, PDSGD, FedAvg (Case II) and MBSGD; DS-FedDRO slightly outperforms "
                    "FedDRO; FedAvg is significantly worse.",
          kind="experiment",
          predicted={"train accuracy": ["DS-FedDRO", ">", "FedDRO", ">",
                                        "FastDRO, PDSGD, MBSGD, FedAvg (Case II)"]},
          reading="the training-accuracy ordering on CIFAR10-ST only (CIFAR100-ST is not set "
                  "up), paired by seed at 95 %, from `fedcomp neural run feddro-cifar10-st` "
                  "(FedDRO, DS-FedDRO, FedAvg Case II, MBSGD; FastDRO and PDSGD are not "
                  "implemented and not judged); FedAvg's 'significantly worse' is read against "
                  "FedDRO and DS-FedDRO (the text's 'in contrast'), not against the other "
                  "baselines; the paper states I = 1 for FedDRO only and none for FedAvg, whose "
                  "arm runs at I = 1 (khanduri.sec6.fedavg-i1: there it is Theorem 4.2's "
                  "modified FedAvg); 'comparable or better test accuracy' has no threshold and "
                  "is not judged",
          check=experiment_check(
              "feddro-cifar10-st", ("train_accuracy",),
              {"": {"DS-FedDRO": "ds-feddro", "FedDRO": "feddro", "MBSGD": "mbsgd",
                    "FedAvg (Case II)": "fedavg-case2"}},
              "ResNet20, 8 clients, batch 16, I = 1, learning rate tuned in {0.001, 0.01, 0.05, "
              "0.1} and dropped 10x after 90 rounds, 3 seeds; the number of rounds is not "
              "stated in our copy",
              key="train accuracy",
              note="eta 0.1 without the drop, KL-DRO lambda 1 and beta 0.1 (the paper gives "
                   "neither), server rates 1.3 (ours)")),
    Claim(id="khanduri.fig2", paper=PAPER, location="Section 6, Figure 2 and its discussion",
          statement="On Adult with equality-of-opportunity constraints (logistic regression) "
                    "FedDRO and DS-FedDRO reach higher test accuracy than the distributed "
                    "baseline GCIVR while maintaining comparable constraint violation.",
          kind="experiment",
          predicted={"test accuracy": ["FedDRO, DS-FedDRO", ">", "GCIVR"]},
          reading="the test-accuracy ordering against GCIVR, paired by seed at 95 %; the "
                  "unconstrained parallel SGD of the figure is a baseline the text compares "
                  "nothing against (it ignores the constraint), so it is not part of the claim",
          not_checked="needs GCIVR (Haddadpour et al. 2022), which fedcomp does not implement: "
                      "its paper is not among the five, so its update cannot be transcribed "
                      "faithfully here. FedDRO, DS-FedDRO and the unconstrained parallel SGD are "
                      "run and stored (`fedcomp neural run feddro-adult-fairness`, docs/neural.md "
                      "shows their accuracy and TPR gaps); 'comparable constraint violation' has "
                      "no threshold"),
    *[Claim(id=f"khanduri.{fig}{'' if at == 'rounds' else '.iterations'}", paper=PAPER,
            location=f"Section 6, Figure {fig[-1]}",
            statement=f"As I increases, FedDRO and DS-FedDRO first improve ({data}), then their "
                      "performance saturates (client drift).",
            kind="experiment", predicted={"performance vs I rises then saturates": True},
            reading=(f"{metric.replace('_', ' ')} compared {AT[at]}"
                     + (" (the paper's explanation: 'reduced communication overhead')"
                        if at == "rounds" else " (the other reading: equal computation)")
                     + f"; I in {list(LOCAL_STEPS)} (the paper prints no grid); rises: the gain "
                       "from I = 1 to 2 is above 0, saturates: the gain from I = 8 to 16 is below "
                       "the gain from 1 to 2, both paired by seed at 95 % (the paper gives no "
                       "threshold for 'saturates'); every method must hold"),
            check=local_steps_check(
                experiment, metric, {"FedDRO": "feddro", "DS-FedDRO": "ds-feddro"}, at,
                budget, key="performance vs I rises then saturates", note=note))
      for fig, data, experiment, metric, budget, note in (
          ("fig3", "CIFAR10-ST; the paper also shows CIFAR100-ST, not set up here",
           "feddro-cifar10-st-local-steps", "train_accuracy",
           "ResNet20 as in Figure 1; the values of I and the rounds are not printed",
           "eta 0.1, beta 0.1, lambda 1, server rates 1.3 (ours)"),
          ("fig4", "Adult, equality of opportunity",
           "feddro-adult-local-steps", "test_accuracy",
           "logistic regression as in Figure 2; the values of I and the rounds are not printed",
           "8 clients, batch 16, eta 0.05, beta 0.1, penalty 1, server rates 1.4 (ours)"))
      for at in ("rounds", "iterations")],
]


# =============================================================================================
# New claims (paper re-read): section 2.1's applications, section 5's computation remark
# =============================================================================================
PORTFOLIO_KEYS = ("-E[R(x)] + lam Var(R(x)) is a CO problem of form (2)",
                  "the printed inner map g(x) = R(x) (d_g = 1) with f = -E[.] + Var(.) suffices")


def measure_portfolio(profile, out_dir) -> Measurement:
    """(a) fedcomp's CO form (g_k = client means of (R, R^2), f(u, v) = -u + lam (v - u^2)) against
    -mean + lam var of the pooled returns at random portfolios; (b) two portfolios with the same
    expected return and different variances: no f of the scalar E[R(x)] can give both."""
    from fedcomp.problems.portfolio import MeanVariancePortfolio
    p = MeanVariancePortfolio.synthetic(num_clients=4, assets=5, samples_per_client=100,
                                        lam=1.5, seed=0)
    R = np.concatenate(p.returns, axis=0)          # equal client sizes: the pooled market
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(8):
        x = rng.standard_normal(p.dim)
        r = R @ x
        direct = -r.mean() + p.lam * r.var()
        worst = max(worst, abs(p.value(x) - direct) / (1 + abs(direct)))
    x1 = rng.standard_normal(p.dim)
    v = rng.standard_normal(p.dim)
    v -= (v @ p.mubar) / (p.mubar @ p.mubar) * p.mubar   # same expected return
    x2 = x1 + v
    m1, m2 = float(p.mubar @ x1), float(p.mubar @ x2)
    s1, s2 = float((R @ x1).var()), float((R @ x2).var())
    return Measurement(values={
        PORTFOLIO_KEYS[0]: bool(worst < 1e-10), "max_rel_diff": worst,
        PORTFOLIO_KEYS[1]: bool(abs(s1 - s2) <= 1e-9 * (1 + s1)),
        "same_mean_pair": {"E[R] of x1, x2": [m1, m2], "Var(R) of x1, x2": [s1, s2]}},
        detail="MeanVariancePortfolio.synthetic(K=4, d=5, 100 samples per client, lam=1.5)")


def judge_portfolio(predicted, m: Measurement) -> CheckResult:
    parts = [equal_verdict(k, m.values[k], predicted[k]) for k in PORTFOLIO_KEYS]
    pair = m.values["same_mean_pair"]
    return _result(parts, predicted, m.values,
                   f"CO form vs direct objective: max relative difference "
                   f"{m.values['max_rel_diff']:.1e}; two portfolios with E[R] "
                   f"{pair['E[R] of x1, x2'][0]:.6g} = {pair['E[R] of x1, x2'][1]:.6g} have "
                   f"Var(R) {pair['Var(R) of x1, x2'][0]:.4g} vs {pair['Var(R) of x1, x2'][1]:.4g}"
                   ", so the inner map must carry E[R^2] too (d_g = 2); ")


def _portfolio_wrong(predicted):
    # one wrong entry per mutant: the valid reformulation denied (the d_g = 1 entry set to what
    # the measurement shows, so only the first entry is wrong)
    return [{PORTFOLIO_KEYS[0]: not predicted[PORTFOLIO_KEYS[0]], PORTFOLIO_KEYS[1]: False}]


CLAIMS += [
    Claim(id="khanduri.sec2.portfolio", paper=PAPER, location="Section 2.1, Portfolio optimization",
          statement="Mean-variance portfolio selection min_x -E[R(x)] + lambda Var(R(x)) is a CO "
                    "problem with inner function g(x) = R(x), the portfolio return, and outer "
                    "function f(.) = -E[.] + Var(.).",
          kind="equivalence",
          predicted={PORTFOLIO_KEYS[0]: True, PORTFOLIO_KEYS[1]: True},
          reading="in problem (2) g = E[g(x; zeta)] and f is deterministic: the printed g = R(x) "
                  "read as g = E[R(x)] (d_g = 1); fedcomp's reading g = E[(R, R^2)] (d_g = 2) "
                  "is judged as the first entry",
          check=Check(measure_portfolio, judge_portfolio, wrong=_portfolio_wrong),
          notes="the objective is a CO problem of form (2) with d_g = 2 "
                "(fedcomp.problems.portfolio), not with the printed scalar g; the paper's f "
                "'-E[.] + Var(.)' acts on a random variable, not on a vector of expectations"),
    Claim(id="khanduri.sec2.hyperparameter", paper=PAPER,
          location="Section 2.1, Hyperparameter tuning",
          statement="Many meta-learning and hyperparameter optimisation problems can be written "
                    "in CO form "
                    "min_lambda L_val(g(lambda)) with g(lambda) = argmin_w L_train(w, lambda) and "
                    "f = L_val.",
          kind="equivalence", predicted={"is a CO problem of form (2)": True},
          not_checked="qualitative: the inner map is an argmin, not an expectation "
                      "E[g(x; zeta)] with unbiased samples as Assumption 3.3 requires, so it is "
                      "a bilevel problem in CO notation; checking that FedDRO's guarantees apply "
                      "would need a stochastic oracle for g and grad g (implicit "
                      "differentiation), which fedcomp does not have"),
    Claim(id="khanduri.sec5.computation", paper=PAPER, location="Section 5, after Algorithm 3",
          statement="DS-FedDRO updates y with a single stochastic evaluation per iteration (Step 5: "
                    "g_k(x_k^{t+1}; zeta)), whereas FedDRO's estimator (8) needs two "
                    "(g_k(x_k^{t-1}; zeta) and g_k(x_k^t; zeta)), so DS-FedDRO improves the "
                    "per-iteration computation.",
          kind="complexity",
          predicted={"inner evaluations per iteration": {"FedDRO": 2, "DS-FedDRO": 1}},
          not_checked="a measured check needs a counter of g_k evaluations: the numba kernels "
                      "expose none; the torch backend calls every inner evaluation through "
                      "Python (fedcomp.engine.torch_backend's g_value, g_value2 as two of them), "
                      "where one could be counted, but no such counter is part of fedcomp yet; "
                      "from the algorithms' text the counts are 2 and 1 as stated (the paper "
                      "says 'stochastic gradient computations' for what are function "
                      "evaluations)"),
]


# =============================================================================================
# Rates and complexities measured: Theorems 4.2, 4.3, 5.2, Corollaries 4.4, 5.3, Remark 4.5
# =============================================================================================
def _feddro_measure(name: str, profile: str, out_dir) -> Measurement:
    """fedcomp.rates.feddro's measurement `name` as a Measurement (one Measure object per sweep
    group, so that verify measures each group once)."""
    import importlib  # fedcomp.rates re-exports a function named feddro (the schedule)
    r = getattr(importlib.import_module("fedcomp.rates.feddro"), name)(profile, Path(out_dir))
    return Measurement(values=r["values"], figures=r["figures"], detail=r["detail"])


def _lazy(name):
    return Measure(_feddro_measure, name, name=name, module="fedcomp.rates.feddro")


FEDDRO = _lazy("measure_feddro")
FEDDRO_LITERAL = _lazy("measure_feddro_literal")
DSFEDDRO = _lazy("measure_dsfeddro")
FEDAVG_MODIFIED = _lazy("measure_fedavg_modified")
FLOATS = _lazy("measure_floats")
FEDDRO_INDEPENDENT = _lazy("measure_feddro_independent")


def _part(label, fit, predicted, max_width, floor=None, floor_reason="", regime=None,
          tail=None, family=1):
    """One rate part: the whole grid's upper-bound verdict, checked against the grid's upper
    half when there is one (`tail`, an ExponentFit: :func:`tail_checked_verdict`); `family`:
    the claim's number of parts (a fail must hold at 1 - 0.05/family)."""
    v = upper_bound_verdict(fit, predicted, max_width=max_width, floor=floor,
                            floor_reason=floor_reason, tail=tail,
                            tail_label="upper half of the T grid", regime=regime, family=family)
    return {"part": label, "verdict": v.verdict, "slope": fit.slope,
            "interval": [fit.low, fit.high], "predicted": predicted, "r2": fit.r2,
            "n_points": fit.n_points, "n_seeds": fit.n_seeds, "reason": v.reason}


def _rate_result(parts, predicted, info, extra=""):
    verdict = combine([p["verdict"] for p in parts])
    detail = "; ".join(f"{p['part']}: {p['verdict']} -- {p['reason']}" for p in parts) + extra
    return CheckResult(verdict, predicted, {"parts": parts, **info}, detail,
                       interval=deciding_interval([(p["verdict"], p["interval"])
                                                   for p in parts]),
                       panels={p["part"]: p["verdict"] for p in parts})


def _rate_parts(predicted, m, spec):
    """Parts "E||grad||^2 vs T/K" for (problem, variable) in spec, judged against
    predicted[variable] with the noise floor; the claim's family is its len(spec) parts."""
    v, parts = m.values, []
    for problem, var in spec:
        entry = v["rates"][problem]
        fixed = f"K={v.get('K0')}" if var == "T" else f"T={v.get('Tmax')}"
        parts.append(_part(f"{rate_part(problem, var)} ({fixed})", entry[var],
                           predicted[var], v["max_width"], SGD_FLOOR, SGD_FLOOR_REASON,
                           entry.get("regime") if var == "T" else None,
                           entry.get("T_upper_half") if var == "T" else None, len(spec)))
    return parts


def _probe_text(probes) -> str:
    out = "; deterministic probe on LQ d=4, d_g=8 (exact oracles, I=1, beta=eta), final " \
          "||grad Phi||^2 (a bias that vanished with eta would shrink ~16x):"
    for a, probe in probes.items():
        out += " " + a + ": " + ", ".join(f"{r['grad_norm_sq']:.3g} at eta={r['eta']}"
                                          for r in probe["runs"]) + ";"
    return out


def _fits_info(v):
    """Everything measured beside the judged parts, JSON-able."""
    info = {}
    for problem, entry in v.get("rates", {}).items():
        for key, val in entry.items():
            if hasattr(val, "slope"):
                info[f"{problem} {key} slope"] = [val.slope, val.low, val.high]
            elif key == "regime":
                info[f"{problem} local T slopes"] = val["local_slopes"]
    return info


# --- Theorem 4.3 ----------------------------------------------------------------------------

#: the rule for a paper's own instance that meets an assumption only on bounded sets (README,
#: "Verdict rules"): judged on the region the run visits, the global failure its own claim
BOUNDED_REGION = ("KL-DRO meets Assumption 3.2 on bounded sets, not on R^d "
                  "(khanduri.assump3.2.dro): judged on a bounded region, as every theorem's "
                  "exponents are on its paper's own instances (wu's section 5.1 model, zhang's "
                  "AUC problem), provided no run diverged and the runs' final average models do "
                  "not move further out as T grows (the largest norm at any T at most "
                  "REGION_GROWTH times that at the grid's first T); the runs record their final "
                  "average models only, not their paths or the clients' models, so this reads "
                  "where the runs end, not every point they visit")
#: how much the largest final model's norm may grow over a T grid before the runs count as
#: moving further out with T (then the bounded-region part is inconclusive)
REGION_GROWTH = 1.5


def _bounded_region_part(part: dict, norms: dict, diverged: int | None) -> dict:
    """`part` (a rate part on a problem that meets an assumption on bounded sets only) kept
    when no run diverged and the largest final-model norm `norms` ({T: norm}) at any T is at
    most REGION_GROWTH times its value at the grid's first T; inconclusive otherwise, or with
    fewer than two T recorded (:data:`BOUNDED_REGION`)."""
    def undecided(why):
        return {**part, "verdict": "inconclusive", "reason": f"{part['reason']}; {why}"}
    if diverged is None or len(norms) < 2:
        return undecided("the runs' final models were not recorded at two T or more, nor "
                         "their divergence")
    if diverged:
        return undecided(f"{diverged} run(s) diverged: not a bounded run")
    Ts = sorted(norms)
    text = ("largest ||final average model|| by T: "
            + ", ".join(f"{norms[T]:.3g} (T={T})" for T in Ts))
    first, top = norms[Ts[0]], max(norms.values())
    growth = top / first if first > 1e-12 else (1.0 if top <= 1e-12 else float("inf"))
    if growth > REGION_GROWTH:
        return undecided(f"{text}: the runs end further out as T grows ({growth:.2f} times the "
                         f"first T's, more than {REGION_GROWTH:g}), so no one bounded region "
                         f"is shown for the grid")
    return {**part, "reason": f"{part['reason']}; {text} (at most {growth:.2f} times the first "
                              f"T's: within {REGION_GROWTH:g})"}


def judge_thm43(predicted, m):
    """The LQ parts and the KL-DRO T part judge the theorem (KL-DRO under the bounded-region
    reading of Assumption 3.2: :data:`BOUNDED_REGION`)."""
    parts = _rate_parts(predicted, m, [("LQ", "T"), ("LQ", "K"), ("LQ-residual", "T"),
                                       ("KL-DRO", "T")])
    kl = m.values["rates"]["KL-DRO"]
    parts[-1] = _bounded_region_part(parts[-1], kl.get("final_norms") or {},
                                     kl.get("diverged_runs"))
    return _rate_result(parts, predicted, {**_fits_info(m.values),
                                      "bias_probe": m.values["bias_probe"]},
                   f"; {BOUNDED_REGION.replace('REGION_GROWTH', f'{REGION_GROWTH:g}')}"
                   + _probe_text(m.values["bias_probe"]))


def judge_thm43_literal(predicted, m):
    parts = _rate_parts(predicted, m, [("LQ", "T"), ("LQ-residual", "T")])
    return _rate_result(parts, predicted, {**_fits_info(m.values),
                                      "bias_probe": m.values["bias_probe"]},
                   _probe_text(m.values["bias_probe"]))


# --- the remark after Assumption 3.3 --------------------------------------------------------

#: a relative bias below this is rounding (sums of about 100 terms of order 1)
_BIAS_ROUNDING = 1e-9


def judge_assump33_independent(predicted, m):
    """Two parts. 'Does not affect the guarantees': the exponent in T of the ratio of
    feddro-independent's E||grad Phi||^2 to FedDRO's on KL-DRO under Theorem 4.3's schedule
    (paired seeds, fedcomp.rates.analysis.paired_ratio_fit) is the predicted difference of their
    rates, judged as an exponent claimed exactly (exponent_verdict). 'Made only for
    simplicity': the order in eta = beta of the bias the shared sample puts into (7) along that
    schedule; the guarantee bears it if it vanishes faster than eta^(1/2) (its square then below
    the theorem's O(1/sqrt(KT)), as eta ~ sqrt(K/T)): vanishing_order_verdict, a bias at
    rounding level everywhere passing (none to bear)."""
    v = m.values
    ratio = v["rates"]["ratio"]["T"]
    # one part on an interval (the other, the bias's order, is computed, not sampled): no
    # family to correct over
    rv = exponent_verdict(ratio, predicted["rate difference"], max_width=v["max_width"])
    parts = [{"part": "feddro-independent / FedDRO, E||grad||^2 ratio vs T (K=8, paired seeds)",
              "verdict": rv.verdict, "slope": ratio.slope, "interval": [ratio.low, ratio.high],
              "predicted": predicted["rate difference"], "r2": ratio.r2,
              "n_points": ratio.n_points, "n_seeds": ratio.n_seeds, "reason": rv.reason}]
    bias, want = v["bias"], predicted["shared-sample bias order"]
    rel = bias["relative_bias"]
    bv = vanishing_order_verdict("the shared sample's bias relative to the noise scale, against "
                                 f"eta (T = {bias['T'][-1]} down to {bias['T'][0]})",
                                 bias["etas"], rel, want, zero=_BIAS_ROUNDING)
    slopes = [float(z) for z in local_slopes(bias["etas"], rel)]   # T ascending
    parts.append({"part": "order in eta (= beta) of the shared sample's bias (KL-DRO, "
                          "one-sample minibatch, at Phi's stationary point)",
                  "verdict": bv.verdict, "slope": slopes[-1], "interval": [None, None],
                  "local_slopes": slopes, "predicted": want, "reason": bv.reason})
    rows = []
    for i, T in enumerate(bias["T"]):
        row = (f"T={T} (eta = beta = {bias['etas'][i]:.4g}): bias {rel[i]:.3g} of the noise "
               f"scale, ||mean_k bias_k||^2 {bias['mean_bias_sq'][i]:.3g}")
        if T in ratio.x:
            j = ratio.x.index(T)
            row += (f"; E||grad Phi||^2 ratio {ratio.y_mean[j]:.3f} [{ratio.y_low[j]:.3f}, "
                    f"{ratio.y_high[j]:.3f}]")
        rows.append(row)
    own, shared = v["rates"]["KL-DRO"]["T"], v["rates"]["KL-DRO FedDRO"]["T"]
    extra = ("; by T (the bias for one-sample minibatches, computed beyond the sweep's grid too; "
             "the sweeps' minibatch of B samples divides its first-order terms by B): "
             + "; ".join(rows)
             + f"; T slopes on their own (reported: this claim judges their difference): "
               f"feddro-independent {own.text()}, FedDRO {shared.text()}; communication: "
               f"feddro-independent's ledger "
             + ("equals" if v["ledger_same"] else "DIFFERS FROM")
             + " FedDRO's at every run (the same schedule; its inner samples per iteration "
               "double, a second minibatch for (7))")
    return _rate_result(parts, predicted, {**_fits_info(v), "bias": bias,
                                           "ledger_same": v["ledger_same"]}, extra)


# --- Theorem 5.2 ----------------------------------------------------------------------------

def judge_thm52(predicted, m):
    parts = _rate_parts(predicted, m, [("LQ", "T"), ("LQ", "K")])
    diag = m.values["rates"]["LQ-diagnostic"]["T"]
    outside = m.values["rates"].get("LQ-Jacobian-heterogeneity", {}).get("T")
    return _rate_result(parts, predicted, _fits_info(m.values),
                        f"; diagnostic (not the printed schedule, not judged): with gamma_x = "
                        f"gamma_y = 0.25 sqrt(K I), so that gamma_x eta = 0.25 sqrt(K/T) as in "
                        f"FedDRO, the T slope is {diag.text()}"
                        + (f"; on LQ with heterogeneous Jacobians (Assumption 5.1 fails on R^d; "
                           f"not judged: a problem fedcomp builds to test a theorem must meet its "
                           f"hypotheses as printed, unlike the paper's own instances) the T slope "
                           f"is {outside.text()}" if outside else ""))


# --- Theorem 4.2 ----------------------------------------------------------------------------

def judge_thm42(predicted, m):
    """"Converges to a stationary point" (no rate stated), on each problem: E||grad||^2 must
    still decrease at the largest T (the fit over the last three grid points lies below 0) as
    well as over the whole grid; a curve levelling off to a floor (Theorem 4.1's failure) has
    last-three slopes at or above 0. Predicted True: pass when both intervals lie below 0, fail
    when either lies at or above 0 at the claim's family level (1 - 0.05/m, m the claim's two
    intervals per problem: any of them fails it). Predicted False: the reverse (its fail, both
    intervals below 0, at the family level too). Inconclusive otherwise, and when runs at the
    last three points diverged or are missing."""
    claim = predicted["converges"]
    parts = []
    fam = 2 * len(m.values["rates"])
    for problem, entry in m.values["rates"].items():
        whole, last = entry["T"], entry["T_last3"]
        wide = (whole.family_interval(fam), last.family_interval(fam))
        decreasing = whole.high < 0 and last.high < 0
        stalls = whole.low >= 0 or last.low >= 0
        # what refutes the prediction must hold at the family's level
        refuted = (any(lo >= 0 for lo, _ in wide) if claim else
                   all(hi < 0 for _, hi in wide))
        lost = last.losses()     # runs diverged or missing at the last points: not "still
        if lost:                 # decreasing at the largest T" on what is left
            verdict = "inconclusive"
        elif (decreasing if claim else stalls):
            verdict = "pass"
        elif refuted:
            verdict = "fail"
        else:
            verdict = "inconclusive"
        at = (f" (at 1 - 0.05/{fam} over the claim's {fam} intervals: whole grid "
              f"[{wide[0][0]:+.3f}, {wide[0][1]:+.3f}], last three [{wide[1][0]:+.3f}, "
              f"{wide[1][1]:+.3f}]" + (")" if refuted else ": not at that level)"))
        why = (f"the last three points lost runs ({lost}; the measurement's detail names the "
               f"diverged ones)" if lost else
               "E||grad||^2 still decreases at the largest T"
               + (at if not claim else "") if decreasing else
               "E||grad||^2 stops decreasing (an interval at or above 0)"
               + (at if claim else "") if stalls else
               "an interval contains 0")
        parts.append({"part": f"{problem} E||grad||^2 vs T (K={m.values['K0']}, I = T^(1/4))",
                      "verdict": verdict, "slope": whole.slope,
                      "interval": [whole.low, whole.high], "predicted": claim,
                      "reason": f"whole grid {whole.text()}, last three points {last.text()}: "
                                f"{why}; regime: {entry['regime']['text']}"})
    return _rate_result(parts, predicted, _fits_info(m.values))


# --- Corollaries 4.4 / 5.3 ----------------------------------------------------------------------

def _cost_part(label, fit, eps_exponent, max_width, floor=None, floor_reason="", tail=None,
               t_per_cost=None, regime=None, family=1):
    """cost = O(eps^a) (a < 0) judged as eps <= C cost^(1/a) (with the grid's upper half when
    `tail` is its fit). `t_per_cost`: how T grows with the cost along the grid; given, the floor
    is SGD_FLOOR carried into the cost (:func:`fedcomp.rates.verdict.cost_floor`), and a cost
    that cannot carry it (NaN: T does not grow with it) makes the part inconclusive. `regime`:
    that of the T sweep the cost is read from (the cost grows with T along it), which keeps a
    pass off a run that drifts at the end of the grid, as for the rate parts."""
    if t_per_cost is not None and not t_per_cost > 0:
        # no floor to carry: a decay slower than the bound still fails (that side needs none),
        # but a pass cannot be told from a run outside the regime
        p = _part(label, fit, 1.0 / eps_exponent, max_width, tail=tail, regime=regime,
                  family=family)
        if p["verdict"] == "pass":
            p["verdict"] = "inconclusive"
            p["reason"] = ("the cost does not grow with T along the grid (fewer than two T, or a "
                           "cost that is not positive or does not change), so the method "
                           "class's floor cannot be carried into it and a pass cannot be told "
                           "from a run outside the regime; without the floor: " + p["reason"])
    else:
        if t_per_cost is not None:
            floor, floor_reason = cost_floor(SGD_FLOOR, SGD_FLOOR_REASON, t_per_cost)
        p = _part(label, fit, 1.0 / eps_exponent, max_width, floor, floor_reason, tail=tail,
                  regime=regime, family=family)
    from fedcomp.rates.analysis import invert
    if fit.high < 0:
        a, a_lo, a_hi = invert(fit)
        p["reason"] += (f"; cost ~ eps^-{a:.2f} [{a_lo:.2f}, {a_hi:.2f}], predicted "
                        f"eps^{eps_exponent:g}")
    else:      # eps does not surely fall with the cost: no finite cost exponent to quote
        p["reason"] += (f"; no cost exponent (the interval of eps's slope reaches 0: eps need "
                        f"not fall with the cost), predicted eps^{eps_exponent:g}")
    return p


def _complexity_parts(predicted, m, rounds_cost, problems=("LQ", "LQ-residual")):
    v, parts = m.values, []
    w = v["max_width"]
    sp_ = predicted["samples per client"]
    lq = v["costs"]["LQ"]
    # the parts judged on an interval: the speed-up where it was measured, and per problem
    # samples and rounds
    family = int(lq.get("speedup") is not None) + 2 * len(problems)
    if lq.get("speedup") is None:
        parts.append({"part": f"{SPEEDUP_PART} (samples per client to eps vs K)",
                      "verdict": "inconclusive", "slope": None, "interval": [None, None],
                      "predicted": sp_["K"],
                      "reason": lq.get("speedup_why_not") or (
                          f"no target eps={lq['speedup_eps']:.3g} is reached by two K on the "
                          f"grid")})
    else:
        parts.append(_part(f"{SPEEDUP_PART}: samples per client to reach "
                           f"eps={lq['speedup_eps']:.3g} vs K", lq["speedup"], sp_["K"], 2 * w,
                           floor=SPEEDUP_FLOOR, floor_reason=SPEEDUP_FLOOR_REASON,
                           family=family))
    for problem in problems:
        c = v["costs"][problem]
        reg = v.get("rates", {}).get(problem, {}).get("regime")
        parts.append(_cost_part(f"{problem} samples per client (K={v['K0']}): eps vs T",
                                c["eps_vs_samples"], sp_["eps"], w, floor=SGD_FLOOR,
                                floor_reason=SGD_FLOOR_REASON,
                                tail=c.get("eps_vs_samples_upper_half"), regime=reg,
                                family=family))
        parts.append(_cost_part(f"{communication_part(problem)} (K={v['K0']}): eps vs "
                                f"{rounds_cost}",
                                c[f"eps_vs_{rounds_cost}"], predicted["rounds"]["eps"], w,
                                t_per_cost=c["t_per_cost"][rounds_cost],
                                tail=c.get(f"eps_vs_{rounds_cost}_upper_half"), regime=reg,
                                family=family))
    return parts


#: the problems of the complexity sweeps, as the communication figure names them
_PROBLEMS = {"LQ": "LQ d=10, d_g=5 (g(x*) = 0)", "LQ-residual": "LQ d=4, d_g=8 (g(x*) != 0)"}
#: the readings of "communication rounds" (column of the measurement: label)
_READINGS = {"rounds": "model rounds (T/I)", "exchanges": "Definition 3.7 rounds"}


def _communication_plot(claim, title, panels):
    from fedcomp.figures import plot
    from fedcomp.figures.communication import communication_figure
    return plot(f"figures/{claim}-communication.png", communication_figure, panels,
                f"{PAPERS[PAPER]}. {title} ({claim})", claims=(claim,))


def _rounds_panels(predicted, m, rounds_cost, problems, readings, alg):
    """Rounds to reach eps against eps on each problem, each reading in `readings` with the
    claim's predicted exponent (the one counted as `rounds_cost` is the judged one)."""
    from fedcomp.figures.communication import reading
    p = predicted["rounds"]["eps"]
    return [{"cost": "rounds", "title": f"{_PROBLEMS[problem]}, K={m.values['K0']}",
             "series": [reading(_READINGS[r], alg, m.values["costs"][problem][f"eps_vs_{r}"], p,
                                judged=r == rounds_cost) for r in readings]}
            for problem in problems]


def _complexity_judge(rounds_cost, problems=("LQ", "LQ-residual"), note="", figure=None):
    """Judge of a complexity claim, with rounds counted as `rounds_cost` (column of the
    measurement: "exchanges" for Definition 3.7, "rounds" for model averaging). `figure`:
    (claim id, title, readings drawn, algorithm) of its communication figure."""
    def judge(predicted, m):
        speed = m.values["costs"]["LQ"].get("samples_per_client_to_eps")
        res = _rate_result(_complexity_parts(predicted, m, rounds_cost, problems), predicted,
                           {"samples_per_client_to_eps": speed}, note)
        if figure is not None:
            claim, title, readings, alg = figure
            res.figures.append(_communication_plot(claim, title, _rounds_panels(
                predicted, m, rounds_cost, problems, readings, alg)))
        return res
    return judge


_COR44_TITLE = ("Corollary 4.4: FedDRO's communication rounds to reach eps, both readings, "
                "dashed: the claimed O(eps^-3/2)")
judge_cor44_def37 = _complexity_judge(
    "exchanges", note="; rounds counted as in Definition 3.7: every iteration at which a client "
                      "uploads (FedDRO uploads y every iteration)",
    figure=("khanduri.cor4.4", _COR44_TITLE + "; judged here: Definition 3.7 rounds",
            ("exchanges", "rounds"), "feddro"))
judge_cor44_model = _complexity_judge(
    "rounds", note="; rounds counted as model-averaging rounds (T/I); the y uploads are booked as "
                   "floats (Remark 4.5, khanduri.rem4.5)",
    figure=("khanduri.cor4.4.model-rounds", _COR44_TITLE + "; judged here: model rounds",
            ("rounds", "exchanges"), "feddro"))
judge_cor53 = _complexity_judge(
    "rounds", problems=("LQ",),
    figure=("khanduri.cor5.3", "Corollary 5.3: DS-FedDRO's communication rounds to reach eps "
            "(model rounds and Definition 3.7 rounds coincide), dashed: the claimed O(eps^-1)",
            ("rounds",), "ds-feddro"))


# --- Remark 4.5 ---------------------------------------------------------------------------------

def judge_rem45(predicted, m):
    v = m.values
    parts = []
    if v["ledger_mismatches"]:
        parts.append({"part": "ledger: floats_x = rounds K d, floats_y = (T+1) K d_g",
                      "verdict": "inconclusive", "slope": None, "interval": [None, None],
                      "predicted": "exact",
                      "reason": f"{len(v['ledger_mismatches'])} runs' ledgers disagree with "
                                f"the algorithm's communication: the measurement is invalid"})
    for regime_key, label in (("d >> d_g", "d=40, d_g=1"), ("d_g >> d", "d=2, d_g=16")):
        f = v["floats"][label]
        p = _cost_part(f"{regime_key} ({label}): eps vs floats per client", f["eps_vs_floats"],
                       predicted[regime_key]["floats per client"]["eps"], v["max_width"],
                       t_per_cost=f["t_per_cost"], tail=f.get("eps_vs_floats_upper_half"),
                       regime=f.get("regime"), family=2)
        p["reason"] += (f"; d >= eps^-1/2 d_g / K on the whole grid: "
                        f"{f['first_term_dominates']}; share of y floats "
                        f"{f['share_y'][0]:.2f}..{f['share_y'][1]:.2f}")
        parts.append(p)
    res = _rate_result(parts, predicted, {"ledger_mismatches": len(v["ledger_mismatches"])})
    from fedcomp.figures.communication import reading
    series = [reading(f"{label} ({regime_key})", "feddro", v["floats"][label]["eps_vs_floats"],
                      predicted[regime_key]["floats per client"]["eps"], judged=True)
              for regime_key, label in (("d >> d_g", "d=40, d_g=1"), ("d_g >> d", "d=2, d_g=16"))]
    res.figures.append(_communication_plot(
        "khanduri.rem4.5", "Remark 4.5: FedDRO's floats per client to reach eps, dashed: the "
        "claimed O(eps^-3/2) when d >> d_g and O(eps^-2) when d_g >> d",
        [{"cost": "floats", "title": f"LQ, K={v['K0']}", "series": series}]))
    return res


# --- derivations from the theorems' parameters (sympy) ----------------------------------------

def _derive(key, profile, out_dir) -> Measurement:
    from fedcomp.theory.complexity import derive
    from fedcomp.theory.schedules import ORDERS
    dv = derive(key)
    return Measurement(values={"derived": dv, "schedule": ORDERS.get(key)},
                       detail=f"{dv.algorithm} ({dv.source}): T(eps) = {dv.iterations}")


def _derivation(key):
    return Measure(_derive, key, name=f"derive_{key.replace('-', '_')}")


_DERIVED_KEYS = {"per client samples": "per_client_samples", "total samples": "total_samples",
                 "rounds": "rounds", "batch": "batch"}


def judge_derivation(predicted, m, keys=None):
    """The stated orders against the ones derived by sympy from the theorem's parameters
    (fedcomp.theory.complexity.derive): each must be of the same order in eps and K (both
    directions fail); the theorem's own bound terms must all be of the stated rate, where they
    are more than its printed result's O-terms (Scheme.terms_printed). `keys`: which derived
    quantity each stated one is (default _DERIVED_KEYS; Definition 3.7 reads FedDRO's rounds
    as its iterations: judge_derivation_def37)."""
    from fedcomp.theory.complexity import parse, same_order
    dv = m.values["derived"]
    parts, derived = [], {}
    for key, attr in (keys or _DERIVED_KEYS).items():
        if key not in predicted:
            continue
        got = getattr(dv, attr)
        want = parse(predicted[key])
        ok = bool(same_order(got, want))
        record_comparison(f"order of {key} (same order: a constant ratio)", str(got), str(want),
                          "pass" if ok else "fail")
        derived[key] = str(got)
        parts.append({"part": key, "verdict": "pass" if ok else "fail", "slope": None,
                      "interval": [None, None], "predicted": predicted[key],
                      "reason": f"derived {got}, stated {want}: "
                                + ("same order" if ok else "different order")})
    if dv.terms_printed:
        # the theorem prints only its result's O-terms: comparing them with the stated rate
        # would restate the theorem, not derive from it
        extra = ("; the theorem prints only the O-terms of its result (constants in the "
                 "appendix), so its bound's terms are not derived here")
    else:
        parts.append({"part": "bound terms of the stated rate", "verdict":
                      "pass" if dv.terms_ok else "fail", "slope": None, "interval": [None, None],
                      "predicted": str(dv.rate), "reason": "; ".join(dv.flags) or
                      "every term of the theorem's bound is at most of the stated rate"})
        extra = ""
    sched = m.values["schedule"]
    extra += "; regimes: " + "; ".join(dv.regimes) if dv.regimes else ""
    if sched:
        extra += f"; schedule (orders, shared with the measurement): {sched}"
    return _rate_result(parts, predicted, {"derived": derived, "T(eps)": str(dv.iterations)}, extra)


def judge_derivation_def37(predicted, m):
    """:func:`judge_derivation` with the rounds counted as Definition 3.7 counts them for FedDRO,
    which uploads y at every iteration: its rounds are its T(eps) iterations."""
    res = judge_derivation(predicted, m, keys={**_DERIVED_KEYS, "rounds": "iterations"})
    res.detail += ("; rounds counted as in Definition 3.7: every iteration at which a client "
                   "uploads (FedDRO uploads y every iteration), i.e. T(eps)")
    return res


def _floats_derivation(profile, out_dir):
    import sympy as sp
    from fedcomp.theory.complexity import d, derive, dg
    dv = derive("feddro")
    first, second = sp.simplify(dv.rounds * d), sp.simplify(dv.iterations * dg)
    cross = sp.solve(sp.Eq(first, second), d)
    return Measurement(values={"first": first, "second": second,
                               "crossover_d": cross[0] if cross else None})


def judge_floats_derivation(predicted, m):
    """Remark 4.5's floats per client: rounds * d + T * d_g, each term against the stated one
    (same order), and the crossover d = eps^-1/2 K^-1 d_g (exactly)."""
    import sympy as sp
    from fedcomp.theory.complexity import parse, same_order
    v = m.values
    parts = []
    for key, got in (("x floats", v["first"]), ("y floats", v["second"])):
        want = parse(predicted[key])
        ok = bool(same_order(got, want))
        record_comparison(f"order of {key} (same order: a constant ratio)", str(got), str(want),
                          "pass" if ok else "fail")
        parts.append({"part": key, "verdict": "pass" if ok else "fail", "slope": None,
                      "interval": [None, None], "predicted": predicted[key],
                      "reason": f"derived {got}, stated {want}"})
    want = parse(predicted["crossover d"])
    got = v["crossover_d"]
    ok = got is not None and sp.simplify(got - want) == 0
    if got is not None:
        record_comparison("crossover d (exact)", str(got), str(want), "pass" if ok else "fail")
    parts.append({"part": "crossover d", "verdict": "pass" if ok else "fail", "slope": None,
                  "interval": [None, None], "predicted": predicted["crossover d"],
                  "reason": f"the two terms are equal at d = {got}"})
    return _rate_result(parts, predicted, {k: str(x) for k, x in v.items()})


# --- declarations -------------------------------------------------------------------------------

# Mutations judged by the tests: the T exponent and the eps exponents. The K fits are not
# mutated: on the quick grid they are steeper than the class allows (K^-0.98 for E||grad||^2,
# K^-1.5 for the speed-up), i.e. outside the bound's regime, so no prediction in K can be
# refuted by them (their parts are inconclusive and say why).
_RATE_WRONG = steeper(("T",))
_COMPLEXITY_WRONG = cheaper(("samples per client", "eps"), ("rounds", "eps"))
_SAMPLES = {"eps": -2, "K": -1}

RATE_CLAIMS = [
    Claim(id="khanduri.thm4.2", paper="khanduri", location="Theorem 4.2",
          statement="Modified FedAvg (Algorithm 1 with y_k^t = ybar^t shared every iteration) "
                    "converges to a stationary point of Phi (h = 0) for 1 <= I <= O(T^(1/4)) "
                    "and a suitable eta.",
          kind="rate", predicted={"converges": True},
          reading="measured with eta = 0.5 sqrt(K/T) (the theorem only says 'there exists eta') "
                  "and I = round(T^(1/4)), the largest order the theorem allows",
          check=Check(FEDAVG_MODIFIED, judge_thm42, flipped(("converges",)))),
    Claim(id="khanduri.thm4.3", paper="khanduri", location="Theorem 4.3",
          statement="FedDRO (Algorithm 2) with eta = O(sqrt(K/T)), beta = 4 B_g^4 L_f^2 eta, "
                    "I = O(T^(1/4)/K^(3/4)) and T >= T_th: E||grad Phi(xbar^{a(T)})||^2 <= "
                    "O(C_Sync/sqrt(KT)) + O(C_Drift/sqrt(KT)).",
          kind="rate", predicted={"T": -0.5, "K": -0.5},
          reading="estimator (8) anchored at the client's own previous iterate (fedcomp's "
                  "feddro); the literal reading is khanduri.thm4.3.literal",
          notes="Every part runs the theorem's orders with fedcomp's constants (eta = "
                "0.5 sqrt(K/T), beta = eta: the orders-only reading of fedcomp.rates.schedules); "
                "the printed beta = 4 B_g^4 L_f^2 eta exceeds 1 on the whole quick grid (on LQ "
                "B_g >= max_k ||A_k|| = 2.76, so it is at least 14.4 at T = 512 and 2.5 at "
                "T = 16384), where it is no moving-average weight. The KL-DRO problem meets "
                "Assumption 3.2 only on bounded sets (khanduri.assump3.2.dro fails on R^d): a "
                "finite run visits a bounded region, on which every constant is finite, so its "
                "T part is judged there, as Wu's and Zhang's theorems are on their papers' "
                "instances (one rule: README, 'Verdict rules').",
          check=Check(FEDDRO, judge_thm43, _RATE_WRONG)),
    Claim(id="khanduri.thm4.3.literal", paper="khanduri", location="Theorem 4.3, Algorithm 2",
          statement="Theorem 4.3's O(1/sqrt(KT)) rate for Algorithm 2 with (8) read literally: "
                    "after an aggregation, (8) subtracts g_k at the averaged model x_k^t = "
                    "xbar^t while y_k^t was built at the client's pre-averaging iterate.",
          kind="rate", predicted={"T": -0.5},
          reading="estimator (8) as printed in Algorithm 2 (fedcomp's feddro-literal)",
          check=Check(FEDDRO_LITERAL, judge_thm43_literal, steeper(("T",)))),
    Claim(id="khanduri.assump3.3.independent-sample", paper="khanduri",
          location="Section 3, the remark after Assumption 3.3",
          statement="In E[grad g_k(x; zeta_k) grad f(y)] = grad g_k(x) grad f(y) (Assumption "
                    "3.3) y may be correlated with zeta_k, so the unbiasedness may not strictly "
                    "hold; the assumption is made only for simplicity and can be avoided by "
                    "drawing an independent sample instead of zeta_k, which does not affect the "
                    "algorithm or the theoretical guarantees.",
          kind="rate",
          predicted={"rate difference": 0.0, "shared-sample bias order": 0.5},
          reading="the correlation exists where a sample gives both g_k's value and its "
                  "Jacobian (KL-DRO's minibatch). 'Does not affect the guarantees' is judged as "
                  "the same rate: the T exponent of the ratio of feddro-independent's ((7)'s "
                  "Jacobian on its own sample) E||grad Phi||^2 to FedDRO's on KL-DRO under "
                  "Theorem 4.3's schedule is 0 ('rate difference'); the guarantee itself is "
                  "khanduri.thm4.3's (the premise). 'Made only for simplicity' as the shared "
                  "sample's bias vanishing faster than eta^(1/2) along Theorem 4.3's schedule (eta = beta), "
                  "computed over one iteration (one-sample minibatches, at Phi's stationary "
                  "point, ybar^t = g(x), the other clients' samples at their means: "
                  "fedcomp.rates.feddro.shared_sample_bias)",
          notes="KL-DRO meets Assumption 3.2 only on bounded sets (khanduri.assump3.2.dro), "
                "as in khanduri.thm4.3's KL-DRO part. Its data change with K, so the guarantee's "
                "linear speed-up (the K exponent) is not judged here. On fedcomp's "
                "LinearQuadratic the value and the Jacobian noise of a sample are independent, "
                "so the two algorithms have the same distribution there and the bias is zero. "
                "The modification doubles the inner samples per iteration (a second minibatch "
                "for (7)), which the paper does not mention; the communication is the same. "
                "'Does not affect the guarantees' is an implication (whatever Theorem 4.3 "
                "guarantees FedDRO, it guarantees the variant), so Theorem 4.3 is its premise, "
                "not a dependency.",
          premise=("khanduri.thm4.3",),
          check=Check(FEDDRO_INDEPENDENT, judge_assump33_independent,
                      combine_wrong(shifted(("rate difference",)),
                                    each([("shared-sample bias order",)], lambda o: o + 1.0)))),
    Claim(id="khanduri.cor4.4", paper="khanduri", location="Corollary 4.4",
          statement="FedDRO: sample complexity O(eps^-2), i.e. O(K^-1 eps^-2) per client (linear "
                    "speed-up); communication complexity O(eps^-3/2).",
          kind="complexity",
          predicted={"samples per client": _SAMPLES, "rounds": {"eps": -1.5}},
          reading="Definition 3.7: communication complexity counts every client-server round, "
                  "and FedDRO uploads y every iteration (the model-averaging reading is "
                  "khanduri.cor4.4.model-rounds)" + _ANCHORED,
          depends_on=("khanduri.thm4.3",),
          check=Check(FEDDRO, judge_cor44_def37, _COMPLEXITY_WRONG)),
    Claim(id="khanduri.cor4.4.model-rounds", paper="khanduri", location="Corollary 4.4",
          statement="FedDRO: O(K^-1 eps^-2) samples per client and O(eps^-3/2) model-averaging "
                    "rounds (the y uploads of every iteration counted as floats, Remark 4.5).",
          kind="complexity",
          predicted={"samples per client": _SAMPLES, "rounds": {"eps": -1.5}},
          reading="communication complexity as model-averaging rounds T/I" + _ANCHORED,
          depends_on=("khanduri.thm4.3",),
          check=Check(FEDDRO, judge_cor44_model, _COMPLEXITY_WRONG)),
    *[Claim(id=cid, paper="khanduri", location=location, statement=statement,
            kind="complexity",
            predicted={"per client samples": "eps**-2/K", "total samples": "eps**-2",
                       "rounds": "eps**(-3/2)", "batch": "1"},
            reading=reading + _ANCHORED + "; the implication only (whether Theorem 4.3 holds is "
                                          "khanduri.thm4.3, which the claims built on this one "
                                          "depend on)",
            premise=("khanduri.thm4.3",),
            check=Check(_derivation("feddro"), judge,
                        times("eps**(1/2)", ("per client samples",), ("rounds",))))
      for cid, location, statement, reading, judge in (
          ("khanduri.cor4.4.derivation", "Corollary 4.4 from Theorem 4.3",
           "Corollary 4.4 follows from Theorem 4.3's rate and parameters: T = O(K^-1 eps^-2) "
           "iterations per client, T/I = O(eps^-3/2) rounds, O(1) batch.",
           "model-averaging rounds T/I (sympy, fedcomp.theory.complexity), the reading under "
           "which the corollary's rounds follow; Definition 3.7's (every exchange, the y uploads "
           "of every iteration included) is khanduri.cor4.4.derivation.definition-3.7",
           judge_derivation),
          ("khanduri.cor4.4.derivation.definition-3.7",
           "Corollary 4.4 from Theorem 4.3, communication as Definition 3.7 counts it",
           "Corollary 4.4 follows from Theorem 4.3's rate and parameters: T = O(K^-1 eps^-2) "
           "iterations per client, communication complexity O(eps^-3/2), O(1) batch.",
           "communication complexity as Definition 3.7 defines it: every client-server round, "
           "and FedDRO uploads y at every iteration, so its rounds are its T(eps) iterations "
           "(sympy, fedcomp.theory.complexity; the reading of khanduri.cor4.4 and "
           "khanduri.rem4.5.comparison)",
           judge_derivation_def37))],
    Claim(id="khanduri.rem4.5", paper="khanduri", location="Remark 4.5",
          statement="FedDRO sends O(eps^-3/2 d + eps^-2 K^-1 d_g) floats per client: O(eps^-3/2) "
                    "when d >= eps^-1/2 K^-1 d_g, O(eps^-2) when d_g >= sqrt(eps) K d.",
          kind="complexity",
          predicted={"d >> d_g": {"floats per client": {"eps": -1.5}},
                     "d_g >> d": {"floats per client": {"eps": -2}}},
          reading="floats per client measured on d = 40, d_g = 1 and on d = 2, d_g = 16",
          depends_on=("khanduri.thm4.3",),
          check=Check(FLOATS, judge_rem45,
                      cheaper(("d >> d_g", "floats per client", "eps"),
                              ("d_g >> d", "floats per client", "eps")))),
    Claim(id="khanduri.rem4.5.derivation", paper="khanduri",
          location="Remark 4.5 from Theorem 4.3",
          statement="Remark 4.5's floats per client follow from Corollary 4.4: rounds * d + "
                    "T * d_g = O(eps^-3/2 d + eps^-2 K^-1 d_g), the terms equal at d = "
                    "eps^-1/2 K^-1 d_g.",
          kind="complexity",
          predicted={"x floats": "eps**(-3/2)*d", "y floats": "eps**-2*d_g/K",
                     "crossover d": "d_g/(sqrt(eps)*K)"},
          depends_on=("khanduri.cor4.4.derivation",),
          premise=("khanduri.thm4.3",),
          check=Check(_floats_derivation, judge_floats_derivation,
                      combine_wrong(times("eps**(1/2)", ("x floats",), ("y floats",)),
                              times("2", ("crossover d",))))),
    Claim(id="khanduri.thm5.2", paper="khanduri", location="Theorem 5.2",
          statement="DS-FedDRO (Algorithm 3) with eta = O(1/sqrt(IT)), beta = c_beta eta, "
                    "gamma_x = O(sqrt(K/T)), gamma_y = c_gamma_y gamma_x, I = O(sqrt(T/K)): "
                    "E||grad Phi(xbar^{a(T)})||^2 = O(sqrt(C/(KT))) + O(C'/T).",
          kind="rate", predicted={"T": -0.5, "K": -0.5},
          reading="the printed orders with every free constant 1 (fedcomp.rates.schedules), on "
                  "a problem satisfying Assumption 5.1 (identical client Jacobians, "
                  "heterogeneous b_k)",
          check=Check(DSFEDDRO, judge_thm52, _RATE_WRONG)),
    Claim(id="khanduri.cor5.3", paper="khanduri", location="Corollary 5.3",
          statement="DS-FedDRO: sample complexity O(eps^-2), O(K^-1 eps^-2) per client; "
                    "communication complexity O(eps^-1).",
          kind="complexity",
          predicted={"samples per client": _SAMPLES, "rounds": {"eps": -1}},
          reading="Definition 3.7 and model-averaging rounds coincide (DS-FedDRO exchanges x "
                  "and y only every I iterations)",
          depends_on=("khanduri.thm5.2",),
          check=Check(DSFEDDRO, judge_cor53, _COMPLEXITY_WRONG)),
    Claim(id="khanduri.cor5.3.derivation", paper="khanduri",
          location="Corollary 5.3 from Theorem 5.2",
          statement="Corollary 5.3 follows from Theorem 5.2's rate and parameters: T = "
                    "O(K^-1 eps^-2), T/I = O(eps^-1) rounds, O(1) batch.",
          kind="complexity",
          predicted={"per client samples": "eps**-2/K", "total samples": "eps**-2",
                     "rounds": "eps**-1", "batch": "1"},
          reading="algebra from the theorem's bound and its eta, I; gamma_x enters only through "
                  "the theorem (which fails in measurement with it: khanduri.thm5.2); the "
                  "implication only (the claims built on this one depend on khanduri.thm5.2 "
                  "through khanduri.cor5.3)",
          premise=("khanduri.thm5.2",),
          check=Check(_derivation("ds-feddro"), judge_derivation,
                      times("eps**(1/2)", ("per client samples",), ("rounds",)))),
]

CLAIMS += RATE_CLAIMS


# --- Section 5's communication remark and Figure 1's FedAvg baseline --------------------------

LQ_RANDOM = "fedcomp.problems.linear:LinearQuadratic.random"

def measure_ds_ledger(profile, out_dir) -> Measurement:
    """DS-FedDRO's communication ledger on a small linear problem (exact oracles; the ledger does
    not depend on the data): uploads of y per client, and those outside the I-th iterations."""
    K, d, dg, T, I = 4, 2, 16, 100, 5
    r = run(LQ_RANDOM, {"num_clients": K, "dim": d, "inner_dim": dg, "heterogeneity": 0.5},
            "ds-feddro", iterations=T, eta=0.01, local_steps=I, beta=0.1, server_lr_x=1.3,
            server_lr_y=1.4, stochastic=False, record_every=T)
    y_uploads = int(r.floats_by_variable["y"] // (K * dg))
    return Measurement(values={"y_uploads": y_uploads, "rounds": int(r.rounds),
                               "y_between_rounds": y_uploads - (int(r.rounds) + 1),
                               "K": K, "d": d, "d_g": dg,
                               "floats": {k: int(x) for k, x in r.floats_by_variable.items()}},
                       detail=f"ds-feddro, K={K}, d={d}, d_g={dg}, T={T}, I={I}: {r.rounds} "
                              f"rounds, {y_uploads} uploads of y per client (one of them the "
                              f"initial y^0)")


def judge_ds_between_rounds(predicted, m):
    v = m.values
    parts = [equal_verdict("uploads of y outside the rounds (per client)",
                           v["y_between_rounds"], predicted["y uploads between rounds"]),
             equal_verdict("y uploaded at the rounds (Algorithm 3 step 7)", v["y_uploads"] > 1,
                           predicted["y uploaded at rounds"])]
    return _result(parts, predicted, v, "")


def judge_ds_never(predicted, m):
    v = m.values
    parts = [equal_verdict("uploads of y in a run (per client)", v["y_uploads"],
                           predicted["y uploads in a run"])]
    return _result(parts, predicted, v, "")


DS_DIM_KEYS = ("d >> d_g", "d_g >> d")


def measure_ds_floats(profile, out_dir) -> Measurement:
    """DS-FedDRO's floats per client from Corollary 5.3's schedule
    (:func:`fedcomp.theory.complexity.derive`: rounds x floats per round), with the floats per
    round checked against the engine's ledger (:func:`measure_ds_ledger`: x and y uploaded at
    every round, plus the initial y)."""
    import sympy as sp
    from fedcomp.theory.complexity import _exponents, d, derive, dg, eps
    led = measure_ds_ledger(profile, out_dir).values
    K, R = led["K"], led["rounds"]
    per_round = {"x": led["floats"]["x"] / (K * R),
                 "y": (led["floats"]["y"] / K - led["d_g"]) / R}
    dv = derive("ds-feddro")
    scheme = float(dv.floats_per_round.subs({d: led["d"], dg: led["d_g"]}))
    fpc = sp.expand(dv.floats_per_client)
    # the eps exponent of the floats per unit of the larger dimension
    exps = {key: float(_exponents(sp.diff(fpc, dim), eps)[0])
            for key, dim in zip(DS_DIM_KEYS, (d, dg))}
    return Measurement(values={"floats_per_client": str(fpc), "eps exponent": exps,
                               "ledger_per_round": per_round, "scheme_per_round": scheme,
                               "ledger_setting": f"K={K}, d={led['d']}, d_g={led['d_g']}, "
                                                 f"{R} rounds"})


def judge_ds_dim_free(predicted, m):
    """The eps exponent of DS-FedDRO's floats per client in each regime (the coefficient of the
    larger dimension), exactly; inconclusive when the scheme's floats per round disagree with
    the engine's ledger (the derivation would rest on a wrong count)."""
    from fedcomp.rates.verdict import Verdict
    v = m.values
    led, want = v["ledger_per_round"], v["scheme_per_round"]
    ledger_ok = abs(led["x"] + led["y"] - want) < 1e-9
    parts = [equal_verdict(f"{key}: eps exponent of the floats per client",
                           v["eps exponent"][key], predicted[key]["floats per client"]["eps"])
             for key in DS_DIM_KEYS]
    if not ledger_ok:
        parts.append(Verdict("inconclusive", f"the engine's ledger ({led}) disagrees with the "
                                             f"scheme's {want:g} floats per round"))
    return _result(parts, predicted, v,
                   f"derived floats per client {v['floats_per_client']} (rounds x (d + d_g)); "
                   f"the engine's ledger at {v['ledger_setting']}: x {led['x']:g} and y "
                   f"{led['y']:g} floats per round and client after the initial y, the scheme's "
                   f"{want:g} (d + d_g): {'the same' if ledger_ok else 'different'}; ")


def measure_fedavg_i1(profile, out_dir) -> Measurement:
    """FedAvg Case II and modified FedAvg at I = 1 on the same samples (stochastic oracles, same
    seed): the largest difference of their averaged iterates over the run."""
    import numpy as np
    args = {"num_clients": 4, "dim": 3, "inner_dim": 2, "heterogeneity": 0.5, "seed": 1,
            "noise": 0.1}
    runs = {a: run(LQ_RANDOM, args, a, iterations=2000, eta=0.02, local_steps=1, seed=3,
                   record_every=1) for a in ("fedavg-case2", "fedavg-modified")}
    gap = {a: float(r.grad_norm_sq[-1]) for a, r in runs.items()}
    diff = float(np.max(np.abs(runs["fedavg-case2"].x_bar - runs["fedavg-modified"].x_bar)))
    traj = float(np.max(np.abs(runs["fedavg-case2"].grad_norm_sq
                               - runs["fedavg-modified"].grad_norm_sq)))
    from fedcomp.figures import plot
    from fedcomp.figures.counterexample import same_run_figure
    every = 10
    series = {a: {"t": r.t[::every].tolist(), "g": r.grad_norm_sq[::every].tolist()}
              for a, r in runs.items()}
    fig = plot("figures/khanduri.sec6.fedavg-i1-same-run.png", same_run_figure, series,
               "FedDRO paper, Section 6 (khanduri.sec6.fedavg-i1): at I = 1, FedAvg (Case II) "
               "and modified FedAvg\non the same samples (LinearQuadratic K=4, eta 0.02, seed 3; "
               f"every {every}th iterate)")
    return Measurement(values={"max_abs_xbar_diff": diff, "max_abs_gap_diff": traj,
                               "final_grad_sq": gap}, figures=[fig],
                       detail="LinearQuadratic K=4, d=3, d_g=2, noise 0.1, eta 0.02, T=2000, "
                              "I = 1, seed 3 for both")


def judge_fedavg_i1(predicted, m):
    v = m.values
    diffs = (v["max_abs_xbar_diff"], v["max_abs_gap_diff"])
    differs = any(d > 1e-12 for d in diffs)
    claim = predicted["FedAvg (Case II) at I = 1 differs from modified FedAvg"]
    # a NaN difference (a run that failed) decides nothing, in either direction
    verdict = ("inconclusive" if any(math.isnan(d) for d in diffs) else
               "pass" if differs == claim else "fail")
    return CheckResult(verdict, predicted, v,
                       f"at I = 1 the two runs' averaged iterates differ by at most "
                       f"{v['max_abs_xbar_diff']:.3g} and their ||grad Phi||^2 by "
                       f"{v['max_abs_gap_diff']:.3g}: Algorithm 1 Case II with I = 1 shares x "
                       f"and y every iteration, i.e. it is Theorem 4.2's modified FedAvg, which "
                       f"converges; Theorem 4.1 needs I > 1, so it does not predict a worse "
                       f"FedAvg at I = 1")



#: the abstract's "DS-FedDRO achieves the optimal O(eps^-2) sample and O(eps^-1) communication
#: complexity" contains Corollary 5.3's eps orders (its T and rounds parts), not the per-client
#: K^-1 of its linear speed-up part
_ABSTRACT_DS_PARTS = (("khanduri.cor5.3", ("eps vs T", "eps vs rounds")),)

CLAIMS += [
    Claim(id="khanduri.sec5.communication", paper=PAPER,
          location="Section 5, first paragraph; Algorithm 3 step 7",
          statement="Under Assumption 5.1, DS-FedDRO completely avoids the communication of "
                    "y_k^{t+1} that FedDRO requires.",
          kind="complexity",
          predicted={"y uploads between rounds": 0, "y uploaded at rounds": True},
          reading="avoids FedDRO's per-iteration exchange of y; y is still averaged at every "
                  "round (Algorithm 3 step 7); the literal reading is "
                  "khanduri.sec5.communication.never; measured from the engine's ledger of "
                  "fedcomp's DS-FedDRO, so the check tests that implementation against "
                  "Algorithm 3 as read (a fail would be fedcomp's, or the reading's)",
          subject="implementation",
          check=Check(measure_ds_ledger, judge_ds_between_rounds,
                      combine_wrong(each([("y uploads between rounds",)], lambda v: v + 1),
                                    flipped(("y uploaded at rounds",))))),
    Claim(id="khanduri.sec5.communication.never", paper=PAPER,
          location="Section 4.2 ('an algorithm that avoids communicating this embedding'); "
                   "Conclusion ('eliminates the need for extra communication'); Algorithm 3 "
                   "step 7",
          statement="DS-FedDRO avoids communicating the embedding y (Section 4.2's sentence, "
                    "without Section 5's qualifier 'as required by FedDRO', which "
                    "khanduri.sec5.communication judges).",
          kind="complexity", predicted={"y uploads in a run": 0},
          reading="literal: y is never communicated",
          check=Check(measure_ds_ledger, judge_ds_never,
                      each([("y uploads in a run",)], lambda v: v + 1))),
    Claim(id="khanduri.abstract.ds-dim-free", paper=PAPER,
          location="Abstract; Section 1 (contributions)",
          statement="DS-FedDRO achieves the optimal O(eps^-2) sample and O(eps^-1) communication "
                    "complexity irrespective of the dimensionality of the inner compositional "
                    "objective.",
          kind="complexity",
          predicted={key: {"floats per client": {"eps": -1}} for key in DS_DIM_KEYS},
          reading="the communication counted in floats per client, where a dimension can enter "
                  "(in rounds it cannot), in both regimes as Remark 4.5 does for FedDRO: the eps "
                  "exponent of the floats per client when d >> d_g and when d_g >> d, derived "
                  "from Corollary 5.3's schedule (rounds x (d + d_g), the floats per round "
                  "checked against the engine's ledger); it rests on Corollary 5.3 itself, and "
                  "'optimal' is khanduri.abstract.optimal",
          depends_on=("khanduri.cor5.3.derivation", "khanduri.cor5.3"),
          entails=("khanduri.cor5.3",), entails_parts=_ABSTRACT_DS_PARTS,
          check=Check(measure_ds_floats, judge_ds_dim_free,
                      cheaper(*[(key, "floats per client", "eps") for key in DS_DIM_KEYS]))),
    Claim(id="khanduri.sec6.fedavg-i1", paper=PAPER,
          location="Section 6, implementation details and discussion of Figure 1",
          statement="FedAvg performs significantly worse (Figure 1), consistent with Section "
                    "4.1's result that vanilla FedAvg fails; read with FedAvg at the I = 1 the "
                    "paper states for FedDRO ('to make sure that the overall gradient "
                    "computations in each step are uniform across all algorithms'; it states no "
                    "I for FedAvg).",
          kind="counterexample",
          predicted={"FedAvg (Case II) at I = 1 differs from modified FedAvg": True},
          reading="the baselines run at I = 1 like FedDRO (the text states I = 1 for FedDRO and "
                  "no other I): then Case II is Theorem 4.2's modified FedAvg and Section 4.1 "
                  "cannot explain a worse FedAvg; read with FedAvg at some I > 1, Theorem 4.1 "
                  "applies and the claim is khanduri.fig1's ordering",
          depends_on=("khanduri.thm4.1", "khanduri.thm4.2"),
          notes="The printed prediction is false (the two algorithms coincide at I = 1), so its "
                "only wrong prediction is itself; a user's prediction 'false' passes.",
          subject="inference",
          check=Check(measure_fedavg_i1, judge_fedavg_i1, itself)),
]


# --- the abstract's "optimal" against the paper's own Table 1 ----------------------------------

#: Table 1's UPDATE values of the methods the paper's Assumptions 3.2-3.4 cover without a
#: mean-squared smoothness of the stochastic gradients (which its VR rows need)
SGD_TYPE = ("SGD", "Momentum SGD")


def _table1_best(updates=None) -> Measurement:
    """The smallest eps exponent (the fewest samples per client, the fewest rounds) among the
    rows the paper's own Table 1 prints (those whose UPDATE column is in `updates`, all when
    None), and which rows reach it (GCIVR's min(sqrt(m) eps^-1, eps^-1.5) counted as eps^-1.5,
    its finite-sum-free branch)."""
    from fedcomp.theory import complexity as C
    names = _table1_names(updates)
    best = {}
    for q in ("comp", "comm"):
        exps = {}
        for name in names:
            e = _printed_row(name)[q]
            if isinstance(e, dict):
                exps[name] = e["eps"]
            elif name == "GCIVR" and q == "comp":
                exps[name] = -1.5
        low = max(exps.values())  # exponents are negative: the largest is the fewest samples
        rows = sorted(n for n, v in exps.items() if v == low)
        best[q] = {"eps": low, "rows": rows, "all": exps,
                   "derived": [n for n in rows if C.TABLE1[n]["scheme"]]}
    which = "" if updates is None else f" with UPDATE {' or '.join(updates)}"
    return Measurement(values=best, detail=f"the printed rows of Table 1{which} "
                                           "(fedcomp.theory.complexity.TABLE1)")


_OPTIMAL_STATEMENT = ("DS-FedDRO achieves the optimal O(eps^-2) sample and O(eps^-1) "
                      "communication complexity.")


def measure_table1_best(profile, out_dir) -> Measurement:
    """:func:`_table1_best` over every row."""
    return _table1_best()


def measure_table1_best_sgd(profile, out_dir) -> Measurement:
    """:func:`_table1_best` over the SGD-type rows (UPDATE SGD or momentum SGD)."""
    return _table1_best(SGD_TYPE)


def _derived_text(best: dict) -> str:
    """Which of the best rows fedcomp derives from their own papers, and which it only
    transcribes (their papers are not among the five: khanduri.table1.<row>, not checked)."""
    der = best.get("derived", [])
    tr = [n for n in best["rows"] if n not in der]
    return (f"derived by fedcomp from their own papers: {', '.join(der) or 'none'}; only "
            f"transcribed (their papers are not among the five): {', '.join(tr) or 'none'}")


def judge_table1_best(predicted, m):
    v = m.values
    parts = [equal_verdict(f"best eps exponent of {label} printed in Table 1 (rows "
                           f"{', '.join(v[q]['rows'])}; {_derived_text(v[q])})", v[q]["eps"],
                           predicted[key])
             for q, key, label in (("comp", "best eps exponent of COMP. in Table 1", "COMP."),
                                   ("comm", "best eps exponent of COMM. in Table 1", "COMM."))]
    return _result(parts, predicted, v, "")


CLAIMS += [
    Claim(id="khanduri.abstract.optimal", paper=PAPER,
          location="Abstract; Section 5 after Corollary 5.3",
          statement=_OPTIMAL_STATEMENT,
          kind="complexity",
          predicted={"best eps exponent of COMP. in Table 1": -2.0,
                     "best eps exponent of COMM. in Table 1": -1.0},
          reading="optimal among every method of the paper's own Table 1 (per-client samples "
                  "and rounds, exponents of eps), the variance-reduced rows included; the other "
                  "reading, optimal among the SGD-type methods the paper's assumptions cover, is "
                  "khanduri.abstract.optimal.sgd-type",
          depends_on=table1_rows(_table1_names()) + ("khanduri.cor5.3",),
          entails=("khanduri.cor5.3",), entails_parts=_ABSTRACT_DS_PARTS,
          notes="Table 1 prints eps^-1.5 samples for variance-reduced methods (FedBiOAcc, "
                "Fed-DR-SCGD, GCIVR) under stronger assumptions, so the first reading fails "
                "on COMP.; COMM. eps^-1 is the best printed",
          check=Check(measure_table1_best, judge_table1_best,
                      each([("best eps exponent of COMM. in Table 1",)], lambda v: v - 0.5))),
    Claim(id="khanduri.abstract.optimal.sgd-type", paper=PAPER,
          location="Abstract; Section 5 after Corollary 5.3 ('best-known')",
          statement=_OPTIMAL_STATEMENT,
          kind="complexity",
          predicted={"best eps exponent of COMM. in Table 1": -1.0,
                     "best eps exponent of COMP. in Table 1": -2.0},
          reading="optimal among the SGD-type methods of the paper's own Table 1 (UPDATE SGD or "
                  "momentum SGD: the class Assumptions 3.2-3.4 cover, which do not give the "
                  "mean-squared smoothness of the stochastic gradients that the VR rows need); "
                  "that eps^-2 samples is also a lower bound for this class is cited, not "
                  "derived (the SGD floor of fedcomp.rates.verdict), and the paper cites no "
                  "lower bound on rounds (Section 5 says 'best-known'); "
                  "khanduri.abstract.optimal is the reading over every row",
          depends_on=table1_rows(_table1_names(SGD_TYPE)) + ("khanduri.cor5.3",),
          # it states DS-FedDRO's O(eps^-2) samples and O(eps^-1) rounds (Corollary 5.3's eps
          # orders, not its per-client K^-1) and calls them optimal
          entails=("khanduri.cor5.3",), entails_parts=_ABSTRACT_DS_PARTS,
          check=Check(measure_table1_best_sgd, judge_table1_best,
                      each([("best eps exponent of COMM. in Table 1",),
                            ("best eps exponent of COMP. in Table 1",)], lambda v: v - 0.5))),
]


# --- Algorithm 1's rounds, Remark 4.5's comparison, Remark 5.4 -------------------------------

#: (T, I) of measure_alg1_rounds: I dividing T and not, I = 1, and I > T (no round at all)
ALG1_GRID = ((100, 1), (100, 3), (100, 7), (99, 10), (101, 10), (10, 20))


def measure_alg1_rounds(profile, out_dir) -> Measurement:
    """Algorithm 1 (Cases I and II) run by the engine for the (T, I) of ALG1_GRID on a small
    linear problem (exact oracles: the ledger does not depend on the data): model rounds from
    the ledger, and the uploads of x and y per client."""
    K, d, dg = 3, 2, 2
    rows = []
    for alg in ("fedavg-case1", "fedavg-case2"):
        for T, I in ALG1_GRID:
            r = run(LQ_RANDOM, {"num_clients": K, "dim": d, "inner_dim": dg,
                                "heterogeneity": 0.5},
                    alg, iterations=T, eta=0.01, local_steps=I, stochastic=False,
                    record_every=T, **({"allow_no_sync": True} if I > T else {}))
            fl = r.floats_by_variable
            rows.append({"algorithm": alg, "T": T, "I": I, "rounds": int(r.rounds),
                         "x uploads per client": int(fl.get("x", 0) // (K * d)),
                         "y uploads per client": int(fl.get("y", 0) // (K * dg))})
    return Measurement(values={"runs": rows, "K": K, "d": d, "d_g": dg},
                       detail=f"fedavg-case1 and fedavg-case2 on LinearQuadratic K={K}, d={d}, "
                              f"d_g={dg}, exact oracles, (T, I) in {list(ALG1_GRID)}")


def _formula_verdict(name: str, formula: str, runs, key: str, short: str):
    """pass when `formula` (a sympy expression in T and I) equals the measured `key` of every
    run, fail naming the runs where it does not (`short` labels the runs' rows in the
    derived-against-printed figure)."""
    from fedcomp.rates.verdict import Verdict
    import sympy as sp
    expr = parse_expression(formula, name)
    T, I = sp.Symbol("T"), sp.Symbol("I")
    sel = list(runs)
    bad = []
    for r in sel:
        want = expr.subs({T: r["T"], I: r["I"]})
        ok = bool(want.is_number and sp.simplify(want - r[key]) == 0)
        at = f"{r['algorithm']} T={r['T']} I={r['I']}"
        if want.is_number:
            record_comparison(f"{at}: {short}", float(r[key]), float(want),
                              "pass" if ok else "fail")
        if not ok:
            bad.append(f"{at}: measured {r[key]}, {formula} = {want}")
    if bad:
        return Verdict("fail", f"{name}: " + "; ".join(bad))
    each_run = ", ".join(f"T={r['T']} I={r['I']}: {r[key]}" for r in sel)
    return Verdict("pass", f"{name}: measured = {formula} in all {len(sel)} runs ({each_run})")


def judge_alg1_rounds(predicted, m):
    runs = m.values["runs"]
    parts = [_formula_verdict("model rounds (Cases I and II)", predicted["rounds"], runs,
                              "rounds", "rounds"),
             *[_formula_verdict(f"{case}: uploads of y per client after the initial ybar^0",
                                predicted[f"{case} y uploads after the initial"],
                                [{**r, "y after init": r["y uploads per client"] - 1}
                                 for r in runs if r["algorithm"] == alg],
                                "y after init", "y uploads")
               for case, alg in (("Case I", "fedavg-case1"), ("Case II", "fedavg-case2"))]]
    return _result(parts, predicted, m.values,
                   "Algorithm 1 shares at the iterations t in {0, ..., T-1} with (t + 1) mod I = "
                   "0; the engine also books the initial ybar^0 of step 2 (one upload of y per "
                   "client in both cases); ")


def _local_sgd() -> dict:
    """Local SGD (Yu, Yang, Zhu, AAAI 2019, 'Parallel restarted SGD'; not among the five
    papers: its statement transcribed): E||grad||^2 = O(1/sqrt(KT)) with I = O(T^(1/4)/K^(3/4))
    local steps, read with E||grad||^2 <= eps: samples per client T and rounds T/I, by sympy."""
    import sympy as sp
    from fedcomp.theory.complexity import K, T, eps
    Te = sp.solve(sp.Eq(1 / sp.sqrt(K * T), eps), T)[0]
    I = T ** sp.Rational(1, 4) / K ** sp.Rational(3, 4)
    rounds = sp.simplify((T / I).subs(T, Te))
    return {"samples per client": _exps(Te), "rounds": _exps(rounds),
            "expressions": {"T(eps)": str(Te), "rounds": str(rounds)}}


def measure_rem45_comparison(profile, out_dir) -> Measurement:
    """FedDRO's per-client samples and rounds derived from Theorem 4.3 (fedcomp.theory.complexity
    .derive), against ComFedL's derived from its own paper (Huang et al., Theorem 1), Local-SCGDM's
    as Table 1 prints it (Gao et al. 2022 is not among the five papers) and local SGD's derived
    from Yu et al.'s transcribed statement (:func:`_local_sgd`)."""
    from fedcomp.theory import complexity as C

    def derived(key):
        dv = C.derive(key)
        return {"comp": _exps(dv.per_client_samples), "comm": _exps(dv.rounds),
                "source": dv.source}
    printed = _printed_row("Local-SCGDM")
    # Definition 3.7 counts every client-server round: FedDRO uploads y at every iteration, so
    # its rounds are its T(eps) iterations (the others exchange only at their model rounds)
    feddro_37 = {**derived("feddro"), "comm": _exps(C.derive("feddro").iterations)}
    return Measurement(values={
        "FedDRO": derived("feddro"), "FedDRO (Definition 3.7)": feddro_37,
        "ComFedL": derived("comfedl"),
        "Local-SCGDM": {"comp": printed["comp"], "comm": printed["comm"],
                        "source": "Table 1 as printed (Gao, Li, Huang, ICML 2022)"},
        "local SGD": _local_sgd()},
        detail="sympy: FedDRO from Theorem 4.3, ComFedL from Huang et al.'s Theorem 1, "
               "Local-SCGDM as Table 1 prints it, local SGD from Yu et al. (2019b)")


def _improves(a: dict, b: dict) -> tuple[bool, str]:
    """Whether complexities `a` improve upon `b`: per-client samples and rounds each no larger
    for every fixed K as eps -> 0 (exponents of eps compared first, then of K: a K factor
    decides only between equal eps exponents), one of them strictly smaller. Not a comparison
    for every (eps, K): eps^-1.5 K beats eps^-2 here but loses for K > eps^-1/2."""
    def key(e):  # larger (less negative) is fewer: compare (eps, K) lexicographically
        return (e["eps"], -e["K"])
    cmp = []
    for q in ("comp", "comm"):
        ka, kb = key(a[q]), key(b[q])
        cmp.append(0 if ka == kb else (1 if ka > kb else -1))
    return (min(cmp) >= 0 and max(cmp) > 0,
            ", ".join(f"{q} eps^{a[q]['eps']:g} K^{a[q]['K']:g} vs eps^{b[q]['eps']:g} "
                      f"K^{b[q]['K']:g}" for q in ("comp", "comm")))


def _judge_rem45_comparison(feddro: str, rounds: str):
    """The judge of Remark 4.5's comparison with FedDRO's complexities `feddro` (a key of the
    measurement: its rounds counted as `rounds` say)."""
    def judge(predicted, m):
        return _rem45_comparison(predicted, m, feddro, rounds)
    return judge


def _rem45_comparison(predicted, m, feddro: str, rounds: str):
    v = {**m.values, "FedDRO": m.values[feddro]}
    parts = []
    for other in ("ComFedL", "Local-SCGDM"):
        ok, how = _improves(v["FedDRO"], v[other])
        if other == "Local-SCGDM":
            how += ("; Table 1's row as printed, COMP. read per client (read as a total, the "
                    "samples would tie)")
        parts.append(equal_verdict(f"FedDRO improves upon {other} ({how})", ok,
                                   predicted[f"improves upon {other}"], source="derived"))
    sgd = v["local SGD"]
    for q, mine in (("samples per client", v["FedDRO"]["comp"]),
                    ("rounds", v["FedDRO"]["comm"])):
        for var in ("eps", "K"):
            want = predicted["matches local SGD"][q][var]
            parts.append(equal_verdict(f"FedDRO's {q}: exponent of {var}", mine[var], want,
                                       atol=1e-12, source="derived"))
            parts.append(equal_verdict(f"local SGD's {q}: exponent of {var}", sgd[q][var], want,
                                       atol=1e-12, source="derived"))
    return _result(parts, predicted, m.values,
                   f"FedDRO's rounds counted as {rounds}; exponents of eps and K, "
                   "E||grad Phi||^2 <= eps; 'improves' = no larger in either column and "
                   "smaller in one; ")


def measure_rem54(profile, out_dir) -> Measurement:
    """The tuning parameters of fedcomp's FedDRO and DS-FedDRO (the engine's step size eta and
    local steps I, plus each definition's own hyperparameters) and the eps exponents of their
    rounds derived from Corollaries 4.4 and 5.3's schedules (fedcomp.theory.complexity.derive)."""
    from fedcomp.algorithms import get
    from fedcomp.theory import complexity as C
    names = {label: ["eta", "local_steps", *get(alg).hyper_names()]
             for label, alg in (("FedDRO", "feddro"), ("DS-FedDRO", "ds-feddro"))}
    rounds = {label: _exps(C.derive(key).rounds)
              for label, key in (("FedDRO", "feddro"), ("DS-FedDRO", "ds-feddro"))}
    return Measurement(values={"parameters": names, "rounds": rounds},
                       detail="fedcomp.algorithms definitions (Algorithms 2 and 3); rounds by "
                              "sympy from Theorems 4.3 and 5.2's parameters")


REM54_KEY = "tuning parameters DS-FedDRO adds to FedDRO's"


def judge_rem54(predicted, m):
    v = m.values
    p = v["parameters"]
    extra = [n for n in p["DS-FedDRO"] if n not in p["FedDRO"]]
    missing = [n for n in p["FedDRO"] if n not in p["DS-FedDRO"]]
    parts = [equal_verdict(f"DS-FedDRO's tuning parameters beyond FedDRO's ({', '.join(extra)}; "
                           f"FedDRO's: {', '.join(p['FedDRO'])}; none of them dropped: "
                           f"{not missing})", len(extra) if not missing else math.nan,
                           predicted[REM54_KEY])]
    r = v["rounds"]
    fewer = r["DS-FedDRO"]["eps"] > r["FedDRO"]["eps"]
    parts.append(equal_verdict(f"DS-FedDRO needs fewer rounds than FedDRO (eps^"
                               f"{r['DS-FedDRO']['eps']:g} against eps^{r['FedDRO']['eps']:g})",
                               fewer, predicted["DS-FedDRO needs fewer rounds"],
                               source="derived"))
    return _result(parts, predicted, v, "")


#: radii of the points x = R w at which measure_assump32_dro shows the constants' growth
DRO_RADII = (1.0, 2.0, 4.0, 8.0, 16.0)
DRO_GLOBAL_KEYS = ("KL (4): B_g finite on R^d", "chi-square (5): B_f finite on R^d")


def measure_assump32_dro(profile, out_dir) -> Measurement:
    """Lower bounds of Assumption 3.2's B_g (KL reformulation (4)) and B_f (chi-square (5)) over
    R^d for the logistic losses of KLDRO / Chi2DRO.synthetic (the same data), along the unit
    direction w of the mean loss's gradient at 0, from convexity (a proof, with constants from
    the problems' own oracles: the chi-square's g_k is client k's mean loss L_k):

    * L_k is convex, so L_k(R w) >= L_k(0) + R s_k with s_k = grad L_k(0) . w;
    * (4): g_k = mean_i exp((l_i - c)/lambda) >= exp((L_k - c)/lambda) (Jensen), and a
      Lipschitz constant is at least (g_k(R w) - g_k(0)) / R, so B_g >= (exp((L_k(0) + R s_k -
      c)/lambda) - g_k(0)) / R: exponential in R wherever s_k > 0 (some client has it, since
      the clients' gradients average to grad g(0) and grad g(0) . w = |grad g(0)| > 0);
    * (5): B_f >= f'(g(R w)) = g(R w)/lambda >= (g(0) + R s)/lambda with s = |grad g(0)|.

    Also the values attained on the ray (the problem's exact g_vjp with v = 1, the largest
    client; g(R w)/lambda), L_f at 0 (lambda/g(0)^2, for the eta bound in the detail), and the
    closed-form constants proven on the boxes [-R, R]^d (fedcomp.theory.constants)."""
    import numpy as np
    from fedcomp.problems import Chi2DRO, KLDRO
    from fedcomp.theory.constants import constants
    data = {"dim": 3, "num_clients": 2, "samples_per_client": 10, "seed": 0}
    kl, c2 = KLDRO.synthetic(**data), Chi2DRO.synthetic(**data)
    zero, one = np.zeros(kl.dim), np.ones(1)
    clients = range(kl.num_clients)
    grads = [c2.inner_client_vjp(k, zero, one) for k in clients]   # grad g_k(0) (d_g = 1)
    gbar = np.mean(grads, axis=0)
    w = gbar / np.linalg.norm(gbar)
    s_k = [float(gk @ w) for gk in grads]
    L0 = [float(c2.inner_client(k, zero)[0]) for k in clients]
    lam, c = kl.lam, kl.shift
    g0 = [float(kl.inner_client(k, zero)[0]) for k in clients]
    k = int(np.argmax(s_k))
    kl_bound = [float((np.exp((L0[k] + R * s_k[k] - c) / lam) - g0[k]) / R)
                for R in DRO_RADII]
    s = float(gbar @ w)
    c2_bound = [float((c2.inner(zero)[0] + R * s) / c2.lam) for R in DRO_RADII]
    attained = [max(float(np.linalg.norm(kl.inner_client_vjp(j, R * w, one))) for j in clients)
                for R in DRO_RADII]
    boxes = {}
    for name, p in (("KL (4)", kl), ("chi-square (5)", c2)):
        rows = []
        for R in DRO_RADII[:4]:
            cs = constants(p, -R * np.ones(p.dim), R * np.ones(p.dim))
            rows.append({"R": R, **{n: float(b.value) for n, b in cs.details.items()
                                    if n in ("B_f", "L_f", "B_g", "L_g", "B_h", "L_h")}})
        boxes[name] = rows
    return Measurement(values={
        "radii": list(DRO_RADII), "KL growth rates s_k": s_k, "KL client": k,
        "KL B_g lower bound": kl_bound, "chi-square growth rate s": s,
        "chi-square B_f lower bound": c2_bound, "KL ||grad g_k|| attained": attained,
        "chi-square B_f attained": [float(c2.inner(R * w)[0] / c2.lam) for R in DRO_RADII],
        "KL L_f at 0": float(lam / kl.inner(zero)[0] ** 2), "boxes": boxes,
        "lam": lam, "shift": c},
        detail=f"KLDRO and Chi2DRO.synthetic({data}) (logistic losses, lambda {lam:g}; the KL "
               f"written with fedcomp's shift c = {c:.4g}: its g is the paper's times "
               f"e^(-c/lambda) = {np.exp(-c / lam):.3g}, which leaves B_g^4 L_f^2 unchanged); "
               f"w the unit direction of the mean loss's gradient at 0, that of "
               f"mean_i(-s_i a_i); R in {list(DRO_RADII)}")


def judge_assump32_dro(predicted, m):
    """A constant is measured infinite on R^d when its convexity lower bound along w grows
    without bound (a positive growth rate: the bound is a proof); inconclusive where the rate is
    not positive (this direction shows nothing)."""
    from fedcomp.rates.verdict import Verdict
    v = m.values
    parts = []
    for key, rate, bound, att, how in (
            (DRO_GLOBAL_KEYS[0], max(v["KL growth rates s_k"]), v["KL B_g lower bound"],
             v["KL ||grad g_k|| attained"], "(exp((L_k(0) + R s_k - c)/lambda) - g_k(0)) / R"),
            (DRO_GLOBAL_KEYS[1], v["chi-square growth rate s"], v["chi-square B_f lower bound"],
             v["chi-square B_f attained"], "(g(0) + R s)/lambda")):
        radii = ", ".join(f"{R:g}" for R in v["radii"])
        shown = (f"lower bound {how} with rate {rate:.3g}: "
                 + ", ".join(f"{x:.3g}" for x in bound) + f" at R = {radii} (attained on the "
                 "ray: " + ", ".join(f"{x:.3g}" for x in att) + ")")
        if rate <= 0:
            parts.append(Verdict("inconclusive", f"{key}: not shown along w ({shown})"))
            continue
        r = equal_verdict(key, False, predicted[key], source="derived")
        parts.append(Verdict(r.verdict, f"{r.reason}: {shown}"))
    b, lf = v["KL ||grad g_k|| attained"], v["KL L_f at 0"]
    eta = ", ".join(f"{1 / (4 * x ** 4 * lf ** 2):.2g} (R = {R:g})"
                    for x, R in zip(b, v["radii"]))
    boxes = "; ".join(f"{name}: " + ", ".join(f"B_g {r['B_g']:.3g}, B_f {r['B_f']:.3g} (R = "
                                              f"{r['R']:g})" for r in rows)
                      for name, rows in v["boxes"].items())
    return _result(parts, predicted, v,
                   "Assumption 3.2 asks for constants on all of R^d; with losses that grow "
                   "without bound (logistic) the KL's B_g grows like e^(loss/lambda) and the "
                   "chi-square's B_f like the loss; on the boxes [-R, R]^d the constants are "
                   f"finite (proven in closed form: {boxes}), and Theorem 4.3's beta = 4 B_g^4 "
                   f"L_f^2 eta < 1 needs eta below {eta} on any domain holding 0 and x = R w; ")


#: the distributed-f instance: K = 2, d = d_g = 1, g_k(x) = a_k x, f_k(y) = (y - c_k)^2 / 2
#: (Jacobian and outer heterogeneity correlated, as zhang.thm1.heterogeneous's instance)
DIST_F = {"a": (1, 3), "c": (0, 2)}
DIST_F_KEY = "the natural extension's fixed points are stationary points of Phi"


def measure_distributed_f(profile, out_dir) -> Measurement:
    """Problem (2) with f = (1/K) sum_k f_k distributed, by sympy on DIST_F's instance (exact
    oracles, so that FedDRO's anchored estimate is ybar = g(x) exactly and the iterates move along
    the mean client direction at I = 1). The natural extension of (7) uses client k's own
    grad f_k at the shared estimate: mean direction D1(x) = (1/K) sum_k J_k^T grad f_k(g(x)),
    against grad Phi(x) = Jbar^T (1/K) sum_k grad f_k(g(x)); D1's root x_ext, and
    ||grad Phi(x_ext)||^2. In general D1 - grad Phi = (1/K) sum_k (J_k - Jbar)^T grad f_k(g(x)),
    nonzero wherever the Jacobians' and the outer functions' heterogeneity correlate."""
    import sympy as sp
    x = sp.Symbol("x")
    a = [sp.Integer(v) for v in DIST_F["a"]]
    c = [sp.Integer(v) for v in DIST_F["c"]]
    K = len(a)
    g = sum(a) / K * x
    fk = [(g - ck) ** 2 / 2 for ck in c]
    phi_grad = sp.diff(sum(fk) / K, x)
    dfk = [sp.diff((sp.Symbol("y") - ck) ** 2 / 2, "y").subs("y", g) for ck in c]
    d1 = sum(ak * df for ak, df in zip(a, dfk)) / K
    x_star = sp.solve(sp.Eq(phi_grad, 0), x)[0]
    x_ext = sp.solve(sp.Eq(d1, 0), x)[0]
    gap = phi_grad.subs(x, x_ext) ** 2
    return Measurement(values={
        "x*": str(x_star), "x_ext": str(x_ext), "grad Phi(x_ext)^2": float(gap),
        "D1(x*)": float(d1.subs(x, x_star))},
        detail=f"sympy: K={K}, g_k(x) = a_k x with a = {DIST_F['a']}, f_k(y) = (y - c_k)^2/2 "
               f"with c = {DIST_F['c']}, exact oracles, I = 1")


def judge_distributed_f(predicted, m):
    v = m.values
    parts = [equal_verdict(DIST_F_KEY, v["grad Phi(x_ext)^2"] == 0.0, predicted[DIST_F_KEY],
                           source="derived")]
    return _result(parts, predicted, v,
                   f"Phi's stationary point x* = {v['x*']}; the natural extension's mean "
                   f"direction (1/K) sum_k a_k grad f_k(g(x)) is {v['D1(x*)']:g} there and "
                   f"vanishes at x_ext = {v['x_ext']}, where ||grad Phi||^2 = "
                   f"{v['grad Phi(x_ext)^2']:g}: x_ext is the extension's fixed point for every "
                   f"step size (it converges there for eta < 1/2), not x*; ")


_DRO_ASSUMPTION_STATEMENT = ("Here, we discuss different DRO formulations that can be efficiently "
                             "solved using CO ... (4) ... (5).")
_DIST_F_STATEMENT = ("The algorithms and the analysis presented in this work can be easily "
                     "extended to the problems where f := 1/K sum_k f_k is also distributed.")
_REM45_STATEMENT = ("The sample and communication complexities of Corollary 4.4 match those "
                    "of the standard FedAvg (Yu et al. 2019b) for non-CO problems and improve "
                    "upon the guarantees of existing federated CO algorithms (Huang et al. "
                    "2021; Gao et al. 2022; Guo et al. 2022).")
_REM45_COMPARISON = {"improves upon ComFedL": True, "improves upon Local-SCGDM": True,
                      "matches local SGD": {"samples per client": {"eps": -2.0, "K": -1.0},
                                            "rounds": {"eps": -1.5, "K": 0.0}}}
_REM45_COMPARED = ("per-client samples and rounds, each compared by its exponents of eps and "
                   "then K; FedDRO's and ComFedL's derived from their own theorems, "
                   "Local-SCGDM's as Table 1 prints them (COMP. read per client, as for the "
                   "other rows: FedDRO's samples then improve by the K^-1 only; were Gao et "
                   "al.'s eps^-2 a total, the two would be equal), local SGD's from Yu et al.'s "
                   "transcribed O(1/sqrt(KT)) with I = T^(1/4)/K^(3/4); Guo et al. (2022) has "
                   "no row in Table 1 and is not judged")
_REM45_WRONG = combine_wrong(flipped(("improves upon ComFedL",), ("improves upon Local-SCGDM",)),
                             cheaper(("matches local SGD", "samples per client", "eps"),
                                     ("matches local SGD", "rounds", "eps")))



def _rem45_claim(cid: str, reading: str, feddro: str, rounds: str, notes: str = "",
                 derivation: str = "khanduri.cor4.4.derivation") -> Claim:
    """Remark 4.5's comparison under one reading of communication complexity: FedDRO's
    complexities are the measurement's `feddro` entry, its rounds counted as `rounds` say, and
    derived as the claim `derivation` derives them."""
    return Claim(id=cid, paper=PAPER, location="Remark 4.5, first sentence",
                 statement=_REM45_STATEMENT, kind="complexity", predicted=_REM45_COMPARISON,
                 reading=f"{reading}; {_REM45_COMPARED}",
                 depends_on=(derivation, "khanduri.thm4.3",
                             "khanduri.table1.comfedl", "khanduri.table1.local-scgdm"),
                 notes=notes,
                 check=Check(measure_rem45_comparison, _judge_rem45_comparison(feddro, rounds),
                             _REM45_WRONG))


CLAIMS += [
    Claim(id="khanduri.alg1.rounds", paper=PAPER, location="Section 4.1, before Algorithm 1",
          statement="The algorithm executes for floor(T/I) communication rounds (Algorithm 1, "
                    "Cases I and II; Case II exchanges y at those rounds only).",
          kind="complexity",
          predicted={"rounds": "floor(T/I)", "Case I y uploads after the initial": "0",
                     "Case II y uploads after the initial": "floor(T/I)"},
          reading="rounds as the engine's ledger counts them (x averaged at the iterations with "
                  "(t + 1) mod I = 0, t = 0..T-1); the initial ybar^0 of step 2 is counted "
                  "apart (Definition 3.7 would count that exchange as one more round, "
                  "khanduri.cor4.4's reading); Case I shares x only; measured from fedcomp's "
                  "FedAvg, so the check tests that implementation against Algorithm 1 as read "
                  "(a fail would be fedcomp's, or the reading's)",
          subject="implementation",
          check=Check(measure_alg1_rounds, judge_alg1_rounds,
                      combine_wrong(each([("rounds",), ("Case II y uploads after the initial",)],
                                         lambda v: "ceiling(T/I)"),
                                    each([("rounds",), ("Case I y uploads after the initial",),
                                          ("Case II y uploads after the initial",)],
                                         lambda v: f"({v}) + 1")))),
    _rem45_claim("khanduri.rem4.5.comparison",
                 "Definition 3.7: communication complexity counts every client-server round, "
                 "and FedDRO uploads y every iteration, so its rounds are its O(K^-1 eps^-2) "
                 "iterations (as khanduri.cor4.4 reads Corollary 4.4; the model-averaging "
                 "reading, which Remark 4.5 itself uses when it books the y uploads as floats, "
                 "is khanduri.rem4.5.comparison.model-rounds)",
                 "FedDRO (Definition 3.7)", "Definition 3.7 rounds (every y upload)",
                 notes="Under Definition 3.7 FedDRO's O(K^-1 eps^-2) rounds exceed Local-SCGDM's "
                       "and local SGD's O(eps^-3/2) for small eps, so the comparison fails on "
                       "those two and holds against ComFedL.",
                 derivation="khanduri.cor4.4.derivation.definition-3.7"),
    _rem45_claim("khanduri.rem4.5.comparison.model-rounds",
                 "communication complexity as model-averaging rounds T/I = O(eps^-3/2) (the y "
                 "uploads of every iteration booked as floats, as the rest of Remark 4.5 does; "
                 "khanduri.cor4.4.model-rounds)",
                 "FedDRO", "model-averaging rounds T/I"),
    Claim(id="khanduri.sec6.ds-i1", paper=PAPER,
          location="Section 6, implementation details and discussion of Figure 1",
          statement="DS-FedDRO slightly outperforms FedDRO, which highlights the benefit of "
                    "employing two-sided learning rates at both the client and server levels. "
                    "This design allows the server to more effectively aggregate and correct "
                    "the updates received from heterogeneous clients.",
          kind="equivalence",
          predicted={"the server rates correct heterogeneous client updates": True},
          reading="DS-FedDRO at the I = 1 Section 6 states for FedDRO (its reason, uniform "
                  "gradient computations across algorithms, covers every method; fedcomp's "
                  "Figure 1 arm runs it so)",
          not_checked="explanatory, and what fedcomp can establish does not decide it: at I = 1 "
                      "the server's x-step gamma_x (mean_k x_k - x) = -gamma_x eta mean_k d_k "
                      "is the client step rescaled by gamma_x (algebra of Algorithm 3 step 7), "
                      "and the y-step differs from the client rates rescaled (eta -> gamma_x "
                      "eta, beta -> gamma_y beta, server rates 1) only in where g_k is "
                      "evaluated, x - eta d_k against x - gamma_x eta d_k; the two runs' "
                      "models differ (`python bench/ds_rescaling.py`, exact oracles, eta = 0.1, "
                      "rates 1.3: relative distance 0.015-0.031 after 10 rounds with identical "
                      "clients, larger at heterogeneity 2 in all six instances after 10 rounds "
                      "and in three of six after 50), but a difference is not a benefit. A check "
                      "would need a measure of the benefit (Phi or accuracy of "
                      "the two-sided run against the rescaled one-sided run, stochastic, "
                      "several seeds, at the paper's step sizes) and its growth with client "
                      "heterogeneity, with one client as the control"),
    Claim(id="khanduri.sec2.distributed-f", paper=PAPER, location="Section 2, after (2)",
          statement=_DIST_F_STATEMENT, kind="equivalence",
          predicted={DIST_F_KEY: True},
          reading="the extension with no extra communication: each client uses its own "
                  "grad f_k at the shared estimate in (7), grad g_k(x_k) grad f_k(ybar) (the "
                  "paper does not say which extension it means); 'the same guarantees' needs "
                  "at least that its fixed points under exact oracles be stationary points of "
                  "Phi (one instance where they are not refutes it); the extension that also "
                  "shares grad f_k(ybar) is khanduri.sec2.distributed-f.shared",
          notes="The structure of fedcomp.localscgdam-bias: the mean of the clients' products "
                "J_k^T grad f_k is not Jbar^T times the mean of grad f_k.",
          check=Check(measure_distributed_f, judge_distributed_f, itself)),
    Claim(id="khanduri.sec2.distributed-f.shared", paper=PAPER, location="Section 2, after (2)",
          statement=_DIST_F_STATEMENT, kind="equivalence",
          predicted={"the extension keeps Theorem 4.3's guarantee": True},
          reading="the extension that also averages grad f_k(ybar) every iteration: a second "
                  "exchange per iteration, after ybar arrives (d_g floats per client each way; "
                  "twice the rounds under Definition 3.7, the same order)",
          not_checked="its mean client direction Jbar^T mean_k grad f_k(ybar) is grad Phi by "
                      "construction, so an exact-oracle fixed point cannot refute it; what the "
                      "paper claims is that the analysis carries over, which needs Theorem 4.3's "
                      "proof redone with the shared outer gradient (or a rate sweep of an "
                      "implementation of this variant, which fedcomp does not have)"),
    Claim(id="khanduri.assump3.2.dro", paper=PAPER,
          location="Section 2.1 (the DRO reformulations (4), (5)) with Assumption 3.2",
          statement=_DRO_ASSUMPTION_STATEMENT, kind="constant",
          predicted={k: True for k in DRO_GLOBAL_KEYS},
          reading="fedcomp's inference, not a sentence of the paper: (4) and (5) are the "
                  "paper's motivating instances of (2), so its analysis is read to apply to "
                  "them, i.e. with Assumption 3.2's constants, which it states for all x in "
                  "R^d; judged for logistic losses (any loss unbounded along a ray behaves the "
                  "same, as the cross-entropy of the CIFAR-ST experiment does), a constant "
                  "infinite when a convexity lower bound along a ray grows without bound (a "
                  "proof with constants from the data). On a bounded domain every constant is "
                  "finite (a "
                  "continuous function on a compact set), which no check can refute, so that "
                  "reading is not registered; the detail gives the constants proven on the "
                  "boxes [-R, R]^d, and how Theorem 4.3's beta < 1 then bounds eta",
          depends_on=("khanduri.eq4", "khanduri.eq5"),
          subject="inference",
          check=Check(measure_assump32_dro, judge_assump32_dro,
                      flipped(*[(k,) for k in DRO_GLOBAL_KEYS]))),
    Claim(id="khanduri.rem5.4", paper=PAPER, location="Remark 5.4",
          statement="DS-FedDRO performs significantly better than FedDRO in communication, but "
                    "needs more parameters to tune (server-side learning rates for both x and "
                    "y) and Assumption 5.1.",
          kind="complexity",
          predicted={REM54_KEY: 2, "DS-FedDRO needs fewer rounds": True},
          reading="'server-side learning rates for both x- and y-updates': two tuning "
                  "parameters more, as the Input lines of Algorithms 2 ({beta^t}, {eta^t}, I) "
                  "and 3 (the same and gamma_x, gamma_y) list them, counted from fedcomp's "
                  "definitions of the two algorithms (the theorems tie beta to eta in both, "
                  "and Theorem 5.2 gamma_y to gamma_x, which leaves the difference at two "
                  "free parameters before their ties: the remark is about practical tuning); "
                  "communication as the rounds of Corollaries 4.4 and 5.3 derived from the "
                  "theorems' parameters (eps^-1 against eps^-3/2; under Definition 3.7 eps^-1 "
                  "against K^-1 eps^-2, the same ordering); it rests on Theorem 5.2, which "
                  "fails in measurement with its printed gamma_x (khanduri.thm5.2); Assumption "
                  "5.1 is qualitative and not judged",
          depends_on=("khanduri.cor4.4.derivation", "khanduri.cor5.3.derivation",
                      "khanduri.thm4.3", "khanduri.cor5.3"),
          notes="no entails: the remark compares the two algorithms' communication, it does not "
                "restate Corollary 5.3's orders, so a fail of the corollary leaves the "
                "comparison unconfirmed (a dependency: inconclusive), not refuted",
          check=Check(measure_rem54, judge_rem54,
                      combine_wrong(each([(REM54_KEY,)], lambda v: v - 1),
                                    each([(REM54_KEY,)], lambda v: v + 1),
                                    flipped(("DS-FedDRO needs fewer rounds",))))),
]
