"""fedcomp's own measured claims (paper key "fedcomp"): laws no paper states, found by running the
papers' algorithms, each declared with the check that re-measures it (see :mod:`fedcomp.checks`).

The measurements live in :mod:`fedcomp.experiments.intermittent` (the sharing law) and
:mod:`fedcomp.rates.auc` (LocalSCGDAM's client-product bias)."""
from __future__ import annotations

from fedcomp.checks.core import Check, CheckResult, Claim, Measurement
from fedcomp.checks.predict import combine as combine_wrong
from fedcomp.checks.predict import each, flipped, shifted
from fedcomp.rates.verdict import combine, equal_verdict, exponent_verdict

# ============================================================================================
# the intermittent-sharing law
# ============================================================================================
#: a priori bound on |extrapolated gap / closed form - 1| (fedcomp.experiments.intermittent:
#: the O(eta^2) remainder of the Richardson extrapolation at the designs)
LAW_TOLERANCE = 0.01
LAW_TEXT = "c(beta,I)^2 ||D(x_c)||^2, c = 1 - (1 - (1 - beta)^I)/(I beta)"


def measure_sharing_law(profile, out_dir) -> Measurement:
    """:func:`fedcomp.experiments.intermittent.law_measurement` (deterministic runs of
    DS-FedDRO, FedAvg Case II and FedDRO on controlled linear-quadratic problems), with the
    heatmap over (beta, I) of its points' measured gap, the closed form and their ratio."""
    from fedcomp.experiments.intermittent import law_measurement
    from fedcomp.figures import plot
    from fedcomp.figures.law import law_heatmap
    v = law_measurement(profile, out_dir)
    figures = [plot("figures/fedcomp.intermittent-sharing-law-heatmap.png", law_heatmap,
                    v["points"], v["eta"], LAW_TOLERANCE)] + v.pop("figures")
    return Measurement(values=v, figures=figures,
                       detail=f"{v['n_points']} (beta, I, h) points, eta = {v['eta']:g}, 2 eta, "
                              f"4 eta, extrapolated to eta -> 0")


