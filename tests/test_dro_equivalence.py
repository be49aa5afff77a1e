"""DRO reformulations (fedcomp.theory.dro): symbolic derivations, closed forms against certified
numerical maxima over the simplex, and the findings about the printed formulas."""
import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from fedcomp.theory import dro

losses_st = st.lists(st.floats(-5, 5, allow_nan=False), min_size=2, max_size=9).map(np.array)
lam_st = st.floats(0.05, 20.0)
simplex_st = st.lists(st.floats(0.0, 1.0), min_size=2, max_size=9)


def _to_simplex(w, m):
    w = np.resize(np.asarray(w, float), m) + 1e-12
    return w / w.sum()


@given(v=st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=40),
       ties=st.integers(0, 3))
def test_mirror_ascent_logsumexp_is_scipys_bit_for_bit(v, ties):
    """dro._logsumexp (the mirror ascent's normaliser) is scipy.special.logsumexp bit for bit,
    ties of the maximum included."""
    from scipy import special
    v = np.array(v)
    v[:ties] = v.max()
    assert dro._logsumexp(v) == special.logsumexp(v)


# ------------------------------------------------------------------ hand-computed values

def test_kl_two_losses_by_hand():
    # m = 2, l = (0, log 3), lam = 1: value = log((1 + 3)/2) = log 2; maximiser (1/4, 3/4)
    l = np.array([0.0, math.log(3.0)])
    assert dro.kl_value(l, 1.0) == pytest.approx(math.log(2.0), abs=1e-15)
    assert dro.kl_maximizer(l, 1.0) == pytest.approx([0.25, 0.75], abs=1e-15)
    # objective at the maximiser: 0.75 log 3 - (0.25 log 0.5 + 0.75 log 1.5) = log 2
    assert dro.kl_objective([0.25, 0.75], l, 1.0) == pytest.approx(math.log(2.0), abs=1e-14)
    assert dro.feddro_eq4_printed(l, 2.0) * 2.0 == pytest.approx(dro.kl_value(l, 2.0))


def test_chi2_by_hand_interior_and_boundary():
    # l = (0, 1), lam = 1, m = 2: p = 1/2 + (l - 1/2)/2 = (1/4, 3/4) interior;
    # value = 0.75 - 1 * (2/2) * (1/16 + 1/16) = 0.625 = mean 0.5 + Var 0.25 / 2
    l = np.array([0.0, 1.0])
    assert dro.chi2_closed_form_exact(l, 1.0)
    assert dro.chi2_maximizer(l, 1.0) == pytest.approx([0.25, 0.75])
    assert dro.chi2_value(l, 1.0) == pytest.approx(0.625)
    # printed (5): -(0 + 1)/(2*1*2) + 0.25/2 = -0.125 = -Var/(2 lam)
    assert dro.feddro_eq5_printed(l, 1.0) == pytest.approx(-0.125)
    # l = (0, 3), lam = 1: unconstrained p = (-1/4, 5/4) leaves the simplex; exact p = (0, 1),
    # value 3 - (2/2)(1/4 + 1/4) = 2.5; closed form mean + Var/2 = 1.5 + 2.25/2 = 2.625
    l = np.array([0.0, 3.0])
    assert not dro.chi2_closed_form_exact(l, 1.0)
    assert dro.chi2_unconstrained_maximizer(l, 1.0) == pytest.approx([-0.25, 1.25])
    assert dro.chi2_maximizer(l, 1.0) == pytest.approx([0.0, 1.0])
    assert dro.chi2_value(l, 1.0) == pytest.approx(2.5)
    assert dro.chi2_unconstrained_value(l, 1.0) == pytest.approx(2.625)


# ------------------------------------------------------------------ symbolic derivations

def test_symbolic_derivations():
    kl = dro.derive_kl()
    assert kl.holds
    assert not kl.exprs["comfedl_conf_eq18_correct"]      # -gamma/n printed, -gamma is right
    assert kl.exprs["comfedl_journal_eq15_correct"]
    chi = dro.derive_chi2()
    assert chi.holds and chi.printed_matches is False
    auc = dro.derive_auc()
    assert auc.holds


# ------------------------------------------------------------------ property tests: KL

@given(losses_st, lam_st, simplex_st)
def test_kl_closed_form_is_the_maximum(l, lam, w):
    value = dro.kl_value(l, lam)
    p = _to_simplex(w, l.size)
    assert dro.kl_objective(p, l, lam) <= value + 1e-9 * (1 + abs(value))
    assert dro.kl_objective(dro.kl_maximizer(l, lam), l, lam) == pytest.approx(value, rel=1e-9,
                                                                              abs=1e-9)


