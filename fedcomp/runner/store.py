"""The result store: a tidy table in Parquet, one row per (run, recorded iteration).

Layout: a directory of Parquet part files. Each finished batch of runs is written as its own part
(``part-<config hash>-<first seed>-<random>.parquet``), first under a temporary name in the same
directory and then moved into place with :func:`os.replace`, which is atomic on POSIX: a part is
either complete or absent. A sweep killed midway therefore loses only the runs that were in
flight, and a rerun skips every run whose ``run_id`` is already in some part. The directory read as
one table is :meth:`ResultStore.table`.

Columns: those of :meth:`fedcomp.SimulationResult.to_frame` (``t``, the four metrics, the run's
full configuration, ``seed``, ``rounds_total``, ``floats_sent_total``, ``diverged_at``), plus
``floats_<variable>_total`` for each ledger slot, ``run_id``, ``config_hash``, the spec as
``problem_ctor``, ``problem_args``, ``params``, ``labels`` (JSON text), and one column
``label_<name>`` per label. Rows are produced by :func:`fedcomp.runner.execute_batch`.
"""
from __future__ import annotations

import os
import uuid
from pathlib import Path

import pandas as pd

_PREFIX = "part-"
_TMP = ".tmp-"


class ResultStore:
    """A directory of Parquet parts read as one table.

    Parameters
    ----------
    path : str or Path
        Directory (created if missing). Leftover temporary files of a killed writer are removed.
    """

    def __init__(self, path):
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        for leftover in self.path.glob(_TMP + "*"):
            leftover.unlink(missing_ok=True)
        self._ids_cache: dict[str, set] = {}

    def parts(self) -> list[Path]:
        return sorted(self.path.glob(_PREFIX + "*.parquet"))

    def finished(self) -> set[str]:
        """run_ids of every run stored (reads only the ``run_id`` column of new parts)."""
        out: set[str] = set()
        for p in self.parts():
            ids = self._ids_cache.get(p.name)
            if ids is None:
                ids = set(pd.read_parquet(p, columns=["run_id"])["run_id"].unique())
                self._ids_cache[p.name] = ids
            out |= ids
        return out

    def write(self, frame: pd.DataFrame) -> Path:
        """Write one part atomically (temporary file + os.replace) and return its path."""
        if frame.empty:
            raise ValueError("frame must contain at least one row")
        first = frame.iloc[0]
        name = (f"{_PREFIX}{first['config_hash']}-{int(first['seed'])}-"
                f"{uuid.uuid4().hex[:8]}.parquet")
        tmp = self.path / (_TMP + name)
        frame.to_parquet(tmp, index=False)
        with open(tmp, "rb") as fh:  # the part must be on disk before it becomes visible
            os.fsync(fh.fileno())
        final = self.path / name
        os.replace(tmp, final)
        self._ids_cache[name] = set(frame["run_id"].unique())
        return final

    def table(self, run_ids=None, columns=None) -> pd.DataFrame:
        """All parts as one DataFrame (sorted by config_hash, seed, t), optionally restricted to
        the given run_ids. Parts whose schemas differ (e.g. different algorithms'
        hyperparameters) are aligned by column name; missing values are NaN."""
        frames = []
        wanted = None if run_ids is None else set(run_ids)
        for p in self.parts():
            if wanted is not None:
                ids = self._ids_cache.get(p.name)
                if ids is None:
                    ids = set(pd.read_parquet(p, columns=["run_id"])["run_id"].unique())
                    self._ids_cache[p.name] = ids
                if not ids & wanted:
                    continue
            df = pd.read_parquet(p, columns=columns)
            if wanted is not None:
                df = df[df["run_id"].isin(wanted)]
            frames.append(df)
        if not frames:
            return pd.DataFrame()
        df = pd.concat(frames, ignore_index=True)
        dup = df.drop_duplicates(["run_id", "t"]) if {"run_id", "t"} <= set(df.columns) else df
        if len(dup) != len(df):
            # a run stored twice (two sweeps writing one directory at once): keep one copy
            df = dup
        keys = [c for c in ("config_hash", "seed", "t") if c in df.columns]
        return df.sort_values(keys, kind="stable").reset_index(drop=True) if keys else df

    def __len__(self) -> int:
        return len(self.finished())

    def __repr__(self) -> str:
        return f"ResultStore({str(self.path)!r}, parts={len(self.parts())})"
