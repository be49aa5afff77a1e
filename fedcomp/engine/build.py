"""Assembles and caches the compiled kernel module of an (algorithm, problem kernels) pair.

Why generated source: numba compiles a function that receives another jitted function as an
argument, but it cannot cache such a function on disk (the callee enters as a "dynamic global"),
and first-class function pointers would block inlining. A module in which the algorithm's steps and
the problem's oracles are plain globals has neither problem. So for each pair this writes a small
module -- imports of the problem's kernels and of the primitives, then the source of the
algorithm's steps and of the engine loop -- into the cache directory, imports it and jit-compiles
with ``cache=True``. The file name carries a hash of every source it depends on, so editing an
algorithm, a problem's kernels or the engine yields a new module rather than a stale cache.

The recorded metrics (``record_metrics`` of :mod:`fedcomp.engine.loop`) do not depend on the
algorithm, so they live in a second generated module per problem kernel module
(``fcgen__metrics__<kernels>_<digest>``, :func:`metrics_module`) that every pair module on those
kernels imports: they compile once per problem family, not once per pair (about 1-1.5 s each).

Every generated function is compiled with ``error_model="numpy"``: a division by zero gives inf or
NaN, which the loop reports as divergence (``diverged_at``), instead of raising out of compiled
code. Problem kernels must use the same error model (they are compiled separately).

Compile time: a kernel function that is not numba-inlined is compiled once per argument
types, and numba types a constant ``0`` or ``True`` argument as a literal, so
``f(..., True, 0)`` next to ``f(..., exact, j)`` compiles ``f`` and all it calls twice (as
does a loop index started at ``0`` and passed to it). fedcomp's kernels pass ``np.int64(0)``
and ``np.bool_(True)``; tests/test_backends.py fails naming any literal specialisation.

Steps and helpers are compiled with ``inline="always"``: a client step then becomes one block of
code in the loop, without call boundaries whose argument passing and reference counting cost more
than the arithmetic of small problems (bench/engine_bench.py, docs/bench.md).

Optional oracles of the kernel protocol (``g_value2``, ``outer_grads``, ``phi_value_grad``,
``cond_grad2``) that a problem's kernel module does not define are pasted from
:mod:`fedcomp.engine.defaults` (built from the required oracles); they are compiled only if a
step or the loop calls them.

Cache directory: ``$FEDCOMP_CACHE_DIR``, else ``$XDG_CACHE_HOME/fedcomp``, else
``~/.cache/fedcomp``.
"""
from __future__ import annotations

import contextlib
import dis
import functools
import hashlib
import importlib
import importlib.util
import inspect
import os
import sys
import textwrap
import threading
import time
import types
import warnings
from pathlib import Path

import numba

from fedcomp.algorithms import spec as _spec
from fedcomp.algorithms.base import Algorithm
from fedcomp.engine import defaults as _defaults
from fedcomp.engine import loop as _loop

_LOADED: dict[str, object] = {}
# kernel_module and metrics_module run under it: a module is visible in sys.modules while it
# executes, and another thread's pair module importing a half-executed metrics module would fail
_LOCK = threading.RLock()
_BY_PAIR: dict[tuple, object] = {}
_DEP_MODULES = ("fedcomp.engine.loop", "fedcomp.engine.prims", "fedcomp.engine.defaults",
                "fedcomp.rng")


def _dep_files(names) -> list[Path]:
    """The source files of the modules `names` and of every fedcomp module they import,
    transitively (:func:`fedcomp._numba_cache.closure`: read from the import statements), sorted.

    Why: numba's disk cache checks only the file that defines a function, and the generated
    module inlines code from the problem's kernels and everything they import (the logistic loss,
    the dense products, the random streams...). Every such file goes into the generated module's
    name (:func:`source_digest`), so that editing any of them yields a new module instead of a
    stale cache; the problem kernels' own numba caches follow the same rule
    (:mod:`fedcomp._numba_cache`)."""
    from fedcomp import _numba_cache
    files = set()
    for name in names:
        path = getattr(importlib.import_module(name), "__file__", None)
        if path is not None:
            files.update(_numba_cache.closure(Path(path)))
    return sorted(files)


def _fedcomp_deps(names) -> list[str]:
    """:func:`_dep_files` as module names (a file outside the package by its path)."""
    from fedcomp import _numba_cache
    return sorted(_numba_cache._module_name(f) or str(f) for f in _dep_files(names))


