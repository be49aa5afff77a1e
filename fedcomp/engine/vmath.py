"""exp and log1p on four float64 lanes (:mod:`.simd`), the same bits on every x86-64 machine.

Why: the KL-DRO kernels evaluate exp / log1p for every sample of a minibatch; libm's scalar calls
were about half of a client step. Here the four samples of a block go through one vector
evaluation. The algorithms are fdlibm's (Sun, 1993: e_exp.c and s_log1p.c, the same coefficients
and reconstruction formulas), written without branches: both sides of a case distinction are
computed and one is selected per lane. Every operation is a separate IEEE operation (no fused
multiply-add, no fast-math reassociation), so results do not depend on the machine, and a lane
does not depend on the other lanes. The scalar forms :func:`exp1` / :func:`log1p1` are the vector
functions on lane 0 of a splatted vector: the same bits as any lane.

:func:`exp4` (x any float64): x = k ln2 + r, k = rint(x / ln2), r = hi - lo with the two-part ln2
(k ln2_hi is exact); exp(r) = 1 - ((lo - r c / (2 - c)) - hi), c = r - r^2 P(r^2) (fdlibm's
degree-5 P); scaled by 2^k with :func:`~fedcomp.engine.simd.ldexp4` (two exact power-of-two
factors: one rounding, also into the subnormal range). x is first clamped to [-746, 710]: above
709.78... the result is inf, below -745.13... it is 0. NaN propagates, exp(+-0) = 1,
exp(inf) = inf, exp(-inf) = 0.

:func:`log1p4` (x in [0, 1], the kernels' arguments e = exp(-|m|)): for x < 0.41421353 (fdlibm's
threshold, about sqrt(2) - 1) f = x and log1p = f - (f^2/2 - s (f^2/2 + R(s^2))), s = f / (2 + f);
otherwise u = 1 + x (rounded), f = u/2 - 1 (exact), the rounding error of u corrected by
c = (x - (u - 1)) / u, and log1p = ln2_hi - ((f^2/2 - (s (f^2/2 + R) + (ln2_lo + c))) - f), R
fdlibm's degree-7 polynomial in s^2. The first branch is valid on (-0.29, 0.414), the second on
[0.414, inf); the validated range is [0, 1] (with -0.0 -> -0.0 and NaN -> NaN). Outside
[-0.29, 1] the result is not meaningful (log1p(inf) is NaN here, x <= -1 is not handled): the
kernels never pass such arguments.

Measured accuracy, errors in ulps of the exact value (mpmath at 200 bits; subnormal results in
units of 2^-1074), this machine (x86-64, glibc's numpy for comparison):

* exp4, 255,000 arguments (uniform on [-745.2, 709.8], [-1, 1], [-60, 0], [-745.2, -707] for
  subnormal results, and +-10^U(-25, 0)): max 0.83 ulp (numpy 0.72); differs from numpy on 8.3 %.
* exp4, another 160,000 (uniform on [-745.2, 709.8], [-1, 1], [-40, 0], +-10^U(-20, 0)): max
  0.85 ulp (numpy 0.70); differs from numpy on 8.9 %.
* log1p4, 300,000 arguments (uniform on [0, 1], 10^U(-30, 0), [0.40, 0.43] around the branch
  threshold, 1 - 10^U(-16, 0), exp(-U(0, 40))): max 0.83 ulp (numpy 0.60); differs from numpy
  on 4.3 %. Another 160,000 on [0, 1]: max 0.81 ulp.

Against numpy the results are never more than 1 ulp apart. Special values (tests/test_vmath.py):
exp(+-0) = 1, exp(+-5e-324) = 1, exp(709.782712893384) finite and equal to numpy's, exp of the
next double = inf, exp(-745.1332191019411) = 5e-324, exp of the next double below = 0, subnormal
results equal numpy's on the tested points, exp(+-inf) = inf / 0, NaN -> NaN; log1p(0) = 0,
log1p(-0) = -0, log1p(x) = x for tiny and subnormal x, NaN -> NaN. The test suite rechecks the
< 1 ulp bound on a smaller sample (about 20,000 arguments per function).
"""

# The method and coefficients are fdlibm's, whose notice (e_exp.c, s_log1p.c) reads:
#   Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
#   Developed at SunPro, a Sun Microsystems, Inc. business.
#   Permission to use, copy, modify, and distribute this software is freely granted,
#   provided that this notice is preserved.
import numba as nb

# Compiled as separate functions, not numba-inlined: LLVM inlines them anyway (the same kl-d50
# speed), and numba's IR inlining of these bodies at every call site made a cold first simulate of
# FedDRO on KL-DRO take 53 s instead of 18 s (fresh caches, one core, 26 November 2026).

from fedcomp.engine.simd import (abs4, add4, div4, lane4, ldexp4, mul4, neg4, splat4,
                                 sub4, where_gt4, where_lt4)

