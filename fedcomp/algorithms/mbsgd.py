"""MBSGD: the centralised minibatch SGD baseline for compositional problems used in section 6 of
Khanduri et al. (FedDRO paper), "a popular baseline minibatch SGD, MBSGD, customized for CO
[Ghadimi & Lan (2013)]", run in parallel so that each step uses K times a client's batch.

Iteration t (one model round, I = 1 necessarily):

1. every client uploads g_k(x^t; zeta_k^t); the server forms ybar^t (d_g floats per client);
2. every client uploads grad h_k(x^t; xi_k^t) + grad g_k(x^t; zeta_k^t) grad f(ybar^t) (d floats);
3. x^{t+1} = x^t - eta * (mean of the uploads), broadcast.

Interpretation: the paper gives no pseudo-code; the same sample zeta_k^t serves the value and the
Jacobian, as in (7)-(8). ``local_steps`` must be 1.
"""
from fedcomp.algorithms._common import compositional_grad
from fedcomp.algorithms.base import Algorithm, register


def mbsgd_init(data, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    pass


def mbsgd_client(data, phase, k, t, X, Y, Z, W, S, hyper, base, I, exact):
    d = X.shape[1]
    dg = Y.shape[1]
    if phase == 0:
        g_value(data, k, X[k], sample_key(base, k, t, 0), exact, Y[k])
    else:
        w = W[k]
        compositional_grad(data, k, X[k], Y[k], sample_key(base, k, t, 0),
                           sample_key(base, k, t, 1), exact, w[d + 2 * d:d + 2 * d + dg],
                           w[:d], w[d:2 * d])


def mbsgd_sync(data, phase, t, is_round, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    d = X.shape[1]
    if phase == 0:
        avg_rows(Y, ledger, 1)
    else:
        G = W[:, :d]
        avg_rows(G, ledger, 0)
        for k in range(X.shape[0]):
            for j in range(d):
                X[k, j] -= hyper[0] * G[k, j]
        ledger[0] += 1


register(Algorithm(
    name="mbsgd", citation="Khanduri et al., FedDRO paper, section 6 (Ghadimi & Lan 2013)",
    init_step=mbsgd_init, client_step=mbsgd_client, sync_step=mbsgd_sync,
    sizes=lambda d, dg: (0, 3 * d + dg, 0), ledger_slots=("grad", "y"), n_phases=2,
    helpers=(compositional_grad,), fixed_local_steps=1,
    summary="parallel minibatch SGD for CO: ybar and the gradient averaged every iteration"))
