"""Stored neural runs: where ``fedcomp neural run NAME --seeds N --out DIR`` keeps every seed's
curves, and how summaries and checks read them. Needs no torch.

Layout of an experiment's folder (``results/neural/NAME`` in the repository by default, the folder
the experiment checks read; ``$FEDCOMP_NEURAL_RESULTS/NAME`` overrides the root):

* ``store/`` - a :class:`fedcomp.runner.store.ResultStore`: one part per (arm, seed) run, rows
  (experiment, arm, setting, algorithm, seed, t, round, seconds, device, device_name (the
  processor or GPU model; absent in runs stored before 28 November 2026), torch (the build that
  computed the run), iterations, diverged_at, the metrics), ``run_id``
  ``neural:NAME:ARM:SEED:T<iterations>:E<eval_every>`` so that an interrupted command resumes
  where it stopped, and runs of another budget are never mixed in;
* ``manifest.json`` - the budget of the runs the summaries use (iterations, evaluation spacing,
  seeds, arms; the devices, their models (``device_names``) and the torch builds that computed
  them, read from the runs), each arm's
  configuration hash (algorithm, step, local steps, hyperparameters, setting, smoke flag: a
  later command with another configuration for a stored arm is refused rather than mixed in)
  and the command that reproduces them. Commands at the same budget add their arms and seeds
  to it.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd

from fedcomp.rates.seeds import Interval, mean_interval, paired_difference


def default_root() -> Path:
    """``$FEDCOMP_NEURAL_RESULTS``, else ``results/neural`` next to the fedcomp package."""
    env = os.environ.get("FEDCOMP_NEURAL_RESULTS")
    if env:
        return Path(env)
    import fedcomp
    return Path(fedcomp.__file__).resolve().parents[1] / "results" / "neural"


def experiment_dir(name: str, folder=None) -> Path:
    """The experiment's folder: `folder` itself when given, else ``default_root() / name``."""
    return Path(folder) if folder is not None else default_root() / name


def manifest_order(manifest: dict, arms) -> list[str]:
    """The distinct `arms` in the manifest's order, then any the manifest does not list, sorted
    (the order of every table and figure of an experiment)."""
    have = set(arms)
    listed = [a for a in manifest.get("arms") or [] if a in have]
    return listed + sorted(have - set(listed))


def run_id(name: str, arm: str, seed: int, iterations: int, eval_every) -> str:
    return f"neural:{name}:{arm}:{int(seed)}:T{int(iterations)}:E{eval_every or 'round'}"


class StoredExperiment:
    """The runs of one experiment at the manifest's budget: ``table`` (every seed's curves),
    ``manifest`` (budget and command)."""

    def __init__(self, table: pd.DataFrame, manifest: dict, path: Path):
        self.table, self.manifest, self.path = table, manifest, path

    @property
    def arms(self) -> list[str]:
        """The stored arms in the manifest's order (then any others, sorted): not the order of
        the rows, which follows the store's part files and so changes with their names."""
        return manifest_order(self.manifest, self.table["arm"])

    @property
    def seeds(self) -> list[int]:
        return sorted(int(s) for s in self.table["seed"].unique())

    def budget(self) -> str:
        m = self.manifest
        return (f"{m['iterations']} iterations per arm, seeds {m['seeds']}, on {m['device']} "
                f"(command: {m['command']})")

    def finals(self, metric: str) -> dict:
        """{arm: {seed: final value}} at each run's last evaluation; a diverged run's value is
        NaN (see :meth:`diverged`)."""
        out = {}
        for (arm, seed), g in self.table.groupby(["arm", "seed"], sort=False):
            last = g.sort_values("t").iloc[-1]
            v = float(last[metric]) if metric in g and pd.notna(last[metric]) else math.nan
            if pd.notna(last.get("diverged_at", np.nan)):
                v = math.nan
            out.setdefault(arm, {})[int(seed)] = v
        return out

    def diverged(self) -> dict:
        """{arm: {seed: iteration}} of the runs that diverged."""
        out = {}
        if "diverged_at" not in self.table:
            return out
        for (arm, seed), g in self.table.groupby(["arm", "seed"], sort=False):
            d = g["diverged_at"].dropna()
            if len(d):
                out.setdefault(arm, {})[int(seed)] = int(d.iloc[0])
        return out

    def interval(self, metric: str, arm: str) -> Interval | str:
        """The arm's final value over seeds with its 95 % interval, or a string naming the
        diverged seeds."""
        vals = self.finals(metric)[arm]
        div = self.diverged().get(arm, {})
        if div:
            return f"diverged (seed: iteration {div})"
        return mean_interval(vals.values())

    def paired(self, metric: str, a: str, b: str) -> Interval | str:
        """Final value of arm a minus arm b, paired by seed, with its 95 % interval."""
        div = {arm: self.diverged().get(arm) for arm in (a, b) if self.diverged().get(arm)}
        if div:
            return f"diverged {div}"
        f = self.finals(metric)
        return paired_difference(f[a], f[b])

    def curves(self, metric: str) -> pd.DataFrame:
        """Mean and 95 % interval over seeds of the metric at every evaluation point, per arm:
        columns arm, t, round, mean, low, high, n (over the seeds with a finite value there: a
        seed that diverged no longer counts after its divergence, and n says how many remain)."""
        rows = []
        for (arm, t), g in self.table.groupby(["arm", "t"], sort=False):
            v = g[metric].dropna()
            if not len(v) or not np.isfinite(v).all():
                continue
            iv = mean_interval(v)
            rows.append({"arm": arm, "t": int(t), "round": int(g["round"].iloc[0]),
                         "mean": iv.mean, "low": iv.low, "high": iv.high, "n": iv.n})
        return pd.DataFrame(rows)


