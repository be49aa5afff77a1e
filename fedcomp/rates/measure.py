"""Sweeps over (T, K) and seeds with a theorem's schedule, and the per-run measured quantities.

**What is measured.** The theorems bound E||grad Phi(xbar^{a(T)})||^2 with a(T) uniform on
{1, ..., T} and the expectation over a(T) and the samples. For one run the expectation over a(T) is
the mean of ||grad Phi(xbar^t)||^2 over t = 1..T; we estimate it by the mean over the recorded
iterates t = r, 2r, ..., T (``record_every`` r; exact when r = 1, a Riemann sum of the same
average otherwise; sweeps use r = max(1, T // max_records)), and the expectation over samples by
the mean over seeds (independent runs). This is ``avg_grad_sq``. Final-iterate variants:
``final_grad_sq`` = ||grad Phi(xbar^T)||^2 (what a user who returns the last model gets) and
``tail_grad_sq`` = the mean over the last 10 % of the recorded iterates. The gradient is the
exact grad Phi of the problem (the engine's recorder), never a sampled one.

Communication: ``rounds`` = model-parameter rounds (ledger), ``floats_per_client`` = all floats
uploaded by all clients divided by K (``floats_x``, ``floats_y`` per variable). Samples per client:
T (each algorithm here draws one sample zeta_k^t per client and iteration; FedDRO evaluates it at
two points).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from fedcomp.runner import RunSpec, run_specs
from fedcomp.runner.results import code_and_data

# the session's executor lives with the executors (checks of every layer use it); re-exported
# here, where `fedcomp verify --executor` and older code look for it
from fedcomp.runner.executors import DEFAULT_EXECUTOR, set_executor  # noqa: E402,F401


def diverged_runs(runs, **where) -> list[dict]:
    """The diverged runs among `runs` (:class:`fedcomp.engine.SimResult` objects) as JSON-able
    records ``{**where, "seed": s, "t": iteration}``: where a measurement leaves a run out, it
    names it with the iteration at which it diverged (:func:`diverged_text`)."""
    return [{**where, "seed": int(r.seed), "t": int(r.diverged_at)} for r in runs if r.diverged]


def diverged_text(items: list[dict], lead: str = "") -> str:
    """'' when no run diverged; else `lead` and one sentence naming each diverged run: its grid
    point, seed and the iteration t at which it diverged (the records of :func:`diverged_runs`;
    `lead`, e.g. "; ", joins it to the detail it ends)."""
    if not items:
        return ""

    def one(d):
        at = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                       for k, v in d.items() if k not in ("seed", "t"))
        return f"{at + ' ' if at else ''}seed {d['seed']} at t={d['t']}"
    return (f"{lead}{len(items)} run(s) diverged, left out of their point's mean: "
            + "; ".join(one(d) for d in items))


@dataclass
class Sweep:
    """A grid of (T, K) x seeds for one algorithm, problem family and schedule.

    Parameters
    ----------
    name : str
        Label stored with the rows (``label_sweep``).
    problem : str
        ``"module:qualname"`` of the problem constructor.
    problem_args : callable K -> dict
        Constructor arguments for K clients.
    algorithm : str
    schedule : callable (T, K) -> dict
        Keyword arguments of :func:`fedcomp.simulate` (eta, local_steps, hyperparameters).
    points : list of (T, K)
    seeds : int
        Seeds 0 .. seeds-1 at every point.
    max_records : int
        At most this many recorded iterates per run (record_every = max(1, T // max_records)).
    """
    name: str
    problem: str
    problem_args: Callable[[int], dict]
    algorithm: str
    schedule: Callable[[int, int], dict]
    points: list
    seeds: int = 16
    max_records: int = 1024
    x0: list | None = None
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        from fedcomp import _validate as V
        # checked here: 0 seeds used to surface as KeyError 'run_id', 0 records as
        # ZeroDivisionError, far from the argument that caused them
        self.seeds = V.positive_int("seeds", self.seeds)
        self.max_records = V.positive_int("max_records", self.max_records)
        if not self.points:
            raise ValueError("points must contain at least one (T, K) pair")
        for T, K in self.points:
            V.positive_int("T", T)
            V.positive_int("K", K)

    def specs(self) -> list[RunSpec]:
        """The runs. Labels carry the sweep name, a digest of the compiled code (algorithm steps,
        problem kernels, engine) and the problem data's fingerprint, so a stored run is reused
        only while neither the code nor the data changed."""
        out = []
        for T, K in self.points:
            params = {"iterations": int(T), "stochastic": True,
                      "record_every": max(1, int(T) // self.max_records),
                      **self.schedule(int(T), int(K)), **self.extra}
            if self.x0 is not None:
                params["x0"] = list(self.x0)
            args = self.problem_args(int(K))
            labels = {"sweep": self.name, **code_and_data(self.problem, args, self.algorithm)}
            spec = RunSpec(self.problem, args, self.algorithm, params, 0, labels)
            out += [spec.with_seed(s) for s in range(self.seeds)]
        return out

    def run(self, store_dir: Path | str | None = None, **executor) -> pd.DataFrame:
        """Run (or resume) the sweep; return the per-run summary (:func:`summarize`)."""
        opts = {**DEFAULT_EXECUTOR, **executor}
        table = run_specs(self.specs(), store=store_dir, desc=self.name, columns=SUMMARY_INPUTS,
                          **opts)
        return summarize(table)

    def final_model_norms(self, store_dir: Path | str, **executor) -> dict:
        """{T: the largest Euclidean norm of a run's final average model at T} over the sweep's
        runs (read from `store_dir`, running any run not stored yet). The runs record their
        final average model only, not their paths; a diverged run's is its last finite average
        (fedcomp.engine), so divergence must be read from the summary (``diverged``), not from
        these norms."""
        import json
        opts = {**DEFAULT_EXECUTOR, **executor, "progress": False}
        table = run_specs(self.specs(), store=store_dir, desc=self.name,
                          columns=("iterations", "result"), **opts)
        out: dict = {}
        for T, res in table.drop_duplicates("run_id")[["iterations", "result"]].itertuples(
                index=False):
            x = np.asarray(json.loads(res)["x_bar"], dtype=float)
            if np.all(np.isfinite(x)):
                out[int(T)] = max(out.get(int(T), 0.0), float(np.linalg.norm(x)))
        return dict(sorted(out.items()))


# the columns of a run table that summarize reads
SUMMARY_INPUTS = ("run_id", "config_hash", "algorithm", "t", "iterations", "K", "d", "d_g", "seed",
                  "eta", "local_steps", "grad_norm_sq", "diverged_at", "rounds_total",
                  "floats_sent_total", "floats_x_total", "floats_y_total", "label_sweep")


def summarize(table: pd.DataFrame) -> pd.DataFrame:
    """One row per run: T, K, seed, avg_grad_sq, final_grad_sq, tail_grad_sq, rounds,
    floats_per_client, floats_x, floats_y, local_steps, eta, diverged (see module docstring).
    A diverged run has NaN measured quantities."""
    rows = []
    if len(table):
        # the runs in order of first appearance, each one's rows by t (one sort for all: a
        # groupby with a sort and a dozen scalar lookups per run cost most of the time)
        codes = pd.factorize(table["run_id"], sort=False)[0]
        t_all = table["t"].to_numpy()
        order = np.lexsort((t_all, codes))
        codes_s = codes[order]
        starts = np.flatnonzero(np.r_[True, codes_s[1:] != codes_s[:-1]])
        ends = np.r_[starts[1:], len(order)]
        gn_all = table["grad_norm_sq"].to_numpy()
        for lo, hi, f in zip(starts, ends, table.iloc[order[starts]].to_dict("records")):
            seg = order[lo:hi]
            T = int(f["iterations"])
            K = int(f["K"])
            d_at = f["diverged_at"]
            diverged = bool(pd.notna(d_at) and int(d_at) >= 0)  # null (or -1 in old tables)
            tt = t_all[seg]
            gn = gn_all[seg][(tt >= 1) & (tt <= T)]
            if diverged or len(gn) == 0:
                avg = final = tail = np.nan
            else:
                avg = float(gn.mean())
                final = float(gn[-1])
                tail = float(gn[-max(1, len(gn) // 10):].mean())
            floats_y = f.get("floats_y_total", 0)
            rows.append({"run_id": f["run_id"], "config_hash": f["config_hash"],
                         "algorithm": f["algorithm"], "T": T, "K": K,
                         "d": int(f["d"]), "d_g": int(f["d_g"]), "seed": int(f["seed"]),
                         "eta": float(f["eta"]), "local_steps": int(f["local_steps"]),
                         "avg_grad_sq": avg, "final_grad_sq": final, "tail_grad_sq": tail,
                         "rounds": int(f["rounds_total"]),
                         "floats_per_client": float(f["floats_sent_total"]) / K,
                         "floats_x": int(f.get("floats_x_total", 0)),
                         "floats_y": int(floats_y) if pd.notna(floats_y) else 0,
                         "diverged": diverged, "diverged_at": int(d_at) if diverged else -1,
                         "sweep": f.get("label_sweep", "")})
    out = pd.DataFrame(rows)
    return out.sort_values(["sweep", "K", "T", "seed"]).reset_index(drop=True) if len(out) else out


def matrix(summary: pd.DataFrame, over: str, quantity: str = "avg_grad_sq", **fixed):
    """Grid values of `over` ("T" or "K") and the (n_seeds, n_points) array of `quantity`, for
    the rows matching `fixed` (e.g. K=8). Missing or diverged runs are NaN."""
    sub = summary
    for k, v in fixed.items():
        sub = sub[sub[k] == v]
    if sub.empty:
        raise ValueError(f"no runs match {fixed}")
    piv = sub.pivot_table(index="seed", columns=over, values=quantity, aggfunc="first",
                          dropna=False)
    piv = piv.sort_index(axis=1)
    return piv.columns.to_numpy(dtype=float), piv.to_numpy(dtype=float)


def seed_means(summary: pd.DataFrame, quantity: str, by=("K", "T")) -> pd.DataFrame:
    return summary.groupby(list(by))[quantity].mean().reset_index()
