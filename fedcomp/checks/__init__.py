"""The claims of the five papers, each declared with its check: one module per paper.

=================  ==========================================================================
module             paper
=================  ==========================================================================
``khanduri``       Khanduri et al., FedDRO / DS-FedDRO (TMLR)
``wu``             Wu et al., FCSG (NeurIPS 2023)
``zhang``          Zhang et al., LocalSCGDAM (NeurIPS 2023)
``huang``          Huang, Li, Huang, ComFedL (arXiv 2106.11264)
``huang_journal``  the journal version of ComFedL
``own``            fedcomp's own claims (no paper makes them)
=================  ==========================================================================

Each module holds ``CLAIMS``, a list of :class:`~fedcomp.checks.core.Claim` whose ``check`` is a
real :class:`~fedcomp.checks.core.Check` (measure and judge functions, not dotted strings).
:func:`all_claims` collects them and validates the whole registry: ids unique, every
``depends_on`` names a registered claim, no dependency cycle.
"""
from __future__ import annotations

import importlib

from fedcomp.checks.core import (AS_PRINTED, KINDS, PAPERS, SUBJECTS, VERDICTS, Check,
                                 CheckResult, Claim, Measure, Measurement, Plot)

__all__ = ["AS_PRINTED", "Claim", "Check", "CheckResult", "Measure", "Measurement", "Plot",
           "KINDS", "PAPERS", "SUBJECTS", "VERDICTS", "all_claims", "get", "PAPER_MODULES"]

PAPER_MODULES = ("khanduri", "wu", "zhang", "huang", "huang_journal", "own")

_CACHE: dict[str, Claim] | None = None


def _declared() -> list[Claim]:
    out = []
    for name in PAPER_MODULES:
        mod = importlib.import_module(f"fedcomp.checks.{name}")
        out += list(mod.CLAIMS)
    return out


def _validate(claims: list[Claim]) -> dict[str, Claim]:
    by_id: dict[str, Claim] = {}
    for c in claims:
        if c.id in by_id:
            raise ValueError(f"claim {c.id!r} is declared twice")
        by_id[c.id] = c
    for c in claims:
        unknown = [d for d in c.depends_on if d not in by_id]
        if unknown:
            raise ValueError(f"claim {c.id!r} depends on unregistered claims {unknown}")
    state: dict[str, int] = {}

    def visit(cid, trail):
        if state.get(cid) == 2:
            return
        if state.get(cid) == 1:
            raise ValueError(f"dependency cycle: {' -> '.join(trail + [cid])}")
        state[cid] = 1
        for d in by_id[cid].depends_on:
            visit(d, trail + [cid])
        state[cid] = 2
    for cid in by_id:
        visit(cid, [])
    return by_id


def _registry() -> dict[str, Claim]:
    global _CACHE
    if _CACHE is None:
        _CACHE = _validate(_declared())
    return _CACHE


def all_claims() -> list[Claim]:
    """Every registered claim, sorted by id."""
    reg = _registry()
    return [reg[k] for k in sorted(reg)]


def get(claim_id: str) -> Claim:
    reg = _registry()
    if claim_id not in reg:
        raise ValueError(f"unknown claim {claim_id!r}; `fedcomp claims` lists them")
    return reg[claim_id]


def closure(ids) -> list[str]:
    """The ids with every claim they depend on, transitively, dependencies first."""
    reg = _registry()
    out: list[str] = []

    def add(cid):
        if cid in out:
            return
        for d in reg[cid].depends_on:
            add(d)
        out.append(cid)
    for cid in ids:
        add(cid)
    return out
