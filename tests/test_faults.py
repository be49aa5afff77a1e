"""Fault probes of issue 18 (reliability): concurrent writers, duplicate sweeps, corrupt parts,
bad arguments, unreachable schedulers, divergence in fits, orphaned pool workers.

Each test reproduces one failure that used to happen (a deleted temporary file, a run computed
twice, ArrowInvalid on read, a traceback, a 30 s hang, a silently shrunk fit, a lingering worker)
and checks that it now gives the correct result or a one-line error naming the parameter.
"""
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fedcomp
from fedcomp.cli import main
from fedcomp.rates.fit import fit_exponent, upper_bound_verdict
from fedcomp.runner import ResultStore, RunSpec, run_specs
from fedcomp.runner.store import CorruptPartWarning

REPO = Path(fedcomp.__file__).resolve().parents[1]
CTOR = "fedcomp.problems.linear:LinearQuadratic.random"
ARGS = {"num_clients": 3, "dim": 3, "inner_dim": 2, "heterogeneity": 0.5, "noise": 0.3,
        "seed": 2}
PARAMS = {"iterations": 60, "eta": 0.05, "local_steps": 3, "beta": 0.2, "record_every": 10}


def _env(tmp_path):
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)])}


def _specs(seeds=range(4), **params):
    return [RunSpec(CTOR, ARGS, "feddro", {**PARAMS, **params}, seed=s) for s in seeds]


# -- 1. opening a store leaves live writers' temporary files alone ------------------------------

_WRITER = '''
import sys
import pandas as pd
from fedcomp.runner import ResultStore
store = ResultStore(sys.argv[1])
for i in range(int(sys.argv[2])):
    store.write(pd.DataFrame({"run_id": [f"r{i}"], "config_hash": ["c"], "seed": [i],
                              "t": [0], "value": [float(i)]}))
print("done")
'''