def judge_sharing_law(predicted, m: Measurement) -> CheckResult:
    """Parts: (a) the extrapolated gap equals the closed form within LAW_TOLERANCE at every
    point; (b) FedAvg Case II (beta = 1) obeys it; (c) FedDRO's gap; (d) for beta, I - 1 and h:
    the predicted exponent against the closed form's asymptotic exponent, by algebra
    (:func:`fedcomp.experiments.intermittent.law_exponents`: the integers hold only as
    beta (I - 1) -> 0); beside it, reported and not judged, the runs' fitted exponent on the
    design points against the closed form's exponent on the same points (exponent_verdict,
    two-sided: once (a) holds within its 1 % it is implied on the designs used, so it could not
    fail on its own): the data confirm the closed form through (a), the integers are the closed
    form's; (e) the eta
    exponent: the Richardson-extrapolated local slope s_0 at every point within an a priori
    tolerance (ETA_EXPONENT_TOLERANCE) of the prediction."""
    from fedcomp.experiments.intermittent import ETA_EXPONENT_TOLERANCE
    from fedcomp.rates.fit import ExponentFit
    v = m.values
    parts, reasons = [], []
    if predicted["gap"] != LAW_TEXT:
        return CheckResult("inconclusive", predicted, None,
                           f"this check measures the closed form {LAW_TEXT!r} only")
    closed_ok = v["max_rel_error_closed_form"] <= LAW_TOLERANCE and v["all_converged"]
    parts.append("pass" if closed_ok else "fail")
    reasons.append(f"max |gap_0 / closed form - 1| = {v['max_rel_error_closed_form']:.2e} "
                   f"(tolerance {LAW_TOLERANCE:g}; all converged {v['all_converged']})")
    fa_ok = v["fedavg_case2_rel_error"] <= LAW_TOLERANCE
    r = equal_verdict("FedAvg Case II (beta = 1) obeys the law", fa_ok,
                      predicted["FedAvg Case II (beta = 1) obeys the law"])
    parts.append(r.verdict)
    reasons.append(f"{r.reason} (rel. error {v['fedavg_case2_rel_error']:.2e})")
    r = equal_verdict("FedDRO gap", v["feddro_gap"], predicted["FedDRO gap"], rtol=0.0,
                      atol=1e-20)
    parts.append(r.verdict)
    reasons.append(r.reason + " (atol 1e-20)")
    fit = v["fit"]
    design, law = v["closed_form_exponents_design"], v["law_exponents"]
    for k in ("beta", "I-1", "heterogeneity"):
        lo, hi = fit["intervals"][k]
        s = fit["exponents"][k]
        a = equal_verdict(f"{k}: the closed form's exponent as beta (I - 1) -> 0 (algebra: "
                          f"c = {law['leading term']} + O(beta^2), D = h^2 D_1)", law[k],
                          predicted["exponents"][k], source="derived")
        f = ExponentFit(slope=s, intercept=0.0, low=lo, high=hi, boot_low=lo, boot_high=hi,
                        reg_low=lo, reg_high=hi, stderr=float("nan"), r2=float("nan"),
                        n_points=fit["n"], n_seeds=1, x=[], y_mean=[], y_low=[], y_high=[])
        e = exponent_verdict(f, design[k])
        parts.append(a.verdict)
        reasons.append(f"{a.reason}: {a.verdict}; "
                       f"the runs' fitted exponent {s:+.3f} [{lo:+.3f}, "
                       f"{hi:+.3f}] against the closed form's on the same design points "
                       f"{design[k]:+.3f} (finite c: the integers hold only as beta (I - 1) -> "
                       f"0; reported, not judged: implied by the pointwise agreement; an "
                       f"exponent test on its own would read: {e.reason})")
    s0 = [r_["slope_0"] for r_ in v["eta_slopes"]]
    p_eta = predicted["exponents"]["eta"]
    worst = max(s0, key=lambda x: abs(x - p_eta))
    r = equal_verdict("asymptotic eta exponent (worst point)", worst, p_eta, rtol=0.0,
                      atol=ETA_EXPONENT_TOLERANCE)
    parts.append(r.verdict)
    reasons.append(f"eta: extrapolated local slopes s_0 in [{min(s0):+.4f}, {max(s0):+.4f}] over "
                   f"{len(s0)} points (local slopes at eta..4 eta up to "
                   f"{max(x['slope_2eta_4eta'] for x in v['eta_slopes']):+.3f}): {r.reason} "
                   f"(tolerance {ETA_EXPONENT_TOLERANCE:g})")
    reasons.append(f"first-order eta coefficient kappa in [{v['kappa_range'][0]:.2f}, "
                   f"{v['kappa_range'][1]:.2f}]")
    measured = {k: v[k] for k in ("max_rel_error_closed_form", "fedavg_case2_rel_error",
                                  "feddro_gap", "fit", "closed_form_exponents_design",
                                  "law_exponents", "kappa_range")}
    measured["eta_slope_0"] = s0
    return CheckResult(combine(parts), predicted, measured, "; ".join(reasons))


