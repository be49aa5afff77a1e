"""``fedcomp verify``: run the checks of the registered claims and write a report.

::

    fedcomp verify [--claim ID ...] [--profile quick|full] [--json] [--out DIR]
                   [--executor inprocess|process|dask] [--address tcp://host:port] [--workers N]

Every claim of :func:`fedcomp.theory.claims.all_claims` that has a check is run (or those named
with ``--claim``); claims without a check are listed as not-checked. A check that raises is
reported as inconclusive with the error; it never stops the others. The report goes to DIR
(default ``./report``): ``report.md`` (per claim: statement, prediction, measurement with its
interval, verdict, figures, the command that reproduces it, seconds taken) and ``report.json``.
With ``--json`` the JSON of CONTRACT.md is printed:
``{"claims": [{"id", "verdict", "predicted", "measured", "detail"}, ...]}`` (plus ``status``,
``interval``, ``figures``, ``seconds`` per claim and ``profile``, ``seconds`` overall).

The rate checks keep their runs under DIR/data (resumable Parquet stores): a rerun into the same
DIR reuses finished runs whose code and data did not change.
"""
from __future__ import annotations

import datetime
import json
import math
import os
import platform
import sys
import time
from pathlib import Path

PROFILES = ("quick", "full")


def _clean(obj):
    """JSON-safe copy: numpy scalars to Python, non-finite floats to strings."""
    import numpy as np
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, np.ndarray):
        return _clean(obj.tolist())
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return obj
    return str(obj)


def run_verify(claim_ids=None, profile: str = "quick", out="report", log=sys.stderr) -> dict:
    """Run the checks and write the report; return the report as a dict (see module docstring).
    """
    from fedcomp.rates.checks import timed
    from fedcomp.theory.claims import all_claims
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {', '.join(PROFILES)}, got {profile!r}")
    claims = all_claims()
    known = {c.id: c for c in claims}
    if claim_ids:
        unknown = [c for c in claim_ids if c not in known]
        if unknown:
            raise ValueError(f"unknown claim(s) {unknown}; `fedcomp claims` lists them: "
                             f"{', '.join(sorted(known))}")
        claims = [known[c] for c in dict.fromkeys(claim_ids)]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    c0 = time.process_time()
    rows = []
    for c in claims:
        cmd = f"fedcomp verify --claim {c.id} --profile {profile}"
        if c.check is None:
            rows.append({"id": c.id, "verdict": "inconclusive", "status": "not-checked",
                         "predicted": c.predicted, "measured": None,
                         "detail": "not checked: no check is built for this claim yet",
                         "interval": None, "figures": [], "seconds": 0.0, "cpu_seconds": 0.0,
                         "statement": c.statement, "location": c.location, "kind": c.kind,
                         "paper": c.to_dict()["paper"], "command": cmd})
            continue
        print(f"[verify] {c.id} ({profile}) ...", file=log, flush=True)
        cpu0 = time.process_time()
        res, secs = timed(c.run_check, profile, out)
        cpu = time.process_time() - cpu0
        print(f"[verify] {c.id}: {res.verdict} in {secs:.1f} s (CPU {cpu:.1f} s)", file=log,
              flush=True)
        figs = []
        for f in res.figures or []:
            p = Path(f)
            try:
                figs.append(str(p.resolve().relative_to(out.resolve())))
            except ValueError:
                figs.append(str(p))
        rows.append({"id": c.id, "verdict": res.verdict, "status": "checked",
                     "predicted": res.predicted, "measured": res.measured, "detail": res.detail,
                     "interval": list(res.interval) if res.interval is not None else None,
                     "figures": figs, "seconds": round(secs, 2),
                     "cpu_seconds": round(cpu, 2), "statement": c.statement,
                     "location": c.location, "kind": c.kind, "paper": c.to_dict()["paper"],
                     "command": cmd})
    total = time.perf_counter() - t0
    cpu_total = time.process_time() - c0
    report = _clean({"profile": profile, "seconds": round(total, 1),
                     "cpu_seconds": round(cpu_total, 1),
                     "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
                         timespec="seconds"),
                     "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
                                f"Python {platform.python_version()}",
                     "claims": rows})
    (out / "report.json").write_text(json.dumps(report, indent=2))
    (out / "report.md").write_text(markdown(report))
    return report


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:+.3f}" if abs(v) < 100 else f"{v:.3g}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v)


