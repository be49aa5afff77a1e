"""Problems written in sympy: ``SymbolicProblem(x, y, g, f, h=None, noise=0.0)``.

A user writes the pieces of problem (2) of the FedDRO paper (Khanduri et al., section 2),

    Phi(x) = h(x) + f(g(x)),   g(x) = (1/K) sum_k g_k(x),   h(x) = (1/K) sum_k h_k(x),

as sympy expressions. fedcomp differentiates them symbolically (Jacobians of the g_k, gradient of
f, gradients of the h_k) and *generates a kernel module*: Python source with one
``@numba.njit(cache=True)`` function per oracle of the kernel protocol
(:mod:`fedcomp.problems.base`), written as explicit scalar statements after common-subexpression
elimination (:func:`sympy.cse`). Every registered algorithm then runs on the problem at the
engine's full speed, with no Python per step.

Where the module lives
    The source is written to ``fedcomp.engine.build.cache_dir()`` as ``fcsym_<hash>.py``, the hash
    being that of the source itself (so the same expressions give the same module and numba's
    on-disk cache is reused across processes). The module is importable by name as
    ``fedcomp.problems.symbolic.fcsym_<hash>``: this module sets ``__path__`` to the cache
    directory, which makes it a namespace for the generated modules. A fresh process (or a Dask /
    multiprocessing worker) therefore imports the kernels by name with no set-up; an unpickled
    problem rewrites the file when the worker's cache directory lacks it.

Kernel module (the protocol names plus extras)
    ``HAS_H``, ``g_value``, ``g_vjp``, ``h_grad``, ``f_grad``, ``g_mean``, ``phi_value``,
    ``phi_grad`` as in :mod:`fedcomp.problems.base`; also ``f_value(data, k, y)``,
    ``h_value(data, k, x)`` (0 without h) and ``g_jac(data, k, x, out)`` (exact Jacobian,
    out (d_g, d)). ``data = (params,)`` with ``params = [noise]``.

Noise (as :class:`fedcomp.problems.LinearQuadratic`, ``_linear_kernels``)
    With ``noise = sigma > 0`` the sampled oracles are unbiased: a sample of g_k adds
    e ~ N(0, sigma^2 I_{d_g}) to the value (substream 0 of the key, so one key gives one e at every
    point, FedDRO (8)) and E (d_g x d, i.i.d. N(0, sigma^2)) to the Jacobian; the product
    (J_k + E)^T v is drawn as J_k^T v + sigma ||v|| z, z ~ N(0, I_d) (substream 1), which has the
    distribution of E^T v. The sampled gradient of h_k adds N(0, sigma^2 I_d) (substream 0 of
    the h key); LinearQuadratic has no h, so this is the natural extension, not a copy.
    Because the value noise e is the same at two points of one key, g_k(.; zeta) keeps the
    mean-squared Lipschitz constant of g_k (Assumption 3.2): the noise cancels in differences.

Errors
    ``ValueError`` for expressions that use symbols not declared (in x for g and h, in y for f),
    lists of the wrong shape, complex or infinite constants, functions the code printer cannot
    translate; at evaluation (:meth:`value`, :meth:`grad`, :meth:`inner`) for points where Phi or
    its gradient is not finite, and (in :meth:`grad`) for points on a kink of ``Abs``, ``sign``,
    ``Heaviside``, ``Max`` or ``Min`` (where the symbolic derivative sympy returns is a one-sided
    choice, not a derivative). Kinks of ``Piecewise`` conditions are not detected. The compiled
    oracles run inside the engine do not check (no per-step Python); a non-finite iterate is
    reported by the engine as divergence.

Symbols are replaced internally by real symbols ``x0, ..., x{d-1}`` and ``y0, ..., y{d_g-1}``
so that sympy differentiates ``Abs`` and friends as real functions.

Compile cost grows with K (every oracle dispatches on the client with a balanced tree of ``if``
tests over k whose leaves hold the client's statements): a problem with many clients sharing one
formula with different numbers is better written as an array-backed problem family.
"""
from __future__ import annotations

