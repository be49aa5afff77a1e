"""Exact round maps of FedAvg-type algorithms on linear-quadratic problems.

On g_k(x) = A_k x + b_k with f(y) = 0.5 ||y||^2 (grad f(y) = y) and exact oracles, one iteration of
fedavg-case1/case2/modified, feddro and feddro-literal is an affine map of the state
s = (x_1, ..., x_K, y_1, ..., y_K), so one communication round (I iterations and the sync) is an
affine map s -> R s + r, and the limit of the run is its fixed point, computed exactly by one
linear solve. The maps are built as homogeneous matrices ((n+1) x (n+1), last coordinate 1) from
the step rules of :mod:`fedcomp.algorithms.fedavg` and :mod:`fedcomp.algorithms.feddro`, with a
matrix backend that is numpy (numbers) or sympy (symbols: eta, beta), so the same code gives the
numeric closed form for any instance and the symbolic one for small instances.

The symbolic closed forms in eta *and* I (d = 1) are derived in :mod:`fedcomp.counterexamples.thm41`
on the reduced state; the sympy backend here serves small checks with I fixed.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

ALGORITHMS = ("fedavg-case1", "fedavg-case2", "fedavg-modified", "feddro", "feddro-literal")


class _Backend:
    def __init__(self, symbolic: bool):
        self.symbolic = symbolic

    def eye(self, n):
        return sp.eye(n) if self.symbolic else np.eye(n)

    def mat(self, a):
        return sp.Matrix(a) if self.symbolic else np.array(a, dtype=float)


def _layout(A):
    K, dg, d = np.shape(A)[:3] if not isinstance(A, list) else (len(A), len(A[0]), len(A[0][0]))
    return K, dg, d


def _xi(k, d, j):
    return k * d + j


def _yi(K, d, dg, k, i):
    return K * d + k * dg + i


def _step_matrices(A, b, eta, beta, alg, be: _Backend):
    """Homogeneous matrices of one iteration's local part (client steps) for `alg`."""
    if alg == "feddro-literal":
        return U_feddro(A, b, eta, beta, be)
    K, dg, d = _layout(A)
    n = K * (d + dg)
    # x_k <- x_k - eta A_k^T y_k  (the gradient (6)/(7) with grad f(y) = y)
    G = be.eye(n + 1)
    for k in range(K):
        for j in range(d):
            for i in range(dg):
                G[_xi(k, d, j), _yi(K, d, dg, k, i)] -= eta * A[k][i][j]
    # y update after the step
    U = be.eye(n + 1)
    for k in range(K):
        for i in range(dg):
            r = _yi(K, d, dg, k, i)
            U[r, r] = 0
            for j in range(d):
                U[r, _xi(k, d, j)] = A[k][i][j]
            U[r, n] = b[k][i]
    return U * G if be.symbolic else U @ G


def U_feddro(A, b, eta, beta, be):
    """One iteration of feddro-literal: x_new = x - eta A^T y and (8) anchored at x_old, i.e.
    y_new = (1-beta)(y - A x_old - b) + A x_new + b (x_new enters through y_new)."""
    K, dg, d = _layout(A)
    n = K * (d + dg)
    M = be.eye(n + 1)
    for k in range(K):
        # new x rows: x - eta A^T y
        for j in range(d):
            for i in range(dg):
                M[_xi(k, d, j), _yi(K, d, dg, k, i)] = -eta * A[k][i][j]
        # new y rows: (1-beta)(y - A x - b) + A (x - eta A^T y) + b = beta A x + ((1-beta) I
        # - eta A A^T) y + beta b
        for i in range(dg):
            r = _yi(K, d, dg, k, i)
            for j in range(d):
                M[r, _xi(k, d, j)] = beta * A[k][i][j]
            for i2 in range(dg):
                aat = sum(A[k][i][j] * A[k][i2][j] for j in range(d))
                M[r, _yi(K, d, dg, k, i2)] = ((1 - beta) if i == i2 else 0) - eta * aat
            M[r, n] = beta * b[k][i]
    return M


def _avg(K, d, dg, which, be: _Backend):
    n = K * (d + dg)
    M = be.eye(n + 1)
    if which == "x":
        size, idx = d, (lambda k, j: _xi(k, d, j))
    else:
        size, idx = dg, (lambda k, j: _yi(K, d, dg, k, j))
    for j in range(size):
        for k in range(K):
            for k2 in range(K):
                M[idx(k, j), idx(k2, j)] = sp.Rational(1, K) if be.symbolic else 1.0 / K
    return M


def _reset_y(A, b, be):
    """Case I sync: y_k <- g_k(x_k) (x_k already averaged)."""
    K, dg, d = _layout(A)
    n = K * (d + dg)
    M = be.eye(n + 1)
    for k in range(K):
        for i in range(dg):
            r = _yi(K, d, dg, k, i)
            M[r, r] = 0
            for j in range(d):
                M[r, _xi(k, d, j)] = A[k][i][j]
            M[r, n] = b[k][i]
    return M


def round_map(A, b, eta, I, alg, beta=None, symbolic=False):
    """Homogeneous matrix of one communication round (I iterations, then the sync)."""
    if alg not in ALGORITHMS:
        raise ValueError(f"alg must be one of {ALGORITHMS}, got {alg!r}")
    be = _Backend(symbolic)
    K, dg, d = _layout(A)
    mul = (lambda P, Q: P * Q) if symbolic else (lambda P, Q: P @ Q)
    step = _step_matrices(A, b, eta, beta, alg, be)
    if alg == "feddro":
        # With exact oracles and ybar^0 = mean g_k(x^0), (8) anchored at each client's own previous
        # iterate keeps ybar = mean_k g_k(x_k) exactly: the round map is fedavg-modified's.
        alg = "fedavg-modified"
    if alg in ("fedavg-modified", "feddro-literal"):
        step = mul(_avg(K, d, dg, "y", be), step)
    R = be.eye(K * (d + dg) + 1)
    for _ in range(I):
        R = mul(step, R)
    R = mul(_avg(K, d, dg, "x", be), R)
    if alg == "fedavg-case1":
        R = mul(_reset_y(A, b, be), R)
    elif alg == "fedavg-case2":
        R = mul(_avg(K, d, dg, "y", be), R)
    return R


def fixed_point(R, symbolic=False):
    """State s with s = R s (homogeneous coordinate 1), or raise if the round map has none."""
    n = R.shape[0] - 1
    if symbolic:
        L = sp.eye(n) - R[:n, :n]
        return L.LUsolve(R[:n, n])
    L = np.eye(n) - R[:n, :n]
    s = np.linalg.solve(L, R[:n, n])
    return s


def spectral_radius(R) -> float:
    n = R.shape[0] - 1
    return float(np.max(np.abs(np.linalg.eigvals(np.asarray(R, dtype=float)[:n, :n]))))


def limit_xbar(A, b, eta, I, alg, beta=None):
    """Exact limit of xbar at synchronisation times (numeric), and the round map's spectral radius."""
    A = np.asarray(A, dtype=float)
    b = np.asarray(b, dtype=float)
    K, dg, d = A.shape
    R = round_map(A, b, eta, I, alg, beta)
    rho = spectral_radius(R)
    if rho >= 1.0:
        return None, rho
    try:
        s = fixed_point(R)
    except np.linalg.LinAlgError:  # rho rounds below 1 but I - R is singular: no unique limit
        return None, rho
    return s[:K * d].reshape(K, d).mean(axis=0), rho
