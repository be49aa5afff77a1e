"""Theory: constants of the assumptions and lemmas, DRO equivalences, the complexity table and
the claims registry (:mod:`fedcomp.theory.claims`)."""
from fedcomp.theory import claims  # noqa: F401


def __getattr__(name):
    if name == "constants":
        from fedcomp.theory.constants import constants
        return constants
    raise AttributeError(f"module 'fedcomp.theory' has no attribute {name!r}")
