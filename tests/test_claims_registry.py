"""The claims registry: fields, ids, kinds, the CLI, and every check built in the theory area."""
import json
import re

import pytest

from fedcomp.theory.claims import KINDS, PAPERS, CheckResult, all_claims, get

# ids other engineers attach checks to: they must exist (the zhang ids moved to
# fedcomp.checks.zhang: tests/test_checks_zhang.py requires them there)
REQUIRED = ["khanduri.lem3.5", "khanduri.thm4.1", "khanduri.thm4.2", "khanduri.thm4.3",
            "khanduri.cor4.4", "khanduri.rem4.5", "khanduri.thm5.2", "khanduri.cor5.3",
            "khanduri.eq4", "khanduri.eq5", "khanduri.table1", "wu.thm4.1", "wu.cor4.2", "wu.thm4.4", "wu.cor4.5", "wu.thm4.7",
            "wu.cor4.8", "wu.table2", "huang.thm1", "huang.thm2", "huang.lem1"]

THEORY_MODULES = ("fedcomp.theory.dro:", "fedcomp.theory.complexity:")


def test_required_ids_and_fields():
    claims = all_claims()
    ids = [c.id for c in claims]
    assert len(ids) == len(set(ids))
    for rid in REQUIRED:
        assert rid in ids, rid
    for c in claims:
        assert c.kind in KINDS and c.paper in PAPERS
        assert c.location.strip() and c.statement.strip()
        assert c.predicted is not None, c.id
        prefix = c.paper if c.paper != "huang-journal" else "huang-journal"
        assert re.fullmatch(rf"{re.escape(prefix)}\.[a-z0-9.\-]+", c.id), c.id
        d = c.to_dict()
        assert d["status"] in ("checked", "not-checked")
        json.dumps(d, default=str)


def test_every_paper_and_kind_covered():
    from fedcomp import checks  # papers migrated to fedcomp.checks are counted there
    claims = checks.all_claims()
    for key in ("khanduri", "wu", "zhang", "huang", "huang-journal"):
        assert sum(c.paper == key for c in claims) >= 5, key
    kinds = {c.kind for c in claims}
    assert {"rate", "complexity", "constant", "equivalence", "experiment"} <= kinds


def test_existing_thm41_entry_unchanged():
    c = get("khanduri.thm4.1")
    assert c.kind == "counterexample" and c.check == "fedcomp.counterexamples.thm41:check"


def test_claims_cli_json(capsys):
    from fedcomp.cli import main
    assert main(["claims", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    from fedcomp import checks  # the CLI lists the new registry (migrated papers + legacy)
    assert {c["id"] for c in out["claims"]} == {c.id for c in checks.all_claims()}
    for c in out["claims"]:
        assert set(c) >= {"id", "paper", "statement", "kind", "command", "status"}


def test_theory_checks_run_and_return_verdicts(tmp_path):
    ours = [c for c in all_claims() if c.check and c.check.startswith(THEORY_MODULES)]
    assert len(ours) >= 25
    for c in ours:
        r = c.run_check("quick", tmp_path)
        assert isinstance(r, CheckResult) and r.verdict in ("pass", "fail", "inconclusive"), c.id
        assert r.detail


@pytest.mark.parametrize("cid,verdict", [
    ("khanduri.eq4", "pass"), ("khanduri.eq5", "fail"), ("khanduri.table1", "pass"),
    ("khanduri.cor4.4.derivation", "pass"), ("khanduri.sec2.related", "fail"),
    ("huang-journal.eq6", "fail"),
    ("wu.rem4.3", "pass"), ("wu.thm4.7.beta", "fail"),
    ("wu.cor4.5.constants", "pass"), ("huang.rem1.batch", "fail"), ("huang.rem1", "pass")])
def test_decided_verdicts(cid, verdict, tmp_path):
    assert get(cid).run_check("quick", tmp_path).verdict == verdict


def test_lemma1_check_judges_the_lemma_not_the_optimiser(tmp_path):
    # With scipy 1.17 BFGS stops 5e-7 (relative) short of the maximum of (14) on a peaked
    # softmax; the check used to count that as the lemma failing. It now decides by the KKT
    # conditions at softmax(f/gamma) and by BFGS never exceeding the closed form.
    r = get("huang.lem1").run_check("quick", tmp_path)
    assert r.verdict == "pass", r.detail
    m = r.measured
    assert m["kkt_residual"] < 1e-12 and m["softmax_value_diff"] < 1e-10
    assert m["bfgs_max_rel_excess"] < 1e-12
    assert m["journal_eq15_correct"] and not m["conference_eq18_correct"]
