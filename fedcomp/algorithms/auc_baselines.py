"""The AUC baselines of Zhang et al., "Federated Compositional Deep AUC Maximization" (AUC paper),
section 6.1: CoDA [8], LocalSGDAM [23] and LocalSGDM [36], each implemented from its own paper's
update rule (the AUC paper gives none of them) on the AUC problem of
:mod:`fedcomp.problems.auc` (structure ``"minimax"``).

The AUC paper: "LocalSGDM uses momentum SGD to optimize the standard cross-entropy loss function
... CoDA leverages SGDA to optimize AUC loss, while LocalSGDAM exploits momentum SGDA to optimize
AUC loss." So CoDA and LocalSGDAM solve the *non-compositional* min-max
min_x max_alpha (1/K) sum_k f^(k)(x, alpha) (the outer function evaluated at u = x, no
cross-entropy step) and LocalSGDM minimises the cross-entropy. The engine still records the
exact measures of the problem (Phi of the compositional objective when rho > 0); build the problem
with rho = 0 to measure CoDA and LocalSGDAM on their own objective, and compare all methods by
``problem.auc(x)`` as the paper does (test AUC). LocalSGDM_RL (ratio loss) is not implemented.

coda -- Guo, Liu, Yuan, Shen, Liu, Yang, "Communication-Efficient Distributed Stochastic AUC
Maximization with Deep Neural Networks", ICML 2020, Algorithm 1 (CoDA) with its inner routine
DSG (Algorithm 2). Stage s minimises the proximal problem F(v, alpha) + 1/(2 gamma) ||v - v_{s-1}||^2
by local primal-dual SGD with periodic averaging: on each client
    v_{t+1} = v_t - eta_s (grad_v f^(k)(v_t, alpha_t; z_t) + (1/gamma) (v_t - v_{s-1}))
    alpha_{t+1} = alpha_t + eta_s grad_alpha f^(k)(v_t, alpha_t; z_t)
and every I iterations v and alpha are averaged over the clients; at the end of a stage the
reference point v_{s-1} becomes the averaged model and the step size is divided by
``stage_decay`` (eta_s = eta / stage_decay^s). Hyperparameters: ``prox_coef`` = 1/gamma (0: no
proximal term), ``stage_rounds`` = communication rounds per stage (0: a single stage, i.e. plain
Local SGDA), ``stage_decay``. Interpretation: the CoDA paper's text is not among the shared papers;
this follows its Algorithms 1-2 as we know them and the authors' public implementation (same step
size for v and alpha, step decay by 3 per stage, reference point = the model at the stage start).
CoDA's dual re-initialisation at stage starts, if any, is not implemented: alpha carries over.

localsgdam -- Sharma, Panda, Joshi, Varshney, "Federated Minimax Optimization: Improved
Convergence Analyses and Algorithms", ICML 2022, Algorithm 2 (Momentum Local SGDA). With the
paper's alpha_t = ``eta`` (engine), eta_x = ``gamma_x``, eta_y = ``gamma_y`` and the momentum
parameters beta_x, beta_y (the same parametrisation as LocalSCGDAM, whose equations (12)-(13)
follow it):
    x_{t+1} = x_t - gamma_x eta d_x,t      alpha_{t+1} = alpha_t + gamma_y eta d_y,t
    d_x,t+1 = (1 - beta_x eta) d_x,t + beta_x eta grad_x f^(k)(x_{t+1}, alpha_{t+1}; xi_{t+1})
    d_y,t+1 = (1 - beta_y eta) d_y,t + beta_y eta grad_alpha f^(k)(x_{t+1}, alpha_{t+1}; xi_{t+1})
with d_x,0, d_y,0 the stochastic gradients at (x_0, alpha_0 = 0); every I iterations x, alpha,
d_x and d_y are averaged. It is LocalSCGDAM with h replaced by x and grad g by the identity.

localsgdm -- Yu, Jin, Yang, "On the Linear Speedup Analysis of Communication Efficient Momentum
SGD for Distributed Non-Convex Optimization", ICML 2019, Algorithm 1 (parallel restarted SGD with
momentum): u_t = beta u_{t-1} + G_k(x_{t-1}; xi), x_t = x_{t-1} - eta u_t, and every I iterations
both x and the momentum buffer u are averaged over the clients; u_0 = 0. G_k is the stochastic
cross-entropy gradient of client k (``ce_grad``; a and b of x are untouched).

Samples: the gradient at x_t uses ``sample_key(base, k, t, 1)`` (zeta, outer samples) for CoDA,
index t + 1 for LocalSGDAM (as in LocalSCGDAM), and ``sample_key(base, k, t, 0)`` (xi) for the
cross-entropy of LocalSGDM. Ledger slots: "x", "y" (the dual alpha), and the momenta.
"""
from fedcomp.algorithms.base import Algorithm, HyperParam, register