def distinct(values) -> str:
    """"a, b": the distinct entries of `values` (each may itself be such a joined string),
    sorted; "" for none."""
    seen = {p.strip() for v in (values if values is not None else []) if pd.notna(v)
            for p in str(v).split(",") if p.strip()}
    return ", ".join(sorted(seen))


#: the model name of runs stored before rows named it
NOT_RECORDED = "not recorded"


def device_names(table) -> dict:
    """{device: sorted model names of the runs computed on it} from the runs' ``device_name``
    column ("not recorded" for runs stored before rows named the model, e.g. "cuda" runs of 27
    November 2026 on an H100 and an H200)."""
    if table is None or len(table) == 0 or "device" not in table:
        return {}
    names = table["device_name"] if "device_name" in table else pd.Series(None, index=table.index,
                                                                          dtype=object)
    out = {}
    for dev, g in names.groupby(table["device"], sort=True):
        out[str(dev)] = sorted({str(v) if pd.notna(v) else NOT_RECORDED for v in g})
    return out


def describe_devices(table, fallback: str = "?") -> str:
    """"cpu (AMD EPYC), cuda (NVIDIA H100 80GB HBM3; not recorded)": each device of the runs
    with the models that computed them (a device none of whose runs names its model: the device
    alone); `fallback` when the table names no device."""
    names = device_names(table)
    if not names:
        return fallback
    return ", ".join(dev if n == [NOT_RECORDED] else f"{dev} ({'; '.join(n)})"
                     for dev, n in names.items())


def command(name, T, n_seeds, seed, eval_every, smoke, arms, out, data_dir=None,
            device="cpu") -> str:
    """The command that reproduces the stored runs; ``--device cuda`` when a GPU computed every
    one of them (``auto`` would take the CPU on a machine without one and compute other float32
    roundings). ``device`` is the manifest's "cpu", "cuda" or "cpu, cuda": for runs of both, no
    one command reproduces every rounding, and the report names each run's device."""
    parts = ["fedcomp neural run", name, f"--iterations {T}", f"--seeds {n_seeds}"]
    if device == "cuda":
        parts.append("--device cuda")
    if seed:
        parts.append(f"--seed {seed}")
    if eval_every:
        parts.append(f"--eval-every {eval_every}")
    if smoke:
        parts.append("--smoke")
    parts += [f"--arm {a}" for a in (arms or [])]
    if data_dir:
        parts.append(f"--data-dir {data_dir}")
    parts.append(f"--out {out}")
    return " ".join(parts)


_READ: dict = {}   # folder -> (signature, (manifest, whole table)): see _read


