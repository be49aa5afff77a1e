"""Intervals over seeds: the mean of a quantity over independent seeds with its Student-t
interval, and the paired (by seed) difference of two arms. Used by the neural experiments'
summaries (:mod:`fedcomp.neural.store`) and the experiment checks; the verdict from a paired
interval is :func:`fedcomp.rates.verdict.ordering_verdict`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fedcomp.rates.fit import LEVEL


@dataclass(frozen=True)
class Interval:
    """Mean of n values with its two-sided ``level`` Student-t interval (NaN bounds for n < 2)."""
    mean: float
    low: float
    high: float
    n: int

    def __str__(self) -> str:
        if self.n < 2:
            return f"{self.mean:.4g} (n = {self.n}, no interval)"
        return f"{self.mean:.4g} [{self.low:.4g}, {self.high:.4g}] (n = {self.n})"


def mean_interval(values, level: float = LEVEL) -> Interval:
    """Mean and Student-t interval of independent values (one per seed); NaN values are refused
    (a diverged run has no final value: the caller reports it as diverged)."""
    from scipy import stats
    v = np.asarray(list(values), dtype=float)
    if v.size == 0:
        raise ValueError("mean_interval needs at least one value")
    if not np.isfinite(v).all():
        raise ValueError(f"mean_interval got non-finite values {v.tolist()}: report the "
                         "diverged runs instead")
    m = float(v.mean())
    if v.size < 2:
        return Interval(m, math.nan, math.nan, int(v.size))
    half = float(stats.t.ppf(0.5 + level / 2, v.size - 1) * v.std(ddof=1) / math.sqrt(v.size))
    return Interval(m, m - half, m + half, int(v.size))


def paired_difference(a: dict, b: dict, level: float = LEVEL) -> Interval:
    """Interval of the mean of a[s] - b[s] over the seeds s both dicts have."""
    seeds = sorted(set(a) & set(b))
    if not seeds:
        raise ValueError("the two arms have no seed in common")
    return mean_interval([a[s] - b[s] for s in seeds], level)
