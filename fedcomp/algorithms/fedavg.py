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
from fedcomp.algorithms._common import compositional_step, compositional_step_torch
from fedcomp.algorithms.base import Algorithm, register
from fedcomp.algorithms.oracles import g_value
from fedcomp.algorithms.spec import Average, ModelRound, Server, State, Steps
from fedcomp.rng import sample_key


# --- numba: one client --------------------------------------------------------------------
def inner_value_init(data, k, x, y, base, exact):
    """y_k^0 = g_k(x^0; zeta_k^0) (averaged by the schedule where the algorithm says so)."""
    g_value(data, k, x, sample_key(base, k, 0, 0), exact, y)


def fedavg_client(data, k, t, x, y, v, gx, hx, eta, base, exact):
    compositional_step(data, k, t, x, y, base, exact, eta, v, gx, hx, 0)
    g_value(data, k, x, sample_key(base, k, t + 1, 0), exact, y)


def fedavg_reset_inner(data, t, X, Y, base, exact):
    """Case I: after the model round every client recomputes y_k = g_k(xbar; zeta_k^{t+1})."""
    for k in range(X.shape[0]):
        g_value(data, k, X[k], sample_key(base, k, t + 1, 0), exact, Y[k])


# --- torch: all clients -------------------------------------------------------------------
def inner_value_init_torch(p, x, y):
    y.copy_(p.g_value(x, p.key(0, 0)))


def fedavg_client_torch(p, t, x, y, eta):
    compositional_step_torch(p, t, x, y, eta, 0)
    y.copy_(p.g_value(x, p.key(t + 1, 0)))


def fedavg_reset_inner_torch(p, t, X, Y):
    Y.copy_(p.g_value(X, p.key(t + 1, 0)))


_COMMON = dict(state=State(scratch={"v": "dg", "gx": "d", "hx": "d"}), ledger_slots=("x", "y"),
               numba=Steps(fedavg_client, inner_value_init),
               torch=Steps(fedavg_client_torch, inner_value_init_torch))
_INIT = (Average(var="y", when="init"),)
_CITE = "Khanduri et al., FedDRO paper, Algorithm 1, eq. (6)"

register(Algorithm(
    name="fedavg-case1", citation=_CITE + ", Case I",
    schedule=_INIT + (Average(var="x"), ModelRound(),
                      Server(numba=fedavg_reset_inner, torch=fedavg_reset_inner_torch,
                             doc="clients recompute y_k = g_k(xbar) (no upload)")),
    summary="FedAvg, Case I: x averaged every I, y_k reset to g_k(xbar)", **_COMMON))
register(Algorithm(
    name="fedavg-case2", citation=_CITE + ", Case II",
    schedule=_INIT + (Average(var="x"), Average(var="y"), ModelRound()),
    summary="FedAvg, Case II: x and y_k = g_k(x_k) averaged every I", **_COMMON))
register(Algorithm(
    name="fedavg-modified", citation=_CITE + "; Theorem 4.2",
    schedule=_INIT + (Average(var="y", when="iteration"), Average(var="x"), ModelRound()),
    summary="FedAvg with ybar = mean g_k(x_k) shared every iteration", **_COMMON))
