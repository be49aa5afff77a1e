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
from fedcomp.algorithms._common import compositional_grad, compositional_grad_torch
from fedcomp.algorithms.base import Algorithm, register
from fedcomp.algorithms.oracles import g_value
from fedcomp.algorithms.spec import Average, ModelRound, Server, State, Steps
from fedcomp.rng import sample_key


def mbsgd_client(data, phase, k, t, x, y, grad, v, hx, base, exact):
    if phase == 0:
        g_value(data, k, x, sample_key(base, k, t, 0), exact, y)
    else:
        compositional_grad(data, k, x, y, sample_key(base, k, t, 0), sample_key(base, k, t, 1),
                           exact, v, grad, hx)


def mbsgd_server_step(X, GRAD, eta):
    """x^{t+1} = x^t - eta * (mean of the uploaded gradients), on every client's copy."""
    for k in range(X.shape[0]):
        for j in range(X.shape[1]):
            X[k, j] -= eta * GRAD[k, j]


def mbsgd_client_torch(p, phase, t, x, y, grad):
    if phase == 0:
        y.copy_(p.g_value(x, p.key(t, 0)))
    else:
        grad.copy_(compositional_grad_torch(p, x, y, p.key(t, 0), p.key(t, 1)))


def mbsgd_server_step_torch(X, GRAD, eta):
    X -= eta * GRAD


register(Algorithm(
    name="mbsgd", citation="Khanduri et al., FedDRO paper, section 6 (Ghadimi & Lan 2013)",
    state=State(client={"grad": "d"}, scratch={"v": "dg", "hx": "d"}),
    schedule=(Average(var="y", when="iteration", phase=0),
              Average(var="grad", when="iteration", phase=1),
              Server(when="iteration", phase=1, numba=mbsgd_server_step,
                     torch=mbsgd_server_step_torch, doc="the server's step, broadcast"),
              ModelRound(when="iteration", phase=1)),
    ledger_slots=("grad", "y"), n_phases=2, fixed_local_steps=1,
    numba=Steps(mbsgd_client), torch=Steps(mbsgd_client_torch),
    summary="parallel minibatch SGD for CO: ybar and the gradient averaged every iteration"))
