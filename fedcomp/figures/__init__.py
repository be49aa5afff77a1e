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
    returned it. ``panel``: for a figure of one part of a claim, that part's key in the claim's
    ``CheckResult.panels``, or the start of it (its badge then adds the part's own verdict: a
    part that passes is never shown under its claim's fail alone), or :data:`NOT_JUDGED` for a
    panel the verdict reports beside itself without judging it; "" (default): the claim as a
    whole."""
    name: str
    draw: Callable[[], Any]
    claims: tuple = ()
    panel: str = ""

    def __post_init__(self):
        if not isinstance(self.claims, tuple):
            object.__setattr__(self, "claims", tuple(self.claims))


#: the :attr:`Plot.panel` of a panel its claim's verdict reports but does not judge
NOT_JUDGED = "(reported, not judged)"


def plot(name: str, draw: Callable, *args, claims=(), panel: str = "", **kw) -> Plot:
    """The Plot ``name`` that draws ``draw(*args, **kw)`` (evidence for `claims`; of the part
    `panel` of them: :class:`Plot`)."""
    import functools
    return Plot(name, functools.partial(draw, *args, **kw), claims, panel)
