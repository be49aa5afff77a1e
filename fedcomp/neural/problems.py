"""Neural problems: the oracles of the kernel protocol (:mod:`fedcomp.problems.base`) for
nn.Modules, evaluated by autograd on minibatches.

A problem holds each client's data on the device (:class:`ClientData`) and a :class:`FlatModel`.
Minibatches are drawn from sample keys exactly as the simulator's kernels draw them
(:func:`fedcomp.neural._core.draw_rows`): ``B`` rows ``randint(key, i, m_k)``, with replacement;
``exact=True`` means the client's whole data set.

Structures (the same names as the simulator):

``global-inner`` (:class:`GlobalCompositional`) - FedDRO problem (2), Phi = h + f((1/K) sum_k g_k):
    ``g_value(k, x, key, exact, buf)``, ``g_vjp(k, x, v, key, exact, buf)`` = grad g_k(x; zeta) v,
    ``h_grad(k, x, key, exact, buf)``, ``f_grad(y)``. The constructors :func:`kl_dro`,
    :func:`fairness_penalty` build the papers' instances.
``local-inner`` (:class:`LocalCompositional`) - ComFedL problem (1) / FCSG problem (1),
    Phi = (1/K) sum_k f_k(g_k): the minibatch oracles of the simulator's local-inner kernels
    (``g_value_b``, ``g_vjp_b``, ``f_grad_b``, ``loss_value_b``, ``loss_grad_b``,
    ``client_weight``, with the algorithm's batch size), and ``local_grad(k, x, key, exact, buf)``,
    the client's stochastic compositional gradient (ComFedL u = grad g(f_B(w))^T grad f_B(w)).
``minimax`` (:class:`AUCMinimax`) - AUC paper problem (4) with the compositional deep AUC of (2):
    ``inner_value`` g(x) = x - rho Delta(x), ``inner_vjp`` (I - rho Hess L_CE) u, ``outer_grads``
    (grad_z f, grad_y f) of the AUC loss (1), ``ce_grad``.
``conditional`` (:class:`ConditionalAUPRC`, :class:`MAMLProblem`) - FCSG problem (1): the
    estimator (3) ``cond_grad(k, x, key, exact, buf)`` with the problem's outer batch (tasks),
    ``cond_grad_b(k, x, key, exact, nb, buf)`` with nb of them (the first nb of the key's).
"""
from __future__ import annotations

import math

import numpy as np

from fedcomp import _validate as V
from fedcomp.neural._core import FlatModel, draw_rows, draw_rows_many, require_torch

torch = require_torch()
F = torch.nn.functional


class ClientData:
    """Per-client tensors on one device: inputs[k], targets[k] and optional extras[name][k]."""

    def __init__(self, inputs, targets, extras=None, device="cpu", dtype=None):
        if len(inputs) != len(targets) or not inputs:
            raise ValueError("inputs and targets must list the same number (>= 1) of clients")
        dtype = dtype or torch.get_default_dtype()
        self.sizes = [int(np.asarray(a).shape[0]) for a in inputs]
        if min(self.sizes) < 1:
            raise ValueError(f"every client needs at least one sample, sizes {self.sizes}")
        if [int(np.asarray(a).shape[0]) for a in targets] != self.sizes:
            raise ValueError("targets[k] must have as many rows as inputs[k] for every client")
        # every client's rows in one tensor (clients one after the other; ``offsets[k]`` is
        # client k's first row): the batched oracles gather all clients' minibatches with one
        # index; inputs[k], targets[k], extras[name][k] are views of it
        self.offsets = np.concatenate([[0], np.cumsum(self.sizes)[:-1]]).astype(np.int64)
        self.all_inputs = torch.as_tensor(np.concatenate([np.asarray(a) for a in inputs]),
                                          device=device).to(dtype)
        self.all_targets = torch.as_tensor(np.concatenate([np.asarray(a) for a in targets]),
                                           device=device)
        self.all_extras = {n: torch.as_tensor(np.concatenate([np.asarray(a) for a in v]),
                                              device=device)
                           for n, v in (extras or {}).items()}
        self.inputs = list(torch.split(self.all_inputs, self.sizes))
        self.targets = list(torch.split(self.all_targets, self.sizes))
        self.extras = {n: list(torch.split(v, self.sizes)) for n, v in self.all_extras.items()}

    @property
    def num_clients(self) -> int:
        return len(self.inputs)

    def rows(self, k: int, key, exact: bool, batch: int):
        if exact:
            return None
        return torch.as_tensor(draw_rows(np.uint64(key), np.int64(batch),
                                         np.int64(self.sizes[k])),
                               device=self.inputs[k].device)

    def batch(self, k: int, key, exact: bool, batch: int):
        """(inputs, targets, extras) of the minibatch of client k drawn from key."""
        r = self.rows(k, key, exact, batch)
        if r is None:
            return self.inputs[k], self.targets[k], {n: v[k] for n, v in self.extras.items()}
        return (self.inputs[k][r], self.targets[k][r],
                {n: v[k][r] for n, v in self.extras.items()})

    def gather(self, ks, keys, exact: bool, batch: int):
        """The minibatches of the clients ``ks`` (int64 array) drawn from ``keys`` (one per
        client of ks), the rows :meth:`batch` draws, as groups of clients with equal batch size:
        a list of (pos, inputs (G, B, ...), targets (G, B), extras) with ``pos`` the positions in
        ks of the group's clients. Stochastic minibatches form one group; ``exact`` (whole data
        sets) groups the clients by data-set size, so that no client's batch is padded (a
        padded sample would change BatchNorm's batch statistics)."""
        ks = np.asarray(ks, dtype=np.int64)
        sizes = np.asarray(self.sizes, dtype=np.int64)[ks]
        dev = self.all_inputs.device
        if exact:
            parts = []
            for m in np.unique(sizes):
                pos = np.flatnonzero(sizes == m)
                parts.append((pos, self.offsets[ks[pos]][:, None] + np.arange(m)[None, :]))
        else:
            rows = draw_rows_many(np.asarray(keys, dtype=np.uint64).reshape(-1),
                                  np.int64(batch), sizes)
            parts = [(np.arange(len(ks)), self.offsets[ks][:, None] + rows)]
        out = []
        for pos, idx in parts:
            it = torch.as_tensor(idx, device=dev)
            out.append((pos, self.all_inputs[it], self.all_targets[it],
                        {n: v[it] for n, v in self.all_extras.items()}))
        return out