def _cell(v) -> str:
    """Markdown table cell: pipes escaped (E||grad||^2 would otherwise split the cell)."""
    return str(v).replace("|", "\\|")


def _rounded(obj):
    if isinstance(obj, dict):
        return {k: _rounded(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_rounded(v) for v in obj]
    if isinstance(obj, float):
        return float(f"{obj:.4g}")
    return obj


def verdict_table(report: dict) -> str:
    lines = ["| claim | verdict | wall s | CPU s | command |", "|---|---|---|---|---|"]
    for r in report["claims"]:
        v = r["verdict"] if r["status"] == "checked" else "not-checked"
        lines.append(f"| {r['id']} | **{v}** | {r['seconds']} | {r.get('cpu_seconds', '')} | "
                     f"`{r['command']}` |")
    return "\n".join(lines)


def summary_markdown(report: dict, command: str) -> str:
    """The measured time and the verdict table of a report, for docs/verify.md and the README."""
    counts: dict = {}
    for r in report["claims"]:
        v = r["verdict"] if r["status"] == "checked" else "not-checked"
        counts[v] = counts.get(v, 0) + 1
    tally = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
    return "\n".join([
        f"Command: `{command}`", "",
        f"Measured {report['date']} on {report['machine']}: **{report['seconds']} s wall clock, "
        f"{report['cpu_seconds']} s CPU time** for {len(report['claims'])} claims ({tally}).",
        "", verdict_table(report)])


def markdown(report: dict) -> str:
    out = [f"# fedcomp verify report ({report['profile']} profile)", "",
           f"Generated {report['date']} on {report['machine']}; total {report['seconds']} s wall "
           f"clock, {report.get('cpu_seconds', '?')} s CPU time of this process (numba threads "
           f"included; checks that start subprocesses are not counted).", "",
           "Verdicts: **pass** = the measurement is consistent with the claim (for an O(.) "
           "bound: the measured exponent's 95 % interval is not slower than predicted); "
           "**fail** = the interval excludes it; **inconclusive** = the interval is too wide, "
           "the check could not decide or raised.", "", verdict_table(report), ""]
    for r in report["claims"]:
        out += [f"## {r['id']} -- {r['location']}", "",
                f"*{r['paper']}* ({r['kind']})", "", f"**Statement.** {r['statement']}", "",
                f"**Prediction.** `{json.dumps(r['predicted'])}`", "",
                f"**Verdict: {r['verdict'] if r['status'] == 'checked' else 'not-checked'}**"
                f" ({r['seconds']} s)", ""]
        m = r["measured"]
        if isinstance(m, dict) and isinstance(m.get("parts"), list):
            out += ["| part | verdict | slope | 95 % interval | predicted |",
                    "|---|---|---|---|---|"]
            for p in m["parts"]:
                cells = (p.get("part"), p.get("verdict"), _fmt(p.get("slope")),
                         _fmt(p.get("interval")), _fmt(p.get("predicted")))
                out.append("| " + " | ".join(_cell(c) for c in cells) + " |")
            rest = {k: v for k, v in m.items() if k != "parts"}
            if rest:
                out += ["", "Also measured (not judged): `" + json.dumps(_rounded(rest)) + "`"]
        elif m is not None:
            out += ["**Measured.**", "", "```json", json.dumps(m, indent=1)[:4000], "```"]
        if r.get("interval"):
            out += ["", f"Interval (first part): {_fmt(r['interval'])}"]
        out += ["", "**Detail.** " + str(r["detail"]).replace("\n", "  \n"), ""]
        for f in r["figures"]:
            out += [f"![{r['id']}]({f})", ""]
        out += [f"Reproduce: `{r['command']}`", ""]
    return "\n".join(out)


def _verify(args) -> int:
    from fedcomp.rates.measure import set_executor
    set_executor(executor=args.executor, address=args.address, workers=args.workers,
                 progress=not args.json and sys.stderr.isatty())
    report = run_verify(args.claim, args.profile, args.out,
                        log=sys.stderr)
    if args.json:
        print(json.dumps({"claims": [{k: r[k] for k in ("id", "verdict", "predicted", "measured",
                                                         "detail", "status", "interval",
                                                         "figures", "seconds")}
                                     for r in report["claims"]],
                          "profile": report["profile"], "seconds": report["seconds"],
                          "cpu_seconds": report["cpu_seconds"]},
                         indent=2))
    else:
        print(verdict_table(report))
        print(f"\n{len(report['claims'])} claims in {report['seconds']} s wall clock "
              f"({report['cpu_seconds']} s CPU); report: {Path(args.out) / 'report.md'}")
    return 0


_PROBLEMS = {
    "lq": ("fedcomp.rates.problems:heterogeneous_linear",
           lambda K: {"num_clients": K, "dim": 10, "inner_dim": 5, "heterogeneity": 1.0,
                      "noise": 1.0, "seed": 0, "huber_radius": 20.0}),
    "kl": ("fedcomp.problems.dro:KLDRO.synthetic",
           lambda K: {"num_clients": K, "samples_per_client": 100, "dim": 10,
                      "feature_shift": 1.0, "label_imbalance": 1.0, "seed": 0, "lam": 1.0,
                      "batch_size": 4}),
}


def _check_sweep_args(args) -> None:
    """One-line errors naming the option and its range (``fedcomp: error: ...``), before any
    work starts: bad values used to fail deep inside the sweep with a traceback."""
    for name in ("seeds", "max_records", "workers"):
        v = getattr(args, name)
        if v is not None and v < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be an integer >= 1, got {v}")
    for name in ("T", "K"):
        bad = [v for v in getattr(args, name) if v < 1]
        if bad:
            raise ValueError(f"--{name} values must be integers >= 1, got {bad[0]}")
    if not args.connect_timeout > 0:
        raise ValueError(f"--connect-timeout must be a number of seconds > 0, got "
                         f"{args.connect_timeout:g}")
    if args.address is not None and args.executor != "dask":
        raise ValueError("--address needs --executor dask")


def _sweep(args) -> int:
    """``fedcomp sweep``: a theorem-schedule sweep over T x K x seeds, stored and fitted."""
    from fedcomp.rates.analysis import exponent
    from fedcomp.rates.fit import upper_bound_verdict
    from fedcomp.rates.measure import Sweep
    from fedcomp.rates.schedules import theory_schedule
    _check_sweep_args(args)
    ctor, pargs = _PROBLEMS[args.problem]
    points = [(T, K) for K in args.K for T in args.T]
    sw = Sweep(f"{args.algorithm}-{args.problem}", ctor, pargs, args.algorithm,
               theory_schedule(args.algorithm), points, seeds=args.seeds,
               max_records=args.max_records)
    summary = sw.run(args.store, executor=args.executor, address=args.address,
                     workers=args.workers, progress=not args.json,
                     connect_timeout=args.connect_timeout)
    fits = []
    if len(args.T) >= 2:
        for K in args.K:
            fits.append(("T", {"K": K}, exponent(summary, "T", K=K)))
    if len(args.K) >= 2:
        fits.append(("K", {"T": max(args.T)}, exponent(summary, "K", T=max(args.T))))
    rows = []
    for over, fixed, fit in fits:
        v = upper_bound_verdict(fit, -0.5)
        rows.append({"over": over, **fixed, "slope": fit.slope, "interval": [fit.low, fit.high],
                     "predicted": -0.5, "verdict": v.verdict, "n_seeds": fit.n_seeds,
                     "n_points": fit.n_points, "n_dropped": fit.n_dropped,
                     "dropped_x": fit.dropped_x, "n_missing_runs": fit.n_missing_runs,
                     "losses": fit.losses()})
    if args.figure and fits:
        from fedcomp.figures.rates import rate_figure
        over, fixed, _ = fits[0]
        rate_figure(summary, args.figure, over=over, predicted=-0.5,
                    title=f"{args.algorithm} on {args.problem}", **fixed)
    if args.json:
        print(json.dumps(_clean({"fits": rows, "runs": len(summary),
                                 "diverged": int(summary["diverged"].sum())}), indent=2))
    else:
        for r in rows:
            fixed = ", ".join(f"{k}={r[k]}" for k in ("K", "T") if k in r)
            print(f"E||grad Phi||^2 vs {r['over']} ({fixed}): slope {r['slope']:+.3f} "
                  f"[{r['interval'][0]:+.3f}, {r['interval'][1]:+.3f}], predicted <= -0.5: "
                  f"{r['verdict']}" + (f" ({r['losses']})" if r["losses"] else ""))
        print(f"{len(summary)} runs ({int(summary['diverged'].sum())} diverged)"
              + (f"; stored in {args.store}" if args.store else ""))
    return 0


def add_cli(sub) -> None:
    from fedcomp.runner import EXECUTORS
    q = sub.add_parser("sweep", help="run a theorem-schedule sweep over T, K and seeds and fit "
                                     "the exponents",
                       description="Sweep FedDRO / DS-FedDRO / modified FedAvg with the "
                                   "schedule of their theorem (fedcomp.rates.schedules) over "
                                   "T x K x seeds, store the runs (resumable) and fit the "
                                   "exponents of E||grad Phi||^2 in T and K.")
    q.add_argument("algorithm", choices=["feddro", "ds-feddro", "fedavg-modified"])
    q.add_argument("--problem", choices=sorted(_PROBLEMS), default="lq")
    q.add_argument("--T", type=int, nargs="+", default=[2 ** k for k in range(9, 15)])
    q.add_argument("--K", type=int, nargs="+", default=[8])
    q.add_argument("--seeds", type=int, default=16)
    q.add_argument("--max-records", type=int, default=1024)
    q.add_argument("--store", default=None, metavar="DIR",
                   help="Parquet result store (resumable); default: in memory")
    q.add_argument("--executor", choices=EXECUTORS, default="process")
    q.add_argument("--address", default=None, metavar="tcp://host:port")
    q.add_argument("--workers", type=int, default=None)
    q.add_argument("--connect-timeout", type=float, default=10.0, metavar="SECONDS",
                   help="give up on an unreachable --address after this long (default 10)")
    q.add_argument("--figure", default=None, metavar="PNG")
    q.add_argument("--json", action="store_true")
    q.set_defaults(func=_sweep)

    p = sub.add_parser("verify", help="check the papers' claims and write a report",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("--claim", action="extend", nargs="+", metavar="ID",
                   help="check only these claims (repeatable); default: every claim")
    p.add_argument("--profile", choices=PROFILES, default="quick",
                   help="quick: minutes on a laptop; full: paper-scale grids")
    p.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    p.add_argument("--out", default="report", metavar="DIR",
                   help="report directory (default ./report)")
    p.add_argument("--executor", choices=EXECUTORS, default="inprocess",
                   help="where the rate sweeps run (default inprocess: numba threads)")
    p.add_argument("--address", default=None, metavar="tcp://host:port",
                   help="Dask scheduler for --executor dask (default: a LocalCluster)")
    p.add_argument("--workers", type=int, default=None,
                   help="process-pool / LocalCluster workers (default: all cores)")
    p.set_defaults(func=_verify)
