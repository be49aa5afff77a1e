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

Engine mapping and interpretations:

* The engine runs every client's step every iteration; a client not in C_s does nothing, so its
  row of X stays at xbar_s. Participation flags live in Z[k, 0] (the server's choice, one entry
  per client: the algorithm's ``sizes`` only know d and d_g, so a K-vector cannot live in S).
  C_s is drawn from the counter-based key ``sample_key(base, K, s, 0)`` (a "client" index K that no
  real client has), so it does not depend on scheduling. After the average every row is set to
  xbar_{s+1} (the broadcast), so the engine's xbar is the server model at round boundaries;
  inside a round it is the mean over all K rows, not the paper's (1/m) sum over C_s: record with
  ``record_every`` a multiple of tau to measure the server models xbar_s of Theorems 1-2.
* Samples: B = ``sample_key(base, k, t, 0)``, B~ = ``sample_key(base, k, t, 1)``.
* ``clients_per_round = 0`` (default) means all K clients; other values must be integers in
  [1, K], ``batch`` and ``outer_batch`` integers >= 1 (a ValueError from the first step says so).
* With ``stochastic=False`` every oracle is exact (full client data / population), whatever b.
* Y[k] holds the last inner value g_k(x; B) of client k (for inspection; no estimate is tracked).
"""
import numpy as np

from fedcomp.algorithms.base import Algorithm, HyperParam, register

_CITE = "Huang, Li, Huang, Compositional Federated Learning (arXiv 2106.11264), Algorithm 1"

CLIENTS_PER_ROUND = HyperParam("clients_per_round", 0.0, np.inf, low_open=False, default=0.0,
                               doc="m, clients sampled per round (0 = all K)")
BATCH = HyperParam("batch", 1.0, np.inf, low_open=False, default=1.0,
                   doc="b, inner minibatch size")
OUTER_BATCH = HyperParam("outer_batch", 1.0, np.inf, low_open=False, default=1.0,
                         doc="b1, outer minibatch size")


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


def select_uniform(Z, m, key):
    """Z[k, 0] = 1 for m clients drawn uniformly without replacement, 0 for the others."""
    K = Z.shape[0]
    if m >= K:
        for k in range(K):
            Z[k, 0] = 1.0
        return
    u = np.empty(K)
    for k in range(K):
        u[k] = uniform01(key, k)
        Z[k, 0] = 0.0
    order = np.argsort(u)
    for i in range(m):
        Z[order[i], 0] = 1.0


def average_selected(X, Z, ledger, slot):
    """Participants (Z[k,0] = multiplicity > 0) upload rows; all rows <- their weighted mean."""
    K, d = X.shape
    tot = 0.0
    n_up = 0
    for k in range(K):
        if Z[k, 0] > 0.0:
            tot += Z[k, 0]
            n_up += 1
    for j in range(d):
        s = 0.0
        for k in range(K):
            if Z[k, 0] > 0.0:
                s += Z[k, 0] * X[k, j]
        s /= tot
        for k in range(K):
            X[k, j] = s
    ledger[1 + slot] += n_up * d


def comfedl_init(data, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    K = X.shape[0]
    m = check_count(hyper[1], K)
    check_batch(hyper[2])
    check_batch(hyper[3])
    select_uniform(Z, m, sample_key(base, K, 0, 0))


def comfedl_client(data, phase, k, t, X, Y, Z, W, S, hyper, base, I, exact):
    if Z[k, 0] == 0.0:
        return
    d = X.shape[1]
    dg = Y.shape[1]
    x = X[k]
    y = Y[k]
    v = W[k, :dg]
    u = W[k, dg:dg + d]
    nb_in = np.int64(hyper[2])
    nb_out = np.int64(hyper[3])
    key_in = sample_key(base, k, t, 0)
    g_value_b(data, k, x, key_in, exact, nb_in, y)
    f_grad_b(data, k, y, sample_key(base, k, t, 1), exact, nb_out, v)
    g_vjp_b(data, k, x, v, key_in, exact, nb_in, u)
    eta = hyper[0]
    for j in range(d):
        x[j] -= eta * u[j]


def comfedl_sync(data, phase, t, is_round, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    if is_round:
        K = X.shape[0]
        average_selected(X, Z, ledger, 0)
        ledger[0] += 1
        select_uniform(Z, check_count(hyper[1], K), sample_key(base, K, (t + 1) // I, 0))


register(Algorithm(
    name="comfedl", citation=_CITE + ", lines 3-18; gradient (11)",
    init_step=comfedl_init, client_step=comfedl_client, sync_step=comfedl_sync,
    hyper=(CLIENTS_PER_ROUND, BATCH, OUTER_BATCH),
    sizes=lambda d, dg: (1, dg + d, 0), ledger_slots=("x",),
    helpers=(check_count, check_batch, select_uniform, average_selected),
    requires=("g_value_b", "g_vjp_b", "f_grad_b"), structures=("local-inner",),
    tracks_inner=False,
    summary="ComFedL: m sampled clients run tau local steps with the biased compositional "
            "gradient (inner batch b, outer batch b1); uniform model average"))
