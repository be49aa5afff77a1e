"""How an algorithm is described: its steps, hyperparameters, state sizes and communication.

An algorithm is its *client step* and its *sync step* (plus an *init step*), written as plain
Python functions against the kernel protocol of :mod:`fedcomp.problems.base`; the engine compiles
them together with a problem's kernels (:mod:`fedcomp.engine.build`) and owns everything else:
the iteration loop, random keys, the ledger, recording and divergence stops.

Step signatures (all arrays float64 unless said; the engine allocates them)::

    init_step(data, X, Y, Z, W, S, hyper, base, I, exact, ledger)
    client_step(data, phase, k, t, X, Y, Z, W, S, hyper, base, I, exact)
    sync_step(data, phase, t, is_round, X, Y, Z, W, S, hyper, base, I, exact, ledger)

X (K, d) client models, initialised to x0; Y (K, d_g) client inner estimates; Z (K, nz) other
client state (momenta, previous iterates, dual variables); W (K, nw) client scratch; S (ns,)
server state; hyper: float64 array [eta, then the algorithm's hyperparameters in declared order];
base: the run's uint64 base key (draw samples with ``sample_key(base, k, t, j)``); I: local steps;
exact: bool (exact oracles); ledger: int64 (see :mod:`fedcomp.engine.prims`).

``check_hyper(values)`` (optional) receives {"eta", "local_steps", and every hyperparameter} and
raises ValueError for constraints that couple several of them (e.g. alpha * eta <= 1); it runs in
Python before any compiled code, for :func:`fedcomp.simulate` and ``simulate_many`` alike.

Each iteration t runs, for each phase, the client step of every client and then the sync step;
``is_round`` is True when (t + 1) % I == 0. Steps may call the kernel names, the primitives of
:mod:`fedcomp.engine.prims`, the rng functions and the functions listed in ``helpers``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from fedcomp import _validate as V
from fedcomp.algorithms import spec as _spec


@dataclass(frozen=True)
class HyperParam:
    """One hyperparameter and its accepted range (defaults to (0, inf), open)."""
    name: str
    low: float = 0.0
    high: float = math.inf
    low_open: bool = True
    high_open: bool = True
    default: float | None = None
    doc: str = ""

    def check(self, value) -> float:
        return V.real_in(self.name, value, self.low, self.high, self.low_open, self.high_open)

    def range_text(self) -> str:
        return (f"{'(' if self.low_open else '['}{self.low:g}, {self.high:g}"
                f"{')' if self.high_open else ']'}")


@dataclass(frozen=True)
class Algorithm:
    """A registered algorithm (see the module docstring for the step protocol)."""
    name: str
    citation: str
    init_step: Callable | None = None
    client_step: Callable | None = None
    sync_step: Callable | None = None
    hyper: tuple[HyperParam, ...] = ()
    sizes: Callable[[int, int], tuple[int, int, int]] = lambda d, dg: (0, 0, 0)
    ledger_slots: tuple[str, ...] = ("x",)
    n_phases: int = 1
    helpers: tuple[Callable, ...] = ()
    requires: tuple[str, ...] = ("g_value", "g_vjp", "f_grad", "h_grad")
    structures: tuple[str, ...] = ("global-inner",)
    fixed_local_steps: int | None = None
    tracks_inner: bool = True
    check_hyper: Callable[[dict], None] | None = None
    summary: str = ""
    extra: dict = field(default_factory=dict)
    # one definition for both backends (fedcomp.algorithms.spec); when given, the engine
    # generates init_step, client_step and sync_step from them
    state: _spec.State | None = None
    schedule: tuple = ()
    numba: _spec.Steps | None = None
    torch: _spec.Steps | None = None

    def __post_init__(self):
        if self.numba is None:
            if None in (self.init_step, self.client_step, self.sync_step):
                raise ValueError(f"{self.name}: give numba=Steps(...) or the three legacy steps")
            return
        if self.state is None:
            object.__setattr__(self, "state", _spec.State())
        _spec.validate(self.name, self.state, self.hyper_names(), self.schedule,
                       self.ledger_slots, self.numba, self.torch)
        st = self.state
        object.__setattr__(self, "sizes", lambda d, dg: (st.total("client", d, dg),
                                                         st.total("scratch", d, dg),
                                                         st.total("server", d, dg)))

    def hyper_names(self) -> list[str]:
        return [h.name for h in self.hyper]

    def resolve_hyper(self, eta: float, local_steps: int, hyper: dict) -> dict:
        """Every hyperparameter's checked value (given, else its default), in declared order,
        after the coupled constraints of ``check_hyper``; a ValueError names the offender and
        the accepted range. Both backends call this, so they accept exactly the same input."""
        unknown = sorted(set(hyper) - set(self.hyper_names()))
        if unknown:
            acc = ", ".join(f"{h.name} in {h.range_text()}" for h in self.hyper) or "none"
            raise ValueError(f"unknown hyperparameter(s) {unknown} for {self.name!r}; "
                             f"it accepts: {acc}")
        resolved = {}
        for h in self.hyper:
            if h.name in hyper:
                resolved[h.name] = h.check(hyper[h.name])
            elif h.default is not None:
                resolved[h.name] = h.default
            else:
                raise ValueError(f"missing hyperparameter {h.name} for {self.name!r}: "
                                 f"give {h.name}= a value in {h.range_text()}")
        if self.check_hyper is not None:
            self.check_hyper({"eta": eta, "local_steps": local_steps, **resolved})
        return resolved

    @property
    def defined_once(self) -> bool:
        """True when the algorithm is one definition (named state, schedule, steps per backend)."""
        return self.numba is not None


_REGISTRY: dict[str, Algorithm] = {}


def register(alg: Algorithm) -> Algorithm:
    if alg.name in _REGISTRY and _REGISTRY[alg.name] is not alg:
        raise ValueError(f"algorithm {alg.name!r} is already registered")
    _REGISTRY[alg.name] = alg
    return alg


def names() -> list[str]:
    """Sorted names of the registered algorithms."""
    return sorted(_REGISTRY)


def get(name: str) -> Algorithm:
    if not isinstance(name, str) or name not in _REGISTRY:
        raise ValueError(f"unknown algorithm {name!r}; valid names: {', '.join(names())}")
    return _REGISTRY[name]
