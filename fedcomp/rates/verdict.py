"""Verdict rules: the one home of how a measurement and a prediction become pass/fail/inconclusive.

Every rule can fail in the direction the claim forbids, and says when a pass is vacuous.

* :func:`upper_bound_verdict` -- "y <= C x^p as x grows" (a theorem's O(.) rate) from a fitted
  exponent with its 95 % interval [lo, hi]:

  - ``fail`` when lo > p (+ tolerance): the decay is slower than the bound allows;
  - ``inconclusive`` when fewer than 3 grid points remain (divergence, missing runs), or when
    the interval is not finite or wider than ``max_width``;
  - ``inconclusive`` when lo < ``floor`` - margin: the measured decay reaches (or lies wholly)
    beyond the steepest any method of the class can reach in the regime the bound describes
    (super-linear speed-up, faster than a known lower bound), by more than the margin. Such a
    run is (or may be) outside that regime (e.g. the noise does not dominate), so it neither
    confirms nor refutes the bound; the reason names the floor. Also when the prediction itself
    is steeper than floor - margin: no run in the regime can confirm it;
  - ``inconclusive`` when hi > p + tolerance + margin: a decay slower than the bound by more
    than the margin :data:`RATE_MARGIN` is not excluded (consistent with the bound, not evidence
    for it);
  - ``pass`` otherwise, with its tightness: "tight" when the interval contains p, otherwise
    "not tight: faster than the bound by [p - hi, p - lo]". A pass therefore means the 95 %
    interval lies within [floor - margin, p + tolerance + margin] (or below p + tolerance +
    margin where no floor is known): an equivalence (non-inferiority) test with a margin fixed in
    advance, not "the interval happens to contain p". With the floor near p (most rate claims)
    only an interval narrower than about 2 margin can pass, whatever ``max_width``.

* :func:`tail_checked_verdict` -- an upper-bound verdict of the whole grid checked against the
  same rule on the grid's upper half (its asymptotic end): when one passes and the other fails,
  the run has not settled the exponent (a pre-asymptotic curve, or one that flattens at the
  end), so the verdict is inconclusive with both reasons; otherwise the whole grid's verdict
  stands, with the upper half's beside it.
* :func:`exponent_verdict` -- an exponent claimed exactly (an equality, e.g. a derived order):
  fail when the interval excludes it on either side, pass when it lies within p +- margin.
* :func:`regime` -- whether the local slopes between neighbouring grid points have settled
  (reported beside an exponent verdict, so a reader sees whether the run is asymptotic).
* :func:`bound_constant_verdict` -- a constant claimed as an upper bound (a Lipschitz or smoothness
  constant): fail when a point of the problem exceeds it, pass when it is at least the exact or
  certified supremum (with the ratio, so a loose bound is visible), inconclusive when it lies
  between the observed maximum and an uncertified supremum.
* :func:`equal_verdict` -- a value or expression claimed exactly (numbers with a tolerance, sympy
  expressions by simplification).
* :func:`ordering_verdict` -- "A beats B" from a paired-by-seed interval of the difference.
* :func:`saturation_verdicts` -- "performance first rises with a parameter, then saturates"
  (FedDRO's local steps I) from paired-by-seed gains: rises when the first step's gain is above
  0, saturates when the last step's gain is below the first's (diminishing returns), each at 95 %.
* :func:`step_limit` -- whether a deterministic gap vanishes as the step size eta -> 0 (Theorem
  4.1's sense of failure: a limit bounded away from 0 for every small eta) or stays: from the
  log-log slope of the gap on a grid of eta and its extrapolation to eta = 0.
* :func:`vanishing_order_verdict` -- a computed (deterministic) quantity vanishing faster than
  x^p as x -> 0, from its local slopes.
* :func:`paired_fraction_below_verdict`, :func:`paired_spread_below_verdict` -- "at least 10 %
  below" for values paired by seed: in the mean (a t interval of the paired differences) and in
  the spread (the Pitman-Morgan test).
* :func:`combine` -- several parts: fail if any fails, pass if all pass, else inconclusive.

Every rule returns ``inconclusive`` (never pass, never fail) when a number it compares is NaN
(an exponent rule: not finite): a measurement that failed, or a prediction that evaluates to NaN,
can neither confirm nor refute anything. (An infinite supremum is a measurement: it fails any
finite bound.)
"""
from __future__ import annotations

import contextlib
import contextvars
import math
import warnings
from dataclasses import dataclass

import numpy as np


#: How far past the admissible range of exponents a 95 % interval may reach and still pass (see
#: :func:`upper_bound_verdict`). Fixed in advance, not tuned to any run: 0.1 is below 1/6, the
#: smallest gap between two rates the five papers set against each other (T^-1/2 of the
#: SGD-type methods against T^-2/3 of the variance-reduced ones; K^-1/2, linear speed-up, against
#: K^-1/3), so a pass excludes the next slower rate.
RATE_MARGIN = 0.1


#: The fastest exponents a method class can reach in the regime an O(.) rate bound describes: the
#: `floor` of :func:`upper_bound_verdict`, one home for the method-class floors of every paper's
#: checks (the margin above covers the statistical and pre-asymptotic slack on both sides; no
#: check adds its own). Floors that come from one problem's structure rather than from a method
#: class (the m^-2 of estimator (3)'s bias in fedcomp.checks.wu, the tau/T term of ComFedL's
#: average in fedcomp.checks.huang) stay with the check that derives them.
SGD_FLOOR = -0.5
SGD_FLOOR_REASON = ("stochastic first-order method: E||grad||^2 >= c (KT)^-1/2 with KT samples "
                    "in the noise-dominated regime (Arjevani et al., Math. Program. 2023; Drori "
                    "& Shamir 2020), so a decay steeper than T^-1/2 is faster than the lower "
                    "bound, and one steeper than K^-1/2 at fixed T super-linear speed-up")
VR_FLOOR = -2 / 3
VR_FLOOR_REASON = ("variance-reduced method under mean-squared smoothness: E||grad||^2 >= "
                   "c (KT)^-2/3 (Arjevani et al. 2023), so steeper than -2/3 is super-linear "
                   "speed-up in K or faster than the lower bound in T")
