"""Rates: exponent fits and their intervals, verdicts, schedules, derived measurements."""
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fedcomp
from fedcomp.rates import schedules as S
from fedcomp.rates.analysis import (cost_exponent, invert, paired_ratio_fit, speedup,
                                    target_eps)
from fedcomp.rates.fit import (ExponentFit, combine, crossing, fit_exponent,
                               upper_bound_verdict)
from fedcomp.rates.measure import Sweep, matrix
from fedcomp.rates.problems import heterogeneous_linear


@settings(max_examples=25, deadline=None)
@given(slope=st.floats(-2.0, 1.0), logc=st.floats(-5, 5),
       npts=st.integers(3, 8), nseeds=st.integers(1, 6))
def test_noise_free_power_law_is_recovered_exactly(slope, logc, npts, nseeds):
    x = 2.0 ** np.arange(8, 8 + npts)
    v = np.tile(math.exp(logc) * x ** slope, (nseeds, 1))
    fit = fit_exponent(x, v, n_boot=50)
    assert fit.slope == pytest.approx(slope, abs=1e-9)
    assert fit.intercept == pytest.approx(logc, abs=1e-6)
    assert fit.low <= fit.slope + 1e-9 and fit.high >= fit.slope - 1e-9


@settings(max_examples=15, deadline=None)
@given(slope=st.floats(-1.5, -0.1), sigma=st.floats(0.05, 0.5), seed=st.integers(0, 10_000))
def test_noisy_fit_interval_brackets_estimate_and_true_slope_is_close(slope, sigma, seed):
    rng = np.random.default_rng(seed)
    x = 2.0 ** np.arange(9, 16)
    v = 3.0 * x ** slope * np.exp(sigma * rng.standard_normal((32, len(x))))
    fit = fit_exponent(x, v, n_boot=300, seed=seed)
    assert fit.low <= fit.slope <= fit.high
    # the slope of the means of 32 seeds with sigma <= 0.5 is within 0.2 of the truth
    assert abs(fit.slope - slope) < 0.2


def test_interval_coverage_is_at_least_nominal_ballpark():
    # 95 % intervals (union of bootstrap and regression) should cover the true exponent in
    # most repetitions; a broken interval (e.g. a standard deviation instead of a quantile)
    # covers far less often.
    rng = np.random.default_rng(1)
    x = 2.0 ** np.arange(9, 15)
    true = -0.5
    hits = 0
    reps = 120
    for r in range(reps):
        v = 2.0 * x ** true * np.exp(0.3 * rng.standard_normal((8, len(x))))
        fit = fit_exponent(x, v, n_boot=200, seed=r)
        hits += fit.low <= true <= fit.high
    assert hits / reps >= 0.85


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 9), st.integers(2, 12), st.integers(0, 2**31 - 1),
       st.sampled_from(["none", "nan", "nonpositive", "inf"]))
def test_batched_bootstrap_gives_the_per_replicate_bits(n_seeds, n, seed, damage):
    """fit_exponent fits its 2000 replicates together (statistic_rows); the per-replicate path
    of fit_statistic (one statistic call and one least-squares fit each) gives the same bits,
    also when replicates lose grid points to missing or non-positive values."""
    from fedcomp.rates.fit import _nanmean_seeds, fit_statistic
    rng = np.random.default_rng(seed)
    x = np.geomspace(10.0, 1e4, n)
    v = np.exp(rng.normal(size=(n_seeds, n)) - 0.5 * np.log(x))
    if damage != "none":
        v[rng.uniform(size=v.shape) < 0.2] = {"nan": np.nan, "nonpositive": -1.0,
                                              "inf": np.inf}[damage]
    try:
        a, boot_a = fit_exponent(x, v, n_boot=300, return_boot=True)
    except ValueError:
        return  # refused input: test_fit_rejects_bad_input's subject
    keep = np.isfinite(v).sum(axis=0) > 0
    b, boot_b = fit_statistic(x[keep], lambda idx: _nanmean_seeds(v[:, keep][idx], axis=0),
                              n_seeds, n_boot=300, return_boot=True)
    np.testing.assert_array_equal(boot_a, boot_b)
    for k in ("slope", "intercept", "low", "high", "boot_low", "boot_high", "y_low", "y_high"):
        assert repr(getattr(a, k)) == repr(getattr(b, k)), k


def test_fit_rejects_bad_input():
    with pytest.raises(ValueError, match="positive"):
        fit_exponent([1, 2, 3], [[1, -1, 1]])
    with pytest.raises(ValueError, match="shape"):
        fit_exponent([1, 2, 3], [[1, 1]])
    with pytest.raises(ValueError, match="x must be positive"):
        fit_exponent([0, 2, 3], [[1, 1, 1]])


def _fit(slope, low, high, n=5):
    return ExponentFit(slope, 0.0, low, high, low, high, low, high, 0.01, 0.99, n, 8,
                       [], [], [], [])


def test_upper_bound_verdicts():
    assert upper_bound_verdict(_fit(-0.5, -0.55, -0.45), -0.5).verdict == "pass"
    assert upper_bound_verdict(_fit(-0.8, -0.9, -0.7), -0.5).verdict == "pass"   # faster
    assert upper_bound_verdict(_fit(-0.3, -0.35, -0.25), -0.5).verdict == "fail"  # slower
    assert upper_bound_verdict(_fit(-0.5, -1.0, 0.0), -0.5).verdict == "inconclusive"
    assert upper_bound_verdict(_fit(-0.5, -0.6, -0.4, n=2), -0.5).verdict == "inconclusive"
    # a wide interval entirely above the prediction is still a fail
    assert upper_bound_verdict(_fit(0.2, -0.2, 0.6), -0.5).verdict == "fail"
    assert upper_bound_verdict(_fit(-0.3, -0.35, -0.25), -0.5,
                               tolerance=0.2).verdict == "pass"
    with pytest.raises(ValueError, match="max_width"):
        upper_bound_verdict(_fit(-0.5, -0.6, -0.4), -0.5, max_width=0)
    assert combine(["pass", "pass"]) == "pass"
    assert combine(["pass", "inconclusive"]) == "inconclusive"
    assert combine(["inconclusive", "fail"]) == "fail"


