"""Kernels of :class:`fedcomp.problems.MAMLQuadratic` (ComFedL problems (7) and (10)).

data = (Lc (K, d, d) Cholesky factors of Sigma_k, theta (K, d), params [alpha, noise, gamma,
batch, outer_batch], Sigma (K, d, d), weights (K,) = 1/K)

Task k is linear regression: a sample xi = (a, s) with a ~ N(0, Sigma_k), s = a.theta_k + noise*e,
e ~ N(0, 1); the sample loss is l(w; xi) = 0.5 (a.w - s)^2, so the task loss is
l_k(w) = 0.5 (w - theta_k)^T Sigma_k (w - theta_k) + 0.5 noise^2 with gradient Sigma_k (w - theta_k).

In fedcomp's notation (ComFedL's names in brackets):

* inner g_k(w) [f^i(w)] = w - alpha grad l_k(w), the one-step adapted model (d_g = d), sampled
  on a support batch B: g_k(w; B) = w - alpha (1/|B|) sum a_j (a_j.w - s_j), Jacobian
  I - alpha (1/|B|) sum a_j a_j^T (symmetric, so the vjp is J v);
* outer f_k(y) [g^i(y)] = l_k(y) for MAML (7) (params[2] = gamma = 0), or exp(l_k(y) / gamma) for
  the distribution-agnostic form (10) (gamma > 0), sampled on an independent query batch B~
  (ComFedL's D~_i): l_k(y; B~) = (1/|B~|) sum 0.5 (a_j.y - s_j)^2, and for (10)
  grad f_k(y; B~) = exp(l_k(y; B~)/gamma)/gamma * grad l_k(y; B~) (one query batch for both
  factors: a biased estimator, as ComFedL's own u is; no unbiased sample of exp(E[.]) exists);
* Phi(w) = (1/K) sum_k f_k(g_k(w)), exact in closed form:
  grad Phi(w) = (1/K) sum_k (I - alpha Sigma_k) grad f_k(w - alpha Sigma_k (w - theta_k)).

Oracles: the protocol names plus the local-inner family's (documented in
:mod:`fedcomp.problems._robustfl_kernels`), and the optional ``comp_grad_b`` (ComFedL's direction
with the support batch drawn once for the value and the Jacobian); ``loss_value_b`` /
``loss_grad_b`` are the plain task loss l_k(w) without adaptation (what FedAvg-type baselines
minimise, as in ComFedL's Figure 4).
The j-th sample of a batch is drawn from ``substream(key, j)`` (d + 1 normals), so one key gives one
batch at every point.
"""
import numba as nb
import numpy as np

from fedcomp.rng import add_normal, substream

HAS_H = False
LOCAL_INNER = True


@nb.njit(cache=True)
def _draw(data, k, key, j, buf, a):
    """Sample j of the batch of `key` for task k: a in `a`, returns s."""
    Lc, theta, noise = data[0], data[1], data[2][1]
    d = a.shape[0]
    for i in range(d + 1):
        buf[i] = 0.0
    add_normal(substream(key, j), 1.0, buf)
    s = 0.0
    for i in range(d):
        v = 0.0
        for m in range(i + 1):
            v += Lc[k, i, m] * buf[m]
        a[i] = v
        s += v * theta[k, i]
    return s + noise * buf[d]


@nb.njit(cache=True, inline="always")
def _add_sample_task_grad(a, s, w, out):
    """out += (a.w - s) a for one sample (a, s); returns its residual r = a.w - s."""
    r = -s
    for i in range(w.shape[0]):
        r += a[i] * w[i]
    for i in range(w.shape[0]):
        out[i] += r * a[i]
    return r


@nb.njit(cache=True, inline="always")
def _add_sample_jtj(a, v, out):
    """out += (a.v) a for one sample's a: its share of (1/|B|) sum a_j a_j^T v, before the mean."""
    av = 0.0
    for i in range(v.shape[0]):
        av += a[i] * v[i]
    for i in range(v.shape[0]):
        out[i] += av * a[i]


@nb.njit(cache=True, inline="always")
def _vjp_from_mean(v, alpha, nb_, out):
    """out = v - alpha out / nb_: (I - alpha (1/|B|) sum a a^T) v from the sum in out."""
    for i in range(v.shape[0]):
        out[i] = v[i] - alpha * out[i] / nb_


@nb.njit(cache=True)
def _task_grad(data, k, w, key, exact, nb_, out):
    """out = grad l_k(w; B); returns l_k(w; B)."""
    theta, Sig, noise = data[1], data[3], data[2][1]
    d = w.shape[0]
    if exact:
        val = 0.0
        for i in range(d):
            s = 0.0
            for m in range(d):
                s += Sig[k, i, m] * (w[m] - theta[k, m])
            out[i] = s
            val += 0.5 * (w[i] - theta[k, i]) * s
        return val + 0.5 * noise * noise
    buf = np.empty(d + 1)
    a = np.empty(d)
    for i in range(d):
        out[i] = 0.0
    val = 0.0
    for j in range(nb_):
        r = _add_sample_task_grad(a, _draw(data, k, key, j, buf, a), w, out)
        val += 0.5 * r * r
    for i in range(d):
        out[i] /= nb_
    return val / nb_


@nb.njit(cache=True)
def _task_loss(data, k, w, key, exact, nb_):
    tmp = np.empty(w.shape[0])
    return _task_grad(data, k, w, key, exact, nb_, tmp)