def _signature(path: Path) -> tuple:
    """Name, size and modification time of the manifest and of every file of the store: any
    part written, replaced or removed, or a manifest rewritten, changes it."""
    entries = []
    for d in (path, path / "store"):
        with os.scandir(d) as it:
            for e in it:
                if e.is_file() and (d != path or e.name == "manifest.json"):
                    st = e.stat()
                    entries.append((d.name, e.name, st.st_size, st.st_mtime_ns))
    return tuple(sorted(entries))


def _read(name: str, folder=None):
    """(manifest, the store's whole table, the folder), or None without a manifest or store.
    Read once per process while the folder's files stay the same (a claim's check reads its
    experiment's store for each cell and each reading); the table is shared, so callers select
    from it and never change it in place, and the manifest is a fresh copy each time."""
    from fedcomp.runner.store import ResultStore
    path = experiment_dir(name, folder)
    man = path / "manifest.json"
    if not man.exists() or not (path / "store").is_dir():
        return None
    key, sig = str(path.resolve()), _signature(path)
    hit = _READ.get(key)
    if hit is None or hit[0] != sig:
        if len(_READ) >= 16:   # a process reading many folders (the tests) keeps the last few
            _READ.clear()
        hit = (sig, (man.read_text(), ResultStore(path / "store").table()))
        _READ[key] = hit
    text, whole = hit[1]
    return json.loads(text), whole, path


def load(name: str, folder=None) -> StoredExperiment | None:
    """The stored runs of experiment `name` at the manifest's budget, arms and seeds (None when
    the folder, the manifest or the runs are missing). `folder`: the experiment's folder
    (default ``default_root() / name``)."""
    read = _read(name, folder)
    if read is None:
        return None
    manifest, whole, path = read
    table = select(whole, name, manifest["iterations"], manifest.get("eval_every"),
                   manifest.get("arms"), manifest.get("seeds"))
    if table.empty:
        return None
    return StoredExperiment(table, manifest, path)


def _manifest_configs(table: pd.DataFrame, configs: dict) -> pd.DataFrame:
    """The rows of `table` whose run was made with the manifest's configuration of its arm
    (``configs``: arm -> hash): rows that record none (``arm_config`` absent or NaN, runs stored
    before rows recorded it) and arms the manifest has no configuration for are kept."""
    if "arm_config" not in table or not configs:
        return table
    want = table["arm"].map(configs)
    return table[table["arm_config"].isna() | want.isna() | (table["arm_config"] == want)]


def complete_budgets(name: str, folder=None) -> dict:
    """{(iterations, eval_every): [arms]}: every budget of the store (the manifest's too) with
    the arms that have a run there for each of the manifest's seeds, made with the manifest's
    configuration of the arm (the runs' ``arm_config`` column, where the runs record one: a run
    of another configuration never counts; runs stored before rows recorded it are taken as
    they are). ``eval_every`` is None for "every model round". Arms in the manifest's order;
    budgets without a complete arm are left out."""
    read = _read(name, folder)
    if read is None or read[1].empty:
        return {}
    manifest, whole, _ = read
    whole = _manifest_configs(whole[whole["experiment"] == name], manifest.get("configs") or {})
    seeds = set(manifest.get("seeds") or whole["seed"].unique())
    order = manifest_order(manifest, whole["arm"])
    found = whole["run_id"].astype(str).str.extract(r":T(\d+):E(\w+)$")
    out = {}
    for (T, E), g in whole.groupby([found[0], found[1]]):
        budget = (int(T), None if E == "round" else int(E))
        arms = [a for a in order
                if seeds <= {int(s) for s in g.loc[g["arm"] == a, "seed"].unique()}]
        if arms:
            out[budget] = arms
    return out


def load_largest(name: str, arms, folder=None) -> StoredExperiment | None:
    """The stored runs of `arms` at the largest budget (most iterations; at equal iterations
    the manifest's budget first, then the finer evaluation spacing) at which each of them is
    complete (:func:`complete_budgets`), so that a claim is judged on the most training the
    store holds for the arms it compares, never mixing budgets; None when no budget has them
    all (see :func:`load_budget` for the manifest it carries)."""
    arms = list(arms)
    fits = [b for b, have in complete_budgets(name, folder).items() if set(arms) <= set(have)]
    if not fits:
        return None
    read = _read(name, folder)
    mine = (read[0]["iterations"], read[0].get("eval_every"))
    best = max(fits, key=lambda b: (b[0], b == mine, -(b[1] or 0)))
    return load(name, folder) if best == mine else load_budget(name, best, arms, folder)