_ZHANG = "cited as a baseline in Zhang et al. (AUC paper), section 6.1"


# --------------------------------------------------------------------------------------------
# CoDA
# --------------------------------------------------------------------------------------------
def coda_init(data, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    K, d = X.shape
    for k in range(K):
        Z[k, 0] = 0.0
        for j in range(d):
            Z[k, 1 + j] = X[k, j]
    S[0] = 0.0
    S[1] = 0.0


def coda_client(data, phase, k, t, X, Y, Z, W, S, hyper, base, I, exact):
    d = X.shape[1]
    prox = hyper[1]
    step = hyper[0] / hyper[3] ** S[1]
    x = X[k]
    z = Z[k]
    w = W[k]
    ydual = z[0:1]
    vref = z[1:1 + d]
    key = sample_key(base, k, t, 1)
    fu = w[:d]
    fd = w[d:d + 1]
    outer_grad_inner(data, k, x, ydual, key, exact, fu)
    outer_grad_dual(data, k, x, ydual, key, exact, fd)
    for j in range(d):
        x[j] -= step * (fu[j] + prox * (x[j] - vref[j]))
    ydual[0] += step * fd[0]


def coda_sync(data, phase, t, is_round, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    if is_round:
        K, d = X.shape
        avg_rows(X, ledger, 0)
        avg_rows(Z[:, 0:1], ledger, 1)
        ledger[0] += 1
        S[0] += 1.0
        rounds_per_stage = int(hyper[2])
        if rounds_per_stage > 0 and int(S[0]) % rounds_per_stage == 0:
            S[1] += 1.0
            for k in range(K):
                for j in range(d):
                    Z[k, 1 + j] = X[k, j]


register(Algorithm(
    name="coda",
    citation="Guo et al., ICML 2020, CoDA (Algorithms 1-2); " + _ZHANG,
    init_step=coda_init, client_step=coda_client, sync_step=coda_sync,
    hyper=(HyperParam("prox_coef", 0.0, low_open=False, default=0.0,
                      doc="1/gamma, weight of the proximal term (0: none)"),
           HyperParam("stage_rounds", 0.0, low_open=False, default=0.0,
                      doc="communication rounds per stage (0: one stage); rounded down"),
           HyperParam("stage_decay", 1.0, low_open=False, default=3.0,
                      doc="step-size divisor between stages")),
    sizes=lambda d, dg: (d + 1, d + 1, 2),
    ledger_slots=("x", "y"),
    requires=("outer_grad_inner", "outer_grad_dual"),
    structures=("minimax",), tracks_inner=False,
    summary="CoDA: stagewise local SGDA on the (non-compositional) AUC min-max, x and alpha "
            "averaged every I"))


# --------------------------------------------------------------------------------------------
# LocalSGDAM
# --------------------------------------------------------------------------------------------
def localsgdam_init(data, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    eta = hyper[0]
    if eta * hyper[3] > 1.0 or eta * hyper[4] > 1.0:
        raise ValueError("localsgdam needs beta_x*eta and beta_y*eta in (0, 1]")
    K, d = X.shape
    for k in range(K):
        z = Z[k]
        key = sample_key(base, k, 0, 1)
        outer_grad_inner(data, k, X[k], z[0:1], key, exact, z[1:1 + d])
        outer_grad_dual(data, k, X[k], z[0:1], key, exact, z[1 + d:2 + d])


def localsgdam_client(data, phase, k, t, X, Y, Z, W, S, hyper, base, I, exact):
    d = X.shape[1]
    eta = hyper[0]
    sx = hyper[1] * eta
    sy = hyper[2] * eta
    wu = hyper[3] * eta
    wv = hyper[4] * eta
    x = X[k]
    z = Z[k]
    w = W[k]
    ydual = z[0:1]
    dx = z[1:1 + d]
    dy = z[1 + d:2 + d]
    for j in range(d):
        x[j] -= sx * dx[j]
    ydual[0] += sy * dy[0]
    key = sample_key(base, k, t + 1, 1)
    fu = w[:d]
    fd = w[d:d + 1]
    outer_grad_inner(data, k, x, ydual, key, exact, fu)
    outer_grad_dual(data, k, x, ydual, key, exact, fd)
    for j in range(d):
        dx[j] = (1.0 - wu) * dx[j] + wu * fu[j]
    dy[0] = (1.0 - wv) * dy[0] + wv * fd[0]


def localsgdam_sync(data, phase, t, is_round, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    if is_round:
        d = X.shape[1]
        avg_rows(X, ledger, 0)
        avg_rows(Z[:, 0:1], ledger, 1)
        avg_rows(Z[:, 1:1 + d], ledger, 2)
        avg_rows(Z[:, 1 + d:2 + d], ledger, 3)
        ledger[0] += 1


register(Algorithm(
    name="localsgdam",
    citation="Sharma et al., ICML 2022, Algorithm 2 (Momentum Local SGDA); " + _ZHANG,
    init_step=localsgdam_init, client_step=localsgdam_client, sync_step=localsgdam_sync,
    hyper=(HyperParam("gamma_x", default=1.0, doc="x step size factor (step gamma_x * eta)"),
           HyperParam("gamma_y", default=1.0, doc="dual step size factor (step gamma_y * eta)"),
           HyperParam("beta_x", default=1.0, doc="x-momentum weight factor (beta_x * eta)"),
           HyperParam("beta_y", default=1.0, doc="dual-momentum weight factor (beta_y * eta)")),
    sizes=lambda d, dg: (d + 2, d + 1, 0),
    ledger_slots=("x", "y", "u", "v"),
    requires=("outer_grad_inner", "outer_grad_dual"),
    structures=("minimax",), tracks_inner=False,
    summary="LocalSGDAM: momentum local SGDA on the (non-compositional) AUC min-max; x, alpha "
            "and both momenta averaged every I"))


# --------------------------------------------------------------------------------------------
# LocalSGDM
# --------------------------------------------------------------------------------------------
def localsgdm_init(data, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    pass


def localsgdm_client(data, phase, k, t, X, Y, Z, W, S, hyper, base, I, exact):
    d = X.shape[1]
    beta = hyper[1]
    x = X[k]
    u = Z[k]
    gr = W[k]
    ce_grad(data, k, x, sample_key(base, k, t, 0), exact, gr)
    for j in range(d):
        u[j] = beta * u[j] + gr[j]
        x[j] -= hyper[0] * u[j]


def localsgdm_sync(data, phase, t, is_round, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    if is_round:
        avg_rows(X, ledger, 0)
        avg_rows(Z, ledger, 1)
        ledger[0] += 1


register(Algorithm(
    name="localsgdm",
    citation="Yu, Jin, Yang, ICML 2019, Algorithm 1 (restarted SGD with momentum); " + _ZHANG,
    init_step=localsgdm_init, client_step=localsgdm_client, sync_step=localsgdm_sync,
    hyper=(HyperParam("momentum", 0.0, 1.0, low_open=False, high_open=True, default=0.9,
                      doc="heavy-ball momentum beta"),),
    sizes=lambda d, dg: (d, d, 0),
    ledger_slots=("x", "u"),
    requires=("ce_grad",),
    structures=("minimax",), tracks_inner=False,
    summary="LocalSGDM: local momentum SGD on the cross-entropy; x and the momentum averaged "
            "every I"))
