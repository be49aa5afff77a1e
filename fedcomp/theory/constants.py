"""Constants of the assumptions and lemmas, computed for a problem on a box.

``constants(p, lower, upper)`` returns the constants of Assumption 3.2 of the FedDRO paper
(Khanduri et al., section 3) for problem (2) restricted to the box ``lower <= x <= upper``:

* L_f, B_f: smoothness and Lipschitz constants of f over the *outer box*, a box that contains the
  image of the box under every g_k. Lemma 3.5's proof applies grad f's Lipschitz property between
  g(x1) and g(x2) and g = mean_k g_k lies in the convex hull of the union of the images, not in
  the union, so the outer constants are taken over the interval hull of the images (convex).
* L_g, B_g: max over clients of the Lipschitz constant of the Jacobian of g_k (spectral norm) and
  of g_k itself; for d_g > 1 L_g is bounded by sqrt(sum_i sup ||Hess g_k,i||_2^2), since
  ||J(x1) - J(x2)||_2 <= ||J(x1) - J(x2)||_F. Assumption 3.2 asks g_k(.; zeta) to be
  mean-squared Lipschitz; for the additive noise of LinearQuadratic / SymbolicProblem (one sample
  shifts both points equally) that is g_k's own constant; for the minibatch DRO problems it is
  sqrt(mean_i B_i^2) over the client's rows (Jensen), which is what is reported.
* L_h, B_h: the same for h_k (0 without h).
* L_phi_bound = L_h + B_f L_g + B_g^2 L_f (Lemma 3.5), beside L_phi_observed, the largest
  spectral norm of the Hessian of Phi found on the box by a thorough search (centre, corners,
  uniform points, then local maximisation with scipy's Powell method from the best ones): a lower
  bound of Phi's smoothness constant on the box. ``tightness`` = bound / observed.

How each constant is obtained (``Constants.details[name].method``):

``exact``
    The quantity is constant (e.g. f = ||y||^2 / 2 has Hessian I): its norm, computed once.
``closed-form``
    A formula derived for the family (LinearQuadratic: B_g = max_k ||A_k||_2, L_g = 0, L_f = 1,
    B_f = sup ||y|| over the images, exact by enumerating the corners of the box for d <= 16, or
    the Huber radius; KLDRO / Chi2DRO: bounds from lambda and the data, derived in the functions
    ``_kl`` and ``_chi2`` and listed in the notes of the result).
``interval``
    A proven upper bound of the supremum over the box by branch and bound with interval
    arithmetic on the symbolic derivatives (vectorised over sub-boxes, outward rounding; the
    rigour statement is in the section "interval arithmetic" below). Spectral norms of interval
    matrices are bounded exactly for vectors and symmetric 2 x 2 matrices and by
    min(Frobenius, sqrt(||M||_1 ||M||_inf)) otherwise. The refinement stops when the bound is
    within a relative 1e-3 of the best sampled value (``converged``) or at a box budget. The
    vectorised arithmetic trusts the platform's libm to a few ulps (see below); with
    ``verify="mpmath"`` every bound is re-proved on the final partition of the box with
    ``mpmath.iv`` (correctly rounded, outward), which removes that assumption.
``sampled``
    A sampled maximum (a *lower* estimate): used only when no rule applies (a function without an
    interval rule, or a problem family without symbolic or closed-form constants). Then
    ``certified`` is False: a sampled maximum is never reported as certified.

``exact`` also covers scalar quantities that are polynomials with rational coefficients in one
variable (degree <= 8): the supremum over the end points and the exact real roots of the
derivative (``sympy.real_roots``), evaluated to 30 digits and rounded up. Other exact suprema are
not attempted (sympy's ``maximum`` fails on ``Abs`` and on most multivariate problems): the
interval bound, within 1e-3 of the sampled maximum, is used instead.

Also here: :func:`auc_lemma2` (AUC paper, Lemma 2: L_Phi = 2 C_g^2 L_f^2 / mu + C_f L_g), its
exact supremum over the problem class :func:`auc_lemma2_class_supremum` (judged by
``zhang.lem2`` in :mod:`fedcomp.checks.zhang`) and the claim check :func:`check_lemma35`
(``khanduri.lem3.5``).

Findings recorded here:

* Lemma 3.5 needs L_f on a *convex* set containing g(x1), g(x2) (the mean of the client maps), so
  "outer constants over the image of the box under every g_k" must mean the convex hull of the
  union of the images; over the union alone the lemma can fail (f may be non-smooth between the
  images).
* AUC paper Lemma 2 is valid but not tight: the exact supremum over its problem class is
  C_g^2 L_f^2/mu + C_f L_g (:func:`auc_lemma2_class_supremum`), so the lemma's first term is
  twice the attainable one.
"""
from __future__ import annotations

import math
import sys
import types
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from fedcomp import _validate as V

__all__ = ["Constants", "Bound", "constants", "auc_lemma2", "auc_lemma2_direct", "dro_formulas",
           "auc_lemma2_report",
           "auc_lemma2_class_supremum", "auc_lemma2_instance", "search_max", "CONSTANT_NAMES"]

# ============================================================================================
# interval arithmetic
# ============================================================================================
# Rigour. Every operation returns an interval containing the exact real result for every point
# of its input intervals. Floating point is handled by widening every computed end point
# outwards: one ulp for +, -, *, / and sqrt (correctly rounded in IEEE 754) and four ulps for
# exp, log, sin, cos, tanh, atan, sinh, cosh, asinh, erf and non-integer powers, whose libm
# implementations are not correctly rounded (glibc documents at most 1-2 ulps on x86-64). The
# bounds are therefore proven for rational expressions, and under that documented libm accuracy
# for the others. A function without a rule raises Unsupported and the constant is reported as
# sampled (not certified).

_INF = np.inf
_TWO_PI = 2.0 * math.pi


class Unsupported(Exception):
    """An expression contains a function without an interval rule."""


def _dn(a, n=1):
    for _ in range(n):
        a = np.nextafter(a, -_INF)
    return a


def _up(a, n=1):
    for _ in range(n):
        a = np.nextafter(a, _INF)
    return a


def _clean(lo, hi):
    """NaN end points (0 * inf, inf - inf, log of negatives) become the whole line."""
    bad = np.isnan(lo) | np.isnan(hi)
    if np.any(bad):
        lo = np.where(bad, -_INF, lo)
        hi = np.where(bad, _INF, hi)
    return lo, hi


def iadd(a, b):
    return _clean(_dn(a[0] + b[0]), _up(a[1] + b[1]))


def ineg(a):
    return -a[1], -a[0]


def imul(a, b):
    with np.errstate(invalid="ignore", over="ignore"):
        p = np.stack([a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]])
    # 0 * inf is 0 for the product of intervals (the infinite end is never attained)
    p = np.where(np.isnan(p), 0.0, p)
    return _dn(p.min(0)), _up(p.max(0))


def iinv(a):
    lo, hi = a
    with np.errstate(divide="ignore", invalid="ignore"):
        pos = (lo > 0) | (hi < 0)
        rlo = np.where(pos, _dn(1.0 / hi), -_INF)
        rhi = np.where(pos, _up(1.0 / lo), _INF)
    return _clean(rlo, rhi)


def ipow_int(a, n: int):
    lo, hi = a
    if n == 0:
        return np.ones_like(lo), np.ones_like(hi)
    if n < 0:
        return iinv(ipow_int(a, -n))
    with np.errstate(over="ignore", invalid="ignore"):
        plo, phi = lo ** n, hi ** n
    if n % 2 == 1:
        return _dn(plo, n), _up(phi, n)
    alo, ahi = np.abs(lo), np.abs(hi)
    mx = np.maximum(alo, ahi) ** n
    mn = np.where((lo <= 0) & (hi >= 0), 0.0, np.minimum(alo, ahi) ** n)
    return np.maximum(_dn(mn, n), 0.0), _up(mx, n)


def _monotone(fn, a, ulps=4, domain_lo=-_INF):
    lo, hi = a
    with np.errstate(all="ignore"):
        flo = fn(np.maximum(lo, domain_lo))
        fhi = fn(hi)
    flo, fhi = _dn(flo, ulps), _up(fhi, ulps)
    # below the domain: unbounded
    flo = np.where(lo < domain_lo, -_INF, flo)
    bad = hi < domain_lo
    return _clean(np.where(bad, np.nan, flo), np.where(bad, np.nan, fhi))


def isqrt(a):
    lo, hi = a
    with np.errstate(invalid="ignore"):
        rlo = np.maximum(_dn(np.sqrt(np.maximum(lo, 0.0))), 0.0)
        rhi = _up(np.sqrt(np.maximum(hi, 0.0)))
    # below 0 sqrt is undefined: the whole line (the point search then reports the domain error)
    return _clean(np.where(lo < 0, -_INF, rlo), np.where(lo < 0, _INF, rhi))


def ilog(a):
    lo, hi = a
    with np.errstate(divide="ignore", invalid="ignore"):
        flo = np.where(lo > 0, _dn(np.log(np.where(lo > 0, lo, 1.0)), 4), -_INF)
        fhi = _up(np.log(hi), 4)
    out_lo = np.where(lo < 0, -_INF, flo)
    out_hi = np.where(lo < 0, _INF, fhi)
    return _clean(out_lo, out_hi)


def _contains_point(lo, hi, offset, period):
    """Whether [lo, hi] contains offset + period * j for an integer j (conservative: may say yes
    when the point is within a few ulps outside)."""
    with np.errstate(invalid="ignore"):
        a = (lo - offset) / period
        b = (hi - offset) / period
        a = a - 1e-12 * (1.0 + np.abs(a))
        b = b + 1e-12 * (1.0 + np.abs(b))
        return np.ceil(a) <= np.floor(b)


def _trig(a, fn, max_at, min_at):
    lo, hi = a
    with np.errstate(invalid="ignore"):
        f1, f2 = fn(lo), fn(hi)
    rlo = _dn(np.minimum(f1, f2), 4)
    rhi = _up(np.maximum(f1, f2), 4)
    wide = ~np.isfinite(lo) | ~np.isfinite(hi) | (hi - lo >= _TWO_PI)
    rhi = np.where(wide | _contains_point(lo, hi, max_at, _TWO_PI), 1.0, np.minimum(rhi, 1.0))
    rlo = np.where(wide | _contains_point(lo, hi, min_at, _TWO_PI), -1.0, np.maximum(rlo, -1.0))
    return rlo, rhi