# ============================================================================================
# LocalSCGDAM's client-product bias
# ============================================================================================
def measure_bias(profile, out_dir) -> Measurement:
    """:func:`fedcomp.rates.auc.bias_measurement` on the zhang.thm1 problem."""
    from fedcomp.rates.auc import bias_measurement
    v = bias_measurement(profile)
    runs = "; ".join(f"eta={r['eta']:g}, T={r['T']}: drifts {r['drift_from_x_star']:.3f} from "
                     f"x*, ends at ||grad Phi||^2 = {r['final_grad_norm_sq']:.3e}"
                     for r in v["exact_runs_from_x_star"])
    z = v["client_product_root"]
    eig = v["hessian_eigenvalues_at_x_star"]
    facts = (f"a root x_D of D by least squares from x* (||D(x_D)||^2 = "
             f"{z['client_product_sq']:.1e}) lies {z['distance_from_x_star']:.3g} from x* with "
             f"||grad Phi(x_D)||^2 = {z['grad_phi_sq']:.1e} and Phi(x_D) - Phi(x*) = "
             f"{z['phi_minus_phi_star']:+.1e}; the Hessian of Phi at x* has eigenvalues from "
             f"{min(eig, key=abs):.1e} to {max(eig, key=abs):.2g}")
    if z["stationary"] and v["final_falls_with_eta"]:
        reading = ("the root of D the drift can settle at is itself stationary"
                   + (" (Phi is flat along a direction)" if v["flat_direction_at_x_star"] else "")
                   + ", and the exact runs end lower at the smaller step: on this problem the "
                     "bias leaves no floor on ||grad Phi||^2")
    elif not z["stationary"]:
        reading = ("the root of D is not a stationary point of Phi: the bias can leave a floor "
                   "of the order of ||grad Phi(x_D)||^2")
    else:
        reading = ("the root of D is stationary, but the exact runs do not end lower at the "
                   "smaller step: whether a floor remains is not settled by these runs")
    return Measurement(values=v, detail=(
        f"exact LocalSCGDAM (p = 1) started at x*: {runs}. Reported, not judged: {facts}: "
        f"{reading}; {v['seconds']:.1f} s"))


def judge_bias(predicted, m: Measurement) -> CheckResult:
    v = m.values
    nonzero = v["client_product_sq_at_x_star"] > max(1e6 * v["grad_phi_sq_at_x_star"], 1e-12)
    same = v["control_relative_difference"] < 1e-10
    a = equal_verdict("client-product direction nonzero at a stationary point of Phi", nonzero,
                      predicted["heterogeneous clients: direction nonzero at grad Phi = 0"])
    b = equal_verdict("client-product direction = grad Phi for identical clients", same,
                      predicted["identical clients: direction = grad Phi"])
    detail = (f"{a.reason} (||D(x*)||^2 = {v['client_product_sq_at_x_star']:.3e} at "
              f"||grad Phi(x*)||^2 = {v['grad_phi_sq_at_x_star']:.2e}; nonzero means > 1e6 x the "
              f"residual and > 1e-12); {b.reason} (max relative difference "
              f"{v['control_relative_difference']:.1e}, equal means < 1e-10)")
    return CheckResult(combine([a.verdict, b.verdict]), predicted, v, detail)


