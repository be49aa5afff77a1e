"""What one algorithm definition declares: named state, communication schedule, steps per backend.

An algorithm module declares, once,

* its **state** (:class:`State`): per-client arrays by name and size (``x`` (d) and ``y`` (d_g)
  always exist: the model and the inner estimate, or the dual variable of a minimax problem),
  server arrays, and, for the compiled backend only, per-client scratch;
* its **communication schedule** (a tuple of :class:`Average`, :class:`ServerStep`,
  :class:`ModelRound` and :class:`Server` entries): what is averaged or uploaded, when ("init",
  every "iteration", or every "round", i.e. when (t + 1) % I == 0), in which phase, and under which
  ledger slot it is booked;
* its **steps** for each backend (:class:`Steps`): the compiled (numba) step of one client, and
  the torch step of all clients at once, side by side in the module.

Steps are written against names. The engine reads a step's parameter names and hands it, by name:

================  ===========================================================================
name              what it receives
================  ===========================================================================
``eta``, hyper    the step size and each declared hyperparameter, as floats
client var ``v``  numba client/init step: client k's row of v (a view); torch: v for all clients,
                  (K, n), updated in place
``V`` (upper)     numba and torch server functions: all clients' rows of v, (K, n)
server var ``s``  the server array s, (n,)
scratch ``w``     numba only: client k's scratch row
``data``          numba: the problem's data tuple (the first argument of every oracle)
``p``             torch: the problem's oracles bound to this run (:mod:`fedcomp.engine.torch`)
``k``, ``K``      numba: the client index and the number of clients
``t``, ``phase``  the iteration (0-based) and the phase
``base``          numba: the run's base key; samples are ``sample_key(base, k, t, j)``
``exact``         numba: True for exact oracles (torch: bound in ``p``)
``I``             local steps between rounds; ``is_round`` (server functions): (t + 1) % I == 0
``ledger``        server functions (both backends) that book their own uploads: an int64 array,
                  ``ledger[0]`` model rounds, ``ledger[1 + s]`` floats of ledger slot s
================  ===========================================================================

The layout (which rows of the engine's flat buffers hold which name) is resolved when the
engine generates the compiled module, so the compiled code is what hand-written offsets gave.
"""
from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field
from typing import Callable

WHEN = ("init", "iteration", "round")
#: names the engine hands to steps itself: no state array may take them
RESERVED = {"x", "y", "d", "dg", "k", "K", "t", "p", "data", "base", "exact", "eta", "phase",
            "is_round", "ledger", "hyper"}


@dataclass(frozen=True)
class State:
    """Named state beyond the model ``x`` (size d) and the inner estimate ``y`` (size d_g).

    Sizes are expressions in ``d`` and ``dg`` (e.g. ``"d"``, ``"dg"``, ``"d + dg"``, ``"1"``).
    ``client``: per-client arrays (every client holds one, the torch backend too);
    ``server``: arrays the server keeps; ``scratch``: per-client work space of the compiled
    steps (the torch steps allocate their temporaries).
    """
    client: dict = field(default_factory=dict)
    server: dict = field(default_factory=dict)
    scratch: dict = field(default_factory=dict)

    def __post_init__(self):
        seen = set(RESERVED)
        for group in (self.client, self.server, self.scratch):
            for name, size in group.items():
                if not name.isidentifier() or not name.islower() or name in seen:
                    raise ValueError(f"state name {name!r} must be a new lower-case identifier, "
                                     f"not one of {sorted(RESERVED)} (x and y are implicit)")
                seen.add(name)
                size_of(size, 1, 1)

    def layout(self, group: str) -> list[tuple[str, str, str]]:
        """(name, start, stop) of each array of `group` in its flat buffer, as expressions."""
        out, start = [], "0"
        for name, size in getattr(self, group).items():
            stop = f"{start} + ({size})" if start != "0" else f"({size})"
            out.append((name, start, stop))
            start = stop
        return out

    def total(self, group: str, d: int, dg: int) -> int:
        return sum(size_of(s, d, dg) for s in getattr(self, group).values())


def size_of(expr: str, d: int, dg: int) -> int:
    """The value of a size expression in d and dg."""
    if not isinstance(expr, str) or not set(expr) <= set("d g+*0123456789()- "):
        raise ValueError(f"a state size must be an expression in d and dg, got {expr!r}")
    return int(eval(expr, {"__builtins__": {}}, {"d": d, "dg": dg}))  # noqa: S307 (checked)