def icos(a):
    return _trig(a, np.cos, 0.0, math.pi)


def isin(a):
    return _trig(a, np.sin, math.pi / 2, -math.pi / 2)


def iabs(a):
    lo, hi = a
    alo, ahi = np.abs(lo), np.abs(hi)
    mn = np.where((lo <= 0) & (hi >= 0), 0.0, np.minimum(alo, ahi))
    return mn, np.maximum(alo, ahi)


def icosh(a):
    m = iabs(a)
    with np.errstate(over="ignore"):
        return _dn(np.cosh(m[0]), 4), _up(np.cosh(m[1]), 4)


def _const(value, n: int):
    """A number as an interval: exact for integers below 2**53, else one ulp either side."""
    if isinstance(value, int) and abs(value) < 2 ** 53:
        arr = np.full(n, float(value))
        return arr, arr.copy()
    v = float(value)
    return np.full(n, _dn(v)), np.full(n, _up(v))


_MONOTONE = {
    sp.exp: (np.exp, -_INF),
    sp.tanh: (np.tanh, -_INF),
    sp.atan: (np.arctan, -_INF),
    sp.sinh: (np.sinh, -_INF),
    sp.asinh: (np.arcsinh, -_INF),
    sp.erf: (None, -_INF),
}


def _erf(x):
    from scipy.special import erf
    return erf(x)


def ieval(expr, env: dict, n: int, memo: dict | None = None):
    """Interval enclosure of `expr` over `n` boxes; env maps each free symbol to (lo, hi) arrays."""
    if memo is None:
        memo = {}
    if expr in memo:
        return memo[expr]
    r = _ieval(expr, env, n, memo)
    memo[expr] = r
    return r


def _ieval(e, env, n, memo):
    if e.is_Symbol:
        return env[e]
    if e.is_Number:
        if e.is_Rational and not e.is_Integer:
            q = ieval(sp.Integer(e.q), env, n, memo)
            return imul(_const(int(e.p), n), iinv(q))
        return _const(int(e) if e.is_Integer else float(e), n)
    if e in (sp.pi, sp.E):
        return _const(float(e), n)
    if e.is_Add:
        acc = None
        for t in e.args:
            v = ieval(t, env, n, memo)
            acc = v if acc is None else iadd(acc, v)
        return acc
    if e.is_Mul:
        acc = None
        for t in e.args:
            v = ieval(t, env, n, memo)
            acc = v if acc is None else imul(acc, v)
        return acc
    if e.is_Pow:
        base, ex = e.args
        b = ieval(base, env, n, memo)
        if ex.is_Integer:
            return ipow_int(b, int(ex))
        if ex == sp.Rational(1, 2):
            return isqrt(b)
        if ex == -sp.Rational(1, 2):
            return iinv(isqrt(b))
        if ex.is_number:
            # x**c = exp(c log x), x > 0
            return iexp(imul(_const(float(ex), n), ilog(b)))
        return iexp(imul(ieval(ex, env, n, memo), ilog(b)))
    if isinstance(e, sp.exp):
        return iexp(ieval(e.args[0], env, n, memo))
    if isinstance(e, sp.log):
        if len(e.args) != 1:
            raise Unsupported("log with a base")
        return ilog(ieval(e.args[0], env, n, memo))
    if isinstance(e, sp.sin):
        return isin(ieval(e.args[0], env, n, memo))
    if isinstance(e, sp.cos):
        return icos(ieval(e.args[0], env, n, memo))
    if isinstance(e, sp.cosh):
        return icosh(ieval(e.args[0], env, n, memo))
    if isinstance(e, sp.Abs):
        return iabs(ieval(e.args[0], env, n, memo))
    if isinstance(e, (sp.sign, sp.Heaviside)):
        a = ieval(e.args[0], env, n, memo)
        fn = np.sign if isinstance(e, sp.sign) else (lambda v: np.heaviside(v, 0.5))
        return fn(a[0]).astype(float), fn(a[1]).astype(float)
    if isinstance(e, (sp.Max, sp.Min)):
        vals = [ieval(t, env, n, memo) for t in e.args]
        red = np.maximum if isinstance(e, sp.Max) else np.minimum
        lo, hi = vals[0]
        for v in vals[1:]:
            lo, hi = red(lo, v[0]), red(hi, v[1])
        return lo, hi
    for cls, (fn, dom) in _MONOTONE.items():
        if isinstance(e, cls):
            return _monotone(fn or _erf, ieval(e.args[0], env, n, memo), 4, dom)
    raise Unsupported(f"no interval rule for {type(e).__name__} in {e}")


def iexp(a):
    return _monotone(np.exp, a, 4)


# --------------------------------------------------------------------------------------------
# independent re-verification with mpmath's interval arithmetic (verify="mpmath")
# --------------------------------------------------------------------------------------------
# mpmath.iv rounds every operation outwards at 53-bit precision with its own (correctly rounded)
# elementary functions, so a bound it confirms does not rest on the platform's libm. It is slow
# (tens of microseconds per operation), hence optional.
def _mp_eval(e, env: dict, memo: dict):
    from mpmath import iv
    if e in memo:
        return memo[e]
    if e.is_Symbol:
        r = env[e]
    elif e.is_Integer:
        r = iv.mpf(int(e))
    elif e.is_Rational:
        r = iv.mpf(int(e.p)) / iv.mpf(int(e.q))
    elif e.is_Float:
        r = iv.mpf(float(e)) if float(e) == e else iv.mpf(str(e))
    elif e == sp.pi:
        r = iv.pi
    elif e == sp.E:
        r = iv.e
    elif e.is_Add or e.is_Mul:
        vals = [_mp_eval(t, env, memo) for t in e.args]
        r = vals[0]
        for v in vals[1:]:
            r = r + v if e.is_Add else r * v
    elif e.is_Pow:
        b = _mp_eval(e.args[0], env, memo)
        ex = e.args[1]
        if ex.is_Integer:
            n = int(ex)
            r = b ** abs(n) if n >= 0 else 1 / (b ** abs(n))
        elif ex == sp.Rational(1, 2):
            r = iv.sqrt(b)
        elif ex == -sp.Rational(1, 2):
            r = 1 / iv.sqrt(b)
        else:
            r = iv.exp(_mp_eval(ex, env, memo) * iv.log(b))
    elif isinstance(e, sp.exp):
        r = iv.exp(_mp_eval(e.args[0], env, memo))
    elif isinstance(e, sp.log) and len(e.args) == 1:
        r = iv.log(_mp_eval(e.args[0], env, memo))
    elif isinstance(e, sp.sin):
        r = iv.sin(_mp_eval(e.args[0], env, memo))
    elif isinstance(e, sp.cos):
        r = iv.cos(_mp_eval(e.args[0], env, memo))
    elif isinstance(e, sp.Abs):
        r = abs(_mp_eval(e.args[0], env, memo))
    elif isinstance(e, (sp.cosh, sp.sinh)):
        a = _mp_eval(e.args[0], env, memo)
        r = (iv.exp(a) + iv.exp(-a)) / 2 if isinstance(e, sp.cosh) else \
            (iv.exp(a) - iv.exp(-a)) / 2
        if isinstance(e, sp.cosh):  # cosh >= 1 (the sum loses that by dependency)
            r = iv.mpf([max(1, r.a), max(1, r.b)])
    elif isinstance(e, (sp.Max, sp.Min)):
        vals = [_mp_eval(t, env, memo) for t in e.args]
        pick = max if isinstance(e, sp.Max) else min
        r = iv.mpf([pick(v.a for v in vals), pick(v.b for v in vals)])
    else:
        raise Unsupported(f"mpmath re-verification has no rule for {type(e).__name__}")
    memo[e] = r
    return r


def _mp_norm_upper(entries, symmetric: bool) -> float:
    """Upper bound of the spectral norm from mpmath interval entries (mirrors spectral_upper)."""
    from mpmath import iv
    rows, cols = len(entries), len(entries[0])
    fro = iv.sqrt(sum((e ** 2 for row in entries for e in row), iv.mpf(0))).b
    if rows == 1 or cols == 1:
        return float(fro)
    mags = [[abs(e) for e in row] for row in entries]
    n1 = max(sum((mags[i][j] for i in range(rows)), iv.mpf(0)).b for j in range(cols))
    ninf = max(sum((mags[i][j] for j in range(cols)), iv.mpf(0)).b for i in range(rows))
    best = min(float(fro), float(iv.sqrt(iv.mpf(n1) * iv.mpf(ninf)).b))
    if symmetric and rows == 2:
        a, b, c = entries[0][0], entries[0][1], entries[1][1]
        best = min(best, float((abs((a + c) / 2) + iv.sqrt(((a - c) / 2) ** 2 + b ** 2)).b))
    elif not symmetric and min(rows, cols) == 2:
        vecs = ([entries[0], entries[1]] if rows == 2 else
                [[r[0] for r in entries], [r[1] for r in entries]])
        ga = sum((e ** 2 for e in vecs[0]), iv.mpf(0))
        gc = sum((e ** 2 for e in vecs[1]), iv.mpf(0))
        gb = sum((u * w for u, w in zip(vecs[0], vecs[1])), iv.mpf(0))
        lam = (ga + gc) / 2 + iv.sqrt(((ga - gc) / 2) ** 2 + gb ** 2)
        best = min(best, float(iv.sqrt(iv.mpf([0, lam.b])).b))
    return best


def mp_verify_value(expr, syms, leaves, max_leaves: int = 5000) -> float:
    """max over the leaf boxes of the mpmath-interval upper end of a scalar expression."""
    from mpmath import iv
    boxes = [(lo[i], hi[i]) for lo, hi in leaves for i in range(lo.shape[0])]
    if len(boxes) > max_leaves:
        raise Unsupported(f"{len(boxes)} leaf boxes exceed the mpmath budget {max_leaves}")
    best = -math.inf
    saved, iv.prec = iv.prec, 53
    try:
        for lo, hi in boxes:
            env = {s_: iv.mpf([float(lo[j]), float(hi[j])]) for j, s_ in enumerate(syms)}
            try:
                v = float(_mp_eval(sp.sympify(expr), env, {}).b)
            except (ValueError, ZeroDivisionError):
                v = math.inf
            best = max(best, v if not math.isnan(v) else math.inf)
    finally:
        iv.prec = saved
    return best


