"""``fedcomp neural report`` (fedcomp.neural.report): the Markdown built from two smoke stores
matches the stores' intervals, names diverged runs, gives the command for experiments without
runs, links its figures, and ``--docs`` rewrites only the marked block of a file."""
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from fedcomp.cli import main  # noqa: E402
from fedcomp.neural import experiments as E  # noqa: E402
from fedcomp.neural import report as R  # noqa: E402
from fedcomp.neural.store import load  # noqa: E402

pytestmark = pytest.mark.neural

# comfedl-drfl-mnist's arm "comfedl" (gamma = 0.5) overflows in the smoke run as in the full one
STORED = ("comfedl-drfl-mnist", "feddro-adult-fairness")


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    n = torch.get_num_threads()
    torch.set_num_threads(1)   # two shared cores on the test machine
    try:
        base = tmp_path_factory.mktemp("neural")
        for name in STORED:
            E.run_experiment(name, device="cpu", smoke=True, seeds=2, out=base / name,
                             progress=False)
    finally:
        torch.set_num_threads(n)
    return base


def _sections(md: str) -> dict:
    parts = re.split(r"^### ", md, flags=re.M)[1:]
    return {p.split("\n", 1)[0].strip(): p for p in parts}


def _row(section: str, arm: str) -> list[str]:
    for line in section.splitlines():
        if line.startswith(f"| {arm} |"):
            return [c.strip() for c in line.strip().strip("|").split("|")][1:]
    raise AssertionError(f"no row for arm {arm!r}")


def _expected(stored, metric, arm) -> str:
    div = stored.diverged().get(arm)
    if div:
        return "diverged"
    iv = stored.interval(metric, arm)
    return f"{iv.mean:.4f} [{iv.low:.4f}, {iv.high:.4f}]"


def test_every_stored_arm_with_the_stores_intervals(root):
    md = R.markdown(root)
    assert not re.search(r"\bnan\b", md, flags=re.I)
    secs = _sections(md)
    assert list(secs) == E.names()
    for name in STORED:
        stored, exp = load(name, root / name), E.get(name)
        sec = secs[name]
        assert exp.paper in sec
        man = stored.manifest
        assert f"```\n{man['command']}\n```" in sec
        assert f"iterations per run: {man['iterations']} " in sec
        assert str(exp.default_iterations) in sec
        assert man["device"] in sec and man["torch"] in sec
        assert "seeds: " + ", ".join(str(s) for s in stored.seeds) in sec
        header = next(ln for ln in sec.splitlines() if ln.startswith("| arm |"))
        assert [c.strip() for c in header.strip("|").split("|")][1:] == list(exp.metrics)
        assert set(stored.arms) == set(man["arms"])
        for arm in stored.arms:
            cells = _row(sec, arm)
            for metric, text in zip(exp.metrics, cells):
                want = _expected(stored, metric, arm)
                if want == "diverged":
                    assert text.startswith("diverged at t = "), text
                else:
                    assert text == want


def test_diverged_arm_is_named_with_its_iteration_and_seeds(root):
    name = "comfedl-drfl-mnist"
    stored = load(name, root / name)
    div = stored.diverged()
    assert "comfedl" in div   # the paper's gamma = 0.5 overflows (experiment notes)
    assert all(math.isnan(v) for v in stored.finals("test_accuracy")["comfedl"].values())
    cells = _row(_sections(R.markdown(root))[name], "comfedl")
    for t in set(div["comfedl"].values()):
        seeds = sorted(s for s, u in div["comfedl"].items() if u == t)
        for text in cells:
            assert f"t = {t} (seed{'s' if len(seeds) > 1 else ''} " \
                   f"{', '.join(str(s) for s in seeds)})" in text


def test_one_diverged_seed_of_a_fake_store(root, tmp_path):
    """A store row with diverged_at set for one seed: that seed is named, the other keeps its
    value, and nothing reads NaN."""
    from fedcomp.runner.store import ResultStore
    name = "feddro-adult-fairness"
    src = load(name, root / name)
    table = src.table.copy()
    hit = (table["arm"] == "ds-feddro") & (table["seed"] == 1)
    table["diverged_at"] = table["diverged_at"].astype("float64")
    table.loc[hit, "diverged_at"] = 5.0
    table.loc[hit & (table["t"] == table.loc[hit, "t"].max()), "test_accuracy"] = np.nan
    fake = tmp_path / "fake"
    st = ResultStore(fake / name / "store")
    for _, g in table.groupby(["arm", "seed"], sort=False):
        st.write(g)
    (fake / name / "manifest.json").write_text(json.dumps(src.manifest))
    stored = load(name, fake / name)
    assert stored.diverged() == {"ds-feddro": {1: 5}}
    md = R.markdown(fake)
    assert not re.search(r"\bnan\b", md, flags=re.I)
    cells = dict(zip(E.get(name).metrics, _row(_sections(md)[name], "ds-feddro")))
    value = stored.finals("test_accuracy")["ds-feddro"][0]
    assert cells["test_accuracy"] == \
        f"diverged at t = 5 (seed 1); seeds 0: {value:.4f} (one seed, no interval)"
    # the figure is redrawn from the table (the fake folder has no NAME.png)
    figs = tmp_path / "figs"
    R.markdown(fake, figs, tmp_path)
    assert (figs / f"{name}.png").stat().st_size > 1000


def test_experiment_without_runs_gives_its_command(root):
    secs = _sections(R.markdown(root))
    for name in set(E.names()) - set(STORED):
        exp = E.get(name)
        assert "No stored runs" in secs[name]
        assert f"fedcomp neural run {name} --seeds 3 --out {root.as_posix()}/{name}" \
            in secs[name]
        assert exp.data_needs in secs[name]
        assert "| arm |" not in secs[name]


