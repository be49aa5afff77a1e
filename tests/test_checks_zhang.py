"""The AUC paper's claims (fedcomp.checks.zhang) and fedcomp's own (fedcomp.checks.own): each
verdict the checks reach today on the quick profile, pinned with the reason, and the weak
decisions of issue 19 that they fix (Lemma 2 against the exact class supremum, the sharing law's
exponents judged, Theorem 1's rounds judged two-sided from the prescribed schedule)."""
import math

import pytest

from fedcomp import checks
from fedcomp.checks import Measurement
from fedcomp.checks import zhang as Z
from fedcomp.rates.fit import ExponentFit
from fedcomp.rates.verdict import single_run_ordering_verdict

OURS = [c for c in checks.all_claims() if c.paper in ("zhang", "fedcomp")]


@pytest.fixture
def measured(measure_quick):
    def get(cid):
        c = checks.get(cid)
        return c, measure_quick(c)
    return get


def test_every_claim_is_migrated_and_the_published_ids_exist():
    ids = {c.id for c in OURS}
    for cid in ("zhang.eq1", "zhang.eq4", "zhang.lem2", "zhang.thm1", "zhang.rem1", "zhang.sec1",
                "zhang.table1", "zhang.fig4", "zhang.fig5", "fedcomp.intermittent-sharing-law",
                "fedcomp.localscgdam-bias"):
        assert cid in ids, cid
    for c in OURS:
        if c.check is None:
            assert len(c.not_checked) > 80, c.id    # a specific reason, not a placeholder


@pytest.mark.parametrize("cid,verdict", [
    ("zhang.eq1", "pass"),                  # sympy saddle point = the printed closed form
    ("zhang.eq4", "fail"),                  # per-sample (2) differs from (4) at rho = 0.5
    ("zhang.eq4.expected-step", "pass"),    # with the expected CE step (4) is (2)'s federated form
    ("zhang.lem2", "pass"),                 # >= the exact class supremum, loose by up to 2
    ("zhang.rem1", "pass"),                 # Remark 1's orders follow from (16)
    ("zhang.sec1", "fail"),                 # the introduction prints K^(-3/4); T/p = K^(3/4) T^(3/4)
    ("fedcomp.intermittent-sharing-law", "pass"),
    ("fedcomp.localscgdam-bias", "pass"),
    # claims added from the coverage re-read
    ("zhang.sec3.bias", "pass"),            # E plug-in - full = x/2 for f = z^2, 0 for affine f
    ("zhang.eq11-13.ranges", "fail"),       # Theorem 1 admits alpha eta = 1, outside (0, 1)
    ("zhang.thm1.terms", "pass"),           # every term of (16) is O((KT)^-1/2) under Remark 1
    ("zhang.thm1.conditions", "pass"),      # p^2 eta = c_eta c_p^2/K; schedule valid to T = 1e8
    ("zhang.eq14.communication", "pass"),   # ledger: 26 = 2*8 + 2*1 + 8 floats, floor(T/p)
    ("zhang.sec3.dg", "pass"),
    ("zhang.assump.auc-fit", "fail"),       # C_f is infinite over all z (grad_z f affine)
    ("zhang.assump.auc-fit.bounded", "pass"),
    ("zhang.table1.text", "fail"),          # the printed tie at FashionMNIST p = 4
    ("zhang.table1.text.tied", "pass"),     # ... which best-or-tied allows
    ("zhang.sec2.related", "pass"),
    ("zhang.thm1.heterogeneous", "fail"),   # the average rises with T (client-product bias)
])
def test_decided_verdicts(cid, verdict, measured):
    c, m = measured(cid)
    r = c.judge(m)
    assert r.verdict == verdict, r.detail


def test_eq4_per_sample_reading_fails_only_for_rho_positive(measured):
    c, m = measured("zhang.eq4")
    r = c.check.judge({"rho = 0": True, "rho > 0": False}, m)
    assert r.verdict == "pass", r.detail   # equal at rho = 0, different at rho > 0


# --- Lemma 2 (issue 19: it passed any bound above the observed 0.745) -------------------------