def mp_verify(matrix, syms, leaves, symmetric: bool = False, max_leaves: int = 5000) -> float:
    """max over the leaf boxes of the mpmath-interval bound of ||matrix||_2 (the same norm
    formulas as :func:`spectral_upper`); raises Unsupported beyond `max_leaves`."""
    from mpmath import iv
    boxes = [(lo[i], hi[i]) for lo, hi in leaves for i in range(lo.shape[0])]
    if len(boxes) > max_leaves:
        raise Unsupported(f"{len(boxes)} leaf boxes exceed the mpmath budget {max_leaves}")
    best = -math.inf
    saved, iv.prec = iv.prec, 53
    try:
        for lo, hi in boxes:
            env = {s_: iv.mpf([float(lo[j]), float(hi[j])]) for j, s_ in enumerate(syms)}
            memo = {}
            try:
                ent = [[_mp_eval(sp.sympify(e), env, memo) for e in row] for row in matrix]
                v = _mp_norm_upper(ent, symmetric)
            except (ValueError, ZeroDivisionError):
                v = math.inf
            best = max(best, v if not math.isnan(v) else math.inf)
    finally:
        iv.prec = saved
    return best


# --------------------------------------------------------------------------------------------
# norms of interval matrices
# --------------------------------------------------------------------------------------------
def spectral_upper(entries: list[list[tuple]], symmetric: bool = False) -> np.ndarray:
    """Upper bound of the spectral norm of every matrix in the interval matrices `entries`
    (rows of (lo, hi) arrays). Exact formula for vectors and symmetric 2 x 2 matrices (evaluated
    in interval arithmetic); otherwise min(Frobenius, sqrt(||M||_1 ||M||_inf))."""
    rows, cols = len(entries), len(entries[0])
    mag = np.stack([np.stack([np.maximum(np.abs(lo), np.abs(hi)) for lo, hi in r])
                    for r in entries])  # (rows, cols, n)
    with np.errstate(over="ignore", invalid="ignore"):
        fro = _up(np.sqrt(_up((mag * mag).sum(axis=(0, 1)), rows * cols + 1)), 2)
        if rows == 1 or cols == 1:
            return fro
        n1 = _up(mag.sum(axis=0).max(axis=0), rows + 1)
        ninf = _up(mag.sum(axis=1).max(axis=0), cols + 1)
        holder = _up(np.sqrt(_up(n1 * ninf)), 2)
        best = np.minimum(fro, holder)
        if symmetric and rows == 2:
            a, b, c = entries[0][0], entries[0][1], entries[1][1]
            # max |eig| = |a + c| / 2 + sqrt(((a - c) / 2)^2 + b^2)
            half = (np.full_like(a[0], 0.5), np.full_like(a[0], 0.5))
            s = iabs(imul(iadd(a, c), half))
            dlt = imul(iadd(a, ineg(c)), half)
            r = isqrt(iadd(ipow_int(dlt, 2), ipow_int(b, 2)))
            best = np.minimum(best, iadd(s, r)[1])
        elif not symmetric and min(rows, cols) == 2:
            # ||M||_2^2 = lambda_max of the 2 x 2 Gram matrix G (M M^T or M^T M), G PSD:
            # lambda_max = (a + c)/2 + sqrt(((a - c)/2)^2 + b^2)
            vecs = ([entries[0], entries[1]] if rows == 2 else
                    [[r[0] for r in entries], [r[1] for r in entries]])

            def dot(u, w):
                acc = None
                for a_, b_ in zip(u, w):
                    t = ipow_int(a_, 2) if a_ is b_ else imul(a_, b_)
                    acc = t if acc is None else iadd(acc, t)
                return acc
            a, b, c = dot(vecs[0], vecs[0]), dot(vecs[0], vecs[1]), dot(vecs[1], vecs[1])
            half = (np.full_like(a[0], 0.5), np.full_like(a[0], 0.5))
            s = imul(iadd(a, c), half)
            dlt = imul(iadd(a, ineg(c)), half)
            lam = iadd(s, isqrt(iadd(ipow_int(dlt, 2), ipow_int(b, 2))))
            best = np.minimum(best, isqrt(lam)[1])
    return np.where(np.isnan(best), _INF, best)


# --------------------------------------------------------------------------------------------
# branch and bound
# --------------------------------------------------------------------------------------------
def sup_bound(upper_fn, point_fn, lower, upper, rtol: float = 1e-3, atol: float = 1e-12,
              max_boxes: int = 20000, max_active: int = 4096, leaves: list | None = None):
    """Certified upper bound of sup_{x in box} q(x) by branch and bound.

    Parameters
    ----------
    upper_fn : callable (lo (n, d), hi (n, d)) -> (n,)
        Upper bound of q on each box (interval evaluation).
    point_fn : callable (points (n, d)) -> (n,)
        q at points (a lower bound of the supremum); NaN means q is undefined there.
    lower, upper : arrays (d,)
        The box.

    leaves : list, optional
        If given, the final partition is appended to it as (lo (n, d), hi (n, d)) pairs (every
        point of the box lies in one of them), for an independent re-verification.

    Returns
    -------
    (upper_bound, best_value, best_point, converged)
    """
    lower = np.asarray(lower, dtype=float)
    upper = np.asarray(upper, dtype=float)
    d = lower.size
    width0 = np.where(upper > lower, upper - lower, 1.0)
    # start from the corners and the centre for the lower bound
    starts = [0.5 * (lower + upper)]
    if d <= 10:
        grid = np.array(np.meshgrid(*[[lower[j], upper[j]] for j in range(d)],
                                    indexing="ij")).reshape(d, -1).T
        starts.extend(grid)
    pts = np.array(starts)
    vals = point_fn(pts)
    if np.any(np.isnan(vals)):
        i = int(np.argmax(np.isnan(vals)))
        raise ValueError(f"the expression is undefined at {pts[i].tolist()} in the box")
    best_i = int(np.argmax(vals))
    best, best_x = float(vals[best_i]), pts[best_i]
    lo, hi = lower[None, :].copy(), upper[None, :].copy()
    settled = -_INF
    evaluated = 0
    converged = False
    while True:
        ub = upper_fn(lo, hi)
        evaluated += lo.shape[0]
        mid = 0.5 * (lo + hi)
        mv = point_fn(mid)
        if np.any(np.isnan(mv)):
            i = int(np.argmax(np.isnan(mv)))
            raise ValueError(f"the expression is undefined at {mid[i].tolist()} in the box")
        j = int(np.argmax(mv))
        if mv[j] > best:
            best, best_x = float(mv[j]), mid[j]
        thresh = best + rtol * abs(best) + atol
        keep = ub > thresh
        if np.any(~keep):
            settled = max(settled, float(ub[~keep].max()))
            if leaves is not None:
                leaves.append((lo[~keep], hi[~keep]))
        if not np.any(keep):
            converged = True
            break
        lo, hi, ub = lo[keep], hi[keep], ub[keep]
        if evaluated + 2 * lo.shape[0] > max_boxes or 2 * lo.shape[0] > max_active or \
                np.all((hi - lo) <= 1e-12 * width0):
            settled = max(settled, float(ub.max()))
            if leaves is not None:
                leaves.append((lo, hi))
            break
        # bisect each box along its widest side (relative to the original box)
        axis = np.argmax((hi - lo) / width0, axis=1)
        m = 0.5 * (lo[np.arange(lo.shape[0]), axis] + hi[np.arange(hi.shape[0]), axis])
        lo2, hi2 = lo.copy(), hi.copy()
        hi[np.arange(hi.shape[0]), axis] = m
        lo2[np.arange(lo2.shape[0]), axis] = m
        lo, hi = np.vstack([lo, lo2]), np.vstack([hi, hi2])
    return max(settled, best), best, best_x, converged


# ============================================================================================
# constants of Assumption 3.2
# ============================================================================================
CONSTANT_NAMES = ("L_f", "B_f", "L_g", "B_g", "L_h", "B_h")


@dataclass
class Bound:
    """One constant: its value (an upper bound, or a sampled maximum when ``method`` is
    ``"sampled"``), the largest value seen at sample points, and how it was obtained."""
    value: float
    sampled: float
    method: str  # "exact" | "closed-form" | "interval" | "sampled"
    converged: bool = True
    note: str = ""

    @property
    def proven(self) -> bool:
        return self.method in ("exact", "closed-form", "interval")


