"""Shared machinery of the neural backend: torch import, device choice, flat parameter vectors
and counter-based minibatch draws.

Why flat vectors: the simulator holds the K client models as the rows of one array X (K, d), and
every algorithm is written against that layout (averaging a variable is a mean over rows). The
neural backend keeps exactly that layout, X is a torch tensor (K, d), and evaluates an nn.Module at
row k through :func:`torch.func.functional_call` on views of that row (:class:`FlatModel`). The
algorithms of :mod:`fedcomp.neural.algorithms` are therefore line-by-line the simulator's steps.

Why the same random keys: a minibatch of client k at iteration t, slot j, is the rows
``randint(sample_key(base, k, t, j), i, m_k)`` for i < B, the exact draws of the simulator's
kernels (:mod:`fedcomp.problems._logistic`); with the same seed both backends see the same
samples (the equivalence test of the two backends relies on it).
"""
from __future__ import annotations

import contextlib

import numba as nb
import numpy as np

from fedcomp.rng import randint, sample_key, base_key  # noqa: F401  (re-exported)

INSTALL_HINT = ("the neural backend needs PyTorch: pip install 'fedcomp[neural]' "
                "(a CPU-only build: pip install torch==2.13.0 --index-url "
                "https://download.pytorch.org/whl/cpu)")


def require_torch():
    """Import torch or raise ImportError saying how to install it."""
    try:
        import torch
    except ModuleNotFoundError as exc:  # pragma: no cover - exercised only without torch
        raise ImportError(INSTALL_HINT) from exc
    return torch


@contextlib.contextmanager
def full_float32():
    """Context in which CUDA convolutions and matrix products compute in IEEE float32, not
    TensorFloat-32. PyTorch lets cuDNN convolutions use TF32 by default (a 10-bit mantissa): a
    GPU run would then compute something else than the CPU run of the same float32 model, and
    the comparison of the two, or of a GPU run with the paper, would mix precision into it. On
    the CPU the flags change nothing. The previous settings are restored on exit."""
    b = require_torch().backends
    if hasattr(b.cudnn, "conv"):   # torch >= 2.9
        flags = [(b.cudnn.conv, "fp32_precision", "ieee"),
                 (b.cuda.matmul, "fp32_precision", "ieee")]
    else:                          # pragma: no cover - older torch
        flags = [(b.cudnn, "allow_tf32", False), (b.cuda.matmul, "allow_tf32", False)]
    saved = [getattr(obj, name) for obj, name, _ in flags]
    for obj, name, value in flags:
        setattr(obj, name, value)
    try:
        yield
    finally:
        for (obj, name, _), value in zip(flags, saved):
            setattr(obj, name, value)


@contextlib.contextmanager
def deterministic_cudnn():
    """Context in which cuDNN picks deterministic convolution algorithms and does not benchmark
    candidates (``torch.backends.cudnn.deterministic = True``, ``benchmark = False``; PyTorch's
    defaults are False and False). cuDNN's default choice may use algorithms whose floating-point
    sums run in a varying order, so two runs of one seed on one GPU differ (docs/neural.md, "A GPU
    is not reproducible from one run to the next either"). Other CUDA kernels that accumulate
    with atomics (some pooling and indexing backwards) are not covered by these flags, and
    ``torch.use_deterministic_algorithms`` is left alone: it also changes CPU kernels, and the
    stored CPU runs must stay reproducible bit for bit. On the CPU the flags change nothing.
    The previous settings are restored on exit."""
    cudnn = require_torch().backends.cudnn
    saved = (cudnn.deterministic, cudnn.benchmark)
    cudnn.deterministic, cudnn.benchmark = True, False
    try:
        yield
    finally:
        cudnn.deterministic, cudnn.benchmark = saved


def device_name(device: str) -> str:
    """The model of the device a run computes on, for the stored runs' ``device_name``: the
    GPU's name (``torch.cuda.get_device_name``) for "cuda", the processor's model name
    (/proc/cpuinfo's "model name", else :func:`platform.processor`, else the machine type) for
    "cpu"."""
    if str(device).startswith("cuda"):
        return require_torch().cuda.get_device_name(device)
    import platform
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith("model name") and ":" in line:
                    name = line.split(":", 1)[1].strip()
                    if name:
                        return name
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown cpu"


def resolve_device(device: str = "auto") -> str:
    """'cpu', 'cuda' or 'auto' (cuda when available, else cpu) -> the torch device string."""
    torch = require_torch()
    if device not in ("cpu", "cuda", "auto"):
        raise ValueError(f"device must be one of cpu, cuda, auto, got {device!r}")
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("device='cuda' was asked for but torch sees no CUDA device "
                         "(use --device cpu or auto)")
    return device


@nb.njit(cache=True)
def draw_rows(key, batch, size):
    """Rows of a minibatch: randint(key, i, size) for i < batch (the simulator's draws)."""
    out = np.empty(batch, dtype=np.int64)
    for i in range(batch):
        out[i] = randint(key, i, size)
    return out


@nb.njit(cache=True)
def draw_rows_many(keys, batch, sizes):
    """The rows of :func:`draw_rows` for several clients at once: out[i] = draw_rows(keys[i],
    batch, sizes[i]), an int64 array (len(keys), batch)."""
    out = np.empty((keys.shape[0], batch), dtype=np.int64)
    for c in range(keys.shape[0]):
        for i in range(batch):
            out[c, i] = randint(keys[c], i, sizes[c])
    return out


