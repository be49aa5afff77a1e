"""Theory (mathematics only): constants of the assumptions and lemmas, DRO equivalences, the
complexity table, the theorems' schedules. The claims that use them are in :mod:`fedcomp.checks`."""


def __getattr__(name):
    if name == "constants":
        from fedcomp.theory.constants import constants
        return constants
    raise AttributeError(f"module 'fedcomp.theory' has no attribute {name!r}")
