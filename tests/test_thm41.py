"""Theorem 4.1 reproduction: closed forms, sympy limits, CLI contract."""
import json
import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

import fedcomp
from fedcomp.counterexamples import affine, thm41


@pytest.mark.parametrize("I", [1, 2, 5])
def test_sympy_closed_form_equals_numeric_round_map(I):
    eta_s, n, exprs = thm41.symbolic_limits("scalar")
    A, b = thm41._INSTANCES["scalar"]
    for alg, expr in exprs.items():
        for eta in (0.1, 0.02):
            if alg == "fedavg-case2" and I == 1:
                continue  # removable singularity of the general formula; see below
            x_num, _ = affine.limit_xbar(A, b, eta, I, alg)
            x_sym = float(expr.subs({eta_s: eta, n: I}))
            assert x_sym == pytest.approx(x_num[0], abs=1e-12)
    # with I substituted first, Case II at I = 1 is exact gradient descent: limit x* = 2/3
    eta_s, _, exprs1 = thm41.symbolic_limits("scalar", local_steps=1)
    assert sp.simplify(exprs1["fedavg-case2"] - sp.Rational(2, 3)) == 0


def test_case_limits_bounded_away_as_eta_goes_to_zero():
    lims = thm41.eta_to_zero_limits("scalar", (1, 2, 5))
    # Case I tends to argmin mean_k f(g_k) = -sum a_k b_k / sum a_k^2 = 1 for every I
    for I in (1, 2, 5):
        assert lims[("fedavg-case1", I)][0] == 1
        assert lims[("fedavg-case1", I)][1] == pytest.approx(0.75)
    assert lims[("fedavg-case2", 1)][1] == pytest.approx(0.0, abs=1e-15)
    assert lims[("fedavg-case2", 2)][0] == sp.Rational(16, 19)
    assert lims[("fedavg-case2", 5)][1] > 0.5


def test_eta_to_zero_points_match_sympy_on_the_linear_instance():
    p = thm41.instance("scalar")
    pts = thm41.eta_to_zero_points(p, 2)
    assert pts["fedavg-case1"][0] == pytest.approx(1.0, abs=1e-8)
    assert pts["fedavg-case2"][0] == pytest.approx(16 / 19, abs=1e-8)


def test_modified_and_feddro_exact_on_scalar_instance():
    p = thm41.instance("scalar")
    for alg, kw in (("fedavg-modified", {}), ("feddro", {"beta": 0.5})):
        r = fedcomp.simulate(p, alg, iterations=4000, eta=0.05, local_steps=5,
                             stochastic=False, record_every=4000, **kw)
        assert r.grad_norm_sq[-1] < 1e-12
        assert r.x_bar[0] == pytest.approx(2 / 3, abs=1e-12)


def test_smoke_profile_is_not_a_verdict(tmp_path):
    rep = thm41.reproduce("smoke", tmp_path, make_figures=False)
    assert rep.verdict == thm41.SMOKE_VERDICT


def test_cli_json_contract(tmp_path):
    out = subprocess.run([sys.executable, "-m", "fedcomp.cli", "counterexample", "thm4.1",
                          "--json", "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    obj = json.loads(out.stdout)
    assert obj["claim"] == "khanduri.thm4.1"
    assert obj["verdict"] in ("reproduced", "not-reproduced")
    assert obj["rows"]
    for row in obj["rows"]:
        assert isinstance(row["algorithm"], str) and isinstance(row["local_steps"], int)
        assert isinstance(row["eta"], float)
        assert row["predicted_limit"] is None or isinstance(row["predicted_limit"], float)
        if row["predicted_limit"] is not None:  # closed-form rows: simulation agrees
            assert row["abs_error"] <= 1e-8
    assert len(list(tmp_path.glob("*.png"))) == 3


@pytest.mark.slow
def test_quick_profile_reproduces(tmp_path):
    rep = thm41.reproduce("quick", tmp_path)
    failed = [c for c in rep.checks if not c["passed"] and not c.get("informational")]
    assert rep.verdict == "reproduced", failed