def _in_order(parts, n):
    """Tensors computed per group, [(pos, tensor (len(pos), ...))], as one tensor (n, ...) in the
    clients' order (differentiable)."""
    if len(parts) == 1 and np.array_equal(parts[0][0], np.arange(n)):
        return parts[0][1]
    pos = np.concatenate([p for p, _ in parts])
    inv = np.empty(n, dtype=np.int64)
    inv[pos] = np.arange(n)
    vals = torch.cat([v for _, v in parts])
    return vals[torch.as_tensor(inv, device=vals.device)]


def _all(K):
    return np.arange(K, dtype=np.int64)


def _forward_groups(model, data, X, ks, keys, exact, nb, buf, train=True):
    """The model at the rows X (len(ks), d) of the clients ks on their minibatches, in groups
    (:meth:`ClientData.gather`): [(pos, outputs (G, B, ...), targets (G, B), extras)]. ``buf``:
    all clients' BatchNorm statistics (K, n_buf); the rows of ks are updated as the per-client
    calls update them."""
    out = []
    for pos, inp, tgt, ext in data.gather(ks, keys, exact, nb):
        rows = None
        if buf is not None and buf.shape[1]:
            sel = torch.as_tensor(ks[pos], device=buf.device)
            rows = buf[sel]
        o = model.batched(X[torch.as_tensor(pos, device=X.device)] if len(pos) != len(ks)
                          else X, inp, rows, train)
        if rows is not None and train:
            buf[sel] = rows
        out.append((pos, o, tgt, ext))
    return out


def _flat(o, tgt, ext):
    """(G, B, ...) group tensors as (G * B, ...) samples."""
    G, B = o.shape[:2]
    return (o.reshape(G * B, *o.shape[2:]), tgt.reshape(G * B, *tgt.shape[2:]),
            {n: v.reshape(G * B, *v.shape[2:]) for n, v in ext.items()})


def _leaf(x):
    return x.detach().requires_grad_(True)


# --- global-inner: FedDRO problem (2) ---------------------------------------------------------
class GlobalCompositional:
    """Phi(x) = h(x) + f((1/K) sum_k g_k(x)) on an nn.Module.

    Parameters
    ----------
    model : FlatModel
    data : ClientData
    inner : callable(outputs, targets, extras, k) -> (B, d_g) tensor
        Per-sample inner values; g_k(x; zeta) is their minibatch mean. The batched oracles call
        it once on the samples of several clients with k=None, so it must not depend on k
        (per-client behaviour belongs in ``extras``); ``h`` likewise.
    f_value, f_grad : callable(y) -> scalar / (d_g,)
    inner_dim : int
    h : callable(outputs, targets, extras, k) -> (B,) per-sample h_k values, or None
    batch_size : int
    """

    structure = "global-inner"

    def __init__(self, model: FlatModel, data: ClientData, inner, f_value, f_grad,
                 inner_dim: int, h=None, batch_size: int = 16, name: str = "neural"):
        self.model, self.data = model, data
        self.inner, self._f_value, self._f_grad, self.h = inner, f_value, f_grad, h
        self.num_clients, self.dim, self.inner_dim = data.num_clients, model.dim, inner_dim
        self.batch_size = V.positive_int("batch_size", batch_size)
        self.has_h = h is not None
        self.name = name

    def _out(self, k, x, key, exact, buf):
        inp, tgt, ext = self.data.batch(k, key, exact, self.batch_size)
        return self.model(x, inp, buf), tgt, ext

    def g_value(self, k, x, key, exact, buf=None):
        with torch.no_grad():
            out, tgt, ext = self._out(k, x, key, exact, buf)
            return self.inner(out, tgt, ext, k).mean(0)

    def g_vjp(self, k, x, v, key, exact, buf=None):
        xl = _leaf(x)
        out, tgt, ext = self._out(k, xl, key, exact, buf)
        g = self.inner(out, tgt, ext, k).mean(0)
        return torch.autograd.grad(g @ v, xl)[0]

    def h_grad(self, k, x, key, exact, buf=None):
        if not self.has_h:
            return torch.zeros_like(x)
        xl = _leaf(x)
        out, tgt, ext = self._out(k, xl, key, exact, buf)
        return torch.autograd.grad(self.h(out, tgt, ext, k).mean(), xl)[0]

    def f_grad(self, y):
        return self._f_grad(y)

    # batched oracles (fedcomp.engine.torch_backend.Bound): all clients in one vectorised call;
    # ``inner`` and ``h`` get the samples of a group of clients at once, with k=None
    def _client_means(self, X, keys, exact, buf, fn):
        parts = []
        for pos, o, tgt, ext in _forward_groups(self.model, self.data, X,
                                                _all(self.num_clients), keys, exact,
                                                self.batch_size, buf):
            G, B = o.shape[:2]
            v = fn(*_flat(o, tgt, ext), None)
            parts.append((pos, v.reshape(G, B, *v.shape[1:]).mean(1)))
        return _in_order(parts, self.num_clients)

    def g_value_batch(self, X, keys, exact, buf=None):
        with torch.no_grad():
            return self._client_means(X, keys, exact, buf, self.inner)

    def g_vjp_batch(self, X, W, keys, exact, buf=None):
        Xl = _leaf(X)
        g = self._client_means(Xl, keys, exact, buf, self.inner)
        return torch.autograd.grad((g * W).sum(), Xl)[0]

    def h_grad_batch(self, X, keys, exact, buf=None):
        if not self.has_h:
            return torch.zeros_like(X)
        Xl = _leaf(X)
        return torch.autograd.grad(self._client_means(Xl, keys, exact, buf, self.h).sum(),
                                   Xl)[0]

    def value(self, x, buf=None):
        """Phi(x) on the full client data sets (exact)."""
        with torch.no_grad():
            gs, hs = [], []
            for k in range(self.num_clients):
                out, tgt, ext = self._out(k, x, 0, True, buf)
                gs.append(self.inner(out, tgt, ext, k).mean(0))
                if self.has_h:
                    hs.append(self.h(out, tgt, ext, k).mean())
            v = self._f_value(torch.stack(gs).mean(0))
            return float(v + (torch.stack(hs).mean() if hs else 0.0))


