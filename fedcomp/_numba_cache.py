"""numba's disk cache, validated against every fedcomp source a compiled function is built from.

numba keeps a compiled function on disk (``@njit(cache=True)``) and reuses it while the source
file that defines the function is unchanged (numba.core.caching: the file's content hash). It
does not look at the files the function imports: a kernel of ``fedcomp/problems/_chi2_kernels.py``
inlines ``fedcomp.problems._logistic`` and ``fedcomp.engine.dense``, and after an edit of those
its cached machine code still carries the old arithmetic. In a checkout where dense.py's
summation order had changed, the chi^2 kernels loaded from the cache (old order) differed by one
unit in the last place from the same kernels compiled again inside a generated engine module
(new order; tests/test_engine.py::test_two_point_oracle_is_two_one_point_calls): results that
depend on which process compiled what, and code that is not the source it appears to run.

:func:`install` puts locators in front of numba's own (numba.core.caching.CacheImpl) that, for
a function defined in a file of the fedcomp package, stamp the cache with the content of that
file *and of every fedcomp module it imports, transitively* (read from the module-level
``import`` statements of the sources, without importing anything; compiled code can only use
module globals). Editing any of them invalidates the function's
cache entry. The directory is numba's (``NUMBA_CACHE_DIR``, else ``__pycache__`` beside the
source, else the user-wide one). Functions outside the package (the engine's generated modules,
whose file names already carry such a hash: :mod:`fedcomp.engine.build`; user code) keep numba's
locators. Installed by ``import fedcomp``, before any fedcomp module defines a compiled function.
"""
from __future__ import annotations

import ast
import functools
import hashlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent   # the fedcomp package directory


def _module_file(name: str) -> Path | None:
    """The source file of fedcomp module `name` (``fedcomp.a.b``), or None (not one of ours)."""
    parts = name.split(".")
    if parts[0] != "fedcomp":
        return None
    base = ROOT.joinpath(*parts[1:])
    for f in (base.with_suffix(".py"), base / "__init__.py"):
        if f.is_file():
            return f
    return None


def _module_name(path: Path) -> str | None:
    try:
        rel = path.resolve().relative_to(ROOT)
    except ValueError:
        return None
    parts = list(rel.with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(["fedcomp", *parts])


def _module_level(tree):
    """The statements a module runs when imported: its body and the blocks nested in it (if,
    try, with...), not the bodies of functions and classes, whose imports (lazy imports of
    torch or matplotlib code) bind no global that compiled code could use."""
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield node
        todo.extend(c for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt)
                    or isinstance(c, ast.excepthandler))


@functools.lru_cache(maxsize=None)
def _imports(path: Path, mtime_ns: int, size: int) -> tuple:
    """The fedcomp modules the source at `path` imports at module level, as module names."""
    this = _module_name(path) or "fedcomp"
    package = this if path.name == "__init__.py" else this.rpartition(".")[0]
    out = set()
    for node in _module_level(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                mod = ".".join(anchor + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)   # `from pkg import module`
    return tuple(sorted(m for m in out if m.startswith("fedcomp")))


def _stat(path: Path) -> tuple:
    st = path.stat()
    return path, st.st_mtime_ns, st.st_size


@functools.lru_cache(maxsize=None)
def _file_hash(path: Path, mtime_ns: int, size: int) -> bytes:
    return hashlib.sha256(path.read_bytes()).digest()


def closure(path: Path) -> list[Path]:
    """`path` and the files of every fedcomp module it imports, transitively, sorted."""
    seen, todo = set(), [path.resolve()]
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        for name in _imports(*_stat(f)):
            dep = _module_file(name)
            if dep is not None and dep not in seen:
                todo.append(dep)
    return sorted(seen)


def digest(paths) -> str:
    """sha256 of the files `paths` (their names within the package, else their file names, and
    contents), in sorted order: the one rule by which fedcomp names compiled code after its
    sources (:func:`stamp`; fedcomp.engine.build.source_digest)."""
    h = hashlib.sha256()
    for f in sorted(Path(p).resolve() for p in paths):
        h.update(str(f.relative_to(ROOT) if f.is_relative_to(ROOT) else f.name).encode())
        h.update(_file_hash(*_stat(f)))
    return h.hexdigest()


def stamp(path) -> str:
    """The digest of the sources `path` is built from (:func:`closure`)."""
    return digest(closure(Path(path)))


_INSTALLED: list = []


def install() -> None:
    """Put the fedcomp locators in front of numba's (once per process)."""
    if _INSTALLED:
        return
    from numba.core import caching

    class _Closure:
        """A numba locator for functions defined in the fedcomp package, whose source stamp is
        numba's (the file's hash) together with :func:`stamp` of the file."""

        @classmethod
        def from_function(cls, py_func, py_file):
            try:
                inside = Path(py_file).resolve().is_relative_to(ROOT)
            except (OSError, ValueError):
                inside = False
            if not inside or not Path(py_file).is_file():
                return None
            return super().from_function(py_func, py_file)

        def get_source_stamp(self):
            return super().get_source_stamp(), stamp(self._py_file)

    made = [type(f"Fedcomp{base.__name__}", (_Closure, base), {})
            for base in (caching.UserProvidedCacheLocator, caching.InTreeCacheLocator,
                         caching.UserWideCacheLocator)]
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl   # numba < 0.61
    impl._locator_classes[:0] = made
    _INSTALLED.extend(made)
