"""Compiled communication primitives: each moves the numbers and books them in the ledger, so
the ledger counts what the simulated clients really upload.

Ledger layout: ledger[0] = communication rounds of model parameters; ledger[1 + s] = floats
uploaded for the algorithm's ledger slot s. The engine's schedule (:mod:`fedcomp.algorithms.spec`)
calls these; an algorithm's own server function may call them too.
"""
import numba as nb


@nb.njit(cache=True, inline="always", error_model="numpy")
def avg_rows(M, ledger, slot):
    """Every client uploads its row of M; every row becomes the mean (server broadcast)."""
    K, n = M.shape
    for j in range(n):
        s = 0.0
        for k in range(K):
            s += M[k, j]
        s /= K
        for k in range(K):
            M[k, j] = s
    ledger[1 + slot] += K * n


@nb.njit(cache=True, inline="always", error_model="numpy")
def mean_rows(M, out):
    """out = mean of the rows of M (no communication: a measurement or a server-side value)."""
    K, n = M.shape
    for j in range(n):
        s = 0.0
        for k in range(K):
            s += M[k, j]
        out[j] = s / K


@nb.njit(cache=True, inline="always", error_model="numpy")
def server_step_rows(M, center, lr, ledger, slot):
    """Two-sided update: center <- center - lr * mean_k (center - M_k); every row <- center.

    DS-FedDRO Algorithm 3, step 7. Each client uploads its row.
    """
    K, n = M.shape
    for j in range(n):
        s = 0.0
        for k in range(K):
            s += center[j] - M[k, j]
        center[j] -= lr * s / K
        for k in range(K):
            M[k, j] = center[j]
    ledger[1 + slot] += K * n
