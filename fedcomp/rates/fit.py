"""Exponent fits with confidence intervals (the verdict rules are in :mod:`fedcomp.rates.verdict`).

:func:`fit_exponent` fits log y = a + s log x by least squares to the seed means of a quantity
measured at several grid points x (runs of different seeds are independent repetitions). Two 95 %
intervals for the slope s are computed:

* the seed bootstrap: seeds are resampled with replacement (``n_boot`` times), the means and the
  slope recomputed, and the percentile interval taken; it captures the sampling noise;
* the regression interval (:func:`scipy.stats.linregress`'s standard error times the Student-t
  quantile with n - 2 degrees of freedom); it captures lack of fit (curvature in log-log).

Grid points without a finite value (every run there diverged or is missing) cannot enter a
log-log fit; they are dropped, and the fit records it (``n_dropped``, ``dropped_x``,
``n_missing_runs``) so that a verdict says so rather than silently fitting fewer points.

The reported interval is their union (the wider, conservative choice): a verdict then needs the
prediction to be consistent with both the noise and the shape of the data.

"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np
from scipy import stats

# the verdict rules live in fedcomp.rates.verdict; these names stay importable from here
from fedcomp.rates.verdict import Verdict, combine, local_slopes, upper_bound_verdict  # noqa: F401

LEVEL = 0.95
#: the largest family a fit's intervals are kept for (:meth:`ExponentFit.family_interval`): a
#: claim of more parts than this gets no interval at its level (its fails are inconclusive)
FAMILY_MAX = 32


@dataclass
class ExponentFit:
    """Slope of log y against log x with its intervals (see the module docstring)."""
    slope: float
    intercept: float
    low: float
    high: float
    boot_low: float
    boot_high: float
    reg_low: float
    reg_high: float
    stderr: float
    r2: float
    n_points: int
    n_seeds: int
    x: list
    y_mean: list
    y_low: list
    y_high: list
    # what the fit left out, so that a verdict can say so instead of fitting fewer points
    # silently: grid points with no finite value (every run diverged or is missing) and single
    # runs (seed, point) that were NaN / inf and so left out of their point's mean
    n_dropped: int = 0
    dropped_x: list = field(default_factory=list)
    n_missing_runs: int = 0
    # the seed bootstrap's percentile interval at 1 - 0.05/m for m = 1..FAMILY_MAX (None: the
    # fit has no bootstrap; its interval is the regression's alone, or was given)
    boot_family: list | None = None

    @property
    def width(self) -> float:
        return self.high - self.low

    def predict(self, x) -> np.ndarray:
        return np.exp(self.intercept) * np.asarray(x, dtype=float) ** self.slope

    def band(self, x, boot: np.ndarray | None = None):
        """Pointwise 95 % band of the fitted line (from the bootstrap lines when given)."""
        x = np.asarray(x, dtype=float)
        if boot is None or len(boot) == 0:
            lo = np.exp(self.intercept) * x ** self.low
            hi = np.exp(self.intercept) * x ** self.high
            return np.minimum(lo, hi), np.maximum(lo, hi)
        lines = boot[:, :1] + boot[:, 1:2] * np.log(x)[None, :]
        q = (1 - LEVEL) / 2
        return np.exp(np.quantile(lines, q, axis=0)), np.exp(np.quantile(lines, 1 - q, axis=0))

    def to_dict(self) -> dict:
        d = asdict(self)
        d["interval"] = [self.low, self.high]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "ExponentFit":
        """The fit of :meth:`to_dict` (or of any dict holding its fields; other keys ignored)."""
        return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})

    def text(self) -> str:
        return f"{self.slope:+.3f} [{self.low:+.3f}, {self.high:+.3f}]"

    def family_interval(self, family: int) -> tuple[float, float]:
        """The interval at the level of a family of `family` comparisons, 1 - 0.05/family
        (Bonferroni; at 1, (low, high)): the union of the bootstrap's percentile interval and
        the regression's, as (low, high) is at 95 %. (-inf, inf) when it cannot be computed:
        a family larger than FAMILY_MAX, or a fit without the bootstrap's tails."""
        if not (isinstance(family, int) and family >= 1):
            raise ValueError(f"family must be an integer >= 1, got {family!r}")
        if family == 1:
            return self.low, self.high
        alpha = (1 - LEVEL) / family
        if self.n_points > 2 and math.isfinite(self.stderr):
            tq = float(stats.t.ppf(1 - alpha / 2, self.n_points - 2))
            reg = (self.slope - tq * self.stderr, self.slope + tq * self.stderr)
        else:
            reg = (-math.inf, math.inf)
        if self.boot_family is None:
            # the interval is the regression's alone (fit_deterministic) or was given: only the
            # former can be widened
            alone = (self.boot_low, self.boot_high) == (self.reg_low, self.reg_high)
            return reg if alone else (-math.inf, math.inf)
        if family > len(self.boot_family):
            return -math.inf, math.inf
        b_lo, b_hi = self.boot_family[family - 1]
        return min(b_lo, reg[0]), max(b_hi, reg[1])

    def losses(self) -> str:
        """'' when nothing was left out, else a sentence saying what (for verdicts)."""
        out = []
        if self.n_dropped:
            xs = ", ".join(f"{x:g}" for x in self.dropped_x)
            out.append(f"{self.n_dropped} grid point(s) dropped from the fit for lack of finite "
                       f"runs (diverged or missing) at x = {xs}")
        if self.n_missing_runs:
            out.append(f"{self.n_missing_runs} run(s) diverged or missing, left out of their "
                       f"point's mean")
        return "; ".join(out)


