"""fedcomp.theory.schedules: the theorems' step sizes from the constants."""
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import fedcomp
from fedcomp.theory import schedules as S

C = {"B_g": 1.0, "L_f": 0.5, "L_phi_bound": 1.0}


def test_feddro_theorem43_by_hand():
    kw = S.schedule("feddro", C, T=10_000, K=4)
    assert kw["eta"] == pytest.approx(0.02)
    assert kw["beta"] == pytest.approx(4 * 1.0 * 0.25 * 0.02)
    assert kw["local_steps"] == round(10_000 ** 0.25 / 4 ** 0.75)
    s = S.prescribe("feddro", C, T=10_000, K=4, c_eta=2.0, c_I=3.0)
    assert s.kwargs["eta"] == pytest.approx(0.04)
    assert s.kwargs["local_steps"] == round(3 * 10 / 4 ** 0.75)
    assert s.valid and "eta" in str(s)


def test_feddro_beta_above_one_is_reported_not_clipped():
    big = {"B_g": 2.0, "L_f": 1.0, "L_phi_bound": 5.0}
    with pytest.raises(S.ScheduleError, match=r"beta = 4 B_g\^4 L_f\^2 eta = .* > 1"):
        S.schedule("feddro", big, T=1000, K=4)
    s = S.prescribe("feddro", big, T=1000, K=4)
    assert not s.valid
    assert s.kwargs["beta"] == pytest.approx(64 * math.sqrt(4 / 1000))
    kw = S.schedule("feddro", big, T=1000, K=4, strict=False)
    assert kw["beta"] > 1
    Tmin = S.feddro_min_iterations(big, K=4)
    assert Tmin == math.ceil((4 * 16) ** 2 * 4)
    assert S.prescribe("feddro", big, T=Tmin, K=4).valid
    assert not S.prescribe("feddro", big, T=Tmin - 1, K=4).valid


@given(st.floats(0.1, 3.0), st.floats(0.1, 3.0), st.integers(1, 64), st.floats(0.1, 4.0))
def test_feddro_min_iterations_is_the_beta_threshold(Bg, Lf, K, c_eta):
    c = {"B_g": Bg, "L_f": Lf, "L_phi_bound": 1.0}
    T = S.feddro_min_iterations(c, K, c_eta)
    assert S.prescribe("feddro", c, T, K, c_eta=c_eta).kwargs["beta"] <= 1.0 + 1e-12
    if T > 1:
        assert S.prescribe("feddro", c, T - 1, K, c_eta=c_eta).kwargs["beta"] > 1.0 - 1e-12


def test_ds_feddro_theorem52_by_hand():
    s = S.prescribe("ds-feddro", C, T=10_000, K=4, c_beta=0.5, c_y=2.0)
    I = round(math.sqrt(10_000 / 4))
    assert s.kwargs["local_steps"] == I
    assert s.kwargs["eta"] == pytest.approx(1 / math.sqrt(I * 10_000))
    assert s.kwargs["beta"] == pytest.approx(0.5 * s.kwargs["eta"])
    assert s.kwargs["server_lr_x"] == pytest.approx(math.sqrt(4 / 10_000))
    assert s.kwargs["server_lr_y"] == pytest.approx(2 * s.kwargs["server_lr_x"])
    # the total effective step shrinks like T^(-1/4)
    tot = [S.prescribe("ds-feddro", C, T=T, K=4).findings[0] for T in (10**4, 10**6)]
    v = [float(t.split("= ")[1].split(" ")[0]) for t in tot]
    assert v[1] < v[0]


def test_schedules_run_in_simulate():
    p = fedcomp.problems.LinearQuadratic.random(4, 3, 2, heterogeneity=0.5, seed=1)
    c = fedcomp.theory.constants(p, -2.0, 2.0)
    for alg in ("feddro", "ds-feddro", "fedavg-modified"):
        T = max(400, S.feddro_min_iterations(c, 4, 0.05)) if alg == "feddro" else 400
        kw = S.schedule(alg, c, T=T, K=4, c_eta=0.05)
        res = fedcomp.simulate(p, alg, iterations=T, stochastic=False, record_every=T, **kw)
        assert res.diverged_at is None
        assert res.grad_norm_sq[-1] < res.grad_norm_sq[0]


def test_schedule_fn_binds_constants():
    fn = S.schedule_fn("feddro", C)
    assert fn(10_000, 4) == S.schedule("feddro", C, 10_000, 4)
    assert not hasattr(S, "feddro")  # rates' theory_schedule must not take it for a (T, K) fn


def test_localscgdam_conditions():
    c = {"C_g": 1.0, "C_f": 2.0, "L_f": 1.0, "L_g": 0.1, "mu": 0.2}
    s = S.prescribe("localscgdam", c, T=10_000, K=4)
    kw = s.kwargs
    assert kw["gamma_y"] == pytest.approx(min(1 / 6, 3 * 0.2 / 400, 3 / (16 * 0.2)))
    assert kw["gamma_y"] * 0.2 ** 2 / 20 >= kw["gamma_x"]
    L_phi = 2 * 1 * 1 / 0.2 + 2 * 0.1
    assert kw["eta"] <= 1 / (2 * kw["gamma_x"] * L_phi) + 1e-15
    assert kw["eta"] <= 1 / (10 * kw["local_steps"] ** 2 * kw["gamma_y"]) + 1e-15
    assert s.valid


def test_bad_input():
    with pytest.raises(ValueError, match="no theorem schedule"):
        S.schedule("nope", C, 10, 1)
    with pytest.raises(ValueError, match="T must be"):
        S.schedule("feddro", C, 0, 1)
    with pytest.raises(ValueError, match="must provide 'B_g'"):
        S.schedule("feddro", {"L_f": 1.0}, 10, 1)
    with pytest.raises(ValueError, match="unknown free constant"):
        S.schedule("feddro", C, 10, 1, c_x=1.0)
    with pytest.raises(ValueError, match="c_eta"):
        S.schedule("feddro", C, 10, 1, c_eta=-1.0)


def test_measured_schedules_follow_the_theorems_orders():
    """fedcomp.rates.schedules (the measurements' numbers) is a constant multiple of
    fedcomp.theory.schedules.ORDERS (the derivations' orders): one home for the orders."""
    import math

    from fedcomp.rates import schedules as RS
    from fedcomp.theory.schedules import ORDERS, order
    names = {"eta": "eta", "I": "local_steps", "gamma_x": "server_lr_x"}
    for alg, orders in ORDERS.items():
        ratios = {}
        for T, K in ((2 ** 20, 2), (2 ** 24, 2), (2 ** 30, 32)):  # large T: rounding of I small
            p = RS.SCHEDULES[alg](T, K)
            subs = {"T": T, "K": K, "I": p["local_steps"]}
            for name, key in names.items():
                if name not in orders:
                    continue
                expr = order(alg, name)
                value = float(expr.subs({s: subs[s.name] for s in expr.free_symbols}))
                ratios.setdefault(name, []).append(p[key] / value)
        for name, r in ratios.items():
            assert max(r) / min(r) < 1.02, (alg, name, r)
            assert all(math.isfinite(x) and x > 0 for x in r)