import hashlib
import importlib
import math
import sys
from pathlib import Path

import numpy as np
import sympy as sp
from sympy.printing.pycode import PythonCodePrinter

from fedcomp import _validate as V
from fedcomp.problems.base import Problem

__all__ = ["SymbolicProblem"]

_GENERATOR_VERSION = "2"
_MODULE_PREFIX = "fcsym_"


def _kernel_dir() -> Path:
    from fedcomp.engine.build import cache_dir
    return cache_dir()


# This module doubles as the package of the generated kernel modules (see module docstring).
__path__ = [str(_kernel_dir())]


def _ensure_on_path(directory: Path) -> None:
    d = str(directory)
    if d not in __path__:
        __path__.append(d)


# --------------------------------------------------------------------------------------------
# code printing
# --------------------------------------------------------------------------------------------
class _KernelPrinter(PythonCodePrinter):
    """Python source that numba compiles: ``math.*`` functions, floats printed exactly."""

    def __init__(self):
        super().__init__({"standard": "python3", "fully_qualified_modules": True})

    def _print_Float(self, expr):
        v = float(expr)
        return repr(v) if math.isfinite(v) else "math.nan"

    def _print_Rational(self, expr):
        return repr(float(expr.p) / float(expr.q)) if expr.q != 1 else f"{expr.p}.0"

    def _print_Integer(self, expr):
        return f"{int(expr)}.0"

    def _print_Pow(self, expr, rational=False):
        base, e = expr.as_base_exp()
        if e.is_Integer and 0 < int(e) <= 4:
            b = self.parenthesize(base, 1000)  # precedence above any operator
            return "(" + "*".join([b] * int(e)) + ")"
        if e.is_Integer and int(e) < 0:
            return f"(1.0/{self._print(sp.Pow(base, -e))})"
        if e == sp.Rational(1, 2):
            return f"math.sqrt({self._print(base)})"
        if e == -sp.Rational(1, 2):
            return f"(1.0/math.sqrt({self._print(base)}))"
        if e.is_Integer:
            return f"({self.parenthesize(base, 1000)}**{int(e)})"
        return f"({self.parenthesize(base, 1000)}**{self._print(e)})"


def _print_expr(printer: _KernelPrinter, expr, where: str) -> str:
    from sympy.printing.codeprinter import PrintMethodNotImplementedError
    try:
        return printer.doprint(expr)
    except PrintMethodNotImplementedError as exc:
        raise ValueError(f"{where}: cannot compile {expr}: {exc}".split("\nSet the")[0]) from None


def _block(printer, exprs: list, assign: list[str], where: str, indent: str,
           names: dict) -> list[str]:
    """Statements computing `exprs` (cse'd) and assigning them to the targets in `assign`."""
    exprs = [sp.sympify(e) for e in exprs]
    replacements, reduced = sp.cse(exprs, symbols=sp.numbered_symbols("_c"), optimizations=None)
    lines = []
    used = set()
    for e in [r[1] for r in replacements] + reduced:
        used |= {s.name for s in e.free_symbols}
    for nm in sorted(used):
        if nm in names:
            lines.append(f"{indent}{nm} = {names[nm]}")
    for sym, e in replacements:
        lines.append(f"{indent}{sym.name} = {_print_expr(printer, e, where)}")
    for target, e in zip(assign, reduced):
        lines.append(f"{indent}{target}{_print_expr(printer, e, where)}")
    return lines


def _dispatch(K: int, branch, indent: str) -> list[str]:
    """A balanced tree of `if k < m` tests whose leaf k holds branch(k, indent)."""
    def rec(lo, hi, ind):
        if hi - lo == 1:
            body = branch(lo, ind)
            return body if body else [f"{ind}pass"]
        mid = (lo + hi) // 2
        return ([f"{ind}if k < {mid}:"] + rec(lo, mid, ind + "    ")
                + [f"{ind}else:"] + rec(mid, hi, ind + "    "))
    return rec(0, K, indent)


