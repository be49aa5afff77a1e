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

Engine mapping (structure ``"minimax"``): X = x; Y = h (the inner estimate, d_g = d); the dual y
and the momenta live in Z[k] = [y (1), u (d), v (1)] (the AUC problem's dual is a scalar,
``DUAL_DIM = 1``). Ledger slots: "x", "y" (the *dual* variable here), "u", "v", "h" (the inner
estimate): per round each client uploads d + 1 + d + 1 + d_g floats.

Samples: xi_t^(k) is ``sample_key(base, k, t, 0)`` (value and Jacobian of g share it, as (11) and
(12) do); zeta_t^(k) is ``sample_key(base, k, t, 1)`` (both outer gradients share it, as (12)
does). Iteration t of the engine computes the quantities of index t + 1.

Oracles used (see :mod:`fedcomp.problems._auc_kernels`): g_value, g_vjp, outer_grad_inner,
outer_grad_dual.

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


def _check_hyper(v):
    bad = {n: v["eta"] * v[n] for n in ("alpha", "beta_x", "beta_y") if v["eta"] * v[n] > 1.0}
    if bad:
        raise ValueError("localscgdam needs alpha*eta, beta_x*eta and beta_y*eta in (0, 1] "
                         f"(AUC paper, Algorithm 1 input); got {bad}")


def localscgdam_init(data, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    K, d = X.shape
    for k in range(K):
        key_xi = sample_key(base, k, 0, 0)
        key_zeta = sample_key(base, k, 0, 1)
        z = Z[k]
        w = W[k]
        ydual = z[0:1]
        g_value(data, k, X[k], key_xi, exact, Y[k])
        outer_grad_inner(data, k, Y[k], ydual, key_zeta, exact, w[:d])
        g_vjp(data, k, X[k], w[:d], key_xi, exact, z[1:1 + d])
        outer_grad_dual(data, k, Y[k], ydual, key_zeta, exact, z[1 + d:2 + d])


def localscgdam_client(data, phase, k, t, X, Y, Z, W, S, hyper, base, I, exact):
    d = X.shape[1]
    eta = hyper[0]
    sx = hyper[1] * eta
    sy = hyper[2] * eta
    wh = hyper[3] * eta
    wu = hyper[4] * eta
    wv = hyper[5] * eta
    x = X[k]
    h = Y[k]
    z = Z[k]
    w = W[k]
    ydual = z[0:1]
    u = z[1:1 + d]
    v = z[1 + d:2 + d]
    # (13)
    for j in range(d):
        x[j] -= sx * u[j]
    ydual[0] += sy * v[0]
    key_xi = sample_key(base, k, t + 1, 0)
    key_zeta = sample_key(base, k, t + 1, 1)
    # (11)
    gv = w[:d]
    g_value(data, k, x, key_xi, exact, gv)
    for j in range(h.shape[0]):
        h[j] = (1.0 - wh) * h[j] + wh * gv[j]
    # (12)
    fu = w[:d]
    gx = w[d:2 * d]
    outer_grad_inner(data, k, h, ydual, key_zeta, exact, fu)
    g_vjp(data, k, x, fu, key_xi, exact, gx)
    for j in range(d):
        u[j] = (1.0 - wu) * u[j] + wu * gx[j]
    fd = w[2 * d:2 * d + 1]
    outer_grad_dual(data, k, h, ydual, key_zeta, exact, fd)
    v[0] = (1.0 - wv) * v[0] + wv * fd[0]


def localscgdam_sync(data, phase, t, is_round, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    if is_round:
        d = X.shape[1]
        avg_rows(X, ledger, 0)
        avg_rows(Z[:, 0:1], ledger, 1)
        avg_rows(Z[:, 1:1 + d], ledger, 2)
        avg_rows(Z[:, 1 + d:2 + d], ledger, 3)
        avg_rows(Y, ledger, 4)
        ledger[0] += 1


register(Algorithm(
    name="localscgdam",
    citation="Zhang et al., Federated Compositional Deep AUC Maximization (NeurIPS 2023), "
             "Algorithm 1, eqs. (11)-(14)",
    init_step=localscgdam_init, client_step=localscgdam_client, sync_step=localscgdam_sync,
    hyper=(HyperParam("gamma_x", default=1.0, doc="x step size factor (step gamma_x * eta)"),
           HyperParam("gamma_y", default=1.0, doc="dual step size factor (step gamma_y * eta)"),
           HyperParam("alpha", default=1.0, doc="inner moving-average weight factor (alpha*eta)"),
           HyperParam("beta_x", default=1.0, doc="x-momentum weight factor (beta_x * eta)"),
           HyperParam("beta_y", default=1.0, doc="dual-momentum weight factor (beta_y * eta)")),
    sizes=lambda d, dg: (d + 2, 2 * d + 1, 0),
    ledger_slots=("x", "y", "u", "v", "h"),
    check_hyper=_check_hyper,
    requires=("g_value", "g_vjp", "outer_grad_inner", "outer_grad_dual"),
    structures=("minimax",),
    summary="LocalSCGDAM: moving-average inner estimate h, momenta u, v; x, y, u, v, h "
            "averaged every p = local_steps iterations"))
