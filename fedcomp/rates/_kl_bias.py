"""The compiled inner loop of :func:`fedcomp.rates.feddro.shared_sample_bias` (KL-DRO only): a
module of its own, imported when that function runs, so that importing the rates layer loads no
KL-DRO kernel. It calls the KL-DRO oracles by name (numba caches it on disk; a version taking
the oracles as arguments compiled anew in every process)."""
import numba as nb
import numpy as np

from fedcomp.problems._kl_kernels import f_grad, g_value, g_vjp


@nb.njit(cache=True, error_model="numpy")
def one_sample_expectations(one, data, lo, hi, xp, gi, gk, gkp, gbar, beta, K, shared):
    """Over the one-sample clients lo..hi-1 of the one-sample copy `one` (the samples zeta of
    client k of the problem whose data is `data`): shared <- E_zeta[grad g(xp; zeta)
    grad f(ybar(zeta))], and the return value E_zeta[grad f(ybar(zeta))], with ybar(zeta) = gbar
    + ((g(xp; zeta) - g_k(xp)) - (1 - beta)(g(x; zeta) - g_k(x))) / K (gi: the g(x; zeta), gk:
    g_k(x), gkp: g_k(xp); d_g = 1)."""
    val, fg, y, ones = np.zeros(1), np.zeros(1), np.zeros(1), np.ones(1)
    jac = np.zeros(xp.shape[0])
    key = np.uint64(0)
    for q in range(shared.shape[0]):
        shared[q] = 0.0
    mean_grad = 0.0
    for j in range(hi - lo):
        g_value(one, lo + j, xp, key, True, val)
        g_vjp(one, lo + j, xp, ones, key, True, jac)
        y[0] = gbar[0] + ((val[0] - gkp[0]) - (1.0 - beta) * (gi[j, 0] - gk[0])) / K
        f_grad(data, 0, y, fg)
        for q in range(shared.shape[0]):
            shared[q] += fg[0] * jac[q]
        mean_grad += fg[0]
    for q in range(shared.shape[0]):
        shared[q] /= hi - lo
    return mean_grad / (hi - lo)
