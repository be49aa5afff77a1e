"""The compiled-kernel cache on disk (fedcomp.engine.kernel_cache, ``fedcomp cache``): last use
recorded on load, pruning by age, whole folders of other numba/Python versions, the CLI."""
import json
import os
import time

import pytest

from fedcomp.cli import main
from fedcomp.engine import build
from fedcomp.engine import kernel_cache as KC

DAY = 86400.0


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FEDCOMP_CACHE_DIR", str(tmp_path))
    return build.cache_dir()


def _module(d, name, age_days, now, compiled=2):
    """A fake cached module: source, compiled files in __pycache__, last used age_days ago."""
    src = d / f"{name}.py"
    src.write_text("# generated\n")
    pyc = d / "__pycache__"
    pyc.mkdir(exist_ok=True)
    files = [src]
    for i in range(compiled):
        f = pyc / f"{name}.fn-{i}.py311.nbc"
        f.write_bytes(b"x" * 10)
        files.append(f)
    KC.touch(src)
    files.append(src.with_suffix(".used"))
    t = now - age_days * DAY
    for f in files:
        os.utime(f, (t, t))
    return files


def test_prune_removes_what_was_not_used_for_days(cache):
    now = time.time()
    old = _module(cache, "fcgen_feddro__lq_kernels_aaaa", 40, now)
    new = _module(cache, "fcgen_feddro__lq_kernels_bbbb", 2, now)
    sym = _module(cache, "fcsym_cccc", 31, now, compiled=1)
    other = cache.parent / "kernels-nb0.1-py39"
    other.mkdir()
    _module(other, "fcgen_x_dddd", 90, now)
    recent_other = cache.parent / "kernels-nb0.2-py39"
    recent_other.mkdir()
    _module(recent_other, "fcgen_x_eeee", 90, now)
    _module(recent_other, "fcgen_x_ffff", 1, now)
    kinds = {e.name: e.kind for e in KC.entries(cache)}
    assert kinds == {"fcgen_feddro__lq_kernels_aaaa": "engine",
                     "fcgen_feddro__lq_kernels_bbbb": "engine", "fcsym_cccc": "sympy"}
    would = KC.prune(30, dry_run=True, now=now)
    assert all(p.exists() for p in old + new + sym) and other.exists()
    gone = KC.prune(30, now=now)
    assert sorted(would) == sorted(gone)
    assert not any(p.exists() for p in old + sym)
    assert all(p.exists() for p in new)
    assert not other.exists()   # another version's folder, every module old: removed whole
    assert recent_other.exists() and not (recent_other / "fcgen_x_eeee.py").exists()
    assert (recent_other / "fcgen_x_ffff.py").exists()
    assert cache.exists()       # this version's folder stays, even when emptied
    assert KC.prune(0, now=now + 1)   # days=0: everything, the current folder's modules too
    assert cache.exists() and not list(cache.glob("fcgen_*"))


def test_loading_a_module_records_its_use(cache, monkeypatch):
    """kernel_module (generated engine modules) marks the module as used when it loads it, and
    not by touching the source (numba versions before content hashing stamp caches with it)."""
    from fedcomp.algorithms import get
    monkeypatch.setattr(build, "_LOADED", {})
    monkeypatch.setattr(build, "_BY_PAIR", {})
    mod = build.kernel_module(get("feddro"), "fedcomp.problems._linear_kernels")
    path = cache / f"{mod.__name__}.py"
    marker = path.with_suffix(".used")
    assert path.exists() and marker.exists()
    t = time.time() - 100 * DAY
    os.utime(marker, (t, t))
    os.utime(path, (t, t))
    monkeypatch.setattr(build, "_LOADED", {})
    monkeypatch.setattr(build, "_BY_PAIR", {})
    build.kernel_module(get("feddro"), "fedcomp.problems._linear_kernels")
    assert time.time() - marker.stat().st_mtime < 3600
    assert abs(path.stat().st_mtime - t) < 1      # the source itself untouched
    # the pair's module and the metrics module of its problem kernels, which it imports
    entries = {e.name: e for e in KC.entries(cache)}
    assert set(entries) == {mod.__name__, build.metrics_module(
        "fedcomp.problems._linear_kernels").__name__}
    assert all(e.age_days(time.time()) < 1 for e in entries.values()) and KC.prune(30) == []


def test_cache_cli(cache, capsys):
    now = time.time()
    _module(cache, "fcgen_a_1111", 60, now)
    assert main(["cache", "info", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["folders"][cache.name]["modules"] == {"engine": 1}
    assert main(["cache", "prune", "--days", "30", "--dry-run"]) == 0
    assert "would remove" in capsys.readouterr().out and (cache / "fcgen_a_1111.py").exists()
    assert main(["cache", "prune", "--days", "-1"]) == 2
    assert "days must be in [0, inf)" in capsys.readouterr().err
    assert main(["cache", "prune"]) == 0 and not (cache / "fcgen_a_1111.py").exists()
    assert main(["cache", "clear"]) == 0 and not cache.exists()


def test_a_closed_pipe_is_not_an_internal_error(cache):
    """`fedcomp cache prune --dry-run | head -1`: the reader stops early; the command ends
    quietly (exit 141, as a shell reports SIGPIPE), not with "internal error"."""
    import subprocess
    import sys
    now = time.time()
    for i in range(1500):   # about 150 kB of output: more than a pipe buffers
        _module(cache, f"fcgen_x_{i:04d}", 60, now, compiled=0)
    env = dict(os.environ, FEDCOMP_CACHE_DIR=str(cache.parent))
    proc = subprocess.Popen([sys.executable, "-m", "fedcomp", "cache", "prune", "--dry-run"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141, err
    assert "internal error" not in err and "Traceback" not in err


def test_every_algorithm_on_a_problem_family_imports_one_record_metrics(cache, monkeypatch):
    """The recorded metrics do not depend on the algorithm: the pair modules of one problem
    kernel module import one compiled record_metrics (build.metrics_module), so it compiles once
    per family; another family has its own. Loaded from threads at once, every pair finds it
    whole (build._LOCK)."""
    from concurrent.futures import ThreadPoolExecutor
    from fedcomp.algorithms import get
    for name in ("_LOADED", "_BY_PAIR", "_METRICS_SOURCES", "_SOURCES"):
        monkeypatch.setattr(build, name, {})
    lq, kl = "fedcomp.problems._linear_kernels", "fedcomp.problems._kl_kernels"
    shared = build.metrics_module(lq).record_metrics
    for alg in ("feddro", "fedavg-case2", "local-scgdm"):
        mod = build.kernel_module(get(alg), lq)
        assert mod.record_metrics is shared
        assert "def record_metrics" not in build.generate_source(get(alg), lq)
    assert build.kernel_module(get("feddro"), kl).record_metrics is not shared
    assert build.metrics_module(kl).__name__ != build.metrics_module(lq).__name__
    assert build.metrics_module(lq).__name__.startswith("fcgen__metrics__linear_kernels_")
    algs = ("feddro", "ds-feddro", "fedavg-case1", "fedavg-case2", "fedavg-modified")
    for _ in range(5):  # without the lock about 3 rounds in 4 raised ImportError on this machine
        for name in ("_LOADED", "_BY_PAIR", "_METRICS_SOURCES"):
            monkeypatch.setattr(build, name, {})
        with ThreadPoolExecutor(len(algs)) as ex:
            mods = list(ex.map(lambda a: build.kernel_module(get(a), lq), algs))
        assert len({m.record_metrics for m in mods}) == 1