def _ols_rows(lx, LY):
    """(intercept, slope) of the least-squares line of every row of LY against lx, shape
    (rows, 2); each row's sums reduce along the last axis, so a row's numbers do not depend on
    the others."""
    xm = lx.mean()
    dx = lx - xm
    ym = LY.mean(axis=1)
    s = (dx * (LY - ym[:, None])).sum(axis=1) / (dx * dx).sum()
    return np.stack([ym - s * xm, s], axis=1)


def _ols(lx, ly):
    """(intercept, slope) of the least-squares line of ly against lx (:func:`_ols_rows`)."""
    a, s = _ols_rows(lx, ly[None, :])[0]
    return a, s


def _nanmean_seeds(a, axis):
    """Mean over the seeds axis leaving NaN (missing runs) out; NaN where all are missing."""
    import warnings
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(a, axis=axis)


def fit_exponent(x, values, n_boot: int = 2000, seed: int = 0, return_boot: bool = False):
    """Fit y ~ C x^s to seed means, with intervals.

    Parameters
    ----------
    x : array (n,)
        Grid (positive).
    values : array (n_seeds, n)
        The measured quantity per seed and grid point (positive; NaN marks a missing run, e.g. a
        diverged one, and is left out of that point's mean).
    n_boot : int
        Bootstrap resamples of the seeds.
    seed : int
        Seed of the bootstrap's generator (the fit is deterministic given its inputs).
    return_boot : bool
        Also return the (n_boot, 2) array of bootstrap (intercept, slope).

    Returns
    -------
    ExponentFit (and the bootstrap array if asked)
    """
    x = np.asarray(x, dtype=float)
    v = np.asarray(values, dtype=float)
    if v.ndim == 1:
        v = v[None, :]
    if v.shape[1] != x.shape[0]:
        raise ValueError(f"values must have shape (n_seeds, {x.shape[0]}), got {v.shape}")
    finite = v[np.isfinite(v)]
    if finite.size == 0:
        raise ValueError(f"no finite value to fit an exponent: none of the {v.size} run(s) at "
                         f"the {x.size} grid point(s) is finite (diverged or missing)")
    if finite.min() <= 0:
        raise ValueError("values must contain positive finite numbers (log-log fit)")
    keep = np.isfinite(v).sum(axis=0) > 0
    lost_x = x[~keep].tolist()
    n_missing = int((~np.isfinite(v[:, keep])).sum())
    x, v = x[keep], v[:, keep]
    if keep.sum() < 2:
        raise ValueError(f"need at least 2 grid points with finite values to fit an exponent; "
                         f"{len(lost_x)} of {keep.size} had no finite run (diverged or missing) "
                         f"at x = {', '.join(f'{z:g}' for z in lost_x)}")

    def statistic(idx):
        return _nanmean_seeds(v[idx], axis=0)

    def statistic_rows(IDX):
        return _nanmean_seeds(v[IDX], axis=1)

    out = fit_statistic(x, statistic, v.shape[0], n_boot=n_boot, seed=seed,
                        return_boot=return_boot, statistic_rows=statistic_rows)
    fit = out[0] if return_boot else out
    fit.dropped_x = sorted(lost_x + fit.dropped_x)
    fit.n_dropped = len(fit.dropped_x)
    fit.n_missing_runs = n_missing
    return out