def _generate_source(xs, ys, g, jac, f, fgrad, h, hgrad) -> str:
    pr = _KernelPrinter()
    K, dg, d = len(g), len(ys), len(xs)
    xnames = {s.name: f"x[{j}]" for j, s in enumerate(xs)}
    ynames = {s.name: f"y[{i}]" for i, s in enumerate(ys)}
    has_h = h is not None
    L = ['"""Generated by fedcomp.problems.symbolic for a SymbolicProblem. Do not edit: the',
         'file name carries the hash of this text (see fedcomp.problems.symbolic)."""',
         "import math",
         "",
         "import numba as nb",
         "import numpy as np",
         "",
         "from fedcomp.rng import add_normal, substream",
         "",
         f"HAS_H = {has_h}",
         f"SYMBOLIC_NUM_CLIENTS = {K}",
         f"SYMBOLIC_DIM = {d}",
         f"SYMBOLIC_INNER_DIM = {dg}",
         ""]

    def fn(header, body):
        # error_model="numpy": 1/0 gives inf (the engine then reports divergence) instead of
        # raising ZeroDivisionError inside a compiled run
        L.extend(["", '@nb.njit(cache=True, error_model="numpy")', header, *body, ""])

    # g_value
    body = _dispatch(K, lambda k, ind: _block(pr, g[k], [f"out[{i}] = " for i in range(dg)],
                                              f"g[{k}]", ind, xnames), "    ")
    body += ["    if not exact and data[0][0] > 0.0:",
             "        add_normal(substream(key, 0), data[0][0], out)"]
    fn("def g_value(data, k, x, key, exact, out):", body)

    # g_jac (exact)
    def jac_branch(k, ind):
        ex, tg = [], []
        for i in range(dg):
            for j in range(d):
                ex.append(jac[k][i][j])
                tg.append(f"out[{i}, {j}] = ")
        return _block(pr, ex, tg, f"Jacobian of g[{k}]", ind, xnames)
    fn("def g_jac(data, k, x, out):", _dispatch(K, jac_branch, "    "))

    # g_vjp: out = J_k^T v
    def vjp_branch(k, ind):
        ex, tg = [], []
        for j in range(d):
            terms = [(i, jac[k][i][j]) for i in range(dg) if jac[k][i][j] != 0]
            if not terms:
                ex.append(sp.Integer(0))
                tg.append(f"out[{j}] = ")
                continue
            vs = [sp.Symbol(f"_v{i}", real=True) for i in range(dg)]
            # unevaluated sum keeps the order i = 0, 1, ... (the order of a matrix product)
            ex.append(sp.Add(*[e * vs[i] for i, e in terms], evaluate=False)
                      if len(terms) > 1 else terms[0][1] * vs[terms[0][0]])
            tg.append(f"out[{j}] = ")
        names = dict(xnames)
        names.update({f"_v{i}": f"v[{i}]" for i in range(dg)})
        return _block(pr, ex, tg, f"Jacobian of g[{k}]", ind, names)
    body = _dispatch(K, vjp_branch, "    ")
    body += ["    if not exact and data[0][0] > 0.0:",
             "        nv = 0.0",
             "        for i in range(v.shape[0]):",
             "            nv += v[i] * v[i]",
             "        add_normal(substream(key, 1), data[0][0] * np.sqrt(nv), out)"]
    fn("def g_vjp(data, k, x, v, key, exact, out):", body)

    # h_grad, h_value
    if has_h:
        body = _dispatch(K, lambda k, ind: _block(pr, hgrad[k], [f"out[{j}] = " for j in range(d)],
                                                  f"gradient of h[{k}]", ind, xnames), "    ")
        body += ["    if not exact and data[0][0] > 0.0:",
                 "        add_normal(substream(key, 0), data[0][0], out)"]
        fn("def h_grad(data, k, x, key, exact, out):", body)
        fn("def h_value(data, k, x):",
           _dispatch(K, lambda k, ind: _block(pr, [h[k]], ["return "], f"h[{k}]", ind, xnames),
                     "    "))
    else:
        fn("def h_grad(data, k, x, key, exact, out):",
           ["    for j in range(out.shape[0]):", "        out[j] = 0.0"])
        fn("def h_value(data, k, x):", ["    return 0.0"])

    # f_value, f_grad
    fn("def f_value(data, k, y):", _block(pr, [f], ["return "], "f", "    ", ynames))
    fn("def f_grad(data, k, y, out):",
       _block(pr, fgrad, [f"out[{i}] = " for i in range(dg)], "gradient of f", "    ", ynames))

    # exact measures
    fn("def g_mean(data, x, out):", [
        "    tmp = np.empty(out.shape[0])",
        "    for i in range(out.shape[0]):",
        "        out[i] = 0.0",
        f"    for k in range({K}):",
        "        g_value(data, k, x, np.uint64(0), np.bool_(True), tmp)",
        "        for i in range(out.shape[0]):",
        "            out[i] += tmp[i]",
        "    for i in range(out.shape[0]):",
        f"        out[i] /= {K}.0"])
    fn("def phi_value(data, x):", [
        f"    y = np.empty({dg})",
        "    g_mean(data, x, y)",
        "    val = f_value(data, 0, y)",
        "    if HAS_H:",
        "        s = 0.0",
        f"        for k in range({K}):",
        "            s += h_value(data, k, x)",
        f"        val += s / {K}.0",
        "    return val"])
    fn("def phi_grad(data, x, out):", [
        f"    y = np.empty({dg})",
        f"    v = np.empty({dg})",
        "    tmp = np.empty(out.shape[0])",
        "    g_mean(data, x, y)",
        "    f_grad(data, 0, y, v)",
        "    for j in range(out.shape[0]):",
        "        out[j] = 0.0",
        f"    for k in range({K}):",
        "        g_vjp(data, k, x, v, np.uint64(0), np.bool_(True), tmp)",
        "        for j in range(out.shape[0]):",
        "            out[j] += tmp[j]",
        "        if HAS_H:",
        "            h_grad(data, k, x, np.uint64(0), np.bool_(True), tmp)",
        "            for j in range(out.shape[0]):",
        "                out[j] += tmp[j]",
        "    for j in range(out.shape[0]):",
        f"        out[j] /= {K}.0"])
    return "\n".join(L) + "\n"


