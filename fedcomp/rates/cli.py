"""``fedcomp sweep``: a theorem-schedule sweep over T x K x seeds, stored and fitted.

(``fedcomp verify`` is in :mod:`fedcomp.report`.)
"""
from __future__ import annotations

import json

from fedcomp._jsonsafe import clean

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
    # output paths before the work: they used to fail after every run had finished (--figure),
    # losing the results, or with a FileExistsError traceback (--store at a file)
    from fedcomp import _validate as V
    if args.store is not None:
        V.output_dir("--store", args.store)
    if args.figure is not None:
        if len(args.T) < 2 and len(args.K) < 2:
            raise ValueError("--figure needs at least two --T or two --K values (a fit to draw)")
        from matplotlib.backend_bases import FigureCanvasBase
        V.output_file("--figure", args.figure,
                      formats=set(FigureCanvasBase.get_supported_filetypes()))


def _fit_row(summary, over: str, fixed: dict) -> dict:
    """One fit of the sweep as a row; with fewer than 2 grid points left by divergence there is
    no fit, and the row is inconclusive with the reason (it used to end the command with an
    error after every run had finished)."""
    from fedcomp.rates.analysis import exponent
    from fedcomp.rates.fit import upper_bound_verdict
    try:
        fit = exponent(summary, over, **fixed)
    except ValueError as exc:
        return {"over": over, **fixed, "slope": None, "interval": [None, None],
                "predicted": -0.5, "verdict": "inconclusive", "reason": f"no fit: {exc}",
                "n_seeds": None, "n_points": 0, "n_dropped": None, "dropped_x": None,
                "n_missing_runs": None, "losses": str(exc)}
    v = upper_bound_verdict(fit, -0.5)
    return {"over": over, **fixed, "slope": fit.slope, "interval": [fit.low, fit.high],
            "predicted": -0.5, "verdict": v.verdict, "reason": v.reason,
            "n_seeds": fit.n_seeds, "n_points": fit.n_points, "n_dropped": fit.n_dropped,
            "dropped_x": fit.dropped_x, "n_missing_runs": fit.n_missing_runs,
            "losses": fit.losses()}


def _sweep(args) -> int:
    """``fedcomp sweep``: a theorem-schedule sweep over T x K x seeds, stored and fitted."""
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
        fits += [("T", {"K": K}) for K in args.K]
    if len(args.K) >= 2:
        fits.append(("K", {"T": max(args.T)}))
    rows = [_fit_row(summary, over, fixed) for over, fixed in fits]
    if args.json:
        print(json.dumps(clean({"fits": rows, "runs": len(summary),
                                 "diverged": int(summary["diverged"].sum())}), indent=2))
    else:
        for r in rows:
            fixed = ", ".join(f"{k}={r[k]}" for k in ("K", "T") if k in r)
            if r["slope"] is None:  # no fit: too few grid points kept a finite run
                print(f"E||grad Phi||^2 vs {r['over']} ({fixed}): {r['verdict']} "
                      f"({r['reason']})")
                continue
            print(f"E||grad Phi||^2 vs {r['over']} ({fixed}): slope {r['slope']:+.3f} "
                  f"[{r['interval'][0]:+.3f}, {r['interval'][1]:+.3f}], predicted <= -0.5: "
                  f"{r['verdict']}" + (f" ({r['losses']})" if r["losses"] else ""))
        print(f"{len(summary)} runs ({int(summary['diverged'].sum())} diverged)"
              + (f"; stored in {args.store}" if args.store else ""))
    if args.figure and fits:  # after the results are printed: a figure never costs them
        from fedcomp.figures.rates import rate_figure
        over, fixed = fits[0]
        rate_figure(summary, args.figure, over=over, predicted=-0.5,
                    title=f"{args.algorithm} on {args.problem}", **fixed)
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