def test_crossing_interpolates_in_log_log():
    x = np.array([1.0, 4.0, 16.0])
    y = 1.0 / np.sqrt(x)
    assert crossing(x, y, 0.5) == pytest.approx(4.0)
    assert crossing(x, y, 1 / math.sqrt(8.0)) == pytest.approx(8.0)
    assert crossing(x, y, 2.0) == 1.0
    assert math.isnan(crossing(x, y, 0.1))


def test_schedules_follow_the_theorems_orders():
    for T in (256, 4096, 65536):
        for K in (2, 8, 32):
            p = S.feddro(T, K, c=0.5, c_b=2.0, c_I=2.0)
            assert p["eta"] == pytest.approx(0.5 * math.sqrt(K / T))
            assert p["beta"] == pytest.approx(min(1.0, 2.0 * p["eta"]))
            assert p["local_steps"] == max(1, round(2.0 * T ** 0.25 / K ** 0.75))
            q = S.ds_feddro(T, K, c=1.0, c_x=2.0, c_y=0.5, c_I=1.0)
            I = q["local_steps"]
            assert I == max(1, round(math.sqrt(T / K)))
            assert q["eta"] == pytest.approx(1.0 / math.sqrt(I * T))
            assert q["server_lr_x"] == pytest.approx(2.0 * math.sqrt(K / T))
            assert q["server_lr_y"] == pytest.approx(0.5 * q["server_lr_x"])
    with pytest.raises(ValueError, match="T"):
        S.feddro(0, 4)


def test_ds_feddro_printed_schedule_has_vanishing_total_step():
    # the finding recorded in fedcomp.rates.schedules: T * gamma_x * eta ~ T^(-1/4)
    tot = [T * S.ds_feddro(T, 8)["server_lr_x"] * S.ds_feddro(T, 8)["eta"]
           for T in (2 ** 10, 2 ** 14, 2 ** 18)]
    assert tot[0] > tot[1] > tot[2]
    assert tot[0] / tot[2] == pytest.approx(2 ** 2, rel=0.1)   # (2^8)^(1/4)


def test_heterogeneous_linear_objective_does_not_depend_on_K():
    x = np.linspace(-1, 1, 6)
    ps = [heterogeneous_linear(K, dim=6, inner_dim=3, noise=0.5) for K in (1, 3, 16)]
    for p in ps[1:]:
        assert np.allclose(p.Abar, ps[0].Abar, atol=1e-12)
        assert p.value(x) == pytest.approx(ps[0].value(x), rel=1e-12)
        assert np.allclose(p.grad(x), ps[0].grad(x), atol=1e-12)
    assert np.abs(ps[2].A - ps[2].Abar).max() > 0.1   # clients do differ


def test_summarize_averages_recorded_iterates_of_one_run():
    p = heterogeneous_linear(4, dim=4, inner_dim=2)
    sw = Sweep("t", "fedcomp.rates.problems:heterogeneous_linear",
               lambda K: {"num_clients": K, "dim": 4, "inner_dim": 2}, "feddro", S.feddro,
               [(64, 4)], seeds=2, max_records=16)
    summary = sw.run(None, executor="inprocess")
    res = fedcomp.simulate(p, "feddro", iterations=64, record_every=4, seed=1,
                           **S.feddro(64, 4))
    row = summary[summary.seed == 1].iloc[0]
    assert row["avg_grad_sq"] == pytest.approx(res.grad_norm_sq[1:].mean(), rel=1e-12)
    assert row["final_grad_sq"] == res.grad_norm_sq[-1]
    assert row["rounds"] == res.rounds
    assert row["floats_per_client"] == res.floats_sent / 4
    x, v = matrix(summary, "T", K=4)
    assert v.shape == (2, 1)


