import subprocess
import sys
import types

import pytest

import fedcomp


def test_contract_algorithm_names_present():
    names = fedcomp.algorithms.names()
    for n in ["fedavg-case1", "fedavg-case2", "fedavg-modified", "feddro", "ds-feddro"]:
        assert n in names
    assert names == sorted(names)


def test_feddro_reaches_stationary_point_when_grad_f_vanishes(small_lq):
    res = fedcomp.simulate(small_lq, "feddro", iterations=2000, eta=0.05, local_steps=5,
                           stochastic=False, record_every=100, beta=0.5)
    assert res.diverged_at is None
    assert res.grad_norm_sq[-1] < 1e-12
    assert res.rounds == 2000 // 5


def test_the_command_line_parser_imports_no_fits_and_no_tables():
    """`fedcomp --help` (building the parser) imports neither scipy.stats (the fits of
    fedcomp.rates, 0.6 s) nor pandas (the runner's tables, 0.4 s): fedcomp.rates and
    fedcomp.runner import their names on first use."""
    code = ("import sys; from fedcomp.cli import build_parser; build_parser(); "
            "print('scipy.stats' in sys.modules, 'pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False", out.stdout + out.stderr


def test_fedcomp_runner_names_resolve_lazily():
    import fedcomp.runner as R
    from fedcomp.runner import executors, spec, store
    assert R.RunSpec is spec.RunSpec and R.ResultStore is store.ResultStore
    assert R.run_specs is executors.run_specs and R.EXECUTORS is executors.EXECUTORS
    assert set(R.__all__) <= set(dir(R)) | set(R._NAMES)
    with pytest.raises(AttributeError, match="no_such_name"):
        R.no_such_name


def test_fedcomp_rates_names_resolve_lazily():
    import fedcomp.rates as R
    from fedcomp.rates import fit, measure, schedules
    assert R.fit_exponent is fit.fit_exponent and R.Sweep is measure.Sweep
    assert R.ds_feddro is schedules.ds_feddro and R.SCHEDULES is schedules.SCHEDULES
    assert isinstance(R.feddro, types.ModuleType)   # the measurements, not the schedule
    with pytest.raises(AttributeError, match="no_such_name"):
        R.no_such_name
