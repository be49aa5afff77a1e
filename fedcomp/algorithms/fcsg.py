"""FCSG, FCSG-M and Acc-FCSG-M: Algorithms 1 and 2 of Wu et al., "Federated Conditional
Stochastic Optimization" (NeurIPS 2023; FCSG paper), for problem (1) (fedcomp structure
"local-inner" with the conditional oracles of :mod:`fedcomp.problems._conditional_kernels`).

Notation: the paper's alpha (step size) is fedcomp's ``eta``, q (local updates) is
``local_steps``, N is K; grad F^n(x; xi, B) is the gradient of estimator (3) (one outer sample, m
inner samples, the inner mean taken inside f), averaged over b outer samples: the kernel oracle
``cond_grad`` (m and b belong to the problem).

Algorithm 1, per client n (paper iteration t = 1..T):

* init (line 2): u_1^n = (1/B) sum_{i<=B} grad F^n(x_0; xi_{0,i}, B_{0,i})  (``init_batch`` B);
* lines 5-11: if t mod q == 0: u_t = (1/N) sum_n u_t^n, x_t = (1/N) sum_n (x_{t-1}^n - alpha u_t^n)
  (server); else x_t^n = x_{t-1}^n - alpha u_t^n;
* line 14 (FCSG):   u_{t+1}^n = (1/b) sum_i grad F^n(x_t^n; xi_{t,i}, B_{t,i});
* line 15 (FCSG-M): u_{t+1}^n = (1 - beta) u_t^n + (beta/b) sum_i grad F^n(x_t^n; xi_{t,i}, B_{t,i}).

Algorithm 2 (Acc-FCSG-M), line 14, the STORM-type estimator with the *same* samples at x_t^n and
x_{t-1}^n: u_{t+1}^n = grad F^n(x_t^n; S_t) + (1 - beta) (u_t^n - grad F^n(x_{t-1}^n; S_t)).

Engine mapping: engine iteration t (0-based) is the paper's iteration t + 1; its client step first
forms u_{t+1} from x_t (the current, post-synchronisation model) with the samples the paper draws
at iteration t (key ``sample_key(base, n, t, 0)``; B-batch of the initialisation:
``sample_key(base, n, 0, 1)``), then takes the local step; the sync step averages. At engine t = 0
u_1 comes from the initialisation.

Readings (the boxes leave them open):

* FCSG communicates x only ("the server collects local models"): averaging u_t in line 7 changes
  nothing for FCSG because u_{t+1} is recomputed from scratch, so the ledger books d floats per
  client per round. FCSG-M and Acc-FCSG-M communicate {x_t, u_t} (section 4.2): 2d floats.
* x_{t-1}^n in Algorithm 2 line 14 is the client's model at iteration t - 1 as it stood after that
  iteration's server update (the averaged model when t - 1 was a round), i.e. the point at which
  u_t was formed; x_{-1}^n = x_0 is never needed because u_1 comes from the initialisation.
* ``init_batch`` B is rounded down to an integer (Corollary 4.8 sets B = T^(1/3) / N^(2/3)).
* The paper's output is an iterate chosen uniformly at random; fedcomp records ||grad Phi(xbar_t)||^2
  along the run, whose average is that output's expected gap.
"""
from fedcomp.algorithms.base import Algorithm, HyperParam, register

_CITE = "Wu et al., FCSG paper (NeurIPS 2023)"
_BETA = HyperParam("beta", 0.0, 1.0, low_open=True, high_open=False,
                   doc="momentum weight beta of u (Algorithm 1 line 15 / Algorithm 2 line 14)")
_INIT_BATCH = HyperParam("init_batch", 1.0, 1e9, low_open=False, high_open=False, default=1.0,
                         doc="B, outer samples of the initial estimate u_1 (rounded down)")


