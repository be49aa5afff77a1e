"""The simulator's algorithms on nn.Modules: one loop, the same steps, the same random keys.

State (as in :mod:`fedcomp.algorithms.base`): X (K, d) client models, Y (K, d_g) client inner
estimates, named extra per-client tensors in ``st.z`` (momenta, previous iterates, dual
variables), server tensors in ``st.s``, BatchNorm statistics ``st.buf`` (K, n_buf) (averaged
with x at every model round, when the model has any). Each iteration t runs, for every phase,
``client(k, t)`` for every client and then ``sync(t, is_round)``, with is_round = (t + 1) % I == 0.
Samples: slot 0, ``sample_key(base, k, t, 0)``, is the inner sample (FedDRO's zeta_k^t, the AUC
paper's xi_t), slot 1 the other one (FedDRO's xi_k^t of h, the AUC paper's zeta_t): the
simulator's convention, so both backends draw the same minibatches for the same seed.

Global-inner (FedDRO problem (2), :class:`~fedcomp.neural.problems.GlobalCompositional`); the same
update rules and interpretations as the simulator modules named:

* ``fedavg-case1``, ``fedavg-case2``, ``fedavg-modified`` - :mod:`fedcomp.algorithms.fedavg`.
* ``feddro``, ``ds-feddro`` - :mod:`fedcomp.algorithms.feddro` (FedDRO Algorithms 2 and 3).
* ``feddro-literal`` - FedDRO's (8) anchored at the averaged model, the box read literally
  (:mod:`fedcomp.algorithms.feddro`: it stalls when beta is proportional to eta).
* ``mbsgd`` - :mod:`fedcomp.algorithms.mbsgd` (two phases: ybar, then the averaged gradient).
* ``local-scgd``, ``local-scgdm`` - :mod:`fedcomp.algorithms.local_scgd` (Gao, Li and Huang 2022,
  the FCSG paper's baselines): moving-average inner state h_k (kept in Y) with weight ``beta``,
  Local-SCGDM's momentum u with weight ``momentum``; x, h (and u) averaged every I. Only on
  global-inner problems here (the neural conditional problems have no separate inner and outer
  oracles for their compositional reformulation).

Minimax (AUC paper (4), :class:`~fedcomp.neural.problems.AUCMinimax`): ``localscgdam``
(:mod:`fedcomp.algorithms.localscgdam`), ``coda``, ``localsgdam`` and ``localsgdm``
(:mod:`fedcomp.algorithms.auc_baselines`) run their one definition's torch steps; there the
engine's y is the inner estimate h (LocalSCGDAM) and the dual is the client variable ``dual``
(``res.state.z["dual"]``), which starts at ``y0``; the dual projection of ``dual_floor`` (AUC-M)
follows every dual step.

Local-inner (ComFedL problem (1), :class:`~fedcomp.neural.problems.LocalCompositional`):

* ``comfedl`` - ComFedL Algorithm 1 (Huang et al.) with every client participating: local SGD
  with the compositional estimator u = exp(L_B/gamma) grad L_B / gamma, w averaged every tau.
* ``fedavg`` - FedAvg (McMahan et al. 2017) on the plain loss, all clients, server model the
  data-size weighted mean sum_k (n_k / N) w_k (as :mod:`fedcomp.algorithms.robust_baselines`).
* ``q-fedavg`` - q-FedAvg (Li et al. 2020) with all clients: each client runs tau local SGD steps
  from w, Delta_k = L (w - w_k), L = 1/eta, and the server takes w -= sum_k F_k^q Delta_k /
  sum_k (q F_k^{q-1} ||Delta_k||^2 + L F_k^q), F_k = the client's loss at w on all its data
  + 1e-10 (the reference implementation). With all clients participating this is the
  simulator's rule with m = K.
* ``drfl`` - DRFA (Deng et al. 2020) in expectation: every client runs tau local SGD steps, the
  server takes the lambda-weighted mean of the models and the projected ascent step
  lambda <- Proj_simplex(lambda + tau * ``lambda_lr`` * F(w)) with F_k(w) the clients' full
  losses. DIFFERENCE from the simulator's ``drfl``: DRFA samples m clients by lambda, takes the
  losses at a random local snapshot on m uniformly sampled clients' minibatches; here those
  draws are replaced by their expectations (all clients, the final local model, full losses).

Conditional (FCSG problem (1), :class:`~fedcomp.neural.problems.ConditionalAUPRC`,
:class:`~fedcomp.neural.problems.MAMLProblem`), FCSG Algorithms 1 and 2 (Wu et al. 2023):
``fcsg``, ``fcsg-m``, ``acc-fcsg-m`` run from their one definition in
:mod:`fedcomp.algorithms.fcsg` (its torch steps, through the problems' ``cond_grad`` and
``cond_grad_b``): u_1 from B = ``init_batch`` outer samples (tasks) at x_0 (key (k, 0, 1); the
experiments pass B = b), S_t = key (k, t, 0), x and (FCSG-M, Acc-FCSG-M) u averaged every q.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from fedcomp import _validate as V
from fedcomp.neural._core import base_key, key_of, require_torch

torch = require_torch()


@dataclass
class NeuralState:
    X: "torch.Tensor"
    Y: "torch.Tensor"
    buf: "torch.Tensor"
    z: dict = field(default_factory=dict)
    s: dict = field(default_factory=dict)
    rounds: int = 0
    floats: dict = field(default_factory=dict)

    def avg(self, name: str, M=None):
        """Every client uploads its row of M (default st.<name>); all rows become the mean."""
        M = getattr(self, name) if M is None else M
        M[:] = M.mean(0, keepdim=True)
        self.floats[name] = self.floats.get(name, 0) + int(M.numel())

    def model_round(self):
        self.rounds += 1
        if self.buf.shape[1]:
            self.buf[:] = self.buf.mean(0, keepdim=True)


@dataclass
class Ctx:
    base: np.uint64
    I: int
    exact: bool
    hyper: dict

    def key(self, k, t, j=0):
        return key_of(self.base, k, t, j)


@dataclass(frozen=True)
class NeuralAlgorithm:
    name: str
    citation: str
    structure: str
    init: callable
    client: callable
    sync: callable
    hyper: tuple = ()
    n_phases: int = 1
    fixed_local_steps: int | None = None
    summary: str = ""
    defaults: tuple = ()


_REGISTRY: dict[str, NeuralAlgorithm] = {}


def _register(alg):
    _REGISTRY[alg.name] = alg
    return alg


# the neural problems' structure -> the simulator's (FCSG (1) is local-inner with extra oracles)
_AS_SIM = {"conditional": "local-inner"}


def _defined_once(name: str):
    """The one definition of `name` when it has torch steps (fedcomp.algorithms), else None."""
    from fedcomp import algorithms as A
    if name in A.names() and A.get(name).torch is not None:
        return A.get(name)
    return None


def names(structure: str | None = None) -> list[str]:
    """Sorted names of the algorithms the neural backend runs (optionally for one structure)."""
    from fedcomp import algorithms as A
    out = {n for n, a in _REGISTRY.items() if structure in (None, a.structure)}
    for n in A.names():
        alg = _defined_once(n)
        if alg is not None and (structure is None or _AS_SIM.get(structure, structure)
                                in alg.structures):
            out.add(n)
    return sorted(out)


def get(name: str):
    """The algorithm `name`: its one definition (fedcomp.algorithms) when it has torch steps."""
    alg = _defined_once(name)
    if alg is not None:
        return alg
    if name not in _REGISTRY:
        raise ValueError(f"unknown neural algorithm {name!r}; valid names: {', '.join(names())}")
    return _REGISTRY[name]


# --- helpers of the algorithms not yet moved to one definition (issue 14) ------------------
def _buf(st, k):
    return st.buf[k] if st.buf.shape[1] else None


def _noop_init(P, st, c):
    pass


# --- local-inner: ComFedL and the robust-FL baselines ----------------------------------------
def _local_sgd_client(compositional):
    def client(P, st, k, t, c, phase):
        key = c.key(k, t, 0)
        g = (P.local_grad(k, st.X[k], key, c.exact, _buf(st, k)) if compositional
             else P.loss_grad(k, st.X[k], key, c.exact, _buf(st, k))[1])
        st.X[k] -= c.hyper["eta"] * g
    return client


def _round_start_init(P, st, c):
    st.s["w"] = st.X[0].clone()
    if "lam" not in st.s:
        st.s["lam"] = torch.full((P.num_clients,), 1.0 / P.num_clients, dtype=st.X.dtype,
                                 device=st.X.device)


def _qfedavg_sync(P, st, t, is_round, c, phase):
    if not is_round:
        return
    q, L = c.hyper["q"], 1.0 / c.hyper["eta"]
    w = st.s["w"]
    num = torch.zeros_like(w)
    den = 0.0
    for k in range(P.num_clients):
        Fk = P.client_loss(k, w, _buf(st, k)) + 1e-10  # as the reference qffedavg.py
        delta = L * (w - st.X[k])
        num += Fk ** q * delta
        den += q * Fk ** (q - 1) * float(delta @ delta) + L * Fk ** q
    w -= num / den
    st.X[:] = w[None, :]
    st.floats["X"] = st.floats.get("X", 0) + int(st.X.numel()) + P.num_clients
    st.model_round()


def _project_simplex(v):
    """Euclidean projection onto the probability simplex (Duchi et al. 2008)."""
    u, _ = torch.sort(v, descending=True)
    css = torch.cumsum(u, 0) - 1.0
    ind = torch.arange(1, v.numel() + 1, device=v.device, dtype=v.dtype)
    rho = int(torch.nonzero(u - css / ind > 0).max())
    return torch.clamp(v - css[rho] / (rho + 1), min=0.0)


def _drfl_sync(P, st, t, is_round, c, phase):
    if not is_round:
        return
    lam = st.s["lam"]
    w = (lam[:, None] * st.X).sum(0)
    st.floats["X"] = st.floats.get("X", 0) + int(st.X.numel())
    losses = torch.tensor([P.client_loss(k, w, _buf(st, k)) for k in range(P.num_clients)],
                          dtype=w.dtype, device=w.device)
    st.s["lam"] = _project_simplex(lam + c.I * c.hyper["lambda_lr"] * losses)
    st.X[:] = w[None, :]
    st.s["w"] = w.clone()
    st.model_round()


def _avg_x_sync(P, st, t, is_round, c, phase):
    if is_round:
        st.avg("X")
        st.model_round()


def _weighted_avg_sync(P, st, t, is_round, c, phase):
    """FedAvg's server step: the data-size weighted mean sum_k (n_k / N) w_k."""
    if is_round:
        n = torch.as_tensor(P.data.sizes, dtype=st.X.dtype, device=st.X.device)
        st.X[:] = ((n / n.sum())[:, None] * st.X).sum(0, keepdim=True)
        st.floats["X"] = st.floats.get("X", 0) + int(st.X.numel())
        st.model_round()


