"""The checks layer: every claim resolves, every check judges the prediction it is handed and
fails wrong ones (the mutation suite), the dependency rule, --predict, and the verdict rules."""
import json
import math

import pytest

from fedcomp import checks
from fedcomp.checks import Check, CheckResult, Claim, Measurement, all_claims
from fedcomp.checks.predict import conform, flipped, parse_user_prediction, scaled, steeper
from fedcomp.cli import main
from fedcomp.rates.fit import ExponentFit
from fedcomp.rates.verdict import (RATE_MARGIN, bound_constant_verdict, equal_verdict,
                                   exponent_verdict, ordering_verdict, upper_bound_verdict)

CLAIMS = all_claims()
MIGRATED = [c for c in CLAIMS if c.check is not None]


def test_registry_resolves():
    ids = [c.id for c in CLAIMS]
    assert len(ids) == len(set(ids))
    for c in CLAIMS:
        assert c.predicted is not None
        if c.check is None:
            assert len(c.not_checked) >= 20, c.id
        else:
            assert callable(c.check.measure) and callable(c.check.judge), c.id
        for d in c.depends_on:
            assert d in ids, (c.id, d)
        json.dumps(c.to_dict())


def test_claims_json_has_reading_and_depends_on(capsys):
    assert main(["claims", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["claims"]
    assert {c["id"] for c in out} == {c.id for c in CLAIMS}
    for c in out:
        assert isinstance(c["reading"], str) and c["reading"]
        assert isinstance(c["depends_on"], list)


@pytest.fixture
def measured(measure_quick):
    return measure_quick


class _ReadKeys(dict):
    """A prediction that records which of its keys, at any depth, a judge reads (as paths of
    keys; iterating a level reads every key of it). Nested dicts are wrapped alike."""

    def __init__(self, d, read=None, path=()):
        self.read = set() if read is None else read
        self.path = path
        super().__init__({k: _ReadKeys(v, self.read, path + (k,)) if type(v) is dict else v
                          for k, v in d.items()})

    def _mark(self, keys):
        self.read.update(self.path + (k,) for k in keys)

    def __getitem__(self, k):
        self._mark([k])
        return super().__getitem__(k)

    def get(self, k, default=None):
        self._mark([k])
        return super().get(k, default)

    def __iter__(self):
        self._mark(super().keys())
        return super().__iter__()

    def items(self):
        self._mark(super().keys())
        return super().items()

    def values(self):
        self._mark(super().keys())
        return super().values()


def _leaf_paths(d, path=()):
    for k, v in d.items():
        if type(v) is dict and v:
            yield from _leaf_paths(v, path + (k,))
        else:
            yield path + (k,)


@pytest.mark.parametrize("cid", [c.id for c in MIGRATED])
def test_check_judges_its_prediction_and_fails_wrong_ones(cid, measured):
    c = checks.get(cid)
    m = measured(c)
    res = c.check.judge(c.predicted, m)
    assert res.verdict in ("pass", "fail", "inconclusive") and res.detail
    assert res.predicted == c.predicted
    assert c.check.wrong is not None, f"{cid}: declare the predictions its check must fail"
    wrongs = c.check.wrong(c.predicted)
    assert wrongs, cid
    synthetic = getattr(c.check.measure, "synthetic", None)
    if synthetic is not None:
        # an experiment judged on stored runs: the stored data may resolve no pair either way,
        # so the judge must show it can fail where the data do refute the prediction (a
        # measurement where the printed ordering holds by a wide margin: it passes there, and
        # every wrong prediction fails)
        m = synthetic(c.predicted)
        assert c.check.judge(c.predicted, m).verdict == "pass", cid
    # every key of the prediction is judged (on the synthetic measurement where the stored data
    # may be absent): a key the judge never reads could be flipped by --predict without changing
    # the verdict, a part of the claim that cannot fail
    if isinstance(c.predicted, dict):
        rec = _ReadKeys(c.predicted)
        c.check.judge(rec, m)
        unread = [p for p in _leaf_paths(c.predicted) if p not in rec.read]
        assert not unread, (cid, unread)
    for w in wrongs:
        conform(c.predicted, w, cid)
        # a printed prediction that is false may be its own wrong prediction, no other
        assert w != c.predicted or res.verdict == "fail", cid
        r = c.check.judge(w, m)
        assert r.verdict == "fail", (cid, w, r.detail)


# --- dependency rule and --predict on synthetic claims ----------------------------------------

def _measure_const(profile, out_dir):
    return Measurement(values={"slope": -0.5, "low": -0.55, "high": -0.45})


def _judge_slope(predicted, m):
    v = m.values
    verdict = "fail" if v["low"] > predicted["T"] else "pass"
    return CheckResult(verdict, predicted, v, f"slope {v['slope']} vs {predicted['T']}")


def _claim(cid, pred, deps=()):
    return Claim(id=cid, paper="fedcomp", location="test", statement="test claim", kind="rate",
                 predicted=pred, depends_on=deps,
                 check=Check(_measure_const, _judge_slope, steeper(("T",))))


def test_a_claim_cannot_pass_while_one_it_depends_on_fails(extra_claims, tmp_path, capsys):
    extra_claims(_claim("fedcomp.test-theorem", {"T": -1.0}),
                 _claim("fedcomp.test-corollary", {"T": -0.5}, ("fedcomp.test-theorem",)))
    assert main(["verify", "--claim", "fedcomp.test-corollary", "--json",
                 "--out", str(tmp_path)]) == 0
    out = {c["id"]: c for c in json.loads(capsys.readouterr().out)["claims"]}
    assert out["fedcomp.test-theorem"]["verdict"] == "fail"  # run as a dependency
    cor = out["fedcomp.test-corollary"]
    assert cor["verdict"] == "inconclusive"
    assert "fedcomp.test-theorem" in cor["detail"] and cor["depends_on"] == [
        "fedcomp.test-theorem"]


def test_the_dependency_rule_is_transitive(extra_claims, tmp_path, capsys):
    """A pass resting on a failure two steps up (through a claim that was itself demoted, or is
    inconclusive, because of it) is demoted too, naming the chain; a claim resting on nothing
    that fails keeps its pass."""
    extra_claims(_claim("fedcomp.test-theorem", {"T": -1.0}),
                 _claim("fedcomp.test-corollary", {"T": -0.5}, ("fedcomp.test-theorem",)),
                 _claim("fedcomp.test-table", {"T": -0.5}, ("fedcomp.test-corollary",)),
                 _claim("fedcomp.test-sound", {"T": -0.5}),
                 _claim("fedcomp.test-on-sound", {"T": -0.5}, ("fedcomp.test-sound",)))
    assert main(["verify", "--claim", "fedcomp.test-table", "--claim", "fedcomp.test-on-sound",
                 "--json", "--out", str(tmp_path)]) == 0
    out = {c["id"]: c for c in json.loads(capsys.readouterr().out)["claims"]}
    assert out["fedcomp.test-theorem"]["verdict"] == "fail"
    assert out["fedcomp.test-corollary"]["verdict"] == "inconclusive"
    assert out["fedcomp.test-corollary"]["rests_on_failed"] == ["fedcomp.test-theorem"]
    table = out["fedcomp.test-table"]
    assert table["verdict"] == "inconclusive"
    assert table["rests_on_failed"] == ["fedcomp.test-theorem"]
    assert ("depends on fedcomp.test-corollary (inconclusive), which rests on "
            "fedcomp.test-theorem" in table["detail"])
    assert out["fedcomp.test-on-sound"]["verdict"] == "pass"
    assert out["fedcomp.test-on-sound"]["rests_on_failed"] == []


def test_a_claim_containing_a_refuted_one_fails_through_it(extra_claims, tmp_path, capsys):
    """A claim whose statement contains a failing claim's (Claim.entails: a table row restating a
    corollary) fails with it, naming it and its own check's verdict; transitively through a
    claim that fails that way; a mere dependency still only demotes a pass."""
    def with_entails(cid, deps, entails):
        return Claim(id=cid, paper="fedcomp", location="test", statement="test claim",
                     kind="rate", predicted={"T": -0.5}, depends_on=deps, entails=entails,
                     check=Check(_measure_const, _judge_slope, steeper(("T",))))
    extra_claims(_claim("fedcomp.test-theorem", {"T": -1.0}),
                 with_entails("fedcomp.test-row", ("fedcomp.test-theorem",),
                              ("fedcomp.test-theorem",)),
                 with_entails("fedcomp.test-abstract", ("fedcomp.test-row",),
                              ("fedcomp.test-row",)),
                 _claim("fedcomp.test-derived", {"T": -0.5}, ("fedcomp.test-theorem",)))
    assert main(["verify", "--claim", "fedcomp.test-abstract", "--claim",
                 "fedcomp.test-derived", "--json", "--out", str(tmp_path)]) == 0
    out = {c["id"]: c for c in json.loads(capsys.readouterr().out)["claims"]}
    row = out["fedcomp.test-row"]
    assert row["verdict"] == "fail" and row["entails"] == ["fedcomp.test-theorem"]
    assert row["detail"].startswith("fails through fedcomp.test-theorem")
    assert "own check (pass)" in row["detail"] and row["own_verdict"] == "pass"
    assert out["fedcomp.test-theorem"]["own_verdict"] == "fail"
    assert out["fedcomp.test-derived"]["own_verdict"] == "pass"
    assert out["fedcomp.test-abstract"]["verdict"] == "fail"
    assert out["fedcomp.test-derived"]["verdict"] == "inconclusive"
    with pytest.raises(ValueError, match="must be a dependency"):
        with_entails("fedcomp.test-bad", (), ("fedcomp.test-theorem",))


def _judge_parts(predicted, m):
    # two parts: "eps vs T" fails when T is predicted steeper than -1, "speed-up in K" when K is
    parts = [{"part": "eps vs T", "verdict": "fail" if predicted["T"] < -1 else "pass"},
             {"part": "speed-up in K", "verdict": "fail" if predicted["K"] < -1 else "pass"}]
    verdict = "fail" if any(p["verdict"] == "fail" for p in parts) else "pass"
    return CheckResult(verdict, predicted, {"parts": parts}, "parts judged")


def test_a_partial_statement_fails_only_through_the_parts_it_contains(extra_claims, tmp_path,
                                                                      capsys):
    """entails_parts: a sentence containing only part of another claim's statement (the
    abstract's eps orders, not the corollary's K^-1) fails through it only when one of those
    parts fails; the other failure is named, not applied (the dependency rule still demotes a
    pass resting on a failing claim)."""
    def corollary(cid, pred):
        return Claim(id=cid, paper="fedcomp", location="test", statement="corollary",
                     kind="rate", predicted=pred,
                     check=Check(_measure_const, _judge_parts, steeper(("T",), ("K",))))

    def abstract(cid, dep):
        return Claim(id=cid, paper="fedcomp", location="test", statement="abstract",
                     kind="rate", predicted={"T": -0.5}, depends_on=(dep,), entails=(dep,),
                     entails_parts=((dep, ("eps vs T",)),),
                     check=Check(_measure_const, _judge_slope, steeper(("T",))))
    extra_claims(corollary("fedcomp.test-cor-k", {"T": -0.5, "K": -2.0}),
                 corollary("fedcomp.test-cor-t", {"T": -2.0, "K": -0.5}),
                 abstract("fedcomp.test-abs-k", "fedcomp.test-cor-k"),
                 abstract("fedcomp.test-abs-t", "fedcomp.test-cor-t"))
    assert main(["verify", "--claim", "fedcomp.test-abs-k", "--claim", "fedcomp.test-abs-t",
                 "--json", "--out", str(tmp_path)]) == 0
    out = {c["id"]: c for c in json.loads(capsys.readouterr().out)["claims"]}
    assert out["fedcomp.test-cor-k"]["verdict"] == "fail"
    k = out["fedcomp.test-abs-k"]
    # not refuted; still a dependency that fails, so its pass is demoted, not kept
    assert k["verdict"] == "inconclusive"
    assert "not on the parts this statement contains" in k["detail"]
    t = out["fedcomp.test-abs-t"]
    assert t["verdict"] == "fail" and "its parts eps vs T" in t["detail"]
    assert t["entails_parts"] == {"fedcomp.test-cor-t": ["eps vs T"]}
    with pytest.raises(ValueError, match="entails_parts names claims it does not entail"):
        Claim(id="fedcomp.test-bad", paper="fedcomp", location="test", statement="x",
              kind="rate", predicted={"T": -0.5}, entails_parts=(("fedcomp.test-cor-t", ("x",)),),
              check=Check(_measure_const, _judge_slope, steeper(("T",))))


def test_a_replaced_prediction_is_not_entailed():
    from fedcomp.report import _entailed_failures
    c = Claim(id="fedcomp.test-row", paper="fedcomp", location="test", statement="x",
              kind="rate", predicted={"T": -0.5}, depends_on=("fedcomp.test-cor",),
              entails=("fedcomp.test-cor",),
              check=Check(_measure_const, _judge_slope, steeper(("T",))))
    rows = {"fedcomp.test-cor": {"verdict": "fail", "predicted_by": "user", "detail": "x"}}
    refuted, notes = _entailed_failures(c, rows)
    assert refuted == [] and "not the paper's" in notes[0]
    rows["fedcomp.test-cor"]["predicted_by"] = "paper"
    assert _entailed_failures(c, rows)[0] == [("fedcomp.test-cor", "fedcomp.test-cor")]
    # the containing claim judged on the user's prediction: no statement of the paper's is
    # contained in it
    refuted, notes = _entailed_failures(c.with_prediction({"T": -0.25}), rows)
    assert refuted == [] and "prediction is the user's" in notes[0]
    # a chain is read from the row's record, not from its text; a claim failing only through
    # its own entailment fails on every part a partial container names
    rows["fedcomp.test-cor"].update(fails_through=["fedcomp.test-root"], measured={"parts": []})
    part = Claim(id="fedcomp.test-abs", paper="fedcomp", location="test", statement="x",
                 kind="rate", predicted={"T": -0.5}, depends_on=("fedcomp.test-cor",),
                 entails=("fedcomp.test-cor",),
                 entails_parts=(("fedcomp.test-cor", ("eps vs T",)),),
                 check=Check(_measure_const, _judge_slope, steeper(("T",))))
    (d, text), = _entailed_failures(part, rows)[0]
    assert d == "fedcomp.test-cor" and text.endswith("itself failing through fedcomp.test-root")
    for bad in ("eps vs T", (), ("",)):
        with pytest.raises(ValueError, match="non-empty label fragments"):
            Claim(id="fedcomp.test-bad", paper="fedcomp", location="test", statement="x",
                  kind="rate", predicted={"T": -0.5}, depends_on=("fedcomp.test-cor",),
                  entails=("fedcomp.test-cor",), entails_parts=(("fedcomp.test-cor", bad),),
                  check=Check(_measure_const, _judge_slope, steeper(("T",))))


def test_the_registered_entailments():
    """The statements that restate or contain a checked claim's declare it (README, 'Verdict
    rules'): Table 1's derivable rows their papers' corollaries or remarks, the abstract's
    DS-FedDRO sentences Corollary 5.3's eps parts, the AUC paper's theorem-level statements the
    counterexample."""
    from fedcomp import checks
    want = {"khanduri.table1.ds-feddro": {"khanduri.cor5.3"},
            "khanduri.table1.feddro": {"khanduri.cor4.4.model-rounds"},
            "khanduri.table1.feddro.definition-3.7": {"khanduri.cor4.4"},
            "khanduri.table1.fcsg": {"wu.rem4.3"},
            "khanduri.table1.acc-fcsg-m": {"wu.rem4.9"},
            "zhang.thm1": {"zhang.thm1.heterogeneous"},
            "zhang.rem1": {"zhang.thm1.heterogeneous"},
            "zhang.sec1": {"zhang.thm1.heterogeneous"}}
    for cid, ids in want.items():
        assert set(checks.get(cid).entails) == ids, cid
    for cid in ("khanduri.abstract.optimal", "khanduri.abstract.optimal.sgd-type",
                "khanduri.abstract.ds-dim-free"):
        c = checks.get(cid)
        assert c.entails == ("khanduri.cor5.3",) and dict(c.entails_parts)["khanduri.cor5.3"]
    table = checks.get("khanduri.table1")
    assert "khanduri.table1.feddro.definition-3.7" in table.entails


def _judge_undecided(predicted, m):
    v = m.values
    verdict = "fail" if v["low"] > predicted["T"] else (
        "inconclusive" if predicted["T"] > -0.4 else "pass")
    return CheckResult(verdict, predicted, v, f"slope {v['slope']} vs {predicted['T']}")


def test_a_pass_derived_from_an_unconfirmed_claim_is_not_confirmed(extra_claims, tmp_path,
                                                                  capsys):
    """A pass whose checked dependency is inconclusive (resting on no failure) becomes
    inconclusive, naming it, and so does a pass two steps further down; a dependency without a
    check (transcribed data) demotes nothing, and neither does a premise."""
    undecided = Claim(id="fedcomp.test-undecided", paper="fedcomp", location="test",
                      statement="test claim", kind="rate", predicted={"T": -0.3},
                      check=Check(_measure_const, _judge_undecided, steeper(("T",))))
    data = Claim(id="fedcomp.test-data", paper="fedcomp", location="test",
                 statement="a transcribed row", kind="complexity", predicted={"T": -0.5},
                 not_checked="transcribed from a paper that is not among the five")
    on_premise = Claim(id="fedcomp.test-implication", paper="fedcomp", location="test",
                       statement="test claim", kind="rate", predicted={"T": -0.5},
                       premise=("fedcomp.test-undecided",),
                       check=Check(_measure_const, _judge_slope, steeper(("T",))))
    extra_claims(undecided, data, on_premise,
                 _claim("fedcomp.test-remark", {"T": -0.5}, ("fedcomp.test-undecided",)),
                 _claim("fedcomp.test-row", {"T": -0.5}, ("fedcomp.test-remark",)),
                 _claim("fedcomp.test-on-data", {"T": -0.5}, ("fedcomp.test-data",)))
    assert main(["verify", "--claim", "fedcomp.test-row", "--claim", "fedcomp.test-on-data",
                 "--claim", "fedcomp.test-implication", "--json", "--out", str(tmp_path)]) == 0
    out = {c["id"]: c for c in json.loads(capsys.readouterr().out)["claims"]}
    assert out["fedcomp.test-undecided"]["verdict"] == "inconclusive"
    remark = out["fedcomp.test-remark"]
    assert remark["verdict"] == "inconclusive" and remark["rests_on_failed"] == []
    assert ("depends on fedcomp.test-undecided (inconclusive), which is not confirmed"
            in remark["detail"])
    assert out["fedcomp.test-row"]["verdict"] == "inconclusive"
    assert "fedcomp.test-remark (inconclusive)" in out["fedcomp.test-row"]["detail"]
    assert out["fedcomp.test-on-data"]["verdict"] == "pass"
    assert out["fedcomp.test-implication"]["verdict"] == "pass"


def test_predict_judges_the_users_prediction(extra_claims, tmp_path, capsys):
    extra_claims(_claim("fedcomp.test-rate", {"T": -0.5}))
    args = ["verify", "--claim", "fedcomp.test-rate", "--json", "--out", str(tmp_path)]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["claims"][0]["verdict"] == "pass"
    assert main(args + ["--predict", '{"T": -1.5}']) == 0
    row = json.loads(capsys.readouterr().out)["claims"][0]
    assert row["verdict"] == "fail" and row["predicted_by"] == "user"
    assert "the user's prediction" in (tmp_path / "report.md").read_text()
    # malformed: a one-line error naming the expected shape
    assert main(args + ["--predict", '{"K": -0.5}']) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and '{"T": "number"}' in err[0]


def test_conform_names_the_shape():
    ref = {"T": -0.5, "L": "2*L_f*B_g**2", "ok": True, "order": ["a", ">", "b"]}
    conform(ref, {"T": -1, "L": "L_f", "ok": False, "order": ["b", ">", "a"]})
    for bad in ({"T": "x"}, {**ref, "T": True}, {**ref, "ok": 1}, {**ref, "order": ["a"]},
                {**ref, "extra": 1}):
        with pytest.raises(ValueError, match="must have the shape"):
            conform(ref, bad)
    assert parse_user_prediction("2*L_f", "L_f*B_g", "c") == "2*L_f"
    assert scaled(("L",))(ref)[0]["L"] == "0.5*(2*L_f*B_g**2)"
    assert flipped(("ok",))(ref)[0]["ok"] is False


# --- verdict rules ------------------------------------------------------------------------------

def _fit(slope, low, high, n=5):
    return ExponentFit(slope=slope, intercept=0.0, low=low, high=high, boot_low=low,
                       boot_high=high, reg_low=low, reg_high=high, stderr=0.01, r2=0.99,
                       n_points=n, n_seeds=8, x=[], y_mean=[], y_low=[], y_high=[])


def test_upper_bound_rule_fails_slower_and_refuses_impossibly_fast():
    assert upper_bound_verdict(_fit(-0.3, -0.35, -0.25), -0.5).verdict == "fail"
    tight = upper_bound_verdict(_fit(-0.5, -0.55, -0.45), -0.5)
    assert tight.verdict == "pass" and "tight" in tight.reason and "not tight" not in tight.reason
    loose = upper_bound_verdict(_fit(-0.8, -0.85, -0.75), -0.5)
    assert loose.verdict == "pass" and "not tight" in loose.reason
    # super-linear speed-up: steeper than the class can reach -> inconclusive, with the reason
    sl = upper_bound_verdict(_fit(-1.54, -1.6, -1.48), -0.5, floor=-1.0,
                             floor_reason="super-linear speed-up")
    assert sl.verdict == "inconclusive" and "super-linear" in sl.reason
    assert upper_bound_verdict(_fit(-0.5, -0.9, 0.1), -0.5).verdict == "inconclusive"
    assert upper_bound_verdict(_fit(-0.5, -0.55, -0.45, n=2), -0.5).verdict == "inconclusive"
    assert upper_bound_verdict(_fit(-0.5, -math.inf, math.inf), -0.5).verdict == "inconclusive"


def test_upper_bound_rule_needs_the_interval_within_the_margin():
    """A pass is an equivalence test with RATE_MARGIN fixed in advance: an interval that contains
    p but reaches more than the margin above it (a slower decay not excluded), or more than the
    margin beyond the floor (possibly outside the regime), is inconclusive; at the margin's edge
    it passes. The cases are the audit's (wu.cor4.2 in N, wu.cor4.8 in T)."""
    assert RATE_MARGIN == 0.1
    slow = upper_bound_verdict(_fit(-0.432, -0.516, -0.342), -0.5, floor=-0.5)
    assert slow.verdict == "inconclusive" and "0.158 above the prediction" in slow.reason
    edge = upper_bound_verdict(_fit(-0.46, -0.52, -0.401), -0.5, floor=-0.5)
    assert edge.verdict == "pass"
    beyond = upper_bound_verdict(_fit(-0.867, -1.069, -0.664), -2 / 3, floor=-2 / 3,
                                 max_width=0.5, floor_reason="lower bound")
    assert beyond.verdict == "inconclusive" and "0.402 beyond -0.667" in beyond.reason
    # within the margin beyond the floor: passes, at the floor (a bound that is the class's
    # floor is not 'beaten'); wholly beyond it by more: not
    near = upper_bound_verdict(_fit(-0.55, -0.58, -0.52), -0.5, floor=-0.5)
    assert near.verdict == "pass" and "at the class's floor" in near.reason
    assert "not tight" in upper_bound_verdict(_fit(-0.55, -0.58, -0.52), -0.5).reason
    far = upper_bound_verdict(_fit(-0.7, -0.75, -0.65), -0.5, floor=-0.5)
    assert far.verdict == "inconclusive" and "whole interval lies beyond" in far.reason
    # a prediction steeper than the floor by more than the margin: no run can confirm it, and
    # a measurement slower than the prediction still fails
    steep = upper_bound_verdict(_fit(-0.7, -0.75, -0.65), -2 / 3, floor=-0.5)
    assert steep.verdict == "inconclusive" and "no run in that regime" in steep.reason
    assert upper_bound_verdict(_fit(-0.45, -0.48, -0.42), -2 / 3, floor=-0.5).verdict == "fail"
    # no floor: any decay faster than the bound passes (not tight), however fast
    assert upper_bound_verdict(_fit(-1.5, -1.7, -1.3), -0.5).verdict == "pass"
    # a wider margin, given explicitly, lets the slow interval pass; a negative one is refused
    assert upper_bound_verdict(_fit(-0.432, -0.516, -0.342), -0.5, margin=0.2).verdict == "pass"
    with pytest.raises(ValueError, match="margin"):
        upper_bound_verdict(_fit(-0.5, -0.55, -0.45), -0.5, margin=-0.1)


def test_rules_never_pass_on_nan():
    nan = math.nan
    assert exponent_verdict(_fit(nan, nan, nan), 2.0).verdict == "inconclusive"
    assert exponent_verdict(_fit(2.0, 1.95, 2.05), nan).verdict == "inconclusive"
    assert upper_bound_verdict(_fit(nan, nan, nan), -0.5).verdict == "inconclusive"
    assert bound_constant_verdict("c", 5.0, nan, True, observed_max=nan).verdict == \
        "inconclusive"
    assert bound_constant_verdict("c", nan, 1.0, True).verdict == "inconclusive"
    assert equal_verdict("x", nan, 0.5).verdict == "inconclusive"
    assert equal_verdict("x", 0.5, nan).verdict == "inconclusive"
    # an infinite supremum is a measurement: it fails a finite bound
    assert bound_constant_verdict("c", 5.0, math.inf, True).verdict == "fail"


def test_exact_rules_fail_both_ways():
    assert exponent_verdict(_fit(-0.5, -0.55, -0.45), -0.5).verdict == "pass"
    assert exponent_verdict(_fit(-0.5, -0.55, -0.45), -1.0).verdict == "fail"
    assert exponent_verdict(_fit(-0.5, -0.55, -0.45), 0.0).verdict == "fail"
    # contains the prediction, but reaches more than the margin past it
    assert exponent_verdict(_fit(-0.5, -0.62, -0.45), -0.5).verdict == "inconclusive"
    assert equal_verdict("L", "L_h + B_f*L_g", "B_f*L_g + L_h").verdict == "pass"
    assert equal_verdict("L", "L_h + B_f*L_g", "2*(B_f*L_g + L_h)").verdict == "fail"
    assert equal_verdict("v", 0.933, 0.933).verdict == "pass"
    assert equal_verdict("v", 0.933, 0.9331).verdict == "fail"


def test_constant_and_ordering_rules():
    assert bound_constant_verdict("L", 2.0, 1.0, True).verdict == "pass"
    assert "loose by a factor 2" in bound_constant_verdict("L", 2.0, 1.0, True).reason
    assert bound_constant_verdict("L", 0.5, 1.0, True).verdict == "fail"
    assert bound_constant_verdict("L", 0.9, 1.0, False, observed_max=0.8).verdict == \
        "inconclusive"
    assert bound_constant_verdict("L", 0.7, 1.0, False, observed_max=0.8).verdict == "fail"
    assert ordering_verdict("A>B", 0.01, 0.03, 0.02, 5).verdict == "pass"
    assert ordering_verdict("A>B", -0.03, -0.01, -0.02, 5).verdict == "fail"
    assert ordering_verdict("A>B", -0.01, 0.03, 0.01, 5).verdict == "inconclusive"


def test_step_limit_rule():
    from fedcomp.rates.verdict import step_limit
    etas = [0.04, 0.02, 0.01, 0.005]
    # a limit plus a first-order drift term stays; a gap ~ eta^2 or exactly 0 vanishes
    assert step_limit(etas, [0.1 * (1 + 2 * e) for e in etas])["kind"] == "stays"
    assert step_limit(etas, [3 * e ** 2 for e in etas])["kind"] == "vanishes"
    assert step_limit(etas, [1e-30] * 4)["kind"] == "vanishes"
    # with the closed forms: stays only at the closed-form limit, vanishes only along the law
    stay = [0.1 * (1 + 2 * e) for e in etas]
    assert step_limit(etas, stay, limit=0.1)["kind"] == "stays"
    assert step_limit(etas, stay, limit=0.2)["kind"] == "undecided"
    assert step_limit(etas, [3 * e ** 2 for e in etas], law=[3 * e ** 2 for e in etas],
                      limit=0.0)["kind"] == "vanishes"
    # the rule's blind spots without them, closed by them: a slowly vanishing power looks flat
    # (eta^0.3), a floor below the grid looks like eta^2 (3e-5 + eta^2)
    slow = [e ** 0.3 for e in etas]
    assert step_limit(etas, slow)["kind"] == "stays"
    assert step_limit(etas, slow, limit=0.0)["kind"] == "undecided"
    floor = [3e-5 + e ** 2 for e in etas]
    assert step_limit(etas, floor)["kind"] == "vanishes"
    assert step_limit(etas, floor, law=[e ** 2 for e in etas])["kind"] == "undecided"
    # zeros against a positive closed-form limit contradict it
    assert step_limit(etas, [1e-30] * 4, limit=0.1)["kind"] == "undecided"
    # a gap ~ sqrt(eta) falls, but too slowly to call: neither
    assert step_limit(etas, [e ** 0.6 for e in etas])["kind"] == "undecided"
    # flat slope but the extrapolation loses more than half: a steep approach near 0
    assert step_limit(etas, [0.1, 0.1, 0.1, 0.04])["kind"] != "stays"
    # a diverged run, a run that did not settle, a mix of zeros and values, too few points:
    # nothing is decided
    assert step_limit(etas, [0.1, 0.1, math.nan, 0.1])["kind"] == "undecided"
    assert step_limit(etas, stay, converged=[True, True, False, True])["kind"] == "undecided"
    assert step_limit(etas, [0.1, 0.1, 1e-30, 0.1])["kind"] == "undecided"
    assert step_limit(etas[:2], [0.1, 0.1])["kind"] == "undecided"
    with pytest.raises(ValueError, match="etas"):
        step_limit([0.01, 0.01, 0.02], [0.1, 0.1, 0.1])


def test_convergence_is_not_judged_on_points_that_lost_runs(measured):
    """khanduri.thm4.2 ("still decreases at the largest T"): a run at the last three points that
    diverged or is missing makes that problem's part inconclusive, naming what was lost."""
    import copy
    import dataclasses
    c = checks.get("khanduri.thm4.2")
    m = measured(c)
    assert c.check.judge(c.predicted, m).verdict == "pass"
    v = copy.copy(m.values)
    v["rates"] = {p: dict(e) for p, e in m.values["rates"].items()}
    first = next(iter(v["rates"]))
    v["rates"][first]["T_last3"] = dataclasses.replace(v["rates"][first]["T_last3"],
                                                       n_missing_runs=2)
    r = c.check.judge(c.predicted, Measurement(values=v, detail=m.detail))
    assert r.verdict == "inconclusive"
    assert "2 run(s) diverged or missing" in r.detail and "last three points lost runs" in r.detail


def test_convergence_is_refuted_only_at_the_claims_level(measured):
    """khanduri.thm4.2 fails when an interval lies at or above 0 (the curve stops decreasing)
    at 1 - 0.05/m, m its two intervals per problem: one at or above 0 at 95 % alone is
    inconclusive (audit 6, item 1)."""
    import copy
    import dataclasses
    c = checks.get("khanduri.thm4.2")
    m = measured(c)
    v = copy.copy(m.values)
    v["rates"] = {p: dict(e) for p, e in m.values["rates"].items()}
    first = next(iter(v["rates"]))
    last = v["rates"][first]["T_last3"]
    fam = 2 * len(v["rates"])

    def judged(family_low):
        v["rates"][first]["T_last3"] = dataclasses.replace(
            last, slope=0.05, low=0.01, high=0.09, n_missing_runs=0, n_dropped=0,
            dropped_x=[], stderr=0.0, boot_family=[[0.01, 0.09]] + [[family_low, 0.12]] * 31)
        return c.check.judge(c.predicted, Measurement(values=v, detail=m.detail))
    r = judged(-0.02)
    assert r.verdict == "inconclusive" and f"1 - 0.05/{fam}" in r.detail, r.detail
    assert "not at that level" in r.detail
    assert judged(0.005).verdict == "fail"


def _precise(fit, slope, low, high):
    """`fit` moved to slope [low, high], the same interval at every level a claim's family may
    ask for (these tests are about the floor, not the correction over parts)."""
    import dataclasses
    from fedcomp.rates.fit import FAMILY_MAX
    return dataclasses.replace(fit, slope=slope, low=low, high=high, stderr=0.0,
                               boot_family=[[low, high]] * FAMILY_MAX)


def test_the_floats_parts_use_the_floor_carried_into_the_cost(measured):
    """khanduri.rem4.5: the floor -1/2 in T is carried into floats per client by how T grows
    with them. A decay -0.7 [-0.75, -0.65] against the predicted eps^-1.5 (slope -2/3) passes
    where T grows like floats^(4/3) (floor -2/3) and is outside the regime where T grows like
    the floats themselves (floor -1/2); a cost that does not grow with T is inconclusive."""
    import copy
    c = checks.get("khanduri.rem4.5")
    m = measured(c)
    label = "d=40, d_g=1"                     # the "d >> d_g" part, predicted eps^-1.5

    def judged(b):
        v = copy.deepcopy(m.values)
        f = v["floats"][label]
        f["eps_vs_floats"] = _precise(f["eps_vs_floats"], -0.7, -0.75, -0.65)
        f["t_per_cost"] = b
        r = c.check.judge(c.predicted, Measurement(values=v, detail=m.detail))
        return next(p for p in r.measured["parts"] if p["part"].startswith("d >> d_g"))
    assert c.predicted["d >> d_g"]["floats per client"]["eps"] == -1.5
    assert judged(4 / 3)["verdict"] == "pass"
    part = judged(1.0)
    assert part["verdict"] == "inconclusive" and "carried into the cost" in part["reason"]
    part = judged(math.nan)
    assert part["verdict"] == "inconclusive" and "does not grow with T" in part["reason"]
    # without a floor to carry, a decay slower than the bound still fails
    v = copy.deepcopy(m.values)
    f = v["floats"][label]
    f["eps_vs_floats"] = _precise(f["eps_vs_floats"], -0.4, -0.45, -0.35)
    f["t_per_cost"] = math.nan
    r = c.check.judge(c.predicted, Measurement(values=v, detail=m.detail))
    assert next(p for p in r.measured["parts"] if p["part"].startswith("d >> d_g"))[
        "verdict"] == "fail"


def test_claims_built_on_an_implication_rest_on_its_premise():
    """An implication-only claim ('Corollary 5.3 follows from Theorem 5.2') lists its premise in
    `premise`, not in `depends_on`, so that its own verdict is the implication's; every claim
    built on it that is not itself an implication must then depend on the premise (directly or
    further up), or it could pass while the theorem it needs fails."""
    claims = {c.id: c for c in checks.all_claims()}

    def above(cid, seen=None):
        seen = set() if seen is None else seen
        for d in claims[cid].depends_on:
            if d not in seen:
                seen.add(d)
                above(d, seen)
        return seen
    implications = [c for c in claims.values() if c.premise]
    assert {"khanduri.cor4.4.derivation", "khanduri.cor5.3.derivation"} \
        <= {c.id for c in implications}
    for c in claims.values():
        for d in c.depends_on:
            if claims[d].premise and not c.premise:
                missing = set(claims[d].premise) - above(c.id)
                assert not missing, (c.id, "rests on the implication", d, "but not on", missing)
    with pytest.raises(ValueError, match="does not depend on its premise"):
        checks.Claim(id="khanduri.x", paper="khanduri", location="-", statement="-",
                     kind="rate", predicted={"T": -0.5}, not_checked="x" * 30,
                     depends_on=("khanduri.thm4.3",), premise=("khanduri.thm4.3",))


def test_a_multi_part_verdict_shows_the_deciding_parts_interval():
    from fedcomp.checks.core import deciding_interval
    parts = [("pass", (-0.6, -0.5)), ("inconclusive", (-0.9, -0.2)), ("fail", (-0.3, -0.2))]
    assert deciding_interval(parts) == (-0.3, -0.2)
    assert deciding_interval(parts[:2]) == (-0.9, -0.2)
    assert deciding_interval(parts[:1]) == (-0.6, -0.5)
    assert deciding_interval([("fail", [None, None]), ("pass", (0, 1))]) is None
    assert deciding_interval([("fail", None)]) is None and deciding_interval([]) is None


def test_a_fail_read_off_unconfirmed_claims_says_so(extra_claims, tmp_path, capsys):
    """The dependency rule cannot demote a fail, but a fail whose dependencies are not all
    confirmed names them: the statements disagree, which one is wrong is not shown."""
    undecided = Claim(id="fedcomp.test-undecided", paper="fedcomp", location="test",
                      statement="test claim", kind="rate", predicted={"T": -0.3},
                      check=Check(_measure_const, _judge_undecided, steeper(("T",))))
    extra_claims(undecided,
                 _claim("fedcomp.test-refuted", {"T": -1.0}, ("fedcomp.test-undecided",)))
    assert main(["verify", "--claim", "fedcomp.test-refuted", "--json",
                 "--out", str(tmp_path)]) == 0
    out = {c["id"]: c for c in json.loads(capsys.readouterr().out)["claims"]}
    row = out["fedcomp.test-refuted"]
    assert row["verdict"] == "fail"
    assert "reads claims that are not confirmed: fedcomp.test-undecided (inconclusive)" \
        in row["detail"]
    assert row["paper_key"] == "fedcomp"


def test_a_pass_on_unchecked_data_names_it_and_premises_are_exported(extra_claims, tmp_path,
                                                                     capsys):
    data = Claim(id="fedcomp.test-row", paper="fedcomp", location="test",
                 statement="a transcribed row", kind="complexity", predicted={"T": -0.5},
                 not_checked="transcribed from a paper that is not among the five")
    theorem = _claim("fedcomp.test-theorem", {"T": -0.5})
    implication = Claim(id="fedcomp.test-implication", paper="fedcomp", location="test",
                        statement="test claim", kind="rate", predicted={"T": -0.5},
                        premise=("fedcomp.test-theorem",),
                        check=Check(_measure_const, _judge_slope, steeper(("T",))))
    extra_claims(data, theorem, implication,
                 _claim("fedcomp.test-on-row", {"T": -0.5}, ("fedcomp.test-row",)))
    assert main(["verify", "--claim", "fedcomp.test-on-row", "--claim",
                 "fedcomp.test-implication", "--json", "--out", str(tmp_path)]) == 0
    out = {c["id"]: c for c in json.loads(capsys.readouterr().out)["claims"]}
    row = out["fedcomp.test-on-row"]
    assert row["verdict"] == "pass"
    assert "reads claims fedcomp does not check: fedcomp.test-row" in row["detail"]
    assert out["fedcomp.test-implication"]["premise"] == ["fedcomp.test-theorem"]
    assert implication.to_dict()["premise"] == ["fedcomp.test-theorem"]


def test_a_badge_names_the_claim_a_verdict_fails_through():
    # a figure of a claim that fails only through a statement it contains may confirm its own
    # measurement: its badge says where the fail comes from
    from fedcomp.report import badge_label
    row = {"verdict": "fail", "status": "checked", "fails_through": ["fedcomp.test-cor"],
           "own_verdict": "pass"}
    assert badge_label(row) == "fail through fedcomp.test-cor"
    own = {**row, "own_verdict": "fail"}
    assert badge_label(own) == "fail"
    assert badge_label({"verdict": "pass", "status": "checked"}) == "pass"
    # a figure of one part adds that part's verdict (a part that passes is never shown under
    # its claim's fail alone); a panel reported beside the verdict says it is not judged
    from fedcomp.figures import NOT_JUDGED
    from fedcomp.figures.style import VERDICT_COLOURS, badge_colour
    parts = {"verdict": "inconclusive", "status": "checked", "panels": {
        "LQ E||grad||^2 vs T (K=8)": "inconclusive",
        "LQ-residual E||grad||^2 vs T (K=8)": "pass"}}
    assert badge_label(parts, "LQ-residual E||grad||^2 vs T") == \
        "inconclusive; this panel: pass"
    assert badge_label(parts, "LQ E||grad||^2 vs T") == "inconclusive; this panel: inconclusive"
    assert badge_label(parts, "KL-DRO") == badge_label(parts) == "inconclusive"
    assert badge_label(parts, NOT_JUDGED) == "inconclusive; this panel: reported, not judged"
    assert badge_colour("inconclusive; this panel: pass") == VERDICT_COLOURS["inconclusive"]
    assert badge_colour("fail through x") == VERDICT_COLOURS["fail"]
    # a sensitivity run's badge is never taken for the paper's figure's (audit 5, item 10)
    assert badge_label({"verdict": "inconclusive", "status": "checked",
                        "subject": "inference"}) == "inconclusive (fedcomp's inference)"


@pytest.mark.parametrize("cid", ["khanduri.thm4.3", "khanduri.thm4.3.literal", "khanduri.thm5.2",
                                 "khanduri.cor4.4", "khanduri.cor4.4.model-rounds",
                                 "khanduri.cor5.3", "wu.cor4.2", "zhang.table1", "huang.fig2"])
def test_every_panel_of_a_claims_figures_resolves_to_one_part(cid, measured):
    """A figure of one part names it (Plot.panel); its badge must find that part's verdict,
    exactly one, or the panel says it is not judged: a label matched by two parts, or by none,
    would silently show the claim's verdict alone (review 5, item 8)."""
    from fedcomp.figures import NOT_JUDGED
    from fedcomp.report import badge_label
    c = checks.get(cid)
    m = measured(c)
    r = c.check.judge(c.predicted, m)
    row = {"verdict": r.verdict, "status": "checked", "panels": r.panels}
    panels = [p.panel for p in list(m.figures) + list(r.figures)
              if p.panel and (not p.claims or cid in p.claims)]
    assert panels, cid
    for panel in panels:
        label = badge_label(row, panel)
        assert "; this panel: " in label, (cid, panel, label)
        if panel != NOT_JUDGED:
            assert label.split("; this panel: ")[1] in ("pass", "fail", "inconclusive")


def test_an_undecided_quick_run_names_the_full_profiles_command():
    """A simulated claim that its own quick check left inconclusive names the command whose
    longer grids may decide it; not a decided one, not one left inconclusive by a dependency,
    not stored runs (which the profile does not change), not a full run (audit 7, item 2)."""
    from types import SimpleNamespace as NS
    from fedcomp.report import _longer_grid_hint

    def hint(own, kind="rate", profile="quick", by_profile=True):
        claim = NS(id="x.thm", kind=kind, check=NS(measure=NS(by_profile=by_profile)))
        return _longer_grid_hint(claim, NS(own_verdict=own), profile)
    assert "`fedcomp verify --profile full --claim x.thm`" in hint("inconclusive")
    assert hint("pass") == hint("fail") == ""
    assert hint("inconclusive", profile="full") == ""
    assert hint("inconclusive", kind="constant") == ""
    assert hint("inconclusive", by_profile=False) == ""
    assert not checks.get("wu.sec5.2").check.measure.by_profile
    assert not checks.get("huang.fig2").check.measure.by_profile