def test_lemma2_is_judged_against_the_exact_class_supremum(measured):
    c, m = measured("zhang.lem2")
    sup = m.values["class_supremum"]
    assert sup["supremum"] == "C_f*L_g + C_g**2*L_f**2/mu"
    assert sup["upper_bound_proved"] and sup["attained"]
    r = c.judge(m)
    assert r.measured["ratio_range"] == pytest.approx([1.0, 2.0], abs=0.01)
    assert "loose" in r.detail
    # the old check passed these (20.44 / 2 and each single term exceed the observed 0.745)
    for wrong in ("0.5*(2*C_g**2*L_f**2/mu + C_f*L_g)", "2*C_g**2*L_f**2/mu", "C_f*L_g",
                  "C_g**2*L_f**2/mu + C_f*L_g/2"):
        assert c.check.judge({"L_Phi": wrong}, m).verdict == "fail", wrong
    # the exact supremum passes, tight; a doubled bound is still a valid (loose) bound
    tight = c.check.judge({"L_Phi": "C_g**2*L_f**2/mu + C_f*L_g"}, m)
    assert tight.verdict == "pass" and tight.measured["ratio_range"] == pytest.approx([1, 1])
    assert c.check.judge({"L_Phi": "4*C_g**2*L_f**2/mu + 2*C_f*L_g"}, m).verdict == "pass"
    assert c.check.judge({"L_Phi": "C_g*L_f + x"}, m).verdict == "inconclusive"


# --- Theorem 1 / Remark 1 ------------------------------------------------------------------------

def test_thm1_quick(measured):
    c, m = measured("zhang.thm1")
    r = c.judge(m)
    # T: -0.499 [-0.572, -0.426] passes (its local slopes -0.45, -0.57, -0.46 show no drift
    # beyond their noise); K (T = 32768, 8 seeds): -0.517 [-0.691, -0.342] contains -1/2 but
    # reaches 0.158 above it, more than RATE_MARGIN: linear speed-up is not established at this
    # budget; rounds 0.750
    assert r.verdict == "inconclusive", r.detail
    assert m.values["regime_T"]["settled"] is not False
    assert "rate T: pass" in r.detail and "regime: " in r.detail
    assert "rate K: inconclusive" in r.detail
    assert m.values["ledger_matches_T_over_p"]
    from fedcomp.figures import Plot
    assert m.figures and all(isinstance(f, Plot) for f in m.figures)   # drawn by verify
    # rounds are judged two-sided from the prescribed schedule
    for bad in (0.5, 1.0, 0.7):
        assert c.check.judge({**c.predicted, "rounds": {"T": bad, "K": 0.75}}, m).verdict == \
            "fail"
        assert c.check.judge({**c.predicted, "rounds": {"T": 0.75, "K": bad}}, m).verdict == \
            "fail"
    # the intro's K^(-3/4) is refuted by the same schedule
    assert c.check.judge({**c.predicted, "rounds": {"T": 0.75, "K": -0.75}}, m).verdict == "fail"


def _fit(slope, lo, hi):
    """A fit with the interval [lo, hi] at every level a claim's family may ask for (a precise
    fit: the tests below are about the rules, not about the correction over parts)."""
    from fedcomp.rates.fit import FAMILY_MAX
    return ExponentFit(slope=slope, intercept=0.0, low=lo, high=hi, boot_low=lo, boot_high=hi,
                       reg_low=lo, reg_high=hi, stderr=0.0, r2=0.99, n_points=4, n_seeds=8,
                       x=[], y_mean=[], y_low=[], y_high=[],
                       boot_family=[[lo, hi]] * FAMILY_MAX).to_dict()


def test_thm1_super_linear_speedup_is_inconclusive_with_the_reason(measured):
    c, m = measured("zhang.thm1")
    fake = Measurement(values={**m.values, "fit_K": _fit(-1.2, -1.3, -1.1)})
    r = c.judge(fake)
    assert r.verdict == "inconclusive" and "super-linear" in r.detail
    fake = Measurement(values={**m.values, "fit_K": _fit(-0.1, -0.2, 0.0)})
    assert c.judge(fake).verdict == "fail"      # no speed-up at all