SPEEDUP_FLOOR = -1.0
SPEEDUP_FLOOR_REASON = ("samples per client to reach a target eps fall at most like K^-1 "
                        "(linear speed-up); steeper is super-linear speed-up, impossible in the "
                        "noise-dominated regime")


def cost_floor(floor: float, reason: str, t_per_cost: float) -> tuple[float, str]:
    """A floor f on the exponent of epsilon in T carried into a cost along which T grows like
    cost^b (:func:`fedcomp.rates.analysis.t_per_cost`; samples: b = 1; model rounds T/I with
    I ~ T^(1/4): b = 4/3): epsilon ~ T^f = cost^(f b). Returns the floor in the cost and its
    reason."""
    if not t_per_cost > 0:      # NaN included
        raise ValueError(f"t_per_cost must be > 0 (T must grow with the cost), got "
                         f"{t_per_cost!r}")
    return floor * t_per_cost, (f"{reason}; carried into the cost: along the grid T grows like "
                                f"cost^{t_per_cost:.3f}, so {floor:+.3f} x {t_per_cost:.3f}")


@dataclass
class Verdict:
    """``bound``: for :func:`bound_constant_verdict`, what it compared (name, claimed,
    supremum, supremum_exact, observed_max, verdict): the row of the constants figure."""
    verdict: str
    reason: str
    bound: dict | None = None


def _fit_text(fit) -> str:
    return f"{fit.slope:+.3f} [{fit.low:+.3f}, {fit.high:+.3f}]"


def _dropped_note(fit) -> str:
    """What divergence took out of the fit (ExponentFit.losses), so a reader learns that the
    grid shrank whatever the verdict."""
    lost = getattr(fit, "losses", lambda: "")()
    return f" ({lost})" if lost else ""


def _family_refutes(fit, family: int, excludes) -> tuple[bool, str]:
    """Whether a part whose 95 % interval excludes the prediction still does at the level of
    its claim's family, 1 - 0.05/`family` (Bonferroni over the claim's parts: the claim fails
    when any part does, so a fail must hold at the family's level), and the words saying so.
    ``excludes(low, high)``: the part's own test on an interval."""
    if family == 1:
        return True, ""
    lo, hi = fit.family_interval(family)
    at = (f"at 1 - 0.05/{family} over the claim's {family} parts the interval is "
          f"[{lo:+.3f}, {hi:+.3f}]")
    if excludes(lo, hi):
        return True, f"; {at}: it still does"
    return False, f"{at}, which does not: not refuted at the claim's level"


def _check_family(family) -> None:
    if not (isinstance(family, int) and not isinstance(family, bool) and family >= 1):
        raise ValueError(f"family must be an integer >= 1 (the claim's number of parts), got "
                         f"{family!r}")


