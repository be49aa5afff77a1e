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
cross-entropy of LocalSGDM.

State (:mod:`fedcomp.algorithms.spec`): x the model; y (the engine's inner estimate) is unused:
these methods keep no estimate of g (``tracks_inner=False``). Per client: ``dual`` (alpha, one
entry) for CoDA and LocalSGDAM; CoDA's ``vref`` (d), the stage's reference point v_{s-1}, which
every client sets from the averaged model it has just received (no upload), and the server's
counters ``rounds_done`` and ``stage`` (the step is eta / stage_decay^stage); LocalSGDAM's momenta
``u`` = d_x (d) and ``v`` = d_y (1); LocalSGDM's momentum ``u`` (d). Ledger slots: "x", "y" (the
dual alpha), and the momenta "u", "v"; one model round every I iterations.

Both backends (numba: one client; torch: all clients at once) take the same steps with the same
samples; both call the problem's ``outer_grads`` (both outer gradients at one sample; the numba
kernels' oracle of that name) and ``ce_grad``, and the torch steps project the dual after each
dual step with the problem's ``project_dual`` (a neural problem's AUC-M floor ``dual_floor``; the
simulator's kernels have no constraint on the dual, so the numba steps have none and the torch
projection does nothing on them).
"""
from fedcomp.algorithms._common import copy_into
from fedcomp.algorithms.base import Algorithm, HyperParam, register
from fedcomp.algorithms.localscgdam import step_sizes
from fedcomp.algorithms.oracles import ce_grad, outer_grads
from fedcomp.algorithms.spec import Average, ModelRound, Server, State, Steps
from fedcomp.rng import sample_key

_ZHANG = "cited as a baseline in Zhang et al. (AUC paper), section 6.1"


# --------------------------------------------------------------------------------------------
# CoDA
# --------------------------------------------------------------------------------------------
# --- numba: one client ------------------------------------------------------------------------
def coda_init(x, vref):
    """The first stage's reference point v_0 = x_0."""
    copy_into(vref, x)


def coda_client(data, k, t, x, dual, vref, fu, fd, eta, prox_coef, stage_decay, stage, base,
                exact):
    step = eta / stage_decay ** stage[0]
    key = sample_key(base, k, t, 1)
    outer_grads(data, k, x, dual, key, exact, fu, fd)
    for j in range(x.shape[0]):
        x[j] -= step * (fu[j] + prox_coef * (x[j] - vref[j]))
    dual[0] += step * fd[0]


def coda_stage(X, VREF, rounds_done, stage, stage_rounds):
    """After a round: a stage ends every ``stage_rounds`` rounds; then the reference point
    becomes the averaged model (every client has it) and the step is divided once more."""
    rounds_done[0] += 1.0
    rounds_per_stage = int(stage_rounds)
    if rounds_per_stage > 0 and int(rounds_done[0]) % rounds_per_stage == 0:
        stage[0] += 1.0
        for k in range(X.shape[0]):
            for j in range(X.shape[1]):
                VREF[k, j] = X[k, j]


# --- torch: all clients -----------------------------------------------------------------------
def coda_init_torch(x, vref):
    vref.copy_(x)


def coda_client_torch(p, t, x, dual, vref, eta, prox_coef, stage_decay, stage):
    step = eta / stage_decay ** float(stage[0])
    fu, fd = p.outer_grads(x, dual, p.key(t, 1))
    x -= step * (fu + prox_coef * (x - vref))
    dual += step * fd
    p.project_dual(dual)


def coda_stage_torch(X, VREF, rounds_done, stage, stage_rounds):
    rounds_done += 1.0
    rounds_per_stage = int(stage_rounds)
    if rounds_per_stage > 0 and int(rounds_done[0]) % rounds_per_stage == 0:
        stage += 1.0
        VREF.copy_(X)


register(Algorithm(
    name="coda",
    citation="Guo et al., ICML 2020, CoDA (Algorithms 1-2); " + _ZHANG,
    hyper=(HyperParam("prox_coef", 0.0, low_open=False, default=0.0,
                      doc="1/gamma, weight of the proximal term (0: none)"),
           HyperParam("stage_rounds", 0.0, low_open=False, default=0.0,
                      doc="communication rounds per stage (0: one stage); rounded down"),
           HyperParam("stage_decay", 1.0, low_open=False, default=3.0,
                      doc="step-size divisor between stages")),
    state=State(client={"dual": "1", "vref": "d"}, server={"rounds_done": "1", "stage": "1"},
                scratch={"fu": "d", "fd": "1"}),
    schedule=(Average(var="x"), Average(var="dual", slot="y"), ModelRound(),
              Server(numba=coda_stage, torch=coda_stage_torch,
                     doc="stage end: new reference point (the averaged model, no upload) and "
                         "a smaller step")),
    ledger_slots=("x", "y"),
    requires=("outer_grad_inner", "outer_grad_dual"),
    structures=("minimax",), tracks_inner=False,
    numba=Steps(coda_client, coda_init), torch=Steps(coda_client_torch, coda_init_torch),
    summary="CoDA: stagewise local SGDA on the (non-compositional) AUC min-max, x and alpha "
            "averaged every I"))