def _summarize_by_groups(table):
    """rates.measure.summarize as it was first written (a groupby, then scalar lookups per
    run): the reference its one-sort form must equal."""
    rows = []
    for run_id, g in table.groupby("run_id", sort=False):
        g = g.sort_values("t")
        T = int(g["iterations"].iloc[0])
        K = int(g["K"].iloc[0])
        d_at = g["diverged_at"].iloc[0]
        diverged = bool(pd.notna(d_at) and int(d_at) >= 0)
        rec = g[(g["t"] >= 1) & (g["t"] <= T)]
        gn = rec["grad_norm_sq"].to_numpy()
        if diverged or len(gn) == 0:
            avg = final = tail = np.nan
        else:
            avg = float(gn.mean())
            final = float(gn[-1])
            tail = float(gn[-max(1, len(gn) // 10):].mean())
        floats_y = g["floats_y_total"].iloc[0] if "floats_y_total" in g else 0
        rows.append({"run_id": run_id, "config_hash": g["config_hash"].iloc[0],
                     "algorithm": g["algorithm"].iloc[0], "T": T, "K": K,
                     "d": int(g["d"].iloc[0]), "d_g": int(g["d_g"].iloc[0]),
                     "seed": int(g["seed"].iloc[0]),
                     "eta": float(g["eta"].iloc[0]), "local_steps": int(g["local_steps"].iloc[0]),
                     "avg_grad_sq": avg, "final_grad_sq": final, "tail_grad_sq": tail,
                     "rounds": int(g["rounds_total"].iloc[0]),
                     "floats_per_client": float(g["floats_sent_total"].iloc[0]) / K,
                     "floats_x": int(g["floats_x_total"].iloc[0]) if "floats_x_total" in g else 0,
                     "floats_y": int(floats_y) if pd.notna(floats_y) else 0,
                     "diverged": diverged, "diverged_at": int(d_at) if diverged else -1,
                     "sweep": g["label_sweep"].iloc[0] if "label_sweep" in g else ""})
    out = pd.DataFrame(rows)
    return out.sort_values(["sweep", "K", "T", "seed"]).reset_index(drop=True) if len(out) else out


@pytest.mark.parametrize("variant", ["as stored", "rows shuffled", "no sweep label",
                                     "summary inputs only"])
def test_summarize_is_the_per_run_groupby_it_replaced(variant, tmp_path):
    """summarize (one sort of the whole table, then numpy per run) gives the table of the
    groupby form, bits and dtypes: runs of two sweeps and two sizes, a diverged run, rows in
    any order, a table without the sweep label, and the table Sweep.run asks run_specs for
    (its columns SUMMARY_INPUTS only, the runs half computed, half read back from a store)."""
    from fedcomp.runner import RunSpec, run_specs
    from fedcomp.rates.measure import summarize
    ctor = "fedcomp.problems.linear:LinearQuadratic.random"
    specs = [RunSpec(ctor, {"num_clients": K, "dim": 3, "inner_dim": 2, "heterogeneity": 0.5,
                            "noise": 0.3, "seed": 2},
                     "feddro", {"iterations": T, "eta": eta, "beta": 0.2, "local_steps": 3,
                                "record_every": 2}, seed=s, labels={"sweep": sw})
             for sw, K, T, eta in (("T", 2, 40, 0.05), ("T", 2, 200, 0.05), ("K", 3, 40, 0.05),
                                   ("K", 3, 120, 50.0))
             for s in range(3)]
    table = run_specs(specs, executor="inprocess", progress=False)
    assert table["diverged_at"].notna().any()
    if variant == "summary inputs only":
        from fedcomp.rates.measure import SUMMARY_INPUTS
        run_specs(specs[::2], store=tmp_path, executor="inprocess", progress=False)
        narrow = run_specs(specs, store=tmp_path, executor="inprocess", progress=False,
                           columns=SUMMARY_INPUTS)
        assert set(narrow.columns) == set(SUMMARY_INPUTS) < set(table.columns)
        pd.testing.assert_frame_equal(summarize(narrow), summarize(table), check_exact=True)
    if variant == "rows shuffled":
        table = table.sample(frac=1.0, random_state=3).reset_index(drop=True)
    elif variant == "no sweep label":
        table = table.drop(columns=["label_sweep"])
    ref = _summarize_by_groups(table)
    assert len(ref) == len(specs)
    pd.testing.assert_frame_equal(summarize(table), ref, check_exact=True)


def _synthetic_summary(Ts, Ks, seeds, noise, rng, a=1.0):
    rows = []
    for K in Ks:
        for T in Ts:
            I = max(1, round(2 * T ** 0.25 / K ** 0.75))
            for s in range(seeds):
                val = a / math.sqrt(K * T) * math.exp(noise * rng.standard_normal())
                rows.append({"run_id": f"{K}-{T}-{s}", "K": K, "T": T, "seed": s,
                             "avg_grad_sq": val, "final_grad_sq": val, "rounds": T // I,
                             "floats_per_client": T // I * 10 + T, "diverged": False})
    return pd.DataFrame(rows)


def test_speedup_and_communication_on_a_known_law():
    rng = np.random.default_rng(0)
    Ts = [2 ** k for k in range(8, 16)]
    summary = _synthetic_summary(Ts, [2, 4, 8, 16], 4, 0.0, rng)
    eps = target_eps(summary)
    fit, eps2, table = speedup(summary)
    assert eps2 == eps and len(table) == 4
    # E = 1/sqrt(KT) exactly: T_eps = 1/(K eps^2), slope -1 in K
    assert fit.slope == pytest.approx(-1.0, abs=0.05)
    sample_fit = cost_exponent(summary, "T", K=8)
    assert sample_fit.slope == pytest.approx(-0.5, abs=1e-9)
    a, lo, hi = invert(sample_fit)
    assert a == pytest.approx(2.0, abs=1e-6)
    rounds_fit = cost_exponent(summary, "rounds", K=8)
    # rounds ~ T^(3/4) up to rounding of I, so eps ~ rounds^(-2/3)
    assert rounds_fit.slope == pytest.approx(-2 / 3, abs=0.06)


def test_paired_ratio_fit_is_the_difference_of_exponents_and_cancels_shared_noise():
    """b's runs are a's times T^0.1 (seed by seed): the paired ratio has slope 0.1 with a
    degenerate interval, although each seed's own noise is large."""
    rng = np.random.default_rng(1)
    rows = []
    for seed in range(6):
        for T in (256, 512, 1024, 2048):
            rows.append({"T": T, "K": 4, "seed": seed,
                         "avg_grad_sq": T ** -0.5 * math.exp(rng.normal(0, 0.5))})
    a = pd.DataFrame(rows)
    b = a.assign(avg_grad_sq=a["avg_grad_sq"] * a["T"] ** 0.1)
    fit = paired_ratio_fit(b, a, K=4)
    assert fit.slope == pytest.approx(0.1, abs=1e-12)
    assert fit.low == pytest.approx(0.1, abs=1e-9) and fit.high == pytest.approx(0.1, abs=1e-9)
    assert fit.y_mean == pytest.approx([T ** 0.1 for T in (256, 512, 1024, 2048)], rel=1e-12)
    with pytest.raises(ValueError, match="same T grid and seeds"):
        paired_ratio_fit(b[b["seed"] < 5], a, K=4)


def test_speedup_reports_none_when_no_common_level():
    rng = np.random.default_rng(0)
    summary = _synthetic_summary([256, 512], [2, 64], 2, 0.0, rng)
    fit, eps, table = speedup(summary)
    assert fit is None and math.isnan(eps)


def test_bias_probe_reports_each_eta():
    from fedcomp.rates.feddro import bias_probe
    args = {"num_clients": 4, "dim": 6, "inner_dim": 3, "heterogeneity": 1.0, "seed": 0}
    out = bias_probe(args, etas=(0.05, 0.025), horizon=200.0)
    assert [r["eta"] for r in out["runs"]] == [0.05, 0.025]
    assert [r["T"] for r in out["runs"]] == [4000, 8000]
    # d >= d_g: g(x*) = 0, so grad f(ybar) -> 0 and any inner bias is harmless: both readings
    # of FedDRO's estimator reach a stationary point with exact oracles
    assert all(r["grad_norm_sq"] < 1e-8 for r in out["runs"])


def test_a_curve_slower_than_the_bound_on_the_whole_grid_and_its_upper_half_fails():
    from fedcomp.checks.core import Measurement
    from fedcomp.checks.khanduri import judge_thm52
    from fedcomp.rates.feddro import PROFILES
    from fedcomp.rates.verdict import regime
    rng = np.random.default_rng(0)
    Ts = PROFILES["full"]["Ts"]

    def curve(T):  # E = T^-1/2 (1 - 4 T^-1/2): whole-grid slope above -1/2, local slopes approach it
        return T ** -0.5 * (1 - 4 * T ** -0.5)
    summary = _synthetic_summary(Ts, [8], 3, 0.0, rng)
    summary["avg_grad_sq"] = [curve(T) for T in summary["T"]]
    x, v = matrix(summary, "T", K=8)
    reg = regime(x, v, -0.5)
    exact = np.diff(np.log([curve(T) for T in Ts])) / np.diff(np.log(Ts))
    np.testing.assert_allclose(reg["local_slopes"], exact, rtol=1e-12)
    assert np.all(np.diff(exact) < 0) and np.all(exact > -0.5)
    whole = fit_exponent(x, v)
    upper = fit_exponent(x[4:], v[:, 4:])
    m = Measurement(values={"rates": {"LQ": {"T": whole, "K": whole, "regime": reg,
                                             "T_upper_half": upper},
                                      "LQ-diagnostic": {"T": whole}},
                            "K0": 8, "Tmax": max(Ts), "max_width": 0.25})
    res = judge_thm52({"T": -0.5, "K": -0.5}, m)
    part = res.measured["parts"][0]
    # both the whole grid and its upper half are slower than -1/2 on this grid: fail (the
    # curve's local slopes approach -1/2 from above; no finite grid reaches it), the upper
    # half and the regime reported beside the verdict
    assert whole.low > -0.5 and upper.low > -0.5 and part["verdict"] == "fail"
    assert "upper half of the T grid alone (agrees or does not decide): fail" in part["reason"]
    assert f"{upper.slope:+.3f}" in part["reason"] and "regime:" in part["reason"]


def test_upper_half_fits_the_grids_upper_points_only():
    from fedcomp.rates.fit import upper_half
    rng = np.random.default_rng(1)
    x = np.array([2.0 ** k for k in range(8)])
    v = np.exp(rng.normal(0, 0.05, (6, 8))) * x ** -0.5
    up = upper_half(x, v)
    ref = fit_exponent(x[4:], v[:, 4:])
    assert up.n_points == 4 and up.slope == ref.slope and (up.low, up.high) == (ref.low, ref.high)
    assert upper_half(x[:7], v[:, :7]).n_points == 4     # 7 points: the upper 4
    assert upper_half(x[:6], v[:, :6]) is None           # 6 points: 3 in the upper half
    assert ExponentFit.from_dict(up.to_dict()) == up


@pytest.mark.parametrize("whole, tail, expected", [
    ((-0.46, -0.48, -0.44), (-0.49, -0.52, -0.46), "inconclusive"),   # pre-asymptotic
    ((-0.50, -0.53, -0.47), (-0.40, -0.43, -0.37), "inconclusive"),   # flattens at the end
    ((-0.46, -0.48, -0.44), (-0.45, -0.48, -0.42), "fail"),           # slower on both
    ((-0.50, -0.53, -0.47), (-0.51, -0.56, -0.46), "pass"),           # both consistent
    ((-0.46, -0.48, -0.44), (-0.50, -0.90, -0.10), "fail"),           # the tail cannot tell
    ((-0.46, -0.48, -0.44), None, "fail"),                            # no upper half
])
def test_the_upper_half_checks_the_whole_grids_upper_bound_verdict(whole, tail, expected):
    """tail_checked_verdict: a pass and a fail between the whole grid and its upper half is
    inconclusive; otherwise the whole grid decides (an undecided tail takes nothing away)."""
    from fedcomp.rates.verdict import tail_checked_verdict, upper_bound_verdict
    w = upper_bound_verdict(_fit(*whole), -0.5, max_width=0.3)
    t = None if tail is None else upper_bound_verdict(_fit(*tail, n=4), -0.5, max_width=0.3)
    v = tail_checked_verdict(w, t, "upper half")
    assert v.verdict == expected
    assert w.reason in v.reason and (t is None or t.reason in v.reason)
    # the rule can fail: a prediction both halves reject fails whatever the tail says
    wrong = [upper_bound_verdict(_fit(*f), -1.0, max_width=0.3) for f in (whole, tail or whole)]
    assert tail_checked_verdict(*wrong).verdict == "fail"


def test_a_floor_in_T_is_carried_into_a_cost_by_how_T_grows_with_it():
    """Costs that are exact powers of T (cost = T^(3/4), as model rounds T/I with I = T^(1/4)):
    T grows like cost^(4/3), and the floor -1/2 in T becomes -2/3 in the cost; the number is the
    slope the eps-against-cost fit gives a curve eps = T^(-1/2) on the same grid. Degenerate
    grids give NaN, which cost_floor refuses."""
    from fedcomp.rates.analysis import t_per_cost
    from fedcomp.rates.verdict import SGD_FLOOR, SGD_FLOOR_REASON, cost_floor
    Ts = [512, 1024, 2048, 4096]
    rows = [{"T": T, "K": K, "seed": s, "rounds": T ** 0.75, "floats": 7.0}
            for T in Ts for K in (4, 8) for s in range(3)]
    summary = pd.DataFrame(rows)
    b = t_per_cost(summary, "rounds", K=8)
    assert b == pytest.approx(4 / 3, rel=1e-12)
    floor, why = cost_floor(SGD_FLOOR, SGD_FLOOR_REASON, b)
    assert floor == pytest.approx(-2 / 3, rel=1e-12) and "cost^1.333" in why
    assert SGD_FLOOR_REASON in why
    # the same number as the slope a fit of eps = T^(-1/2) against the cost finds (stepped costs
    # included: then T and the cost are not exact powers of each other)
    stepped = [T // round(2 * T ** 0.25) for T in Ts]
    rows = [{"T": T, "K": 8, "seed": 0, "rounds": c} for T, c in zip(Ts, stepped)]
    b = t_per_cost(pd.DataFrame(rows), "rounds")
    slope = np.polyfit(np.log(stepped), np.log(np.array(Ts, float) ** -0.5), 1)[0]
    assert cost_floor(SGD_FLOOR, "", b)[0] == pytest.approx(slope, rel=1e-12)
    assert math.isnan(t_per_cost(summary, "floats", K=8))            # a cost that never grows
    assert math.isnan(t_per_cost(summary[summary["T"] == 512], "rounds", K=8))   # one T
    with pytest.raises(ValueError, match="t_per_cost must be > 0"):
        cost_floor(SGD_FLOOR, "", math.nan)


def test_diverged_runs_are_named_with_their_iteration():
    from types import SimpleNamespace as NS

    from fedcomp.rates.measure import diverged_runs, diverged_text
    runs = [NS(seed=0, diverged=False, diverged_at=None), NS(seed=1, diverged=True, diverged_at=37),
            NS(seed=2, diverged=True, diverged_at=5)]
    items = diverged_runs(runs, T=4096, K=8)
    assert items == [{"T": 4096, "K": 8, "seed": 1, "t": 37},
                     {"T": 4096, "K": 8, "seed": 2, "t": 5}]
    assert diverged_text(items) == ("2 run(s) diverged, left out of their point's mean: "
                                    "T=4096, K=8 seed 1 at t=37; T=4096, K=8 seed 2 at t=5")
    assert diverged_text([]) == "" and diverged_runs(runs[:1]) == []


def test_vanishing_order_verdict_reads_settled_local_slopes():
    from fedcomp.rates.verdict import vanishing_order_verdict
    etas = [0.04, 0.02, 0.01, 0.005, 0.0025]
    linear = [3 * e + 2 * e * e for e in etas]            # order 1, settled at the small end
    assert vanishing_order_verdict("b", etas, linear, 0.5).verdict == "pass"
    assert vanishing_order_verdict("b", etas, linear, 1.5).verdict == "fail"
    root = [e ** 0.5 for e in etas]                        # order 1/2 exactly: not faster
    assert vanishing_order_verdict("b", etas, root, 0.5).verdict == "fail"
    # still bending at the small end (a sharp change of regime there): not settled
    bent = [e if e > 0.004 else 30 * e ** 2 for e in etas]
    assert vanishing_order_verdict("b", etas, bent, 0.5).verdict == "inconclusive"
    assert vanishing_order_verdict("b", etas, [1e-12] * 5, 0.5).verdict == "pass"
    assert vanishing_order_verdict("b", etas, [0.0, 0.0, 1e-3, 1e-2, 0.1],
                                   0.5).verdict == "inconclusive"   # zero at some points only
    assert vanishing_order_verdict("b", etas, [1.0, math.nan, 1.0, 1.0, 1.0],
                                   0.5).verdict == "inconclusive"
    assert vanishing_order_verdict("b", etas, [-1.0] * 5, 0.5).verdict == "inconclusive"


def test_paired_below_verdicts_need_the_evidence_either_way():
    from fedcomp.rates.verdict import paired_fraction_below_verdict, paired_spread_below_verdict
    rng = np.random.default_rng(2)
    b = 1.0 + 0.1 * rng.standard_normal(12)
    # a seed-paired copy at half b, at b itself (not 10 % below) and just under 0.9 b
    assert paired_fraction_below_verdict("f", 0.5 * b, b).verdict == "pass"
    assert paired_fraction_below_verdict("f", b + 1e-3 * rng.standard_normal(12),
                                         b).verdict == "fail"
    near = 0.9 * b + 0.05 * rng.standard_normal(12)
    assert paired_fraction_below_verdict("f", near, b).verdict == "inconclusive"
    assert paired_fraction_below_verdict("f", [0.5, math.nan], [1.0, 1.0]).verdict \
        == "inconclusive"                                    # one finite pair: no interval
    # spreads: the pairing detects equal spreads that separate samples could not
    noise = rng.standard_normal(16)
    assert paired_spread_below_verdict("s", 0.3 * noise, noise).verdict == "pass"
    assert paired_spread_below_verdict("s", noise + 1e-3 * rng.standard_normal(16),
                                       noise).verdict == "fail"
    assert paired_spread_below_verdict("s", 0.9 * noise + 0.01 * rng.standard_normal(16),
                                       noise).verdict == "inconclusive"
    assert paired_spread_below_verdict("s", [1.0, 2.0], [1.0, 3.0]).verdict == "inconclusive"


def test_paired_equivalence_needs_evidence_of_likeness():
    """Alike within a margin by two one-sided tests: a tight difference inside the margin
    passes; one well outside fails; a noisy one whose mean is 0 stays undecided (noise is no
    evidence of likeness), and so does one finite pair."""
    from fedcomp.rates.verdict import paired_equivalence_verdict
    rng = np.random.default_rng(4)
    b = 0.95 + 0.01 * rng.standard_normal(8)
    assert paired_equivalence_verdict("a", b + 0.001 * rng.standard_normal(8), b,
                                      margin=0.01).verdict == "pass"
    assert paired_equivalence_verdict("a", b - 0.05 + 0.001 * rng.standard_normal(8), b,
                                      margin=0.01).verdict == "fail"
    noisy = b + 0.05 * rng.standard_normal(8)
    noisy = noisy - (noisy - b).mean()                         # mean difference exactly 0
    assert paired_equivalence_verdict("a", noisy, b, margin=0.01).verdict == "inconclusive"
    assert paired_equivalence_verdict("a", [0.9, math.nan], [0.9, 0.9],
                                      margin=0.01).verdict == "inconclusive"
    # exactly equal runs: a degenerate interval at 0, inside any positive margin
    assert paired_equivalence_verdict("a", b, b, margin=0.01).verdict == "pass"


def test_a_rate_cannot_pass_on_a_run_shown_to_drift():
    """regime: the drift of the local slope over the last three (last minus third-last) with a
    seed-bootstrap interval; settled when the interval is within +-0.1, drifting when it lies
    beyond, undecided otherwise; a lost point at the end reads as drifting. Only a pass on a
    drifting run is demoted."""
    from fedcomp.rates.verdict import Verdict, regime, regime_checked_verdict
    x = 2.0 ** np.arange(6)
    steady = x ** -0.5
    assert regime(x, steady, -0.5)["settled"] is True          # one run per point: no noise
    slow = np.exp(np.cumsum([0.0, -0.40, -0.44, -0.48, -0.52, -0.56]) * np.log(2.0))
    r = regime(x, slow)                                       # drift -0.08 over the last three
    assert r["local_slopes"] == pytest.approx([-0.40, -0.44, -0.48, -0.52, -0.56])
    assert r["drift"] == pytest.approx(-0.08) and r["settled"] is True
    steep = np.exp(np.cumsum([0.0, -0.40, -0.48, -0.56, -0.64, -0.72]) * np.log(2.0))
    r = regime(x, steep)                                      # drift -0.16 over the last three
    assert r["settled"] is False and "drifting" in r["text"]
    assert regime_checked_verdict(Verdict("pass", "fit"), r).verdict == "inconclusive"
    assert regime_checked_verdict(Verdict("fail", "fit"), r).verdict == "fail"
    rng = np.random.default_rng(3)
    # 16 seeds, 1 % noise: the same drift is shown through the noise
    seeds = steep * np.exp(0.01 * rng.standard_normal((16, x.size)))
    assert regime(x, seeds)["settled"] is False
    # 4 seeds, 10 % noise on an exact T^-1/2 law: the noise is not read as a drift (a t interval
    # over 4 seeds is wide; at most the test's error rate of the draws call it one)
    calls = [regime(x, steady * np.exp(0.1 * rng.standard_normal((4, x.size))))["settled"]
             for _ in range(200)]
    assert calls.count(False) <= 5 and calls.count(True) == 0
    # a lost end of the grid cannot be read: a pass there is not kept
    lost = np.vstack([steady, steady])
    lost[:, -1] = np.nan
    assert regime(x, lost)["settled"] is False
    v = regime_checked_verdict(Verdict("pass", "fit"), regime(x, steady))
    assert v.verdict == "pass" and "settled" in v.reason
    assert regime_checked_verdict(Verdict("pass", "fit"), None).verdict == "pass"


def test_theorem_4_3_judges_its_kl_dro_fit_on_the_bounded_region():
    """khanduri.thm4.3's KL-DRO run meets Assumption 3.2 only on bounded sets: judged there, as
    every paper's own instance is (one rule); a KL-DRO fit that fails fails the claim."""
    from fedcomp.checks.core import Measurement
    from fedcomp.checks.khanduri import judge_thm43
    rng = np.random.default_rng(5)
    Ts = np.array([1024.0, 2048.0, 4096.0, 8192.0, 16384.0])

    def fit(p):
        return fit_exponent(Ts, Ts ** p * np.exp(0.01 * rng.standard_normal((8, Ts.size))))
    good, flat = fit(-0.5), fit(0.0)
    settled = {"settled": True, "text": "settled (synthetic)", "local_slopes": [-0.5] * 4}

    steady = {1024: 0.80, 4096: 0.85, 16384: 0.86}

    def judged(kl, norms=steady, diverged=0):
        values = {"rates": {"LQ": {"T": good, "K": good, "regime": settled},
                            "LQ-residual": {"T": good, "regime": settled},
                            "KL-DRO": {"T": kl, "regime": settled, "final_norms": norms,
                                       "diverged_runs": diverged}},
                  "K0": 8, "Tmax": 16384, "max_width": 0.25, "bias_probe": {}}
        return judge_thm43({"T": -0.5, "K": -0.5}, Measurement(values=values))
    r = judged(good)
    assert r.verdict == "pass", r.detail
    assert [p["part"].split()[0] for p in r.measured["parts"]] == \
        ["LQ", "LQ", "LQ-residual", "KL-DRO"]
    assert "not on R^d (khanduri.assump3.2.dro)" in r.detail
    assert "0.86 (T=16384)" in r.detail
    r = judged(flat)
    assert r.verdict == "fail" and r.interval == (flat.low, flat.high)
    # runs that end further out as T grows (anywhere on the grid), a diverged run, a single T or
    # nothing recorded: no bounded region is shown, and the KL-DRO part decides nothing
    for norms, div in (({1024: 0.8, 16384: 1.3}, 0), ({1024: 0.8, 4096: 5.0, 16384: 0.85}, 0),
                       (steady, 2), ({1024: 0.8}, 0), ({}, 0), (steady, None)):
        r = judged(flat, norms, div)
        assert r.verdict == "inconclusive", (norms, div, r.detail)
        assert r.measured["parts"][-1]["verdict"] == "inconclusive"
    # runs that never leave x0 = 0 are bounded (no division by zero)
    assert judged(flat, {1024: 0.0, 16384: 0.0}).verdict == "fail"


def test_one_reversed_pair_among_many_refutes_only_at_the_familys_level():
    """'A beats each of ten rivals' passes when every pair passes at 95 %; a reversed pair fails
    it only when its interval at 1 - 0.05/10 lies below 0 too."""
    from fedcomp.rates.verdict import ordering_verdict
    assert ordering_verdict("a > b", -0.09, -0.01, -0.05, 3).verdict == "fail"
    v = ordering_verdict("a > b", -0.09, -0.01, -0.05, 3, family=10, family_high=0.07)
    assert v.verdict == "inconclusive" and "1 - 0.05/10" in v.reason
    v = ordering_verdict("a > b", -0.09, -0.05, -0.07, 3, family=10, family_high=-0.01)
    assert v.verdict == "fail" and "over the claim's 10 comparisons" in v.reason
    assert ordering_verdict("a > b", 0.01, 0.09, 0.05, 3, family=10,
                            family_high=0.2).verdict == "pass"
    with pytest.raises(ValueError, match="needs family_high"):
        ordering_verdict("a > b", -0.09, -0.01, -0.05, 3, family=10)


def test_a_whole_grid_pass_does_not_stand_on_an_end_beyond_the_floor():
    """Audit 3, item 4: the whole grid at the class's floor within the margin, its upper half
    wholly beyond it (faster than any method of the class): inconclusive, not pass."""
    from fedcomp.rates.verdict import upper_bound_verdict
    def fit(slope, low, high, n):
        return ExponentFit(slope=slope, intercept=0.0, low=low, high=high, boot_low=low,
                           boot_high=high, reg_low=low, reg_high=high, stderr=0.01, r2=0.99,
                           n_points=n, n_seeds=8, x=[1.0] * n, y_mean=[1.0] * n,
                           y_low=[1.0] * n, y_high=[1.0] * n)
    whole, end = fit(-0.551, -0.569, -0.533, 8), fit(-0.589, -0.626, -0.552, 4)
    assert upper_bound_verdict(whole, -0.5, floor=-0.5).verdict == "pass"
    v = upper_bound_verdict(whole, -0.5, floor=-0.5, tail=end)
    assert v.verdict == "inconclusive" and "beyond the class's floor" in v.reason
    assert upper_bound_verdict(whole, -0.5, floor=-0.5, tail=whole).verdict == "pass"
    # an upper half inconclusive for another reason (too wide; reaching across the floor) does
    # not demote the whole grid's pass
    wide = fit(-0.631, -0.790, -0.472, 4)
    assert upper_bound_verdict(whole, -0.5, floor=-0.5, tail=wide).verdict == "pass"
    across = fit(-0.56, -0.64, -0.48, 4)
    assert upper_bound_verdict(whole, -0.5, floor=-0.5, tail=across).verdict == "pass"


def test_remark_4_5_floats_read_their_sweeps_regime(monkeypatch):
    """khanduri.rem4.5's costs are read off a T sweep like Corollary 4.4's: each sweep's regime
    reaches the cost part, so a pass on a run drifting at the end of its grid is not kept."""
    import fedcomp.checks.khanduri as KH
    from fedcomp.checks.core import Measurement
    x = np.array([1e3, 2e3, 4e3, 8e3, 16e3])
    fit = fit_exponent(x, np.tile(x ** -0.6, (4, 1)) * (1 + 0.01 * np.arange(4))[:, None])
    drifting = {"settled": False, "text": "drifting (synthetic)", "local_slopes": [-0.6] * 4}
    settled = {"settled": True, "text": "settled (synthetic)", "local_slopes": [-0.6] * 4}
    entry = {"eps_vs_floats": fit, "eps_vs_floats_upper_half": None, "t_per_cost": 1.0,
             "first_term_dominates": True, "share_y": [0.1, 0.2]}
    values = {"floats": {"d=40, d_g=1": {**entry, "regime": drifting},
                         "d=2, d_g=16": {**entry, "regime": settled}},
              "ledger_mismatches": [], "max_width": 0.4, "K0": 8}
    seen = []
    real = KH._cost_part

    def spy(*a, **kw):
        seen.append(kw.get("regime"))
        return real(*a, **kw)
    monkeypatch.setattr(KH, "_cost_part", spy)
    from fedcomp import checks
    r = KH.judge_rem45(checks.get("khanduri.rem4.5").predicted, Measurement(values=values))
    assert seen == [drifting, settled]
    first = r.measured["parts"][0]
    assert first["verdict"] != "pass" and "drifting (synthetic)" in first["reason"]


def test_a_fits_interval_at_a_familys_level_is_the_same_union_of_wider_intervals():
    """ExponentFit.family_interval(m): at m = 1 the fit's own (low, high); at m > 1 the union of
    the bootstrap's percentile interval at 1 - 0.05/m (computed here from the bootstrap slopes
    themselves) and the regression's t interval at that level; wider as m grows; kept through
    to_dict / from_dict; the regression's alone for a deterministic fit."""
    from scipy import stats
    from fedcomp.rates.fit import FAMILY_MAX, fit_deterministic
    rng = np.random.default_rng(3)
    x = np.array([64.0, 128, 256, 512, 1024])
    vals = x[None, :] ** -0.5 * np.exp(rng.normal(0, 0.2, (6, x.size)))
    fit, boot = fit_exponent(x, vals, return_boot=True)
    assert fit.family_interval(1) == (fit.low, fit.high)
    for m in (2, 5, FAMILY_MAX):
        q = 0.025 / m
        b_lo, b_hi = np.quantile(boot[:, 1], [q, 1 - q])
        tq = stats.t.ppf(1 - q, fit.n_points - 2)
        lo, hi = fit.family_interval(m)
        assert lo == pytest.approx(min(b_lo, fit.slope - tq * fit.stderr), abs=1e-12)
        assert hi == pytest.approx(max(b_hi, fit.slope + tq * fit.stderr), abs=1e-12)
    ivs = [fit.family_interval(m) for m in (1, 2, 4, 8)]
    assert all(a[0] >= b[0] and a[1] <= b[1] for a, b in zip(ivs, ivs[1:]))
    assert ivs[-1][1] - ivs[-1][0] > ivs[0][1] - ivs[0][0]
    assert ExponentFit.from_dict(fit.to_dict()).family_interval(4) == fit.family_interval(4)
    assert fit.family_interval(FAMILY_MAX + 1) == (-math.inf, math.inf)
    with pytest.raises(ValueError, match="family"):
        fit.family_interval(0)
    det = fit_deterministic(x, 3 * x ** -0.5 * (1 + 0.01 * np.sin(x)))
    tq = stats.t.ppf(1 - 0.025 / 3, det.n_points - 2)
    assert det.family_interval(3) == pytest.approx((det.slope - tq * det.stderr,
                                                    det.slope + tq * det.stderr))


def test_a_part_refutes_its_claim_only_at_the_claims_level():
    """A claim of m parts fails when one part does, so a part's fail must hold at
    1 - 0.05/m: an interval above the bound at 95 % but not at the family's level is
    inconclusive, one above it at both fails; an exponent claimed exactly likewise; a pass is
    judged at 95 % (every part must pass)."""
    from fedcomp.rates.verdict import exponent_verdict
    rng = np.random.default_rng(5)
    x = np.array([64.0, 128, 256, 512, 1024, 2048])
    vals = x[None, :] ** -0.45 * np.exp(rng.normal(0, 0.02, (5, x.size)))
    fit = fit_exponent(x, vals)
    lo4, hi4 = fit.family_interval(4)
    assert lo4 < fit.low and hi4 > fit.high
    # a bound between the family's lower end and the 95 % one: refuted by the part alone only
    between = (lo4 + fit.low) / 2
    assert upper_bound_verdict(fit, between).verdict == "fail"
    v = upper_bound_verdict(fit, between, family=4)
    assert v.verdict == "inconclusive" and "1 - 0.05/4 over the claim's 4 parts" in v.reason
    v = upper_bound_verdict(fit, lo4 - 0.05, family=4)
    assert v.verdict == "fail" and "it still does" in v.reason
    assert exponent_verdict(fit, between).verdict == "fail"
    assert exponent_verdict(fit, between, family=4).verdict == "inconclusive"
    assert exponent_verdict(fit, lo4 - 0.05, family=4).verdict == "fail"
    assert upper_bound_verdict(fit, -0.45, family=4).verdict == "pass"
    assert upper_bound_verdict(fit, -0.45).verdict == "pass"
    with pytest.raises(ValueError, match="family"):
        upper_bound_verdict(fit, -0.5, family=0)


def test_paired_rules_refute_only_at_the_familys_level():
    """Non-inferiority and equivalence on values paired by seed: a drop (or a difference
    outside the margin) shown at 95 % but not at 1 - 0.05/family is inconclusive; the pass is
    unchanged by the family."""
    from fedcomp.rates.verdict import paired_equivalence_verdict, paired_not_below_verdict
    rng = np.random.default_rng(2)
    b = rng.normal(0.8, 0.01, 6)
    a = b - 0.03 + rng.normal(0, 0.012, 6)      # drops by about 0.03 against a margin of 0.01
    one = paired_not_below_verdict("a vs b", a, b, margin=0.01)
    assert one.verdict == "fail"
    many = paired_not_below_verdict("a vs b", a, b, margin=0.01, family=400)
    assert many.verdict == "inconclusive" and "1 - 0.05/400" in many.reason
    assert paired_equivalence_verdict("a vs b", a, b, margin=0.01).verdict == "fail"
    assert paired_equivalence_verdict("a vs b", a, b, margin=0.01,
                                      family=400).verdict == "inconclusive"
    same = b + rng.normal(0, 1e-4, 6)
    assert paired_not_below_verdict("x", same, b, margin=0.01, family=9).verdict == "pass"
    assert paired_equivalence_verdict("x", same, b, margin=0.01, family=9).verdict == "pass"
    with pytest.raises(ValueError, match="family"):
        paired_not_below_verdict("x", a, b, margin=0.01, family=0)


def test_the_upper_half_guards_a_pass_at_95_percent_whatever_the_family():
    """The grid's upper half only guards the whole grid's verdict: an upper half above the bound
    at 95 % makes a whole-grid pass inconclusive, whatever the claim's family (a guard judged at
    the family's level would let more passes through: review 5, item 1)."""
    def fit(slope, low, high, fam_low, fam_high):
        return ExponentFit(slope=slope, intercept=0.0, low=low, high=high, boot_low=low,
                           boot_high=high, reg_low=low, reg_high=high, stderr=0.0, r2=0.99,
                           n_points=5, n_seeds=8, x=[], y_mean=[], y_low=[], y_high=[],
                           boot_family=[[low, high]] + [[fam_low, fam_high]] * 31)
    whole = fit(-0.52, -0.56, -0.48, -0.60, -0.44)
    tail = fit(-0.40, -0.48, -0.32, -0.52, -0.28)
    for family in (1, 4):
        v = upper_bound_verdict(whole, -0.5, floor=-0.5, tail=tail, family=family)
        assert v.verdict == "inconclusive" and "disagree" in v.reason, (family, v.reason)


def test_no_common_level_names_what_decides_it():
    """Why Corollary 5.3's speed-up found no level (review 5, item 3): a K without any finite
    mean decides it and is named; otherwise the K whose lowest mean lies above another K's
    highest, with both numbers."""
    from fedcomp.rates.analysis import no_common_level
    rows = []
    for s in range(3):
        for K, level in ((2, 1.0), (4, 0.1), (8, np.nan)):
            for T in (64, 128, 256):
                rows.append({"seed": s, "K": K, "T": T, "avg_grad_sq": level * 64 / T})
    df = pd.DataFrame(rows)
    assert not math.isfinite(target_eps(df))
    text = no_common_level(df)
    assert "K = 8 has no finite mean" in text, text
    apart = df[df["K"] != 8]
    assert not math.isfinite(target_eps(apart))
    text = no_common_level(apart)
    assert "K = 2 never falls below 0.25" in text and "K = 4 never rises above 0.1" in text, text