@nb.njit(cache=True)
def g_value_b(data, k, x, key, exact, nb_, out):
    alpha = data[2][0]
    _task_grad(data, k, x, key, exact, nb_, out)
    for i in range(x.shape[0]):
        out[i] = x[i] - alpha * out[i]


@nb.njit(cache=True)
def g_vjp_b(data, k, x, v, key, exact, nb_, out):
    alpha, Sig = data[2][0], data[3]
    d = x.shape[0]
    if exact:
        for i in range(d):
            s = 0.0
            for m in range(d):
                s += Sig[k, i, m] * v[m]
            out[i] = v[i] - alpha * s
        return
    buf = np.empty(d + 1)
    a = np.empty(d)
    for i in range(d):
        out[i] = 0.0
    for j in range(nb_):
        _draw(data, k, key, j, buf, a)
        _add_sample_jtj(a, v, out)
    _vjp_from_mean(v, alpha, nb_, out)


@nb.njit(cache=True)
def comp_grad_b(data, k, x, key_in, key_out, exact, nb_in, nb_out, y, v, u):
    """y = g_k(x; B), v = grad f_k(y; B~), u = grad g_k(x; B)^T v with the support batch B drawn
    once and kept for the Jacobian: the numbers of g_value_b, f_grad_b and g_vjp_b called in turn,
    bit for bit (the same operations per sample in the same order; tests/test_comfedl.py)."""
    if exact:
        g_value_b(data, k, x, key_in, exact, nb_in, y)
        f_grad_b(data, k, y, key_out, exact, nb_out, v)
        g_vjp_b(data, k, x, v, key_in, exact, nb_in, u)
        return
    alpha = data[2][0]
    d = x.shape[0]
    buf = np.empty(d + 1)
    A = np.empty((nb_in, d))
    for i in range(d):
        y[i] = 0.0
    for j in range(nb_in):
        a = A[j]
        _add_sample_task_grad(a, _draw(data, k, key_in, j, buf, a), x, y)
    for i in range(d):
        y[i] /= nb_in
    for i in range(d):
        y[i] = x[i] - alpha * y[i]
    f_grad_b(data, k, y, key_out, exact, nb_out, v)
    for i in range(d):
        u[i] = 0.0
    for j in range(nb_in):
        _add_sample_jtj(A[j], v, u)
    _vjp_from_mean(v, alpha, nb_in, u)


@nb.njit(cache=True)
def g_value(data, k, x, key, exact, out):
    g_value_b(data, k, x, key, exact, np.int64(data[2][3]), out)


@nb.njit(cache=True)
def g_vjp(data, k, x, v, key, exact, out):
    g_vjp_b(data, k, x, v, key, exact, np.int64(data[2][3]), out)


@nb.njit(cache=True)
def h_grad(data, k, x, key, exact, out):
    for j in range(out.shape[0]):
        out[j] = 0.0


@nb.njit(cache=True)
def f_value_b(data, k, y, key, exact, nb_):
    gam = data[2][2]
    v = _task_loss(data, k, y, key, exact, nb_)
    if gam > 0.0:
        return np.exp(v / gam)
    return v


@nb.njit(cache=True)
def f_grad_b(data, k, y, key, exact, nb_, out):
    gam = data[2][2]
    v = _task_grad(data, k, y, key, exact, nb_, out)
    if gam > 0.0:
        c = np.exp(v / gam) / gam
        for i in range(y.shape[0]):
            out[i] *= c


@nb.njit(cache=True)
def f_value(data, k, y):
    return f_value_b(data, k, y, np.uint64(0), np.bool_(True), np.int64(0))


@nb.njit(cache=True)
def f_grad(data, k, y, out):
    f_grad_b(data, k, y, np.uint64(0), np.bool_(True), np.int64(0), out)


@nb.njit(cache=True)
def loss_value_b(data, k, x, key, exact, nb_):
    return _task_loss(data, k, x, key, exact, nb_)


@nb.njit(cache=True)
def loss_grad_b(data, k, x, key, exact, nb_, out):
    _task_grad(data, k, x, key, exact, nb_, out)


@nb.njit(cache=True)
def client_weight(data, k):
    return data[4][k]


@nb.njit(cache=True)
def g_mean(data, x, out):
    K, d = data[1].shape
    tmp = np.empty(d)
    for i in range(d):
        out[i] = 0.0
    for k in range(K):
        g_value_b(data, k, x, np.uint64(0), np.bool_(True), np.int64(0), tmp)
        for i in range(d):
            out[i] += tmp[i] / K


@nb.njit(cache=True)
def phi_value(data, x):
    K, d = data[1].shape
    y = np.empty(d)
    s = 0.0
    for k in range(K):
        g_value_b(data, k, x, np.uint64(0), np.bool_(True), np.int64(0), y)
        s += f_value_b(data, k, y, np.uint64(0), np.bool_(True), np.int64(0))
    return s / K


@nb.njit(cache=True)
def phi_grad(data, x, out):
    K, d = data[1].shape
    y = np.empty(d)
    v = np.empty(d)
    u = np.empty(d)
    for i in range(d):
        out[i] = 0.0
    for k in range(K):
        g_value_b(data, k, x, np.uint64(0), np.bool_(True), np.int64(0), y)
        f_grad_b(data, k, y, np.uint64(0), np.bool_(True), np.int64(0), v)
        g_vjp_b(data, k, x, v, np.uint64(0), np.bool_(True), np.int64(0), u)
        for i in range(d):
            out[i] += u[i] / K
