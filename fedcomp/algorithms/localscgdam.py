"""LocalSCGDAM: Algorithm 1 of Zhang et al., "Federated Compositional Deep AUC Maximization"
(NeurIPS 2023; AUC paper), local stochastic compositional gradient descent ascent with momentum
for min_x max_y (1/K) sum_k f^(k)((1/K) sum_k' g^(k')(x), y) (AUC paper (4)).

Per client k (the paper's indices; eta is the engine's ``eta``):

* (13)  x_{t+1} = x_t - gamma_x eta u_t,        y_{t+1} = y_t + gamma_y eta v_t
* (11)  h_{t+1} = (1 - alpha eta) h_t + alpha eta g^(k)(x_{t+1}; xi_{t+1})
* (12)  u_{t+1} = (1 - beta_x eta) u_t + beta_x eta grad g^(k)(x_{t+1}; xi_{t+1})^T
                                                  grad_g f^(k)(h_{t+1}, y_{t+1}; zeta_{t+1})
        v_{t+1} = (1 - beta_y eta) v_t + beta_y eta grad_y f^(k)(h_{t+1}, y_{t+1}; zeta_{t+1})
* (14) and step 6: when (t + 1) mod p == 0 (p = ``local_steps``), x, y, u, v and h are each
  replaced by their mean over the clients (one model round).

Initialisation (the box's first lines): x_0^(k) = x_0, y_0^(k) = y_0 = 0,
h_0 = g^(k)(x_0; xi_0), u_0 = grad g^(k)(x_0; xi_0)^T grad_g f^(k)(h_0, y_0; zeta_0),
v_0 = grad_y f^(k)(h_0, y_0; zeta_0); nothing is averaged at t = 0 (the box averages only when
mod(t+1, p) == 0).

Hyperparameters (names as in the paper): ``eta`` (engine) = eta, ``gamma_x``, ``gamma_y`` (the
step sizes are gamma_x eta and gamma_y eta), ``alpha`` (inner moving-average weight alpha eta),
``beta_x``, ``beta_y`` (momentum weights beta_x eta, beta_y eta). The paper requires alpha eta,
beta_x eta, beta_y eta in (0, 1); we accept (0, 1] (weight 1 = no memory, the limit the theorem's
eta <= min{1/alpha, 1/beta_x, 1/beta_y} allows) and raise ValueError otherwise.

State (:mod:`fedcomp.algorithms.spec`, structure ``"minimax"``): x the model; y the inner
estimate h (d_g = d), so the engine's recorded inner error is ||hbar - g(xbar)||; per-client
``dual`` (the paper's y, ``DUAL_DIM = 1`` entry for the AUC problem), ``u`` (d) and ``v`` (1),
the momenta of (12). Schedule: every p iterations x, dual, u, v and h are averaged, booked under
the ledger slots "x", "y" (the *dual* variable: the paper's name), "u", "v" and "h" (the inner
estimate): per round each client uploads d + 1 + d + 1 + d_g floats; one model round.

Samples: xi_t^(k) is ``sample_key(base, k, t, 0)`` (value and Jacobian of g share it, as (11) and
(12) do); zeta_t^(k) is ``sample_key(base, k, t, 1)`` (both outer gradients share it, as (12)
does). Iteration t of the engine computes the quantities of index t + 1.

Both backends (numba: one client; torch: all clients at once) take the same steps with the same
samples. The torch step calls the problem's ``inner_linearize`` (g and its transposed-Jacobian
product from one pass at one sample, the kernels' g_value and g_vjp with one key) and
``outer_grads`` (both outer gradients at one sample, like the numba step's oracle of that name),
and projects the dual after its step with the problem's ``project_dual`` (a neural problem's
AUC-M floor, ``dual_floor``; the simulator's kernels have no constraint, so the numba step has no
projection and on them the torch projection does nothing).

Oracles used (see :mod:`fedcomp.problems._auc_kernels`): g_value, g_vjp, outer_grads (both outer
gradients at one sample; a problem without it gets outer_grad_inner and outer_grad_dual called
in turn, :mod:`fedcomp.engine.defaults`).

Findings (measured on :class:`fedcomp.problems.AUCMinimax`, see
:mod:`fedcomp.rates.auc`, judged in :mod:`fedcomp.checks.own` and :mod:`fedcomp.checks.zhang`):

* The client-k direction grad g^(k)(x)^T grad_g f^(k)(h, y) of (12) averages over clients to
  (1/K) sum_k J_k^T grad f^(k), while grad Phi of problem (4) is Jbar^T (1/K) sum_k grad f^(k):
  with clients differing in both their inner Jacobians and their outer gradients the two differ
  (claim ``fedcomp.localscgdam-bias``), so stationary points of Phi are not fixed points of the
  algorithm, even with exact oracles and p = 1. A second, eta-dependent offset comes from the
  order of the box: u and v use the client's own h_{t+1}^(k) before (14) averages it.
* Timescales: with beta_x = beta_y = alpha = 1 and gamma_y >> gamma_x the exact dynamics can
  cycle or blow up; Theorem 1's conditions ask for strongly damped momenta
  (gamma_y <= 3 mu beta_y^2 / (400 L_f^2)), e.g. alpha = beta_x = beta_y = 8, gamma_y = 4.
* alpha*eta, beta_x*eta and beta_y*eta must lie in (0, 1] (Algorithm 1's input): checked in
  Python by ``check_hyper`` before any run, for ``simulate`` and ``simulate_many`` alike.
"""
from fedcomp.algorithms.base import Algorithm, HyperParam, register
from fedcomp.algorithms.oracles import g_value, g_vjp, outer_grads
from fedcomp.algorithms.spec import Average, ModelRound, State, Steps
from fedcomp.rng import sample_key


