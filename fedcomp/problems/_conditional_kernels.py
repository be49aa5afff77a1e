"""Kernels of :class:`fedcomp.problems.InvariantLogistic` (FCSG paper, problem (1), section 5.1).

data = (Wt (K, d) teachers, Mu (K, d) feature means, params, gh_t, gh_w, pl_z, pl_w, pl_f, first)

params = [sigma1, sigma2, lam, gam, m (inner batch), b (outer batch)]; gh_t, gh_w: probabilists'
Gauss-Hermite nodes and weights (weights sum to 1); pl_z, pl_w: composite Gauss-Legendre nodes and
weights on [0, 40] (see :func:`logistic_normal`); pl_f (3, nodes): the remainders
log1p(e^-z), e^-z / (1 + e^-z), e^-z / (1 + e^-z)^2 at those nodes (:func:`panel_factors`: they
do not depend on the Gaussian's mean and deviation, so each is computed once per problem, not at
every evaluation); first (K,) int64: first[k] is the smallest j whose rows Wt[j], Mu[j] equal
client k's (:func:`first_equal_rows`), so that the exact measures evaluate each
distinct client once (section 5.1's clients are all the same client) and give the numbers a pass
over every client gives, bit for bit: equal rows give equal Phi_k and grad Phi_k, which are then
summed in the same order.

The model of client k (Wu et al., section 5.1, after Hu et al. 2020):

* outer sample xi = (a, b): a ~ N(mu_k, sigma1^2 I_d), label b = sign(a . w_k) (teacher w_k);
* inner samples eta_j | a ~ N(a, sigma2^2 I_d), j = 1..m;
* inner function g(x; a, eta) = eta . x (a scalar: d_g = 1, linear in eta), outer
  f_xi(y) = log(1 + exp(-b y)); regulariser h(x) = lam sum_i gam x_i^2 / (1 + gam x_i^2), the
  non-compositional part (HAS_H; it is deterministic);
* Phi(x) = (1/K) sum_k Phi_k(x), Phi_k(x) = E_a f_xi(E_{eta|a} eta . x) + h(x)
  = E_a log(1 + exp(-b a . x)) + h(x), since E[eta | a] = a exactly ("local-inner" structure).

Exact value and gradient (no sampling, no Monte Carlo). With u = a . x, v = a . w_k (jointly
normal), b = sign(v) and log(1 + e^{-u}) = log(1 + e^{u}) - u:

    Phi_k(x) - h(x) = E softplus(u) - E[u 1{v > 0}]
    E[u 1{v > 0}]   = mu_u Phi_N(r) + (cov / sd_v) phi_N(r),   r = mu_v / sd_v
    grad            = B mu_k + s2u C x - Phi_N(r) mu_k - sigma1^2 (phi_N(r) / sd_v) w_k

with mu_u = mu_k . x, mu_v = mu_k . w_k, sd_v = sigma1 |w_k|, cov = sigma1^2 x . w_k,
s2u = sigma1^2 (plus tau^2 below), and (A, B, C) = E (softplus, sigmoid, sigmoid')(Z),
Z ~ N(mu_u, s2u |x|^2): the gradient follows from Stein's lemma (E[z F(z)] = E[F'(z)]) and the
indicator part is closed form. Only the one-dimensional logistic-normal integrals A, B, C have no
closed form; :func:`logistic_normal` computes them by quadrature to about 1e-13 absolute
(tests/test_fcsg.py compares with scipy.integrate.quad).

The estimator (3) and its bias. With m inner samples the estimator uses only their mean
etabar = a + sigma2 zbar, zbar ~ N(0, I/m) (g is linear in eta), so its expectation is the exact
objective of the same model with the extra variance tau^2 = sigma2^2 / m in u:
``client_value_grad(data, k, x, tau2, out)`` with tau2 > 0 gives Phi_{k,m}(x) = E f(mean of g) and
its gradient, the quantity FCSG's estimator is unbiased for. Hence the bias of (3) is known exactly:
grad Phi_{k,m} - grad Phi_k.

Extra oracles (beyond the protocol of :mod:`fedcomp.problems.base`)::

    cond_draw(data, k, key, i, a, etabar) -> b   outer sample i of `key`: a (d,), the mean of its
                                                 m inner samples etabar (d,), and the label b
    cond_grad_b(data, k, x, key, exact, nb, out) out (d,) = (1/nb) sum_{i<nb} grad f_xi_i(etabar_i
                                                 . x) + grad h(x): the gradient of estimator (3)
                                                 with nb outer samples (exact: grad Phi_k(x))
    cond_grad(data, k, x, key, exact, out)       the same with the problem's outer batch b
    cond_grad2(data, k, x1, x2, key, exact, out1, out2)
                                                 cond_grad at two points on one draw of the
                                                 samples (the protocol's optional oracle)
    cond_value_b(data, k, x, key, exact, nb)     the estimator (3) itself (plus h)
    client_value_grad(data, k, x, tau2, out)     exact Phi_k (tau2 = 0) or Phi_{k,m}, and gradient
    h_value(data, x)                             the regulariser

Sampling from one key: outer sample i uses substreams 2i (a: a = mu_k + sigma1 z) and 2i + 1
(zbar: etabar = a + (sigma2 / sqrt(m)) z'), d normals each; drawing the mean of m i.i.d.
N(a, sigma2^2 I) samples directly is exact in distribution and costs d normals instead of m d
(``cond_inner_samples(data, k, key, i, m, a, etas) -> b`` draws the m samples explicitly, for
distributional checks). The same key at two points gives the same samples (Acc-FCSG-M's
STORM correction needs this).

The compositional reformulation (protocol oracles g_value, g_vjp, f_grad), used by Local-SCGD(M)
as the FCSG paper uses it in section 5.2: the inner sample and the outer sample are treated as
independent, so the inner map is g_k(x) = E[eta] . x = mu_k . x (a sample: etabar . x of one outer
sample and its m inner samples) and the outer function is the label-marginal
f_k(y) = p_k log(1 + e^{-y}) + (1 - p_k) log(1 + e^{y}), p_k = P(b = +1) = Phi_N(mu_v / sd_v), exact.
This is *not* the conditional objective: it drops the dependence of the label on a, which is the
paper's explanation of why the compositional baselines do badly. ``g_mean`` is mean_k mu_k . x (the
quantity the baselines' inner state tracks).
"""
import math