@dataclass(frozen=True)
class Steps:
    """The steps of one backend. ``client`` runs every iteration (numba: once per client;
    torch: once for all clients); ``init`` once before the first iteration (same shapes)."""
    client: Callable
    init: Callable | None = None


@dataclass(frozen=True)
class _Entry:
    when: str = "round"
    phase: int | None = None

    def _check(self):
        if self.when not in WHEN:
            raise ValueError(f"when must be one of {WHEN}, got {self.when!r}")


@dataclass(frozen=True)
class Average(_Entry):
    """Every client uploads its row of ``var``; every row becomes the mean (booked under
    ``slot``, default the variable's name: K * n floats)."""
    var: str = "x"
    slot: str | None = None

    @property
    def book(self) -> str:
        return self.slot or self.var


@dataclass(frozen=True)
class ServerStep(_Entry):
    """Two-sided step (DS-FedDRO, Algorithm 3, step 7): ``center <- center - lr * mean_k
    (center - var_k)``, then every row of ``var`` <- center. ``lr`` names a hyperparameter;
    every client uploads its row (booked under the variable's name)."""
    var: str = "x"
    center: str = ""
    lr: str = ""

    @property
    def book(self) -> str:
        return self.var


@dataclass(frozen=True)
class ModelRound(_Entry):
    """One communication round of the model (the ledger's ``rounds``); the torch backend also
    averages BatchNorm statistics of neural models here."""


@dataclass(frozen=True)
class Server(_Entry):
    """Work that is not a plain average, at this point of the schedule: a server computation, or
    client work that follows an exchange (FedAvg Case I's reset of y). ``numba`` and ``torch``
    are the two backends' functions (parameters by name, module docstring); ``books`` names the
    ledger slots they write, ``doc`` says what is exchanged."""
    numba: Callable | None = None
    torch: Callable | None = None
    books: tuple = ()
    doc: str = ""


@functools.cache
def params(fn) -> tuple[str, ...]:
    """Parameter names of a step function (the names the engine hands it); cached, as the torch
    loop asks for them at every step."""
    return tuple(inspect.signature(fn).parameters)


def validate(name: str, state: State, hyper_names: list[str], schedule: tuple,
             ledger_slots: tuple, numba: Steps | None, torch: Steps | None) -> None:
    """Refuse a definition whose steps ask for names nobody provides or whose schedule books
    an undeclared slot (raised at registration, so an error names the algorithm and the name)."""
    client_vars = {"x", "y", *state.client}
    for e in schedule:
        e._check()
        if isinstance(e, (Average, ServerStep)) and e.var not in client_vars:
            raise ValueError(f"{name}: schedule averages {e.var!r}, not a client variable")
        if isinstance(e, ServerStep) and (e.center not in state.server or e.lr not in hyper_names):
            raise ValueError(f"{name}: ServerStep needs a server array center and a "
                             f"hyperparameter lr, got {e.center!r}, {e.lr!r}")
        for slot in ((e.book,) if isinstance(e, (Average, ServerStep)) else
                     e.books if isinstance(e, Server) else ()):
            if slot not in ledger_slots:
                raise ValueError(f"{name}: schedule books {slot!r}, not in ledger_slots "
                                 f"{ledger_slots}")
    known = {"eta", *hyper_names, *client_vars, *state.server, "t", "phase", "I"}
    upper = {v.upper() for v in client_vars}
    allowed = {
        "numba": known | set(state.scratch) | {"data", "k", "K", "base", "exact"},
        "torch": known | {"p"},
        "server-numba": known - client_vars | upper | {c.upper() for c in state.scratch}
        | {"data", "K", "base", "exact", "is_round", "ledger"},
        "server-torch": known - client_vars | upper | {"p", "K", "is_round", "ledger"},
    }
    fns = []
    for kind, steps in (("numba", numba), ("torch", torch)):
        if steps is not None:
            fns += [(kind, f) for f in (steps.client, steps.init) if f is not None]
    for e in schedule:
        if isinstance(e, Server):
            fns += [(f"server-{kind}", f) for kind, f in (("numba", e.numba), ("torch", e.torch))
                    if f is not None]
    for kind, fn in fns:
        bad = [n for n in params(fn) if n not in allowed[kind]]
        if bad:
            raise ValueError(f"{name}: {fn.__name__} asks for {bad}, which the {kind} backend "
                             f"does not provide (see fedcomp.algorithms.spec)")
