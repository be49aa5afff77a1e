"""Local-SCGD and Local-SCGDM: the compositional baselines of the FCSG paper (Wu et al., NeurIPS
2023, section 5.2), from Gao, Li and Huang, "On the Convergence of Local Stochastic Compositional
Gradient Descent with Momentum" (ICML 2022).

Local-SCGD is the federated (local-update) version of SCGD (Wang, Fang and Liu, Math. Program.
161, 2017): each client keeps a moving-average estimate h_k of its inner function and steps with the
compositional gradient through it,

    x_k^{t+1} = x_k^t - eta grad g_k(x_k^t; xi_k^t)^T grad f_k(h_k^t)
    h_k^{t+1} = (1 - beta) h_k^t + beta g_k(x_k^{t+1}; xi_k^{t+1})

and every I iterations x and h are averaged. Local-SCGDM adds the momentum of the compositional
gradient (the form used by Gao et al. 2022 and by Zhang et al.'s LocalSCGDAM, AUC paper (11)-(14)):

    x_k^{t+1} = x_k^t - eta u_k^t
    h_k^{t+1} = (1 - beta) h_k^t + beta g_k(x_k^{t+1}; xi_k^{t+1})
    u_k^{t+1} = (1 - alpha) u_k^t + alpha grad g_k(x_k^{t+1}; xi_k^{t+1})^T grad f_k(h_k^{t+1})

with x, h and u averaged every I iterations (the FCSG paper: "the server needs to average the inner
state as in Local-SCGDM"). Initialisation: h_k^0 = g_k(x_0; xi_k^0), u_k^0 = grad g_k(x_0;
xi_k^0)^T grad f_k(h_k^0).

Readings:

* Gao et al. write the weights as products with the step size (beta eta, alpha eta); the FCSG paper
  tunes "the inner state momentum coefficient" and "the outside momentum coefficient" directly in
  {0.1, 0.5, 0.9}. Here ``beta`` (inner state) and ``momentum`` (alpha) are those coefficients, in
  (0, 1].
* f_k's gradient is the problem's exact outer gradient (the kernel protocol has no stochastic outer
  oracle); the inner sample xi_k^t (``sample_key(base, k, t, 0)``) serves g_k and its Jacobian.
  The one exception is a torch problem with ``stochastic_outer`` (the neural MAML problem's SCO
  reformulation, :class:`fedcomp.neural.problems.MAMLProblem`, FCSG section 5.2): its outer
  gradient is drawn with the same key xi_k^t (reading B: the query sets of the inner sample's
  tasks; reading A, independent outer tasks, is the problem's ``sco_outer="independent"``).
* On the conditional problem (:class:`fedcomp.problems.InvariantLogistic`) these baselines see the
  compositional reformulation that treats inner and outer samples as independent (documented in its
  kernels), as the FCSG paper does for MAML; they then solve a different problem, which is the
  paper's explanation of their poor results.
* Averaging h_k is meaningful when the inner map is global (mean_k g_k); on local-inner problems it
  mixes the clients' inner values, as the algorithm does.
"""
from fedcomp.algorithms._common import compositional_grad, compositional_grad_torch, moving_average
from fedcomp.algorithms.base import Algorithm, HyperParam, register
from fedcomp.algorithms.fedavg import inner_value_init, inner_value_init_torch
from fedcomp.algorithms.oracles import g_value
from fedcomp.algorithms.spec import Average, ModelRound, State, Steps
from fedcomp.rng import sample_key

_CITE = ("Gao, Li and Huang, ICML 2022 (Local-SCGD(M)); baselines of Wu et al., FCSG paper, "
         "section 5.2")
_BETA = HyperParam("beta", 0.0, 1.0, low_open=True, high_open=False,
                   doc="weight of the new inner sample in the moving average h")
_MOM = HyperParam("momentum", 0.0, 1.0, low_open=True, high_open=False,
                  doc="weight alpha of the new compositional gradient in the momentum u")

# The inner state h_k is the engine's y (the recorded inner error is that of hbar).
# The compositional direction grad g_k(x; xi)^T grad f_k(h) (+ grad h_k(x; xi)) uses one sample
# xi for g and h: compositional_grad with the same key twice.


# --- numba: one client --------------------------------------------------------------------
def local_scgd_client(data, k, t, x, y, v, gx, hx, gv, eta, beta, base, exact):
    key = sample_key(base, k, t, 0)
    compositional_grad(data, k, x, y, key, key, exact, v, gx, hx)
    for j in range(x.shape[0]):
        x[j] -= eta * gx[j]
    g_value(data, k, x, sample_key(base, k, t + 1, 0), exact, gv)
    moving_average(y, beta, gv)


def local_scgdm_init(data, k, x, y, u, v, hx, base, exact):
    key = sample_key(base, k, 0, 0)
    g_value(data, k, x, key, exact, y)
    compositional_grad(data, k, x, y, key, key, exact, v, u, hx)


def local_scgdm_client(data, k, t, x, y, u, v, gx, hx, gv, eta, beta, momentum, base, exact):
    for j in range(x.shape[0]):
        x[j] -= eta * u[j]
    key = sample_key(base, k, t + 1, 0)
    g_value(data, k, x, key, exact, gv)
    moving_average(y, beta, gv)
    compositional_grad(data, k, x, y, key, key, exact, v, gx, hx)
    moving_average(u, momentum, gx)


# --- torch: all clients -------------------------------------------------------------------
def local_scgd_client_torch(p, t, x, y, eta, beta):
    key = p.key(t, 0)
    x -= eta * compositional_grad_torch(p, x, y, key, key)
    y.copy_((1.0 - beta) * y + beta * p.g_value(x, p.key(t + 1, 0)))


def local_scgdm_init_torch(p, x, y, u):
    key = p.key(0, 0)
    y.copy_(p.g_value(x, key))
    u.copy_(compositional_grad_torch(p, x, y, key, key))


def local_scgdm_client_torch(p, t, x, y, u, eta, beta, momentum):
    x -= eta * u
    key = p.key(t + 1, 0)
    y.copy_((1.0 - beta) * y + beta * p.g_value(x, key))
    u.copy_((1.0 - momentum) * u + momentum * compositional_grad_torch(p, x, y, key, key))


_STRUCT = ("local-inner", "global-inner")
_REQ = ("g_value", "g_vjp", "f_grad", "h_grad")
_SCRATCH = {"v": "dg", "gx": "d", "hx": "d", "gv": "dg"}

register(Algorithm(
    name="local-scgd", citation=_CITE + "; SCGD: Wang, Fang and Liu 2017", hyper=(_BETA,),
    state=State(scratch=_SCRATCH),
    schedule=(Average(var="x"), Average(var="y", slot="h"), ModelRound()),
    ledger_slots=("x", "h"), requires=_REQ, structures=_STRUCT,
    numba=Steps(local_scgd_client, inner_value_init),
    torch=Steps(local_scgd_client_torch, inner_value_init_torch),
    summary="Local-SCGD: moving-average inner state h, x and h averaged every I"))

register(Algorithm(
    name="local-scgdm", citation=_CITE, hyper=(_BETA, _MOM),
    state=State(client={"u": "d"}, scratch=_SCRATCH),
    schedule=(Average(var="x"), Average(var="y", slot="h"), Average(var="u"), ModelRound()),
    ledger_slots=("x", "h", "u"), requires=_REQ, structures=_STRUCT,
    numba=Steps(local_scgdm_client, local_scgdm_init),
    torch=Steps(local_scgdm_client_torch, local_scgdm_init_torch),
    summary="Local-SCGDM: inner state h and momentum u; x, h and u averaged every I"))