@dataclass
class Constants:
    """Constants of Assumption 3.2 (FedDRO paper) of a problem on a box, and Lemma 3.5.

    Attributes
    ----------
    L_f, B_f, L_g, B_g, L_h, B_h : float
        Smoothness (L) and Lipschitz (B) constants of f, g_k (max over clients) and h_k; the
        outer ones over ``outer_lower <= y <= outer_upper``, a box containing the image of the
        box under every g_k (and its convex hull, where g = mean_k g_k lives).
    L_phi_bound : float
        Lemma 3.5: L_h + B_f L_g + B_g^2 L_f.
    L_phi_observed : float
        Largest spectral norm of the Hessian of Phi found on the box (a lower bound of Phi's
        smoothness constant there), at ``argmax_observed``.
    L_phi_certified : float or None
        A proven upper bound of sup ||Hess Phi||_2 on the box computed directly (interval
        branch and bound on the Hessian of Phi; symbolic problems only), None when not computed.
    tightness : float
        L_phi_bound / L_phi_observed (>= 1 when Lemma 3.5 holds; inf when observed is 0).
    certified : bool
        True only when every constant above (but L_phi_observed) is a proven bound.
    details : dict
        name -> :class:`Bound` (method, sampled maximum, convergence of branch and bound).
    """
    L_f: float
    B_f: float
    L_g: float
    B_g: float
    L_h: float
    B_h: float
    L_phi_bound: float
    L_phi_observed: float
    tightness: float
    certified: bool
    lower: np.ndarray
    upper: np.ndarray
    outer_lower: np.ndarray
    outer_upper: np.ndarray
    problem: str = ""
    L_phi_certified: float | None = None
    argmax_observed: np.ndarray | None = None
    details: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)

    def as_dict(self) -> dict:
        """JSON-friendly dictionary."""
        out = {n: float(getattr(self, n)) for n in CONSTANT_NAMES}
        out.update(L_phi_bound=float(self.L_phi_bound), L_phi_observed=float(self.L_phi_observed),
                   L_phi_certified=(None if self.L_phi_certified is None
                                    else float(self.L_phi_certified)),
                   tightness=float(self.tightness), certified=bool(self.certified),
                   problem=self.problem, lower=np.asarray(self.lower).tolist(),
                   upper=np.asarray(self.upper).tolist(),
                   outer_lower=np.asarray(self.outer_lower).tolist(),
                   outer_upper=np.asarray(self.outer_upper).tolist(),
                   argmax_observed=(None if self.argmax_observed is None
                                    else np.asarray(self.argmax_observed).tolist()),
                   methods={k: v.method for k, v in self.details.items()},
                   sampled={k: float(v.sampled) for k, v in self.details.items()},
                   notes=list(self.notes))
        return out

    def table(self) -> str:
        """A readable table (one row per constant)."""
        lines = [f"Constants of Assumption 3.2 (FedDRO paper) for {self.problem}",
                 f"box: {_fmt_box(self.lower, self.upper)}",
                 f"outer box (contains the image of the box under every g_k): "
                 f"{_fmt_box(self.outer_lower, self.outer_upper)}",
                 "",
                 f"{'constant':16s} {'value':>13s} {'sampled max':>13s}  method",
                 "-" * 60]
        for n in CONSTANT_NAMES:
            b = self.details.get(n)
            meth = (b.method + (" (not converged)" if b.method == "interval" and not b.converged
                                else "")) if b else ""
            if b is not None and "mpmath-verified" in b.note and "not mpmath" not in b.note:
                meth += " + mpmath"
            smp = f"{b.sampled:13.6g}" if b else f"{'':13s}"
            lines.append(f"{n:16s} {getattr(self, n):13.6g} {smp}  {meth}")
        lines += ["-" * 60,
                  f"{'L_phi_bound':16s} {self.L_phi_bound:13.6g}   Lemma 3.5: L_h + B_f L_g + "
                  f"B_g^2 L_f",
                  f"{'L_phi_observed':16s} {self.L_phi_observed:13.6g}   largest ||Hess Phi||_2 "
                  f"found on the box"]
        if self.L_phi_certified is not None:
            lines.append(f"{'L_phi_certified':16s} {self.L_phi_certified:13.6g}   proven "
                         f"sup ||Hess Phi||_2 (interval branch and bound)")
        lines += [f"{'tightness':16s} {self.tightness:13.6g}   L_phi_bound / L_phi_observed",
                  f"certified: {self.certified}"]
        for note in self.notes:
            lines.append(f"note: {note}")
        return "\n".join(lines)


def _fmt_box(lo, hi) -> str:
    lo, hi = np.atleast_1d(lo), np.atleast_1d(hi)
    if lo.size > 6:
        return f"[{lo.min():.4g}, {hi.max():.4g}]^{lo.size} (hull)"
    return " x ".join(f"[{a:.4g}, {b:.4g}]" for a, b in zip(lo, hi))


def _box(name_lo, lower, name_hi, upper, d):
    lo = np.broadcast_to(V.finite_array(name_lo, lower), (d,)).astype(float) \
        if np.ndim(lower) == 0 else V.finite_array(name_lo, lower, shape=(d,))
    hi = np.broadcast_to(V.finite_array(name_hi, upper), (d,)).astype(float) \
        if np.ndim(upper) == 0 else V.finite_array(name_hi, upper, shape=(d,))
    if np.any(lo > hi):
        raise ValueError(f"{name_lo} must be <= {name_hi} in every coordinate, got "
                         f"{lo.tolist()} and {hi.tolist()}")
    return np.array(lo, dtype=float), np.array(hi, dtype=float)


# --------------------------------------------------------------------------------------------
# numeric helpers: batched evaluation of sympy matrices, norms, the observed search
# --------------------------------------------------------------------------------------------
def _exact_float_printer():
    from sympy.printing.numpy import NumPyPrinter

    class _Printer(NumPyPrinter):
        # sympy prints Floats with 15 digits; the point values must use the float itself
        def _print_Float(self, expr):
            return repr(float(expr))
    return _Printer({"fully_qualified_modules": False, "inline": True,
                     "allow_unknown_functions": True, "user_functions": {}})


def _batch_fn(exprs: list, syms):
    """points (n, d) -> values (n, len(exprs)) for scalar sympy expressions."""
    fns = [sp.lambdify(list(syms), e, modules="numpy", printer=_exact_float_printer())
           for e in exprs]

    def run(P):
        P = np.atleast_2d(P)
        cols = [P[:, j] for j in range(P.shape[1])]
        out = np.empty((P.shape[0], len(fns)))
        with np.errstate(all="ignore"):
            for i, fn in enumerate(fns):
                out[:, i] = np.broadcast_to(np.asarray(fn(*cols), dtype=float), (P.shape[0],))
        return out
    return run


def _norms(M: np.ndarray, symmetric: bool) -> np.ndarray:
    """Spectral norms of a batch (n, r, c) of matrices (NaN where an entry is NaN)."""
    n, r, c = M.shape
    bad = ~np.all(np.isfinite(M), axis=(1, 2))
    M = np.where(np.isfinite(M), M, 0.0)
    if r == 1 or c == 1:
        out = np.sqrt((M * M).sum(axis=(1, 2)))
    elif symmetric:
        out = np.abs(np.linalg.eigvalsh(0.5 * (M + M.transpose(0, 2, 1)))).max(axis=1)
    else:
        out = np.linalg.svd(M, compute_uv=False)[:, 0]
    return np.where(bad, np.nan, out)


def _local_max(point_fn, starts, lower, upper, maxiter=30):
    """Local maximisation from each start with scipy (Powell: no gradient, respects bounds)."""
    from scipy.optimize import minimize
    best, best_x = -np.inf, None
    free = upper > lower
    if not np.any(free):
        return best, best_x

    def neg(z):
        x = lower.copy()
        x[free] = np.clip(z, lower[free], upper[free])
        v = point_fn(x[None, :])[0]
        return -v if np.isfinite(v) else np.inf

    for s in starts:
        try:
            res = minimize(neg, s[free], method="Powell",
                           bounds=list(zip(lower[free], upper[free])),
                           options={"maxiter": maxiter, "maxfev": 60 * (1 + int(free.sum())),
                                    "xtol": 1e-7, "ftol": 1e-12})
        except (ValueError, FloatingPointError):  # pragma: no cover - scipy edge cases
            continue
        if np.isfinite(res.fun) and -res.fun > best:
            x = lower.copy()
            x[free] = np.clip(res.x, lower[free], upper[free])
            best, best_x = -float(res.fun), x
    return best, best_x


def search_max(point_fn, lower, upper, n_random: int = 2000, n_local: int = 6,
               seed: int = 0):
    """Largest value of `point_fn` (points (n, d) -> (n,)) found on the box: its centre, its
    corners (all of them up to d = 10, 1024 random ones beyond), `n_random` uniform points, and
    local maximisation (scipy Powell) from the `n_local` best. Returns (value, point)."""
    rng = np.random.default_rng(seed)
    d = lower.size
    pts = [0.5 * (lower + upper)[None, :]]
    if d <= 10:
        pts.append(np.array(np.meshgrid(*[[lower[j], upper[j]] for j in range(d)],
                                        indexing="ij")).reshape(d, -1).T)
    else:
        pts.append(np.where(rng.random((1024, d)) < 0.5, lower, upper))
    pts.append(lower + (upper - lower) * rng.random((n_random, d)))
    P = np.vstack(pts)
    vals = point_fn(P)
    vals = np.where(np.isnan(vals), -np.inf, vals)
    order = np.argsort(vals)[::-1]
    best_i = int(order[0])
    best, best_x = float(vals[best_i]), P[best_i]
    lv, lx = _local_max(point_fn, P[order[:n_local]], lower, upper)
    if lx is not None and lv > best:
        best, best_x = lv, lx
    return best, best_x


def _exact_univariate_sup(expr, syms, lower, upper, absolute: bool = True):
    """Exact sup over [a, b] of |p| (or p) for a polynomial p with rational coefficients in one
    of the box's variables: the maximum over the end points and the real roots of p' (sympy's
    exact real_roots), evaluated to 30 digits and rounded up to a float. None if not such."""
    expr = sp.sympify(expr)
    free = list(expr.free_symbols)
    if len(free) != 1:
        return None
    x = free[0]
    try:
        poly = sp.Poly(expr, x)
    except sp.PolynomialError:
        return None
    if not all(cf.is_Rational for cf in poly.all_coeffs()) or poly.degree() > 8:
        return None
    j = list(syms).index(x)
    a, b = sp.Rational(float(lower[j])), sp.Rational(float(upper[j]))
    cands = [a, b]
    dpoly = poly.diff(x)
    if dpoly.degree() >= 1:
        cands += [r for r in sp.real_roots(dpoly) if a <= r <= b]
    vals = [poly.eval(c_) for c_ in cands]
    vals = [sp.Abs(v) if absolute else v for v in vals]
    best = max(sp.N(v, 30) for v in vals)
    f = float(best)
    if sp.Float(f, 30) < best:
        f = float(np.nextafter(f, np.inf))
    return f


def _sup_norm(matrix, syms, lower, upper, symmetric=False, rtol=1e-3, max_boxes=20000,
              what="", verify=None) -> Bound:
    """sup over the box of the spectral norm of a sympy matrix (list of rows of expressions)."""
    rows, cols = len(matrix), len(matrix[0])
    flat = [sp.sympify(e) for r in matrix for e in r]
    if all(e.is_number for e in flat):
        M = np.array([[float(e) for e in r] for r in matrix])
        v = float(_norms(M[None], symmetric)[0])
        return Bound(v, v, "exact", note="constant matrix")
    if rows == 1 and cols == 1:
        v = _exact_univariate_sup(flat[0], syms, lower, upper)
        if v is not None:
            return Bound(v, v, "exact", note="univariate polynomial: end points and roots of "
                                             "the derivative")
    batch = _batch_fn(flat, syms)

    def point_fn(P):
        return _norms(batch(P).reshape(-1, rows, cols), symmetric)

    exact_formula = rows == 1 or cols == 1 or (symmetric and rows == 2) or \
        (not symmetric and min(rows, cols) == 2)

    def upper_fn(lo, hi):
        n = lo.shape[0]
        env = {s: (lo[:, j].copy(), hi[:, j].copy()) for j, s in enumerate(syms)}
        memo = {}
        ent = [[ieval(matrix[i][j], env, n, memo) for j in range(cols)] for i in range(rows)]
        ent = [[(np.broadcast_to(a, (n,)), np.broadcast_to(b, (n,))) for a, b in r] for r in ent]
        return spectral_upper(ent, symmetric)

    leaves = [] if verify == "mpmath" else None
    try:
        up, best, _, conv = sup_bound(upper_fn, point_fn, lower, upper, rtol=rtol,
                                      max_boxes=max_boxes if exact_formula else
                                      min(max_boxes, 3000), leaves=leaves)
    except Unsupported as exc:
        v, _ = search_max(point_fn, lower, upper)
        return Bound(v, v, "sampled", False, f"{what}: {exc}; sampled maximum, not a bound")
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None
    note = "" if exact_formula else "norm bounded by min(Frobenius, sqrt(||.||_1 ||.||_inf))"
    if not conv:
        note = (note + "; " if note else "") + "branch and bound stopped at its box budget"
    if leaves is not None:
        try:
            mp = mp_verify(matrix, syms, leaves, symmetric)
            note = (note + "; " if note else "") + f"mpmath-verified ({mp:.6g})"
            up = max(up, mp)
        except Unsupported as exc:
            note = (note + "; " if note else "") + f"not mpmath-verified: {exc}"
    return Bound(float(up), float(best), "interval", bool(conv), note)


