"""Complexity table (fedcomp.theory.complexity): derivations in the convention E||grad||^2 <= eps."""
import json

import pytest
import sympy as sp

from fedcomp.theory import complexity as C

eps, K, T = C.eps, C.K, C.T


def _eq(a, b):
    return sp.simplify(sp.sympify(a) - sp.sympify(b)) == 0


def test_feddro_by_hand():
    # eta = sqrt(K/T), rate 1/sqrt(KT) -> T = eps^-2 / K per client; I = T^(1/4)/K^(3/4)
    # -> rounds T/I = (KT)^(3/4) = eps^(-3/2)
    t_hand = sp.solve(sp.Eq(1 / sp.sqrt(K * T), eps), T)[0]
    assert _eq(t_hand, 1 / (K * eps ** 2))
    dv = C.derive("feddro")
    assert _eq(dv.iterations, t_hand)
    assert _eq(dv.rounds, eps ** sp.Rational(-3, 2))
    assert _eq(dv.per_client_samples, 2 / (K * eps ** 2))   # (8) samples g_k at two points
    assert _eq(dv.floats_per_client, eps ** sp.Rational(-3, 2) * C.d + C.dg / (K * eps ** 2))
    assert dv.consistent
    assert any("K <= 1/sqrt(epsilon)" in r for r in dv.regimes)


def test_fcsg_conversion():
    # q = (T/N^3)^(1/4), rate (NT)^(-1/2), m = eps'^-2 with eps'^2 = eps
    dv = C.derive("fcsg")
    assert _eq(dv.rounds, eps ** sp.Rational(-3, 2))          # (NT)^(3/4) = eps'^-3
    assert _eq(dv.per_client_samples, 1 / (K * eps ** 3))      # m T = N^-1 eps'^-6
    assert _eq(dv.batch, 1 / eps)
    assert dv.consistent


def test_acc_fcsg_m_and_localscgdam():
    acc = C.derive("acc-fcsg-m")
    assert _eq(acc.rounds, 1 / eps) and _eq(acc.per_client_samples, eps ** sp.Rational(-5, 2) / K)
    loc = C.derive("localscgdam")
    assert _eq(loc.rounds, eps ** sp.Rational(-3, 2)) and _eq(loc.per_client_samples, 1 / (K * eps ** 2))
    assert loc.agreement == {"per_client_samples": True, "rounds": True, "eta": True, "I": True,
                             "rounds_in_T": True}


def test_ds_feddro_regime():
    dv = C.derive("ds-feddro")
    assert _eq(dv.rounds, 1 / eps)
    assert any("K <= 1/epsilon" in r for r in dv.regimes)


def test_comfedl_no_speedup():
    dv = C.derive("comfedl")
    assert not dv.per_client_samples.has(K)
    assert _eq(dv.per_client_samples, 2 / eps ** 4) and _eq(dv.rounds, eps ** -2)
    assert _eq(dv.batch, eps ** -2)


def test_same_order_and_unknown_scheme():
    assert C.same_order(3 / eps, 1 / eps)
    assert not C.same_order(1 / eps, 1 / (K * eps))
    with pytest.raises(ValueError, match="unknown scheme"):
        C.derive("nope")


def test_table1():
    rows = C.table1_comparison()
    derivable = [r for r in rows if r["derivable"]]
    assert {r["algorithm"] for r in derivable} == {"ComFedL", "FCSG", "Acc-FCSG-M", "FedDRO",
                                                   "DS-FedDRO"}
    assert all(r["consistent"] for r in derivable)
    assert len(rows) == 12


def test_findings_and_constants():
    f = {x["id"]: x for x in C.findings()}
    assert f["zhang.sec1"]["consistent"] is False
    assert f["khanduri.sec2.related"]["consistent"] is False
    cc = C.corollary_constants()
    assert all(v["follows"] for v in cc["cor4.8"].values())
    assert all(v["follows"] for v in cc["cor4.5"].values())
    assert cc["cor4.5"]["8 beta L^2/N"]["derived"] == "20/3"
    assert [k for k, v in cc["cor4.2"].items() if not v["follows"]] == ["2 alpha S_F L^2/N"]


def test_dataframe_and_cli(capsys):
    df = C.complexity_table()
    assert len(df) == len(C.SCHEMES) and df["consistent with paper"].all()
    from fedcomp.cli import main
    assert main(["theory", "complexity", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["convention"] == "E||grad Phi||^2 <= eps" and len(out["rows"]) == len(C.SCHEMES)


