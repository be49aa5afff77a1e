"""ComFedL: Algorithm 1 of Huang, Li and Huang, "Compositional Federated Learning" (arXiv
2106.11264; the journal version's Algorithm 1 is the same).

Problem (1), in fedcomp's notation: Phi(x) = (1/K) sum_k f_k(g_k(x)) (structure "local-inner";
ComFedL calls the inner map f^i and the outer g^i). Round s (tau = ``local_steps`` iterations):

* line 3-4: the server samples C_s, m = ``clients_per_round`` of the K clients uniformly without
  replacement, and broadcasts xbar_s; line 6: w_{s,0}^i = xbar_s;
* lines 8-13, every iteration t of the round and every i in C_s: inner batch B (b = ``batch``
  samples), outer batch B~ (b1 = ``outer_batch``), and the biased compositional gradient
  u = grad g_i(x; B) grad f_i(g_i(x; B); B~) -- ComFedL's grad g(f_B(w))^T grad f_B(w) -- with the
  *same* batch B for the inner value and its Jacobian (line 9); for the "special problem" with a
  deterministic outer function (robust FL (6)) the outer oracle ignores B~ (line 10);
* line 14: x <- x - eta u;
* lines 16-18: the m participants upload their models (d floats each) and the server averages
  them uniformly, xbar_{s+1} = (1/m) sum_{i in C_s} w_{s,tau}^i (not FedAvg's n_k-weighted mean:
  the journal version says so explicitly after Algorithm 1).

One definition for both backends (:mod:`fedcomp.algorithms.spec`): per-client state ``part``
(participation flag of the round: 1 for the clients of C_s, 0 for the others; the server's choice,
one entry per client), scratch ``v`` (grad f, d_g) and ``u`` (the direction, d); the schedule:
at init the server draws C_0 (:func:`comfedl_start`), every round the participants' models are
averaged (:func:`average_selected`, booked under "x"), one model round, and the server draws
C_{s+1} (:func:`comfedl_next_round`). The numba step runs per client, the torch step for the
participants at once; client selection is the same compiled helper (:func:`select_uniform`) in
both, so both backends pick the same clients for a seed.

Engine mapping and interpretations:

* The engine runs every client's step every iteration; a client not in C_s does nothing, so its
  row of X stays at xbar_s. C_s is drawn from the counter-based key ``sample_key(base, K, s, 0)``
  (a "client" index K that no real client has), so it does not depend on scheduling. After the
  average every row is set to xbar_{s+1} (the broadcast), so the engine's xbar is the server model
  at round boundaries; inside a round it is the mean over all K rows, not the paper's
  (1/m) sum over C_s: record with ``record_every`` a multiple of tau to measure the server
  models xbar_s of Theorems 1-2.
* Samples: B = ``sample_key(base, k, t, 0)``, B~ = ``sample_key(base, k, t, 1)``. The numba
  step takes lines 8-12 from the protocol's ``comp_grad_b`` (by default ``g_value_b``,
  ``f_grad_b``, ``g_vjp_b``; a problem may draw B once for the value and the Jacobian, with the
  same numbers); the torch step from ``g_linearize_b`` and ``f_grad_b``.
* ``clients_per_round = 0`` (default) means all K clients; other values must be integers in
  [1, K], ``batch`` and ``outer_batch`` integers >= 1 (a ValueError from the first step says so).
* With ``stochastic=False`` every oracle is exact (full client data / population), whatever b.
* Y[k] holds the last inner value g_k(x; B) of client k (for inspection; no estimate is tracked).
* Neural models with BatchNorm statistics: the model round averages the statistics of all K
  clients (the torch backend's :class:`~fedcomp.algorithms.spec.ModelRound`), the participants'
  and the others' (unchanged since the last broadcast).
"""
import numba as nb
import numpy as np

from fedcomp.algorithms.base import Algorithm, HyperParam, register
from fedcomp.algorithms.oracles import comp_grad_b
from fedcomp.algorithms.spec import ModelRound, Server, State, Steps
from fedcomp.rng import sample_key, uniform01

_CITE = "Huang, Li, Huang, Compositional Federated Learning (arXiv 2106.11264), Algorithm 1"

CLIENTS_PER_ROUND = HyperParam("clients_per_round", 0.0, np.inf, low_open=False, default=0.0,
                               doc="m, clients sampled per round (0 = all K)")
BATCH = HyperParam("batch", 1.0, np.inf, low_open=False, default=1.0,
                   doc="b, inner minibatch size")
OUTER_BATCH = HyperParam("outer_batch", 1.0, np.inf, low_open=False, default=1.0,
                         doc="b1, outer minibatch size")


# --- helpers of both backends (compiled into the numba steps; host_* run them for torch) -----
def check_count(value, K):
    """Integer m in [0, K] (0 = all); returns the effective count."""
    if value != np.floor(value) or value > K:
        raise ValueError("clients_per_round must be an integer in [1, num_clients] "
                         "(0 means all clients)")
    m = np.int64(value)
    if m == 0:
        m = K
    return m


def check_batch(value):
    if value != np.floor(value) or value < 1.0:
        raise ValueError("batch and outer_batch must be integers >= 1")
    return np.int64(value)


