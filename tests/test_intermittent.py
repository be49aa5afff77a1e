"""The intermittent-sharing law (fedcomp.experiments.intermittent)."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fedcomp.experiments import intermittent as M


def test_drift_factor_hand_values():
    assert M.drift_factor(0.3, 1) == 0.0
    assert M.drift_factor(1.0, 5) == pytest.approx(0.8)          # FedAvg Case II: 1 - 1/I
    assert M.drift_factor(0.2, 2) == pytest.approx(0.1)          # I = 2: exactly beta / 2
    # I = 3: (0 + beta + (1 - (1 - beta)^2)) / 3
    b = 0.1
    assert M.drift_factor(b, 3) == pytest.approx((b + 1 - (1 - b) ** 2) / 3)
    with pytest.raises(ValueError, match="beta"):
        M.drift_factor(0.0, 3)


@settings(max_examples=30, deadline=None)
@given(beta=st.floats(1e-4, 1.0), I=st.integers(1, 50))
def test_drift_factor_bounds_and_monotone(beta, I):
    c = M.drift_factor(beta, I)
    assert 0.0 <= c <= 1.0 - 1.0 / I + 1e-12
    assert c <= beta * (I - 1) / 2 + 1e-12
    assert M.drift_factor(beta, I + 1) >= c - 1e-12


def test_controlled_problem_keeps_phi():
    a, b = M.controlled_problem(0.1), M.controlled_problem(1.0)
    np.testing.assert_allclose(a.Abar, b.Abar, atol=1e-14)
    np.testing.assert_allclose(a.bbar, b.bbar, atol=1e-14)
    x = np.array([0.3, -0.2, 0.5, 1.0])
    assert a.value(x) == pytest.approx(b.value(x), rel=1e-12)
    # D(x) scales with h^2
    np.testing.assert_allclose(M.heterogeneity_drift(b, x), 100 * M.heterogeneity_drift(a, x),
                               rtol=1e-10)


def test_closed_form_with_c_zero_is_the_minimiser():
    p = M.controlled_problem(0.3)
    gap, x, c = M.predicted_limit(p, 0.5, 1)
    assert c == 0.0 and gap < 1e-25


def test_ds_feddro_limit_matches_closed_form():
    p = M.controlled_problem(0.3)
    r = M.richardson(p, 3, 0.04, 0.01)
    assert r["converged"]
    assert r["gap0"] / r["predicted"] == pytest.approx(1.0, abs=M.CLOSED_FORM_TOLERANCE)
    # first order in eta: the raw gap is above the limit by kappa * eta
    assert r["gap_eta"] > r["gap0"] and 0 < r["kappa"] < 5


def test_fedavg_case2_is_beta_one():
    p = M.controlled_problem(0.3)
    r = M.richardson(p, 3, 1.0, 0.01, algorithm="fedavg-case2")
    assert r["c"] == pytest.approx(2 / 3)
    assert r["gap0"] / r["predicted"] == pytest.approx(1.0, abs=M.CLOSED_FORM_TOLERANCE)


def test_fit_law_recovers_exponents():
    rng = np.random.default_rng(0)
    rows = []
    for b in (0.01, 0.02, 0.05):
        for I in (2, 3, 5):
            for h in (0.1, 0.2, 0.4):
                for e in (0.01, 0.03):
                    g = 0.7 * b ** 2 * (I - 1) ** 2 * h ** 4 * np.exp(0.01 * rng.standard_normal())
                    rows.append(dict(beta=b, I=I, heterogeneity=h, eta=e, gap=g))
    fit = M.fit_law(pd.DataFrame(rows))
    for k, v in M.PREDICTED_EXPONENTS.items():
        lo, hi = fit["intervals"][k]
        assert abs(fit["exponents"][k] - v) < 0.03
        assert 0 < hi - lo < 0.05


def test_measure_rejects_bad_input():
    p = M.controlled_problem(0.3)
    with pytest.raises(ValueError, match="algorithm"):
        M.measure(p, 2, 0.1, 0.01, algorithm="mbsgd")
    with pytest.raises(ValueError, match="beta"):
        M.measure(p, 2, 1.5, 0.01)
    with pytest.raises(ValueError, match="momentum"):
        M.measure(p, 2, 1.0, 0.01, algorithm="local-scgdm")          # momentum required
    with pytest.raises(ValueError, match="momentum"):
        M.measure(p, 2, 0.1, 0.01, momentum=0.1)                     # only with local-scgdm
    with pytest.raises(ValueError, match="etas"):
        M.remedies(etas=(0.01, 0.02))


def test_limit_at_grows_with_the_drift_weight():
    p = M.controlled_problem(0.3)
    # c = 0 is grad Phi = 0; the gap grows with c on this instance up to c = 1
    gaps = [M.limit_at(p, c)[0] for c in (0.0, 0.25, 0.5, 1.0)]
    assert gaps[0] < 1e-25 and all(a < b for a, b in zip(gaps, gaps[1:]))


def test_scgdm_drift_factor_by_hand():
    # directions after j = 1..I updates: I = 2 gives (beta + 1 - (1 - beta)^2) / 2
    b = 0.1
    assert M.scgdm_drift_factor(b, 2) == pytest.approx((b + 1 - (1 - b) ** 2) / 2)
    assert M.scgdm_drift_factor(1.0, 7) == 1.0           # fresh inner values: c = 1
    # one more update than DS-FedDRO's c(beta, I): (I + 1) c(beta, I + 1) / I
    assert M.scgdm_drift_factor(b, 5) == pytest.approx(6 * M.drift_factor(b, 6) / 5)


def test_local_scgdm_limits_follow_its_drift_factor():
    """Local-SCGDM updates h before each direction and averages after the round's last update,
    so its j-th direction uses h after j updates: c'(beta, I) (scgdm_drift_factor), 1 for inner
    weight 1 (every direction with the client's own inner value, not FedAvg Case II's
    1 - 1/I); a fixed gradient momentum drops out of the limit (the mean of an exponential
    moving average over a periodic sequence is the sequence's mean)."""
    p = M.controlled_problem(1.0)
    one, case2 = M.limit_at(p, 1.0)[0], M.limit_at(p, 1 - 1 / 3)[0]
    assert one > 1.2 * case2
    for beta, mom in ((1.0, 0.1), (1.0, 0.5), (0.2, 0.1)):
        g = [M.measure(p, 3, beta, e, algorithm="local-scgdm", momentum=mom)["gap"]
             for e in (0.01, 0.02)]
        g0 = 2 * g[0] - g[1]                      # first-order extrapolation to eta = 0
        assert g0 == pytest.approx(M.limit_at(p, M.scgdm_drift_factor(beta, 3))[0], rel=3e-3)


def test_ledger_of_the_tied_momentum_is_case2s():
    # DS-FedDRO with server step sizes 1 uploads exactly what FedAvg Case II does
    p = M.controlled_problem(1.0)
    a = M.measure(p, 5, 1.0, 0.01, algorithm="fedavg-case2", iterations=50)
    b = M.measure(p, 5, 0.01, 0.01, algorithm="ds-feddro", iterations=50)
    assert a["floats"] == b["floats"] and a["rounds"] == b["rounds"] == 10
    # summed over the K = 8 clients: x every round, y every round and once at the start
    assert a["floats"] == {"x": 10 * 8 * 4, "y": 11 * 8 * 4}


def test_remedies_instance_meets_assumption_3_2():
    # f is Huber (Lipschitz) and the runs' limits are those of 0.5 ||y||^2 (inside the ball)
    p = M.controlled_problem(1.0, huber_radius=M.REMEDIES_HUBER_RADIUS)
    q = M.controlled_problem(1.0)
    assert p.huber_radius == M.REMEDIES_HUBER_RADIUS and q.huber_radius is None
    a = M.measure(p, 5, 0.1, 0.01)
    b = M.measure(q, 5, 0.1, 0.01)
    assert a["gap"] == pytest.approx(b["gap"], rel=1e-12)