def source_digest(alg: Algorithm, kernels: str, src: str | None = None) -> str:
    """sha256 of the generated source of (alg, kernels) (`src` when the caller has it) and of
    every file its compiled code comes from (:func:`_dep_files` of the kernels and the engine
    modules, :func:`fedcomp._numba_cache.digest`): the name of the generated module, and the
    ``code`` label of the runs the result store keeps
    (:func:`fedcomp.runner.results.code_and_data`), so that a run computed by other code is
    never reused."""
    from fedcomp import _numba_cache
    h = hashlib.sha256((generate_source(alg, kernels) if src is None else src).encode())
    h.update(_numba_cache.digest(_dep_files((kernels, *_DEP_MODULES))).encode())
    return h.hexdigest()


def cache_dir() -> Path:
    root = os.environ.get("FEDCOMP_CACHE_DIR")
    if root:
        p = Path(root)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        p = (Path(xdg) if xdg else Path.home() / ".cache") / "fedcomp"
    p = p / f"kernels-nb{numba.__version__}-py{sys.version_info[0]}{sys.version_info[1]}"
    p.mkdir(parents=True, exist_ok=True)
    return p


def _module_source(name: str) -> str:
    mod = importlib.import_module(name)
    try:
        return inspect.getsource(mod)
    except (OSError, TypeError):
        return repr(getattr(mod, "__file__", name))


@functools.cache
def _fn_source(fn) -> str:
    """`fn`'s source, dedented; read once per process (the loop and the shared helpers are pasted
    into every generated module: one tokenisation each, and every module of a process pastes the
    same version of them)."""
    return textwrap.dedent(inspect.getsource(fn))


def _helpers(fns) -> list:
    """Plain functions of fedcomp.algorithms that `fns` call, transitively, callees first.

    A step calls its helpers by their global names; in the generated module they must be defined
    too, so each is pasted and compiled with the step (the oracles' placeholders of
    :mod:`fedcomp.algorithms.oracles` and compiled primitives are not helpers).
    """
    out, seen = [], set()

    def visit(fn):
        for ins in dis.get_instructions(fn):
            if ins.opname != "LOAD_GLOBAL":
                continue
            obj = fn.__globals__.get(ins.argval)
            if (isinstance(obj, types.FunctionType) and obj.__module__.startswith(
                    "fedcomp.algorithms") and obj.__module__ != "fedcomp.algorithms.oracles"
                    and obj.__name__ not in seen):
                seen.add(obj.__name__)
                visit(obj)
                out.append(obj)

    for fn in fns:
        visit(fn)
    return [h for h in out if h not in fns]


def _arg(alg, name: str, role: str) -> str:
    """The expression the generated wrapper passes for parameter `name` (see spec)."""
    st = alg.state
    hyper = alg.hyper_names()
    if name == "eta":
        return "hyper[0]"
    if name in hyper:
        return f"hyper[{1 + hyper.index(name)}]"
    groups = {"client": ("Z", st.layout("client")), "scratch": ("W", st.layout("scratch"))}
    if role == "client":
        if name in ("x", "y"):
            return f"{name.upper()}[k]"
        for buf, lay in groups.values():
            for var, lo, hi in lay:
                if var == name:
                    return f"{buf}[k, {lo}:{hi}]"
    else:
        if name in ("X", "Y"):
            return name
        for buf, lay in groups.values():
            for var, lo, hi in lay:
                if var.upper() == name:
                    return f"{buf}[:, {lo}:{hi}]"
    for var, lo, hi in st.layout("server"):
        if var == name:
            return f"S[{lo}:{hi}]"
    return name  # an engine name: data, k, K, t, phase, base, exact, I, is_round, ledger


def _call(alg, fn, role: str) -> str:
    return f"{fn.__name__}({', '.join(_arg(alg, n, role) for n in _spec.params(fn))})"


def _entry_code(alg, e) -> str:
    slot = alg.ledger_slots.index
    if isinstance(e, _spec.Average):
        return f"avg_rows({_arg(alg, e.var.upper(), 'server')}, ledger, {slot(e.book)})"
    if isinstance(e, _spec.ServerStep):
        return (f"server_step_rows({_arg(alg, e.var.upper(), 'server')}, "
                f"{_arg(alg, e.center, 'server')}, {_arg(alg, e.lr, 'server')}, ledger, "
                f"{slot(e.book)})")
    if isinstance(e, _spec.ModelRound):
        return "ledger[0] += 1"
    return _call(alg, e.numba, "server")


