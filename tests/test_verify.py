"""`fedcomp verify`: report, JSON output, a raising check, not-checked claims."""
import json

import pytest

from fedcomp.cli import main
import fedcomp.rates.feddro as C
from fedcomp.checks import Check, Claim


@pytest.fixture
def tiny_profile(monkeypatch):
    # the real check code on a tiny grid, so that the whole pipeline runs in seconds
    tiny = {"Ts": [2 ** k for k in range(6, 10)], "Ks": [2, 4], "K0": 4, "seeds": 4,
            "kl_Ts": [2 ** k for k in range(6, 9)], "kl_seeds": 3, "small_seeds": 3,
            "max_width": 0.4, "max_records": 64}
    monkeypatch.setitem(C.PROFILES, "quick", tiny)
    return tiny


def test_verify_one_real_claim_json(tiny_profile, tmp_path, capsys):
    rc = main(["verify", "--claim", "khanduri.cor4.4", "--json", "--out", str(tmp_path)])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    # the claim it depends on is checked first (its verdict decides whether cor4.4 may pass)
    assert [c["id"] for c in out["claims"]] == ["khanduri.thm4.3", "khanduri.cor4.4"]
    assert out["claims"][1]["depends_on"] == ["khanduri.thm4.3"]
    c = out["claims"][1]
    assert set(c) >= {"id", "verdict", "predicted", "measured", "detail"}
    assert c["verdict"] in ("pass", "fail", "inconclusive")
    assert c["status"] == "checked"
    parts = c["measured"]["parts"]
    assert {p["part"].split(":")[0] for p in parts} >= {"LQ samples per client (K=4)",
                                                         "LQ communication (K=4)"}
    assert c["reading"].startswith("Definition 3.7")
    for f in c["figures"]:
        assert (tmp_path / f).exists()
    md = (tmp_path / "report.md").read_text()
    assert "khanduri.cor4.4" in md and "fedcomp verify --claim khanduri.cor4.4" in md
    assert json.loads((tmp_path / "report.json").read_text())["claims"][1]["id"] == c["id"]
    # the sweep's runs are stored and a second verify reuses them (nothing re-run)
    store = tmp_path / "data" / "quick-feddro-lq"
    parts_before = sorted(p.name for p in store.glob("part-*.parquet"))
    assert parts_before
    main(["verify", "--claim", "khanduri.cor4.4", "--json", "--out", str(tmp_path)])
    capsys.readouterr()
    assert sorted(p.name for p in store.glob("part-*.parquet")) == parts_before


def _boom(profile, out_dir):
    raise RuntimeError("deliberately broken check")


def _never(predicted, m):  # pragma: no cover - the measurement raises first
    raise AssertionError


def test_raising_check_is_inconclusive_and_not_checked_claims_are_listed(tmp_path, capsys,
                                                                         extra_claims):
    broken = Claim(id="fedcomp.test-broken", paper="fedcomp", location="test",
                   statement="a check that raises", kind="rate", predicted={"T": -0.5},
                   check=Check(measure=_boom, judge=_never))
    unchecked = Claim(id="fedcomp.test-unchecked", paper="fedcomp", location="test",
                      statement="no check yet", kind="rate", predicted={"T": -0.5},
                      not_checked="a test claim: nothing measures it, on purpose")
    extra_claims(broken, unchecked)
    rc = main(["verify", "--claim", broken.id, unchecked.id, "--json", "--out", str(tmp_path)])
    assert rc == 0
    out = {c["id"]: c for c in json.loads(capsys.readouterr().out)["claims"]}
    assert out[broken.id]["verdict"] == "inconclusive"
    assert "deliberately broken check" in out[broken.id]["detail"]
    assert out[unchecked.id]["status"] == "not-checked"
    assert out[unchecked.id]["verdict"] == "inconclusive"
    assert "nothing measures it" in out[unchecked.id]["detail"]
    assert "not-checked" in (tmp_path / "report.md").read_text()


def test_verify_rejects_unknown_claim_and_profile(tmp_path, capsys):
    assert main(["verify", "--claim", "nope.thm9", "--out", str(tmp_path)]) == 2
    assert "unknown claim" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["verify", "--profile", "huge"])


def test_rate_claims_are_registered_with_checks():
    from fedcomp.checks import get
    for cid in ("khanduri.thm4.2", "khanduri.thm4.3", "khanduri.cor4.4", "khanduri.rem4.5",
                "khanduri.thm5.2", "khanduri.cor5.3"):
        assert get(cid).check.name.startswith("fedcomp.rates.feddro:measure_"), cid