def upper_bound_verdict(fit, predicted: float, max_width: float = 0.4, tolerance: float = 0.0,
                        floor: float | None = None, floor_reason: str = "",
                        min_points: int = 3, tail=None,
                        tail_label: str = "upper half of the grid",
                        margin: float = RATE_MARGIN, regime: dict | None = None,
                        family: int = 1) -> Verdict:
    """Verdict for "y <= C x^predicted as x grows" (module docstring).

    Parameters
    ----------
    fit : ExponentFit
    predicted : float
        The bound's exponent (e.g. -0.5 for O(T^-1/2)).
    max_width : float > 0
        Widest interval judged at all: a wider one is inconclusive unless it lies wholly above
        the prediction (fail). A pass also needs the interval inside the margin band (module
        docstring), which is usually the narrower condition.
    tolerance : float >= 0
        Slack added to the prediction before calling a fail (0: the interval alone decides).
    floor : float or None
        The steepest exponent any method of the class can reach in the bound's regime (e.g. -0.5
        in T for a stochastic first-order method under the lower bound of Arjevani et al.; -1/2
        in K at fixed T for linear speed-up). None: no such limit is known.
    floor_reason : str
        Why the floor holds (printed when it decides).
    margin : float >= 0
        How far past [floor, predicted + tolerance] the interval may reach and still pass
        (:data:`RATE_MARGIN`).
    tail : ExponentFit or None
        The fit of the grid's upper half (:func:`fedcomp.rates.fit.upper_half`; None where the
        grid has none): judged by the same rule and combined with the whole grid's verdict by
        :func:`tail_checked_verdict` (named `tail_label` in the reason).
    regime : dict or None
        The grid's :func:`regime` (a rate in T): a pass on a run shown to drift at the end of
        the grid is inconclusive (:func:`regime_checked_verdict`), and the regime is reported
        beside the verdict either way.
    family : int >= 1
        The number of parts of the claim this exponent is one of: a fail needs the interval at
        1 - 0.05/family (:meth:`~fedcomp.rates.fit.ExponentFit.family_interval`) to lie above
        the prediction too; one that does so at 95 % only is inconclusive. A pass is judged at
        95 % (every part must pass: no correction needed).
    """
    _check_family(family)
    if regime is not None:
        return regime_checked_verdict(
            upper_bound_verdict(fit, predicted, max_width=max_width, tolerance=tolerance,
                                floor=floor, floor_reason=floor_reason, min_points=min_points,
                                tail=tail, tail_label=tail_label, margin=margin,
                                family=family), regime)
    if tail is not None:
        kw = dict(max_width=max_width, tolerance=tolerance, floor=floor,
                  floor_reason=floor_reason, min_points=min_points, margin=margin)
        # the upper half only guards the whole grid's verdict (a pass it contradicts becomes
        # inconclusive): judged at 95 %, since a guard widened to the family's level would let
        # more passes through
        whole, end = (upper_bound_verdict(fit, predicted, family=family, **kw),
                      upper_bound_verdict(tail, predicted, **kw))
        if (whole.verdict == "pass" and end.verdict == "inconclusive" and floor is not None
                and math.isfinite(tail.low) and math.isfinite(tail.high)
                and tail.low < floor - margin and tail.high < floor):
            # the grid's upper end decays faster than the class can in the bound's regime:
            # the run has not reached that regime, and the whole grid's pass cannot stand on it
            return Verdict("inconclusive", f"{whole.reason}; but the {tail_label} alone: "
                                           f"{end.verdict} -- {end.reason}: the end of the grid "
                                           f"lies beyond the class's floor, so the run has not "
                                           f"reached the regime the bound describes")
        return tail_checked_verdict(whole, end, tail_label)
    if not max_width > 0:
        raise ValueError(f"max_width must be > 0, got {max_width!r}")
    if not tolerance >= 0:
        raise ValueError(f"tolerance must be >= 0, got {tolerance!r}")
    if not margin >= 0:
        raise ValueError(f"margin must be >= 0, got {margin!r}")
    if not isinstance(predicted, (int, float)) or isinstance(predicted, bool) \
            or not math.isfinite(predicted):
        raise ValueError(f"predicted must be a finite number, got {predicted!r}")
    iv = f"slope {_fit_text(fit)} (95 % interval), predicted <= {predicted:+.3f}"
    iv += _dropped_note(fit)
    if fit.n_points < min_points:
        return Verdict("inconclusive", f"{iv}: fewer than {min_points} usable grid points")
    if not (math.isfinite(fit.low) and math.isfinite(fit.high)):
        return Verdict("inconclusive", f"{iv}: the interval is not finite")
    if fit.low > predicted + tolerance:
        held, text = _family_refutes(fit, family, lambda lo, hi: lo > predicted + tolerance)
        if not held:
            return Verdict("inconclusive", f"{iv}: the interval lies above the prediction for "
                                           f"this part alone, but {text}")
        if floor is not None and floor > predicted + tolerance + margin:
            # the same fit may read 'outside the regime' against another part's bound: say
            # why a fail stands here whatever the regime
            text += (f"; the prediction is itself steeper than {floor:+.3f}, the fastest any "
                     f"method of this class can reach in the bound's regime, by more than the "
                     f"margin {margin:g}: no run can meet it, in that regime or before it")
        return Verdict("fail", f"{iv}: the measured decay is slower than the bound allows "
                               f"(the interval lies above the prediction){text}")
    if fit.high - fit.low > max_width:
        return Verdict("inconclusive", f"{iv}: interval wider than {max_width:g}")
    why_floor = f"the fastest any method of this class can reach in the bound's regime " \
                f"({floor_reason or 'stated floor'})"
    if floor is not None and floor > predicted + tolerance + margin:
        return Verdict("inconclusive",
                       f"{iv}: the prediction is steeper than {floor:+.3f}, {why_floor}, by more "
                       f"than the margin {margin:g}: no run in that regime can confirm it")
    if floor is not None and fit.low < floor - margin:
        where = ("the whole interval lies beyond" if fit.high < floor else
                 f"the interval reaches {floor - fit.low:.3f} beyond")
        return Verdict("inconclusive",
                       f"{iv}: {where} {floor:+.3f}, {why_floor}, and more than the margin "
                       f"{margin:g} beyond it: the run is (or may be) outside the regime the "
                       f"bound describes")
    if fit.high > predicted + tolerance + margin:
        plus = f" (plus the tolerance {tolerance:g})" if tolerance else ""
        return Verdict("inconclusive",
                       f"{iv}: consistent with the bound but not evidence for it: the interval "
                       f"reaches {fit.high - predicted:.3f} above the prediction, more than the "
                       f"margin {margin:g}{plus} a pass allows (a decay that much slower is not "
                       f"excluded)")
    if fit.high < predicted:
        if floor is not None and abs(floor - predicted) <= 1e-12:
            # the bound is the class's floor: a steeper interval within the margin is the
            # floor's statistical and pre-asymptotic slack, not a bound beaten
            return Verdict("pass", f"{iv}: at the class's floor {floor:+.3f} within the margin "
                                   f"{margin:g} (the interval lies [{predicted - fit.high:.3f}, "
                                   f"{predicted - fit.low:.3f}] beyond it; {why_floor})")
        return Verdict("pass", f"{iv}: not tight on this run: faster than the bound by "
                               f"[{predicted - fit.high:.3f}, {predicted - fit.low:.3f}]")
    return Verdict("pass", f"{iv}: consistent with the bound being tight (the interval "
                           f"contains the predicted exponent)")


def regime_checked_verdict(v: Verdict, reg: dict | None) -> Verdict:
    """`v` (a rate verdict on a grid) checked against the grid's :func:`regime`: a pass on a run
    shown to drift at the end of the grid (``settled`` False) becomes inconclusive, since the
    fitted exponent may not describe the end of the grid, where an O(x^p) bound speaks. A fail
    or an inconclusive verdict stands (a fail's interval excludes the prediction over the whole
    grid; the tail check, :func:`tail_checked_verdict`, is what questions it on a long grid),
    and the regime is reported beside it either way."""
    if not reg:
        return v
    reason = f"{v.reason}; regime: {reg.get('text', '')}"
    if v.verdict == "pass" and reg.get("settled") is False:
        return Verdict("inconclusive", f"{reason}: the local slopes have not settled at the end "
                                       f"of the grid, so the fit may not describe it (a longer "
                                       f"grid would tell)")
    return Verdict(v.verdict, reason)


def tail_checked_verdict(whole: Verdict, tail: Verdict | None,
                         tail_label: str = "upper half of the grid") -> Verdict:
    """`whole` (:func:`upper_bound_verdict` on every grid point) checked against `tail` (the same
    rule on the grid's upper half; None when the grid is too short to have one).

    An O(x^p) bound speaks of large x. A curve such as x^p (1 + c x^-q) satisfies it, yet its fit
    over a finite grid can lie above p while the fit of the grid's upper end already contains p;
    a curve that flattens at the end (a floor) can pass on the whole grid and fail on its upper
    half. Either disagreement means the grid does not settle the exponent: ``inconclusive``,
    naming both. When both fail, or both pass, or the upper half is itself inconclusive (too
    few points, too wide an interval: no evidence either way), the whole grid's verdict stands,
    with the upper half's reported beside it."""
    if tail is None:
        return whole
    both = {whole.verdict, tail.verdict}
    if both == {"pass", "fail"}:
        return Verdict("inconclusive",
                       f"{whole.reason}; but the {tail_label} alone: {tail.verdict} -- "
                       f"{tail.reason}: the whole grid and its upper end disagree, so this run "
                       f"does not settle the exponent (a longer grid would)")
    return Verdict(whole.verdict, f"{whole.reason}; {tail_label} alone (agrees or does not "
                                  f"decide): {tail.verdict} -- {tail.reason}")