def _wrappers(alg) -> tuple[list, str]:
    """(functions to paste, source of init_step/client_step/sync_step) for a one-definition
    algorithm: the layout of its named state resolved into views of the engine's buffers."""
    sizes = ["    d = X.shape[1]", "    dg = Y.shape[1]", "    K = X.shape[0]"]
    init = ["def init_step(data, X, Y, Z, W, S, hyper, base, I, exact, ledger):", *sizes,
            "    t = 0", "    phase = 0", "    is_round = False"]
    if alg.numba.init is not None:
        init += ["    for k in range(K):", f"        {_call(alg, alg.numba.init, 'client')}"]
    sync = ["def sync_step(data, phase, t, is_round, X, Y, Z, W, S, hyper, base, I, exact, "
            "ledger):", *sizes]
    for e in alg.schedule:
        if e.when == "init":
            init.append(f"    {_entry_code(alg, e)}")
            continue
        conds = (["is_round"] if e.when == "round" else []) + (
            [f"phase == {e.phase}"] if e.phase is not None else [])
        code = _entry_code(alg, e)
        sync.append(f"    if {' and '.join(conds)}:\n        {code}" if conds else f"    {code}")
    client = ["def client_step(data, phase, k, t, X, Y, Z, W, S, hyper, base, I, exact):",
              *sizes, f"    {_call(alg, alg.numba.client, 'client')}"]
    fns = [f for f in (alg.numba.init, alg.numba.client) if f is not None]
    fns += [e.numba for e in alg.schedule if isinstance(e, _spec.Server)]
    return fns, "\n\n".join("\n".join(part) for part in (init, client, sync))


_SOURCES: dict[tuple, tuple] = {}
#: how every pasted step, helper and default oracle of a generated module is compiled
_INLINE_JIT = "nb.njit(cache=True, error_model='numpy', inline='always')"


def _missing_defaults(kernels: str) -> list:
    """The optional oracles the problem's kernel module does not define: their defaults
    (engine.defaults) are pasted into its generated modules and compiled like the helpers."""
    kmod = importlib.import_module(kernels)
    return [fn for fn in _defaults.OPTIONAL if not hasattr(kmod, fn.__name__)]


def _imports(kernels: str) -> list[str]:
    """The imports every generated module on `kernels` starts with."""
    return ["import numba as nb", "import numpy as np",
            f"from {kernels} import *  # noqa: F401,F403  (the problem's oracles)",
            "from fedcomp.engine.prims import *  # noqa: F401,F403"]


def generate_source(alg: Algorithm, kernels: str) -> str:
    """The generated module of (alg, kernels), built once per process and pair (kernel_module and
    the result store's code label both need it)."""
    pair = (alg.name, id(alg), kernels)
    hit = _SOURCES.get(pair)
    if hit is None:
        hit = _SOURCES[pair] = (alg, _generate_source(alg, kernels))  # alg kept: its id stays
    return hit[1]


def _generate_source(alg: Algorithm, kernels: str) -> str:
    defaults = _missing_defaults(kernels)
    own, wrappers = _wrappers(alg)
    helpers = [*_helpers(own), *own]
    fns = [*defaults, *helpers]
    seen, parts = set(), []
    for fn in fns:
        if fn.__name__ in seen:
            continue
        seen.add(fn.__name__)
        parts.append(_fn_source(fn))
    bind = [f"{fn.__name__} = {_INLINE_JIT}({fn.__name__})" for fn in (*defaults, *helpers)]
    bind += ["", wrappers, ""]
    bind += [f"{role} = {_INLINE_JIT}({role})"
             for role in ("init_step", "client_step", "sync_step")]
    loop_src = _fn_source(_loop.run_one)
    return "\n".join([
        f"# Generated by fedcomp.engine.build for algorithm {alg.name!r} on {kernels}.",
        "# Do not edit: regenerated whenever a source it depends on changes.",
        *_imports(kernels),
        "from fedcomp.rng import sample_key, substream, add_normal, normal, uniform01, randint",
        "# compiled once per problem kernel module, for every algorithm (build.metrics_module)",
        f"from {_metrics_name(kernels)} import record_metrics",
        f"N_METRICS = {_loop.N_METRICS}",
        "",
        *parts,
        *bind,
        "",
        loop_src,
        "",
        # nogil: simulate_many runs many seeds of this one function in threads (one compilation
        # serves simulate and simulate_many)
        "run_one = nb.njit(cache=True, nogil=True, error_model='numpy')(run_one)",
        "",
    ])


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)


_METRICS_SOURCES: dict[str, tuple[str, str]] = {}


