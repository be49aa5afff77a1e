"""Every bad input of the contract gets a ValueError naming the parameter and its range."""
import numpy as np
import pytest

import fedcomp


@pytest.fixture(scope="module")
def p():
    return fedcomp.problems.LinearQuadratic.random(3, 2, 2, seed=0)


@pytest.mark.parametrize("kwargs, match", [
    (dict(eta=0.0), r"eta must be in \(0, inf\)"),
    (dict(eta=-1.0), r"eta must be in \(0, inf\)"),
    (dict(eta=float("nan")), r"eta must be a finite"),
    (dict(local_steps=0), r"local_steps must be an integer >= 1"),
    (dict(local_steps=2.5), r"local_steps must be an integer >= 1"),
    (dict(iterations=0), r"iterations must be an integer >= 1"),
    (dict(record_every=0), r"record_every must be an integer >= 1"),
    (dict(beta=0.0), r"beta must be in \(0, 1\]"),
    (dict(beta=1.5), r"beta must be in \(0, 1\]"),
    (dict(beta=0.5, gamma=1.0), r"unknown hyperparameter\(s\) \['gamma'\].*beta in \(0, 1\]"),
    (dict(), r"missing hyperparameter beta.*\(0, 1\]"),
    (dict(beta=0.5, x0=np.zeros(3)), r"x0 must have shape \(2,\)"),
    (dict(beta=0.5, x0=[np.nan, 0.0]), r"x0 must contain only finite values"),
    (dict(beta=0.5, seed=-1), r"seed must be a non-negative integer"),
    (dict(beta=0.5, stochastic="yes"), r"stochastic must be True or False"),
])
def test_bad_simulate_arguments(p, kwargs, match):
    base = dict(iterations=10, eta=0.1, local_steps=2)
    base.update(kwargs)
    with pytest.raises(ValueError, match=match):
        fedcomp.simulate(p, "feddro", **base)


def test_unknown_algorithm_lists_valid_names(p):
    with pytest.raises(ValueError, match=r"unknown algorithm 'fedsgd'.*feddro"):
        fedcomp.simulate(p, "fedsgd")


def test_mbsgd_needs_one_local_step(p):
    with pytest.raises(ValueError, match=r"local_steps must be 1 for 'mbsgd'"):
        fedcomp.simulate(p, "mbsgd", local_steps=5)


def test_ds_feddro_server_rates(p):
    with pytest.raises(ValueError, match=r"server_lr_x must be in \(0, inf\)"):
        fedcomp.simulate(p, "ds-feddro", beta=0.5, server_lr_x=-1.0, server_lr_y=1.0)


@pytest.mark.parametrize("A, b, match", [
    (np.full((2, 2, 2), np.nan), np.zeros((2, 2)), "A must contain only finite values"),
    (np.ones((2, 2, 2)), np.array([[0.0, np.inf], [0.0, 0.0]]), "b must contain only finite"),
    (np.ones((2, 2)), np.zeros((2, 2)), "A must have 3 dimensions"),
    (np.ones((2, 2, 2)), np.zeros((3, 2)), r"b must have shape \(2, 2\)"),
])
def test_bad_problem_data(A, b, match):
    with pytest.raises(ValueError, match=match):
        fedcomp.problems.LinearQuadratic(A, b)


def test_bad_noise_and_problem_type():
    with pytest.raises(ValueError, match=r"noise must be in \[0, inf\)"):
        fedcomp.problems.LinearQuadratic(np.ones((1, 1, 1)), np.zeros((1, 1)), noise=-0.1)
    with pytest.raises(ValueError, match="problem must be a fedcomp.problems.Problem"):
        fedcomp.simulate("not a problem", "feddro", beta=0.5)


def test_bad_dro_data():
    f, lab = fedcomp.problems.make_logistic_clients(num_clients=2, samples_per_client=5, dim=3)
    with pytest.raises(ValueError, match=r"labels\[0\] must contain only -1 and \+1"):
        fedcomp.problems.KLDRO(f, [np.zeros(len(lab[0])), lab[1]])
    with pytest.raises(ValueError, match=r"lam must be in \(0, inf\)"):
        fedcomp.problems.KLDRO(f, lab, lam=0.0)
    with pytest.raises(ValueError, match=r"batch_size must be an integer >= 1"):
        fedcomp.problems.Chi2DRO(f, lab, batch_size=0)
    with pytest.raises(ValueError, match="form must be 'printed' or 'corrected'"):
        fedcomp.problems.Chi2DRO(f, lab, form="other")