def exponent_verdict(fit, predicted: float, max_width: float = 0.4,
                     min_points: int = 3, margin: float = RATE_MARGIN,
                     family: int = 1) -> Verdict:
    """Verdict for an exponent claimed exactly: fail when the interval excludes it (at the
    family's level too, as :func:`upper_bound_verdict`'s `family`), pass when it contains it
    and lies within predicted +- `margin` (:data:`RATE_MARGIN`), inconclusive otherwise (too
    few points, a non-finite number, too wide an interval)."""
    _check_family(family)
    iv = f"slope {_fit_text(fit)} (95 % interval), predicted {predicted:+.3f}"
    iv += _dropped_note(fit)
    if fit.n_points < min_points:
        return Verdict("inconclusive", f"{iv}: fewer than {min_points} usable grid points")
    if not all(math.isfinite(v) for v in (fit.slope, fit.low, fit.high, predicted)):
        return Verdict("inconclusive", f"{iv}: a number compared is not finite")
    if fit.low > predicted or fit.high < predicted:
        side = "slower" if fit.low > predicted else "faster"
        held, text = _family_refutes(fit, family, lambda lo, hi: lo > predicted or hi < predicted)
        if not held:
            return Verdict("inconclusive", f"{iv}: the interval excludes the prediction ({side}) "
                                           f"for this part alone, but {text}")
        return Verdict("fail", f"{iv}: the interval excludes the prediction ({side}){text}")
    if fit.high - fit.low > max_width:
        return Verdict("inconclusive", f"{iv}: interval wider than {max_width:g}")
    if fit.low < predicted - margin or fit.high > predicted + margin:
        return Verdict("inconclusive", f"{iv}: the interval contains the prediction but reaches "
                                       f"more than the margin {margin:g} past it")
    return Verdict("pass", f"{iv}: the interval contains the prediction")


def local_slopes(x, values) -> np.ndarray:
    """Slopes of log(seed mean) against log x between neighbouring grid points (`values`: one
    row per seed, or one value per point)."""
    with warnings.catch_warnings():      # a point with no finite seed: its mean is NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        means = np.nanmean(np.atleast_2d(np.asarray(values, dtype=float)), axis=0)
    return np.diff(np.log(means)) / np.diff(np.log(np.asarray(x, dtype=float)))


def regime(x, values, predicted: float | None = None, settle: float = 0.1,
           level: float = 0.05) -> dict:
    """Whether the run has reached the regime an exponent describes, judged on the drift of the
    local slopes at the end of the grid: the last local slope minus the third-last (the
    second-last on a grid of three points). With several seeds (`values`: one row per seed) the
    drift is each seed's own, and its mean has a 1 - `level` t interval over the seeds (a few
    seeds give a wide one: a resampling interval would be too narrow there); one run per point
    gives the drift of that run, without an interval.

    ``settled``: True when that interval lies within +-`settle`; False when it lies wholly
    beyond (a drift larger than `settle` is shown) or a local slope there is not finite (a lost
    grid point: the end of the grid cannot be read); None when neither is shown (local slopes of
    seed means are noisy: their noise alone is no drift). :func:`regime_checked_verdict` keeps a
    rate from passing on a run whose ``settled`` is False. Also reported: how far the last slope
    is from `predicted`."""
    v = np.atleast_2d(np.asarray(values, dtype=float))
    x = np.asarray(x, dtype=float)
    s = local_slopes(x, v)
    out = {"local_slopes": [float(z) for z in s]}
    k = min(3, len(s))
    if k < 2:
        out.update(settled=None, text="too few local slopes to tell")
        return out
    last = s[-k:]
    shown = ", ".join(f"{z:+.2f}" for z in last)
    if not np.all(np.isfinite(last)):
        out.update(settled=False, text=f"the end of the grid cannot be read (last local slopes "
                                       f"{shown}: one is not finite)")
        return out
    drift = float(last[-1] - last[0])
    lo = hi = drift
    if v.shape[0] >= 2:
        from fedcomp.rates.seeds import mean_interval
        with np.errstate(invalid="ignore", divide="ignore"):
            ls = np.diff(np.log(v), axis=1) / np.diff(np.log(x))     # (seed, step)
        d = ls[:, -1] - ls[:, -k]
        d = d[np.isfinite(d)]
        if d.size >= 2:
            iv = mean_interval(d, 1 - level)
            drift, lo, hi = iv.mean, iv.low, iv.high
    settled = (True if -settle <= lo and hi <= settle
               else False if lo > settle or hi < -settle else None)
    label = {True: "settled", False: "drifting", None: "drift not decided"}[settled]
    text = (f"{label} (last local slopes {shown}; drift {drift:+.3f} [{lo:+.3f}, {hi:+.3f}] "
            f"against +-{settle:g})")
    if predicted is not None:
        text += f", last one {s[-1] - predicted:+.2f} from the prediction"
    out.update(settled=settled, drift=drift, drift_interval=[lo, hi], text=text)
    return out


#: a deterministic gap below this is 0 (exact-oracle runs whose limit is 0 end at 1e-29 to 1e-31
#: on the O(1) problems this rule is used on; an absolute floor, so scale-dependent)
VANISHED_GAP = 1e-20
#: the slopes of log gap on log eta that decide :func:`step_limit`, fixed in advance: a gap that
#: falls at least linearly with eta (the interval above 1) may vanish with it; one whose interval
#: lies below 1/2 may stay (a first-order client-drift term kappa eta on a positive limit gives
#: slopes near kappa eta, far below 1/2 on the grids used)
VANISHING_SLOPE, STAYING_SLOPE = 1.0, 0.5
#: how close the runs must come to the closed forms :func:`step_limit` is handed: the linear
#: extrapolation to eta = 0 within 1 % of a positive limit; the gap at the smallest eta within
#: 10 % of a vanishing law (so that a floor hidden below the smallest gap is at most 10 % of it)
LIMIT_RTOL, LAW_RTOL = 0.01, 0.1