@given(losses_st, lam_st)
def test_kl_matches_certified_numerical_maximum(l, lam):
    r = dro.kl_report(l, lam)
    assert r["fw_gap_numerical"] < 1e-8
    assert r["value_gap"] == pytest.approx(0.0, abs=1e-8 * (1 + abs(r["value_closed_form"])))
    assert r["maximizer_max_abs_diff"] < 1e-7
    assert r["eq4_printed_times_lam_minus_value"] == pytest.approx(0.0, abs=1e-9 * (1 + abs(r["value_closed_form"])))


@given(losses_st, lam_st)
def test_kl_value_between_mean_and_max(l, lam):
    v = dro.kl_value(l, lam)
    assert l.mean() - 1e-9 <= v <= l.max() + 1e-9


# ------------------------------------------------------------------ property tests: chi-square

@given(losses_st, lam_st, simplex_st)
def test_chi2_exact_value_is_the_maximum(l, lam, w):
    exact = dro.chi2_value(l, lam)
    p = _to_simplex(w, l.size)
    assert dro.chi2_objective(p, l, lam) <= exact + 1e-9 * (1 + abs(exact))
    # the unconstrained closed form is an upper bound, attained iff the condition holds
    unc = dro.chi2_unconstrained_value(l, lam)
    assert unc >= exact - 1e-9 * (1 + abs(exact))
    if dro.chi2_closed_form_exact(l, lam):
        assert unc == pytest.approx(exact, rel=1e-9, abs=1e-9)
        assert dro.chi2_unconstrained_maximizer(l, lam) == pytest.approx(
            dro.chi2_maximizer(l, lam), abs=1e-9)
    else:
        assert dro.chi2_unconstrained_maximizer(l, lam).min() < 0


@given(losses_st, lam_st)
def test_chi2_matches_certified_numerical_maximum(l, lam):
    r = dro.chi2_report(l, lam)
    assert r["fw_gap_numerical"] < 1e-6 * (1 + abs(r["value_exact"]))
    assert r["value_gap_numerical"] == pytest.approx(0.0, abs=1e-6 * (1 + abs(r["value_exact"])))
    assert r["maximizer_max_abs_diff"] < 1e-4


@given(losses_st, lam_st)
def test_printed_eq5_identities(l, lam):
    printed = dro.feddro_eq5_printed(l, lam)
    parts = dro.feddro_eq5_parts_printed(l, lam)
    # the paper's g, f, h reproduce its printed objective
    assert parts["h"] + parts["f_of_g"] == pytest.approx(printed, abs=1e-9 * (1 + abs(printed)))
    # printed (5) = -Var/(2 lam) = mean(l) - (unconstrained value)
    assert printed == pytest.approx(-l.var() / (2 * lam), abs=1e-9 * (1 + abs(printed)))
    unc = dro.chi2_unconstrained_value(l, lam)
    assert printed == pytest.approx(l.mean() - unc, abs=1e-9 * (1 + abs(unc)))
    corr = dro.chi2_corrected_parts(l, lam)
    assert corr["h"] + corr["f_of_g"] == pytest.approx(unc, abs=1e-9 * (1 + abs(unc)))


def test_printed_eq5_wrong_whenever_losses_differ():
    l = np.array([1.0, 2.0, 4.0])
    assert dro.chi2_closed_form_exact(l, 10.0)
    assert abs(dro.feddro_eq5_printed(l, 10.0) - dro.chi2_value(l, 10.0)) > 1.0
    # and unbounded below: scaling the spread makes (5) as printed arbitrarily negative
    # (-Var/(2 lam), quadratic in the spread: x 1e4 for losses x 100)
    assert dro.feddro_eq5_printed(100 * l, 10.0) == pytest.approx(
        1e4 * dro.feddro_eq5_printed(l, 10.0))
    assert dro.feddro_eq5_printed(l, 10.0) < 0


# ------------------------------------------------------------------ AUC and ComFedL

@given(st.integers(0, 10_000))
def test_auc_minmax_equals_square_surrogate(seed):
    rng = np.random.default_rng(seed)
    pos = rng.normal(1.0, 1.0, int(rng.integers(1, 15)))
    neg = rng.normal(0.0, 1.5, int(rng.integers(1, 25)))
    r = dro.auc_report(pos, neg)
    assert r["closed_minus_surrogate"] == pytest.approx(0.0, abs=1e-9)
    assert r["value_numerical"] == pytest.approx(r["value_closed_form"], abs=1e-7)
    assert r["alpha_closed"] == pytest.approx(neg.mean() - pos.mean())


def test_auc_equivalence_needs_true_prior():
    rng = np.random.default_rng(0)
    r = dro.auc_report(rng.normal(1, 1, 20), rng.normal(0, 1, 80), p=0.5)
    assert abs(r["closed_minus_surrogate"]) > 1e-3
    assert r["value_numerical"] == pytest.approx(r["value_closed_form"], abs=1e-7)


def test_comfedl_eq6_and_journal_literal_reading():
    r = dro.comfedl_journal_eq6_discrepancy()
    assert r["conference_matches"]
    assert not r["journal_matches"]


