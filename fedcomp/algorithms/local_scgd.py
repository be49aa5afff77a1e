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
* On the conditional problem (:class:`fedcomp.problems.InvariantLogistic`) these baselines see the
  compositional reformulation that treats inner and outer samples as independent (documented in its
  kernels), as the FCSG paper does for MAML; they then solve a different problem, which is the
  paper's explanation of their poor results.
* Averaging h_k is meaningful when the inner map is global (mean_k g_k); on local-inner problems it
  mixes the clients' inner values, as the algorithm does.
"""
from fedcomp.algorithms.base import Algorithm, HyperParam, register

_CITE = ("Gao, Li and Huang, ICML 2022 (Local-SCGD(M)); baselines of Wu et al., FCSG paper, "
         "section 5.2")
_BETA = HyperParam("beta", 0.0, 1.0, low_open=True, high_open=False,
                   doc="weight of the new inner sample in the moving average h")
_MOM = HyperParam("momentum", 0.0, 1.0, low_open=True, high_open=False,
                  doc="weight alpha of the new compositional gradient in the momentum u")


def scgd_direction(data, k, x, h, key, exact, v, out, hx):
    """out <- grad g_k(x; xi)^T grad f_k(h) (+ grad h_k(x) when the problem has h); v, hx scratch."""
    f_grad(data, k, h, v)
    g_vjp(data, k, x, v, key, exact, out)
    if HAS_H:
        h_grad(data, k, x, key, exact, hx)
        for j in range(out.shape[0]):
            out[j] += hx[j]


def local_scgd_init(data, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    for k in range(X.shape[0]):
        g_value(data, k, X[k], sample_key(base, k, 0, 0), exact, Y[k])


def local_scgd_client(data, phase, k, t, X, Y, Z, W, S, hyper, base, I, exact):
    d = X.shape[1]
    dg = Y.shape[1]
    eta = hyper[0]
    beta = hyper[1]
    x = X[k]
    h = Y[k]
    w = W[k]
    gx = w[:d]
    scgd_direction(data, k, x, h, sample_key(base, k, t, 0), exact, w[2 * d:2 * d + dg], gx,
                   w[d:2 * d])
    for j in range(d):
        x[j] -= eta * gx[j]
    gv = w[2 * d + dg:2 * d + 2 * dg]
    g_value(data, k, x, sample_key(base, k, t + 1, 0), exact, gv)
    for i in range(dg):
        h[i] = (1.0 - beta) * h[i] + beta * gv[i]


def local_scgd_sync(data, phase, t, is_round, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    if is_round:
        avg_rows(X, ledger, 0)
        avg_rows(Y, ledger, 1)
        ledger[0] += 1


def local_scgdm_init(data, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    d = X.shape[1]
    dg = Y.shape[1]
    for k in range(X.shape[0]):
        key = sample_key(base, k, 0, 0)
        g_value(data, k, X[k], key, exact, Y[k])
        w = W[k]
        scgd_direction(data, k, X[k], Y[k], key, exact, w[2 * d:2 * d + dg], Z[k, :d],
                       w[d:2 * d])


def local_scgdm_client(data, phase, k, t, X, Y, Z, W, S, hyper, base, I, exact):
    d = X.shape[1]
    dg = Y.shape[1]
    eta = hyper[0]
    beta = hyper[1]
    alpha = hyper[2]
    x = X[k]
    h = Y[k]
    u = Z[k, :d]
    w = W[k]
    for j in range(d):
        x[j] -= eta * u[j]
    key = sample_key(base, k, t + 1, 0)
    gv = w[2 * d + dg:2 * d + 2 * dg]
    g_value(data, k, x, key, exact, gv)
    for i in range(dg):
        h[i] = (1.0 - beta) * h[i] + beta * gv[i]
    gx = w[:d]
    scgd_direction(data, k, x, h, key, exact, w[2 * d:2 * d + dg], gx, w[d:2 * d])
    for j in range(d):
        u[j] = (1.0 - alpha) * u[j] + alpha * gx[j]


def local_scgdm_sync(data, phase, t, is_round, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    if is_round:
        d = X.shape[1]
        avg_rows(X, ledger, 0)
        avg_rows(Y, ledger, 1)
        avg_rows(Z[:, :d], ledger, 2)
        ledger[0] += 1


_STRUCT = ("local-inner", "global-inner")
_REQ = ("g_value", "g_vjp", "f_grad", "h_grad")

register(Algorithm(
    name="local-scgd", citation=_CITE + "; SCGD: Wang, Fang and Liu 2017",
    init_step=local_scgd_init, client_step=local_scgd_client, sync_step=local_scgd_sync,
    hyper=(_BETA,), sizes=lambda d, dg: (0, 2 * d + 2 * dg, 0), ledger_slots=("x", "h"),
    helpers=(scgd_direction,), requires=_REQ, structures=_STRUCT,
    summary="Local-SCGD: moving-average inner state h, x and h averaged every I"))

register(Algorithm(
    name="local-scgdm", citation=_CITE,
    init_step=local_scgdm_init, client_step=local_scgdm_client, sync_step=local_scgdm_sync,
    hyper=(_BETA, _MOM), sizes=lambda d, dg: (d, 2 * d + 2 * dg, 0), ledger_slots=("x", "h", "u"),
    helpers=(scgd_direction,), requires=_REQ, structures=_STRUCT,
    summary="Local-SCGDM: inner state h and momentum u; x, h and u averaged every I"))