def step_limit(etas, gaps, limit: float | None = None, law=None, converged=None) -> dict:
    """Does a deterministic gap (||grad Phi||^2 at a run's limit, exact oracles) vanish as the
    step size eta -> 0, or stay bounded away from 0 (Theorem 4.1's sense of failure)? On at
    least 3 distinct positive step sizes, with the fit of
    :func:`fedcomp.rates.fit.fit_deterministic` (its interval is the lack of fit alone) and the
    linear extrapolation to eta = 0 from the two smallest eta:

    * ``vanishes``: every gap below :data:`VANISHED_GAP`; or the slope's interval lies above
      :data:`VANISHING_SLOPE` and, where a ``law`` is given (the closed-form gap at each eta,
      vanishing with eta), the smallest eta's gap is within :data:`LAW_RTOL` of it;
    * ``stays``: the interval lies below :data:`STAYING_SLOPE`, the extrapolation keeps at least
      half of the smallest eta's gap and, where a closed-form eta -> 0 ``limit`` is given, it is
      positive and the extrapolation lies within :data:`LIMIT_RTOL` of it;
    * ``undecided`` otherwise, when a gap is not finite (a diverged run decides nothing), when a
      run with a nonzero gap did not settle (``converged`` False), or when the runs contradict
      the closed form (all zero against a positive ``limit``).

    Without the closed forms the rule cannot tell a constant from a slowly vanishing power (a
    gap ~ eta^0.3 has a flat fit and a large extrapolation on any finite grid), nor see a floor
    below the smallest gap (3e-5 + eta^2 falls like eta^2 down to eta ~ 0.005): the ``limit`` and
    ``law`` guards close both. Returns {"kind", "slope", "low", "high", "extrapolated", "text"}.
    """
    from fedcomp.rates.fit import fit_deterministic
    e = np.asarray(etas, dtype=float)
    g = np.asarray(gaps, dtype=float)
    if e.ndim != 1 or not np.all(e > 0) or len(np.unique(e)) != len(e):
        raise ValueError(f"etas must be distinct positive step sizes, got {list(etas)}")
    out = {"kind": "undecided", "slope": math.nan, "low": math.nan, "high": math.nan,
           "extrapolated": math.nan}
    if len(e) < 3 or len(e) != len(g):
        out["text"] = f"{len(g)} gaps on {len(e)} step sizes: 3 or more needed"
        return out
    if not np.all(np.isfinite(g)):
        out["text"] = "a run diverged or failed (non-finite gap): undecided"
        return out
    if converged is not None:
        loose = [float(x) for x, c, y in zip(e, converged, g) if not c and y >= VANISHED_GAP]
        if loose:
            out["text"] = f"the runs at eta = {loose} did not settle: undecided"
            return out
    positive = limit is not None and limit >= VANISHED_GAP
    if np.all(g < VANISHED_GAP):
        if positive:
            out["text"] = (f"every gap is 0 to machine precision but the closed-form limit is "
                           f"{limit:.3g}: the runs contradict it, undecided")
        else:
            out.update(kind="vanishes", text=f"every gap below {VANISHED_GAP:g} (max "
                                             f"{g.max():.1e}): 0 to machine precision")
        return out
    if np.any(g < VANISHED_GAP):
        out["text"] = "some gaps are 0 to machine precision and some not: undecided"
        return out
    fit = fit_deterministic(e, g)
    order = np.argsort(e)
    (e1, g1), (e2, g2) = (e[order[0]], g[order[0]]), (e[order[1]], g[order[1]])
    g0 = g1 - (g2 - g1) * e1 / (e2 - e1)
    out.update(slope=fit.slope, low=fit.low, high=fit.high, extrapolated=float(g0))
    text = (f"log-log slope of the gap on eta {fit.slope:+.3f} [{fit.low:+.3f}, "
            f"{fit.high:+.3f}] over eta = {e.min():g}..{e.max():g}")
    law1 = None if law is None else float(np.asarray(law, dtype=float)[order[0]])
    if fit.low > VANISHING_SLOPE:
        if law1 is not None and not abs(g1 / law1 - 1) <= LAW_RTOL:
            out["text"] = (f"{text}, above {VANISHING_SLOPE:g}, but at eta = {e1:g} the gap "
                           f"{g1:.3g} is not within {LAW_RTOL:.0%} of the law's {law1:.3g}: a "
                           f"floor below the grid is not excluded, undecided")
        elif positive:
            out["text"] = (f"{text}, above {VANISHING_SLOPE:g}, against a closed-form limit "
                           f"{limit:.3g}: undecided")
        else:
            law_text = "" if law1 is None else f", the law's {law1:.3g}"
            out.update(kind="vanishes", text=f"{text}, above {VANISHING_SLOPE:g}: the gap "
                                             f"vanishes with eta (gap {g1:.3g} at eta = "
                                             f"{e1:g}{law_text})")
    elif fit.high < STAYING_SLOPE and g0 >= 0.5 * g1:
        if limit is not None and not (positive and abs(g0 / limit - 1) <= LIMIT_RTOL):
            out["text"] = (f"{text}, below {STAYING_SLOPE:g}, but extrapolated to eta = 0 the "
                           f"gap {g0:.4g} is not within {LIMIT_RTOL:.0%} of the closed-form "
                           f"limit {limit:.4g}: undecided")
        else:
            lim_text = "" if limit is None else f", the closed-form limit {limit:.4g}"
            out.update(kind="stays", text=f"{text}, below {STAYING_SLOPE:g}; extrapolated to "
                                          f"eta = 0 the gap is {g0:.4g} (at eta = {e1:g}: "
                                          f"{g1:.4g}{lim_text}): it stays")
    else:
        out["text"] = (f"{text}; extrapolated to eta = 0: {g0:.3g} (at eta = {e1:g}: "
                       f"{g1:.3g}): neither vanishing (interval above {VANISHING_SLOPE:g}) nor "
                       f"staying (interval below {STAYING_SLOPE:g}, extrapolation >= half)")
    return out


