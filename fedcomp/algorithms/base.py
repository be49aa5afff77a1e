"""How an algorithm is described: one definition for both backends (:mod:`.spec`).

An :class:`Algorithm` holds, once: its citation, its hyperparameters with their ranges
(:class:`HyperParam`) and coupled constraints (``check_hyper``), its named state
(:class:`~fedcomp.algorithms.spec.State`), its communication schedule as data, and its steps for
each backend (:class:`~fedcomp.algorithms.spec.Steps`: ``numba``, the compiled step of one
client; ``torch``, the step of all clients at once). The engine owns everything else: the
iteration loop, random keys, the ledger, recording and divergence stops. Each iteration t runs,
for each phase, the client step (of every client) and then the schedule's exchanges;
``is_round`` is True when (t + 1) % I == 0.

``check_hyper(values)`` (optional) receives {"eta", "local_steps", and every hyperparameter} and
raises ValueError for constraints that couple several of them (e.g. alpha * eta <= 1); it runs in
Python before any compiled code, for both backends (:meth:`Algorithm.resolve_hyper`).

The README's "Add an algorithm" is a worked example.
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
    hyper: tuple[HyperParam, ...] = ()
    ledger_slots: tuple[str, ...] = ("x",)
    n_phases: int = 1
    requires: tuple[str, ...] = ("g_value", "g_vjp", "f_grad", "h_grad")
    structures: tuple[str, ...] = ("global-inner",)
    fixed_local_steps: int | None = None
    tracks_inner: bool = True
    check_hyper: Callable[[dict], None] | None = None
    summary: str = ""
    extra: dict = field(default_factory=dict)
    # the one definition (fedcomp.algorithms.spec): the engine generates the compiled
    # wrappers from state, schedule and numba steps; the torch backend runs the torch steps
    state: _spec.State = field(default_factory=_spec.State)
    schedule: tuple = ()
    numba: _spec.Steps | None = None
    torch: _spec.Steps | None = None

    def __post_init__(self):
        if not isinstance(self.numba, _spec.Steps):
            raise ValueError(f"{self.name}: numba=Steps(client, init) is required (the compiled "
                             f"step of one client; fedcomp.algorithms.spec)")
        _spec.validate(self.name, self.state, self.hyper_names(), self.schedule,
                       self.ledger_slots, self.numba, self.torch)

    def sizes(self, d: int, dg: int) -> tuple[int, int, int]:
        """Entries per client of the other client state and of the scratch, and of the server
        state: the engine's buffers Z, W, S."""
        st = self.state
        return st.total("client", d, dg), st.total("scratch", d, dg), st.total("server", d, dg)

    def hyper_names(self) -> list[str]:
        return [h.name for h in self.hyper]

    def check_local_steps(self, local_steps: int) -> None:
        """An algorithm with a fixed number of local steps (MBSGD: 1) refuses any other."""
        if self.fixed_local_steps is not None and local_steps != self.fixed_local_steps:
            raise ValueError(f"local_steps must be {self.fixed_local_steps} for {self.name!r} "
                             f"(got {local_steps})")

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