def sample_loss(outputs, targets):
    """Per-sample training loss: logistic for one output column (the simulator's
    softplus(-s a.x), labels s = +1 for a positive target and -1 otherwise, so that both {-1, +1}
    and {0, 1} labels work), else cross-entropy over the classes."""
    if outputs.shape[1] == 1:
        s = torch.where(targets > 0, 1.0, -1.0).to(outputs.dtype)
        return F.softplus(-s * outputs[:, 0])
    return F.cross_entropy(outputs, targets, reduction="none")


def kl_dro(model, data, lam: float = 1.0, batch_size: int = 16, shift: float = math.log(2.0)):
    """KL-regularised DRO, FedDRO (4) times lambda: g_k = mean exp((loss - c)/lambda),
    f(u) = lambda log u + c, h = 0 (the same convention as :class:`fedcomp.problems.KLDRO`)."""
    lam = V.real_in("lam", lam, 0.0)

    def inner(out, tgt, ext, k):
        return torch.exp((sample_loss(out, tgt) - shift) / lam)[:, None]

    return GlobalCompositional(model, data, inner, lambda y: lam * torch.log(y[0]) + shift,
                               lambda y: lam / y, 1, batch_size=batch_size, name="kl-dro")


def fairness_penalty(model, data, num_groups: int, positive_share, penalty: float = 1.0,
                     batch_size: int = 16):
    """Equality of opportunity (Hardt et al. 2016) as a compositional penalty (FedDRO section 6).

    h_k = logistic loss; g_k in R^{1+G}: smoothed true-positive rates, g_0 = mean sigma(s) 1[y=1]
    / pi and g_j = mean sigma(s) 1[y=1, group=j] / pi_j, where pi, pi_j are the training shares of
    positives and of positives of group j (so that (1/K) sum_k g_k is the TPR for equal client
    sizes); f(u) = (penalty / 2) sum_j (u_j - u_0)^2, the squared gap between each protected
    group's TPR and the overall TPR (the constraint violation the paper measures). The paper
    takes its formulation from Haddadpour et al. (2022) without restating it; this is ours.
    ``data.extras['group']`` holds the group codes; targets are 0/1 labels.
    """
    pi = torch.as_tensor(np.asarray(positive_share, dtype=np.float64))
    G = V.positive_int("num_groups", num_groups)

    def inner(out, tgt, ext, k):
        s = torch.sigmoid(out[:, 0])
        pos = (tgt == 1).to(s.dtype)
        cols = [s * pos / pi[0]]
        for j in range(G):
            cols.append(s * pos * (ext["group"] == j).to(s.dtype) / pi[1 + j])
        return torch.stack(cols, 1)

    def h(out, tgt, ext, k):
        return F.binary_cross_entropy_with_logits(out[:, 0], tgt.to(out.dtype), reduction="none")

    def f_value(y):
        return 0.5 * penalty * ((y[1:] - y[0]) ** 2).sum()

    def f_grad(y):
        d = y[1:] - y[0]
        return penalty * torch.cat([-d.sum()[None], d])

    pi = pi.to(next(model.module.parameters()).dtype)
    return GlobalCompositional(model, data, inner, f_value, f_grad, 1 + G, h=h,
                               batch_size=batch_size, name="fairness")