_CF = "Huang, Li, Huang, Compositional Federated Learning (ComFedL), Algorithm 1"
_register(NeuralAlgorithm("comfedl", _CF, "local-inner", _noop_init, _local_sgd_client(True),
                          _avg_x_sync))
_register(NeuralAlgorithm("fedavg", "McMahan et al. (2017) FedAvg, baseline of ComFedL 5.1",
                          "local-inner", _noop_init, _local_sgd_client(False),
                          _weighted_avg_sync))
_register(NeuralAlgorithm("q-fedavg", "Li et al. (ICLR 2020) q-FedAvg, baseline of ComFedL 5.1",
                          "local-inner", _round_start_init, _local_sgd_client(False),
                          _qfedavg_sync, hyper=("q",), defaults=(("q", 0.2),)))
_register(NeuralAlgorithm("drfl", "Deng et al. (NeurIPS 2020) DRFA, baseline of ComFedL 5.1",
                          "local-inner", _round_start_init, _local_sgd_client(False), _drfl_sync,
                          hyper=("lambda_lr",)))


# --- the loop -------------------------------------------------------------------------------
@dataclass
class NeuralResult:
    """What a neural run returns (the simulator's SimulationResult, for neural models)."""
    algorithm: str
    x_bar: "torch.Tensor"
    buf_bar: "torch.Tensor"
    history: list
    rounds: int
    floats_sent: int
    floats_by_variable: dict
    diverged_at: int | None
    seconds: float
    state: NeuralState

    def to_frame(self):
        import pandas as pd
        return pd.DataFrame(self.history)


