"""Default definitions of the optional oracles of the kernel protocol (:mod:`fedcomp.problems.base`).

These functions are never called from here: :mod:`fedcomp.engine.build` pastes the source of
each one into a generated module whose problem kernel module does not define that name, where the
names they call (``g_value``, ...) are the problem's oracles. A problem overrides a default by
defining the same name in its kernel module, with the same meaning (and, for the bench's and the
tests' bit-for-bit comparisons, the same floating-point results).
"""


def g_value2(data, k, x1, x2, key, exact, out1, out2):
    """out1 = g_k(x1; zeta(key)), out2 = g_k(x2; zeta(key)): one sample at two points (FedDRO
    (8)). The default calls ``g_value`` twice with the same key, which draws the sample twice;
    a problem can draw it once (LinearQuadratic does)."""
    g_value(data, k, x1, key, exact, out1)
    g_value(data, k, x2, key, exact, out2)


def outer_grads(data, k, u, ydual, key, exact, out_u, out_dual):
    """out_u = grad_u f^(k)(u, ydual; zeta(key)), out_dual = grad_y f^(k)(u, ydual; zeta(key)):
    both outer gradients of a minimax problem at one sample (AUC paper (12)). The default calls
    ``outer_grad_inner`` and ``outer_grad_dual`` with the same key; a problem can draw the sample
    once for both (AUCMinimax does)."""
    outer_grad_inner(data, k, u, ydual, key, exact, out_u)
    outer_grad_dual(data, k, u, ydual, key, exact, out_dual)


def phi_value_grad(data, x, out):
    """out = grad Phi(x); returns Phi(x), both exact: the recorded metrics' first two columns
    (fedcomp.engine.loop.record_metrics). The default calls ``phi_grad``, then ``phi_value``; a
    problem whose two computations share a pass over its data can make that pass once (RobustFL
    and KL-DRO do)."""
    phi_grad(data, x, out)
    return phi_value(data, x)


def cond_grad2(data, k, x1, x2, key, exact, out1, out2):
    """out1, out2 = the gradient of the conditional estimator (FCSG paper (3)) at x1 and at x2 on
    the same samples (Acc-FCSG-M, Algorithm 2 line 14). The default calls ``cond_grad`` twice
    with the same key, which draws the samples twice; a problem can draw them once
    (InvariantLogistic does)."""
    cond_grad(data, k, x1, key, exact, out1)
    cond_grad(data, k, x2, key, exact, out2)


def comp_grad_b(data, k, x, key_in, key_out, exact, nb_in, nb_out, y, v, u):
    """y = g_k(x; B), v = grad f_k(y; B~), u = grad g_k(x; B)^T v: a local-inner problem's
    compositional gradient (ComFedL, Algorithm 1 lines 8-12), B of nb_in samples from key_in,
    B~ of nb_out from key_out. The default calls ``g_value_b``, ``f_grad_b`` and ``g_vjp_b``,
    which draws B twice; a problem can draw it once for both (MAMLQuadratic does)."""
    g_value_b(data, k, x, key_in, exact, nb_in, y)
    f_grad_b(data, k, y, key_out, exact, nb_out, v)
    g_vjp_b(data, k, x, v, key_in, exact, nb_in, u)


def run_data(data):
    """The data tuple one run's oracles see (:func:`fedcomp.engine.loop.run_one` calls it once
    per run, before the first step). The default is ``data`` itself; a problem whose oracles
    keep a per-run cache appends the cache's buffers here, new for every run, so that runs in
    parallel threads never share one (KL-DRO does: :mod:`fedcomp.problems._kl_kernels`)."""
    return data


#: names pasted when the problem's kernel module lacks them, in this order
OPTIONAL = (g_value2, outer_grads, phi_value_grad, cond_grad2, comp_grad_b, run_data)
