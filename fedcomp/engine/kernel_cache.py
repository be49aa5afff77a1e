"""The compiled-kernel cache on disk: what it holds, and pruning what is no longer used.

``fedcomp.engine.build.cache_dir()`` (``$FEDCOMP_CACHE_DIR``, else ``$XDG_CACHE_HOME/fedcomp``
or ``~/.cache/fedcomp``, one folder ``kernels-nb<numba>-py<python>`` per numba and Python
version) holds the generated engine modules (``fcgen_<algorithm>__<kernels>_<digest>.py``, and
``fcgen__metrics__<kernels>_<digest>.py``, the recorded metrics of each problem family), the
sympy problems' kernel modules (``fcsym_<hash>.py``) and, in ``__pycache__``, numba's compiled
code of each. A module's name carries the digest of the sources it was generated from, so every
edit of fedcomp (or an upgrade) adds modules and leaves the old ones unused: the cache only
grows. Each load of a module (:func:`install`) refreshes the modification time of a sidecar
file ``<module>.used`` (:func:`touch`), which is therefore its last use; ``fedcomp cache prune --days N`` removes the modules unused for N days
with their compiled code (and the cache folders of other numba or Python versions unused for as
long); ``fedcomp cache clear`` removes everything. Removing a module only costs its compilation
the next time it is needed.

    fedcomp cache info [--json]
    fedcomp cache prune [--days N] [--dry-run]
    fedcomp cache clear
"""
from __future__ import annotations

import json
import os
import shutil
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

#: prefixes of the generated modules (fedcomp.engine.build, fedcomp.problems.symbolic)
GENERATED = ("fcgen_", "fcsym_")
#: folders the test suite's bounds-checked builds use (tests/test_backends.py)
BOUNDSCHECK = "boundscheck-"
_VERSIONED = "kernels-"


def root() -> Path:
    """The folder holding one ``kernels-nb*-py*`` folder per numba and Python version."""
    from fedcomp.engine.build import cache_dir
    return cache_dir().parent


def install(path, source: str) -> None:
    """Put a generated module's `source` at `path` in the cache (atomically: concurrent
    processes never see a partial file; rewritten if a file there differs) and record its use
    (:func:`touch`). Every generated module enters the cache here."""
    path = Path(path)
    if not path.exists() or path.read_text() != source:
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(source)
        os.replace(tmp, path)
    touch(path)


def touch(path) -> None:
    """Mark the cached module ``path`` (its ``.py``) as used now: the modification time of a
    sidecar ``<module>.used`` (not of the source, which numba versions before content hashing
    stamp their cache with). Never fails a run."""
    try:
        marker = Path(path).with_suffix(".used")
        marker.touch()
    except OSError:
        pass


@dataclass
class Entry:
    """One cached module (its source and compiled files) or bounds-check folder."""
    name: str
    kind: str            # "engine", "sympy" or "boundscheck"
    paths: list
    bytes: int
    last_used: float     # seconds since the epoch

    def age_days(self, now: float) -> float:
        return max(0.0, (now - self.last_used) / 86400.0)


def _size(p: Path) -> int:
    if p.is_dir():
        return sum(f.stat().st_size for f in p.rglob("*") if f.is_file())
    return p.stat().st_size


def entries(directory) -> list[Entry]:
    """The cached modules of one versioned folder, each with its compiled files."""
    d = Path(directory)
    cache = d / "__pycache__"
    compiled: dict[str, list] = {}
    if cache.is_dir():
        for f in cache.iterdir():
            compiled.setdefault(f.name.split(".", 1)[0], []).append(f)
    out = []
    for src in sorted(d.glob("*.py")):
        if not src.name.startswith(GENERATED):
            continue
        marker = src.with_suffix(".used")
        paths = [src] + ([marker] if marker.exists() else []) + compiled.get(src.stem, [])
        try:
            size = sum(_size(p) for p in paths)
            used = max(p.stat().st_mtime for p in paths[:2])
        except FileNotFoundError:   # removed meanwhile by another process
            continue
        kind = "engine" if src.name.startswith("fcgen_") else "sympy"
        out.append(Entry(src.stem, kind, paths, size, used))
    for sub in sorted(d.glob(BOUNDSCHECK + "*")):
        if sub.is_dir():
            files = [f for f in sub.rglob("*") if f.is_file()]
            used = max([f.stat().st_mtime for f in files] or [sub.stat().st_mtime])
            out.append(Entry(sub.name, "boundscheck", [sub], _size(sub), used))
    return out


