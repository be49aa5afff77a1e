"""Claims and their checks: the objects ``fedcomp verify`` loops over.

A :class:`Claim` is one quantitative statement of a paper, declared together with the
:class:`Check` that decides it. A check has two halves:

* ``measure(profile, out_dir) -> Measurement``: the runs, derivations or computations (expensive,
  stored under ``out_dir/data`` where they simulate, so that a rerun resumes);
* ``judge(predicted, measurement) -> CheckResult``: the verdict, computed from the prediction it
  is handed and nothing else. ``fedcomp verify`` hands it ``claim.predicted`` (the value that
  ``fedcomp claims --json`` prints, so the shown and the judged prediction are one), and
  ``fedcomp verify --predict`` hands it a user's prediction of the same shape, judged on the same
  measurement.

``Check.wrong(predicted)`` lists predictions that a correct check must fail on (an exponent
steeper by 0.5 than an upper bound allows, a constant halved, an ordering reversed, a printed
value changed); the mutation tests feed each to ``judge`` and expect fail, so no check can pass
everything.

A claim without a check carries ``not_checked``: the specific reason (what it would take, or why
the statement is qualitative). ``reading`` names which reading of the printed statement the
verdict judges (when a statement has two, both are registered, the paper's own definition first);
``depends_on`` lists the claims it is derived from: ``fedcomp verify`` never lets a claim pass
while one of those fails.

``subject`` says what a verdict is evidence about. ``"paper"`` (the default): the paper's
statement. ``"implementation"``: the statement describes the paper's algorithm (what it
communicates, and when) and the check measures fedcomp's implementation of that algorithm
(the engine's ledger), so the verdict tests fedcomp against the paper's description, not a
result the paper proves: a pass is a self-check of fedcomp and a fail would be fedcomp's (or the
reading's). ``"inference"``: a statement fedcomp infers from the paper, a configuration or a
consequence the paper does not state (a sensitivity run at another parameter, a consequence of
its assumptions); its verdict is not the paper's. The report counts both apart from the papers'
verdicts (:func:`fedcomp.report.tally`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from fedcomp.figures import Plot

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
AS_PRINTED = "as printed"
#: what a verdict is evidence about (module docstring)
SUBJECTS = {"paper": "the paper's statement",
            "implementation": "fedcomp's implementation of the paper's algorithm against the "
                              "paper's description of it (a self-check: a fail would be "
                              "fedcomp's)",
            "inference": "a statement fedcomp infers from the paper (a configuration or a "
                         "consequence the paper does not state): its verdict is not the "
                         "paper's"}


@dataclass
class CheckResult:
    """A verdict with its evidence. ``measured`` is JSON-able; ``interval`` is the interval the
    verdict used (first part, where there are several); ``figures``: :class:`Plot` objects (a
    judge may add some: they are this claim's), drawn by ``fedcomp verify`` with the verdict;
    ``bounds``: the rows of the :func:`~fedcomp.rates.verdict.bound_constant_verdict` parts it
    was decided on (``Verdict.bound``), which :meth:`Claim.judge` draws as the constants
    figure (claimed bound against the exact or certified supremum and the largest value found)."""
    verdict: str
    predicted: Any
    measured: Any
    detail: str
    interval: tuple | None = None
    figures: list = field(default_factory=list)
    bounds: list = field(default_factory=list)
    #: the claims it fails through (set by verify's dependency rule: Claim.entails)
    fails_through: list = field(default_factory=list)
    #: {panel: verdict} of the parts its figures show one by one (fedcomp.figures.Plot.panel:
    #: a badge shows the part's verdict beside the claim's)
    panels: dict = field(default_factory=dict)
    #: the verdict of its own check, before verify's dependency and entailment rules (None
    #: until they ran)
    own_verdict: str | None = None

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")


def deciding_interval(parts) -> tuple | None:
    """The interval a multi-part verdict shows (``CheckResult.interval``): that of the part that
    decided it, the first failing part, else the first inconclusive one, else the first part.
    `parts`: (verdict, interval or None) pairs in the claim's order; an interval with a missing
    end counts as none."""
    def usable(iv):
        return iv is not None and len(iv) == 2 and None not in iv
    for want in ("fail", "inconclusive", "pass"):
        for verdict, iv in parts:
            if verdict == want:
                return tuple(iv) if usable(iv) else None
    return None


def from_parts(parts, predicted, measured, extra: str = "") -> CheckResult:
    """CheckResult of several verdict parts (:class:`fedcomp.rates.verdict.Verdict`): fail if any
    fails, pass if all pass, else inconclusive; the detail is the parts' reasons, then `extra`."""
    from fedcomp.rates.verdict import combine
    return CheckResult(combine([p.verdict for p in parts]), predicted, measured,
                       "; ".join(p.reason for p in parts) + extra,
                       bounds=[p.bound for p in parts if getattr(p, "bound", None)])


@dataclass
class Measurement:
    """What a check's ``measure`` produced: JSON-able ``values`` for the judge, its figures as
    :class:`Plot` objects (not drawn: ``fedcomp verify`` draws each once the verdicts of the
    claims it is evidence for are known), and a ``detail`` sentence (what was run, on what, with
    which budget)."""
    values: Any
    figures: list = field(default_factory=list)
    detail: str = ""


class Measure:
    """A check's measure function bound to its arguments: ``Measure(fn, *args)(profile, out_dir)``
    is ``fn(*args, profile, out_dir)``. Where a closure would do, use this: it pickles (`fn` by
    reference, the arguments by value), so ``fedcomp verify --jobs N`` can measure the claim in a
    worker process; a closure is measured in the main process. ``name`` and ``module`` set
    :attr:`Check.name`'s two parts (default: `fn`'s). ``synthetic``: an optional picklable
    ``synthetic(predicted) -> Measurement`` for the mutation tests (stored-run checks: a
    measurement on which the printed prediction holds by a wide margin). ``by_profile``: False
    for a measurement the profile does not change (stored runs: the full profile cannot decide
    what the quick one left undecided). Equality is identity, as for functions: verify measures
    each Measure object once, whichever claims share it."""

    def __init__(self, fn: Callable, *args, name: str | None = None, module: str | None = None,
                 synthetic: Callable | None = None, by_profile: bool = True):
        self.fn, self.args, self.by_profile = fn, args, by_profile
        self.__name__ = self.__qualname__ = name or fn.__name__
        self.__module__ = module or fn.__module__
        self.__doc__ = fn.__doc__
        if synthetic is not None:
            self.synthetic = synthetic

    def __call__(self, profile: str, out_dir) -> "Measurement":
        return self.fn(*self.args, profile, out_dir)

    def __repr__(self) -> str:
        return f"<Measure {self.__module__}:{self.__qualname__}>"


@dataclass(frozen=True)
class Check:
    """The measure/judge pair of a claim (module docstring). ``wrong`` returns the predictions
    the judge must fail on (see :mod:`fedcomp.checks.predict` for the usual ones); the mutation
    tests require it of every check."""
    measure: Callable[[str, Path], Measurement]
    judge: Callable[[Any, Measurement], CheckResult]
    wrong: Callable[[Any], list] | None = None

    @property
    def name(self) -> str:
        return f"{self.measure.__module__}:{self.measure.__qualname__}"


@dataclass(frozen=True)
class Claim:
    id: str
    paper: str
    location: str
    statement: str
    kind: str
    predicted: Any
    check: Check | None = None
    reading: str = AS_PRINTED
    depends_on: tuple = ()
    not_checked: str = ""
    notes: str = ""
    predicted_by: str = "paper"
    #: for a claim that states an implication only ("Corollary 5.3 follows from Theorem 5.2"):
    #: the claims it does not assert (its premises), which it does not depend on; a claim about
    #: the algorithm built on it must depend on them itself (tests/test_checks_layer.py)
    premise: tuple = ()
    #: the claims whose statement this one's contains (a table row restating a corollary, an
    #: abstract's sentence stronger than it): when one of them fails, this claim fails too,
    #: whatever its own check says (fedcomp.report); each must also be a dependency
    entails: tuple = ()
    #: for an entailed claim whose statement this one contains only in part: (id, (label
    #: fragments, ...)) pairs; it fails through that claim only when a failing part of it (its
    #: measured "parts") has one of these fragments in its label
    entails_parts: tuple = ()
    #: what the verdict is evidence about: a key of SUBJECTS (module docstring)
    subject: str = "paper"

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id}: kind must be one of {KINDS}, got {self.kind!r}")
        if self.subject not in SUBJECTS:
            raise ValueError(f"claim {self.id}: subject must be one of {sorted(SUBJECTS)}, got "
                             f"{self.subject!r}")
        if self.subject != "paper" and self.paper == "fedcomp":
            raise ValueError(f"claim {self.id}: a self-check or an inference is about a paper: "
                             f"its paper cannot be 'fedcomp'")
        if self.paper not in PAPERS:
            raise ValueError(f"claim {self.id}: paper must be one of {sorted(PAPERS)}")
        if self.predicted is None:
            raise ValueError(f"claim {self.id}: a claim needs a prediction")
        if self.check is None and len(self.not_checked.strip()) < 20:
            raise ValueError(f"claim {self.id}: a claim without a check needs not_checked, the "
                             f"specific reason (what it would take, or why it is qualitative)")
        if self.check is not None and self.not_checked:
            raise ValueError(f"claim {self.id}: has a check and a not_checked reason: keep one")
        if not isinstance(self.depends_on, tuple):
            object.__setattr__(self, "depends_on", tuple(self.depends_on))
        if not isinstance(self.premise, tuple):
            object.__setattr__(self, "premise", tuple(self.premise))
        if set(self.premise) & set(self.depends_on):
            raise ValueError(f"claim {self.id}: an implication does not depend on its premise "
                             f"{sorted(set(self.premise) & set(self.depends_on))}")
        if not isinstance(self.entails, tuple):
            object.__setattr__(self, "entails", tuple(self.entails))
        if not set(self.entails) <= set(self.depends_on):
            raise ValueError(f"claim {self.id}: a claim it entails must be a dependency too: "
                             f"{sorted(set(self.entails) - set(self.depends_on))}")
        parts = []
        for d, frags in self.entails_parts:
            if isinstance(frags, str) or not frags or not all(
                    isinstance(f, str) and f.strip() for f in frags):
                raise ValueError(f"claim {self.id}: entails_parts[{d!r}] must be a tuple of "
                                 f"non-empty label fragments, got {frags!r}")
            parts.append((d, tuple(frags)))
        ids = [d for d, _ in parts]
        if len(set(ids)) != len(ids):
            raise ValueError(f"claim {self.id}: entails_parts names a claim twice: {ids}")
        object.__setattr__(self, "entails_parts", tuple(parts))
        if not set(ids) <= set(self.entails):
            raise ValueError(f"claim {self.id}: entails_parts names claims it does not entail")

    @property
    def status(self) -> str:
        return "checked" if self.check is not None else "not-checked"

    @property
    def command(self) -> str:
        if self.check is None:
            return "(not checked: " + self.not_checked + ")"
        return f"fedcomp verify --claim {self.id}"

    def with_prediction(self, predicted, by: str = "user") -> "Claim":
        """The same claim judging another prediction (validated against this one's shape)."""
        from fedcomp.checks.predict import conform
        conform(self.predicted, predicted, f"the prediction of {self.id}")
        return replace(self, predicted=predicted, predicted_by=by)

    def plots(self, measurement: Measurement) -> list:
        """The figures of `measurement` that are evidence for this claim: those naming it, and
        those naming no claim (evidence for every claim judged on that measurement)."""
        return [p for p in measurement.figures
                if not isinstance(p, Plot) or not p.claims or self.id in p.claims]

    def judge(self, measurement: Measurement) -> CheckResult:
        from fedcomp.rates.verdict import recording_comparisons
        with recording_comparisons() as compared:
            res = self.check.judge(self.predicted, measurement)
        own = [replace(p, claims=(self.id,)) if isinstance(p, Plot) and not p.claims else p
               for p in res.figures]
        if res.bounds:
            from fedcomp.figures import plot
            from fedcomp.figures.constants import constants_figure
            own.append(plot(f"figures/{self.id}-constants.png", constants_figure,
                            list(res.bounds), f"{self.location} ({self.id}): claimed bound "
                            f"against the supremum and the largest value found",
                            claims=(self.id,)))
        shown = self.plots(measurement)
        if compared and not shown and not own:
            # judged on exact comparisons only: the derived-against-printed figure
            from fedcomp.figures import plot
            from fedcomp.figures.derivation import derivation_figure
            own.append(plot(f"figures/{self.id}-derived-vs-printed.png", derivation_figure,
                            compared[:24], f"{self.location} ({self.id}): printed against "
                            "derived, per compared quantity", claims=(self.id,)))
        res.figures = shown + [f for f in own if f not in shown]
        if measurement.detail and measurement.detail not in res.detail:
            res.detail = f"{res.detail}; measured: {measurement.detail}"
        return res

    def to_dict(self) -> dict:
        return {"id": self.id, "paper": PAPERS[self.paper], "paper_key": self.paper,
                "location": self.location, "statement": self.statement, "kind": self.kind,
                "subject": self.subject,
                "predicted": self.predicted, "predicted_by": self.predicted_by,
                "reading": self.reading, "depends_on": list(self.depends_on),
                "premise": list(self.premise), "entails": list(self.entails),
                "entails_parts": {d: list(f) for d, f in self.entails_parts},
                "status": self.status, "command": self.command,
                "check": self.check.name if self.check else None,
                "not_checked": self.not_checked, "notes": self.notes}