def test_docs_replaces_only_the_marked_block(root, tmp_path):
    doc = tmp_path / "docs" / "neural.md"
    doc.parent.mkdir()
    before, after = "# Title\n\nhand-written text, kept.\n\n", "\n\nmore hand text\n"
    doc.write_text(before + R.BEGIN + "\nstale numbers 0.1234\n" + R.END + after)
    argv = ["neural", "report", "--root", str(root), "--docs", str(doc)]
    assert main(argv) == 0
    first = doc.read_text()
    assert first.startswith(before + R.BEGIN + "\n") and first.endswith(R.END + after)
    assert "stale numbers" not in first
    block = first[len(before + R.BEGIN) + 1:-len(R.END + after)]
    assert block.splitlines()[0].startswith(f"Generated by `fedcomp neural report --docs {doc}")
    assert block == R.markdown(root, doc.parent / "figures" / "neural", doc.parent,
                               command=f"fedcomp neural report --docs {doc} --root {root}")
    for name in STORED:
        png = doc.parent / "figures" / "neural" / f"{name}.png"
        assert png.read_bytes() == (root / name / f"{name}.png").read_bytes()
        assert f"](figures/neural/{name}.png)" in first
    assert main(argv) == 0
    assert doc.read_text() == first


def test_docs_without_markers_appends_them(root, tmp_path):
    doc = tmp_path / "neural.md"
    doc.write_text("# Title\n\ntext\n")
    R.update_docs(doc, root)
    text = doc.read_text()
    assert text.startswith("# Title\n\ntext\n\n")
    assert text.index(R.BEGIN) < text.index(R.END) and text.endswith(R.END + "\n")
    assert text.split(R.BEGIN + "\n")[1].startswith(f"Generated by `{R.COMMAND}`")
    R.update_docs(doc, root)
    assert doc.read_text() == text


def test_report_imports_no_torch(root, tmp_path):
    """The report reads stores only: a fresh interpreter builds it without importing torch."""
    code = ("import sys; from fedcomp.neural import report as R; "
            f"R.markdown({str(root)!r}, {str(tmp_path / 'f')!r}); "
            "assert 'torch' not in sys.modules, 'torch imported'")
    repo = Path(R.__file__).resolve().parents[2]
    res = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(repo)})
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "f" / f"{STORED[0]}.png").exists()


def test_runs_of_two_devices_are_named_by_device(root, tmp_path):
    """A store whose runs came from the CPU and a GPU: the section names the device of every
    run (the manifest's "cpu, cuda" alone would not say which arm ran where)."""
    from fedcomp.runner.store import ResultStore
    name = "feddro-adult-fairness"
    src = load(name, root / name)
    table = src.table.copy()
    table.loc[(table["arm"] == "ds-feddro") & (table["seed"] == 1), "device"] = "cuda"
    fake = tmp_path / "fake"
    st = ResultStore(fake / name / "store")
    for _, g in table.groupby(["arm", "seed"], sort=False):
        st.write(g)
    (fake / name / "manifest.json").write_text(json.dumps(dict(src.manifest,
                                                               device="cpu, cuda")))
    sec = _sections(R.markdown(fake))[name]
    assert "  - on cuda, 1 runs: ds-feddro (seed 1)" in sec
    n_cpu = table.groupby(["arm", "seed"]).ngroups - 1
    assert f"  - on cpu, {n_cpu} runs: " in sec and "ds-feddro (seed 0)" in sec


def test_a_longer_budget_of_some_arms_gets_its_own_table(root, tmp_path):
    """Runs of one arm at more iterations (every seed) copied into the store: the section keeps
    the manifest's table and adds one for that budget, with its values, its command and its
    figure; an arm with a seed missing at that budget is not in it."""
    from fedcomp.neural import store as S
    from fedcomp.runner.store import ResultStore
    name = "feddro-adult-fairness"
    src = load(name, root / name)
    T0 = int(src.manifest["iterations"])
    fake = tmp_path / "fake"
    st = ResultStore(fake / name / "store")
    for _, g in src.table.groupby(["arm", "seed"], sort=False):
        st.write(g)
    longer = src.table[src.table["arm"].isin(["ds-feddro", "fedavg"])].copy()
    longer = longer[(longer["arm"] == "ds-feddro") | (longer["seed"] == 0)]
    longer["iterations"] = 4 * T0
    longer["test_accuracy"] = longer["test_accuracy"] * 0.5
    for (arm, seed), g in longer.groupby(["arm", "seed"], sort=False):
        st.write(g.assign(run_id=S.run_id(name, arm, seed, 4 * T0,
                                          src.manifest.get("eval_every"))))
    (fake / name / "manifest.json").write_text(json.dumps(src.manifest))
    figs = tmp_path / "figs"
    sec = _sections(R.markdown(fake, figs, tmp_path))[name]
    head = f"#### {name} at {4 * T0} iterations"
    assert head in sec
    first, extra = sec.split(head)
    assert _row(first, "ds-feddro") == _row(sec, "ds-feddro")   # the manifest's table first
    big = S.load_budget(name, (4 * T0, src.manifest.get("eval_every")), ["ds-feddro"],
                        fake / name)
    cells = dict(zip(E.get(name).metrics, _row(extra, "ds-feddro")))
    assert cells["test_accuracy"] == _expected(big, "test_accuracy", "ds-feddro")
    assert f"--iterations {4 * T0}" in extra and "--arm ds-feddro" in extra
    assert "| fedavg |" not in extra   # seed 0 only at that budget
    assert (figs / f"{name}-T{4 * T0}.png").stat().st_size > 1000
