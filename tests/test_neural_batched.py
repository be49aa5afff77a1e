"""Batched clients (issue 16): the neural problems' vectorised oracles (``*_batch``,
``torch.func.vmap`` over the client rows) against the per-client loop they replace.

For every algorithm with torch steps, on every tiny neural problem of its structure, float64, the
same seed: the run with batched oracles and the run with ``batched=False`` (one oracle call per
client, the reference) end in the same state (every named client and server variable, the
BatchNorm statistics) to 1e-10, with the same history, rounds and floats, for exact and
stochastic oracles. The problems have clients of unequal sizes (exact oracles then group clients
by size) and, where the structure allows, a model with BatchNorm running statistics.

``FEDCOMP_TEST_DEVICE=cuda`` runs the same comparisons on a GPU (default: the CPU); where torch
sees a GPU, the CPU and GPU runs are also compared with each other.
"""
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from fedcomp.neural import algorithms as NA  # noqa: E402

from backend_cases import HYPER  # noqa: E402

pytestmark = pytest.mark.neural

SIZES = (9, 5, 7)   # unequal client data sets
DEV = os.environ.get("FEDCOMP_TEST_DEVICE", "cpu")


@pytest.fixture(autouse=True)
def _double_one_thread():
    n, dt = torch.get_num_threads(), torch.get_default_dtype()
    torch.set_num_threads(1)
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_num_threads(n)
    torch.set_default_dtype(dt)


def _bn_net(d_in, out=1):
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(d_in, 4), torch.nn.BatchNorm1d(4),
                               torch.nn.Tanh(), torch.nn.Linear(4, out))


def _flat(module, dev):
    from fedcomp.neural._core import FlatModel
    return FlatModel(module).to(dev, torch.float64)


def _tabular(seed, d=3, classes=2):
    rng = np.random.default_rng(seed)
    xs = [rng.standard_normal((m, d)) for m in SIZES]
    ys = [np.r_[np.arange(classes), rng.integers(0, classes, m - classes)] for m in SIZES]
    return xs, ys, rng


def _global_inner(dev=DEV):
    from fedcomp.neural.problems import ClientData, fairness_penalty, kl_dro
    xs, ys, rng = _tabular(1)
    data = ClientData(xs, ys, device=dev, dtype=torch.float64)
    kl = kl_dro(_flat(_bn_net(3), dev), data, lam=0.7, batch_size=4)
    groups = [np.r_[0, 1, rng.integers(0, 2, m - 2)] for m in SIZES]
    data2 = ClientData(xs, ys, extras={"group": groups}, device=dev, dtype=torch.float64)
    fair = fairness_penalty(_flat(_bn_net(3), dev), data2, 2, [0.5, 0.25, 0.25], batch_size=4)
    return {"kl-dro-bn": kl, "fairness-bn": fair}


def _local_inner(dev=DEV):
    from fedcomp.neural.problems import ClientData, LocalCompositional
    xs, ys, _ = _tabular(2, classes=3)
    data = ClientData(xs, ys, device=dev, dtype=torch.float64)
    return {"robust-fl-bn": LocalCompositional(_flat(_bn_net(3, 3), dev), data, gamma=2.0),
            "plain-fl-bn": LocalCompositional(_flat(_bn_net(3, 3), dev), data, gamma=None)}


def _minimax(dev=DEV):
    from fedcomp.neural.models import AUCModel, LogisticRegression
    from fedcomp.neural.problems import AUCMinimax, ClientData
    xs, ys, _ = _tabular(3)
    torch.manual_seed(0)
    net = LogisticRegression(3, 1)
    torch.nn.init.normal_(net.linear.weight, std=0.3)
    model = _flat(AUCModel(net), dev)
    data = ClientData(xs, ys, device=dev, dtype=torch.float64)
    return {"auc-sigmoid": AUCMinimax(model, data, prior=0.4, rho=0.2, batch_size=4,
                                      dual_floor=-1.0)}


def _conditional(dev=DEV):
    from fedcomp.neural.models import AUCModel, ConvNet4, LogisticRegression
    from fedcomp.neural.problems import ClientData, ConditionalAUPRC, MAMLProblem
    xs, ys, rng = _tabular(4)
    torch.manual_seed(0)
    net = LogisticRegression(3, 1)
    torch.nn.init.normal_(net.linear.weight, std=0.3)
    auprc = ConditionalAUPRC(_flat(AUCModel(net), dev),
                             ClientData(xs, ys, device=dev, dtype=torch.float64),
                             outer_batch=2, inner_batch=3)
    chars = [rng.random((n, 4, 1, 28, 28)) for n in (6, 5, 7)]
    torch.manual_seed(0)
    maml = MAMLProblem(_flat(ConvNet4(3, channels=2), dev), chars, n_way=3, k_shot=1, query=2,
                       inner_lr=0.4, tasks_per_step=2, task_chunk=3, device=dev)
    return {"auprc": auprc, "maml": maml}


BUILDERS = {"global-inner": _global_inner, "local-inner": _local_inner, "minimax": _minimax,
            "conditional": _conditional}


def _cases():
    """(algorithm, structure, problem) for every tiny problem whose oracles the algorithm calls
    (the minimax problem's oracles have their own names; every minimax algorithm runs on it)."""
    out = []
    for structure, build in BUILDERS.items():
        for pname, problem in build().items():
            for name in NA.names(structure):
                if structure == "minimax" or all(hasattr(problem, r)
                                                 for r in NA.get(name).requires):
                    out.append((name, structure, pname))
    return out