def fcsg_init(data, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    # u_1^n = (1/B) sum_i grad F^n(x_0; xi_{0,i}, B_{0,i}); u lives in Z[:, :d]
    d = X.shape[1]
    nB = int(hyper[hyper.shape[0] - 1])
    for k in range(X.shape[0]):
        cond_grad_b(data, k, X[k], sample_key(base, k, 0, 1), exact, nB, Z[k, :d])


def fcsg_client(data, phase, k, t, X, Y, Z, W, S, hyper, base, I, exact):
    d = X.shape[1]
    x = X[k]
    u = Z[k, :d]
    if t > 0:
        cond_grad(data, k, x, sample_key(base, k, t, 0), exact, u)
    eta = hyper[0]
    for j in range(d):
        x[j] -= eta * u[j]


def fcsg_sync(data, phase, t, is_round, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    if is_round:
        avg_rows(X, ledger, 0)
        ledger[0] += 1


def fcsgm_client(data, phase, k, t, X, Y, Z, W, S, hyper, base, I, exact):
    d = X.shape[1]
    x = X[k]
    u = Z[k, :d]
    if t > 0:
        beta = hyper[1]
        g = W[k, :d]
        cond_grad(data, k, x, sample_key(base, k, t, 0), exact, g)
        for j in range(d):
            u[j] = (1.0 - beta) * u[j] + beta * g[j]
    eta = hyper[0]
    for j in range(d):
        x[j] -= eta * u[j]


def fcsgm_sync(data, phase, t, is_round, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    if is_round:
        d = X.shape[1]
        avg_rows(Z[:, :d], ledger, 1)
        avg_rows(X, ledger, 0)
        ledger[0] += 1


def accfcsgm_client(data, phase, k, t, X, Y, Z, W, S, hyper, base, I, exact):
    # Z[k] = [u (d), x_prev (d)]: x_prev is x_{t-1}^n, the point at which u_t was formed
    d = X.shape[1]
    x = X[k]
    u = Z[k, :d]
    xp = Z[k, d:2 * d]
    if t > 0:
        beta = hyper[1]
        g1 = W[k, :d]
        g0 = W[k, d:2 * d]
        key = sample_key(base, k, t, 0)
        cond_grad(data, k, x, key, exact, g1)
        cond_grad(data, k, xp, key, exact, g0)
        for j in range(d):
            u[j] = g1[j] + (1.0 - beta) * (u[j] - g0[j])
    eta = hyper[0]
    for j in range(d):
        xp[j] = x[j]
        x[j] -= eta * u[j]


register(Algorithm(
    name="fcsg", citation=_CITE + ", Algorithm 1 (FCSG, line 14), estimator (3)",
    init_step=fcsg_init, client_step=fcsg_client, sync_step=fcsg_sync,
    hyper=(_INIT_BATCH,), sizes=lambda d, dg: (d, 1, 0), ledger_slots=("x",),
    requires=("cond_grad", "cond_grad_b"), structures=("local-inner",), tracks_inner=False,
    summary="FCSG: local SGD with the biased conditional estimator (3), x averaged every q"))

register(Algorithm(
    name="fcsg-m", citation=_CITE + ", Algorithm 1 (FCSG-M, line 15), estimator (3)",
    init_step=fcsg_init, client_step=fcsgm_client, sync_step=fcsgm_sync,
    hyper=(_BETA, _INIT_BATCH), sizes=lambda d, dg: (d, d, 0), ledger_slots=("x", "u"),
    requires=("cond_grad", "cond_grad_b"), structures=("local-inner",), tracks_inner=False,
    summary="FCSG-M: momentum estimator u, x and u averaged every q"))

register(Algorithm(
    name="acc-fcsg-m", citation=_CITE + ", Algorithm 2 (Acc-FCSG-M, line 14), estimator (3)",
    init_step=fcsg_init, client_step=accfcsgm_client, sync_step=fcsgm_sync,
    hyper=(_BETA, _INIT_BATCH), sizes=lambda d, dg: (2 * d, 2 * d, 0), ledger_slots=("x", "u"),
    requires=("cond_grad", "cond_grad_b"), structures=("local-inner",), tracks_inner=False,
    summary="Acc-FCSG-M: STORM estimator with the same samples at x_t and x_{t-1}; x, u "
            "averaged every q"))
