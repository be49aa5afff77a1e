"""Step helpers shared by several algorithms (plain source, compiled with each problem).

``compositional_step`` is the local update with gradient (7) of the FedDRO paper,
grad Phi_k(x; xi) = grad h_k(x; xi) + grad g_k(x; zeta) grad f(y), followed by x <- x - eta * it.
Sample keys: zeta_k^t is ``sample_key(base, k, t, 0)`` (the same key the inner-function updates
use, as (7) and (8) share zeta_k^t); xi_k^t, the sample of h_k, is ``sample_key(base, k, t, 1)``.
"""


def compositional_grad(data, k, x, y, key_g, key_h, exact, v, gx, hx):
    """gx <- grad g_k(x; zeta) grad f_k(y) + grad h_k(x; xi)  (v, hx: scratch)."""
    f_grad(data, k, y, v)
    g_vjp(data, k, x, v, key_g, exact, gx)
    if HAS_H:
        h_grad(data, k, x, key_h, exact, hx)
        for j in range(gx.shape[0]):
            gx[j] += hx[j]


def compositional_step(data, k, t, x, y, base, exact, eta, v, gx, hx):
    """x <- x - eta * (7) evaluated with inner estimate y."""
    compositional_grad(data, k, x, y, sample_key(base, k, t, 0), sample_key(base, k, t, 1),
                       exact, v, gx, hx)
    for j in range(x.shape[0]):
        x[j] -= eta * gx[j]


def init_inner_mean(data, X, Y, base, exact, ledger, slot):
    """y_k^0 = ybar^0 = (1/K) sum_k g_k(x_k^0; zeta_k^0): one upload of y per client."""
    K = X.shape[0]
    for k in range(K):
        g_value(data, k, X[k], sample_key(base, k, 0, 0), exact, Y[k])
    avg_rows(Y, ledger, slot)