class _Spy:
    """The problem, counting the calls of its batched oracles."""

    def __init__(self, problem):
        self._p, self.calls = problem, 0

    def __getattr__(self, name):
        attr = getattr(self._p, name)
        if name.endswith("_batch") and name != "f_grad_batch" and callable(attr):
            def counted(*a, **k):
                self.calls += 1
                return attr(*a, **k)
            return counted
        return attr


CASES = _cases()


def _max_rel_diff(a, b):
    """max |u - v| / max(1, max |u|) over every named variable of two final states."""
    pairs = [("X", a.X, b.X), ("Y", a.Y, b.Y), ("buf", a.buf, b.buf)]
    pairs += [(f"z[{n}]", v, b.z[n]) for n, v in a.z.items()]
    pairs += [(f"s[{n}]", v, b.s[n]) for n, v in a.s.items()]
    worst = (None, 0.0)
    for label, u, v in pairs:
        assert u.shape == v.shape, label
        if not u.numel():
            continue
        u, v = u.cpu(), v.cpu()
        err = float((u - v).abs().max()) / max(1.0, float(u.abs().max()))
        if err >= worst[1]:
            worst = (label, err)
    return worst


def _run(problem, name, stochastic, batched):
    alg = NA.get(name)
    I = alg.fixed_local_steps or 2
    hyper = dict(HYPER[name])
    if problem.structure == "conditional" and "init_batch" in hyper:
        hyper["init_batch"] = 2.0
    return NA.run(problem, name, 5, 0.05, I, seed=7, stochastic=stochastic, batched=batched,
                  x0=problem.model.initial_vector(), **hyper)


def test_every_algorithm_with_torch_steps_has_a_case():
    assert {c[0] for c in CASES} == set(NA.names())


@pytest.mark.parametrize("stochastic", [True, False])
@pytest.mark.parametrize("name,structure,pname", CASES)
def test_batched_oracles_equal_the_per_client_loop(name, structure, pname, stochastic):
    problem = BUILDERS[structure]()[pname]
    spy = _Spy(problem)
    ref = _run(spy, name, stochastic, batched=False)
    assert spy.calls == 0
    out = _run(spy, name, stochastic, batched=True)
    assert spy.calls > 0, "the batched run never called a batched oracle"
    assert ref.diverged_at is None and out.diverged_at is None
    assert (out.rounds, out.floats_by_variable) == (ref.rounds, ref.floats_by_variable)
    a, b = ref.state, out.state
    label, err = _max_rel_diff(a, b)
    assert err <= 1e-10, (label, err)
    assert bool((a.X != problem.model.initial_vector()[None]).any()), \
        "the run did not move the model: the comparison would be vacuous"
    if problem.model.buffer_dim and stochastic:
        assert bool((a.buf != problem.model.initial_buffers()[None]).any()), \
            "BatchNorm statistics never updated: the BN part of the comparison is vacuous"


def test_exact_oracles_group_clients_by_size():
    """Whole data sets of unequal sizes are gathered in groups of equal size (no padding: a
    padded sample would change BatchNorm's batch statistics); stochastic draws form one group
    whose rows are the per-client draws."""
    problem = _local_inner()["plain-fl-bn"]
    d = problem.data
    ks = np.array([2, 0, 1])
    groups = d.gather(ks, np.array([5, 6, 7], dtype=np.uint64), True, 4)
    assert sorted(g[1].shape[1] for g in groups) == sorted(SIZES)
    for pos, inp, tgt, _ in groups:
        for i, q in enumerate(pos):
            assert torch.equal(inp[i], d.inputs[ks[q]])
    (pos, inp, tgt, _), = d.gather(ks, np.array([5, 6, 7], dtype=np.uint64), False, 4)
    for i, q in enumerate(pos):
        r_in, r_t, _ = d.batch(int(ks[q]), [5, 6, 7][q], False, 4)
        assert torch.equal(inp[i], r_in) and torch.equal(tgt[i], r_t)


def test_default_vectorises_linear_models_on_the_cpu_only():
    """run(..., batched=None): batched for models without convolutions on the CPU, the loop for
    convolutional ones (bench/neural_bench.py measures why); both give the same iterates."""
    from fedcomp.neural.algorithms import use_batched
    assert use_batched(_local_inner("cpu")["plain-fl-bn"])
    assert not use_batched(_conditional("cpu")["maml"])


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU that torch sees")
@pytest.mark.parametrize("name,structure,pname", CASES)
def test_gpu_computes_the_cpu_iterates(name, structure, pname):
    """The same run (stochastic oracles, the default batching of each device) on the CPU and on
    the GPU, float64: the final states agree to 1e-10 (only the order of floating-point sums
    differs between the two), with the same rounds and floats."""
    cpu = _run(BUILDERS[structure]("cpu")[pname], name, True, None)
    gpu = _run(BUILDERS[structure]("cuda")[pname], name, True, None)
    assert cpu.diverged_at is None and gpu.diverged_at is None
    assert (gpu.rounds, gpu.floats_by_variable) == (cpu.rounds, cpu.floats_by_variable)
    assert gpu.state.X.device.type == "cuda"
    label, err = _max_rel_diff(cpu.state, gpu.state)
    assert err <= 1e-10, (label, err)