def _install_module(source: str) -> str:
    """Write `source` under its hash in the kernel directory; return the dotted module name."""
    digest = hashlib.sha256((_GENERATOR_VERSION + source).encode()).hexdigest()[:20]
    short = f"{_MODULE_PREFIX}{digest}"
    directory = _kernel_dir()
    _ensure_on_path(directory)
    path = directory / f"{short}.py"
    from fedcomp.engine.kernel_cache import install
    install(path, source)
    name = f"{__name__}.{short}"
    if name not in sys.modules:
        importlib.invalidate_caches()
    return name


# --------------------------------------------------------------------------------------------
# input checking
# --------------------------------------------------------------------------------------------
_KINK_TYPES = (sp.Abs, sp.sign, sp.Heaviside)


def _symbol_list(name: str, value) -> list:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise ValueError(f"{name} must be a list of sympy Symbols, got {type(value).__name__}")
    out = list(value)
    if not out:
        raise ValueError(f"{name} must contain at least one sympy Symbol")
    for i, s in enumerate(out):
        if not isinstance(s, sp.Symbol):
            raise ValueError(f"{name}[{i}] must be a sympy Symbol, got {s!r} "
                             f"({type(s).__name__})")
    if len(set(out)) != len(out):
        raise ValueError(f"{name} contains a symbol twice: {out}")
    return out