def run(problem, algorithm: str, iterations: int, eta: float, local_steps: int = 1,
        x0=None, y0=None, seed: int = 0, stochastic: bool = True, evaluate=None,
        eval_every: int | None = None, progress: bool = False, desc: str | None = None,
        buffers0=None, **hyper) -> NeuralResult:
    """Run a neural algorithm on a neural problem (the counterpart of :func:`fedcomp.simulate`).

    Parameters
    ----------
    problem : a problem of :mod:`fedcomp.neural.problems` whose ``structure`` the algorithm takes
    algorithm : str
        A name of :func:`names`.
    iterations : int >= 1
        T, local iterations per client.
    eta : float > 0
        Client step size (alpha of FCSG, eta of the AUC paper).
    local_steps : int >= 1
        I (p, q, tau): iterations between model rounds.
    x0 : tensor (d,), optional
        Initial model; default the model's own initialisation.
    y0 : tensor (d_g,), optional
        Initial dual variable of minimax problems (default zeros).
    seed : int
        Base key of the sample draws (the simulator's :func:`fedcomp.rng.base_key`).
    stochastic : bool
        False: exact (full-batch) oracles.
    evaluate : callable(x_bar, buf_bar) -> dict of floats, optional
        Called after every ``eval_every`` iterations (default: every model round) and at the end.
    **hyper
        The algorithm's hyperparameters.
    """
    one = _defined_once(algorithm)
    if one is not None:
        return _run_defined_once(one, problem, iterations, eta, local_steps, x0, y0, seed,
                                 stochastic, evaluate, eval_every, progress, desc, buffers0,
                                 hyper)
    alg = get(algorithm)
    if alg.structure != problem.structure:
        raise ValueError(f"algorithm {algorithm!r} needs a {alg.structure} problem, got a "
                         f"{problem.structure} one")
    T = V.positive_int("iterations", iterations)
    I = V.positive_int("local_steps", local_steps)
    if alg.fixed_local_steps is not None and I != alg.fixed_local_steps:
        raise ValueError(f"local_steps must be {alg.fixed_local_steps} for {algorithm}, got {I}")
    hyp = {"eta": V.real_in("eta", eta, 0.0)}
    hyper = {**dict(alg.defaults), **hyper}
    missing = [h for h in alg.hyper if h not in hyper]
    unknown = [h for h in hyper if h not in alg.hyper]
    if missing or unknown:
        raise ValueError(f"{algorithm} takes hyperparameters {list(alg.hyper)}; missing "
                         f"{missing}, unknown {unknown}")
    for h, v in hyper.items():
        hi, hopen = (1.0, False) if h in ("beta", "momentum") else (math.inf, True)
        lopen = h not in ("prox_coef", "stage_rounds", "momentum", "q")
        hyp[h] = V.real_in(h, v, 0.0, hi, low_open=lopen, high_open=hopen)
    K = problem.num_clients
    x0, y, b0 = _initial(problem, x0, y0, buffers0)
    st = NeuralState(X=x0[None, :].repeat(K, 1).clone(), Y=y[None, :].repeat(K, 1).clone(),
                     buf=b0[None, :].repeat(K, 1).clone())
    c = Ctx(base=base_key(seed), I=I, exact=not stochastic, hyper=hyp)
    every = eval_every or I
    history, diverged = [], None
    t0 = time.perf_counter()

    def record(t):
        row = {"algorithm": algorithm, "t": t, "round": st.rounds,
               "seconds": time.perf_counter() - t0}
        if evaluate is not None:
            row.update(evaluate(st.X.mean(0), st.buf.mean(0)))
        history.append(row)

    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=T, desc=desc or algorithm, leave=False)
    alg.init(problem, st, c)
    record(0)
    for t in range(T):
        is_round = (t + 1) % I == 0
        for ph in range(alg.n_phases):
            for k in range(K):
                alg.client(problem, st, k, t, c, ph)
            alg.sync(problem, st, t, is_round, c, ph)
        if bar is not None:
            bar.update(1)
        if not bool(torch.isfinite(st.X).all()):
            diverged = t + 1
            break
        if (t + 1) % every == 0 or t + 1 == T:
            record(t + 1)
    if bar is not None:
        bar.close()
    floats = dict(st.floats)
    return NeuralResult(algorithm, st.X.mean(0), st.buf.mean(0), history, st.rounds,
                        int(sum(floats.values())), floats, diverged,
                        time.perf_counter() - t0, st)