def key_of(base, k: int, t: int, j: int):
    """sample_key(base, k, t, j) as a numpy uint64 (callable from Python)."""
    return np.uint64(sample_key(np.uint64(base), np.int64(k), np.int64(t), np.int64(j)))


class FlatModel:
    """An nn.Module evaluated at flat parameter vectors.

    Parameters
    ----------
    module : torch.nn.Module
        Its parameters define the layout of the vector (named_parameters order); its floating
        buffers (BatchNorm running statistics) are kept per client as a flat vector as well.

    Attributes
    ----------
    dim : int
        Number of parameters d.
    buffer_dim : int
        Number of floating buffer entries (0 for models without BatchNorm statistics).
    """

    def __init__(self, module):
        torch = require_torch()
        self.module = module
        self.names, self.shapes, self.sizes = [], [], []
        for n, p in module.named_parameters():
            self.names.append(n)
            self.shapes.append(tuple(p.shape))
            self.sizes.append(p.numel())
        self.buf_names, self.buf_shapes, self.buf_sizes = [], [], []
        self.fixed_buffers = {}
        for n, b in module.named_buffers():
            if torch.is_floating_point(b):
                self.buf_names.append(n)
                self.buf_shapes.append(tuple(b.shape))
                self.buf_sizes.append(b.numel())
            else:  # e.g. num_batches_tracked: unused with a fixed BN momentum
                self.fixed_buffers[n] = b
        self.dim = int(sum(self.sizes))
        self.buffer_dim = int(sum(self.buf_sizes))
        self.has_convolutions = any(isinstance(m, torch.nn.modules.conv._ConvNd)
                                    for m in module.modules())

    def to(self, device, dtype):
        self.module = self.module.to(device=device, dtype=dtype)
        self.fixed_buffers = {n: b.to(device) for n, b in self.fixed_buffers.items()}
        return self

    def initial_vector(self):
        """The module's current parameters as one vector (d,)."""
        torch = require_torch()
        return torch.cat([p.detach().reshape(-1) for p in self.module.parameters()])

    def initial_buffers(self):
        torch = require_torch()
        bufs = [b.detach().reshape(-1) for n, b in self.module.named_buffers()
                if n in self.buf_names]
        if not bufs:
            p = next(self.module.parameters())
            return torch.zeros(0, dtype=p.dtype, device=p.device)
        return torch.cat(bufs)

    def _split(self, vec, names, shapes, sizes):
        out, o = {}, 0
        for n, s, m in zip(names, shapes, sizes):
            out[n] = vec[o:o + m].view(s)
            o += m
        return out

    def __call__(self, x, inputs, buffers=None, train: bool = True):
        """Output of the module with parameters x (d,) on inputs.

        ``buffers`` (buffer_dim,) is updated in place by BatchNorm layers in training mode (it
        must then be a view of the client's row so that the client keeps its own statistics).
        """
        torch = require_torch()
        params = self._split(x, self.names, self.shapes, self.sizes)
        if self.buffer_dim:
            if buffers is None:
                raise ValueError("this model has BatchNorm statistics: pass buffers")
            params.update(self._split(buffers, self.buf_names, self.buf_shapes, self.buf_sizes))
        params.update(self.fixed_buffers)
        self.module.train(train)
        return torch.func.functional_call(self.module, params, (inputs,))

    def batched(self, X, inputs, buffers=None, train: bool = True):
        """Outputs of the module at every row of X (n, d) on that row's inputs (n, B, ...): one
        vectorised call (:func:`torch.func.vmap` over :func:`torch.func.functional_call`) that
        equals ``stack([self(X[i], inputs[i], buffers[i]) for i])``; (n, B, outputs).

        ``buffers`` (n, buffer_dim): each row's BatchNorm statistics, updated in place in
        training mode, as the per-row calls update theirs. Gradients flow to X (rows are
        independent, so the gradient of a sum of per-row losses has row i = the gradient of
        loss i).
        """
        torch = require_torch()
        from torch.func import functional_call, vmap
        n = X.shape[0]
        params = self._split_rows(X, self.names, self.shapes, self.sizes)
        bufs = {}
        if self.buffer_dim:
            if buffers is None:
                raise ValueError("this model has BatchNorm statistics: pass buffers")
            bufs = {k: v.clone() for k, v in
                    self._split_rows(buffers, self.buf_names, self.buf_shapes,
                                     self.buf_sizes).items()}
        fixed = self.fixed_buffers
        self.module.train(train)

        def one(p, b, x):
            return functional_call(self.module, {**p, **b, **fixed}, (x,))

        out = vmap(one)(params, bufs, inputs)
        if bufs and train:  # BatchNorm updated the copies: back into the caller's rows
            buffers[:] = torch.cat([bufs[nm].reshape(n, -1) for nm in self.buf_names], 1)
        return out

    @staticmethod
    def _split_rows(mat, names, shapes, sizes):
        out, o = {}, 0
        for nm, s, m in zip(names, shapes, sizes):
            out[nm] = mat[:, o:o + m].reshape(mat.shape[0], *s)
            o += m
        return out
