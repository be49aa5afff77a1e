"""The result store: a tidy table in Parquet, one row per (run, recorded iteration).

Layout: a directory of Parquet part files. Each finished batch of runs is written as its own part
(``part-<config hash>-<first seed>-<random>.parquet``), first under a temporary name in the same
directory and then moved into place with :func:`os.replace`, which is atomic on POSIX: a part is
either complete or absent. A sweep killed midway therefore loses only the runs that were in
flight, and a rerun skips every run whose ``run_id`` is already in some part. The directory read as
one table is :meth:`ResultStore.table`.

Several writers may share one directory (two sweeps, or a sweep and a reader):

* a temporary file's name carries its writer's identity (``.tmp-<host>-<pid>-<token>-<part>``),
  so opening a store removes only *stale* ones (their writer is dead on this host, or, for
  another host whose processes we cannot see, the file is older than ``stale_after`` seconds),
  never a live writer's file in the middle of its write;
* before computing a run a sweep *claims* its run id (:meth:`ResultStore.claim`: a
  ``.claim-<run_id>`` file created with ``O_CREAT | O_EXCL``, holding the owner's identity),
  and removes the claim once the run's part is written. A second sweep of the same runs sees
  the claims, waits for the parts and reads them instead of computing every run twice. A claim
  whose owner died (or, from another host, is older than ``stale_after``) is taken over.
* a part that cannot be read (truncated, zero-length: a disk filled up, a copy broke off) is
  moved to ``quarantine/`` with a :class:`CorruptPartWarning` naming it; its runs then count
  as not done and are recomputed by the next sweep, instead of every read raising ArrowInvalid.

Columns: those of :meth:`fedcomp.SimulationResult.to_frame` (``t``, the four metrics, the run's
full configuration, ``seed``, ``rounds_total``, ``floats_sent_total``, ``diverged_at`` as a
nullable integer: null for a finite run), plus ``floats_<variable>_total`` for each ledger slot,
``run_id``, ``config_hash``, the spec as ``problem_ctor``, ``problem_args``, ``params``,
``labels`` (JSON text), and one column ``label_<name>`` per label. Rows are produced by
:func:`fedcomp.runner.execute_batch`. Stores written before ``diverged_at`` became nullable hold
-1 for "finite"; :meth:`ResultStore.table` reads that as null.
"""
from __future__ import annotations

import json
import os
import re
import socket
import time
import uuid
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

_PREFIX = "part-"
_TMP = ".tmp-"
_CLAIM = ".claim-"
QUARANTINE = "quarantine"
STALE_AFTER = 3600.0


class CorruptPartWarning(UserWarning):
    """A store part could not be read and was moved to ``quarantine/``."""


def _host() -> str:
    # '-' separates the fields of a temporary file's name: keep it out of the host name
    return re.sub(r"[^A-Za-z0-9_.]", "_", socket.gethostname()) or "host"


_TOKEN = uuid.uuid4().hex[:8]


def identity() -> dict:
    """This process's identity as a writer: host, pid and a random token (the token tells a
    restarted process that reuses a pid from the one that wrote the file)."""
    return {"host": _host(), "pid": os.getpid(), "token": _TOKEN}


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    except OSError:
        return False
    return True


def _stale(owner: dict | None, path: Path, stale_after: float) -> bool:
    """Whether a file written by `owner` can be removed: its process is dead on this host, or it
    is older than `stale_after` seconds (another host, or an unknown writer)."""
    try:
        age = time.time() - path.stat().st_mtime
    except FileNotFoundError:
        return False
    if age > stale_after:
        return True
    if owner is None:
        return False
    if owner.get("host") == _host():
        if owner.get("pid") == os.getpid():
            return owner.get("token") != _TOKEN
        return not _pid_alive(int(owner.get("pid", -1)))
    return False


def _tmp_owner(name: str) -> dict | None:
    fields = name[len(_TMP):].split("-", 3)
    if len(fields) < 4 or not fields[1].isdigit():
        return None  # a name from before writers were named: only its age can tell
    return {"host": fields[0], "pid": int(fields[1]), "token": fields[2]}