def _initial(problem, x0, y0, buffers0):
    model = problem.model
    p0 = model.initial_vector()
    x0 = p0 if x0 is None else torch.as_tensor(x0, dtype=p0.dtype, device=p0.device)
    if x0.shape != (model.dim,):
        raise ValueError(f"x0 must have shape ({model.dim},), got {tuple(x0.shape)}")
    dg = getattr(problem, "inner_dim", getattr(problem, "dual_dim", 0))
    y = torch.zeros(dg, dtype=p0.dtype, device=p0.device)
    if y0 is not None:
        y[:] = torch.as_tensor(y0, dtype=p0.dtype, device=p0.device)
    b0 = model.initial_buffers() if buffers0 is None else buffers0
    return x0, y, b0


def _run_defined_once(alg, problem, iterations, eta, local_steps, x0, y0, seed, stochastic,
                      evaluate, eval_every, progress, desc, buffers0, hyper) -> NeuralResult:
    """:func:`run` through the algorithm's one definition (fedcomp.engine.torch_backend)."""
    from fedcomp.engine import torch_backend as TB
    if _AS_SIM.get(problem.structure, problem.structure) not in alg.structures:
        raise ValueError(f"algorithm {alg.name!r} solves {', '.join(alg.structures)} problems, "
                         f"got a {problem.structure} one")
    T = V.positive_int("iterations", iterations)
    I = V.positive_int("local_steps", local_steps)
    if alg.fixed_local_steps is not None and I != alg.fixed_local_steps:
        raise ValueError(f"local_steps must be {alg.fixed_local_steps} for {alg.name}, got {I}")
    eta_v = V.real_in("eta", eta, 0.0)
    resolved = alg.resolve_hyper(eta_v, I, hyper)
    x0, y, b0 = _initial(problem, x0, y0, buffers0)
    client0 = None
    if problem.structure == "minimax":
        # y0 is the dual's initial value; the engine's y is the inner estimate h (size d)
        client0 = {"dual": y} if "dual" in alg.state.client else {}
        y = torch.zeros(problem.dim, dtype=x0.dtype, device=x0.device)
    history = []
    t0 = time.perf_counter()

    def record(t, state, buf, rounds):
        row = {"algorithm": alg.name, "t": t, "round": rounds,
               "seconds": time.perf_counter() - t0}
        if evaluate is not None:
            row.update(evaluate(state["x"].mean(0), buf.mean(0)))
        history.append(row)

    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=T, desc=desc or alg.name, leave=False)
    out = TB.run(alg, problem, T, eta_v, resolved, I, x0, y, base_key(seed), not stochastic,
                 record, eval_every or I, buffers0=b0,
                 progress=None if bar is None else bar.update, client0=client0)
    if bar is not None:
        bar.close()
    st = NeuralState(X=out.state["x"], Y=out.state["y"], buf=out.buf,
                     z={n: v for n, v in out.state.items() if n not in ("x", "y")
                        and not n.startswith("server:")},
                     s={n[7:]: v for n, v in out.state.items() if n.startswith("server:")},
                     rounds=out.rounds, floats=dict(out.floats))
    return NeuralResult(alg.name, st.X.mean(0), st.buf.mean(0), history, out.rounds,
                        int(sum(out.floats.values())), dict(out.floats), out.diverged_at,
                        out.seconds, st)
