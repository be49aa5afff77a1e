"""The one loop. These plain functions are pasted into each generated kernel module
(:mod:`fedcomp.engine.build`), where ``init_step``, ``client_step``, ``sync_step`` and the
problem's kernels are module globals; they are never called from here.

Recorded metrics (columns of ``rec``): 0 ||grad Phi(xbar)||^2, 1 Phi(xbar), 2 consensus error
(1/K) sum_k ||x_k - xbar||^2, 3 inner-estimate error ||ybar - g(xbar)|| (NaN when the algorithm
keeps no inner estimate). Row r is taken after rec_t[r] iterations (rec_t[0] = 0).
"""
import numpy as np

N_METRICS = 4


def record_metrics(data, X, Y, tracks_inner, xbar, gbuf, ybar, gin, row):
    K, d = X.shape
    mean_rows(X, xbar)
    value = phi_value_grad(data, xbar, gbuf)
    s = 0.0
    for j in range(d):
        s += gbuf[j] * gbuf[j]
    row[0] = s
    row[1] = value
    c = 0.0
    for k in range(K):
        for j in range(d):
            e = X[k, j] - xbar[j]
            c += e * e
    row[2] = c / K
    if tracks_inner:
        mean_rows(Y, ybar)
        g_mean(data, xbar, gin)
        e2 = 0.0
        for i in range(ybar.shape[0]):
            e = ybar[i] - gin[i]
            e2 += e * e
        row[3] = np.sqrt(e2)
    else:
        row[3] = np.nan


def run_one(data, hyper, base, T, I, exact, rec_every, x0, K, dg, nz, nw, ns, nslots,
            n_phases, tracks_inner):
    d = x0.shape[0]
    n_rec = T // rec_every + 1
    if T % rec_every != 0:
        n_rec += 1
    # Owners of every buffer; the loop works on borrowed (reference-count-free) views of them
    # (prims.borrow: the atomics of reference counting dominated small problems). The owners are
    # used after the loop (keep_alive / return), so they outlive the views.
    X_own = np.empty((K, d))
    Y_own = np.zeros((K, dg))
    Z_own = np.zeros((K, nz))
    W_own = np.zeros((K, nw))
    S_own = np.zeros(ns)
    ledger_own = np.zeros(nslots + 1, dtype=np.int64)
    rec_t_own = np.zeros(n_rec, dtype=np.int64)
    rec_own = np.zeros((n_rec, N_METRICS))
    x_last_own = np.zeros(d)
    tmp_own = np.zeros(2 * d + 2 * dg)
    X = borrow(X_own)
    Y = borrow(Y_own)
    Z = borrow(Z_own)
    W = borrow(W_own)
    S = borrow(S_own)
    ledger = borrow(ledger_own)
    rec_t = borrow(rec_t_own)
    rec = borrow(rec_own)
    x_last = borrow(x_last_own)
    tmp = borrow(tmp_own)
    data_run = run_data(data)   # the problem's per-run buffers, if any (engine.defaults)
    data = borrow(data_run)
    hyper = borrow(hyper)
    xbar = tmp[:d]
    gbuf = tmp[d:2 * d]
    ybar = tmp[2 * d:2 * d + dg]
    gin = tmp[2 * d + dg:]
    for k in range(K):  # plain loops: a slice assignment compiles numba's shape-error message
        for j in range(d):
            X[k, j] = x0[j]

    init_step(data, X, Y, Z, W, S, hyper, base, I, exact, ledger)
    diverged = -1
    nr = 0
    if all_finite(X) and all_finite(Y):
        record_metrics(data, X, Y, tracks_inner, xbar, gbuf, ybar, gin, rec[0])
        for j in range(d):
            x_last[j] = xbar[j]
        nr = 1
    else:
        diverged = 0
    if diverged < 0:
        for t in range(T):
            is_round = (t + 1) % I == 0
            for ph in range(n_phases):
                for k in range(K):
                    client_step(data, ph, k, t, X, Y, Z, W, S, hyper, base, I, exact)
                sync_step(data, ph, t, is_round, X, Y, Z, W, S, hyper, base, I, exact, ledger)
            if not (all_finite(X) and all_finite(Y)):
                diverged = t + 1
                break
            if (t + 1) % rec_every == 0 or t + 1 == T:
                record_metrics(data, X, Y, tracks_inner, xbar, gbuf, ybar, gin, rec[nr])
                rec_t[nr] = t + 1
                if not np.isfinite(rec[nr, 0]) or not np.isfinite(rec[nr, 1]):
                    diverged = t + 1
                    break
                for j in range(d):
                    x_last[j] = xbar[j]
                nr += 1
    keep_alive((X_own, Y_own, Z_own, W_own, S_own, tmp_own, data_run))
    return x_last_own, rec_t_own, rec_own, ledger_own, diverged, nr