import numba as nb
import numpy as np

from fedcomp.problems._logistic import sigmoid as _sigmoid
from fedcomp.problems._logistic import softplus as _softplus
from fedcomp.rng import add_normal, substream

HAS_H = True
LOCAL_INNER = True
_SQRT2 = math.sqrt(2.0)
_INV_SQRT2PI = 1.0 / math.sqrt(2.0 * math.pi)
# Above this standard deviation the integrand is resolved in the variable z of the Gaussian
# (panels) instead of Gauss-Hermite in the standardised variable: the logistic functions vary on
# scale 1/s in the standardised variable, which Gauss-Hermite resolves only for moderate s.
_S_SWITCH = 1.0


@nb.njit(cache=True, inline="always")
def _norm_cdf(r):
    return 0.5 * math.erfc(-r / _SQRT2)


@nb.njit(cache=True, inline="always")
def _norm_pdf(r):
    return _INV_SQRT2PI * np.exp(-0.5 * r * r)


@nb.njit(cache=True)
def panel_factors(pl_z):
    """pl_f (3, n) of the data tuple: log1p(e), e / (1 + e), e / ((1 + e)(1 + e)) with e = e^-z,
    at the nodes z of pl_z (compiled, so that they are the numbers the quadrature loop computed
    in place before they were tabulated)."""
    n = pl_z.shape[0]
    f = np.empty((3, n))
    for i in range(n):
        e = np.exp(-pl_z[i])
        f[0, i] = np.log1p(e)
        f[1, i] = e / (1.0 + e)
        f[2, i] = e / ((1.0 + e) * (1.0 + e))
    return f


