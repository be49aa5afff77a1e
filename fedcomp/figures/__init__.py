"""Figures: one module per kind of evidence (:mod:`~fedcomp.figures.counterexample`,
:mod:`~fedcomp.figures.rates`, :mod:`~fedcomp.figures.communication`,
:mod:`~fedcomp.figures.constants`, :mod:`~fedcomp.figures.law`),
one style (:mod:`~fedcomp.figures.style`). They draw data handed to them and compute nothing.

A check does not draw: its measurement (or its judge) returns :class:`Plot` objects, and
``fedcomp verify`` draws each one once, after the verdicts of the claims it is evidence for are
known, with those verdicts in its corner (:func:`fedcomp.report.run_verify`). This module imports
nothing heavy, so that the measuring code can build plots without loading matplotlib.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Plot:
    """A figure of a check, drawn once its verdict is known.

    ``name``: the file, relative to the report directory (``figures/<claim>-<what>.png``);
    ``draw()``: builds the matplotlib Figure from data the check measured or judged, without the
    verdict (the report adds it, :func:`fedcomp.figures.style.verdict_badge`); ``claims``: the
    ids of the claims it is evidence for; empty: every claim judged on the measurement that
    returned it."""
    name: str
    draw: Callable[[], Any]
    claims: tuple = ()

    def __post_init__(self):
        if not isinstance(self.claims, tuple):
            object.__setattr__(self, "claims", tuple(self.claims))


def plot(name: str, draw: Callable, *args, claims=(), **kw) -> Plot:
    """The Plot ``name`` that draws ``draw(*args, **kw)`` (evidence for `claims`)."""
    import functools
    return Plot(name, functools.partial(draw, *args, **kw), claims)
