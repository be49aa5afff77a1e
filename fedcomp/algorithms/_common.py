"""Step helpers shared by several algorithms, for both backends (compiled, then torch).

``compositional_grad`` is gradient (7) of the FedDRO paper,
grad Phi_k(x; xi) = grad h_k(x; xi) + grad g_k(x; zeta) grad f(y), with inner estimate y;
``compositional_step`` follows it with x <- x - eta * (7). Sample keys: zeta_k^t is
``sample_key(base, k, t, 0)`` (the key the inner-function updates use, as (7) and (8) share
zeta_k^t); xi_k^t, the sample of h_k, is ``sample_key(base, k, t, 1)``. A step that draws (7)'s
Jacobian sample apart from the inner update's (the FedDRO paper's remark after Assumption 3.3,
``feddro-independent``) passes slot 2 as ``g_slot``; every other step passes 0.
"""
from fedcomp.algorithms.oracles import HAS_H, f_grad, g_vjp, h_grad
from fedcomp.rng import sample_key


def compositional_grad(data, k, x, y, key_g, key_h, exact, v, gx, hx):
    """gx <- grad g_k(x; zeta) grad f_k(y) + grad h_k(x; xi)  (v, hx: scratch)."""
    f_grad(data, k, y, v)
    g_vjp(data, k, x, v, key_g, exact, gx)
    if HAS_H:
        h_grad(data, k, x, key_h, exact, hx)
        for j in range(gx.shape[0]):
            gx[j] += hx[j]


def compositional_step(data, k, t, x, y, base, exact, eta, v, gx, hx, g_slot):
    """x <- x - eta * (7) evaluated with inner estimate y (grad g_k's sample: slot g_slot)."""
    compositional_grad(data, k, x, y, sample_key(base, k, t, g_slot), sample_key(base, k, t, 1),
                       exact, v, gx, hx)
    for j in range(x.shape[0]):
        x[j] -= eta * gx[j]


def copy_into(dst, src):
    """dst <- src, element by element (a plain loop: no broadcasting machinery)."""
    for j in range(dst.shape[0]):
        dst[j] = src[j]


def moving_average(y, beta, g):
    """y <- (1 - beta) y + beta g."""
    for i in range(y.shape[0]):
        y[i] = (1.0 - beta) * y[i] + beta * g[i]


# --- torch (all clients at once; p: the problem's oracles bound to the run) -----------------
def compositional_grad_torch(p, x, y, key_g, key_h):
    """(7) for every client: grad g_k(x_k; zeta) grad f(y_k) + grad h_k(x_k; xi), (K, d).
    A problem with a stochastic outer function (``p.stochastic_outer``, the SCO reading of
    MAML) draws grad f's sample from key_g too; for every other one grad f is exact and the key
    is ignored."""
    g = p.g_vjp(x, p.f_grad(y, key_g), key_g)
    if p.has_h:
        g = g + p.h_grad(x, key_h)
    return g


def compositional_step_torch(p, t, x, y, eta, g_slot):
    """x <- x - eta * (7) for every client (keys of iteration t, slots g_slot and 1)."""
    x -= eta * compositional_grad_torch(p, x, y, p.key(t, g_slot), p.key(t, 1))