def _range(expr, syms, lower, upper, what="", verify=None) -> tuple[float, float, str]:
    """A proven enclosure [lo, hi] of the range of a scalar expression on the box."""
    expr = sp.sympify(expr)
    if expr.is_number:
        v = float(expr)
        return v, v, "exact"
    hi_x = _exact_univariate_sup(expr, syms, lower, upper, absolute=False)
    lo_x = _exact_univariate_sup(-expr, syms, lower, upper, absolute=False)
    if hi_x is not None and lo_x is not None:
        return -lo_x, hi_x, "exact"
    batch = _batch_fn([expr], syms)
    out = []
    for sgn in (1.0, -1.0):
        e = sgn * expr

        def point_fn(P, _s=sgn):
            return _s * batch(P)[:, 0]

        def upper_fn(lo, hi, _e=e):
            n = lo.shape[0]
            env = {s: (lo[:, j].copy(), hi[:, j].copy()) for j, s in enumerate(syms)}
            return np.broadcast_to(ieval(_e, env, n)[1], (n,))
        leaves = [] if verify == "mpmath" else None
        try:
            up, _, _, _ = sup_bound(upper_fn, point_fn, lower, upper, rtol=1e-6, atol=1e-9,
                                    max_boxes=4000, leaves=leaves)
            if leaves is not None:
                try:
                    up = max(up, mp_verify_value(e, syms, leaves))
                except Unsupported:
                    pass
        except Unsupported:
            # no proof: the sampled range (the outer constants are then marked sampled)
            vals = []
            for sg in (1.0, -1.0):
                v, _ = search_max(lambda P, _s=sg: _s * batch(P)[:, 0], lower, upper)
                vals.append(v)
            return -vals[1], vals[0], "sampled"
        except ValueError as exc:
            raise ValueError(f"{what}: {exc}") from None
        out.append(up)
    return -out[1], out[0], "interval"


def _hessian(expr, syms):
    return [[sp.diff(expr, a, b) for b in syms] for a in syms]


def _combine(bounds: list[Bound]) -> Bound:
    """Max over clients."""
    b = max(bounds, key=lambda z: z.value)
    method = "sampled" if any(not z.proven for z in bounds) else (
        "exact" if all(z.method == "exact" for z in bounds) else
        "interval" if any(z.method == "interval" for z in bounds) else "closed-form")
    return Bound(b.value, max(z.sampled for z in bounds), method,
                 all(z.converged for z in bounds), "; ".join(sorted({z.note for z in bounds
                                                                       if z.note})))


def _lemma35(c: dict) -> float:
    return c["L_h"] + c["B_f"] * c["L_g"] + c["B_g"] ** 2 * c["L_f"]


def _finish(problem_name, details, lower, upper, ylo, yhi, observed, argmax, notes,
            L_phi_certified=None) -> Constants:
    vals = {n: float(details[n].value) for n in CONSTANT_NAMES}
    bound = _lemma35(vals)
    certified = all(details[n].proven for n in CONSTANT_NAMES) and math.isfinite(bound)
    if observed > 0:
        tight = bound / observed
    else:
        tight = math.inf if bound > 0 else 1.0
    return Constants(**vals, L_phi_bound=bound, L_phi_observed=float(observed), tightness=tight,
                     certified=bool(certified), lower=lower, upper=upper, outer_lower=ylo,
                     outer_upper=yhi, problem=problem_name, L_phi_certified=L_phi_certified,
                     argmax_observed=argmax, details=details, notes=notes)


# --------------------------------------------------------------------------------------------
# problem families
# --------------------------------------------------------------------------------------------
def _symbolic(p, lower, upper, seed, direct, verify=None) -> Constants:
    xs, ys = list(p.symbols_x), list(p.symbols_y)
    d, dg, K = p.dim, p.inner_dim, p.num_clients
    notes = []
    Bg, Lg, Bh, Lh = [], [], [], []
    ylo, yhi = np.full(dg, np.inf), np.full(dg, -np.inf)
    range_proven = True
    for k in range(K):
        J = p.jacobians[k]
        Bg.append(_sup_norm([[J[i, j] for j in range(d)] for i in range(dg)], xs, lower, upper,
                            what=f"Jacobian of g_{k}", verify=verify))
        per = [_sup_norm(_hessian(p.g_expr[k][i], xs), xs, lower, upper, symmetric=True,
                         what=f"Hessian of g_{k}[{i}]", verify=verify) for i in range(dg)]
        if dg == 1:
            Lg.append(per[0])
        else:
            # ||J(x1) - J(x2)||_2 <= ||.||_F = sqrt(sum_i ||grad g_i(x1) - grad g_i(x2)||^2)
            v = math.sqrt(sum(b.value ** 2 for b in per))
            s = math.sqrt(sum(b.sampled ** 2 for b in per))
            c = _combine(per)
            if c.method != "exact":
                v = float(np.nextafter(v, np.inf))
            Lg.append(Bound(v, s, c.method, c.converged,
                            "sqrt(sum_i sup||Hess g_k,i||^2) (Frobenius over coordinates)"))
        for i in range(dg):
            lo_i, hi_i, meth = _range(p.g_expr[k][i], xs, lower, upper, what=f"g_{k}[{i}]",
                                      verify=verify)
            if meth == "sampled":
                range_proven = False
            ylo[i], yhi[i] = min(ylo[i], lo_i), max(yhi[i], hi_i)
        if p.h_expr is not None:
            Bh.append(_sup_norm([list(p.h_gradients[k])], xs, lower, upper,
                                what=f"gradient of h_{k}", verify=verify))
            Lh.append(_sup_norm(_hessian(p.h_expr[k], xs), xs, lower, upper, symmetric=True,
                                what=f"Hessian of h_{k}", verify=verify))
    if not (np.all(np.isfinite(ylo)) and np.all(np.isfinite(yhi))):
        raise ValueError("could not enclose the image of the box under the g_k (unbounded on "
                         "the box)")
    Bf = _sup_norm([list(p.f_gradient)], ys, ylo, yhi, what="gradient of f", verify=verify)
    Lf = _sup_norm(_hessian(p.f_expr, ys), ys, ylo, yhi, symmetric=True, what="Hessian of f",
                   verify=verify)
    if not range_proven:
        notes.append("the image of the box under some g_k is a sampled range, so the outer "
                     "constants are not proven")
        Bf = Bound(Bf.value, Bf.sampled, "sampled", False, "over a sampled image range")
        Lf = Bound(Lf.value, Lf.sampled, "sampled", False, "over a sampled image range")
    zero = Bound(0.0, 0.0, "exact", note="no h")
    details = {"L_f": Lf, "B_f": Bf, "L_g": _combine(Lg), "B_g": _combine(Bg),
               "L_h": _combine(Lh) if Lh else zero, "B_h": _combine(Bh) if Bh else zero}
    phi = p.phi_expr()
    H = _hessian(phi, xs)
    hb = _batch_fn([e for r in H for e in r], xs)

    def hess_norm(P):
        return _norms(hb(P).reshape(-1, d, d), True)
    observed, argmax = search_max(hess_norm, lower, upper, seed=seed)
    cert = None
    if direct:
        b = _sup_norm(H, xs, lower, upper, symmetric=True, max_boxes=6000,
                      what="Hessian of Phi", verify=verify)
        if b.proven:
            cert = b.value
            observed = max(observed, b.sampled)
    notes.append("outer constants over the interval hull of the images g_k(box) (contains the "
                  "convex hull where g = mean_k g_k and the segments of Lemma 3.5's proof lie)")
    return _finish(repr(p), details, lower, upper, ylo, yhi, observed, argmax, notes, cert)


def _corners(lower, upper):
    d = lower.size
    return np.array(np.meshgrid(*[[lower[j], upper[j]] for j in range(d)],
                                indexing="ij")).reshape(d, -1).T