def bound_constant_verdict(name: str, predicted_value: float, supremum: float,
                           supremum_exact: bool, observed_max: float | None = None,
                           rtol: float = 1e-9) -> Verdict:
    """Verdict for "constant <= predicted" (a claimed bound) against the supremum (module
    docstring). `supremum` is exact (or certified by interval arithmetic) when `supremum_exact`;
    otherwise it is the largest value found, and only an exceedance can decide."""
    obs = supremum if observed_max is None else observed_max
    head = (f"{name}: claimed bound {predicted_value:.6g}, "
            f"{'exact/certified supremum' if supremum_exact else 'largest value found'} "
            f"{supremum:.6g}")

    def out(verdict, reason):
        return Verdict(verdict, reason, {"name": name, "claimed": float(predicted_value),
                                         "supremum": float(supremum),
                                         "supremum_exact": bool(supremum_exact),
                                         "observed_max": float(obs), "verdict": verdict})
    if any(math.isnan(float(v)) for v in (predicted_value, supremum, obs)):
        return out("inconclusive", f"{head} (observed {obs:.6g}): a number compared is NaN")
    if obs > predicted_value * (1 + rtol) + 1e-300:
        return out("fail", f"{head}: a point of the problem exceeds the bound "
                           f"(observed {obs:.6g})")
    if supremum_exact:
        if supremum > predicted_value * (1 + rtol):
            return out("fail", f"{head}: the supremum exceeds the bound")
        ratio = predicted_value / supremum if supremum > 0 else math.inf
        tight = "tight" if ratio <= 1 + 1e-6 else f"loose by a factor {ratio:.4g}"
        return out("pass", f"{head}: the bound holds ({tight})")
    return out("inconclusive", f"{head}: no point exceeds the bound, but the supremum is not "
                               f"certified")


#: the comparisons :func:`equal_verdict` made while a :func:`recording_comparisons` block is
#: open (a list of dicts: name, measured, predicted as numbers or expression strings, verdict);
#: ``Claim.judge`` opens one to draw the derived-against-printed figure of a claim judged by
#: exact comparisons. Outside such a block nothing is recorded.
_COMPARISONS: contextvars.ContextVar = contextvars.ContextVar("fedcomp_comparisons", default=None)


@contextlib.contextmanager
def recording_comparisons():
    """Collect the comparisons of :func:`equal_verdict` (numbers, expressions, booleans) and of
    :func:`record_comparison` made inside the block."""
    rows = []
    token = _COMPARISONS.set(rows)
    try:
        yield rows
    finally:
        _COMPARISONS.reset(token)


def record_comparison(name: str, measured, predicted, verdict: str) -> None:
    """Record one comparison a judge decided by its own rule (e.g. two complexities of the same
    order in eps and K) for the derived-against-printed figure; `measured` and `predicted` are
    numbers, expression strings or booleans. Outside :func:`recording_comparisons`: nothing."""
    rows = _COMPARISONS.get()
    if rows is not None:
        rows.append({"name": name, "measured": measured, "predicted": predicted,
                     "verdict": verdict})



def equal_verdict(name: str, measured, predicted, rtol: float = 1e-9, atol: float = 0.0,
                  source: str = "measured") -> Verdict:
    """Verdict for a value claimed exactly: numbers within tolerance, sympy expressions equal
    after simplification (strings are parsed, ``^`` read as power). `source` names where a number
    or truth value came from in the reason ("measured", or "derived" for one obtained by algebra;
    expressions always read "derived")."""
    import sympy as sp
    if isinstance(measured, (int, float)) and isinstance(predicted, (int, float)) \
            and not isinstance(predicted, bool):
        if math.isnan(measured) or math.isnan(predicted):
            return Verdict("inconclusive", f"{name}: {source} {measured}, predicted {predicted}: "
                                           f"a NaN decides nothing")
        ok = abs(measured - predicted) <= atol + rtol * abs(predicted)
        if not isinstance(measured, bool):
            record_comparison(name, float(measured), float(predicted), "pass" if ok else "fail")
        return Verdict("pass" if ok else "fail",
                       f"{name}: {source} {measured:.10g}, predicted {predicted:.10g}"
                       + ("" if ok else f" (off by {measured - predicted:+.3g})"))
    if isinstance(measured, bool) or isinstance(predicted, bool):
        ok = bool(measured) == bool(predicted)
        record_comparison(name, bool(measured), bool(predicted), "pass" if ok else "fail")
        return Verdict("pass" if ok else "fail", f"{name}: {source} {measured}, predicted "
                                                 f"{predicted}")
    from fedcomp._formulas import parse_expression
    m = parse_expression(measured, name) if isinstance(measured, str) else sp.sympify(measured)
    p = parse_expression(predicted, name) if isinstance(predicted, str) else sp.sympify(predicted)
    diff = sp.simplify(m - p)
    ok = diff == 0
    record_comparison(name, sp.sstr(m), sp.sstr(p), "pass" if ok else "fail")
    return Verdict("pass" if ok else "fail",
                   f"{name}: derived {sp.sstr(m)}, predicted {sp.sstr(p)}"
                   + ("" if ok else f" (difference {sp.sstr(diff)})"))


def ordering_verdict(name: str, diff_low: float, diff_high: float, diff_mean: float,
                     n_seeds: int, budget: str = "", family: int = 1,
                     family_high: float | None = None) -> Verdict:
    """Verdict for "A beats B" from a 95 % interval of the paired (by seed) difference A - B:
    pass when it lies above 0, fail when below 0, inconclusive when it contains 0.

    A claim made of `family` such comparisons ("A beats each of B, C, ...") passes when every
    one passes at 95 % (an intersection of tests: no correction), but one reversed comparison
    among many refutes it only at the family's level: `family_high`, the upper end of the
    interval at 1 - 0.05/`family` (Bonferroni), must lie below 0 for a fail."""
    if family > 1 and family_high is None:
        raise ValueError(f"{name}: a family of {family} comparisons needs family_high, the upper "
                         f"end of the interval at 1 - 0.05/{family}")
    head = (f"{name}: paired difference {diff_mean:+.4g} [{diff_low:+.4g}, {diff_high:+.4g}] "
            f"over {n_seeds} seeds" + (f" ({budget})" if budget else ""))
    if n_seeds < 2:
        return Verdict("inconclusive", f"{head}: fewer than 2 seeds, no interval")
    if diff_low > 0:
        return Verdict("pass", f"{head}: the ordering holds at 95 %")
    if diff_high < 0:
        if family > 1 and not family_high < 0:
            return Verdict("inconclusive", f"{head}: the reverse ordering holds at 95 % for this "
                                           f"pair alone, but not at 1 - 0.05/{family} over the "
                                           f"claim's {family} comparisons (upper end "
                                           f"{family_high:+.4g}): more seeds may decide it")
        at = "95 %" if family <= 1 else (f"1 - 0.05/{family} over the claim's {family} "
                                         f"comparisons (upper end {family_high:+.4g})")
        return Verdict("fail", f"{head}: the reverse ordering holds at {at}")
    return Verdict("inconclusive", f"{head}: the interval contains 0")