def _read_claim(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (ValueError, OSError):
        return {}  # half-written claim: judged by its age alone


_IDS_CACHE: dict[str, dict[str, tuple]] = {}


class ResultStore:
    """A directory of Parquet parts read as one table (see the module docstring).

    Parameters
    ----------
    path : str or Path
        Directory (created if missing). Stale temporary files and claims of dead writers are
        removed; live writers' files are left alone.
    stale_after : float > 0
        Seconds after which a temporary file or claim whose writer cannot be checked (another
        host) counts as abandoned (default one hour).
    """

    def __init__(self, path, stale_after: float = STALE_AFTER):
        from fedcomp import _validate as V
        self.path = Path(path)
        self.stale_after = V.real_in("stale_after", stale_after, 0.0)
        if self.path.exists() and not self.path.is_dir():
            raise ValueError(f"store path {self.path} exists and is not a directory")
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # under a regular file, no permission, ...
            raise ValueError(f"store path {self.path} cannot be created: "
                             f"{exc.strerror or exc}") from None
        for leftover in self.path.glob(_TMP + "*"):
            if _stale(_tmp_owner(leftover.name), leftover, self.stale_after):
                leftover.unlink(missing_ok=True)
        for claim in self.path.glob(_CLAIM + "*"):
            owner = _read_claim(claim)
            if owner is not None and _stale(owner or None, claim, self.stale_after):
                claim.unlink(missing_ok=True)
        # parts are written once (unique names, atomic writes), so the run ids of a part, once
        # read, are shared by every ResultStore of this directory in this process (keyed by the
        # part's size and mtime: a part damaged on disk is read again, and quarantined): a
        # session of many small sweeps into one store reads each part's ids once, not once per
        # sweep (which made a verify's many small runs quadratic in the parts)
        self._ids_cache: dict[str, tuple] = _IDS_CACHE.setdefault(str(self.path.resolve()), {})

    def parts(self) -> list[Path]:
        return sorted(self.path.glob(_PREFIX + "*.parquet"))

    def _quarantine(self, part: Path, exc: Exception) -> None:
        dest_dir = self.path / QUARANTINE
        dest_dir.mkdir(exist_ok=True)
        dest = dest_dir / part.name
        try:
            os.replace(part, dest)
        except FileNotFoundError:  # another reader moved it first
            pass
        self._ids_cache.pop(part.name, None)
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        warnings.warn(f"store part {part.name} cannot be read ({type(exc).__name__}: {msg}); "
                      f"moved to {dest}; its runs will be recomputed", CorruptPartWarning,
                      stacklevel=3)

    def _read(self, part: Path, columns=None) -> pd.DataFrame | None:
        """Read one part, or quarantine it (None) when it is not a readable Parquet file.
        `columns` the part does not have are left out (parts of different algorithms hold
        different ``floats_<variable>_total`` columns): asked for, pyarrow's error for a missing
        field was taken for a broken file, and a good part quarantined. A part without
        ``run_id`` is no part of a store and is quarantined, as before."""
        try:
            if columns is not None:
                import pyarrow.parquet as pq
                have = set(pq.read_schema(part).names)
                if "run_id" in columns and "run_id" not in have:
                    raise ValueError("the part has no run_id column (not a part of this store)")
                columns = [c for c in columns if c in have]
            return pd.read_parquet(part, columns=columns)
        except FileNotFoundError:
            return None  # quarantined by another reader meanwhile
        except Exception as exc:  # pyarrow raises ArrowInvalid, OSError, ... for a broken file
            self._quarantine(part, exc)
            return None

    def _ids(self, part: Path) -> set | None:
        try:
            st = part.stat()
        except FileNotFoundError:
            return None   # quarantined by another reader meanwhile
        stamp = (st.st_size, st.st_mtime_ns)
        hit = self._ids_cache.get(part.name)
        if hit is None or hit[0] != stamp:   # new, or changed on disk since it was read
            df = self._read(part, columns=["run_id"])
            if df is None:
                return None
            hit = (stamp, set(df["run_id"].unique()))
            self._ids_cache[part.name] = hit
        return hit[1]

    def finished(self) -> set[str]:
        """run_ids of every run stored (reads only the ``run_id`` column of new parts)."""
        out: set[str] = set()
        for p in self.parts():
            ids = self._ids(p)
            if ids is not None:
                out |= ids
        return out

    def write(self, frame: pd.DataFrame) -> Path:
        """Write one part atomically (temporary file + os.replace) and return its path."""
        if frame.empty:
            raise ValueError("frame must contain at least one row")
        first = frame.iloc[0]
        name = (f"{_PREFIX}{first['config_hash']}-{int(first['seed'])}-"
                f"{uuid.uuid4().hex[:8]}.parquet")
        me = identity()
        tmp = self.path / f"{_TMP}{me['host']}-{me['pid']}-{me['token']}-{name}"
        frame.to_parquet(tmp, index=False)
        with open(tmp, "rb") as fh:  # the part must be on disk before it becomes visible
            os.fsync(fh.fileno())
        final = self.path / name
        os.replace(tmp, final)
        st = final.stat()
        self._ids_cache[name] = ((st.st_size, st.st_mtime_ns), set(frame["run_id"].unique()))
        return final

    # -- claims: one computation per run id across concurrent sweeps ----------------------------
    def _claim_path(self, run_id: str) -> Path:
        return self.path / f"{_CLAIM}{run_id}"

    def claim(self, run_id: str) -> bool:
        """Claim `run_id` for this process; False when a live owner holds it.

        The claim file is created with ``O_CREAT | O_EXCL``, so of two sweeps claiming at once
        exactly one wins. A stale claim (owner dead, or too old) is first renamed to a name only
        this process uses (one rename wins) and then re-created as ours.
        """
        path = self._claim_path(run_id)
        payload = json.dumps({**identity(), "time": time.time()}).encode()
        for _ in range(3):
            try:
                fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                owner = _read_claim(path)
                if owner is None:
                    continue  # released meanwhile: try again
                if owner and owner.get("host") == _host() and owner.get("pid") == os.getpid() \
                        and owner.get("token") == _TOKEN:
                    return True
                if not _stale(owner or None, path, self.stale_after):
                    return False
                grabbed = path.with_name(f"{path.name}.stale-{uuid.uuid4().hex[:8]}")
                try:
                    os.rename(path, grabbed)
                except FileNotFoundError:
                    continue
                if _read_claim(grabbed) != owner:
                    # between our look and the rename a new owner claimed it: give it back
                    try:
                        os.link(grabbed, path)
                    except FileExistsError:
                        pass
                    grabbed.unlink(missing_ok=True)
                    return False
                grabbed.unlink(missing_ok=True)
                continue
            with os.fdopen(fd, "wb") as fh:
                fh.write(payload)
            return True
        return False

    def release(self, run_ids) -> None:
        """Remove this process's claims on `run_ids` (after their part is written, or when the
        sweep stops without computing them, so that another sweep may take them over)."""
        for rid in run_ids:
            path = self._claim_path(rid)
            owner = _read_claim(path)
            if owner and owner.get("pid") == os.getpid() and owner.get("host") == _host() \
                    and owner.get("token") == _TOKEN:
                path.unlink(missing_ok=True)

    def claimed_by_other(self, run_id: str) -> bool:
        """Whether a live other writer holds a claim on `run_id`."""
        path = self._claim_path(run_id)
        owner = _read_claim(path)
        if owner is None:
            return False
        if owner and owner.get("host") == _host() and owner.get("pid") == os.getpid() \
                and owner.get("token") == _TOKEN:
            return False
        return not _stale(owner or None, path, self.stale_after)

    def table(self, run_ids=None, columns=None) -> pd.DataFrame:
        """All parts as one DataFrame (sorted by config_hash, seed, t), optionally restricted to
        the given run_ids. Parts whose schemas differ (e.g. different algorithms'
        hyperparameters) are aligned by column name; missing values are NaN. Unreadable parts
        are quarantined (module docstring) and left out."""
        return combine(self.frames(run_ids, columns))

    def frames(self, run_ids=None, columns=None) -> list[pd.DataFrame]:
        """The parts holding any of `run_ids` (default: every part), each restricted to those
        runs, as :meth:`table` reads them, before :func:`combine` makes them one table."""
        frames = []
        wanted = None if run_ids is None else set(run_ids)
        for p in self.parts():
            if wanted is not None:
                ids = self._ids(p)
                if ids is None or not ids & wanted:
                    continue
            df = self._read(p, columns=columns)
            if df is None:
                continue
            if wanted is not None:
                df = df[df["run_id"].isin(wanted)]
            frames.append(_nullable_diverged(df))
        return frames

    def __len__(self) -> int:
        return len(self.finished())

    def __repr__(self) -> str:
        return f"ResultStore({str(self.path)!r}, parts={len(self.parts())})"


def combine(frames) -> pd.DataFrame:
    """Frames of stored rows as one table: aligned by column name, each (run_id, t) once, sorted
    by (config_hash, seed, t). The one rule by which :meth:`ResultStore.table` reads parts and
    :func:`fedcomp.runner.run_specs` joins the parts it has just written (still in memory: a
    part read back equals the frame written, dtypes included) to those it reads."""
    frames = list(frames)
    if not frames:
        return pd.DataFrame()
    df = pd.concat(frames, ignore_index=True)
    dup = df.drop_duplicates(["run_id", "t"]) if {"run_id", "t"} <= set(df.columns) else df
    repeated = len(dup) != len(df)
    if repeated:
        # a run stored twice (two sweeps writing one directory at once): keep one copy
        df = dup
    keys = [c for c in ("config_hash", "seed", "t") if c in df.columns]
    if not keys:
        return df
    if not repeated and keys == ["config_hash", "seed", "t"]:
        blocks = _sorted_blocks(frames)
        if blocks is not None:
            out = pd.concat(blocks, ignore_index=True).reindex(columns=df.columns)
            if out.dtypes.equals(df.dtypes):
                return out
    return df.sort_values(keys, kind="stable").reset_index(drop=True)


def _sorted_blocks(frames: list[pd.DataFrame]) -> list[pd.DataFrame] | None:
    """`frames` reordered so that their concatenation is sorted by (config_hash, seed, t), or None
    where that needs more than reordering whole frames.

    Why: every part a sweep writes, and every batch it computes, holds one configuration's runs
    in (seed, t) order, so sorting the table only orders whole frames; the row-wise sort of the
    concatenated table copied every text column (the run's JSON on every row: about 1 GB for a
    full-profile sweep of two million rows) and took seconds. The result is the stable sort's,
    row for row: each frame must hold a single config_hash and be in (seed, t) order, and the
    frames, ordered by their first key, must not overlap (each one's last key strictly below the
    next one's first), so no two rows of different frames tie."""
    spans = []
    for f in frames:
        if not len(f):
            continue
        if not {"config_hash", "seed", "t"} <= set(f.columns):
            return None
        cfg = f["config_hash"]
        c0 = cfg.iloc[0]
        # plain text only: a categorical sorts by its categories' order, and a missing value
        # (pandas' NA compares as NA, which all() skips) sorts last
        if (isinstance(cfg.dtype, pd.CategoricalDtype) or not isinstance(c0, str)
                or not bool(cfg.notna().all()) or not bool((cfg == c0).all())):
            return None
        s = f["seed"].to_numpy()
        t = f["t"].to_numpy()
        if s.dtype.kind not in "iu" or t.dtype.kind not in "iu":
            return None
        ds, dt = np.diff(s), np.diff(t)
        if not np.all((ds > 0) | ((ds == 0) & (dt >= 0))):
            return None
        spans.append(((c0, int(s[0]), int(t[0])), (c0, int(s[-1]), int(t[-1])), f))
    spans.sort(key=lambda sp: sp[0])
    for (_, last, _), (first, _, _) in zip(spans, spans[1:]):
        if not last < first:
            return None
    empty = [f for f in frames if not len(f)]
    return empty + [f for _, _, f in spans]


def _nullable_diverged(df: pd.DataFrame) -> pd.DataFrame:
    """``diverged_at`` as pandas Int64 with null for "finite" (old stores wrote -1)."""
    if "diverged_at" in df.columns:
        col = pd.to_numeric(df["diverged_at"]).astype("Int64")
        df = df.assign(diverged_at=col.mask(col < 0))
    return df