# --------------------------------------------------------------------------------------------
# LocalSGDAM
# --------------------------------------------------------------------------------------------
def _localsgdam_check(v):
    bad = {n: v["eta"] * v[n] for n in ("beta_x", "beta_y") if v["eta"] * v[n] > 1.0}
    if bad:
        raise ValueError("localsgdam needs beta_x*eta and beta_y*eta in (0, 1]; got "
                         f"{bad}")


# --- numba: one client ------------------------------------------------------------------------
def localsgdam_init(data, k, x, dual, u, v, base, exact):
    """d_x,0 and d_y,0: the stochastic gradients at (x_0, alpha_0)."""
    key = sample_key(base, k, 0, 1)
    outer_grads(data, k, x, dual, key, exact, u, v)


def localsgdam_client(data, k, t, x, dual, u, v, fu, fd, eta, gamma_x, gamma_y, beta_x, beta_y,
                      base, exact):
    d = x.shape[0]
    sx, sy, wu, wv = step_sizes(eta, gamma_x, gamma_y, beta_x, beta_y)
    for j in range(d):
        x[j] -= sx * u[j]
    dual[0] += sy * v[0]
    key = sample_key(base, k, t + 1, 1)
    outer_grads(data, k, x, dual, key, exact, fu, fd)
    for j in range(d):
        u[j] = (1.0 - wu) * u[j] + wu * fu[j]
    v[0] = (1.0 - wv) * v[0] + wv * fd[0]


# --- torch: all clients -----------------------------------------------------------------------
def localsgdam_init_torch(p, x, dual, u, v):
    fu, fd = p.outer_grads(x, dual, p.key(0, 1))
    u.copy_(fu)
    v.copy_(fd)


def localsgdam_client_torch(p, t, x, dual, u, v, eta, gamma_x, gamma_y, beta_x, beta_y):
    sx, sy, wu, wv = step_sizes(eta, gamma_x, gamma_y, beta_x, beta_y)
    x -= sx * u
    dual += sy * v
    p.project_dual(dual)
    fu, fd = p.outer_grads(x, dual, p.key(t + 1, 1))
    u.copy_((1.0 - wu) * u + wu * fu)
    v.copy_((1.0 - wv) * v + wv * fd)


register(Algorithm(
    name="localsgdam",
    citation="Sharma et al., ICML 2022, Algorithm 2 (Momentum Local SGDA); " + _ZHANG,
    hyper=(HyperParam("gamma_x", default=1.0, doc="x step size factor (step gamma_x * eta)"),
           HyperParam("gamma_y", default=1.0, doc="dual step size factor (step gamma_y * eta)"),
           HyperParam("beta_x", default=1.0, doc="x-momentum weight factor (beta_x * eta)"),
           HyperParam("beta_y", default=1.0, doc="dual-momentum weight factor (beta_y * eta)")),
    state=State(client={"dual": "1", "u": "d", "v": "1"}, scratch={"fu": "d", "fd": "1"}),
    schedule=(Average(var="x"), Average(var="dual", slot="y"), Average(var="u"),
              Average(var="v"), ModelRound()),
    ledger_slots=("x", "y", "u", "v"),
    check_hyper=_localsgdam_check,
    requires=("outer_grad_inner", "outer_grad_dual"),
    structures=("minimax",), tracks_inner=False,
    numba=Steps(localsgdam_client, localsgdam_init),
    torch=Steps(localsgdam_client_torch, localsgdam_init_torch),
    summary="LocalSGDAM: momentum local SGDA on the (non-compositional) AUC min-max; x, alpha "
            "and both momenta averaged every I"))


# --------------------------------------------------------------------------------------------
# LocalSGDM
# --------------------------------------------------------------------------------------------
def localsgdm_client(data, k, t, x, u, gr, eta, momentum, base, exact):
    ce_grad(data, k, x, sample_key(base, k, t, 0), exact, gr)
    for j in range(x.shape[0]):
        u[j] = momentum * u[j] + gr[j]
        x[j] -= eta * u[j]


def localsgdm_client_torch(p, t, x, u, eta, momentum):
    u.copy_(momentum * u + p.ce_grad(x, p.key(t, 0)))
    x -= eta * u


register(Algorithm(
    name="localsgdm",
    citation="Yu, Jin, Yang, ICML 2019, Algorithm 1 (restarted SGD with momentum); " + _ZHANG,
    hyper=(HyperParam("momentum", 0.0, 1.0, low_open=False, high_open=True, default=0.9,
                      doc="heavy-ball momentum beta"),),
    state=State(client={"u": "d"}, scratch={"gr": "d"}),
    schedule=(Average(var="x"), Average(var="u"), ModelRound()),
    ledger_slots=("x", "u"),
    requires=("ce_grad",),
    structures=("minimax",), tracks_inner=False,
    numba=Steps(localsgdm_client), torch=Steps(localsgdm_client_torch),
    summary="LocalSGDM: local momentum SGD on the cross-entropy; x and the momentum averaged "
            "every I"))
