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
    The neural backend runs this same DRFA (one definition): sampled clients, the random
    snapshot t' and minibatch losses. The neural copy it replaced ran DRFA "in expectation" (all
    clients, the lambda-weighted mean of the final models, full losses); that variant is gone.

One definition for both backends (:mod:`fedcomp.algorithms.spec`), as
:mod:`fedcomp.algorithms.comfedl`: per-client state ``part`` is client k's participation this
round (a flag, FedAvg's weight n_k at the average, DRFA's multiplicity), drawn by the server from
``sample_key(base, K, s, j)`` with compiled helpers that the torch steps run as well (so both
backends pick the same clients); rows of non-participants stay at the server model; record with
``record_every`` a multiple of tau. q-FedAvg keeps l_k(w^t) in ``loss`` and the server model in
``x_server``; DRFA keeps lambda_k in ``lam`` (one entry per client: the server's vector, stored by
client), the snapshot w_k^{t'} in ``snap``, t' in ``tprime`` and wbar^{t'} in ``snap_mean``.
"""
import numba as nb
import numpy as np

from fedcomp.algorithms.base import Algorithm, HyperParam, register
from fedcomp.algorithms.comfedl import (BATCH, CLIENTS_PER_ROUND, active, average_selected,
                                        average_selected_torch, check_batch, check_count,
                                        comfedl_next_round, comfedl_next_round_torch, host_flags,
                                        host_select_uniform, select_uniform)
from fedcomp.algorithms.oracles import client_weight, loss_grad_b, loss_value_b
from fedcomp.algorithms.spec import ModelRound, Server, State, Steps
from fedcomp.rng import randint, sample_key, uniform01


# --- helpers of both backends -------------------------------------------------------------
def select_weighted(part, m, key, weight):
    """part[k, 0] = 1 for m clients drawn without replacement with probabilities weight[k]."""
    K = part.shape[0]
    for k in range(K):
        part[k, 0] = 0.0
    if m >= K:
        for k in range(K):
            part[k, 0] = 1.0
        return
    for i in range(m):
        rest = 0.0
        for k in range(K):
            if part[k, 0] == 0.0:
                rest += weight[k]
        u = uniform01(key, i) * rest
        acc = 0.0
        pick = -1
        for k in range(K):
            if part[k, 0] == 0.0:
                pick = k
                acc += weight[k]
                if u <= acc:
                    break
        part[pick, 0] = 1.0


def client_weights(data, K):
    """n_k / N of every client (the kernel's client_weight), (K,)."""
    w = np.empty(K)
    for k in range(K):
        w[k] = client_weight(data, k)
    return w


def sgd_local_step(data, k, t, x, eta, batch, base, exact, g):
    """x <- x - eta grad l_k(x; B), B = sample_key(base, k, t, 0) with ``batch`` samples."""
    loss_grad_b(data, k, x, sample_key(base, k, t, 0), exact, np.int64(batch), g)
    for j in range(x.shape[0]):
        x[j] -= eta * g[j]


def sgd_local_step_torch(p, t, x, on, eta, batch):
    """:func:`sgd_local_step` for the clients on."""
    x[on] = x[on] - eta * p.loss_grad_b(x[on], p.key(t, 0), int(batch), on)


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


def drfa_select(part, lam, m, key, I, tprime):
    """D^(s): m draws with replacement according to lam (part[k, 0] = multiplicity); t' uniform
    in 1..I."""
    K = part.shape[0]
    for k in range(K):
        part[k, 0] = 0.0
    last = K - 1
    for k in range(K):
        if lam[k, 0] > 0.0:
            last = k
    for i in range(m):
        u = uniform01(key, i)
        acc = 0.0
        pick = last  # if rounding leaves sum(lambda) < u, the last client with weight > 0
        for k in range(K):
            acc += lam[k, 0]
            if u <= acc and lam[k, 0] > 0.0:
                pick = k
                break
        part[pick, 0] += 1.0
    tprime[0] = np.float64(1 + randint(key, m, I))


host_select_weighted = nb.njit(cache=True)(select_weighted)
host_project_simplex = nb.njit(cache=True)(project_simplex)
host_drfa_select = nb.njit(cache=True)(drfa_select)


# --- FedAvg (McMahan et al. 2017) -----------------------------------------------------------------
def fedavg_start(K, PART, clients_per_round, batch, base):
    check_batch(batch)
    select_uniform(PART, check_count(clients_per_round, K), sample_key(base, K, 0, 0))


def fedavg_plain_client(data, k, t, x, part, g, eta, batch, base, exact):
    if part[0] == 0.0:
        return
    sgd_local_step(data, k, t, x, eta, batch, base, exact, g)


def fedavg_average(data, X, PART, ledger):
    """FederatedAveraging weights the participants by their data sizes n_k."""
    for k in range(X.shape[0]):
        if PART[k, 0] > 0.0:
            PART[k, 0] = client_weight(data, k)
    average_selected(X, PART, ledger, 0)


def fedavg_start_torch(p, K, PART, clients_per_round, batch):
    check_batch(batch)
    host_flags(PART, host_select_uniform, check_count(clients_per_round, K), p.server_key(0, 0))


def fedavg_plain_client_torch(p, t, x, part, eta, batch):
    sgd_local_step_torch(p, t, x, active(part), eta, batch)


def fedavg_average_torch(p, X, PART, ledger):
    on = active(PART)
    PART[on, 0] = p.client_weight(PART)[on]
    average_selected_torch(X, PART, ledger, 0)


register(Algorithm(
    name="fedavg",
    citation="McMahan et al., Communication-efficient learning of deep networks from "
             "decentralized data (AISTATS 2017), Algorithm 1; baseline of ComFedL section 5",
    hyper=(CLIENTS_PER_ROUND, BATCH),
    state=State(client={"part": "1"}, scratch={"g": "d"}),
    schedule=(Server(when="init", numba=fedavg_start, torch=fedavg_start_torch,
                     doc="the server samples S_0 uniformly (no upload)"),
              Server(numba=fedavg_average, torch=fedavg_average_torch, books=("x",),
                     doc="participants upload their models (d floats each); n_k-weighted mean"),
              ModelRound(),
              Server(numba=comfedl_next_round, torch=comfedl_next_round_torch,
                     doc="the server samples S_{t+1} uniformly (no upload)")),
    ledger_slots=("x",), numba=Steps(fedavg_plain_client),
    torch=Steps(fedavg_plain_client_torch),
    requires=("loss_grad_b", "client_weight"), structures=("local-inner",), tracks_inner=False,
    summary="plain FedAvg on the clients' losses (not compositional): local SGD, n_k-weighted "
            "average of m uniformly sampled clients"))


# --- q-FedAvg (Li et al. 2020) ----------------------------------------------------------------------
def qfedavg_start(data, K, X, PART, x_server, clients_per_round, batch, base):
    check_batch(batch)
    for j in range(X.shape[1]):
        x_server[j] = X[0, j]
    select_weighted(PART, check_count(clients_per_round, K), sample_key(base, K, 0, 0),
                    client_weights(data, K))


def qfedavg_client(data, k, t, x, part, loss, g, eta, batch, I, base, exact):
    if part[0] == 0.0:
        return
    if t % I == 0:
        # l_k(w^t) on the client's whole local data, before the first local step of the round.
        loss[0] = loss_value_b(data, k, x, sample_key(base, k, t, 2), np.bool_(True), np.int64(0))
    sgd_local_step(data, k, t, x, eta, batch, base, exact, g)


def qfedavg_server_step(X, PART, LOSS, x_server, eta, q, ledger):
    """Algorithm 3, lines 9-10: w^{t+1} = w^t - sum_k Delta_k / sum_k h_k, broadcast; each
    participant uploads Delta_k (d floats, "delta") and h_k (one float, "h")."""
    K, d = X.shape
    L = 1.0 / eta
    num = np.zeros(d)
    den = 0.0
    n_up = 0
    for k in range(K):
        if PART[k, 0] == 0.0:
            continue
        n_up += 1
        lq = (LOSS[k, 0] + 1e-10) ** q
        nrm = 0.0
        for j in range(d):
            dw = L * (x_server[j] - X[k, j])
            num[j] += lq * dw
            nrm += dw * dw
        den += q * (LOSS[k, 0] + 1e-10) ** (q - 1.0) * nrm + L * lq
    for j in range(d):
        x_server[j] -= num[j] / den
        for k in range(K):
            X[k, j] = x_server[j]
    ledger[1] += n_up * d
    ledger[2] += n_up


def qfedavg_next_round(data, K, t, I, PART, clients_per_round, base):
    select_weighted(PART, check_count(clients_per_round, K), sample_key(base, K, (t + 1) // I, 0),
                    client_weights(data, K))


def qfedavg_start_torch(p, K, X, PART, x_server, clients_per_round, batch):
    check_batch(batch)
    x_server.copy_(X[0])
    host_flags(PART, host_select_weighted, check_count(clients_per_round, K), p.server_key(0, 0),
               p.client_weight(PART).cpu().numpy())


def qfedavg_client_torch(p, t, x, part, loss, eta, batch, I):
    on = active(part)
    if t % I == 0:
        loss[on, 0] = p.loss_value_b(x[on], p.key(t, 2), 0, on, exact=True)
    sgd_local_step_torch(p, t, x, on, eta, batch)


def qfedavg_server_step_torch(X, PART, LOSS, x_server, eta, q, ledger):
    on = active(PART)
    L = 1.0 / eta
    lk = LOSS[on, 0] + 1e-10
    dw = L * (x_server[None, :] - X[on])
    num = (lk ** q)[:, None] * dw
    den = q * lk ** (q - 1.0) * (dw * dw).sum(1) + L * lk ** q
    x_server -= num.sum(0) / den.sum()
    X[:] = x_server
    ledger[1] += len(on) * X.shape[1]
    ledger[2] += len(on)


def qfedavg_next_round_torch(p, K, t, I, PART, clients_per_round):
    host_flags(PART, host_select_weighted, check_count(clients_per_round, K),
               p.server_key((t + 1) // I, 0), p.client_weight(PART).cpu().numpy())


register(Algorithm(
    name="q-fedavg",
    citation="Li, Sanjabi, Beirami, Smith, Fair resource allocation in federated learning "
             "(ICLR 2020), Algorithm 3; baseline of ComFedL section 5.1",
    hyper=(CLIENTS_PER_ROUND, BATCH,
           HyperParam("q", 0.0, np.inf, low_open=False, default=0.2,
                      doc="fairness exponent q of q-FFL (ComFedL's experiment: 0.2)")),
    state=State(client={"part": "1", "loss": "1"}, server={"x_server": "d"},
                scratch={"g": "d"}),
    schedule=(Server(when="init", numba=qfedavg_start, torch=qfedavg_start_torch,
                     doc="the server keeps w^0 and samples S_0 with probabilities n_k/N"),
              Server(numba=qfedavg_server_step, torch=qfedavg_server_step_torch,
                     books=("delta", "h"),
                     doc="participants upload Delta_k (d floats) and h_k (1 float); server step"),
              ModelRound(),
              Server(numba=qfedavg_next_round, torch=qfedavg_next_round_torch,
                     doc="the server samples S_{t+1} with probabilities n_k/N (no upload)")),
    ledger_slots=("delta", "h"),
    numba=Steps(qfedavg_client), torch=Steps(qfedavg_client_torch),
    requires=("loss_grad_b", "loss_value_b", "client_weight"), structures=("local-inner",),
    tracks_inner=False,
    summary="q-FedAvg: local SGD, server step -sum Delta_k / sum h_k with loss^q weights"))


# --- DRFA (Deng et al. 2020) ------------------------------------------------------------------------
def drfa_start(K, I, PART, LAM, tprime, clients_per_round, batch, base):
    """lambda^(0) uniform; D^(0) and t' of round 0."""
    check_batch(batch)
    m = check_count(clients_per_round, K)
    for k in range(K):
        LAM[k, 0] = 1.0 / K
    drfa_select(PART, LAM, m, sample_key(base, K, 0, 0), I, tprime)


def drfa_client(data, k, t, x, part, snap, g, tprime, eta, batch, I, base, exact):
    """Local SGD of a member of D^(s); the snapshot w_k^{t'} kept at local step t'."""
    if part[0] == 0.0:
        return
    sgd_local_step(data, k, t, x, eta, batch, base, exact, g)
    if t % I + 1 == np.int64(tprime[0]):
        for j in range(x.shape[0]):
            snap[j] = x[j]


def drfa_average(X, PART, SNAP, snap_mean, ledger):
    """The members of D^(s) upload w_k^tau and w_k^{t'}; the server averages both (with
    multiplicities)."""
    K, d = X.shape
    for j in range(d):
        snap_mean[j] = 0.0
    tot = 0.0
    for k in range(K):
        if PART[k, 0] > 0.0:
            tot += PART[k, 0]
            for j in range(d):
                snap_mean[j] += PART[k, 0] * SNAP[k, j]
    for j in range(d):
        snap_mean[j] /= tot
    n_up = 0
    for k in range(K):
        if PART[k, 0] > 0.0:
            n_up += 1
    ledger[2] += n_up * d
    average_selected(X, PART, ledger, 0)


def drfa_lambda_step(data, K, t, I, PART, LAM, snap_mean, clients_per_round, batch, lambda_lr,
                     base, exact, ledger):
    """U: m clients uniformly without replacement report l_k(wbar^{t'}; xi); projected ascent
    lambda <- Proj(lambda + tau gamma v), v_k = (K/m) l_k for k in U."""
    m = check_count(clients_per_round, K)
    s = (t + 1) // I - 1
    select_uniform(PART, m, sample_key(base, K, s, 1))
    v = np.zeros(K)
    for k in range(K):
        if PART[k, 0] > 0.0:
            v[k] = K / m * loss_value_b(data, k, snap_mean, sample_key(base, k, t, 3), exact,
                                        np.int64(batch))
            ledger[3] += 1
    lam = np.empty(K)
    for k in range(K):
        lam[k] = LAM[k, 0] + I * lambda_lr * v[k]
    project_simplex(lam)
    for k in range(K):
        LAM[k, 0] = lam[k]


def drfa_next_round(K, t, I, PART, LAM, tprime, clients_per_round, base):
    """D^(s+1) according to lambda^(s+1), and its t'."""
    drfa_select(PART, LAM, check_count(clients_per_round, K),
                sample_key(base, K, (t + 1) // I, 0), I, tprime)


def drfa_start_torch(p, K, I, PART, LAM, tprime, clients_per_round, batch):
    check_batch(batch)
    m = check_count(clients_per_round, K)
    LAM.fill_(1.0 / K)
    _drfa_select_torch(PART, LAM, m, p.server_key(0, 0), I, tprime)


def _drfa_select_torch(PART, LAM, m, key, I, tprime):
    t1 = np.zeros(1)
    host_flags(PART, host_drfa_select, LAM.detach().cpu().numpy(), m, key, I, t1)
    tprime.fill_(float(t1[0]))


def drfa_client_torch(p, t, x, part, snap, tprime, eta, batch, I):
    on = active(part)
    sgd_local_step_torch(p, t, x, on, eta, batch)
    if t % I + 1 == int(tprime[0]):
        snap[on] = x[on]


def drfa_average_torch(X, PART, SNAP, snap_mean, ledger):
    on = active(PART)
    mult = PART[on, 0]
    snap_mean.copy_((mult[:, None] * SNAP[on]).sum(0) / mult.sum())
    ledger[2] += len(on) * X.shape[1]
    average_selected_torch(X, PART, ledger, 0)


def drfa_lambda_step_torch(p, K, t, I, PART, LAM, snap_mean, clients_per_round, batch,
                           lambda_lr, ledger):
    m = check_count(clients_per_round, K)
    s = (t + 1) // I - 1
    host_flags(PART, host_select_uniform, m, p.server_key(s, 1))
    on = active(PART)
    v = PART.new_zeros(K)
    v[on] = K / m * p.loss_value_b(snap_mean.expand(len(on), -1), p.key(t, 3), int(batch), on)
    ledger[3] += len(on)
    lam = (LAM[:, 0] + I * lambda_lr * v).cpu().numpy()
    host_project_simplex(lam)
    LAM[:, 0] = LAM.new_tensor(lam)


def drfa_next_round_torch(p, K, t, I, PART, LAM, tprime, clients_per_round):
    _drfa_select_torch(PART, LAM, check_count(clients_per_round, K),
                       p.server_key((t + 1) // I, 0), I, tprime)


register(Algorithm(
    name="drfl",
    citation="Deng, Kamani, Mahdavi, Distributionally robust federated averaging (NeurIPS 2020), "
             "Algorithm 1 (DRFA); the 'DRFL' baseline of ComFedL section 5.1",
    hyper=(CLIENTS_PER_ROUND, BATCH,
           HyperParam("lambda_lr", doc="gamma, step size of the mixture weights lambda "
                                       "(ComFedL's experiment: 8e-2)", default=0.08)),
    # the layout of the compiled buffers: Z = [part, lam, snap], S = [tprime, snap_mean]
    state=State(client={"part": "1", "lam": "1", "snap": "d"},
                server={"tprime": "1", "snap_mean": "d"}, scratch={"g": "d"}),
    schedule=(Server(when="init", numba=drfa_start, torch=drfa_start_torch,
                     doc="lambda^(0) uniform; the server samples D^(0) and t'"),
              Server(numba=drfa_average, torch=drfa_average_torch, books=("x", "snapshot"),
                     doc="D^(s) uploads w^tau and w^{t'} (d floats each); both averaged"),
              ModelRound(),
              Server(numba=drfa_lambda_step, torch=drfa_lambda_step_torch, books=("loss",),
                     doc="U uploads l_k(wbar^{t'}) (1 float each); projected ascent on lambda"),
              Server(numba=drfa_next_round, torch=drfa_next_round_torch,
                     doc="the server samples D^(s+1) by lambda and t' (no upload)")),
    ledger_slots=("x", "snapshot", "loss"),
    numba=Steps(drfa_client), torch=Steps(drfa_client_torch),
    requires=("loss_grad_b", "loss_value_b"), structures=("local-inner",), tracks_inner=False,
    summary="DRFA: local SGD of clients sampled by lambda, projected ascent on lambda from "
            "losses at a random local snapshot"))