def info() -> dict:
    """{"root", "current", "folders": {name: {"modules": {kind: n}, "bytes", "last_used"}}}."""
    from fedcomp.engine.build import cache_dir
    folders = {}
    for d in sorted(root().glob(_VERSIONED + "*")):
        es = entries(d)
        folders[d.name] = {"modules": dict(Counter(e.kind for e in es)), "bytes": _size(d),
                           "last_used": max([e.last_used for e in es] or [d.stat().st_mtime])}
    return {"root": str(root()), "current": cache_dir().name, "folders": folders}


def prune(days: float = 30.0, dry_run: bool = False, now: float | None = None) -> list[str]:
    """Remove what was not used for ``days`` days: cached modules with their compiled code,
    bounds-check folders, and whole folders of other numba or Python versions whose every
    module is that old. Returns the removed paths (with ``dry_run``: those it would remove)."""
    from fedcomp import _validate as V
    from fedcomp.engine.build import cache_dir
    days = V.real_in("days", days, 0.0, low_open=False)
    now = time.time() if now is None else now
    current = cache_dir()
    removed = []
    for d in sorted(root().glob(_VERSIONED + "*")):
        es = entries(d)
        if d != current and all(e.age_days(now) >= days for e in es) and (
                es or (now - d.stat().st_mtime) / 86400.0 >= days):
            removed.append(str(d))
            if not dry_run:
                shutil.rmtree(d, ignore_errors=True)
            continue
        for e in es:
            if e.age_days(now) < days:
                continue
            for p in e.paths:
                removed.append(str(p))
                if dry_run:
                    continue
                if p.is_dir():
                    shutil.rmtree(p, ignore_errors=True)
                else:
                    try:
                        p.unlink()
                    except FileNotFoundError:
                        pass
    return removed


def clear() -> list[str]:
    """Remove every versioned kernel folder (all compiled code; the next runs recompile)."""
    gone = [str(d) for d in sorted(root().glob(_VERSIONED + "*"))]
    for d in gone:
        shutil.rmtree(d, ignore_errors=True)
    return gone


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def _cmd_info(args) -> int:
    out = info()
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"kernel cache in {out['root']} (this numba and Python: {out['current']})")
    now = time.time()
    for name, f in out["folders"].items():
        mods = ", ".join(f"{n} {k}" for k, n in sorted(f["modules"].items())) or "no modules"
        print(f"  {name}: {_mb(f['bytes'])}, {mods}; last used "
              f"{(now - f['last_used']) / 86400.0:.1f} days ago")
    return 0


def _cmd_prune(args) -> int:
    gone = prune(args.days, dry_run=args.dry_run)
    verb = "would remove" if args.dry_run else "removed"
    print(f"{verb} {len(gone)} paths unused for {args.days:g} days or more")
    for p in gone:
        print(f"  {p}")
    return 0


def _cmd_clear(args) -> int:
    gone = clear()
    print(f"removed {len(gone)} kernel folders" + "".join(f"\n  {p}" for p in gone))
    return 0


def add_cli(sub) -> None:
    p = sub.add_parser("cache", help="the compiled-kernel cache: size, pruning",
                       description=__doc__.split("\n\n")[0])
    s = p.add_subparsers(dest="cache_command", metavar="ACTION", required=True)
    pi = s.add_parser("info", help="what the cache holds, per numba and Python version")
    pi.add_argument("--json", action="store_true")
    pi.set_defaults(func=_cmd_info)
    pp = s.add_parser("prune", help="remove modules unused for some days, with their code")
    pp.add_argument("--days", type=float, default=30.0,
                    help="remove what was last used this many days ago or earlier (default 30)")
    pp.add_argument("--dry-run", action="store_true", help="list, remove nothing")
    pp.set_defaults(func=_cmd_prune)
    pc = s.add_parser("clear", help="remove every compiled kernel (they recompile when needed)")
    pc.set_defaults(func=_cmd_clear)