def paired_ordering_verdict(name: str, a: dict, b: dict, family: int = 1) -> Verdict:
    """:func:`ordering_verdict` for "A beats B" from the values of A and B by seed ({seed:
    value}, paired), with the interval at the family's level 1 - 0.05/`family` for a fail."""
    from fedcomp.rates.seeds import paired_difference
    iv = paired_difference(a, b)
    high = paired_difference(a, b, level=1 - 0.05 / family).high if family > 1 else None
    return ordering_verdict(name, iv.low, iv.high, iv.mean, iv.n, family=family,
                            family_high=high)


def saturation_verdicts(name: str, values: dict, higher_is_better: bool = True,
                        family: int = 1) -> list:
    """"`name` first rises with the parameter, then saturates" on ``values`` = {parameter:
    {seed: metric}} (at least three parameter values; seeds paired). Two :func:`ordering_verdict`
    parts: **rises**, the gain of the first step (smallest to second-smallest parameter) is above
    0 (fail: the metric drops at once); **saturates**, the gain of the last step (second-largest
    to largest) is below the first step's gain, paired by seed (fail: the returns grow rather
    than diminish; a metric that falls at the end passes, as "diminishing returns" in the
    paper's words). The grid is the caller's: a claim without a printed grid is judged on it.
    `family`: the claim's number of such comparisons (two per method judged): a part fails only
    at 1 - 0.05/`family` (:func:`ordering_verdict`)."""
    keys = sorted(values)
    if len(keys) < 3:
        raise ValueError(f"values needs at least 3 parameter values, got {keys}")
    sign = 1.0 if higher_is_better else -1.0

    def gain(lo, hi):
        common = set(values[lo]) & set(values[hi])
        return {s: sign * (values[hi][s] - values[lo][s]) for s in common}

    first, last = gain(keys[0], keys[1]), gain(keys[-2], keys[-1])
    zero = {s: 0.0 for s in first}
    return [paired_ordering_verdict(f"{name} rises ({keys[0]} -> {keys[1]}: gain above 0)",
                                    first, zero, family),
            paired_ordering_verdict(f"{name} saturates (gain {keys[0]} -> {keys[1]} above gain "
                                    f"{keys[-2]} -> {keys[-1]})", first, last, family)]


def vanishing_order_verdict(name: str, x, values, order: float, zero: float = 1e-9,
                            settle: float = 0.1) -> Verdict:
    """"`name` vanishes faster than x^order as x -> 0", from non-negative magnitudes computed (not
    sampled) at the points x. The order is read where x is smallest: pass when the local slopes
    of log value against log x between the three smallest points agree within `settle` (the
    curve has settled, as :func:`regime` asks of a rate) and the one at the smallest x exceeds
    `order`; fail when they have settled at or below it; inconclusive when they have not
    settled (extend the grid), with fewer than three points, a negative or non-finite value,
    or values at or below the absolute threshold `zero` at some points only. Values at or below
    `zero` everywhere pass (nothing to vanish)."""
    x = np.asarray(x, dtype=float)
    v = np.asarray(values, dtype=float)
    if x.size < 3 or not (np.all(np.isfinite(x)) and np.all(np.isfinite(v))) \
            or not math.isfinite(order) or np.any(v < 0):
        return Verdict("inconclusive", f"{name}: fewer than three points, or a negative or "
                                       f"non-finite number")
    small = v <= zero
    if np.all(small):
        return Verdict("pass", f"{name}: at most {zero:g} at every point (nothing to vanish)")
    if np.any(small):
        return Verdict("inconclusive", f"{name}: at most {zero:g} at some points only")
    i = np.argsort(x)
    s = local_slopes(x[i], v[i])
    text = (f"{name}: local slopes against log x, smallest x first, "
            + ", ".join(f"{z:.2f}" for z in s))
    if abs(s[0] - s[1]) > settle:
        return Verdict("inconclusive", f"{text}: not settled at the small end (the first two "
                                       f"differ by more than {settle:g}; extend the grid)")
    ok = bool(s[0] > order)
    return Verdict("pass" if ok else "fail",
                   f"{text}: settled at the small end, {s[0]:.2f} "
                   + ("above" if ok else "not above") + f" {order:g} (computed, not sampled: "
                   f"no interval)")


