"""The FL baselines of ComFedL's robust-FL experiment (section 5.1): FedAvg, q-FedAvg and DRFA
(the paper's "DRFL"), for local-inner problems.

None of them is compositional: each minimises a plain combination of the clients' losses
l_k(x) (the kernel oracles ``loss_value_b`` / ``loss_grad_b``: for :class:`~fedcomp.problems.RobustFL`
the client's logistic loss, for :class:`~fedcomp.problems.MAMLQuadratic` the task loss without
adaptation, as ComFedL's Figure 4 trains FedAvg). The engine still measures ||grad Phi(xbar)||^2 of
the compositional problem, i.e. how far each baseline's solution is from ComFedL's objective.
ComFedL gives none of their update rules; they are implemented from their own papers:

``fedavg`` -- McMahan, Moore, Ramage, Hampson, Aguera y Arcas, "Communication-efficient learning
    of deep networks from decentralized data" (AISTATS 2017), Algorithm 1 (FederatedAveraging):
    each round m clients are chosen uniformly at random (``clients_per_round``, 0 = all), each runs
    tau = ``local_steps`` SGD steps w <- w - eta grad l_k(w; B) (|B| = ``batch``) from the server
    model, and the server takes w <- sum_{k in S_t} (n_k / n_{S_t}) w_k, the data-size weighted
    average (weights n_k/N from the kernel's ``client_weight``).

``q-fedavg`` -- Li, Sanjabi, Beirami, Smith, "Fair resource allocation in federated learning"
    (ICLR 2020), Algorithm 3 (q-FedAvg) for the q-FFL objective sum_k p_k l_k^{q+1}/(q+1): the
    server picks m clients with probabilities p_k = n_k/N (without replacement, as the authors'
    code does); each runs tau SGD steps from w^t to wbar_k; Delta w_k = L (w^t - wbar_k),
    Delta_k = l_k(w^t)^q Delta w_k, h_k = q l_k(w^t)^{q-1} ||Delta w_k||^2 + L l_k(w^t)^q; the
    server sets w^{t+1} = w^t - sum Delta_k / sum h_k. L = 1/eta and l_k + 1e-10 in the powers,
    as in the authors' reference implementation (qffedavg.py); l_k(w^t) is the client's exact
    local loss (the reference code evaluates it on all local training data).

``drfl`` -- Deng, Kamani, Mahdavi, "Distributionally robust federated averaging" (NeurIPS 2020),
    Algorithm 1 (DRFA) for min_w max_{lambda in simplex} sum_k lambda_k l_k(w): round s, the server
    samples m clients D^(s) with replacement according to lambda^(s) (multiplicities kept: a client
    drawn twice counts twice in the average) and a step t' uniform in {1, ..., tau}; the
    participants run tau local SGD steps and upload w_k^{tau} and the snapshot w_k^{t'}; the server
    averages both (1/m sum over D^(s)), samples m clients U uniformly without replacement, which
    upload their loss l_k(wbar^{t'}; xi) on a minibatch of ``batch`` samples; with
    v_k = (K/m) l_k(...) for k in U (0 otherwise) it takes the projected ascent step
    lambda^(s+1) = Proj_simplex(lambda^(s) + tau * ``lambda_lr`` * v) (Euclidean projection,
    Duchi et al. 2008). W = R^d (no projection of w). lambda^(0) = uniform.
    ComFedL's experiment sets ``lambda_lr`` (DRFA's gamma) to 8e-2.

Engine mapping (as in :mod:`fedcomp.algorithms.comfedl`): Z[k, 0] is client k's participation
multiplicity this round, drawn in the sync step from ``sample_key(base, K, s, j)``; rows of
non-participants stay at the server model; record with ``record_every`` a multiple of tau.
DRFA keeps lambda_k in Z[k, 1] and the snapshot w_k^{t'} in Z[k, 2:2+d]; q-FedAvg keeps
l_k(w^t) in Z[k, 1] and the server model in S.
"""
import numpy as np

from fedcomp.algorithms.base import Algorithm, HyperParam, register
from fedcomp.algorithms.comfedl import (BATCH, CLIENTS_PER_ROUND, average_selected, check_batch,
                                        check_count, select_uniform)


def select_weighted(Z, m, key, data):
    """Z[k,0] = 1 for m clients drawn without replacement with probabilities client_weight."""
    K = Z.shape[0]
    for k in range(K):
        Z[k, 0] = 0.0
    if m >= K:
        for k in range(K):
            Z[k, 0] = 1.0
        return
    for i in range(m):
        rest = 0.0
        for k in range(K):
            if Z[k, 0] == 0.0:
                rest += client_weight(data, k)
        u = uniform01(key, i) * rest
        acc = 0.0
        pick = -1
        for k in range(K):
            if Z[k, 0] == 0.0:
                pick = k
                acc += client_weight(data, k)
                if u <= acc:
                    break
        Z[pick, 0] = 1.0