@nb.njit(cache=True)
def logistic_normal(data, mean, sd):
    """(A, B, C) = E[softplus(Z)], E[sigmoid(Z)], E[sigmoid'(Z)] for Z ~ N(mean, sd^2).

    sd <= 1: Gauss-Hermite (80 nodes) in Z = mean + sd t (the integrand is analytic in t in a
    strip of half-width pi / sd >= pi). sd > 1: split the functions into their piecewise-linear limits
    (closed form: E max(Z, 0) = mean Phi(mean/sd) + sd phi(mean/sd), E 1{Z > 0} = Phi(mean/sd))
    and remainders that decay like e^{-|z|} (log1p(e^{-|z|}), -sign(z) sigmoid(-|z|),
    sigmoid'(z)), integrated in z over [0, 40] on both sides by composite Gauss-Legendre (the
    remainders at the nodes from the table pl_f).
    """
    gh_t, gh_w, pl_z, pl_w, pl_f = data[3], data[4], data[5], data[6], data[7]
    if sd <= 0.0:
        s = _sigmoid(mean)
        return _softplus(mean), s, s * (1.0 - s)
    if sd <= _S_SWITCH:
        A = 0.0
        B = 0.0
        C = 0.0
        for i in range(gh_t.shape[0]):
            z = mean + sd * gh_t[i]
            w = gh_w[i]
            s = _sigmoid(z)
            A += w * _softplus(z)
            B += w * s
            C += w * s * (1.0 - s)
        return A, B, C
    r = mean / sd
    A = mean * _norm_cdf(r) + sd * _norm_pdf(r)
    B = _norm_cdf(r)
    C = 0.0
    c = _INV_SQRT2PI / sd
    for i in range(pl_z.shape[0]):
        z = pl_z[i]
        gp = c * np.exp(-0.5 * ((z - mean) / sd) ** 2)
        gm = c * np.exp(-0.5 * ((z + mean) / sd) ** 2)
        w = pl_w[i]
        A += w * (gp + gm) * pl_f[0, i]
        B += w * (gm - gp) * pl_f[1, i]
        C += w * (gp + gm) * pl_f[2, i]
    return A, B, C


@nb.njit(cache=True)
def h_value(data, x):
    lam, gam = data[2][2], data[2][3]
    s = 0.0
    for j in range(x.shape[0]):
        q = gam * x[j] * x[j]
        s += q / (1.0 + q)
    return lam * s


@nb.njit(cache=True)
def h_grad(data, k, x, key, exact, out):
    lam, gam = data[2][2], data[2][3]
    for j in range(x.shape[0]):
        q = 1.0 + gam * x[j] * x[j]
        out[j] = lam * 2.0 * gam * x[j] / (q * q)


@nb.njit(cache=True, inline="always")
def _add_h_grad(params, x, out):
    """out += grad h(x), entry by entry as h_grad computes it."""
    lam, gam = params[2], params[3]
    for j in range(x.shape[0]):
        q = 1.0 + gam * x[j] * x[j]
        out[j] += lam * 2.0 * gam * x[j] / (q * q)


@nb.njit(cache=True, inline="always")
def _add_sample_grad(e, b, x, nb_, out):
    """out += grad f_xi(etabar . x) / nb_ = (-b sigmoid(-b etabar . x) / nb_) etabar for one outer
    sample (inner mean etabar = e, label b): estimator (3)'s gradient, one sample's share."""
    y = 0.0
    for j in range(x.shape[0]):
        y += e[j] * x[j]
    fp = -b * _sigmoid(-b * y) / nb_
    for j in range(x.shape[0]):
        out[j] += fp * e[j]


@nb.njit(cache=True)
def client_value_grad(data, k, x, tau2, out):
    """Phi_k(x) - h(x) with extra inner variance tau2 (0: the exact objective); out <- gradient."""
    Wt, Mu, params = data[0], data[1], data[2]
    s1 = params[0]
    d = x.shape[0]
    mu_u = 0.0
    mu_v = 0.0
    xx = 0.0
    xw = 0.0
    ww = 0.0
    for j in range(d):
        mu_u += Mu[k, j] * x[j]
        mu_v += Mu[k, j] * Wt[k, j]
        xx += x[j] * x[j]
        xw += x[j] * Wt[k, j]
        ww += Wt[k, j] * Wt[k, j]
    s2u = s1 * s1 + tau2
    sd_u = np.sqrt(s2u * xx)
    sd_v = s1 * np.sqrt(ww)
    r = mu_v / sd_v
    Pr = _norm_cdf(r)
    pr = _norm_pdf(r)
    A, B, C = logistic_normal(data, mu_u, sd_u)
    value = A - mu_u * Pr - s1 * s1 * xw * pr / sd_v
    cw = s1 * s1 * pr / sd_v
    for j in range(d):
        out[j] = (B - Pr) * Mu[k, j] + s2u * C * x[j] - cw * Wt[k, j]
    return value


@nb.njit(cache=True)
def _draw(data, k, key, i, a, etabar):
    """a = mu_k + sigma1 z (substream 2i of key), etabar = a + (sigma2 / sqrt(m)) z' (substream
    2i + 1); returns the label b = sign(a . w_k)."""
    Wt, Mu, params = data[0], data[1], data[2]
    s1, s2, m = params[0], params[1], params[4]
    d = a.shape[0]
    for j in range(d):
        a[j] = Mu[k, j]
    add_normal(substream(key, 2 * i), s1, a)
    for j in range(d):
        etabar[j] = a[j]
    add_normal(substream(key, 2 * i + 1), s2 / np.sqrt(m), etabar)
    v = 0.0
    for j in range(d):
        v += a[j] * Wt[k, j]
    return 1.0 if v >= 0.0 else -1.0


