"""The problem protocol: what the engine and the algorithms may ask of a problem.

A problem is two things:

1. A Python object (a :class:`Problem` subclass) holding the data as a tuple of numpy arrays
   (``problem.data``), its sizes and the exact measures ``value(x)`` and ``grad(x)``.
2. A *kernel module* (``problem.kernels``, a dotted module name) of numba-compiled oracles with
   the fixed names below. The engine generates, for each (algorithm, kernel module) pair, a module
   that imports these names as globals, so the algorithm's steps call them directly: no function
   pointers, full inlining, and on-disk caching (see :mod:`fedcomp.engine.build`).

Kernel protocol (all arguments positional; ``data`` is ``problem.data``; ``key`` is a uint64
sample key from :mod:`fedcomp.rng`; ``exact`` True means the full, noise-free oracle and the key is
ignored; outputs are written into ``out``, never allocated)::

    HAS_H                                    bool constant: the problem has a non-compositional h
    g_value(data, k, x, key, exact, out)     out (d_g,) = g_k(x; zeta(key))
    g_vjp(data, k, x, v, key, exact, out)    out (d,)   = grad g_k(x; zeta(key)) v
                                             (the paper's "grad g_k(x) grad f(y)", with v = grad f(y);
                                             grad g_k is the d x d_g transposed Jacobian)
    h_grad(data, k, x, key, exact, out)      out (d,)   = grad h_k(x; xi(key))   (zeros if not HAS_H)
    f_grad(data, k, y, out)                  out (d_g,) = grad f_k(y)  (k is ignored when the outer
                                             function is global, as in FedDRO problem (2))
    g_mean(data, x, out)                     out (d_g,) = g(x), exact
    phi_value(data, x) -> float              Phi(x), exact
    phi_grad(data, x, out)                   out (d,) = grad Phi(x), exact

Optional (the engine pastes a default built from the oracles above when the module lacks it,
:mod:`fedcomp.engine.defaults`)::

    g_value2(data, k, x1, x2, key, exact, out1, out2)
                                             out1 = g_k(x1; zeta(key)), out2 = g_k(x2; zeta(key)):
                                             one sample at two points, for FedDRO (8). Default:
                                             two g_value calls (the sample is drawn twice).
    outer_grads(data, k, u, ydual, key, exact, out_u, out_dual)
                                             minimax problems: outer_grad_inner and
                                             outer_grad_dual at one sample. Default: the two
                                             calls with the same key.
    phi_value_grad(data, x, out) -> float    out (d,) = grad Phi(x); returns Phi(x), exact (the
                                             recorded metrics). Default: phi_grad, then
                                             phi_value (a problem can share their pass over its
                                             data).
    cond_grad2(data, k, x1, x2, key, exact, out1, out2)
                                             conditional problems: cond_grad at x1 and at x2 on
                                             the same samples (Acc-FCSG-M). Default: two
                                             cond_grad calls with the same key.
    comp_grad_b(data, k, x, key_in, key_out, exact, nb_in, nb_out, y, v, u)
                                             local-inner problems: y = g_k(x; B), v = grad
                                             f_k(y; B~), u = grad g_k(x; B)^T v (ComFedL's
                                             direction). Default: g_value_b, f_grad_b, g_vjp_b
                                             (B drawn twice).
    run_data(data) -> tuple                  the data tuple a run's oracles see, made once per run
                                             by the engine's loop: a problem whose oracles keep a
                                             per-run cache appends its buffers (new for every
                                             run). Default: data itself.

The same key passed to ``g_value`` at two points gives the same sample at both (FedDRO (8));
``g_vjp`` and ``g_value`` with the same key use the same sample zeta (FedDRO (7) and (8) share
zeta_k^t). Structure flags tell algorithms which problems they apply to:

``structure``
    ``"global-inner"``: Phi = h + f(mean_k g_k) (FedDRO problem (2));
    ``"local-inner"``: Phi = mean_k f_k(g_k) (ComFedL problem (1), FCSG problem (1));
    ``"minimax"``: Phi(x) = max_y F(x, y) (AUC paper problem (4)); the kernel module then adds the
    oracles its algorithms need (documented with that problem).

Later families add oracles to the same module under new names (e.g. conditional inner sampling,
the dual variable's gradient); an algorithm lists the names it needs in ``requires`` and the engine
refuses a pairing whose kernel module lacks one, with a clear message.
"""
from __future__ import annotations