# --- local-inner: ComFedL problem (6) -----------------------------------------------------
class LocalCompositional:
    """ComFedL (6): Phi = (1/K) sum_k exp(L_k(w) / gamma), L_k the client's mean loss.

    In the simulator's notation (:class:`fedcomp.problems.RobustFL`): inner g_k(w) = L_k(w), a
    scalar (d_g = 1), outer f(y) = exp(y / gamma) (deterministic, shared). The client gradient
    estimator of ComFedL section 3 for a deterministic outer function is u = exp(L_B(w) / gamma)
    grad L_B(w) / gamma on one minibatch B (biased). ``gamma=None`` gives the plain federated
    loss (1/K) sum_k L_k (f = identity; FedAvg, q-FedAvg, DRFL).

    Oracles of the local-inner algorithms (:mod:`fedcomp.algorithms.comfedl`,
    :mod:`fedcomp.algorithms.robust_baselines`), each with the algorithm's minibatch size ``nb``
    (its ``batch`` hyperparameter; ``batch_size`` is only the default of :meth:`loss_grad` and
    :meth:`local_grad`): ``g_value_b``, ``g_vjp_b``, ``g_linearize_b`` (value and Jacobian from one
    forward pass), ``f_grad_b``, ``loss_value_b`` (evaluation mode: BatchNorm statistics are used,
    not updated), ``loss_grad_b``, ``client_weight`` (n_k / N).
    """

    structure = "local-inner"
    inner_dim = 1

    def __init__(self, model: FlatModel, data: ClientData, gamma: float | None = None,
                 batch_size: int = 16):
        self.model, self.data = model, data
        self.gamma = None if gamma is None else V.real_in("gamma", gamma, 0.0)
        self.num_clients, self.dim = data.num_clients, model.dim
        self.batch_size = V.positive_int("batch_size", batch_size)

    def _loss(self, k, x, key, exact, nb, buf, train=True):
        inp, tgt, _ = self.data.batch(k, key, exact, nb)
        return sample_loss(self.model(x, inp, buf, train=train), tgt).mean()

    def loss_grad(self, k, x, key, exact, buf=None):
        """(L_B(x), grad L_B(x)) of client k's plain loss on the minibatch of key."""
        xl = _leaf(x)
        loss = self._loss(k, xl, key, exact, self.batch_size, buf)
        return loss.detach(), torch.autograd.grad(loss, xl)[0]

    def local_grad(self, k, x, key, exact, buf=None):
        loss, g = self.loss_grad(k, x, key, exact, buf)
        if self.gamma is None:
            return g
        return torch.exp(loss / self.gamma) * g / self.gamma

    # the local-inner oracles (minibatch size nb from the algorithm)
    def g_linearize_b(self, k, x, key, exact, nb, buf=None):
        """(g_k(x; B) = (L_B(x),), v -> v grad L_B(x)) from one forward and backward pass."""
        xl = _leaf(x)
        loss = self._loss(k, xl, key, exact, nb, buf)
        g = torch.autograd.grad(loss, xl)[0]
        return loss.detach()[None], lambda v: v[0] * g

    def g_value_b(self, k, x, key, exact, nb, buf=None):
        with torch.no_grad():
            return self._loss(k, x, key, exact, nb, buf)[None]

    def g_vjp_b(self, k, x, v, key, exact, nb, buf=None):
        return self.g_linearize_b(k, x, key, exact, nb, buf)[1](v)

    def f_grad_b(self, k, y, key, exact, nb, buf=None):
        return self._outer_grad(y)

    def _outer_grad(self, y):
        """f'(y) elementwise: exp(y / gamma) / gamma, or 1 for the plain loss (gamma None)."""
        if self.gamma is None:
            return torch.ones_like(y)
        return torch.exp(y / self.gamma) / self.gamma

    def loss_value_b(self, k, x, key, exact, nb, buf=None):
        with torch.no_grad():
            return float(self._loss(k, x, key, exact, nb, buf, train=False))

    def loss_grad_b(self, k, x, key, exact, nb, buf=None):
        xl = _leaf(x)
        return torch.autograd.grad(self._loss(k, xl, key, exact, nb, buf), xl)[0]

    def client_weight(self, k):
        return self.data.sizes[k] / sum(self.data.sizes)

    # batched oracles: the clients ks at once (rows of X in the order of ks, keys of ks)
    def _losses(self, ks, X, keys, exact, nb, buf, train=True):
        parts = []
        for pos, o, tgt, ext in _forward_groups(self.model, self.data, X, ks, keys, exact,
                                                int(nb), buf, train):
            G, B = o.shape[:2]
            fo, ft, _ = _flat(o, tgt, ext)
            parts.append((pos, sample_loss(fo, ft).reshape(G, B).mean(1)))
        return _in_order(parts, len(ks))

    def g_linearize_b_batch(self, ks, X, keys, exact, nb, buf=None):
        Xl = _leaf(X)
        L = self._losses(ks, Xl, keys, exact, nb, buf)
        G = torch.autograd.grad(L.sum(), Xl)[0]
        return L.detach()[:, None], lambda W: W[:, :1] * G

    def g_value_b_batch(self, ks, X, keys, exact, nb, buf=None):
        with torch.no_grad():
            return self._losses(ks, X, keys, exact, nb, buf)[:, None]

    def g_vjp_b_batch(self, ks, X, W, keys, exact, nb, buf=None):
        return self.g_linearize_b_batch(ks, X, keys, exact, nb, buf)[1](W)

    def f_grad_b_batch(self, ks, Y, keys, exact, nb, buf=None):
        return self._outer_grad(Y)

    def loss_value_b_batch(self, ks, X, keys, exact, nb, buf=None):
        with torch.no_grad():
            return self._losses(ks, X, keys, exact, nb, buf, train=False)

    def loss_grad_b_batch(self, ks, X, keys, exact, nb, buf=None):
        Xl = _leaf(X)
        return torch.autograd.grad(self._losses(ks, Xl, keys, exact, nb, buf).sum(), Xl)[0]