def _linear(p, lower, upper, seed) -> Constants:
    A, b = p.A, p.b
    K, dg, d = A.shape
    R = math.inf if p.huber_radius is None else float(p.huber_radius)
    notes = []
    Bg_vals = [float(np.linalg.norm(A[k], 2)) for k in range(K)]
    Bg = Bound(max(Bg_vals), max(Bg_vals), "closed-form", note="max_k ||A_k||_2")
    Lg = Bound(0.0, 0.0, "exact", note="g_k affine")
    # exact coordinate ranges of the affine images
    Apos, Aneg = np.maximum(A, 0.0), np.minimum(A, 0.0)
    lo_k = b + Apos @ lower + Aneg @ upper
    hi_k = b + Apos @ upper + Aneg @ lower
    ylo, yhi = lo_k.min(axis=0), hi_k.max(axis=0)
    # sup ||y|| over the convex hull of the images: a convex function peaks at a corner image
    if d <= 16:
        C = _corners(lower, upper)
        ymax = max(float(np.linalg.norm(C @ A[k].T + b[k], axis=1).max()) for k in range(K))
        meth = "closed-form"
    else:
        ymax = float(np.linalg.norm(np.maximum(np.abs(ylo), np.abs(yhi))))
        meth = "closed-form"
        notes.append("d > 16: sup ||y|| bounded over the outer box (not exact)")
    Bf = Bound(min(R, ymax), min(R, ymax), meth,
               note="sup ||y|| over the images" + ("" if R == math.inf else " capped by R"))
    Lf = Bound(1.0, 1.0, "exact", note="Hessian of 0.5||y||^2 (Huber: <= 1)")
    zero = Bound(0.0, 0.0, "exact", note="no h")
    details = {"L_f": Lf, "B_f": Bf, "L_g": Lg, "B_g": Bg, "L_h": zero, "B_h": zero}
    Abar, bbar = p.Abar, p.bbar

    def hess_norm(P):
        Y = P @ Abar.T + bbar
        n = np.linalg.norm(Y, axis=1)
        out = np.empty(P.shape[0])
        base = np.linalg.norm(Abar, 2) ** 2
        for i in range(P.shape[0]):
            if n[i] <= R:
                out[i] = base
            else:
                u = Y[i] / n[i]
                Hf = (R / n[i]) * (np.eye(dg) - np.outer(u, u))
                out[i] = np.abs(np.linalg.eigvalsh(Abar.T @ Hf @ Abar)).max()
        return out
    observed, argmax = search_max(hess_norm, lower, upper, n_random=500, n_local=2, seed=seed)
    notes.append("L_phi_bound = max_k ||A_k||^2 >= ||Abar||^2 = Phi's Hessian norm (f quadratic)")
    # without a Huber cap Phi's Hessian is the constant Abar^T Abar: its norm is the exact supremum
    cert = None if R < math.inf else float(np.nextafter(np.linalg.norm(Abar, 2) ** 2, np.inf))
    return _finish(repr(p), details, lower, upper, ylo, yhi, observed, argmax, notes, cert)


def _logistic_data_bounds(p, lower, upper):
    """Per-row bounds over the box for the logistic losses of the DRO problems: loss range,
    ||grad loss|| and max sigma' (for ||Hess loss|| = sigma'(s) ||a||^2)."""
    F, L = p.data[0], p.data[1]
    Fs = F * L[:, None]  # s_i = L_i a_i . x
    smin = np.minimum(Fs * lower, Fs * upper).sum(axis=1)
    smax = np.maximum(Fs * lower, Fs * upper).sum(axis=1)
    an = np.linalg.norm(F, axis=1)
    loss_max = np.logaddexp(0.0, -smin)
    loss_min = np.logaddexp(0.0, -smax)
    sig = lambda z: 0.5 * (1.0 + np.tanh(0.5 * z))  # noqa: E731
    G = an * sig(-smin)  # |d loss / ds| = sigma(-s) <= sigma(-smin)
    # sigma'(s) = sigma(s)(1 - sigma(s)) peaks at s = 0
    q = np.where((smin <= 0) & (smax >= 0), 0.25,
                 np.maximum(sig(smin) * (1 - sig(smin)), sig(smax) * (1 - sig(smax))))
    return loss_min, loss_max, G, an, q


def fd_hessian(grad, x, h: float) -> np.ndarray:
    """The Hessian at `x` of a function whose exact gradient is `grad`, by central differences
    of step `h` (error O(h^2)), symmetrised."""
    d = len(x)
    H = np.empty((d, d))
    for j in range(d):
        e = np.zeros(d)
        e[j] = h
        H[:, j] = (grad(x + e) - grad(x - e)) / (2 * h)
    return 0.5 * (H + H.T)


def _fd_hessian_search(p, lower, upper, seed, n_random=300):
    """Observed sup ||Hess Phi|| from central differences of the exact gradient."""
    span = float(np.max(upper - lower)) if np.any(upper > lower) else 1.0
    h = 1e-5 * max(span, 1e-3)

    def hess_norm(P):
        return np.array([np.abs(np.linalg.eigvalsh(fd_hessian(p.grad, x, h))).max()
                         for x in P])
    return search_max(hess_norm, lower, upper, n_random=n_random, n_local=2, seed=seed)


def dro_formulas(kind: str) -> dict:
    """Assumption 3.2's constants of the DRO reformulations as sympy expressions in lambda and
    uniform data bounds over the box: losses in [l_lo, l_hi], ||grad loss_i|| <= G,
    ||Hess loss_i|| <= H (for the logistic loss G <= max ||a_i||, H <= max ||a_i||^2 / 4).

    ``kind="kl"`` (FedDRO (4) times lambda, shift c = 0; the products in Lemma 3.5 do not depend
    on c): g_k = mean exp(loss/lambda) in [e^(l_lo/lambda), e^(l_hi/lambda)], f = lambda log u:
    B_f = lambda e^(-l_lo/lambda), L_f = lambda e^(-2 l_lo/lambda), B_g = e^(l_hi/lambda) G/lambda,
    L_g = e^(l_hi/lambda) (G^2/lambda^2 + H/lambda). Lemma 3.5 then gives
    e^(D/lambda) (G^2/lambda + H) + e^(2D/lambda) G^2/lambda with D = l_hi - l_lo, while the
    Hessian of lambda log mean exp(loss/lambda) is E_p[Hess loss] + Cov_p(grad loss)/lambda
    (p the softmax weights), of norm <= H + G^2/lambda ("direct"): Lemma 3.5 overestimates the
    KL-DRO smoothness by a factor up to e^(2D/lambda), exponential in the loss spread over
    lambda (a finding).

    ``kind="chi2"`` (FedDRO (5) as printed): g_k = mean loss, f = u^2/(2 lambda),
    h_k = -(1/(2 lambda)) mean loss^2: B_f = l_hi/lambda, L_f = 1/lambda, B_g = G, L_g = H,
    B_h = l_hi G/lambda, L_h = (G^2 + l_hi H)/lambda; Lemma 3.5: 2 (G^2 + l_hi H)/lambda.
    ``kind="chi2-corrected"``: f = -u^2/(2 lambda), h_k = mean(loss + loss^2/(2 lambda)):
    B_h = G (1 + l_hi/lambda), L_h = H (1 + l_hi/lambda) + G^2/lambda.

    Returns a dict of sympy expressions (keys L_f, B_f, L_g, B_g, L_h, B_h, L_phi_bound and, for
    KL, L_phi_direct) in the symbols lam, l_lo, l_hi, G, H (all positive, l_lo >= 0).
    """
    lam, llo, lhi, G, H = sp.symbols("lam l_lo l_hi G H", positive=True)
    if kind == "kl":
        c = {"B_f": lam * sp.exp(-llo / lam), "L_f": lam * sp.exp(-2 * llo / lam),
             "B_g": sp.exp(lhi / lam) * G / lam,
             "L_g": sp.exp(lhi / lam) * (G ** 2 / lam ** 2 + H / lam),
             "B_h": sp.Integer(0), "L_h": sp.Integer(0)}
        extra = {"L_phi_direct": H + G ** 2 / lam}
    elif kind in ("chi2", "chi2-corrected"):
        c = {"B_f": lhi / lam, "L_f": 1 / lam, "B_g": G, "L_g": H}
        if kind == "chi2":
            c.update(B_h=lhi * G / lam, L_h=(G ** 2 + lhi * H) / lam)
        else:
            c.update(B_h=G * (1 + lhi / lam), L_h=H * (1 + lhi / lam) + G ** 2 / lam)
        extra = {}
    else:
        raise ValueError(f"kind must be 'kl', 'chi2' or 'chi2-corrected', got {kind!r}")
    c["L_phi_bound"] = sp.simplify(c["L_h"] + c["B_f"] * c["L_g"] + c["B_g"] ** 2 * c["L_f"])
    c.update(extra)
    return c


def _kl(p, lower, upper, seed) -> Constants:
    lam, c = p.lam, p.shift
    off = p.data[2]
    lmin, lmax, G, an, q = _logistic_data_bounds(p, lower, upper)
    Emax = np.exp((lmax - c) / lam)
    Emin = np.exp((lmin - c) / lam)
    Bg_k, Lg_k, ulo, uhi = [], [], [], []
    for k in range(p.num_clients):
        s = slice(off[k], off[k + 1])
        # sampled g_k is a minibatch mean of e_i = exp((loss_i - c)/lam): mean-squared Lipschitz
        # with sqrt(mean_i sup||grad e_i||^2) (Jensen), which also bounds g_k's Lipschitz constant
        Bg_k.append(math.sqrt(float(np.mean((Emax[s] * G[s] / lam) ** 2))))
        Lg_k.append(float(np.mean(Emax[s] * (G[s] ** 2 / lam ** 2 + an[s] ** 2 * q[s] / lam))))
        ulo.append(float(np.mean(Emin[s])))
        uhi.append(float(np.mean(Emax[s])))
    u0, u1 = min(ulo), max(uhi)
    details = {
        "L_f": Bound(lam / u0 ** 2, lam / u0 ** 2, "closed-form",
                     note="f = lam log u + c: |f''| = lam/u^2 at the smallest u"),
        "B_f": Bound(lam / u0, lam / u0, "closed-form", note="|f'| = lam/u"),
        "L_g": Bound(max(Lg_k), max(Lg_k), "closed-form",
                     note="mean_i E_i (||grad loss_i||^2/lam^2 + sigma'_max ||a_i||^2/lam)"),
        "B_g": Bound(max(Bg_k), max(Bg_k), "closed-form",
                     note="sqrt(mean_i (E_i ||grad loss_i|| / lam)^2)"),
        "L_h": Bound(0.0, 0.0, "exact", note="h = 0"),
        "B_h": Bound(0.0, 0.0, "exact", note="h = 0"),
    }
    observed, argmax = _fd_hessian_search(p, lower, upper, seed)
    notes = [f"lambda = {lam:g}, shift c = {c:g} (B_f B_g, B_g^2 L_f and B_f L_g do not depend on "
             "c: E_i carries exp(-c/lam), u_min too)",
             "E_i = exp((loss_i^max - c)/lam); loss_i range from the range of s_i = l_i a_i.x "
             "over the box; ||grad loss_i|| <= ||a_i|| sigma(-s_min)",
             "L_phi_observed from central differences of the exact gradient (sampled)"]
    return _finish(repr(p), details, lower, upper, np.array([u0]), np.array([u1]), observed,
                   argmax, notes)


