"""The claims registry: fields, ids, kinds, the CLI, and every check built in the theory area."""
import json
import re

import pytest

from fedcomp import checks as registry
from fedcomp.theory.claims import KINDS, PAPERS, CheckResult, all_claims, get

# ids other engineers attach checks to: they must exist
# (khanduri.lem3.5, .thm4.1, .eq4, .eq5, .table1: fedcomp.checks.khanduri,
# tests/test_checks_khanduri_theory.py)
REQUIRED = ["khanduri.thm4.2", "khanduri.thm4.3",
            "khanduri.cor4.4", "khanduri.rem4.5", "khanduri.thm5.2", "khanduri.cor5.3",
            "zhang.thm1", "zhang.lem2",
            "zhang.table1", "wu.thm4.1", "wu.cor4.2", "wu.thm4.4", "wu.cor4.5", "wu.thm4.7",
            "wu.cor4.8", "wu.table2"]

THEORY_MODULES = ("fedcomp.theory.dro:", "fedcomp.theory.complexity:")


def test_required_ids_and_fields():
    claims = registry.all_claims()
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
        assert d["reading"] and isinstance(d["depends_on"], list)
        json.dumps(d, default=str)


def test_every_paper_and_kind_covered():
    claims = registry.all_claims()
    for key in ("khanduri", "wu", "zhang", "huang", "huang-journal"):
        assert sum(c.paper == key for c in claims) >= 5, key
    kinds = {c.kind for c in claims}
    assert {"rate", "complexity", "constant", "equivalence", "experiment"} <= kinds


def test_claims_cli_json(capsys):
    from fedcomp.cli import main
    assert main(["claims", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {c["id"] for c in out["claims"]} == {c.id for c in registry.all_claims()}
    for c in out["claims"]:
        assert set(c) >= {"id", "paper", "statement", "kind", "command", "status"}


def test_theory_checks_run_and_return_verdicts(tmp_path):
    # the legacy registry's theory checks (shrinks as papers move to fedcomp.checks)
    ours = [c for c in all_claims() if c.check and c.check.startswith(THEORY_MODULES)]
    if not ours:
        pytest.skip("every theory check has moved to fedcomp.checks")
    for c in ours:
        r = c.run_check("quick", tmp_path)
        assert isinstance(r, CheckResult) and r.verdict in ("pass", "fail", "inconclusive"), c.id
        assert r.detail


@pytest.mark.parametrize("cid,verdict", [
    ("zhang.sec1", "fail"), ("zhang.eq1", "pass"), ("zhang.eq4", "fail")])
# (wu.*: tests/test_checks_wu.py; huang*: tests/test_checks_huang.py)
def test_decided_verdicts(cid, verdict, tmp_path):
    assert get(cid).run_check("quick", tmp_path).verdict == verdict
