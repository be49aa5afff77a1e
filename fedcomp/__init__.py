"""fedcomp: machine verification of federated compositional optimization theory.

Notation follows Khanduri et al. (FedDRO paper), problem (2): K clients, model x in R^d,
inner map g(x) = (1/K) sum_k g_k(x) in R^{d_g}, outer f, optional h(x) = (1/K) sum_k h_k(x),
objective Phi(x) = h(x) + f(g(x)).

Public surface (the public API: README, "Using it"): ``fedcomp.problems``, ``fedcomp.algorithms``,
``fedcomp.simulate``, ``fedcomp.theory`` and the ``fedcomp`` command.
"""
from __future__ import annotations

import importlib

__version__ = "0.1.0"

from fedcomp import _numba_cache  # noqa: E402

_numba_cache.install()   # before any fedcomp module defines a compiled function

from fedcomp import problems, algorithms  # noqa: E402  (light: no torch, kernels compile lazily)
from fedcomp.engine import simulate, simulate_many, SimulationResult, BatchResult  # noqa: E402

_LAZY = {"theory", "counterexamples", "rates", "runner", "figures", "neural"}


def verify(claims=None, profile: str = "quick", out="report", predict=None, **kw):
    """Check claims and write the report (``fedcomp verify``); returns a
    :class:`fedcomp.report.VerifyReport` (``.table`` is the verdict table as a DataFrame,
    ``.figures`` the figure paths, ``.data`` the JSON report)."""
    from fedcomp.report import verify as _verify
    return _verify(claims, profile=profile, out=out, predict=predict, **kw)


def __getattr__(name: str):
    # Heavier sub-packages (sympy, matplotlib, torch) are imported on first use.
    if name in _LAZY:
        mod = importlib.import_module(f"fedcomp.{name}")
        globals()[name] = mod
        return mod
    raise AttributeError(f"module 'fedcomp' has no attribute {name!r}")


__all__ = ["problems", "algorithms", "simulate", "verify", "simulate_many", "SimulationResult",
           "BatchResult", "theory", "counterexamples", "rates", "runner", "figures", "neural",
           "__version__"]
