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