def step_sizes(eta, gamma_x, gamma_y, beta_x, beta_y):
    """(13)-(14)'s step sizes gamma_x eta, gamma_y eta and momentum weights beta_x eta,
    beta_y eta (shared with LocalSGDAM, fedcomp.algorithms.auc_baselines)."""
    return gamma_x * eta, gamma_y * eta, beta_x * eta, beta_y * eta


def _check_hyper(v):
    bad = {n: v["eta"] * v[n] for n in ("alpha", "beta_x", "beta_y") if v["eta"] * v[n] > 1.0}
    if bad:
        raise ValueError("localscgdam needs alpha*eta, beta_x*eta and beta_y*eta in (0, 1] "
                         f"(AUC paper, Algorithm 1 input); got {bad}")


# --- numba: one client --------------------------------------------------------------------
def localscgdam_init(data, k, x, y, dual, u, v, fu, base, exact):
    """h_0 = g(x_0; xi_0), u_0 = grad g(x_0; xi_0)^T grad_g f(h_0, y_0; zeta_0),
    v_0 = grad_y f(h_0, y_0; zeta_0)."""
    key_xi = sample_key(base, k, 0, 0)
    key_zeta = sample_key(base, k, 0, 1)
    h = y
    g_value(data, k, x, key_xi, exact, h)
    outer_grads(data, k, h, dual, key_zeta, exact, fu, v)
    g_vjp(data, k, x, fu, key_xi, exact, u)


def localscgdam_client(data, k, t, x, y, dual, u, v, gv, fu, gx, fd, eta, gamma_x, gamma_y,
                       alpha, beta_x, beta_y, base, exact):
    d = x.shape[0]
    h = y
    sx, sy, wu, wv = step_sizes(eta, gamma_x, gamma_y, beta_x, beta_y)
    wh = alpha * eta
    # (13)
    for j in range(d):
        x[j] -= sx * u[j]
    dual[0] += sy * v[0]
    key_xi = sample_key(base, k, t + 1, 0)
    key_zeta = sample_key(base, k, t + 1, 1)
    # (11)
    g_value(data, k, x, key_xi, exact, gv)
    for j in range(h.shape[0]):
        h[j] = (1.0 - wh) * h[j] + wh * gv[j]
    # (12): both outer gradients at zeta_{t+1} (one draw), then the transposed Jacobian at xi_{t+1}
    outer_grads(data, k, h, dual, key_zeta, exact, fu, fd)
    g_vjp(data, k, x, fu, key_xi, exact, gx)
    for j in range(d):
        u[j] = (1.0 - wu) * u[j] + wu * gx[j]
    v[0] = (1.0 - wv) * v[0] + wv * fd[0]


# --- torch: all clients -------------------------------------------------------------------
def localscgdam_init_torch(p, x, y, dual, u, v):
    key_xi = p.key(0, 0)
    gv, vjp = p.inner_linearize(x, key_xi)
    y.copy_(gv)
    fu, fd = p.outer_grads(y, dual, p.key(0, 1))
    u.copy_(vjp(fu))
    v.copy_(fd)


def localscgdam_client_torch(p, t, x, y, dual, u, v, eta, gamma_x, gamma_y, alpha, beta_x,
                             beta_y):
    h = y
    sx, sy, wu, wv = step_sizes(eta, gamma_x, gamma_y, beta_x, beta_y)
    wh = alpha * eta
    # (13)
    x -= sx * u
    dual += sy * v
    p.project_dual(dual)
    # (11)
    gv, vjp = p.inner_linearize(x, p.key(t + 1, 0))
    h.copy_((1.0 - wh) * h + wh * gv)
    # (12)
    fu, fd = p.outer_grads(h, dual, p.key(t + 1, 1))
    u.copy_((1.0 - wu) * u + wu * vjp(fu))
    v.copy_((1.0 - wv) * v + wv * fd)


register(Algorithm(
    name="localscgdam",
    citation="Zhang et al., Federated Compositional Deep AUC Maximization (NeurIPS 2023), "
             "Algorithm 1, eqs. (11)-(14)",
    hyper=(HyperParam("gamma_x", default=1.0, doc="x step size factor (step gamma_x * eta)"),
           HyperParam("gamma_y", default=1.0, doc="dual step size factor (step gamma_y * eta)"),
           HyperParam("alpha", default=1.0, doc="inner moving-average weight factor (alpha*eta)"),
           HyperParam("beta_x", default=1.0, doc="x-momentum weight factor (beta_x * eta)"),
           HyperParam("beta_y", default=1.0, doc="dual-momentum weight factor (beta_y * eta)")),
    state=State(client={"dual": "1", "u": "d", "v": "1"},
                scratch={"gv": "dg", "fu": "dg", "gx": "d", "fd": "1"}),
    # (14) and step 6: x, y (the dual), u, v and h averaged when (t + 1) mod p == 0
    schedule=(Average(var="x"), Average(var="dual", slot="y"), Average(var="u"),
              Average(var="v"), Average(var="y", slot="h"), ModelRound()),
    ledger_slots=("x", "y", "u", "v", "h"),
    check_hyper=_check_hyper,
    requires=("g_value", "g_vjp", "outer_grad_inner", "outer_grad_dual"),
    structures=("minimax",),
    numba=Steps(localscgdam_client, localscgdam_init),
    torch=Steps(localscgdam_client_torch, localscgdam_init_torch),
    summary="LocalSCGDAM: moving-average inner estimate h, momenta u, v; x, y, u, v, h "
            "averaged every p = local_steps iterations"))