def _expression(where: str, value, allowed: set, allowed_name: str):
    if isinstance(value, (str, bytes)):
        raise ValueError(f"{where} must be a sympy expression, got the string {value!r} "
                         f"(build it from the declared Symbols)")
    try:
        e = sp.sympify(value, strict=True)
    except (sp.SympifyError, TypeError) as exc:
        raise ValueError(f"{where} must be a sympy expression, got {value!r}: {exc}") from None
    if not isinstance(e, sp.Expr) or isinstance(e, (sp.MatrixBase,)):
        raise ValueError(f"{where} must be a scalar sympy expression, got {type(e).__name__}")
    extra = e.free_symbols - allowed
    if extra:
        raise ValueError(f"{where} uses symbols {sorted(map(str, extra))} that are not declared "
                         f"in {allowed_name} (declared: {sorted(map(str, allowed))})")
    if e.has(sp.zoo, sp.oo, -sp.oo, sp.nan):
        raise ValueError(f"{where} contains an infinite or undefined constant: {e}")
    if e.has(sp.I):
        raise ValueError(f"{where} must be real-valued; it contains the imaginary unit: {e}")
    for pw in e.atoms(sp.Piecewise):
        if pw.args[-1].cond != sp.true:
            raise ValueError(f"{where}: Piecewise {pw} has no otherwise branch (its last "
                             "condition must be True), so it is undefined somewhere")
    if e.atoms(sp.Derivative, sp.Integral):
        raise ValueError(f"{where} contains an unevaluated derivative or integral: {e}")
    return e


def _kinks(exprs) -> list:
    """Expressions whose zeros are points where an expression is not differentiable."""
    out = []
    for e in exprs:
        for a in e.atoms(*_KINK_TYPES):
            out.append(a.args[0])
        for a in e.atoms(sp.Max, sp.Min):
            args = a.args
            for i in range(len(args)):
                for j in range(i + 1, len(args)):
                    out.append(args[i] - args[j])
    uniq = []
    for e in out:
        if e not in uniq and not e.is_number:
            uniq.append(e)
    return uniq