def _chi2(p, lower, upper, seed) -> Constants:
    lam = p.lam
    off = p.data[2]
    corrected = p.form == "corrected"
    lmin, lmax, G, an, q = _logistic_data_bounds(p, lower, upper)
    Hl = an ** 2 * q
    Bg_k, Lg_k, Bh_k, Lh_k, ulo, uhi = [], [], [], [], [], []
    for k in range(p.num_clients):
        s = slice(off[k], off[k + 1])
        Bg_k.append(math.sqrt(float(np.mean(G[s] ** 2))))
        Lg_k.append(float(np.mean(Hl[s])))
        ulo.append(float(np.mean(lmin[s])))
        uhi.append(float(np.mean(lmax[s])))
        if corrected:   # h_k = mean(loss + loss^2/(2 lam))
            Bh_k.append(math.sqrt(float(np.mean((G[s] * (1 + lmax[s] / lam)) ** 2))))
            Lh_k.append(float(np.mean(Hl[s] * (1 + lmax[s] / lam) + G[s] ** 2 / lam)))
        else:           # h_k = -(1/(2 lam)) mean loss^2
            Bh_k.append(math.sqrt(float(np.mean((lmax[s] * G[s] / lam) ** 2))))
            Lh_k.append(float(np.mean((G[s] ** 2 + lmax[s] * Hl[s]) / lam)))
    u0, u1 = min(ulo), max(uhi)
    details = {
        "L_f": Bound(1.0 / lam, 1.0 / lam, "exact", note="f = +-u^2/(2 lam)"),
        "B_f": Bound(max(abs(u0), abs(u1)) / lam, max(abs(u0), abs(u1)) / lam, "closed-form",
                     note="|f'| = |u|/lam over the loss range"),
        "L_g": Bound(max(Lg_k), max(Lg_k), "closed-form", note="mean_i sigma'_max ||a_i||^2"),
        "B_g": Bound(max(Bg_k), max(Bg_k), "closed-form", note="sqrt(mean_i ||grad loss_i||^2)"),
        "L_h": Bound(max(Lh_k), max(Lh_k), "closed-form", note=f"form {p.form}"),
        "B_h": Bound(max(Bh_k), max(Bh_k), "closed-form", note=f"form {p.form}"),
    }
    observed, argmax = _fd_hessian_search(p, lower, upper, seed)
    notes = [f"lambda = {lam:g}, form = {p.form}",
             "loss_i range from the range of s_i = l_i a_i.x over the box; "
             "||grad loss_i|| <= ||a_i|| sigma(-s_min), ||Hess loss_i|| <= sigma'_max ||a_i||^2",
             "L_phi_observed from central differences of the exact gradient (sampled)"]
    return _finish(repr(p), details, lower, upper, np.array([u0]), np.array([u1]), observed,
                   argmax, notes)


def _generic(p, lower, upper, seed) -> Constants:
    """Any global-inner problem: sampled constants from the exact kernels (never certified)."""
    mod = p.kernel_module
    d, dg, K = p.dim, p.inner_dim, p.num_clients
    rng = np.random.default_rng(seed)
    P = np.vstack([_corners(lower, upper)[:256] if d <= 8 else lower[None],
                   lower + (upper - lower) * rng.random((200, d))])
    eye = np.eye(dg)
    out = np.empty(d)
    h = 1e-5 * max(float(np.max(upper - lower)), 1e-3)

    def jac(k, x):
        J = np.empty((dg, d))
        for i in range(dg):
            mod.g_vjp(p.data, k, x, eye[i], np.uint64(0), True, out)
            J[i] = out
        return J
    Bg = Lg = 0.0
    Y = []
    for k in range(K):
        for x in P:
            J = jac(k, x)
            Bg = max(Bg, float(np.linalg.norm(J, 2)))
            Y.append(p.inner_client(k, x))
            for j in range(d):
                e = np.zeros(d)
                e[j] = h
                Lg = max(Lg, float(np.linalg.norm((jac(k, x + e) - jac(k, x - e)) / (2 * h), 2)))
    Y = np.array(Y)
    ylo, yhi = Y.min(axis=0), Y.max(axis=0)
    Ys = ylo + (yhi - ylo) * rng.random((300, dg))
    Bf = Lf = 0.0
    v = np.empty(dg)
    hy = 1e-5 * max(float(np.max(yhi - ylo)), 1e-3)
    for y in Ys:
        mod.f_grad(p.data, 0, y, v)
        Bf = max(Bf, float(np.linalg.norm(v)))
        Hf = np.empty((dg, dg))
        for i in range(dg):
            e = np.zeros(dg)
            e[i] = hy
            a, b2 = np.empty(dg), np.empty(dg)
            mod.f_grad(p.data, 0, y + e, a)
            mod.f_grad(p.data, 0, y - e, b2)
            Hf[:, i] = (a - b2) / (2 * hy)
        Lf = max(Lf, float(np.abs(np.linalg.eigvalsh(0.5 * (Hf + Hf.T))).max()))
    Bh = Lh = 0.0
    if getattr(mod, "HAS_H", False):
        for k in range(K):
            for x in P[:100]:
                mod.h_grad(p.data, k, x, np.uint64(0), True, out)
                Bh = max(Bh, float(np.linalg.norm(out)))
                H = np.empty((d, d))
                for j in range(d):
                    e = np.zeros(d)
                    e[j] = h
                    a, b2 = np.empty(d), np.empty(d)
                    mod.h_grad(p.data, k, x + e, np.uint64(0), True, a)
                    mod.h_grad(p.data, k, x - e, np.uint64(0), True, b2)
                    H[:, j] = (a - b2) / (2 * h)
                Lh = max(Lh, float(np.abs(np.linalg.eigvalsh(0.5 * (H + H.T))).max()))
    mk = lambda v: Bound(v, v, "sampled", False, "sampled maximum (finite differences)")  # noqa
    details = {"L_f": mk(Lf), "B_f": mk(Bf), "L_g": mk(Lg), "B_g": mk(Bg), "L_h": mk(Lh),
               "B_h": mk(Bh)}
    observed, argmax = _fd_hessian_search(p, lower, upper, seed)
    notes = [f"{type(p).__name__} has no symbolic or closed-form constants here: every constant "
             "is a sampled maximum (a lower estimate), so Lemma 3.5's value is not a proven bound"]
    return _finish(repr(p), details, lower, upper, ylo, yhi, observed, argmax, notes)


def constants(p, lower, upper, *, seed: int = 0, direct: bool = True,
              verify: str | None = None) -> Constants:
    """Constants of Assumption 3.2 of the FedDRO paper for problem `p` on the box
    ``lower <= x <= upper``, Lemma 3.5's L_Phi and the observed smoothness of Phi.

    Parameters
    ----------
    p : fedcomp.problems.Problem
        A global-inner problem: :class:`~fedcomp.problems.SymbolicProblem` (constants from the
        symbolic derivatives, proven by interval branch and bound or exact when constant),
        :class:`~fedcomp.problems.LinearQuadratic` (closed forms), ``KLDRO`` / ``Chi2DRO``
        (closed-form bounds from the data and lambda), or any other problem (sampled, never
        certified).
    lower, upper : float or array (d,)
        The box.
    seed : int
        Seed of the random part of the search for L_phi_observed.
    direct : bool
        Symbolic problems: also prove an upper bound of sup ||Hess Phi|| directly
        (``L_phi_certified``).
    verify : None or "mpmath"
        Symbolic problems: re-verify every interval bound on the final partition of the box with
        mpmath's interval arithmetic (independent of the platform's libm; slow). The reported
        value is the larger of the two bounds; ``details[name].note`` says what was verified.

    Returns
    -------
    Constants
    """
    from fedcomp.problems.base import Problem
    if not isinstance(p, Problem):
        raise ValueError(f"p must be a fedcomp.problems.Problem, got {type(p).__name__}")
    if p.structure != "global-inner":
        raise ValueError(f"constants of Assumption 3.2 are defined for global-inner problems "
                         f"(FedDRO problem (2)); {type(p).__name__} is {p.structure}. For the AUC "
                         "min-max use auc_lemma2 / AUCMinimax.auc_constants")
    lo, hi = _box("lower", lower, "upper", upper, p.dim)
    seed = V.seed_value("seed", seed)
    if verify not in (None, "mpmath"):
        raise ValueError(f"verify must be None or 'mpmath', got {verify!r}")
    name = type(p).__name__
    if name == "SymbolicProblem":
        return _symbolic(p, lo, hi, seed, direct, verify)
    if name == "LinearQuadratic":
        return _linear(p, lo, hi, seed)
    if name == "KLDRO":
        return _kl(p, lo, hi, seed)
    if name == "Chi2DRO":
        return _chi2(p, lo, hi, seed)
    return _generic(p, lo, hi, seed)


# ============================================================================================
# AUC paper, Lemma 2
# ============================================================================================
def auc_lemma2(C_g: float, C_f: float, L_f: float, L_g: float, mu: float) -> float:
    """L_Phi = 2 C_g^2 L_f^2 / mu + C_f L_g (Zhang et al., AUC paper, Lemma 2), the smoothness
    constant of Phi(x) = max_y F(g(x), y) under its Assumptions 1-4 (in FedDRO notation: C_g
    bounds ||grad g||, C_f bounds ||grad_g f||, L_f and L_g the smoothness of f and g, mu the
    strong concavity of f in y).

    A direct argument gives C_f L_g + C_g^2 L_f (1 + L_f / mu) (chain rule plus the
    (L_f/mu)-Lipschitz maximiser y*), which Lemma 2's value dominates because mu <= L_f (the
    y-block of f's Hessian has norm between mu and L_f); so Lemma 2 is valid but loose by up to a
    factor 2 in its first term.
    """
    vals = {}
    for n, v in (("C_g", C_g), ("C_f", C_f), ("L_f", L_f), ("L_g", L_g)):
        vals[n] = V.real_in(n, v, 0.0, math.inf, low_open=False)
    mu = V.real_in("mu", mu, 0.0)
    return 2.0 * vals["C_g"] ** 2 * vals["L_f"] ** 2 / mu + vals["C_f"] * vals["L_g"]


def auc_lemma2_direct(C_g: float, C_f: float, L_f: float, L_g: float, mu: float) -> float:
    """The direct bound C_f L_g + C_g^2 L_f (1 + L_f/mu) (see :func:`auc_lemma2`)."""
    mu = V.real_in("mu", mu, 0.0)
    return C_f * L_g + C_g ** 2 * L_f * (1.0 + L_f / mu)