# fdlibm e_exp.c
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e+00
_P1 = 1.66666666666666019037e-01
_P2 = -2.77777777770155933842e-03
_P3 = 6.61375632143793436117e-05
_P4 = -1.65339022054652515390e-06
_P5 = 4.13813679705723846039e-08
_MAGIC = 6755399441055744.0  # 0x1.8p52
_X_MAX = 710.0   # exp(x) = inf for x > 709.782712893384
_X_MIN = -746.0  # exp(x) = 0 for x < -745.1332191019412

# fdlibm s_log1p.c
_LP1 = 6.666666666666735130e-01
_LP2 = 3.999999999940941908e-01
_LP3 = 2.857142874366239149e-01
_LP4 = 2.222219843214978396e-01
_LP5 = 1.818357216161805012e-01
_LP6 = 1.531383769920937332e-01
_LP7 = 1.479819860511658591e-01
_LOG1P_SPLIT = 0.4142135381698608  # the double with high word 0x3FDA827A (fdlibm's threshold)


@nb.njit(cache=True, error_model="numpy")
def exp4(x):
    """exp on each lane of the f64x4 x (the module docstring gives the method and accuracy)."""
    x = where_gt4(x, splat4(_X_MAX), splat4(_X_MAX), x)
    x = where_lt4(x, splat4(_X_MIN), splat4(_X_MIN), x)
    magic = splat4(_MAGIC)
    k = sub4(add4(mul4(x, splat4(_INV_LN2)), magic), magic)
    hi = sub4(x, mul4(k, splat4(_LN2_HI)))
    lo = mul4(k, splat4(_LN2_LO))
    r = sub4(hi, lo)
    t = mul4(r, r)
    p = add4(splat4(_P4), mul4(t, splat4(_P5)))
    p = add4(splat4(_P3), mul4(t, p))
    p = add4(splat4(_P2), mul4(t, p))
    p = add4(splat4(_P1), mul4(t, p))
    c = sub4(r, mul4(t, p))
    q = div4(mul4(r, c), sub4(splat4(2.0), c))
    y = sub4(splat4(1.0), sub4(sub4(lo, q), hi))
    return ldexp4(y, k)


@nb.njit(cache=True, error_model="numpy")
def log1p4(x):
    """log1p on each lane of the f64x4 x, x in [0, 1] (see the module docstring)."""
    one = splat4(1.0)
    u = add4(one, x)
    small = splat4(_LOG1P_SPLIT)
    f = where_lt4(x, small, x, sub4(mul4(u, splat4(0.5)), one))
    c = div4(sub4(x, sub4(u, one)), u)
    hfsq = mul4(mul4(splat4(0.5), f), f)
    s = div4(f, add4(splat4(2.0), f))
    z = mul4(s, s)
    r = add4(splat4(_LP6), mul4(z, splat4(_LP7)))
    r = add4(splat4(_LP5), mul4(z, r))
    r = add4(splat4(_LP4), mul4(z, r))
    r = add4(splat4(_LP3), mul4(z, r))
    r = add4(splat4(_LP2), mul4(z, r))
    r = add4(splat4(_LP1), mul4(z, r))
    r = mul4(z, r)
    sr = mul4(s, add4(hfsq, r))
    low = sub4(f, sub4(hfsq, sr))
    high = sub4(splat4(_LN2_HI),
                sub4(sub4(hfsq, add4(sr, add4(splat4(_LN2_LO), c))), f))
    return where_lt4(x, small, low, high)


@nb.njit(cache=True, error_model="numpy")
def exp1(x):
    """Scalar :func:`exp4`: the same bits as every lane of exp4 at x."""
    return lane4(exp4(splat4(x)), 0)


@nb.njit(cache=True, error_model="numpy")
def log1p1(x):
    """Scalar :func:`log1p4`: the same bits as every lane of log1p4 at x."""
    return lane4(log1p4(splat4(x)), 0)


@nb.njit(cache=True, error_model="numpy")
def _sigmoid_of(m, e):
    """sigmoid(m) from e = exp(-|m|): 1 / (1 + e) for m > 0, e / (1 + e) otherwise (the scalar
    kernels' two forms, each exact where the other cancels)."""
    one = splat4(1.0)
    return div4(where_gt4(m, splat4(0.0), one, e), add4(one, e))


@nb.njit(cache=True, error_model="numpy")
def sigmoid4(m):
    """sigmoid on each lane: the sigmoid of :func:`softplus_sigmoid4`, without the softplus."""
    return _sigmoid_of(m, exp4(neg4(abs4(m))))


@nb.njit(cache=True, error_model="numpy")
def softplus_sigmoid4(m):
    """(softplus(m), sigmoid(m)) on each lane, from one e = exp(-|m|) (the scalar kernels' formulas
    of :mod:`fedcomp.problems._logistic` with exp4 / log1p4): softplus = m + log1p(e) for m > 0,
    log1p(e) otherwise; sigmoid as :func:`sigmoid4`."""
    e = exp4(neg4(abs4(m)))
    lp = log1p4(e)
    sp = where_gt4(m, splat4(0.0), add4(m, lp), lp)
    return sp, _sigmoid_of(m, e)