def _pairs(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    keep = np.isfinite(a) & np.isfinite(b)
    return a[keep], b[keep]


def paired_fraction_below_verdict(name: str, a, b, fraction: float = 0.9,
                                  level: float = 0.05) -> Verdict:
    """"a is at most `fraction` of b" in the mean, from values paired by seed (a pair with a
    non-finite value is left out): the two-sided 1 - `level` t interval of the mean of
    a - fraction b; pass when it lies below 0, fail when it lies above, inconclusive when it
    contains 0 or fewer than two pairs remain."""
    from fedcomp.rates.seeds import mean_interval
    a, b = _pairs(a, b)
    if a.size < 2 or not math.isfinite(fraction):
        return Verdict("inconclusive", f"{name}: fewer than two finite pairs")
    d = a - fraction * b
    iv = mean_interval(d, 1 - level)
    mean, lo, hi = iv.mean, iv.low, iv.high
    verdict = "pass" if hi < 0 else "fail" if lo > 0 else "inconclusive"
    return Verdict(verdict, f"{name}: mean {a.mean():.3g} against {fraction:g} x {b.mean():.3g}, "
                            f"paired difference {mean:+.2g} [{lo:+.2g}, {hi:+.2g}] "
                            f"({100 * (1 - level):.3g} %, {d.size} pairs)")


def paired_spread_below_verdict(name: str, a, b, fraction: float = 0.9,
                                level: float = 0.05) -> Verdict:
    """"a's spread is at most `fraction` of b's", from values paired by seed: the Pitman-Morgan
    test. With X = a and Y = fraction b, var X < var Y exactly when corr(X + Y, X - Y) < 0;
    t = r sqrt((n - 2) / (1 - r^2)) on n - 2 degrees of freedom, two-sided at `level`: pass when r
    is significantly negative, fail when significantly positive, inconclusive otherwise or with
    fewer than three pairs. (It assumes X and Y jointly normal.)"""
    from scipy import stats
    a, b = _pairs(a, b)
    if a.size < 3 or not math.isfinite(fraction):
        return Verdict("inconclusive", f"{name}: fewer than three finite pairs")
    x, y = a, fraction * b
    u, w = x + y, x - y
    if np.std(u) == 0 or np.std(w) == 0:
        return Verdict("inconclusive", f"{name}: a constant sum or difference (no test)")
    r, p = (float(z) for z in stats.pearsonr(u, w))   # its test: t on n - 2 degrees of freedom
    n = a.size
    verdict = "inconclusive" if p >= level else "pass" if r < 0 else "fail"
    return Verdict(verdict, f"{name}: sd {np.std(x, ddof=1):.3g} against {fraction:g} x "
                            f"{np.std(b, ddof=1):.3g} (Pitman-Morgan r {r:+.2f}, p {p:.2g}, "
                            f"{n} pairs)")


def paired_equivalence_verdict(name: str, a, b, margin: float, level: float = 0.05,
                               family: int = 1) -> Verdict:
    """"a and b are alike": the mean of a - b, paired by seed (a pair with a non-finite value is
    left out), lies within +-`margin`, a margin fixed in advance. Two one-sided t tests at
    `level` (TOST: the 1 - 2 `level` interval of the mean difference inside +-margin): pass;
    fail when the two-sided 1 - `level` interval lies wholly outside +-margin (shown not alike);
    inconclusive otherwise or with fewer than two pairs. Non-significance of the difference is
    not evidence of likeness: noisier runs widen the interval and make a pass harder, not
    easier. `family`: the claim's number of parts that can fail it; the fail's interval is
    then at 1 - `level`/family (a pass needs every part: no correction)."""
    _check_family(family)
    d, lo, hi, lo2, hi2 = _paired_intervals(name, a, b, margin, level, family)
    if d is None:
        return Verdict("inconclusive", f"{name}: fewer than two finite pairs")
    verdict = ("pass" if -margin < lo and hi < margin
               else "fail" if lo2 > margin or hi2 < -margin else "inconclusive")
    return Verdict(verdict, f"{name}: paired difference {d.mean():+.2g}, "
                            f"{100 * (1 - 2 * level):.3g} % interval [{lo:+.2g}, {hi:+.2g}] "
                            f"against the margin +-{margin:g} ({d.size} pairs, two one-sided "
                            f"tests at {100 * level:.3g} %)" + _fail_interval_text(
                                verdict, lo2, hi2, level, family))


def _fail_interval_text(verdict, lo2, hi2, level, family) -> str:
    """The fail side's interval, named when it is a family's (not the 95 % one)."""
    if family == 1:
        return ""
    return (f"; a fail needs the two-sided {100 * (1 - level / family):.4g} % interval (1 - "
            f"{level:g}/{family} over the claim's {family} parts): [{lo2:+.2g}, {hi2:+.2g}]"
            + (", which it is" if verdict == "fail" else ""))


def _paired_intervals(name: str, a, b, margin: float, level: float, family: int = 1):
    """(a - b, the 1 - 2 `level` and 1 - `level`/`family` t intervals of its mean) over the
    finite pairs; (None, ...) with fewer than two. A margin that is not a positive number is an
    error in the caller."""
    from fedcomp.rates.seeds import mean_interval
    if not (isinstance(margin, (int, float)) and math.isfinite(margin) and margin > 0):
        raise ValueError(f"{name}: margin must be a positive number, got {margin!r}")
    a, b = _pairs(a, b)
    if a.size < 2:
        return (None,) * 5
    d = a - b
    narrow, wide = mean_interval(d, 1 - 2 * level), mean_interval(d, 1 - level / family)
    return d, narrow.low, narrow.high, wide.low, wide.high


def paired_not_below_verdict(name: str, a, b, margin: float, level: float = 0.05,
                             family: int = 1) -> Verdict:
    """"a is not below b by more than `margin`" (non-inferiority), paired by seed: pass when the
    one-sided 1 - `level` lower bound of the mean of a - b lies above -margin; fail when the
    two-sided 1 - `level` interval lies wholly below -margin (shown to drop by more); else
    inconclusive (and with fewer than two finite pairs). As for
    :func:`paired_equivalence_verdict`, noise makes a pass harder, not easier; `family` as
    there (the fail's interval at 1 - `level`/family)."""
    _check_family(family)
    d, lo, _, lo2, hi2 = _paired_intervals(name, a, b, margin, level, family)
    if d is None:
        return Verdict("inconclusive", f"{name}: fewer than two finite pairs")
    verdict = "pass" if lo > -margin else "fail" if hi2 < -margin else "inconclusive"
    return Verdict(verdict, f"{name}: paired difference {d.mean():+.2g}, one-sided "
                            f"{100 * (1 - level):.3g} % lower bound {lo:+.2g} against -{margin:g} "
                            f"({d.size} pairs)" + _fail_interval_text(verdict, lo2, hi2, level,
                                                                      family))


def combine(verdicts: list[str]) -> str:
    """Verdict of a claim made of several parts: fail if any fails, pass if all pass."""
    if any(v == "fail" for v in verdicts):
        return "fail"
    if verdicts and all(v == "pass" for v in verdicts):
        return "pass"
    return "inconclusive"


def single_run_ordering_verdict(name: str, a: float, b: float, resolution: float,
                                budget: str = "") -> Verdict:
    """Verdict for "A beats B" when only ONE run of each exists (no seed interval, so
    :func:`ordering_verdict` cannot decide): pass when A - B > `resolution`, fail when
    A - B < -`resolution`, inconclusive otherwise. `resolution` covers only the measurement noise
    the caller names (e.g. the test-set sampling error of an AUC), not run-to-run variation, so the
    reason always says that the ordering is not established at 95 % over seeds."""
    if not resolution >= 0:
        raise ValueError(f"resolution must be >= 0, got {resolution!r}")
    diff = a - b
    head = (f"{name}: {a:.4f} vs {b:.4f}, difference {diff:+.4f} (resolution {resolution:.4f})"
            + (f" ({budget})" if budget else ""))
    caveat = "; one run each: not established at 95 % over seeds"
    if diff > resolution:
        return Verdict("pass", f"{head}: the ordering holds on this run{caveat}")
    if diff < -resolution:
        return Verdict("fail", f"{head}: the reverse ordering holds on this run{caveat}")
    return Verdict("inconclusive", f"{head}: within the resolution{caveat}")