# --- minimax: AUC paper (4) with compositional deep AUC (2) ----------------------------------
class AUCMinimax:
    """min_x max_y (1/K) sum_k f_k((1/K) sum_k g_k(x), y), AUC paper (2)-(4).

    x = [w, a, b] (an :class:`~fedcomp.neural.models.AUCModel`), y = alpha (the paper's w~3),
    g_k(x; xi) = x - rho Delta(x; xi), Delta = [grad_w L_CE, 0, 0] (one gradient step on the
    binary cross-entropy), f_k(z, y; zeta) = L_AUC(z, y; zeta) of (1) with score
    h(w; a) = sigmoid(logit), labels b in {1, -1} (targets 1 / 0 here), p the positive prior.
    The inner Jacobian-vector product grad g^T u = u - rho Hess L_CE(x; xi) u is a Hessian-vector
    product (double backward). ``score="linear"`` scores with the logit itself (the simulator's
    linear scorer h = w^T z of :class:`fedcomp.problems.AUCMinimax`, used by the two-backend
    test); the default ``"sigmoid"`` keeps scores in [0, 1] for deep models (Yuan et al.).

    ``dual_floor`` (default None: the paper's (1), y unconstrained): the minimax algorithms
    project y onto y >= dual_floor after every dual step (:meth:`project_dual`). With
    ``dual_floor=-1`` this is the AUC-margin loss of Yuan et al. (2021, LibAUC's AUC-M with
    margin 1, whose dual alpha' = 1 + y is kept >= 0): a deviation from the paper's (1), ours.
    For y >= -1 the margin term 2 (1 + y)(...) can never reward reversing the ranking; the
    maximiser y* = E[s | -] - E[s | +] is below -1 only when the scores' class means are more
    than 1 apart (possible with the linear score, never with the sigmoid one).
    """

    structure = "minimax"

    def __init__(self, model: FlatModel, data: ClientData, prior: float, rho: float = 0.1,
                 batch_size: int = 32, score: str = "sigmoid", dual_floor: float | None = None):
        if score not in ("sigmoid", "linear"):
            raise ValueError(f"score must be 'sigmoid' or 'linear', got {score!r}")
        self.score = score
        self.dual_floor = (None if dual_floor is None
                           else V.real_in("dual_floor", dual_floor, -math.inf, math.inf))
        self.model, self.data = model, data
        self.prior = V.real_in("prior", prior, 0.0, 1.0)
        self.rho = V.real_in("rho", rho, 0.0, math.inf, low_open=False)
        self.batch_size = V.positive_int("batch_size", batch_size)
        self.num_clients, self.dim, self.dual_dim = data.num_clients, model.dim, 1
        self.idx_a = self._index("ab.a")
        self.idx_b = self._index("ab.b")

    def _index(self, name):
        o = 0
        for n, m in zip(self.model.names, self.model.sizes):
            if n == name:
                return o
            o += m
        raise ValueError(f"the AUC model needs a parameter {name!r} (use models.AUCModel)")

    def project_dual(self, y):
        """y onto {y >= dual_floor}, in place (nothing when dual_floor is None)."""
        if self.dual_floor is not None:
            y.clamp_(min=self.dual_floor)

    def _ce(self, x, inp, tgt):
        out = self.model(x, inp)[:, 0]
        return F.binary_cross_entropy_with_logits(out, tgt.to(out.dtype))

    def auc_loss(self, z, alpha, inp, tgt):
        """L_AUC of (1) averaged over the minibatch, at parameters z and dual alpha (scalar)."""
        p = self.prior
        s = self.model(z, inp)[:, 0]
        if self.score == "sigmoid":
            s = torch.sigmoid(s)
        return (self._auc_terms(s, tgt, z[self.idx_a], z[self.idx_b], alpha).mean()
                - p * (1 - p) * alpha ** 2)

    def _auc_terms(self, s, tgt, a, b, alpha):
        """The per-sample terms of (1) for scores s and labels tgt (broadcast with a, b, alpha)."""
        p = self.prior
        pos = (tgt == 1).to(s.dtype)
        neg = 1.0 - pos
        return ((1 - p) * (s - a) ** 2 * pos + p * (s - b) ** 2 * neg
                + 2 * (1 + alpha) * (p * s * neg - (1 - p) * s * pos))

    # batched oracles: all clients in one vectorised call
    def _groups(self, X, keys, exact):
        return _forward_groups(self.model, self.data, X, _all(self.num_clients), keys, exact,
                               self.batch_size, None)

    def _ce_clients(self, X, keys, exact):
        return _in_order([(pos, F.binary_cross_entropy_with_logits(
            o[..., 0], tgt.to(o.dtype), reduction="none").mean(1))
            for pos, o, tgt, _ in self._groups(X, keys, exact)], self.num_clients)

    def ce_grad_batch(self, X, keys, exact):
        Xl = _leaf(X)
        return torch.autograd.grad(self._ce_clients(Xl, keys, exact).sum(), Xl)[0]

    def inner_linearize_batch(self, X, keys, exact):
        if self.rho == 0.0:
            return X.detach().clone(), lambda U: U.clone()
        Xl = _leaf(X)
        g = torch.autograd.grad(self._ce_clients(Xl, keys, exact).sum(), Xl,
                                create_graph=True)[0]

        def vjp(U):
            return U - self.rho * torch.autograd.grad((g * U).sum(), Xl)[0]

        return X.detach() - self.rho * g.detach(), vjp

    def outer_grads_batch(self, Z, A, keys, exact):
        p = self.prior
        Zl, Al = _leaf(Z), _leaf(A)
        parts = []
        for pos, o, tgt, _ in self._groups(Zl, keys, exact):
            s = o[..., 0]
            if self.score == "sigmoid":
                s = torch.sigmoid(s)
            zp = Zl[torch.as_tensor(pos, device=Zl.device)]
            al = Al[torch.as_tensor(pos, device=Al.device), 0]
            per = self._auc_terms(s, tgt, zp[:, self.idx_a, None], zp[:, self.idx_b, None],
                                  al[:, None])
            parts.append((pos, per.mean(1) - p * (1 - p) * al ** 2))
        gz, ga = torch.autograd.grad(_in_order(parts, self.num_clients).sum(), (Zl, Al))
        return gz, ga

    def ce_grad(self, k, x, key, exact):
        xl = _leaf(x)
        inp, tgt, _ = self.data.batch(k, key, exact, self.batch_size)
        return torch.autograd.grad(self._ce(xl, inp, tgt), xl)[0]

    def inner_value(self, k, x, key, exact):
        """g_k(x; xi) = x - rho grad L_CE(x; xi)."""
        if self.rho == 0.0:
            return x.detach().clone()
        return x.detach() - self.rho * self.ce_grad(k, x, key, exact)

    def inner_vjp(self, k, x, u, key, exact):
        """grad g_k(x; xi)^T u = u - rho Hess L_CE(x; xi) u."""
        if self.rho == 0.0:
            return u.clone()
        xl = _leaf(x)
        inp, tgt, _ = self.data.batch(k, key, exact, self.batch_size)
        g = torch.autograd.grad(self._ce(xl, inp, tgt), xl, create_graph=True)[0]
        hv = torch.autograd.grad(g @ u, xl)[0]
        return u - self.rho * hv

    def inner_linearize(self, k, x, key, exact):
        """(g_k(x; xi), u -> grad g_k(x; xi)^T u) from one forward/backward pass (the graph of
        grad L_CE is kept for the Hessian-vector product; LocalSCGDAM needs both at one point
        and one sample)."""
        if self.rho == 0.0:
            return x.detach().clone(), lambda u: u.clone()
        xl = _leaf(x)
        inp, tgt, _ = self.data.batch(k, key, exact, self.batch_size)
        g = torch.autograd.grad(self._ce(xl, inp, tgt), xl, create_graph=True)[0]

        def vjp(u):
            return u - self.rho * torch.autograd.grad(g @ u, xl)[0]

        return x.detach() - self.rho * g.detach(), vjp

    def outer_grads(self, k, z, alpha, key, exact):
        """(grad_z f_k(z, alpha; zeta), grad_alpha f_k(z, alpha; zeta)) of the AUC loss (1)."""
        zl = _leaf(z)
        al = _leaf(alpha)
        inp, tgt, _ = self.data.batch(k, key, exact, self.batch_size)
        gz, ga = torch.autograd.grad(self.auc_loss(zl, al[0], inp, tgt), (zl, al))
        return gz, ga