def test_thm1_whole_T_grid_and_its_upper_half_are_judged_together(measured):
    """The full profile's T grid (8 points) has an upper half: a whole grid slower than the
    bound whose upper half is consistent with it is inconclusive, both slower is a fail (the
    quick grid has none: fit_T_upper_half None, the whole grid alone decides)."""
    c, m = measured("zhang.thm1")
    assert m.values["fit_T_upper_half"] is None       # quick: 4 points, no upper half
    settled = {"settled": True, "text": "settled (synthetic)", "local_slopes": [-0.5] * 3}
    base = {**m.values, "fit_K": _fit(-0.5, -0.58, -0.45), "regime_T": settled}
    slow, fine = _fit(-0.475, -0.489, -0.459), _fit(-0.49, -0.52, -0.46)
    r = c.judge(Measurement(values={**base, "fit_T": slow, "fit_T_upper_half": fine}))
    assert r.verdict == "inconclusive" and "upper half of the T grid alone: pass" in r.detail
    r = c.judge(Measurement(values={**base, "fit_T": slow, "fit_T_upper_half": slow}))
    assert r.verdict == "fail"
    assert c.judge(Measurement(values={**base, "fit_T": slow})).verdict == "fail"
    r = c.judge(Measurement(values={**base, "fit_T": fine, "fit_T_upper_half": fine}))
    assert r.verdict == "pass"


def test_thm1_heterogeneous_quick_fails_with_a_rising_average(measured):
    """Theorem 1 + Remark 1 on LogCoshMinimax (a = (1, 3), b = (0, 2), mu = 1): Theorem 1's
    admissible constants, eta below its cap at every T, and the average rises with T towards
    ||grad Phi(x_D)||^2 at the root x_D of the client-product direction."""
    c, m = measured("zhang.thm1.heterogeneous")
    r = c.judge(m)
    v = m.values
    assert r.verdict == "fail", r.detail
    assert v["fit_T"]["slope"] > -0.5 and v["fit_T"]["low"] > -0.5
    assert r.measured["rate T"]["slope"] == v["fit_T"]["slope"]
    assert all(run["valid"] and run["uncapped"] and run["eta"] <= run["cap"]
               and run["p"] >= 2 for run in v["runs"])
    assert v["schedule_checks"]["largest_admissible_gammas"]
    assert v["schedule_checks"]["same_schedule_with_L_g_1e-6"]
    cf = v["closed_form"]
    assert cf["x_star"] == pytest.approx([0.5], abs=1e-12)
    assert cf["grad_phi_sq_at_x_star"] < 1e-24
    assert cf["x_D"] == pytest.approx([0.83924], abs=1e-5)
    assert cf["grad_phi_sq_at_x_D"] == pytest.approx(0.3866, abs=1e-4)
    assert cf["D_at_x_star"] == pytest.approx([-math.tanh(1.0)], rel=1e-12)
    assert not v["diverged_runs"]
    vals = v["values"]
    assert all(b > a for a, b in zip(vals, vals[1:]))
    assert max(vals) < cf["grad_phi_sq_at_x_D"]
    for word in ("client-product", "x_D", "cap", "gamma_x", "p = ["):
        assert word in r.detail, word
    # the judge reads the prediction it is handed: a bound the rising curve meets passes or is
    # inconclusive, a decaying one fails
    assert c.check.judge({"rate": {"T": 1.0}}, m).verdict in ("pass", "inconclusive")
    assert c.check.judge({"rate": {"T": -1.0}}, m).verdict == "fail"


def test_thm1_detail_names_the_factors_outside_theorem1(measured):
    c, m = measured("zhang.thm1")
    out = m.values["theorem1_admissible"]
    assert out["gamma_x_factor"] > 1 and out["gamma_y_factor"] > 1
    assert "outside Theorem 1's conditions" in m.detail
    assert "zhang.thm1.heterogeneous" in c.notes


def test_remark1_schedule():
    from fedcomp.rates.auc import schedule
    eta, p = schedule(4096, 4)
    assert eta == pytest.approx(math.sqrt(4 / 4096))
    assert p == round(4096 ** 0.25 / 4 ** 0.75)


def test_rem1_and_sec1_share_one_derivation(measured):
    c1, m1 = measured("zhang.rem1")
    c2, m2 = measured("zhang.sec1")
    assert m1 is m2 and c1.check.measure is c2.check.measure
    assert m1.values["rounds in T"] == {"T": 0.75, "K": 0.75}


# --- Table 1 ----------------------------------------------------------------------------------