def load_budget(name: str, budget, arms, folder=None) -> StoredExperiment | None:
    """The stored runs of `arms` at `budget` = (iterations, eval_every) for the manifest's seeds
    (runs of another configuration left out, as in :func:`complete_budgets`), with the folder's
    manifest set to that budget, those arms and seeds, the devices and torch builds of those
    runs and the command that reproduces them (the folder's command with that budget, and
    ``--arm`` for each arm when they are not the experiment's every arm); None when there are
    none."""
    read = _read(name, folder)
    if read is None:
        return None
    manifest, whole, path = read
    T, E = budget
    arms = list(arms)
    table = _manifest_configs(select(whole, name, T, E, arms, manifest.get("seeds")),
                              manifest.get("configs") or {}).reset_index(drop=True)
    if table.empty:
        return None
    devices = distinct(table.get("device")) or manifest.get("device", "?")
    seeds = sorted(int(s) for s in table["seed"].unique())
    cmd = _command_for(manifest, name, T, E, seeds, arms, devices)
    return StoredExperiment(table, {**manifest, "iterations": T, "eval_every": E,
                                    "arms": arms, "seeds": seeds, "device": devices,
                                    "torch": distinct(table.get("torch"))
                                    or manifest.get("torch"), "command": cmd}, path)


def _command_for(manifest, name, T, E, seeds, arms, devices) -> str:
    """The command that stores `arms` at budget (T, E) for `seeds` in the folder of `manifest`
    (its --out and --data-dir; ``--arm`` for each arm unless they are all of its arms)."""
    first = manifest.get("command", "").split(";")[0].split()
    flag = {k: v for k, v in zip(first, first[1:]) if k in ("--out", "--data-dir")}
    every = manifest.get("arms") or []
    return command(name, T, len(seeds), seeds[0], E, manifest.get("smoke"),
                   None if set(arms) >= set(every) else arms,
                   flag.get("--out", f"results/neural/{name}"), flag.get("--data-dir"), devices)


def missing_at_largest(name: str, arms, folder=None) -> tuple | None:
    """(budget, the arms of `arms` without a complete run there, the command that stores them)
    for the largest budget at which some of `arms` are complete, when :func:`load_largest` has
    to judge them together at a smaller one; None when it reads them at the largest."""
    arms = list(arms)
    budgets = complete_budgets(name, folder)
    some = [b for b, have in budgets.items() if set(arms) & set(have)]
    if not some:
        return None
    largest = max(some, key=lambda b: b[0])
    missing = [a for a in arms if a not in budgets[largest]]
    together = [b for b, have in budgets.items() if set(arms) <= set(have)]
    if not missing or any(b[0] >= largest[0] for b in together):
        return None
    manifest, whole, _ = _read(name, folder)
    present = select(whole, name, largest[0], largest[1])
    devices = distinct(present.get("device")) or manifest.get("device", "cpu")
    seeds = sorted(int(x) for x in (manifest.get("seeds") or present["seed"].unique()))
    return largest, missing, _command_for(manifest, name, largest[0], largest[1], seeds, missing,
                                          devices)


def select(table: pd.DataFrame, name: str, iterations: int, eval_every=None, arms=None,
           seeds=None) -> pd.DataFrame:
    """The rows of a store's table that belong to experiment `name` at one budget (iterations
    and evaluation spacing, both in the run id), optionally only some arms and seeds."""
    if table.empty:
        return table
    suffix = f":T{int(iterations)}:E{eval_every or 'round'}"
    table = table[(table["experiment"] == name)
                  & table["run_id"].astype(str).str.endswith(suffix)]
    if arms:
        table = table[table["arm"].isin(arms)]
    if seeds:
        table = table[table["seed"].isin(seeds)]
    return table.reset_index(drop=True)
