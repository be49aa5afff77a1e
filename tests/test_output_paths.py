"""Issue 18, item 3 (and the store's side of item 2): every output path of ``sweep``,
``verify`` and ``counterexample`` is checked before any work starts, with a one-line error and
exit code 2; the checks stand on fedcomp._validate (output_dir, output_file).

"Before the work" is shown by replacing the work itself (the sweep's runs, verify's checks,
the counterexample's reproduction) with a function that fails the test if it is ever called.
"""
import numpy as np
import pytest

from fedcomp import _validate as V
from fedcomp.cli import main
from fedcomp.runner import ResultStore


@pytest.fixture
def no_work(monkeypatch):
    """Any run, check or reproduction started makes the command fail with exit code 1."""
    calls = []

    def forbidden(*a, **k):
        calls.append(a)
        raise AssertionError("the work started before the output paths were checked")

    from fedcomp import report
    from fedcomp.counterexamples import thm41
    from fedcomp.rates.measure import Sweep
    monkeypatch.setattr(Sweep, "run", forbidden)
    monkeypatch.setattr(report, "_run_one", forbidden)
    monkeypatch.setattr(thm41, "reproduce", forbidden)
    return calls


def _bad_paths(tmp_path):
    f = tmp_path / "f.txt"
    f.write_text("a regular file")
    d = tmp_path / "adir"
    d.mkdir()
    return f, d


SWEEP = ["sweep", "feddro", "--T", "32", "64", "--seeds", "1", "--executor", "inprocess",
         "--json"]

CASES = [  # (argv after the command, option named in the error, words in the error)
    (SWEEP + ["--store", "{f}/x"], "--store", "cannot be created"),
    (SWEEP + ["--store", "{f}"], "--store", "exists and is not a directory"),
    (SWEEP + ["--figure", "{f}/x.png"], "--figure", "exists and is not a directory"),
    (SWEEP + ["--figure", "{f}/sub/x.png"], "--figure", "cannot be created"),
    (SWEEP + ["--figure", "{d}"], "--figure", "is a directory"),
    (SWEEP + ["--figure", "{d}/x.notaformat"], "--figure", "must end in one of"),
    (SWEEP + ["--figure", "{d}/x"], "--figure", "no suffix"),
    (["sweep", "feddro", "--T", "32", "--figure", "{d}/x.png"], "--figure", "two --T"),
    (["verify", "--claim", "khanduri.thm4.3", "--out", "{f}/x"], "--out", "cannot be created"),
    (["verify", "--claim", "khanduri.thm4.3", "--out", "{f}"], "--out",
     "exists and is not a directory"),
    (["counterexample", "thm4.1", "--profile", "smoke", "--out", "{f}/x"], "--out",
     "cannot be created"),
    (["counterexample", "thm4.1", "--profile", "smoke", "--out", "{f}"], "--out",
     "exists and is not a directory"),
]


@pytest.mark.parametrize("argv, option, words", CASES,
                         ids=[" ".join(c[0][:1] + c[0][-2:]) for c in CASES])
def test_bad_output_paths_fail_before_the_work_with_one_line(argv, option, words, tmp_path,
                                                              no_work, capsys):
    f, d = _bad_paths(tmp_path)
    argv = [a.format(f=f, d=d) for a in argv]
    rc = main(argv)
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert rc == 2, captured.err
    assert len(lines) == 1 and lines[0].startswith("fedcomp: error: " + option), captured.err
    assert words in lines[0]
    assert "Traceback" not in captured.err and captured.out == ""
    assert no_work == []
    assert f.read_text() == "a regular file"  # nothing written over it


def test_good_output_paths_are_created_before_the_work(tmp_path, no_work, capsys):
    """A valid --store and --figure folder pass the checks (and exist before the runs start):
    the first thing to fail is the (forbidden) work itself."""
    store, fig = tmp_path / "a" / "store", tmp_path / "b" / "c" / "rate.png"
    rc = main(SWEEP + ["--store", str(store), "--figure", str(fig)])
    assert rc == 1 and "internal error: AssertionError" in capsys.readouterr().err
    assert len(no_work) == 1
    assert store.is_dir() and fig.parent.is_dir() and not fig.exists()


def test_output_file_helper(tmp_path):
    f, d = _bad_paths(tmp_path)
    assert V.output_file("--x", tmp_path / "new" / "y.png", {"png"}) == tmp_path / "new" / "y.png"
    assert (tmp_path / "new").is_dir()
    assert V.output_file("--x", f) == f  # an existing file may be overwritten
    for bad, msg in ((d, "is a directory"), (f / "y.png", "--x folder"),
                     (d / "y.svg", r"must end in one of \.png"), ("", "must be a file path")):
        with pytest.raises(ValueError, match=msg):
            V.output_file("--x", bad, {"png"})


def test_result_store_at_a_file_is_a_value_error_naming_it(tmp_path):
    f, _ = _bad_paths(tmp_path)
    with pytest.raises(ValueError, match=r"store path .*f\.txt exists and is not a directory"):
        ResultStore(f)
    with pytest.raises(ValueError, match=r"store path .*f\.txt/x cannot be created"):
        ResultStore(f / "x")


def test_a_figure_path_without_suffix_is_written_as_png(tmp_path):
    import matplotlib.pyplot as plt

    from fedcomp.figures import style
    fig, ax = plt.subplots()
    ax.plot(np.arange(3))
    out = style.save(fig, tmp_path / "plain")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir()] == ["plain"]  # no temporary file left


def test_docs_and_neural_output_paths_fail_before_the_work(tmp_path, monkeypatch, capsys):
    """The other commands that write: ``report DIR --docs``, ``neural report --docs`` and
    ``neural run --out`` (the last used to name the store folder inside --out, not --out)."""
    f, _ = _bad_paths(tmp_path)
    work = []

    def forbidden(*a, **k):
        work.append(a)
        raise AssertionError("the work started before the output paths were checked")

    from fedcomp import report
    from fedcomp.neural import report as neural_report
    monkeypatch.setattr(report, "docs_markdown", forbidden)
    monkeypatch.setattr(neural_report, "update_docs", forbidden)
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "report.json").write_text('{"profile": "quick", "claims": []}')
    cases = [(["report", str(tmp_path / "r"), "--docs", f"{f}/x.md"], "--docs folder"),
             (["neural", "report", "--docs", f"{f}/x.md"], "--docs folder")]
    try:
        from fedcomp.neural import experiments
        monkeypatch.setattr(experiments, "run_experiment", forbidden)
        cases.append((["neural", "run", "comfedl-drfl-mnist", "--smoke", "--out", f"{f}/x"],
                      "--out"))
    except ImportError:  # pragma: no cover - the neural extra is not installed
        pass
    for argv, option in cases:
        rc = main(argv)
        err = capsys.readouterr().err.strip().splitlines()
        assert rc == 2 and len(err) == 1, (argv, err)
        assert err[0].startswith(f"fedcomp: error: {option} ")
        assert "not a directory" in err[0].lower()
    assert work == []
