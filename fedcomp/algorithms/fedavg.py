"""Vanilla FedAvg for compositional problems: Algorithm 1 of Khanduri et al., "On Federated
Compositional Optimization: Algorithms, Analysis, and Guarantees" (FedDRO paper), Cases I and II,
and the modified FedAvg of Theorem 4.2.

Local step (Algorithm 1, step 5): gradient (6), grad Phi_k(x_k) = grad g_k(x_k) grad f(y_k), with
y_k the client's inner estimate; x_k <- x_k - eta grad Phi_k(x_k); then y_k <- g_k(x_k^{t+1}).
Every I iterations (step 7):

* ``fedavg-case1``: x_k <- xbar; y_k <- g_k(xbar). Clients upload x only.
* ``fedavg-case2``: x_k <- xbar; y_k <- ybar, the mean of the y_k = g_k(x_k^{t+1}) that clients
  upload with their x_k (one round trip: d + d_g floats per client).
* ``fedavg-modified`` (Theorem 4.2): y_k <- ybar^t = mean_k g_k(x_k^t) shared every iteration,
  x averaged every I.

Interpretations (the box leaves them open):

* Initialisation y_k^0 = ybar^0 (step 2) with ybar^0 = (1/K) sum_k g_k(x^0; zeta_k^0): one upload of
  d_g floats per client, counted in the ledger under "y".
* Stochastic oracles (Theorem 4.1 is deterministic, but the algorithm is defined for samples):
  the gradient at iteration t uses sample zeta_k^t; y_k^{t+1} = g_k(x_k^{t+1}; zeta_k^{t+1}); the
  Case I reset uses g_k(xbar; zeta_k^{t+1}). With ``stochastic=False`` every oracle is exact.
* With the non-compositional part h present, grad h_k is added to (6) as in (7).
"""
from fedcomp.algorithms._common import compositional_grad, compositional_step, init_inner_mean
from fedcomp.algorithms.base import Algorithm, register


def fedavg_init(data, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    init_inner_mean(data, X, Y, base, exact, ledger, 1)


def fedavg_client(data, phase, k, t, X, Y, Z, W, S, hyper, base, I, exact):
    d = X.shape[1]
    dg = Y.shape[1]
    w = W[k]
    x = X[k]
    y = Y[k]
    compositional_step(data, k, t, x, y, base, exact, hyper[0], w[:dg], w[dg:dg + d],
                       w[dg + d:dg + 2 * d])
    g_value(data, k, x, sample_key(base, k, t + 1, 0), exact, y)


def fedavg_case1_sync(data, phase, t, is_round, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    if is_round:
        avg_rows(X, ledger, 0)
        ledger[0] += 1
        for k in range(X.shape[0]):
            g_value(data, k, X[k], sample_key(base, k, t + 1, 0), exact, Y[k])


def fedavg_case2_sync(data, phase, t, is_round, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    if is_round:
        avg_rows(X, ledger, 0)
        avg_rows(Y, ledger, 1)
        ledger[0] += 1


def fedavg_modified_sync(data, phase, t, is_round, X, Y, Z, W, S, hyper, base, I, exact,
                         ledger):
    avg_rows(Y, ledger, 1)
    if is_round:
        avg_rows(X, ledger, 0)
        ledger[0] += 1


_COMMON = dict(init_step=fedavg_init, client_step=fedavg_client,
               sizes=lambda d, dg: (0, dg + 2 * d, 0), ledger_slots=("x", "y"),
               helpers=(compositional_grad, compositional_step, init_inner_mean))
_CITE = "Khanduri et al., FedDRO paper, Algorithm 1, eq. (6)"

register(Algorithm(name="fedavg-case1", citation=_CITE + ", Case I", sync_step=fedavg_case1_sync,
                   summary="FedAvg, Case I: x averaged every I, y_k reset to g_k(xbar)", **_COMMON))
register(Algorithm(name="fedavg-case2", citation=_CITE + ", Case II", sync_step=fedavg_case2_sync,
                   summary="FedAvg, Case II: x and y_k = g_k(x_k) averaged every I", **_COMMON))
register(Algorithm(name="fedavg-modified", citation=_CITE + "; Theorem 4.2",
                   sync_step=fedavg_modified_sync,
                   summary="FedAvg with ybar = mean g_k(x_k) shared every iteration", **_COMMON))
