"""Derived measurements: exponents in T and K, linear speed-up, communication against epsilon.

All take the per-run summary of :func:`fedcomp.rates.measure.summarize` and return
:class:`~fedcomp.rates.fit.ExponentFit` objects whose intervals come from the seed bootstrap
and the regression (see :mod:`fedcomp.rates.fit`).

* :func:`exponent` -- slope of log E||grad Phi||^2 against log T (K fixed) or log K (T fixed).
* :func:`paired_ratio_fit` -- the exponent of the ratio of two algorithms' E||grad Phi||^2 run on
  the same grid and seeds (the difference of their exponents), bootstrapped in pairs.
* :func:`speedup` -- samples per client T_eps(K) needed to bring the measured quantity to a
  target epsilon, against K (linear speed-up predicts T_eps proportional to K^-1). T_eps is read
  off each K's curve of seed means by log-log interpolation between grid points (never
  extrapolated); the target is the geometric middle of the band that every K's curve crosses on
  the grid, fixed from the full data.
* :func:`cost_exponent` -- slope of log epsilon(T) against log cost(T), where the cost is
  rounds or floats per client (deterministic given T). A bound cost <= C eps^-a is the same as
  eps <= C' cost^(-1/a) along the schedule, so the verdict is an upper-bound verdict on this slope
  with prediction -1/a; :func:`invert` turns it into the exponent a of cost against 1/eps, and
  :func:`t_per_cost` measures how T grows with the cost (to carry the T floor into the cost).
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from fedcomp.rates.fit import ExponentFit, crossing, fit_exponent, fit_statistic
from fedcomp.rates.measure import matrix


def exponent(summary: pd.DataFrame, over: str, quantity: str = "avg_grad_sq",
             return_boot: bool = False, **fixed):
    x, v = matrix(summary, over, quantity, **fixed)
    return fit_exponent(x, v, return_boot=return_boot)


def paired_ratio_fit(a, b, over: str = "T", quantity: str = "avg_grad_sq", **fixed):
    """The exponent in `over` of E[quantity of a] / E[quantity of b], two sweeps run on the same
    grid and seeds: a fit (fedcomp.rates.fit.fit_statistic) of the ratio of the seed means,
    bootstrapped over the seeds in pairs (a seed's two runs share its samples, so their noise
    is correlated and the ratio is far tighter than two separate fits' difference). Its slope
    is the difference of the two exponents; its y_mean / y_low / y_high are the ratio at each
    grid point with its 95 % interval."""
    x, va = matrix(a, over, quantity, **fixed)
    xb, vb = matrix(b, over, quantity, **fixed)

    def seeds(t):
        for k, v in fixed.items():
            t = t[t[k] == v]
        return sorted(t["seed"].unique())
    if list(x) != list(xb) or seeds(a) != seeds(b) or va.shape != vb.shape:
        raise ValueError(f"paired_ratio_fit needs the same {over} grid and seeds in both sweeps")
    lost = ~(np.isfinite(va) & np.isfinite(vb))     # a pair with a missing run is left out
    va, vb = np.where(lost, np.nan, va), np.where(lost, np.nan, vb)

    def ratio(idx):
        with np.errstate(all="ignore"):
            return np.nanmean(va[idx], axis=0) / np.nanmean(vb[idx], axis=0)
    return fit_statistic(x, ratio, va.shape[0])


def _grid(summary, quantity):
    Ks = np.sort(summary["K"].unique())
    Ts = np.sort(summary["T"].unique())
    seeds = np.sort(summary["seed"].unique())
    arr = np.full((len(seeds), len(Ks), len(Ts)), np.nan)
    si = {s: i for i, s in enumerate(seeds)}
    ki = {k: i for i, k in enumerate(Ks)}
    ti = {t: i for i, t in enumerate(Ts)}
    for s, k, t, q in summary[["seed", "K", "T", quantity]].itertuples(index=False):
        arr[si[s], ki[k], ti[t]] = q
    return Ks, Ts, arr


def mean_curves(summary: pd.DataFrame, quantity: str = "avg_grad_sq"):
    """(Ks, Ts, m): the mean over seeds of `quantity`, m[i, j] at K = Ks[i], T = Ts[j] (NaN where
    no seed has a value)."""
    Ks, Ts, arr = _grid(summary, quantity)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return Ks, Ts, np.nanmean(arr, axis=0)


def _level_range(summary: pd.DataFrame, quantity: str):
    """(Ks, lowest, highest): each K's smallest and largest mean over seeds on the grid (NaN
    for a K without a finite mean)."""
    Ks, _, m = mean_curves(summary, quantity)
    with warnings.catch_warnings():   # a K without a finite mean: NaN, decided by the callers
        warnings.simplefilter("ignore", RuntimeWarning)
        return Ks, np.nanmin(m, axis=1), np.nanmax(m, axis=1)


def target_eps(summary: pd.DataFrame, quantity: str = "avg_grad_sq") -> float:
    """Geometric middle of [max_K min_T mean, min_K max_T mean]: a level every K's curve of seed
    means reaches on the grid (NaN if none does)."""
    _, lowest, highest = _level_range(summary, quantity)
    lo, hi = np.max(lowest), np.min(highest)
    if not (np.isfinite(lo) and np.isfinite(hi)) or lo >= hi:
        return math.nan
    return float(math.sqrt(lo * hi))


def no_common_level(summary: pd.DataFrame, quantity: str = "avg_grad_sq") -> str:
    """Why :func:`target_eps` found no level (its rule: one that every K's curve of seed means
    reaches on the grid), with the numbers: the highest of the K's lowest means against the
    lowest of their highest."""
    Ks, lowest, highest = _level_range(summary, quantity)
    empty = [int(k) for k, lo in zip(Ks, lowest) if not np.isfinite(lo)]
    if empty:     # target_eps's max / min then are NaN: these K decide it
        return (f"no level of {quantity} that every K reaches: K = "
                f"{', '.join(str(k) for k in empty)} ha{'s' if len(empty) == 1 else 've'} no "
                f"finite mean on the grid (every run diverged or missing)")
    i, j = int(np.argmax(lowest)), int(np.argmin(highest))
    return (f"no level of {quantity} that every K's curve reaches on the grid: K = {Ks[i]} "
            f"never falls below {lowest[i]:.3g}, K = {Ks[j]} never rises above "
            f"{highest[j]:.3g}")


def speedup(summary: pd.DataFrame, eps: float | None = None, quantity: str = "avg_grad_sq",
            return_boot: bool = False):
    """Fit of T_eps (samples per client to reach eps) against K, and eps.

    Returns
    -------
    (ExponentFit or None, eps, dict K -> T_eps) (plus the bootstrap array if asked); the fit is
    None when fewer than two K reach eps.
    """
    Ks, Ts, arr = _grid(summary, quantity)
    if eps is None:
        eps = target_eps(summary, quantity)
    if not math.isfinite(eps):
        return (None, eps, {}, None) if return_boot else (None, eps, {})

    def statistic(idx):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            m = np.nanmean(arr[idx], axis=0)
        out = np.empty(len(Ks))
        for i in range(len(Ks)):
            ok = np.isfinite(m[i])
            out[i] = crossing(Ts[ok], m[i][ok], eps) if ok.sum() >= 1 else math.nan
        return out

    full = statistic(np.arange(arr.shape[0]))
    table = {int(k): float(t) for k, t in zip(Ks, full)}
    if np.isfinite(full).sum() < 2:
        return (None, eps, table, None) if return_boot else (None, eps, table)
    res = fit_statistic(Ks.astype(float), statistic, arr.shape[0], return_boot=return_boot)
    if return_boot:
        fit, boot = res
        return fit, eps, table, boot
    return res, eps, table


def _rows(summary: pd.DataFrame, **fixed) -> pd.DataFrame:
    for k, v in fixed.items():
        summary = summary[summary[k] == v]
    return summary


def _cost_by_T(sub: pd.DataFrame, cost: str) -> pd.Series:
    """The cost at each T (the same for every seed of a T: rounds and floats depend on T
    alone)."""
    costs = sub.groupby("T")[cost].agg(["min", "max"])
    if (costs["min"] != costs["max"]).any():
        raise ValueError(f"{cost} differs between seeds of one T")
    return costs["min"]


def cost_grid(summary: pd.DataFrame, cost: str = "rounds", quantity: str = "avg_grad_sq",
              **fixed) -> tuple[np.ndarray, np.ndarray]:
    """The cost at each point of the T grid and the (seeds, points) values of `quantity`: what
    :func:`cost_exponent` fits. Cost must be the same for every seed of a T (it is: rounds and
    floats depend on T alone) and must grow along the grid."""
    sub = _rows(summary, **fixed)
    costs = _cost_by_T(sub, cost)
    x, v = matrix(sub, "T", quantity)
    cx = costs.loc[x.astype(int)].to_numpy(dtype=float)
    if not np.all(np.diff(cx) > 0):
        raise ValueError(f"{cost} does not grow along the T grid; cannot fit against it")
    return cx, v


def cost_exponent(summary: pd.DataFrame, cost: str = "rounds", quantity: str = "avg_grad_sq",
                  return_boot: bool = False, **fixed):
    """Slope of log (seed-mean quantity) against log (cost) along the T grid (module docstring;
    the grid: :func:`cost_grid`)."""
    return fit_exponent(*cost_grid(summary, cost, quantity, **fixed), return_boot=return_boot)


def t_per_cost(summary: pd.DataFrame, cost: str, **fixed) -> float:
    """Exponent b of T against the cost along the T grid: the least-squares slope of log T on
    log cost (the costs are deterministic given T), the same regression direction as the fit of
    log epsilon on log cost (:func:`cost_exponent`), so a decay epsilon ~ T^f reads as the slope
    f b there and a floor f on the exponent in T becomes the floor f b in the cost
    (:func:`fedcomp.rates.verdict.cost_floor`). NaN when fewer than two T are on the grid or a
    cost is not positive (the cost cannot carry a floor)."""
    c = _cost_by_T(_rows(summary, **fixed), cost)
    T, cv = c.index.to_numpy(dtype=float), c.to_numpy(dtype=float)
    if len(T) < 2 or not np.all(cv > 0) or len(np.unique(cv)) < 2:
        return math.nan
    return float(np.polyfit(np.log(cv), np.log(T), 1)[0])


def invert(fit: ExponentFit) -> tuple[float, float, float]:
    """Exponent a of cost against 1/eps (cost ~ eps^-a) from the slope s of eps against cost
    (a = -1/s), with the interval mapped through the same monotone map (inf when the interval
    of s reaches 0 or above)."""
    def a(s):
        return -1.0 / s if s < 0 else math.inf
    return a(fit.slope), a(fit.low), a(fit.high)