@nb.njit(cache=True)
def cond_draw(data, k, key, i, a, etabar):
    """Outer sample i of `key` for client k: a, the mean etabar of its m inner samples, label b."""
    return _draw(data, k, key, i, a, etabar)


@nb.njit(cache=True)
def cond_inner_samples(data, k, key, i, m, a, etas):
    """Explicit reference draw: a as in cond_draw (substream 2i), then m inner samples
    eta_r = a + sigma2 z_r (rows of etas, (m, d)) from substreams 2i + 1 + 2 (r + 1) (other streams
    than cond_draw's etabar: this serves distributional checks, not reproduction)."""
    Wt, Mu, params = data[0], data[1], data[2]
    s1, s2 = params[0], params[1]
    d = a.shape[0]
    for j in range(d):
        a[j] = Mu[k, j]
    add_normal(substream(key, 2 * i), s1, a)
    v = 0.0
    for j in range(d):
        v += a[j] * Wt[k, j]
    for r in range(m):
        for j in range(d):
            etas[r, j] = a[j]
        add_normal(substream(key, 2 * i + 1 + 2 * (r + 1)), s2, etas[r])
    return 1.0 if v >= 0.0 else -1.0


@nb.njit(cache=True)
def cond_grad_b(data, k, x, key, exact, nb_, out):
    """Gradient of estimator (3) with nb_ outer samples (m inner each) plus grad h."""
    params = data[2]
    d = x.shape[0]
    if exact:
        client_value_grad(data, k, x, 0.0, out)
    else:
        for j in range(d):
            out[j] = 0.0
        a = np.empty(d)
        e = np.empty(d)
        for i in range(nb_):
            b = _draw(data, k, key, i, a, e)
            _add_sample_grad(e, b, x, nb_, out)
    _add_h_grad(params, x, out)


@nb.njit(cache=True)
def cond_grad(data, k, x, key, exact, out):
    cond_grad_b(data, k, x, key, exact, np.int64(data[2][5]), out)


@nb.njit(cache=True)
def cond_grad2(data, k, x1, x2, key, exact, out1, out2):
    """cond_grad at x1 (out1) and at x2 (out2) with the same key, each outer sample drawn once
    for both points: the numbers of two cond_grad calls, bit for bit (the same operations per
    point in the same order; tests/test_fcsg.py)."""
    if exact:
        cond_grad(data, k, x1, key, exact, out1)
        cond_grad(data, k, x2, key, exact, out2)
        return
    params = data[2]
    nb_ = np.int64(params[5])
    d = x1.shape[0]
    for j in range(d):
        out1[j] = 0.0
        out2[j] = 0.0
    a = np.empty(d)
    e = np.empty(d)
    for i in range(nb_):
        b = _draw(data, k, key, i, a, e)
        _add_sample_grad(e, b, x1, nb_, out1)
        _add_sample_grad(e, b, x2, nb_, out2)
    _add_h_grad(params, x1, out1)
    _add_h_grad(params, x2, out2)


@nb.njit(cache=True)
def cond_value_b(data, k, x, key, exact, nb_):
    """Estimator (3): (1/nb_) sum_i f_xi_i(etabar_i . x), plus h(x) (exact: Phi_k(x))."""
    d = x.shape[0]
    if exact:
        g = np.empty(d)
        return client_value_grad(data, k, x, 0.0, g) + h_value(data, x)
    a = np.empty(d)
    e = np.empty(d)
    tot = 0.0
    for i in range(nb_):
        b = _draw(data, k, key, i, a, e)
        y = 0.0
        for j in range(d):
            y += e[j] * x[j]
        tot += _softplus(-b * y)
    return tot / nb_ + h_value(data, x)


# --- the compositional reformulation (Local-SCGD(M) baselines) ---------------------------------

@nb.njit(cache=True)
def _label_share(data, k):
    Wt, Mu, s1 = data[0], data[1], data[2][0]
    mu_v = 0.0
    ww = 0.0
    for j in range(Wt.shape[1]):
        mu_v += Mu[k, j] * Wt[k, j]
        ww += Wt[k, j] * Wt[k, j]
    return _norm_cdf(mu_v / (s1 * np.sqrt(ww)))


