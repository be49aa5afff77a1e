"""Runner: specs, executors (in-process, process pool, Dask) and the resumable Parquet store."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fedcomp
from fedcomp.runner import ResultStore, RunSpec, execute_batch, run_specs

CTOR = "fedcomp.problems.linear:LinearQuadratic.random"
ARGS = {"num_clients": 3, "dim": 3, "inner_dim": 2, "heterogeneity": 0.5, "noise": 0.3,
        "seed": 2}
METRIC_COLS = ["run_id", "t", "grad_norm_sq", "value", "consensus", "inner_error",
               "rounds_total", "floats_sent_total", "floats_x_total", "floats_y_total"]


def _specs(n_configs=2, seeds=range(3), T=120):
    out = []
    for c in range(n_configs):
        params = {"iterations": T, "eta": 0.05 + 0.01 * c, "local_steps": 3, "beta": 0.2,
                  "record_every": 10}
        out += [RunSpec(CTOR, ARGS, "feddro", params, seed=s, labels={"grid": "test"})
                for s in seeds]
    return out


def test_spec_hashes_are_stable_and_separate_seed():
    a, b = _specs(1, seeds=[0, 1])
    assert a.config_hash == b.config_hash and a.run_id != b.run_id
    c = RunSpec.from_json(a.to_json())
    assert c == a and c.run_id == a.run_id
    d = RunSpec(CTOR, ARGS, "feddro", {**a.params, "eta": 0.051}, seed=0,
                labels={"grid": "test"})
    assert d.config_hash != a.config_hash


def test_spec_rejects_bad_input():
    with pytest.raises(ValueError, match="problem"):
        RunSpec("no_colon", {}, "feddro", {})
    with pytest.raises(ValueError, match="seed"):
        RunSpec(CTOR, ARGS, "feddro", {"seed": 1})
    with pytest.raises(ValueError, match="seed"):
        RunSpec(CTOR, ARGS, "feddro", {}, seed=-1)
    with pytest.raises(ValueError, match="JSON"):
        RunSpec(CTOR, {"A": object()}, "feddro", {})
    with pytest.raises(ValueError, match="executor"):
        run_specs(_specs(1, [0]), executor="cluster")
    with pytest.raises(ValueError, match="columns must be a list of column names"):
        run_specs(_specs(1, [0]), columns="grad_norm_sq")


def test_execute_batch_equals_simulate():
    specs = _specs(1, seeds=[0, 5])
    df = execute_batch(specs)
    p = fedcomp.problems.LinearQuadratic.random(**ARGS)
    for s in specs:
        res = fedcomp.simulate(p, "feddro", seed=s.seed, **s.params)
        rows = df[df.run_id == s.run_id]
        assert (rows["grad_norm_sq"].to_numpy() == res.grad_norm_sq).all()
        assert (rows["t"].to_numpy() == res.t).all()
        assert rows["floats_y_total"].iloc[0] == res.floats_by_variable["y"]
        assert rows["label_grid"].iloc[0] == "test"


def test_store_rerun_skips_finished_runs(tmp_path):
    specs = _specs()
    t1, r1 = run_specs(specs, store=tmp_path, executor="inprocess", progress=False,
                       return_report=True)
    assert (r1.executed, r1.skipped) == (6, 0)
    t2, r2 = run_specs(specs, store=tmp_path, executor="inprocess", progress=False,
                       return_report=True)
    assert (r2.executed, r2.skipped) == (0, 6)
    pd.testing.assert_frame_equal(t1, t2)
    more = _specs(seeds=range(4))
    t3, r3 = run_specs(more, store=tmp_path, executor="inprocess", progress=False,
                       batch_size=1, return_report=True)
    assert (r3.executed, r3.skipped) == (2, 6)
    assert t3["run_id"].nunique() == 8
    assert len(ResultStore(tmp_path).table()) == len(t3)


def test_the_table_of_a_sweep_is_the_table_its_store_reads_back(tmp_path):
    """run_specs joins the parts it has just written from memory and reads only the runs stored
    before: the table it returns must be, dtypes and bits included, the one a later reader of
    the store gets (labels of every kind, a diverged run, a sweep half resumed)."""
    labels = {"grid": "t", "v": 1.5, "n": None, "b": True, "l": [1, 2]}
    specs = [s.with_seed(s.seed) for s in _specs(seeds=range(3))]
    specs = [RunSpec(CTOR, ARGS, "feddro", s.params, seed=s.seed, labels=labels) for s in specs]
    diverging = RunSpec(CTOR, ARGS, "feddro", {**specs[0].params, "eta": 50.0}, seed=0,
                        labels={"grid": "diverges"})
    first = run_specs(specs[:2] + [diverging], store=tmp_path, executor="inprocess",
                      progress=False)
    assert first["diverged_at"].notna().any() and first["diverged_at"].isna().any()
    table, report = run_specs(specs + [diverging], store=tmp_path, executor="inprocess",
                              progress=False, batch_size=2, return_report=True)
    assert (report.executed, report.skipped) == (4, 3)
    read = ResultStore(tmp_path).table()
    pd.testing.assert_frame_equal(table, read, check_exact=True)
    pd.testing.assert_frame_equal(first, ResultStore(tmp_path).table(
        run_ids=first["run_id"].unique()), check_exact=True)


def _stable_sort(frames):
    """combine's definition: the frames concatenated, each (run_id, t) once, stably sorted by
    (config_hash, seed, t)."""
    df = pd.concat(frames, ignore_index=True).drop_duplicates(["run_id", "t"])
    return df.sort_values(["config_hash", "seed", "t"], kind="stable").reset_index(drop=True)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]),
                          st.lists(st.tuples(st.integers(0, 3), st.integers(-1, 4)),
                                   min_size=0, max_size=6),
                          st.booleans(), st.booleans()), min_size=1, max_size=6))
def test_combine_is_the_stable_sort_of_the_concatenation(parts):
    """combine orders whole frames where each holds one configuration in (seed, t) order and
    the frames do not overlap (store._sorted_blocks), and sorts row by row otherwise: either way
    the table must be, row for row and dtype for dtype, the stable sort of the frames'
    concatenation by (config_hash, seed, t) after dropping repeated (run_id, t), here on frames
    of one or two configurations, in order or not, overlapping or not, with repeated rows and an
    extra column in some."""
    from fedcomp.runner.store import combine
    frames = []
    for i, (cfg, rows, two_configs, extra) in enumerate(parts):
        n = len(rows)
        cols = {"t": [t for _, t in rows], "config_hash": [cfg] * n,
                "seed": [s for s, _ in rows], "x": [float(i)] * n}
        if two_configs and n:
            cols["config_hash"][-1] = "b" if cfg != "b" else "a"
        cols["run_id"] = [f"{c}-{s}" for c, s in zip(cols["config_hash"], cols["seed"])]
        if extra:
            cols["y"] = [str(i)] * n
        frames.append(pd.DataFrame(cols).astype({"t": "int64", "seed": "int64"}))
    pd.testing.assert_frame_equal(combine(frames), _stable_sort(frames), check_exact=True)


def test_combine_orders_whole_frames_of_one_configuration():
    """The case every sweep makes (one configuration per frame, seeds and t in order) takes
    the path without a row sort, and frames that overlap do not."""
    from fedcomp.runner.store import _sorted_blocks

    def frame(cfg, seeds):
        return pd.DataFrame({"t": [0, 5] * len(seeds), "config_hash": cfg,
                             "seed": [s for s in seeds for _ in range(2)]})
    b, a0, a1 = frame("b", [0, 1]), frame("a", [0, 1]), frame("a", [2])
    assert [f is g for f, g in zip(_sorted_blocks([b, a1, a0]), [a0, a1, b])] == [True] * 3
    assert _sorted_blocks([b, frame("b", [1, 2])]) is None


@pytest.mark.parametrize("kind", ["categorical", "string with NA"])
def test_combine_sorts_rows_where_whole_frames_would_be_wrong(kind):
    """Two config_hash columns for which ordering whole frames by their text would differ from
    the stable sort (found in review): a categorical whose categories are not in text order
    (sort_values follows the categories) and a nullable string column with a missing value
    (sorted last, and NA == "b" is NA, which all() skips). combine must sort the rows."""
    from fedcomp.runner.store import combine
    if kind == "categorical":
        dt = pd.CategoricalDtype(["b", "a"])
        frames = [pd.DataFrame({"config_hash": pd.Series([c], dtype=dt), "seed": [0], "t": [0],
                                "run_id": [f"{c}-0"]}) for c in ("a", "b")]
    else:
        frames = [pd.DataFrame({"config_hash": pd.array(c, dtype="string"), "seed": [0, 1],
                                "t": [0, 0], "run_id": ids})
                  for c, ids in ((["b", None], ["b-0", "x"]), (["c", "c"], ["c-0", "c-1"]))]
    pd.testing.assert_frame_equal(combine(frames), _stable_sort(frames), check_exact=True)


@pytest.mark.parametrize("case", ["seeds", "diverged", "labels differ", "label types differ",
                                  "no record"])
def test_a_batch_table_is_the_concatenation_of_its_runs_tables(case, monkeypatch):
    """execute_batch builds a batch's rows in one go (batch_frame): the table must be the one
    frames_per_run builds run by run (SimulationResult.to_frame, then pd.concat), dtypes and
    bits included: runs of one batch that share every constant but the seed, a diverged run
    among them (other record counts, a diverged_at), labels that differ in value; and, through
    the run-by-run path, labels that differ in type (None and a string) and a run non-finite
    from the start (no record)."""
    import dataclasses

    import fedcomp.runner.executors as ex
    from fedcomp.engine import METRICS
    labels = {"grid": "t", "v": 1.5, "n": None, "b": True, "l": [1, 2]}
    spec = RunSpec(CTOR, ARGS, "feddro", _specs()[0].params, seed=0, labels=labels)
    problem = ex.build_problem(spec)
    specs = [spec.with_seed(s) for s in range(3)]
    if case == "diverged":
        specs = [RunSpec(CTOR, ARGS, "feddro", {**spec.params, "eta": 50.0 if s == 1 else
                                                spec.params["eta"]}, seed=s, labels=labels)
                 for s in range(3)]
    elif case.startswith("label"):
        specs = [RunSpec(CTOR, ARGS, "feddro", spec.params, seed=s,
                         labels={**labels, "grid": f"g{s}", "v": 1.5 + s,
                                 "n": "x" if s == 0 and case == "label types differ" else None})
                 for s in range(3)]
    runs = []
    for s in specs:
        res = fedcomp.simulate(problem, s.algorithm, seed=s.seed, **s.params)
        if case == "no record" and s.seed == 1:   # as a run non-finite at its first record
            res = dataclasses.replace(res, t=res.t[:0], diverged_at=0,
                                      **{m: getattr(res, m)[:0] for m in METRICS})
        runs.append((res, ex._extra(s, res)))
    if case == "diverged":
        assert runs[1][0].diverged and not runs[0][0].diverged
    ref = ex.frames_per_run(runs)
    if case in ("seeds", "diverged", "labels differ"):   # must not fall back to the reference

        def no_fallback(runs):
            raise AssertionError("batch_frame fell back to frames_per_run")
        monkeypatch.setattr(ex, "frames_per_run", no_fallback)
    pd.testing.assert_frame_equal(ex.batch_frame(runs), ref, check_exact=True)
    assert len(ref) == sum(max(len(r.t), 1) for r, _ in runs)


def test_in_memory_and_store_agree(tmp_path):
    specs = _specs()
    mem = run_specs(specs, executor="inprocess", progress=False, batch_size=2)
    disk = run_specs(specs, store=tmp_path, executor="inprocess", progress=False)
    pd.testing.assert_frame_equal(mem[METRIC_COLS], disk[METRIC_COLS], check_exact=True)


def test_dask_localcluster_equals_inprocess_bit_for_bit():
    distributed = pytest.importorskip("dask.distributed")
    specs = _specs()
    local = run_specs(specs, executor="inprocess", progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        remote = run_specs(specs, executor="dask", address=cluster.scheduler_address,
                           progress=False, batch_size=2)
    pd.testing.assert_frame_equal(local[METRIC_COLS], remote[METRIC_COLS], check_exact=True)
    assert list(local.columns) == list(remote.columns)


def test_process_pool_equals_inprocess_bit_for_bit():
    specs = _specs(1, seeds=range(4))
    local = run_specs(specs, executor="inprocess", progress=False)
    pool = run_specs(specs, executor="process", workers=2, batch_size=1, progress=False)
    pd.testing.assert_frame_equal(local[METRIC_COLS], pool[METRIC_COLS], check_exact=True)


_SLOW_MODULE = '''
import time
from fedcomp.problems import LinearQuadratic

def slow_problem(delay, **kw):
    # building takes `delay` seconds, so the sweep is slow enough to be killed midway
    time.sleep(delay)
    return LinearQuadratic.random(**kw)
'''

_SWEEP_SCRIPT = '''
import sys
from fedcomp.runner import RunSpec, run_specs

def specs():
    out = []
    for c in range(12):
        args = {"delay": 0.3, "num_clients": 3, "dim": 3, "inner_dim": 2, "noise": 0.3,
                "seed": c}
        params = {"iterations": 50, "eta": 0.05, "local_steps": 2, "beta": 0.2,
                  "record_every": 10}
        out.append(RunSpec("slowprob:slow_problem", args, "feddro", params, seed=0))
    return out

if __name__ == "__main__":
    t, r = run_specs(specs(), store=sys.argv[1], executor="inprocess", batch_size=1,
                     progress=False, return_report=True)
    print(r.executed, r.skipped)
'''


def test_killed_sweep_resumes_without_redoing_runs(tmp_path):
    (tmp_path / "slowprob.py").write_text(_SLOW_MODULE)
    (tmp_path / "sweep.py").write_text(_SWEEP_SCRIPT)
    store_dir = tmp_path / "store"
    repo = Path(fedcomp.__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(repo)])}
    proc = subprocess.Popen([sys.executable, str(tmp_path / "sweep.py"), str(store_dir)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 120
    while time.time() < deadline:
        if store_dir.exists() and len(list(store_dir.glob("part-*.parquet"))) >= 3:
            break
        if proc.poll() is not None:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the sweep finished before it could be killed"
    store = ResultStore(store_dir)
    before = store.finished()
    assert 3 <= len(before) < 12
    parts_before = {p.name for p in store.parts()}
    out = subprocess.run([sys.executable, str(tmp_path / "sweep.py"), str(store_dir)], env=env,
                         capture_output=True, text=True, timeout=300, check=True)
    executed, skipped = map(int, out.stdout.split())
    assert skipped == len(before) and executed == 12 - len(before)
    after = ResultStore(store_dir)
    assert parts_before <= {p.name for p in after.parts()}   # nothing rewritten
    ids = [pd.read_parquet(p, columns=["run_id"])["run_id"].unique()[0] for p in after.parts()]
    assert len(ids) == 12 and len(set(ids)) == 12            # each run stored exactly once
    assert not list(store_dir.glob(".tmp-*"))
    table = after.table()
    assert table.groupby("run_id")["t"].count().eq(6).all()  # t = 0, 10, ..., 50
    assert json.loads(table["problem_args"].iloc[0])["delay"] == 0.3


@settings(max_examples=5, deadline=None)
@given(batch_size=st.integers(1, 6), order=st.permutations(range(6)))
def test_batching_and_order_do_not_change_results(batch_size, order):
    specs = _specs(2, seeds=range(3))
    reference = run_specs(specs, executor="inprocess", progress=False)
    shuffled = [specs[i] for i in order]
    other = run_specs(shuffled, executor="inprocess", batch_size=batch_size, progress=False)
    pd.testing.assert_frame_equal(reference[METRIC_COLS], other[METRIC_COLS], check_exact=True)


# --- simulations through the runner (fedcomp.runner.results: what the checks use) ----------------

def _same_result(a, b):
    for f in ("x_bar", "t", "grad_norm_sq", "value", "consensus", "inner_error"):
        assert (getattr(a, f) == getattr(b, f)).all() and len(getattr(a, f)) == len(getattr(b, f))
    assert (a.rounds, a.floats_sent, a.floats_by_variable, a.diverged_at, a.config, a.seed) == \
        (b.rounds, b.floats_sent, b.floats_by_variable, b.diverged_at, b.config, b.seed)


def test_run_through_the_runner_is_simulate_bit_for_bit(tmp_path):
    from fedcomp.runner.results import run, run_many, store_scope
    p = fedcomp.problems.LinearQuadratic.random(**ARGS)
    kw = dict(iterations=90, eta=0.05, local_steps=3, beta=0.2, record_every=3)
    direct = [fedcomp.simulate(p, "feddro", seed=s, **kw) for s in range(3)]
    _same_result(run(CTOR, ARGS, "feddro", seed=1, **kw), direct[1])
    with store_scope(tmp_path / "store"):
        for a, b in zip(run_many(CTOR, ARGS, "feddro", seeds=range(3), **kw), direct):
            _same_result(a, b)
    assert len(ResultStore(tmp_path / "store")) == 3


def test_a_diverged_run_comes_back_diverged_at_its_iteration():
    from fedcomp.runner.results import run
    p = fedcomp.problems.LinearQuadratic.random(**ARGS)
    kw = dict(iterations=400, eta=40.0, local_steps=2, beta=0.5, stochastic=False)
    direct = fedcomp.simulate(p, "feddro", **kw)
    assert direct.diverged
    _same_result(run(CTOR, ARGS, "feddro", **kw), direct)


def test_runs_in_a_store_scope_are_read_back_not_recomputed(tmp_path, monkeypatch):
    from fedcomp.runner import executors
    from fedcomp.runner.results import run, store_scope
    x0 = [0.1, -0.2, 0.3]
    with store_scope(tmp_path):
        first = run(CTOR, ARGS, "fedavg-case2", x0=x0, iterations=50, eta=0.05, seed=4)

    def refuse(*a, **k):
        raise AssertionError("a stored run was computed again")
    monkeypatch.setattr(executors, "execute_batch", refuse)
    with store_scope(tmp_path):
        _same_result(run(CTOR, ARGS, "fedavg-case2", x0=x0, iterations=50, eta=0.05, seed=4),
                     first)
    with pytest.raises(AssertionError, match="computed again"):   # outside the scope: computed
        run(CTOR, ARGS, "fedavg-case2", x0=x0, iterations=50, eta=0.05, seed=4)


def test_an_executor_session_shares_one_process_pool(monkeypatch):
    from fedcomp.runner import executor_session, executors
    started = []
    real = executors._process_pool
    monkeypatch.setattr(executors, "_process_pool", lambda n: started.append(n) or real(n))
    specs = _specs(2, seeds=range(2), T=30)
    local = run_specs(specs, executor="inprocess", progress=False)
    with executor_session():
        a = run_specs(specs[:2], executor="process", workers=2, progress=False)
        b = run_specs(specs[2:], executor="process", workers=2, progress=False)
    assert started == [2]
    both = pd.concat([a, b]).sort_values(["run_id", "t"]).reset_index(drop=True)
    local = local.sort_values(["run_id", "t"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(both[METRIC_COLS], local[METRIC_COLS], check_exact=True)
    assert executors._SESSION is None


def test_a_column_some_parts_lack_is_read_from_the_others_without_quarantining(tmp_path):
    """ResultStore.table(columns=...) naming a column one part does not have (an algorithm
    without y, local-scgd, writes no floats_y_total) reads that part without it; it used to
    quarantine the part (pyarrow's error for the missing field taken for a broken file) and so
    discard its runs. run_specs reads a generator of columns once."""
    import warnings

    from fedcomp.runner.store import CorruptPartWarning
    with_y = _specs(1, seeds=[0])
    without_y = [RunSpec(CTOR, ARGS, "local-scgd", {"iterations": 40, "eta": 0.05, "beta": 0.5,
                                                    "local_steps": 2, "record_every": 10},
                         seed=0)]
    full = run_specs(with_y + without_y, store=tmp_path, executor="inprocess", progress=False)
    assert full["floats_y_total"].isna().any() and full["floats_y_total"].notna().any()
    store = ResultStore(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CorruptPartWarning)
        part = store.table(columns=["run_id", "config_hash", "seed", "t", "floats_y_total"])
    assert not (tmp_path / "quarantine").exists()
    assert sorted(part["run_id"].unique()) == sorted(full["run_id"].unique())
    pd.testing.assert_frame_equal(part, full[list(part.columns)], check_exact=True)
    narrow = run_specs(with_y, store=tmp_path, executor="inprocess", progress=False,
                       columns=(c for c in ["grad_norm_sq"]))   # a generator, read once
    assert "grad_norm_sq" in narrow.columns


def test_a_part_without_run_ids_is_still_quarantined(tmp_path):
    """Leaving out columns a part lacks must not let a part with no run_id in (a file that is no
    part of the store): it is quarantined as before, and the store's runs are read."""
    from fedcomp.runner.store import CorruptPartWarning
    run_specs(_specs(1, seeds=[0]), store=tmp_path, executor="inprocess", progress=False)
    pd.DataFrame({"a": [1]}).to_parquet(tmp_path / "part-foreign.parquet")
    with pytest.warns(CorruptPartWarning, match="part-foreign"):
        done = ResultStore(tmp_path).finished()
    assert len(done) == 1 and (tmp_path / "quarantine" / "part-foreign.parquet").exists()