def _metrics_source(kernels: str) -> tuple[str, str]:
    """(module name, source) of the metrics module of a problem kernel module: the loop's
    ``record_metrics`` and the optional oracles the kernels do not define, compiled once for
    every algorithm on those kernels (its arguments do not depend on the algorithm). Built once
    per process and kernel module; the name carries the digest of the source and of every file
    its compiled code comes from, as the pair modules' names do."""
    hit = _METRICS_SOURCES.get(kernels)
    if hit is not None:
        return hit
    from fedcomp import _numba_cache
    defaults = _missing_defaults(kernels)
    src = "\n".join([
        f"# Generated by fedcomp.engine.build: the recorded metrics on {kernels}, for every",
        "# algorithm. Do not edit: regenerated whenever a source it depends on changes.",
        *_imports(kernels),
        "",
        *(_fn_source(fn) for fn in defaults),
        *(f"{fn.__name__} = {_INLINE_JIT}({fn.__name__})" for fn in defaults),
        "",
        _fn_source(_loop.record_metrics),
        "",
        "record_metrics = nb.njit(cache=True, error_model='numpy')(record_metrics)",
        "",
    ])
    h = hashlib.sha256(src.encode())
    h.update(_numba_cache.digest(_dep_files((kernels, *_DEP_MODULES))).encode())
    family = _safe(kernels.split(".")[-1]).lstrip("_")
    hit = _METRICS_SOURCES[kernels] = (f"fcgen__metrics__{family}_{h.hexdigest()[:16]}", src)
    return hit


def _metrics_name(kernels: str) -> str:
    return _metrics_source(kernels)[0]


def metrics_module(kernels: str):
    """The compiled metrics module of a problem kernel module (:func:`_metrics_source`), which
    every pair module on those kernels imports: ``record_metrics`` compiles once per problem
    family instead of once per (algorithm, problem) pair. Loaded once per process, cached on
    disk."""
    name, src = _metrics_source(kernels)
    with _LOCK:
        return _load(name, src)


def _load(modname: str, src: str):
    """Import the generated module `modname` with source `src` from the cache directory (written
    there first, :func:`fedcomp.engine.kernel_cache.install`), once per process."""
    if modname in _LOADED:
        return _LOADED[modname]
    path = cache_dir() / f"{modname}.py"
    from fedcomp.engine.kernel_cache import install
    install(path, src)
    spec = importlib.util.spec_from_file_location(modname, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[modname] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        sys.modules.pop(modname, None)
        raise
    _LOADED[modname] = mod
    return mod


def kernel_module(alg: Algorithm, kernels: str):
    """The compiled module for (alg, kernels): loaded once per process, cached on disk.

    Sources are read once per process and pair, so editing a file during a long run cannot
    produce a module pasted from two versions of it.
    """
    pair = (alg.name, id(alg), kernels)
    if pair in _BY_PAIR:
        return _BY_PAIR[pair]
    src = generate_source(alg, kernels)
    digest = source_digest(alg, kernels, src)[:16]
    family = kernels.split(".")[-1]
    modname = f"fcgen_{_safe(alg.name + '__' + family)}_{digest}"
    with _LOCK:
        metrics_module(kernels)  # the module `src` imports its record_metrics from
        mod = _BY_PAIR[pair] = _load(modname, src)
    return mod


def warm(mod, args: tuple) -> float:
    """Compile (or load from the disk cache) the entry point for `args`; returns seconds spent."""
    t0 = time.perf_counter()
    with ir_scope_warnings_off():
        mod.run_one.compile(tuple(numba.typeof(a) for a in args))
    return time.perf_counter() - t0


@contextlib.contextmanager
def ir_scope_warnings_off():
    """Silence numba's NumbaIRAssumptionWarning ("variable ... is not in scope") inside the block.

    numba's pedantic SSA check raises it for the loops of functions inlined through
    ``overload(..., inline="always")`` on Python 3.11 (numba issues 7802, 8130 and 9489: the
    inliner leaves the callee's loop variables out of the caller's scope record; numba's
    maintainers call the IR technically invalid and the code usually right).
    fedcomp.engine.dense's products are such overloads (the layout is chosen by type), and their
    compiled sums are pinned bit for bit against plain loops (tests/test_dense.py) and across
    layouts and algorithms (bench/trajectory_hash.py), so the warning is silenced while fedcomp
    compiles its own generated modules, and only there. (``warnings.catch_warnings`` is not
    thread-safe: a warning another thread raises during a compilation may be silenced too.)"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", numba.core.errors.NumbaIRAssumptionWarning)
        yield