CLAIMS = [
    Claim(id="fedcomp.intermittent-sharing-law", paper="fedcomp",
          location="fedcomp.experiments.intermittent (no paper; FedDRO paper Thm 4.1, Alg. 3)",
          statement="Sharing the inner estimate only every I iterations leaves, in the "
                    "deterministic limit eta -> 0, the stationarity gap ||grad Phi(x_inf)||^2 = "
                    "c(beta, I)^2 ||D(x_c)||^2 with c = 1 - (1 - (1 - beta)^I) / (I beta) "
                    "~ beta (I - 1) / 2 (beta: weight of the new inner sample; FedAvg Case II "
                    "is beta = 1) and D = (1/K) sum_k (A_k - Abar)^T (g_k - g) quadratic in the "
                    "heterogeneity h: gap ~ (beta (I - 1) / 2)^2 h^4 |D_1|^2, independent of eta "
                    "in the limit. At finite eta a client-drift term of order eta adds (small "
                    "when grad f(g(x*)) = 0; on non-interpolating problems FedDRO itself keeps a "
                    "gap ~ eta^2 h^4). So DS-FedDRO converges only because its theorem ties "
                    "beta = c_beta eta -> 0 (LocalSCGDAM's alpha eta plays this role for its "
                    "inner estimate; with client-specific outer functions it keeps a bias of "
                    "its own, which this law does not cover: zhang.thm1.heterogeneous, "
                    "fedcomp.localscgdam-bias); with beta fixed "
                    "it stalls like FedAvg; FedDRO (y shared every iteration) has no gap "
                    "(FedDRO with (8) anchored at the client's own previous iterate, fedcomp's "
                    "feddro; read literally, (8) has an O(1) bias of its own: "
                    "khanduri.thm4.3.literal).",
          kind="experiment",
          predicted={"gap": LAW_TEXT,
                     "exponents": {"beta": 2.0, "I-1": 2.0, "heterogeneity": 4.0, "eta": 0.0},
                     "FedAvg Case II (beta = 1) obeys the law": True,
                     "FedDRO gap": 0.0},
          reading="deterministic runs on linear-quadratic problems with controlled "
                  "heterogeneity; the exponents are the closed form's asymptotic ones (beta "
                  "(I - 1) -> 0, eta -> 0), an algebraic consequence of the closed form, which "
                  "the runs confirm point by point (within 1 %); the runs' fitted exponents on "
                  "the design points (against the closed form's own there) are reported, not "
                  "judged, since the pointwise agreement implies them. The statement's "
                  "consequences for DS-FedDRO, stalling with beta fixed and converging with beta "
                  "tied to eta, are judged in khanduri.sec4.1.remedies and "
                  "khanduri.sec4.1.remedies.coupled; "
                  "khanduri.thm5.2's DS-FedDRO does not converge under Theorem 5.2's own "
                  "schedule, whose total model movement vanishes as T grows (its detail), which "
                  "this law does not contradict",
          check=Check(measure_sharing_law, judge_sharing_law,
                      combine_wrong(shifted(("exponents", "beta"), ("exponents", "I-1"),
                                            ("exponents", "heterogeneity"),
                                            ("exponents", "eta")),
                                    flipped(("FedAvg Case II (beta = 1) obeys the law",)),
                                    each([("FedDRO gap",)], lambda v: v + 1e-6))),
          notes="Full profile (48 interpolating points: beta 0.01-0.5, I 2-9, h 0.1-1; "
                "Richardson eta -> 0 from eta = 0.0025 and 0.01): max |gap_0 / closed form - 1| "
                "= 2.5e-3; with two non-interpolating points 7.2e-3; FedAvg Case II 3.7e-4; "
                "FedDRO 2.7e-31; power law on beta (I - 1) <= 0.2: beta 1.976 [1.963, 1.989], "
                "I-1 1.955 [1.937, 1.973], h 3.979 [3.967, 3.992] (95 %: the integers hold "
                "only asymptotically since c = beta (I-1)/2 (1 - O(beta I)) and x_c moves with "
                "c h^2, and the closed form has the same exponents on the same points). "
                "Stochastic (noise 0.02, eta 0.02, 4 "
                "seeds, 40000 iterations): floor - V(I=1) tracks gap_0 from 1e-6 to 7e-4 (phase "
                "diagram panel d)."),
    Claim(id="fedcomp.localscgdam-bias", paper="fedcomp",
          location="AUC paper, Algorithm 1, eq. (12) against problem (4)",
          statement="On problem (4) with clients whose inner Jacobians and outer gradients both "
                    "differ, LocalSCGDAM's mean x-direction (1/K) sum_k J_k^T grad f^(k) differs "
                    "from grad Phi = Jbar^T (1/K) sum_k grad f^(k): at a stationary point of Phi "
                    "it is nonzero, so with exact oracles and p = 1 the algorithm does not stay "
                    "there; with identical clients the two coincide.",
          kind="experiment",
          predicted={"heterogeneous clients: direction nonzero at grad Phi = 0": True,
                     "identical clients: direction = grad Phi": True},
          reading="measured on fedcomp.problems.AUCMinimax (the zhang.thm1 problem) at a "
                  "stationary point found by least squares on the exact grad Phi",
          check=Check(measure_bias, judge_bias,
                      flipped(("heterogeneous clients: direction nonzero at grad Phi = 0",),
                              ("identical clients: direction = grad Phi",))),
          notes="not a floor for Theorem 1's rate (zhang.thm1) on this problem: the root of D "
                "the drift heads for is itself stationary (the detail's x_D), and the "
                "||grad Phi||^2 the exact runs end at falls with eta. On a problem without such a "
                "flat direction the roots of D need not be stationary: Theorem 1's rate on such a "
                "problem (meeting Assumptions 1-4 globally) is measured in "
                "zhang.thm1.heterogeneous"),
]