def fit_statistic(x, statistic, n_seeds: int, n_boot: int = 2000, seed: int = 0,
                  return_boot: bool = False, statistic_rows=None):
    """Fit log statistic(all seeds) against log x, with the seed bootstrap and regression
    intervals (module docstring). ``statistic(idx)`` maps an array of seed indices (with
    repeats) to the quantity at every grid point (length len(x)); a non-finite or non-positive
    entry of a bootstrap replicate drops that grid point from that replicate's fit.

    ``statistic_rows(IDX)``, optional, is ``statistic`` of every row of an (n_boot, n_seeds)
    index array at once, returning (n_boot, len(x)); it must give ``statistic``'s numbers bit
    for bit (the replicates' fits are then computed together: the same numbers, faster).
    """
    x = np.asarray(x, dtype=float)
    if np.any(x <= 0):
        raise ValueError("x must be positive (log-log fit)")
    n_seeds = int(n_seeds)
    full = np.asarray(statistic(np.arange(n_seeds)), dtype=float)
    ok = np.isfinite(full) & (full > 0)
    dropped = x[~ok].tolist()
    if ok.sum() < 2:
        raise ValueError(f"need at least 2 grid points with positive finite values to fit an "
                         f"exponent; {len(dropped)} of {x.size} were not (diverged or missing) "
                         f"at x = {', '.join(f'{z:g}' for z in dropped)}")
    x, full = x[ok], full[ok]
    n = x.shape[0]
    lx = np.log(x)
    ly = np.log(full)
    a, s = _ols(lx, ly)
    pred = a + s * lx
    ss_res = float(((ly - pred) ** 2).sum())
    ss_tot = float(((ly - ly.mean()) ** 2).sum())
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else 1.0
    if n > 2:
        reg = stats.linregress(lx, ly)
        tq = stats.t.ppf(0.5 + LEVEL / 2, n - 2)
        stderr = float(reg.stderr)
        reg_low, reg_high = s - tq * stderr, s + tq * stderr
    else:
        stderr, reg_low, reg_high = math.inf, -math.inf, math.inf
    rng = np.random.default_rng(seed)
    boot = np.full((n_boot, 2), np.nan)
    # one draw per replicate, as always (one draw of all of them is another stream)
    IDX = np.array([rng.integers(0, n_seeds, n_seeds) for _ in range(n_boot)],
                   dtype=np.int64).reshape(n_boot, n_seeds)
    if statistic_rows is not None:
        pts = np.asarray(statistic_rows(IDX), dtype=float).reshape(n_boot, ok.size)[:, ok]
    else:
        pts = np.array([np.asarray(statistic(idx), dtype=float)[ok] for idx in IDX],
                       dtype=float).reshape(n_boot, n)
    good = np.isfinite(pts) & (pts > 0)
    whole = good.all(axis=1)
    with np.errstate(all="ignore"):
        boot[whole] = _ols_rows(lx, np.log(pts[whole]))
    for b in np.flatnonzero(~whole):  # replicates that lost a grid point: fit the rest
        g = good[b]
        if g.sum() >= 2:
            boot[b] = _ols(lx[g], np.log(pts[b, g]))
    boot = boot[np.isfinite(boot[:, 1])]
    q = (1 - LEVEL) / 2
    if n_seeds > 1 and len(boot) >= max(20, n_boot // 2):
        boot_low, boot_high = (float(z) for z in np.quantile(boot[:, 1], [q, 1 - q]))
        qs = q / np.arange(1, FAMILY_MAX + 1)
        lows, highs = np.quantile(boot[:, 1], qs), np.quantile(boot[:, 1], 1 - qs)
        boot_family = [[float(a_), float(b_)] for a_, b_ in zip(lows, highs)]
    else:
        boot_low, boot_high = -math.inf, math.inf
        boot_family = [[-math.inf, math.inf]] * FAMILY_MAX
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        y_low = np.nanquantile(pts, q, axis=0)
        y_high = np.nanquantile(pts, 1 - q, axis=0)
    fit = ExponentFit(slope=float(s), intercept=float(a),
                      low=float(min(boot_low, reg_low)), high=float(max(boot_high, reg_high)),
                      boot_low=boot_low, boot_high=boot_high, reg_low=float(reg_low),
                      reg_high=float(reg_high), stderr=stderr, r2=float(r2), n_points=int(n),
                      n_seeds=n_seeds, x=x.tolist(), y_mean=full.tolist(),
                      y_low=y_low.tolist(), y_high=y_high.tolist(),
                      n_dropped=len(dropped), dropped_x=dropped, boot_family=boot_family)
    return (fit, boot) if return_boot else fit


def crossing(x, y, level: float) -> float:
    """First x at which the piecewise log-log-linear curve through (x, y) falls to `level`
    (NaN if it never does on the grid; x[0] if it starts below)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if y[0] <= level:
        return float(x[0])
    for i in range(1, len(x)):
        if y[i] <= level:
            lx0, lx1 = math.log(x[i - 1]), math.log(x[i])
            ly0, ly1 = math.log(y[i - 1]), math.log(y[i])
            frac = (math.log(level) - ly0) / (ly1 - ly0)
            return float(math.exp(lx0 + frac * (lx1 - lx0)))
    return math.nan


def upper_half_start(n: int, min_points: int = 4) -> int | None:
    """Where a grid of `n` points has its upper half, ``n // 2`` (the end of the grid an O(x^p)
    bound speaks of), or None when that half has fewer than `min_points` points (a shorter grid
    has no upper half that could decide)."""
    half = n // 2
    return None if n - half < min_points else half


def upper_half(x, values, min_points: int = 4, **kw) -> ExponentFit | None:
    """The fit (:func:`fit_exponent`) of the grid's upper half alone (:func:`upper_half_start`),
    for :func:`fedcomp.rates.verdict.tail_checked_verdict`; None without one."""
    x = np.asarray(x, dtype=float)
    values = np.asarray(values, dtype=float)
    half = upper_half_start(len(x), min_points)
    if half is None:
        return None
    return fit_exponent(x[half:], values[:, half:], **kw)


def fit_deterministic(x, y) -> ExponentFit:
    """Least-squares slope of log y on log x for deterministic values (no seeds): the interval
    is the regression's (Student t, n - 2 degrees of freedom), i.e. the lack of fit alone."""
    lx, ly = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    reg = stats.linregress(lx, ly)
    half = float(stats.t.ppf(0.975, len(lx) - 2) * reg.stderr)
    lo, hi = reg.slope - half, reg.slope + half
    return ExponentFit(slope=float(reg.slope), intercept=float(reg.intercept), low=lo, high=hi,
                       boot_low=lo, boot_high=hi, reg_low=lo, reg_high=hi,
                       stderr=float(reg.stderr), r2=float(reg.rvalue ** 2), n_points=len(lx),
                       n_seeds=1, x=list(map(float, x)), y_mean=list(map(float, y)), y_low=[],
                       y_high=[])