def select_uniform(part, m, key):
    """part[k, 0] = 1 for m clients drawn uniformly without replacement (the m smallest of the
    uniforms uniform01(key, k)), 0 for the others."""
    K = part.shape[0]
    if m >= K:
        for k in range(K):
            part[k, 0] = 1.0
        return
    u = np.empty(K)
    for k in range(K):
        u[k] = uniform01(key, k)
        part[k, 0] = 0.0
    order = np.argsort(u)
    for i in range(m):
        part[order[i], 0] = 1.0


def average_selected(X, part, ledger, slot):
    """Participants (part[k, 0] = weight > 0) upload rows; all rows <- their weighted mean."""
    K, d = X.shape
    tot = 0.0
    n_up = 0
    for k in range(K):
        if part[k, 0] > 0.0:
            tot += part[k, 0]
            n_up += 1
    for j in range(d):
        s = 0.0
        for k in range(K):
            if part[k, 0] > 0.0:
                s += part[k, 0] * X[k, j]
        s /= tot
        for k in range(K):
            X[k, j] = s
    ledger[1 + slot] += n_up * d


#: the server-side helpers compiled on their own, for the torch steps: the participation flags
#: are K numbers that the server draws, so the torch backend draws them with the same code
host_select_uniform = nb.njit(cache=True)(select_uniform)


def host_flags(part, select, *args):
    """Run a compiled selection helper ``select(flags, *args)`` on a copy of the (K, n) tensor
    ``part`` and write the result back (the torch steps' client sampling)."""
    flags = part.detach().cpu().numpy().copy()
    select(flags, *args)
    part.copy_(part.new_tensor(flags))


def active(part):
    """Indices of the clients taking part this round (part[k, 0] > 0), an index tensor."""
    return (part[:, 0] > 0).nonzero().flatten()


def average_selected_torch(X, part, ledger, slot):
    """:func:`average_selected` on tensors."""
    on = active(part)
    w = part[on, 0]
    X[:] = (w[:, None] * X[on]).sum(0) / w.sum()
    ledger[1 + slot] += len(on) * X.shape[1]


# --- numba: one client; server functions over all rows -----------------------------------
def comfedl_start(K, PART, clients_per_round, batch, outer_batch, base):
    """Lines 3-4 of round 0: the server samples C_0 (after checking the integer settings)."""
    m = check_count(clients_per_round, K)
    check_batch(batch)
    check_batch(outer_batch)
    select_uniform(PART, m, sample_key(base, K, 0, 0))


def comfedl_client(data, k, t, x, y, part, v, u, eta, batch, outer_batch, base, exact):
    """Lines 8-14 for a participant: u = grad g_k(x; B) grad f_k(g_k(x; B); B~); x -= eta u."""
    if part[0] == 0.0:
        return
    nb_in = np.int64(batch)
    nb_out = np.int64(outer_batch)
    comp_grad_b(data, k, x, sample_key(base, k, t, 0), sample_key(base, k, t, 1), exact, nb_in,
                nb_out, y, v, u)
    for j in range(x.shape[0]):
        x[j] -= eta * u[j]


def comfedl_average(X, PART, ledger):
    """Lines 16-18: the participants upload their models; uniform mean, broadcast."""
    average_selected(X, PART, ledger, 0)


def comfedl_next_round(K, t, I, PART, clients_per_round, base):
    """Lines 3-4 of round s + 1: C_{s+1} from sample_key(base, K, s + 1, 0)."""
    select_uniform(PART, check_count(clients_per_round, K), sample_key(base, K, (t + 1) // I, 0))


# --- torch: the participants at once ------------------------------------------------------
def comfedl_start_torch(p, K, PART, clients_per_round, batch, outer_batch):
    m = check_count(clients_per_round, K)
    check_batch(batch)
    check_batch(outer_batch)
    host_flags(PART, host_select_uniform, m, p.server_key(0, 0))


def comfedl_client_torch(p, t, x, y, part, eta, batch, outer_batch):
    on = active(part)
    y_on, vjp = p.g_linearize_b(x[on], p.key(t, 0), int(batch), on)
    v = p.f_grad_b(y_on, p.key(t, 1), int(outer_batch), on)
    y[on] = y_on
    x[on] = x[on] - eta * vjp(v)


def comfedl_average_torch(X, PART, ledger):
    average_selected_torch(X, PART, ledger, 0)


def comfedl_next_round_torch(p, K, t, I, PART, clients_per_round):
    host_flags(PART, host_select_uniform, check_count(clients_per_round, K),
               p.server_key((t + 1) // I, 0))


register(Algorithm(
    name="comfedl", citation=_CITE + ", lines 3-18; gradient (11)",
    hyper=(CLIENTS_PER_ROUND, BATCH, OUTER_BATCH),
    state=State(client={"part": "1"}, scratch={"v": "dg", "u": "d"}),
    schedule=(Server(when="init", numba=comfedl_start, torch=comfedl_start_torch,
                     doc="the server samples C_0 (no upload)"),
              Server(numba=comfedl_average, torch=comfedl_average_torch, books=("x",),
                     doc="the m participants upload their models (d floats each); uniform mean"),
              ModelRound(),
              Server(numba=comfedl_next_round, torch=comfedl_next_round_torch,
                     doc="the server samples C_{s+1} (no upload)")),
    ledger_slots=("x",),
    numba=Steps(comfedl_client), torch=Steps(comfedl_client_torch),
    requires=("g_value_b", "g_vjp_b", "f_grad_b"), structures=("local-inner",),
    tracks_inner=False,
    summary="ComFedL: m sampled clients run tau local steps with the biased compositional "
            "gradient (inner batch b, outer batch b1); uniform model average"))