import importlib

import numpy as np

from fedcomp import _validate as V


class Problem:
    """Base class: subclasses set the attributes below and ``data``.

    Attributes
    ----------
    num_clients : int
        K.
    dim : int
        d, the model dimension.
    inner_dim : int
        d_g, the dimension of the inner map.
    noise : float
        Scale of the stochastic oracles (meaning documented by each problem); 0 = exact samples.
    kernels : str
        Dotted name of the kernel module.
    structure : str
        ``"global-inner"``, ``"local-inner"`` or ``"minimax"``.
    data : tuple of ndarray
        What the kernels receive.
    """

    num_clients: int
    dim: int
    inner_dim: int
    noise: float = 0.0
    kernels: str
    structure: str = "global-inner"
    data: tuple
    name: str = "problem"

    # --- kernels -----------------------------------------------------------------------------
    @property
    def kernel_module(self):
        return importlib.import_module(self.kernels)

    def provides(self) -> set[str]:
        """Names of the oracles the kernel module defines."""
        mod = self.kernel_module
        return {n for n in dir(mod) if not n.startswith("_")}

    # --- exact measures ----------------------------------------------------------------------
    def _check_x(self, x) -> np.ndarray:
        return V.finite_array("x", x, shape=(self.dim,))

    def value(self, x) -> float:
        """Phi(x), exact."""
        return float(self.kernel_module.phi_value(self.data, self._check_x(x)))

    def grad(self, x) -> np.ndarray:
        """grad Phi(x), exact, shape (d,)."""
        out = np.zeros(self.dim)
        self.kernel_module.phi_grad(self.data, self._check_x(x), out)
        return out

    def inner(self, x) -> np.ndarray:
        """g(x) = (1/K) sum_k g_k(x), exact, shape (d_g,)."""
        out = np.zeros(self.inner_dim)
        self.kernel_module.g_mean(self.data, self._check_x(x), out)
        return out

    def inner_client(self, k: int, x) -> np.ndarray:
        """g_k(x), exact."""
        out = np.zeros(self.inner_dim)
        self.kernel_module.g_value(self.data, int(k), self._check_x(x), np.uint64(0), True, out)
        return out

    def inner_client_vjp(self, k: int, x, v) -> np.ndarray:
        """grad g_k(x) v (the Jacobian of g_k transposed, applied to v of shape (d_g,)), exact,
        shape (d,)."""
        out = np.zeros(self.dim)
        v = V.finite_array("v", v, shape=(self.inner_dim,))
        self.kernel_module.g_vjp(self.data, int(k), self._check_x(x), v, np.uint64(0), True, out)
        return out

    def describe(self) -> dict:
        """A JSON-friendly description (used in result tables and configuration hashes)."""
        return {"problem": self.name, "K": self.num_clients, "d": self.dim,
                "d_g": self.inner_dim, "noise": self.noise}

    def fingerprint(self) -> str:
        """Hash of the data and settings (result stores key runs by it)."""
        import hashlib
        h = hashlib.sha256(repr(sorted(self.describe().items())).encode())
        for a in self.data:
            arr = np.ascontiguousarray(a)
            h.update(str(arr.dtype).encode())
            h.update(str(arr.shape).encode())
            h.update(arr.tobytes())
        return h.hexdigest()[:16]

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(K={self.num_clients}, d={self.dim}, "
                f"d_g={self.inner_dim}, noise={self.noise})")
