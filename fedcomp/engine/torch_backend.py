"""The second backend: an algorithm's torch steps on tensors (CPU or GPU), from its one definition.

The loop is the compiled engine's (:mod:`fedcomp.engine.loop`): for every iteration t and phase,
the client step, then the schedule's exchanges in order; the same random keys
(``sample_key(base, k, t, j)``), so that both backends draw the same samples for a seed. What
differs is the shape of a step: a torch step updates **all clients at once**, its client
variables being (K, n) tensors (the rows of the numba backend's buffers), and it calls the
problem's oracles through ``p`` (:class:`Bound`), which batches them over the clients.

A problem for this backend is an object with the per-client oracles of
:mod:`fedcomp.neural.problems` (``g_value(k, x, key, exact, buf)``, ...); the simulator's
synthetic problems get one from :func:`fedcomp.neural.synthetic.torch_form`. A problem that
defines a batched oracle (the same name with ``_batch``: ``g_value_batch(x, keys, exact, buf)``)
is called once for all clients instead of once per client (the neural problems vectorise the
clients with :func:`torch.func.vmap`). ``Bound(batched=False)`` (``run(..., batched=False)``)
ignores the batched oracles and loops over the clients: the reference the batched oracles are
tested against (tests/test_neural_batched.py), and the per-client arm of bench/neural_bench.py.

Rounds and uploads are booked in the compiled engine's ledger layout (an int64 array: [0] model
rounds, [1 + s] floats of ledger slot s); a schedule's server function that books its own uploads
(a number that depends on which clients took part) receives it as ``ledger``, as the numba one does.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numba as nb
import numpy as np

from fedcomp.algorithms import spec as _spec
from fedcomp.rng import sample_key


@nb.njit(cache=True)
def client_keys(base, K, t, j):
    """sample_key(base, k, t, j) for k < K, as a uint64 array."""
    out = np.empty(K, dtype=np.uint64)
    for k in range(K):
        out[k] = sample_key(base, k, t, j)
    return out


class Bound:
    """The problem's oracles for one run (the ``p`` of torch steps): batched over the clients,
    with the run's exactness, keys and the clients' BatchNorm statistics bound in."""

    def __init__(self, problem, base, exact: bool, buf, batched: bool = True):
        self.problem, self.base, self.exact, self.buf = problem, np.uint64(base), exact, buf
        self.K = problem.num_clients
        self.has_h = bool(getattr(problem, "has_h", False))
        self.stochastic_outer = bool(getattr(problem, "stochastic_outer", False))
        self.batched = bool(batched)

    def _batched(self, name):
        """The problem's batched oracle ``name + "_batch"``, or None (absent, or batched=False)."""
        return getattr(self.problem, name + "_batch", None) if self.batched else None

    def key(self, t: int, j: int = 0) -> np.ndarray:
        """The keys of sample j of every client at iteration t, (K,)."""
        return client_keys(self.base, self.K, t, j)

    def _b(self, k):
        return self.buf[k] if self.buf.shape[1] else None

    def _each(self, name, keys, *rows):
        batched = self._batched(name)
        if batched is not None:
            return batched(*rows, keys, self.exact, self.buf)
        torch = _torch()
        fn = getattr(self.problem, name)
        return torch.stack([fn(k, *(r[k] for r in rows), keys[k], self.exact, self._b(k))
                            for k in range(self.K)])

    # global-inner and local-inner problems (FedDRO (2), ComFedL (1))
    def g_value(self, x, keys):
        """g_k(x_k; zeta(keys[k])) for every client, (K, d_g)."""
        return self._each("g_value", keys, x)

    def g_value2(self, x1, x2, keys):
        """g_k at two points with one sample per client (FedDRO (8))."""
        return self.g_value(x1, keys), self.g_value(x2, keys)

    def g_vjp(self, x, v, keys):
        """grad g_k(x_k; zeta) v_k for every client, (K, d)."""
        return self._each("g_vjp", keys, x, v)

    def h_grad(self, x, keys):
        """grad h_k(x_k; xi) for every client, (K, d) (zeros without h)."""
        return self._each("h_grad", keys, x)

    def f_grad(self, y, keys=None):
        """grad f(y_k) for every row of y, (K, d_g) (``f_grad_batch(y)`` when the problem has
        one: a local-inner problem's f_k depends on the client, so only the batch knows k).

        The outer gradient is exact for every problem except one that declares
        ``stochastic_outer = True`` (the SCO reading of MAML,
        :meth:`fedcomp.neural.problems.MAMLProblem.f_grad`): there it is the sample of
        ``keys[k]``, the per-client oracle ``f_grad(k, y, key, exact, buf)`` or, batched,
        ``f_grad_batch(y, keys, exact, buf)``, and keys are required. Other problems ignore
        ``keys``, so their iterates are those of the keyless call."""
        if self.stochastic_outer:
            if keys is None:
                raise ValueError(f"{type(self.problem).__name__} has a stochastic outer function "
                                 "(stochastic_outer = True): f_grad needs the sample keys")
            return self._each("f_grad", keys, y)
        batched = getattr(self.problem, "f_grad_batch", None)
        if batched is not None:
            return batched(y)
        torch = _torch()
        return torch.stack([self.problem.f_grad(y[k]) for k in range(y.shape[0])])

    # minimax problems (AUC paper (4))
    # The oracles of fedcomp.neural.problems.AUCMinimax (they take no BatchNorm statistics);
    # each per client, or once for all clients when the problem has ``<name>_batch``.
    def _minimax(self, name, keys, *rows):
        batched = self._batched(name)
        if batched is not None:
            return batched(*rows, keys, self.exact)
        fn = getattr(self.problem, name)
        return [fn(k, *(r[k] for r in rows), keys[k], self.exact) for k in range(self.K)]

    def inner_linearize(self, x, keys):
        """(g_k(x_k; xi), v -> grad g_k(x_k; xi)^T v_k) for every client: the values (K, d) and
        the transposed-Jacobian product (K, d) -> (K, d), one sample (keys[k]) and one pass for
        both (the kernels' g_value and g_vjp with one key; AUC paper (11)-(12) share xi)."""
        out = self._minimax("inner_linearize", keys, x)
        if not isinstance(out, list):
            return out
        torch = _torch()

        def vjp(v):
            return torch.stack([f(v[k]) for k, (_, f) in enumerate(out)])

        return torch.stack([val for val, _ in out]), vjp

    def outer_grads(self, u, y, keys):
        """(grad_u f^(k)(u_k, y_k; zeta), grad_y f^(k)(u_k, y_k; zeta)) for every client, (K, d)
        and (K, DUAL_DIM): the kernels' outer_grad_inner and outer_grad_dual, one sample."""
        out = self._minimax("outer_grads", keys, u, y)
        if not isinstance(out, list):
            return out
        torch = _torch()
        return torch.stack([gu for gu, _ in out]), torch.stack([gy for _, gy in out])

    def ce_grad(self, x, keys):
        """grad L_CE(x_k; xi) for every client, (K, d) (the kernels' ce_grad)."""
        out = self._minimax("ce_grad", keys, x)
        return _torch().stack(out) if isinstance(out, list) else out

    def project_dual(self, y):
        """y (K, DUAL_DIM) onto the problem's dual domain, in place: the neural problem's
        ``project_dual`` (AUC-M's floor); nothing for a problem without one (the simulator's
        AUC kernels have no constraint on the dual)."""
        fn = getattr(self.problem, "project_dual", None)
        if fn is not None:
            fn(y)

    # conditional problems (FCSG paper (1))
    def cond_grad(self, x, keys):
        """The gradient of estimator (3) (the problem's outer batch b) at x_k with the samples of
        keys[k], for every client, (K, d)."""
        return self._each("cond_grad", keys, x)

    def cond_grad_b(self, x, keys, nb: int):
        """The same with nb outer samples (FCSG Algorithm 1 line 2's initial batch B), (K, d)."""
        nb = int(nb)
        batched = self._batched("cond_grad_b")
        if batched is not None:
            return batched(x, keys, self.exact, nb, self.buf)
        torch = _torch()
        fn = self.problem.cond_grad_b
        return torch.stack([fn(k, x[k], keys[k], self.exact, nb, self._b(k))
                            for k in range(self.K)])

    # local-inner problems: ComFedL and its baselines
    # Minibatch oracles with an explicit batch size nb (ComFedL's b and b1, the baselines'
    # ``batch``), evaluated for the clients ``on`` only (an index tensor or array from the
    # participation flags; None: every client): the row tensors hold those clients' rows, in the
    # order of ``on``; ``keys`` are the (K,) keys of :meth:`key`. Per client the problem gives
    # ``name(k, *rows_k, key, exact, nb, buf)``; a problem with ``name_batch(on, *rows, keys,
    # exact, nb, buf)`` (keys of the clients on, buf all clients') is called once instead.
    def _on_clients(self, on) -> np.ndarray:
        """The client indices ``on`` as an int64 array (every client for None)."""
        if on is None:
            return np.arange(self.K)
        if hasattr(on, "detach"):
            on = on.detach().cpu().numpy()
        return np.asarray(on, dtype=np.int64).reshape(-1)

    def _each_on(self, name, on, keys, nb, *rows, exact=None):
        exact = self.exact if exact is None else exact
        ks = self._on_clients(on)
        batched = self._batched(name)
        if batched is not None:
            return batched(ks, *rows, keys[ks], exact, nb, self.buf)
        torch = _torch()
        fn = getattr(self.problem, name)
        like = rows[0]
        return torch.stack([torch.as_tensor(fn(int(k), *(r[i] for r in rows), keys[k], exact, nb,
                                               self._b(k)), dtype=like.dtype, device=like.device)
                            for i, k in enumerate(ks)])

    def g_value_b(self, x, keys, nb, on=None):
        """g_k(x_k; B), |B| = nb, for the clients on, (len(on), d_g)."""
        return self._each_on("g_value_b", on, keys, nb, x)

    def g_vjp_b(self, x, v, keys, nb, on=None):
        """grad g_k(x_k; B) v_k with the batch B of g_value_b for the same keys, (len(on), d)."""
        return self._each_on("g_vjp_b", on, keys, nb, x, v)

    def g_linearize_b(self, x, keys, nb, on=None):
        """(g_k(x_k; B), v -> grad g_k(x_k; B) v) on one batch: ComFedL's value and Jacobian of
        line 9. A problem with ``g_linearize_b(k, x, key, exact, nb, buf)`` returning (value,
        vjp) evaluates both from one forward pass (neural models); else g_value_b and g_vjp_b."""
        batched = self._batched("g_linearize_b")
        if batched is not None:
            ks = self._on_clients(on)
            return batched(ks, x, keys[ks], self.exact, nb, self.buf)
        lin = getattr(self.problem, "g_linearize_b", None)
        if lin is None:
            return self.g_value_b(x, keys, nb, on), lambda v: self.g_vjp_b(x, v, keys, nb, on)
        torch = _torch()
        pairs = [lin(int(k), x[i], keys[k], self.exact, nb, self._b(k))
                 for i, k in enumerate(self._on_clients(on))]
        return (torch.stack([val for val, _ in pairs]),
                lambda v: torch.stack([vjp(v[i]) for i, (_, vjp) in enumerate(pairs)]))

    def f_grad_b(self, y, keys, nb, on=None):
        """grad f_k(y_k; B~), |B~| = nb, for the clients on, (len(on), d_g)."""
        return self._each_on("f_grad_b", on, keys, nb, y)

    def loss_value_b(self, x, keys, nb, on=None, exact=None):
        """The plain client losses l_k(x_k; B) of the FL baselines, (len(on),); ``exact=True``
        asks for the full local loss whatever the run's oracles (q-FedAvg's l_k(w^t))."""
        return self._each_on("loss_value_b", on, keys, nb, x, exact=exact)

    def loss_grad_b(self, x, keys, nb, on=None):
        """grad l_k(x_k; B), (len(on), d)."""
        return self._each_on("loss_grad_b", on, keys, nb, x)

    def client_weight(self, like):
        """n_k / N for every client (FedAvg's aggregation weights), (K,), dtype and device of
        the tensor ``like``."""
        torch = _torch()
        return torch.tensor([float(self.problem.client_weight(k)) for k in range(self.K)],
                            dtype=like.dtype, device=like.device)

    def server_key(self, s: int, j: int = 0) -> np.uint64:
        """``sample_key(base, K, s, j)``: the server's draws of round s (client sampling), keyed
        by a client index K that no client has (as the compiled steps draw them)."""
        return np.uint64(sample_key(self.base, self.K, s, j))


