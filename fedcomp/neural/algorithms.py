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

Minimax (AUC paper (4), :class:`~fedcomp.neural.problems.AUCMinimax`):

* ``localscgdam`` - AUC paper Algorithm 1, eqs. (11)-(14): h, u, v moving averages with weights
  alpha*eta, beta_x*eta, beta_y*eta; x -= gamma_x eta u, y += gamma_y eta v; every p iterations
  x, y, u, v and h are averaged (the prose under (14) and "Step 6"). Initialisation from the box:
  h_0 = g(x_0; xi_0), u_0, v_0 the stochastic gradients at (h_0, y_0) (momentum weight 1).
  Samples: xi_t (inner, CE step) = key (k, t, 0), zeta_t (outer, AUC loss) = key (k, t, 1).
  Interpretation: in (12) at iteration t the gradient uses the *updated* h_t (11), as printed.
* ``coda`` - CoDA (Guo et al. 2020), as :mod:`fedcomp.algorithms.auc_baselines`: local SGDA on
  the AUC loss (1) of the model itself (no compositional step), with the proximal term
  ``prox_coef`` (v - v_ref), x and y averaged every p; every ``stage_rounds`` rounds (0: one
  stage) the reference point becomes the averaged model and eta is divided by ``stage_decay``.
  Samples: key (k, t, 1).
* ``localsgdam`` - LocalSGDAM (Sharma et al. 2022): (12)-(13) without the compositional step
  (gradients of L_AUC at x itself, keys at index t + 1), x, y, u, v averaged every p.
* ``localsgdm`` - LocalSGDM (Yu et al. 2019): u = momentum * u + grad L_CE(x; key (k, t, 0)),
  x -= eta u, u_0 = 0; x and u averaged every p.

Local-inner (ComFedL problem (1), :class:`~fedcomp.neural.problems.LocalCompositional`):
``comfedl``, ``fedavg``, ``q-fedavg`` and ``drfl`` run their one definition
(:mod:`fedcomp.algorithms.comfedl`, :mod:`fedcomp.algorithms.robust_baselines`): client
sampling (``clients_per_round``, 0 = all), minibatches of the algorithm's ``batch`` (and
ComFedL's ``outer_batch``), the same draws as the simulator. ``drfl`` is therefore the
simulator's DRFA (Deng et al. 2020, the paper's algorithm): m clients sampled by lambda, the loss
step at a random local snapshot on m uniformly sampled clients' minibatches. (The neural copy it
replaced ran DRFA "in expectation": all clients, the lambda-weighted mean of the final models and
full losses; that variant is gone.)

Conditional (FCSG problem (1), :class:`~fedcomp.neural.problems.ConditionalAUPRC`,
:class:`~fedcomp.neural.problems.MAMLProblem`), FCSG Algorithms 1 and 2 (Wu et al. 2023):