def test_sweep_command_fits_exponents(tmp_path, capsys):
    rc = main(["sweep", "feddro", "--T", "64", "128", "256", "--K", "2", "--seeds", "3",
               "--executor", "inprocess", "--store", str(tmp_path / "s"), "--json",
               "--figure", str(tmp_path / "f.png")])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["runs"] == 9
    (fit,) = out["fits"]
    assert fit["over"] == "T" and fit["K"] == 2
    assert fit["verdict"] in ("pass", "fail", "inconclusive")
    assert fit["interval"][0] <= fit["slope"] <= fit["interval"][1]
    assert (tmp_path / "f.png").exists()
    assert list((tmp_path / "s").glob("part-*.parquet"))


def test_predict_on_a_real_claim_and_the_python_api(tiny_profile, tmp_path, capsys):
    import fedcomp
    from fedcomp.checks import get
    own = get("khanduri.thm4.3").predicted
    assert own == {"T": -0.5, "K": -0.5}
    faster = {**own, "T": -1.5}
    rc = main(["verify", "--claim", "khanduri.thm4.3", "--predict", json.dumps(faster),
               "--json", "--out", str(tmp_path)])
    assert rc == 0
    row = json.loads(capsys.readouterr().out)["claims"][0]
    assert row["verdict"] == "fail" and row["predicted_by"] == "user"
    assert row["predicted"] == faster
    rep = fedcomp.verify(["khanduri.thm4.3"], out=tmp_path, log=open("/dev/null", "w"))
    assert list(rep.table["id"]) == ["khanduri.thm4.3"]
    assert rep.table["verdict"].iloc[0] in ("pass", "inconclusive")
    assert rep["khanduri.thm4.3"]["predicted_by"] == "paper"
    assert main(["verify", "--claim", "khanduri.thm4.3", "--predict", "[1, 2]",
                 "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "must have the shape" in err[0] and '"T": "number"' in err[0]


def test_html_report_parses_and_names_every_claim(tiny_profile, tmp_path, capsys):
    from html.parser import HTMLParser
    rc = main(["verify", "--claim", "khanduri.rem4.5.derivation", "--json", "--out",
               str(tmp_path)])
    assert rc == 0
    ids = [c["id"] for c in json.loads(capsys.readouterr().out)["claims"]]

    class Sections(HTMLParser):
        found: list = []

        def handle_starttag(self, tag, attrs):
            if tag == "section":
                self.found.append(dict(attrs)["id"])
    p = Sections()
    p.feed((tmp_path / "report.html").read_text())
    assert p.found == ids
    assert "http" not in (tmp_path / "report.html").read_text().split("<body>")[0]


def test_dask_and_inprocess_give_the_same_verdicts(tiny_profile, tmp_path, capsys):
    pytest.importorskip("distributed")
    out = {}
    for ex in ("inprocess", "dask"):
        rc = main(["verify", "--claim", "khanduri.thm5.2", "--json", "--executor", ex,
                   "--workers", "1", "--out", str(tmp_path / ex)])
        assert rc == 0
        out[ex] = json.loads(capsys.readouterr().out)["claims"]
    strip = [{k: c[k] for k in ("id", "verdict", "measured", "detail")} for c in out["dask"]]
    assert strip == [{k: c[k] for k in ("id", "verdict", "measured", "detail")}
                     for c in out["inprocess"]]


@pytest.mark.parametrize("argv", [["verify", "--claim", "khanduri.thm4.2", "--out", "{file}"],
                                  ["counterexample", "thm4.1", "--out", "{file}"],
                                  ["counterexample", "thm4.1", "--out", "/proc/fedcomp-x"]])
def test_output_paths_are_checked_before_any_work(argv, tmp_path, capsys):
    f = tmp_path / "a-file"
    f.write_text("x")
    assert main([a.format(file=f) for a in argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--out" in err[0]


def test_a_checks_runs_are_stored_and_a_rerun_resumes_from_them(tmp_path, capsys, monkeypatch):
    # the ledger check simulates once (fedcomp.runner.results): into <out>/data/<profile>-<claim>
    from fedcomp.runner import ResultStore, executors
    argv = ["verify", "--claim", "khanduri.sec5.communication", "--claim",
            "khanduri.sec5.communication.never", "--json", "--out", str(tmp_path)]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)["claims"]
    assert len(ResultStore(tmp_path / "data" / "quick-khanduri.sec5.communication")) == 1
    assert not (tmp_path / "data" / "quick-khanduri.sec5.communication.never").exists()

    def refuse(*a, **k):
        raise AssertionError("a stored run was computed again")
    monkeypatch.setattr(executors, "execute_batch", refuse)
    assert main(argv) == 0
    second = json.loads(capsys.readouterr().out)["claims"]
    keys = ("id", "verdict", "measured", "detail")
    assert [{k: c[k] for k in keys} for c in second] == [{k: c[k] for k in keys} for c in first]
    assert [c["verdict"] for c in first] == ["pass", "fail"]


def test_no_check_calls_the_engine_directly():
    """Every simulation a check makes goes through the runner (RunSpec, executors, store), so
    that --executor dask and resume reach it: no module of the check layers calls
    fedcomp.simulate / simulate_many itself."""
    import ast
    from pathlib import Path

    import fedcomp
    root = Path(fedcomp.__file__).parent
    files = [f for d in ("checks", "rates", "counterexamples", "theory", "figures")
             for f in (root / d).rglob("*.py")] + [root / "report.py"]
    offenders = []
    for f in files:
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Call):
                fn = node.func
                name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
                if name in ("simulate", "simulate_many"):
                    offenders.append(f"{f.relative_to(root)}:{node.lineno}")
    assert offenders == []


def _strip(report):
    return [{k: v for k, v in c.items() if k not in ("seconds", "cpu_seconds")}
            for c in report["claims"]]


def _bad_figure(profile, out_dir):
    """A measurement whose figure cannot be drawn (records of the wrong type, raised inside
    fedcomp's own drawing function, so a worker can import it)."""
    from fedcomp.checks import Measurement
    from fedcomp.figures import plot
    from fedcomp.figures.neural import curves_figure
    return Measurement(values={"x": 1.0}, detail="a figure that raises",
                       figures=[plot("figures/bad.png", curves_figure, 17, "m", "bad")])


def _judge_x(predicted, m):
    from fedcomp.checks import CheckResult
    return CheckResult("pass" if m.values["x"] == predicted["x"] else "fail", predicted,
                       m.values, m.detail, figures=m.figures)


def test_jobs_measure_ahead_in_workers_and_write_the_same_report(tmp_path, extra_claims):
    """--jobs 2: the measurements run in two spawned worker processes, and so do the figures;
    the report (verdicts, measurements, details, figures byte for byte, dependency rule, a
    raising check's error, a figure that cannot be drawn) is the one --jobs 1 writes."""
    import io
    from fedcomp.report import run_verify
    broken = Claim(id="fedcomp.test-broken", paper="fedcomp", location="test",
                   statement="a check that raises", kind="rate", predicted={"T": -0.5},
                   check=Check(measure=_boom, judge=_never))
    bad_fig = Claim(id="fedcomp.test-bad-figure", paper="fedcomp", location="test",
                    statement="a check whose figure raises", kind="constant",
                    predicted={"x": 1.0}, check=Check(measure=_bad_figure, judge=_judge_x))
    extra_claims(broken, bad_fig)
    ids = ["huang.lem4", "huang.eq6.other-g", "huang.fig3", "khanduri.sec2.fl", "zhang.eq4",
           broken.id, bad_fig.id]
    one = run_verify(ids, "quick", tmp_path / "one", log=io.StringIO())
    log = io.StringIO()
    two = run_verify(ids, "quick", tmp_path / "two", log=log, jobs=2)
    assert _strip(two) == _strip(one)
    assert {c["verdict"] for c in one["claims"]} == {"pass", "fail", "inconclusive"}
    assert any(c["depends_on"] for c in one["claims"])
    rows = {c["id"]: c for c in two["claims"]}
    assert "deliberately broken check" in rows.pop(broken.id)["detail"]
    bad = rows.pop(bad_fig.id)
    assert bad["figures"] == [] and "figure figures/bad.png could not be drawn" in bad["detail"]
    for c in rows.values():
        assert c["figures"]
        for f in c["figures"]:
            assert (tmp_path / "two" / f).read_bytes() == (tmp_path / "one" / f).read_bytes(), f
        assert c["seconds"] >= 0 and c["cpu_seconds"] >= 0
    assert log.getvalue().count("[verify]") == 2 * len(two["claims"])


def test_every_registered_measure_can_be_measured_in_a_worker():
    """verify --jobs sends a measurement to a worker only when its measure pickles; a closure
    would silently run in the main process (declare it as fedcomp.checks.Measure)."""
    import pickle

    from fedcomp import checks
    for c in checks.all_claims():
        if c.check is not None:
            m = pickle.loads(pickle.dumps(c.check.measure))
            assert m.__module__ == c.check.measure.__module__, c.id
            assert m.__qualname__ == c.check.measure.__qualname__, c.id


def test_jobs_measure_a_claim_registered_at_run_time_here(tmp_path, extra_claims):
    """A measure function a worker cannot receive (a closure) is measured in this process;
    bad --jobs values are refused naming the option."""
    import io
    from fedcomp.checks import CheckResult, Measurement
    from fedcomp.report import run_verify
    from fedcomp.runner.executors import DEFAULT_EXECUTOR, set_executor

    def measure(profile, out_dir):
        return Measurement(values={"x": 1.0}, detail="measured in the parent")

    def judge(predicted, m):
        return CheckResult("pass" if m.values["x"] == predicted["x"] else "fail", predicted,
                           m.values, m.detail)

    local = Claim(id="fedcomp.test-local", paper="fedcomp", location="test",
                  statement="a check defined in a test", kind="constant", predicted={"x": 1.0},
                  check=Check(measure=measure, judge=judge))
    extra_claims(local)
    rep = run_verify([local.id], "quick", tmp_path, log=io.StringIO(), jobs=2)
    assert [(c["id"], c["verdict"], c["detail"]) for c in rep["claims"]] == \
        [(local.id, "pass", "measured in the parent")]
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="jobs must be an integer >= 1"):
            run_verify([local.id], "quick", tmp_path, log=io.StringIO(), jobs=bad)
    saved = dict(DEFAULT_EXECUTOR)
    try:
        set_executor(executor="process")
        with pytest.raises(ValueError, match="--jobs 2 needs --executor inprocess"):
            run_verify([local.id], "quick", tmp_path, log=io.StringIO(), jobs=2)
    finally:
        DEFAULT_EXECUTOR.clear()
        DEFAULT_EXECUTOR.update(saved)
    assert main(["verify", "--claim", local.id, "--jobs", "0", "--out", str(tmp_path)]) == 2


def test_jobs_auto_uses_the_cores_only_for_many_measurements(monkeypatch, capsys):
    """--jobs auto (the default): 1 for a few claims (starting workers would cost more than it
    saves) or another executor; one worker per usable core, at most AUTO_MAX_JOBS and no more
    than the measurements, from AUTO_MIN_MEASUREMENTS on."""
    import os

    from fedcomp import checks
    from fedcomp import report as R
    from fedcomp.runner.executors import DEFAULT_EXECUTOR
    known = {c.id: c for c in checks.all_claims()}
    every = checks.closure(sorted(known))
    n = len({known[c].check.measure for c in every if known[c].check is not None})
    assert n >= R.AUTO_MIN_MEASUREMENTS
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    assert R.auto_jobs(every, known) == 3
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    assert R.auto_jobs(every, known) == R.AUTO_MAX_JOBS
    assert R.auto_jobs(checks.closure(["khanduri.cor4.4"]), known) == 1
    monkeypatch.setitem(DEFAULT_EXECUTOR, "executor", "process")
    assert R.auto_jobs(every, known) == 1
    with pytest.raises(SystemExit) as exc:   # argparse's refusal, naming the option
        main(["verify", "--claim", "khanduri.thm4.3", "--jobs", "two"])
    assert exc.value.code == 2
    assert "argument --jobs: must be an integer >= 1 or 'auto', got 'two'" in \
        capsys.readouterr().err


def test_report_docs_refuses_a_report_judged_under_other_rules(tmp_path, capsys):
    """`fedcomp report DIR --docs` writes the page from a report judged under this fedcomp's
    verdict rules (recorded in the report), and refuses one judged under others: its text would
    state rules its verdicts were not judged by."""
    import io
    from fedcomp.report import run_verify, verdict_rules
    from fedcomp.rates.verdict import RATE_MARGIN
    out = tmp_path / "r"
    rep = run_verify(["huang.lem4"], "quick", out, log=io.StringIO())
    assert rep["verdict_rules"] == verdict_rules()
    assert verdict_rules()["rate_margin"] == RATE_MARGIN
    assert verdict_rules()["dependency_rule"] == "transitive"
    md = tmp_path / "page.md"
    assert main(["report", str(out), "--docs", str(md)]) == 0
    assert f"reaches at most {RATE_MARGIN:g}, the margin" in md.read_text()
    capsys.readouterr()
    old = json.loads((out / "report.json").read_text())
    del old["verdict_rules"]
    (out / "report.json").write_text(json.dumps(old))
    assert main(["report", str(out), "--docs", str(tmp_path / "other.md")]) == 2
    err = capsys.readouterr().err
    assert "other verdict rules" in err and not (tmp_path / "other.md").exists()
