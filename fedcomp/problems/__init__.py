"""What is optimized: problems, their oracles (exact and sampled) and exact measures.

See :mod:`fedcomp.problems.base` for the protocol every problem follows.
"""
from fedcomp.problems.base import Problem
from fedcomp.problems.linear import LinearQuadratic

__all__ = ["Problem", "LinearQuadratic"]


def __getattr__(name):
    # Families added by later modules are imported on first use (sympy is heavy).
    if name == "SymbolicProblem":
        from fedcomp.problems.symbolic import SymbolicProblem
        return SymbolicProblem
    if name in ("KLDRO", "Chi2DRO", "make_logistic_clients"):
        from fedcomp.problems import dro
        return getattr(dro, name)
    if name in ("RobustFL", "MAMLQuadratic"):
        from fedcomp.problems import local_inner
        return getattr(local_inner, name)
    if name == "AUCMinimax":
        from fedcomp.problems.auc import AUCMinimax
        return AUCMinimax
    if name == "LogCoshMinimax":
        from fedcomp.problems.minimax import LogCoshMinimax
        return LogCoshMinimax
    if name == "InvariantLogistic":
        from fedcomp.problems.conditional import InvariantLogistic
        return InvariantLogistic
    if name == "MeanVariancePortfolio":
        from fedcomp.problems.portfolio import MeanVariancePortfolio
        return MeanVariancePortfolio
    raise AttributeError(f"module 'fedcomp.problems' has no attribute {name!r}")