def test_opening_a_store_does_not_delete_a_live_writers_temporary_files(tmp_path):
    (tmp_path / "writer.py").write_text(_WRITER)
    store_dir = tmp_path / "store"
    store_dir.mkdir()
    n = 150
    writer = subprocess.Popen([sys.executable, str(tmp_path / "writer.py"), str(store_dir),
                               str(n)], env=_env(tmp_path), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    opened = 0
    while writer.poll() is None:  # another process opening the store as fast as it can
        ResultStore(store_dir)
        opened += 1
    out, err = writer.communicate()
    assert writer.returncode == 0, err
    assert opened > 0 and out.strip() == "done"
    assert ResultStore(store_dir).finished() == {f"r{i}" for i in range(n)}


def test_only_stale_temporary_files_are_cleaned(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # its pid is now (almost surely) free
    from fedcomp.runner.store import _host
    host = _host()
    live = tmp_path / f".tmp-{host}-{os.getppid()}-aaaaaaaa-part-x.parquet"  # a live writer
    stale = tmp_path / f".tmp-{host}-{dead.pid}-bbbbbbbb-part-y.parquet"      # killed writer
    remote = tmp_path / ".tmp-elsewhere-123-cccccccc-part-z.parquet"          # other host, new
    old_remote = tmp_path / ".tmp-elsewhere-124-dddddddd-part-w.parquet"      # other host, old
    for f in (live, stale, remote, old_remote):
        f.write_bytes(b"x")
    two_hours_ago = time.time() - 7200
    os.utime(old_remote, (two_hours_ago, two_hours_ago))
    ResultStore(tmp_path)
    assert live.exists() and remote.exists()
    assert not stale.exists() and not old_remote.exists()


# -- 2. two identical sweeps compute every run once --------------------------------------------

_SLOW_MODULE = '''
import time
from fedcomp.problems import LinearQuadratic

def slow_problem(delay, **kw):
    time.sleep(delay)   # slow enough that the two sweeps overlap
    return LinearQuadratic.random(**kw)
'''

_TWIN_SWEEP = '''
import sys
from fedcomp.runner import RunSpec, run_specs
specs = []
for c in range(6):
    args = {"delay": 0.2, "num_clients": 3, "dim": 3, "inner_dim": 2, "noise": 0.3, "seed": c}
    params = {"iterations": 40, "eta": 0.05, "local_steps": 2, "beta": 0.2, "record_every": 10}
    specs += [RunSpec("slowprob:slow_problem", args, "feddro", params, seed=s) for s in (0, 1)]
table, report = run_specs(specs, store=sys.argv[1], executor="inprocess", batch_size=1,
                          progress=False, return_report=True, poll_seconds=0.05)
table.to_pickle(sys.argv[2])
print(report.executed, report.skipped)
'''


def test_two_identical_sweeps_compute_each_run_once(tmp_path):
    (tmp_path / "slowprob.py").write_text(_SLOW_MODULE)
    (tmp_path / "twin.py").write_text(_TWIN_SWEEP)
    store_dir = tmp_path / "store"
    procs = [subprocess.Popen([sys.executable, str(tmp_path / "twin.py"), str(store_dir),
                               str(tmp_path / f"table{i}.pkl")], env=_env(tmp_path),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
    executed = [int(out.split()[0]) for out, _ in outs]
    assert sum(executed) == 12                       # every run computed by exactly one sweep
    store = ResultStore(store_dir)
    ids = [rid for part in store.parts()
           for rid in pd.read_parquet(part, columns=["run_id"])["run_id"].unique()]
    assert len(ids) == 12 and len(set(ids)) == 12    # ... and stored exactly once
    assert not list(store_dir.glob(".claim-*"))      # claims are released after the write
    t0, t1 = (pd.read_pickle(tmp_path / f"table{i}.pkl") for i in range(2))
    pd.testing.assert_frame_equal(t0, t1, check_exact=True)
    assert t0["run_id"].nunique() == 12


def test_claim_of_a_dead_sweep_is_taken_over(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    from fedcomp.runner.store import _host
    spec = _specs(seeds=[0])[0]
    (tmp_path / f".claim-{spec.run_id}").write_text(
        f'{{"host": "{_host()}", "pid": {dead.pid}, "token": "x", "time": 0}}')
    table, report = run_specs([spec], store=tmp_path, executor="inprocess", progress=False,
                              return_report=True)
    assert report.executed == 1 and table["run_id"].nunique() == 1


# -- 3. a corrupt part is quarantined and its runs recomputed ----------------------------------

def test_corrupt_parts_are_quarantined_and_recomputed(tmp_path):
    specs = _specs(seeds=range(4))
    clean = run_specs(specs, store=tmp_path / "clean", executor="inprocess", batch_size=1,
                      progress=False)
    store_dir = tmp_path / "store"
    run_specs(specs, store=store_dir, executor="inprocess", batch_size=1, progress=False)
    parts = ResultStore(store_dir).parts()
    assert len(parts) == 4
    truncated, empty = parts[0], parts[1]
    truncated.write_bytes(truncated.read_bytes()[: truncated.stat().st_size // 2])
    empty.write_bytes(b"")
    with pytest.warns(CorruptPartWarning) as caught:
        resumed, report = run_specs(specs, store=store_dir, executor="inprocess",
                                    batch_size=1, progress=False, return_report=True)
    text = " ".join(str(w.message) for w in caught)
    assert truncated.name in text and empty.name in text and "quarantine" in text
    assert (report.executed, report.skipped) == (2, 2)
    assert sorted(p.name for p in (store_dir / "quarantine").iterdir()) == sorted(
        [truncated.name, empty.name])
    pd.testing.assert_frame_equal(clean, resumed, check_exact=True)


# -- 4. unchecked arguments --------------------------------------------------------------------

@pytest.mark.parametrize("argv, names", [
    (["sweep", "feddro", "--seeds", "0"], "--seeds"),
    (["sweep", "feddro", "--seeds", "-3"], "--seeds"),
    (["verify", "--claim", "khanduri.thm4.3", "--workers", "0"], "--workers"),
    (["sweep", "feddro", "--max-records", "0"], "--max-records"),
    (["sweep", "feddro", "--workers", "0"], "--workers"),
    (["sweep", "feddro", "--T", "0", "64"], "--T"),
    (["sweep", "feddro", "--K", "-2"], "--K"),
    (["sweep", "feddro", "--connect-timeout", "0"], "--connect-timeout"),
    (["theory", "constants", "linear-quadratic", "--K", "0"], "--K"),
    (["theory", "constants", "linear-quadratic", "--schedule", "feddro", "--K", "0"], "--K"),
    (["theory", "constants", "linear-quadratic", "--schedule", "feddro", "--T", "0"], "--T"),
])
def test_bad_cli_arguments_give_one_line_errors(argv, names, capsys):
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fedcomp: error: "), err
    assert names in lines[0] and (">= 1" in lines[0] or "> 0" in lines[0])
    assert "Traceback" not in err


def test_verify_refuses_an_address_without_dask_before_any_claim_runs(monkeypatch, tmp_path,
                                                                       capsys):
    from fedcomp import report
    ran = []
    monkeypatch.setattr(report, "_run_one", lambda *a: ran.append(a))
    rc = main(["verify", "--claim", "khanduri.thm4.3", "--address", "tcp://127.0.0.1:1",
               "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and err == ["fedcomp: error: --address needs --executor dask"]
    assert ran == [] and not (tmp_path / "r" / "report.json").exists()


def test_set_executor_checks_its_arguments():
    from fedcomp.rates.measure import DEFAULT_EXECUTOR, set_executor
    saved = dict(DEFAULT_EXECUTOR)
    try:
        for kw, msg in (({"executor": "threads"}, r"executor must be one of inprocess, "),
                        ({"workers": 0}, r"workers must be an integer >= 1, got 0"),
                        ({"executor": "inprocess", "address": "tcp://h:1"},
                         r"address is only used with executor='dask'")):
            with pytest.raises(ValueError, match=msg):
                set_executor(**kw)
            assert DEFAULT_EXECUTOR == saved  # a refused call changes nothing
    finally:
        DEFAULT_EXECUTOR.clear()
        DEFAULT_EXECUTOR.update(saved)


def test_simulate_many_rejects_an_int_for_seeds(small_lq):
    with pytest.raises(ValueError, match=r"seeds must be an iterable of non-negative integers"):
        fedcomp.simulate_many(small_lq, "feddro", seeds=5, iterations=10, beta=0.5)


def test_run_spec_rejects_wrong_arguments():
    with pytest.raises(ValueError, match=r"problem_args do not fit .*LinearQuadratic.random"):
        RunSpec(CTOR, {**ARGS, "num_client": 3}, "feddro", PARAMS)
    with pytest.raises(ValueError, match=r"params \['etta'\] are not arguments.*eta"):
        RunSpec(CTOR, ARGS, "feddro", {**PARAMS, "etta": 0.1})
    with pytest.raises(ValueError, match=r"unknown algorithm"):
        RunSpec(CTOR, ARGS, "fedsgd", PARAMS)


@pytest.mark.parametrize("params, message", [
    ({"eta": -0.1}, r"eta must be in \(0, inf\), got -0.1"),
    ({"eta": "fast"}, r"eta must be a real number in \(0, inf\)"),
    ({"iterations": 0}, r"iterations must be an integer >= 1, got 0"),
    ({"local_steps": 0}, r"local_steps must be an integer >= 1, got 0"),
    ({"record_every": 2.5}, r"record_every must be an integer >= 1"),
    ({"beta": 1.5}, r"beta"),
    ({"stochastic": "yes"}, r"stochastic must be True or False"),
    ({"iterations": 2, "local_steps": 5}, r"local_steps must be <= iterations .*allow_no_sync"),
    ({"x0": [[0.0, 1.0, 0.0]]}, r"x0 must have 1 dimensions"),
    ({"x0": [0.0, "a", 0.0]}, r"x0 must be an array of real numbers"),
])
def test_run_spec_rejects_bad_values_where_it_is_written(params, message):
    """A value simulate would refuse fails when the spec is built, not in a worker after the
    sweep has started (and not only when the run is not in the store yet)."""
    with pytest.raises(ValueError, match=message):
        RunSpec(CTOR, ARGS, "feddro", {**PARAMS, **params})


def test_run_spec_takes_simulate_defaults_and_an_explicit_no_round_opt_in():
    assert RunSpec(CTOR, ARGS, "feddro", {"beta": 0.5}).params == {"beta": 0.5}
    spec = RunSpec(CTOR, ARGS, "feddro", {**PARAMS, "iterations": 2, "local_steps": 5,
                                          "allow_no_sync": True})
    table = run_specs([spec], executor="inprocess", progress=False)
    assert (table["rounds_total"] == 0).all()


def test_run_specs_rejects_a_single_spec_in_place_of_a_list():
    with pytest.raises(ValueError, match=r"specs must be an iterable of RunSpec objects .*got "
                                         r"RunSpec"):
        run_specs(_specs(seeds=[0])[0], executor="inprocess", progress=False)


def test_local_steps_above_iterations_needs_an_explicit_opt_in(small_lq):
    with pytest.raises(ValueError, match=r"local_steps must be <= iterations.*local_steps=5 > "
                                         r"iterations=3.*allow_no_sync=True"):
        fedcomp.simulate(small_lq, "feddro", iterations=3, local_steps=5, beta=0.5)
    with pytest.raises(ValueError, match=r"local_steps must be <= iterations"):
        fedcomp.simulate_many(small_lq, "feddro", seeds=[0], iterations=3, local_steps=5,
                              beta=0.5)
    r = fedcomp.simulate(small_lq, "feddro", iterations=3, local_steps=5, beta=0.5,
                         allow_no_sync=True)
    assert r.rounds == 0


def test_sweep_rejects_zero_seeds_and_records():
    from fedcomp.rates.measure import Sweep
    for kw, name in (({"seeds": 0}, "seeds"), ({"max_records": 0}, "max_records")):
        with pytest.raises(ValueError, match=rf"{name} must be an integer >= 1"):
            Sweep("s", CTOR, lambda K: ARGS, "feddro", lambda T, K: {}, [(8, 3)], **kw)


# -- 5. an unreachable Dask scheduler ----------------------------------------------------------

def test_unreachable_dask_address_fails_fast_with_one_line(capsys):
    pytest.importorskip("dask.distributed")
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    rc = main(["sweep", "feddro", "--executor", "dask", "--address", f"tcp://127.0.0.1:{port}",
               "--connect-timeout", "1", "--T", "32", "64", "--seeds", "1", "--json"])
    elapsed = time.monotonic() - t0
    err = capsys.readouterr().err
    assert rc != 0 and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "cannot reach the Dask scheduler" in lines[0]
    assert "connect_timeout=1 s" in lines[0]
    assert elapsed < 15


# -- 6. divergence is never lost silently ------------------------------------------------------

def test_fit_records_grid_points_lost_to_divergence():
    x = np.array([10.0, 20.0, 40.0, 80.0])
    rng = np.random.default_rng(0)
    values = x[None, :] ** -0.5 * np.exp(0.05 * rng.standard_normal((8, 4)))
    values[:, 3] = np.nan            # every run at x = 80 diverged
    values[0, 1] = np.nan            # one run at x = 20 diverged
    fit = fit_exponent(x, values, n_boot=200)
    assert (fit.n_points, fit.n_dropped, fit.dropped_x, fit.n_missing_runs) == (3, 1, [80.0], 1)
    reason = upper_bound_verdict(fit, -0.5).reason
    assert "1 grid point(s) dropped" in reason and "x = 80" in reason
    clean = fit_exponent(x[:3], values[1:, :3], n_boot=200)
    assert (clean.n_dropped, clean.dropped_x, clean.n_missing_runs) == (0, [], 0)
    assert "dropped" not in upper_bound_verdict(clean, -0.5).reason


def test_stored_diverged_at_is_nullable_and_old_minus_one_reads_as_null(tmp_path):
    specs = _specs(seeds=[0]) + _specs(seeds=[0], eta=1e3, iterations=400)
    table = run_specs(specs, store=tmp_path, executor="inprocess", progress=False)
    assert str(table["diverged_at"].dtype) == "Int64"
    per_run = table.groupby("run_id")["diverged_at"].first()
    finite, diverged = specs[0].run_id, specs[1].run_id
    assert pd.isna(per_run[finite]) and int(per_run[diverged]) > 0
    assert not (table["diverged_at"] == -1).any()
    # a store written before the change holds -1 for "finite"
    old = table[table["run_id"] == finite].copy()
    old["diverged_at"] = np.int64(-1)
    old["run_id"] = old["config_hash"] = "old"
    store = ResultStore(tmp_path)
    store.write(old)
    rows = store.table(run_ids=["old"])
    assert str(rows["diverged_at"].dtype) == "Int64" and rows["diverged_at"].isna().all()
    from fedcomp.rates.measure import summarize
    assert not summarize(rows.assign(K=3, label_sweep="s"))["diverged"].any()


# -- 7. pool workers die with their sweep ------------------------------------------------------

_ORPHAN_MODULE = '''
import os
import time
from pathlib import Path
from fedcomp.problems import LinearQuadratic

def stuck_problem(marker_dir, **kw):
    Path(marker_dir, f"worker-{os.getpid()}").touch()   # the worker is up and busy
    time.sleep(120)
    return LinearQuadratic.random(**kw)
'''

_ORPHAN_SWEEP = '''
import sys
from fedcomp.runner import RunSpec, run_specs

if __name__ == "__main__":
    specs = [RunSpec("stuckprob:stuck_problem",
                     {"marker_dir": sys.argv[1], "num_clients": 2, "dim": 2, "inner_dim": 2,
                      "seed": c}, "feddro",
                     {"iterations": 10, "eta": 0.05, "local_steps": 2, "beta": 0.2}, seed=0)
             for c in range(2)]
    run_specs(specs, executor="process", workers=2, batch_size=1, progress=False)
'''


def _alive(pid):
    try:
        import psutil
    except ImportError:  # pragma: no cover - /proc fallback
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return False
        return state != "Z"
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc-style pids")
def test_pool_workers_exit_when_the_sweep_is_killed(tmp_path):
    (tmp_path / "stuckprob.py").write_text(_ORPHAN_MODULE)
    (tmp_path / "sweep.py").write_text(_ORPHAN_SWEEP)
    markers = tmp_path / "markers"
    markers.mkdir()
    proc = subprocess.Popen([sys.executable, str(tmp_path / "sweep.py"), str(markers)],
                            env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while len(list(markers.iterdir())) < 2 and time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read().decode()
            time.sleep(0.05)
        workers = [int(m.name.split("-")[1]) for m in markers.iterdir()]
        assert len(workers) == 2 and all(_alive(w) for w in workers)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 5
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(w) for w in workers), "pool workers outlived their sweep"
    finally:
        if proc.poll() is None:
            proc.kill()
        for m in markers.iterdir():  # never leave a stuck worker behind, even on failure
            try:
                os.kill(int(m.name.split("-")[1]), signal.SIGKILL)
            except ProcessLookupError:
                pass


# -- 1b. the same within one process: two ResultStore objects, one writing, one re-opened ------

def _part(i):
    return pd.DataFrame({"run_id": [f"r{i}"], "config_hash": ["c"], "seed": [i], "t": [0],
                         "value": [float(i)]})


def test_opening_a_store_inside_every_write_window_deletes_nothing(tmp_path, monkeypatch):
    """Deterministic interleaving: every write opens a second ResultStore on the same folder at
    the worst moment (its temporary file written, not yet renamed). Every write must land."""
    writer = ResultStore(tmp_path)
    seen = []
    real_fsync = os.fsync

    def fsync_then_open(fd):
        real_fsync(fd)
        tmps = sorted(p.name for p in tmp_path.glob(".tmp-*"))
        ResultStore(tmp_path)  # the other object: opening cleans stale files only
        assert sorted(p.name for p in tmp_path.glob(".tmp-*")) == tmps
        seen.append(len(tmps))

    monkeypatch.setattr(os, "fsync", fsync_then_open)
    for i in range(20):
        writer.write(_part(i))
    assert seen == [1] * 20  # the opener ran while each write's temporary file existed
    assert ResultStore(tmp_path).finished() == {f"r{i}" for i in range(20)}
    assert not list(tmp_path.glob(".tmp-*"))


def test_a_writer_thread_and_an_opener_loop_share_a_store(tmp_path):
    import threading
    n, errors = 100, []
    done = threading.Event()

    def write():
        try:
            store = ResultStore(tmp_path)
            for i in range(n):
                store.write(_part(i))
        except BaseException as exc:  # noqa: BLE001 -- reported by the assertion below
            errors.append(exc)
        finally:
            done.set()

    t = threading.Thread(target=write)
    t.start()
    opened = 0
    while not done.is_set() or opened == 0:
        ResultStore(tmp_path)
        opened += 1
    t.join()
    assert errors == []
    assert ResultStore(tmp_path).finished() == {f"r{i}" for i in range(n)}


def test_a_stale_temporary_file_of_a_dead_writer_is_removed_on_open(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    from fedcomp.runner.store import _host, identity
    me = identity()
    stale = tmp_path / f".tmp-{_host()}-{dead.pid}-{me['token']}-part-c-0-00000000.parquet"
    mine = tmp_path / f".tmp-{_host()}-{me['pid']}-{me['token']}-part-c-1-00000000.parquet"
    stale.write_bytes(b"half a part")
    mine.write_bytes(b"being written")
    ResultStore(tmp_path)
    assert not stale.exists()
    assert mine.exists()  # this process is alive: its file stays


# -- 6b. a fit that divergence leaves with too few points is inconclusive and says why ----------

def test_a_fit_left_with_two_points_is_inconclusive_and_says_what_was_dropped():
    x = np.array([10.0, 20.0, 40.0, 80.0])
    values = np.tile(x ** -0.5, (6, 1)) * np.exp(0.01 * np.arange(6))[:, None]
    values[:, 2:] = np.nan  # every run at x = 40 and 80 diverged
    fit = fit_exponent(x, values, n_boot=200)
    assert (fit.n_points, fit.n_dropped, fit.dropped_x) == (2, 2, [40.0, 80.0])
    v = upper_bound_verdict(fit, -0.5)
    assert v.verdict == "inconclusive"
    assert "2 grid point(s) dropped" in v.reason and "diverged or missing" in v.reason
    assert "x = 40, 80" in v.reason and "fewer than 3 usable grid points" in v.reason
    values[:, 1] = np.nan  # one point left: no fit at all, and the error says why
    with pytest.raises(ValueError, match=r"3 of 4 had no finite run \(diverged or missing\)"):
        fit_exponent(x, values, n_boot=200)


def test_sweep_command_reports_fits_that_divergence_shrank_or_prevented(monkeypatch, capsys):
    """Runs diverged at the largest T's: the fit at K=2 keeps 2 of 4 points (inconclusive,
    the reason names the dropped points), the one at K=3 keeps 1 (no fit: inconclusive with the
    reason, not an error after all the runs); the sweep's output is printed either way."""
    import json

    from fedcomp.rates.measure import Sweep
    Ts, rows = [32, 64, 128, 256], []
    for K, n_ok in ((2, 2), (3, 1)):
        for i, T in enumerate(Ts):
            for seed in range(3):
                ok = i < n_ok
                rows.append({"T": T, "K": K, "seed": seed, "diverged": not ok,
                             "avg_grad_sq": T ** -0.5 * (1 + 0.01 * seed) if ok else np.nan})
    monkeypatch.setattr(Sweep, "run", lambda self, *a, **k: pd.DataFrame(rows))
    rc = main(["sweep", "feddro", "--T", *map(str, Ts), "--K", "2", "3", "--seeds", "3",
               "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["runs"] == 24 and out["diverged"] == 2 * 3 + 3 * 3
    by = {(f["over"], f.get("K"), f.get("T")): f for f in out["fits"]}
    k2, k3, over_k = by[("T", 2, None)], by[("T", 3, None)], by[("K", None, 256)]
    assert k2["verdict"] == "inconclusive" and k2["n_points"] == 2
    assert k2["dropped_x"] == [128.0, 256.0]
    assert "2 grid point(s) dropped" in k2["reason"] and "x = 128, 256" in k2["reason"]
    assert "fewer than 3 usable grid points" in k2["reason"]
    for row in (k3, over_k):
        assert row["verdict"] == "inconclusive" and row["slope"] is None
        assert "no fit" in row["reason"] and "diverged or missing" in row["reason"]


def test_a_dask_address_in_the_environment_selects_dask():
    code = ("from fedcomp.rates.measure import DEFAULT_EXECUTOR as D; "
            "print(D['executor'], D['address'])")
    env = {k: v for k, v in os.environ.items() if not k.startswith("FEDCOMP_DASK")
           and k != "FEDCOMP_EXECUTOR"}
    out = subprocess.run([sys.executable, "-c", code], env={**env, "FEDCOMP_DASK_ADDRESS":
                                                             "tcp://127.0.0.1:1"},
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == ["dask", "tcp://127.0.0.1:1"]
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["inprocess", "None"]
