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
``sample_key(base, n, 0, 1)``), then takes the local step; the schedule then averages. At engine
t = 0 u_1 comes from the initialisation.

One definition (:mod:`fedcomp.algorithms.spec`), numba step of one client beside the torch step of
all clients (same order, same keys):

* state: per client the model ``x`` and the estimator ``u`` (d); Acc-FCSG-M also ``x_prev`` (d),
  x_{t-1}^n; the engine's ``y`` is unused (``tracks_inner=False``). Compiled scratch: ``g`` (FCSG-M)
  and ``g1``, ``g0`` (Acc-FCSG-M), the estimator (3) at x_t and at x_{t-1};
* schedule, every q iterations: FCSG averages x (ledger slot "x", d floats per client); FCSG-M and
  Acc-FCSG-M average x and u (slots "x" and "u"); one model round;
* oracles: ``cond_grad`` (estimator (3) with the problem's outer batch b), ``cond_grad2``
  (Acc-FCSG-M: the same at x_t and x_{t-1} on one draw of the samples; the protocol's default is
  two ``cond_grad`` calls, the same numbers) and ``cond_grad_b`` (B outer samples, the
  initialisation), all of :mod:`fedcomp.problems._conditional_kernels`;
  the torch steps call them through ``p`` (the torch form of
  :class:`fedcomp.problems.InvariantLogistic`, or the neural ConditionalAUPRC and MAMLProblem,
  whose ``cond_grad_b`` takes B outer samples / tasks).

Readings (the boxes leave them open):

* FCSG communicates x only ("the server collects local models"): averaging u_t in line 7 changes
  nothing for FCSG because u_{t+1} is recomputed from scratch, so the ledger books d floats per
  client per round. FCSG-M and Acc-FCSG-M communicate {x_t, u_t} (section 4.2): 2d floats.
* x_{t-1}^n in Algorithm 2 line 14 is the client's model at iteration t - 1 as it stood after that
  iteration's server update (the averaged model when t - 1 was a round), i.e. the point at which
  u_t was formed; x_{-1}^n = x_0 is never needed because u_1 comes from the initialisation.
* ``init_batch`` B is rounded down to an integer (Corollary 4.8 sets B = T^(1/3) / N^(2/3));
  default 1. The neural experiments pass B = b (the problem's own outer batch).
* The paper's output is an iterate chosen uniformly at random; fedcomp records ||grad Phi(xbar_t)||^2
  along the run, whose average is that output's expected gap.
"""
from fedcomp.algorithms._common import copy_into, moving_average
from fedcomp.algorithms.base import Algorithm, HyperParam, register
from fedcomp.algorithms.oracles import cond_grad, cond_grad2, cond_grad_b
from fedcomp.algorithms.spec import Average, ModelRound, State, Steps
from fedcomp.rng import sample_key

_CITE = "Wu et al., FCSG paper (NeurIPS 2023)"
_BETA = HyperParam("beta", 0.0, 1.0, low_open=True, high_open=False,
                   doc="momentum weight beta of u (Algorithm 1 line 15 / Algorithm 2 line 14)")
_INIT_BATCH = HyperParam("init_batch", 1.0, 1e9, low_open=False, high_open=False, default=1.0,
                         doc="B, outer samples of the initial estimate u_1 (rounded down)")


# --- numba: one client --------------------------------------------------------------------
def fcsg_init(data, k, x, u, init_batch, base, exact):
    """Line 2: u_1^n = (1/B) sum_{i<=B} grad F^n(x_0; xi_{0,i}, B_{0,i})."""
    cond_grad_b(data, k, x, sample_key(base, k, 0, 1), exact, int(init_batch), u)


def local_step(x, u, eta):
    """x_{t+1}^n = x_t^n - alpha u_{t+1}^n (lines 9-11; the schedule averages at a round)."""
    for j in range(x.shape[0]):
        x[j] -= eta * u[j]


def fcsg_client(data, k, t, x, u, eta, base, exact):
    # line 14: u_{t+1} = (3) at x_t, on the samples of iteration t
    if t > 0:
        cond_grad(data, k, x, sample_key(base, k, t, 0), exact, u)
    local_step(x, u, eta)


def fcsgm_client(data, k, t, x, u, g, eta, beta, base, exact):
    # line 15: u_{t+1} = (1 - beta) u_t + beta (3) at x_t
    if t > 0:
        cond_grad(data, k, x, sample_key(base, k, t, 0), exact, g)
        moving_average(u, beta, g)
    local_step(x, u, eta)


def accfcsgm_client(data, k, t, x, u, x_prev, g1, g0, eta, beta, base, exact):
    # Algorithm 2 line 14, the same samples S_t at x_t and at x_prev = x_{t-1}, the point at
    # which u_t was formed
    if t > 0:
        cond_grad2(data, k, x, x_prev, sample_key(base, k, t, 0), exact, g1, g0)
        for j in range(x.shape[0]):
            u[j] = g1[j] + (1.0 - beta) * (u[j] - g0[j])
    copy_into(x_prev, x)
    local_step(x, u, eta)


# --- torch: all clients -------------------------------------------------------------------
def fcsg_init_torch(p, x, u, init_batch):
    u.copy_(p.cond_grad_b(x, p.key(0, 1), int(init_batch)))


def fcsg_client_torch(p, t, x, u, eta):
    if t > 0:
        u.copy_(p.cond_grad(x, p.key(t, 0)))
    x -= eta * u


def fcsgm_client_torch(p, t, x, u, eta, beta):
    if t > 0:
        u.copy_((1.0 - beta) * u + beta * p.cond_grad(x, p.key(t, 0)))
    x -= eta * u


def accfcsgm_client_torch(p, t, x, u, x_prev, eta, beta):
    if t > 0:
        key = p.key(t, 0)
        g1 = p.cond_grad(x, key)
        g0 = p.cond_grad(x_prev, key)
        u.copy_(g1 + (1.0 - beta) * (u - g0))
    x_prev.copy_(x)
    x -= eta * u


_REQ = ("cond_grad", "cond_grad_b")
# FCSG uploads x only (u is recomputed from scratch after a round); the momentum variants x and u
_X_ONLY = (Average(var="x"), ModelRound())
_X_AND_U = (Average(var="x"), Average(var="u"), ModelRound())

register(Algorithm(
    name="fcsg", citation=_CITE + ", Algorithm 1 (FCSG, line 14), estimator (3)",
    hyper=(_INIT_BATCH,), state=State(client={"u": "d"}), schedule=_X_ONLY,
    ledger_slots=("x",), requires=_REQ, structures=("local-inner",), tracks_inner=False,
    numba=Steps(fcsg_client, fcsg_init), torch=Steps(fcsg_client_torch, fcsg_init_torch),
    summary="FCSG: local SGD with the biased conditional estimator (3), x averaged every q"))

register(Algorithm(
    name="fcsg-m", citation=_CITE + ", Algorithm 1 (FCSG-M, line 15), estimator (3)",
    hyper=(_BETA, _INIT_BATCH), state=State(client={"u": "d"}, scratch={"g": "d"}),
    schedule=_X_AND_U, ledger_slots=("x", "u"), requires=_REQ, structures=("local-inner",),
    tracks_inner=False,
    numba=Steps(fcsgm_client, fcsg_init), torch=Steps(fcsgm_client_torch, fcsg_init_torch),
    summary="FCSG-M: momentum estimator u, x and u averaged every q"))

register(Algorithm(
    name="acc-fcsg-m", citation=_CITE + ", Algorithm 2 (Acc-FCSG-M, line 14), estimator (3)",
    hyper=(_BETA, _INIT_BATCH),
    state=State(client={"u": "d", "x_prev": "d"}, scratch={"g1": "d", "g0": "d"}),
    schedule=_X_AND_U, ledger_slots=("x", "u"), requires=_REQ, structures=("local-inner",),
    tracks_inner=False,
    numba=Steps(accfcsgm_client, fcsg_init), torch=Steps(accfcsgm_client_torch, fcsg_init_torch),
    summary="Acc-FCSG-M: STORM estimator with the same samples at x_t and x_{t-1}; x, u "
            "averaged every q"))