def test_auc_composition_coupling():
    # with rho = 0 both readings are the AUC loss of w itself; with rho > 0 they differ
    assert dro.auc_composition_gap(rho=0.0)["difference"] == pytest.approx(0.0, abs=1e-12)
    assert abs(dro.auc_composition_gap(rho=0.5)["difference"]) > 1e-3


def test_bad_input():
    with pytest.raises(ValueError, match="lam"):
        dro.kl_value([1.0, 2.0], 0.0)
    with pytest.raises(ValueError, match="losses"):
        dro.chi2_value([1.0, float("nan")], 1.0)
    with pytest.raises(ValueError, match="simplex"):
        dro.kl_objective([0.5, 0.6], [1.0, 2.0], 1.0)


def test_cli_json(capsys):
    import json
    from fedcomp.cli import main
    assert main(["theory", "dro", "--json", "--losses", "0,1,3", "--lam", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["chi2"]["given"]["closed_form_exact"] is False
    assert out["chi2"]["given"]["value_exact"] == pytest.approx(dro.chi2_value([0, 1, 3], 1.0))


@given(st.lists(st.floats(-2, 2, allow_nan=False), min_size=2, max_size=9).map(np.array),
       st.floats(0.5, 10.0))
def test_kl_slsqp_agrees_when_well_conditioned(l, lam):
    # l/lam spread <= 8: every optimal weight is above ~1e-4, within SLSQP's reach
    r = dro.kl_report(l, lam)
    assert r["value_gap_slsqp"] == pytest.approx(0.0, abs=1e-7 * (1 + abs(r["value_closed_form"])))


def test_dro_problems_agree_with_theory():
    # the compiled DRO problems (equal client sizes: g = sample mean) against the formulas here
    from fedcomp.problems.dro import Chi2DRO, KLDRO
    kw = dict(num_clients=3, samples_per_client=20, dim=4, size_skew=0.0, seed=3)
    rng = np.random.default_rng(0)
    kl = KLDRO.synthetic(lam=0.7, **kw)
    printed = Chi2DRO.synthetic(lam=2.0, form="printed", **kw)
    corrected = Chi2DRO.synthetic(lam=2.0, form="corrected", **kw)
    for _ in range(3):
        x = rng.normal(0, 0.5, 4)
        l = kl.losses(x)
        assert kl.value(x) == pytest.approx(dro.kl_value(l, 0.7), rel=1e-10)
        assert printed.value(x) == pytest.approx(dro.feddro_eq5_printed(l, 2.0), rel=1e-9, abs=1e-12)
        assert corrected.value(x) == pytest.approx(dro.chi2_unconstrained_value(l, 2.0), rel=1e-10)
        if dro.chi2_closed_form_exact(l, 2.0):
            assert corrected.value(x) == pytest.approx(dro.chi2_value(l, 2.0), rel=1e-10)


@given(losses_st, lam_st)
def test_reference_weighted_values_reduce_to_uniform(l, lam):
    u = np.full(l.size, 1.0 / l.size)
    assert dro.kl_value_ref(l, lam, u) == pytest.approx(dro.kl_value(l, lam), rel=1e-12, abs=1e-12)
    assert dro.chi2_value_ref(l, lam, u) == pytest.approx(dro.chi2_value(l, lam), rel=1e-9, abs=1e-9)


def test_federated_restatement():
    eq = dro.federated_restatement(client_sizes=(10, 10))
    assert eq["kl_fl_form"] == pytest.approx(eq["kl_dro_uniform"], rel=1e-12)
    assert eq["chi2_fl_corrected_form"] == pytest.approx(eq["chi2_dro_uniform"], rel=1e-10)
    uneq = dro.federated_restatement(client_sizes=(3, 30))
    assert uneq["kl_fl_form"] == pytest.approx(uneq["kl_dro_reference_q"], rel=1e-12)
    assert uneq["chi2_fl_corrected_form"] == pytest.approx(uneq["chi2_dro_reference_q"], rel=1e-10)
    assert abs(uneq["kl_fl_form"] - uneq["kl_dro_uniform"]) > 1e-3
    assert dro.federated_weights([1, 3]) == pytest.approx([0.5, 1 / 6, 1 / 6, 1 / 6])
    # client k's terms scaled by K m_k / m: by hand (K = 2, m = 4) 1/2 * 2*1/4 = 1/6 * 2*3/4 = 1/4
    assert dro.federated_weights([1, 3], reweighted=True) == pytest.approx([0.25] * 4)
    rw = dro.federated_restatement(client_sizes=(3, 30), reweighted=True)
    assert rw["kl_fl_form"] == pytest.approx(rw["kl_dro_uniform"], rel=1e-12)
    assert rw["chi2_fl_corrected_form"] == pytest.approx(rw["chi2_dro_uniform"], rel=1e-10)