def _torch():
    from fedcomp.neural._core import require_torch
    return require_torch()


@dataclass
class TorchRun:
    """The end state of a torch run: named state, ledger, divergence."""
    state: dict
    buf: object
    rounds: int
    floats: dict
    diverged_at: int | None
    seconds: float
    records: list = field(default_factory=list)


def _kwargs(fn, env: dict) -> dict:
    return {n: env[n] for n in _spec.params(fn)}


def run(alg, problem, iterations: int, eta: float, hyper: dict, local_steps: int, x0, y0,
        base, exact: bool, record, record_every: int, buffers0=None, progress=None,
        client0=None, batched: bool = True) -> TorchRun:
    """Run `alg`'s torch steps on `problem` (validated inputs; see :func:`fedcomp.simulate`).

    Client variables start as x0, y0 and zeros; ``client0`` (optional) maps a named client
    variable to another initial row (the neural minimax problems' initial dual).

    ``batched=False`` calls the problem's per-client oracles even where it has batched ones.

    ``record(t, state, buf, rounds)`` is called at t = 0, after every ``record_every`` iterations and
    after the last; its return value is kept in ``TorchRun.records``.
    """
    torch = _torch()
    if alg.torch is None:
        raise ValueError(f"algorithm {alg.name!r} has no torch steps")
    K = problem.num_clients
    d = x0.shape[0]
    dg = y0.shape[0]
    st = alg.state
    state = {"x": x0[None, :].repeat(K, 1).clone(), "y": y0[None, :].repeat(K, 1).clone()}
    for name, size in st.client.items():
        state[name] = torch.zeros((K, _spec.size_of(size, d, dg)), dtype=x0.dtype,
                                  device=x0.device)
    for name, row in (client0 or {}).items():
        state[name][:] = row
    server = {name: torch.zeros(_spec.size_of(size, d, dg), dtype=x0.dtype, device=x0.device)
              for name, size in st.server.items()}
    if buffers0 is None:
        buffers0 = torch.zeros(0, dtype=x0.dtype, device=x0.device)
    buf = buffers0[None, :].repeat(K, 1).clone()
    # the compiled engine's ledger: [0] model rounds, [1 + s] floats of ledger slot s; server
    # functions that book their own uploads receive it as ``ledger``
    ledger = np.zeros(1 + len(alg.ledger_slots), dtype=np.int64)
    slot = alg.ledger_slots.index
    p = Bound(problem, base, exact, buf, batched)
    env = {"p": p, "K": K, "I": local_steps, "eta": float(eta), "ledger": ledger, **hyper,
           **state, **server, **{n.upper(): v for n, v in state.items()}}

    def exchange(e):
        if isinstance(e, _spec.Average):
            M = state[e.var]
            M[:] = M.mean(0, keepdim=True)
            ledger[1 + slot(e.book)] += int(M.numel())
        elif isinstance(e, _spec.ServerStep):
            M, c = state[e.var], server[e.center]
            c -= env[e.lr] * (c[None, :] - M).mean(0)
            M[:] = c[None, :]
            ledger[1 + slot(e.book)] += int(M.numel())
        elif isinstance(e, _spec.ModelRound):
            ledger[0] += 1
            if buf.shape[1]:
                buf[:] = buf.mean(0, keepdim=True)
        else:
            e.torch(**_kwargs(e.torch, env))

    t0 = time.perf_counter()
    env.update(t=0, phase=0, is_round=False)
    if alg.torch.init is not None:
        alg.torch.init(**_kwargs(alg.torch.init, env))
    for e in alg.schedule:
        if e.when == "init":
            exchange(e)
    records = [record(0, state, buf, int(ledger[0]))]
    diverged = None
    T, I = iterations, local_steps
    # each phase's exchanges, in schedule order: (entry, only at a round)
    due = [[(e, e.when == "round") for e in alg.schedule
            if e.when != "init" and e.phase in (None, ph)] for ph in range(alg.n_phases)]
    for t in range(T):
        env["t"] = t
        is_round = env["is_round"] = (t + 1) % I == 0
        for ph in range(alg.n_phases):
            env["phase"] = ph
            alg.torch.client(**_kwargs(alg.torch.client, env))
            for e, at_round in due[ph]:
                if is_round or not at_round:
                    exchange(e)
        if progress is not None:
            progress(1)
        if not (bool(torch.isfinite(state["x"]).all()) and bool(torch.isfinite(state["y"]).all())):
            diverged = t + 1
            break
        if (t + 1) % record_every == 0 or t + 1 == T:
            records.append(record(t + 1, state, buf, int(ledger[0])))
    floats = {s: int(ledger[1 + i]) for i, s in enumerate(alg.ledger_slots)}
    return TorchRun(state=state | {f"server:{n}": v for n, v in server.items()}, buf=buf,
                    rounds=int(ledger[0]), floats=floats, diverged_at=diverged,
                    seconds=time.perf_counter() - t0, records=records)
