"""The claims registry (fedcomp.checks): published ids stay, fields and kinds, the CLI, and the
coverage of the five papers."""
import json
import re

from fedcomp.checks import KINDS, PAPERS, all_claims

# every id published before the checks layer (24 November 2026): ids never change
PUBLISHED = [
    "fedcomp.intermittent-sharing-law", "fedcomp.localscgdam-bias", "huang-journal.eq6",
    "huang-journal.fig2-3", "huang-journal.fig4-6", "huang-journal.lem1", "huang-journal.sec5.3",
    "huang.eq10", "huang.eq5", "huang.eq6", "huang.fig2", "huang.fig3", "huang.fig4-8",
    "huang.lem1", "huang.lem2", "huang.lem3", "huang.lem4", "huang.rem1", "huang.rem1.batch",
    "huang.rem2", "huang.thm1", "huang.thm1.constants", "huang.thm2", "huang.thm2.constants",
    "khanduri.cor4.4", "khanduri.cor4.4.derivation", "khanduri.cor5.3",
    "khanduri.cor5.3.derivation", "khanduri.eq4", "khanduri.eq5", "khanduri.fig1",
    "khanduri.fig2", "khanduri.fig3", "khanduri.lem3.5", "khanduri.rem4.5",
    "khanduri.rem4.5.derivation", "khanduri.sec2.fl", "khanduri.sec2.related", "khanduri.table1",
    "khanduri.table1.acc-fcsg-m", "khanduri.table1.comfedl", "khanduri.table1.ds-feddro",
    "khanduri.table1.fcsg", "khanduri.table1.fed-dr-scgd", "khanduri.table1.fedbioacc",
    "khanduri.table1.feddro", "khanduri.table1.fedmbo", "khanduri.table1.fednest",
    "khanduri.table1.gcivr", "khanduri.table1.local-scgdm", "khanduri.table1.simfbo",
    "khanduri.thm4.1", "khanduri.thm4.2", "khanduri.thm4.3", "khanduri.thm5.2", "wu.cor4.2",
    "wu.cor4.2.constants", "wu.cor4.5", "wu.cor4.5.constants", "wu.cor4.8",
    "wu.cor4.8.constants", "wu.limitation", "wu.lowerbound", "wu.rem4.3", "wu.rem4.6",
    "wu.rem4.9", "wu.sec5.1", "wu.sec5.2", "wu.table1", "wu.table2", "wu.thm4.1", "wu.thm4.4",
    "wu.thm4.4.beta", "wu.thm4.7", "wu.thm4.7.beta", "zhang.eq1", "zhang.eq4", "zhang.fig4",
    "zhang.fig5", "zhang.lem2", "zhang.rem1", "zhang.sec1", "zhang.table1", "zhang.thm1",
]

GENERIC = ("awaits its paper", "no check is built", "legacy")


def test_published_ids_stay():
    ids = {c.id for c in all_claims()}
    assert [i for i in PUBLISHED if i not in ids] == []


def test_fields_ids_and_specific_reasons():
    claims = all_claims()
    assert len(claims) >= 105
    for c in claims:
        assert c.kind in KINDS and c.paper in PAPERS
        assert c.location.strip() and c.statement.strip() and c.reading.strip()
        assert re.fullmatch(rf"{re.escape(c.paper)}\.[a-z0-9.\-]+", c.id), c.id
        if c.check is None:
            assert not any(g in c.not_checked for g in GENERIC), c.id
        d = c.to_dict()
        assert d["status"] in ("checked", "not-checked") and isinstance(d["depends_on"], list)
        json.dumps(d)


def test_every_paper_and_kind_covered():
    claims = all_claims()
    for key in ("khanduri", "wu", "zhang", "huang", "huang-journal"):
        assert sum(c.paper == key for c in claims) >= 5, key
    assert {"rate", "complexity", "constant", "equivalence", "experiment",
            "counterexample"} <= {c.kind for c in claims}


def test_claims_cli_json(capsys):
    from fedcomp.cli import main
    assert main(["claims", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {c["id"] for c in out["claims"]} == {c.id for c in all_claims()}
    for c in out["claims"]:
        assert set(c) >= {"id", "paper", "statement", "kind", "command", "status", "reading",
                          "depends_on", "predicted"}


def test_the_problems_layer_imports_nothing_above_it():
    """Layers import only those below them (DESIGN.md): fedcomp.problems sits below runner,
    theory, rates, checks, figures, report and cli, so none of its modules imports them (the
    AUC paper's Lemma 2 lives in fedcomp.theory.constants; the problems return the assumptions'
    constants only)."""
    import ast
    from pathlib import Path
    import fedcomp
    above = ("runner", "theory", "rates", "checks", "figures", "report", "cli", "experiments",
             "counterexamples", "neural")
    root = Path(fedcomp.__file__).parent / "problems"
    bad = []
    for f in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(f.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for n in names:
                parts = n.split(".")
                if parts[0] == "fedcomp" and len(parts) > 1 and parts[1] in above:
                    bad.append(f"{f.name}: {n}")
    assert not bad, bad


def test_self_checks_of_the_implementation_are_declared_and_counted_apart():
    """A claim whose check measures fedcomp's implementation of the paper's algorithm (its
    reading says a fail would be fedcomp's) is declared subject "implementation", and only such
    a claim; a report counts its verdict apart from the papers' (fedcomp.report.tally)."""
    from fedcomp.checks import SUBJECTS
    from fedcomp.report import tally
    said = "a fail would be fedcomp's"
    selfchecks = {c.id for c in all_claims() if c.subject == "implementation"}
    assert selfchecks == {c.id for c in all_claims() if said in c.reading}
    assert {"khanduri.alg1.rounds", "khanduri.sec5.communication", "wu.sec5.2.scgdm-comm",
            "zhang.eq14.communication", "wu.limitation", "zhang.sec3.dg"} <= selfchecks
    assert all(c.subject in SUBJECTS for c in all_claims())
    for c in all_claims():
        assert c.to_dict()["subject"] == c.subject
    rows = [{"verdict": "pass", "status": "checked", "subject": "implementation",
             "paper": PAPERS["khanduri"]},
            {"verdict": "pass", "status": "checked", "subject": "paper",
             "paper": PAPERS["khanduri"]},
            {"verdict": "fail", "status": "checked", "subject": "paper", "paper": PAPERS["wu"]},
            {"verdict": "pass", "status": "checked", "subject": "paper",
             "paper_key": "fedcomp"},
            {"verdict": "inconclusive", "status": "not-checked", "paper": PAPERS["wu"]},
            {"verdict": "fail", "status": "checked", "subject": "inference",
             "paper": PAPERS["huang"]}]
    t = tally({"claims": rows})
    papers, own, impl, inferred = t.split("; ")
    assert inferred.startswith("1 fail on statements fedcomp infers from the papers")
    assert papers == "1 pass, 1 fail, 1 not-checked on the papers' statements"
    assert own == "1 pass on fedcomp's own findings"
    assert impl.startswith("1 pass on self-checks of fedcomp's implementations")


def test_a_self_check_names_a_paper():
    import pytest
    from fedcomp.checks import Claim
    kw = dict(location="x", statement="y", kind="complexity", predicted={"a": 1},
              not_checked="a reason of more than twenty characters")
    with pytest.raises(ValueError, match="subject must be one of"):
        Claim(id="wu.x", paper="wu", subject="code", **kw)
    for subject in ("implementation", "inference"):
        with pytest.raises(ValueError, match="cannot be 'fedcomp'"):
            Claim(id="fedcomp.x", paper="fedcomp", subject=subject, **kw)