def test_table1_without_runs_is_inconclusive_with_the_command(monkeypatch, tmp_path):
    monkeypatch.setenv("FEDCOMP_NEURAL_RESULTS", str(tmp_path))
    c = checks.get("zhang.table1")
    r = c.judge(c.check.measure("quick", tmp_path))
    assert r.verdict == "inconclusive"
    assert "fedcomp neural run localscgdam-fashionmnist --seeds 3" in r.detail
    assert "dataset-fashion-mnist" in r.detail


def test_single_run_ordering_rule():
    assert single_run_ordering_verdict("A>B", 0.99, 0.98, 0.004).verdict == "pass"
    assert single_run_ordering_verdict("A>B", 0.97, 0.98, 0.004).verdict == "fail"
    r = single_run_ordering_verdict("A>B", 0.981, 0.98, 0.004)
    assert r.verdict == "inconclusive" and "95 %" in r.reason
    with pytest.raises(ValueError, match="resolution"):
        single_run_ordering_verdict("A>B", 0.9, 0.8, -1.0)


def test_auc_standard_error():
    from fedcomp.rates.auc import auc_standard_error
    assert auc_standard_error(0.98, 5000, 5000) == pytest.approx(0.00142, abs=5e-5)
    assert auc_standard_error(0.5, 5000, 5000) > auc_standard_error(0.98, 5000, 5000)
    with pytest.raises(ValueError, match="auc"):
        auc_standard_error(1.2, 10, 10)
    with pytest.raises(ValueError, match="n_pos"):
        auc_standard_error(0.9, 0, 10)


def test_federated_gap_needs_equal_shares():
    from fedcomp.theory.dro import auc_federated_gap
    with pytest.raises(ValueError, match="num_clients"):
        auc_federated_gap(num_clients=3, num_samples=200)


# --- fedcomp's own claims -------------------------------------------------------------------

def test_sharing_law_exponents_are_judged(measured):
    c, m = measured("fedcomp.intermittent-sharing-law")
    v = m.values
    # raw I-1 interval [1.930, 1.993] excludes 2: the closed form has the same finite-c bias
    _, hi = v["fit"]["intervals"]["I-1"]
    assert hi < 2.0
    assert abs(v["closed_form_exponents_design"]["I-1"] - v["fit"]["exponents"]["I-1"]) < 0.01
    # the integers are the closed form's, by algebra (its series), not a corrected fit
    assert {k: v["law_exponents"][k] for k in ("beta", "I-1", "heterogeneity")} == \
        {"beta": 2.0, "I-1": 2.0, "heterogeneity": 4.0}
    assert v["law_exponents"]["leading term"] == "beta*(I - 1)/2"
    r = c.judge(m)
    assert "fitted exponent +1.9" in r.detail and "+2.000 [" not in r.detail
    # the fit against the closed form on the same points is implied by the pointwise part:
    # reported, not judged (audit 3, item 9)
    assert r.detail.count("reported, not judged: implied by the pointwise agreement") == 3
    for k, bad in (("beta", 1.9), ("I-1", 2.1), ("heterogeneity", 3.8), ("eta", 0.05)):
        w = {**c.predicted, "exponents": {**c.predicted["exponents"], k: bad}}
        assert c.check.judge(w, m).verdict == "fail", k
    assert max(abs(r["slope_0"]) for r in v["eta_slopes"]) < 0.01


def test_bias_measurement(measured):
    _, m = measured("fedcomp.localscgdam-bias")
    v = m.values
    assert v["control_relative_difference"] < 1e-10
    assert v["grad_phi_sq_at_x_star"] < 1e-20
    assert v["client_product_sq_at_x_star"] > 1e-8
    # the root of D the exact drift heads for: stationary on this problem (no floor), Phi flat
    # along a direction, the runs' final ||grad Phi||^2 lower at the smaller step
    z = v["client_product_root"]
    assert z["client_product_sq"] < 1e-12 and z["stationary"]
    assert z["grad_phi_sq"] < 1e-6 * v["client_product_sq_at_x_star"]
    assert v["flat_direction_at_x_star"] and v["final_falls_with_eta"]
    assert "leaves no floor" in m.detail


def test_assumption_readings_share_one_derivation(measured):
    _, m = measured("zhang.assump.auc-fit")
    assert m.values["mu"] in ("-2*p*(p - 1)", "2*p*(1 - p)")
    assert all(o["hessian_constant"] and o["grad_z_unbounded"]
               for o in m.values["labels"].values())
