"""The claims registry: every quantitative claim of the five papers as data.

A :class:`Claim` names the paper, the location, the statement in fedcomp's common notation
(FedDRO paper, problem (2); epsilon-stationarity E||grad Phi||^2 <= eps), its kind, the predicted
value or exponent, and ``check``: the dotted path ``"package.module:function"`` of the function that
decides it, or None while that check is not built (the claim is then listed as not-checked, never
hidden). ``fedcomp verify`` is a loop over claims with a check.

A check has the signature ``check(profile: str, out_dir: pathlib.Path) -> CheckResult`` with
profile ``"quick"`` or ``"full"``; it writes its figures under out_dir and lists them in the result.

Claims are declared in the modules of :mod:`fedcomp.theory.registry` (one per paper, plus
``fedcomp`` for the toolkit's own findings); importing :func:`all_claims` loads them all.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field, replace
from typing import Any

KINDS = ("counterexample", "rate", "complexity", "constant", "equivalence", "experiment")
VERDICTS = ("pass", "fail", "inconclusive")
PAPERS = {
    "khanduri": "Khanduri et al., On Federated Compositional Optimization: Algorithms, Analysis, "
                "and Guarantees (TMLR)",
    "wu": "Wu et al., Federated Conditional Stochastic Optimization (NeurIPS 2023)",
    "zhang": "Zhang et al., Federated Compositional Deep AUC Maximization (NeurIPS 2023)",
    "huang": "Huang, Li, Huang, Compositional Federated Learning (arXiv 2106.11264)",
    "huang-journal": "Huang, Li, Huang, Compositional Federated Learning (journal version)",
    "fedcomp": "fedcomp's own measurements (claims no paper makes)",
}


@dataclass(frozen=True)
class Claim:
    id: str
    paper: str
    location: str
    statement: str
    kind: str
    predicted: Any = None
    check: str | None = None
    notes: str = ""

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id}: kind must be one of {KINDS}, got {self.kind!r}")
        if self.paper not in PAPERS:
            raise ValueError(f"claim {self.id}: paper must be one of {sorted(PAPERS)}")

    @property
    def command(self) -> str:
        if self.check is None:
            return "(not checked yet)"
        if self.id == "khanduri.thm4.1":
            return "fedcomp counterexample thm4.1"
        return f"fedcomp verify --claim {self.id}"

    @property
    def status(self) -> str:
        return "checked" if self.check else "not-checked"

    def run_check(self, profile: str, out_dir) -> "CheckResult":
        if self.check is None:
            return CheckResult("inconclusive", self.predicted, None,
                               "no check is built for this claim yet")
        module, _, fn = self.check.partition(":")
        return getattr(importlib.import_module(module), fn)(profile, out_dir)

    def to_dict(self) -> dict:
        return {"id": self.id, "paper": PAPERS[self.paper], "paper_key": self.paper,
                "location": self.location, "statement": self.statement, "kind": self.kind,
                "predicted": self.predicted, "status": self.status, "command": self.command,
                "notes": self.notes}


@dataclass
class CheckResult:
    verdict: str
    predicted: Any
    measured: Any
    detail: str
    interval: tuple | None = None
    figures: list = field(default_factory=list)

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")


_REGISTRY: dict[str, Claim] = {}
_CHECKS: dict[str, str] = {}
_LOADED = False


def attach_check(claim_id: str, check: str) -> None:
    """Declare the check of a claim registered elsewhere (areas that build checks call this from
    their own module in :mod:`fedcomp.theory.registry`, so they never edit the declaring module).
    An id that no module registers is an error reported by :func:`all_claims`."""
    if claim_id in _CHECKS and _CHECKS[claim_id] != check:
        raise ValueError(f"claim {claim_id!r} has two checks: {_CHECKS[claim_id]} and {check}")
    _CHECKS[claim_id] = check


def register(*claims: Claim) -> None:
    for c in claims:
        if c.id in _REGISTRY and _REGISTRY[c.id] != c:
            raise ValueError(f"claim {c.id!r} registered twice with different contents")
        _REGISTRY[c.id] = c


def _load() -> None:
    global _LOADED
    if _LOADED:
        return
    from fedcomp.theory import registry
    for info in pkgutil.iter_modules(registry.__path__):
        importlib.import_module(f"fedcomp.theory.registry.{info.name}")
    _LOADED = True


def _resolved(c: Claim) -> Claim:
    if c.id in _CHECKS:
        if c.check is not None and c.check != _CHECKS[c.id]:
            raise ValueError(f"claim {c.id!r} declares check {c.check} and has "
                             f"{_CHECKS[c.id]} attached: keep one")
        return replace(c, check=_CHECKS[c.id])
    return c


def all_claims() -> list[Claim]:
    _load()
    orphans = sorted(set(_CHECKS) - set(_REGISTRY))
    if orphans:
        raise ValueError(f"checks attached to unregistered claims: {orphans}")
    return [_resolved(_REGISTRY[k]) for k in sorted(_REGISTRY)]


def get(claim_id: str) -> Claim:
    _load()
    if claim_id not in _REGISTRY:
        raise ValueError(f"unknown claim {claim_id!r}; `fedcomp claims` lists them")
    return _resolved(_REGISTRY[claim_id])