* ``fcsg`` - u_{t+1} = estimator (3) at x_t; ``fcsg-m`` - u_{t+1} = (1 - beta) u_t + beta (3);
  ``acc-fcsg-m`` - u_{t+1} = (3)(x_t) + (1 - beta)(u_t - (3)(x_{t-1})) with the same samples at
  both points (STORM), x_{t-1} the point where u_t was formed. x_{t+1} = x_t - alpha u_{t+1};
  every q iterations u and x are averaged (lines 5-8). u_1 from one estimator at x_0 (B = b,
  key (k, 0, 1)); S_t = key (k, t, 0). The order and keys are those of
  :mod:`fedcomp.algorithms.fcsg` (engine iteration t = the paper's t + 1).
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


def _momentum_sync(names_):
    def sync(P, st, t, is_round, c, phase):
        if is_round:
            for n in names_:
                if n in ("X", "Y"):
                    st.avg(n)
                else:
                    st.avg(n, st.z[n])
            st.model_round()
    return sync


# --- minimax: AUC ---------------------------------------------------------------------------
def _auc_grads(P, st, k, t, c, compositional: bool):
    """Stochastic (grad_x, grad_y) at client k's (x, y) and iteration t; for LocalSCGDAM through
    the inner estimate h (which the caller has updated by (11))."""
    x, y = st.X[k], st.Y[k]
    if compositional:
        gz, gy = P.outer_grads(k, st.z["h"][k], y, c.key(k, t, 1), c.exact)
        return P.inner_vjp(k, x, gz, c.key(k, t, 0), c.exact), gy
    return P.outer_grads(k, x, y, c.key(k, t, 1), c.exact)


def _project_dual(P, y):
    """AUC-M's projection of the dual (``AUCMinimax.dual_floor``; a no-op for the paper's (1)
    and for problems without one, such as the simulator's)."""
    project = getattr(P, "project_dual", None)
    if project is not None:
        project(y)


def _scgdam_init(P, st, c):
    st.z["h"] = torch.empty_like(st.X)
    st.z["u"] = torch.empty_like(st.X)
    st.z["v"] = torch.empty_like(st.Y)
    for k in range(P.num_clients):
        val, vjp = P.inner_linearize(k, st.X[k], c.key(k, 0, 0), c.exact)
        st.z["h"][k] = val
        gz, gy = P.outer_grads(k, st.z["h"][k], st.Y[k], c.key(k, 0, 1), c.exact)
        st.z["u"][k], st.z["v"][k] = vjp(gz), gy


def _scgdam_client(P, st, k, t, c, phase):
    h = c.hyper
    eta = h["eta"]
    st.X[k] -= h["gamma_x"] * eta * st.z["u"][k]                       # (13)
    st.Y[k] += h["gamma_y"] * eta * st.z["v"][k]
    _project_dual(P, st.Y[k])
    a = h["alpha"] * eta                                                 # (11), xi_{t+1}
    val, vjp = P.inner_linearize(k, st.X[k], c.key(k, t + 1, 0), c.exact)
    st.z["h"][k] = (1 - a) * st.z["h"][k] + a * val
    gz, gy = P.outer_grads(k, st.z["h"][k], st.Y[k], c.key(k, t + 1, 1), c.exact)
    gx = vjp(gz)                                                         # (12), zeta_{t+1}
    st.z["u"][k] = (1 - h["beta_x"] * eta) * st.z["u"][k] + h["beta_x"] * eta * gx
    st.z["v"][k] = (1 - h["beta_y"] * eta) * st.z["v"][k] + h["beta_y"] * eta * gy


def _sgdam_init(P, st, c):
    st.z["u"] = torch.empty_like(st.X)
    st.z["v"] = torch.empty_like(st.Y)
    for k in range(P.num_clients):
        st.z["u"][k], st.z["v"][k] = _auc_grads(P, st, k, 0, c, False)


def _sgdam_client(P, st, k, t, c, phase):
    h = c.hyper
    eta = h["eta"]
    st.X[k] -= h["gamma_x"] * eta * st.z["u"][k]
    st.Y[k] += h["gamma_y"] * eta * st.z["v"][k]
    _project_dual(P, st.Y[k])
    gx, gy = _auc_grads(P, st, k, t + 1, c, False)
    st.z["u"][k] = (1 - h["beta_x"] * eta) * st.z["u"][k] + h["beta_x"] * eta * gx
    st.z["v"][k] = (1 - h["beta_y"] * eta) * st.z["v"][k] + h["beta_y"] * eta * gy


def _coda_init(P, st, c):
    st.s["ref"] = st.X[0].clone()
    st.s["eta"] = c.hyper["eta"]


def _coda_client(P, st, k, t, c, phase):
    gx, gy = _auc_grads(P, st, k, t, c, False)
    eta = st.s["eta"]
    if c.hyper["prox_coef"] > 0:
        gx = gx + c.hyper["prox_coef"] * (st.X[k] - st.s["ref"])
    st.X[k] -= eta * gx
    st.Y[k] += eta * gy
    _project_dual(P, st.Y[k])


def _coda_sync(P, st, t, is_round, c, phase):
    if is_round:
        st.avg("X")
        st.avg("Y")
        st.model_round()
        sr = int(c.hyper["stage_rounds"])
        if sr > 0 and st.rounds % sr == 0:  # a stage ends: new reference point, smaller step
            st.s["ref"] = st.X[0].clone()
            st.s["eta"] /= c.hyper["stage_decay"]


def _sgdm_init(P, st, c):
    st.z["u"] = torch.zeros_like(st.X)


def _sgdm_client(P, st, k, t, c, phase):
    g = P.ce_grad(k, st.X[k], c.key(k, t, 0), c.exact)
    st.z["u"][k] = c.hyper["momentum"] * st.z["u"][k] + g
    st.X[k] -= c.hyper["eta"] * st.z["u"][k]


_AUC = "Zhang et al., Federated Compositional Deep AUC Maximization (NeurIPS 2023)"
_MOM = ("gamma_x", "gamma_y", "beta_x", "beta_y")
_register(NeuralAlgorithm("localscgdam", _AUC + ", Algorithm 1, eqs. (11)-(14)", "minimax",
                          _scgdam_init, _scgdam_client,
                          _momentum_sync(("X", "Y", "u", "v", "h")),
                          hyper=_MOM + ("alpha",), defaults=tuple((h, 1.0) for h in _MOM)
                          + (("alpha", 1.0),)))
_register(NeuralAlgorithm("localsgdam", "Sharma et al. (ICML 2022), as baseline in " + _AUC,
                          "minimax", _sgdam_init, _sgdam_client,
                          _momentum_sync(("X", "Y", "u", "v")), hyper=_MOM,
                          defaults=tuple((h, 1.0) for h in _MOM)))
_register(NeuralAlgorithm("coda", "Guo et al. (ICML 2020), as baseline in " + _AUC, "minimax",
                          _coda_init, _coda_client, _coda_sync,
                          hyper=("prox_coef", "stage_rounds", "stage_decay"),
                          defaults=(("prox_coef", 0.0), ("stage_rounds", 0.0),
                                    ("stage_decay", 3.0))))
_register(NeuralAlgorithm("localsgdm", "Yu et al. (ICML 2019), as baseline in " + _AUC,
                          "minimax", _sgdm_init, _sgdm_client, _momentum_sync(("X", "u")),
                          hyper=("momentum",), defaults=(("momentum", 0.9),)))


# --- conditional: FCSG --------------------------------------------------------------------
def _fcsg_init(P, st, c):
    # line 2: u_1 = estimator (3) at x_0 on the initial batch (key (k, 0, 1), B = b here)
    st.z["u"] = torch.empty_like(st.X)
    for k in range(P.num_clients):
        st.z["u"][k] = P.cond_grad(k, st.X[k], c.key(k, 0, 1), c.exact, _buf(st, k))
    st.z["xprev"] = st.X.clone()


def _fcsg_client(variant):
    def client(P, st, k, t, c, phase):
        # engine iteration t is the paper's t + 1: first u_{t+1} from x_t (the current,
        # post-synchronisation model; at t = 0 u_1 comes from the initialisation), then the
        # local step x_{t+1} = x_t - alpha u_{t+1}; the sync step averages x and u (lines 5-8).
        if t > 0:
            key = c.key(k, t, 0)
            g = P.cond_grad(k, st.X[k], key, c.exact, _buf(st, k))
            if variant == "fcsg":
                st.z["u"][k] = g
            elif variant == "fcsg-m":
                b = c.hyper["beta"]
                st.z["u"][k] = (1 - b) * st.z["u"][k] + b * g
            else:  # acc-fcsg-m: the same samples S_t at x_t and at x_{t-1}
                b = c.hyper["beta"]
                gp = P.cond_grad(k, st.z["xprev"][k], key, c.exact, _buf(st, k))
                st.z["u"][k] = g + (1 - b) * (st.z["u"][k] - gp)
            st.z["xprev"][k] = st.X[k]
        st.X[k] -= c.hyper["eta"] * st.z["u"][k]
    return client


def _fcsg_sync(P, st, t, is_round, c, phase):
    # Lines 5-8: at a round u_t = mean u_t^n and x_t = mean (x_{t-1}^n - alpha u_t^n), which is
    # the mean of the locally stepped models; FCSG uploads x only (u is recomputed from scratch,
    # as :mod:`fedcomp.algorithms.fcsg` books it), FCSG-M and Acc-FCSG-M upload x and u.
    if is_round:
        st.avg("X")
        if c.hyper.get("beta") is not None:
            st.avg("u", st.z["u"])
        else:
            st.z["u"][:] = st.z["u"].mean(0, keepdim=True)
        st.model_round()


_FCSG = "Wu et al., Federated Conditional Stochastic Optimization (NeurIPS 2023)"
_register(NeuralAlgorithm("fcsg", _FCSG + ", Algorithm 1 (FCSG)", "conditional", _fcsg_init,
                          _fcsg_client("fcsg"), _fcsg_sync))
_register(NeuralAlgorithm("fcsg-m", _FCSG + ", Algorithm 1 (FCSG-M)", "conditional", _fcsg_init,
                          _fcsg_client("fcsg-m"), _fcsg_sync, hyper=("beta",)))
_register(NeuralAlgorithm("acc-fcsg-m", _FCSG + ", Algorithm 2", "conditional", _fcsg_init,
                          _fcsg_client("acc-fcsg-m"), _fcsg_sync, hyper=("beta",)))


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
                 progress=None if bar is None else bar.update)
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