def sgd_local_step(data, k, t, x, hyper, base, exact, g):
    """x <- x - eta grad l_k(x; B), B = sample_key(base, k, t, 0) with ``batch`` samples."""
    loss_grad_b(data, k, x, sample_key(base, k, t, 0), exact, np.int64(hyper[2]), g)
    eta = hyper[0]
    for j in range(x.shape[0]):
        x[j] -= eta * g[j]


# --- FedAvg (McMahan et al. 2017) -----------------------------------------------------------------

def fedavg_plain_init(data, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    K = X.shape[0]
    check_batch(hyper[2])
    select_uniform(Z, check_count(hyper[1], K), sample_key(base, K, 0, 0))


def fedavg_plain_client(data, phase, k, t, X, Y, Z, W, S, hyper, base, I, exact):
    if Z[k, 0] == 0.0:
        return
    sgd_local_step(data, k, t, X[k], hyper, base, exact, W[k])


def fedavg_plain_sync(data, phase, t, is_round, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    if is_round:
        K = X.shape[0]
        # FederatedAveraging weights the participants by their data sizes n_k.
        for k in range(K):
            if Z[k, 0] > 0.0:
                Z[k, 0] = client_weight(data, k)
        average_selected(X, Z, ledger, 0)
        ledger[0] += 1
        select_uniform(Z, check_count(hyper[1], K), sample_key(base, K, (t + 1) // I, 0))


register(Algorithm(
    name="fedavg",
    citation="McMahan et al., Communication-efficient learning of deep networks from "
             "decentralized data (AISTATS 2017), Algorithm 1; baseline of ComFedL section 5",
    init_step=fedavg_plain_init, client_step=fedavg_plain_client, sync_step=fedavg_plain_sync,
    hyper=(CLIENTS_PER_ROUND, BATCH), sizes=lambda d, dg: (1, d, 0), ledger_slots=("x",),
    helpers=(check_count, check_batch, select_uniform, average_selected, sgd_local_step),
    requires=("loss_grad_b", "client_weight"), structures=("local-inner",), tracks_inner=False,
    summary="plain FedAvg on the clients' losses (not compositional): local SGD, n_k-weighted "
            "average of m uniformly sampled clients"))


# --- q-FedAvg (Li et al. 2020) ----------------------------------------------------------------------

def qfedavg_init(data, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    K, d = X.shape
    check_batch(hyper[2])
    for j in range(d):
        S[j] = X[0, j]
    select_weighted(Z, check_count(hyper[1], K), sample_key(base, K, 0, 0), data)


def qfedavg_client(data, phase, k, t, X, Y, Z, W, S, hyper, base, I, exact):
    if Z[k, 0] == 0.0:
        return
    if t % I == 0:
        # l_k(w^t) on the client's whole local data, before the first local step of the round.
        Z[k, 1] = loss_value_b(data, k, X[k], sample_key(base, k, t, 2), True, 0)
    sgd_local_step(data, k, t, X[k], hyper, base, exact, W[k])


def qfedavg_sync(data, phase, t, is_round, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    if not is_round:
        return
    K, d = X.shape
    q = hyper[3]
    L = 1.0 / hyper[0]
    num = np.zeros(d)
    den = 0.0
    n_up = 0
    for k in range(K):
        if Z[k, 0] == 0.0:
            continue
        n_up += 1
        lq = (Z[k, 1] + 1e-10) ** q
        nrm = 0.0
        for j in range(d):
            dw = L * (S[j] - X[k, j])
            num[j] += lq * dw
            nrm += dw * dw
        den += q * (Z[k, 1] + 1e-10) ** (q - 1.0) * nrm + L * lq
    for j in range(d):
        S[j] -= num[j] / den
        for k in range(K):
            X[k, j] = S[j]
    ledger[1] += n_up * d
    ledger[2] += n_up
    ledger[0] += 1
    select_weighted(Z, check_count(hyper[1], K), sample_key(base, K, (t + 1) // I, 0), data)


register(Algorithm(
    name="q-fedavg",
    citation="Li, Sanjabi, Beirami, Smith, Fair resource allocation in federated learning "
             "(ICLR 2020), Algorithm 3; baseline of ComFedL section 5.1",
    init_step=qfedavg_init, client_step=qfedavg_client, sync_step=qfedavg_sync,
    hyper=(CLIENTS_PER_ROUND, BATCH,
           HyperParam("q", 0.0, np.inf, low_open=False, default=0.2,
                      doc="fairness exponent q of q-FFL (ComFedL's experiment: 0.2)")),
    sizes=lambda d, dg: (2, d, d), ledger_slots=("delta", "h"),
    helpers=(check_count, check_batch, select_weighted, sgd_local_step),
    requires=("loss_grad_b", "loss_value_b", "client_weight"), structures=("local-inner",),
    tracks_inner=False,
    summary="q-FedAvg: local SGD, server step -sum Delta_k / sum h_k with loss^q weights"))


# --- DRFA (Deng et al. 2020) ------------------------------------------------------------------------

def project_simplex(v):
    """Euclidean projection of v onto the probability simplex (Duchi et al., ICML 2008)."""
    n = v.shape[0]
    u = np.sort(v)[::-1]
    css = 0.0
    theta = 0.0
    for i in range(n):
        css += u[i]
        th = (css - 1.0) / (i + 1)
        if u[i] - th > 0.0:
            theta = th
    for i in range(n):
        v[i] = max(v[i] - theta, 0.0)


def drfa_select(Z, m, key, base, t_round, I, S):
    """D^(s): m draws with replacement according to lambda (Z[:,1]); t' uniform in 1..I."""
    K = Z.shape[0]
    for k in range(K):
        Z[k, 0] = 0.0
    last = K - 1
    for k in range(K):
        if Z[k, 1] > 0.0:
            last = k
    for i in range(m):
        u = uniform01(key, i)
        acc = 0.0
        pick = last  # if rounding leaves sum(lambda) < u, the last client with weight > 0
        for k in range(K):
            acc += Z[k, 1]
            if u <= acc and Z[k, 1] > 0.0:
                pick = k
                break
        Z[pick, 0] += 1.0
    S[0] = np.float64(1 + randint(key, m, I))


def drfa_init(data, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    K = X.shape[0]
    check_batch(hyper[2])
    m = check_count(hyper[1], K)
    for k in range(K):
        Z[k, 1] = 1.0 / K
    drfa_select(Z, m, sample_key(base, K, 0, 0), base, 0, I, S)


def drfa_client(data, phase, k, t, X, Y, Z, W, S, hyper, base, I, exact):
    if Z[k, 0] == 0.0:
        return
    d = X.shape[1]
    sgd_local_step(data, k, t, X[k], hyper, base, exact, W[k])
    if t % I + 1 == np.int64(S[0]):
        for j in range(d):
            Z[k, 2 + j] = X[k, j]


def drfa_sync(data, phase, t, is_round, X, Y, Z, W, S, hyper, base, I, exact, ledger):
    if not is_round:
        return
    K, d = X.shape
    m = check_count(hyper[1], K)
    s = (t + 1) // I - 1
    # wbar^{t'}: the same multiplicity-weighted mean of the snapshots (uploaded with the models).
    wp = np.zeros(d)
    tot = 0.0
    for k in range(K):
        if Z[k, 0] > 0.0:
            tot += Z[k, 0]
            for j in range(d):
                wp[j] += Z[k, 0] * Z[k, 2 + j]
    for j in range(d):
        wp[j] /= tot
    n_up = 0
    for k in range(K):
        if Z[k, 0] > 0.0:
            n_up += 1
    ledger[2] += n_up * d
    average_selected(X, Z, ledger, 0)
    ledger[0] += 1
    # lambda step: U, m clients uniformly without replacement, report l_k(wbar^{t'}; xi).
    key_u = sample_key(base, K, s, 1)
    select_uniform(Z, m, key_u)
    v = np.zeros(K)
    for k in range(K):
        if Z[k, 0] > 0.0:
            v[k] = K / m * loss_value_b(data, k, wp, sample_key(base, k, t, 3), exact,
                                        np.int64(hyper[2]))
            ledger[3] += 1
    lam = np.empty(K)
    for k in range(K):
        lam[k] = Z[k, 1] + I * hyper[3] * v[k]
    project_simplex(lam)
    for k in range(K):
        Z[k, 1] = lam[k]
    drfa_select(Z, m, sample_key(base, K, s + 1, 0), base, s + 1, I, S)


register(Algorithm(
    name="drfl",
    citation="Deng, Kamani, Mahdavi, Distributionally robust federated averaging (NeurIPS 2020), "
             "Algorithm 1 (DRFA); the 'DRFL' baseline of ComFedL section 5.1",
    init_step=drfa_init, client_step=drfa_client, sync_step=drfa_sync,
    hyper=(CLIENTS_PER_ROUND, BATCH,
           HyperParam("lambda_lr", doc="gamma, step size of the mixture weights lambda "
                                       "(ComFedL's experiment: 8e-2)", default=0.08)),
    sizes=lambda d, dg: (2 + d, d, 1), ledger_slots=("x", "snapshot", "loss"),
    helpers=(check_count, check_batch, select_uniform, average_selected, sgd_local_step,
             project_simplex, drfa_select),
    requires=("loss_grad_b", "loss_value_b"), structures=("local-inner",), tracks_inner=False,
    summary="DRFA: local SGD of clients sampled by lambda, projected ascent on lambda from "
            "losses at a random local snapshot"))
