"""What one run is: a small, serialisable description that any worker can execute.

A :class:`RunSpec` names the problem by the dotted path of a constructor (``"module:qualname"``,
for instance ``"fedcomp.problems.linear:LinearQuadratic.random"``) and its JSON-able keyword
arguments, the algorithm by its registered name, the keyword arguments of
:func:`fedcomp.simulate` (``iterations``, ``eta``, ``local_steps``, ``stochastic``,
``record_every``, ``x0`` as a list, and the algorithm's hyperparameters) and the seed. A worker
rebuilds the problem from that description (no arrays travel) and calls :func:`fedcomp.simulate`
or, for many seeds of one configuration, :func:`fedcomp.simulate_many`; both give bit-identical
results per seed, so a run's result does not depend on the executor or on how runs are batched.

``config_hash`` hashes everything but the seed (runs of one configuration share it);
``run_id`` adds the seed. Both are computed from canonical JSON (sorted keys, ``repr`` floats,
which round-trip exactly), so they are stable across processes and machines.
"""
from __future__ import annotations

import functools
import hashlib
import importlib
import json
from dataclasses import dataclass, field

from fedcomp import _validate as V

SIM_KEYS = ("iterations", "eta", "local_steps", "x0", "stochastic", "record_every",
            "allow_no_sync")


def _canonical(obj) -> str:
    try:
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"run specifications must be JSON-serialisable with finite numbers: "
                         f"{exc}") from None


@dataclass(frozen=True)
class RunSpec:
    """One run: problem constructor + arguments, algorithm, simulate arguments, seed.

    Parameters
    ----------
    problem : str
        ``"module:qualname"`` of a callable returning a :class:`fedcomp.problems.Problem`.
    problem_args : dict
        JSON-serialisable keyword arguments of that callable.
    algorithm : str
        A name from :func:`fedcomp.algorithms.names`.
    params : dict
        Keyword arguments of :func:`fedcomp.simulate` except ``seed`` (``x0`` as a list).
    seed : int >= 0
    labels : dict
        JSON-serialisable labels stored with the rows (e.g. which grid a run belongs to); part of
        the configuration hash.
    """
    problem: str
    problem_args: dict
    algorithm: str
    params: dict
    seed: int = 0
    labels: dict = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.problem, str) or ":" not in self.problem:
            raise ValueError(f"problem must be a 'module:qualname' string, got {self.problem!r}")
        if not isinstance(self.algorithm, str):
            raise ValueError(f"algorithm must be a registered name, got {self.algorithm!r}")
        for name in ("problem_args", "params", "labels"):
            if not isinstance(getattr(self, name), dict):
                raise ValueError(f"{name} must be a dict, got {type(getattr(self, name)).__name__}")
        if "seed" in self.params:
            raise ValueError("params must not contain 'seed'; give seed= separately")
        V.seed_value("seed", self.seed)
        _canonical(self.config())
        _check_params(self.algorithm, self.params)
        _check_problem_args(self.problem, self.problem_args)

    def config(self) -> dict:
        """Everything that determines the run except the seed."""
        return {"problem": self.problem, "problem_args": self.problem_args,
                "algorithm": self.algorithm, "params": self.params, "labels": self.labels}

    @functools.cached_property
    def config_hash(self) -> str:
        return hashlib.sha256(_canonical(self.config()).encode()).hexdigest()[:16]

    @property
    def run_id(self) -> str:
        return f"{self.config_hash}-{self.seed}"

    def to_json(self) -> str:
        return _canonical({**self.config(), "seed": self.seed})

    @classmethod
    def from_json(cls, text: str) -> "RunSpec":
        d = json.loads(text)
        return cls(d["problem"], d["problem_args"], d["algorithm"], d["params"], d["seed"],
                   d.get("labels", {}))

    def with_seed(self, seed: int) -> "RunSpec":
        return RunSpec(self.problem, self.problem_args, self.algorithm, self.params, seed,
                       self.labels)


def _check_params(algorithm: str, params: dict) -> None:
    """Names in `params` must be simulate's or the algorithm's: caught here, where the spec is
    written, rather than as a TypeError in a worker minutes later."""
    from fedcomp.algorithms import get
    alg = get(algorithm)  # ValueError listing the registered names
    allowed = set(SIM_KEYS) | set(alg.hyper_names())
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise ValueError(f"params {unknown} are not arguments of fedcomp.simulate for "
                         f"{algorithm!r}; it accepts: {', '.join(sorted(allowed))}")
    # and their values (eta <= 0, local_steps > iterations, beta outside its range, ...), with
    # simulate's own checks and defaults
    import inspect

    from fedcomp.engine import _check_schedule, simulate
    sim = {k: p.default for k, p in inspect.signature(simulate).parameters.items()
           if k in SIM_KEYS}
    sim.update({k: v for k, v in params.items() if k in SIM_KEYS})
    _check_schedule(alg, sim["iterations"], sim["eta"], sim["local_steps"], sim["stochastic"],
                    sim["record_every"], {k: v for k, v in params.items() if k not in SIM_KEYS},
                    sim["allow_no_sync"])
    if sim["x0"] is not None:
        V.finite_array("x0", sim["x0"], ndim=1)


def _check_problem_args(path: str, args: dict) -> None:
    """The problem constructor must accept `args` (checked against its signature)."""
    import inspect
    ctor = resolve(path)
    try:
        sig = inspect.signature(ctor)
    except (TypeError, ValueError):  # pragma: no cover - no signature to check against
        return
    try:
        sig.bind(**args)
    except TypeError as exc:
        raise ValueError(f"problem_args do not fit {path}{sig}: {exc}") from None


def resolve(path: str):
    """Import ``"module:qualname"`` and return the object."""
    module, _, qual = path.partition(":")
    try:
        obj = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        raise ValueError(f"problem constructor {path!r}: cannot import {module!r} "
                         f"({exc})") from None
    for part in qual.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ValueError(f"problem constructor {path!r}: {part!r} not found") from None
    return obj


@functools.lru_cache(maxsize=32)
def _build_problem(path: str, args_json: str):
    try:
        return resolve(path)(**json.loads(args_json))
    except TypeError as exc:  # a spec built before its constructor changed, or without checks
        raise ValueError(f"problem_args do not fit {path}: {exc}") from None


def build_problem(spec: RunSpec):
    """The spec's problem (cached per process: workers rebuild each problem once)."""
    return _build_problem(spec.problem, _canonical(spec.problem_args))