class SymbolicProblem(Problem):
    """Problem (2) of the FedDRO paper written in sympy (see the module docstring).

    Parameters
    ----------
    x : list of sympy.Symbol
        The model, length d.
    y : list of sympy.Symbol
        The arguments of f, length d_g.
    g : list over clients of lists of sympy expressions in x
        ``g[k][j]`` is coordinate j of g_k; K = len(g) >= 1 and every ``g[k]`` has length d_g.
    f : sympy expression in y
        The outer function (global, as in problem (2)).
    h : None or list over clients of sympy expressions in x
        The non-compositional parts h_k (None: h = 0).
    noise : float >= 0
        sigma of the stochastic oracles (module docstring).

    Attributes
    ----------
    symbols_x, symbols_y : tuple of sympy.Symbol
        The internal real symbols x0.., y0.. used in the expressions below.
    g_expr : tuple of tuples of sympy expressions
    f_expr : sympy expression
    h_expr : tuple of sympy expressions, or None
    jacobians : tuple of sympy.Matrix (d_g, d), one per client
    f_gradient : tuple of sympy expressions (d_g)
    h_gradients : tuple of tuples (d), or None

    Examples
    --------
    >>> import sympy as sp
    >>> x1, x2, y1 = sp.symbols("x1 x2 y1")
    >>> p = SymbolicProblem([x1, x2], [y1], [[sp.sin(x1) + x2], [x1 * x2]], y1**2 / 2)
    >>> p.num_clients, p.dim, p.inner_dim
    (2, 2, 1)
    """

    structure = "global-inner"
    name = "symbolic"

    def __init__(self, x, y, g, f, h=None, noise: float = 0.0):
        xs_user = _symbol_list("x", x)
        ys_user = _symbol_list("y", y)
        both = set(xs_user) & set(ys_user)
        if both:
            raise ValueError("x and y must not share symbols; both contain "
                             f"{sorted(map(str, both))}")
        d, dg = len(xs_user), len(ys_user)
        if isinstance(g, (str, bytes, sp.Basic)) or not hasattr(g, "__len__"):
            raise ValueError("g must be a list over clients of lists over the d_g inner "
                             "coordinates (g[k][j] is coordinate j of g_k), got "
                             f"{type(g).__name__}")
        K = len(g)
        if K < 1:
            raise ValueError("g must have at least one client (K >= 1)")
        xs = [sp.Symbol(f"x{j}", real=True) for j in range(d)]
        ys = [sp.Symbol(f"y{i}", real=True) for i in range(dg)]
        xmap = dict(zip(xs_user, xs))
        ymap = dict(zip(ys_user, ys))
        gx = []
        for k, gk in enumerate(g):
            if isinstance(gk, (str, bytes, sp.Basic)) or not hasattr(gk, "__len__"):
                raise ValueError(f"g[{k}] must be a list of {dg} expressions (one per inner "
                                 f"coordinate, d_g = len(y) = {dg}), got {gk!r}")
            if len(gk) != dg:
                raise ValueError(f"g[{k}] must have length d_g = len(y) = {dg}, got {len(gk)}")
            gx.append(tuple(_expression(f"g[{k}][{j}]", e, set(xs_user), "x").xreplace(xmap)
                            for j, e in enumerate(gk)))
        fy = _expression("f", f, set(ys_user), "y").xreplace(ymap)
        hx = None
        if h is not None:
            if isinstance(h, (str, bytes, sp.Basic)) or not hasattr(h, "__len__"):
                raise ValueError("h must be None or a list over clients of expressions in x, "
                                 f"got {type(h).__name__}")
            if len(h) != K:
                raise ValueError(f"h must have one expression per client (K = len(g) = {K}), "
                                 f"got {len(h)}")
            hx = tuple(_expression(f"h[{k}]", e, set(xs_user), "x").xreplace(xmap)
                       for k, e in enumerate(h))
        self.noise = V.real_in("noise", noise, 0.0, math.inf, low_open=False)

        self.num_clients, self.dim, self.inner_dim = K, d, dg
        self.symbols_x, self.symbols_y = tuple(xs), tuple(ys)
        self.user_symbols_x, self.user_symbols_y = tuple(xs_user), tuple(ys_user)
        self.g_expr, self.f_expr, self.h_expr = tuple(gx), fy, hx
        self.jacobians = tuple(sp.Matrix(dg, d, lambda i, j: sp.diff(gk[i], xs[j])) for gk in gx)
        self.f_gradient = tuple(sp.diff(fy, yi) for yi in ys)
        self.h_gradients = (None if hx is None else
                            tuple(tuple(sp.diff(hk, xj) for xj in xs) for hk in hx))
        jac_lists = [[[J[i, j] for j in range(d)] for i in range(dg)] for J in self.jacobians]
        self._source = _generate_source(xs, ys, gx, jac_lists, fy, self.f_gradient, hx,
                                        self.h_gradients)
        self.kernels = _install_module(self._source)
        self.data = (np.array([self.noise], dtype=np.float64),)
        self._checkers = None

    # --- description ---------------------------------------------------------------------------
    @property
    def expression_hash(self) -> str:
        return self.kernels.rsplit("_", 1)[-1]

    def describe(self) -> dict:
        out = super().describe()
        out["expressions"] = self.expression_hash
        return out

    def __repr__(self) -> str:
        return (f"SymbolicProblem(K={self.num_clients}, d={self.dim}, d_g={self.inner_dim}, "
                f"h={'yes' if self.h_expr is not None else 'no'}, noise={self.noise}, "
                f"kernels={self.kernels.rsplit('.', 1)[-1]})")

    # --- pickling: workers rebuild the module file if their cache lacks it -----------------------
    def __getstate__(self):
        state = dict(self.__dict__)
        state["_checkers"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        name = _install_module(self._source)
        if name != self.kernels:  # pragma: no cover - same source, same hash
            raise RuntimeError("kernel module hash changed while unpickling")

    # --- exact measures with domain checks --------------------------------------------------------
    def _point_checkers(self):
        if self._checkers is None:
            xs, ys = self.symbols_x, self.symbols_y
            ex_x = list(e for gk in self.g_expr for e in gk)
            if self.h_expr is not None:
                ex_x += list(self.h_expr)
            kx = _kinks(ex_x)
            ky = _kinks([self.f_expr])
            # the kernel printer writes floats exactly (sympy's default keeps 15 digits, which
            # can move a kink off the float where it is)
            mods = [{"math": math}, "math"]
            fx = [(str(e), sp.lambdify(xs, e, modules=mods, printer=_KernelPrinter()))
                  for e in kx]
            fy = [(str(e), sp.lambdify(ys, e, modules=mods, printer=_KernelPrinter()))
                  for e in ky]
            self._checkers = (fx, fy)
        return self._checkers

    def _check_kinks(self, x: np.ndarray) -> None:
        fx, fy = self._point_checkers()
        for text, fn in fx:
            try:
                v = fn(*x)
            except (ValueError, ZeroDivisionError, OverflowError):
                continue
            if v == 0:
                raise ValueError(f"Phi is not differentiable at x = {x.tolist()}: the kink "
                                 f"expression {text} (in the internal symbols x0..) is 0 there")
        if fy:
            yv = super().inner(x)
            for text, fn in fy:
                try:
                    v = fn(*yv)
                except (ValueError, ZeroDivisionError, OverflowError):
                    continue
                if v == 0:
                    raise ValueError(f"Phi is not differentiable at x = {x.tolist()}: f has a "
                                     f"kink ({text} = 0) at y = g(x) = {yv.tolist()}")

    def value(self, x) -> float:
        """Phi(x), exact; ValueError where Phi is not finite."""
        xa = self._check_x(x)
        try:
            v = super().value(xa)
        except (ZeroDivisionError, ArithmeticError) as exc:
            raise ValueError(f"Phi cannot be evaluated at x = {xa.tolist()}: {exc}") from None
        if not math.isfinite(v):
            raise ValueError(f"Phi is not finite at x = {xa.tolist()} (value {v}); the point is "
                             "outside the domain of an expression")
        return v

    def grad(self, x) -> np.ndarray:
        """grad Phi(x), exact; ValueError where Phi is not differentiable or not finite."""
        xa = self._check_x(x)
        try:
            gv = super().grad(xa)
        except (ZeroDivisionError, ArithmeticError) as exc:
            raise ValueError(f"grad Phi is not finite at x = {xa.tolist()}: {exc}") from None
        if not np.all(np.isfinite(gv)):
            raise ValueError(f"grad Phi is not finite at x = {xa.tolist()} ({gv.tolist()}); "
                             "an expression is not differentiable there")
        self._check_kinks(xa)
        return gv

    def inner(self, x) -> np.ndarray:
        """g(x), exact; ValueError where it is not finite."""
        xa = self._check_x(x)
        gv = super().inner(xa)
        if not np.all(np.isfinite(gv)):
            raise ValueError(f"g is not finite at x = {xa.tolist()} ({gv.tolist()})")
        return gv

    def jacobian(self, k: int, x) -> np.ndarray:
        """Exact Jacobian of g_k at x, shape (d_g, d)."""
        k = V.positive_int("k", k, minimum=0)
        if k >= self.num_clients:
            raise ValueError(f"k must be in [0, {self.num_clients - 1}], got {k}")
        out = np.zeros((self.inner_dim, self.dim))
        self.kernel_module.g_jac(self.data, k, self._check_x(x), out)
        return out

    # --- helpers for other modules ----------------------------------------------------------------
    def phi_expr(self):
        """Phi as one sympy expression in the internal symbols (h + f(mean_k g_k))."""
        K = self.num_clients
        gbar = [sp.Add(*[gk[i] for gk in self.g_expr]) / K for i in range(self.inner_dim)]
        phi = self.f_expr.xreplace(dict(zip(self.symbols_y, gbar)))
        if self.h_expr is not None:
            phi = phi + sp.Add(*self.h_expr) / K
        return phi

    @classmethod
    def from_strings(cls, x, y, g, f, h=None, noise: float = 0.0) -> "SymbolicProblem":
        """The same problem from names and formula strings (JSON-able arguments, so that
        :class:`fedcomp.runner.RunSpec` can rebuild it in a worker).

        Parameters
        ----------
        x, y : list of str
            Names of the model and inner symbols.
        g : list over clients of lists of str;  f : str;  h : None or list of str
            Formulas in sympy syntax using those names and sympy's functions (``sin``, ``exp``,
            ``log``, ``sqrt``, ``Abs``, ...). A name that is neither declared nor a sympy
            function is reported as an undeclared symbol.

        Examples
        --------
        >>> p = SymbolicProblem.from_strings(["a"], ["u"], [["sin(a)"], ["a**2"]], "u**2/2")
        >>> p.num_clients
        2
        """
        from sympy.parsing.sympy_parser import parse_expr
        for name, names in (("x", x), ("y", y)):
            if isinstance(names, str) or not all(isinstance(n, str) for n in names):
                raise ValueError(f"{name} must be a list of symbol names (strings)")
        xs = [sp.Symbol(n, real=True) for n in x]
        ys = [sp.Symbol(n, real=True) for n in y]
        local = {s_.name: s_ for s_ in xs + ys}

        def parse(text, where):
            if not isinstance(text, str):
                raise ValueError(f"{where} must be a formula string, got {text!r}")
            try:
                return parse_expr(text, local_dict=dict(local), evaluate=True)
            except (SyntaxError, TypeError, sp.SympifyError) as exc:
                raise ValueError(f"{where}: cannot parse {text!r}: {exc}") from None

        if isinstance(g, str) or not hasattr(g, "__len__"):
            raise ValueError("g must be a list over clients of lists of formula strings")
        gx = []
        for k, gk in enumerate(g):
            if isinstance(gk, str) or not hasattr(gk, "__len__"):
                raise ValueError(f"g[{k}] must be a list of formula strings")
            gx.append([parse(e, f"g[{k}][{j}]") for j, e in enumerate(gk)])
        hx = None if h is None else [parse(e, f"h[{k}]") for k, e in enumerate(h)]
        return cls(xs, ys, gx, parse(f, "f"), h=hx, noise=noise)

    @classmethod
    def from_linear_quadratic(cls, A, b, noise: float = 0.0) -> "SymbolicProblem":
        """The :class:`~fedcomp.problems.LinearQuadratic` instance (A, b) written in sympy."""
        A = V.finite_array("A", A, ndim=3)
        K, dg, d = A.shape
        b = V.finite_array("b", b, shape=(K, dg))
        xs = sp.symbols(f"x0:{d}", real=True)
        ys = sp.symbols(f"y0:{dg}", real=True)
        g = [[sp.Add(*[sp.Float(float(A[k, i, j])) * xs[j] for j in range(d)])
              + sp.Float(float(b[k, i])) for i in range(dg)] for k in range(K)]
        f = sp.Rational(1, 2) * sp.Add(*[yi**2 for yi in ys])
        return cls(list(xs), list(ys), g, f, noise=noise)
