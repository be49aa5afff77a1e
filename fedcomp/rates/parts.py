"""The labels of rate parts: one home for the words the checks label their parts with
(fedcomp.checks.khanduri, fedcomp.checks.wu) and the figures name their panels with
(:attr:`fedcomp.figures.Plot.panel`; fedcomp.rates.feddro, fedcomp.rates.fcsg). Imports
nothing, so that the checks layer can use it without loading the measuring code."""

SPEEDUP_PART = "linear speed-up"


def rate_part(problem: str, var: str) -> str:
    """The label (its start) of the part "E||grad||^2 against `var`" on `problem`."""
    return f"{problem} E||grad||^2 vs {var}"


def communication_part(problem: str) -> str:
    """The label (its start) of the part "eps against the rounds" on `problem`."""
    return f"{problem} communication"


def exponent_part(over: str) -> str:
    """The label of the part "the exponent in `over`" (the FCSG paper's corollaries)."""
    return f"exponent in {over}"
