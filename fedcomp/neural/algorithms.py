"""Running the algorithms on nn.Modules: every algorithm's one definition (its torch steps,
:mod:`fedcomp.algorithms`) through the torch loop of :mod:`fedcomp.engine.torch_backend`.

There is no second implementation here: :func:`run` resolves and checks the hyperparameters
exactly as :func:`fedcomp.simulate` does (``Algorithm.resolve_hyper``, ``check_hyper``
included), starts the named state from the model's initialisation, and records the user's
evaluation. Samples: slot 0, ``sample_key(base, k, t, 0)``, is the inner sample (FedDRO's
zeta_k^t, the AUC paper's xi_t), slot 1 the other one, as in the simulator, so both backends draw
the same minibatches for the same seed. BatchNorm statistics (``state.buf``, (K, n_buf)) are
averaged with x at every model round, when the model has any.

Global-inner (FedDRO problem (2), :class:`~fedcomp.neural.problems.GlobalCompositional`):
``fedavg-case1``, ``fedavg-case2``, ``fedavg-modified``, ``feddro``, ``feddro-literal``,
``feddro-independent``, ``ds-feddro``, ``mbsgd``, ``local-scgd``, ``local-scgdm``.

Minimax (AUC paper (4), :class:`~fedcomp.neural.problems.AUCMinimax`): ``localscgdam``
(:mod:`fedcomp.algorithms.localscgdam`), ``coda``, ``localsgdam`` and ``localsgdm``
(:mod:`fedcomp.algorithms.auc_baselines`) run their one definition's torch steps; there the
engine's y is the inner estimate h (LocalSCGDAM) and the dual is the client variable ``dual``
(``res.state.z["dual"]``), which starts at ``y0``; the dual projection of ``dual_floor`` (AUC-M)
follows every dual step.

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
``fcsg``, ``fcsg-m``, ``acc-fcsg-m`` run from their one definition in
:mod:`fedcomp.algorithms.fcsg` (its torch steps, through the problems' ``cond_grad`` and
``cond_grad_b``): u_1 from B = ``init_batch`` outer samples (tasks) at x_0 (key (k, 0, 1); the
experiments pass B = b), S_t = key (k, t, 0), x and (FCSG-M, Acc-FCSG-M) u averaged every q.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from fedcomp import _validate as V
from fedcomp.neural._core import (base_key, deterministic_cudnn, full_float32,
                                  require_torch)

torch = require_torch()

# the neural problems' structure -> the simulator's (FCSG (1) is local-inner with extra oracles)
_AS_SIM = {"conditional": "local-inner"}


@dataclass
class NeuralState:
    """The end state of a run: models X (K, d), inner estimates Y (K, d_g), the definition's
    other client variables by name in ``z``, its server arrays in ``s``, BatchNorm statistics."""
    X: "torch.Tensor"
    Y: "torch.Tensor"
    buf: "torch.Tensor"
    z: dict = field(default_factory=dict)
    s: dict = field(default_factory=dict)
    rounds: int = 0
    floats: dict = field(default_factory=dict)


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


def names(structure: str | None = None) -> list[str]:
    """Sorted names of the algorithms with torch steps (optionally those for one structure)."""
    from fedcomp import algorithms as A
    want = _AS_SIM.get(structure, structure)
    return sorted(n for n in A.names() if A.get(n).torch is not None
                  and (structure is None or want in A.get(n).structures))


def get(name: str):
    """The one definition of `name` (:func:`fedcomp.algorithms.get`), if it has torch steps."""
    from fedcomp import algorithms as A
    alg = A.get(name)
    if alg.torch is None:
        raise ValueError(f"algorithm {name!r} has no torch steps; the neural backend runs "
                         f"{', '.join(names())}")
    return alg


def run(problem, algorithm: str, iterations: int, eta: float, local_steps: int = 1,
        x0=None, y0=None, seed: int = 0, stochastic: bool = True, evaluate=None,
        eval_every: int | None = None, progress: bool = False, desc: str | None = None,
        buffers0=None, batched: bool | None = None, **hyper) -> NeuralResult:
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
    batched : bool or None
        True: every oracle call evaluates all clients in one vectorised call where the problem
        has batched oracles (``torch.func.vmap``); False: one call per client (the reference,
        same iterates up to rounding). None (default): :func:`use_batched` decides.
    **hyper
        The algorithm's hyperparameters.
    """
    # on a GPU: float32 as on the CPU (no TensorFloat-32), deterministic cuDNN convolutions
    with full_float32(), deterministic_cudnn():
        return _run_defined_once(get(algorithm), problem, iterations, eta, local_steps, x0, y0,
                                 seed, stochastic, evaluate, eval_every, progress, desc,
                                 buffers0, hyper,
                                 use_batched(problem) if batched is None else bool(batched))


def use_batched(problem) -> bool:
    """The default of ``run(..., batched=None)``: vectorise the clients on a GPU always, and on
    the CPU only for models without convolutions. Measured (bench/neural_bench.py, docs/neural.md):
    on the CPU a convolution over one client's minibatch already saturates the cores, and the
    vectorised form (grouped convolutions, one group per client) is slower (0.4-0.9 times the
    loop), while for linear models the loop's per-call overhead dominates (batched about twice as
    fast); on an H100 the batched form was 2.3 to 7.4 times the loop on every benchmarked
    experiment (docs/neural.md, "On a GPU")."""
    model = getattr(problem, "model", None)
    if model is None:
        return True
    dev = model.initial_vector().device.type
    return dev != "cpu" or not model.has_convolutions


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
                      evaluate, eval_every, progress, desc, buffers0, hyper,
                      batched=True) -> NeuralResult:
    """:func:`run` through the algorithm's one definition (fedcomp.engine.torch_backend)."""
    from fedcomp.engine import torch_backend as TB
    if _AS_SIM.get(problem.structure, problem.structure) not in alg.structures:
        raise ValueError(f"algorithm {alg.name!r} solves {', '.join(alg.structures)} problems, "
                         f"got a {problem.structure} one")
    T = V.positive_int("iterations", iterations)
    I = V.positive_int("local_steps", local_steps)
    alg.check_local_steps(I)
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
                 progress=None if bar is None else bar.update, client0=client0,
                 batched=batched)
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