# ============================================================================================
# checks of the claims registry
# ============================================================================================
def _random_symbolic(rng, d, dg, K=2):
    from fedcomp.problems import SymbolicProblem
    xs = sp.symbols(f"x0:{d}", real=True)
    ys = sp.symbols(f"y0:{dg}", real=True)
    atoms = [lambda z: z, lambda z: z**2, sp.sin, sp.cos, lambda z: sp.exp(z / 2),
             lambda z: z**3 / 3]

    def term(syms):
        s = syms[int(rng.integers(len(syms)))]
        c = sp.Rational(int(rng.integers(-4, 5)), 2)
        return c * atoms[int(rng.integers(len(atoms)))](s)

    g = [[term(xs) + term(xs) + sp.Rational(int(rng.integers(-3, 4)), 2) for _ in range(dg)]
         for _ in range(K)]
    f = sum(term(ys) for _ in range(2)) + sum(yi**2 for yi in ys) / 2
    h = [term(xs) for _ in range(K)] if rng.random() < 0.5 else None
    return SymbolicProblem(list(xs), list(ys), g, f, h=h)


def lemma35_cases(profile: str = "quick"):
    """(name, problem, lower, upper) for the Lemma 3.5 check."""
    from fedcomp.problems import LinearQuadratic
    n_random = 4 if profile == "quick" else 20
    rng = np.random.default_rng(35)
    # identical clients: B_g = ||Abar||, so Lemma 3.5's bound equals Phi's (constant) Hessian
    # norm; this is the case that shows the constant cannot be lowered
    cases = [("linear-quadratic K=4 d=3 d_g=2",
              LinearQuadratic.random(4, 3, 2, heterogeneity=0.5, seed=1), -1.0, 1.0),
             ("linear-quadratic K=4 d=3 d_g=2, identical clients",
              LinearQuadratic.random(4, 3, 2, heterogeneity=0.0, seed=1), -1.0, 1.0)]
    for i in range(n_random):
        d, dg = int(rng.integers(1, 3)), int(rng.integers(1, 3))
        lo = rng.uniform(-2, 0, size=d)
        hi = lo + rng.uniform(0.2, 2.0, size=d)
        cases.append((f"random symbolic #{i} (d={d}, d_g={dg})", _random_symbolic(rng, d, dg),
                      lo, hi))
    from fedcomp.problems import Chi2DRO, KLDRO
    kw = dict(lam=1.0, num_clients=3, samples_per_client=20, dim=2, seed=5)
    cases.append(("KL-DRO lambda=1 (K=3, d=2)", KLDRO.synthetic(**kw), -1.0, 1.0))
    cases.append(("chi2-DRO (5) lambda=1 (K=3, d=2)", Chi2DRO.synthetic(**kw), -1.0, 1.0))
    return cases


def auc_lemma2_report(p, lower, upper, n_random: int = 60, seed: int = 0) -> dict:
    """Lemma 2 of the AUC paper for an :class:`~fedcomp.problems.AUCMinimax` on a box of x.

    The constants come from :meth:`AUCMinimax.auc_constants` with radius_u = r_x + rho Zmax
    (||g(x)|| <= ||x|| + rho ||grad L_CE|| and ||grad L_CE|| <= Zmax; r_x the largest norm in the
    box) and radius_alpha = 1.5 max |alpha*(x)| + 1 over sampled points of the box (a sampled
    radius: C_f is then proven only on that alpha range). The observed value is the largest
    spectral norm of the Hessian of Phi (central differences of the exact Danskin gradient)
    found on the box. Returns a dict with the constants, L_phi_lemma2, L_phi_direct,
    L_phi_observed and the tightness ratio."""
    d = p.dim
    lo, hi = _box("lower", lower, "upper", upper, d)
    Zmax = float(np.linalg.norm(p.Z, axis=1).max())
    r_x = float(np.linalg.norm(np.maximum(np.abs(lo), np.abs(hi))))
    Ru = r_x + p.rho * Zmax
    rng = np.random.default_rng(seed)
    pts = np.vstack([lo + (hi - lo) * rng.random((200, d)), _corners(lo, hi)[:256]])
    Ra = max(abs(p.dual_opt(x)) for x in pts) * 1.5 + 1.0
    cst = p.auc_constants(radius_u=Ru, radius_alpha=Ra)
    pred = auc_lemma2(cst["C_g"], cst["C_f"], cst["L_f"], cst["L_g"], cst["mu"])
    direct = auc_lemma2_direct(cst["C_g"], cst["C_f"], cst["L_f"], cst["L_g"], cst["mu"])
    observed, argmax = _fd_hessian_search(p, lo, hi, seed, n_random=n_random)
    return {"constants": {k: float(v) for k, v in cst.items()}, "L_phi_lemma2": pred,
            "L_phi_direct": direct, "L_phi_observed": observed,
            "tightness": pred / observed if observed > 0 else math.inf,
            "argmax_observed": np.asarray(argmax).tolist(), "lower": lo.tolist(),
            "upper": hi.tolist()}


def auc_lemma2_instance(seed: int = 0):
    """The problem on which the Lemma 2 check observes Phi's smoothness: AUCMinimax (linear
    scorer, K = 3, d_w = 3 plus an intercept) on the box [-1, 1]^d."""
    from fedcomp.problems.auc import AUCMinimax
    return AUCMinimax.synthetic(num_clients=3, dim=3, samples_per_client=60, seed=seed), -1.0, 1.0


def auc_lemma2_class_supremum() -> dict:
    """The exact supremum of ||Hess Phi|| over every problem satisfying the AUC paper's
    Assumptions 1-4 with constants C_g, C_f, L_f, L_g, mu (Phi(x) = max_y f(g(x), y)).

    Upper bound. Hess Phi = J^T H_F J + sum_i (grad F)_i Hess g_i with F(z) = max_y f(z, y),
    ||J|| <= C_g, ||grad F|| = ||grad_z f(z, y*)|| <= C_f and ||sum_i w_i Hess g_i|| <= L_g ||w||,
    so ||Hess Phi|| <= C_g^2 ||H_F|| + C_f L_g with H_F = f_zz - f_zy f_yy^(-1) f_yz (Danskin).
    For a unit v let a = |v^T f_zz v|, s = ||f_yz v||: Assumption 1 (each gradient block is
    L_f-Lipschitz in (z, y)) gives a^2 + s^2 <= L_f^2 and, with Assumption 4 (-f_yy >= mu),
    s^2 <= L_f^2 - mu^2 (the y-block row); so |v^T H_F v| <= S(u) = sqrt(L_f^2 - u) + u / mu with
    u = s^2 in [0, L_f^2 - mu^2]. S is increasing there (dS/du = 1/mu - 1/(2 sqrt(L_f^2 - u))
    with sqrt(L_f^2 - u) >= mu), so S <= S(L_f^2 - mu^2) = L_f^2 / mu.

    Attained. d = d_g = d_2 = 1, g(x) = C_g x + L_g x^2 / 2, f(z, y) = mu z^2 / 2 + s z y
    - mu y^2 / 2 + C_f z with s = sqrt(L_f^2 - mu^2): both gradient rows have norm exactly L_f,
    f is mu-strongly concave in y, and Phi''(0) = C_g^2 L_f^2 / mu + C_f L_g. (g and f are
    quadratic, so Assumption 2 holds on a neighbourhood of 0; a smooth cutoff far away makes it
    global while changing the constants by arbitrarily little: the supremum is approached.)

    Returns the sympy supremum (string), the value Phi''(0) of the instance, whether they agree,
    whether the monotonicity step holds symbolically, and the derivation steps."""
    Cg, Cf, Lf, Lg, mu, x, z, y, u, t = sp.symbols("C_g C_f L_f L_g mu x z y u t", positive=True)
    steps = ["||Hess Phi|| <= C_g^2 ||H_F|| + C_f L_g, H_F = f_zz - f_zy f_yy^-1 f_yz (Danskin)",
             "a^2 + s^2 <= L_f^2, s^2 <= L_f^2 - mu^2, -f_yy >= mu: |v^T H_F v| <= "
             "sqrt(L_f^2 - u) + u/mu, u = s^2 in [0, L_f^2 - mu^2]"]
    S = sp.sqrt(Lf ** 2 - u) + u / mu
    dS = sp.diff(S, u)
    # on the interval sqrt(L_f^2 - u) = mu + t with t >= 0
    dS_t = sp.simplify(dS.subs(u, Lf ** 2 - (mu + t) ** 2))
    increasing = bool(sp.simplify(dS_t - 1 / (2 * mu)).is_nonnegative) and \
        bool((1 / (2 * mu)).is_positive)
    steps.append(f"dS/du with sqrt(L_f^2 - u) = mu + t (t >= 0): {dS_t} >= 1/(2 mu) > 0: "
                 f"increasing = {increasing}")
    S_max = sp.simplify(S.subs(u, Lf ** 2 - mu ** 2))
    steps.append(f"S(L_f^2 - mu^2) = {S_max}")
    sup = sp.expand(Cg ** 2 * S_max + Cf * Lg)
    s = sp.sqrt(Lf ** 2 - mu ** 2)
    g = Cg * x + Lg * x ** 2 / 2
    f = mu * z ** 2 / 2 + s * z * y - mu * y ** 2 / 2 + Cf * z
    ystar = sp.solve(sp.diff(f, y), y)[0]
    Phi = f.subs(y, ystar).subs(z, g)
    attained = sp.simplify(sp.diff(Phi, x, 2).subs(x, 0))
    rows = [sp.sqrt(sp.diff(f, z, 2) ** 2 + sp.diff(f, z, y) ** 2),
            sp.sqrt(sp.diff(f, y, z) ** 2 + sp.diff(f, y, 2) ** 2)]
    rows_ok = all(sp.simplify(r - Lf) == 0 for r in rows)
    steps.append(f"instance g = {g}, f = {f}: gradient rows of f have norm "
                 f"{[str(sp.simplify(r)) for r in rows]}, f_yy = -mu, Phi''(0) = {attained}")
    agree = sp.simplify(attained - sup) == 0 and rows_ok
    return {"supremum": str(sup), "instance_value": str(attained), "attained": bool(agree),
            "upper_bound_proved": increasing, "steps": steps}


# ============================================================================================
# `fedcomp.theory.constants(p, lower, upper)` must work whether the name resolves to the
# function (fedcomp.theory.__getattr__) or to this module (once the submodule is imported, Python
# binds the package attribute `constants` to the module): so the module is callable too.
# ============================================================================================
class _CallableModule(types.ModuleType):
    def __call__(self, p, lower, upper, **kwargs):
        return constants(p, lower, upper, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