@nb.njit(cache=True)
def g_value(data, k, x, key, exact, out):
    Mu = data[1]
    d = x.shape[0]
    s = 0.0
    if exact:
        for j in range(d):
            s += Mu[k, j] * x[j]
    else:
        a = np.empty(d)
        e = np.empty(d)
        _draw(data, k, key, 0, a, e)
        for j in range(d):
            s += e[j] * x[j]
    out[0] = s


@nb.njit(cache=True)
def g_vjp(data, k, x, v, key, exact, out):
    Mu = data[1]
    d = x.shape[0]
    if exact:
        for j in range(d):
            out[j] = Mu[k, j] * v[0]
    else:
        a = np.empty(d)
        _draw(data, k, key, 0, a, out)
        for j in range(d):
            out[j] *= v[0]


@nb.njit(cache=True)
def f_value(data, k, y):
    p = _label_share(data, k)
    return p * _softplus(-y[0]) + (1.0 - p) * _softplus(y[0])


@nb.njit(cache=True)
def f_grad(data, k, y, out):
    p = _label_share(data, k)
    out[0] = -p * _sigmoid(-y[0]) + (1.0 - p) * _sigmoid(y[0])


@nb.njit(cache=True)
def g_mean(data, x, out):
    Mu = data[1]
    K, d = Mu.shape
    s = 0.0
    for k in range(K):
        for j in range(d):
            s += Mu[k, j] * x[j]
    out[0] = s / K


# --- exact measures ------------------------------------------------------------------------------

@nb.njit(cache=True)
def first_equal_rows(W, Mu):
    """first (K,): first[k] = the smallest j <= k with W[j] == W[k] and Mu[j] == Mu[k] entry by
    entry. Equal as numbers, not bit for bit: a zero feature mean may carry either sign (the
    homogeneous ``synthetic`` instance's are 0 * z), and client_value_grad uses W[k] and Mu[k]
    only in products, which it sums or combines with other terms and never divides by, so a zero's
    sign changes at most the sign of a zero output, which the sum over clients does not see (its
    accumulator starts at +0.0, and adding -0.0 to a number changes nothing; tests/test_fcsg.py
    checks both signs). Once per problem: O(K d) comparisons when
    the clients are all the same, O(K^2) (each stops at the first differing entry) when all
    differ."""
    K, d = W.shape
    first = np.empty(K, dtype=np.int64)
    for k in range(K):
        first[k] = k
        for j in range(k):
            if first[j] != j:
                continue
            same = True
            for i in range(d):
                if W[k, i] != W[j, i] or Mu[k, i] != Mu[j, i]:
                    same = False
                    break
            if same:
                first[k] = j
                break
    return first


@nb.njit(cache=True)
def _clients_value_grad(data, x, vals, G):
    """vals[k] = Phi_k(x) - h(x), G[k] = its gradient, each distinct client computed once
    (data[8], module docstring)."""
    first = data[8]
    for k in range(vals.shape[0]):
        j = first[k]
        if j == k:
            vals[k] = client_value_grad(data, k, x, 0.0, G[k])
        else:
            vals[k] = vals[j]
            for i in range(x.shape[0]):
                G[k, i] = G[j, i]


@nb.njit(cache=True)
def phi_value(data, x):
    K = data[0].shape[0]
    vals = np.empty(K)
    G = np.empty((K, x.shape[0]))
    _clients_value_grad(data, x, vals, G)
    s = 0.0
    for k in range(K):
        s += vals[k]
    return s / K + h_value(data, x)


@nb.njit(cache=True)
def phi_value_grad(data, x, out):
    """out = grad Phi(x); returns Phi(x): one client_value_grad per distinct client for both (the
    numbers of phi_grad and phi_value, which each make that pass)."""
    K, d = data[0].shape
    vals = np.empty(K)
    G = np.empty((K, d))
    _clients_value_grad(data, x, vals, G)
    for j in range(d):
        out[j] = 0.0
    s = 0.0
    for k in range(K):
        s += vals[k]
        for j in range(d):
            out[j] += G[k, j] / K
    _add_h_grad(data[2], x, out)
    return s / K + h_value(data, x)


@nb.njit(cache=True)
def phi_grad(data, x, out):
    """out = grad Phi(x) (phi_value_grad's vector: the value costs nothing more)."""
    phi_value_grad(data, x, out)