# --- conditional stochastic: FCSG problem (1) ------------------------------------------------
class ConditionalAUPRC:
    """Federated online AUPRC, FCSG (6): F = (1/N) sum_n E_{xi+} f(E_xi g_n(x; xi+, xi)).

    g(x; z+, z) = [1(y=1) l(x; z+, z), l(x; z+, z)] with the squared hinge surrogate
    l = (max{s - h(x; z+) + h(x; z), 0})^2 (the FCSG text prints "s h(x; z+) + h(x; z)", with the
    minus sign lost in extraction; Qi et al. 2021 define l = (s - h(z+) + h(z))_+^2), score
    h = sigmoid(logit), margin s; f(u) = -u_1 / u_2 (minus the AP surrogate, minimised).
    Estimator (3): for each of b outer samples xi+ (a positive of the client), m inner samples
    xi (any of the client's samples): (mean grad g)^T grad f(mean g), averaged over the b.
    """

    structure = "conditional"

    def __init__(self, model: FlatModel, data: ClientData, margin: float = 0.6,
                 outer_batch: int = 8, inner_batch: int = 32):
        self.model, self.data = model, data
        self.margin = margin
        self.outer_batch = V.positive_int("outer_batch", outer_batch)
        self.inner_batch = V.positive_int("inner_batch", inner_batch)
        self.num_clients, self.dim = data.num_clients, model.dim
        self.pos_rows = [torch.nonzero(t == 1).flatten() for t in data.targets]
        self._pos_np = [r.cpu().numpy() for r in self.pos_rows]
        if any(len(r) == 0 for r in self.pos_rows):
            raise ValueError("every client needs at least one positive sample for AUPRC")

    def cond_grad(self, k, x, key, exact, buf=None):
        return self.cond_grad_b(k, x, key, exact, self.outer_batch, buf)

    def cond_grad_b(self, k, x, key, exact, nb, buf=None):
        """Estimator (3) with nb outer samples (the first nb of `key`'s; FCSG's initial batch B)."""
        from fedcomp.rng import substream
        xl = _leaf(x)
        pr = self.pos_rows[k]
        po = draw_rows(np.uint64(substream(np.uint64(key), 0)), np.int64(nb),
                       np.int64(len(pr)))
        zpos = self.data.inputs[k][pr[torch.as_tensor(po, device=pr.device)]]
        inn = draw_rows(np.uint64(substream(np.uint64(key), 1)), np.int64(self.inner_batch),
                        np.int64(self.data.sizes[k]))
        inn = torch.as_tensor(inn, device=pr.device)
        zin, yin = self.data.inputs[k][inn], self.data.targets[k][inn]
        hp = torch.sigmoid(self.model(xl, zpos)[:, 0])            # (b,)
        hin = torch.sigmoid(self.model(xl, zin)[:, 0])            # (m,)
        sur = torch.clamp(self.margin - hp[:, None] + hin[None, :], min=0.0) ** 2  # (b, m)
        u1 = (sur * (yin == 1).to(sur.dtype)[None, :]).mean(1)    # (b,)
        u2 = sur.mean(1)
        # estimator (3): gradient of f at the inner means, chained through them (per outer sample)
        obj = (-(u1 / (u2 + 1e-12))).mean()
        return torch.autograd.grad(obj, xl)[0]

    def cond_grad_batch(self, X, keys, exact, buf=None):
        return self.cond_grad_b_batch(X, keys, exact, self.outer_batch, buf)

    def cond_grad_b_batch(self, X, keys, exact, nb, buf=None):
        """:meth:`cond_grad_b` for every client at once (the same draws), (K, d)."""
        from fedcomp.rng import substream
        keys = np.asarray(keys, dtype=np.uint64).reshape(-1)
        sub = [np.array([substream(np.uint64(key), j) for key in keys], dtype=np.uint64)
               for j in (0, 1)]
        d = self.data
        npos = np.array([len(r) for r in self.pos_rows], dtype=np.int64)
        po = draw_rows_many(sub[0], np.int64(nb), npos)
        pos_idx = np.stack([self._pos_np[k][po[k]] for k in range(len(keys))]) \
            + d.offsets[:, None]
        inn = draw_rows_many(sub[1], np.int64(self.inner_batch),
                             np.asarray(d.sizes, dtype=np.int64)) + d.offsets[:, None]
        dev = d.all_inputs.device
        pos_idx, inn = torch.as_tensor(pos_idx, device=dev), torch.as_tensor(inn, device=dev)
        Xl = _leaf(X)
        hp = torch.sigmoid(self.model.batched(Xl, d.all_inputs[pos_idx])[..., 0])   # (K, b)
        hin = torch.sigmoid(self.model.batched(Xl, d.all_inputs[inn])[..., 0])      # (K, m)
        sur = torch.clamp(self.margin - hp[:, :, None] + hin[:, None, :], min=0.0) ** 2
        yin = (d.all_targets[inn] == 1).to(sur.dtype)[:, None, :]
        u1, u2 = (sur * yin).mean(2), sur.mean(2)
        obj = (-(u1 / (u2 + 1e-12))).mean(1)
        return torch.autograd.grad(obj.sum(), Xl)[0]


SCO_OUTER = ("same-task", "independent")


class MAMLProblem:
    """Federated MAML as conditional stochastic optimisation, FCSG 5.2:
    g_n(x; task) = x - lambda grad L_task(x; support), f_n(y) = L_task(y; query).

    Estimator (3) for one task: (I - lambda Hess L_support(x)) grad L_query(x - lambda grad
    L_support(x)) (second-order MAML gradient), averaged over ``tasks_per_step`` tasks drawn
    from the client's characters. Tasks: N-way K-shot with ``query`` query images per class.

    **The compositional (SCO) reformulation** that the paper's baselines Local-SCGD and
    Local-SCGDM (Gao, Li and Huang, ICML 2022; :mod:`fedcomp.algorithms.local_scgd`) solve, FCSG
    5.2's "converting the MAML optimization to the stochastic compositional optimization":
    Phi_n(x) = f_n(g_n(x)) with the inner map g_n(x) = E_eta[x - lambda grad L(x; support)] and
    the outer f_n(y) = E[L(y; query)] taken as separate expectations. The oracles of the kernel
    protocol, each on the ``tasks_per_step`` tasks of the key (the key's tasks as
    :meth:`cond_grad` draws them; a minibatch of the SCO problem is the mean over them):

    * ``g_value(k, x, key, exact, buf)`` = x - lambda mean_i grad L_i(x; support_i);
    * ``g_vjp(k, x, v, key, exact, buf)`` = v - lambda mean_i Hess L_i(x; support_i) v (a
      Hessian-vector product by double backward; the Jacobian of g is symmetric);
    * ``f_grad(k, y, key, exact, buf)`` = mean_j grad L_j(y; query_j), stochastic, so the
      problem declares ``stochastic_outer = True`` and the torch backend passes the sample keys
      (:meth:`fedcomp.engine.torch_backend.Bound.f_grad`);
    * ``h_grad`` = 0 (no h), ``inner_dim`` = d.

    Two readings of which query tasks j the outer gradient sees (``sco_outer``):

    * **(B) "same-task"** (the default, run by the experiments): the tasks of the inner sample,
      one key for both; what "Local-SCGD on MAML" does when a step draws a task and uses its
      support and query sets. The moving-average inner state h of Local-SCGD(M) then mixes the
      adapted models of earlier tasks, and f_n's gradient is taken at that mixture on the
      current tasks' query sets: the paper's explanation of the baselines' poor results ("it
      ignores the effect of task sampling").
    * **(A) "independent"**: the outer tasks drawn independently of the inner ones (the
      substream 1 of the key), as the SCO problem's separate expectations read literally.

    ``exact`` is ignored by the MAML oracles (tasks are always sampled), as by :meth:`cond_grad`.
    """

    structure = "conditional"
    stochastic_outer = True
    has_h = False

    def __init__(self, model: FlatModel, client_chars, n_way: int = 5, k_shot: int = 1,
                 query: int = 15, inner_lr: float = 0.4, tasks_per_step: int = 4,
                 device="cpu", task_chunk: int = 32, sco_outer: str = "same-task"):
        self.model = model
        self.task_chunk = V.positive_int("task_chunk", task_chunk)
        if sco_outer not in SCO_OUTER:
            raise ValueError(f"sco_outer must be one of {', '.join(SCO_OUTER)}, got "
                             f"{sco_outer!r}")
        self.sco_outer = sco_outer
        self.chars = [torch.as_tensor(c, device=device).to(torch.get_default_dtype())
                      for c in client_chars]  # each (n_chars, n_draw, 1, s, s)
        self.n_way, self.k_shot, self.query = n_way, k_shot, query
        self.inner_lr, self.tasks = inner_lr, tasks_per_step
        self.num_clients, self.dim = len(self.chars), model.dim
        self.inner_dim = self.dim
        for c in self.chars:
            if c.shape[0] < n_way or c.shape[1] < k_shot + query:
                raise ValueError(f"each client needs >= n_way={n_way} characters with >= "
                                 f"k_shot + query = {k_shot + query} drawings, got {tuple(c.shape)}")

    def sample_task(self, chars, rng):
        """(support x, support y, query x, query y) of one N-way K-shot task: N characters
        without replacement (``rng.choice``), then for each a permutation of its drawings cut to
        K + query; class-major order."""
        cls = rng.choice(chars.shape[0], self.n_way, replace=False)
        draws = np.stack([rng.permutation(chars.shape[1])[:self.k_shot + self.query]
                          for _ in cls])
        dev = chars.device
        imgs = chars[torch.as_tensor(cls, device=dev)[:, None], torch.as_tensor(draws, device=dev)]
        lab = torch.arange(self.n_way, device=dev)
        return (imgs[:, :self.k_shot].reshape(-1, *imgs.shape[2:]),
                lab.repeat_interleave(self.k_shot),
                imgs[:, self.k_shot:].reshape(-1, *imgs.shape[2:]),
                lab.repeat_interleave(self.query))

    def adapt(self, x, sx, sy, steps: int = 1, create_graph: bool = False):
        y = x
        for _ in range(steps):
            loss = F.cross_entropy(self.model(y, sx), sy)
            g = torch.autograd.grad(loss, y, create_graph=create_graph)[0]
            y = y - self.inner_lr * g
        return y

    def cond_grad(self, k, x, key, exact, buf=None):
        return self.cond_grad_b(k, x, key, exact, self.tasks, buf)

    def cond_grad_b(self, k, x, key, exact, nb, buf=None):
        """Estimator (3) averaged over nb tasks (the first nb of `key`'s; FCSG's initial batch
        B)."""
        rng = np.random.default_rng(int(np.uint64(key) >> np.uint64(1)))
        xl = _leaf(x)
        total = torch.zeros_like(x)
        for _ in range(nb):
            sx, sy, qx, qy = self.sample_task(self.chars[k], rng)
            y = self.adapt(xl, sx, sy, 1, create_graph=True)
            total += torch.autograd.grad(F.cross_entropy(self.model(y, qx), qy), xl)[0]
        return total / nb

    def cond_grad_batch(self, X, keys, exact, buf=None):
        return self.cond_grad_b_batch(X, keys, exact, self.tasks, buf)

    def cond_grad_b_batch(self, X, keys, exact, nb, buf=None):
        """:meth:`cond_grad_b` for every client at once: the same tasks (each client's rng from
        its key), every (client, task) pair one row of a vectorised call (its adapted
        parameters differ), in chunks of max(1, task_chunk // nb) clients (at most
        ``task_chunk`` tasks unless one client's nb tasks exceed it) to bound memory."""
        keys = np.asarray(keys, dtype=np.uint64).reshape(-1)
        nb = int(nb)
        tasks = []
        for k, key in enumerate(keys):
            rng = np.random.default_rng(int(np.uint64(key) >> np.uint64(1)))
            tasks.append([self.sample_task(self.chars[k], rng) for _ in range(nb)])
        out = torch.empty_like(X)
        per = max(1, self.task_chunk // nb)
        for c0 in range(0, len(keys), per):
            c1 = min(len(keys), c0 + per)
            flat = [t for k in range(c0, c1) for t in tasks[k]]
            sx, sy, qx, qy = (torch.stack([t[i] for t in flat]) for i in range(4))
            Xl = _leaf(X[c0:c1])
            Xr = Xl.repeat_interleave(nb, 0)
            g = torch.autograd.grad(self._task_losses(Xr, sx, sy).sum(), Xr,
                                    create_graph=True)[0]
            lq = self._task_losses(Xr - self.inner_lr * g, qx, qy)
            out[c0:c1] = torch.autograd.grad(lq.sum(), Xl)[0] / nb
        return out

    # --- the SCO reformulation (Local-SCGD(M)); see the class docstring -----------------------
    def _key_tasks(self, k, key, nb, outer=False):
        """The nb tasks of client k for ``key``: those of :meth:`cond_grad_b` (the inner sample
        and, reading B, the outer one); reading A's outer tasks come from substream 1 of key."""
        if outer and self.sco_outer == "independent":
            from fedcomp.rng import substream
            key = substream(np.uint64(key), 1)
        rng = np.random.default_rng(int(np.uint64(key) >> np.uint64(1)))
        return [self.sample_task(self.chars[k], rng) for _ in range(nb)]

    def _mean_task_grad(self, x, tasks, part, create_graph=False):
        """mean over tasks of grad L(x; support) (part 0) or grad L(x; query) (part 2) at the
        leaf x."""
        loss = sum(F.cross_entropy(self.model(x, t[part]), t[part + 1]) for t in tasks)
        return torch.autograd.grad(loss / len(tasks), x, create_graph=create_graph)[0]

    def g_value(self, k, x, key, exact, buf=None):
        """g_k(x; eta) = x - lambda mean_i grad L_i(x; support_i) on the key's tasks."""
        tasks = self._key_tasks(k, key, self.tasks)
        return x.detach() - self.inner_lr * self._mean_task_grad(_leaf(x), tasks, 0)

    def g_vjp(self, k, x, v, key, exact, buf=None):
        """grad g_k(x; eta)^T v = v - lambda mean_i Hess L_i(x; support_i) v."""
        tasks = self._key_tasks(k, key, self.tasks)
        xl = _leaf(x)
        g = self._mean_task_grad(xl, tasks, 0, create_graph=True)
        return v - self.inner_lr * torch.autograd.grad(g @ v, xl)[0]

    def f_grad(self, k, y, key, exact, buf=None):
        """grad f_k(y; a) = mean_j grad L_j(y; query_j) on the key's outer tasks (reading B:
        the inner sample's tasks; A: independent ones)."""
        return self._mean_task_grad(_leaf(y), self._key_tasks(k, key, self.tasks, outer=True),
                                    2)

    def h_grad(self, k, x, key, exact, buf=None):
        return torch.zeros_like(x)

    def _sco_batch(self, X, keys, part, outer=False, vec=None):
        """The SCO oracles for every client at once, every (client, task) pair one row of a
        vectorised call, in chunks of clients as :meth:`cond_grad_b_batch`: the mean over the
        key's tasks of grad L(X_k; support) (part 0) or of grad L(X_k; query) (part 2); with
        ``vec`` (K, d), the Hessian-vector products mean_i Hess L_i(X_k; support_i) vec_k."""
        keys = np.asarray(keys, dtype=np.uint64).reshape(-1)
        nb = self.tasks
        out = torch.empty_like(X)
        per = max(1, self.task_chunk // nb)
        for c0 in range(0, len(keys), per):
            c1 = min(len(keys), c0 + per)
            flat = [t for k in range(c0, c1) for t in self._key_tasks(k, keys[k], nb, outer)]
            inp, lab = (torch.stack([t[i] for t in flat]) for i in (part, part + 1))
            Xl = _leaf(X[c0:c1])
            lo = self._task_losses(Xl.repeat_interleave(nb, 0), inp, lab).sum() / nb
            g = torch.autograd.grad(lo, Xl, create_graph=vec is not None)[0]
            out[c0:c1] = g if vec is None else torch.autograd.grad((g * vec[c0:c1]).sum(),
                                                                   Xl)[0]
        return out

    def g_value_batch(self, X, keys, exact, buf=None):
        return X.detach() - self.inner_lr * self._sco_batch(X, keys, 0)

    def g_vjp_batch(self, X, W, keys, exact, buf=None):
        return W - self.inner_lr * self._sco_batch(X, keys, 0, vec=W)

    def f_grad_batch(self, Y, keys, exact, buf=None):
        return self._sco_batch(Y, keys, 2, outer=True)

    def _task_losses(self, X, inputs, labels):
        """Mean cross-entropy of every row of X on its task's images (V, n, ...), (V,)."""
        o = self.model.batched(X, inputs)
        V, n = o.shape[:2]
        return F.cross_entropy(o.reshape(V * n, -1), labels.reshape(-1),
                               reduction="none").reshape(V, n).mean(1)

    def evaluate(self, x, chars, n_tasks: int, steps: int, seed: int = 0):
        """Mean query accuracy after ``steps`` adaptation steps on n_tasks test tasks."""
        rng = np.random.default_rng(seed)
        accs = []
        for _ in range(n_tasks):
            sx, sy, qx, qy = self.sample_task(chars, rng)
            y = self.adapt(_leaf(x), sx, sy, steps).detach()
            with torch.no_grad():
                accs.append(float((self.model(y, qx).argmax(1) == qy).float().mean()))
        return float(np.mean(accs))
